//! The global definitions (`<name>.def`): strings, the system tree,
//! location groups and locations, regions, groups and communicators,
//! metrics, and the clock properties.
//!
//! A definition record is its type byte, its length (one byte, or `0xff`
//! and a full 64-bit length) and its attributes in the order of the OTF2
//! version that introduced them: attributes added later come last, so a
//! record shorter than this reader expects lacks only the newest ones
//! (they take their default), and a longer one has newer attributes,
//! skipped. Records this reader does not use are skipped by their length
//! and counted.

use std::collections::BTreeMap;

use crate::buf::Cursor;
use crate::chunks::Chunks;
use crate::error::Bad;
use crate::records::{def, definition_name};
use crate::table::Table;

/// The undefined reference of 32-bit identifiers.
pub const UNDEFINED_U32: u32 = u32::MAX;
/// The undefined reference of 64-bit identifiers.
pub const UNDEFINED_U64: u64 = u64::MAX;

/// The clock of the trace: timestamps are ticks, `resolution` per second,
/// counted from `offset`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Clock {
    /// Ticks per second.
    pub resolution: u64,
    /// The tick the trace starts at.
    pub offset: u64,
    /// The length of the trace in ticks.
    pub length: u64,
}

impl Default for Clock {
    fn default() -> Self {
        Clock {
            resolution: 1,
            offset: 0,
            length: 0,
        }
    }
}

/// A node of the system tree (a machine, a node, …).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SystemTreeNode {
    /// Its identifier.
    pub id: u32,
    /// Its name (a string reference).
    pub name: u32,
    /// Its class, e.g. `machine` or `node` (a string reference).
    pub class: u32,
    /// Its parent node, or [`UNDEFINED_U32`].
    pub parent: u32,
}

/// A location group (a process, an accelerator).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LocationGroup {
    /// Its identifier.
    pub id: u32,
    /// Its name (a string reference).
    pub name: u32,
    /// 0 unknown, 1 process, 2 accelerator.
    pub kind: u8,
    /// The system tree node it belongs to.
    pub parent: u32,
}

/// A location (a thread, a stream): it has an event file of its own.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Location {
    /// Its identifier (the name of its files).
    pub id: u64,
    /// Its name (a string reference).
    pub name: u32,
    /// 0 unknown, 1 CPU thread, 2 accelerator stream, 3 metric location.
    pub kind: u8,
    /// Events the writer says it wrote.
    pub events: u64,
    /// Its location group.
    pub group: u32,
}

/// A code region.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Region {
    /// Its name (a string reference).
    pub name: u32,
    /// Its canonical name, or [`UNDEFINED_U32`].
    pub canonical: u32,
    /// Its role (`OTF2_RegionRole`).
    pub role: u8,
    /// Its paradigm (`OTF2_Paradigm`).
    pub paradigm: u8,
}

/// A group of locations, ranks, regions or metrics.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Group {
    /// Its name (a string reference).
    pub name: u32,
    /// `OTF2_GroupType`: 4 the locations of a paradigm's communicators
    /// (`COMM_LOCATIONS`), 5 a communicator's ranks in it (`COMM_GROUP`),
    /// 6 a communicator of one rank (`COMM_SELF`).
    pub kind: u8,
    /// Its paradigm.
    pub paradigm: u8,
    /// Its members.
    pub members: Vec<u64>,
}

/// Group types of communicators.
pub const GROUP_COMM_LOCATIONS: u8 = 4;
/// A communicator's group: ranks in the `COMM_LOCATIONS` group.
pub const GROUP_COMM_GROUP: u8 = 5;
/// The group of a communicator of one rank.
pub const GROUP_COMM_SELF: u8 = 6;

/// A communicator.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Comm {
    /// Its name (a string reference).
    pub name: u32,
    /// Its group.
    pub group: u32,
}

/// A member of a metric: one value of a metric event.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MetricMember {
    /// Its name (a string reference).
    pub name: u32,
    /// Its unit (a string reference).
    pub unit: u32,
    /// The type of its values: 4 `UINT64`, 8 `INT64`, 10 `DOUBLE`.
    pub value_type: u8,
}

/// A metric, as metric events refer to it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Metric {
    /// Members recorded by the location that writes the events.
    Class {
        /// Its members.
        members: Vec<u32>,
    },
    /// A class's members, recorded for a scope.
    Instance {
        /// The metric class.
        class: u32,
        /// The location that records it.
        recorder: u64,
        /// 0 a location, 1 a location group, 2 a system tree node, 3 a group.
        scope_kind: u8,
        /// The scope's identifier.
        scope: u64,
    },
}

/// The global definitions of an archive.
#[derive(Clone, Debug, Default)]
pub struct Definitions {
    /// The clock.
    pub clock: Clock,
    /// Strings by identifier.
    pub strings: Table<Box<[u8]>>,
    /// The system tree, in definition order.
    pub system_tree: Vec<SystemTreeNode>,
    /// Location groups, in definition order.
    pub location_groups: Vec<LocationGroup>,
    /// Locations, in definition order.
    pub locations: Vec<Location>,
    /// Regions by identifier.
    pub regions: Table<Region>,
    /// Groups by identifier.
    pub groups: Table<Group>,
    /// Communicators by identifier.
    pub comms: Table<Comm>,
    /// Metric members by identifier.
    pub metric_members: Table<MetricMember>,
    /// Metric classes and instances by identifier.
    pub metrics: Table<Metric>,
    /// Records read, by name (`otf2-print`'s), the skipped ones included.
    pub counts: BTreeMap<String, u64>,
}

impl Definitions {
    /// The string `id`, or `None` when undefined.
    pub fn string(&self, id: u32) -> Option<&[u8]> {
        self.strings.get(id as u64).map(|s| &s[..])
    }
}

fn count(counts: &mut BTreeMap<String, u64>, id: u8) {
    let name = match definition_name(id) {
        Some(n) => n.to_string(),
        None => format!("unknown definition record {id}"),
    };
    *counts.entry(name).or_default() += 1;
}

/// Reads the global definitions file `data` (chunks of `chunk_size`).
pub(crate) fn read_global(data: &[u8], chunk_size: usize) -> Result<Definitions, Bad> {
    let mut d = Definitions::default();
    let mut chunks = Chunks::open_definitions(data, chunk_size)?;
    while let Some((id, mut c)) = chunks.next_definition()? {
        count(&mut d.counts, id);
        definition(&mut d, id, &mut c)?;
    }
    Ok(d)
}

/// Whether the record has attributes left (newer attributes are absent
/// from records written by older versions).
fn more(c: &Cursor<'_>) -> bool {
    c.remaining() > 0
}

/// A `ClockProperties` record.
fn clock(c: &mut Cursor<'_>) -> Result<Clock, Bad> {
    let resolution = c.u64c()?;
    let offset = c.u64c()?;
    let length = c.u64c()?;
    if resolution == 0 {
        return Err(Bad::new(
            c.pos,
            "the clock's resolution is 0 ticks per second",
        ));
    }
    Ok(Clock {
        resolution,
        offset,
        length,
    })
}

/// A `Region` record: its id and what is kept of it.
fn region(c: &mut Cursor<'_>) -> Result<(u64, Region), Bad> {
    let id = c.u32c()?;
    let name = c.u32c()?;
    let _description = c.u32c()?;
    let _region_type = c.u8()?;
    let _file = c.u32c()?;
    let _begin = c.u32c()?;
    let _end = c.u32c()?;
    let (mut canonical, mut role, mut paradigm) = (UNDEFINED_U32, 0, 0);
    if more(c) {
        canonical = c.u32c()?;
        role = c.u8()?;
        paradigm = c.u8()?;
    }
    Ok((
        id as u64,
        Region {
            name,
            canonical,
            role,
            paradigm,
        },
    ))
}

/// A `Group` record: its id and the group.
fn group(c: &mut Cursor<'_>) -> Result<(u64, Group), Bad> {
    let id = c.u32c()?;
    let name = c.u32c()?;
    let pre12 = c.u8()?;
    let n = c.u32c()?;
    if n as usize > c.remaining() {
        return Err(Bad::new(
            c.pos,
            format!("a group of {n} members in {} bytes", c.remaining()),
        ));
    }
    let mut members = Vec::with_capacity(n as usize);
    for _ in 0..n {
        members.push(c.u64c()?);
    }
    // Before OTF2 1.2 the type was the attribute now in the attic,
    // where MPI's groups had types of their own.
    let (mut kind, mut paradigm) = match pre12 {
        4 => (GROUP_COMM_GROUP, 4),
        5 => (GROUP_COMM_SELF, 4),
        6 => (GROUP_COMM_LOCATIONS, 4),
        k => (k, 0),
    };
    if more(c) {
        kind = c.u8()?;
        paradigm = c.u8()?;
    }
    Ok((
        id as u64,
        Group {
            name,
            kind,
            paradigm,
            members,
        },
    ))
}

/// A `MetricMember` record: its id and what is kept of it.
fn metric_member(c: &mut Cursor<'_>) -> Result<(u64, MetricMember), Bad> {
    let id = c.u32c()?;
    let name = c.u32c()?;
    let _description = c.u32c()?;
    let _metric_type = c.u8()?;
    let _mode = c.u8()?;
    let value_type = c.u8()?;
    let _base = c.u8()?;
    let _exponent = c.i64c()?;
    let unit = c.u32c()?;
    Ok((
        id as u64,
        MetricMember {
            name,
            unit,
            value_type,
        },
    ))
}

fn definition(d: &mut Definitions, id: u8, c: &mut Cursor<'_>) -> Result<(), Bad> {
    match id {
        def::CLOCK_PROPERTIES => d.clock = clock(c)?,
        def::STRING => {
            let id = c.u32c()?;
            let s = c.string()?;
            d.strings.insert(id as u64, s.into());
        }
        def::SYSTEM_TREE_NODE => {
            let id = c.u32c()?;
            let name = c.u32c()?;
            let class = c.u32c()?;
            let parent = c.u32c()?;
            d.system_tree.push(SystemTreeNode {
                id,
                name,
                class,
                parent,
            });
        }
        def::LOCATION_GROUP => {
            let id = c.u32c()?;
            let name = c.u32c()?;
            let kind = c.u8()?;
            let parent = c.u32c()?;
            d.location_groups.push(LocationGroup {
                id,
                name,
                kind,
                parent,
            });
        }
        def::LOCATION => {
            let id = c.u64c()?;
            let name = c.u32c()?;
            let kind = c.u8()?;
            let events = c.u64c()?;
            let group = c.u32c()?;
            d.locations.push(Location {
                id,
                name,
                kind,
                events,
                group,
            });
        }
        def::REGION => {
            let (id, r) = region(c)?;
            d.regions.insert(id, r);
        }
        def::GROUP => {
            let (id, g) = group(c)?;
            d.groups.insert(id, g);
        }
        def::METRIC_MEMBER => {
            let (id, m) = metric_member(c)?;
            d.metric_members.insert(id, m);
        }
        def::METRIC_CLASS => {
            let id = c.u32c()?;
            let n = c.u8()?;
            let mut members = Vec::with_capacity(n as usize);
            for _ in 0..n {
                members.push(c.u32c()?);
            }
            d.metrics.insert(id as u64, Metric::Class { members });
        }
        def::METRIC_INSTANCE => {
            let id = c.u32c()?;
            let class = c.u32c()?;
            let recorder = c.u64c()?;
            let scope_kind = c.u8()?;
            let scope = c.u64c()?;
            d.metrics.insert(
                id as u64,
                Metric::Instance {
                    class,
                    recorder,
                    scope_kind,
                    scope,
                },
            );
        }
        def::COMM => {
            let id = c.u32c()?;
            let name = c.u32c()?;
            let group = c.u32c()?;
            d.comms.insert(id as u64, Comm { name, group });
        }
        _ => {}
    }
    Ok(())
}
