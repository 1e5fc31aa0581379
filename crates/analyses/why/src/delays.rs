//! The delay costs: which computation on which process caused the waiting.
//!
//! The definitions are those of Scalasca's root-cause analysis (Böhme,
//! Geimer, Wolf, Arnold: "Identifying the root causes of wait states in
//! large-scale parallel applications", ICPP 2010; Scalasca's
//! `DELAY_*` and `DELAY_*_LONGTERM` metrics), written again here.
//!
//! # One wait state
//!
//! Take a wait state `i` of process `p` (any pattern but the completion
//! ones, with a duration `w_i > 0`), waiting for process `q`, and its
//! *hand-off* `h_i`: the moment `q` entered its side of the
//! synchronization (the enter of its call joined to the waiting call by a
//! message or a collective, else the end of the waiting). `s_i` is the
//! wait's start.
//!
//! - **Synchronization interval.** The previous synchronization point of
//!   `q` and `p` is the last call of `q` ending at or before `h_i` that is
//!   joined (by a message in either direction, or a collective both take
//!   part in) to a call of `p` ending at or before `s_i`. With `e_q` and
//!   `e_p` the exits of these two calls (both `run.start` when there is
//!   none), the interval is `I_q = [e_q, h_i]` on `q` and `I_p = [e_p,
//!   s_i]` on `p`.
//! - **Time and waiting per region.** `T_x(r)`: the time process `x`
//!   spent in region `r` (its innermost activity) within `I_x`;
//!   `W_x(r)`: the waiting of `x`'s own wait states (completion patterns
//!   excepted) within `I_x`, credited to the region of their call. Time
//!   outside any activity belongs to no region and is not compared.
//! - **Delay.** `d_i(r) = max(0, (T_q(r) − W_q(r)) − (T_p(r) −
//!   W_p(r)))`, the excess time of `q` in `r` over `p`'s in the interval,
//!   waiting excluded; `D_i = Σ_r d_i(r)`.
//! - **Propagating waiting.** The wait states `j` of `q` that overlap
//!   `I_q`, each with `ω_j` the length of its waiting within `I_q`:
//!   waiting that made `q` late too. `W_i = Σ_j ω_j`.
//!
//! # Short-term costs
//!
//! The wait is shared among the delays and the propagating waiting in
//! proportion, at most all of it: with `σ_i = min(1, w_i / (D_i + W_i))`,
//! region `r` of `q` gets the short-term cost `σ_i · d_i(r)`. (`D_i + W_i
//! = 0`: the wait is not explained and costs nothing.)
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
//! and the one it waited for), as are messages; Scalasca's pruning of the
//! previous synchronization point's own call is replaced by starting the
//! interval at the exit of that call.

use std::cmp::Ordering;
use std::collections::{BTreeMap, BinaryHeap, HashMap};

use crate::model::{DelayCost, ProcId, RegionId, Run, WaitState};
use crate::sync::{waits_for_entry, SyncIndex};

/// The delay costs of the wait states `waits` of `run`, per causing
/// process and region (see the module's documentation), in order of
/// process then region; only those with a cost.
pub fn delay_costs(run: &Run, waits: &[WaitState]) -> Vec<DelayCost> {
    let index = SyncIndex::new(run);
    let own = OwnWaits::new(run, waits);
    let items: Vec<Option<Item>> = waits
        .iter()
        .map(|w| analyse(run, &index, &own, waits, w))
        .collect();
    let mut pending = vec![0u32; waits.len()];
    for it in items.iter().flatten() {
        for &(j, _) in &it.propagating {
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
        let sigma = (it.wait / total).min(1.0);
        let lambda = cost[i] / total;
        for &(r, d) in &it.delays {
            let e = out.entry((it.causing, r)).or_default();
            e.0 += sigma * d;
            e.1 += lambda * d;
        }
        for &(j, omega) in &it.propagating {
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
    /// Its duration, `w_i`.
    wait: f64,
    /// `d_i(r)` where positive.
    delays: Vec<(RegionId, f64)>,
    /// `D_i`.
    delay: f64,
    /// The propagating waits `j` with `ω_j`.
    propagating: Vec<(usize, f64)>,
    /// `W_i`.
    propagation: f64,
}

/// Each process's waiting wait states (completion patterns excepted, of a
/// positive duration), by start.
struct OwnWaits(Vec<Vec<usize>>);

impl OwnWaits {
    fn new(run: &Run, waits: &[WaitState]) -> OwnWaits {
        let mut v = vec![Vec::new(); run.processes.len()];
        for (i, w) in waits.iter().enumerate() {
            let Some(c) = run.calls.get(w.call as usize) else {
                continue;
            };
            if waits_for_entry(w.pattern) && w.duration > 0.0 {
                if let Some(l) = v.get_mut(c.proc as usize) {
                    l.push(i);
                }
            }
        }
        for l in &mut v {
            l.sort_by(|&a, &b| waits[a].start.total_cmp(&waits[b].start));
        }
        OwnWaits(v)
    }

    /// The wait states of `p` overlapping `[a, b]`, with the length of
    /// the overlap.
    fn within<'a>(
        &'a self,
        waits: &'a [WaitState],
        p: ProcId,
        a: f64,
        b: f64,
    ) -> impl Iterator<Item = (usize, f64)> + 'a {
        let l = self.0.get(p as usize).map_or(&[][..], Vec::as_slice);
        // The one before the first starting at `a` may still run into it.
        let first = l.partition_point(|&j| waits[j].start < a).saturating_sub(1);
        l[first..]
            .iter()
            .take_while(move |&&j| waits[j].start < b)
            .filter_map(move |&j| {
                let w = &waits[j];
                let o = (w.start + w.duration).min(b) - w.start.max(a);
                (o > 0.0).then_some((j, o))
            })
    }
}

/// The time of `p` per region within `[a, b]`, less its waiting there.
fn net_times(
    run: &Run,
    own: &OwnWaits,
    waits: &[WaitState],
    p: ProcId,
    a: f64,
    b: f64,
) -> HashMap<RegionId, f64> {
    let mut m: HashMap<RegionId, f64> = HashMap::new();
    let acts = run
        .activities
        .get(p as usize)
        .map_or(&[][..], Vec::as_slice);
    let first = acts.partition_point(|x| x.end <= a);
    for x in acts[first..].iter().take_while(|x| x.start < b) {
        let d = x.end.min(b) - x.start.max(a);
        if d > 0.0 {
            *m.entry(x.region).or_default() += d;
        }
    }
    for (j, o) in own.within(waits, p, a, b) {
        let r = run.calls[waits[j].call as usize].region;
        let e = m.entry(r).or_default();
        *e = (*e - o).max(0.0);
    }
    m
}

/// The delays and propagating waits of the wait state `w`, or `None` when
/// it has no hand-off.
fn analyse(
    run: &Run,
    index: &SyncIndex,
    own: &OwnWaits,
    waits: &[WaitState],
    w: &WaitState,
) -> Option<Item> {
    let h = index.handoff(run, w)?;
    let p = run.calls[w.call as usize].proc;
    let q = h.proc;
    if q as usize >= run.processes.len() {
        return None;
    }
    let (e_q, e_p) = index
        .previous_point(run, q, h.time, p, w.start)
        .unwrap_or((run.start, run.start));
    let tq = net_times(run, own, waits, q, e_q, h.time);
    let tp = net_times(run, own, waits, p, e_p, w.start);
    let mut delays: Vec<(RegionId, f64)> = tq
        .into_iter()
        .map(|(r, t)| (r, t - tp.get(&r).copied().unwrap_or(0.0)))
        .filter(|&(_, d)| d > 0.0)
        .collect();
    delays.sort_by_key(|&(r, _)| r);
    let propagating: Vec<(usize, f64)> = own.within(waits, q, e_q, h.time).collect();
    Some(Item {
        causing: q,
        handoff: h.time,
        wait: w.duration,
        delay: delays.iter().fold(0.0, |s, d| s + d.1),
        propagation: propagating.iter().fold(0.0, |s, x| s + x.1),
        delays,
        propagating,
    })
}

#[cfg(test)]
#[path = "delays_tests.rs"]
mod tests;
