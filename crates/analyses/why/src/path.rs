//! The critical path of a run, its profile and its imbalance.
//!
//! The definitions are those of Scalasca's critical-path analysis (Böhme,
//! de Supinski, Geimer, Schulz, Wolf: "Scalable critical-path based
//! performance analysis", IPDPS 2012, and Böhme, Geimer, Wolf et al.:
//! "Characterizing load and communication imbalance in large-scale
//! parallel applications"; Scalasca's `CRITICAL_PATH` and
//! `CRITICAL_PATH_IMBALANCE` metrics).
//!
//! # The path
//!
//! The critical path is the chain of activities that set the run's
//! length. It is followed backwards from the end of the run, starting on
//! the process whose last activity ends last (the lowest [`ProcId`] on a
//! tie). Walking back on a process, every instant is on the path and is
//! credited to that process's innermost activity at that instant (the
//! time outside any activity to the region `None`), until the walk
//! reaches the *hand-off* of a wait state of that process: the moment the
//! process it waited for entered its side of the synchronization (the
//! send's enter for a late sender, wrong order or not; the receive's for a
//! late receiver; the last participant's for a barrier or an N-to-N
//! operation; the last non-root participant's for an early reduce; the
//! root's for a late broadcast: the enter of its call joined to the
//! waiting call by a message or a collective, else the end of the
//! waiting). The path then moves to that process at that moment and goes
//! on backwards there; the call it moves to is thus not on the path. The
//! waiting itself (from the wait's start to the hand-off) is never on the
//! path, while the rest of the waiting call after the hand-off (a
//! message's transfer, a collective's completion) is, credited to the
//! waiting call's region (`MPI_Recv`, not `MPI_Send`). Completion patterns
//! hand over to no one, and neither does Early Scan (Scalasca 2.6 makes no
//! synchronization point of a prefix operation): a scan where a process
//! waited is on the path whole when the path runs through it. The walk
//! ends at the run's start.
//!
//! The segments are in time order, on one process each, and tile
//! `[run.start, run.end]`: each starts where the previous ends, so their
//! lengths add up to the run's length. Adjacent pieces of one process in
//! one region are one segment; pieces of no length are left out.
//!
//! The walk is a loop over the hand-offs (each taken at most once, so it
//! ends even when hand-offs coincide in time); it costs
//! O(W log W + H log A + S) for W wait states, H hand-offs taken, A
//! activities per process and S segments, and keeps the hand-offs and the
//! segments in memory.
//!
//! # The profile and the imbalance
//!
//! For a region `r` (or `None`, the time outside any activity) and a
//! process `p`:
//!
//! - `cp_p(r)`: the seconds of the path on `p` credited to `r`;
//!   `cp(r) = Σ_p cp_p(r)` is the region's time on the path
//!   ([`PathRegion::seconds`]); `Σ_r cp(r) = run.end − run.start`.
//! - `t_p(r)`: the seconds `p` spent in `r` within the run, minus the
//!   waiting of its wait states whose call is in `r` that the path
//!   follows (completion patterns are not waiting and stay, and so does
//!   Early Scan's waiting, which Scalasca 2.6 does not count as waiting
//!   either: it makes no synchronization point of a prefix operation);
//!   for `None`, the run's length minus the time of `p`'s activities.
//! - `mean(r) = (Σ_p t_p(r)) / N`, N the number of processes
//!   ([`PathRegion::mean`]).
//! - the critical-path imbalance `I(r) = max(0, cp(r) − mean(r))`
//!   ([`PathRegion::imbalance`]): the time the region holds the path
//!   beyond what an evenly loaded process spends in it.
//!
//! Per process ([`PathProcess`]): its time on the path
//! `cp_p = Σ_r cp_p(r)`, its share `cp_p / (run.end − run.start)`, and
//! its imbalance `I_p = Σ_r I(r) · cp_p(r) / cp(r)` (each region's
//! imbalance shared among the processes in proportion to their time on
//! the path in it, as Scalasca spreads it over its system tree), so that
//! `Σ_p I_p = Σ_r I(r)`.

use std::collections::HashMap;

use crate::model::{PathSegment, ProcId, RegionId, Run, WaitState};
use crate::sync::{synchronizes, SyncIndex};

/// The critical path of `run`, given its wait states: segments in time
/// order tiling the run from its start to its end (see the module's
/// documentation). Empty when the run has no process or no length.
pub fn critical_path(run: &Run, waits: &[WaitState]) -> Vec<PathSegment> {
    let n = run.processes.len();
    if n == 0 || run.end.partial_cmp(&run.start) != Some(std::cmp::Ordering::Greater) {
        return Vec::new();
    }
    let index = SyncIndex::new(run);
    // Each process's hand-offs: (time, process waited for), by time.
    let mut jumps: Vec<Vec<(f64, ProcId)>> = vec![Vec::new(); n];
    for w in waits {
        let Some(call) = run.calls.get(w.call as usize) else {
            continue;
        };
        if let Some(h) = index.handoff(run, w) {
            if (call.proc as usize) < n && (h.proc as usize) < n && h.time > run.start {
                jumps[call.proc as usize].push((h.time.min(run.end), h.proc));
            }
        }
    }
    for j in &mut jumps {
        j.sort_by(|a, b| a.0.total_cmp(&b.0));
    }
    // The hand-offs of each process not yet passed are `jumps[p][..left[p]]`.
    let mut left: Vec<usize> = jumps.iter().map(Vec::len).collect();
    let mut p = last_to_end(run);
    let mut t = run.end;
    let mut out = Vec::new();
    loop {
        let js = &jumps[p as usize];
        let mut k = left[p as usize];
        while k > 0 && js[k - 1].0 > t {
            k -= 1;
        }
        let next = k.checked_sub(1).map(|i| js[i]);
        left[p as usize] = k.saturating_sub(1);
        let from = next.map_or(run.start, |j| j.0);
        walk_back(run, p, from, t, &mut out);
        match next {
            Some((time, q)) => (p, t) = (q, time),
            None => break,
        }
    }
    out.reverse();
    out
}

/// The process whose last activity ends last (the lowest on a tie; 0 when
/// none has any).
fn last_to_end(run: &Run) -> ProcId {
    let mut best = (f64::NEG_INFINITY, 0);
    for (p, acts) in run.activities.iter().enumerate().take(run.processes.len()) {
        if let Some(end) = acts.iter().map(|a| a.end).reduce(f64::max) {
            if end > best.0 {
                best = (end, p as ProcId);
            }
        }
    }
    best.1
}

/// Appends, in reverse time order, the segments of process `p` over
/// `[from, to]`: its activities there, and the gaps between them as
/// `None`.
fn walk_back(run: &Run, p: ProcId, from: f64, to: f64, out: &mut Vec<PathSegment>) {
    let acts = run
        .activities
        .get(p as usize)
        .map_or(&[][..], Vec::as_slice);
    let mut cur = to;
    let mut i = acts.partition_point(|a| a.start < to);
    while cur > from {
        match i.checked_sub(1).map(|j| acts[j]) {
            Some(a) if a.end >= cur => {
                let s = a.start.max(from);
                push_front(out, p, Some(a.region), s, cur);
                cur = s;
                i -= 1;
            }
            Some(a) if a.end > from => {
                push_front(out, p, None, a.end, cur);
                cur = a.end;
            }
            _ => {
                push_front(out, p, None, from, cur);
                cur = from;
            }
        }
    }
}

/// Adds `[start, end]` before the segments of `out` (which holds them in
/// reverse order), merged with the first one when it continues it.
fn push_front(
    out: &mut Vec<PathSegment>,
    proc: ProcId,
    region: Option<RegionId>,
    start: f64,
    end: f64,
) {
    if end.partial_cmp(&start) != Some(std::cmp::Ordering::Greater) {
        return;
    }
    if let Some(last) = out.last_mut() {
        if last.proc == proc && last.region == region && last.start == end {
            last.start = start;
            return;
        }
    }
    out.push(PathSegment {
        proc,
        region,
        start,
        end,
    });
}

/// One region's part in the critical path (see the module's
/// documentation for the definitions).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct PathRegion {
    /// The region (`None`: time outside any activity).
    pub region: Option<RegionId>,
    /// Its seconds on the path, `cp(r)`.
    pub seconds: f64,
    /// The mean seconds a process spent in it, waiting excluded,
    /// `mean(r)`.
    pub mean: f64,
    /// Its critical-path imbalance, `max(0, cp(r) − mean(r))`.
    pub imbalance: f64,
}

/// One process's part in the critical path (see the module's
/// documentation for the definitions).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct PathProcess {
    /// The process.
    pub proc: ProcId,
    /// Its seconds on the path, `cp_p`.
    pub seconds: f64,
    /// Its share of the run's length, `cp_p / (run.end − run.start)`.
    pub share: f64,
    /// Its part of the critical-path imbalance, `I_p`.
    pub imbalance: f64,
}

/// The slot of a region in per-region vectors: the regions, then `None`.
fn slot(run: &Run, r: Option<RegionId>) -> usize {
    r.map_or(run.regions.len(), |r| (r as usize).min(run.regions.len()))
}

/// The critical-path profile: each region on the `path` of `run` (wait
/// states `waits`) with its seconds on the path, its mean time per process
/// and its critical-path imbalance; by decreasing seconds on the path,
/// then region (`None` last). Regions not on the path are left out.
pub fn path_profile(run: &Run, waits: &[WaitState], path: &[PathSegment]) -> Vec<PathRegion> {
    let on_path = region_seconds(run, path);
    let mean = mean_times(run, waits);
    let mut rows: Vec<PathRegion> = (0..on_path.len())
        .filter(|&s| on_path[s] > 0.0)
        .map(|s| PathRegion {
            region: (s < run.regions.len()).then_some(s as RegionId),
            seconds: on_path[s],
            mean: mean[s],
            imbalance: (on_path[s] - mean[s]).max(0.0),
        })
        .collect();
    rows.sort_by(|a, b| {
        let key = |r: &PathRegion| r.region.map_or(u64::MAX, u64::from);
        b.seconds.total_cmp(&a.seconds).then(key(a).cmp(&key(b)))
    });
    rows
}

/// Each process's part in the critical `path` of `run` (wait states
/// `waits`): its time on the path, its share of the run and its part of
/// the critical-path imbalance; every process, in [`ProcId`] order.
pub fn path_processes(run: &Run, waits: &[WaitState], path: &[PathSegment]) -> Vec<PathProcess> {
    let n = run.processes.len();
    let on_path = region_seconds(run, path);
    let mean = mean_times(run, waits);
    let mut per: HashMap<(ProcId, usize), f64> = HashMap::new();
    for s in path {
        *per.entry((s.proc, slot(run, s.region))).or_default() += s.end - s.start;
    }
    let length = run.end - run.start;
    let mut rows: Vec<PathProcess> = (0..n as ProcId)
        .map(|proc| PathProcess {
            proc,
            seconds: 0.0,
            share: 0.0,
            imbalance: 0.0,
        })
        .collect();
    let mut keys: Vec<_> = per.into_iter().collect();
    keys.sort_by_key(|&(k, _)| k);
    for ((p, s), secs) in keys {
        let Some(row) = rows.get_mut(p as usize) else {
            continue;
        };
        row.seconds += secs;
        let imbalance = (on_path[s] - mean[s]).max(0.0);
        if on_path[s] > 0.0 {
            row.imbalance += imbalance * secs / on_path[s];
        }
    }
    for r in &mut rows {
        r.share = if length > 0.0 {
            r.seconds / length
        } else {
            0.0
        };
    }
    rows
}

/// The seconds of `path` per region slot.
fn region_seconds(run: &Run, path: &[PathSegment]) -> Vec<f64> {
    let mut v = vec![0.0; run.regions.len() + 1];
    for s in path {
        v[slot(run, s.region)] += s.end - s.start;
    }
    v
}

/// `mean(r)` per region slot: the time of every process in the region
/// within the run, less the waiting of its wait states that the path
/// follows, over the number of processes.
fn mean_times(run: &Run, waits: &[WaitState]) -> Vec<f64> {
    let n = run.processes.len();
    let mut v = vec![0.0; run.regions.len() + 1];
    let none = run.regions.len();
    let length = (run.end - run.start).max(0.0);
    for acts in run.activities.iter().take(n) {
        let mut busy = 0.0;
        for a in acts {
            let d = (a.end.min(run.end) - a.start.max(run.start)).max(0.0);
            v[slot(run, Some(a.region))] += d;
            busy += d;
        }
        v[none] += (length - busy).max(0.0);
    }
    v[none] += length * n.saturating_sub(run.activities.len()) as f64;
    for w in waits.iter().filter(|w| synchronizes(w.pattern)) {
        if let Some(c) = run.calls.get(w.call as usize) {
            let s = slot(run, Some(c.region));
            let d = w.duration.clamp(0.0, (c.exit - c.enter).max(0.0));
            v[s] = (v[s] - d).max(0.0);
        }
    }
    if n > 0 {
        for x in &mut v {
            *x /= n as f64;
        }
    }
    v
}

#[cfg(test)]
#[path = "path_tests.rs"]
mod tests;
