//! Where the declaring engine's events go: the words of one event
//! ([`Words`]) and their consumer ([`EventOut`]): Pajé text
//! ([`TextOut`], behind [`PajeWriter`](super::PajeWriter)) or any
//! consumer of events, as the simulation is.

use std::io::Write;

use trama_events::{EventDef, Span};

use super::text::push_time;
use super::WriteError;
use crate::record::Nanos;

/// The words of one event, as a reader of its Pajé text (quotes
/// stripped) gets them: `buf` cut by `spans`, the first the event's
/// identifier. A word that holds blanks, `"` or `#`, or is empty, is
/// written in double quotes: its `"` become `'` and its line breaks and
/// tabs blanks.
#[derive(Default)]
pub struct Words {
    buf: Vec<u8>,
    spans: Vec<Span>,
    quoted: Vec<bool>,
}

impl Words {
    /// Forgets the words.
    pub(super) fn clear(&mut self) {
        self.buf.clear();
        self.spans.clear();
        self.quoted.clear();
    }

    fn end(&mut self, start: usize, quoted: bool) {
        self.spans.push(Span {
            start: start as u32,
            end: self.buf.len() as u32,
        });
        self.quoted.push(quoted);
    }

    /// Adds a word written as it is (an identifier).
    pub(super) fn push_raw(&mut self, w: &[u8]) {
        let start = self.buf.len();
        self.buf.extend_from_slice(w);
        self.end(start, false);
    }

    /// Adds a time in nanoseconds, as seconds with `decimals` decimals.
    pub(super) fn push_time(&mut self, t: Nanos, decimals: u32) {
        let start = self.buf.len();
        push_time(&mut self.buf, t, decimals);
        self.end(start, false);
    }

    /// Adds a word of text (quoted when it must be).
    pub(super) fn push_text(&mut self, w: &str) {
        let start = self.buf.len();
        let needs_quotes = w.is_empty()
            || w.bytes()
                .any(|b| b.is_ascii_whitespace() || b == b'"' || b == b'#');
        if needs_quotes {
            self.buf.extend(w.bytes().map(|b| match b {
                b'"' => b'\'',
                b'\n' | b'\r' | b'\t' => b' ',
                b => b,
            }));
        } else {
            self.buf.extend_from_slice(w.as_bytes());
        }
        self.end(start, needs_quotes);
    }

    /// The buffer the words are in.
    pub fn buf(&self) -> &[u8] {
        &self.buf
    }

    /// Each word's span in [`Words::buf`].
    pub fn spans(&self) -> &[Span] {
        &self.spans
    }

    /// Whether each word is written in double quotes.
    pub fn quoted(&self) -> &[bool] {
        &self.quoted
    }

    /// The length of the event's line of text, its line break included.
    pub fn text_len(&self) -> usize {
        let quotes = self.quoted.iter().filter(|q| **q).count();
        self.buf.len() + 2 * quotes + self.spans.len()
    }

    /// Appends the event's line of text to `line`.
    fn write_line(&self, line: &mut Vec<u8>) {
        for (i, (s, q)) in self.spans.iter().zip(&self.quoted).enumerate() {
            if i > 0 {
                line.push(b' ');
            }
            let w = &self.buf[s.start as usize..s.end as usize];
            if *q {
                line.push(b'"');
                line.extend_from_slice(w);
                line.push(b'"');
            } else {
                line.extend_from_slice(w);
            }
        }
        line.push(b'\n');
    }
}

/// The consumer of the events a [`Declarer`](super::Declarer) makes.
pub trait EventOut {
    /// A definition added on first use (for a set of extra fields), before
    /// the event that follows it.
    fn definition(&mut self, def: &EventDef) -> Result<(), WriteError>;

    /// One event of definition `def`, by its words.
    fn event(&mut self, def: &EventDef, words: &Words) -> Result<(), WriteError>;

    /// The lines of the trace's text so far (a definition added is on the next).
    fn lines(&self) -> u64;
}

/// Events written as lines of Pajé text (the output of a
/// [`PajeWriter`](super::PajeWriter)).
pub struct TextOut<W> {
    out: W,
    line: Vec<u8>,
    lines: u64,
}

impl<W: Write> TextOut<W> {
    /// Writes to `out`, which holds `lines` lines already.
    pub(super) fn new(out: W, lines: u64) -> TextOut<W> {
        TextOut {
            out,
            line: Vec::with_capacity(256),
            lines,
        }
    }

    pub(super) fn into_inner(self) -> W {
        self.out
    }
}

impl<W: Write> EventOut for TextOut<W> {
    fn definition(&mut self, def: &EventDef) -> Result<(), WriteError> {
        let header = def.to_header();
        self.lines += header.bytes().filter(|b| *b == b'\n').count() as u64;
        self.out.write_all(header.as_bytes())?;
        Ok(())
    }

    fn event(&mut self, _def: &EventDef, words: &Words) -> Result<(), WriteError> {
        self.line.clear();
        words.write_line(&mut self.line);
        self.lines += 1;
        self.out.write_all(&self.line)?;
        Ok(())
    }

    fn lines(&self) -> u64 {
        self.lines
    }
}
