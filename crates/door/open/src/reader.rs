//! The reader trait every trace format implements, and what readers hand
//! over.
//!
//! A [`TraceReader`] gives the events of a trace in trace order, as
//! [`Item`]s: an event by its words ([`trama_events::Event`], from text or
//! from a binary file that kept them), or an entity event by the handles of
//! its type, container and value ([`HandleEvent`], from a `.ptb` file, which
//! stores them resolved). Pajé text also hands over the chunks of text its
//! events lie in, so a converter can keep a chunk whole.
//!
//! Formats with a faster way than simulating every event in order (a `.ptb`
//! replays its blocks in parallel from keyframes, and reads only the blocks
//! a window needs) say so through [`TraceReader::ptb`].

use std::io::{self, Write};
use std::sync::Arc;

use trama_events::Event;
use trama_sim::{HandleEvent, SimError};

use crate::input::Progress;
use crate::LoadOptions;

pub use trama_paje::ReadStats;

/// What a reader hands over, in trace order.
pub enum Item<'a> {
    /// The text the events up to the next chunk lie in: `buffer[..len]`
    /// (Pajé text only; see [`trama_paje::Item::Chunk`]).
    Chunk {
        /// The buffer.
        buffer: &'a Arc<Vec<u8>>,
        /// The length of the text in it.
        len: usize,
    },
    /// An event given by its words.
    Event(Event<'a>),
    /// An entity event given by handles (binary files).
    Handles(&'a HandleEvent<'a>),
}

/// Why the consumer of the items stopped the reading.
#[derive(Debug)]
#[non_exhaustive]
pub enum Stop {
    /// The simulation rejected an event.
    Sim(Box<SimError>),
    /// A two-thread simulation closed: its error comes with its result.
    Closed,
    /// The consumer's output is closed (a broken pipe).
    OutputClosed,
    /// Another failure of the consumer.
    Other(Box<dyn std::error::Error + Send + Sync>),
}

/// Why reading stopped, whatever the format.
#[derive(Debug)]
#[non_exhaustive]
pub enum Failure {
    /// The consumer stopped it.
    Stop(Stop),
    /// A line of text is not valid Pajé.
    Syntax {
        /// 1-based line.
        line: u64,
        /// What is wrong.
        error: trama_paje::SyntaxError,
        /// The words of the line.
        contents: String,
    },
    /// Reading failed.
    Io(io::Error),
    /// A binary file is damaged (the message gives the byte offset).
    Format(String),
}

impl From<trama_paje::ReadError<Stop>> for Failure {
    fn from(e: trama_paje::ReadError<Stop>) -> Failure {
        match e {
            trama_paje::ReadError::Handler(s) => Failure::Stop(s),
            trama_paje::ReadError::Syntax {
                line,
                error,
                contents,
            } => Failure::Syntax {
                line,
                error,
                contents,
            },
            trama_paje::ReadError::Io(e) => Failure::Io(e),
        }
    }
}

/// A trace format's reader. Implement it for a new format and register
/// the format in `crate::formats` (see `ARCHITECTURE.md`). Readers are
/// dispatched by an enum, not a trait object, so that the consumer of the
/// events (the simulation) is compiled into each reader's loop.
pub trait TraceReader: Send {
    /// Hands every event to `each`, in trace order, and says what the
    /// input held. A stream can be read once: a second call fails.
    fn read<F>(&mut self, opts: &LoadOptions, each: F) -> Result<ReadStats, Failure>
    where
        F: FnMut(Item<'_>) -> Result<(), Stop>;

    /// As [`TraceReader::read`], through the sort window of `opts`
    /// ([`LoadOptions::sort_window`]) when there is one.
    fn read_sorted<F>(&mut self, opts: &LoadOptions, each: F) -> Result<ReadStats, Failure>
    where
        Self: Sized,
        F: FnMut(Item<'_>) -> Result<(), Stop>,
    {
        crate::reorder::read_sorted(self, opts, each)
    }

    /// Writes the trace as Pajé text that reads back to the same events.
    /// The default writes each event's definition before its first use,
    /// then its words.
    fn write_text(&mut self, out: &mut dyn Write) -> Result<(), Failure>
    where
        Self: Sized,
    {
        write_events_as_text(self, out)
    }

    /// The progress of reading, when it can be followed.
    fn progress(&self) -> Option<Progress> {
        None
    }

    /// Whether the input is binary (its line numbers are those of the text
    /// it was made from).
    fn binary(&self) -> bool {
        false
    }

    /// The quote mode to read its text with ([`TraceReader::write_text`]).
    fn text_quotes(&self) -> trama_paje::QuoteMode {
        trama_paje::QuoteMode::Keep
    }

    /// How its variable values are read: as PajeNG reads Pajé text
    /// (`strtof`, the default), or exactly, for a format whose numbers are
    /// the source's own (OTF2, and a `.ptb` made from one).
    fn precision(&self) -> trama_num::Precision {
        trama_num::Precision::Float32
    }

    /// The text itself, for a reader of text that was not read yet (a
    /// merge source reads it on its own).
    fn take_text(&mut self) -> Option<Box<dyn std::io::Read + Send>> {
        None
    }

    /// The `.ptb` file behind the reader, for the faster paths it offers
    /// (parallel replay, window reads, `trama info`).
    fn ptb(&self) -> Option<&trama_ptb::PtbFile> {
        None
    }
}

/// Writes the events `reader` hands over as Pajé text: each definition
/// before the first event that uses it, then the event's words.
pub(crate) fn write_events_as_text<R: TraceReader>(
    reader: &mut R,
    out: &mut dyn Write,
) -> Result<(), Failure> {
    let mut seen = std::collections::HashSet::new();
    let mut line = Vec::new();
    let opts = LoadOptions {
        threads: 1,
        ..LoadOptions::default()
    };
    reader.read(&opts, |item| {
        let Item::Event(ev) = item else {
            return Ok(());
        };
        line.clear();
        if seen.insert(ev.def().id().to_vec()) {
            line.extend_from_slice(ev.def().to_header().as_bytes());
        }
        for i in 0..ev.word_count() {
            if i > 0 {
                line.push(b' ');
            }
            line.extend_from_slice(ev.word(i));
        }
        line.push(b'\n');
        out.write_all(&line).map_err(|e| Stop::Other(Box::new(e)))
    })?;
    Ok(())
}

/// Appends `w` to `line`, in double quotes when `quote` and it holds
/// spaces, tabs or `#` or is empty: such text reads back with
/// [`trama_paje::QuoteMode::Strip`]. The word must hold no double quote
/// nor line break.
pub(crate) fn push_word(line: &mut Vec<u8>, w: &[u8], quote: bool) {
    if quote && (w.is_empty() || w.iter().any(|b| matches!(b, b' ' | b'\t' | b'#'))) {
        line.push(b'"');
        line.extend_from_slice(w);
        line.push(b'"');
    } else {
        line.extend_from_slice(w);
    }
}
