//! Stage one of the simulation: checks every reference of an event and turns
//! it into handles ([`Op`]s).
//!
//! The resolver owns the identifier maps (types, containers, values) and
//! what the checks need (type natures and parents, container types). It
//! creates types, values and containers, and tells the engine through
//! `New*` operations so that the engine's [`crate::Model`] mirrors them.
//!
//! It also plays the containers' part: it ignores events on destroyed
//! containers, applies the stop-at time, checks that destructions come in
//! time order, and matches the two ends of links (and the reuse of keys), so
//! that the engine only sees events that change entity lists.

use trama_events::{Event, EventKind, Field};

use crate::error::{SimError, SimErrorKind};
use crate::idmap::{pack, IdMap, KeySet};
use crate::model::{ContainerId, ListId, TypeId, TypeKind, ValueId};
use crate::op::{Batch, EntityOp, Extras, LinkOp, Op, SmallOp, Str};

#[derive(Debug)]
struct RType {
    kind: TypeKind,
    parent: Option<TypeId>,
    start_type: Option<TypeId>,
    end_type: Option<TypeId>,
    name: Box<[u8]>,
}

#[derive(Debug)]
struct RCont {
    ty: TypeId,
    name: Box<[u8]>,
    alias: Box<[u8]>,
    /// Children in byte order of identifier (PajeNG's destruction order).
    children: Vec<ContainerId>,
    destroyed: bool,
    /// Time of the last event applied to it (-1 before any).
    end: f64,
    lists: Vec<(TypeId, ListId)>,
}

impl RCont {
    fn ident(&self) -> &[u8] {
        if self.alias.is_empty() {
            &self.name
        } else {
            &self.alias
        }
    }
}

/// Link matching state of one (container, link type).
#[derive(Debug, Default)]
struct LinkState {
    /// Links waiting for their other end: key → slot in `Resolver::slab`.
    pending: IdMap<u32>,
    used: KeySet,
}

#[derive(Debug)]
struct RList {
    container: ContainerId,
    ty: TypeId,
    links: Option<Box<LinkState>>,
}

/// User-defined fields kept with a pending link: (name, value) pairs.
type OwnedExtras = Vec<(Box<[u8]>, Box<[u8]>)>;

/// A link waiting for its other end.
#[derive(Debug, Default)]
struct Pending {
    start: f64,
    end: f64,
    value: ValueId,
    from: u32,
    to: u32,
    key: Box<[u8]>,
    /// (name, value) pairs of user-defined fields, when kept.
    extras: OwnedExtras,
}

const NONE: u32 = u32::MAX;

/// Identifier resolution, reference checks and container/link semantics.
#[derive(Debug)]
pub(crate) struct Resolver {
    types: Vec<RType>,
    type_map: IdMap<TypeId>,
    conts: Vec<RCont>,
    cont_map: IdMap<ContainerId>,
    values: Vec<IdMap<ValueId>>,
    nvalues: u32,
    /// Names of values, for messages.
    value_names: Vec<Box<[u8]>>,
    lists: Vec<RList>,
    slab: Vec<Pending>,
    free_slots: Vec<u32>,
    keep_extras: bool,
    stop_at: Option<f64>,
    ignore_incomplete_links: bool,
    last_time: f64,
    events: u64,
    warnings: Vec<String>,
}

type R<T = ()> = Result<T, SimErrorKind>;

fn s(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

pub(crate) fn kind_label(k: TypeKind) -> &'static str {
    match k {
        TypeKind::Container => "container",
        TypeKind::State => "state",
        TypeKind::Event => "event",
        TypeKind::Variable => "variable",
        TypeKind::Link => "link",
    }
}

impl Resolver {
    pub fn new(keep_extras: bool, stop_at: Option<f64>, ignore_incomplete_links: bool) -> Resolver {
        let mut type_map = IdMap::default();
        type_map.insert(b"0", TypeId::ROOT);
        let mut cont_map = IdMap::default();
        cont_map.insert(b"0", ContainerId::ROOT);
        Resolver {
            types: vec![RType {
                kind: TypeKind::Container,
                parent: None,
                start_type: None,
                end_type: None,
                name: b"0"[..].into(),
            }],
            type_map,
            conts: vec![RCont {
                ty: TypeId::ROOT,
                name: b"0"[..].into(),
                alias: b"0"[..].into(),
                children: Vec::new(),
                destroyed: false,
                end: -1.0,
                lists: Vec::new(),
            }],
            cont_map,
            values: vec![IdMap::default()],
            nvalues: 0,
            value_names: Vec::new(),
            lists: Vec::new(),
            slab: Vec::new(),
            free_slots: Vec::new(),
            keep_extras,
            stop_at,
            ignore_incomplete_links,
            last_time: -1.0,
            events: 0,
            warnings: Vec::new(),
        }
    }

    /// Events resolved so far.
    pub fn events(&self) -> u64 {
        self.events
    }

    /// Ends the trace: every container still alive is destroyed at the end
    /// time (the stop-at time, or the time of the last event), in PajeNG's
    /// order; incomplete links are an error unless ignored. Returns the end
    /// time and the warnings.
    pub fn finish(&mut self) -> Result<(f64, Vec<String>), SimError> {
        let t = self.stop_at.unwrap_or(self.last_time);
        self.finish_rec(ContainerId::ROOT, t)
            .map_err(|kind| SimError {
                line: 0,
                kind,
                contents: String::new(),
            })?;
        Ok((t, std::mem::take(&mut self.warnings)))
    }

    fn finish_rec(&mut self, c: ContainerId, t: f64) -> R {
        if !self.conts[c.index()].destroyed {
            self.mark_destroyed(c, t)?;
        }
        for i in 0..self.conts[c.index()].children.len() {
            let child = self.conts[c.index()].children[i];
            self.finish_rec(child, t)?;
        }
        Ok(())
    }

    /// Resolves one event into `batch`. On error, nothing is added.
    pub fn resolve(&mut self, ev: &Event<'_>, batch: &mut Batch) -> Result<(), SimError> {
        self.events += 1;
        let n_ops = batch.ops.len();
        self.dispatch(ev, batch).map_err(|kind| {
            batch.ops.truncate(n_ops);
            SimError {
                line: ev.line(),
                kind,
                contents: ev.contents(),
            }
        })
    }

    fn dispatch(&mut self, ev: &Event<'_>, batch: &mut Batch) -> R {
        let time = match ev.def().slot(Field::Time) {
            Some(i) => trama_num::atof(ev.word(i)),
            None => 0.0,
        };
        // Every event sets the last known time; untimed ones set 0 (PajeNG).
        self.last_time = time;
        match ev.kind() {
            EventKind::DefineContainerType
            | EventKind::DefineStateType
            | EventKind::DefineEventType
            | EventKind::DefineVariableType
            | EventKind::DefineLinkType => self.define_type(ev, batch),
            EventKind::DefineEntityValue => self.define_value(ev, batch),
            EventKind::CreateContainer => self.create_container(ev, time, batch),
            EventKind::DestroyContainer => {
                let ty = self.find_type(ev.get(Field::Type), "container type")?;
                let c = self.find_container(ev.get(Field::Name))?;
                if self.conts[c.index()].ty != ty {
                    return Err(SimErrorKind::WrongContainerType {
                        token: s(ev.get(Field::Type)),
                        container: s(&self.conts[c.index()].name),
                        found: s(&self.types[self.conts[c.index()].ty.index()].name),
                    });
                }
                let end = self.conts[c.index()].end;
                if time < end {
                    return Err(SimErrorKind::DestroyNotTimeOrdered {
                        container: s(&self.conts[c.index()].name),
                        time: fmt_time(time),
                        last: fmt_time(end),
                    });
                }
                if self.conts[c.index()].destroyed {
                    return Ok(());
                }
                let at = self.stop_for(c, time).unwrap_or(time);
                self.destroy(c, at, batch)
            }
            EventKind::TraceFile => {
                batch.ops.push(Op::Time { time });
                Ok(())
            }
            _ => self.entity_event(ev, time, batch),
        }
    }

    fn find_type(&self, token: &[u8], expected: &'static str) -> R<TypeId> {
        self.type_map
            .get(token)
            .ok_or_else(|| SimErrorKind::UnknownType {
                token: s(token),
                expected,
            })
    }

    fn find_container(&self, token: &[u8]) -> R<ContainerId> {
        if let Some(c) = self.cont_map.get(token) {
            return Ok(c);
        }
        let hint = self
            .conts
            .iter()
            .find(|c| &*c.name == token)
            .map(|c| {
                format!(
                    " (a container is named so, but it must be referred to by its alias '{}')",
                    s(&c.alias)
                )
            })
            .unwrap_or_default();
        Err(SimErrorKind::UnknownContainer {
            token: s(token),
            hint,
        })
    }

    fn tname(&self, t: TypeId) -> String {
        s(&self.types[t.index()].name)
    }

    fn define_type(&mut self, ev: &Event<'_>, batch: &mut Batch) -> R {
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
        if self.types[parent.index()].kind != TypeKind::Container {
            return Err(SimErrorKind::WrongTypeKind {
                token: s(ev.get(Field::Type)),
                found: kind_label(self.types[parent.index()].kind),
                expected: "container",
            });
        }
        let (mut start_type, mut end_type) = (None, None);
        if kind == TypeKind::Link {
            start_type = Some(self.find_type(ev.get(Field::StartContainerType), "container type")?);
            end_type = Some(self.find_type(ev.get(Field::EndContainerType), "container type")?);
        }
        let ident = if alias.is_empty() { name } else { alias };
        if self.type_map.contains_key(ident) {
            return Err(SimErrorKind::AlreadyExists {
                what: "type",
                token: s(ident),
            });
        }
        let id = TypeId(self.types.len() as u32);
        self.types.push(RType {
            kind,
            parent: Some(parent),
            start_type,
            end_type,
            name: name.into(),
        });
        self.values.push(IdMap::default());
        self.type_map.insert(ident, id);
        let op = Op::NewType {
            kind,
            parent,
            start_type,
            end_type,
            name: batch.put(name),
            alias: batch.put(alias),
            color: batch.put(ev.get(Field::Color)),
        };
        batch.ops.push(op);
        Ok(())
    }

    fn define_value(&mut self, ev: &Event<'_>, batch: &mut Batch) -> R {
        let name = ev.get(Field::Name);
        let alias = ev.get(Field::Alias);
        let ty = self.find_type(ev.get(Field::Type), "state, event or link type")?;
        let kind = self.types[ty.index()].kind;
        if matches!(kind, TypeKind::Container | TypeKind::Variable) {
            return Err(SimErrorKind::ValueForWrongType {
                token: s(name),
                ty: s(ev.get(Field::Type)),
                kind: kind_label(kind),
            });
        }
        let values = &self.values[ty.index()];
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
        self.add_value(ty, alias, name, ev.get(Field::Color), true, batch);
        Ok(())
    }

    fn add_value(
        &mut self,
        ty: TypeId,
        alias: &[u8],
        name: &[u8],
        color: &[u8],
        defined: bool,
        batch: &mut Batch,
    ) -> ValueId {
        let id = ValueId(self.nvalues);
        self.nvalues += 1;
        self.value_names.push(name.into());
        let ident = if alias.is_empty() { name } else { alias };
        self.values[ty.index()].insert(ident, id);
        let op = Op::NewValue {
            ty,
            name: batch.put(name),
            alias: batch.put(alias),
            color: batch.put(color),
            defined,
        };
        batch.ops.push(op);
        id
    }

    #[inline]
    fn value_of(&mut self, ty: TypeId, token: &[u8], batch: &mut Batch) -> ValueId {
        match self.values[ty.index()].get(token) {
            Some(v) => v,
            None => self.add_value(ty, token, token, b"", false, batch),
        }
    }

    fn extras(&self, ev: &Event<'_>, batch: &mut Batch) -> Extras {
        if !self.keep_extras || ev.def().extra_slots().is_empty() {
            return Extras::default();
        }
        let start = batch.extras.len() as u32;
        for (name, value) in ev.def().extra_names().iter().zip(ev.extras()) {
            let n = batch.put(name.as_bytes());
            let v = batch.put(value);
            batch.extras.push((n, v));
        }
        Extras {
            start,
            count: batch.extras.len() as u32 - start,
        }
    }

    fn create_container(&mut self, ev: &Event<'_>, time: f64, batch: &mut Batch) -> R {
        let name = ev.get(Field::Name);
        let alias = ev.get(Field::Alias);
        let ident = if alias.is_empty() { name } else { alias };
        if ident == b"0" && self.conts.len() > 1 {
            return Err(SimErrorKind::ReservedZero {
                what: "container name",
            });
        }
        let ty = self.find_type(ev.get(Field::Type), "container type")?;
        if self.types[ty.index()].kind != TypeKind::Container {
            return Err(SimErrorKind::WrongTypeKind {
                token: s(ev.get(Field::Type)),
                found: kind_label(self.types[ty.index()].kind),
                expected: "container",
            });
        }
        let parent = self.find_container(ev.get(Field::Container))?;
        let parent_ty = self.conts[parent.index()].ty;
        if self.types[ty.index()].parent != Some(parent_ty) {
            return Err(SimErrorKind::TypeNotInContainer {
                token: s(ev.get(Field::Type)),
                owner: self.tname(self.types[ty.index()].parent.unwrap_or(TypeId::ROOT)),
                container: s(&self.conts[parent.index()].name),
                container_type: self.tname(parent_ty),
            });
        }
        if self.cont_map.contains_key(ident) {
            return Err(SimErrorKind::AlreadyExists {
                what: "container",
                token: s(ident),
            });
        }
        let id = ContainerId(self.conts.len() as u32);
        self.conts.push(RCont {
            ty,
            name: name.into(),
            alias: alias.into(),
            children: Vec::new(),
            destroyed: false,
            end: -1.0,
            lists: Vec::new(),
        });
        self.cont_map.insert(ident, id);
        let conts = &self.conts;
        let pos = conts[parent.index()]
            .children
            .partition_point(|&ch| conts[ch.index()].ident() < ident);
        self.conts[parent.index()].children.insert(pos, id);
        let extras = self.extras(ev, batch);
        let op = Op::NewContainer {
            time,
            ty,
            parent,
            name: batch.put(name),
            alias: batch.put(alias),
            extras,
        };
        batch.ops.push(op);
        Ok(())
    }

    fn entity_event(&mut self, ev: &Event<'_>, time: f64, batch: &mut Batch) -> R {
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
            EventKind::StartLink => self.find_container(ev.get(Field::StartContainer))?,
            EventKind::EndLink => self.find_container(ev.get(Field::EndContainer))?,
            _ => c,
        };
        let ty_token = ev.get(Field::Type);
        let ty = self.find_type(ty_token, kind_label(expected))?;
        let t = &self.types[ty.index()];
        if t.kind != expected {
            return Err(SimErrorKind::WrongTypeKind {
                token: s(ty_token),
                found: kind_label(t.kind),
                expected: kind_label(expected),
            });
        }
        let cty = self.conts[c.index()].ty;
        if t.parent != Some(cty) {
            return Err(SimErrorKind::TypeNotInContainer {
                token: s(ty_token),
                owner: self.tname(t.parent.unwrap_or(TypeId::ROOT)),
                container: s(&self.conts[c.index()].name),
                container_type: self.tname(cty),
            });
        }
        let is_link = expected == TypeKind::Link;
        if is_link {
            let start = kind == EventKind::StartLink;
            let want = if start { t.start_type } else { t.end_type };
            let oty = self.conts[other.index()].ty;
            if want != Some(oty) {
                return Err(SimErrorKind::WrongLinkEndType {
                    token: s(ev.get(if start {
                        Field::StartContainer
                    } else {
                        Field::EndContainer
                    })),
                    found: self.tname(oty),
                    end: if start { "start" } else { "end" },
                    link: s(ty_token),
                    expected: want.map(|w| self.tname(w)).unwrap_or_default(),
                });
            }
        }
        let value = match kind {
            EventKind::NewEvent
            | EventKind::SetState
            | EventKind::PushState
            | EventKind::StartLink
            | EventKind::EndLink => self.value_of(ty, ev.get(Field::Value), batch),
            _ => ValueId(u32::MAX),
        };
        let number = if expected == TypeKind::Variable {
            trama_num::strtof(ev.get(Field::Value)) as f64
        } else {
            0.0
        };
        // The container's part: destroyed containers ignore events; the
        // stop-at time destroys a container on its first later event.
        if self.conts[c.index()].destroyed {
            return Ok(());
        }
        if let Some(stop) = self.stop_for(c, time) {
            return self.destroy(c, stop, batch);
        }
        let list = self.list_for(c, ty, expected, batch);
        if is_link {
            self.link(ev, list, kind, time, value, other, batch)?;
        } else {
            let small = SmallOp {
                line: ev.line(),
                time,
                number,
                list,
                value,
                kind,
            };
            let extras = self.extras(ev, batch);
            if extras.count == 0 {
                batch.ops.push(Op::Small(small));
            } else {
                batch.big.push(EntityOp { small, extras });
                batch.ops.push(Op::Entity(batch.big.len() as u32 - 1));
            }
        }
        self.conts[c.index()].end = time;
        Ok(())
    }

    /// The stop-at time if it applies to an event at `time` on `c` (the root
    /// is never stopped, as in PajeNG).
    #[inline]
    fn stop_for(&self, c: ContainerId, time: f64) -> Option<f64> {
        match self.stop_at {
            Some(stop) if c != ContainerId::ROOT && time > stop => Some(stop),
            _ => None,
        }
    }

    /// The list of `ty` in `c`, created (and announced) on first use.
    #[inline]
    fn list_for(
        &mut self,
        c: ContainerId,
        ty: TypeId,
        kind: TypeKind,
        batch: &mut Batch,
    ) -> ListId {
        if let Some(&(_, l)) = self.conts[c.index()].lists.iter().find(|(t, _)| *t == ty) {
            return l;
        }
        batch.ops.push(Op::NewList { c, ty, kind });
        let l = ListId(self.lists.len() as u32);
        self.lists.push(RList {
            container: c,
            ty,
            links: (kind == TypeKind::Link).then(Box::default),
        });
        self.conts[c.index()].lists.push((ty, l));
        l
    }

    /// Destroys `c` and its living descendants at `time`.
    fn destroy(&mut self, c: ContainerId, time: f64, batch: &mut Batch) -> R {
        self.mark_destroyed(c, time)?;
        batch.ops.push(Op::Destroy { c, time });
        Ok(())
    }

    /// Marks `c` and its living descendants destroyed, in PajeNG's order,
    /// checking that no link is left without its other end.
    fn mark_destroyed(&mut self, c: ContainerId, time: f64) -> R {
        self.conts[c.index()].destroyed = true;
        self.conts[c.index()].end = time;
        for i in 0..self.conts[c.index()].lists.len() {
            let l = self.conts[c.index()].lists[i].1;
            let Some(links) = self.lists[l.index()].links.as_mut() else {
                continue;
            };
            if links.pending.is_empty() {
                continue;
            }
            if !self.ignore_incomplete_links {
                return Err(self.incomplete_links(l));
            }
            let slots: Vec<u32> = links.pending.values().collect();
            links.pending.clear();
            let n = slots.len();
            for slot in slots {
                self.slab_take(slot);
            }
            self.warnings.push(format!(
                "{n} incomplete link(s) of type '{}' in container '{}' ignored (-z)",
                self.tname(self.lists[l.index()].ty),
                s(&self.conts[c.index()].name)
            ));
        }
        for i in 0..self.conts[c.index()].children.len() {
            let child = self.conts[c.index()].children[i];
            if !self.conts[child.index()].destroyed {
                self.mark_destroyed(child, time)?;
            }
        }
        Ok(())
    }

    fn incomplete_links(&self, l: ListId) -> SimErrorKind {
        let info = &self.lists[l.index()];
        let cname = s(&self.conts[info.container.index()].name);
        let mut pending: Vec<&Pending> = info
            .links
            .iter()
            .flat_map(|ls| ls.pending.values())
            .map(|slot| &self.slab[slot as usize])
            .collect();
        pending.sort_by(|a, b| a.key.cmp(&b.key));
        let name = |x: u32| {
            if x == NONE {
                "NULL".to_string()
            } else {
                s(&self.conts[x as usize].name)
            }
        };
        let mut list = String::new();
        for p in &pending {
            list.push_str(&format!(
                "  Link, {cname}, {}, {}, {}, 0.000000, {}, {}, {}, {}\n",
                self.tname(info.ty),
                fmt_time(p.start),
                fmt_time(p.end),
                s(&self.value_names[p.value.index()]),
                name(p.from),
                name(p.to),
                s(&p.key)
            ));
        }
        list.pop();
        SimErrorKind::IncompleteLinks {
            container: cname,
            count: pending.len(),
            list,
        }
    }

    fn slab_put(&mut self, p: Pending) -> u32 {
        match self.free_slots.pop() {
            Some(i) => {
                self.slab[i as usize] = p;
                i
            }
            None => {
                self.slab.push(p);
                (self.slab.len() - 1) as u32
            }
        }
    }

    fn slab_take(&mut self, i: u32) -> Pending {
        self.free_slots.push(i);
        std::mem::take(&mut self.slab[i as usize])
    }

    fn owned_extras(&self, ev: &Event<'_>) -> OwnedExtras {
        if !self.keep_extras {
            return Vec::new();
        }
        ev.def()
            .extra_names()
            .iter()
            .zip(ev.extras())
            .map(|(n, v)| (n.as_bytes().into(), v.into()))
            .collect()
    }

    /// Matches the ends of a link by key; a complete link goes to the engine.
    #[allow(clippy::too_many_arguments)]
    fn link(
        &mut self,
        ev: &Event<'_>,
        l: ListId,
        kind: EventKind,
        time: f64,
        value: ValueId,
        other: ContainerId,
        batch: &mut Batch,
    ) -> R {
        let key = ev.get(Field::Key);
        let is_start = kind == EventKind::StartLink;
        let Some(links) = self.lists[l.index()].links.as_mut() else {
            return Ok(());
        };
        // A pending key is never a used one: the (large) set of used keys is
        // only looked at for new links.
        let Some(slot) = links.pending.remove(key) else {
            if links.used.contains(key) {
                let info = &self.lists[l.index()];
                return Err(SimErrorKind::KeyReused {
                    key: s(key),
                    ty: self.tname(info.ty),
                    container: s(&self.conts[info.container.index()].name),
                });
            }
            let extras = self.owned_extras(ev);
            let p = Pending {
                start: if is_start { time } else { -1.0 },
                end: if is_start { -1.0 } else { time },
                value,
                from: if is_start { other.0 } else { NONE },
                to: if is_start { NONE } else { other.0 },
                key: key.into(),
                extras,
            };
            let slot = self.slab_put(p);
            if let Some(links) = self.lists[l.index()].links.as_mut() {
                links.pending.insert(key, slot);
            }
            return Ok(());
        };
        let mut p = self.slab_take(slot);
        if is_start {
            p.start = time;
            p.from = other.0;
        } else {
            p.end = time;
            p.to = other.0;
        }
        if p.value != value {
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
                found: s(&self.value_names[value.index()]),
                expected: s(&self.value_names[p.value.index()]),
            });
        }
        if let Some(links) = self.lists[l.index()].links.as_mut() {
            links.used.insert(key);
        }
        // User-defined fields: the first end's, then this one's.
        let start_extras = batch.extras.len() as u32;
        for (n, v) in &p.extras {
            let n = batch.put(n);
            let v = batch.put(v);
            batch.extras.push((n, v));
        }
        let now = self.extras(ev, batch);
        let extras = Extras {
            start: start_extras,
            count: p.extras.len() as u32 + now.count,
        };
        let (key_packed, long_key) = match pack(key) {
            Some(k) => (k, None),
            None => (0, Some(batch.put(key))),
        };
        batch.links.push(LinkOp {
            line: ev.line(),
            list: l,
            check: if is_start { p.start } else { p.end },
            start: p.start,
            end: p.end,
            value,
            from: p.from,
            to: p.to,
            key: key_packed,
            long_key,
            extras,
        });
        batch.ops.push(Op::Link(batch.links.len() as u32 - 1));
        Ok(())
    }
}

/// Reads back a string of a batch (helper for the engine).
pub(crate) fn text(batch: &Batch, s: Str) -> &[u8] {
    batch.get(s)
}

fn fmt_time(t: f64) -> String {
    let mut v = Vec::new();
    trama_num::write_fixed(&mut v, t, 6);
    String::from_utf8(v).unwrap_or_default()
}
