//! The events of an archive as Pajé events: the container hierarchy
//! first, then the locations' events merged in time order, each mapped as
//! the crate documentation says.

use std::collections::{BTreeMap, HashMap};
use std::sync::atomic::{AtomicU64, Ordering};

use trama_events::{Event as PajeEvent, EventDef};
use trama_sim::{ContainerId, HandleEvent};

use crate::archive::Archive;
use crate::batch::{Batch, Rec, Stopped};
use crate::defs::{Definitions, UNDEFINED_U32};
use crate::error::Error;
use crate::events::{Event, Kind, MetricValue};
use crate::model::{clean, Model, ROOT};
use crate::out::{Cont, Defs, Ent, Out, Ty, Val, Which};
use crate::records::{collective_name, event_name, paradigm_name};
use crate::regions::{Leave, OpenRegions};
use crate::words::{write_time, write_u64};

/// Why [`read_paje`] stopped.
#[derive(Debug)]
pub enum ReadError<E> {
    /// The archive is damaged or cannot be read.
    Archive(Error),
    /// The handler of the events stopped.
    Handler(E),
}

impl<E> From<Error> for ReadError<E> {
    fn from(e: Error) -> Self {
        ReadError::Archive(e)
    }
}

/// A Pajé event of the mapping: by its words, or (entity events, with
/// [`read_paje_items`]'s `handles`) by the simulator's handles.
pub enum Item<'a> {
    /// An event given by its words.
    Event(PajeEvent<'a>),
    /// An entity event given by handles.
    Handles(&'a HandleEvent<'a>),
}

/// What a reading of an archive found.
#[derive(Clone, Debug, Default)]
pub struct Stats {
    /// Pajé events handed over.
    pub events: u64,
    /// OTF2 event records read.
    pub records: u64,
    /// Event records by type (`otf2-print`'s names), mapped or not.
    pub counts: BTreeMap<String, u64>,
    /// The event records of types not mapped to Pajé, by type.
    pub skipped: BTreeMap<String, u64>,
    /// Attribute lists (skipped).
    pub attribute_lists: u64,
    /// The Pajé event definitions the events follow.
    pub definitions: Vec<EventDef>,
    /// Remarks about records that could not be mapped.
    pub warnings: Vec<String>,
}

impl Stats {
    /// The counts as lines for a summary: records by type, then those
    /// skipped.
    pub fn summary(&self) -> Vec<String> {
        let list = |m: &BTreeMap<String, u64>| {
            m.iter()
                .map(|(k, v)| format!("{k} {v}"))
                .collect::<Vec<_>>()
                .join(", ")
        };
        let mut out = vec![format!(
            "OTF2 event records {} ({}), attribute lists {}",
            self.records,
            list(&self.counts),
            self.attribute_lists
        )];
        if !self.skipped.is_empty() {
            out.push(format!(
                "OTF2 records skipped (not mapped to Pajé): {}",
                list(&self.skipped)
            ));
        }
        out
    }
}

/// The entity types defined in each location type, made on first use.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Entity {
    Region,
    Collective,
    Fork,
    Team,
    Request,
    ThreadEvent,
}

const ENTITIES: usize = 6;

impl Entity {
    fn alias_prefix(self) -> &'static str {
        match self {
            Entity::Region => "R",
            Entity::Collective => "C",
            Entity::Fork => "F",
            Entity::Team => "T",
            Entity::Request => "Q",
            Entity::ThreadEvent => "E",
        }
    }

    fn name(self) -> &'static str {
        match self {
            Entity::Region => "Region",
            Entity::Collective => "MPI collective",
            Entity::Fork => "Thread fork",
            Entity::Team => "Thread team",
            Entity::Request => "MPI request",
            Entity::ThreadEvent => "Thread event",
        }
    }

    fn is_state(self) -> bool {
        !matches!(self, Entity::Request | Entity::ThreadEvent)
    }
}

/// Region identifiers below this are looked up in vectors.
const DENSE_REGIONS: u32 = 1 << 20;

/// The name of `region` in the dense names (below [`DENSE_REGIONS`]) or
/// the sparse ones, empty when it has none yet.
#[inline]
fn known_region_name<'a>(
    dense: &'a [Option<Vec<u8>>],
    sparse: &'a HashMap<u32, Vec<u8>>,
    region: u32,
) -> &'a [u8] {
    if region < DENSE_REGIONS {
        dense[region as usize].as_deref().unwrap_or_default()
    } else {
        sparse.get(&region).map_or(&[][..], |n| &n[..])
    }
}

/// The state of a mapping in progress.
struct Mapper<'a, F> {
    d: &'a Definitions,
    model: Model,
    out: Out<F>,
    /// Every container (the model's, in order), with its handle.
    containers: Vec<Cont>,
    /// For each location: its container's index and its location type's
    /// position among location types.
    locations: Vec<(usize, usize)>,
    /// Entity types made, by location type position.
    made: Vec<[Option<Ty>; ENTITIES]>,
    /// The handles of region values, by location type position and region.
    region_values: Vec<Vec<u32>>,
    region_names: Vec<Option<Vec<u8>>>,
    sparse_region_names: HashMap<u32, Vec<u8>>,
    link_types: HashMap<(usize, usize), Ty>,
    variable_types: HashMap<(usize, u32), Ty>,
    /// Messages sent and received so far, by (communicator, sender,
    /// receiver, tag).
    messages: HashMap<(u32, u64, u64, u32), (u64, u64)>,
    comm_names: HashMap<u32, Vec<u8>>,
    /// The regions open on each location.
    open: OpenRegions,
    key: Vec<u8>,
    unresolved: u64,
    unfinished_collectives: u64,
    unknown_metrics: u64,
}

impl<'a, E, F> Mapper<'a, F>
where
    F: FnMut(Item<'_>) -> Result<(), E>,
{
    fn header(&mut self) -> Result<(), ReadError<E>> {
        for t in &self.model.types {
            let words: [&[u8]; 3] = [&t.name, &t.parent, &t.alias];
            self.out
                .define_type(|d| &d.container_type, &words, t.alias.clone())?;
        }
        for (i, c) in self.model.containers.iter().enumerate() {
            let words: [&[u8]; 5] = [
                b"0",
                &c.name,
                &self.model.types[c.ctype].alias,
                &c.parent,
                &c.alias,
            ];
            self.out.words(|d| &d.create, &words)?;
            let alias = self.out.alias(c.alias.clone());
            self.containers.push(Cont {
                alias,
                id: ContainerId(i as u32 + 1),
            });
        }
        Ok(())
    }

    /// Entity type `e` of location `loc`'s type, defined on first use.
    #[inline]
    fn entity_type(&mut self, loc: usize, e: Entity) -> Result<Ty, ReadError<E>> {
        let k = self.locations[loc].1;
        if let Some(t) = self.made[k][e as usize] {
            return Ok(t);
        }
        {
            let ltype = self.model.location_types[k];
            let t = &self.model.types[ltype];
            let alias = format!("{}{k}", e.alias_prefix()).into_bytes();
            let mut name = e.name().as_bytes().to_vec();
            if k > 0 {
                name.extend_from_slice(b" (");
                name.extend_from_slice(&t.name);
                name.push(b')');
            }
            let parent = t.alias.clone();
            let which: Which = if e.is_state() {
                |d| &d.state_type
            } else {
                |d| &d.event_type
            };
            let ty = self
                .out
                .define_type(which, &[&name, &parent, &alias], alias.clone())?;
            self.made[k][e as usize] = Some(ty);
            Ok(ty)
        }
    }

    fn comm_name(&mut self, comm: u32) -> &[u8] {
        let d = self.d;
        self.comm_names.entry(comm).or_insert_with(|| {
            let name = d.comms.get(comm as u64).and_then(|c| d.string(c.name));
            clean(name, || format!("communicator {comm}"))
        })
    }

    /// A region's name, for a message.
    fn region_text(&mut self, region: u32) -> String {
        String::from_utf8_lossy(self.region_name(region)).into_owned()
    }

    fn region_name(&mut self, region: u32) -> &[u8] {
        let d = self.d;
        let make = || {
            let name = d.regions.get(region as u64).and_then(|r| d.string(r.name));
            clean(name, || format!("region {region}"))
        };
        if region < DENSE_REGIONS {
            let i = region as usize;
            if self.region_names.len() <= i {
                self.region_names.resize(i + 1, None);
            }
            self.region_names[i].get_or_insert_with(make)
        } else {
            self.sparse_region_names.entry(region).or_insert_with(make)
        }
    }

    /// A region entered on location `loc`.
    #[inline]
    fn enter(&mut self, loc: usize, time: u64, region: u32) -> Result<(), ReadError<E>> {
        self.open.enter(loc, region);
        let ty = self.entity_type(loc, Entity::Region)?;
        let (c, k) = self.locations[loc];
        let known = self.region_values[k]
            .get(region as usize)
            .copied()
            .filter(|&v| v != u32::MAX);
        let (id, new) = match known {
            Some(v) => (v, false),
            None => {
                self.region_name(region);
                let name = known_region_name(&self.region_names, &self.sparse_region_names, region);
                let (v, new) = self.out.value_id(ty.id, name);
                if region < DENSE_REGIONS {
                    let cache = &mut self.region_values[k];
                    if cache.len() <= region as usize {
                        cache.resize(region as usize + 1, u32::MAX);
                    }
                    cache[region as usize] = v;
                }
                (v, new)
            }
        };
        // The name is needed for words, or for a value's first use.
        if !self.out.handles || new {
            self.region_name(region);
        }
        let name: &[u8] = if self.out.handles && !new {
            &[]
        } else {
            known_region_name(&self.region_names, &self.sparse_region_names, region)
        };
        self.out.entity(Ent {
            which: |d| &d.push,
            time,
            ty,
            container: self.containers[c],
            value: Some(Val { name, id, new }),
            number: None,
            other: None,
            extras: &[],
        })
    }

    /// A region left on location `loc`, as the rule of [`crate::regions`]
    /// says: the states it ends, and the regions entered again.
    #[inline]
    fn leave(&mut self, loc: usize, time: u64, region: u32) -> Result<(), ReadError<E>> {
        match self.open.leave(loc, time, region) {
            Leave::Innermost => self.pop(loc, time, Entity::Region),
            Leave::Below { reenter } => {
                for _ in 0..=reenter.len() {
                    self.pop(loc, time, Entity::Region)?;
                }
                for r in reenter {
                    self.enter(loc, time, r)?;
                }
                Ok(())
            }
        }
    }

    /// The warning about the `Leave` records that did not name the
    /// innermost open region, if any.
    fn leave_warning(&mut self) -> Option<String> {
        let first = self.open.first?;
        let mut pairs = Vec::new();
        for ((open, named), n) in self.open.most_often(3) {
            let (open, named) = (self.region_text(open), self.region_text(named));
            pairs.push(format!("'{open}' left as '{named}' ({n})"));
        }
        let (open, named) = (self.region_text(first.open), self.region_text(first.named));
        let c = self.locations[first.location].0 - 1;
        let location = String::from_utf8_lossy(&self.model.containers[c].name).into_owned();
        let mut at = Vec::new();
        write_time(&mut at, &self.d.clock, first.time);
        let mut kinds = Vec::new();
        if self.open.below > 0 {
            kinds.push(format!(
                "{} a region further down: it ends with the regions above it, entered again",
                self.open.below
            ));
        }
        if self.open.unopened > 0 {
            kinds.push(format!(
                "{} a region not open: the innermost ends",
                self.open.unopened
            ));
        }
        Some(format!(
            "{} OTF2 Leave records name a region other than the innermost one open on their location \
             ({}); each interval keeps the region its Enter named; most often {}; \
             the first on '{location}' at {} s: Leave '{named}' while '{open}' is open",
            self.open.mismatches(),
            kinds.join("; "),
            pairs.join(", "),
            String::from_utf8_lossy(&at),
        ))
    }

    /// Ends the trace at `ticks`: the containers below the root are
    /// destroyed then (with their children).
    fn end(&mut self, ticks: u64) -> Result<(), ReadError<E>> {
        for c in &self.model.containers {
            if c.parent == ROOT {
                let ty = &self.model.types[c.ctype].alias;
                self.out
                    .timed_words(|d| &d.destroy, ticks, &[ty, &c.alias])?;
            }
        }
        Ok(())
    }

    /// A state or event of entity type `e` on location `loc`.
    fn entity(
        &mut self,
        loc: usize,
        time: u64,
        e: Entity,
        which: Which,
        value: &[u8],
        extras: &[&[u8]],
    ) -> Result<(), ReadError<E>> {
        let ty = self.entity_type(loc, e)?;
        let (id, new) = self.out.value_id(ty.id, value);
        let c = self.locations[loc].0;
        self.out.entity(Ent {
            which,
            time,
            ty,
            container: self.containers[c],
            value: Some(Val {
                name: value,
                id,
                new,
            }),
            number: None,
            other: None,
            extras,
        })
    }

    /// An event of entity type `e` named `name`, without extra fields, on
    /// location `loc`.
    #[inline]
    fn plain_event(
        &mut self,
        loc: usize,
        time: u64,
        e: Entity,
        name: &[u8],
    ) -> Result<(), ReadError<E>> {
        self.entity(loc, time, e, |d| &d.new_event, name, &[])
    }

    #[inline]
    fn pop(&mut self, loc: usize, time: u64, e: Entity) -> Result<(), ReadError<E>> {
        let ty = self.entity_type(loc, e)?;
        let c = self.locations[loc].0;
        self.out.entity(Ent {
            which: |d| &d.pop,
            time,
            ty,
            container: self.containers[c],
            value: None,
            number: None,
            other: None,
            extras: &[],
        })
    }

    fn link_type(&mut self, from: usize, to: usize) -> Result<Ty, ReadError<E>> {
        let (a, b) = (self.locations[from].1, self.locations[to].1);
        if let Some(&t) = self.link_types.get(&(a, b)) {
            return Ok(t);
        }
        let alias = format!("M{a}_{b}").into_bytes();
        let mut name = b"MPI message".to_vec();
        if (a, b) != (0, 0) {
            name.extend_from_slice(format!(" {a}-{b}").as_bytes());
        }
        let ta = self.model.types[self.model.location_types[a]].alias.clone();
        let tb = self.model.types[self.model.location_types[b]].alias.clone();
        let words: [&[u8]; 5] = [&name, ROOT, &ta, &tb, &alias];
        let ty = self
            .out
            .define_type(|d| &d.link_type, &words, alias.clone())?;
        self.link_types.insert((a, b), ty);
        Ok(ty)
    }

    /// One end of a message between location `me` and rank `peer` of
    /// `comm`: the start on the sender, the end on the receiver.
    #[allow(clippy::too_many_arguments)]
    fn message(
        &mut self,
        me: usize,
        time: u64,
        send: bool,
        peer: u32,
        comm: u32,
        tag: u32,
        length: u64,
    ) -> Result<(), ReadError<E>> {
        let Some(other) = self.model.rank_location(self.d, comm, peer, me) else {
            self.unresolved += 1;
            return Ok(());
        };
        let (from, to) = if send { (me, other) } else { (other, me) };
        let ids = &self.d.locations;
        let key = (comm, ids[from].id, ids[to].id, tag);
        let n = self.messages.entry(key).or_default();
        let seq = if send { &mut n.0 } else { &mut n.1 };
        let k = *seq;
        *seq += 1;
        let ty = self.link_type(from, to)?;
        let value = self.comm_name(comm).to_vec();
        let (id, new) = self.out.value_id(ty.id, &value);
        self.key.clear();
        for (i, v) in [comm as u64, key.1, key.2, tag as u64, k]
            .into_iter()
            .enumerate()
        {
            if i > 0 {
                self.key.push(b'_');
            }
            write_u64(&mut self.key, v);
        }
        let mut numbers = Vec::new();
        write_u64(&mut numbers, tag as u64);
        let split = numbers.len();
        write_u64(&mut numbers, length);
        let (tag_text, size_text) = numbers.split_at(split);
        let extras: [&[u8]; 2] = [tag_text, size_text];
        let end = if send { from } else { to };
        self.out.entity(Ent {
            which: if send {
                |d| &d.start_link
            } else {
                |d| &d.end_link
            },
            time,
            ty,
            container: self.containers[0],
            value: Some(Val {
                name: &value,
                id,
                new,
            }),
            number: None,
            other: Some((self.containers[self.locations[end].0], &self.key)),
            extras: if send { &extras } else { &[] },
        })
    }

    fn collective(&mut self, loc: usize, time: u64, end: Option<Kind>) -> Result<(), ReadError<E>> {
        let mut text = Vec::new();
        let mut bounds = Vec::new();
        let value: &[u8] = match end {
            Some(Kind::CollectiveEnd {
                op,
                comm,
                root,
                sent,
                received,
            }) => {
                text.extend_from_slice(self.comm_name(comm));
                bounds.push(text.len());
                if root == UNDEFINED_U32 {
                    text.extend_from_slice(b"none");
                } else {
                    write_u64(&mut text, root as u64);
                }
                bounds.push(text.len());
                write_u64(&mut text, sent);
                bounds.push(text.len());
                write_u64(&mut text, received);
                bounds.push(text.len());
                collective_name(op).as_bytes()
            }
            _ => {
                self.unfinished_collectives += 1;
                text.push(b'0');
                text.push(b'0');
                bounds.extend_from_slice(&[0, 0, 1, 2]);
                b"unfinished collective"
            }
        };
        let mut extras: [&[u8]; 4] = [&[]; 4];
        let mut from = 0;
        for (x, &to) in extras.iter_mut().zip(&bounds) {
            *x = &text[from..to];
            from = to;
        }
        self.entity(
            loc,
            time,
            Entity::Collective,
            |d| &d.push_collective,
            value,
            &extras,
        )
    }

    fn fork(&mut self, loc: usize, time: u64, model: u8, threads: u32) -> Result<(), ReadError<E>> {
        let mut n = Vec::new();
        write_u64(&mut n, threads as u64);
        self.entity(
            loc,
            time,
            Entity::Fork,
            |d| &d.push_fork,
            paradigm_name(model).as_bytes(),
            &[&n],
        )
    }

    fn metric(
        &mut self,
        values: &[MetricValue],
        loc: usize,
        ev: &Event,
    ) -> Result<(), ReadError<E>> {
        let Kind::Metric { metric, .. } = ev.kind else {
            return Ok(());
        };
        let d = self.d;
        let Some(m) = d.metrics.get(metric as u64) else {
            self.unknown_metrics += 1;
            return Ok(());
        };
        let container = self.model.metric_container(d, m, loc);
        let members = Model::metric_members(d, m);
        if members.len() != values.len() {
            self.unknown_metrics += 1;
        }
        let mut text = Vec::new();
        for (&member, v) in members.iter().zip(values) {
            let ctype = self.model.containers[container].ctype;
            let ty = match self.variable_types.get(&(ctype, member)) {
                Some(&t) => t,
                None => {
                    let alias = format!("V{}", self.variable_types.len()).into_bytes();
                    let mm = d.metric_members.get(member as u64);
                    let mut name = clean(mm.and_then(|m| d.string(m.name)), || {
                        format!("metric {member}")
                    });
                    if let Some(unit) = mm.and_then(|m| d.string(m.unit)) {
                        if !unit.is_empty() {
                            name.extend_from_slice(b" [");
                            name.extend_from_slice(&clean(Some(unit), String::new));
                            name.push(b']');
                        }
                    }
                    let parent = self.model.types[ctype].alias.clone();
                    let ty = self.out.define_type(
                        |d| &d.variable_type,
                        &[&name, &parent, &alias],
                        alias.clone(),
                    )?;
                    self.variable_types.insert((ctype, member), ty);
                    ty
                }
            };
            text.clear();
            match v.type_id {
                8 => text.extend_from_slice((v.bits as i64).to_string().as_bytes()),
                10 => text.extend_from_slice(format!("{}", f64::from_bits(v.bits)).as_bytes()),
                _ => write_u64(&mut text, v.bits),
            }
            self.out.entity(Ent {
                which: |d| &d.set_variable,
                time: ev.time,
                ty,
                // The model's containers follow the root.
                container: self.containers[container + 1],
                value: None,
                number: Some(&text),
                other: None,
                extras: &[],
            })?;
        }
        Ok(())
    }

    /// Maps the event `ev` of location `loc`; whether it was mapped.
    #[inline]
    fn event(&mut self, batch: &Batch, r: &Rec) -> Result<bool, ReadError<E>> {
        let (loc, ev) = (r.loc as usize, &r.ev);
        let time = ev.time;
        match ev.kind {
            Kind::Enter { region } => self.enter(loc, time, region)?,
            Kind::Leave { region } => self.leave(loc, time, region)?,
            Kind::MpiSend {
                receiver,
                comm,
                tag,
                length,
            }
            | Kind::MpiIsend {
                receiver,
                comm,
                tag,
                length,
                ..
            } => self.message(loc, time, true, receiver, comm, tag, length)?,
            Kind::MpiRecv {
                sender,
                comm,
                tag,
                length,
            }
            | Kind::MpiIrecv {
                sender,
                comm,
                tag,
                length,
                ..
            } => self.message(loc, time, false, sender, comm, tag, length)?,
            Kind::MpiIsendComplete { .. } => {
                self.plain_event(loc, time, Entity::Request, b"Isend complete")?
            }
            Kind::MpiIrecvRequest { .. } => {
                self.plain_event(loc, time, Entity::Request, b"Irecv request")?
            }
            Kind::CollectiveBegin => self.collective(loc, time, batch.collective_end(r))?,
            Kind::CollectiveEnd { .. } => self.pop(loc, time, Entity::Collective)?,
            Kind::Metric { .. } => self.metric(batch.metric_values(r), loc, ev)?,
            Kind::ThreadFork { model, threads } => self.fork(loc, time, model, threads)?,
            Kind::OmpFork { threads } => self.fork(loc, time, 3, threads)?,
            Kind::ThreadJoin { .. } | Kind::OmpJoin => self.pop(loc, time, Entity::Fork)?,
            Kind::ThreadTeamBegin { team: c } | Kind::ThreadBegin { contingent: c, .. } => {
                let name = self.comm_name(c).to_vec();
                self.entity(loc, time, Entity::Team, |d| &d.push, &name, &[])?
            }
            Kind::ThreadTeamEnd { .. } | Kind::ThreadEnd { .. } => {
                self.pop(loc, time, Entity::Team)?
            }
            Kind::ThreadCreate { .. } => {
                self.plain_event(loc, time, Entity::ThreadEvent, b"thread create")?
            }
            Kind::ThreadWait { .. } => {
                self.plain_event(loc, time, Entity::ThreadEvent, b"thread wait")?
            }
            Kind::Other { .. } => return Ok(false),
        }
        Ok(true)
    }
}

/// The event definitions of the mapping, in the order and at the lines
/// of the text they make: each event [`read_paje`] hands over is on the
/// line after the previous one, from the line after the last definition.
pub fn definitions() -> Vec<EventDef> {
    Defs::new().all()
}

/// Reads `archive`, handing its events mapped to Pajé, as words, to
/// `each` (see [`read_paje_items`]).
pub fn read_paje<E, F>(
    archive: &Archive,
    progress: Option<&AtomicU64>,
    mut each: F,
) -> Result<Stats, ReadError<E>>
where
    F: FnMut(PajeEvent<'_>) -> Result<(), E>,
{
    read_paje_items(archive, false, false, progress, |item| match item {
        Item::Event(ev) => each(ev),
        Item::Handles(_) => unreachable!("events are asked for as words"),
    })
}

/// Reads `archive`, handing its events mapped to Pajé to `each`:
/// definitions and containers first, then the events of every location in
/// time order, then the containers destroyed where the archive ends. With
/// `handles`, entity events are given by the handles the
/// simulator's resolver gives their type, container and value (it must
/// see every event handed over, in order); otherwise by their words. With
/// `threaded`, the files are decoded and merged on a thread of their own.
/// `progress`, when given, follows the bytes of event files read.
pub fn read_paje_items<E, F>(
    archive: &Archive,
    handles: bool,
    threaded: bool,
    progress: Option<&AtomicU64>,
    each: F,
) -> Result<Stats, ReadError<E>>
where
    F: FnMut(Item<'_>) -> Result<(), E>,
{
    let d = archive.definitions();
    let model = Model::new(d, archive.name())?;
    let locations: Vec<(usize, usize)> = (0..d.locations.len())
        .map(|i| {
            let c = model.location_container[i];
            let ctype = model.containers[c].ctype;
            let k = model
                .location_types
                .iter()
                .position(|&t| t == ctype)
                .unwrap_or(0);
            (c + 1, k)
        })
        .collect();
    let kinds = model.location_types.len().max(1);
    let mut out = Out::new(each, handles, d.clock);
    let mut containers = Vec::with_capacity(model.containers.len() + 1);
    containers.push(Cont {
        alias: out.alias(ROOT.to_vec()),
        id: ContainerId(0),
    });
    let mut m = Mapper {
        d,
        model,
        out,
        containers,
        locations,
        made: vec![Default::default(); kinds],
        region_values: vec![Vec::new(); kinds],
        region_names: Vec::new(),
        sparse_region_names: HashMap::new(),
        link_types: HashMap::new(),
        variable_types: HashMap::new(),
        messages: HashMap::new(),
        comm_names: HashMap::new(),
        open: OpenRegions::new(d.locations.len()),
        key: Vec::new(),
        unresolved: 0,
        unfinished_collectives: 0,
        unknown_metrics: 0,
    };
    m.header()?;
    let mut merged = archive.merged()?;
    let mut records = 0u64;
    let mut skipped = [0u64; 256];
    // The time of the last event record, mapped or not (ProgramEnd).
    let mut last = None;
    let mapped = crate::batch::run(&mut merged, threaded, progress, |b| {
        for r in &b.recs {
            if !m.event(b, r)? {
                skipped[r.ev.record as usize] += 1;
            }
            last = last.max(Some(r.ev.time));
        }
        records += b.recs.len() as u64;
        Ok(true)
    });
    match mapped {
        Ok(()) => {}
        Err(Stopped::Archive(e)) => return Err(ReadError::Archive(e)),
        Err(Stopped::Map(e)) => return Err(e),
    }
    // The trace ends at its last event record or at the end of the
    // clock's span, the later.
    let clock = d.clock;
    let span = (clock.length > 0).then(|| clock.offset.saturating_add(clock.length));
    if let Some(end) = last.max(span) {
        m.end(end)?;
    }
    if let Some(p) = progress {
        p.store(archive.event_bytes(), Ordering::Relaxed);
    }
    // Records of types OTF2 3.0 does not define are "UNKNOWN", as
    // otf2-print names them.
    let name = |id: usize| event_name(id as u8).unwrap_or("UNKNOWN").to_string();
    let mut stats = Stats {
        events: m.out.events,
        records,
        definitions: m.out.defs.all(),
        ..Stats::default()
    };
    for r in merged.readers() {
        stats.attribute_lists += r.attribute_lists();
        for (id, &n) in r.counts().iter().enumerate() {
            if n > 0 {
                *stats.counts.entry(name(id)).or_default() += n;
            }
        }
    }
    for (id, &n) in skipped.iter().enumerate() {
        if n > 0 {
            stats.skipped.insert(name(id), n);
        }
    }
    if let Some(w) = m.leave_warning() {
        stats.warnings.push(w);
    }
    if m.unresolved > 0 {
        stats.warnings.push(format!(
            "{} MPI message ends name a rank whose location the communicator definitions do not give; they are left out",
            m.unresolved
        ));
    }
    if m.unfinished_collectives > 0 {
        stats.warnings.push(format!(
            "{} MPI collective operations begin and never end on their location",
            m.unfinished_collectives
        ));
    }
    if m.unknown_metrics > 0 {
        stats.warnings.push(format!(
            "{} metric events name an undefined metric or carry a number of values other than its members'; what does not match is left out",
            m.unknown_metrics
        ));
    }
    Ok(stats)
}
