//! The Pajé events of the mapping as they are handed over: definitions,
//! types and containers always as words; entity events as words (for
//! text and binary writers) or, for the simulation, by the handles the
//! simulator's resolver gives their type, container and value, which it
//! then need not look up (handles are given in order of definition: the
//! reader counts them as the resolver does).

use std::collections::HashMap;

use trama_events::{Event as PajeEvent, EventDef, EventKind, Field, FieldType};
use trama_sim::{ContainerId, HandleEvent, TypeId, ValueId, ValueRef};

use crate::defs::Clock;
use crate::paje::{Item, ReadError};
use crate::words::{nanos, Words};

/// The Pajé event definitions of the mapping.
pub(crate) struct Defs {
    pub container_type: EventDef,
    pub state_type: EventDef,
    pub event_type: EventDef,
    pub variable_type: EventDef,
    pub link_type: EventDef,
    pub create: EventDef,
    pub push: EventDef,
    pub push_collective: EventDef,
    pub push_fork: EventDef,
    pub pop: EventDef,
    pub set_variable: EventDef,
    pub new_event: EventDef,
    pub start_link: EventDef,
    pub end_link: EventDef,
    pub destroy: EventDef,
    /// The line of the first event, after the definitions.
    pub first_event_line: u64,
}

/// A definition, numbered as the text of [`crate::definitions`] places
/// it: its `%EventDef` line, a line per field and its `%EndEventDef` line.
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
    pub fn new() -> Defs {
        use Field::*;
        let ent = [Time, Type, Container, Value];
        let line = &mut 1;
        let named = [Name, Type, Alias];
        Defs {
            container_type: def(line, EventKind::DefineContainerType, 0, &named, &[]),
            state_type: def(line, EventKind::DefineStateType, 1, &named, &[]),
            event_type: def(line, EventKind::DefineEventType, 2, &named, &[]),
            variable_type: def(line, EventKind::DefineVariableType, 3, &named, &[]),
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
            destroy: def(
                line,
                EventKind::DestroyContainer,
                14,
                &[Time, Type, Name],
                &[],
            ),
            first_event_line: *line,
        }
    }

    pub fn all(&self) -> Vec<EventDef> {
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
            &self.destroy,
        ]
        .into_iter()
        .cloned()
        .collect()
    }
}

/// Which definition an event follows.
pub(crate) type Which = fn(&Defs) -> &EventDef;

/// A type: its alias (in [`Out::aliases`]) and handle.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Ty {
    pub alias: usize,
    pub id: TypeId,
}

/// A container: its alias (in [`Out::aliases`]) and handle.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Cont {
    pub alias: usize,
    pub id: ContainerId,
}

/// A value: its name, and its handle with whether this is its first use.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Val<'x> {
    pub name: &'x [u8],
    pub id: u32,
    pub new: bool,
}

/// An entity event: fields in the order every entity definition of the
/// mapping declares them (time, type, container, value, other end and
/// key, then user-defined fields).
pub(crate) struct Ent<'x> {
    pub which: Which,
    pub time: u64,
    pub ty: Ty,
    pub container: Cont,
    pub value: Option<Val<'x>>,
    /// A variable's value, as text.
    pub number: Option<&'x [u8]>,
    /// A link's other end and key.
    pub other: Option<(Cont, &'x [u8])>,
    pub extras: &'x [&'x [u8]],
}

/// Hands events over, counting lines and the handles the resolver gives.
pub(crate) struct Out<F> {
    pub each: F,
    pub handles: bool,
    pub defs: Defs,
    pub w: Words,
    pub clock: Clock,
    pub line: u64,
    pub events: u64,
    /// Types defined so far (the root included): the next type's handle.
    pub types: u32,
    /// Values created so far: the next value's handle.
    values: u32,
    /// The aliases of types and containers.
    pub aliases: Vec<Vec<u8>>,
    /// Values by type and name.
    value_ids: HashMap<u32, HashMap<Box<[u8]>, u32>>,
}

impl<F> Out<F> {
    pub fn new(each: F, handles: bool, clock: Clock) -> Out<F> {
        let defs = Defs::new();
        Out {
            each,
            handles,
            line: defs.first_event_line - 1,
            defs,
            w: Words::default(),
            clock,
            events: 0,
            types: 1,
            values: 0,
            aliases: Vec::new(),
            value_ids: HashMap::new(),
        }
    }

    /// The handle of value `name` of type `ty`, and whether this use
    /// creates it (as the resolver creates a value at its first use).
    pub fn value_id(&mut self, ty: TypeId, name: &[u8]) -> (u32, bool) {
        let values = self.value_ids.entry(ty.0).or_default();
        if let Some(&v) = values.get(name) {
            return (v, false);
        }
        let v = self.values;
        self.values += 1;
        values.insert(name.into(), v);
        (v, true)
    }

    /// Keeps `alias`; its index.
    pub fn alias(&mut self, alias: Vec<u8>) -> usize {
        self.aliases.push(alias);
        self.aliases.len() - 1
    }

    /// The time of `ticks` in seconds, as reading its text gives it.
    #[inline]
    fn seconds(&self, ticks: u64) -> f64 {
        let (neg, n, digits) = nanos(&self.clock, ticks);
        let unit = if digits == 9 { 1e9 } else { 1e12 };
        let s = n as f64 / unit;
        if neg {
            -s
        } else {
            s
        }
    }
}

impl<E, F> Out<F>
where
    F: FnMut(Item<'_>) -> Result<(), E>,
{
    /// Hands over the words built in `self.w`.
    #[inline]
    pub fn emit(&mut self, which: Which) -> Result<(), ReadError<E>> {
        self.line += 1;
        self.events += 1;
        let d = which(&self.defs);
        (self.each)(Item::Event(PajeEvent::new(
            d,
            self.line,
            &self.w.buf,
            &self.w.spans,
        )))
        .map_err(ReadError::Handler)
    }

    /// A definition or a container, by its words.
    pub fn words(&mut self, which: Which, words: &[&[u8]]) -> Result<(), ReadError<E>> {
        self.w.start(which(&self.defs).id());
        for w in words {
            self.w.push(w);
        }
        self.emit(which)
    }

    /// An event of a time (in ticks) and words (a container destroyed).
    pub fn timed_words(
        &mut self,
        which: Which,
        ticks: u64,
        words: &[&[u8]],
    ) -> Result<(), ReadError<E>> {
        self.w.start(which(&self.defs).id());
        self.w.time(&self.clock, ticks);
        for w in words {
            self.w.push(w);
        }
        self.emit(which)
    }

    /// A type definition: the next type handle is its.
    pub fn define_type(
        &mut self,
        which: Which,
        words: &[&[u8]],
        alias: Vec<u8>,
    ) -> Result<Ty, ReadError<E>> {
        self.words(which, words)?;
        let id = TypeId(self.types);
        self.types += 1;
        Ok(Ty {
            alias: self.alias(alias),
            id,
        })
    }

    /// An entity event.
    #[inline]
    pub fn entity(&mut self, e: Ent<'_>) -> Result<(), ReadError<E>> {
        if self.handles {
            self.line += 1;
            self.events += 1;
            let def = (e.which)(&self.defs);
            let value = match e.value {
                Some(v) if v.new => ValueRef::New(v.name),
                Some(v) => ValueRef::Id(ValueId(v.id)),
                None => ValueRef::Id(ValueId(u32::MAX)),
            };
            let (other, key) = match e.other {
                Some((c, key)) => (c.id, key),
                None => (e.container.id, &[][..]),
            };
            let h = HandleEvent {
                def,
                kind: def.kind(),
                line: self.line,
                time: self.seconds(e.time),
                container: e.container.id,
                ty: e.ty.id,
                value,
                other,
                number: e.number.map_or(0.0, |n| crate::PRECISION.read(n)),
                key,
                extras: e.extras,
            };
            return (self.each)(Item::Handles(&h)).map_err(ReadError::Handler);
        }
        let w = &mut self.w;
        let a = &self.aliases;
        w.start((e.which)(&self.defs).id());
        w.time(&self.clock, e.time);
        w.push(&a[e.ty.alias]);
        w.push(&a[e.container.alias]);
        if let Some(v) = e.value {
            w.push(v.name);
        }
        if let Some(n) = e.number {
            w.push(n);
        }
        if let Some((c, key)) = e.other {
            w.push(&a[c.alias]);
            w.push(key);
        }
        for x in e.extras {
            w.push(x);
        }
        self.emit(e.which)
    }
}
