//! The CSV-like text format of PajeNG's `pj_dump`, byte for byte.
//!
//! One line per container and per entity:
//!
//! ```text
//! Container, <parent>, <type>, <start>, <end>, <duration>, <name>
//! State, <container>, <type>, <start>, <end>, <duration>, <imbrication>, <value>
//! Event, <container>, <type>, <time>, <value>
//! Variable, <container>, <type>, <start>, <end>, <duration>, <value>
//! Link, <container>, <type>, <start>, <end>, <duration>, <value>, <start container>, <end container>, <key>
//! ```
//!
//! Containers print their times like C's `%g`; entities print times,
//! durations, imbrication levels and variable values like `%.6f` (or
//! `%.Nf` with another precision). Names are printed as they are, quotes
//! included when the reader kept them. With user-defined fields on, their
//! values follow, comma-separated.
//!
//! Two ways to dump:
//! - [`dump_trace`]: PajeNG's order, from a complete in-memory [`Trace`]:
//!   depth-first from the root; at each container its child types in byte
//!   order of identifier; entities of a type in stored order; child
//!   containers pushed on a stack in identifier order (so siblings come out
//!   in reverse order). Lines are formatted on several threads.
//! - [`StreamDump`]: a [`Sink`] that writes each entity as soon as the
//!   simulator finalizes it, and each container when it is destroyed:
//!   memory does not grow with the trace.
#![deny(missing_docs)]

use std::io::{self, Write};

use std::sync::atomic::Ordering;
use trama_sim::{ContainerId, Entity, ListId, Model, Sink, StrId, Trace, TypeKind, ValueId};

/// Options of the dump.
#[derive(Clone, Debug)]
#[non_exhaustive]
pub struct DumpOptions {
    /// Only entities overlapping `[start, end]`; `None` bounds default to the
    /// trace's start and end. When both are `None`, every entity is dumped.
    pub start: Option<f64>,
    /// See [`DumpOptions::start`].
    pub end: Option<f64>,
    /// Decimals of entity numbers (pj_dump `-l`, default 6).
    pub precision: usize,
    /// Print user-defined fields (pj_dump `-u`).
    pub user_defined: bool,
    /// Print a header line per kind of line (pj_dump `-h`).
    pub header: bool,
    /// Threads for formatting (0 = all cores).
    pub threads: usize,
    /// Write the header of event lines as PajeNG 1.3.10 did
    /// (`Event, Container, Variable, Value, Start, Value`).
    pub legacy_event_header: bool,
}

impl Default for DumpOptions {
    fn default() -> Self {
        DumpOptions {
            start: None,
            end: None,
            precision: 6,
            user_defined: false,
            header: false,
            threads: 0,
            legacy_event_header: false,
        }
    }
}

const HEADERS: [(TypeKind, &str); 5] = [
    (
        TypeKind::Container,
        "Container, Parent, Type, Start, End, Duration, Name",
    ),
    (
        TypeKind::Link,
        "Link, Container, Type, Start, End, Duration, Value, StartContainer, EndContainer",
    ),
    (
        TypeKind::Variable,
        "Variable, Container, Type, Start, End, Duration, Value",
    ),
    (TypeKind::Event, "Event, Container, Type, Time, Value"),
    (
        TypeKind::State,
        "State, Container, Type, Start, End, Duration, Imbrication, Value",
    ),
];

fn header_text(kind: TypeKind) -> &'static str {
    HEADERS
        .iter()
        .find(|(k, _)| *k == kind)
        .map(|(_, h)| *h)
        .unwrap_or("")
}

/// Formats lines; shared by both dump modes.
#[derive(Clone, Copy, Debug)]
struct Fmt {
    precision: usize,
    user_defined: bool,
    legacy_event_header: bool,
}

fn duration(start: f64, end: f64) -> f64 {
    if end >= 0.0 && start >= 0.0 {
        end - start
    } else {
        0.0
    }
}

impl Fmt {
    #[inline]
    fn num(&self, out: &mut Vec<u8>, v: f64) {
        trama_num::write_fixed(out, v, self.precision);
    }

    /// A state's nesting level, as [`Fmt::num`] prints it: a digit and
    /// zeros for the usual levels, without a float conversion.
    #[inline]
    fn level(&self, out: &mut Vec<u8>, level: u32) {
        const ZEROS: &[u8; 17] = b".0000000000000000";
        if level < 10 && self.precision < ZEROS.len() {
            out.push(b'0' + level as u8);
            if self.precision > 0 {
                out.extend_from_slice(&ZEROS[..=self.precision]);
            }
        } else {
            self.num(out, level as f64);
        }
    }

    fn extras(&self, out: &mut Vec<u8>, m: &Model, extras: &[StrId]) {
        if self.user_defined {
            for pair in extras.chunks_exact(2) {
                out.extend_from_slice(b", ");
                out.extend_from_slice(m.str(pair[1]));
            }
        }
    }

    fn container(&self, out: &mut Vec<u8>, m: &Model, c: ContainerId) {
        let info = m.container(c);
        out.extend_from_slice(b"Container, ");
        match info.parent {
            Some(p) => out.extend_from_slice(m.str(m.container(p).name)),
            None => out.push(b'0'),
        }
        out.extend_from_slice(b", ");
        out.extend_from_slice(m.str(m.ty(info.ty).name));
        out.extend_from_slice(b", ");
        trama_num::write_general(out, info.start);
        out.extend_from_slice(b", ");
        trama_num::write_general(out, info.end);
        out.extend_from_slice(b", ");
        trama_num::write_general(out, info.end - info.start);
        out.extend_from_slice(b", ");
        out.extend_from_slice(m.str(info.name));
        self.extras(out, m, &info.extras);
        out.push(b'\n');
    }

    /// Writes the end and the duration of an entity that starts at
    /// `start`, each followed by `, `.
    #[inline(always)]
    fn end_duration(&self, out: &mut Vec<u8>, start: f64, end: f64) {
        self.num(out, end);
        out.extend_from_slice(b", ");
        self.num(out, duration(start, end));
        out.extend_from_slice(b", ");
    }

    #[allow(clippy::too_many_arguments)]
    fn entity(
        &self,
        out: &mut Vec<u8>,
        m: &Model,
        kind: TypeKind,
        cont_name: &[u8],
        type_name: &[u8],
        start: f64,
        end: f64,
        value: ValueId,
        number: f64,
        level: u32,
        link: Option<(&[u8], Option<ContainerId>, Option<ContainerId>)>,
        extras: &[StrId],
    ) {
        out.extend_from_slice(kind.label().as_bytes());
        out.extend_from_slice(b", ");
        out.extend_from_slice(cont_name);
        out.extend_from_slice(b", ");
        out.extend_from_slice(type_name);
        out.extend_from_slice(b", ");
        self.num(out, start);
        if kind == TypeKind::Event {
            out.extend_from_slice(b", ");
            out.extend_from_slice(m.str(m.value(value).name));
        } else {
            out.extend_from_slice(b", ");
            self.end_duration(out, start, end);
            match kind {
                TypeKind::State => {
                    self.level(out, level);
                    out.extend_from_slice(b", ");
                    out.extend_from_slice(m.str(m.value(value).name));
                }
                TypeKind::Variable => self.num(out, number),
                _ => {
                    out.extend_from_slice(m.str(m.value(value).name));
                    let (key, from, to) = link.unwrap_or((&[], None, None));
                    for c in [from, to] {
                        out.extend_from_slice(b", ");
                        match c {
                            Some(c) => out.extend_from_slice(m.str(m.container(c).name)),
                            None => out.extend_from_slice(b"NULL"),
                        }
                    }
                    out.extend_from_slice(b", ");
                    out.extend_from_slice(key);
                }
            }
        }
        self.extras(out, m, extras);
        out.push(b'\n');
    }

    /// Formats entities `i..j` of a list, reading the columns directly.
    fn entities(
        &self,
        buf: &mut Vec<u8>,
        trace: &Trace,
        l: ListId,
        i: usize,
        j: usize,
        filter: Option<(f64, f64)>,
    ) {
        let m = &trace.model;
        let info = m.list(l);
        let cols = trace.columns(l);
        let mut prefix = Vec::with_capacity(64);
        prefix.extend_from_slice(info.kind.label().as_bytes());
        prefix.extend_from_slice(b", ");
        prefix.extend_from_slice(m.str(m.container(info.container).name));
        prefix.extend_from_slice(b", ");
        prefix.extend_from_slice(m.str(m.ty(info.ty).name));
        prefix.extend_from_slice(b", ");
        buf.reserve((j - i) * (prefix.len() + 56));
        let simple = !self.user_defined || cols.extras.is_empty();
        for k in i..j {
            let (start, end) = (cols.start[k], cols.end[k]);
            if let Some((s, e)) = filter {
                if end < s || start > e {
                    continue;
                }
            }
            if !simple || info.kind == TypeKind::Link {
                let ent = trace.entity(l, k);
                self.entity(
                    buf,
                    m,
                    info.kind,
                    m.str(m.container(info.container).name),
                    m.str(m.ty(info.ty).name),
                    ent.start,
                    ent.end,
                    ent.value.unwrap_or(ValueId(0)),
                    ent.number,
                    ent.level,
                    Some((ent.key, ent.from, ent.to)),
                    ent.extras,
                );
                continue;
            }
            buf.extend_from_slice(&prefix);
            self.num(buf, start);
            buf.extend_from_slice(b", ");
            match info.kind {
                TypeKind::Event => {
                    buf.extend_from_slice(m.str(m.value(cols.value[k]).name));
                }
                TypeKind::State => {
                    self.end_duration(buf, start, end);
                    self.level(buf, cols.level[k]);
                    buf.extend_from_slice(b", ");
                    buf.extend_from_slice(m.str(m.value(cols.value[k]).name));
                }
                _ => {
                    self.end_duration(buf, start, end);
                    self.num(buf, cols.number[k]);
                }
            }
            buf.push(b'\n');
        }
    }

    fn header(&self, out: &mut Vec<u8>, m: &Model, kind: TypeKind, extras: &[StrId]) {
        if kind == TypeKind::Event && self.legacy_event_header {
            out.extend_from_slice(b"Event, Container, Variable, Value, Start, Value");
        } else {
            out.extend_from_slice(header_text(kind).as_bytes());
        }
        if self.user_defined {
            for pair in extras.chunks_exact(2) {
                out.extend_from_slice(b", ");
                out.extend_from_slice(m.str(pair[0]));
            }
        }
        out.push(b'\n');
    }
}

enum Job {
    Container(ContainerId),
    Entities(ListId, usize, usize),
}

const JOB_ENTITIES: usize = 32 * 1024;

/// The jobs of a dump, in output order: each container, then its
/// entities by list in pieces of [`JOB_ENTITIES`], its children's
/// subtrees by type.
fn plan_jobs(trace: &Trace) -> Vec<Job> {
    let m = &trace.model;
    let mut jobs = Vec::new();
    let mut stack = vec![ContainerId::ROOT];
    while let Some(c) = stack.pop() {
        jobs.push(Job::Container(c));
        let info = m.container(c);
        for &t in &m.ty(info.ty).children {
            if m.ty(t).kind == TypeKind::Container {
                for &child in &info.children {
                    if m.container(child).ty == t {
                        stack.push(child);
                    }
                }
            } else if let Some(l) = m.list_of(c, t) {
                let n = trace.columns(l).len();
                let mut i = 0;
                while i < n {
                    let j = (i + JOB_ENTITIES).min(n);
                    jobs.push(Job::Entities(l, i, j));
                    i = j;
                }
            }
        }
    }
    jobs
}

/// The header of the kinds of entities dumped (`--header`).
fn write_header<W: Write + ?Sized>(
    f: &Fmt,
    trace: &Trace,
    jobs: &[Job],
    out: &mut W,
) -> io::Result<()> {
    let m = &trace.model;
    let mut buf = Vec::new();
    let mut seen: Vec<TypeKind> = vec![TypeKind::Container];
    f.header(&mut buf, m, TypeKind::Container, &[]);
    for job in jobs {
        if let Job::Entities(l, 0, _) = job {
            let kind = m.list(*l).kind;
            if !seen.contains(&kind) {
                seen.push(kind);
                f.header(&mut buf, m, kind, trace.entity(*l, 0).extras);
            }
        }
    }
    out.write_all(&buf)
}

/// Runs the `jobs` on `threads` formatting threads and writes their
/// outputs in order.
fn dump_parallel<W: Write + Send + ?Sized>(
    jobs: &[Job],
    run: &(impl Fn(&Job, &mut Vec<u8>) + Sync),
    threads: usize,
    out: &mut W,
) -> io::Result<()> {
    // Workers take jobs in output order and format each into a buffer of
    // its own; this thread writes the buffers in order as they come. A
    // worker waits rather than run more than `ahead` jobs ahead of the
    // writing, which bounds memory.
    let ahead = 8 * threads;
    let gate = (
        std::sync::Mutex::new((0usize, 0usize)),
        std::sync::Condvar::new(),
    );
    let stop = std::sync::atomic::AtomicBool::new(false);
    std::thread::scope(|scope| -> io::Result<()> {
        let (tx, rx) = std::sync::mpsc::channel::<(usize, Vec<u8>)>();
        for w in 0..threads {
            let (tx, gate, stop, jobs, run) = (tx.clone(), &gate, &stop, jobs, run);
            std::thread::Builder::new()
                .name(format!("trama-fmt-{w}"))
                .spawn_scoped(scope, move || {
                    let (m, cv) = gate;
                    loop {
                        let i = {
                            let mut g = m.lock().unwrap_or_else(|e| e.into_inner());
                            while g.0 >= g.1 + ahead && !stop.load(Ordering::Relaxed) {
                                g = cv.wait(g).unwrap_or_else(|e| e.into_inner());
                            }
                            g.0 += 1;
                            g.0 - 1
                        };
                        if i >= jobs.len() || stop.load(Ordering::Relaxed) {
                            return;
                        }
                        let mut b = Vec::new();
                        run(&jobs[i], &mut b);
                        if tx.send((i, b)).is_err() {
                            return;
                        }
                    }
                })?;
        }
        drop(tx);
        // Stops the workers however this returns (a write error included).
        // The flag is set under the gate's lock, so that a worker about to
        // wait sees it or is woken.
        type Gate = (std::sync::Mutex<(usize, usize)>, std::sync::Condvar);
        struct Stop<'a>(&'a std::sync::atomic::AtomicBool, &'a Gate);
        impl Drop for Stop<'_> {
            fn drop(&mut self) {
                let g = self.1 .0.lock().unwrap_or_else(|e| e.into_inner());
                self.0.store(true, Ordering::Relaxed);
                drop(g);
                self.1 .1.notify_all();
            }
        }
        let _stop = Stop(&stop, &gate);
        let mut done: std::collections::BTreeMap<usize, Vec<u8>> = Default::default();
        let mut next = 0;
        let mut pending = Vec::new();
        for (i, b) in rx {
            done.insert(i, b);
            while let Some(b) = done.remove(&next) {
                next += 1;
                if b.len() >= 256 * 1024 {
                    if !pending.is_empty() {
                        out.write_all(&pending)?;
                        pending.clear();
                    }
                    out.write_all(&b)?;
                } else {
                    pending.extend_from_slice(&b);
                    if pending.len() >= 1 << 20 {
                        out.write_all(&pending)?;
                        pending.clear();
                    }
                }
                gate.0.lock().unwrap_or_else(|e| e.into_inner()).1 = next;
                gate.1.notify_all();
            }
        }
        out.write_all(&pending)
    })
}

/// Dumps a whole trace in PajeNG's order.
pub fn dump_trace<W: Write + Send + ?Sized>(
    trace: &Trace,
    opts: &DumpOptions,
    out: &mut W,
) -> io::Result<()> {
    let m = &trace.model;
    let f = Fmt {
        precision: opts.precision,
        user_defined: opts.user_defined,
        legacy_event_header: opts.legacy_event_header,
    };
    let filter = if opts.start.is_none() && opts.end.is_none() {
        None
    } else {
        Some((
            opts.start.unwrap_or_else(|| trace.start_time()),
            opts.end.unwrap_or_else(|| trace.end_time()),
        ))
    };
    let jobs = plan_jobs(trace);
    if opts.header {
        write_header(&f, trace, &jobs, out)?;
    }
    let run = |job: &Job, buf: &mut Vec<u8>| match *job {
        Job::Container(c) => f.container(buf, m, c),
        Job::Entities(l, i, j) => f.entities(buf, trace, l, i, j, filter),
    };
    let threads = if opts.threads == 0 {
        rayon::current_num_threads()
    } else {
        opts.threads
    };
    if threads <= 1 {
        let mut buf = Vec::with_capacity(1 << 21);
        for job in &jobs {
            run(job, &mut buf);
            if buf.len() > 1 << 20 {
                out.write_all(&buf)?;
                buf.clear();
            }
        }
        return out.write_all(&buf);
    }
    dump_parallel(&jobs, &run, threads, out)
}

/// A [`Sink`] that writes every entity when it is final, and every container
/// when it is destroyed, in that (completion) order.
///
/// With a header requested, the header of a kind of line is written just
/// before the first line of that kind. Write errors are kept and reported by
/// [`StreamDump::finish`]; after one, nothing more is written.
pub struct StreamDump<W: Write> {
    out: W,
    buf: Vec<u8>,
    fmt: Fmt,
    start: f64,
    end: f64,
    header: bool,
    seen: Vec<TypeKind>,
    error: Option<io::Error>,
    lines: u64,
}

impl<W: Write> StreamDump<W> {
    /// A streaming dump into `out`. The window end defaults to +∞ since the
    /// trace end is not known while streaming.
    pub fn new(out: W, opts: &DumpOptions) -> StreamDump<W> {
        StreamDump {
            out,
            buf: Vec::with_capacity(1 << 16),
            fmt: Fmt {
                precision: opts.precision,
                user_defined: opts.user_defined,
                legacy_event_header: opts.legacy_event_header,
            },
            start: opts.start.unwrap_or(f64::NEG_INFINITY),
            end: opts.end.unwrap_or(f64::INFINITY),
            header: opts.header,
            seen: Vec::new(),
            error: None,
            lines: 0,
        }
    }

    /// True once a write failed (e.g. a closed pipe): the caller may stop early.
    pub fn failed(&self) -> bool {
        self.error.is_some()
    }

    /// Lines written so far.
    pub fn lines(&self) -> u64 {
        self.lines
    }

    fn flush_if_big(&mut self) {
        if self.buf.len() >= 1 << 16 && self.error.is_none() {
            if let Err(e) = self.out.write_all(&self.buf) {
                self.error = Some(e);
            }
            self.buf.clear();
        }
    }

    fn header_for(&mut self, m: &Model, kind: TypeKind, extras: &[StrId]) {
        if self.header && !self.seen.contains(&kind) {
            self.seen.push(kind);
            self.fmt.header(&mut self.buf, m, kind, extras);
        }
    }

    /// Flushes and returns the writer, or the first write error.
    pub fn finish(mut self) -> io::Result<W> {
        if let Some(e) = self.error.take() {
            return Err(e);
        }
        self.out.write_all(&self.buf)?;
        self.out.flush()?;
        Ok(self.out)
    }
}

impl<W: Write> Sink for StreamDump<W> {
    fn stopped(&self) -> bool {
        self.error.is_some()
    }

    fn stop_error(&self) -> Option<io::Error> {
        let e = self.error.as_ref()?;
        Some(io::Error::new(e.kind(), e.to_string()))
    }

    /// Lines are written at once: the values of user-defined fields need
    /// not be kept.
    fn keeps_strings(&self) -> bool {
        false
    }

    fn entity(&mut self, m: &Model, list: ListId, _idx: u32, e: &Entity<'_>) {
        if self.error.is_some() || e.end < self.start || e.start > self.end {
            return;
        }
        let info = m.list(list);
        self.header_for(m, info.kind, e.extras);
        let cname = m.str(m.container(info.container).name);
        let tname = m.str(m.ty(info.ty).name);
        self.fmt.entity(
            &mut self.buf,
            m,
            info.kind,
            cname,
            tname,
            e.start,
            e.end,
            e.value,
            e.number,
            e.level,
            Some((e.key, e.from, e.to)),
            e.extras,
        );
        self.lines += 1;
        self.flush_if_big();
    }

    fn container(&mut self, m: &Model, id: ContainerId) {
        if self.error.is_some() {
            return;
        }
        let extras = &m.container(id).extras;
        self.header_for(m, TypeKind::Container, extras);
        self.fmt.container(&mut self.buf, m, id);
        self.lines += 1;
        self.flush_if_big();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Levels print as any number does, at every precision.
    #[test]
    fn levels_print_as_numbers() {
        for precision in 0..20 {
            let f = Fmt {
                precision,
                user_defined: false,
                legacy_event_header: false,
            };
            for level in [0, 1, 7, 9, 10, 11, 99, 12345, u32::MAX] {
                let (mut a, mut b) = (Vec::new(), Vec::new());
                f.level(&mut a, level);
                f.num(&mut b, level as f64);
                assert_eq!(a, b, "level {level}, precision {precision}");
            }
        }
    }
}
