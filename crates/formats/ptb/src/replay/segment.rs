//! One segment replayed: its keyframe decoded, its blocks replayed run by
//! run, its end state checked against the next keyframe.

use trama_sim::replay::{Bail, FirstEnds, Replay, ReplaySink, ReplayState};

use super::run::{line_at, Ctx, Pos};
use super::{SegFail, Segment, SegmentOut};
use crate::format::*;
use crate::model::Prepass;
use crate::read::{bad, frame_into, frame_split, merge_order, Columns, FormatError, PtbFile};
use crate::state;
use crate::varint::{self, Cursor};

/// A worker's buffers, reused from block to block.
#[derive(Default)]
pub(super) struct Scratch {
    pub(super) raw: Vec<u8>,
    pub(super) extras: Vec<u32>,
    /// Per run of the frame: its cursors, the time of its last event and
    /// its container (grouped frames), where its last event is in trace
    /// order and how many events `ORDER` gives it.
    pub(super) pos: Vec<Pos>,
    pub(super) run_last: Vec<(f64, u32)>,
    pub(super) last_at: Vec<(usize, u32)>,
    /// Per list of the streams, the last grouped frame (`stamp`) a run of
    /// it was replayed in.
    pub(super) seen: Vec<u32>,
    pub(super) stamp: u32,
}

impl PtbFile {
    #[allow(clippy::too_many_arguments)]
    pub(super) fn segment<S: ReplaySink>(
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
    pub(super) fn replay_block<S: ReplaySink>(
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
            let by_last = runs_by_last(&c, run_last, last_at, run_at).map_err(ebad)?;
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
}

/// The runs of a grouped frame `c` in the order of their last events: by
/// their last times (`run_last`) when the runs are merged, else by the
/// column `ORDER` (`run_at(n)`: the run of the frame's `n`-th event;
/// `last_at` is scratch space). What is wrong with `ORDER`.
fn runs_by_last(
    c: &Columns<'_>,
    run_last: &[(f64, u32)],
    last_at: &mut Vec<(usize, u32)>,
    run_at: impl Fn(usize) -> usize,
) -> Result<Vec<usize>, String> {
    let mut by_last: Vec<usize> = (0..c.runs.len()).collect();
    if c.merged {
        by_last.sort_by(|&a, &b| merge_order((run_last[a].0, a as u32), (run_last[b].0, b as u32)));
        return Ok(by_last);
    }
    last_at.clear();
    last_at.resize(c.runs.len(), (0, 0));
    for n in 0..c.count as usize {
        let k = run_at(n);
        match last_at.get_mut(k) {
            Some(x) => *x = (n, x.1 + 1),
            None => return Err(format!("event {n}: no run {k}")),
        }
    }
    if last_at
        .iter()
        .zip(&c.runs)
        .any(|(&(_, m), r)| m as u64 != r.count)
    {
        return Err("column ORDER does not match the runs".into());
    }
    by_last.sort_unstable_by_key(|&k| last_at[k].0);
    Ok(by_last)
}
