//! The Pajé simulator: replays events into types, containers and entities
//! with PajeNG's semantics, and hands every entity to a [`Sink`] as soon as
//! it can no longer change.
//!
//! Semantics, as PajeNG implements them:
//! - every reference to a type, container or value goes through its
//!   identifier: the alias when there is one, else the name;
//! - states live in one stack per (container, state type): `PajeSetState`
//!   empties the stack and pushes; `PajePushState` pushes one level deeper;
//!   `PajePopState` ends the top; `PajeResetState` ends them all;
//! - variables are step functions: Set/Add/Sub at the time of the last
//!   value update it in place, otherwise close it and open a new value;
//!   values are read as C `strtof` does (float32) and summed in double;
//! - links are matched by (container, link type, key), in either order; a
//!   key cannot be used again once its link is complete;
//! - entities of one type in one container must come in time order; events
//!   on a destroyed container are ignored; destroying a container ends its
//!   open entities and destroys its children;
//! - the trace ends at the time of its last event (an event without a time
//!   field counts as time 0, as in PajeNG), or at the stop-at time.
//!
//! An entity is *final* once it is not the last of its list and not on a
//! state stack (or when its container is destroyed): at most the stack depth
//! plus one entity per list is kept alive, so memory does not depend on the
//! trace length.

use trama_events::{Event, EventKind, Field};

use crate::error::{SimError, SimErrorKind};
use crate::idmap::{pack, unpack, IdMap, KeySet};

use crate::intern::StrId;
use crate::model::{
    ContainerId, ContainerInfo, ListId, ListInfo, Model, TypeId, TypeInfo, TypeKind, ValueId,
    ValueInfo,
};

/// Options of the simulation.
#[derive(Clone, Debug, Default)]
#[non_exhaustive]
pub struct SimOptions {
    /// Stop the simulation at this time (pj_dump `-a`).
    pub stop_at: Option<f64>,
    /// Drop links that never got their other end instead of failing (pj_dump `-z`).
    pub ignore_incomplete_links: bool,
    /// Push and pop do not nest: popping resumes the state below as a new entity (pj_dump `-i`).
    pub no_imbrication: bool,
    /// Keep the user-defined fields of events (needed to show them, e.g. pj_dump `-u`).
    pub keep_extras: bool,
}

/// A final entity, as handed to a [`Sink`].
#[derive(Clone, Debug)]
pub struct Entity<'a> {
    /// Start time (the time of an event).
    pub start: f64,
    /// End time (equal to `start` for events; -1 when never set).
    pub end: f64,
    /// Value of a state, event or link.
    pub value: ValueId,
    /// Value of a variable.
    pub number: f64,
    /// Nesting level of a state.
    pub level: u32,
    /// User-defined fields as (name, value) pairs laid flat: `[name0,
    /// value0, name1, value1, …]` (empty unless [`SimOptions::keep_extras`]).
    pub extras: &'a [StrId],
    /// Key of a link.
    pub key: &'a [u8],
    /// Start container of a link.
    pub from: Option<ContainerId>,
    /// End container of a link.
    pub to: Option<ContainerId>,
}

/// Receives what the simulator produces, as soon as it is final.
pub trait Sink {
    /// Entity number `idx` (creation order within its list) of `list` is final.
    fn entity(&mut self, model: &Model, list: ListId, idx: u32, entity: &Entity<'_>);
    /// A container has been destroyed (its end time is final).
    fn container(&mut self, model: &Model, id: ContainerId) {
        let _ = (model, id);
    }
    /// A new entity list was created.
    fn list(&mut self, model: &Model, list: ListId) {
        let _ = (model, list);
    }
}

/// Counts entities per kind and discards them.
#[derive(Clone, Debug, Default)]
pub struct CountingSink {
    /// States.
    pub states: u64,
    /// Events.
    pub events: u64,
    /// Variable values.
    pub variables: u64,
    /// Links.
    pub links: u64,
}

impl Sink for CountingSink {
    fn entity(&mut self, model: &Model, list: ListId, _idx: u32, _e: &Entity<'_>) {
        match model.list(list).kind {
            TypeKind::State => self.states += 1,
            TypeKind::Event => self.events += 1,
            TypeKind::Variable => self.variables += 1,
            TypeKind::Link => self.links += 1,
            TypeKind::Container => {}
        }
    }
}

const NONE: u32 = u32::MAX;

#[derive(Clone, Debug, Default)]
struct Live {
    start: f64,
    end: f64,
    number: f64,
    /// Link key packed by [`pack`] (0 when empty or long).
    key: u128,
    idx: u32,
    value: u32,
    level: u32,
    from: u32,
    to: u32,
    stacked: bool,
    /// Rare data: user-defined fields, long link keys.
    more: Option<Box<More>>,
}

#[derive(Clone, Debug, Default)]
struct More {
    extras: Vec<StrId>,
    key_long: Box<[u8]>,
}

impl Live {
    fn extras(&self) -> &[StrId] {
        self.more.as_ref().map_or(&[], |m| &m.extras)
    }

    fn set_key(&mut self, key: &[u8]) {
        match pack(key) {
            Some(k) => self.key = k,
            None => self.more.get_or_insert_with(Default::default).key_long = key.into(),
        }
    }

    fn with_extras(mut self, extras: Vec<StrId>) -> Live {
        if !extras.is_empty() {
            self.more.get_or_insert_with(Default::default).extras = extras;
        }
        self
    }
}

#[derive(Debug, Default)]
struct ListLive {
    next_idx: u32,
    live: Vec<Live>,
    stack: Vec<u32>,
    pending: IdMap<Live>,
    used_keys: KeySet,
}

#[derive(Debug, Default)]
struct ContainerLive {
    destroyed: bool,
}

/// Replays events and feeds a [`Sink`].
pub struct Simulator<S> {
    model: Model,
    sink: S,
    opts: SimOptions,
    lists: Vec<ListLive>,
    conts: Vec<ContainerLive>,
    last_time: f64,
    events: u64,
    warnings: Vec<String>,
}

type R<T = ()> = Result<T, SimErrorKind>;

fn s(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

fn kind_label(k: TypeKind) -> &'static str {
    match k {
        TypeKind::Container => "container",
        TypeKind::State => "state",
        TypeKind::Event => "event",
        TypeKind::Variable => "variable",
        TypeKind::Link => "link",
    }
}

impl<S: Sink> Simulator<S> {
    /// A simulator with only the root type and container.
    pub fn new(sink: S, opts: SimOptions) -> Simulator<S> {
        Simulator {
            model: Model::default(),
            sink,
            opts,
            lists: Vec::new(),
            conts: vec![ContainerLive::default()],
            last_time: -1.0,
            events: 0,
            warnings: Vec::new(),
        }
    }

    /// The model built so far.
    pub fn model(&self) -> &Model {
        &self.model
    }

    /// The sink.
    pub fn sink(&self) -> &S {
        &self.sink
    }

    /// Events simulated so far.
    pub fn events(&self) -> u64 {
        self.events
    }

    /// Simulates one event.
    pub fn event(&mut self, ev: &Event<'_>) -> Result<(), SimError> {
        self.events += 1;
        self.dispatch(ev).map_err(|kind| SimError {
            line: ev.line(),
            kind,
            contents: ev.contents(),
        })
    }

    /// Ends the trace: destroys every container still alive at the end time
    /// and returns the model, the sink and any warnings.
    pub fn finish(mut self) -> Result<(Model, S, Vec<String>), SimError> {
        let t = self.opts.stop_at.unwrap_or(self.last_time);
        self.recursive_destroy(ContainerId::ROOT, t)
            .map_err(|kind| SimError {
                line: 0,
                kind,
                contents: String::new(),
            })?;
        self.sort_children();
        Ok((self.model, self.sink, self.warnings))
    }

    fn sort_children(&mut self) {
        let m = &mut self.model;
        let strings = &m.strings;
        let conts = &m.containers;
        let mut all: Vec<Vec<ContainerId>> = conts.iter().map(|c| c.children.clone()).collect();
        for ch in &mut all {
            ch.sort_by(|a, b| {
                strings
                    .get(conts[a.index()].ident())
                    .cmp(strings.get(conts[b.index()].ident()))
            });
        }
        for (c, ch) in m.containers.iter_mut().zip(all) {
            c.children = ch;
        }
    }

    fn dispatch(&mut self, ev: &Event<'_>) -> R {
        let kind = ev.kind();
        // Every event sets the last known time; untimed ones set 0 (PajeNG).
        let time = if ev.has(Field::Time) {
            trama_num::atof(ev.get(Field::Time))
        } else {
            0.0
        };
        self.last_time = time;
        match kind {
            EventKind::DefineContainerType
            | EventKind::DefineStateType
            | EventKind::DefineEventType
            | EventKind::DefineVariableType
            | EventKind::DefineLinkType => self.define_type(ev),
            EventKind::DefineEntityValue => self.define_value(ev),
            EventKind::CreateContainer => self.create_container(ev, time),
            EventKind::DestroyContainer => self.destroy_container(ev, time),
            EventKind::TraceFile => Ok(()),
            _ => self.entity_event(ev, time),
        }
    }

    // ----- lookups -------------------------------------------------------

    fn find_type(&self, token: &[u8], expected: &'static str) -> R<TypeId> {
        self.model
            .type_by_ident
            .get(token)
            .copied()
            .ok_or_else(|| SimErrorKind::UnknownType {
                token: s(token),
                expected,
            })
    }

    fn find_container(&self, token: &[u8]) -> R<ContainerId> {
        if let Some(c) = self.model.container_by_ident.get(token) {
            return Ok(*c);
        }
        let hint = self
            .model
            .containers
            .iter()
            .find(|c| self.model.str(c.name) == token)
            .map(|c| {
                format!(
                    " (a container is named so, but it must be referred to by its alias '{}')",
                    self.model.strings.get_str(c.alias)
                )
            })
            .unwrap_or_default();
        Err(SimErrorKind::UnknownContainer {
            token: s(token),
            hint,
        })
    }

    fn tname(&self, t: TypeId) -> String {
        s(self.model.str(self.model.ty(t).name))
    }

    fn cname(&self, c: ContainerId) -> String {
        s(self.model.str(self.model.container(c).name))
    }

    // ----- definitions ---------------------------------------------------

    fn define_type(&mut self, ev: &Event<'_>) -> R {
        let kind = match ev.kind() {
            EventKind::DefineContainerType => TypeKind::Container,
            EventKind::DefineStateType => TypeKind::State,
            EventKind::DefineEventType => TypeKind::Event,
            EventKind::DefineVariableType => TypeKind::Variable,
            _ => TypeKind::Link,
        };
        let name = ev.get(Field::Name);
        let alias = ev.get(Field::Alias);
        if kind == TypeKind::Container && name == b"0" {
            return Err(SimErrorKind::ReservedZero { what: "type name" });
        }
        let parent = self.find_type(ev.get(Field::Type), "container type")?;
        if self.model.ty(parent).kind != TypeKind::Container {
            return Err(SimErrorKind::WrongTypeKind {
                token: s(ev.get(Field::Type)),
                found: kind_label(self.model.ty(parent).kind),
                expected: "container",
            });
        }
        let (mut start_type, mut end_type) = (None, None);
        if kind == TypeKind::Link {
            start_type = Some(self.find_type(ev.get(Field::StartContainerType), "container type")?);
            end_type = Some(self.find_type(ev.get(Field::EndContainerType), "container type")?);
        }
        let ident = if alias.is_empty() { name } else { alias };
        if self.model.type_by_ident.contains_key(ident) {
            return Err(SimErrorKind::AlreadyExists {
                what: "type",
                token: s(ident),
            });
        }
        let m = &mut self.model;
        let name_id = m.strings.intern(name);
        let alias_id = m.strings.intern(alias);
        let color = m.strings.intern(ev.get(Field::Color));
        let id = TypeId(m.types.len() as u32);
        m.types.push(TypeInfo {
            name: name_id,
            alias: alias_id,
            kind,
            parent: Some(parent),
            depth: m.types[parent.index()].depth + 1,
            start_type,
            end_type,
            color,
            children: Vec::new(),
        });
        m.values_by_type.push(IdMap::default());
        m.type_by_ident.insert(ident, id);
        let mut children = std::mem::take(&mut m.types[parent.index()].children);
        let types = &m.types;
        Model::insert_sorted(&m.strings, &mut children, id, |t| types[t.index()].ident());
        m.types[parent.index()].children = children;
        Ok(())
    }

    fn define_value(&mut self, ev: &Event<'_>) -> R {
        let name = ev.get(Field::Name);
        let alias = ev.get(Field::Alias);
        let ty = self.find_type(ev.get(Field::Type), "state, event or link type")?;
        let kind = self.model.ty(ty).kind;
        if matches!(kind, TypeKind::Container | TypeKind::Variable) {
            return Err(SimErrorKind::ValueForWrongType {
                token: s(name),
                ty: s(ev.get(Field::Type)),
                kind: kind_label(kind),
            });
        }
        let values = &self.model.values_by_type[ty.index()];
        if !alias.is_empty() && values.contains_key(alias) {
            return Err(SimErrorKind::AlreadyExists {
                what: "value",
                token: s(alias),
            });
        } else if values.contains_key(name) {
            return Err(SimErrorKind::AlreadyExists {
                what: "value",
                token: s(name),
            });
        }
        let color = self.model.strings.intern(ev.get(Field::Color));
        self.add_value(ty, alias, name, color);
        Ok(())
    }

    fn add_value(&mut self, ty: TypeId, alias: &[u8], name: &[u8], color: StrId) -> ValueId {
        let m = &mut self.model;
        let id = ValueId(m.values.len() as u32);
        let name_id = m.strings.intern(name);
        let alias_id = m.strings.intern(alias);
        m.values.push(ValueInfo {
            ty,
            name: name_id,
            alias: alias_id,
            color,
        });
        let ident = if alias.is_empty() { name } else { alias };
        m.values_by_type[ty.index()].insert(ident, id);
        id
    }

    fn value_of(&mut self, ty: TypeId, token: &[u8]) -> ValueId {
        match self.model.values_by_type[ty.index()].get(token) {
            Some(v) => *v,
            None => self.add_value(ty, token, token, StrId::EMPTY),
        }
    }

    // ----- containers ----------------------------------------------------

    fn create_container(&mut self, ev: &Event<'_>, time: f64) -> R {
        let name = ev.get(Field::Name);
        let alias = ev.get(Field::Alias);
        let ident = if alias.is_empty() { name } else { alias };
        if ident == b"0" && self.model.containers.len() > 1 {
            return Err(SimErrorKind::ReservedZero {
                what: "container name",
            });
        }
        let ty = self.find_type(ev.get(Field::Type), "container type")?;
        if self.model.ty(ty).kind != TypeKind::Container {
            return Err(SimErrorKind::WrongTypeKind {
                token: s(ev.get(Field::Type)),
                found: kind_label(self.model.ty(ty).kind),
                expected: "container",
            });
        }
        let parent = self.find_container(ev.get(Field::Container))?;
        let parent_ty = self.model.container(parent).ty;
        if self.model.ty(ty).parent != Some(parent_ty) {
            return Err(SimErrorKind::TypeNotInContainer {
                token: s(ev.get(Field::Type)),
                owner: self.tname(self.model.ty(ty).parent.unwrap_or(TypeId::ROOT)),
                container: self.cname(parent),
                container_type: self.tname(parent_ty),
            });
        }
        if self.model.container_by_ident.contains_key(ident) {
            return Err(SimErrorKind::AlreadyExists {
                what: "container",
                token: s(ident),
            });
        }
        let extras = self.extras(ev);
        let m = &mut self.model;
        let id = ContainerId(m.containers.len() as u32);
        let name_id = m.strings.intern(name);
        let alias_id = m.strings.intern(alias);
        let depth = m.containers[parent.index()].depth + 1;
        m.containers.push(ContainerInfo {
            name: name_id,
            alias: alias_id,
            ty,
            parent: Some(parent),
            start: time,
            end: -1.0,
            depth,
            extras,
            children: Vec::new(),
            lists: Vec::new(),
        });
        m.containers[parent.index()].children.push(id);
        m.container_by_ident.insert(ident, id);
        self.conts.push(ContainerLive::default());
        Ok(())
    }

    fn extras(&mut self, ev: &Event<'_>) -> Vec<StrId> {
        if !self.opts.keep_extras || ev.def().extra_slots().is_empty() {
            return Vec::new();
        }
        let strings = &mut self.model.strings;
        let mut v = Vec::with_capacity(2 * ev.def().extra_slots().len());
        for (name, value) in ev.def().extra_names().iter().zip(ev.extras()) {
            v.push(strings.intern(name.as_bytes()));
            v.push(strings.intern(value));
        }
        v
    }

    fn destroy_container(&mut self, ev: &Event<'_>, time: f64) -> R {
        let ty = self.find_type(ev.get(Field::Type), "container type")?;
        let c = self.find_container(ev.get(Field::Name))?;
        if self.model.container(c).ty != ty {
            return Err(SimErrorKind::WrongContainerType {
                token: s(ev.get(Field::Type)),
                container: self.cname(c),
                found: self.tname(self.model.container(c).ty),
            });
        }
        let end = self.model.container(c).end;
        if time < end {
            return Err(SimErrorKind::DestroyNotTimeOrdered {
                container: self.cname(c),
                time: fmt_time(time),
                last: fmt_time(end),
            });
        }
        if self.conts[c.index()].destroyed {
            return Ok(());
        }
        if let Some(stop) = self.stop_for(c, time) {
            return self.destroy(c, stop);
        }
        self.destroy(c, time)
    }

    /// The stop-at time if it applies to an event at `time` on `c`.
    #[inline]
    fn stop_for(&self, c: ContainerId, time: f64) -> Option<f64> {
        match self.opts.stop_at {
            Some(stop) if c != ContainerId::ROOT && time > stop => Some(stop),
            _ => None,
        }
    }

    fn recursive_destroy(&mut self, c: ContainerId, time: f64) -> R {
        if !self.conts[c.index()].destroyed {
            self.destroy(c, time)?;
        }
        let children = self.model.container(c).children.clone();
        for child in children {
            self.recursive_destroy(child, time)?;
        }
        Ok(())
    }

    fn destroy(&mut self, c: ContainerId, time: f64) -> R {
        self.conts[c.index()].destroyed = true;
        self.model.containers[c.index()].end = time;
        let lists: Vec<(TypeId, ListId)> = self.model.container(c).lists.clone();
        // Finish the last entity of every list.
        for &(_, l) in &lists {
            let kind = self.model.list(l).kind;
            if let Some(last) = self.lists[l.index()].live.last_mut() {
                if kind == TypeKind::Event {
                    if last.start == -1.0 {
                        last.start = time;
                        last.end = time;
                    }
                } else if last.end == -1.0 {
                    last.end = time;
                }
            }
        }
        // Pending links.
        for &(_, l) in &lists {
            if self.lists[l.index()].pending.is_empty() {
                continue;
            }
            if self.opts.ignore_incomplete_links {
                let n = self.lists[l.index()].pending.len();
                self.warnings.push(format!(
                    "{n} incomplete link(s) of type '{}' in container '{}' ignored (-z)",
                    self.tname(self.model.list(l).ty),
                    self.cname(c)
                ));
                self.lists[l.index()].pending.clear();
            } else {
                return Err(self.incomplete_links(c, l));
            }
        }
        // Close stacked states and emit everything still alive.
        for &(_, l) in &lists {
            let ll = &mut self.lists[l.index()];
            let stack = std::mem::take(&mut ll.stack);
            for idx in stack {
                if let Some(e) = ll.live.iter_mut().find(|e| e.idx == idx) {
                    e.end = time;
                    e.stacked = false;
                }
            }
            let live = std::mem::take(&mut ll.live);
            for e in &live {
                emit(&self.model, &mut self.sink, l, e);
            }
        }
        self.sink.container(&self.model, c);
        // Children end with their parent.
        let children = self.model.container(c).children.clone();
        for child in children {
            if !self.conts[child.index()].destroyed {
                self.destroy(child, time)?;
            }
        }
        Ok(())
    }

    fn incomplete_links(&self, c: ContainerId, l: ListId) -> SimErrorKind {
        let ll = &self.lists[l.index()];
        let info = self.model.list(l);
        let mut pending: Vec<(Vec<u8>, &Live)> =
            ll.pending.values().map(|p| (key_bytes(p).to_vec(), p)).collect();
        pending.sort_by(|a, b| a.0.cmp(&b.0));
        let mut list = String::new();
        for (key, p) in &pending {
            let name = |x: u32| {
                if x == NONE {
                    "NULL".to_string()
                } else {
                    self.cname(ContainerId(x))
                }
            };
            list.push_str(&format!(
                "  Link, {}, {}, {}, {}, {}, {}, {}, {}\n",
                self.cname(info.container),
                self.tname(info.ty),
                fmt_time(p.start),
                fmt_time(p.end),
                s(self.model.str(self.model.value(ValueId(p.value)).name)),
                name(p.from),
                name(p.to),
                s(key)
            ));
        }
        list.pop();
        SimErrorKind::IncompleteLinks {
            container: self.cname(c),
            count: pending.len(),
            list,
        }
    }

    // ----- entities ------------------------------------------------------

    fn entity_event(&mut self, ev: &Event<'_>, time: f64) -> R {
        let kind = ev.kind();
        let expected = match kind {
            EventKind::NewEvent => TypeKind::Event,
            EventKind::SetState
            | EventKind::PushState
            | EventKind::PopState
            | EventKind::ResetState => TypeKind::State,
            EventKind::SetVariable | EventKind::AddVariable | EventKind::SubVariable => {
                TypeKind::Variable
            }
            _ => TypeKind::Link,
        };
        let c = self.find_container(ev.get(Field::Container))?;
        let other = match kind {
            EventKind::StartLink => Some(self.find_container(ev.get(Field::StartContainer))?),
            EventKind::EndLink => Some(self.find_container(ev.get(Field::EndContainer))?),
            _ => None,
        };
        let ty_token = ev.get(Field::Type);
        let ty = self.find_type(ty_token, kind_label(expected))?;
        let tinfo = self.model.ty(ty);
        if tinfo.kind != expected {
            return Err(SimErrorKind::WrongTypeKind {
                token: s(ty_token),
                found: kind_label(tinfo.kind),
                expected: kind_label(expected),
            });
        }
        let cty = self.model.container(c).ty;
        if tinfo.parent != Some(cty) {
            return Err(SimErrorKind::TypeNotInContainer {
                token: s(ty_token),
                owner: self.tname(tinfo.parent.unwrap_or(TypeId::ROOT)),
                container: self.cname(c),
                container_type: self.tname(cty),
            });
        }
        if let Some(o) = other {
            let (end, want) = if kind == EventKind::StartLink {
                ("start", tinfo.start_type)
            } else {
                ("end", tinfo.end_type)
            };
            let oty = self.model.container(o).ty;
            if want != Some(oty) {
                return Err(SimErrorKind::WrongLinkEndType {
                    token: s(if kind == EventKind::StartLink {
                        ev.get(Field::StartContainer)
                    } else {
                        ev.get(Field::EndContainer)
                    }),
                    found: self.tname(oty),
                    end,
                    link: s(ty_token),
                    expected: want.map(|t| self.tname(t)).unwrap_or_default(),
                });
            }
        }
        let value = match expected {
            TypeKind::Variable | TypeKind::Container => ValueId(NONE),
            _ if matches!(kind, EventKind::PopState | EventKind::ResetState) => ValueId(NONE),
            _ => self.value_of(ty, ev.get(Field::Value)),
        };
        // Demultiplexing to the container.
        if self.conts[c.index()].destroyed {
            return Ok(());
        }
        if let Some(stop) = self.stop_for(c, time) {
            return self.destroy(c, stop);
        }
        let l = self.list_for(c, ty, expected);
        match kind {
            EventKind::NewEvent => {
                self.check_order(l, time)?;
                let extras = self.extras(ev);
                self.append(
                    l,
                    Live {
                        start: time,
                        end: time,
                        value: value.0,
                        ..Live::default()
                    }
                    .with_extras(extras),
                );
            }
            EventKind::SetState | EventKind::PushState => {
                self.check_order(l, time)?;
                let level = if kind == EventKind::SetState {
                    self.reset(l, time);
                    0
                } else {
                    let ll = &self.lists[l.index()];
                    match ll.stack.last() {
                        None => 0,
                        Some(&top) => ll
                            .live
                            .iter()
                            .find(|e| e.idx == top)
                            .map_or(0, |e| e.level + 1),
                    }
                };
                let extras = self.extras(ev);
                let idx = self.append(
                    l,
                    Live {
                        start: time,
                        end: -1.0,
                        value: value.0,
                        level,
                        stacked: true,
                        ..Live::default()
                    }
                    .with_extras(extras),
                );
                self.lists[l.index()].stack.push(idx);
            }
            EventKind::PopState => {
                self.check_order(l, time)?;
                self.pop(l, time)?;
            }
            EventKind::ResetState => {
                self.check_order(l, time)?;
                self.reset(l, time);
            }
            EventKind::SetVariable | EventKind::AddVariable | EventKind::SubVariable => {
                let v = trama_num::strtof(ev.get(Field::Value)) as f64;
                self.variable(ev, l, kind, time, v)?;
            }
            EventKind::StartLink | EventKind::EndLink => {
                self.link(ev, l, kind, time, value, other.unwrap_or(c))?;
            }
            _ => {}
        }
        self.model.containers[c.index()].end = time;
        Ok(())
    }

    #[inline]
    fn list_for(&mut self, c: ContainerId, ty: TypeId, kind: TypeKind) -> ListId {
        if let Some(&(_, l)) = self.model.containers[c.index()]
            .lists
            .iter()
            .find(|(t, _)| *t == ty)
        {
            return l;
        }
        let l = ListId(self.model.lists.len() as u32);
        self.model.lists.push(ListInfo {
            container: c,
            ty,
            kind,
        });
        self.model.containers[c.index()].lists.push((ty, l));
        self.lists.push(ListLive::default());
        self.sink.list(&self.model, l);
        l
    }

    fn check_order(&self, l: ListId, time: f64) -> R {
        if let Some(last) = self.lists[l.index()].live.last() {
            if last.start > time || (last.end != -1.0 && last.end > time) {
                let info = self.model.list(l);
                let lt = if last.start > time {
                    last.start
                } else {
                    last.end
                };
                return Err(SimErrorKind::NotTimeOrdered {
                    time: fmt_time(time),
                    last: fmt_time(lt),
                    ty: self.tname(info.ty),
                    container: self.cname(info.container),
                });
            }
        }
        Ok(())
    }

    /// Appends an entity; the previous last one becomes final unless stacked.
    fn append(&mut self, l: ListId, mut e: Live) -> u32 {
        let ll = &mut self.lists[l.index()];
        let idx = ll.next_idx;
        ll.next_idx += 1;
        e.idx = idx;
        if let Some(prev) = ll.live.last() {
            if !prev.stacked {
                let prev = ll.live.pop().expect("non-empty");
                emit(&self.model, &mut self.sink, l, &prev);
            }
        }
        ll.live.push(e);
        idx
    }

    /// Makes the live entity `idx` final if it is neither last nor stacked.
    fn settle(&mut self, l: ListId, idx: u32) {
        let ll = &mut self.lists[l.index()];
        let n = ll.live.len();
        if let Some(pos) = ll.live.iter().position(|e| e.idx == idx) {
            if pos + 1 < n && !ll.live[pos].stacked {
                let e = ll.live.remove(pos);
                emit(&self.model, &mut self.sink, l, &e);
            }
        }
    }

    fn reset(&mut self, l: ListId, time: f64) {
        let stack = std::mem::take(&mut self.lists[l.index()].stack);
        for &idx in &stack {
            let ll = &mut self.lists[l.index()];
            if let Some(e) = ll.live.iter_mut().find(|e| e.idx == idx) {
                e.end = time;
                e.stacked = false;
            }
        }
        for idx in stack {
            self.settle(l, idx);
        }
    }

    fn pop(&mut self, l: ListId, time: f64) -> R {
        let Some(top) = self.lists[l.index()].stack.pop() else {
            let info = self.model.list(l);
            return Err(SimErrorKind::PopEmpty {
                ty: self.tname(info.ty),
                container: self.cname(info.container),
            });
        };
        let ll = &mut self.lists[l.index()];
        let mut top_start = time;
        if let Some(e) = ll.live.iter_mut().find(|e| e.idx == top) {
            e.end = time;
            e.stacked = false;
            top_start = e.start;
        }
        if self.opts.no_imbrication {
            // The state below is cut where the popped one started and
            // resumes, as a new entity, now.
            if let Some(&below) = ll.stack.last() {
                let mut resumed = None;
                if let Some(e) = ll.live.iter_mut().find(|e| e.idx == below) {
                    e.end = top_start;
                    e.stacked = false;
                    resumed = Some(
                        Live {
                            start: time,
                            end: -1.0,
                            value: e.value,
                            level: e.level,
                            stacked: true,
                            ..Live::default()
                        }
                        .with_extras(e.extras().to_vec()),
                    );
                }
                ll.stack.pop();
                if let Some(r) = resumed {
                    let idx = self.append(l, r);
                    self.lists[l.index()].stack.push(idx);
                }
                self.settle(l, below);
            }
        }
        self.settle(l, top);
        Ok(())
    }

    fn variable(&mut self, ev: &Event<'_>, l: ListId, kind: EventKind, time: f64, v: f64) -> R {
        let has_last = self.lists[l.index()].next_idx > 0;
        if kind != EventKind::SetVariable && !has_last {
            let info = self.model.list(l);
            return Err(SimErrorKind::VariableWithoutValue {
                op: if kind == EventKind::AddVariable {
                    "PajeAddVariable"
                } else {
                    "PajeSubVariable"
                },
                ty: self.tname(info.ty),
                container: self.cname(info.container),
            });
        }
        if has_last {
            self.check_order(l, time)?;
        }
        let ll = &mut self.lists[l.index()];
        let mut previous = 0.0;
        if let Some(last) = ll.live.last_mut() {
            if last.start == time {
                match kind {
                    EventKind::SetVariable => last.number = v,
                    EventKind::AddVariable => last.number += v,
                    _ => last.number -= v,
                }
                return Ok(());
            }
            last.end = time;
            previous = last.number;
        }
        let number = match kind {
            EventKind::SetVariable => v,
            EventKind::AddVariable => previous + v,
            _ => previous - v,
        };
        let extras = self.extras(ev);
        self.append(
            l,
            Live {
                start: time,
                end: -1.0,
                number,
                ..Live::default()
            }
            .with_extras(extras),
        );
        Ok(())
    }

    fn link(
        &mut self,
        ev: &Event<'_>,
        l: ListId,
        kind: EventKind,
        time: f64,
        value: ValueId,
        other: ContainerId,
    ) -> R {
        let key = ev.get(Field::Key);
        let is_start = kind == EventKind::StartLink;
        if self.lists[l.index()].used_keys.contains(key) {
            let info = self.model.list(l);
            return Err(SimErrorKind::KeyReused {
                key: s(key),
                ty: self.tname(info.ty),
                container: self.cname(info.container),
            });
        }
        let extras = self.extras(ev);
        let ll = &mut self.lists[l.index()];
        match ll.pending.remove(key) {
            None => {
                let mut p = Live {
                    start: if is_start { time } else { -1.0 },
                    end: if is_start { -1.0 } else { time },
                    value: value.0,
                    from: if is_start { other.0 } else { NONE },
                    to: if is_start { NONE } else { other.0 },
                    ..Live::default()
                }
                .with_extras(extras);
                p.set_key(key);
                ll.pending.insert(key, p);
                Ok(())
            }
            Some(mut p) => {
                if is_start {
                    p.start = time;
                    p.from = other.0;
                } else {
                    p.end = time;
                    p.to = other.0;
                }
                if !extras.is_empty() {
                    p.more.get_or_insert_with(Default::default).extras.extend(extras);
                }
                if p.value != value.0 {
                    let m = &self.model;
                    return Err(SimErrorKind::LinkValueMismatch {
                        this: if is_start {
                            "PajeStartLink"
                        } else {
                            "PajeEndLink"
                        },
                        other: if is_start {
                            "PajeEndLink"
                        } else {
                            "PajeStartLink"
                        },
                        key: s(key),
                        found: s(m.str(m.value(value).name)),
                        expected: s(m.str(m.value(ValueId(p.value)).name)),
                    });
                }
                self.check_order(l, if is_start { p.start } else { p.end })?;
                self.lists[l.index()].used_keys.insert(key);
                self.append(l, p);
                Ok(())
            }
        }
    }
}

fn key_bytes(e: &Live) -> std::borrow::Cow<'_, [u8]> {
    match &e.more {
        Some(m) if !m.key_long.is_empty() => std::borrow::Cow::Borrowed(&m.key_long),
        _ => {
            let mut buf = [0u8; 16];
            std::borrow::Cow::Owned(unpack(e.key, &mut buf).to_vec())
        }
    }
}

fn emit<S: Sink>(model: &Model, sink: &mut S, l: ListId, e: &Live) {
    let mut buf = [0u8; 16];
    let key: &[u8] = match &e.more {
        Some(m) if !m.key_long.is_empty() => &m.key_long,
        _ if e.key != 0 => unpack(e.key, &mut buf),
        _ => &[],
    };
    sink.entity(
        model,
        l,
        e.idx,
        &Entity {
            start: e.start,
            end: e.end,
            value: ValueId(e.value),
            number: e.number,
            level: e.level,
            extras: e.extras(),
            key,
            from: (e.from != NONE).then_some(ContainerId(e.from)),
            to: (e.to != NONE).then_some(ContainerId(e.to)),
        },
    );
}

fn fmt_time(t: f64) -> String {
    let mut v = Vec::new();
    trama_num::write_fixed(&mut v, t, 6);
    String::from_utf8(v).unwrap_or_default()
}
