//! The [`Writer`]: events resolved on the caller's thread and handed in
//! batches to the encoding thread.

use std::io::{self, Write};
use std::sync::Arc;
use std::thread::JoinHandle;

use crossbeam_channel::{bounded, Sender};
use trama_events::{Event, EventDef, Span};
use trama_sim::replay::ModelBuilder;
use trama_sim::EntityHandles;

use super::encoder::Encoder;
use super::{SourceStats, WriteError, WriteOptions, Written};
use crate::format::*;

/// Events per batch handed to the encoding thread.
const BATCH: usize = 16384;

/// Events handed from a [`Writer`] to its encoding thread: their words and
/// what resolving them gave.
#[derive(Default)]
struct Batch {
    /// Definitions seen for the first time, by index.
    defs: Vec<EventDef>,
    steps: Vec<Step>,
    /// The words of events given alone, copied one event after the other.
    bytes: Vec<u8>,
    /// Chunks of the caller's text that events of the batch lie in (a
    /// buffer, and the length of its text).
    chunks: Vec<(Arc<Vec<u8>>, usize)>,
    spans: Vec<Span>,
}

impl Batch {
    /// The text that `step`'s spans index into.
    #[inline]
    fn text(&self, step: &Step) -> &[u8] {
        match step.chunk {
            0 => &self.bytes,
            c => {
                let (buffer, len) = &self.chunks[c as usize - 1];
                &buffer[..*len]
            }
        }
    }

    fn clear(&mut self) {
        self.steps.clear();
        self.bytes.clear();
        self.chunks.clear();
        self.spans.clear();
    }
}

struct Step {
    def: u32,
    /// Where its words lie: 0 for the batch's own bytes, `i + 1` for its
    /// chunk `i`.
    chunk: u32,
    line: u64,
    /// Its words (the identifier first) in the batch's spans.
    words: u32,
    handles: Option<EntityHandles>,
}

/// The chunk of text announced by [`Writer::text`].
struct Chunk {
    buffer: Arc<Vec<u8>>,
    len: usize,
    /// Its index in the batch being filled, plus one (0: not in it yet).
    in_batch: u32,
}

enum Msg {
    Events(Batch),
    Finish(Vec<EventDef>, SourceStats),
}

type Encoded<W> = io::Result<(W, Written)>;

/// Writes a `.ptb` file in one pass: feed it every event in trace order,
/// then [`Writer::finish`] with the definitions. The caller's thread
/// resolves events (checks their references, as the simulator does); an
/// encoding thread stores them and follows the simulation for keyframes; a
/// third one compresses and writes frames.
pub struct Writer<W: Write + Send + 'static> {
    mb: ModelBuilder,
    batch: Batch,
    /// Definitions already handed over.
    sent: Vec<bool>,
    events: u64,
    /// The chunk announced last, if any.
    chunk: Option<Chunk>,
    tx: Option<Sender<Msg>>,
    free: crossbeam_channel::Receiver<Batch>,
    thread: Option<JoinHandle<Encoded<W>>>,
}

impl<W: Write + Send + 'static> Writer<W> {
    /// Starts a file on `out` (the header is written at once).
    pub fn new(out: W, opts: WriteOptions) -> io::Result<Writer<W>> {
        let mut enc = Encoder::new(out, opts)?;
        let (tx, rx) = bounded::<Msg>(3);
        let (free_tx, free) = bounded::<Batch>(4);
        let thread = std::thread::Builder::new()
            .name("trama-ptb-encode".into())
            .spawn(move || -> Encoded<W> {
                let mut defs: Vec<Option<EventDef>> = Vec::new();
                for msg in rx.iter() {
                    match msg {
                        Msg::Events(mut b) => {
                            for d in b.defs.drain(..) {
                                let i = d.index() as usize;
                                if defs.len() <= i {
                                    defs.resize(i + 1, None);
                                }
                                defs[i] = Some(d);
                            }
                            let (mut at, mut text) = (0, &b.bytes[..]);
                            for s in &b.steps {
                                if s.chunk != at {
                                    at = s.chunk;
                                    text = b.text(s);
                                }
                                let def = defs
                                    .get(s.def as usize)
                                    .and_then(|d| d.as_ref())
                                    .ok_or_else(|| io::Error::other("an event of no definition"))?;
                                let w = s.words as usize;
                                let ev = Event::new(
                                    def,
                                    s.line,
                                    text,
                                    &b.spans[w..w + def.field_count()],
                                );
                                enc.event(&ev, s.handles).map_err(|e| match e {
                                    WriteError::Io(e) => e,
                                    WriteError::Trace(e) => io::Error::other(e.to_string()),
                                })?;
                            }
                            b.clear();
                            let _ = free_tx.try_send(b);
                        }
                        Msg::Finish(defs, source) => return enc.finish(&defs, source),
                    }
                }
                Err(io::Error::other("the binary writer was dropped"))
            })?;
        Ok(Writer {
            mb: ModelBuilder::new(false),
            batch: Batch::default(),
            sent: Vec::new(),
            events: 0,
            chunk: None,
            tx: Some(tx),
            free,
            thread: Some(thread),
        })
    }

    /// Adds one event: resolves its references (an unknown container or a
    /// type defined twice is an error, as when simulating) and hands it to
    /// the encoding thread.
    pub fn event(&mut self, ev: &Event<'_>) -> Result<(), WriteError> {
        let def = ev.def();
        let handles = if is_entity(def.kind()) {
            Some(self.mb.entity(ev).map_err(WriteError::Trace)?)
        } else {
            self.mb
                .event(ev)
                .map_err(|e| WriteError::Trace(Box::new(e)))?;
            None
        };
        let d = def.index() as usize;
        if self.sent.len() <= d {
            self.sent.resize(d + 1, false);
        }
        if !self.sent[d] {
            self.sent[d] = true;
            self.batch.defs.push(def.clone());
        }
        let b = &mut self.batch;
        let words = b.spans.len() as u32;
        let (buf, spans) = ev.spans();
        let chunk = match &mut self.chunk {
            Some(c) if c.buffer.as_ptr() == buf.as_ptr() && c.len == buf.len() => {
                // The words lie in the announced chunk, which the encoder
                // shares: only the spans are copied.
                if c.in_batch == 0 {
                    b.chunks.push((c.buffer.clone(), c.len));
                    c.in_batch = b.chunks.len() as u32;
                }
                b.spans.extend_from_slice(spans);
                c.in_batch
            }
            _ => {
                // The words lie in one stretch of the caller's buffer: one
                // copy.
                let (lo, hi) = spans.iter().fold((u32::MAX, 0), |(lo, hi), s| {
                    (lo.min(s.start), hi.max(s.end))
                });
                let lo = lo.min(hi);
                let at = b.bytes.len() as u32;
                b.bytes.extend_from_slice(&buf[lo as usize..hi as usize]);
                b.spans.extend(spans.iter().map(|s| Span {
                    start: s.start - lo + at,
                    end: s.end - lo + at,
                }));
                0
            }
        };
        b.steps.push(Step {
            def: d as u32,
            chunk,
            line: ev.line(),
            words,
            handles,
        });
        self.events += 1;
        if b.steps.len() >= BATCH || b.bytes.len() >= 1 << 24 {
            self.send()?;
        }
        Ok(())
    }

    /// Announces the text that the next events lie in, `buffer[..len]`
    /// (their [`Event::spans`] buffer is this slice): the encoder shares
    /// the buffer instead of getting each event's words copied. The buffer
    /// must not change while the writer may hold it (an `Arc` shared with
    /// the writer cannot be changed in place).
    pub fn text(&mut self, buffer: &Arc<Vec<u8>>, len: usize) {
        self.chunk = Some(Chunk {
            buffer: buffer.clone(),
            len: len.min(buffer.len()),
            in_batch: 0,
        });
    }

    fn send(&mut self) -> io::Result<()> {
        if let Some(c) = &mut self.chunk {
            c.in_batch = 0;
        }
        let next = self.free.try_recv().unwrap_or_default();
        let batch = std::mem::replace(&mut self.batch, next);
        let ok = self
            .tx
            .as_ref()
            .is_some_and(|tx| tx.send(Msg::Events(batch)).is_ok());
        if ok {
            Ok(())
        } else {
            Err(self.stopped())
        }
    }

    /// The encoding thread stopped: its error tells why.
    fn stopped(&mut self) -> io::Error {
        self.tx = None;
        match self.thread.take().map(|t| t.join()) {
            Some(Ok(Err(e))) => e,
            Some(Err(p)) => std::panic::resume_unwind(p),
            _ => io::Error::other("the binary writer stopped"),
        }
    }

    /// Events written so far.
    pub fn events(&self) -> u64 {
        self.events
    }

    /// Writes the last frames, the footer (with `defs`, every definition of
    /// the trace in declaration order) and the trailer; returns the output
    /// and what was written.
    pub fn finish(mut self, defs: &[EventDef], source: SourceStats) -> io::Result<(W, Written)> {
        if !self.batch.steps.is_empty() {
            self.send()?;
        }
        let ok = self
            .tx
            .take()
            .is_some_and(|tx| tx.send(Msg::Finish(defs.to_vec(), source)).is_ok());
        match self.thread.take().map(|t| t.join()) {
            Some(Ok(r)) => r,
            Some(Err(p)) => std::panic::resume_unwind(p),
            None => Err(io::Error::other("the binary writer stopped")),
        }
        .and_then(|r| {
            if ok {
                Ok(r)
            } else {
                Err(io::Error::other("the binary writer stopped"))
            }
        })
    }
}

impl<W: Write + Send + 'static> Drop for Writer<W> {
    fn drop(&mut self) {
        self.tx = None;
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}
