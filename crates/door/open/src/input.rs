//! Opening an input once: its first bytes for the format, then the rest.
//!
//! A regular file is opened once and its head read from offset 0; a binary
//! format is then memory-mapped from the same handle, and text is read on
//! from the start. Anything else (standard input, a FIFO, `<(…)`, a
//! compressed file) is a stream: its head is taken from the decompressed
//! bytes and handed back before the rest, so nothing is read twice and no
//! path is opened again.

use std::fs::File;
use std::io::{self, Read, Seek};
use std::sync::atomic::AtomicU64;
use std::sync::Arc;

use trama_input::{Compression, Input, Source};

use crate::format::HEAD;
use crate::{Error, Format};

/// What is known of the progress of reading an input.
#[derive(Clone, Debug)]
pub struct Progress {
    /// The total, when known.
    pub total: Option<u64>,
    /// How much is done so far (shared: read it from another thread).
    pub done: Arc<AtomicU64>,
    /// What is counted.
    pub unit: ProgressUnit,
}

/// What a [`Progress`] counts.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum ProgressUnit {
    /// Bytes of the input (compressed bytes for a compressed file).
    Bytes,
    /// Events.
    Events,
    /// Blocks of a trace read by blocks.
    Blocks,
}

/// An input opened once, its first bytes read.
pub(crate) struct Head {
    /// The input's name in messages.
    pub name: String,
    /// Up to [`HEAD`] first bytes (decompressed).
    pub bytes: Vec<u8>,
    /// The format they show.
    pub format: Format,
    /// The rest.
    pub body: Body,
    /// Another handle on a regular file, to read a line again for a
    /// message (an error found after its text was passed on).
    pub again: Option<File>,
    /// The path of a regular file (to find the files that go with it).
    pub path: Option<std::path::PathBuf>,
}

/// Where the bytes after the head come from.
pub(crate) enum Body {
    /// A regular, uncompressed file; the head was read from offset 0 and
    /// the file is back there.
    File(File),
    /// A stream whose first bytes, the head, were taken from it.
    Stream(Input),
}

/// Opens `source` and reads its head.
pub(crate) fn open(source: &Source) -> Result<Head, Error> {
    let name = source.display_name();
    match source {
        Source::Stdin => stream(name, Input::open(source)?, None),
        Source::Path(path) => {
            let (mut file, len) = trama_input::open_file(path)?;
            if len.is_none() {
                // A FIFO, a device, a process substitution: read once.
                let input = Input::from_file(name.clone(), file)?;
                return stream(name, input, None);
            }
            let again = file.try_clone().ok();
            let mut bytes = vec![0u8; HEAD];
            let n = read_full(&mut file, &mut bytes).map_err(|e| io_error(&name, e))?;
            bytes.truncate(n);
            file.rewind().map_err(|e| io_error(&name, e))?;
            if Compression::from_magic(&bytes) != Compression::None {
                let input = Input::from_file(name.clone(), file)?;
                return stream(name, input, again);
            }
            let format = Format::sniff(&bytes);
            Ok(Head {
                name,
                bytes,
                format,
                body: Body::File(file),
                again,
                path: Some(path.clone()),
            })
        }
    }
}

/// Opens again, from its start, the regular file that `file` (a handle
/// cloned when it was first opened) reads: nothing is opened by name, and
/// the offset the handles share is not moved (the first reading may still
/// be going on). A `.ptb` is memory-mapped again; anything else is read
/// by position (decompressing when needed).
pub(crate) fn reopen(
    name: &str,
    file: &File,
    path: Option<std::path::PathBuf>,
) -> Result<Head, Error> {
    let clone = |f: &File| f.try_clone().map_err(|e| io_error(name, e));
    let mut bytes = vec![0u8; HEAD];
    let n = read_full(&mut crate::lines::FromStart::new(clone(file)?), &mut bytes)
        .map_err(|e| io_error(name, e))?;
    bytes.truncate(n);
    let format = Format::sniff(&bytes);
    if Compression::from_magic(&bytes) == Compression::None && format == Format::Ptb {
        return Ok(Head {
            name: name.to_string(),
            bytes,
            format,
            body: Body::File(clone(file)?),
            again: Some(clone(file)?),
            path,
        });
    }
    let input = Input::from_reader(name.to_string(), crate::lines::FromStart::new(clone(file)?))?;
    let mut head = stream(name.to_string(), input, Some(clone(file)?))?;
    head.path = path;
    Ok(head)
}

/// Reads an input from any reader (decompressing it when needed); `name`
/// names it in messages.
pub(crate) fn open_reader(name: String, reader: impl Read + Send + 'static) -> Result<Head, Error> {
    let input = Input::from_reader(name.clone(), reader)?;
    stream(name, input, None)
}

fn stream(name: String, mut input: Input, again: Option<File>) -> Result<Head, Error> {
    let mut bytes = vec![0u8; HEAD];
    let n = read_full(&mut input, &mut bytes).map_err(|e| io_error(&name, e))?;
    bytes.truncate(n);
    let format = Format::sniff(&bytes);
    Ok(Head {
        name,
        bytes,
        format,
        body: Body::Stream(input),
        again,
        path: None,
    })
}

pub(crate) fn io_error(name: &str, source: io::Error) -> Error {
    Error::Io {
        name: name.to_string(),
        source,
    }
}

fn read_full(r: &mut impl Read, buf: &mut [u8]) -> io::Result<usize> {
    let mut n = 0;
    while n < buf.len() {
        match r.read(&mut buf[n..]) {
            Ok(0) => break,
            Ok(k) => n += k,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    Ok(n)
}

impl Head {
    /// The whole input as a stream of (decompressed) bytes, with a
    /// progress counter over the bytes read.
    pub fn into_reader(self) -> Result<(Box<dyn Read + Send>, Progress), Error> {
        let input = match self.body {
            Body::File(file) => {
                // The head came from offset 0, where the file still is:
                // read it again rather than keep it (a 16 KiB read).
                Input::from_file(self.name.clone(), file)?
            }
            Body::Stream(input) => {
                let progress = Progress {
                    total: input.len_hint(),
                    done: input.progress_counter(),
                    unit: ProgressUnit::Bytes,
                };
                let head = io::Cursor::new(self.bytes);
                return Ok((Box::new(head.chain(input)), progress));
            }
        };
        let progress = Progress {
            total: input.len_hint(),
            done: input.progress_counter(),
            unit: ProgressUnit::Bytes,
        };
        Ok((Box::new(input), progress))
    }

    /// The whole input in memory.
    pub fn into_bytes(self) -> Result<Vec<u8>, Error> {
        let name = self.name;
        let mut data = self.bytes;
        match self.body {
            Body::File(mut file) => {
                data.clear();
                file.read_to_end(&mut data)
            }
            Body::Stream(mut input) => input.read_to_end(&mut data),
        }
        .map_err(|e| io_error(&name, e))?;
        Ok(data)
    }

    /// A `.ptb` file: memory-mapped when it is a regular file, else read
    /// into memory.
    pub fn into_ptb(self) -> Result<trama_ptb::PtbFile, Error> {
        let name = self.name.clone();
        let format_error = |e: trama_ptb::FormatError| Error::Format {
            name: name.clone(),
            message: e.to_string(),
        };
        match self.body {
            Body::File(file) => trama_ptb::PtbFile::from_file(&file)
                .map_err(|e| Error::Io {
                    name: format!("{name} (mapping it)"),
                    source: e,
                })?
                .map_err(format_error),
            Body::Stream(_) => {
                trama_ptb::PtbFile::from_vec(self.into_bytes()?).map_err(format_error)
            }
        }
    }
}
