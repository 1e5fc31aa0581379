//! Inputs opened for a consumer that reads them as they come (the
//! viewer's stream): a regular file is opened at once, so that what its
//! head tells ([`Opened::run_info`]) is known before reading; standard
//! input, a FIFO or a file followed as a tracer appends to it
//! ([`Pending::follow`]) is opened when the reading starts.

use std::path::{Path, PathBuf};

use crate::{Error, Opened, Source};

/// An input to read as it comes: opened, or to open when the reading
/// starts.
pub enum Pending {
    /// Opened already.
    Opened(Box<Opened>),
    /// To open then (standard input may only come once someone reads it).
    Later(Source),
    /// A file followed, open already, and what its head told of its run.
    Follow(std::fs::File, PathBuf, Vec<(String, String)>),
}

impl Pending {
    /// `source`: a regular file is opened now (a failure is given when
    /// the reading starts), anything else later.
    pub fn new(source: Source) -> Pending {
        match &source {
            Source::Path(p) if std::fs::metadata(p).is_ok_and(|m| m.is_file()) => {
                match crate::open(&source) {
                    Ok(o) => Pending::Opened(Box::new(o)),
                    Err(_) => Pending::Later(source),
                }
            }
            _ => Pending::Later(source),
        }
    }

    /// The file at `path`, read as it grows (see [`Follow`]); opened now.
    pub fn follow(path: &Path) -> Result<Pending, Error> {
        let file = std::fs::File::open(path)
            .map_err(|e| Error::file(format!("cannot open {}", path.display()), e))?;
        let info =
            head_of(&file).map_or_else(Vec::new, |h| crate::run_info(crate::Format::sniff(&h), &h));
        Ok(Pending::Follow(file, path.to_path_buf(), info))
    }

    /// What the input's head tells of its run, when it is opened already.
    pub fn run_info(&self) -> Vec<(String, String)> {
        match self {
            Pending::Opened(o) => o.run_info().to_vec(),
            Pending::Follow(_, _, info) => info.clone(),
            Pending::Later(_) => Vec::new(),
        }
    }

    /// The input, opened.
    pub fn open(self) -> Result<Opened, Error> {
        match self {
            Pending::Opened(o) => Ok(*o),
            Pending::Later(s) => crate::open(&s),
            Pending::Follow(file, path, _) => {
                let name = path.display().to_string();
                crate::open_reader(name, Follow::new(file, path))
            }
        }
    }
}

/// The first bytes of `file` as they are now, read by position (the
/// file's offset stays at its start).
#[cfg(unix)]
fn head_of(file: &std::fs::File) -> Option<Vec<u8>> {
    use std::os::unix::fs::FileExt;
    let mut bytes = vec![0u8; crate::HEAD];
    let n = file.read_at(&mut bytes, 0).ok()?;
    bytes.truncate(n);
    Some(bytes)
}

#[cfg(not(unix))]
fn head_of(_: &std::fs::File) -> Option<Vec<u8>> {
    None
}

/// A file read as it grows: at its end, waits for more instead of ending;
/// except once when the file is shorter than the head its format is
/// sniffed from, so that what is there already is sniffed without waiting
/// for more (a reader past the head never sees an end: an XML or text
/// line cut by the writer is completed when it comes). A file truncated
/// (shorter than what was read, or no longer holding the last bytes read
/// where they were: truncated and written again) or replaced (its path
/// now names another file) while followed ends the reading with an error
/// that says so: what was played came from a trace that is gone.
pub struct Follow {
    file: std::fs::File,
    path: std::path::PathBuf,
    sniffed: bool,
    read: u64,
    /// The last bytes read (at most [`Follow::TAIL`]).
    tail: Vec<u8>,
}

impl Follow {
    /// Bytes kept to check, at the end of the file, that it still holds
    /// what was read.
    const TAIL: usize = 64;

    /// `file`, at `path`, read from its start as it grows.
    pub fn new(file: std::fs::File, path: std::path::PathBuf) -> Follow {
        Follow {
            file,
            path,
            sniffed: false,
            read: 0,
            tail: Vec::new(),
        }
    }

    /// Why the followed file cannot be read on, if it cannot.
    fn gone(&self) -> std::io::Result<Option<String>> {
        let here = self.file.metadata()?;
        let path = self.path.display();
        let truncated = |now: u64| {
            format!(
                "{path} was truncated while it was followed ({} bytes read, {now} there now): the trace played is gone; run trama view again to play the file from its start",
                self.read
            )
        };
        if here.len() < self.read {
            return Ok(Some(truncated(here.len())));
        }
        #[cfg(unix)]
        {
            use std::os::unix::fs::{FileExt, MetadataExt};
            let mut again = vec![0; self.tail.len()];
            let at = self.read - self.tail.len() as u64;
            if self.file.read_exact_at(&mut again, at).is_err() || again != self.tail {
                return Ok(Some(truncated(here.len())));
            }
            // A path that names nothing for now may be about to name the
            // next file: only another file there is a replacement.
            if let Ok(now) = std::fs::metadata(&self.path) {
                if (now.dev(), now.ino()) != (here.dev(), here.ino()) {
                    return Ok(Some(format!(
                        "{path} was replaced by another file while it was followed: run trama view again to play the new one"
                    )));
                }
            }
        }
        Ok(None)
    }
}

impl std::io::Read for Follow {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        loop {
            let n = self.file.read(buf)?;
            self.read += n as u64;
            if n > 0 || buf.is_empty() {
                let keep = n.min(Follow::TAIL);
                let drop = (self.tail.len() + keep).saturating_sub(Follow::TAIL);
                self.tail.drain(..drop);
                self.tail.extend_from_slice(&buf[n - keep..n]);
                return Ok(n);
            }
            if !self.sniffed && self.read < crate::HEAD as u64 {
                self.sniffed = true;
                return Ok(0);
            }
            std::thread::sleep(std::time::Duration::from_millis(200));
            // Whatever happened while waiting is seen before reading on.
            if let Some(why) = self.gone()? {
                return Err(std::io::Error::other(why));
            }
        }
    }
}
