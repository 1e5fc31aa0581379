//! Communication matrix and ordering by network traffic.
//!
//! Every link overlapping the window is a message from its start container
//! to its end container. With a level (a container type), each end is
//! replaced by its ancestor of that type (a process by its host); ends with
//! no such ancestor are left out and counted in `unplaced`.
//!
//! [`comm_matrix`]: per (from, to) pair, the number of messages; with a size
//! field (a user-defined field of the links, e.g. `Size`, in bytes) the bytes
//! and the mean effective rate, `8 × bytes / (end − start)` in bits per
//! second over the messages that have a size and a positive duration.
//!
//! [`order`]: the seed's ordering for the space-time view. Hosts (the
//! containers of the level) in descending order of the messages they put on
//! the network (links whose ends are on different hosts, counted at the
//! sender's host), then, inside each host, its processes (the containers
//! below it that are ends of links, or of the same type as such ends) in
//! descending order of their off-host messages sent; ties by name.

use std::collections::{BTreeMap, HashMap};

use serde::Serialize;
use trama_sim::{ContainerId, Trace, TypeId, TypeKind};

use crate::read::{ancestor, container_name, container_type, depth_first_positions, links, placer};
use crate::window::{Part, Window};
use crate::Messages;

/// One pair of [`CommMatrix`].
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct CommPair {
    /// Sender (container name).
    pub from: String,
    /// Receiver.
    pub to: String,
    /// Messages.
    pub count: u64,
    /// Bytes (only with a size field).
    pub bytes: Option<f64>,
    /// Mean effective rate in bits per second (only with a size field and
    /// at least one message of positive duration).
    pub rate: Option<f64>,
}

/// What [`comm_matrix`] computes.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct CommMatrix {
    /// The window.
    pub window: Window,
    /// The container type of the rows and columns, if any.
    pub level: Option<String>,
    /// The user-defined field read as a size in bytes, if any.
    pub size_field: Option<String>,
    /// Containers that send or receive, depth-first.
    pub containers: Vec<String>,
    /// Pairs with at least one message, in the order of `containers`.
    pub pairs: Vec<CommPair>,
    /// Messages with an end outside every container of the level.
    pub unplaced: u64,
    /// Messages whose size field is missing or not a number.
    pub without_size: u64,
}

/// Every message overlapping the window (a link of a type `messages`
/// counts, with both ends), list by list: (from, to, start, end, size),
/// the size read from the user-defined field `size_field` when it holds a
/// number. The messages [`comm_matrix`] counts.
pub fn messages<'a>(
    trace: &'a Trace,
    window: &'a Window,
    messages: &'a Messages,
    size_field: Option<&'a str>,
) -> impl Iterator<Item = (ContainerId, ContainerId, f64, f64, Option<f64>)> + 'a {
    let m = &trace.model;
    links(trace, messages)
        .filter(|(e, _, _)| window.overlaps(e.start, e.end))
        .map(move |(e, from, to)| {
            let size = size_field.and_then(|f| {
                e.extras
                    .chunks_exact(2)
                    .find(|p| m.names(p[0], f))
                    .and_then(|p| std::str::from_utf8(m.str(p[1])).ok())
                    .and_then(|v| v.trim().trim_matches('"').parse::<f64>().ok())
            });
            (from, to, e.start, e.end, size)
        })
}

/// The communication matrix over `window`, at `level` (a container type's
/// name or alias; `None`: the link ends themselves), with sizes read from
/// the user-defined field `size_field`. `None` when no container type is
/// called `level`. The trace must have been simulated with user-defined
/// fields kept for sizes to be found.
pub fn comm_matrix(
    trace: &Trace,
    window: Window,
    msgs: &Messages,
    level: Option<&str>,
    size_field: Option<&str>,
) -> Option<CommMatrix> {
    let mut acc = CommParts::default();
    acc.add(trace, window, &Part::whole(window), msgs, level, size_field)?;
    Some(finish_comm(trace, acc, window, level, size_field))
}

/// One pair's messages.
#[derive(Clone, Copy, Debug, Default)]
struct PairAcc {
    count: u64,
    bytes: f64,
    rate_sum: f64,
    rated: u64,
}

/// The messages of a window added up part by part ([`Part`]): each
/// message is counted in the part where it enters the window.
#[derive(Clone, Debug, Default)]
pub(crate) struct CommParts {
    pairs: HashMap<(ContainerId, ContainerId), PairAcc>,
    unplaced: u64,
    without_size: u64,
}

impl CommParts {
    /// Keeps the pairs (sender, receiver) for which `keep` holds.
    pub(crate) fn retain(&mut self, keep: impl Fn(ContainerId, ContainerId) -> bool) {
        self.pairs.retain(|&(a, b), _| keep(a, b));
    }

    /// Adds the messages of `trace` entering `window` in `part`; `None`
    /// when no container type is called `level`.
    pub(crate) fn add(
        &mut self,
        trace: &Trace,
        window: Window,
        part: &Part,
        msgs: &Messages,
        level: Option<&str>,
        size_field: Option<&str>,
    ) -> Option<()> {
        let place = placer(trace, level)?;
        for (from, to, s, e, size) in messages(trace, &window, msgs, size_field) {
            if !part.holds(s.max(window.start)) {
                continue;
            }
            let (Some(a), Some(b)) = (place(from), place(to)) else {
                self.unplaced += 1;
                continue;
            };
            let acc = self.pairs.entry((a, b)).or_default();
            acc.count += 1;
            match size {
                Some(bytes) => {
                    acc.bytes += bytes;
                    if e > s {
                        acc.rate_sum += 8.0 * bytes / (e - s);
                        acc.rated += 1;
                    }
                }
                None if size_field.is_some() => self.without_size += 1,
                None => {}
            }
        }
        Some(())
    }
}

/// The communication matrix of the messages `acc` added up; only
/// `trace`'s model is read.
pub(crate) fn finish_comm(
    trace: &Trace,
    acc: CommParts,
    window: Window,
    level: Option<&str>,
    size_field: Option<&str>,
) -> CommMatrix {
    let CommParts {
        pairs,
        unplaced,
        without_size,
    } = acc;
    let pos = depth_first_positions(trace);
    let mut keys: Vec<(ContainerId, ContainerId)> = pairs.keys().copied().collect();
    keys.sort_by_key(|(a, b)| (pos[a], pos[b]));
    let mut involved: Vec<ContainerId> = keys.iter().flat_map(|(a, b)| [*a, *b]).collect();
    involved.sort_by_key(|c| pos[c]);
    involved.dedup();
    CommMatrix {
        window,
        level: level.map(String::from),
        size_field: size_field.map(String::from),
        containers: involved.iter().map(|c| container_name(trace, *c)).collect(),
        pairs: keys
            .iter()
            .map(|k| {
                let a = &pairs[k];
                CommPair {
                    from: container_name(trace, k.0),
                    to: container_name(trace, k.1),
                    count: a.count,
                    bytes: size_field.map(|_| a.bytes),
                    rate: (a.rated > 0).then(|| a.rate_sum / a.rated as f64),
                }
            })
            .collect(),
        unplaced,
        without_size,
    }
}

/// A host and its processes in [`Ordering`].
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct OrderedHost {
    /// Host name.
    pub host: String,
    /// Messages it put on the network.
    pub sent_off_host: u64,
    /// Its processes, in order, with their off-host messages sent.
    pub processes: Vec<(String, u64)>,
    /// Its container.
    #[serde(skip)]
    pub id: ContainerId,
    /// Its processes' containers, in the order of `processes`.
    #[serde(skip)]
    pub process_ids: Vec<ContainerId>,
}

/// What [`order`] computes.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Ordering {
    /// The window.
    pub window: Window,
    /// The container type of the hosts.
    pub level: String,
    /// Hosts in order.
    pub hosts: Vec<OrderedHost>,
}

/// The seed's ordering of hosts and processes by off-host messages over
/// `window`; hosts are the containers of type `level`, processes the
/// containers below them of the types that exchange messages (without
/// messages, of the types that hold states). `None` when no container
/// type is called `level`.
pub fn order(trace: &Trace, window: Window, msgs: &Messages, level: &str) -> Option<Ordering> {
    let pairs = messages(trace, &window, msgs, None).map(|(from, to, _, _, _)| (from, to, 1));
    order_of(trace, window, pairs, level)
}

/// [`order`] from the messages themselves: `(from, to, how many)`. Only
/// the trace's model is read.
pub fn order_of(
    trace: &Trace,
    window: Window,
    messages: impl Iterator<Item = (ContainerId, ContainerId, u64)>,
    level: &str,
) -> Option<Ordering> {
    let m = &trace.model;
    let host_ty = container_type(trace, level)?;
    let mut host_sent: HashMap<ContainerId, u64> = HashMap::new();
    let mut proc_sent: HashMap<ContainerId, u64> = HashMap::new();
    let mut proc_types: Vec<TypeId> = Vec::new();
    for (from, to, n) in messages {
        for c in [from, to] {
            let t = m.container(c).ty;
            if !proc_types.contains(&t) {
                proc_types.push(t);
            }
        }
        let (Some(a), Some(b)) = (ancestor(trace, from, host_ty), ancestor(trace, to, host_ty))
        else {
            continue;
        };
        if a != b {
            *host_sent.entry(a).or_default() += n;
            *proc_sent.entry(from).or_default() += n;
        }
    }
    // Processes are the containers that exchange messages, and those of a
    // type that holds states: one that sends nothing is still a process.
    for t in 0..m.types.len() as u32 {
        let t = TypeId(t);
        let holds_states = m
            .ty(t)
            .children
            .iter()
            .any(|c| m.ty(*c).kind == TypeKind::State);
        if holds_states && !proc_types.contains(&t) {
            proc_types.push(t);
        }
    }
    let sent = |counts: &HashMap<ContainerId, u64>, c: &ContainerId| -> u64 {
        counts.get(c).copied().unwrap_or(0)
    };
    // Most messages sent first, ties by name (numbers in names by value).
    let sort = |cs: &mut Vec<ContainerId>, counts: &HashMap<ContainerId, u64>| {
        cs.sort_by(|a, b| {
            sent(counts, b).cmp(&sent(counts, a)).then_with(|| {
                trama_sim::natural_cmp_bytes(
                    m.str(m.container(*a).name),
                    m.str(m.container(*b).name),
                )
            })
        });
    };
    let mut hosts: Vec<ContainerId> = (0..m.containers.len() as u32)
        .map(ContainerId)
        .filter(|c| m.container(*c).ty == host_ty)
        .collect();
    sort(&mut hosts, &host_sent);
    let mut below: BTreeMap<ContainerId, Vec<ContainerId>> = BTreeMap::new();
    for c in 0..m.containers.len() as u32 {
        let c = ContainerId(c);
        let info = m.container(c);
        if info.ty == host_ty || !proc_types.contains(&info.ty) {
            continue;
        }
        if let Some(h) = info.parent.and_then(|p| ancestor(trace, p, host_ty)) {
            below.entry(h).or_default().push(c);
        }
    }
    Some(Ordering {
        window,
        level: level.to_string(),
        hosts: hosts
            .iter()
            .map(|h| {
                let mut procs = below.remove(h).unwrap_or_default();
                sort(&mut procs, &proc_sent);
                OrderedHost {
                    host: container_name(trace, *h),
                    sent_off_host: sent(&host_sent, h),
                    processes: procs
                        .iter()
                        .map(|p| (container_name(trace, *p), sent(&proc_sent, p)))
                        .collect(),
                    id: *h,
                    process_ids: procs,
                }
            })
            .collect(),
    })
}
