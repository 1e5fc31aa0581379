//! `trama merge`: many sources, one trace.

use std::io::{BufWriter, Write};
use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::bail;
use clap::Args;
use trama_merge::{Job, Origin};
use trama_timesync::TimeUnit;

/// Arguments of `trama merge`.
#[derive(Args, Debug)]
pub struct MergeArgs {
    /// Sources: NAME=FILE (the plan's source entry NAME reads FILE) or FILE
    /// (the entry whose kind matches the file's detected format, when only
    /// one does). Files given for an entry replace those the plan lists for
    /// it; the plan's files of the other entries are read as well.
    #[arg(value_name = "SOURCE")]
    sources: Vec<String>,
    /// The unification plan (TOML): the unified hierarchy and how each source maps into it.
    #[arg(long, visible_alias = "hierarchy", value_name = "PLAN")]
    plan: PathBuf,
    /// The timesync file of clock pairs (`refhost reftime host hosttime`, a
    /// block before and one after the run): each host's times are corrected
    /// to the reference clock (drift when both blocks are given, offset otherwise).
    #[arg(long, value_name = "FILE")]
    sync: Option<PathBuf>,
    /// Unit of the timesync file's times.
    #[arg(long, value_name = "UNIT", default_value = "us", value_parser = parse_unit)]
    sync_unit: TimeUnit,
    /// Output: OUT.paje (Pajé text), OUT.ptb (trama's binary format) or - (standard output).
    #[arg(short = 'o', long, value_name = "OUT")]
    output: PathBuf,
    /// Where time 0 is: `earliest` (the first record, the default) or
    /// `absolute` (the reference clock's own zero, e.g. the Unix epoch).
    #[arg(long, value_name = "ORIGIN", default_value = "earliest")]
    origin: String,
    /// Decimals of the times written (at most 9).
    #[arg(long, value_name = "N", default_value_t = 9)]
    decimals: u32,
    /// The seed's flags: DECK libRastro traces (the plan's `rst` entry).
    #[arg(long, value_name = "FILE", num_args = 1..)]
    deck: Vec<PathBuf>,
    /// The seed's flags: the MPI trace (the plan's `clog2` entry).
    #[arg(long, value_name = "FILE", num_args = 1..)]
    mpi: Vec<PathBuf>,
    /// The seed's flags: the MPI machine file (ranks placed on hosts in file order).
    #[arg(long, value_name = "FILE")]
    mpinodes: Option<PathBuf>,
    /// The seed's flags: OS scheduling traces (the plan's `sched` entry).
    #[arg(long, value_name = "FILE", num_args = 1..)]
    os: Vec<PathBuf>,
    /// The seed's flags: Ganglia logs or XML dumps (the plan's `ganglia` entry).
    #[arg(long, value_name = "FILE", num_args = 1..)]
    ganglia: Vec<PathBuf>,
    /// The seed's flags: Performance Co-Pilot outputs (the plan's `pcp` entry).
    #[arg(long, value_name = "FILE", num_args = 1..)]
    pcp: Vec<PathBuf>,
    /// Never show a progress bar.
    #[arg(long)]
    no_progress: bool,
}

fn parse_unit(s: &str) -> Result<TimeUnit, String> {
    s.parse::<TimeUnit>().map_err(|e| e.to_string())
}

pub fn run(args: &MergeArgs) -> anyhow::Result<ExitCode> {
    let mut job = Job::new(&args.plan)?;
    for s in &args.sources {
        job.add(s)?;
    }
    for (flag, kind, list) in [
        ("--deck", "rst", &args.deck),
        ("--mpi", "clog2", &args.mpi),
        ("--os", "sched", &args.os),
        ("--ganglia", "ganglia", &args.ganglia),
        ("--pcp", "pcp", &args.pcp),
    ] {
        job.add_to_kind(flag, kind, list)?;
    }
    if let Some(m) = &args.mpinodes {
        job.machine_file(m)?;
    }
    if let Some(sync) = &args.sync {
        job.sync(sync, args.sync_unit);
    }
    job.origin(match args.origin.as_str() {
        "earliest" => Origin::Earliest,
        "absolute" => Origin::At(0),
        o => bail!("--origin: '{o}' is neither 'earliest' nor 'absolute'"),
    });
    job.decimals(args.decimals);
    let bar =
        (!args.no_progress && std::io::IsTerminal::is_terminal(&std::io::stderr())).then(|| {
            let b = indicatif::ProgressBar::new_spinner();
            b.set_style(
                indicatif::ProgressStyle::with_template(
                    "{spinner} merged {pos} records ({per_sec}) {elapsed}",
                )
                .expect("valid template"),
            );
            b
        });
    let shown = bar.clone();
    let mut progress = move |n| {
        if let Some(b) = &shown {
            b.set_position(n);
        }
    };
    // Every file named is an input, never an output.
    let mut inputs: Vec<PathBuf> = vec![args.plan.clone()];
    inputs.extend(
        args.sources
            .iter()
            .map(|s| PathBuf::from(s.split_once('=').map_or(s.as_str(), |(_, f)| f))),
    );
    for list in [&args.deck, &args.mpi, &args.os, &args.ganglia, &args.pcp] {
        inputs.extend(list.iter().cloned());
    }
    inputs.extend(args.sync.iter().cloned());
    inputs.extend(args.mpinodes.iter().cloned());
    let input_refs: Vec<&std::path::Path> = inputs.iter().map(PathBuf::as_path).collect();
    // The text goes through a pipe into a check (a merge that succeeds
    // writes a trace trama accepts) and the output; the merge's result
    // comes back once the pipe is closed.
    let (tx, rx) = std::sync::mpsc::channel();
    let pipe = trama_open::TextPipe::spawn("trama-merge", move |w| {
        let mut notes = |n: String| eprintln!("trama merge: note: {n}");
        let r = job.run(
            BufWriter::with_capacity(1 << 16, w),
            &mut notes,
            &mut progress,
        );
        let _ = tx.send(r);
        Ok(())
    })?;
    let name = format!("the merged trace ({})", args.output.display());
    let checked = if args.output.extension().is_some_and(|e| e == "ptb") {
        // The converter follows the simulation and says where it rejects.
        trama_open::open_reader(name, pipe)
            .map_err(anyhow::Error::from)
            .and_then(|opened| {
                crate::convert::write(
                    opened,
                    &inputs,
                    &trama_open::LoadOptions::default(),
                    &args.output,
                    trama_convert::ConvertOptions::default(),
                    false,
                    true,
                )
            })
    } else {
        checked_text(pipe, name, &args.output, &input_refs)
    };
    // A failed merge cuts the text short: it is the cause.
    let stats = rx.recv().expect("the merge reports its end");
    let stats = stats.map_err(anyhow::Error::from).and_then(|s| {
        let written = checked.map_err(|e| rejected(e, &args.output))?;
        written.commit()?;
        Ok(s)
    });
    if let Some(b) = &bar {
        b.finish_and_clear();
    }
    let stats = stats?;
    for w in stats.span_warnings() {
        eprintln!("trama merge: warning: {w}");
    }
    eprintln!(
        "trama merge: {} records from {} source{} written{}",
        stats.written,
        stats.records.len(),
        if stats.records.len() == 1 { "" } else { "s" },
        match stats.span {
            Some((a, b)) => format!(", spanning {} s", trama_sources::TimeText(b - a, 6)),
            None => String::new(),
        }
    );
    Ok(ExitCode::SUCCESS)
}

/// Writes the text `pipe` gives to `output` while simulating it; the
/// output, to commit, when the simulation accepts the whole trace.
fn checked_text(
    pipe: trama_open::TextPipe,
    name: String,
    output: &std::path::Path,
    inputs: &[&std::path::Path],
) -> anyhow::Result<trama_open::Output> {
    let (file, out) = trama_open::Output::create(output, inputs)?;
    let tee = Tee { pipe, out };
    // As `trama check` reads it.
    let counted = match trama_open::open_reader(name, tee) {
        Ok(mut o) => o.count(&trama_open::LoadOptions::default()).map(drop),
        Err(e) => Err(e),
    };
    // A failure of the output stops the reading: it is the cause.
    crate::run::written(&file, counted.map_err(anyhow::Error::from))?;
    Ok(file)
}

/// The error of a merge whose output fails or whose trace the check
/// rejects; for the latter, what became of the output: a file is left as
/// it was, but what standard output (or a device, a FIFO) received cannot
/// be taken back.
fn rejected(e: anyhow::Error, output: &std::path::Path) -> anyhow::Error {
    if e.chain().any(|c| c.is::<trama_open::OutputError>()) {
        return e;
    }
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
    e.context(format!(
        "the merged trace is not valid, {what}; a source holds records that contradict each \
         other (a damaged file, or records the plan puts on one container)"
    ))
}

/// The text of a pipe, copied to an output as it is read.
struct Tee {
    pipe: trama_open::TextPipe,
    out: Box<dyn std::io::Write + Send>,
}

impl std::io::Read for Tee {
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
