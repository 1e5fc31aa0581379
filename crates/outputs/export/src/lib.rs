//! One-way exports of a trace to other tools' formats, written as the
//! simulation hands over entities (each writer is a [`trama_sim::Sink`]),
//! so a trace of any length converts in memory bounded by its model
//! (types, containers, values), its state stacks' depths and a buffer of
//! at most 65,536 events that puts them in time order (see the
//! writers' "Order"):
//!
//! - [`perfetto`]: Perfetto's `TrackEvent` protobuf (`.perfetto-trace`),
//!   for ui.perfetto.dev and its trace processor; the format written is
//!   specified there (field numbers included).
//! - [`chrome`]: Chrome's trace-event JSON (`chrome://tracing`, Perfetto,
//!   Speedscope…), specified in its module.
//!
//! Both map the trace the same way: the container hierarchy becomes nested
//! tracks (Perfetto) or processes and threads (JSON); each state type of a
//! container is a track of its own whose states are nested slices (name:
//! the state's value, category: the state type); events are instants;
//! variables are counters; links are flows from an instant at their start
//! container, at their start time, to an instant at their end container,
//! at their end time. Names are shown as people read them (one pair of
//! surrounding double quotes removed, as in `trama stats`).
//!
//! Slices need their begin before their end, in time order on their
//! track, but the simulation hands over a state when it is *final*, after
//! the states nested in it. Both writers therefore take
//! [`Sink::state_begins`](trama_sim::Sink::state_begins): a state's begin is
//! written when it is pushed, in the trace's order, and its end when it and
//! every state pushed above it are final; what is held is one entry per
//! open state (the stack's depth). Simulation without imbrication (`-i`)
//! is not supported: it ends a state when another is pushed on it, which
//! the writers would have to take back.
#![deny(missing_docs)]

pub mod chrome;
mod order;
pub mod perfetto;
pub mod protobuf;
mod slices;

use trama_sim::{ContainerId, ListId, Model};

/// Options of the exports.
#[derive(Clone, Debug)]
#[non_exhaustive]
pub struct ExportOptions {
    /// The trace's name (its file name, say): the name of the track
    /// (Perfetto) or process (JSON) of what the root container holds.
    pub name: String,
}

impl Default for ExportOptions {
    fn default() -> Self {
        ExportOptions {
            name: "trace".to_string(),
        }
    }
}

/// What a writer wrote.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Written {
    /// Tracks (Perfetto) or threads and processes (JSON) declared.
    pub tracks: u64,
    /// States (slices).
    pub states: u64,
    /// Events (instants).
    pub events: u64,
    /// Variable values (counter samples).
    pub variables: u64,
    /// Links (flows).
    pub links: u64,
}

/// A time of the trace (seconds) in integer nanoseconds, rounded to the
/// nearest.
#[inline]
pub fn nanos(t: f64) -> i64 {
    (t * 1e9).round() as i64
}

/// `s` as people read it: one pair of surrounding double quotes removed,
/// invalid UTF-8 replaced.
pub(crate) fn label(m: &Model, id: trama_sim::StrId) -> String {
    m.label(id)
}

/// The name of a value (of a state, event or link), as people read it.
pub(crate) fn value_label(m: &Model, v: trama_sim::ValueId) -> String {
    m.values
        .get(v.index())
        .map(|x| label(m, x.name))
        .unwrap_or_default()
}

/// The name of the type of a list, as people read it.
pub(crate) fn list_type_label(m: &Model, l: ListId) -> String {
    label(m, m.ty(m.list(l).ty).name)
}

/// The path of a container below the root, names joined by `/`.
pub(crate) fn container_path(m: &Model, c: ContainerId) -> String {
    let mut names = Vec::new();
    let mut at = Some(c);
    while let Some(x) = at.filter(|&x| x != ContainerId::ROOT) {
        names.push(label(m, m.container(x).name));
        at = m.container(x).parent;
    }
    names.reverse();
    names.join("/")
}

/// Open states per list, so that ends are written in nesting order, and
/// the latest time written on each list's track.
#[derive(Debug, Default)]
pub(crate) struct Nesting {
    lists: Vec<Open>,
}

#[derive(Debug, Default)]
struct Open {
    /// (index, end once final) of each open state, outermost first (so in
    /// increasing order of index: a state's end is found by binary
    /// search, whatever the depth).
    stack: Vec<(u32, Option<f64>)>,
    /// The latest time written.
    last: f64,
}

impl Nesting {
    fn list(&mut self, list: ListId) -> &mut Open {
        let l = list.index();
        if self.lists.len() <= l {
            self.lists.resize_with(l + 1, || Open {
                stack: Vec::new(),
                last: f64::NEG_INFINITY,
            });
        }
        &mut self.lists[l]
    }

    /// State `idx` of `list` begins at `start`: the time to write (`start`,
    /// or the latest time written on its track when that is later).
    pub(crate) fn begin(&mut self, list: ListId, idx: u32, start: f64) -> f64 {
        let o = self.list(list);
        o.stack.push((idx, None));
        o.last = o.last.max(start);
        o.last
    }

    /// State `idx` of `list` is final and ends at `end`: the ends that can
    /// be written now, innermost first, go to `ends`, none earlier than
    /// the latest time written on the track (a state that ends before it
    /// starts or before a state nested in it ends then). False when the
    /// state never began here (the caller then writes it whole).
    pub(crate) fn end(&mut self, list: ListId, idx: u32, end: f64, ends: &mut Vec<f64>) -> bool {
        let o = self.list(list);
        // States begin in the order of their indexes: the stack is sorted.
        let Ok(pos) = o.stack.binary_search_by_key(&idx, |&(i, _)| i) else {
            return false;
        };
        o.stack[pos].1 = Some(end);
        while let Some(&(_, Some(end))) = o.stack.last() {
            o.last = o.last.max(end);
            ends.push(o.last);
            o.stack.pop();
        }
        true
    }

    /// A state of `list` written whole (begin and end) at `start` and
    /// `end`: the times to write.
    pub(crate) fn whole(&mut self, list: ListId, start: f64, end: f64) -> (f64, f64) {
        let o = self.list(list);
        let start = o.last.max(start);
        o.last = start.max(end);
        (start, o.last)
    }
}
