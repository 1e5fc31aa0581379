//! The streaming writer.

use hashbrown::hash_map::Entry;
use hashbrown::HashMap;
use std::io::{self, Write};
use std::sync::Arc;
use std::thread::JoinHandle;

use crossbeam_channel::{bounded, Sender};
use trama_events::{Event, EventDef, Field, Span};
use trama_sim::replay::{
    ModelBuilder, ModelEffect, Replay, ReplayEvent, ReplayState, ReplayTables, NONE,
};
use trama_sim::{EntityHandles, SimError};

use crate::decimal;
use crate::format::*;
use crate::state;
use crate::varint;

/// How strings are stored (the two modes of the original binary proposal).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum StringMode {
    /// Every field as its text, in every event.
    Plain,
    /// Each distinct string stored once; entity events refer to types,
    /// containers and values by handle.
    #[default]
    Interned,
}

/// Options of a [`Writer`].
#[derive(Clone, Debug)]
#[non_exhaustive]
pub struct WriteOptions {
    /// String mode.
    pub strings: StringMode,
    /// zstd level of each frame; `None` stores frames uncompressed.
    pub zstd_level: Option<i32>,
    /// Events per events frame (at most 65536).
    pub block_events: usize,
    /// The text was read with quotes stripped (recorded in the header).
    pub quotes_stripped: bool,
}

impl Default for WriteOptions {
    fn default() -> WriteOptions {
        WriteOptions {
            strings: StringMode::Interned,
            zstd_level: Some(1),
            block_events: 1 << 16,
            quotes_stripped: false,
        }
    }
}

/// What the text source was, recorded in the footer.
#[derive(Clone, Copy, Debug, Default)]
pub struct SourceStats {
    /// Lines of text.
    pub lines: u64,
}

/// Why writing stopped.
#[derive(Debug, thiserror::Error)]
pub enum WriteError {
    /// The output failed.
    #[error(transparent)]
    Io(#[from] io::Error),
    /// An event refers to what does not exist (or redefines what does):
    /// the trace cannot be stored by handles.
    #[error("{0}")]
    Trace(Box<SimError>),
}

/// What a finished [`Writer`] tells about the trace.
#[derive(Clone, Copy, Debug, Default)]
pub struct Written {
    /// Events stored.
    pub events: u64,
    /// Events frames.
    pub blocks: u64,
    /// Keyframes.
    pub keyframes: u64,
    /// The line of the first event the simulation rejects (0: at the end
    /// of the trace), when it rejects one; the file keeps every event, and
    /// reading it reports the error. No keyframe follows that point.
    pub invalid_at: Option<u64>,
}

type WriterResult<W> = io::Result<(W, Vec<Frame>, u64)>;

struct Job {
    kind: u8,
    payload: Vec<u8>,
    count: u64,
    first: u64,
    t_min: f64,
    t_max: f64,
    open_min: f64,
    /// Where the payload's tail (the `TIMES` column of an events frame)
    /// starts, 0 for none: a tail that zstd hardly shrinks is stored as is.
    split: usize,
}

pub(crate) fn put_index(out: &mut Vec<u8>, e: &Frame) {
    out.push(e.kind);
    varint::put(out, e.offset);
    varint::put(out, e.count);
    varint::put(out, e.first);
    out.extend_from_slice(&e.t_min.to_le_bytes());
    out.extend_from_slice(&e.t_max.to_le_bytes());
    out.extend_from_slice(&e.open_min.to_le_bytes());
}

/// The encoding side of a [`Writer`], on a thread of its own: streams, link
/// pairing, columns, strings, model records, the simulation followed for
/// keyframes; frames go to the compressing thread.
struct Encoder<W: Write + Send + 'static> {
    opts: WriteOptions,
    /// A mirror of the model (from the same model events and values), for
    /// the simulation's tables and the containers' end times.
    mb: ModelBuilder,
    tables: ReplayTables,
    /// The simulation of what was written, for keyframes (interned mode);
    /// `None` once it failed.
    replay: Option<Replay<()>>,
    /// Size of the replay's pools of extras and long keys after its last
    /// compaction.
    kept: usize,
    invalid_at: Option<u64>,
    /// The runs of the block being written (the first `nruns` are in use)
    /// and the one of the event being stored.
    runs: Vec<RunBuf>,
    nruns: usize,
    cur: usize,
    /// Per list (numbered by `list_ids`), the run it goes to in block
    /// `.0 - 1`; the run of model events; per stream, its list and its run.
    list_run: Vec<(u64, u32)>,
    model_run: Option<u32>,
    stream_info: Vec<StreamInfo>,
    /// Lists (container << 32 | type) numbered in order of first use.
    list_ids: HashMap<u64, u32>,
    /// The `ORDER` and `LINES` columns.
    order: Vec<u32>,
    /// So far in the block, every event is timed (not NaN nor -0) and
    /// times never decrease: trace order is the merge of the runs by time
    /// (`ORDER` then only says how ties go). The times of the block's
    /// events.
    merged: bool,
    times: Vec<f64>,
    lines: Vec<u8>,
    count: u64,
    first_line: u64,
    prev_line: u64,
    first_model: u64,
    t_min: f64,
    t_max: f64,
    timed: bool,
    strings: HashMap<Box<[u8]>, u32>,
    new_strings: Vec<u8>,
    new_count: u64,
    nstrings: u64,
    model: Vec<u8>,
    model_count: u64,
    model_total: u64,
    /// Events of the block since its last model record, and `model_total`
    /// then.
    quiet: u64,
    seen_model: u64,
    events: u64,
    extras: Vec<u32>,
    /// Per definition index: where its steps lie in `steps` (`u32::MAX`
    /// before its first event).
    plans: Vec<(u32, u32)>,
    steps: Vec<(FieldStep, u32)>,
    /// Streams by container and definition: (type, stream) of the first
    /// type seen, others by (container, definition, type).
    streams: Vec<Vec<(u32, u32)>>,
    other_streams: HashMap<(u32, u32, u32), u32>,
    nstreams: u32,
    /// Pending links by list and key, with their numbers.
    pending: HashMap<(u32, u128), u64>,
    pending_long: HashMap<(u32, Box<[u8]>), u64>,
    /// Per list: links numbered so far.
    list_links: Vec<u64>,
    /// The time of the last event, and each container's destruction time
    /// (NaN while alive), for the footer.
    last_time: f64,
    dead: Vec<f64>,
    blocks: u64,
    keyframes: u64,
    since_keyframe: usize,
    tx: Option<Sender<Job>>,
    thread: Option<JoinHandle<WriterResult<W>>>,
}

/// Writes a frame whose stored payload is the concatenation of `parts`.
fn write_frame<W: Write>(
    out: &mut W,
    kind: u8,
    codec: u8,
    raw_len: usize,
    parts: &[&[u8]],
) -> io::Result<u64> {
    let stored: usize = parts.iter().map(|p| p.len()).sum();
    if stored > u32::MAX as usize {
        return Err(too_big());
    }
    let mut crc = crc32fast::Hasher::new();
    for p in parts {
        crc.update(p);
    }
    let mut h = [0u8; FRAME_HEADER_LEN];
    h[0] = kind;
    h[1] = codec;
    h[4..8].copy_from_slice(&(stored as u32).to_le_bytes());
    h[8..12].copy_from_slice(&(raw_len as u32).to_le_bytes());
    h[12..16].copy_from_slice(&crc.finalize().to_le_bytes());
    out.write_all(&h)?;
    for p in parts {
        out.write_all(p)?;
    }
    Ok((FRAME_HEADER_LEN + stored) as u64)
}

/// zstd must shrink a payload's tail by at least 1/`TAIL_GAIN` for it to
/// be compressed: incompressible times are faster to read as they are.
const TAIL_GAIN: usize = 8;

/// How the last tails went: after `fails` tails in a row that zstd hardly
/// shrank, the next `skip` are stored as they are without trying (the
/// times of a trace keep their nature: trying every frame would compress
/// the incompressible for nothing).
#[derive(Default)]
struct Tails {
    fails: u32,
    skip: u32,
}

/// The codec and stored parts of `payload`, compressed with `c` into `a`
/// and `b` (buffers reused from frame to frame). The part from `split` on
/// is compressed on its own, and stored as is when zstd hardly shrinks it.
fn compress<'a>(
    c: &mut zstd::bulk::Compressor<'_>,
    payload: &'a [u8],
    split: usize,
    tails: &mut Tails,
    (a, b, len): (&'a mut Vec<u8>, &'a mut Vec<u8>, &'a mut Vec<u8>),
) -> io::Result<(u8, [&'a [u8]; 3])> {
    let into = |c: &mut zstd::bulk::Compressor<'_>, src: &[u8], dst: &mut Vec<u8>| {
        dst.clear();
        dst.reserve(zstd::zstd_safe::compress_bound(src.len()));
        c.compress_to_buffer(src, dst).map(|_| ())
    };
    let split = if split > 0 && split < payload.len() {
        split
    } else {
        payload.len()
    };
    let (head, tail) = payload.split_at(split);
    into(c, head, a)?;
    if tail.is_empty() {
        return Ok((CODEC_ZSTD, [a, &[], &[]]));
    }
    if tails.skip > 0 {
        tails.skip -= 1;
    } else {
        into(c, tail, b)?;
        if b.len() + tail.len() / TAIL_GAIN <= tail.len() {
            tails.fails = 0;
            // Two zstd frames one after the other decompress as one.
            return Ok((CODEC_ZSTD, [a, b, &[]]));
        }
        tails.fails += 1;
        tails.skip = (1u32 << tails.fails.min(4)) - 1;
    }
    len.clear();
    varint::put(len, a.len() as u64);
    Ok((CODEC_SPLIT, [len, a, tail]))
}

fn too_big() -> io::Error {
    io::Error::new(io::ErrorKind::InvalidInput, "frame larger than 4 GiB")
}

impl<W: Write + Send + 'static> Encoder<W> {
    /// Starts a file on `out` (the header is written at once).
    fn new(mut out: W, opts: WriteOptions) -> io::Result<Encoder<W>> {
        let mut header = [0u8; HEADER_LEN];
        header[..8].copy_from_slice(&MAGIC);
        header[8..10].copy_from_slice(&VERSION.to_le_bytes());
        let mut flags = 0;
        if opts.strings == StringMode::Interned {
            flags |= FLAG_INTERNED;
        }
        if opts.quotes_stripped {
            flags |= FLAG_STRIPPED;
        }
        header[10..12].copy_from_slice(&u16::to_le_bytes(flags));
        out.write_all(&header)?;
        let (tx, rx) = bounded::<Job>(2);
        let level = opts.zstd_level;
        let thread = std::thread::Builder::new()
            .name("trama-ptb-write".into())
            .spawn(move || {
                let mut offset = HEADER_LEN as u64;
                let mut index = Vec::new();
                let (mut a, mut b, mut len) = (Vec::new(), Vec::new(), Vec::new());
                let mut tails = Tails::default();
                let mut cctx = match level {
                    Some(l) => Some(zstd::bulk::Compressor::new(l)?),
                    None => None,
                };
                for job in rx.iter() {
                    if job.payload.len() > u32::MAX as usize {
                        return Err(too_big());
                    }
                    let (codec, parts) = match &mut cctx {
                        Some(c) => {
                            let bufs = (&mut a, &mut b, &mut len);
                            compress(c, &job.payload, job.split, &mut tails, bufs)?
                        }
                        None => (CODEC_NONE, [&job.payload[..], &[], &[]]),
                    };
                    let n = write_frame(&mut out, job.kind, codec, job.payload.len(), &parts)?;
                    index.push(Frame {
                        kind: job.kind,
                        offset,
                        count: job.count,
                        first: job.first,
                        t_min: job.t_min,
                        t_max: job.t_max,
                        open_min: job.open_min,
                    });
                    offset += n;
                }
                Ok((out, index, offset))
            })?;
        let block_events = opts.block_events.clamp(1, 1 << 16);
        let interned = opts.strings == StringMode::Interned;
        Ok(Encoder {
            opts: WriteOptions {
                block_events,
                ..opts
            },
            mb: ModelBuilder::new(false),
            tables: ReplayTables::default(),
            replay: interned.then(|| Replay::new(ReplayState::new(), ())),
            kept: 0,
            invalid_at: None,
            runs: Vec::new(),
            nruns: 0,
            cur: 0,
            list_run: Vec::new(),
            model_run: None,
            stream_info: Vec::new(),
            list_ids: HashMap::new(),
            order: Vec::new(),
            merged: true,
            times: Vec::new(),
            lines: Vec::new(),
            count: 0,
            first_line: 0,
            prev_line: 0,
            first_model: 0,
            t_min: 0.0,
            t_max: 0.0,
            timed: false,
            strings: HashMap::new(),
            new_strings: Vec::new(),
            new_count: 0,
            nstrings: 0,
            model: Vec::new(),
            model_count: 0,
            model_total: 0,
            quiet: 0,
            seen_model: 0,
            events: 0,
            extras: Vec::new(),
            plans: Vec::new(),
            steps: Vec::new(),
            streams: Vec::new(),
            other_streams: HashMap::new(),
            nstreams: 0,
            pending: HashMap::new(),
            pending_long: HashMap::new(),
            list_links: Vec::new(),
            last_time: 0.0,
            dead: vec![f64::NAN],
            blocks: 0,
            keyframes: 0,
            since_keyframe: 0,
            tx: Some(tx),
            thread: Some(thread),
        })
    }

    fn send(&mut self, job: Job) -> io::Result<()> {
        let ok = self.tx.as_ref().is_some_and(|tx| tx.send(job).is_ok());
        if ok {
            Ok(())
        } else {
            // The writing thread stopped: its error tells why.
            Err(self.join_err())
        }
    }

    fn join_err(&mut self) -> io::Error {
        self.tx = None;
        match self.thread.take().map(|t| t.join()) {
            Some(Ok(Err(e))) => e,
            Some(Err(p)) => std::panic::resume_unwind(p),
            _ => io::Error::other("the binary writer stopped"),
        }
    }

    /// Stores a string in `STRS`; returns its identifier (interned mode).
    #[inline]
    fn put_str(&mut self, s: &[u8]) -> u32 {
        if self.opts.strings == StringMode::Plain {
            varint::put_bytes(&mut self.runs[self.cur].cols[STRS], s);
            return 0;
        }
        let id = match self.strings.get(s) {
            Some(&id) => id,
            None => {
                let id = self.nstrings as u32;
                self.nstrings += 1;
                self.strings.insert(s.into(), id);
                varint::put_bytes(&mut self.new_strings, s);
                self.new_count += 1;
                id
            }
        };
        varint::put(&mut self.runs[self.cur].cols[STRS], id as u64);
        id
    }

    /// A new run of the block; returns its index.
    fn new_run(&mut self) -> u32 {
        if self.nruns == self.runs.len() {
            self.runs.push(RunBuf::default());
        }
        self.nruns += 1;
        (self.nruns - 1) as u32
    }

    /// The run of the block holding the events of stream `s`.
    #[inline]
    fn stream_run(&mut self, s: u32) -> u32 {
        let stamp = self.blocks + 1;
        let info = self.stream_info[s as usize];
        if info.stamp == stamp {
            return info.run;
        }
        let (b, r) = self.list_run[info.list as usize];
        let r = if b == stamp {
            r
        } else {
            let r = self.new_run();
            self.list_run[info.list as usize] = (stamp, r);
            r
        };
        self.stream_info[s as usize] = StreamInfo {
            stamp,
            run: r,
            list: info.list,
        };
        r
    }

    /// Makes run `r` the current one; `stream` goes to its `STREAMS`.
    #[inline]
    fn enter_run(&mut self, r: u32, stream: u32) {
        self.cur = r as usize;
        let run = &mut self.runs[self.cur];
        run.count += 1;
        run.streams.push(stream);
        self.order.push(r);
    }

    fn put_time(&mut self, w: &[u8]) -> f64 {
        let t = match decimal::parse(w) {
            Some((m, s)) => {
                let run = &mut self.runs[self.cur];
                let col = &mut run.cols[TIMES];
                match run.prev_time {
                    Some((pm, ps)) if ps == s => varint::put(col, varint::zigzag(m - pm) << 1),
                    _ => {
                        varint::put(col, 1);
                        col.push(s);
                        varint::put(col, varint::zigzag(m));
                    }
                }
                run.prev_time = Some((m, s));
                decimal::to_f64(m, s)
            }
            None => {
                let col = &mut self.runs[self.cur].cols[TIMES];
                varint::put(col, 1);
                col.push(TIME_TEXT);
                self.put_str(w);
                trama_num::atof(w)
            }
        };
        // As the reader computes them (NaN never a bound).
        if !self.timed {
            self.t_min = f64::INFINITY;
            self.t_max = f64::NEG_INFINITY;
            self.timed = true;
        }
        if t < self.t_min {
            self.t_min = t;
        }
        if t > self.t_max {
            self.t_max = t;
        }
        t
    }

    /// Stores a variable's value; returns it as `strtof` reads it.
    fn put_number(&mut self, w: &[u8]) -> f64 {
        match decimal::parse(w) {
            Some((m, s)) if m.unsigned_abs() < 1 << 58 => {
                let col = &mut self.runs[self.cur].cols[NUMS];
                varint::put(col, varint::zigzag(m) << 5 | s as u64);
                decimal::to_f32(m, s) as f64
            }
            _ => {
                varint::put(&mut self.runs[self.cur].cols[NUMS], NUM_TEXT);
                self.put_str(w);
                trama_num::strtof(w) as f64
            }
        }
    }

    /// Stores one event, whose references the [`Writer`] resolved (`handles`
    /// for entity events), and follows the simulation for the keyframes.
    fn event(&mut self, ev: &Event<'_>, handles: Option<EntityHandles>) -> Result<(), WriteError> {
        let def = ev.def();
        let kind = def.kind();
        let d = def.index();
        let line = ev.line();
        if self.count > 0 && self.cut_before(!is_entity(kind)) {
            self.flush()?;
        }
        if self.count == 0 {
            self.start_block()?;
            self.first_line = line;
            self.prev_line = line.saturating_sub(1);
            self.first_model = self.model_total;
            self.merged = true;
        }
        if !is_entity(kind) {
            let effect = self
                .mb
                .event(ev)
                .map_err(|e| WriteError::Trace(Box::new(e)))?;
            self.tables.sync(self.mb.model());
            self.model.push(REC_EVENT);
            varint::put(&mut self.model, d as u64);
            varint::put(&mut self.model, line);
            varint::put(&mut self.model, ev.word_count() as u64 - 1);
            for i in 1..ev.word_count() {
                varint::put_bytes(&mut self.model, ev.word(i));
            }
            self.model_count += 1;
            self.model_total += 1;
            self.last_time = effect.time();
            self.follow_model(effect, line);
            self.merged = false;
            self.times.push(f64::NAN);
            let r = match self.model_run {
                Some(r) => r,
                None => {
                    let r = self.new_run();
                    self.model_run = Some(r);
                    r
                }
            };
            self.enter_run(r, 0);
        } else {
            let h = handles.ok_or_else(|| io::Error::other("an entity event without handles"))?;
            let interned = self.opts.strings == StringMode::Interned;
            if h.new_value {
                self.mb
                    .new_value(h.ty, ev.get(Field::Value), line)
                    .map_err(|e| WriteError::Trace(Box::new(e)))?;
            }
            let mut list = 0;
            if interned {
                let s = self.stream(d, h.container.0, h.ty.0, line);
                list = self.stream_info[s as usize].list;
                let r = self.stream_run(s);
                self.enter_run(r, s + 1);
            } else {
                // One run: the events in order.
                if self.nruns == 0 {
                    self.new_run();
                }
                self.enter_run(0, d + 1);
            }
            if h.new_value && interned {
                self.tables.sync(self.mb.model());
                self.model.push(REC_VALUE);
                varint::put(&mut self.model, h.ty.0 as u64);
                varint::put(&mut self.model, line);
                varint::put_bytes(&mut self.model, ev.get(Field::Value));
                self.model_count += 1;
                self.model_total += 1;
                if let Some(r) = &mut self.replay {
                    r.new_value(false);
                }
            }
            let (from, to) = match self.plans.get(d as usize) {
                Some(&(from, to)) if from != u32::MAX => (from, to),
                _ => self.plan(def, interned),
            };
            let mut time = 0.0;
            let mut timed = false;
            let mut number = 0.0;
            let mut key: &[u8] = &[];
            let mut pair = None;
            self.extras.clear();
            let mut k = 0;
            for at in from..to {
                let (step, i) = self.steps[at as usize];
                let w = ev.word(i as usize);
                match step {
                    FieldStep::Time => {
                        time = self.put_time(w);
                        timed = true;
                    }
                    FieldStep::Other => self.runs[self.cur].handles.push(h.other.0),
                    FieldStep::Value => {
                        let v = if h.new_value { 0 } else { h.value.0 + 1 };
                        self.runs[self.cur].handles.push(v);
                    }
                    FieldStep::Number => number = self.put_number(w),
                    FieldStep::Key => {
                        pair = self.pair(list, h.container.0, w);
                        key = w;
                    }
                    FieldStep::Str => {
                        self.put_str(w);
                    }
                    FieldStep::Extra => {
                        let id = self.put_str(w);
                        self.extras.push(name_code(d, k));
                        self.extras.push(string_code(id));
                        k += 1;
                    }
                }
            }
            let t0 = self.times.last().copied().unwrap_or(f64::NEG_INFINITY);
            if !timed
                || t0.is_nan()
                || time.is_nan()
                || time < t0
                || time.to_bits() == (-0.0f64).to_bits()
            {
                self.merged = false;
            }
            self.times.push(time);
            self.last_time = time;
            if let Some(r) = &mut self.replay {
                let link = matches!(
                    kind,
                    trama_events::EventKind::StartLink | trama_events::EventKind::EndLink
                );
                let ev = ReplayEvent {
                    kind,
                    time,
                    container: h.container.0,
                    ty: h.ty.0,
                    value: h.value.0,
                    other: if link { h.other.0 } else { NONE },
                    number,
                    key,
                    pair,
                    extras: &self.extras,
                };
                if r.entity(&self.tables, &ev).is_err() {
                    self.replay = None;
                    self.invalid_at = Some(line);
                }
            }
        }
        varint::put(
            &mut self.lines,
            line.wrapping_sub(self.prev_line).wrapping_sub(1),
        );
        self.prev_line = line;
        self.count += 1;
        self.events += 1;
        if self.model_total != self.seen_model {
            self.seen_model = self.model_total;
            self.quiet = 0;
        } else {
            self.quiet += 1;
        }
        if self.count as usize >= self.opts.block_events {
            self.flush()?;
        }
        Ok(())
    }

    /// Whether the block ends before this event rather than at its size: a
    /// block holding model records is stored in trace order, slower to read
    /// than one grouped by list. So a block whose model records stopped an
    /// eighth of the block size ago ends before its next entity event (the
    /// events after a trace's opening records are stored grouped). Blocks
    /// never get smaller than an eighth of the size, and a trace whose model
    /// records come all along keeps whole blocks. (A block is not ended
    /// before a model event: at the end of a trace, that would leave the
    /// closing destructions a block of their own with no timed entity event,
    /// whose time range, 0 to 0, a window could not tell from events at 0.)
    fn cut_before(&self, model: bool) -> bool {
        self.opts.strings == StringMode::Interned
            && !model
            && self.model_count > 0
            && self.quiet >= (self.opts.block_events as u64 / 8).max(1)
    }

    /// The stream of entity events of definition `d` on (`c`, `ty`),
    /// declared (a model record) at its first use.
    fn stream(&mut self, d: u32, c: u32, ty: u32, line: u64) -> u32 {
        // Per container and definition, the first type seen is looked up
        // directly; others (rare) in a map.
        let (c_, d_) = (c as usize, d as usize);
        if self.streams.len() <= c_ {
            self.streams.resize_with(c_ + 1, Vec::new);
        }
        let row = &mut self.streams[c_];
        if row.len() <= d_ {
            row.resize(d_ + 1, (u32::MAX, 0));
        }
        let (t0, s0) = row[d_];
        if t0 == ty {
            return s0;
        }
        if t0 != u32::MAX {
            if let Some(&s) = self.other_streams.get(&(c, d, ty)) {
                return s;
            }
        }
        let s = self.nstreams;
        self.nstreams += 1;
        let nlists = self.list_ids.len() as u32;
        let list = *self
            .list_ids
            .entry((c as u64) << 32 | ty as u64)
            .or_insert(nlists);
        if list == nlists {
            self.list_run.push((0, 0));
            self.list_links.push(0);
        }
        self.stream_info.push(StreamInfo {
            stamp: 0,
            run: 0,
            list,
        });
        if t0 == u32::MAX {
            row[d_] = (ty, s);
        } else {
            self.other_streams.insert((c, d, ty), s);
        }
        self.model.push(REC_STREAM);
        varint::put(&mut self.model, d as u64);
        varint::put(&mut self.model, c as u64);
        varint::put(&mut self.model, ty as u64);
        varint::put(&mut self.model, line);
        self.model_count += 1;
        self.model_total += 1;
        if let Some(r) = &mut self.replay {
            r.model_record();
        }
        s
    }

    /// Builds the steps of definition `def` (the fields that store
    /// something, in order); returns where they lie in `steps`.
    #[inline(never)]
    fn plan(&mut self, def: &EventDef, interned: bool) -> (u32, u32) {
        let from = self.steps.len() as u32;
        for (i, &(f, _)) in def.fields().iter().enumerate().skip(1) {
            let step = match role(def.kind(), f, interned) {
                Role::Time => FieldStep::Time,
                // Given by the stream.
                Role::Container | Role::Type => continue,
                Role::Other => FieldStep::Other,
                Role::Value => FieldStep::Value,
                Role::Number => FieldStep::Number,
                Role::Key => FieldStep::Key,
                Role::Str if f == Field::Extra => FieldStep::Extra,
                Role::Str => FieldStep::Str,
            };
            self.steps.push((step, i as u32));
        }
        let at = (from, self.steps.len() as u32);
        let d = def.index() as usize;
        if self.plans.len() <= d {
            self.plans.resize(d + 1, (u32::MAX, 0));
        }
        self.plans[d] = at;
        at
    }

    /// Pairs a link end with the pending one of the same key in the same
    /// list (container `c`, type `ty`), as the simulation does, and stores
    /// the pairing: `LINKS` holds how many first ends of the list back its
    /// other end was, or 0 for a first end (whose key goes to `KEYS`; so
    /// does the key of an end on a destroyed container, which the
    /// simulation ignores). Returns that distance for a second end.
    fn pair(&mut self, list: u32, c: u32, key: &[u8]) -> Option<u64> {
        let run = &mut self.runs[self.cur];
        if self.dead.get(c as usize).is_some_and(|d| !d.is_nan()) {
            varint::put(&mut run.cols[LINKS], 0);
            varint::put_bytes(&mut run.cols[KEYS], key);
            return None;
        }
        let count = &mut self.list_links[list as usize];
        // One lookup: a second end takes its first end out, a first end
        // goes in with its number.
        let found = match trama_sim::replay::pack_key(key) {
            Some(p) => match self.pending.entry((list, p)) {
                Entry::Occupied(o) => Some(o.remove()),
                Entry::Vacant(v) => {
                    v.insert(*count);
                    None
                }
            },
            None => match self.pending_long.entry((list, key.into())) {
                Entry::Occupied(o) => Some(o.remove()),
                Entry::Vacant(v) => {
                    v.insert(*count);
                    None
                }
            },
        };
        match found {
            Some(n) => {
                let back = *count - n;
                varint::put(&mut run.cols[LINKS], back);
                Some(back)
            }
            None => {
                varint::put(&mut run.cols[LINKS], 0);
                varint::put_bytes(&mut run.cols[KEYS], key);
                *count += 1;
                None
            }
        }
    }

    /// What a model event does to the simulation and to the footer's
    /// container end times.
    fn follow_model(&mut self, effect: ModelEffect, line: u64) {
        match effect {
            ModelEffect::Container { .. } => self.dead.push(f64::NAN),
            ModelEffect::Destroy { container, time } => {
                let m = self.mb.model();
                let mut todo = vec![container.0];
                while let Some(c) = todo.pop() {
                    match self.dead.get_mut(c as usize) {
                        Some(d) if d.is_nan() => *d = time,
                        _ => continue,
                    }
                    todo.extend(m.containers[c as usize].children.iter().map(|c| c.0));
                }
            }
            _ => {}
        }
        let Some(r) = &mut self.replay else { return };
        let ok = match effect {
            ModelEffect::Type(_) => {
                r.new_type();
                true
            }
            ModelEffect::Value(_) => {
                r.new_value(true);
                true
            }
            ModelEffect::Container { id, time } => r.new_container(id.0, time).is_ok(),
            ModelEffect::Destroy { container, time } => {
                r.destroy_event(&self.tables, container.0, time).is_ok()
            }
            ModelEffect::Time(t) => {
                r.time_event(t);
                true
            }
        };
        if !ok {
            self.replay = None;
            self.invalid_at = Some(line);
        }
    }

    /// Before the first event of every block but the first: a keyframe,
    /// when it is small beside the blocks since the last one (under an
    /// eighth of them), so keyframes stay a small part of the file.
    fn start_block(&mut self) -> io::Result<()> {
        if self.blocks == 0 {
            return Ok(());
        }
        let Some(r) = &self.replay else {
            return Ok(());
        };
        let mut payload = Vec::new();
        varint::put(&mut payload, self.blocks);
        state::encode(&r.state, &mut payload);
        if payload.len() * 8 > self.since_keyframe {
            return Ok(());
        }
        self.since_keyframe = 0;
        self.keyframes += 1;
        self.send(Job {
            kind: KIND_KEYFRAME,
            payload,
            count: 0,
            first: self.blocks,
            t_min: 0.0,
            t_max: 0.0,
            open_min: 0.0,
            split: 0,
        })
    }

    fn flush(&mut self) -> io::Result<()> {
        // Before the model frame goes: did the block use model records?
        let grouped = self.model_count == 0 && self.opts.strings == StringMode::Interned;
        if self.new_count > 0 {
            let mut payload = Vec::with_capacity(self.new_strings.len() + 16);
            let first = self.nstrings - self.new_count;
            varint::put(&mut payload, first);
            varint::put(&mut payload, self.new_count);
            payload.extend_from_slice(&self.new_strings);
            self.new_strings.clear();
            let count = std::mem::take(&mut self.new_count);
            self.send(Job {
                kind: KIND_STRINGS,
                payload,
                count,
                first,
                t_min: 0.0,
                t_max: 0.0,
                open_min: 0.0,
                split: 0,
            })?;
        }
        if self.model_count > 0 {
            let first = self.model_total - self.model_count;
            let mut payload = Vec::with_capacity(self.model.len() + 16);
            varint::put(&mut payload, first);
            varint::put(&mut payload, self.model_count);
            payload.extend_from_slice(&self.model);
            self.model.clear();
            let count = std::mem::take(&mut self.model_count);
            self.send(Job {
                kind: KIND_MODEL,
                payload,
                count,
                first,
                t_min: 0.0,
                t_max: 0.0,
                open_min: 0.0,
                split: 0,
            })?;
        }
        if self.count == 0 {
            return Ok(());
        }
        let (t_min, t_max) = if self.timed {
            (self.t_min, self.t_max)
        } else {
            (0.0, 0.0)
        };
        let runs = &self.runs[..self.nruns];
        let size: usize = runs
            .iter()
            .map(|r| r.cols.iter().map(Vec::len).sum::<usize>() + 4 * r.handles.len() + 40)
            .sum::<usize>()
            + self.lines.len()
            + 6 * self.order.len();
        let mut payload = Vec::with_capacity(size + 64);
        varint::put(&mut payload, self.count);
        varint::put(&mut payload, self.first_line);
        varint::put(&mut payload, self.first_model);
        // Trace order is the merge of the runs by time: no `ORDER`.
        let merged = grouped && self.merged && runs.len() > 1;
        let flags = match (grouped, merged) {
            (true, true) => FRAME_GROUPED | FRAME_MERGED,
            (true, false) => FRAME_GROUPED,
            _ => 0,
        };
        varint::put(&mut payload, flags);
        payload.extend_from_slice(&t_min.to_le_bytes());
        payload.extend_from_slice(&t_max.to_le_bytes());
        varint::put(&mut payload, runs.len() as u64);
        for r in runs {
            varint::put(&mut payload, r.count);
            varint::put(&mut payload, r.handles.len() as u64);
            for col in [TIMES, NUMS, STRS, KEYS, LINKS] {
                varint::put(&mut payload, r.cols[col].len() as u64);
            }
        }
        let mut col = Vec::new();
        let mut split = 0;
        for c in STORED_COLS {
            col.clear();
            let data: &[u8] = match c {
                ORDER if runs.len() <= 1 => &[],
                ORDER if merged => {
                    put_ties(&mut col, &self.times, &self.order, runs.len());
                    &col
                }
                ORDER => {
                    varint::put_fixed(&mut col, &self.order);
                    &col
                }
                LINES => &self.lines,
                STREAMS => {
                    varint::put_fixed_parts(&mut col, runs.iter().map(|r| &r.streams[..]));
                    &col
                }
                HANDLES => {
                    varint::put_fixed_parts(&mut col, runs.iter().map(|r| &r.handles[..]));
                    &col
                }
                _ => {
                    let n: usize = runs.iter().map(|r| r.cols[c].len()).sum();
                    varint::put(&mut payload, n as u64);
                    if c == TIMES {
                        split = payload.len();
                    }
                    for r in runs {
                        payload.extend_from_slice(&r.cols[c]);
                    }
                    continue;
                }
            };
            varint::put(&mut payload, data.len() as u64);
            payload.extend_from_slice(data);
        }
        for r in &mut self.runs[..self.nruns] {
            r.clear();
        }
        self.nruns = 0;
        self.model_run = None;
        self.order.clear();
        self.times.clear();
        self.lines.clear();
        let open_min = match &self.replay {
            Some(r) => r.state.open_min(),
            // Where the simulation is not followed, windows read on.
            None => f64::NEG_INFINITY,
        };
        if let Some(r) = &mut self.replay {
            // Only a reader checks the keys of first ends (across segments).
            r.first_ends.clear();
            // The fields and long keys of final entities pile up: drop them
            // once they outweigh those kept and a few blocks' worth.
            let pooled = r.state.extras.len() + r.state.long_keys.len();
            if pooled > 2 * self.kept + 4 * self.opts.block_events {
                r.state.compact();
                self.kept = r.state.extras.len() + r.state.long_keys.len();
            }
        }
        let job = Job {
            kind: KIND_EVENTS,
            payload,
            count: self.count,
            first: self.first_line,
            t_min,
            t_max,
            open_min,
            split,
        };
        self.count = 0;
        self.timed = false;
        self.since_keyframe += job.payload.len();
        self.blocks += 1;
        self.send(job)
    }

    /// Writes the last frames, the footer (with `defs`, every definition of
    /// the trace in declaration order) and the trailer; returns the output
    /// and what was written.
    fn finish(mut self, defs: &[EventDef], source: SourceStats) -> io::Result<(W, Written)> {
        self.flush()?;
        if let Some(mut r) = self.replay.take() {
            if r.finish(&self.tables, None).is_err() {
                self.invalid_at = Some(0);
            }
        }
        // The index is known to the writing thread only: let it end, then
        // write the footer from here.
        self.tx = None;
        let (mut out, index, footer_offset) = match self.thread.take().map(|t| t.join()) {
            Some(Ok(r)) => r?,
            Some(Err(p)) => std::panic::resume_unwind(p),
            None => return Err(io::Error::other("the binary writer stopped")),
        };
        let mut footer = Vec::new();
        varint::put(&mut footer, defs.len() as u64);
        for d in defs {
            put_def(&mut footer, d);
        }
        varint::put(&mut footer, index.len() as u64);
        for e in &index {
            put_index(&mut footer, e);
        }
        varint::put(&mut footer, source.lines);
        varint::put(&mut footer, self.events);
        varint::put(&mut footer, self.dead.len() as u64);
        for &d in &self.dead {
            let end = if d.is_nan() { self.last_time } else { d };
            footer.extend_from_slice(&end.to_le_bytes());
        }
        let (codec, stored) = match self.opts.zstd_level {
            Some(l) => (CODEC_ZSTD, zstd::bulk::compress(&footer, l)?),
            None => (CODEC_NONE, footer.clone()),
        };
        if stored.len() > u32::MAX as usize {
            return Err(too_big());
        }
        write_frame(&mut out, KIND_FOOTER, codec, footer.len(), &[&stored])?;
        let mut trailer = [0u8; TRAILER_LEN];
        trailer[..8].copy_from_slice(&footer_offset.to_le_bytes());
        trailer[8..].copy_from_slice(&END_MAGIC);
        out.write_all(&trailer)?;
        out.flush()?;
        let written = Written {
            events: self.events,
            blocks: self.blocks,
            keyframes: self.keyframes,
            invalid_at: self.invalid_at,
        };
        Ok((out, written))
    }
}

impl<W: Write + Send + 'static> Drop for Encoder<W> {
    fn drop(&mut self) {
        self.tx = None;
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

/// The `ORDER` column of merged runs: at each event of a group of equal
/// times where the runs left in the group are more than one, the run the
/// event is in (see the format's events frame).
fn put_ties(out: &mut Vec<u8>, times: &[f64], order: &[u32], nruns: usize) {
    let mut seen = vec![usize::MAX; nruns];
    let mut left = Vec::new();
    let mut i = 0;
    while i < times.len() {
        let mut j = i + 1;
        while j < times.len() && times[j] == times[i] {
            j += 1;
        }
        if j - i > 1 {
            // Distinct runs among the group's events from each on.
            left.clear();
            left.resize(j - i, 0u32);
            let mut distinct = 0;
            for n in (i..j).rev() {
                let k = order[n] as usize;
                if seen[k] != i {
                    seen[k] = i;
                    distinct += 1;
                }
                left[n - i] = distinct;
            }
            for n in i..j {
                if left[n - i] > 1 {
                    varint::put(out, order[n] as u64);
                }
            }
        }
        i = j;
    }
}

/// What storing a field of an entity event takes (see [`Role`]; fields
/// the stream gives have none).
#[derive(Clone, Copy, Debug)]
enum FieldStep {
    Time,
    Value,
    Number,
    Other,
    Key,
    Str,
    /// A user-defined field (a string the simulation keeps).
    Extra,
}

/// A stream's list (numbered by first use) and the run its events go to in
/// block `stamp - 1`.
#[derive(Clone, Copy, Debug)]
struct StreamInfo {
    stamp: u64,
    run: u32,
    list: u32,
}

/// The events of one list (or the model events, or in plain mode all
/// events) of the block being written, column by column.
#[derive(Default)]
struct RunBuf {
    count: u64,
    streams: Vec<u32>,
    handles: Vec<u32>,
    /// The byte columns (`TIMES`, `NUMS`, `STRS`, `KEYS`, `LINKS`).
    cols: [Vec<u8>; NCOLS],
    /// The previous time of the run (decimal mantissa and scale).
    prev_time: Option<(i64, u8)>,
}

impl RunBuf {
    fn clear(&mut self) {
        self.count = 0;
        self.streams.clear();
        self.handles.clear();
        for c in &mut self.cols {
            c.clear();
        }
        self.prev_time = None;
    }
}

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
