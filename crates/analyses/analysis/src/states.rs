//! Time per state.
//!
//! For every state entity overlapping the window, with `d` its duration
//! inside the window:
//!
//! - `count` counts it, `total` adds `d`, `min` and `max` keep the smallest
//!   and the largest `d`, and `mean` is `total / count`;
//! - `exclusive` adds `d` minus the in-window durations of the states pushed
//!   directly on it (the time its value was on top of the stack);
//! - `inclusive` adds `d` unless an enclosing state has the same value (the
//!   time the value was anywhere on the stack, recursion counted once);
//! - `share` is `inclusive` over the window's length (times the number of
//!   containers for a row rolled up over several).
//!
//! Rows are per container, state type and value. With a level (a container
//! type), rows are rolled up: each container of that type adds up its own
//! rows and those of every container below it. The load imbalance compares
//! the exclusive time of each (state type, value) across the containers
//! that have that state type: `max / mean − 1` and the standard deviation.

use std::collections::BTreeMap;

use serde::Serialize;
use trama_sim::{ContainerId, Trace, TypeId, TypeKind, ValueId};

use crate::read::{container_name, depth_first_positions, lists_of, placer, text};
use crate::window::{Part, Window};

/// One row of [`StateStats`].
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct StateRow {
    /// Container name.
    pub container: String,
    /// Its type's name.
    pub container_type: String,
    /// Number of containers added up in this row (1 unless rolled up).
    pub containers: u32,
    /// State type name.
    pub state_type: String,
    /// Value name (as the Parquet export's `value` column gives it; two
    /// values of one name are two rows).
    pub value: String,
    /// Number of states overlapping the window.
    pub count: u64,
    /// Sum of their durations in the window.
    pub total: f64,
    /// Time the value was on top of the stack.
    pub exclusive: f64,
    /// Time the value was anywhere on the stack.
    pub inclusive: f64,
    /// `total / count`.
    pub mean: f64,
    /// Shortest duration in the window (0 when `count` is 0).
    pub min: f64,
    /// Longest duration in the window.
    pub max: f64,
    /// `inclusive` over the window's length (times `containers`).
    pub share: f64,
}

/// Load imbalance of one (state type, value) across containers.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Imbalance {
    /// State type name.
    pub state_type: String,
    /// Value name (as in [`StateRow::value`]).
    pub value: String,
    /// Number of containers compared (those with this state type).
    pub containers: u32,
    /// Mean exclusive time per container.
    pub mean: f64,
    /// Largest exclusive time of a container.
    pub max: f64,
    /// `max / mean − 1` (0 when the mean is 0).
    pub imbalance: f64,
    /// Standard deviation (population) of the exclusive times.
    pub stddev: f64,
}

/// What [`time_per_state`] computes.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct StateStats {
    /// The window.
    pub window: Window,
    /// The container type rows were rolled up to, if any.
    pub level: Option<String>,
    /// Rows: containers depth-first, then state types in the type tree's
    /// order, then values by name (numbers in names by value).
    pub rows: Vec<StateRow>,
    /// Imbalance per state type and value, in the order of `rows`.
    pub imbalance: Vec<Imbalance>,
}

impl StateStats {
    /// A sentence for the reader when a row's `total` exceeds the time its
    /// containers spent in the window: its states nest (a value pushed on
    /// itself, pushes never popped), so `total` counts the same seconds
    /// several times; `exclusive`, `inclusive` and `share` do not.
    pub fn nesting_note(&self) -> Option<String> {
        let len = self.window.end - self.window.start;
        let over: Vec<String> = self
            .rows
            .iter()
            .filter(|r| r.total > len * f64::from(r.containers) * (1.0 + 1e-9) + 1e-9)
            .map(|r| format!("{} of {} ({:.6} s)", r.value, r.container, r.total))
            .collect();
        if over.is_empty() {
            return None;
        }
        let shown = over.iter().take(5).cloned().collect::<Vec<_>>().join(", ");
        let more = if over.len() > 5 {
            format!(" and {} more", over.len() - 5)
        } else {
            String::new()
        };
        Some(format!(
            "total exceeds the {len:.6} s window for {} row(s): {shown}{more}; their states nest \
             (pushed on each other, or never popped), so total counts the same time several \
             times: exclusive, inclusive and share do not",
            over.len()
        ))
    }
}

#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct Acc {
    count: u64,
    total: f64,
    exclusive: f64,
    inclusive: f64,
    min: f64,
    max: f64,
}

impl Acc {
    fn add(&mut self, o: &Acc) {
        self.min = match (self.count, o.count) {
            (_, 0) => self.min,
            (0, _) => o.min,
            _ => self.min.min(o.min),
        };
        self.count += o.count;
        self.total += o.total;
        self.exclusive += o.exclusive;
        self.inclusive += o.inclusive;
        self.max = self.max.max(o.max);
    }
}

pub(crate) type Key = (ContainerId, TypeId, ValueId);

/// Adds to `out` the states of every container over `part` of `w`, per
/// (container, type, value): time in the part, and each state that enters
/// the window in the part counted with its whole duration in the window.
pub(crate) fn add_states(trace: &Trace, w: &Window, part: &Part, out: &mut BTreeMap<Key, Acc>) {
    let p = part.window();
    for (info, cols) in lists_of(trace, TypeKind::State) {
        // The values of one list are few: a small table, searched linearly.
        let mut acc: Vec<(ValueId, Acc)> = Vec::new();
        let slot = |acc: &mut Vec<(ValueId, Acc)>, v: ValueId| -> usize {
            match acc.iter().position(|(x, _)| *x == v) {
                Some(i) => i,
                None => {
                    acc.push((v, Acc::default()));
                    acc.len() - 1
                }
            }
        };
        // Ancestors by level: their values and their slots in `acc`.
        let mut anc: Vec<ValueId> = Vec::new();
        let mut anc_slots: Vec<usize> = Vec::new();
        for i in 0..cols.len() {
            let (s, e) = (cols.start[i], cols.end[i]);
            let v = cols.value[i];
            let level = cols.level[i] as usize;
            anc.truncate(level);
            anc_slots.truncate(level);
            let k = slot(&mut acc, v);
            if w.overlaps(s, e) && p.overlaps(s, e) {
                let d = p.clip(s, e);
                let a = &mut acc[k].1;
                if part.holds(s.max(w.start)) {
                    let whole = w.clip(s, e);
                    a.min = if a.count == 0 {
                        whole
                    } else {
                        a.min.min(whole)
                    };
                    a.count += 1;
                    a.max = a.max.max(whole);
                }
                a.total += d;
                a.exclusive += d;
                if !anc.contains(&v) {
                    a.inclusive += d;
                }
                if let Some(&parent) = anc_slots.last() {
                    acc[parent].1.exclusive -= d;
                }
            }
            // Levels are contiguous in a valid trace; pad defensively.
            while anc.len() < level {
                anc.push(ValueId(u32::MAX));
                anc_slots.push(slot(&mut acc, ValueId(u32::MAX)));
            }
            anc.push(v);
            anc_slots.push(k);
        }
        for (v, a) in acc {
            if v != ValueId(u32::MAX) && (a.count > 0 || a.total != 0.0 || a.exclusive != 0.0) {
                out.entry((info.container, info.ty, v)).or_default().add(&a);
            }
        }
    }
}

/// Time per state over `window`, per container or (with `level`, a
/// container type's name or alias) rolled up to the containers of that
/// type. Returns `None` when no container type is called `level`.
pub fn time_per_state(trace: &Trace, window: Window, level: Option<&str>) -> Option<StateStats> {
    let mut own = BTreeMap::new();
    add_states(trace, &window, &Part::whole(window), &mut own);
    finish_states(trace, &own, window, level)
}

/// [`time_per_state`] from the states added up by [`add_states`]; only
/// `trace`'s model and lists are read.
pub(crate) fn finish_states(
    trace: &Trace,
    own: &BTreeMap<Key, Acc>,
    window: Window,
    level: Option<&str>,
) -> Option<StateStats> {
    let m = &trace.model;
    let target = placer(trace, level)?;
    // Rows per (container, state type, value), with the number of
    // containers added up and, per (container, state type), how many
    // containers have that state type.
    let mut rows: BTreeMap<Key, (Acc, u32)> = BTreeMap::new();
    let mut with_type: BTreeMap<(ContainerId, TypeId), u32> = BTreeMap::new();
    for (info, _) in lists_of(trace, TypeKind::State) {
        if let Some(t) = target(info.container) {
            *with_type.entry((t, info.ty)).or_default() += 1;
        }
    }
    for (&(c, ty, v), a) in own {
        if let Some(t) = target(c) {
            let r = rows.entry((t, ty, v)).or_default();
            r.0.add(a);
        }
    }
    for (&(c, ty, _), r) in rows.iter_mut() {
        r.1 = with_type.get(&(c, ty)).copied().unwrap_or(1);
    }
    // Output order.
    let pos_c = depth_first_positions(trace);
    let order_t: BTreeMap<TypeId, usize> = m
        .types_depth_first()
        .into_iter()
        .enumerate()
        .map(|(i, t)| (t, i))
        .collect();
    let mut keys: Vec<Key> = rows.keys().copied().collect();
    let vname = |v: ValueId| text(trace, m.value(v).name);
    keys.sort_by(|a, b| {
        (pos_c.get(&a.0), order_t.get(&a.1))
            .cmp(&(pos_c.get(&b.0), order_t.get(&b.1)))
            .then_with(|| trama_sim::natural_cmp(&vname(a.2), &vname(b.2)))
    });
    let len = window.len();
    let out_rows: Vec<StateRow> = keys
        .iter()
        .map(|k| {
            let (a, n) = rows[k];
            let ci = m.container(k.0);
            StateRow {
                container: container_name(trace, k.0),
                container_type: text(trace, m.ty(ci.ty).name),
                containers: n,
                state_type: text(trace, m.ty(k.1).name),
                value: vname(k.2),
                count: a.count,
                total: a.total,
                exclusive: a.exclusive,
                inclusive: a.inclusive,
                mean: if a.count > 0 {
                    a.total / a.count as f64
                } else {
                    0.0
                },
                min: a.min,
                max: a.max,
                share: if len > 0.0 {
                    a.inclusive / (len * n as f64)
                } else {
                    0.0
                },
            }
        })
        .collect();
    // Imbalance across the row containers that have each state type.
    let mut groups: BTreeMap<(TypeId, ValueId), Vec<f64>> = BTreeMap::new();
    let mut first_seen: Vec<(TypeId, ValueId)> = Vec::new();
    for k in &keys {
        let g = groups.entry((k.1, k.2)).or_default();
        if g.is_empty() {
            first_seen.push((k.1, k.2));
        }
        g.push(rows[k].0.exclusive);
    }
    let imbalance = first_seen
        .into_iter()
        .map(|(ty, v)| {
            let mut xs = groups[&(ty, v)].clone();
            // Containers with this state type but not this value count as 0.
            let n = with_type.iter().filter(|((_, t), _)| *t == ty).count();
            xs.resize(n.max(xs.len()), 0.0);
            let count = xs.len() as f64;
            let mean = xs.iter().sum::<f64>() / count;
            let max = xs.iter().copied().fold(f64::MIN, f64::max);
            let var = xs.iter().map(|x| (x - mean) * (x - mean)).sum::<f64>() / count;
            Imbalance {
                state_type: text(trace, m.ty(ty).name),
                value: vname(v),
                containers: xs.len() as u32,
                mean,
                max,
                imbalance: if mean > 0.0 { max / mean - 1.0 } else { 0.0 },
                stddev: var.sqrt(),
            }
        })
        .collect();
    Some(StateStats {
        window,
        level: level.map(String::from),
        rows: out_rows,
        imbalance,
    })
}
