//! Pajé text (plain, gzip or zstd): the streaming multi-threaded reader of
//! `trama-paje`.

use std::io::{Read, Write};

use trama_paje::{read_paje_chunked, ReadOptions};

use crate::input::{Head, Progress};
use crate::reader::{Failure, Item, ReadStats, Stop, TraceReader};
use crate::{Error, LoadOptions};

/// A Pajé text trace, read once.
pub(crate) struct TextReader {
    input: Option<Box<dyn Read + Send>>,
    progress: Progress,
}

impl TextReader {
    pub(crate) fn open(head: Head) -> Result<TextReader, Error> {
        let (input, progress) = head.into_reader()?;
        Ok(TextReader {
            input: Some(input),
            progress,
        })
    }

    fn take(&mut self) -> Result<Box<dyn Read + Send>, Failure> {
        self.input.take().ok_or_else(|| {
            Failure::Io(std::io::Error::other(
                "the input is a stream and was already read",
            ))
        })
    }
}

/// The text reader's options.
pub(crate) fn reader_options(opts: &LoadOptions) -> ReadOptions {
    let mut o = ReadOptions::default();
    o.strict = opts.strict;
    o.quotes = opts.quotes;
    o.threads = opts.threads;
    o.live = opts.live;
    o
}

impl TraceReader for TextReader {
    fn read<F>(&mut self, opts: &LoadOptions, mut each: F) -> Result<ReadStats, Failure>
    where
        F: FnMut(Item<'_>) -> Result<(), Stop>,
    {
        let input = self.take()?;
        let o = reader_options(opts);
        let stats = read_paje_chunked(input, &o, |item| match item {
            trama_paje::Item::Chunk { buffer, len } => each(Item::Chunk { buffer, len }),
            trama_paje::Item::Event(ev) => each(Item::Event(ev)),
        })?;
        Ok(stats)
    }

    fn write_text(&mut self, out: &mut dyn Write) -> Result<(), Failure> {
        let mut input = self.take()?;
        let mut buf = vec![0u8; 1 << 16];
        loop {
            let n = match input.read(&mut buf) {
                Ok(0) => return Ok(()),
                Ok(n) => n,
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
                Err(e) => return Err(Failure::Io(e)),
            };
            out.write_all(&buf[..n])
                .map_err(|e| Failure::Stop(Stop::Other(Box::new(e))))?;
        }
    }

    fn progress(&self) -> Option<Progress> {
        Some(self.progress.clone())
    }

    fn take_text(&mut self) -> Option<Box<dyn Read + Send>> {
        self.input.take()
    }
}
