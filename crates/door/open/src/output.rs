//! Files trama writes appear whole or not at all.
//!
//! [`Output::create`] opens a temporary file beside the target (in the same
//! folder, so the final rename is atomic); [`Output::commit`] renames it
//! into place once everything is written. Until then the target is
//! untouched: a failure, an error in the input or an interruption leaves
//! what was there before. The temporary file is removed when the
//! [`Output`] is dropped uncommitted, and [`remove_temporaries`] removes
//! those of every output still open (for a handler of SIGINT, SIGTERM and
//! SIGHUP, before it exits).
//!
//! - `-` is standard output, written as it comes.
//! - A write error is kept: [`Output::commit`] then fails with it (naming
//!   the output), whatever the writer's user made of it, and
//!   [`Output::failure`] gives it at once. Only a closed pipe on standard
//!   output is quiet ([`OutputError::is_closed_pipe`]); a closed FIFO
//!   named as the output is an error like any other.
//! - A target that is the same file as an input (same device and inode,
//!   whatever the names) is refused: trama never writes onto its input.
//! - A symbolic link is followed: the file it points to is replaced, the
//!   link stays.
//! - An existing target that is not a regular file (a device such as
//!   `/dev/null`, a FIFO) is written in place: it is never replaced or
//!   removed.

use std::fs::{File, OpenOptions};
use std::io::{self, BufWriter, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

/// Temporary files of outputs not yet committed.
static TEMPORARIES: Mutex<Vec<PathBuf>> = Mutex::new(Vec::new());

fn temporaries() -> std::sync::MutexGuard<'static, Vec<PathBuf>> {
    TEMPORARIES.lock().unwrap_or_else(|p| p.into_inner())
}

/// Removes the temporary files of every output not yet committed, for a
/// signal handler about to exit the process: no temporary file is made
/// after it (making one waits for ever), so none is left.
pub fn remove_temporaries() {
    let list = temporaries();
    for p in list.iter() {
        let _ = std::fs::remove_file(p);
    }
    std::mem::forget(list);
}

/// Why an output cannot be written.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum OutputError {
    /// The output is one of the inputs.
    #[error(
        "{output} is the input {input}: trama never writes onto its input; name another output"
    )]
    IsInput {
        /// The output.
        output: String,
        /// The input it is.
        input: String,
    },
    /// The output cannot be created.
    #[error("cannot create {output}")]
    Create {
        /// The output.
        output: String,
        /// Why.
        #[source]
        source: io::Error,
    },
    /// Writing the output failed (a full disk, a device that refuses).
    #[error("writing {output}")]
    Write {
        /// The output (`standard output` for `-`).
        output: String,
        /// Why.
        #[source]
        source: io::Error,
    },
    /// The output cannot be put in place.
    #[error("cannot write {output}")]
    Commit {
        /// The output.
        output: String,
        /// Why.
        #[source]
        source: io::Error,
    },
}

impl OutputError {
    /// Whether this is standard output closed by its reader (`| head`):
    /// an end to keep quiet, not a failure.
    pub fn is_closed_pipe(&self) -> bool {
        matches!(self, OutputError::Write { source, .. } if source.kind() == io::ErrorKind::BrokenPipe)
    }
}

/// An output being written; see the module docs.
#[derive(Debug)]
pub struct Output {
    target: PathBuf,
    /// The temporary file, renamed onto `target` by [`Output::commit`];
    /// `None` for standard output and outputs written in place.
    temp: Option<PathBuf>,
    /// What its writer met.
    record: Arc<Mutex<Record>>,
}

/// The first error the writer of an [`Output`] met.
type Record = Option<io::Error>;

/// The writer of an [`Output`]: passes everything on to `inner` and keeps
/// its first error in the output's record.
struct Recorded<W> {
    inner: W,
    record: Arc<Mutex<Record>>,
    /// Standard output, where a closed pipe stays a closed pipe.
    stdout: bool,
}

impl<W: Write> Recorded<W> {
    fn note<T>(&self, r: io::Result<T>) -> io::Result<T> {
        if let Err(e) = &r {
            if e.kind() != io::ErrorKind::Interrupted {
                let mut rec = self.record.lock().unwrap_or_else(|p| p.into_inner());
                if rec.is_none() {
                    *rec = Some(copy(e, self.stdout));
                }
            }
        }
        r
    }
}

/// A copy of `e` to keep; a closed pipe other than standard output is an
/// error like any other (its kind changed so that nothing takes it for
/// standard output closed by its reader).
fn copy(e: &io::Error, stdout: bool) -> io::Error {
    if e.kind() == io::ErrorKind::BrokenPipe && !stdout {
        return io::Error::other(format!("{e}: its reader closed it"));
    }
    match e.raw_os_error() {
        Some(code) => io::Error::from_raw_os_error(code),
        None => io::Error::new(e.kind(), e.to_string()),
    }
}

impl<W: Write> Write for Recorded<W> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        let r = self.inner.write(buf);
        self.note(r)
    }

    fn flush(&mut self) -> io::Result<()> {
        let r = self.inner.flush();
        self.note(r)
    }
}

/// The identity of a file: device and inode.
#[cfg(unix)]
fn identity(meta: &std::fs::Metadata) -> (u64, u64) {
    use std::os::unix::fs::MetadataExt;
    (meta.dev(), meta.ino())
}

#[cfg(not(unix))]
fn identity(_: &std::fs::Metadata) -> (u64, u64) {
    (0, 0)
}

/// Whether `path` is the standard output.
pub fn is_stdout(path: &Path) -> bool {
    path.as_os_str() == "-"
}

/// Whether an output named `path` is written as it comes (standard
/// output, a device, a FIFO) rather than beside its name and renamed:
/// what is written there cannot be taken back.
pub fn written_in_place(path: &Path) -> bool {
    is_stdout(path) || std::fs::metadata(path).is_ok_and(|m| !m.is_file() && !m.is_dir())
}

impl Output {
    /// Prepares to write `path` (`-`: standard output), refusing a file
    /// that is one of `inputs`. Returns the output and the writer to write
    /// through; flush the writer, then [`Output::commit`].
    pub fn create(
        path: &Path,
        inputs: &[&Path],
    ) -> Result<(Output, Box<dyn Write + Send>), OutputError> {
        let name = path.display().to_string();
        if is_stdout(path) {
            return Ok(Output::writing(path.into(), None, io::stdout(), true));
        }
        let create = |source| OutputError::Create {
            output: name.clone(),
            source,
        };
        let existing = std::fs::metadata(path).ok();
        if let Some(meta) = &existing {
            for input in inputs {
                if !is_stdout(input)
                    && std::fs::metadata(input).is_ok_and(|m| identity(&m) == identity(meta))
                    && cfg!(unix)
                {
                    return Err(OutputError::IsInput {
                        output: name,
                        input: input.display().to_string(),
                    });
                }
            }
            if !meta.is_file() {
                if meta.is_dir() {
                    return Err(create(io::Error::other("it is a directory")));
                }
                // A device or a FIFO: written in place, never replaced.
                let file = OpenOptions::new().write(true).open(path).map_err(create)?;
                return Ok(Output::writing(path.into(), None, file, false));
            }
        }
        // A link is followed: its file is replaced, the link stays.
        let target = match std::fs::symlink_metadata(path) {
            Ok(m) if m.file_type().is_symlink() => std::fs::canonicalize(path).map_err(create)?,
            _ => path.to_path_buf(),
        };
        let (temp, file) = temporary(&target).map_err(|e| {
            // The file is written beside its name, then renamed: say where.
            let dir = target
                .parent()
                .filter(|d| !d.as_os_str().is_empty())
                .unwrap_or(Path::new("."));
            create(io::Error::new(
                e.kind(),
                format!(
                    "no file can be made in {} to write it before putting it in place ({e})",
                    dir.display()
                ),
            ))
        })?;
        Ok(Output::writing(target, Some(temp), file, false))
    }

    /// The output of `target` and its writer, over `inner`.
    fn writing(
        target: PathBuf,
        temp: Option<PathBuf>,
        inner: impl Write + Send + 'static,
        stdout: bool,
    ) -> (Output, Box<dyn Write + Send>) {
        let record = Arc::new(Mutex::new(Record::default()));
        let w = Recorded {
            inner,
            record: record.clone(),
            stdout,
        };
        let out = Output {
            target,
            temp,
            record,
        };
        (out, Box::new(BufWriter::with_capacity(1 << 20, w)))
    }

    /// The regular file being written, beside its target, until
    /// [`Output::commit`] renames it (`None` for standard output and an
    /// output written in place): to add to what its writer wrote, once
    /// flushed.
    pub fn written(&self) -> Option<&Path> {
        self.temp.as_deref()
    }

    /// The first error its writer met, naming the output; taken (asked
    /// again, it is `None`).
    pub fn failure(&self) -> Option<OutputError> {
        let source = self.lock().take()?;
        let output = if is_stdout(&self.target) {
            "standard output".to_string()
        } else {
            self.target.display().to_string()
        };
        Some(OutputError::Write { output, source })
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Record> {
        self.record.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Puts the output in place (the writer must have been flushed); fails
    /// with the writer's first error, if it met one (the target is then
    /// left as it was).
    pub fn commit(mut self) -> Result<(), OutputError> {
        if let Some(e) = self.failure() {
            return Err(e);
        }
        let Some(temp) = self.temp.take() else {
            return Ok(());
        };
        forget(&temp);
        std::fs::rename(&temp, &self.target).map_err(|source| {
            let _ = std::fs::remove_file(&temp);
            OutputError::Commit {
                output: self.target.display().to_string(),
                source,
            }
        })
    }
}

/// On SIGINT, SIGTERM and SIGHUP: removes the temporary files of the
/// outputs being written (and calls `also`, for other writers' own), then
/// exits with 128 + the signal's number, as a shell reports a process the
/// signal ended.
pub fn remove_temporaries_on_signals(also: fn()) {
    use signal_hook::consts::{SIGHUP, SIGINT, SIGTERM};
    let Ok(mut signals) = signal_hook::iterator::Signals::new([SIGINT, SIGTERM, SIGHUP]) else {
        return;
    };
    std::thread::spawn(move || {
        if let Some(signal) = signals.forever().next() {
            remove_temporaries();
            also();
            std::process::exit(128 + signal);
        }
    });
}

/// A log at `path` opened to append to (created if needed), on a new
/// line: a line an earlier run left unfinished is ended first.
pub fn open_log(path: &Path) -> io::Result<File> {
    use std::io::{Read, Seek, SeekFrom};
    let mut file = OpenOptions::new()
        .read(true)
        .append(true)
        .create(true)
        .open(path)?;
    let len = file.metadata()?.len();
    if len > 0 {
        let mut last = [0u8];
        file.seek(SeekFrom::Start(len - 1))?;
        file.read_exact(&mut last)?;
        if last[0] != b'\n' {
            file.write_all(b"\n")?;
        }
    }
    Ok(file)
}

/// Writes `path` (`-`: standard output) through `write`, whole or not at
/// all; never onto one of `inputs`. A write error is the error, naming the
/// output, whatever `write` made of it (a sink that stopped on it, an
/// error of its own).
pub fn write_whole<T, E>(
    path: &Path,
    inputs: &[&Path],
    write: impl FnOnce(&mut (dyn Write + Send)) -> Result<T, E>,
) -> Result<T, E>
where
    E: From<OutputError> + From<io::Error>,
{
    let (out, mut w) = Output::create(path, inputs)?;
    let r = write(&mut *w).and_then(|r| w.flush().map(|()| r).map_err(E::from));
    drop(w);
    if let Some(e) = out.failure() {
        return Err(e.into());
    }
    let r = r?;
    out.commit()?;
    Ok(r)
}

impl Drop for Output {
    fn drop(&mut self) {
        if let Some(temp) = self.temp.take() {
            let _ = std::fs::remove_file(&temp);
            forget(&temp);
        }
    }
}

fn forget(temp: &Path) {
    temporaries().retain(|p| p != temp);
}

/// A new file beside `target`, named after it, listed among the
/// temporaries as it is made (under the list's lock: a signal removes it,
/// or finds it not yet made).
fn temporary(target: &Path) -> io::Result<(PathBuf, File)> {
    static NEXT: AtomicU64 = AtomicU64::new(0);
    let dir = match target.parent() {
        Some(d) if !d.as_os_str().is_empty() => d,
        _ => Path::new("."),
    };
    let stem = target
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| "output".into());
    let mut list = temporaries();
    loop {
        let n = NEXT.fetch_add(1, Ordering::Relaxed);
        let temp = dir.join(format!(".{stem}.trama-{}-{n}.tmp", std::process::id()));
        match OpenOptions::new().write(true).create_new(true).open(&temp) {
            Ok(f) => {
                list.push(temp.clone());
                return Ok((temp, f));
            }
            Err(e) if e.kind() == io::ErrorKind::AlreadyExists => continue,
            Err(e) => return Err(e),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn write(path: &Path, inputs: &[&Path], text: &[u8], commit: bool) -> Result<(), OutputError> {
        let (out, mut w) = Output::create(path, inputs)?;
        w.write_all(text).unwrap();
        w.flush().unwrap();
        drop(w);
        if commit {
            out.commit()?;
        }
        Ok(())
    }

    /// How many files `dir` holds.
    fn count(dir: &Path) -> usize {
        std::fs::read_dir(dir).unwrap().count()
    }

    #[test]
    fn an_output_appears_whole_or_not_at_all() {
        let tmp = tempfile::tempdir().unwrap();
        let out = tmp.path().join("out.txt");
        std::fs::write(&out, "before").unwrap();
        write(&out, &[], b"after", false).unwrap();
        assert_eq!(std::fs::read(&out).unwrap(), b"before", "uncommitted");
        assert_eq!(count(tmp.path()), 1, "no temporary left");
        write(&out, &[], b"after", true).unwrap();
        assert_eq!(std::fs::read(&out).unwrap(), b"after");
        assert_eq!(count(tmp.path()), 1);
    }

    #[test]
    fn an_input_is_never_an_output() {
        let tmp = tempfile::tempdir().unwrap();
        let input = tmp.path().join("in.paje");
        std::fs::write(&input, "trace").unwrap();
        let other = tmp.path().join("./in.paje");
        let e = write(&other, &[&input], b"x", true).unwrap_err();
        assert!(
            matches!(e, OutputError::IsInput { .. }) || !cfg!(unix),
            "{e}"
        );
        assert_eq!(std::fs::read(&input).unwrap(), b"trace");
    }

    #[cfg(unix)]
    #[test]
    fn links_are_followed_and_devices_written_in_place() {
        let tmp = tempfile::tempdir().unwrap();
        let real = tmp.path().join("real.txt");
        std::fs::write(&real, "old").unwrap();
        let link = tmp.path().join("link.txt");
        std::os::unix::fs::symlink(&real, &link).unwrap();
        write(&link, &[], b"new", true).unwrap();
        assert!(std::fs::symlink_metadata(&link)
            .unwrap()
            .file_type()
            .is_symlink());
        assert_eq!(std::fs::read(&real).unwrap(), b"new");
        // The link to an input is the input.
        let e = write(&link, &[&real], b"x", true).unwrap_err();
        assert!(matches!(e, OutputError::IsInput { .. }), "{e}");
        write(Path::new("/dev/null"), &[], b"nothing", true).unwrap();
        assert!(std::fs::metadata("/dev/null")
            .unwrap()
            .file_type()
            .is_char_device_like());
    }

    trait CharDevice {
        fn is_char_device_like(&self) -> bool;
    }

    impl CharDevice for std::fs::FileType {
        fn is_char_device_like(&self) -> bool {
            use std::os::unix::fs::FileTypeExt;
            self.is_char_device()
        }
    }
}
