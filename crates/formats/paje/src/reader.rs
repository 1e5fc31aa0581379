//! The streaming reader: chunks of lines are lexed in parallel while the
//! caller's thread checks definitions and hands events over in file order.
//!
//! Data flow with `threads >= 2`:
//!
//! ```text
//! reader thread ──chunks──▶ lexer workers ──(in order)──▶ caller: definitions + handler
//!        ▲                                                   │
//!        └────────────────── recycled buffers ◀──────────────┘
//! ```
//!
//! Memory is bounded by `chunk_size × (in-flight chunks)`: the input is never
//! held whole. A line longer than `chunk_size` simply makes its chunk bigger.

use std::io::{self, Read};
use std::sync::Arc;

use crossbeam_channel::{bounded, Receiver, Sender};
use trama_events::{Event, EventDef, Span};

use crate::bom::SkipBom;
use crate::defs::{lossy, Definitions};
use crate::error::{ReadError, SyntaxError};
use crate::lexer::{Lexed, QuoteMode};
use crate::lexer_simd::lex_chunk_fast;

/// Maximum number of words on an event line (PajeNG's `PAJE_MAX_FIELDS`).
pub const MAX_FIELDS: usize = 20;

/// Options of the text reader.
#[derive(Clone, Debug)]
#[non_exhaustive]
pub struct ReadOptions {
    /// Reject old field names (`ContainerType`, `SourceContainer`, …). Default true.
    pub strict: bool,
    /// How quoted words are read. Default [`QuoteMode::Keep`].
    pub quotes: QuoteMode,
    /// Threads to use: 1 reads and lexes on the caller's thread; N ≥ 2 uses
    /// one reading thread and N-1 lexing threads besides the caller's.
    /// 0 means "as many as there are cores".
    pub threads: usize,
    /// Approximate size of the chunks handed to lexers, in bytes.
    pub chunk_size: usize,
    /// Hand over the lines read so far as soon as a read of the input
    /// comes back short, instead of waiting for a chunk's size: for an
    /// input still being written (a pipe, a file followed), whose lines
    /// should be seen as they come. Default false.
    pub live: bool,
}

impl Default for ReadOptions {
    fn default() -> Self {
        ReadOptions {
            strict: true,
            quotes: QuoteMode::Keep,
            threads: 0,
            chunk_size: 1 << 20,
            live: false,
        }
    }
}

/// What a finished read saw.
#[derive(Clone, Debug, Default)]
pub struct ReadStats {
    /// Lines in the input.
    pub lines: u64,
    /// Bytes of (decompressed) text.
    pub bytes: u64,
    /// Events handed to the handler.
    pub events: u64,
    /// Every event definition, in declaration order.
    pub definitions: Vec<EventDef>,
    /// Remarks about accepted but suspicious input (e.g. an unclosed definition).
    pub warnings: Vec<String>,
    /// What a reader of another format says of its input for a summary
    /// (an OTF2 archive's records by type, those skipped).
    pub notes: Vec<String>,
}

struct Chunk {
    /// Storage; only `data[..len]` is meaningful. Kept at its allocated size
    /// so refilling a recycled chunk does not zero it again. A handler may
    /// keep it ([`Item::Chunk`]): the next fill then takes a spare.
    data: Arc<Vec<u8>>,
    /// Buffers handed out before, taken again once their holders let go.
    spares: Vec<Arc<Vec<u8>>>,
    len: usize,
    lexed: Lexed,
}

impl Chunk {
    fn new() -> Chunk {
        Chunk {
            data: Arc::new(Vec::new()),
            spares: Vec::new(),
            len: 0,
            lexed: Lexed::default(),
        }
    }

    #[inline]
    fn text(&self) -> &[u8] {
        &self.data[..self.len]
    }

    fn lex(&mut self, mode: QuoteMode) {
        lex_chunk_fast(&self.data[..self.len], mode, &mut self.lexed);
    }

    /// Makes the buffer this chunk's own again (a spare when a handler
    /// still holds it), empty.
    fn reclaim(&mut self) {
        self.len = 0;
        if Arc::get_mut(&mut self.data).is_some() {
            return;
        }
        let free = self
            .spares
            .iter_mut()
            .position(|b| Arc::get_mut(b).is_some());
        let fresh = match free {
            Some(i) => self.spares.swap_remove(i),
            None => Arc::new(Vec::new()),
        };
        let held = std::mem::replace(&mut self.data, fresh);
        if self.spares.len() < MAX_SPARES {
            self.spares.push(held);
        }
    }

    /// Makes room for at least `extra` more bytes after `len`.
    fn reserve(&mut self, extra: usize) {
        if self.data.len() < self.len + extra {
            Arc::make_mut(&mut self.data).resize(self.len + extra, 0);
        }
    }

    /// Reads once into the free space; returns the bytes read (0 at EOF).
    fn read_from<R: Read>(&mut self, input: &mut R, want: usize) -> io::Result<usize> {
        self.reserve(want);
        loop {
            let data = Arc::make_mut(&mut self.data);
            match input.read(&mut data[self.len..self.len + want]) {
                Ok(n) => {
                    self.len += n;
                    return Ok(n);
                }
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                Err(e) => return Err(e),
            }
        }
    }
}

/// Buffers a chunk keeps for reuse while handlers hold them.
const MAX_SPARES: usize = 8;

/// Largest chunk (word offsets are 32-bit).
const MAX_CHUNK: usize = u32::MAX as usize - (1 << 20);

/// Fills `chunk` with `carry` and then input until about `size` bytes, cut
/// after the last newline; the rest goes back to `carry`. Returns false when
/// the input is exhausted and nothing was produced.
fn fill_chunk<R: Read>(
    input: &mut R,
    chunk: &mut Chunk,
    carry: &mut Vec<u8>,
    size: usize,
    eof: &mut bool,
    live: bool,
) -> io::Result<bool> {
    chunk.reclaim();
    chunk.reserve(carry.len().max(size));
    Arc::make_mut(&mut chunk.data)[..carry.len()].copy_from_slice(carry);
    chunk.len = carry.len();
    carry.clear();
    let mut search_from = 0;
    let mut target = size;
    loop {
        while !*eof && chunk.len < target {
            let want = (target - chunk.len).max(64 * 1024);
            let n = chunk.read_from(input, want)?;
            if n == 0 {
                *eof = true;
            } else if live
                && n < want
                && memchr::memchr(b'\n', &chunk.data[chunk.len - n..chunk.len]).is_some()
            {
                // The input has no more for now: hand over its whole lines.
                break;
            }
        }
        if *eof {
            return Ok(chunk.len > 0);
        }
        match memchr::memrchr(b'\n', &chunk.data[search_from..chunk.len]) {
            Some(p) => {
                let cut = search_from + p + 1;
                carry.extend_from_slice(&chunk.data[cut..chunk.len]);
                chunk.len = cut;
                return Ok(true);
            }
            None => {
                // A very long line: read more.
                if chunk.len >= MAX_CHUNK {
                    return Err(io::Error::new(
                        io::ErrorKind::InvalidData,
                        "a line longer than 4 GiB: this is not a Pajé trace",
                    ));
                }
                search_from = chunk.len;
                target = (chunk.len + size).min(MAX_CHUNK);
            }
        }
    }
}

/// What [`read_paje_chunked`] hands its handler: a chunk of text, then
/// the events whose words lie in it.
#[derive(Clone, Copy, Debug)]
pub enum Item<'a> {
    /// The text that the events up to the next `Chunk` lie in:
    /// `buffer[..len]`, which is their [`Event::spans`] buffer. The handler
    /// may keep the buffer (a clone of the `Arc`): the reader never changes
    /// a buffer someone else holds.
    Chunk {
        /// The buffer the text starts.
        buffer: &'a Arc<Vec<u8>>,
        /// The length of the text.
        len: usize,
    },
    /// An event.
    Event(Event<'a>),
}

/// Consumes lexed chunks in order: definitions, event lookup, field counts.
struct Consumer<'h, F> {
    defs: Definitions,
    handler: &'h mut F,
    base_line: u64,
    stats: ReadStats,
    /// Lines with more words than their definition has fields.
    extra_lines: u64,
}

/// Lines of one kind of remark named in the warnings; the others are counted.
const SHOWN: u64 = 5;

impl<F, E> Consumer<'_, F>
where
    F: FnMut(Item<'_>) -> Result<(), E>,
{
    fn chunk(&mut self, chunk: &Chunk) -> Result<(), ReadError<E>> {
        if let Some(off) = chunk.lexed.nul {
            let line = self.base_line
                + memchr::memchr_iter(b'\n', &chunk.text()[..off as usize]).count() as u64
                + 1;
            return Err(ReadError::Syntax {
                line,
                error: SyntaxError::NulByte,
                contents: String::new(),
            });
        }
        let buf = chunk.text();
        (self.handler)(Item::Chunk {
            buffer: &chunk.data,
            len: chunk.len,
        })
        .map_err(ReadError::Handler)?;
        for rec in &chunk.lexed.lines {
            let line = self.base_line + rec.rel as u64 + 1;
            let words = &chunk.lexed.words[rec.first as usize..(rec.first + rec.count) as usize];
            let w0 = &buf[words[0].start as usize..words[0].end as usize];
            if w0.first() == Some(&b'%') {
                self.definition(buf, words, line)?;
                continue;
            }
            let Some(def) = self.defs.lookup(w0) else {
                return Err(syntax(
                    line,
                    SyntaxError::UnknownEventId { id: lossy(w0) },
                    buf,
                    words,
                ));
            };
            let mut words = words;
            if words.len() > def.field_count() && words.len() <= MAX_FIELDS {
                // PajeNG complains and uses the line: so does trama, on stderr.
                extra_fields(
                    &mut self.extra_lines,
                    &mut self.stats.warnings,
                    (def, line, buf, words),
                );
                words = &words[..def.field_count()];
            }
            if words.len() != def.field_count() || words.len() > MAX_FIELDS {
                let error = if words.len() > MAX_FIELDS {
                    SyntaxError::TooManyFields {
                        found: words.len(),
                        max: MAX_FIELDS,
                    }
                } else {
                    SyntaxError::FieldCount {
                        kind: def.kind(),
                        id: lossy(def.id()),
                        def_line: def.line(),
                        expected: def.field_count(),
                        found: words.len(),
                        layout: layout(def),
                    }
                };
                return Err(syntax(line, error, buf, words));
            }
            self.stats.events += 1;
            (self.handler)(Item::Event(Event::new(def, line, buf, words)))
                .map_err(ReadError::Handler)?;
        }
        self.base_line += chunk.lexed.line_count as u64;
        self.stats.lines = self.base_line;
        self.stats.bytes += chunk.len as u64;
        Ok(())
    }

    fn definition(&mut self, buf: &[u8], words: &[Span], line: u64) -> Result<(), ReadError<E>> {
        // Definition lines are rare: a small allocation is fine here.
        let v: Vec<&[u8]> = words
            .iter()
            .map(|w| &buf[w.start as usize..w.end as usize])
            .collect();
        self.defs
            .definition_line(&v, line)
            .map_err(|e| syntax(line, e, buf, words))
    }

    fn finish(mut self) -> ReadStats {
        if self.extra_lines > SHOWN {
            self.stats.warnings.push(format!(
                "{} lines in all have more fields than their definition (the first {SHOWN} are named above); their extra fields are ignored",
                self.extra_lines
            ));
        }
        if let Some(def) = self.defs.open_definition() {
            self.stats.warnings.push(format!(
                "the definition of {} '{}' (line {}) is not closed by %EndEventDef",
                def.kind(),
                lossy(def.id()),
                def.line()
            ));
        }
        self.stats.definitions = self.defs.all().to_vec();
        self.stats
    }
}

/// Notes a line with more words than its definition has fields: the
/// first [`SHOWN`] are named in `warnings`, all are counted in `count`.
fn extra_fields(
    count: &mut u64,
    warnings: &mut Vec<String>,
    (def, line, buf, words): (&EventDef, u64, &[u8], &[Span]),
) {
    *count += 1;
    if *count > SHOWN {
        return;
    }
    let ignored = words[def.field_count()..]
        .iter()
        .map(|w| lossy(&buf[w.start as usize..w.end as usize]))
        .collect::<Vec<_>>()
        .join(" ");
    warnings.push(format!(
        "line {line}: {} (id '{}', defined at line {}) has {} fields ({}), found {}; the extra field(s) '{}' are ignored",
        def.kind(),
        lossy(def.id()),
        def.line(),
        def.field_count(),
        layout(def),
        words.len(),
        ignored
    ));
}

fn layout(def: &EventDef) -> String {
    let mut extra = def.extra_names().iter();
    def.fields()
        .iter()
        .map(|(f, _)| match f {
            trama_events::Field::Extra => extra.next().map(|s| s.to_string()).unwrap_or_default(),
            f => f.name().to_string(),
        })
        .collect::<Vec<_>>()
        .join(" ")
}

fn syntax<E>(line: u64, error: SyntaxError, buf: &[u8], words: &[Span]) -> ReadError<E> {
    let contents = words
        .iter()
        .map(|w| lossy(&buf[w.start as usize..w.end as usize]))
        .collect::<Vec<_>>()
        .join(" ");
    ReadError::Syntax {
        line,
        error,
        contents,
    }
}

/// Reads a Pajé text trace from `input` and calls `handler` with every event,
/// in file order. Definitions are checked and consumed here; the handler sees
/// only events. Stops at the first error (syntax, I/O or handler).
pub fn read_paje<R, F, E>(
    input: R,
    options: &ReadOptions,
    mut handler: F,
) -> Result<ReadStats, ReadError<E>>
where
    R: Read + Send,
    F: FnMut(Event<'_>) -> Result<(), E>,
{
    read_paje_chunked(input, options, |item| match item {
        Item::Event(ev) => handler(ev),
        Item::Chunk { .. } => Ok(()),
    })
}

/// As [`read_paje`], but the handler also sees each chunk of text before
/// the events that lie in it ([`Item::Chunk`]), so it can keep a chunk
/// whole instead of copying events one by one.
pub fn read_paje_chunked<R, F, E>(
    input: R,
    options: &ReadOptions,
    mut handler: F,
) -> Result<ReadStats, ReadError<E>>
where
    R: Read + Send,
    F: FnMut(Item<'_>) -> Result<(), E>,
{
    let threads = if options.threads == 0 {
        std::thread::available_parallelism()
            .map(|n| n.get())
            .unwrap_or(1)
    } else {
        options.threads
    };
    let mut consumer = Consumer {
        defs: Definitions::new(options.strict),
        handler: &mut handler,
        base_line: 0,
        stats: ReadStats::default(),
        extra_lines: 0,
    };
    let size = options.chunk_size.max(4096);
    let input = SkipBom::new(input);
    if threads <= 1 {
        consumer.read_sequential(input, options.quotes, size, options.live)?;
    } else {
        consumer.read_parallel(input, options.quotes, size, options.live, threads - 1)?;
    }
    Ok(consumer.finish())
}

type Ordered = Result<Receiver<Chunk>, io::Error>;

/// The two ways of reading: one thread, or several.
impl<F, E> Consumer<'_, F>
where
    F: FnMut(Item<'_>) -> Result<(), E>,
{
    /// Reads, lexes and consumes the chunks one after the other.
    fn read_sequential(
        &mut self,
        mut input: impl Read,
        mode: QuoteMode,
        size: usize,
        live: bool,
    ) -> Result<(), ReadError<E>> {
        let mut chunk = Chunk::new();
        let mut carry = Vec::new();
        let mut eof = false;
        while fill_chunk(&mut input, &mut chunk, &mut carry, size, &mut eof, live)? {
            chunk.lex(mode);
            self.chunk(&chunk)?;
        }
        Ok(())
    }

    /// Reads on a thread, lexes on `lexers` threads and consumes the chunks in
    /// order on this one.
    fn read_parallel(
        &mut self,
        mut input: impl Read + Send,
        mode: QuoteMode,
        size: usize,
        live: bool,
        lexers: usize,
    ) -> Result<(), ReadError<E>> {
        let in_flight = 2 * lexers + 2;
        let (job_tx, job_rx) = bounded::<(Chunk, Sender<Chunk>)>(in_flight);
        let (order_tx, order_rx) = bounded::<Ordered>(in_flight);
        let (free_tx, free_rx) = bounded::<Chunk>(in_flight + 2);
        std::thread::scope(|scope| {
            // Reader.
            let free_rx2 = free_rx.clone();
            let reader = move || {
                let mut carry = Vec::new();
                let mut eof = false;
                loop {
                    let mut chunk = free_rx2.try_recv().unwrap_or_else(|_| Chunk::new());
                    match fill_chunk(&mut input, &mut chunk, &mut carry, size, &mut eof, live) {
                        Ok(true) => {
                            let (tx, rx) = bounded(1);
                            if order_tx.send(Ok(rx)).is_err() || job_tx.send((chunk, tx)).is_err() {
                                return;
                            }
                        }
                        Ok(false) => return,
                        Err(e) => {
                            let _ = order_tx.send(Err(e));
                            return;
                        }
                    }
                }
            };
            std::thread::Builder::new()
                .name("trama-read".into())
                .spawn_scoped(scope, reader)?;
            // Lexers.
            for _ in 0..lexers {
                let job_rx = job_rx.clone();
                let lexer = move || {
                    for (mut chunk, done) in job_rx.iter() {
                        chunk.lex(mode);
                        if done.send(chunk).is_err() {
                            return;
                        }
                    }
                };
                std::thread::Builder::new()
                    .name("trama-lex".into())
                    .spawn_scoped(scope, lexer)?;
            }
            drop(job_rx);
            // Consumer on this thread.
            let result = (|| {
                for next in order_rx.iter() {
                    let rx = next?;
                    let Ok(chunk) = rx.recv() else { break };
                    self.chunk(&chunk)?;
                    let _ = free_tx.try_send(chunk);
                }
                Ok(())
            })();
            // Unblock the other threads whatever happened.
            drop(order_rx);
            drop(free_rx);
            result
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const HEADER: &str = "%EventDef PajeDefineContainerType 0\n% Alias string\n% Type string\n% Name string\n%EndEventDef\n%EventDef PajeCreateContainer 6\n% Time date\n% Alias string\n% Type string\n% Container string\n% Name string\n%EndEventDef\n";

    fn collect(text: &str, threads: usize, chunk: usize) -> Result<Vec<(u64, String)>, String> {
        let opts = ReadOptions {
            threads,
            chunk_size: chunk,
            ..Default::default()
        };
        let mut out = Vec::new();
        read_paje(
            text.as_bytes(),
            &opts,
            |ev: Event<'_>| -> Result<(), String> {
                out.push((ev.line(), ev.contents()));
                Ok(())
            },
        )
        .map_err(|e| e.to_string())?;
        Ok(out)
    }

    #[test]
    fn events_in_order_with_line_numbers_in_every_mode() {
        let mut text = String::from(HEADER);
        text.push_str("0 P 0 Proc\n\n# comment\n");
        for i in 0..2000 {
            text.push_str(&format!("6 {i}.5 p{i} P 0 \"proc {i}\"\n"));
        }
        let reference = collect(&text, 1, 1 << 20).unwrap();
        assert_eq!(reference.len(), 2001);
        assert_eq!(reference[0], (13, "0 P 0 Proc".to_string()));
        assert_eq!(reference[1].0, 16);
        assert_eq!(reference[2000].1, "6 1999.5 p1999 P 0 \"proc 1999\"");
        for threads in [1, 2, 3, 4] {
            for chunk in [4096, 10_000, 1 << 20] {
                assert_eq!(collect(&text, threads, chunk).unwrap(), reference);
            }
        }
    }

    #[test]
    fn chunks_come_before_the_events_that_lie_in_them() {
        let mut text = String::from(HEADER);
        text.push_str("0 P 0 Proc\n");
        for i in 0..30_000 {
            text.push_str(&format!("6 {i}.5 p{i} P 0 \"proc {i}\"\n"));
        }
        for threads in [1, 3] {
            let opts = ReadOptions {
                threads,
                chunk_size: 4096,
                ..Default::default()
            };
            let mut chunks: Vec<u8> = Vec::new();
            let mut current: Option<(usize, usize)> = None;
            let (mut n_chunks, mut events) = (0, 0);
            let mut held = Vec::new();
            read_paje_chunked(text.as_bytes(), &opts, |item| -> Result<(), String> {
                match item {
                    Item::Chunk { buffer, len } => {
                        chunks.extend_from_slice(&buffer[..len]);
                        current = Some((buffer.as_ptr() as usize, len));
                        n_chunks += 1;
                        // Holding a chunk never lets the reader change it.
                        held.push((buffer.clone(), buffer[..len].to_vec()));
                    }
                    Item::Event(ev) => {
                        let (buf, _) = ev.spans();
                        assert_eq!(current, Some((buf.as_ptr() as usize, buf.len())));
                        events += 1;
                    }
                }
                Ok(())
            })
            .unwrap();
            for (buffer, text) in &held {
                assert_eq!(&buffer[..text.len()], &text[..]);
            }
            // Every byte of the text was in exactly one chunk, in order.
            assert_eq!(chunks, text.as_bytes(), "{threads} threads");
            assert!(n_chunks > 5, "{n_chunks} chunks");
            assert_eq!(events, 30_001);
        }
    }

    #[test]
    fn long_lines_grow_the_chunk() {
        let mut text = String::from(HEADER);
        let long = "x".repeat(20_000);
        text.push_str(&format!("0 P 0 {long}\n0 Q 0 {long}"));
        for threads in [1, 2] {
            let got = collect(&text, threads, 4096).unwrap();
            assert_eq!(got.len(), 2);
            assert_eq!(got[1].0, 14);
        }
    }

    #[test]
    fn errors_name_the_line_and_token() {
        let text = format!("{HEADER}0 P 0 Proc\n7 P 0\n");
        for threads in [1, 2] {
            let e = collect(&text, threads, 4096).unwrap_err();
            assert!(e.contains("line 14"), "{e}");
            assert!(e.contains("event id '7'"), "{e}");
        }
        let text = format!("{HEADER}6 0 p1 P 0\n");
        let e = collect(&text, 1, 4096).unwrap_err();
        assert!(
            e.contains("expects 6 fields") && e.contains("found 5"),
            "{e}"
        );
        let text = format!("{HEADER}0 P\0 0 Proc\n");
        let e = collect(&text, 2, 4096).unwrap_err();
        assert!(e.contains("line 13") && e.contains("NUL"), "{e}");
    }

    fn read_with_warnings(text: &[u8], threads: usize) -> (Vec<(u64, String)>, Vec<String>) {
        let opts = ReadOptions {
            threads,
            chunk_size: 4096,
            ..Default::default()
        };
        let mut out = Vec::new();
        let stats = read_paje(text, &opts, |ev: Event<'_>| -> Result<(), String> {
            out.push((ev.line(), ev.contents()));
            Ok(())
        })
        .unwrap();
        (out, stats.warnings)
    }

    #[test]
    fn extra_fields_are_ignored_with_a_warning_naming_the_line() {
        let clean = format!("{HEADER}0 P 0 Proc\n6 0 p1 P 0 p1\n6 0 p2 P 0 p2\n");
        let extra = format!("{HEADER}0 P 0 Proc\n6 0 p1 P 0 p1 one two\n6 0 p2 P 0 p2\n");
        for threads in [1, 2] {
            let (want, none) = read_with_warnings(clean.as_bytes(), threads);
            assert!(none.is_empty(), "{none:?}");
            let (got, warnings) = read_with_warnings(extra.as_bytes(), threads);
            assert_eq!(got, want, "the line is used without its extra fields");
            assert_eq!(warnings.len(), 1, "{warnings:?}");
            let w = &warnings[0];
            assert!(w.starts_with("line 14: PajeCreateContainer"), "{w}");
            assert!(w.contains("has 6 fields") && w.contains("found 8"), "{w}");
            assert!(w.contains("'one two' are ignored"), "{w}");
        }
    }

    #[test]
    fn extra_fields_on_many_lines_name_the_first_and_count_all() {
        let mut text = format!("{HEADER}0 P 0 Proc\n");
        for i in 0..40 {
            text.push_str(&format!("6 {i} p{i} P 0 p{i} x\n"));
        }
        let (events, warnings) = read_with_warnings(text.as_bytes(), 1);
        assert_eq!(events.len(), 41);
        assert_eq!(warnings.len(), SHOWN as usize + 1, "{warnings:?}");
        assert!(warnings[0].starts_with("line 14:"), "{warnings:?}");
        assert!(
            warnings[SHOWN as usize].starts_with("40 lines in all"),
            "{warnings:?}"
        );
    }

    #[test]
    fn fewer_fields_than_the_definition_stay_an_error() {
        let text = format!("{HEADER}0 P 0 Proc\n6 0 p1 P 0\n");
        let e = collect(&text, 1, 4096).unwrap_err();
        assert!(
            e.contains("expects 6 fields") && e.contains("found 5"),
            "{e}"
        );
    }

    #[test]
    fn a_byte_order_mark_reads_as_the_same_text_without_it() {
        let text = format!("{HEADER}0 P 0 Proc\n6 0 p1 P 0 p1\n");
        let mut marked = b"\xEF\xBB\xBF".to_vec();
        marked.extend_from_slice(text.as_bytes());
        for threads in [1, 2] {
            let want = read_with_warnings(text.as_bytes(), threads);
            assert_eq!(read_with_warnings(&marked, threads), want);
        }
    }

    #[test]
    fn handler_errors_stop_the_read() {
        let mut text = String::from(HEADER);
        for i in 0..5000 {
            text.push_str(&format!("0 T{i} 0 Proc\n"));
        }
        for threads in [1, 2, 4] {
            let opts = ReadOptions {
                threads,
                chunk_size: 4096,
                ..Default::default()
            };
            let mut n = 0;
            let r = read_paje(text.as_bytes(), &opts, |_ev| {
                n += 1;
                if n == 100 {
                    Err("stop")
                } else {
                    Ok(())
                }
            });
            assert!(matches!(r, Err(ReadError::Handler("stop"))));
            assert_eq!(n, 100);
        }
    }
}
