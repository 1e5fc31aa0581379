//! What the readers share: [`OpenSource`], the opening of the kinds that
//! read their whole input; [`CountedSource`], their records served with
//! what they counted; and the reading a step at a time of the others.

use trama_records::{Record, Source, SourceError, VecSource};

/// Opens the file at `path` for a reader's `open`: the file and its name
/// in messages (the path); an error reads `{prefix}{the error}`.
pub(crate) fn open_file(
    path: &std::path::Path,
    prefix: &str,
) -> Result<(String, std::fs::File), SourceError> {
    let name = path.display().to_string();
    match std::fs::File::open(path) {
        Ok(f) => Ok((name, f)),
        Err(e) => Err(SourceError::file(name, format!("{prefix}{e}"))),
    }
}

/// The whole of `reader`, for readers that need all their input at once;
/// an error reads `{prefix}{the error}`.
pub(crate) fn read_all(
    name: &str,
    mut reader: impl std::io::Read,
    prefix: &str,
) -> Result<Vec<u8>, SourceError> {
    let mut bytes = Vec::new();
    reader
        .read_to_end(&mut bytes)
        .map_err(|e| SourceError::file(name, format!("{prefix}{e}")))?;
    Ok(bytes)
}

/// A kind of source that reads its whole input before serving records:
/// opened from a file ([`OpenSource::open`]) or from any reader
/// ([`OpenSource::from_reader`]) alike, with the kind's own options. Each
/// kind says only how it reads the bytes of its input
/// ([`OpenSource::from_bytes`]).
pub trait OpenSource: Sized {
    /// How to read the kind (`GangliaOptions`, `PcpOptions`...).
    type Options;

    /// What the message of an error opening or reading the input starts
    /// with (as `cannot read: `), before the system's error.
    const IO_ERROR: &'static str = "";

    /// Reads the source from the whole of its input, `bytes`, named `name`
    /// in messages.
    fn from_bytes(name: String, bytes: Vec<u8>, opts: &Self::Options) -> Result<Self, SourceError>;

    /// Reads the file at `path`, named by its path in messages.
    fn open(path: impl AsRef<std::path::Path>, opts: &Self::Options) -> Result<Self, SourceError> {
        let (name, file) = open_file(path.as_ref(), Self::IO_ERROR)?;
        Self::from_reader(name, file, opts)
    }

    /// Reads the whole of `reader`, named `name` in messages, as
    /// [`OpenSource::open`] reads a file.
    fn from_reader(
        name: impl Into<String>,
        reader: impl std::io::Read,
        opts: &Self::Options,
    ) -> Result<Self, SourceError> {
        let name = name.into();
        let bytes = read_all(&name, reader, Self::IO_ERROR)?;
        Self::from_bytes(name, bytes, opts)
    }
}

/// A source that converts its input a step at a time into a queue of
/// records, and serves them from it.
pub(crate) trait Stepwise {
    /// The records converted and not served yet.
    fn queue(&mut self) -> &mut std::collections::VecDeque<Record>;

    /// Converts the next part of the input into the queue: `Ok(false)`
    /// once the input is over and nothing more was queued.
    fn step(&mut self) -> Result<bool, SourceError>;

    /// The next record (see [`Source::next_record`]): the first queued,
    /// after as many steps as it takes to queue one.
    fn next_queued(&mut self) -> Result<Option<Record>, SourceError> {
        loop {
            if let Some(r) = self.queue().pop_front() {
                return Ok(Some(r));
            }
            if !self.step()? {
                return Ok(None);
            }
        }
    }
}

/// The records of an input read whole, served as a [`VecSource`] serves
/// them, with what its reader counted while reading it (`S`: the kind's
/// statistics, as `PcpStats`).
pub struct CountedSource<S> {
    records: VecSource,
    stats: S,
}

impl<S> CountedSource<S> {
    /// Serves `records` (sorted by time) and keeps `stats`.
    pub(crate) fn new(name: &str, records: Vec<Record>, stats: S) -> CountedSource<S> {
        CountedSource {
            records: VecSource::new(name, records),
            stats,
        }
    }

    /// What was read and what was not mapped.
    pub fn stats(&self) -> &S {
        &self.stats
    }
}

impl<S: Send> Source for CountedSource<S> {
    fn name(&self) -> &str {
        self.records.name()
    }

    fn next_record(&mut self) -> Result<Option<Record>, SourceError> {
        self.records.next_record()
    }
}
