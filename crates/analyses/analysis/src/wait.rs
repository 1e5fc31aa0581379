//! Wait-time matrix (who waited for whom).
//!
//! A state is *waiting* when its value's name matches one of the patterns
//! (case-insensitive substrings; by default [`DEFAULT_WAITING`]: receives,
//! waits, barriers and MPI's blocking collectives and probes, so that
//! SimGrid's `receive`, MPI's `MPI_Recv` and SMPI's `action_bcast` count,
//! but not the non-blocking calls such as `MPI_Irecv`, whose word starts
//! with an `i` before the pattern). The matrix names the state values it
//! counted (none: nothing matched, which the outputs say).
//!
//! A wait is counted once, whatever the trace's state types: the waits of
//! a container `i` are its waiting states, cut to the window, of every
//! state type and level, taken in order of start (the longer first) and
//! merged where they overlap: a waiting state joins the wait before it
//! when it starts before that wait ends, or when it starts. A wait inside
//! another (a nested receive, an OTF2 `MPI collective` inside its
//! `MPI_Allreduce` region) adds nothing, waits that overlap count their
//! union, and waits one after the other (the end of one the start of the
//! next) stay apart. Each wait is attributed to the sender of the latest
//! link that ends on `i` inside it, or to "unattributed" when no link
//! ends there.
//!
//! Per waiting container, the matrix gives the seconds waited per sender
//! and two normalizations: by the container's time in the window
//! (`share_of_time`, plus `waiting_share`, its total waiting over its time)
//! and by its total waiting (`share_of_waiting`). Normalized cells under
//! 0.1 % are reported as 0.

use std::collections::{BTreeMap, HashMap};

use serde::Serialize;
use trama_sim::{ContainerId, Trace, TypeKind};

use crate::read::{container_name, depth_first_positions, links, lists_of, text};
use crate::window::{Part, Window};
use crate::Messages;

/// The patterns that make a state a wait when none is given (lower case).
pub const DEFAULT_WAITING: [&str; 11] = [
    "receive", "recv", "wait", "barrier", "bcast", "reduce", "gather", "scatter", "alltoall",
    "probe", "ssend",
];

/// Column name of waits no link explains.
pub const UNATTRIBUTED: &str = "unattributed";

/// One waiting container of [`WaitMatrix`].
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct WaitRow {
    /// The container that waited.
    pub container: String,
    /// Its time in the window (its lifetime cut to the window).
    pub time: f64,
    /// Its total waiting time.
    pub waiting: f64,
    /// Seconds waited per column of [`WaitMatrix::senders`].
    pub seconds: Vec<f64>,
    /// `seconds / time` (cells under 0.1 % are 0).
    pub share_of_time: Vec<f64>,
    /// `waiting / time`.
    pub waiting_share: f64,
    /// `seconds / waiting` (cells under 0.1 % are 0).
    pub share_of_waiting: Vec<f64>,
}

/// How a [`WaitMatrix`] was computed.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum WaitMethod {
    /// From the wait states of a run's MPI calls (Scalasca's patterns, as
    /// the `trama-why` crate finds them): each instance's seconds go to
    /// the process it waited for, completion times to [`UNATTRIBUTED`].
    WaitStates,
    /// [`wait_matrix`]: waiting states, found by their names, attributed
    /// to the sender of the latest message arriving during them.
    LastMessage,
}

/// The waiting seconds per waiting container and per container waited for
/// (`None`: [`UNATTRIBUTED`]), from which a [`WaitMatrix`] is made.
pub type WaitCells = BTreeMap<ContainerId, HashMap<Option<ContainerId>, f64>>;

/// What [`wait_matrix`] computes.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct WaitMatrix {
    /// The window.
    pub window: Window,
    /// How the waits were found and attributed.
    pub method: WaitMethod,
    /// The patterns that make a state a wait ([`WaitMethod::LastMessage`]),
    /// or the wait-state patterns found ([`WaitMethod::WaitStates`]).
    pub patterns: Vec<String>,
    /// The state values counted as waits (those with at least one state
    /// in the trace), in order of definition; empty when none matched
    /// ([`WaitMethod::LastMessage`]); the regions of the calls that waited
    /// ([`WaitMethod::WaitStates`]).
    pub waiting_states: Vec<String>,
    /// Columns: senders depth-first, then [`UNATTRIBUTED`].
    pub senders: Vec<String>,
    /// Rows: containers that waited, depth-first.
    pub rows: Vec<WaitRow>,
}

impl WaitMatrix {
    /// A sentence for the reader: the state values counted as waits, or
    /// that none matched the patterns.
    pub fn note(&self) -> String {
        if self.method == WaitMethod::WaitStates {
            return format!(
                "computed from the wait states of the MPI calls ({}), each to the process \
                 waited for; completion times unattributed",
                if self.patterns.is_empty() {
                    "none found".to_string()
                } else {
                    self.patterns.join(", ")
                }
            );
        }
        if self.waiting_states.is_empty() {
            format!(
                "no state matched the waiting patterns ({}): nothing was counted as waiting; \
                 --waiting PATTERN names the waiting states",
                self.patterns.join(", ")
            )
        } else {
            format!(
                "states counted as waiting: {}",
                self.waiting_states.join(", ")
            )
        }
    }
}

fn cut(x: f64) -> f64 {
    if x < 0.001 {
        0.0
    } else {
        x
    }
}

/// Does the value called `name` (lower case) match `patterns`? With the
/// default patterns, the name is cut into words (letters and digits): a
/// word that contains a pattern makes a wait, unless a word starts with
/// `i` before a pattern (`mpi_irecv`, `ibarrier`, `ireduce_scatter`): a
/// non-blocking call.
fn matches(name: &str, patterns: &[String], default: bool) -> bool {
    if !default {
        return patterns.iter().any(|p| name.contains(p.as_str()));
    }
    let mut wait = false;
    for w in name.split(|c: char| !c.is_alphanumeric()) {
        for p in patterns {
            if w.contains(p.as_str()) {
                if w.starts_with('i') && !w.starts_with(p.as_str()) {
                    return false;
                }
                wait = true;
            }
        }
    }
    wait
}

/// The wait-time matrix over `window`; `patterns` (lower case) make a
/// state value a wait (empty: [`DEFAULT_WAITING`]).
pub fn wait_matrix(
    trace: &Trace,
    window: Window,
    msgs: &Messages,
    patterns: &[String],
) -> WaitMatrix {
    let mut parts = WaitParts::new(trace, patterns);
    parts.add(trace, window, &Part::whole(window), msgs);
    parts.finish(trace, window)
}

/// A wait whose sender is not known yet: on `c`, over `[a, b]` (clipped to
/// the window); the latest arrival on `c` in `[a, b]` so far.
struct Pending {
    c: ContainerId,
    a: f64,
    b: f64,
    best: Option<(f64, ContainerId)>,
}

impl Pending {
    /// Does a waiting state starting at `a` (no earlier than the wait)
    /// join it?
    fn takes(&self, a: f64) -> bool {
        a < self.b || a == self.a
    }
}

/// The waits of a window added up part by part ([`Part`]): a waiting state
/// is taken in the part where it enters the window (parts in time order:
/// states come in order of start), merged into its container's current
/// wait or starting the next; a wait's sender (the latest message arriving
/// during it) is looked for in every part it overlaps.
pub(crate) struct WaitParts {
    patterns: Vec<String>,
    waiting_value: Vec<bool>,
    used: Vec<bool>,
    /// Waiting seconds per (waiter, sender or None).
    cells: WaitCells,
    /// Waits that no later state can join, their sender still looked for.
    pending: Vec<Pending>,
    /// Each container's last wait, which a later state may still join.
    current: BTreeMap<ContainerId, Pending>,
}

impl WaitParts {
    /// Nothing added yet; `patterns` as for [`wait_matrix`]. Only the
    /// model of `trace` is read.
    pub(crate) fn new(trace: &Trace, patterns: &[String]) -> WaitParts {
        let m = &trace.model;
        let default = patterns.is_empty();
        let patterns: Vec<String> = if default {
            DEFAULT_WAITING.iter().map(|p| p.to_string()).collect()
        } else {
            patterns.iter().map(|p| p.to_lowercase()).collect()
        };
        let waiting_value = m
            .values
            .iter()
            .map(|v| matches(&text(trace, v.name).to_lowercase(), &patterns, default))
            .collect();
        WaitParts {
            patterns,
            waiting_value,
            used: vec![false; m.values.len()],
            cells: BTreeMap::new(),
            pending: Vec::new(),
            current: BTreeMap::new(),
        }
    }

    /// Adds the waits of `trace` entering `window` in `part` and the
    /// messages arriving in `part` (parts in time order).
    pub(crate) fn add(&mut self, trace: &Trace, window: Window, part: &Part, msgs: &Messages) {
        // Links ending in the part on each container: (end time, sender), sorted.
        let mut arrivals: HashMap<ContainerId, Vec<(f64, ContainerId)>> = HashMap::new();
        for (e, from, to) in links(trace, msgs) {
            if part.holds(e.end) {
                arrivals.entry(to).or_default().push((e.end, from));
            }
        }
        for v in arrivals.values_mut() {
            v.sort_by(|a, b| a.0.total_cmp(&b.0));
        }
        // The waiting states entering the window in this part, (container,
        // start, end) clipped to the window, by container and start, the
        // longer first.
        let mut entering: Vec<(ContainerId, f64, f64)> = Vec::new();
        for (info, cols) in lists_of(trace, TypeKind::State) {
            for i in 0..cols.len() {
                let v = cols.value[i];
                if !self.waiting_value.get(v.index()).copied().unwrap_or(false) {
                    continue;
                }
                self.used[v.index()] = true;
                let (s, e) = (cols.start[i], cols.end[i]);
                let a = s.max(window.start);
                if !window.overlaps(s, e) || !part.holds(a) {
                    continue;
                }
                let b = if e < s { window.end } else { e.min(window.end) };
                entering.push((info.container, a, b));
            }
        }
        entering.sort_by(|x, y| {
            x.0.cmp(&y.0)
                .then(x.1.total_cmp(&y.1))
                .then(y.2.total_cmp(&x.2))
        });
        for (c, a, b) in entering {
            match self.current.get_mut(&c) {
                Some(w) if w.takes(a) => w.b = w.b.max(b),
                _ => {
                    let next = Pending {
                        c,
                        a,
                        b,
                        best: None,
                    };
                    if let Some(done) = self.current.insert(c, next) {
                        self.pending.push(done);
                    }
                }
            }
        }
        for p in self.pending.iter_mut().chain(self.current.values_mut()) {
            if let Some(arr) = arrivals.get(&p.c) {
                let k = arr.partition_point(|x| x.0 <= p.b);
                if let Some(x) = arr[..k].last().filter(|x| x.0 >= p.a) {
                    p.best = Some(*x);
                }
            }
        }
        // A wait is complete once no later arrival can fall in it (and no
        // later state join it: those start in later parts).
        let cells = &mut self.cells;
        let mut keep = |p: &Pending| {
            let done = part.last || p.b < part.end;
            if done {
                *cells
                    .entry(p.c)
                    .or_default()
                    .entry(p.best.map(|x| x.1))
                    .or_default() += (p.b - p.a).max(0.0);
            }
            !done
        };
        self.pending.retain(&mut keep);
        self.current.retain(|_, p| keep(p));
    }

    /// The matrix of the waits added; only `trace`'s model is read.
    pub(crate) fn finish(self, trace: &Trace, window: Window) -> WaitMatrix {
        let m = &trace.model;
        let WaitParts {
            patterns,
            used,
            cells,
            ..
        } = self;
        let mut waiting_states: Vec<String> = Vec::new();
        for (v, info) in m.values.iter().enumerate() {
            let n = text(trace, info.name);
            if used[v] && !waiting_states.contains(&n) {
                waiting_states.push(n);
            }
        }
        let mut w = WaitMatrix::from_cells(trace, window, &cells, WaitMethod::LastMessage);
        (w.patterns, w.waiting_states) = (patterns, waiting_states);
        w
    }
}

impl WaitMatrix {
    /// The matrix of the waiting `cells` of `trace` over `window` (rows
    /// and columns depth-first, the shares computed), found by `method`;
    /// its `patterns` and `waiting_states` are left empty for the caller.
    /// Only `trace`'s model is read.
    pub fn from_cells(
        trace: &Trace,
        window: Window,
        cells: &WaitCells,
        method: WaitMethod,
    ) -> WaitMatrix {
        let m = &trace.model;
        let pos = depth_first_positions(trace);
        let mut senders: Vec<ContainerId> = cells
            .values()
            .flat_map(|r| r.keys().flatten().copied())
            .collect();
        senders.sort_by_key(|c| pos[c]);
        senders.dedup();
        let col: HashMap<ContainerId, usize> =
            senders.iter().enumerate().map(|(i, c)| (*c, i)).collect();
        let ncols = senders.len() + 1;
        let name = |c: ContainerId| container_name(trace, c);
        let mut waiters: Vec<ContainerId> = cells.keys().copied().collect();
        waiters.sort_by_key(|c| pos[c]);
        let rows = waiters
            .iter()
            .map(|c| {
                let mut seconds = vec![0.0; ncols];
                for (s, d) in &cells[c] {
                    let j = s.map_or(ncols - 1, |s| col[&s]);
                    seconds[j] += d;
                }
                let info = m.container(*c);
                let time = window.clip(info.start, info.end);
                let waiting: f64 = seconds.iter().sum();
                let share = |x: f64, of: f64| if of > 0.0 { cut(x / of) } else { 0.0 };
                WaitRow {
                    container: name(*c),
                    time,
                    waiting,
                    share_of_time: seconds.iter().map(|x| share(*x, time)).collect(),
                    waiting_share: if time > 0.0 { waiting / time } else { 0.0 },
                    share_of_waiting: seconds.iter().map(|x| share(*x, waiting)).collect(),
                    seconds,
                }
            })
            .collect();
        let mut sender_names: Vec<String> = senders.iter().map(|c| name(*c)).collect();
        sender_names.push(UNATTRIBUTED.into());
        WaitMatrix {
            window,
            method,
            patterns: Vec::new(),
            waiting_states: Vec::new(),
            senders: sender_names,
            rows,
        }
    }
}
