//! Time slices (the data of the animations) and Kiviat series.
//!
//! [`slices`] cuts the window into equal slices. Per slice and container:
//! the time each state value was on top of the stack (exclusive time, so a
//! container's values add up to at most the slice's length) and the
//! messages it sent (links starting in the slice) and received (links
//! ending in it).
//!
//! [`kiviat`]: at equally spaced instants, each host's cumulative share of
//! the messages put on the network (links between different hosts, counted
//! at the sender's host when they start) since the window's start.

use std::collections::{BTreeMap, HashMap};

use serde::Serialize;
use trama_sim::{ContainerId, ListId, Trace, TypeKind, ValueId};

use crate::read::{ancestor, container_name, container_type, depth_first_positions, links, text};
use crate::window::Window;
use crate::Messages;

/// One container in one slice.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct SliceRow {
    /// Slice number, from 0.
    pub slice: usize,
    /// Container name.
    pub container: String,
    /// Exclusive seconds per value of [`Slices::values`].
    pub seconds: Vec<f64>,
    /// Messages sent (links starting in the slice).
    pub sent: u64,
    /// Messages received (links ending in the slice).
    pub received: u64,
}

/// What [`slices`] computes.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Slices {
    /// The window.
    pub window: Window,
    /// Length of a slice.
    pub length: f64,
    /// Start of each slice.
    pub starts: Vec<f64>,
    /// State values, by name (the columns of `seconds`).
    pub values: Vec<String>,
    /// Rows with something, by slice, then containers depth-first.
    pub rows: Vec<SliceRow>,
}

/// The number of slices of length `len` (the last one may be shorter) that
/// cover `window`.
pub fn slice_count(window: Window, len: f64) -> usize {
    if len <= 0.0 || window.len() <= 0.0 {
        return 1;
    }
    (window.len() / len).ceil().max(1.0) as usize
}

/// Cuts `window` into `n` equal slices (at least 1).
pub fn slices(trace: &Trace, window: Window, msgs: &Messages, n: usize) -> Slices {
    let m = &trace.model;
    let n = n.max(1);
    let length = window.len() / n as f64;
    let slice_of = |t: f64| -> Option<usize> {
        if t < window.start || t > window.end {
            return None;
        }
        if length <= 0.0 {
            return Some(0);
        }
        Some((((t - window.start) / length) as usize).min(n - 1))
    };
    let bounds = |k: usize| {
        let a = window.start + k as f64 * length;
        let b = if k + 1 == n { window.end } else { a + length };
        Window { start: a, end: b }
    };
    type Key = (usize, ContainerId);
    let mut secs: HashMap<(Key, ValueId), f64> = HashMap::new();
    let mut sent: HashMap<Key, u64> = HashMap::new();
    let mut received: HashMap<Key, u64> = HashMap::new();
    for (l, info) in m.lists.iter().enumerate() {
        let cols = &trace.lists[l];
        match info.kind {
            TypeKind::State => {
                let c = info.container;
                let mut anc: Vec<ValueId> = Vec::new();
                for i in 0..cols.len() {
                    let (s, e, v) = (cols.start[i], cols.end[i], cols.value[i]);
                    let level = cols.level[i] as usize;
                    anc.truncate(level);
                    let parent = anc.last().copied();
                    while anc.len() < level {
                        anc.push(ValueId(u32::MAX));
                    }
                    anc.push(v);
                    if !window.overlaps(s, e) {
                        continue;
                    }
                    let e2 = if e < s { window.end } else { e };
                    let (first, last) = (
                        slice_of(s.max(window.start)).unwrap_or(0),
                        slice_of(e2.min(window.end)).unwrap_or(n - 1),
                    );
                    for k in first..=last {
                        let d = bounds(k).clip(s, e);
                        if d <= 0.0 {
                            continue;
                        }
                        *secs.entry(((k, c), v)).or_default() += d;
                        if let Some(p) = parent.filter(|p| p.0 != u32::MAX) {
                            *secs.entry(((k, c), p)).or_default() -= d;
                        }
                    }
                }
            }
            TypeKind::Link if msgs.counts(info.ty) => {
                for i in 0..cols.len() {
                    let e = trace.entity(ListId(l as u32), i);
                    if let (Some(from), Some(k)) = (e.from, slice_of(e.start)) {
                        *sent.entry((k, from)).or_default() += 1;
                    }
                    if let (Some(to), Some(k)) = (e.to, slice_of(e.end)) {
                        *received.entry((k, to)).or_default() += 1;
                    }
                }
            }
            _ => {}
        }
    }
    // Values by name: two values of one name (an alias's and a name's)
    // share a column.
    let vname = |v: ValueId| text(trace, m.value(v).name);
    let mut values: Vec<String> = secs.keys().map(|(_, v)| vname(*v)).collect();
    values.sort_by(|a, b| trama_sim::natural_cmp(a, b));
    values.dedup();
    let col: HashMap<ValueId, usize> = secs
        .keys()
        .map(|(_, v)| {
            let name = vname(*v);
            let at = values.binary_search_by(|x| trama_sim::natural_cmp(x, &name));
            (*v, at.unwrap_or(0))
        })
        .collect();
    let pos = depth_first_positions(trace);
    let mut rows: BTreeMap<(usize, usize), SliceRow> = BTreeMap::new();
    let nvalues = values.len();
    fn row<'r>(
        rows: &'r mut BTreeMap<(usize, usize), SliceRow>,
        trace: &Trace,
        pos: &HashMap<ContainerId, usize>,
        nvalues: usize,
        k: usize,
        c: ContainerId,
    ) -> &'r mut SliceRow {
        rows.entry((k, pos[&c])).or_insert_with(|| SliceRow {
            slice: k,
            container: container_name(trace, c),
            seconds: vec![0.0; nvalues],
            sent: 0,
            received: 0,
        })
    }
    for (((k, c), v), d) in &secs {
        row(&mut rows, trace, &pos, nvalues, *k, *c).seconds[col[v]] += d;
    }
    for ((k, c), x) in &sent {
        row(&mut rows, trace, &pos, nvalues, *k, *c).sent += x;
    }
    for ((k, c), x) in &received {
        row(&mut rows, trace, &pos, nvalues, *k, *c).received += x;
    }
    Slices {
        window,
        length,
        starts: (0..n).map(|k| bounds(k).start).collect(),
        values,
        rows: rows.into_values().collect(),
    }
}

/// What [`kiviat`] computes.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Kiviat {
    /// The window.
    pub window: Window,
    /// The container type of the hosts.
    pub level: String,
    /// Hosts, by name (the columns of `shares`).
    pub hosts: Vec<String>,
    /// The instants.
    pub instants: Vec<f64>,
    /// Per instant, each host's share of the off-host messages started
    /// since the window's start (all 0 before the first message).
    pub shares: Vec<Vec<f64>>,
}

/// `n` instants equally spaced over `window`, its end included.
pub fn instants(window: Window, n: usize) -> Vec<f64> {
    let n = n.max(1);
    (1..=n)
        .map(|k| window.start + window.len() * k as f64 / n as f64)
        .collect()
}

/// Kiviat series at the given instants (sorted); hosts are the containers
/// of type `level`. `None` when no container type is called `level`.
pub fn kiviat(
    trace: &Trace,
    window: Window,
    msgs: &Messages,
    level: &str,
    at: &[f64],
) -> Option<Kiviat> {
    let m = &trace.model;
    let host_ty = container_type(trace, level)?;
    let mut hosts: Vec<ContainerId> = (0..m.containers.len() as u32)
        .map(ContainerId)
        .filter(|c| m.container(*c).ty == host_ty)
        .collect();
    hosts.sort_by(|a, b| {
        trama_sim::natural_cmp(&container_name(trace, *a), &container_name(trace, *b))
    });
    let col: HashMap<ContainerId, usize> = hosts.iter().enumerate().map(|(i, c)| (*c, i)).collect();
    // Off-host messages: (start, sender's host column).
    let mut sent: Vec<(f64, usize)> = Vec::new();
    for (e, from, to) in links(trace, msgs) {
        let (Some(a), Some(b)) = (ancestor(trace, from, host_ty), ancestor(trace, to, host_ty))
        else {
            continue;
        };
        if a != b && e.start >= window.start && e.start <= window.end {
            sent.push((e.start, col[&a]));
        }
    }
    sent.sort_by(|x, y| x.0.total_cmp(&y.0));
    let mut instants: Vec<f64> = at.to_vec();
    instants.sort_by(|a, b| a.total_cmp(b));
    let mut counts = vec![0u64; hosts.len()];
    let mut next = 0;
    let shares = instants
        .iter()
        .map(|t| {
            while next < sent.len() && sent[next].0 <= *t {
                counts[sent[next].1] += 1;
                next += 1;
            }
            let total: u64 = counts.iter().sum();
            counts
                .iter()
                .map(|c| {
                    if total > 0 {
                        *c as f64 / total as f64
                    } else {
                        0.0
                    }
                })
                .collect()
        })
        .collect();
    Some(Kiviat {
        window,
        level: level.to_string(),
        hosts: hosts.iter().map(|c| container_name(trace, *c)).collect(),
        instants,
        shares,
    })
}
