//! The delay costs: which computation on which process caused the waiting.
//!
//! The definitions are those of Scalasca's root-cause analysis (Böhme,
//! Geimer, Wolf, Arnold: "Identifying the root causes of wait states in
//! large-scale parallel applications", ICPP 2010; Scalasca's
//! `DELAY_*` and `DELAY_*_LONGTERM` metrics), written again here.
//!
//! # Synchronization points
//!
//! A *synchronization point* (Scalasca's synchpoint) is a call at which a
//! process synchronized with others, its *partners*:
//!
//! - the call of a wait state (any pattern but the completion ones and
//!   Early Scan, which Scalasca does not count, with a duration `> 0`)
//!   and the call of the process it waited for joined to it (see
//!   the `sync` module: the send of a late sender, the receive of a late
//!   receiver, the last participant's or the root's call of a
//!   collective), each the other's partner;
//! - every participant's call of a barrier, and of an N-to-N operation
//!   whose participants all overlap (the latest enter before the earliest
//!   exit), each with all the others as partners.
//!
//! A point has its waiting `w(x)` (the durations of the wait states of
//! its call), its call's length `total(x) = exit − enter`, and its
//! completion `cmpl(x)`: for the receive of a late sender and the
//! receive of a late receiver, `max(0, exit − exit of the send)`; for the
//! send of a late sender, `max(0, exit − exit of the receive)`; for the
//! send of a late receiver, `0` when it ends after the receive, else
//! `exit − exit of the receive` (Scalasca's value, `≤ 0`); for a
//! collective's call, `max(0, exit − e)` with `e` the earliest exit of
//! its participants (of those that waited, for a one-to-N operation).
//!
//! # One wait state
//!
//! Take a wait state `i` of process `p` in call `R` (a synchronization
//! point), of duration `w_i > 0`, waiting for process `q`, whose call
//! joined to `R` is `S`; its *hand-off* `h_i` is `S`'s enter.
//!
//! - **Synchronization interval.** On `q`, the previous point `P_q` is
//!   the last synchronization point of `q` before `S` that has `p` among
//!   its partners; the interval `I_q` runs from `P_q`'s enter (the run's
//!   start when there is none) to `S`'s enter. On `p` likewise: `P_p`, the
//!   last point of `p` before `R` with `q` among its partners, and `I_p`
//!   from its enter to `R`'s enter. The intervals are cut at the enters
//!   of the calls, as Scalasca's time maps are cut at Enter and Leave
//!   events: the call of the previous point is inside the interval, the
//!   call of the current one is not.
//! - **Time per region.** `T_x(r)`: the time process `x` spent in region
//!   `r` (its innermost activity) within `I_x`; `W_x(r)`: the waiting
//!   `w(y)` of the synchronization points `y` of `x` strictly between
//!   `P_x` and the interval's end whose call is in `r`. The net time is
//!   `N_x(r) = max(0, T_x(r) − W_x(r))`, then, for the region `r_0` of
//!   `P_x`'s call, *pruned*: `N_x(r_0) = max(0, N_x(r_0) − total(P_x) +
//!   cmpl(P_x))` (of the previous point's call only its completion
//!   counts). Time outside any activity belongs to no region and is not
//!   compared.
//! - **Delay.** `d_i(r) = max(0, N_q(r) − N_p(r))` for the regions of
//!   `q`, the excess time of `q` in `r` over `p`'s in the interval;
//!   `D_i = Σ_r d_i(r)`.
//! - **Propagating waiting.** The wait states `j` of `q`'s
//!   synchronization points strictly inside `I_q` (between `P_q` and
//!   `S`), each with `ω_j = w_j` its whole duration: waiting that made
//!   `q` late too. `W_i = Σ_j ω_j`.
//!
//! # Short-term costs
//!
//! The wait is shared among the delays and the propagating waiting in
//! proportion: with `σ_i = w_i / (D_i + W_i)`, at most 1 for a
//! point-to-point wait (late sender, wrong order or not, late receiver;
//! Scalasca does not cap it for the collective ones), region `r` of `q`
//! gets the short-term cost `σ_i · d_i(r)`. (`D_i + W_i = 0`: the wait is
//! not explained and costs nothing.)
//!
//! # Long-term costs
//!
//! Each wait state `i` has an indirect cost `c_i`: the waiting it caused
//! downstream by making its process late. The part `σ_i · ω_j` of the
//! wait `i` that is due to a propagating wait `j` is that wait's
//! responsibility, and so is the same part of `i`'s own indirect cost:
//!
//! - `λ_i = c_i / (D_i + W_i)`;
//! - region `r` of `q` gets the long-term cost `λ_i · d_i(r)`;
//! - each propagating wait `j` gets `c_j += (σ_i + λ_i) · ω_j`.
//!
//! `c_i` starts at 0. The wait states are taken in an order where every
//! wait comes before the waits that propagate into it (the reverse order
//! of their hand-offs: a propagating wait ends before the hand-off it
//! delays), so each `c_i` is complete when `i` is taken: a loop over a
//! queue of the waits whose costs are known, no recursion.
//!
//! Summed over a chain, short- and long-term costs give back the waiting
//! they explain: a wait fully explained (`w_i ≤ D_i + W_i`) hands all of
//! `w_i + c_i` on to delays and earlier waits.
//!
//! # Simplifications
//!
//! Collective wait states are treated pair by pair (the waiting process
//! and the one it waited for), as are messages, where Scalasca compares a
//! collective's root with its whole group. `MPI_Init` and `MPI_Finalize`
//! are no synchronization points here (Scalasca's are, with every
//! process): before the first point of a pair the interval starts at the
//! run's start.

use std::cmp::Ordering;
use std::collections::{BTreeMap, BinaryHeap};
use std::ops::Range;

use crate::model::{CallId, CollectiveKind, DelayCost, Pattern, ProcId, RegionId, Run, WaitState};
use crate::sync::{synchronizes, Handoff, SyncIndex};

/// The delay costs of the wait states `waits` of `run`, per causing
/// process and region (see the module's documentation), in order of
/// process then region; only those with a cost.
pub fn delay_costs(run: &Run, waits: &[WaitState]) -> Vec<DelayCost> {
    let index = SyncIndex::new(run);
    let handoffs: Vec<Option<Handoff>> = waits.iter().map(|w| index.handoff(run, w)).collect();
    let points = Points::new(run, &index, waits, &handoffs);
    // Each wait's delays and propagating waits, one after the other.
    let mut flat = Flat::default();
    let items: Vec<Option<Item>> = waits
        .iter()
        .zip(&handoffs)
        .map(|(w, &h)| analyse(run, &index, &points, waits, w, h, &mut flat))
        .collect();
    let mut pending = vec![0u32; waits.len()];
    for it in items.iter().flatten() {
        for &(j, _) in &flat.propagating[it.propagating.clone()] {
            pending[j] += 1;
        }
    }
    let mut ready: BinaryHeap<Ready> = items
        .iter()
        .enumerate()
        .filter_map(|(i, it)| it.as_ref().map(|x| Ready(x.handoff, i)))
        .filter(|r| pending[r.1] == 0)
        .collect();
    // Every wait by latest hand-off, for those left in a cycle.
    let mut order: Vec<Ready> = ready_order(&items);
    let mut done = vec![false; waits.len()];
    let mut cost = vec![0.0f64; waits.len()];
    let mut out: BTreeMap<(ProcId, RegionId), (f64, f64)> = BTreeMap::new();
    loop {
        let i = match ready.pop() {
            Some(Ready(_, i)) => i,
            // Waits left only in a cycle (hand-offs at one instant): the
            // latest hand-off first.
            None => match order.pop() {
                Some(Ready(_, i)) => i,
                None => break,
            },
        };
        if done[i] {
            continue;
        }
        done[i] = true;
        let Some(it) = &items[i] else { continue };
        let total = it.delay + it.propagation;
        if total <= 0.0 {
            continue;
        }
        let sigma = if it.capped {
            (it.wait / total).min(1.0)
        } else {
            it.wait / total
        };
        let lambda = cost[i] / total;
        for &(r, d) in &flat.delays[it.delays.clone()] {
            let e = out.entry((it.causing, r)).or_default();
            e.0 += sigma * d;
            e.1 += lambda * d;
        }
        for &(j, omega) in &flat.propagating[it.propagating.clone()] {
            cost[j] += (sigma + lambda) * omega;
            pending[j] = pending[j].saturating_sub(1);
            if pending[j] == 0 && !done[j] {
                let h = items[j].as_ref().map_or(0.0, |x| x.handoff);
                ready.push(Ready(h, j));
            }
        }
    }
    out.into_iter()
        .filter(|(_, (s, l))| *s > 0.0 || *l > 0.0)
        .map(|((causing, region), (short_term, long_term))| DelayCost {
            causing,
            region,
            short_term,
            long_term,
        })
        .collect()
}

/// A wait state ready to be taken, by latest hand-off (then lowest
/// index).
#[derive(PartialEq)]
struct Ready(f64, usize);

impl Eq for Ready {}

impl PartialOrd for Ready {
    fn partial_cmp(&self, other: &Ready) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for Ready {
    fn cmp(&self, other: &Ready) -> Ordering {
        self.0.total_cmp(&other.0).then(other.1.cmp(&self.1))
    }
}

/// Every wait state with a hand-off, the latest hand-off last.
fn ready_order(items: &[Option<Item>]) -> Vec<Ready> {
    let mut v: Vec<Ready> = items
        .iter()
        .enumerate()
        .filter_map(|(i, it)| it.as_ref().map(|x| Ready(x.handoff, i)))
        .collect();
    v.sort();
    v
}

/// What one wait state's costs need.
struct Item {
    /// The process waited for.
    causing: ProcId,
    /// Its hand-off time.
    handoff: f64,
    /// A point-to-point wait, whose `σ` is at most 1.
    capped: bool,
    /// Its duration, `w_i`.
    wait: f64,
    /// `d_i(r)` where positive: a range of [`Flat::delays`].
    delays: Range<usize>,
    /// `D_i`.
    delay: f64,
    /// The propagating waits `j` with `ω_j`: a range of
    /// [`Flat::propagating`].
    propagating: Range<usize>,
    /// `W_i`.
    propagation: f64,
}

/// The delays and the propagating waits of every [`Item`], each item's
/// in a range (one allocation for all).
#[derive(Default)]
struct Flat {
    delays: Vec<(RegionId, f64)>,
    propagating: Vec<(usize, f64)>,
}

/// A synchronization point (Scalasca's *synchpoint*): a call of a
/// process at which it synchronized with others (see the module's
/// documentation).
#[derive(Default)]
struct Point {
    /// The call.
    call: CallId,
    /// Its enter.
    enter: f64,
    /// Its region.
    region: RegionId,
    /// The processes it synchronized with, sorted (besides `everyone`'s).
    partners: Vec<ProcId>,
    /// A collective (an index into [`Run::collectives`]) every other
    /// participant of which it synchronized with.
    everyone: Option<u32>,
    /// Its synchronizing wait states (indexes into the waits).
    waits: Vec<usize>,
    /// Their waiting, seconds.
    wait: f64,
    /// `exit − enter` of the call.
    total: f64,
    /// Its completion, seconds (see the module's documentation).
    completion: f64,
    /// The first activity of its process that ends after its enter.
    first_activity: usize,
}

/// The synchronization points of each process, in call order.
struct Points {
    /// Per process, its points.
    per: Vec<Vec<Point>>,
    /// Per call, the position of its point in its process's points
    /// (`u32::MAX`: none).
    at_call: Vec<u32>,
}

impl Points {
    /// The points of `run` with its wait states `waits` and their
    /// hand-offs.
    fn new(
        run: &Run,
        index: &SyncIndex,
        waits: &[WaitState],
        handoffs: &[Option<Handoff>],
    ) -> Points {
        let mut at = Slots {
            of_call: vec![u32::MAX; run.calls.len()],
            points: Vec::new(),
        };
        let earliest_exit = earliest_exits(run, index);
        // The collectives whose every participant synchronizes with every
        // other: barriers, and N-to-N operations whose participants all
        // overlap.
        for (ci, c) in run.collectives.iter().enumerate() {
            let calls = || c.calls.iter().filter_map(|&k| run.calls.get(k as usize));
            let latest = calls().map(|x| x.enter).fold(f64::NEG_INFINITY, f64::max);
            let earliest = calls().map(|x| x.exit).fold(f64::INFINITY, f64::min);
            let all = match c.kind {
                CollectiveKind::Barrier => true,
                CollectiveKind::NxN => earliest > latest,
                _ => false,
            };
            if all {
                for &k in c.calls.iter().filter(|&&k| (k as usize) < run.calls.len()) {
                    let x = &run.calls[k as usize];
                    if calls().any(|y| y.proc != x.proc) {
                        let i = point(&mut at, run, k, (x.exit - earliest).max(0.0));
                        at.points[i].everyone = Some(ci as u32);
                    }
                }
            }
        }
        for (i, w) in waits.iter().enumerate() {
            if !(synchronizes(w.pattern) && w.duration > 0.0) {
                continue;
            }
            let Some(h) = handoffs[i] else {
                continue;
            };
            let x = &run.calls[w.call as usize];
            let other = h.call.map(|c| &run.calls[c as usize]);
            let other_exit = other.map_or(x.exit, |y| y.exit);
            // The waiting call's completion and the other's.
            let (mine, theirs) = match w.pattern {
                Pattern::LateReceiver => {
                    let c = if x.exit > other_exit {
                        0.0
                    } else {
                        x.exit - other_exit
                    };
                    (c, (other_exit - x.exit).max(0.0))
                }
                _ => (
                    (x.exit - other_exit).max(0.0),
                    (other_exit - x.exit).max(0.0),
                ),
            };
            let mine = collective_completion(run, index, &earliest_exit, w.call).unwrap_or(mine);
            add(&mut at, run, w.call, h.proc, mine);
            if let Some(c) = h.call {
                let theirs = collective_completion(run, index, &earliest_exit, c).unwrap_or(theirs);
                add(&mut at, run, c, x.proc, theirs);
            }
            let pt = &mut at.points[at.of_call[w.call as usize] as usize];
            pt.waits.push(i);
            pt.wait += w.duration;
        }
        let mut per: Vec<Vec<Point>> = (0..run.processes.len()).map(|_| Vec::new()).collect();
        for mut pt in at.points {
            pt.partners.sort_unstable();
            pt.partners.dedup();
            if let Some(v) = per.get_mut(run.calls[pt.call as usize].proc as usize) {
                v.push(pt);
            }
        }
        let mut at_call = at.of_call;
        at_call.fill(u32::MAX);
        for (p, v) in per.iter_mut().enumerate() {
            v.sort_by_key(|pt| pt.call);
            // The points in order of enter, the activities in order of
            // start and end: one walk over both.
            let acts = run.activities.get(p).map_or(&[][..], Vec::as_slice);
            let mut k = 0;
            for (i, pt) in v.iter_mut().enumerate() {
                while k < acts.len() && acts[k].end <= pt.enter {
                    k += 1;
                }
                pt.first_activity = k;
                at_call[pt.call as usize] = i as u32;
            }
        }
        Points { per, at_call }
    }
}

/// The synchronization points being made: by call, the index of its
/// point in `points` (`u32::MAX`: none yet).
struct Slots {
    of_call: Vec<u32>,
    points: Vec<Point>,
}

/// The synchronization point of call `c` (made with `completion` when
/// new): its index in `at.points`.
fn point(at: &mut Slots, run: &Run, c: CallId, completion: f64) -> usize {
    let slot = &mut at.of_call[c as usize];
    if *slot == u32::MAX {
        let call = &run.calls[c as usize];
        *slot = at.points.len() as u32;
        at.points.push(Point {
            call: c,
            enter: call.enter,
            region: call.region,
            total: call.exit - call.enter,
            completion,
            ..Point::default()
        });
    }
    *slot as usize
}

/// Adds `partner` to the synchronization point of call `c` (made with
/// `completion` when new).
fn add(at: &mut Slots, run: &Run, c: CallId, partner: ProcId, completion: f64) {
    let i = point(at, run, c, completion);
    // Made unique once all are added.
    at.points[i].partners.push(partner);
}

/// Did the point `pt` of process `p` synchronize with `other` (another
/// process)?
fn joins(index: &SyncIndex, pt: &Point, p: ProcId, other: ProcId) -> bool {
    pt.partners.binary_search(&other).is_ok()
        || (other != p
            && pt.everyone.is_some_and(|k| {
                index
                    .members_of(k as usize)
                    .binary_search_by_key(&other, |m| m.0)
                    .is_ok()
            }))
}

/// The earliest exit of each collective's synchronizing participants
/// (those who waited, for a one-to-N operation: all but the root; all for
/// the others), by [`crate::model::CollectiveId`]; infinite when none.
fn earliest_exits(run: &Run, index: &SyncIndex) -> Vec<f64> {
    run.collectives
        .iter()
        .enumerate()
        .map(|(k, col)| {
            index
                .members_of(k)
                .iter()
                .map(|&(_, c)| &run.calls[c as usize])
                .filter(|y| match col.kind {
                    CollectiveKind::OneToN => col.root.is_some_and(|r| y.proc != r),
                    _ => true,
                })
                .map(|y| y.exit)
                .fold(f64::INFINITY, f64::min)
        })
        .collect()
}

/// The completion of a collective's call `c`: its time after the
/// earliest exit of the synchronizing participants ([`earliest_exits`]);
/// `None` outside a collective.
fn collective_completion(run: &Run, index: &SyncIndex, earliest: &[f64], c: CallId) -> Option<f64> {
    let k = index.collective_of(c)?;
    let x = &run.calls[c as usize];
    Some((x.exit - earliest[k].min(x.exit)).max(0.0))
}

/// Seconds per region, sorted by region (an interval holds few regions:
/// a sorted vector is cheaper to make than a hash map).
type Times = Vec<(RegionId, f64)>;

/// The seconds of region `r` in `m`, if any.
fn get(m: &Times, r: RegionId) -> Option<f64> {
    m.binary_search_by_key(&r, |x| x.0).ok().map(|i| m[i].1)
}

/// The seconds of region `r` in `m`, added as 0 when missing.
fn entry(m: &mut Times, r: RegionId) -> &mut f64 {
    let i = m.binary_search_by_key(&r, |x| x.0).unwrap_or_else(|i| {
        m.insert(i, (r, 0.0));
        i
    });
    &mut m[i].1
}

/// The time of `p` per region (its innermost activity) within `[a, b]`,
/// `first` the first activity that ends after `a` when known.
fn region_times(run: &Run, p: ProcId, a: f64, b: f64, first: Option<usize>) -> Times {
    let mut m = Times::new();
    let acts = run
        .activities
        .get(p as usize)
        .map_or(&[][..], Vec::as_slice);
    let first = first.unwrap_or_else(|| acts.partition_point(|x| x.end <= a));
    for x in acts[first..].iter().take_while(|x| x.start < b) {
        let d = x.end.min(b) - x.start.max(a);
        if d > 0.0 {
            *entry(&mut m, x.region) += d;
        }
    }
    m
}

/// One side of a synchronization interval: process `p` up to the enter
/// of its call `until` (at `end`), since its previous synchronization
/// point with `other`. Returns its net time per region and its points
/// strictly inside the interval.
fn side<'a>(
    run: &Run,
    index: &SyncIndex,
    points: &'a Points,
    p: ProcId,
    until: Option<CallId>,
    end: f64,
    other: ProcId,
) -> (Times, &'a [Point]) {
    let pts = points.per.get(p as usize).map_or(&[][..], Vec::as_slice);
    let upto = match until {
        // A call of `p` with a point: that point's position.
        Some(c) => match points.at_call.get(c as usize) {
            Some(&i) if i != u32::MAX && pts.get(i as usize).is_some_and(|pt| pt.call == c) => {
                i as usize
            }
            _ => pts.partition_point(|pt| pt.call < c),
        },
        None => pts.partition_point(|pt| pt.enter < end),
    };
    let prev = pts[..upto]
        .iter()
        .rposition(|pt| joins(index, pt, p, other));
    let start = prev.map_or(run.start, |k| pts[k].enter);
    let between = &pts[prev.map_or(0, |k| k + 1)..upto];
    let first = prev.map(|k| pts[k].first_activity);
    let mut m = region_times(run, p, start, end, first);
    for pt in between.iter().filter(|pt| pt.wait > 0.0) {
        *entry(&mut m, pt.region) -= pt.wait;
    }
    m.retain(|x| x.1 > 0.0);
    if let Some(k) = prev {
        let pt = &pts[k];
        if let Ok(i) = m.binary_search_by_key(&pt.region, |x| x.0) {
            m[i].1 = (m[i].1 - pt.total + pt.completion).max(0.0);
        }
    }
    (m, between)
}

/// The delays and propagating waits of the wait state `w` (its hand-off
/// `h`), or `None` when it is no synchronization point.
fn analyse(
    run: &Run,
    index: &SyncIndex,
    points: &Points,
    waits: &[WaitState],
    w: &WaitState,
    h: Option<Handoff>,
    flat: &mut Flat,
) -> Option<Item> {
    if w.duration <= 0.0 {
        return None;
    }
    let h = h?;
    let call = &run.calls[w.call as usize];
    let (p, q) = (call.proc, h.proc);
    if q as usize >= run.processes.len() {
        return None;
    }
    let end_q = h.call.map_or(h.time, |c| run.calls[c as usize].enter);
    let (tq, between) = side(run, index, points, q, h.call, end_q, p);
    let (tp, _) = side(run, index, points, p, Some(w.call), call.enter, q);
    // `tq` is sorted by region: so are the delays.
    let d0 = flat.delays.len();
    flat.delays.extend(
        tq.into_iter()
            .map(|(r, t)| (r, t - get(&tp, r).unwrap_or(0.0)))
            .filter(|&(_, d)| d > 0.0),
    );
    let p0 = flat.propagating.len();
    flat.propagating.extend(
        between
            .iter()
            .flat_map(|pt| pt.waits.iter())
            .map(|&j| (j, waits[j].duration)),
    );
    let (delays, propagating) = (d0..flat.delays.len(), p0..flat.propagating.len());
    Some(Item {
        causing: q,
        handoff: h.time,
        capped: matches!(
            w.pattern,
            Pattern::LateSender | Pattern::LateSenderWrongOrder | Pattern::LateReceiver
        ),
        wait: w.duration,
        delay: flat.delays[delays.clone()].iter().fold(0.0, |s, d| s + d.1),
        propagation: flat.propagating[propagating.clone()]
            .iter()
            .fold(0.0, |s, x| s + x.1),
        delays,
        propagating,
    })
}

#[cfg(test)]
#[path = "delays_tests.rs"]
mod tests;
