//! The events of an archive as Pajé events: the container hierarchy
//! first, then the location's events merged in time order, each mapped
//! as the crate documentation says.

use std::collections::{BTreeMap, HashMap};
use std::sync::atomic::{AtomicU64, Ordering};

use trama_events::{Event as PajeEvent, EventDef, EventKind, Field, FieldType};

use crate::archive::{Archive, Merged};
use crate::defs::{Clock, Definitions, UNDEFINED_U32};
use crate::error::Error;
use crate::events::{Event, Kind};
use crate::model::{clean, Model, ROOT};
use crate::records::{collective_name, event_name, paradigm_name};
use crate::words::{write_u64, Words};

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

/// The Pajé event definitions of the mapping.
struct Defs {
    container_type: EventDef,
    state_type: EventDef,
    event_type: EventDef,
    variable_type: EventDef,
    link_type: EventDef,
    create: EventDef,
    push: EventDef,
    push_collective: EventDef,
    push_fork: EventDef,
    pop: EventDef,
    set_variable: EventDef,
    new_event: EventDef,
    start_link: EventDef,
    end_link: EventDef,
    /// The line of the first event, after the definitions.
    first_event_line: u64,
}

/// The definitions are numbered as the text of [`definitions`] places
/// them: each takes its `%EventDef` line, a line per field and its
/// `%EndEventDef` line, from line 1.
fn def(
    line: &mut u64,
    kind: EventKind,
    id: u32,
    fields: &[Field],
    extras: &[(&str, FieldType)],
) -> EventDef {
    let mut d = EventDef::new(kind, id.to_string().as_bytes(), *line);
    for &f in fields {
        let ty = if f == Field::Time {
            FieldType::Date
        } else {
            FieldType::String
        };
        d.add_field(f, ty).expect("distinct fields");
    }
    for &(name, ty) in extras {
        d.add_extra(name, ty);
    }
    d.set_index(id);
    *line += d.field_count() as u64 + 1;
    d
}

impl Defs {
    fn new() -> Defs {
        use Field::*;
        let ent = [Time, Type, Container, Value];
        let line = &mut 1;
        Defs {
            container_type: def(
                line,
                EventKind::DefineContainerType,
                0,
                &[Name, Type, Alias],
                &[],
            ),
            state_type: def(
                line,
                EventKind::DefineStateType,
                1,
                &[Name, Type, Alias],
                &[],
            ),
            event_type: def(
                line,
                EventKind::DefineEventType,
                2,
                &[Name, Type, Alias],
                &[],
            ),
            variable_type: def(
                line,
                EventKind::DefineVariableType,
                3,
                &[Name, Type, Alias],
                &[],
            ),
            link_type: def(
                line,
                EventKind::DefineLinkType,
                4,
                &[Name, Type, StartContainerType, EndContainerType, Alias],
                &[],
            ),
            create: def(
                line,
                EventKind::CreateContainer,
                5,
                &[Time, Name, Type, Container, Alias],
                &[],
            ),
            push: def(line, EventKind::PushState, 6, &ent, &[]),
            push_collective: def(
                line,
                EventKind::PushState,
                7,
                &ent,
                &[
                    ("Communicator", FieldType::String),
                    ("Root", FieldType::String),
                    ("Sent", FieldType::Int),
                    ("Received", FieldType::Int),
                ],
            ),
            push_fork: def(
                line,
                EventKind::PushState,
                8,
                &ent,
                &[("Threads", FieldType::Int)],
            ),
            pop: def(line, EventKind::PopState, 9, &[Time, Type, Container], &[]),
            set_variable: def(line, EventKind::SetVariable, 10, &ent, &[]),
            new_event: def(line, EventKind::NewEvent, 11, &ent, &[]),
            start_link: def(
                line,
                EventKind::StartLink,
                12,
                &[Time, Type, Container, Value, StartContainer, Key],
                &[("Tag", FieldType::Int), ("Size", FieldType::Int)],
            ),
            end_link: def(
                line,
                EventKind::EndLink,
                13,
                &[Time, Type, Container, Value, EndContainer, Key],
                &[],
            ),
            first_event_line: *line,
        }
    }

    fn all(&self) -> Vec<EventDef> {
        [
            &self.container_type,
            &self.state_type,
            &self.event_type,
            &self.variable_type,
            &self.link_type,
            &self.create,
            &self.push,
            &self.push_collective,
            &self.push_fork,
            &self.pop,
            &self.set_variable,
            &self.new_event,
            &self.start_link,
            &self.end_link,
        ]
        .into_iter()
        .cloned()
        .collect()
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

/// The state of a mapping in progress.
struct Mapper<'a, F> {
    d: &'a Definitions,
    clock: Clock,
    model: Model,
    defs: Defs,
    w: Words,
    each: F,
    line: u64,
    events: u64,
    /// For each location: its container's alias and its location type's
    /// position among location types.
    locations: Vec<(Vec<u8>, usize)>,
    /// Entity types made, by (location type position, entity).
    made: HashMap<(usize, u8), Vec<u8>>,
    link_types: HashMap<(usize, usize), Vec<u8>>,
    variable_types: HashMap<(usize, u32), Vec<u8>>,
    /// Messages sent and received so far, by (communicator, sender,
    /// receiver, tag).
    messages: HashMap<(u32, u64, u64, u32), (u64, u64)>,
    comm_names: HashMap<u32, Vec<u8>>,
    unresolved: u64,
    unfinished_collectives: u64,
    unknown_metrics: u64,
}

impl<'a, E, F> Mapper<'a, F>
where
    F: FnMut(PajeEvent<'_>) -> Result<(), E>,
{
    #[inline]
    fn emit(&mut self, which: fn(&Defs) -> &EventDef) -> Result<(), ReadError<E>> {
        self.line += 1;
        self.events += 1;
        let d = which(&self.defs);
        (self.each)(PajeEvent::new(d, self.line, &self.w.buf, &self.w.spans))
            .map_err(ReadError::Handler)
    }

    fn header(&mut self) -> Result<(), ReadError<E>> {
        for i in 0..self.model.types.len() {
            let t = self.model.types[i].clone();
            self.w.start(self.defs.container_type.id());
            self.w.push(&t.name);
            self.w.push(&t.parent);
            self.w.push(&t.alias);
            self.emit(|d| &d.container_type)?;
        }
        for i in 0..self.model.containers.len() {
            let c = self.model.containers[i].clone();
            self.w.start(self.defs.create.id());
            self.w.push(b"0");
            self.w.push(&c.name);
            self.w.push(&self.model.types[c.ctype].alias);
            self.w.push(&c.parent);
            self.w.push(&c.alias);
            self.emit(|d| &d.create)?;
        }
        Ok(())
    }

    /// The alias of entity type `e` of location `loc`'s type, defined on
    /// first use.
    fn entity_type(&mut self, loc: usize, e: Entity) -> Result<Vec<u8>, ReadError<E>> {
        let k = self.locations[loc].1;
        if let Some(a) = self.made.get(&(k, e as u8)) {
            return Ok(a.clone());
        }
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
        let which: fn(&Defs) -> &EventDef = if e.is_state() {
            |d| &d.state_type
        } else {
            |d| &d.event_type
        };
        self.w.start(which(&self.defs).id());
        self.w.push(&name);
        self.w.push(&parent);
        self.w.push(&alias);
        self.emit(which)?;
        self.made.insert((k, e as u8), alias.clone());
        Ok(alias)
    }

    fn comm_name(&mut self, comm: u32) -> &[u8] {
        let d = self.d;
        self.comm_names.entry(comm).or_insert_with(|| {
            let name = d.comms.get(comm as u64).and_then(|c| d.string(c.name));
            clean(name, || format!("communicator {comm}"))
        })
    }

    /// A state or event of entity type `e` on location `loc`.
    fn entity(
        &mut self,
        loc: usize,
        time: u64,
        e: Entity,
        value: &[u8],
    ) -> Result<(), ReadError<E>> {
        let t = self.entity_type(loc, e)?;
        let (which, id): (fn(&Defs) -> &EventDef, _) = if e.is_state() {
            (|d| &d.push, self.defs.push.id())
        } else {
            (|d| &d.new_event, self.defs.new_event.id())
        };
        self.w.start(id);
        self.w.time(&self.clock, time);
        self.w.push(&t);
        self.w.push(&self.locations[loc].0);
        self.w.push(value);
        self.emit(which)
    }

    fn pop(&mut self, loc: usize, time: u64, e: Entity) -> Result<(), ReadError<E>> {
        let t = self.entity_type(loc, e)?;
        self.w.start(self.defs.pop.id());
        self.w.time(&self.clock, time);
        self.w.push(&t);
        self.w.push(&self.locations[loc].0);
        self.emit(|d| &d.pop)
    }

    fn link_type(&mut self, from: usize, to: usize) -> Result<Vec<u8>, ReadError<E>> {
        let (a, b) = (self.locations[from].1, self.locations[to].1);
        if let Some(t) = self.link_types.get(&(a, b)) {
            return Ok(t.clone());
        }
        let alias = format!("M{a}_{b}").into_bytes();
        let mut name = b"MPI message".to_vec();
        if (a, b) != (0, 0) {
            name.extend_from_slice(format!(" {a}-{b}").as_bytes());
        }
        let (ta, tb) = (
            self.model.types[self.model.location_types[a]].alias.clone(),
            self.model.types[self.model.location_types[b]].alias.clone(),
        );
        self.w.start(self.defs.link_type.id());
        self.w.push(&name);
        self.w.push(ROOT);
        self.w.push(&ta);
        self.w.push(&tb);
        self.w.push(&alias);
        self.emit(|d| &d.link_type)?;
        self.link_types.insert((a, b), alias.clone());
        Ok(alias)
    }

    /// One end of a message between locations `me` and rank `peer` of
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
        let t = self.link_type(from, to)?;
        let value = self.comm_name(comm).to_vec();
        let (which, id): (fn(&Defs) -> &EventDef, _) = if send {
            (|d| &d.start_link, self.defs.start_link.id())
        } else {
            (|d| &d.end_link, self.defs.end_link.id())
        };
        self.w.start(id);
        self.w.time(&self.clock, time);
        self.w.push(&t);
        self.w.push(ROOT);
        self.w.push(&value);
        self.w.push(&self.locations[if send { from } else { to }].0);
        self.w.with(|b| {
            for (i, v) in [comm as u64, key.1, key.2, tag as u64, k]
                .into_iter()
                .enumerate()
            {
                if i > 0 {
                    b.push(b'_');
                }
                write_u64(b, v);
            }
        });
        if send {
            self.w.number(tag as u64);
            self.w.number(length);
        }
        self.emit(which)
    }

    fn collective(&mut self, loc: usize, time: u64, end: Option<Kind>) -> Result<(), ReadError<E>> {
        let t = self.entity_type(loc, Entity::Collective)?;
        let end = match end {
            Some(Kind::CollectiveEnd {
                op,
                comm,
                root,
                sent,
                received,
            }) => Some((op, comm, root, sent, received)),
            _ => None,
        };
        let comm = end.map(|e| self.comm_name(e.1).to_vec());
        self.w.start(self.defs.push_collective.id());
        self.w.time(&self.clock, time);
        self.w.push(&t);
        self.w.push(&self.locations[loc].0);
        match end {
            Some((op, _, root, sent, received)) => {
                self.w.push(collective_name(op).as_bytes());
                self.w.push(comm.as_deref().unwrap_or_default());
                if root == UNDEFINED_U32 {
                    self.w.push(b"none");
                } else {
                    self.w.number(root as u64);
                }
                self.w.number(sent);
                self.w.number(received);
            }
            None => {
                self.unfinished_collectives += 1;
                self.w.push(b"unfinished collective");
                self.w.push(b"");
                self.w.push(b"");
                self.w.push(b"0");
                self.w.push(b"0");
            }
        }
        self.emit(|d| &d.push_collective)
    }

    fn fork(&mut self, loc: usize, time: u64, model: u8, threads: u32) -> Result<(), ReadError<E>> {
        let t = self.entity_type(loc, Entity::Fork)?;
        self.w.start(self.defs.push_fork.id());
        self.w.time(&self.clock, time);
        self.w.push(&t);
        self.w.push(&self.locations[loc].0);
        self.w.push(paradigm_name(model).as_bytes());
        self.w.number(threads as u64);
        self.emit(|d| &d.push_fork)
    }

    fn metric(&mut self, merged: &Merged<'_>, loc: usize, ev: &Event) -> Result<(), ReadError<E>> {
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
        let values = merged.reader(loc).metric_values();
        if members.len() != values.len() {
            self.unknown_metrics += 1;
        }
        for (&member, v) in members.iter().zip(values) {
            let ctype = self.model.containers[container].ctype;
            let t = match self.variable_types.get(&(ctype, member)) {
                Some(t) => t.clone(),
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
                    self.w.start(self.defs.variable_type.id());
                    self.w.push(&name);
                    self.w.push(&parent);
                    self.w.push(&alias);
                    self.emit(|d| &d.variable_type)?;
                    self.variable_types.insert((ctype, member), alias.clone());
                    alias
                }
            };
            self.w.start(self.defs.set_variable.id());
            self.w.time(&self.clock, ev.time);
            self.w.push(&t);
            self.w.push(&self.model.containers[container].alias);
            self.w.with(|b| match v.type_id {
                8 => b.extend_from_slice((v.bits as i64).to_string().as_bytes()),
                10 => b.extend_from_slice(format!("{}", f64::from_bits(v.bits)).as_bytes()),
                _ => write_u64(b, v.bits),
            });
            self.emit(|d| &d.set_variable)?;
        }
        Ok(())
    }

    /// Maps the event `ev` of location `loc`; whether it was mapped.
    fn event(&mut self, merged: &Merged<'_>, loc: usize, ev: &Event) -> Result<bool, ReadError<E>> {
        let time = ev.time;
        match ev.kind {
            Kind::Enter { region } => {
                let t = self.entity_type(loc, Entity::Region)?;
                self.w.start(self.defs.push.id());
                self.w.time(&self.clock, time);
                self.w.push(&t);
                self.w.push(&self.locations[loc].0);
                let name = self.model.region_name(self.d, region);
                self.w.push(name);
                self.emit(|d| &d.push)?;
            }
            Kind::Leave { .. } => self.pop(loc, time, Entity::Region)?,
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
                self.entity(loc, time, Entity::Request, b"Isend complete")?
            }
            Kind::MpiIrecvRequest { .. } => {
                self.entity(loc, time, Entity::Request, b"Irecv request")?
            }
            Kind::CollectiveBegin => {
                let end = merged.reader(loc).collective_end()?;
                self.collective(loc, time, end)?
            }
            Kind::CollectiveEnd { .. } => self.pop(loc, time, Entity::Collective)?,
            Kind::Metric { .. } => self.metric(merged, loc, ev)?,
            Kind::ThreadFork { model, threads } => self.fork(loc, time, model, threads)?,
            Kind::OmpFork { threads } => self.fork(loc, time, 3, threads)?,
            Kind::ThreadJoin { .. } | Kind::OmpJoin => self.pop(loc, time, Entity::Fork)?,
            Kind::ThreadTeamBegin { team: c } | Kind::ThreadBegin { contingent: c, .. } => {
                let name = self.comm_name(c).to_vec();
                self.entity(loc, time, Entity::Team, &name)?
            }
            Kind::ThreadTeamEnd { .. } | Kind::ThreadEnd { .. } => {
                self.pop(loc, time, Entity::Team)?
            }
            Kind::ThreadCreate { .. } => {
                self.entity(loc, time, Entity::ThreadEvent, b"thread create")?
            }
            Kind::ThreadWait { .. } => {
                self.entity(loc, time, Entity::ThreadEvent, b"thread wait")?
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

/// Reads `archive`, handing its events mapped to Pajé to `each`:
/// definitions and containers first, then the events of every location in
/// time order. `progress`, when given, follows the bytes of event files
/// read.
pub fn read_paje<E, F>(
    archive: &Archive,
    progress: Option<&AtomicU64>,
    each: F,
) -> Result<Stats, ReadError<E>>
where
    F: FnMut(PajeEvent<'_>) -> Result<(), E>,
{
    let d = archive.definitions();
    let model = Model::new(d, archive.name())?;
    let locations = (0..d.locations.len())
        .map(|i| {
            let c = model.location(i);
            let k = model
                .location_types
                .iter()
                .position(|&t| t == c.ctype)
                .unwrap_or(0);
            (c.alias.clone(), k)
        })
        .collect();
    let defs = Defs::new();
    let first_line = defs.first_event_line;
    let mut m = Mapper {
        d,
        clock: d.clock,
        model,
        defs,
        w: Words::default(),
        each,
        line: first_line - 1,
        events: 0,
        locations,
        made: HashMap::new(),
        link_types: HashMap::new(),
        variable_types: HashMap::new(),
        messages: HashMap::new(),
        comm_names: HashMap::new(),
        unresolved: 0,
        unfinished_collectives: 0,
        unknown_metrics: 0,
    };
    m.header()?;
    let mut merged = archive.merged()?;
    let mut records = 0u64;
    let mut skipped = [0u64; 256];
    while let Some((loc, ev)) = merged.next_event()? {
        records += 1;
        if !m.event(&merged, loc, &ev)? {
            skipped[ev.record as usize] += 1;
        }
        if records.is_multiple_of(65536) {
            if let Some(p) = progress {
                let done: usize = merged.readers().iter().map(|r| r.position()).sum();
                p.store(done as u64, Ordering::Relaxed);
            }
        }
    }
    if let Some(p) = progress {
        p.store(archive.event_bytes(), Ordering::Relaxed);
    }
    // Records of types OTF2 3.0 does not define are "UNKNOWN", as
    // otf2-print names them.
    let name = |id: usize| event_name(id as u8).unwrap_or("UNKNOWN").to_string();
    let mut stats = Stats {
        events: m.events,
        records,
        definitions: m.defs.all(),
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
