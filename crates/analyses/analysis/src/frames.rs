//! Frames of the animated views: what a run shows at an instant or over a
//! short interval, for the player of `trama view` and the recordings of
//! `trama render`, which draw the same [`Frame`]s.
//!
//! A [`Stage`] fixes what every frame of a run is drawn on: the processes
//! (one square each, one row and one column of the traffic matrix) grouped
//! by host in the seed's order ([`order`](crate::order)), and the field of
//! the links that holds a message's size. A [`Frame`] is what the instant
//! `t` (Δ = 0) or the interval `[t, t + Δ]` shows:
//!
//! - per process, its state: at an instant, the one on top of its stack
//!   (the deepest state containing `t`, as [`states_at`](crate::states_at));
//!   over an interval, the one with the most exclusive time in it, and
//!   beside it each value's share of the interval, so that a state that
//!   starts and ends inside one frame still shows;
//! - per (sender, receiver), the messages in flight during the frame
//!   (start ≤ t + Δ and end ≥ t): how many, and their mean effective rate
//!   8 × bytes / (end − start) in bits per second when they have a size;
//! - per host, its share of the off-host messages started since the run's
//!   start up to t + Δ: the radii of the growing Kiviat diagram (equal to
//!   [`kiviat`](crate::kiviat) over the run at that instant).
//!
//! [`Flights`] indexes the messages of a trace by time once, so that a
//! frame reads only those near it.

use std::collections::HashMap;

use serde::Serialize;
use trama_sim::{ContainerId, Trace, TypeKind, ValueId};

use crate::comm::Ordering;
use crate::read::{ancestor, container_name, container_type, links};
use crate::Messages;

/// A host of a [`Stage`].
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct StageHost {
    /// Its name.
    pub name: String,
    /// Its container's id.
    pub id: u32,
    /// Its processes (indices into [`Stage::processes`]), in order.
    pub processes: Vec<u32>,
}

/// A process of a [`Stage`].
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct StageProcess {
    /// Its name.
    pub name: String,
    /// Its container's id.
    pub id: u32,
    /// Its host (index into [`Stage::hosts`]), if any.
    pub host: Option<u32>,
}

/// What every frame of a run is drawn on (see the module documentation).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Stage {
    /// The container type of the hosts, if any.
    pub level: Option<String>,
    /// Hosts in the seed's order.
    pub hosts: Vec<StageHost>,
    /// Processes, host after host (those without a host last).
    pub processes: Vec<StageProcess>,
    /// The user-defined field of the links read as a size in bytes.
    pub size_field: Option<String>,
    #[serde(skip)]
    index: HashMap<ContainerId, u32>,
}

impl Stage {
    /// The stage of `trace` (only its model is read): with an ordering,
    /// its hosts and processes in its order, then any other container that
    /// holds states; without one, the containers that hold states, depth
    /// first.
    pub fn new(trace: &Trace, ordering: Option<&Ordering>, size_field: Option<&str>) -> Stage {
        let m = &trace.model;
        let mut stage = Stage {
            level: ordering.map(|o| o.level.clone()),
            hosts: Vec::new(),
            processes: Vec::new(),
            size_field: size_field.map(String::from),
            index: HashMap::new(),
        };
        let add = |stage: &mut Stage, c: ContainerId, host: Option<u32>| {
            if stage.index.contains_key(&c) {
                return;
            }
            let i = stage.processes.len() as u32;
            stage.index.insert(c, i);
            stage.processes.push(StageProcess {
                name: container_name(trace, c),
                id: c.0,
                host,
            });
            if let Some(h) = host {
                stage.hosts[h as usize].processes.push(i);
            }
        };
        if let Some(o) = ordering {
            for h in &o.hosts {
                let hi = stage.hosts.len() as u32;
                stage.hosts.push(StageHost {
                    name: h.host.clone(),
                    id: h.id.0,
                    processes: Vec::new(),
                });
                for p in &h.process_ids {
                    add(&mut stage, *p, Some(hi));
                }
            }
        }
        // Containers holding states that the ordering left out.
        let host_ty = ordering.and_then(|o| container_type(trace, &o.level));
        let host_index: HashMap<u32, u32> = stage
            .hosts
            .iter()
            .enumerate()
            .map(|(i, h)| (h.id, i as u32))
            .collect();
        // Read once: which containers hold states.
        let holders: std::collections::HashSet<ContainerId> = m
            .lists
            .iter()
            .filter(|l| l.kind == TypeKind::State)
            .map(|l| l.container)
            .collect();
        for c in m.containers_depth_first() {
            if holders.contains(&c) && !stage.index.contains_key(&c) {
                let host = host_ty
                    .and_then(|t| m.container(c).parent.and_then(|p| ancestor(trace, p, t)))
                    .and_then(|h| host_index.get(&h.0).copied());
                add(&mut stage, c, host);
            }
        }
        stage
    }

    /// Puts the processes whose containers are in `first` (ids, in order)
    /// first, in that order, the others after them in their order: the
    /// indices of a stage that grows (a stream's) stay those its frames
    /// used.
    pub fn keep_order(&mut self, first: &[u32]) {
        let pos: HashMap<u32, usize> = first.iter().enumerate().map(|(i, c)| (*c, i)).collect();
        let mut order: Vec<usize> = (0..self.processes.len()).collect();
        order.sort_by_key(|i| pos.get(&self.processes[*i].id).map_or((1, *i), |p| (0, *p)));
        let old = std::mem::take(&mut self.processes);
        let mut new_index = vec![0u32; old.len()];
        for (new, i) in order.iter().enumerate() {
            new_index[*i] = new as u32;
        }
        self.processes = order.iter().map(|i| old[*i].clone()).collect();
        for h in &mut self.hosts {
            for p in &mut h.processes {
                *p = new_index[*p as usize];
            }
            h.processes.sort_unstable();
        }
        self.index = self
            .processes
            .iter()
            .enumerate()
            .map(|(i, p)| (ContainerId(p.id), i as u32))
            .collect();
    }

    /// The index of container `c` among the processes.
    pub fn process_of(&self, c: ContainerId) -> Option<u32> {
        self.index.get(&c).copied()
    }
}

/// The field of the links that most likely holds a message's size: among
/// the user-defined fields of the first links with a number for value,
/// the one named like a size (`size`, `bytes`, `length`, any case) when
/// there is exactly one such name.
pub fn guess_size_field(trace: &Trace) -> Option<String> {
    let m = &trace.model;
    let mut names: Vec<String> = Vec::new();
    let mut seen = 0;
    for (l, info) in m.lists.iter().enumerate() {
        if info.kind != TypeKind::Link {
            continue;
        }
        let cols = &trace.lists[l];
        for i in 0..cols.len().min(64) {
            let e = trace.entity(trama_sim::ListId(l as u32), i);
            for p in e.extras.chunks_exact(2) {
                let name = m.label(p[0]);
                let lower = name.to_lowercase();
                let sized = ["size", "bytes", "length"]
                    .iter()
                    .any(|w| lower.contains(w));
                let number = std::str::from_utf8(m.str(p[1]))
                    .ok()
                    .and_then(|v| v.trim().trim_matches('"').parse::<f64>().ok())
                    .is_some();
                if sized && number && !names.contains(&name) {
                    names.push(name);
                }
            }
        }
        seen += 1;
        if seen > 256 {
            break;
        }
    }
    (names.len() == 1).then(|| names.remove(0))
}

/// The size in bytes a message's user-defined field `field` gives
/// (`extras` as in [`trama_sim::Entity::extras`]), when it is a number.
pub fn size_of(model: &trama_sim::Model, extras: &[trama_sim::StrId], field: &str) -> Option<f64> {
    extras
        .chunks_exact(2)
        .find(|p| model.names(p[0], field))
        .and_then(|p| std::str::from_utf8(model.str(p[1])).ok())
        .and_then(|v| v.trim().trim_matches('"').parse::<f64>().ok())
}

/// One message of [`Flights`].
#[derive(Clone, Copy, Debug)]
struct Flight {
    start: f64,
    end: f64,
    from: u32,
    to: u32,
    /// Bits per second, when it has a size and lasts some time.
    rate: Option<f64>,
    /// The sender's host when it is not the receiver's (an off-host
    /// message, counted in the Kiviat radii).
    off_host: Option<u32>,
}

/// The messages of a trace between processes of a [`Stage`], by start time.
#[derive(Clone, Debug, Default)]
pub struct Flights {
    flights: Vec<Flight>,
    /// `latest[i]`: the latest end among `flights[..=i]`.
    latest: Vec<f64>,
    /// Per list of the trace, whether its entities are in start order (a
    /// frame then reads only the states near it); read once here rather
    /// than at every frame.
    in_order: Vec<bool>,
    /// Messages with an end that is not a process of the stage.
    pub unplaced: u64,
}

impl Flights {
    /// The messages of `trace` (the link types `msgs` counts).
    pub fn new(trace: &Trace, stage: &Stage, msgs: &Messages) -> Flights {
        let m = &trace.model;
        let size_field = stage.size_field.as_deref();
        let messages = links(trace, msgs).map(|(e, from, to)| {
            let size = size_field.and_then(|f| size_of(m, e.extras, f));
            (from, to, e.start, e.end, size)
        });
        Flights::of(trace, stage, messages)
    }

    /// The messages given one by one: sender, receiver, start, end and
    /// size in bytes (only `trace`'s model is read).
    pub fn of(
        trace: &Trace,
        stage: &Stage,
        messages: impl Iterator<Item = (ContainerId, ContainerId, f64, f64, Option<f64>)>,
    ) -> Flights {
        let host_ty = stage
            .level
            .as_deref()
            .and_then(|l| container_type(trace, l));
        let host_index: HashMap<u32, u32> = stage
            .hosts
            .iter()
            .enumerate()
            .map(|(i, h)| (h.id, i as u32))
            .collect();
        let host = |c: ContainerId| {
            host_ty
                .and_then(|t| ancestor(trace, c, t))
                .and_then(|h| host_index.get(&h.0).copied())
        };
        let mut out = Flights {
            in_order: trace.lists.iter().map(|c| c.start.is_sorted()).collect(),
            ..Flights::default()
        };
        for (from, to, start, end, size) in messages {
            let (Some(a), Some(b)) = (stage.process_of(from), stage.process_of(to)) else {
                out.unplaced += 1;
                continue;
            };
            let rate = size
                .filter(|_| end > start)
                .map(|b| 8.0 * b / (end - start));
            let (ha, hb) = (host(from), host(to));
            out.flights.push(Flight {
                start,
                // A link that never ended is in flight to the end.
                end: if end < start { f64::INFINITY } else { end },
                from: a,
                to: b,
                rate,
                off_host: if ha.is_some() && hb.is_some() && ha != hb {
                    ha
                } else {
                    None
                },
            });
        }
        out.flights.sort_by(|x, y| x.start.total_cmp(&y.start));
        let mut latest = f64::NEG_INFINITY;
        out.latest = out
            .flights
            .iter()
            .map(|f| {
                latest = latest.max(f.end);
                latest
            })
            .collect();
        out
    }

    /// How many messages.
    pub fn len(&self) -> usize {
        self.flights.len()
    }

    /// True when there is no message.
    pub fn is_empty(&self) -> bool {
        self.flights.is_empty()
    }

    /// The messages in flight during `[t0, t1]`, by (sender, receiver):
    /// how many and their mean effective rate.
    pub fn cells(&self, t0: f64, t1: f64) -> Vec<FrameCell> {
        frame_cells(self, t0, t1)
    }

    /// The lowest and highest effective rate of one message, when some
    /// have one: the default range of a traffic animation's gradient,
    /// which holds every frame's means and the run's.
    pub fn rate_range(&self) -> Option<(f64, f64)> {
        let mut r: Option<(f64, f64)> = None;
        for x in self
            .flights
            .iter()
            .filter_map(|f| f.rate)
            .filter(|x| *x > 0.0)
        {
            r = Some(r.map_or((x, x), |(a, b)| (a.min(x), b.max(x))));
        }
        r
    }

    /// A fixed scale for the Kiviat radii of a run on `hosts` hosts: the
    /// largest share a host reaches once a twentieth of the off-host
    /// messages (at least 20) have started, rounded up to a twentieth (the
    /// first messages give one host everything). At most 1.
    pub fn kiviat_scale(&self, hosts: usize) -> f64 {
        let total = self.flights.iter().filter(|f| f.off_host.is_some()).count();
        let settle = (total / 20).max(20);
        let mut counts = vec![0u64; hosts];
        let (mut seen, mut most) = (0u64, 0.0f64);
        for f in &self.flights {
            let Some(h) = f.off_host else { continue };
            counts[h as usize] += 1;
            seen += 1;
            if seen as usize >= settle.min(total) {
                most = most.max(counts[h as usize] as f64 / seen as f64);
            }
        }
        if most <= 0.0 {
            return 1.0;
        }
        ((most * 20.0).ceil() / 20.0).min(1.0)
    }

    /// Per pair of processes that exchange messages (either way, the
    /// smaller index first), when their first message starts: the edges
    /// of a process graph that grows as the run plays.
    pub fn first_contacts(&self) -> Vec<(u32, u32, f64)> {
        let mut first: HashMap<(u32, u32), f64> = HashMap::new();
        for f in &self.flights {
            if f.from == f.to {
                continue;
            }
            let key = (f.from.min(f.to), f.from.max(f.to));
            first.entry(key).or_insert(f.start);
        }
        let mut out: Vec<(u32, u32, f64)> =
            first.into_iter().map(|((a, b), t)| (a, b, t)).collect();
        out.sort_by(|x, y| x.2.total_cmp(&y.2).then((x.0, x.1).cmp(&(y.0, y.1))));
        out
    }

    /// Messages started in each of `n` equal columns of `[t0, t1]`.
    pub fn overview(&self, t0: f64, t1: f64, n: usize) -> Vec<u32> {
        let mut out = vec![0u32; n];
        let len = t1 - t0;
        if n == 0 || len <= 0.0 {
            return out;
        }
        for f in &self.flights {
            if f.start >= t0 && f.start <= t1 {
                let k = (((f.start - t0) / len) * n as f64) as usize;
                out[k.min(n - 1)] += 1;
            }
        }
        out
    }
}

/// One lit cell of a frame's traffic matrix.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct FrameCell {
    /// Sender (index into [`Stage::processes`]).
    pub from: u32,
    /// Receiver.
    pub to: u32,
    /// Messages in flight during the frame.
    pub count: u32,
    /// Their mean effective rate in bits per second, over those with a size
    /// and a positive duration.
    pub rate: Option<f64>,
}

/// One process's state in a frame.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct FrameState {
    /// The value shown (its id in the trace's model), if any.
    pub value: Option<u32>,
    /// Over an interval: each value present and its share of the interval
    /// (exclusive time), largest first; empty at an instant.
    pub shares: Vec<(u32, f64)>,
}

/// What one instant or interval of a run shows (see the module
/// documentation).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Frame {
    /// The frame's start.
    pub t: f64,
    /// Its length (0: an instant).
    pub dt: f64,
    /// Per process of the stage, in its order.
    pub states: Vec<FrameState>,
    /// The messages in flight, by (sender, receiver), in the stage's order.
    pub cells: Vec<FrameCell>,
    /// Per host of the stage: its share of the off-host messages started
    /// since the run's start up to `t + dt` (all 0 before the first one);
    /// empty when the frame was computed without the run's messages.
    pub kiviat: Vec<f64>,
    /// Off-host messages started up to `t + dt`.
    pub sent: u64,
}

/// The frame `[t, t + dt]` of `trace`, which holds at least the entities
/// overlapping it. `flights`: the messages of `trace`; `run_start`: the
/// run's start, for the Kiviat radii, which count from there (pass
/// `None` when `flights` does not hold every message since the run's start:
/// the radii are then left empty).
pub fn frame(
    trace: &Trace,
    stage: &Stage,
    flights: &Flights,
    t: f64,
    dt: f64,
    run_start: Option<f64>,
) -> Frame {
    let dt = dt.max(0.0);
    let t1 = t + dt;
    let (kiviat, sent) = match run_start {
        Some(s) => kiviat_at(stage, flights, s, t1),
        None => (Vec::new(), 0),
    };
    Frame {
        t,
        dt,
        states: frame_states(trace, stage, &flights.in_order, t, t1),
        cells: flights.cells(t, t1),
        kiviat,
        sent,
    }
}

/// Per host, its share of the off-host messages started in `[start, t]`,
/// and their number.
fn kiviat_at(stage: &Stage, flights: &Flights, start: f64, t: f64) -> (Vec<f64>, u64) {
    let mut counts = vec![0u64; stage.hosts.len()];
    let end = flights.flights.partition_point(|f| f.start <= t);
    for f in &flights.flights[..end] {
        if let (Some(h), true) = (f.off_host, f.start >= start) {
            counts[h as usize] += 1;
        }
    }
    let total: u64 = counts.iter().sum();
    let shares = counts
        .iter()
        .map(|c| {
            if total > 0 {
                *c as f64 / total as f64
            } else {
                0.0
            }
        })
        .collect();
    (shares, total)
}

/// The messages in flight during `[t0, t1]`, by cell.
fn frame_cells(flights: &Flights, t0: f64, t1: f64) -> Vec<FrameCell> {
    let f = &flights.flights;
    let hi = f.partition_point(|x| x.start <= t1);
    let lo = flights.latest[..hi].partition_point(|l| *l < t0);
    // (count, rate sum, rated) per cell.
    let mut cells: HashMap<(u32, u32), (u32, f64, u32)> = HashMap::new();
    for x in &f[lo..hi] {
        if x.end < t0 {
            continue;
        }
        let c = cells.entry((x.from, x.to)).or_default();
        c.0 += 1;
        if let Some(r) = x.rate {
            c.1 += r;
            c.2 += 1;
        }
    }
    let mut out: Vec<FrameCell> = cells
        .into_iter()
        .map(|((from, to), (count, sum, rated))| FrameCell {
            from,
            to,
            count,
            rate: (rated > 0).then(|| sum / rated as f64),
        })
        .collect();
    out.sort_by_key(|c| (c.from, c.to));
    out
}

/// Per process, its state at `t0` (when `t1 == t0`) or over `[t0, t1]`.
pub(crate) fn frame_states(
    trace: &Trace,
    stage: &Stage,
    in_order: &[bool],
    t0: f64,
    t1: f64,
) -> Vec<FrameState> {
    let m = &trace.model;
    let instant = t1 <= t0;
    // Per process: at an instant the deepest state (level, value); over an
    // interval the exclusive time per value.
    let mut top: Vec<Option<(u32, ValueId)>> = vec![None; stage.processes.len()];
    let mut time: Vec<HashMap<ValueId, f64>> = vec![HashMap::new(); stage.processes.len()];
    for (l, info) in m.lists.iter().enumerate() {
        if info.kind != TypeKind::State {
            continue;
        }
        let Some(p) = stage.process_of(info.container) else {
            continue;
        };
        let cols = &trace.lists[l];
        let range = match in_order.get(l) {
            Some(true) => overlapping(cols, t0, t1),
            _ => 0..cols.len(),
        };
        // The values open at each level, for the parents' exclusive time.
        let mut open: Vec<ValueId> = Vec::new();
        let mut best: Option<(u32, ValueId)> = None;
        for i in range {
            let (a, b) = (cols.start[i], cols.end[i]);
            let b = if b < a { f64::INFINITY } else { b };
            let level = cols.level[i] as usize;
            if instant {
                if a <= t0 && t0 < b && best.is_none_or(|(lv, _)| cols.level[i] >= lv) {
                    best = Some((cols.level[i], cols.value[i]));
                }
                continue;
            }
            let overlap = b.min(t1) - a.max(t0);
            if overlap <= 0.0 && !(a >= t0 && a <= t1) {
                open.truncate(level);
                open.push(cols.value[i]);
                continue;
            }
            let overlap = overlap.max(0.0);
            let times = &mut time[p as usize];
            *times.entry(cols.value[i]).or_default() += overlap;
            open.truncate(level);
            if level > 0 {
                if let Some(parent) = open.get(level - 1) {
                    *times.entry(*parent).or_default() -= overlap;
                }
            }
            open.push(cols.value[i]);
        }
        // With several state types, the last list counts (as `states_at`).
        if best.is_some() {
            top[p as usize] = best;
        }
    }
    (0..stage.processes.len())
        .map(|p| {
            if instant {
                return FrameState {
                    value: top[p].map(|(_, v)| v.0),
                    shares: Vec::new(),
                };
            }
            let mut shares: Vec<(u32, f64)> = time[p]
                .iter()
                .filter(|(_, s)| **s > 1e-15 * (t1 - t0))
                .map(|(v, s)| (v.0, s / (t1 - t0)))
                .collect();
            shares.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
            // A state of zero length inside the frame still shows.
            if shares.is_empty() {
                if let Some((v, _)) = time[p].iter().next() {
                    shares.push((v.0, 0.0));
                }
            }
            FrameState {
                value: shares.first().map(|s| s.0),
                shares,
            }
        })
        .collect()
}

/// The indices of the states of a list that may overlap `[t0, t1]`: those
/// starting up to `t1`, back to the last top-level state that ended before
/// `t0` (every state before it ended before it started). The list's
/// states are in start order.
fn overlapping(cols: &trama_sim::Columns, t0: f64, t1: f64) -> std::ops::Range<usize> {
    let hi = cols.start.partition_point(|s| *s <= t1);
    let mut lo = hi;
    while lo > 0 {
        let i = lo - 1;
        if cols.level[i] == 0 && cols.end[i] >= cols.start[i] && cols.end[i] < t0 {
            break;
        }
        lo -= 1;
    }
    lo..hi
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn overlapping_stops_at_a_closed_top_level_state() {
        let cols = trama_sim::Columns {
            start: vec![0.0, 1.0, 2.0, 5.0, 6.0],
            end: vec![1.0, 4.0, 3.0, 9.0, 7.0],
            level: vec![0, 0, 1, 0, 1],
            ..Default::default()
        };
        // [6.5, 8]: from the state closing at 4 on.
        assert_eq!(overlapping(&cols, 6.5, 8.0), 2..5);
        // [2.5, 2.5]: the state at 1 (open) and its child.
        assert_eq!(overlapping(&cols, 2.5, 2.5), 1..3);
    }
}
