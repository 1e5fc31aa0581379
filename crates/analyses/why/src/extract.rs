//! A [`Run`] read from a simulated trace.
//!
//! # Processes
//!
//! The processes are the containers holding states whose values name MPI
//! calls ([`call_kind`]); when no container does, every container holding
//! states on which a message starts or ends. A link end on another
//! container counts for the process it is on: its nearest ancestor that is
//! a process, else the only process below it (none when several are).
//!
//! # Activities
//!
//! A process's activities are its innermost state at each instant: the
//! states of all its state types are flattened together, a state nested
//! in another hiding it for its duration (the outer state resumes after
//! it). States that overlap without nesting are cut the same way: the
//! later one hides the earlier one until it ends.
//!
//! # Calls
//!
//! A call is a state whose value names an MPI operation. The name is read
//! case-insensitively after stripping the prefixes `PMPI_`, `MPI_`,
//! `action_` (SimGrid's SMPI replay) and `smpi_`; a name with one of these
//! prefixes that names no operation below is [`CallKind::Other`], a name
//! without any of them is not a call (SimGrid's actors' `send` and
//! `receive` states are not MPI's).
//!
//! | names | kind |
//! |---|---|
//! | `send`, `bsend`, `rsend` | [`CallKind::Send`] (not synchronous) |
//! | `ssend` | [`CallKind::Send`] (synchronous) |
//! | `recv`, `sendrecv`, `sendrecv_replace`, `probe`, `wait`, `waitall`, `waitany`, `waitsome` | [`CallKind::Receive`] |
//! | `barrier` | [`CollectiveKind::Barrier`] |
//! | `allreduce`, `allgather`, `allgatherv`, `alltoall`, `alltoallv`, `alltoallw`, `reduce_scatter`, `reduce_scatter_block`, `reducescatter` | [`CollectiveKind::NxN`] |
//! | `bcast`, `scatter`, `scatterv` | [`CollectiveKind::OneToN`] |
//! | `reduce`, `gather`, `gatherv` | [`CollectiveKind::NToOne`] |
//! | `scan`, `exscan` | [`CollectiveKind::Scan`] |
//!
//! SMPI's `action_compute` and `action_sleep` are computation, not calls.
//! OTF2 archives have a `Region` state per MPI function and inside it a
//! state of type `MPI collective` (valued `ALLREDUCE`, `BCAST`, … with the
//! fields `Communicator` and `Root`): the call is the `Region` state; the
//! `MPI collective` state only gives its communicator and root (the
//! trace must keep user-defined fields).
//!
//! # Messages
//!
//! Every link with both ends on processes whose type counts as messages
//! (by default every link type but those whose links all last 0 s, as
//! [`trama_analysis::Messages`] selects; [`RunOptions::link_types`] names
//! them instead). Its send call is the innermost call of the sender that
//! contains the link's start, its receive call the innermost call of the
//! receiver that contains its end (boundaries included); either may be
//! `None`.
//!
//! # Collective instances
//!
//! Collective calls are matched across processes by order of occurrence:
//! the n-th call of a process joins the n-th of the others. With a
//! communicator (OTF2), calls match when they are of the same
//! [`CollectiveKind`] on the same communicator; without one (Pajé traces
//! of SMPI or Akypuera), when their regions have the same name, which
//! assumes that every collective involves the same processes (the world
//! communicator). The `Root` field is a rank of the communicator: it is
//! taken as the position of the root among the instance's participants in
//! the order of the processes, which holds for the world communicator and
//! for communicators whose ranks follow the world's order. Without a
//! `Root` field the root is unknown, and the patterns that need it (Late
//! Broadcast, Early Reduce) are not detected.
//!
//! Paraver traces written by Extrae have their MPI calls as `MPI call`
//! states (the Paraver reader makes them of Extrae's MPI events) and
//! events at a collective call: `Communicator in MPI Global OP` gives its
//! communicator (calls then match by kind and communicator) and `Root in
//! MPI Global OP` valued 1 marks the root's call.

use std::collections::HashMap;

use trama_analysis::Messages;
use trama_sim::{ContainerId, Trace, TypeKind};

use crate::model::{
    Activity, Call, CallId, CallKind, Collective, CollectiveKind, Message, ProcId, Process,
    RegionId, Run,
};

/// How a run is read from a trace.
#[derive(Clone, Debug, Default)]
#[non_exhaustive]
pub struct RunOptions {
    /// The link types that are messages (names or aliases); empty: every
    /// one but those whose links all last 0 s.
    pub link_types: Vec<String>,
}

/// Why a run could not be read from a trace.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum WhyError {
    /// The trace holds nothing the analysis can use.
    #[error("{0}")]
    Unusable(String),
}

/// The state type whose states give an OTF2 collective call's
/// communicator and root.
const COLLECTIVE_TYPE: &str = "MPI collective";

/// What an MPI call named `name` does; `None` when the name is not an MPI
/// call's (see the module's documentation).
pub fn call_kind(name: &str) -> Option<CallKind> {
    let lower = name.trim().to_ascii_lowercase();
    let mut s = lower.as_str();
    let mut prefixed = false;
    for p in ["pmpi_", "mpi_", "action_", "smpi_"] {
        if let Some(rest) = s.strip_prefix(p) {
            s = rest;
            prefixed = true;
        }
    }
    use CollectiveKind as K;
    let coll = CallKind::Collective;
    Some(match s {
        "send" | "bsend" | "rsend" => CallKind::Send { synchronous: false },
        "ssend" => CallKind::Send { synchronous: true },
        "recv" | "sendrecv" | "sendrecv_replace" | "probe" | "wait" | "waitall" | "waitany"
        | "waitsome" => CallKind::Receive,
        "barrier" => coll(K::Barrier),
        "allreduce"
        | "allgather"
        | "allgatherv"
        | "alltoall"
        | "alltoallv"
        | "alltoallw"
        | "reduce_scatter"
        | "reduce_scatter_block"
        | "reducescatter" => coll(K::NxN),
        "bcast" | "scatter" | "scatterv" => coll(K::OneToN),
        "reduce" | "gather" | "gatherv" => coll(K::NToOne),
        "scan" | "exscan" => coll(K::Scan),
        "compute" | "sleep" | "" => return None,
        _ => CallKind::Other,
    })
    .filter(|_| prefixed)
}

/// One state of a process, as read: its interval and value's region.
#[derive(Clone, Copy)]
struct Span {
    start: f64,
    end: f64,
    region: RegionId,
}

/// A collective call's communicator and root rank, from an OTF2 `MPI
/// collective` state, or its communicator and whether it is the root, from
/// Extrae's events.
#[derive(Clone, Default)]
struct CollInfo {
    communicator: Option<String>,
    root: Option<usize>,
    is_root: bool,
}

/// Extrae's event type flagging the root's call of a collective (value 1).
const EXTRAE_ROOT: &str = "Root in MPI Global OP";
/// Extrae's event type giving a collective call's communicator.
const EXTRAE_COMMUNICATOR: &str = "Communicator in MPI Global OP";

impl Run {
    /// The run of `trace`.
    pub fn from_trace(trace: &Trace, options: &RunOptions) -> Result<Run, WhyError> {
        let messages = Messages::select(trace, &options.link_types)
            .map_err(|e| WhyError::Unusable(e.to_string()))?;
        let mut regions = Regions::new(trace);
        let containers = process_containers(trace, &messages);
        if containers.is_empty() {
            return Err(WhyError::Unusable(
                "no process: no container holds states named after MPI calls (MPI_Send, \
                 action_recv, …) or states with messages between them"
                    .into(),
            ));
        }
        let owner = process_of(trace, &containers);
        let mut run = Run {
            start: trace.start_time(),
            end: trace.end_time().max(trace.start_time()),
            ..Run::default()
        };
        let mut infos: Vec<CollInfo> = Vec::new();
        for (p, &c) in containers.iter().enumerate() {
            run.processes.push(Process {
                container: c,
                name: trace.model.label(trace.model.container(c).name),
            });
            let spans = states_of(trace, c, &mut regions);
            run.activities.push(flatten(&spans));
            let first = run.calls.len();
            for s in &spans {
                if let Some(kind) = regions.kinds[s.region as usize] {
                    run.calls.push(Call {
                        proc: p as ProcId,
                        region: s.region,
                        kind,
                        enter: s.start,
                        exit: s.end,
                    });
                }
            }
            run.calls[first..].sort_by(|a, b| a.enter.total_cmp(&b.enter));
            infos.resize(run.calls.len(), CollInfo::default());
            collective_infos(trace, c, &run.calls, first, &mut infos);
        }
        if run.calls.is_empty() {
            return Err(WhyError::Unusable(format!(
                "no MPI call: none of the {} processes has a state named after an MPI call \
                 (MPI_Send, action_recv, …)",
                run.processes.len()
            )));
        }
        run.regions = regions.names;
        let index = CallIndex::new(&run);
        run.messages = messages_of(trace, &messages, &owner, &index);
        run.collectives = collectives_of(&run, &infos);
        Ok(run)
    }
}

/// The regions of a run: the state values' names, each once, with what
/// an MPI call of that name does.
struct Regions {
    names: Vec<String>,
    kinds: Vec<Option<CallKind>>,
    by_name: HashMap<String, RegionId>,
    /// Each value's region, once met.
    of_value: Vec<Option<RegionId>>,
}

impl Regions {
    fn new(trace: &Trace) -> Regions {
        Regions {
            names: Vec::new(),
            kinds: Vec::new(),
            by_name: HashMap::new(),
            of_value: vec![None; trace.model.values.len()],
        }
    }

    /// The region of value `v` of `trace`.
    fn of(&mut self, trace: &Trace, v: trama_sim::ValueId) -> RegionId {
        if let Some(r) = self.of_value.get(v.index()).copied().flatten() {
            return r;
        }
        let name = trace.model.label(trace.model.value(v).name);
        let r = match self.by_name.get(&name) {
            Some(r) => *r,
            None => {
                let r = self.names.len() as RegionId;
                self.kinds.push(call_kind(&name));
                self.by_name.insert(name.clone(), r);
                self.names.push(name);
                r
            }
        };
        if let Some(slot) = self.of_value.get_mut(v.index()) {
            *slot = Some(r);
        }
        r
    }
}

/// Is `ty` the OTF2 type of collective states?
fn is_collective_type(trace: &Trace, ty: trama_sim::TypeId) -> bool {
    trace.model.names(trace.model.ty(ty).name, COLLECTIVE_TYPE)
}

/// The process containers, in depth-first order (see the module's
/// documentation).
fn process_containers(trace: &Trace, msgs: &Messages) -> Vec<ContainerId> {
    let m = &trace.model;
    let order = m.containers_depth_first();
    let is_call_value = |v: trama_sim::ValueId| call_kind(&m.label(m.value(v).name)).is_some();
    let state_lists = |c: ContainerId| {
        m.container(c)
            .lists
            .iter()
            .filter(|(ty, l)| {
                m.ty(*ty).kind == TypeKind::State
                    && !is_collective_type(trace, *ty)
                    && !trace.lists[l.index()].is_empty()
            })
            .map(|(_, l)| *l)
            .collect::<Vec<_>>()
    };
    // Which values name calls, decided once per value.
    let mut call_value: Vec<Option<bool>> = vec![None; m.values.len()];
    let with_calls: Vec<ContainerId> = order
        .iter()
        .copied()
        .filter(|&c| {
            state_lists(c).iter().any(|l| {
                trace.lists[l.index()]
                    .value
                    .iter()
                    .any(|v| *call_value[v.index()].get_or_insert_with(|| is_call_value(*v)))
            })
        })
        .collect();
    if !with_calls.is_empty() {
        return with_calls;
    }
    let mut ends = vec![false; m.containers.len()];
    for_each_link(trace, msgs, |_, from, to, _, _| {
        ends[from.index()] = true;
        ends[to.index()] = true;
    });
    order
        .into_iter()
        .filter(|&c| ends[c.index()] && !state_lists(c).is_empty())
        .collect()
}

/// Calls `f(list's type, from, to, start, end)` for each link with both
/// ends of the types `msgs` counts.
fn for_each_link(
    trace: &Trace,
    msgs: &Messages,
    mut f: impl FnMut(trama_sim::TypeId, ContainerId, ContainerId, f64, f64),
) {
    for (l, info) in trace.model.lists.iter().enumerate() {
        if info.kind != TypeKind::Link || !msgs.counts(info.ty) {
            continue;
        }
        let cols = &trace.lists[l];
        for i in 0..cols.len() {
            let (Some(&from), Some(&to)) = (cols.from.get(i), cols.to.get(i)) else {
                continue;
            };
            if from == u32::MAX || to == u32::MAX {
                continue;
            }
            f(
                info.ty,
                ContainerId(from),
                ContainerId(to),
                cols.start[i],
                cols.end[i],
            );
        }
    }
}

/// Each container's process: itself, its nearest ancestor process, else
/// the only process below it.
fn process_of(trace: &Trace, procs: &[ContainerId]) -> Vec<Option<ProcId>> {
    let m = &trace.model;
    let mut owner: Vec<Option<ProcId>> = vec![None; m.containers.len()];
    for (p, c) in procs.iter().enumerate() {
        owner[c.index()] = Some(p as ProcId);
    }
    // Below a process: its process (parents come first depth-first).
    for c in m.containers_depth_first() {
        if owner[c.index()].is_none() {
            if let Some(parent) = m.container(c).parent {
                owner[c.index()] = owner[parent.index()];
            }
        }
    }
    // Above processes: the only one below, if only one.
    let mut below: Vec<(u32, Option<ProcId>)> = vec![(0, None); m.containers.len()];
    for (p, c) in procs.iter().enumerate() {
        let mut up = m.container(*c).parent;
        while let Some(a) = up {
            below[a.index()].0 += 1;
            below[a.index()].1 = Some(p as ProcId);
            up = m.container(a).parent;
        }
    }
    for (c, (n, p)) in below.into_iter().enumerate() {
        if owner[c].is_none() && n == 1 {
            owner[c] = p;
        }
    }
    owner
}

/// The states of container `c` (every state type but OTF2's collective
/// one), sorted by start, the outer first.
fn states_of(trace: &Trace, c: ContainerId, regions: &mut Regions) -> Vec<Span> {
    let m = &trace.model;
    let mut spans = Vec::new();
    for (ty, l) in &m.container(c).lists {
        if m.ty(*ty).kind != TypeKind::State || is_collective_type(trace, *ty) {
            continue;
        }
        let cols = &trace.lists[l.index()];
        for i in 0..cols.len() {
            let (start, end) = (cols.start[i], cols.end[i]);
            if start.is_nan() || end.is_nan() {
                continue;
            }
            spans.push(Span {
                start,
                end: end.max(start),
                region: regions.of(trace, cols.value[i]),
            });
        }
    }
    spans.sort_by(|a, b| a.start.total_cmp(&b.start).then(b.end.total_cmp(&a.end)));
    spans
}

/// The innermost state at each instant of `spans` (sorted by start, the
/// outer first): a stack of the open states, the top one shown.
fn flatten(spans: &[Span]) -> Vec<Activity> {
    let mut out: Vec<Activity> = Vec::with_capacity(spans.len());
    let mut stack: Vec<Span> = Vec::new();
    let mut t = f64::NEG_INFINITY;
    let emit = |out: &mut Vec<Activity>, a: f64, b: f64, region: RegionId| {
        if b > a {
            out.push(Activity {
                start: a,
                end: b,
                region,
            });
        }
    };
    for s in spans {
        // Close what ended before `s` starts, each showing until its end.
        while let Some(top) = stack.last().copied() {
            if top.end > s.start {
                break;
            }
            emit(&mut out, t.max(top.start), top.end, top.region);
            t = t.max(top.end);
            stack.pop();
        }
        if let Some(top) = stack.last() {
            emit(&mut out, t.max(top.start), s.start, top.region);
        }
        t = t.max(s.start);
        stack.push(*s);
    }
    while let Some(top) = stack.pop() {
        emit(&mut out, t.max(top.start), top.end, top.region);
        t = t.max(top.end);
    }
    out
}

/// The OTF2 collective states of container `c`: each gives its communicator
/// and root to the innermost collective call (among `calls[first..]`,
/// the container's) that contains its start.
fn collective_infos(
    trace: &Trace,
    c: ContainerId,
    calls: &[Call],
    first: usize,
    infos: &mut [CollInfo],
) {
    let m = &trace.model;
    let mine = &calls[first..];
    let mut reach = Vec::with_capacity(mine.len());
    let mut r = f64::NEG_INFINITY;
    for call in mine {
        r = r.max(call.exit);
        reach.push(r);
    }
    for (ty, l) in &m.container(c).lists {
        if m.ty(*ty).kind != TypeKind::State || !is_collective_type(trace, *ty) {
            continue;
        }
        for i in 0..trace.lists[l.index()].len() {
            let e = trace.entity(*l, i);
            let extra = |name: &str| {
                e.extras
                    .chunks_exact(2)
                    .find(|kv| m.names(kv[0], name))
                    .map(|kv| m.label(kv[1]))
            };
            let communicator = extra("Communicator");
            if communicator.is_none() {
                continue;
            }
            let root = extra("Root").and_then(|r| r.trim().parse::<usize>().ok());
            let found = innermost(mine, &reach, e.start, |k| {
                matches!(k, CallKind::Collective(_))
            });
            if let Some(k) = found {
                infos[first + k] = CollInfo {
                    communicator,
                    root,
                    is_root: false,
                };
            }
        }
    }
    extrae_infos(trace, c, mine, &reach, &mut infos[first..]);
}

/// Extrae's collective events of container `c` (Paraver traces): each
/// gives the innermost collective call of `mine` (`reach` as for
/// [`innermost`]) containing it its communicator, or flags it as its
/// instance's root.
fn extrae_infos(
    trace: &Trace,
    c: ContainerId,
    mine: &[Call],
    reach: &[f64],
    infos: &mut [CollInfo],
) {
    let m = &trace.model;
    for (ty, l) in &m.container(c).lists {
        let t = m.ty(*ty);
        let is_root = m.names(t.name, EXTRAE_ROOT);
        if t.kind != TypeKind::Event || !(is_root || m.names(t.name, EXTRAE_COMMUNICATOR)) {
            continue;
        }
        let cols = &trace.lists[l.index()];
        for i in 0..cols.len() {
            let value = m.label(m.value(cols.value[i]).name);
            let found = innermost(mine, reach, cols.start[i], |k| {
                matches!(k, CallKind::Collective(_))
            });
            let Some(k) = found else { continue };
            if is_root {
                infos[k].is_root |= value.trim() == "1";
            } else {
                infos[k].communicator = Some(value);
            }
        }
    }
}

/// The innermost of `calls` (one process's, sorted by enter; `reach[i]`
/// the latest exit of `calls[..=i]`) of a kind `want` accepts that
/// contains `t` (boundaries included): the one entered last.
fn innermost(
    calls: &[Call],
    reach: &[f64],
    t: f64,
    want: impl Fn(CallKind) -> bool,
) -> Option<usize> {
    let mut i = calls.partition_point(|c| c.enter <= t);
    while i > 0 {
        i -= 1;
        if reach[i] < t {
            return None;
        }
        let c = &calls[i];
        if c.exit >= t && want(c.kind) {
            return Some(i);
        }
    }
    None
}

/// Each process's calls, for finding the one containing an instant.
struct CallIndex<'a> {
    calls: &'a [Call],
    /// Per process, the range of its calls in `calls`.
    ranges: Vec<std::ops::Range<usize>>,
    /// The latest exit of the process's calls up to each.
    reach: Vec<f64>,
}

impl<'a> CallIndex<'a> {
    fn new(run: &'a Run) -> CallIndex<'a> {
        let mut ranges = vec![0..0; run.processes.len()];
        let mut reach = Vec::with_capacity(run.calls.len());
        let mut i = 0;
        while i < run.calls.len() {
            let p = run.calls[i].proc as usize;
            let s = i;
            let mut r = f64::NEG_INFINITY;
            while i < run.calls.len() && run.calls[i].proc as usize == p {
                r = r.max(run.calls[i].exit);
                reach.push(r);
                i += 1;
            }
            ranges[p] = s..i;
        }
        CallIndex {
            calls: &run.calls,
            ranges,
            reach,
        }
    }

    /// The innermost call of `p` containing `t`.
    fn at(&self, p: ProcId, t: f64) -> Option<CallId> {
        let r = self.ranges.get(p as usize)?.clone();
        let k = innermost(&self.calls[r.clone()], &self.reach[r.clone()], t, |_| true)?;
        Some((r.start + k) as CallId)
    }
}

/// The messages: links between processes, with their calls.
fn messages_of(
    trace: &Trace,
    msgs: &Messages,
    owner: &[Option<ProcId>],
    index: &CallIndex<'_>,
) -> Vec<Message> {
    let mut out = Vec::new();
    for_each_link(trace, msgs, |_, from, to, start, end| {
        let (Some(Some(sender)), Some(Some(receiver))) =
            (owner.get(from.index()), owner.get(to.index()))
        else {
            return;
        };
        if start.is_nan() || end.is_nan() {
            return;
        }
        out.push(Message {
            sender: *sender,
            receiver: *receiver,
            sent: start,
            received: end,
            send_call: index.at(*sender, start),
            recv_call: index.at(*receiver, end),
        });
    });
    out.sort_by(|a, b| a.sent.total_cmp(&b.sent));
    out
}

/// What matches a collective call with those of other processes.
#[derive(Clone, PartialEq, Eq, Hash)]
enum CollKey {
    /// Same kind on the same communicator.
    Communicator(CollectiveKind, String),
    /// Same region (no communicator known).
    Region(RegionId),
}

/// The collective instances of `run`'s calls (see the module's
/// documentation), in order of their first entry.
fn collectives_of(run: &Run, infos: &[CollInfo]) -> Vec<Collective> {
    let mut out: Vec<Collective> = Vec::new();
    let mut roots: Vec<Option<usize>> = Vec::new();
    let mut root_calls: Vec<Option<CallId>> = Vec::new();
    let mut seen: HashMap<(ProcId, CollKey), u32> = HashMap::new();
    let mut instance: HashMap<(CollKey, u32), usize> = HashMap::new();
    for (id, call) in run.calls.iter().enumerate() {
        let CallKind::Collective(kind) = call.kind else {
            continue;
        };
        let info = &infos[id];
        let key = match &info.communicator {
            Some(comm) => CollKey::Communicator(kind, comm.clone()),
            None => CollKey::Region(call.region),
        };
        let n = seen.entry((call.proc, key.clone())).or_insert(0);
        let nth = *n;
        *n += 1;
        let at = *instance.entry((key, nth)).or_insert_with(|| {
            out.push(Collective {
                kind,
                region: call.region,
                communicator: info.communicator.clone(),
                root: None,
                calls: Vec::new(),
            });
            roots.push(None);
            root_calls.push(None);
            out.len() - 1
        });
        out[at].calls.push(id as CallId);
        if roots[at].is_none() {
            roots[at] = info.root;
        }
        if info.is_root && root_calls[at].is_none() {
            root_calls[at] = Some(id as CallId);
        }
    }
    for ((c, root), root_call) in out.iter_mut().zip(roots).zip(root_calls) {
        // Calls come by process: the participants are in process order.
        let needs_root = matches!(c.kind, CollectiveKind::OneToN | CollectiveKind::NToOne);
        c.root = root_call
            .or_else(|| root.and_then(|r| c.calls.get(r).copied()))
            .filter(|_| needs_root)
            .map(|k| run.calls[k as usize].proc);
    }
    let first = |c: &Collective| {
        c.calls
            .iter()
            .map(|&k| run.calls[k as usize].enter)
            .fold(f64::INFINITY, f64::min)
    };
    out.sort_by(|a, b| first(a).total_cmp(&first(b)));
    out
}

#[cfg(test)]
mod tests;
