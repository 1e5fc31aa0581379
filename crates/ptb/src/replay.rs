//! The parallel replay: blocks simulated independently from their
//! keyframes ([`trama_sim::replay`]), on several threads.
//!
//! A *segment* is a run of events frames that starts at a keyframe (or at
//! the beginning of the trace) and ends before the next keyframe. One
//! thread takes segments from the front, the others from the back (so that
//! the first thread's entities are one stretch of each list, which the
//! assembly keeps in place); each replays its segment from the keyframe's
//! state and checks that it ends in the state of the next keyframe, byte
//! for byte, which proves the pieces add up to the simulation of the whole
//! trace. Anything the replay cannot vouch for (an error of the trace, a
//! key that may be reused) sends the caller to the reference simulation.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;

use trama_sim::replay::{
    assemble_trace, has_duplicates, Bail, ColumnSink, FirstEnds, NewList, Replay, ReplayEvent,
    ReplaySink, ReplayState, TraceParts,
};
use trama_sim::{CountingSink, Model, StrId, Trace};

use crate::decimal;
use crate::format::*;
use crate::model::{prepass, Effect, HotStream, Prepass, PrepassError};
use crate::read::{
    bad, frame_into, frame_split, merge_order, FormatError, Op, PtbFile, RunSpan, Slot, NO_FAST,
};
use crate::state;
use crate::varint::{self, read_bytes, read_fixed, read_small, read_wide, read_wide_short, Cursor};

/// Options of [`PtbFile::replay_counts`] and [`PtbFile::replay_trace`].
#[derive(Clone, Debug, Default)]
#[non_exhaustive]
pub struct ReplayOptions {
    /// Threads replaying blocks (0: one per core; 1: on the caller's thread).
    pub threads: usize,
    /// Keep user-defined fields (pj_dump `-u`).
    pub keep_extras: bool,
    /// Drop links never completed, with a warning (pj_dump `-z`).
    pub ignore_incomplete_links: bool,
    /// Only what a simulation of the entities overlapping `[start, end]`
    /// needs: the blocks from the keyframe before `start` on, until no
    /// entity started by `end` is still open. Other entities may come out
    /// incomplete; containers end at their final times.
    pub window: Option<(f64, f64)>,
}

/// The outcome of a parallel replay.
#[derive(Debug)]
pub enum Replayed<T> {
    /// The simulation, exactly as the reference simulation gives it.
    Done(T),
    /// The replay cannot tell (the trace breaks a rule, or needs what
    /// replays do not cover): simulate with [`PtbFile::read`] and the
    /// reference simulator, which names the error. The reason says why.
    Fallback(String),
}

/// A trace replayed for its counts.
#[derive(Debug)]
pub struct Counted {
    /// Types, values and containers (container end times included).
    pub model: Model,
    /// Entities by nature.
    pub counts: CountingSink,
    /// Warnings (`-z`).
    pub warnings: Vec<String>,
}

/// Statistics of a replay.
#[derive(Clone, Copy, Debug, Default)]
pub struct ReplayStats {
    /// Events frames read.
    pub blocks_read: usize,
    /// Events frames of the file.
    pub blocks: usize,
    /// Parts replayed independently (from a keyframe or the beginning).
    pub segments: usize,
}

/// A run of events frames replayed from one starting state.
#[derive(Clone, Copy, Debug)]
struct Segment {
    /// The keyframe it starts from (none: the beginning of the trace).
    keyframe: Option<usize>,
    /// Its events frames (positions in the list of events frames).
    first: usize,
    end: usize,
    /// The keyframe its end state must equal.
    next: Option<usize>,
    /// The last segment: the trace ends after it.
    last: bool,
}

/// What one segment produced besides its entities.
struct SegmentOut {
    lists: Vec<NewList>,
    destroyed: Vec<(u32, f64)>,
    warnings: Vec<String>,
}

enum SegFail {
    Format(FormatError),
    Bail(String),
}

impl From<FormatError> for SegFail {
    fn from(e: FormatError) -> SegFail {
        SegFail::Format(e)
    }
}

struct Run<S> {
    pre: Prepass,
    sinks: Vec<S>,
    outs: Vec<SegmentOut>,
    stats: ReplayStats,
}

/// A worker's buffers, reused from block to block.
#[derive(Default)]
struct Scratch {
    raw: Vec<u8>,
    extras: Vec<u32>,
    /// Per run of the frame: its cursors, the time of its last event and
    /// its container (grouped frames), where its last event is in trace
    /// order and how many events `ORDER` gives it.
    pos: Vec<Pos>,
    run_last: Vec<(f64, u32)>,
    last_at: Vec<(usize, u32)>,
    /// Per list of the streams, the last grouped frame (`stamp`) a run of
    /// it was replayed in.
    seen: Vec<u32>,
    stamp: u32,
}

/// A run's cursors: byte offsets in the payload of its next value in each
/// column, and its previous time (decimal mantissa and scale).
#[derive(Clone, Copy, Debug)]
struct Pos {
    ps: usize,
    ph: usize,
    pt: usize,
    pn: usize,
    pstr: usize,
    pk: usize,
    pl: usize,
    pm: i64,
    psc: u8,
    has_prev: bool,
}

impl Pos {
    fn new(r: &RunSpan) -> Pos {
        Pos {
            ps: r.start[STREAMS],
            ph: r.start[HANDLES],
            pt: r.start[TIMES],
            pn: r.start[NUMS],
            pstr: r.start[STRS],
            pk: r.start[KEYS],
            pl: r.start[LINKS],
            pm: 0,
            psc: 0,
            has_prev: false,
        }
    }

    /// Are the cursors at these ends?
    fn at(&self, end: &[usize; NCOLS]) -> bool {
        self.ps == end[STREAMS]
            && self.ph == end[HANDLES]
            && self.pt == end[TIMES]
            && self.pn == end[NUMS]
            && self.pstr == end[STRS]
            && self.pk == end[KEYS]
            && self.pl == end[LINKS]
    }
}

/// What the events of a frame share while replayed run by run.
struct Ctx<'a> {
    /// The frame's offset (for messages) and payload.
    offset: u64,
    p: &'a [u8],
    /// The data of `TIMES` (apart from the payload in split frames).
    t: &'a [u8],
    ws: usize,
    wh: usize,
    lo: f64,
    hi: f64,
    timed: bool,
    bad_value: bool,
    /// Grouped frames: the list of the run (its index among the streams'
    /// lists; `u32::MAX` before its first event) and its container.
    list: u32,
    container: u32,
    /// Grouped frames: the run's previous time, whether a time decreased
    /// (or was NaN), and how many of its events are not timed.
    run_prev: f64,
    unsorted: bool,
    untimed: u64,
}

impl PtbFile {
    /// Simulates the whole trace (or a window) from its keyframes, blocks
    /// in parallel, and counts its entities.
    pub fn replay_counts(
        &self,
        opts: &ReplayOptions,
    ) -> Result<(Replayed<Counted>, ReplayStats), FormatError> {
        let run = match self.run(opts, &CountingSink::default)? {
            Ok(r) => r,
            Err(why) => return Ok((Replayed::Fallback(why), ReplayStats::default())),
        };
        let mut counts = CountingSink::default();
        for s in &run.sinks {
            counts.add(s);
        }
        let stats = run.stats;
        let mut parts = self.parts(run.pre, run.outs, opts);
        let warnings = std::mem::take(&mut parts.warnings);
        let model = assemble_trace(parts, Vec::<ColumnSink>::new(), |_, s| s.intern(b"")).model;
        Ok((
            Replayed::Done(Counted {
                model,
                counts,
                warnings,
            }),
            stats,
        ))
    }

    /// Simulates the whole trace (or a window) from its keyframes, blocks
    /// in parallel, into a columnar [`Trace`].
    pub fn replay_trace(
        &self,
        opts: &ReplayOptions,
    ) -> Result<(Replayed<Trace>, ReplayStats), FormatError> {
        let keep = opts.keep_extras;
        let run = match self.run(opts, &|| ColumnSink::new(keep))? {
            Ok(r) => r,
            Err(why) => return Ok((Replayed::Fallback(why), ReplayStats::default())),
        };
        let stats = run.stats;
        let t0 = std::time::Instant::now();
        let parts = self.parts(run.pre, run.outs, opts);
        let trace = assemble_trace(parts, run.sinks, |code, strings| self.extra(code, strings));
        if std::env::var_os("TRAMA_TIMINGS").is_some() {
            eprintln!(
                "trama: timings: replay: assembling the trace {:.1} ms",
                t0.elapsed().as_secs_f64() * 1e3
            );
        }
        Ok((Replayed::Done(trace), stats))
    }

    /// The string of a user-defined field's code.
    fn extra(&self, code: u32, strings: &mut trama_sim::Interner) -> StrId {
        if code & 1 == 1 {
            let def = (code >> 6) as usize;
            let k = ((code >> 1) & 31) as usize;
            let name = self
                .defs
                .get(def)
                .and_then(|d| d.extra_names().get(k))
                .map_or("", |n| n);
            strings.intern(name.as_bytes())
        } else {
            strings.intern(self.string((code >> 1) as u64).unwrap_or(b""))
        }
    }

    /// The model and lists of a replay, with the containers' end times.
    fn parts(&self, pre: Prepass, outs: Vec<SegmentOut>, opts: &ReplayOptions) -> TraceParts {
        let mut lists: Vec<NewList> = Vec::new();
        let mut ends = Vec::new();
        let mut warnings = Vec::new();
        for o in outs {
            lists.extend(o.lists);
            ends.extend(o.destroyed);
            warnings.extend(o.warnings);
        }
        lists.sort_unstable_by_key(|l| l.id);
        lists.dedup_by_key(|l| l.id);
        if opts.window.is_some() {
            // Containers end when the whole trace says, not where reading stopped.
            ends = self
                .container_ends
                .iter()
                .enumerate()
                .map(|(i, &t)| (i as u32, t))
                .collect();
            warnings.clear();
        }
        TraceParts {
            model: pre.model,
            lists,
            ends,
            warnings,
        }
    }

    /// The segments to replay: all of them, or those a window needs.
    fn segments(&self, opts: &ReplayOptions) -> Vec<Segment> {
        let events: Vec<usize> = (0..self.frames.len())
            .filter(|&i| self.frames[i].kind == KIND_EVENTS)
            .collect();
        let n = events.len();
        // Keyframes by the block they precede.
        let mut kf: Vec<Option<usize>> = vec![None; n + 1];
        for (i, f) in self.frames.iter().enumerate() {
            if f.kind == KIND_KEYFRAME && (f.first as usize) < n && f.first > 0 {
                kf[f.first as usize] = Some(i);
            }
        }
        if let Some((start, end)) = opts.window {
            let first = events
                .iter()
                .position(|&i| self.frames[i].t_max >= start)
                .unwrap_or(n);
            let begin = (1..=first.min(n.saturating_sub(1)))
                .rev()
                .find(|&b| kf[b].is_some())
                .unwrap_or(0);
            let last_needed = events
                .iter()
                .rposition(|&i| self.frames[i].t_min <= end)
                .unwrap_or(0);
            let mut stop = n;
            for (b, &i) in events.iter().enumerate().skip(begin) {
                if b >= last_needed && self.frames[i].open_min > end && b + 1 < n {
                    stop = b + 1;
                    break;
                }
            }
            return vec![Segment {
                keyframe: kf[begin],
                first: begin,
                end: stop,
                next: None,
                last: true,
            }];
        }
        let mut segs = Vec::new();
        let mut first = 0;
        for b in 1..=n {
            if b == n || kf[b].is_some() {
                segs.push(Segment {
                    keyframe: if first == 0 { None } else { kf[first] },
                    first,
                    end: b,
                    next: if b == n { None } else { kf[b] },
                    last: b == n,
                });
                first = b;
            }
        }
        if segs.is_empty() {
            segs.push(Segment {
                keyframe: None,
                first: 0,
                end: 0,
                next: None,
                last: true,
            });
        }
        segs
    }

    fn run<S: ReplaySink + Send>(
        &self,
        opts: &ReplayOptions,
        make: &(dyn Fn() -> S + Sync),
    ) -> Result<Result<Run<S>, String>, FormatError> {
        if !self.interned() {
            return Ok(Err("plain strings: events are resolved by name".into()));
        }
        let t0 = std::time::Instant::now();
        let mut pre = match prepass(&self.records, &self.defs, opts.keep_extras) {
            Ok(p) => p,
            Err(PrepassError::Trace(e)) => {
                return Ok(Err(format!("model record at line {}: {}", e.line, e.kind)))
            }
            Err(PrepassError::Stream(why)) => return Ok(Err(why)),
            Err(PrepassError::Format(what)) => {
                let off = self
                    .frames
                    .iter()
                    .find(|f| f.kind == KIND_MODEL)
                    .map_or(0, |f| f.offset);
                return Err(bad(off, what));
            }
        };
        pre.hot = pre
            .streams
            .iter()
            .map(|&stream| {
                // Records name existing definitions (checked as they are
                // read), each with its plan.
                let plan = &self.plans[stream.def as usize];
                HotStream {
                    stream,
                    op: plan.op,
                    kind: plan.kind,
                    fast: plan.fast.unwrap_or(NO_FAST),
                }
            })
            .collect();
        let t1 = std::time::Instant::now();
        let events = self.events_frames();
        let segs = self.segments(opts);
        let threads = match opts.threads {
            0 => std::thread::available_parallelism().map_or(1, |n| n.get()),
            t => t,
        }
        .min(segs.len())
        .max(1);
        // Segments not taken yet: `lo..hi`. Those from the first failure
        // on (`limit`) are not replayed; every one before it is, so that
        // the failure reported is always the first.
        let left = Mutex::new((0usize, segs.len()));
        let limit = AtomicUsize::new(usize::MAX);
        let take = |front: bool| -> Option<usize> {
            let mut g = left.lock().expect("not poisoned");
            let lim = limit.load(Ordering::Relaxed);
            loop {
                let (lo, hi) = *g;
                if lo >= hi.min(lim) {
                    return None;
                }
                if front {
                    g.0 += 1;
                    return Some(lo);
                }
                g.1 -= 1;
                if hi - 1 < lim {
                    return Some(hi - 1);
                }
            }
        };
        let failure: Mutex<Option<(usize, SegFail)>> = Mutex::new(None);
        let outs: Mutex<Vec<(usize, SegmentOut)>> = Mutex::new(Vec::new());
        // Links a window cuts are dropped like those never completed.
        let ignore_incomplete_links = opts.ignore_incomplete_links || opts.window.is_some();
        let end_time = opts
            .window
            .map(|_| self.container_ends.first().copied().unwrap_or(0.0));
        let work = |sink: &mut S, firsts: &mut FirstEnds, front: bool| {
            let mut scratch = Scratch::default();
            while let Some(i) = take(front) {
                let seg = &segs[i];
                let r = self.segment(
                    &pre,
                    &events,
                    seg,
                    sink,
                    ignore_incomplete_links,
                    end_time,
                    &mut scratch,
                    firsts,
                );
                match r {
                    Ok(o) => outs.lock().expect("not poisoned").push((i, o)),
                    Err(e) => {
                        let mut f = failure.lock().expect("not poisoned");
                        if f.as_ref().is_none_or(|(j, _)| i < *j) {
                            *f = Some((i, e));
                        }
                        limit.fetch_min(i, Ordering::Relaxed);
                    }
                }
            }
        };
        // Each worker fills a sink of its own, made on its own thread (sinks
        // side by side in memory would share cache lines).
        let done: Vec<(S, FirstEnds)> = if threads == 1 {
            let (mut sink, mut firsts) = (make(), FirstEnds::default());
            work(&mut sink, &mut firsts, true);
            vec![(sink, firsts)]
        } else {
            std::thread::scope(|scope| {
                let handles: Vec<_> = (1..threads)
                    .map(|w| {
                        let work = &work;
                        std::thread::Builder::new()
                            .name(format!("trama-replay-{w}"))
                            .spawn_scoped(scope, move || {
                                let (mut sink, mut firsts) = (make(), FirstEnds::default());
                                work(&mut sink, &mut firsts, false);
                                (sink, firsts)
                            })
                            .expect("cannot start a replay thread")
                    })
                    .collect();
                let (mut sink, mut firsts) = (make(), FirstEnds::default());
                work(&mut sink, &mut firsts, true);
                let mut all = vec![(sink, firsts)];
                for h in handles {
                    match h.join() {
                        Ok(s) => all.push(s),
                        Err(p) => std::panic::resume_unwind(p),
                    }
                }
                all
            })
        };
        let (sinks, firsts): (Vec<S>, Vec<FirstEnds>) = done.into_iter().unzip();
        if let Some((_, f)) = failure.into_inner().expect("not poisoned") {
            return match f {
                SegFail::Format(e) => Err(e),
                SegFail::Bail(why) => Ok(Err(why)),
            };
        }
        let t2 = std::time::Instant::now();
        let mut outs = outs.into_inner().expect("not poisoned");
        outs.sort_unstable_by_key(|(i, _)| *i);
        let outs: Vec<SegmentOut> = outs.into_iter().map(|(_, o)| o).collect();
        if opts.window.is_none() && has_duplicates(&firsts, threads) {
            return Ok(Err("a link key may be used twice".into()));
        }
        if std::env::var_os("TRAMA_TIMINGS").is_some() {
            eprintln!(
                "trama: timings: replay: model {:.1} ms, blocks {:.1} ms, key check {:.1} ms",
                (t1 - t0).as_secs_f64() * 1e3,
                (t2 - t1).as_secs_f64() * 1e3,
                t2.elapsed().as_secs_f64() * 1e3
            );
        }
        let stats = ReplayStats {
            blocks_read: segs.iter().map(|s| s.end - s.first).sum(),
            blocks: events.len(),
            segments: segs.len(),
        };
        Ok(Ok(Run {
            pre,
            sinks,
            outs,
            stats,
        }))
    }

    #[allow(clippy::too_many_arguments)]
    fn segment<S: ReplaySink>(
        &self,
        pre: &Prepass,
        events: &[Frame],
        seg: &Segment,
        sink: &mut S,
        ignore_incomplete_links: bool,
        end_time: Option<f64>,
        scratch: &mut Scratch,
        firsts: &mut FirstEnds,
    ) -> Result<SegmentOut, SegFail> {
        let b = self.bytes();
        let mut lists = Vec::new();
        let state = match seg.keyframe {
            None => ReplayState::new(),
            Some(k) => {
                let f = &self.frames[k];
                let payload = frame_into(b, f.offset, KIND_KEYFRAME, u64::MAX, &mut scratch.raw)?;
                let mut c = Cursor::new(payload);
                let block = c.varint();
                if block != Some(f.first) {
                    return Err(
                        bad(f.offset, "keyframe: block number does not match the index").into(),
                    );
                }
                let r = state::decode(&payload[c.pos()..], &pre.tables, &pre.counts, &pre.dead)
                    .ok_or_else(|| bad(f.offset, "keyframe: malformed state"))?;
                lists = r.lists;
                r.state
            }
        };
        let mut replay =
            Replay::new(state, sink).ignoring_incomplete_links(ignore_incomplete_links);
        let mut kept = 0;
        for f in &events[seg.first..seg.end] {
            if let Err((bail, line)) = self.replay_block(pre, f, &mut replay, scratch)? {
                return Err(SegFail::Bail(format!("{bail} (line {line})")));
            }
            // The fields and long keys of final entities pile up in long
            // segments: drop them once they outweigh those kept and a few
            // blocks' worth.
            let pooled = replay.state.extras.len() + replay.state.long_keys.len();
            if pooled > 2 * kept + 4 * f.count as usize {
                replay.state.compact();
                kept = replay.state.extras.len() + replay.state.long_keys.len();
            }
        }
        if seg.last {
            replay
                .finish(&pre.tables, end_time)
                .map_err(|b| SegFail::Bail(format!("{b} (at the end of the trace)")))?;
            if end_time.is_none() && replay.state.model_cursor != pre.effects.len() as u64 {
                let off = events.last().map_or(0, |f| f.offset);
                return Err(bad(off, "model records left over after the last events frame").into());
            }
        } else if let Some(k) = seg.next {
            let f = &self.frames[k];
            let mut mine = Vec::new();
            varint::put(&mut mine, f.first);
            state::encode(&replay.state, &mut mine);
            let payload = frame_into(b, f.offset, KIND_KEYFRAME, u64::MAX, &mut scratch.raw)?;
            if payload != &mine[..] {
                return Err(bad(
                    f.offset,
                    "keyframe does not match the events before it (the file is damaged)",
                )
                .into());
            }
        }
        lists.extend(replay.new_lists.iter().copied());
        firsts.add(&replay.first_ends);
        Ok(SegmentOut {
            lists,
            destroyed: std::mem::take(&mut replay.destroyed),
            warnings: std::mem::take(&mut replay.warnings),
        })
    }

    /// Decodes an events frame into `replay`. `Ok(Err((why, line)))` when
    /// the replay gives up.
    ///
    /// A grouped frame (no model record takes effect in it) is replayed
    /// run after run: each run holds the events of one list, and lists do
    /// not depend on each other's order between model records; the times
    /// of the last events (of the trace and of each container) are then
    /// set in trace order from `ORDER`. Other frames are replayed in trace
    /// order, each event from the cursors of its run.
    fn replay_block<S: ReplaySink>(
        &self,
        pre: &Prepass,
        f: &Frame,
        replay: &mut Replay<S>,
        scratch: &mut Scratch,
    ) -> Result<Result<(), (Bail, u64)>, FormatError> {
        let Scratch {
            raw,
            extras,
            pos,
            run_last,
            last_at,
            seen,
            stamp,
        } = scratch;
        // The times of a split frame are read where they lie in the file.
        let (payload, tail) = frame_split(self.bytes(), f.offset, KIND_EVENTS, raw)?;
        let ebad = |what: String| bad(f.offset, format!("events frame: {what}"));
        let c = self.columns_split(f, payload, tail)?;
        if c.first_model != replay.state.model_cursor {
            return Err(ebad("model records out of sequence".into()));
        }
        // Lines are only read for messages: one varint per event.
        let lines_col = c.cols[LINES].data();
        if lines_col.last().is_some_and(|&b| b >= 0x80)
            || varint::count_ends(lines_col) as u64 != c.count
        {
            return Err(ebad("column LINES does not hold one line per event".into()));
        }
        pos.clear();
        pos.extend(c.runs.iter().map(Pos::new));
        let mut ctx = Ctx {
            offset: f.offset,
            p: payload,
            t: c.cols[TIMES].data(),
            ws: c.streams_width,
            wh: c.handles_width,
            lo: f64::INFINITY,
            hi: f64::NEG_INFINITY,
            timed: false,
            bad_value: false,
            list: u32::MAX,
            container: 0,
            run_prev: f64::NEG_INFINITY,
            unsorted: false,
            untimed: 0,
        };
        let order = (c.order_width > 0).then(|| &c.cols[ORDER].data()[1..]);
        let run_at = |n: usize| match order {
            Some(o) => {
                let mut at = n * c.order_width;
                varint::read_fixed(o, &mut at, c.order_width) as usize
            }
            None => 0,
        };
        if c.grouped {
            let lists = replay.state.list_count;
            if seen.len() < pre.stream_lists as usize {
                seen.resize(pre.stream_lists as usize, 0);
            }
            *stamp = stamp.wrapping_add(1);
            if *stamp == 0 {
                seen.fill(0);
                *stamp = 1;
            }
            run_last.clear();
            for (k, r) in c.runs.iter().enumerate() {
                ctx.list = u32::MAX;
                let p = &mut pos[k];
                (ctx.untimed, ctx.run_prev, ctx.unsorted) = (0, f64::NEG_INFINITY, false);
                if let Err((b, j)) =
                    self.replay_run::<S, true>(pre, &mut ctx, p, r.count, replay, extras)?
                {
                    return Ok(Err((b, self.line_in_run(f, k, j))));
                }
                if !p.at(&r.end) {
                    return Err(ebad(format!("run {k}: columns do not hold its events")));
                }
                if c.merged && (ctx.untimed != 0 || ctx.unsorted) {
                    return Err(ebad(format!(
                        "run {k}: merged runs whose times are missing or decrease"
                    )));
                }
                let l = ctx.list as usize;
                if seen[l] == *stamp {
                    return Err(ebad(format!("run {k}: a list split over two runs")));
                }
                seen[l] = *stamp;
                run_last.push((replay.state.last_time, ctx.container));
            }
            if replay.state.list_count != lists {
                return Err(ebad("a grouped frame creates a list".into()));
            }
            // The last event of each run, in trace order.
            let mut by_last: Vec<usize> = (0..c.runs.len()).collect();
            if c.merged {
                by_last.sort_by(|&a, &b| {
                    merge_order((run_last[a].0, a as u32), (run_last[b].0, b as u32))
                });
            } else {
                last_at.clear();
                last_at.resize(c.runs.len(), (0, 0));
                for n in 0..c.count as usize {
                    let k = run_at(n);
                    match last_at.get_mut(k) {
                        Some(x) => *x = (n, x.1 + 1),
                        None => return Err(ebad(format!("event {n}: no run {k}"))),
                    }
                }
                if last_at
                    .iter()
                    .zip(&c.runs)
                    .any(|(&(_, m), r)| m as u64 != r.count)
                {
                    return Err(ebad("column ORDER does not match the runs".into()));
                }
                by_last.sort_unstable_by_key(|&k| last_at[k].0);
            }
            for k in by_last {
                let (t, cont) = run_last[k];
                replay.set_last_time(cont, t);
            }
        } else {
            for n in 0..c.count as usize {
                let k = run_at(n);
                let Some(p) = pos.get_mut(k) else {
                    return Err(ebad(format!("event {n}: no run {k}")));
                };
                if let Err((b, _)) =
                    self.replay_run::<S, false>(pre, &mut ctx, p, 1, replay, extras)?
                {
                    return Ok(Err((b, line_at(c.cols[LINES], c.first_line, n as u64))));
                }
            }
            if let Some(k) = (0..c.runs.len()).find(|&k| !pos[k].at(&c.runs[k].end)) {
                return Err(ebad(format!("run {k}: columns do not hold its events")));
            }
        }
        if ctx.bad_value {
            return Err(ebad("a value out of range in the columns".into()));
        }
        let (lo, hi) = if ctx.timed {
            (ctx.lo, ctx.hi)
        } else {
            (0.0, 0.0)
        };
        if lo.to_bits() != c.t_min.to_bits() || hi.to_bits() != c.t_max.to_bits() {
            return Err(ebad("time range does not match the events".into()));
        }
        Ok(Ok(()))
    }

    /// Replays `m` events of one run from its cursors `pos`. `Ok(Err((why,
    /// j)))` when the replay gives up at the run's `j`-th event.
    ///
    /// Each entity event names its stream, which gives its definition,
    /// container and type; the handler of the definition's kind decodes
    /// the rest and calls the replay's method for that kind, so that an
    /// event's kind is tested once. Columns are read through one position
    /// each without failing (past a column's end the reads run into the
    /// next, past the payload they read zeros): the caller checks that the
    /// run's columns were used up exactly, and what garbage does before
    /// that at worst makes the replay give up (the reference simulation
    /// then reports the damage). `GROUPED`: the run is replayed on its own
    /// (all its events are on one list, set in `ctx`, and use no model
    /// record).
    #[inline]
    fn replay_run<S: ReplaySink, const GROUPED: bool>(
        &self,
        pre: &Prepass,
        ctx: &mut Ctx<'_>,
        pos: &mut Pos,
        m: u64,
        replay: &mut Replay<S>,
        extras: &mut Vec<u32>,
    ) -> Result<Result<(), (Bail, u64)>, FormatError> {
        let (p, tp) = (ctx.p, ctx.t);
        let (ws, wh) = (ctx.ws, ctx.wh);
        let Pos {
            mut ps,
            mut ph,
            mut pt,
            mut pn,
            mut pstr,
            mut pk,
            mut pl,
            mut pm,
            mut psc,
            mut has_prev,
        } = *pos;
        let (mut lo, mut hi, mut timed, mut bad_value) = (ctx.lo, ctx.hi, ctx.timed, ctx.bad_value);
        let (mut run_prev, mut unsorted, mut untimed) = (ctx.run_prev, ctx.unsorted, ctx.untimed);
        let mut list = ctx.list;
        let mut container = ctx.container;
        let tables = &pre.tables;
        let nstrings = self.string_count();
        let off = ctx.offset;
        let ebad = |what: String| bad(off, format!("events frame: {what}"));
        let mut outcome = Ok(());
        for j in 0..m {
            let v = read_fixed(p, &mut ps, ws);
            if v == 0 {
                if GROUPED {
                    return Err(ebad("a model event in a grouped frame".into()));
                }
                let at = replay.state.model_cursor;
                let effect = match (
                    self.records.recs.get(at as usize),
                    pre.effects.get(at as usize),
                ) {
                    (Some(m), Some(e)) if m.tag == REC_EVENT => *e,
                    _ => return Err(ebad(format!("model record {at} missing or not an event"))),
                };
                let r = match effect {
                    Effect::Type => {
                        replay.new_type();
                        Ok(())
                    }
                    Effect::DefinedValue => {
                        replay.new_value(true);
                        Ok(())
                    }
                    Effect::Container { id, time } => replay.new_container(id, time),
                    Effect::Destroy { container, time } => {
                        replay.destroy_event(tables, container, time)
                    }
                    Effect::Time(t) => {
                        replay.time_event(t);
                        Ok(())
                    }
                    Effect::FirstValue { .. } | Effect::Stream => unreachable_effect(),
                };
                if let Err(b) = r {
                    outcome = Err((b, j));
                    break;
                }
                continue;
            }
            let Some(hot) = pre.hot.get(v as usize - 1) else {
                return Err(ebad(format!("no stream {}", v - 1)));
            };
            let s = &hot.stream;
            let at = replay.state.model_cursor;
            if GROUPED {
                if s.record >= at {
                    return Err(ebad("a stream declared in a grouped frame".into()));
                }
                if s.list != list {
                    if list != u32::MAX {
                        return Err(ebad("a run of two lists".into()));
                    }
                    list = s.list;
                    container = s.container;
                }
            } else if s.record == at {
                replay.model_record();
            } else if s.record > at {
                return Err(ebad("stream used before its declaration".into()));
            }
            let (def, ct, ty) = (s.def, s.container, s.ty);
            let f = &hot.fast;
            macro_rules! time {
                () => {{
                    let v = read_wide(tp, &mut pt, &mut bad_value);
                    let t = if v & 1 == 0 && has_prev {
                        pm = pm.wrapping_add(varint::unzigzag(v >> 1));
                        // An integer over a power of ten: never NaN nor -0.
                        decimal::to_f64(pm, psc)
                    } else {
                        let t = self
                            .time_rest(
                                v,
                                (tp, p),
                                (&mut pt, &mut pstr),
                                (&mut pm, &mut psc, &mut has_prev),
                                &mut bad_value,
                            )
                            .ok_or_else(|| ebad("bad time".into()))?;
                        // (NaN counts as decreasing; -0 is not mergeable.)
                        unsorted |= t.is_nan() | (t.to_bits() == NEG_ZERO);
                        t
                    };
                    if t < lo {
                        lo = t;
                    }
                    if t > hi {
                        hi = t;
                    }
                    if GROUPED {
                        unsorted |= t < run_prev;
                        run_prev = t;
                    }
                    timed = true;
                    t
                }};
            }
            macro_rules! timed_or_zero {
                () => {{
                    if f.timed {
                        time!()
                    } else {
                        untimed += GROUPED as u64;
                        0.0
                    }
                }};
            }
            macro_rules! value {
                ($v:expr) => {{
                    let v = $v;
                    if v == 0 {
                        if GROUPED {
                            return Err(ebad("a new value in a grouped frame".into()));
                        }
                        self.first_value(pre, replay)
                            .ok_or_else(|| ebad("value record missing".into()))?
                    } else {
                        v - 1
                    }
                }};
            }
            macro_rules! strings {
                () => {{
                    extras.clear();
                    for &x in &f.strs[..f.nstrs as usize] {
                        let id = read_small(p, &mut pstr, &mut bad_value);
                        if id >= nstrings {
                            return Err(ebad(format!("no string {id}")));
                        }
                        if x > 0 {
                            extras.push(name_code(def, x as usize - 1));
                            extras.push(string_code(id));
                        }
                    }
                }};
            }
            macro_rules! link {
                () => {{
                    let r = read_wide_short(p, &mut pl, &mut bad_value);
                    if r == 0 {
                        (read_bytes(p, &mut pk, &mut bad_value), None)
                    } else {
                        (&[][..], Some(r))
                    }
                }};
            }
            macro_rules! handles {
                () => {{
                    let mut h = [0u32; 2];
                    if f.nh > 0 {
                        h[0] = read_fixed(p, &mut ph, wh);
                        if f.nh > 1 {
                            h[1] = read_fixed(p, &mut ph, wh);
                        }
                    }
                    h
                }};
            }
            let r = match hot.op {
                Op::PushState | Op::SetState | Op::NewEvent => {
                    let t = timed_or_zero!();
                    let h = handles!();
                    let v = value!(h[f.vi as usize]);
                    strings!();
                    match hot.op {
                        Op::PushState => replay.push_state(tables, ct, ty, v, t, extras),
                        Op::SetState => replay.set_state(tables, ct, ty, v, t, extras),
                        _ => replay.new_event(tables, ct, ty, v, t, extras),
                    }
                }
                Op::PopState | Op::ResetState => {
                    let t = timed_or_zero!();
                    handles!();
                    strings!();
                    if hot.op == Op::PopState {
                        replay.pop_state(tables, ct, ty, t)
                    } else {
                        replay.reset_state(tables, ct, ty, t)
                    }
                }
                Op::Variable => {
                    let t = timed_or_zero!();
                    handles!();
                    let x = self
                        .number(p, &mut pn, &mut pstr, &mut bad_value)
                        .ok_or_else(|| ebad("bad number".into()))?;
                    strings!();
                    replay.variable_event(tables, hot.kind, ct, ty, t, x, extras)
                }
                Op::Link => {
                    let t = timed_or_zero!();
                    let h = handles!();
                    let v = value!(h[f.vi as usize]);
                    let o = h[f.oi as usize];
                    let (key, pair) = link!();
                    strings!();
                    let start = hot.kind == trama_events::EventKind::StartLink;
                    replay.link_event(tables, start, ct, ty, v, o, t, key, pair, extras)
                }
                Op::Model => return Err(ebad("a model event stored as an entity".into())),
                Op::Wide => return Err(ebad(crate::read::wide(&self.defs[def as usize]))),
                Op::Generic => {
                    let plan = &self.plans[def as usize];
                    extras.clear();
                    untimed += (GROUPED && !plan.slots.contains(&Slot::Time)) as u64;
                    let mut ev = ReplayEvent {
                        kind: plan.kind,
                        time: 0.0,
                        container: ct,
                        ty,
                        value: trama_sim::replay::NONE,
                        other: trama_sim::replay::NONE,
                        number: 0.0,
                        key: &[],
                        pair: None,
                        extras: &[],
                    };
                    for &s in &plan.slots {
                        match s {
                            Slot::Time => ev.time = time!(),
                            Slot::Container | Slot::Type => {}
                            Slot::Other => ev.other = read_fixed(p, &mut ph, wh),
                            Slot::Value => ev.value = value!(read_fixed(p, &mut ph, wh)),
                            Slot::Number => {
                                ev.number = self
                                    .number(p, &mut pn, &mut pstr, &mut bad_value)
                                    .ok_or_else(|| ebad("bad number".into()))?
                            }
                            Slot::Key => (ev.key, ev.pair) = link!(),
                            Slot::Str | Slot::Extra(_) => {
                                let id = read_small(p, &mut pstr, &mut bad_value);
                                if id >= nstrings {
                                    return Err(ebad(format!("no string {id}")));
                                }
                                if let Slot::Extra(k) = s {
                                    extras.push(name_code(def, k as usize));
                                    extras.push(string_code(id));
                                }
                            }
                        }
                    }
                    ev.extras = extras;
                    replay.entity(tables, &ev)
                }
            };
            if let Err(b) = r {
                outcome = Err((b, j));
                break;
            }
        }
        *pos = Pos {
            ps,
            ph,
            pt,
            pn,
            pstr,
            pk,
            pl,
            pm,
            psc,
            has_prev,
        };
        (ctx.lo, ctx.hi, ctx.timed, ctx.bad_value) = (lo, hi, timed, bad_value);
        (ctx.run_prev, ctx.unsorted, ctx.untimed) = (run_prev, unsorted, untimed);
        ctx.list = list;
        ctx.container = container;
        Ok(outcome)
    }

    /// A time that does not follow the previous one's scale: `v` is its
    /// first varint (odd), the rest follows in `TIMES`, or in `STRS` when
    /// stored as text. `None` when malformed.
    #[inline(never)]
    fn time_rest(
        &self,
        v: u64,
        (tp, p): (&[u8], &[u8]),
        (pt, pstr): (&mut usize, &mut usize),
        (pm, psc, has_prev): (&mut i64, &mut u8, &mut bool),
        bad: &mut bool,
    ) -> Option<f64> {
        if v & 1 == 0 {
            return None;
        }
        let s = *tp.get(*pt)?;
        *pt += 1;
        if s == TIME_TEXT {
            let id = read_small(p, pstr, bad);
            return Some(trama_num::atof(self.string(id as u64)?));
        }
        if s > decimal::MAX_SCALE {
            return None;
        }
        let m = varint::unzigzag(read_wide(tp, pt, bad));
        (*pm, *psc, *has_prev) = (m, s, true);
        Some(decimal::to_f64(m, s))
    }

    /// A variable's value as `strtof` reads it, from `NUMS` (or `STRS`).
    #[inline(always)]
    fn number(&self, p: &[u8], pn: &mut usize, pstr: &mut usize, bad: &mut bool) -> Option<f64> {
        let v = read_wide(p, pn, bad);
        if v & 31 == NUM_TEXT {
            let id = read_small(p, pstr, bad);
            return Some(trama_num::strtof(self.string(id as u64)?) as f64);
        }
        let s = (v & 31) as u8;
        if s > decimal::MAX_SCALE {
            return None;
        }
        Some(decimal::to_f32(varint::unzigzag(v >> 5), s) as f64)
    }

    /// The value created by an event's first use: the next model record.
    #[cold]
    fn first_value<S: ReplaySink>(&self, pre: &Prepass, replay: &mut Replay<S>) -> Option<u32> {
        let at = replay.state.model_cursor;
        match (
            self.records.recs.get(at as usize),
            pre.effects.get(at as usize),
        ) {
            (Some(m), Some(&Effect::FirstValue { id })) if m.tag == REC_VALUE => {
                replay.new_value(false);
                Some(id)
            }
            _ => None,
        }
    }
}

/// The bits of -0.
const NEG_ZERO: u64 = 0x8000_0000_0000_0000;

fn unreachable_effect() -> Result<(), Bail> {
    Err(Bail(
        "a record of a value or stream where an event's is due",
    ))
}

/// The line of event `n` of a frame, from its `LINES` column (for messages).
fn line_at(mut lines: Cursor<'_>, first_line: u64, n: u64) -> u64 {
    let mut line = first_line.wrapping_sub(1);
    for _ in 0..=n {
        line = line
            .wrapping_add(1)
            .wrapping_add(lines.varint().unwrap_or(0));
    }
    line
}
