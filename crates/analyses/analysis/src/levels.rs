//! The host level of a trace, when the reader does not name it.
//!
//! The analyses that group processes by host (Kiviat series, ordering,
//! mapping) need the container type of the hosts. [`host_level`] chooses
//! it from the trace: the *processes* are the containers at either end of
//! a message (or, without messages, the containers that hold states); the
//! candidates are the container types above theirs in the type hierarchy
//! (the root excluded). Among them it prefers, in this order, a type with
//! more than one container (a zone holding everything is a 1×1 matrix), a
//! type named like a host (`host`, `node`, `machine`, any case), and the
//! type nearest to the processes.

use std::collections::HashSet;

use serde::Serialize;
use trama_sim::{ContainerId, Trace, TypeId, TypeKind};

use crate::read::{links, lists_of};
use crate::Messages;

/// The host level [`host_level`] chose, and why.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct HostLevel {
    /// The container type's name.
    pub name: String,
    /// Its containers.
    pub hosts: usize,
    /// What the processes were (`"the ends of messages"` or `"the
    /// containers with states"`).
    pub processes: &'static str,
}

impl HostLevel {
    /// A sentence for the reader: the choice and how to change it.
    pub fn note(&self) -> String {
        format!(
            "hosts: the {} containers of type {} (chosen from the trace: the type above {}; --level NAME chooses another)",
            self.hosts, self.name, self.processes
        )
    }
}

/// Is a type's name the name of hosts?
fn named_like_host(name: &str) -> bool {
    let n = name.to_lowercase();
    ["host", "node", "machine"].iter().any(|w| n.contains(w))
}

/// The container type of the hosts of `trace` (see the module
/// documentation); `None` when no container type lies above the
/// processes (they sit at the root) or the trace has no process.
pub fn host_level(trace: &Trace, msgs: &Messages) -> Option<HostLevel> {
    let mut ends: HashSet<ContainerId> = HashSet::new();
    for (_, from, to) in links(trace, msgs) {
        ends.insert(from);
        ends.insert(to);
    }
    let by_messages = !ends.is_empty();
    if !by_messages {
        for (info, cols) in lists_of(trace, TypeKind::State) {
            if !cols.is_empty() {
                ends.insert(info.container);
            }
        }
    }
    host_level_of(trace, &ends, by_messages)
}

/// [`host_level`] from its processes: the ends of messages
/// (`by_messages`), else the containers that hold states. Only the
/// trace's model is read.
pub fn host_level_of(
    trace: &Trace,
    ends: &HashSet<ContainerId>,
    by_messages: bool,
) -> Option<HostLevel> {
    let m = &trace.model;
    let processes = if by_messages {
        "the ends of messages"
    } else {
        "the containers with states"
    };
    let process_types: HashSet<TypeId> = ends.iter().map(|c| m.container(*c).ty).collect();
    let mut candidates: HashSet<TypeId> = HashSet::new();
    for t in process_types {
        let mut up = m.ty(t).parent;
        while let Some(p) = up {
            if p == TypeId::ROOT {
                break;
            }
            candidates.insert(p);
            up = m.ty(p).parent;
        }
    }
    let mut count = vec![0usize; m.types.len()];
    for c in &m.containers {
        count[c.ty.0 as usize] += 1;
    }
    let best = candidates.into_iter().max_by_key(|t| {
        let ty = m.ty(*t);
        let named = named_like_host(&m.label(ty.name)) || named_like_host(&m.label(ty.alias));
        // Ties (same depth): the first type defined.
        (
            count[t.0 as usize] > 1,
            named,
            ty.depth,
            std::cmp::Reverse(t.0),
        )
    })?;
    Some(HostLevel {
        name: m.label(m.ty(best).name),
        hosts: count[best.0 as usize],
        processes,
    })
}
