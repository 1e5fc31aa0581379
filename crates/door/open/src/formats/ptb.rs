//! trama's binary Pajé format (`.ptb`, `trama-ptb`): memory-mapped, frames
//! decoded on worker threads. Its faster paths (the parallel replay from
//! keyframes, window reads) are reached through [`TraceReader::ptb`].

use std::io::Write;
use std::sync::atomic::AtomicU64;
use std::sync::Arc;

use trama_paje::QuoteMode;
use trama_ptb::{Decoded, PtbFile, ReadError, ReadOptions};

use crate::input::{Head, Progress, ProgressUnit};
use crate::reader::{Failure, Item, ReadStats, Stop, TraceReader};
use crate::{Error, LoadOptions};

/// A `.ptb` file.
pub(crate) struct PtbReader {
    file: PtbFile,
    done: Arc<AtomicU64>,
}

impl PtbReader {
    pub(crate) fn open(head: Head) -> Result<PtbReader, Error> {
        Ok(PtbReader {
            file: head.into_ptb()?,
            done: Arc::default(),
        })
    }

    fn options(&self, threads: usize) -> ReadOptions {
        let mut o = ReadOptions::default();
        o.threads = threads;
        o.progress = Some(self.done.clone());
        o
    }
}

/// What a `.ptb` file says of the text it was made from.
pub(crate) fn stats(file: &PtbFile) -> ReadStats {
    ReadStats {
        lines: file.text_lines(),
        bytes: file.len(),
        events: file.events(),
        definitions: file.definitions().to_vec(),
        ..ReadStats::default()
    }
}

fn failure<E>(e: ReadError<E>, stop: impl FnOnce(E) -> Failure) -> Failure {
    match e {
        ReadError::Format(f) => Failure::Format(f.to_string()),
        ReadError::Handler(e) => stop(e),
    }
}

impl TraceReader for PtbReader {
    fn read<F>(&mut self, opts: &LoadOptions, mut each: F) -> Result<ReadStats, Failure>
    where
        F: FnMut(Item<'_>) -> Result<(), Stop>,
    {
        // The simulation already takes two threads (resolution and engine):
        // decoding gets the rest, at least one; none with one thread.
        let threads = match opts.threads {
            1 => 0,
            n => crate::cores(n).saturating_sub(2).max(1),
        };
        self.file
            .read(&self.options(threads), |rec| match rec {
                Decoded::Text(ev) => each(Item::Event(ev)),
                Decoded::Handles(h) => each(Item::Handles(&h.event)),
            })
            .map_err(|e| failure(e, Failure::Stop))?;
        Ok(stats(&self.file))
    }

    fn write_text(&mut self, mut out: &mut dyn Write) -> Result<(), Failure> {
        let o = self.options(ReadOptions::default().threads);
        trama_ptb::write_text(&self.file, &o, &mut out)
            .map_err(|e| failure(e, |e| Failure::Stop(Stop::Other(Box::new(e)))))
    }

    fn progress(&self) -> Option<Progress> {
        Some(Progress {
            total: Some(self.file.events()),
            done: self.done.clone(),
            unit: ProgressUnit::Events,
        })
    }

    fn binary(&self) -> bool {
        true
    }

    fn text_quotes(&self) -> QuoteMode {
        if self.file.quotes_stripped() {
            QuoteMode::Strip
        } else {
            QuoteMode::Keep
        }
    }

    fn precision(&self) -> trama_num::Precision {
        self.file.precision()
    }

    fn ptb(&self) -> Option<&PtbFile> {
        Some(&self.file)
    }
}
