//! The Pajé model of an archive's definitions: container types and
//! containers for the system tree, location groups and locations, with
//! their names and aliases, and what events need to find them (the
//! location of a communicator's rank, a region's name).

use std::collections::HashMap;

use crate::defs::{
    Definitions, Metric, GROUP_COMM_GROUP, GROUP_COMM_LOCATIONS, GROUP_COMM_SELF, UNDEFINED_U32,
};
use crate::error::Error;

/// A container type: its alias, name and parent type's alias.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct ContainerType {
    pub alias: Vec<u8>,
    pub name: Vec<u8>,
    pub parent: Vec<u8>,
}

/// A container: its alias, name, type (index) and parent's alias.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Container {
    pub alias: Vec<u8>,
    pub name: Vec<u8>,
    pub ctype: usize,
    pub parent: Vec<u8>,
}

/// The root container's alias (and its type's).
pub(crate) const ROOT: &[u8] = b"0";

/// A name usable as a Pajé word: quotes become apostrophes, line breaks
/// spaces; an empty name becomes `fallback`.
pub(crate) fn clean(name: Option<&[u8]>, fallback: impl FnOnce() -> String) -> Vec<u8> {
    match name {
        Some(n) if !n.is_empty() => n
            .iter()
            .map(|&b| match b {
                b'"' => b'\'',
                b'\n' | b'\r' | 0 => b' ',
                b => b,
            })
            .collect(),
        _ => fallback().into_bytes(),
    }
}

/// The archive's containers and what is needed to find them.
pub(crate) struct Model {
    pub types: Vec<ContainerType>,
    /// Containers, parents before children.
    pub containers: Vec<Container>,
    /// For each location (in definition order): its container's index.
    pub location_container: Vec<usize>,
    /// For each location type (an index into `types`): its position
    /// among location types, and whether entity types are suffixed.
    pub location_types: Vec<usize>,
    /// Container index by system tree node.
    stn: HashMap<u32, usize>,
    /// Container index by location group.
    groups: HashMap<u32, usize>,
    /// Location index by location identifier.
    location_index: HashMap<u64, usize>,
    /// Location indexes of each communicator's ranks.
    comm_ranks: HashMap<u32, Option<Vec<usize>>>,
}

const STN_KIND: u8 = 0;
const GROUP_KIND: u8 = 1;
const LOCATION_KIND: u8 = 2;

struct TypeBuilder {
    types: Vec<ContainerType>,
    by_key: HashMap<(usize, u8, Vec<u8>), usize>,
    names: HashMap<Vec<u8>, usize>,
}

impl TypeBuilder {
    /// The type of kind `kind` called `name` under type `parent` (usize::MAX: root).
    fn get(&mut self, parent: usize, kind: u8, name: Vec<u8>) -> usize {
        if let Some(&t) = self.by_key.get(&(parent, kind, name.clone())) {
            return t;
        }
        let t = self.types.len();
        let prefix = match kind {
            STN_KIND => "N",
            GROUP_KIND => "G",
            _ => "L",
        };
        let n = self.names.entry(name.clone()).or_default();
        *n += 1;
        let mut shown = name.clone();
        if *n > 1 {
            shown.extend_from_slice(format!(" ({n})").as_bytes());
        }
        self.types.push(ContainerType {
            alias: format!("{prefix}{t}").into_bytes(),
            name: shown,
            parent: if parent == usize::MAX {
                ROOT.to_vec()
            } else {
                self.types[parent].alias.clone()
            },
        });
        self.by_key.insert((parent, kind, name), t);
        t
    }
}

impl Model {
    /// The model of `d`'s definitions (`file` names the definitions in errors).
    pub fn new(d: &Definitions, file: &str) -> Result<Model, Error> {
        let s = |id: u32| d.string(id);
        let mut tb = TypeBuilder {
            types: Vec::new(),
            by_key: HashMap::new(),
            names: HashMap::new(),
        };
        let mut containers: Vec<Container> = Vec::new();
        let mut stn = HashMap::new();
        // System tree nodes, parents first.
        let nodes: HashMap<u32, usize> = d
            .system_tree
            .iter()
            .enumerate()
            .map(|(i, n)| (n.id, i))
            .collect();
        for start in 0..d.system_tree.len() {
            // The chain from this node up to a created node or a root.
            let mut chain = Vec::new();
            let mut at = Some(start);
            while let Some(i) = at {
                let n = &d.system_tree[i];
                if stn.contains_key(&n.id) {
                    break;
                }
                if chain.contains(&i) {
                    return Err(Error::Format {
                        file: file.to_string(),
                        offset: 0,
                        what: format!("system tree node {} is its own ancestor", n.id),
                    });
                }
                chain.push(i);
                at = (n.parent != UNDEFINED_U32)
                    .then(|| nodes.get(&n.parent).copied())
                    .flatten();
            }
            for &i in chain.iter().rev() {
                let n = &d.system_tree[i];
                let parent = stn.get(&n.parent).copied();
                let ptype = parent.map_or(usize::MAX, |p: usize| containers[p].ctype);
                let class = clean(s(n.class), || "System tree node".into());
                let ctype = tb.get(ptype, STN_KIND, class);
                stn.insert(n.id, containers.len());
                containers.push(Container {
                    alias: format!("n{}", n.id).into_bytes(),
                    name: clean(s(n.name), || format!("node {}", n.id)),
                    ctype,
                    parent: parent.map_or(ROOT.to_vec(), |p| containers[p].alias.clone()),
                });
            }
        }
        let first_group = containers.len();
        let mut groups = HashMap::new();
        for g in &d.location_groups {
            let parent = stn.get(&g.parent).copied();
            let ptype = parent.map_or(usize::MAX, |p| containers[p].ctype);
            let kind = match g.kind {
                1 => "Process",
                2 => "Accelerator",
                _ => "Location group",
            };
            let ctype = tb.get(ptype, GROUP_KIND, kind.as_bytes().to_vec());
            groups.insert(g.id, containers.len());
            containers.push(Container {
                alias: format!("g{}", g.id).into_bytes(),
                name: clean(s(g.name), || format!("group {}", g.id)),
                ctype,
                parent: parent.map_or(ROOT.to_vec(), |p| containers[p].alias.clone()),
            });
        }
        let first_location = containers.len();
        let mut location_container = Vec::new();
        let mut location_index = HashMap::new();
        let mut location_types = Vec::new();
        for (i, l) in d.locations.iter().enumerate() {
            let parent = groups.get(&l.group).copied();
            let ptype = parent.map_or(usize::MAX, |p| containers[p].ctype);
            let kind = match l.kind {
                1 => "Thread",
                2 => "Stream",
                3 => "Metric location",
                _ => "Location",
            };
            let ctype = tb.get(ptype, LOCATION_KIND, kind.as_bytes().to_vec());
            if !location_types.contains(&ctype) {
                location_types.push(ctype);
            }
            location_index.insert(l.id, i);
            location_container.push(containers.len());
            containers.push(Container {
                alias: format!("l{}", l.id).into_bytes(),
                name: clean(s(l.name), || format!("location {}", l.id)),
                ctype,
                parent: parent.map_or(ROOT.to_vec(), |p| containers[p].alias.clone()),
            });
        }
        // Names shared by several groups or locations ("Master thread" in
        // every process) get their parent's name.
        for range in [
            first_group..first_location,
            first_location..containers.len(),
        ] {
            let mut seen: HashMap<Vec<u8>, usize> = HashMap::new();
            for c in &containers[range.clone()] {
                *seen.entry(c.name.clone()).or_default() += 1;
            }
            let parents: HashMap<Vec<u8>, Vec<u8>> = containers
                .iter()
                .map(|c| (c.alias.clone(), c.name.clone()))
                .collect();
            for c in &mut containers[range] {
                if seen[&c.name] > 1 {
                    if let Some(p) = parents.get(&c.parent) {
                        c.name.extend_from_slice(b" (");
                        c.name.extend_from_slice(p);
                        c.name.push(b')');
                    }
                }
            }
        }
        Ok(Model {
            types: tb.types,
            containers,
            location_container,
            location_types,
            stn,
            groups,
            location_index,
            comm_ranks: HashMap::new(),
        })
    }

    /// The index of the location of rank `rank` of communicator `comm`,
    /// as seen from location `me` (a communicator of one rank is `me`).
    pub fn rank_location(
        &mut self,
        d: &Definitions,
        comm: u32,
        rank: u32,
        me: usize,
    ) -> Option<usize> {
        let index = &self.location_index;
        let ranks = self.comm_ranks.entry(comm).or_insert_with(|| {
            let c = d.comms.get(comm as u64)?;
            let g = d.groups.get(c.group as u64)?;
            match g.kind {
                GROUP_COMM_SELF => None,
                GROUP_COMM_LOCATIONS => g.members.iter().map(|l| index.get(l).copied()).collect(),
                GROUP_COMM_GROUP => {
                    let world = d.groups.iter().find_map(|(_, w)| {
                        (w.kind == GROUP_COMM_LOCATIONS && w.paradigm == g.paradigm).then_some(w)
                    })?;
                    g.members
                        .iter()
                        .map(|&r| {
                            let l = world.members.get(usize::try_from(r).ok()?)?;
                            index.get(l).copied()
                        })
                        .collect()
                }
                _ => None,
            }
        });
        match ranks {
            Some(r) => r.get(rank as usize).copied(),
            None => {
                let self_comm = d
                    .comms
                    .get(comm as u64)
                    .and_then(|c| d.groups.get(c.group as u64))
                    .is_some_and(|g| g.kind == GROUP_COMM_SELF);
                (self_comm && rank == 0).then_some(me)
            }
        }
    }

    /// The container a metric's values belong to, for location `me`: the
    /// recording location for a metric class, the instance's scope (a
    /// location, location group or system tree node) for an instance.
    pub fn metric_container(&self, d: &Definitions, metric: &Metric, me: usize) -> usize {
        let here = self.location_container[me];
        match metric {
            Metric::Class { .. } => here,
            Metric::Instance {
                scope_kind, scope, ..
            } => match scope_kind {
                0 => self
                    .location_index
                    .get(scope)
                    .map_or(here, |&l| self.location_container[l]),
                1 => u32::try_from(*scope)
                    .ok()
                    .and_then(|g| self.groups.get(&g).copied())
                    .unwrap_or(here),
                2 => u32::try_from(*scope)
                    .ok()
                    .and_then(|n| self.stn.get(&n).copied())
                    .unwrap_or(here),
                _ => {
                    let _ = d;
                    here
                }
            },
        }
    }

    /// The members of metric `m` (a class's own, an instance's class's).
    pub fn metric_members<'d>(d: &'d Definitions, m: &'d Metric) -> &'d [u32] {
        match m {
            Metric::Class { members } => members,
            Metric::Instance { class, .. } => match d.metrics.get(*class as u64) {
                Some(Metric::Class { members }) => members,
                _ => &[],
            },
        }
    }
}
