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
//!
//! - this module: the segments, the threads, the pieces put together;
//! - `segment`: one segment, from its keyframe to the next, block by block;
//! - `run`: the events of one run of a block, along the fast paths.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;

use trama_sim::replay::{
    assemble_trace, has_duplicates, ColumnSink, Final, FirstEnds, NewList, ReplaySink, TraceParts,
};
use trama_sim::{CountingSink, Model, StrId, Trace, TypeKind};

use crate::format::*;
use crate::model::{prepass, HotStream, Prepass, PrepassError};
use crate::read::{bad, FormatError, PtbFile, NO_FAST};
use segment::Scratch;

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

/// Entities counted by nature while replaying, indexed by the nature
/// (one add per entity on the hot path, where the named fields of a
/// [`CountingSink`] take a branch); added to a [`CountingSink`] at the end.
#[derive(Clone, Copy, Debug, Default)]
struct KindCounts([u64; 5]);

impl KindCounts {
    fn add_to(&self, c: &mut CountingSink) {
        c.states += self.0[TypeKind::State as usize];
        c.events += self.0[TypeKind::Event as usize];
        c.variables += self.0[TypeKind::Variable as usize];
        c.links += self.0[TypeKind::Link as usize];
    }
}

impl ReplaySink for KindCounts {
    #[inline]
    fn entity(&mut self, f: &Final<'_>) {
        self.0[f.kind as usize] += 1;
    }
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

mod run;
mod segment;

impl PtbFile {
    /// Simulates the whole trace (or a window) from its keyframes, blocks
    /// in parallel, and counts its entities.
    pub fn replay_counts(
        &self,
        opts: &ReplayOptions,
    ) -> Result<(Replayed<Counted>, ReplayStats), FormatError> {
        let run = match self.run(opts, &KindCounts::default)? {
            Ok(r) => r,
            Err(why) => return Ok((Replayed::Fallback(why), ReplayStats::default())),
        };
        let mut counts = CountingSink::default();
        for s in &run.sinks {
            s.add_to(&mut counts);
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
            // Cut at the keyframes inside, so the blocks replay in parallel.
            let mut segs = Vec::new();
            let mut first = begin;
            for b in begin + 1..=stop {
                if b == stop || kf[b].is_some() {
                    segs.push(Segment {
                        keyframe: kf[first],
                        first,
                        end: b,
                        next: if b == stop { None } else { kf[b] },
                        last: b == stop,
                    });
                    first = b;
                }
            }
            if segs.is_empty() {
                segs.push(Segment {
                    keyframe: kf[begin],
                    first: begin,
                    end: stop,
                    next: None,
                    last: true,
                });
            }
            return segs;
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

    /// The model records read: the model, and the streams of events.
    fn prepassed(&self, keep_extras: bool) -> Result<Result<Prepass, String>, FormatError> {
        match prepass(&self.records, &self.defs, keep_extras) {
            Ok(p) => Ok(Ok(p)),
            Err(PrepassError::Trace(e)) => {
                Ok(Err(format!("model record at line {}: {}", e.line, e.kind)))
            }
            Err(PrepassError::Stream(why)) => Ok(Err(why)),
            Err(PrepassError::Format(what)) => {
                let off = self
                    .frames
                    .iter()
                    .find(|f| f.kind == KIND_MODEL)
                    .map_or(0, |f| f.offset);
                Err(bad(off, what))
            }
        }
    }

    /// The trace's model (containers with their final ends, types, values)
    /// with no list and no entity, from its model records alone: what
    /// every window replay starts from. `Fallback` as for
    /// [`PtbFile::replay_trace`].
    pub fn model_trace(&self) -> Result<Replayed<Trace>, FormatError> {
        if !self.interned() {
            return Ok(Replayed::Fallback(
                "plain strings: events are resolved by name".into(),
            ));
        }
        let pre = match self.prepassed(false)? {
            Ok(p) => p,
            Err(why) => return Ok(Replayed::Fallback(why)),
        };
        let o = ReplayOptions {
            window: Some((0.0, 0.0)),
            ..ReplayOptions::default()
        };
        let parts = self.parts(pre, Vec::new(), &o);
        Ok(Replayed::Done(assemble_trace(
            parts,
            Vec::<ColumnSink>::new(),
            |_, s| s.intern(b""),
        )))
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
        let mut pre = match self.prepassed(opts.keep_extras)? {
            Ok(p) => p,
            Err(why) => return Ok(Err(why)),
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
        let done = on_workers(threads, make, &work);
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
}

/// Runs `work` on `threads` workers, the caller's thread the first (it
/// takes segments from the front, the others from the back); each fills a
/// sink of its own, made on its own thread (sinks side by side in memory
/// would share cache lines). The sinks and first link ends, the caller's
/// first.
fn on_workers<S: ReplaySink + Send>(
    threads: usize,
    make: &(dyn Fn() -> S + Sync),
    work: &(dyn Fn(&mut S, &mut FirstEnds, bool) + Sync),
) -> Vec<(S, FirstEnds)> {
    if threads == 1 {
        let (mut sink, mut firsts) = (make(), FirstEnds::default());
        work(&mut sink, &mut firsts, true);
        vec![(sink, firsts)]
    } else {
        std::thread::scope(|scope| {
            let handles: Vec<_> = (1..threads)
                .map(|w| {
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
    }
}
