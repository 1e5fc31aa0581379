//! A merge job written to its output: the Pajé text goes through a pipe
//! into a check (a merge that succeeds writes a trace trama accepts) and
//! the output, or into the converter for a `.ptb` (which follows the
//! simulation and says where it rejects). The output appears whole or not
//! at all, never onto one of the job's inputs.

use std::io::{BufWriter, Read, Write};
use std::path::{Path, PathBuf};

use trama_open::{LoadOptions, Output, TextPipe};

use crate::{Job, JobError, MergeStats};

/// Why a merged trace was not written.
type Failure = Box<dyn std::error::Error + Send + Sync>;

impl Job {
    /// Every file the job reads: the plan, its entries' files, machine
    /// files and the timesync file.
    pub fn inputs(&self) -> Vec<PathBuf> {
        let mut inputs = vec![self.plan_path.clone()];
        inputs.extend(self.files.iter().flatten().cloned());
        inputs.extend(
            self.plan
                .sources
                .iter()
                .filter_map(|s| s.machinefile.clone()),
        );
        inputs.extend(self.sync.iter().map(|s| s.0.clone()));
        inputs
    }

    /// Runs the job into `output` (`-`: standard output): `.ptb` as
    /// trama's binary format, anything else as Pajé text; see
    /// [`Job::run`] for `notes` and `progress`. A merged trace the check
    /// rejects is [`JobError::Rejected`].
    pub fn write(
        self,
        output: &Path,
        mut notes: impl FnMut(String) + Send + 'static,
        mut progress: impl FnMut(u64) + Send + 'static,
    ) -> Result<MergeStats, JobError> {
        let inputs = self.inputs();
        let inputs: Vec<&Path> = inputs.iter().map(PathBuf::as_path).collect();
        let (tx, rx) = std::sync::mpsc::channel();
        let pipe = TextPipe::spawn("trama-merge", move |w| {
            let w = BufWriter::with_capacity(1 << 16, w);
            let _ = tx.send(self.run(w, &mut notes, &mut progress));
            Ok(())
        })
        .map_err(|e| JobError::Arguments(format!("cannot start the merge: {e}")))?;
        let name = format!("the merged trace ({})", output.display());
        let checked: Result<Output, Failure> = if output.extension().is_some_and(|e| e == "ptb") {
            converted(pipe, name, output, &inputs)
        } else {
            checked_text(pipe, name, output, &inputs)
        };
        let merged = rx.recv().expect("the merge reports its end");
        match (merged, checked.map_err(|e| rejected(e, output))) {
            // An output that failed (or is an input) stopped the merge.
            (_, Err(e @ JobError::Output(_))) => Err(e),
            // A failed merge cuts the text short: it is the cause.
            (Err(e), _) | (Ok(_), Err(e)) => Err(e),
            (Ok(stats), Ok(written)) => {
                written.commit()?;
                Ok(stats)
            }
        }
    }
}

/// The text of `pipe` converted to the `.ptb` `output`.
fn converted(
    pipe: TextPipe,
    name: String,
    output: &Path,
    inputs: &[&Path],
) -> Result<Output, Failure> {
    let opened = trama_open::open_reader(name, pipe)?;
    let opts = trama_convert::ConvertOptions::default();
    let read = LoadOptions::default();
    match trama_convert::convert_file(opened, &read, opts, output, inputs, true) {
        Ok((out, _)) => Ok(out),
        Err(trama_convert::Error::Output(e)) => Err(e.into()),
        Err(e) => Err(e.into()),
    }
}

/// Writes the text `pipe` gives to `output` while simulating it (as `trama
/// check` reads it); the output, to commit, when the simulation accepts
/// the whole trace.
fn checked_text(
    pipe: TextPipe,
    name: String,
    output: &Path,
    inputs: &[&Path],
) -> Result<Output, Failure> {
    let (file, out) = Output::create(output, inputs)?;
    let tee = Tee { pipe, out };
    let counted = match trama_open::open_reader(name, tee) {
        Ok(mut o) => o.count(&LoadOptions::default()).map(drop),
        Err(e) => Err(e),
    };
    // A failure of the output stops the reading: it is the cause.
    if let Some(e) = file.failure() {
        return Err(e.into());
    }
    counted?;
    Ok(file)
}

/// The error of a merge whose output fails or whose trace the check
/// rejects; for the latter, what became of the output: a file is left as
/// it was, but what standard output (or a device, a FIFO) received cannot
/// be taken back.
fn rejected(e: Failure, output: &Path) -> JobError {
    let e = match e.downcast::<trama_open::OutputError>() {
        Ok(o) => return JobError::Output(*o),
        Err(e) => e,
    };
    let what = if !trama_open::output::written_in_place(output) {
        "so it was not written".to_string()
    } else {
        let name = if trama_open::output::is_stdout(output) {
            "standard output".to_string()
        } else {
            output.display().to_string()
        };
        format!(
            "but {name} received its text as it was checked, up to the error: that cannot be \
             taken back, and what {name} holds is no valid trace (with -o FILE a merge is written \
             whole or not at all)"
        )
    };
    JobError::Rejected { what, source: e }
}

/// The text of a pipe, copied to an output as it is read.
struct Tee {
    pipe: TextPipe,
    out: Box<dyn Write + Send>,
}

impl Read for Tee {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let n = self.pipe.read(buf)?;
        let written = if n == 0 {
            self.out.flush()
        } else {
            self.out.write_all(&buf[..n])
        };
        // The output keeps its error: the reading stops.
        written.map_err(|_| std::io::Error::other("the output failed"))?;
        Ok(n)
    }
}

impl MergeStats {
    /// The line that sums a merge up: records, sources and time spanned.
    pub fn summary(&self) -> String {
        format!(
            "{} records from {} source{} written{}",
            self.written,
            self.records.len(),
            if self.records.len() == 1 { "" } else { "s" },
            match self.span {
                Some((a, b)) => format!(", spanning {} s", trama_open::TimeText(b - a, 6)),
                None => String::new(),
            }
        )
    }
}

impl crate::Origin {
    /// `earliest` (the first record) or `absolute` (the reference clock's
    /// own zero).
    pub fn parse(s: &str) -> Result<crate::Origin, String> {
        match s {
            "earliest" => Ok(crate::Origin::Earliest),
            "absolute" => Ok(crate::Origin::At(0)),
            o => Err(format!("'{o}' is neither 'earliest' nor 'absolute'")),
        }
    }
}
