//! OTF2 archives (`trama-otf2`), opened from their anchor file: the
//! archive's other files are found beside it, so the anchor must be a
//! path (not a stream). Events come mapped to Pajé, merged in time order;
//! the records trama does not map are counted in the reading's notes.

use std::io::Write;
use std::sync::atomic::AtomicU64;
use std::sync::Arc;

use trama_otf2::{Archive, ReadError};
use trama_paje::QuoteMode;

use crate::input::{Head, Progress, ProgressUnit};
use crate::reader::{push_word, Failure, Item, ReadStats, Stop, TraceReader};
use crate::{Error, Format, LoadOptions};

/// An OTF2 archive.
pub(crate) struct Otf2Reader {
    archive: Archive,
    done: Arc<AtomicU64>,
}

/// The error of opening an archive, named after the input.
fn open_error(name: &str, e: trama_otf2::Error) -> Error {
    match e {
        trama_otf2::Error::Io { file, source } => Error::Io { name: file, source },
        trama_otf2::Error::Unsupported { .. } => Error::Unsupported {
            name: name.to_string(),
            format: Format::Otf2,
            what: e.to_string(),
        },
        e => Error::Format {
            name: name.to_string(),
            message: e.to_string(),
        },
    }
}

impl Otf2Reader {
    pub(crate) fn open(head: Head) -> Result<Otf2Reader, Error> {
        let Some(path) = head.path.clone() else {
            return Err(Error::Unsupported {
                name: head.name.clone(),
                format: Format::Otf2,
                what: "an OTF2 anchor file read from a stream: its archive's other files are found beside it, give its path".into(),
            });
        };
        let name = head.name.clone();
        let data = head.into_bytes()?;
        let archive = Archive::open_with(&path, &data).map_err(|e| open_error(&name, e))?;
        Ok(Otf2Reader {
            archive,
            done: Arc::default(),
        })
    }
}

impl Otf2Reader {
    /// The words of the event on `line` of the archive's text (an error
    /// found by the engine names the line), read again.
    pub(crate) fn words_at(&self, line: u64) -> Option<String> {
        let mut found = None;
        let _ = trama_otf2::read_paje(&self.archive, None, |ev| {
            if ev.line() == line {
                found = Some(ev.contents());
                return Err(());
            }
            Ok(())
        });
        found
    }
}

impl TraceReader for Otf2Reader {
    fn read<F>(&mut self, opts: &LoadOptions, mut each: F) -> Result<ReadStats, Failure>
    where
        F: FnMut(Item<'_>) -> Result<(), Stop>,
    {
        let st = trama_otf2::read_paje_items(
            &self.archive,
            opts.handles,
            crate::cores(opts.threads) > 1,
            Some(&self.done),
            |item| match item {
                trama_otf2::Item::Event(ev) => each(Item::Event(ev)),
                trama_otf2::Item::Handles(h) => each(Item::Handles(h)),
            },
        )
        .map_err(|e| match e {
            ReadError::Handler(s) => Failure::Stop(s),
            ReadError::Archive(e) => Failure::Format(e.to_string()),
        })?;
        let notes = st.summary();
        Ok(ReadStats {
            lines: st.records,
            bytes: self.archive.event_bytes(),
            events: st.events,
            definitions: st.definitions,
            warnings: st.warnings,
            notes,
        })
    }

    /// The definitions, then each event on its line (the lines errors
    /// name), names with spaces quoted.
    fn write_text(&mut self, out: &mut dyn Write) -> Result<(), Failure> {
        let io = |e: std::io::Error| Stop::Other(Box::new(e));
        let mut line = Vec::new();
        for d in trama_otf2::definitions() {
            line.extend_from_slice(d.to_header().as_bytes());
        }
        out.write_all(&line).map_err(|e| Failure::Stop(io(e)))?;
        let opts = LoadOptions {
            threads: 1,
            ..LoadOptions::default()
        };
        self.read(&opts, |item| {
            let Item::Event(ev) = item else {
                return Ok(());
            };
            line.clear();
            for i in 0..ev.word_count() {
                if i > 0 {
                    line.push(b' ');
                }
                push_word(&mut line, ev.word(i), true);
            }
            line.push(b'\n');
            out.write_all(&line).map_err(io)
        })?;
        Ok(())
    }

    fn progress(&self) -> Option<Progress> {
        Some(Progress {
            total: Some(self.archive.event_bytes()),
            done: self.done.clone(),
            unit: ProgressUnit::Bytes,
        })
    }

    fn text_quotes(&self) -> QuoteMode {
        QuoteMode::Strip
    }

    fn precision(&self) -> trama_num::Precision {
        trama_otf2::PRECISION
    }
}
