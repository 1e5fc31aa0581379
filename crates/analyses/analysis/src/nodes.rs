//! Frames of the node/arc view (seed 004): each node a circle with status
//! indicators inscribed, arcs between nodes for the messages or task
//! migrations of one kind, and the figures of a statistics panel.
//!
//! A [`NodeStage`] fixes the nodes of a run: the containers of one type
//! (its *level*; by default OpenTS's ranks, or the type of the containers
//! that hold states), each standing for itself and everything below it.
//! A [`NodeFrame`] is what the interval `[t, t + Δ]` (or the instant `t`)
//! shows:
//!
//! - per node, each variable's value at `t + Δ` (the last value set up to
//!   then), summed over the node's containers: OpenTS's task counts,
//!   memory, speed, times and message counters;
//! - per node, each state value's share of the frame, averaged over the
//!   node's containers that hold states (as [`frame`](crate::frame) gives
//!   them per process);
//! - the arcs: per (sender node, receiver node, link type, value), the
//!   links overlapping the frame, taken as half-open so that frames that
//!   follow each other (OpenTS's slices) count a link once: start < t + Δ
//!   and end > t, or a link of no length at t ≤ start < t + Δ; at an
//!   instant (Δ = 0), start ≤ t ≤ end. Per arc: how many links,
//!   their `count` (the sum of the links' field `count` when they have
//!   one, as OpenTS's migrations and messages do, else one per link), and
//!   their bytes (the sum of the field `bytes`, or of the stage's size
//!   field).
//!
//! The status indicators are the variables named `tasks_<state>` when the
//! nodes have some (OpenTS: started, prenatal, exported, imported, active,
//! suspended, finished, in that order), else the state values.
//!
//! [`ArcKind`] is what `--arcs-type` selects: OpenTS's letters, a link
//! type, or a link type and one of its values (see [`ArcKind::parse`]).

use std::collections::HashMap;

use serde::Serialize;
use trama_sim::{ContainerId, ListId, Trace, TypeId, TypeKind};

use crate::frames::{frame_states, size_of, Stage};
use crate::read::{container_name, container_type};

/// The task states of OpenTS in the seed's order: the status indicators
/// of a rank, when its variables are named `tasks_<state>`.
pub const TASK_STATES: [&str; 7] = [
    "started",
    "prenatal",
    "exported",
    "imported",
    "active",
    "suspended",
    "finished",
];

/// A node of a [`NodeStage`].
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct StageNode {
    /// Its name.
    pub name: String,
    /// Its container's id.
    pub id: u32,
}

/// What a node's status indicators show.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(tag = "kind", rename_all = "lowercase")]
pub enum Indicators {
    /// Variables (indices into [`NodeStage::variables`]), with their
    /// labels: OpenTS's task counts.
    Variables {
        /// The variables, in order.
        variables: Vec<u32>,
        /// Their labels (`started`, …).
        labels: Vec<String>,
    },
    /// The share of each state value in the frame.
    States,
}

/// The nodes of a run (see the module documentation).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct NodeStage {
    /// The nodes' container type.
    pub level: Option<String>,
    /// The nodes, depth first.
    pub nodes: Vec<StageNode>,
    /// The variable types set on the nodes or below them, by name.
    pub variables: Vec<String>,
    /// Per variable, the highest value a node reaches over the run (the
    /// sum of its containers' highest: exact when a node holds one list
    /// of it); empty when the stage was made without the run's values.
    pub maxima: Vec<f64>,
    /// What the status indicators show.
    pub indicators: Indicators,
    /// The link types between nodes, by name.
    pub link_types: Vec<String>,
    /// The user-defined field of the links read as bytes, if any.
    pub bytes_field: Option<String>,
    /// The containers that hold states, for their shares.
    #[serde(skip)]
    states: Stage,
    #[serde(skip)]
    index: HashMap<ContainerId, u32>,
    #[serde(skip)]
    var_index: HashMap<TypeId, u32>,
}

impl NodeStage {
    /// The nodes of `trace` at `level` (a container type's name or alias;
    /// `None`: the type of the containers holding `tasks_*` variables,
    /// else of those holding the most state lists, else the deepest type).
    /// `bytes_field`: the links' field of their size (`None`: `bytes`).
    /// With `maxima`, each variable's highest value over the run is read.
    pub fn new(
        trace: &Trace,
        level: Option<&str>,
        bytes_field: Option<&str>,
        maxima: bool,
    ) -> Result<NodeStage, String> {
        let m = &trace.model;
        let ty = match level {
            Some(l) => Some(container_type(trace, l).ok_or_else(|| {
                let known: Vec<String> = m
                    .types
                    .iter()
                    .filter(|t| t.kind == TypeKind::Container)
                    .map(|t| m.label(t.name))
                    .collect();
                format!(
                    "no container type is called {l:?}; the trace has {}",
                    known.join(", ")
                )
            })?),
            None => default_level(trace),
        };
        let mut stage = NodeStage {
            level: ty.map(|t| m.label(m.ty(t).name)),
            nodes: Vec::new(),
            variables: Vec::new(),
            maxima: Vec::new(),
            indicators: Indicators::States,
            link_types: Vec::new(),
            bytes_field: Some(bytes_field.unwrap_or("bytes").to_string()),
            states: Stage::new(trace, None, None),
            index: HashMap::new(),
            var_index: HashMap::new(),
        };
        if let Some(ty) = ty {
            for c in m.containers_depth_first() {
                if m.container(c).ty == ty {
                    stage.nodes.push(StageNode {
                        name: container_name(trace, c),
                        id: c.0,
                    });
                }
            }
        }
        stage.reindex(trace);
        for info in &m.lists {
            if info.kind == TypeKind::Variable && stage.index.contains_key(&info.container) {
                let name = m.label(m.ty(info.ty).name);
                if !stage.variables.contains(&name) {
                    stage.variables.push(name);
                }
            }
        }
        for t in &m.types {
            if t.kind == TypeKind::Link {
                let name = m.label(t.name);
                if !stage.link_types.contains(&name) {
                    stage.link_types.push(name);
                }
            }
        }
        stage.reindex(trace);
        if maxima {
            stage.read_maxima(trace);
        }
        Ok(stage)
    }

    /// Reads which node each container counts in, each variable type's
    /// index, and the indicators, from the nodes and variables listed.
    fn reindex(&mut self, trace: &Trace) {
        let m = &trace.model;
        let positions: HashMap<u32, u32> = self
            .nodes
            .iter()
            .enumerate()
            .map(|(i, n)| (n.id, i as u32))
            .collect();
        self.index.clear();
        for c in m.containers_depth_first() {
            // Depth first: the parent is placed already.
            let node = positions.get(&c.0).copied().or_else(|| {
                m.container(c)
                    .parent
                    .and_then(|p| self.index.get(&p).copied())
            });
            if let Some(n) = node {
                self.index.insert(c, n);
            }
        }
        self.var_index.clear();
        for (i, t) in m.types.iter().enumerate() {
            if t.kind == TypeKind::Variable {
                let name = m.label(t.name);
                if let Some(v) = self.variables.iter().position(|x| *x == name) {
                    self.var_index.insert(TypeId(i as u32), v as u32);
                }
            }
        }
        let mut tasks: Vec<(usize, u32, String)> = self
            .variables
            .iter()
            .enumerate()
            .filter_map(|(i, v)| {
                let s = v.strip_prefix("tasks_")?;
                let rank = TASK_STATES
                    .iter()
                    .position(|x| *x == s)
                    .unwrap_or(TASK_STATES.len());
                Some((rank, i as u32, s.to_string()))
            })
            .collect();
        tasks.sort();
        self.indicators = if tasks.is_empty() {
            Indicators::States
        } else {
            Indicators::Variables {
                variables: tasks.iter().map(|t| t.1).collect(),
                labels: tasks.into_iter().map(|t| t.2).collect(),
            }
        };
    }

    /// Each variable's highest value per node over the run.
    fn read_maxima(&mut self, trace: &Trace) {
        let m = &trace.model;
        let mut per: HashMap<(u32, u32), f64> = HashMap::new();
        for (l, info) in m.lists.iter().enumerate() {
            if info.kind != TypeKind::Variable {
                continue;
            }
            let (Some(n), Some(v)) = (
                self.index.get(&info.container),
                self.var_index.get(&info.ty),
            ) else {
                continue;
            };
            let top = trace.lists[l]
                .number
                .iter()
                .copied()
                .filter(|x| x.is_finite())
                .fold(f64::NEG_INFINITY, f64::max);
            if top.is_finite() {
                *per.entry((*n, *v)).or_default() += top;
            }
        }
        self.maxima = vec![0.0; self.variables.len()];
        for ((_, v), x) in per {
            let slot = &mut self.maxima[v as usize];
            *slot = slot.max(x);
        }
    }

    /// The node a container counts in.
    pub fn node_of(&self, c: ContainerId) -> Option<u32> {
        self.index.get(&c).copied()
    }

    /// Makes the stage again from a model that grew (a stream's), keeping
    /// the nodes, variables and link types it had at their indices.
    pub fn regrow(&mut self, trace: &Trace) -> Result<(), String> {
        let mut new = NodeStage::new(trace, self.level.as_deref(), None, false)?;
        new.bytes_field = self.bytes_field.clone();
        keep_first(&mut new.nodes, &self.nodes, |n| n.id);
        keep_first(&mut new.variables, &self.variables, |v| v.clone());
        keep_first(&mut new.link_types, &self.link_types, |v| v.clone());
        new.maxima = std::mem::take(&mut self.maxima);
        new.reindex(trace);
        *self = new;
        Ok(())
    }
}

/// Puts the items of `old` (by key) first in `new`, in their order.
fn keep_first<T, K: Eq + std::hash::Hash>(new: &mut [T], old: &[T], key: impl Fn(&T) -> K) {
    let rank: HashMap<K, usize> = old.iter().enumerate().map(|(i, x)| (key(x), i)).collect();
    new.sort_by_key(|x| rank.get(&key(x)).copied().unwrap_or(usize::MAX));
}

/// The default level of the nodes (see [`NodeStage::new`]).
fn default_level(trace: &Trace) -> Option<TypeId> {
    let m = &trace.model;
    let mut tasks: HashMap<TypeId, usize> = HashMap::new();
    let mut states: HashMap<TypeId, usize> = HashMap::new();
    for info in &m.lists {
        let cty = m.container(info.container).ty;
        match info.kind {
            TypeKind::Variable if m.label(m.ty(info.ty).name).starts_with("tasks_") => {
                *tasks.entry(cty).or_default() += 1
            }
            TypeKind::State => *states.entry(cty).or_default() += 1,
            _ => {}
        }
    }
    let most = |h: &HashMap<TypeId, usize>| {
        h.iter()
            .max_by_key(|(t, n)| (**n, std::cmp::Reverse(t.0)))
            .map(|(t, _)| *t)
    };
    most(&tasks).or_else(|| most(&states)).or_else(|| {
        m.types
            .iter()
            .enumerate()
            .filter(|(_, t)| t.kind == TypeKind::Container)
            .max_by_key(|(i, t)| (t.depth, std::cmp::Reverse(*i)))
            .map(|(i, _)| TypeId(i as u32))
    })
}

/// One link between nodes, as [`NodeLinks`] keeps it.
#[derive(Clone, Debug)]
struct NodeLink {
    start: f64,
    end: f64,
    from: u32,
    to: u32,
    ty: u32,
    value: u32,
    count: f64,
    bytes: Option<f64>,
}

/// The links of a trace between nodes of a [`NodeStage`], by start time.
#[derive(Clone, Debug, Default)]
pub struct NodeLinks {
    links: Vec<NodeLink>,
    /// `latest[i]`: the latest end among `links[..=i]`.
    latest: Vec<f64>,
    /// Link type and value names, by the indices the links hold.
    types: Vec<String>,
    values: Vec<String>,
    /// Per list of the trace, whether its entities are in start order.
    in_order: Vec<bool>,
}

/// One link given to [`NodeLinks::of`]: its type's and value's names,
/// its ends, times and user-defined fields `count` and bytes.
#[derive(Clone, Debug)]
pub struct LinkItem {
    /// Its link type's name.
    pub ty: String,
    /// Its value's name.
    pub value: String,
    /// The container it starts from.
    pub from: ContainerId,
    /// The container it ends at.
    pub to: ContainerId,
    /// When it starts.
    pub start: f64,
    /// When it ends (before `start`: not yet).
    pub end: f64,
    /// Its field `count`, if any.
    pub count: Option<f64>,
    /// Its size in bytes, if any.
    pub bytes: Option<f64>,
}

impl NodeLinks {
    /// Every link of `trace` between nodes of `stage`.
    pub fn new(trace: &Trace, stage: &NodeStage) -> NodeLinks {
        let m = &trace.model;
        let bytes = stage.bytes_field.as_deref();
        let mut out = NodeLinks::default();
        // Names by the model's ids, read once each.
        let mut types: HashMap<u32, u32> = HashMap::new();
        let mut values: HashMap<u32, u32> = HashMap::new();
        for (l, info) in m.lists.iter().enumerate() {
            if info.kind != TypeKind::Link {
                continue;
            }
            let ty = *types.entry(info.ty.0).or_insert_with(|| {
                out.types.push(m.label(m.ty(info.ty).name));
                out.types.len() as u32 - 1
            });
            for i in 0..trace.lists[l].len() {
                let e = trace.entity(ListId(l as u32), i);
                let (Some(from), Some(to)) = (e.from, e.to) else {
                    continue;
                };
                let (Some(from), Some(to)) = (stage.node_of(from), stage.node_of(to)) else {
                    continue;
                };
                let value = match e.value {
                    Some(v) => *values.entry(v.0).or_insert_with(|| {
                        out.values.push(m.label(m.value(v).name));
                        out.values.len() as u32 - 1
                    }),
                    None => *values.entry(u32::MAX).or_insert_with(|| {
                        out.values.push(String::new());
                        out.values.len() as u32 - 1
                    }),
                };
                out.links.push(NodeLink {
                    start: e.start,
                    end: if e.end < e.start {
                        f64::INFINITY
                    } else {
                        e.end
                    },
                    from,
                    to,
                    ty,
                    value,
                    count: size_of(m, e.extras, "count").unwrap_or(1.0),
                    bytes: bytes.and_then(|f| size_of(m, e.extras, f)),
                });
            }
        }
        out.index();
        out.in_order = trace.lists.iter().map(|c| c.start.is_sorted()).collect();
        out
    }

    /// The links given one by one.
    pub fn of(stage: &NodeStage, items: impl Iterator<Item = LinkItem>) -> NodeLinks {
        let mut out = NodeLinks::default();
        let mut types: HashMap<String, u32> = HashMap::new();
        let mut values: HashMap<String, u32> = HashMap::new();
        for it in items {
            let (Some(from), Some(to)) = (stage.node_of(it.from), stage.node_of(it.to)) else {
                continue;
            };
            let id = |names: &mut Vec<String>, map: &mut HashMap<String, u32>, s: String| {
                *map.entry(s.clone()).or_insert_with(|| {
                    names.push(s);
                    names.len() as u32 - 1
                })
            };
            let ty = id(&mut out.types, &mut types, it.ty);
            let value = id(&mut out.values, &mut values, it.value);
            out.links.push(NodeLink {
                start: it.start,
                end: if it.end < it.start {
                    f64::INFINITY
                } else {
                    it.end
                },
                from,
                to,
                ty,
                value,
                count: it.count.unwrap_or(1.0),
                bytes: it.bytes,
            });
        }
        out.index();
        out
    }

    /// Sorts the links by start and reads the latest end so far.
    fn index(&mut self) {
        self.links.sort_by(|a, b| a.start.total_cmp(&b.start));
        let mut latest = f64::NEG_INFINITY;
        self.latest = self
            .links
            .iter()
            .map(|l| {
                latest = latest.max(l.end);
                latest
            })
            .collect();
    }

    /// How many links.
    pub fn len(&self) -> usize {
        self.links.len()
    }

    /// True when there is none.
    pub fn is_empty(&self) -> bool {
        self.links.is_empty()
    }

    /// The arcs of `[t0, t1]` (see the module documentation), ordered by
    /// (from, to, type, value).
    pub fn arcs(&self, t0: f64, t1: f64) -> Vec<NodeArc> {
        let hi = self.links.partition_point(|l| l.start <= t1);
        let lo = self.latest[..hi].partition_point(|x| *x < t0);
        // (from, to, type, value) -> (links, count, bytes).
        type Key = (u32, u32, u32, u32);
        let mut arcs: HashMap<Key, (u32, f64, Option<f64>)> = HashMap::new();
        for l in &self.links[lo..hi] {
            let inside = if t1 > t0 {
                (l.start < t1 && l.end > t0) || (l.start == l.end && l.start >= t0 && l.start < t1)
            } else {
                l.start <= t0 && l.end >= t0
            };
            if !inside {
                continue;
            }
            let a = arcs.entry((l.from, l.to, l.ty, l.value)).or_default();
            a.0 += 1;
            a.1 += l.count;
            if let Some(b) = l.bytes {
                a.2 = Some(a.2.unwrap_or(0.0) + b);
            }
        }
        let mut out: Vec<NodeArc> = arcs
            .into_iter()
            .map(|((from, to, ty, value), (links, count, bytes))| NodeArc {
                from,
                to,
                ty: self.types[ty as usize].clone(),
                value: self.values[value as usize].clone(),
                links,
                count,
                bytes,
            })
            .collect();
        out.sort_by(|a, b| (a.from, a.to, &a.ty, &a.value).cmp(&(b.from, b.to, &b.ty, &b.value)));
        out
    }
}

/// The arcs of one kind between a pair of nodes in a frame.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct NodeArc {
    /// The sender (index into [`NodeStage::nodes`]).
    pub from: u32,
    /// The receiver.
    pub to: u32,
    /// The link type's name (`migration`, `message`, …).
    #[serde(rename = "type")]
    pub ty: String,
    /// The value's name (a task state, a kind of message, …).
    pub value: String,
    /// Links overlapping the frame.
    pub links: u32,
    /// Their `count` fields summed (one per link without it).
    pub count: f64,
    /// Their bytes summed, when some have a size.
    pub bytes: Option<f64>,
}

/// One node's status in a frame.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct NodeStatus {
    /// Per variable of the stage, its value at the frame's end, summed
    /// over the node's containers (`null`: not set yet).
    pub variables: Vec<Option<f64>>,
    /// Each state value's share of the frame (value id, share), largest
    /// first, averaged over the node's containers holding states.
    pub shares: Vec<(u32, f64)>,
    /// How many of the node's containers hold states.
    pub holders: u32,
}

/// What the node/arc view shows of `[t, t + dt]`.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct NodeFrame {
    /// The frame's start.
    pub t: f64,
    /// Its length.
    pub dt: f64,
    /// Per node of the stage, in its order.
    pub nodes: Vec<NodeStatus>,
    /// The arcs, by (from, to, type, value).
    pub arcs: Vec<NodeArc>,
}

/// The node frame `[t, t + dt]` of `trace`, which holds at least the
/// entities overlapping it and, per variable list, the value set last
/// before it.
pub fn node_frame(
    trace: &Trace,
    stage: &NodeStage,
    links: &NodeLinks,
    t: f64,
    dt: f64,
) -> NodeFrame {
    let dt = dt.max(0.0);
    let t1 = t + dt;
    let m = &trace.model;
    let n = stage.nodes.len();
    let mut nodes = vec![
        NodeStatus {
            variables: vec![None; stage.variables.len()],
            shares: Vec::new(),
            holders: 0,
        };
        n
    ];
    for (l, info) in m.lists.iter().enumerate() {
        if info.kind != TypeKind::Variable {
            continue;
        }
        let (Some(node), Some(v)) = (stage.node_of(info.container), stage.var_index.get(&info.ty))
        else {
            continue;
        };
        let cols = &trace.lists[l];
        let k = cols.start.partition_point(|s| *s <= t1);
        if k == 0 {
            continue;
        }
        let x = cols.number[k - 1];
        let slot = &mut nodes[node as usize].variables[*v as usize];
        *slot = Some(slot.unwrap_or(0.0) + x);
    }
    // State shares per process, then per node.
    let in_order: Vec<bool> = if links.in_order.len() == trace.lists.len() {
        links.in_order.clone()
    } else {
        trace.lists.iter().map(|c| c.start.is_sorted()).collect()
    };
    let states = frame_states(trace, &stage.states, &in_order, t, t1);
    let mut sums: Vec<HashMap<u32, f64>> = vec![HashMap::new(); n];
    let mut holders = vec![0u32; n];
    for (p, st) in stage.states.processes.iter().zip(&states) {
        let Some(node) = stage.node_of(ContainerId(p.id)) else {
            continue;
        };
        holders[node as usize] += 1;
        if dt > 0.0 {
            for (v, s) in &st.shares {
                *sums[node as usize].entry(*v).or_default() += s;
            }
        } else if let Some(v) = st.value {
            *sums[node as usize].entry(v).or_default() += 1.0;
        }
    }
    for (i, node) in nodes.iter_mut().enumerate() {
        let k = holders[i].max(1) as f64;
        let mut shares: Vec<(u32, f64)> = sums[i].iter().map(|(v, s)| (*v, s / k)).collect();
        shares.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
        node.shares = shares;
        node.holders = holders[i];
    }
    NodeFrame {
        t,
        dt,
        nodes,
        arcs: links.arcs(t, t1),
    }
}

/// Which arcs the view draws and what their labels count: what
/// `--arcs-type` selects.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct ArcKind {
    /// The key it was given by (`e`, `message`, `migration=exported`, …).
    pub key: String,
    /// What it shows, for people.
    pub label: String,
    /// The link type (`None`: every type).
    #[serde(rename = "type")]
    pub ty: Option<String>,
    /// The values kept (empty: every value).
    pub values: Vec<String>,
    /// The values left out.
    pub except: Vec<String>,
    /// Whether the labels count bytes rather than the links' `count`.
    pub bytes: bool,
}

/// OpenTS's arc types, by letter (the seed lists the letters; their
/// meanings are trama's).
pub const OPENTS_ARCS: [(&str, &str); 8] = [
    ("e", "exported tasks"),
    ("i", "imported tasks"),
    ("a", "all task migrations"),
    ("c", "ctrl messages"),
    ("d", "data messages"),
    ("m", "all messages"),
    ("s", "all messages, in bytes"),
    ("r", "other messages than ctrl and data"),
];

impl ArcKind {
    /// Every arc.
    pub fn all() -> ArcKind {
        ArcKind {
            key: "all".into(),
            label: "all arcs".into(),
            ty: None,
            values: Vec::new(),
            except: Vec::new(),
            bytes: false,
        }
    }

    /// Reads `--arcs-type`: `all`; one of OpenTS's letters
    /// ([`OPENTS_ARCS`]: `e`, `i` and `a` are links of type `migration`
    /// valued `exported`, `imported` or any; `c`, `d`, `m`, `s`, `r` are
    /// links of type `message` valued `ctrl`, `data`, any (counted, or in
    /// bytes for `s`), or any but `ctrl` and `data`); a link type's name;
    /// or `TYPE=VALUE`.
    pub fn parse(s: &str) -> Result<ArcKind, String> {
        let s = s.trim();
        if s.is_empty() {
            return Err("an empty arc type: give all, a letter (e i a c r d m s), a link type or TYPE=VALUE".into());
        }
        if s == "all" {
            return Ok(ArcKind::all());
        }
        let of = |ty: &str, values: &[&str], except: &[&str], bytes: bool| ArcKind {
            key: s.to_string(),
            label: OPENTS_ARCS
                .iter()
                .find(|(k, _)| *k == s)
                .map_or(s.to_string(), |(_, l)| l.to_string()),
            ty: Some(ty.to_string()),
            values: values.iter().map(|v| v.to_string()).collect(),
            except: except.iter().map(|v| v.to_string()).collect(),
            bytes,
        };
        Ok(match s {
            "e" => of("migration", &["exported"], &[], false),
            "i" => of("migration", &["imported"], &[], false),
            "a" => of("migration", &[], &[], false),
            "c" => of("message", &["ctrl"], &[], false),
            "d" => of("message", &["data"], &[], false),
            "m" => of("message", &[], &[], false),
            "s" => of("message", &[], &[], true),
            "r" => of("message", &[], &["ctrl", "data"], false),
            _ => match s.split_once('=') {
                Some((ty, v)) if !ty.is_empty() && !v.is_empty() => ArcKind {
                    key: s.to_string(),
                    label: format!("{ty} {v}"),
                    ty: Some(ty.to_string()),
                    values: vec![v.to_string()],
                    except: Vec::new(),
                    bytes: false,
                },
                Some(_) => return Err(format!("{s:?}: write TYPE=VALUE, both non-empty")),
                None if s.len() == 1 => {
                    return Err(format!(
                        "{s:?} is not an arc type: the letters are e i a c r d m s"
                    ))
                }
                None => ArcKind {
                    key: s.to_string(),
                    label: s.to_string(),
                    ty: Some(s.to_string()),
                    values: Vec::new(),
                    except: Vec::new(),
                    bytes: false,
                },
            },
        })
    }

    /// Whether an arc is of this kind.
    pub fn keeps(&self, arc: &NodeArc) -> bool {
        self.ty.as_ref().is_none_or(|t| *t == arc.ty)
            && (self.values.is_empty() || self.values.contains(&arc.value))
            && !self.except.contains(&arc.value)
    }

    /// What an arc of this kind counts in its label.
    pub fn measure(&self, arc: &NodeArc) -> f64 {
        if self.bytes {
            arc.bytes.unwrap_or(0.0)
        } else {
            arc.count
        }
    }

    /// The kinds a run offers: every arc, OpenTS's letters when it has
    /// links of type `migration` or `message`, then each link type.
    pub fn choices(stage: &NodeStage) -> Vec<ArcKind> {
        let mut out = vec![ArcKind::all()];
        let has = |t: &str| stage.link_types.iter().any(|x| x == t);
        for (k, _) in OPENTS_ARCS {
            let a = ArcKind::parse(k).expect("a known letter");
            if a.ty.as_deref().is_some_and(has) {
                out.push(a);
            }
        }
        for t in &stage.link_types {
            if t != "migration" && t != "message" {
                out.push(ArcKind::parse(t).expect("a name"));
            }
        }
        out
    }
}

/// Per pair of nodes (from, to), the arcs of `kind` in `frame` added up:
/// what the view draws, and what its labels say.
pub fn pair_totals(frame: &NodeFrame, kind: &ArcKind) -> Vec<(u32, u32, f64)> {
    let mut per: std::collections::BTreeMap<(u32, u32), f64> = Default::default();
    for a in frame.arcs.iter().filter(|a| kind.keeps(a)) {
        *per.entry((a.from, a.to)).or_default() += kind.measure(a);
    }
    per.into_iter().map(|((a, b), x)| (a, b, x)).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn letters_select_their_links() {
        let arc = |ty: &str, value: &str| NodeArc {
            from: 0,
            to: 1,
            ty: ty.into(),
            value: value.into(),
            links: 1,
            count: 3.0,
            bytes: Some(100.0),
        };
        let e = ArcKind::parse("e").unwrap();
        assert!(e.keeps(&arc("migration", "exported")));
        assert!(!e.keeps(&arc("migration", "imported")));
        assert!(!e.keeps(&arc("message", "exported")));
        let r = ArcKind::parse("r").unwrap();
        assert!(r.keeps(&arc("message", "ack")));
        assert!(!r.keeps(&arc("message", "ctrl")));
        let s = ArcKind::parse("s").unwrap();
        assert_eq!(s.measure(&arc("message", "data")), 100.0);
        assert_eq!(
            ArcKind::parse("m")
                .unwrap()
                .measure(&arc("message", "data")),
            3.0
        );
        let tv = ArcKind::parse("link=x").unwrap();
        assert!(tv.keeps(&arc("link", "x")) && !tv.keeps(&arc("link", "y")));
        assert!(ArcKind::parse("q").unwrap_err().contains("letters"));
        assert!(ArcKind::parse("=x").is_err());
        assert!(ArcKind::all().keeps(&arc("anything", "v")));
    }
}
