//! Stage one of the simulation: checks every reference of an event and turns
//! it into handles ([`Op`]s).
//!
//! The resolver owns the identifier maps (types, containers, values) and
//! what the checks need (type natures and parents, container types). It
//! creates types, values and containers, and tells the engine through
//! `New*` operations so that the engine's [`crate::Model`] mirrors them.

use trama_events::{Event, EventDef, EventKind, Field};
use trama_num::Precision;

use crate::error::{SimError, SimErrorKind};
use crate::idmap::{pack, IdMap};
use crate::lenient::Tolerated;
use crate::model::{ContainerId, TypeId, TypeKind, ValueId};
use crate::op::{Batch, EntityOp, Extras, Op, SmallOp, Str};

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
}

/// Identifier resolution and reference checks.
#[derive(Debug)]
pub struct Resolver {
    types: Vec<RType>,
    type_map: IdMap<TypeId>,
    conts: Vec<RCont>,
    cont_map: IdMap<ContainerId>,
    values: Vec<IdMap<ValueId>>,
    nvalues: u32,
    value_types: Vec<TypeId>,
    keep_extras: bool,
    /// Events on unknown containers are ignored with a warning.
    lenient: bool,
    /// How variable values are read.
    precision: Precision,
    tolerated: Tolerated,
}

type R<T = ()> = Result<T, SimErrorKind>;

/// The class of the events a lenient resolver ignores.
const UNKNOWN_IGNORED: &str = "events on unknown containers ignored";

fn s(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

/// The user-defined fields of an event of definition `def`, of `values`,
/// put in `batch`.
fn put_extras<'v>(
    batch: &mut Batch,
    def: &EventDef,
    values: impl Iterator<Item = &'v [u8]>,
) -> Extras {
    let start = batch.extras.len() as u32;
    for (name, value) in def.extra_names().iter().zip(values) {
        let n = batch.put(name.as_bytes());
        let v = batch.put(value);
        batch.extras.push((n, v));
    }
    Extras {
        start,
        count: batch.extras.len() as u32 - start,
    }
}

/// `ident` is not yet the identifier of a `what` in `map`.
fn unused<T: Copy + Default>(map: &IdMap<T>, ident: &[u8], what: &'static str) -> R {
    if map.contains_key(ident) {
        return Err(SimErrorKind::AlreadyExists {
            what,
            token: s(ident),
        });
    }
    Ok(())
}

impl Resolver {
    /// A resolver with only the root type and container; `keep_extras` keeps
    /// user-defined fields in the operations.
    pub fn new(keep_extras: bool) -> Resolver {
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
            }],
            cont_map,
            values: vec![IdMap::default()],
            nvalues: 0,
            value_types: Vec::new(),
            keep_extras,
            lenient: false,
            precision: Precision::Float32,
            tolerated: Tolerated::default(),
        }
    }

    /// Lets events on unknown containers pass (ignored, with a warning)
    /// instead of failing; see [`Resolver::warnings`].
    pub fn set_lenient(&mut self, lenient: bool) {
        self.lenient = lenient;
    }

    /// Reads variable values by `precision` (the default: `strtof`, as
    /// PajeNG reads Pajé text).
    pub fn set_precision(&mut self, precision: Precision) {
        self.precision = precision;
    }

    /// What was let pass (with [`Resolver::set_lenient`]), as warnings.
    pub fn warnings(&self) -> Vec<String> {
        self.tolerated.warnings()
    }

    /// Resolves one event into `batch`. On error, nothing is added.
    pub fn resolve(&mut self, ev: &Event<'_>, batch: &mut Batch) -> Result<(), SimError> {
        let n_ops = batch.ops.len();
        match self.dispatch(ev, batch) {
            Ok(()) => Ok(()),
            Err(kind) => {
                batch.ops.truncate(n_ops);
                if self.lenient {
                    if let SimErrorKind::UnknownContainer { token, .. } = &kind {
                        self.tolerated.note(UNKNOWN_IGNORED, ev.line(), || {
                            format!("{} on unknown container '{token}' ignored", ev.kind())
                        });
                        return Ok(());
                    }
                }
                Err(SimError {
                    line: ev.line(),
                    kind: self.advise(kind),
                    contents: ev.contents(),
                })
            }
        }
    }

    /// Adds to an unknown container's error the options that let such a
    /// trace be read.
    fn advise(&self, mut kind: SimErrorKind) -> SimErrorKind {
        if let SimErrorKind::UnknownContainer { hint, advice, .. } = &mut kind {
            if hint.is_empty() {
                *advice = "; if the trace creates it further on at a later time or never (as StarPU's raw traces do), --lenient ignores the events of unknown containers, with a warning; if at an earlier time, --sort-window SECONDS reorders a trace nearly in time order, --sort one in any order".into();
            }
        }
        kind
    }

    fn dispatch(&mut self, ev: &Event<'_>, batch: &mut Batch) -> R {
        let time = match ev.def().slot(Field::Time) {
            Some(i) => trama_num::atof(ev.word(i)),
            None => 0.0,
        };
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
                batch.ops.push(Op::Destroy {
                    line: ev.line(),
                    time,
                    c,
                });
                Ok(())
            }
            EventKind::TraceFile => {
                batch.ops.push(Op::Time { time });
                Ok(())
            }
            _ => self.entity_event(ev, time, batch),
        }
    }

    /// The container type the `Type` field of `ev` names.
    fn container_type(&self, ev: &Event<'_>) -> R<TypeId> {
        let token = ev.get(Field::Type);
        let ty = self.find_type(token, "container type")?;
        let kind = self.types[ty.index()].kind;
        if kind != TypeKind::Container {
            return Err(SimErrorKind::WrongTypeKind {
                token: s(token),
                found: kind.name(),
                expected: "container",
            });
        }
        Ok(ty)
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
            advice: String::new(),
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
        let parent = self.container_type(ev)?;
        let (mut start_type, mut end_type) = (None, None);
        if kind == TypeKind::Link {
            start_type = Some(self.find_type(ev.get(Field::StartContainerType), "container type")?);
            end_type = Some(self.find_type(ev.get(Field::EndContainerType), "container type")?);
        }
        let ident = if alias.is_empty() { name } else { alias };
        unused(&self.type_map, ident, "type")?;
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
                kind: kind.name(),
            });
        }
        let values = &self.values[ty.index()];
        if !alias.is_empty() {
            unused(values, alias, "value")?;
        }
        unused(values, name, "value")?;
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
        self.value_types.push(ty);
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
        put_extras(batch, ev.def(), ev.extras())
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
        let ty = self.container_type(ev)?;
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
        unused(&self.cont_map, ident, "container")?;
        let id = ContainerId(self.conts.len() as u32);
        self.conts.push(RCont {
            ty,
            name: name.into(),
            alias: alias.into(),
        });
        self.cont_map.insert(ident, id);
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

    /// The references of an entity event as handles, checked as
    /// [`Resolver::resolve`] checks them (in the same order, so errors are
    /// the same), without an operation and without reading the time or
    /// the number (for writers of binary traces, which read them
    /// themselves). A value used for the first time is created: its
    /// `NewValue` operation goes to `batch` (for a model to mirror).
    pub fn entity_refs(
        &mut self,
        ev: &Event<'_>,
        batch: &mut Batch,
    ) -> Result<EntityHandles, Box<SimError>> {
        self.refs(ev, batch).map_err(|kind| {
            Box::new(SimError {
                line: ev.line(),
                kind: self.advise(kind),
                contents: ev.contents(),
            })
        })
    }

    #[inline(always)]
    fn refs(&mut self, ev: &Event<'_>, batch: &mut Batch) -> R<EntityHandles> {
        let kind = ev.kind();
        let expected = expected_kind(kind);
        let c = self.find_container(ev.get(Field::Container))?;
        let other = match kind {
            EventKind::StartLink => self.find_container(ev.get(Field::StartContainer))?,
            EventKind::EndLink => self.find_container(ev.get(Field::EndContainer))?,
            _ => c,
        };
        let ty_token = ev.get(Field::Type);
        let ty = self.find_type(ty_token, expected.name())?;
        let other_token = ev.get(if kind == EventKind::StartLink {
            Field::StartContainer
        } else {
            Field::EndContainer
        });
        self.check_entity(kind, c, ty, other, Some(ty_token), Some(other_token))?;
        let before = self.nvalues;
        let value = match kind {
            EventKind::NewEvent
            | EventKind::SetState
            | EventKind::PushState
            | EventKind::StartLink
            | EventKind::EndLink => self.value_of(ty, ev.get(Field::Value), batch),
            _ => ValueId(u32::MAX),
        };
        Ok(EntityHandles {
            container: c,
            ty,
            value,
            other,
            new_value: self.nvalues != before,
        })
    }

    fn entity_event(&mut self, ev: &Event<'_>, time: f64, batch: &mut Batch) -> R {
        let kind = ev.kind();
        let expected = expected_kind(kind);
        let EntityHandles {
            container: c,
            ty,
            value,
            other,
            ..
        } = self.refs(ev, batch)?;
        let number = if expected == TypeKind::Variable {
            self.precision.read(ev.get(Field::Value))
        } else {
            0.0
        };
        let key = if expected == TypeKind::Link {
            ev.get(Field::Key)
        } else {
            &[]
        };
        let extras = self.extras(ev, batch);
        push_entity(
            batch,
            SmallOp {
                line: ev.line(),
                time,
                number,
                key: 0,
                c,
                ty,
                value,
                other,
                kind,
                list_kind: expected,
            },
            key,
            extras,
        );
        Ok(())
    }

    /// The reference checks of an entity event: the type has the right
    /// nature and belongs to the container's type; a link's other end has
    /// the type the link type declares. Tokens are only used in messages
    /// (the names of the type and of the other container when absent).
    #[inline]
    fn check_entity(
        &self,
        kind: EventKind,
        c: ContainerId,
        ty: TypeId,
        other: ContainerId,
        ty_token: Option<&[u8]>,
        other_token: Option<&[u8]>,
    ) -> R {
        let ty_token = ty_token.unwrap_or(&self.types[ty.index()].name);
        let other_token = other_token.unwrap_or(&self.conts[other.index()].name);
        let expected = expected_kind(kind);
        let t = &self.types[ty.index()];
        if t.kind != expected {
            return Err(SimErrorKind::WrongTypeKind {
                token: s(ty_token),
                found: t.kind.name(),
                expected: expected.name(),
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
        if expected == TypeKind::Link {
            let start = kind == EventKind::StartLink;
            let want = if start { t.start_type } else { t.end_type };
            let oty = self.conts[other.index()].ty;
            if want != Some(oty) {
                return Err(SimErrorKind::WrongLinkEndType {
                    token: s(other_token),
                    found: self.tname(oty),
                    end: if start { "start" } else { "end" },
                    link: s(ty_token),
                    expected: want.map(|w| self.tname(w)).unwrap_or_default(),
                });
            }
        }
        Ok(())
    }

    /// Resolves an entity event whose references are already handles (as
    /// binary formats store them), with the same checks as
    /// [`Resolver::resolve`]. On error, nothing is added to `batch`.
    pub fn resolve_handles(
        &mut self,
        ev: &HandleEvent<'_>,
        batch: &mut Batch,
    ) -> Result<(), SimError> {
        let n_ops = batch.ops.len();
        self.handles(ev, batch).map_err(|kind| {
            batch.ops.truncate(n_ops);
            SimError {
                line: ev.line,
                kind,
                contents: String::new(),
            }
        })
    }

    /// The checks of [`Resolver::resolve_handles`] without the operation:
    /// returns the value (created by its first use if new, its `NewValue`
    /// operation pushed to `batch`) and the other end of a link (the
    /// container itself for other kinds).
    pub(crate) fn check_handles(
        &mut self,
        ev: &HandleEvent<'_>,
        batch: &mut Batch,
    ) -> R<(ValueId, ContainerId)> {
        let kind = ev.kind;
        if kind.is_definition()
            || matches!(
                kind,
                EventKind::CreateContainer | EventKind::DestroyContainer | EventKind::TraceFile
            )
        {
            return Err(SimErrorKind::BadHandle {
                what: "event kind",
                index: kind as u32,
            });
        }
        let expected = expected_kind(kind);
        let bad = |what: &'static str, index: u32| SimErrorKind::BadHandle { what, index };
        let nconts = self.conts.len() as u32;
        if ev.container.0 >= nconts {
            return Err(bad("container", ev.container.0));
        }
        let other = if expected == TypeKind::Link {
            ev.other
        } else {
            ev.container
        };
        if other.0 >= nconts {
            return Err(bad("container", other.0));
        }
        if ev.ty.0 as usize >= self.types.len() {
            return Err(bad("type", ev.ty.0));
        }
        self.check_entity(kind, ev.container, ev.ty, other, None, None)?;
        let value = match kind {
            EventKind::NewEvent
            | EventKind::SetState
            | EventKind::PushState
            | EventKind::StartLink
            | EventKind::EndLink => match ev.value {
                ValueRef::Id(v) => {
                    if v.0 >= self.nvalues || self.value_types[v.index()] != ev.ty {
                        return Err(bad("value", v.0));
                    }
                    v
                }
                ValueRef::New(name) => self.value_of(ev.ty, name, batch),
            },
            _ => ValueId(u32::MAX),
        };
        Ok((value, other))
    }

    fn handles(&mut self, ev: &HandleEvent<'_>, batch: &mut Batch) -> R {
        let kind = ev.kind;
        let expected = expected_kind(kind);
        let (value, other) = self.check_handles(ev, batch)?;
        let extras = if self.keep_extras && !ev.extras.is_empty() {
            put_extras(batch, ev.def, ev.extras.iter().copied())
        } else {
            Extras::default()
        };
        push_entity(
            batch,
            SmallOp {
                line: ev.line,
                time: ev.time,
                number: ev.number,
                key: 0,
                c: ev.container,
                ty: ev.ty,
                value,
                other,
                kind,
                list_kind: expected,
            },
            if expected == TypeKind::Link {
                ev.key
            } else {
                &[]
            },
            extras,
        );
        Ok(())
    }

    /// The handles of the entity event resolved into `batch` from operation
    /// `from` on, if the event was an entity event: what a binary writer
    /// stores instead of identifiers.
    pub fn entity_handles(&self, batch: &Batch, from: usize) -> Option<EntityHandles> {
        let mut new_value = false;
        for op in &batch.ops[from..] {
            let small = match op {
                Op::NewValue { defined: false, .. } => {
                    new_value = true;
                    continue;
                }
                Op::Small(s) => s,
                Op::Entity(i) => &batch.big[*i as usize].small,
                _ => return None,
            };
            return Some(EntityHandles {
                container: small.c,
                ty: small.ty,
                value: small.value,
                other: small.other,
                new_value,
            });
        }
        None
    }

    /// Declares the value `name` of type `ty` as a first use would (binary
    /// keyframes replay the values created before them this way). Returns
    /// its handle; an existing value is returned as is.
    pub fn declare_value(
        &mut self,
        ty: TypeId,
        name: &[u8],
        batch: &mut Batch,
    ) -> Result<ValueId, SimError> {
        let ok = (ty.index() < self.types.len())
            .then(|| self.types[ty.index()].kind)
            .is_some_and(|k| matches!(k, TypeKind::State | TypeKind::Event | TypeKind::Link));
        if !ok {
            return Err(SimError {
                line: 0,
                kind: SimErrorKind::BadHandle {
                    what: "type",
                    index: ty.0,
                },
                contents: String::new(),
            });
        }
        Ok(self.value_of(ty, name, batch))
    }

    /// What the event resolved into `batch` from operation `from` on did to
    /// the container tree: a container created (with its parent) or
    /// destroyed.
    pub fn container_effect(&self, batch: &Batch, from: usize) -> Option<ContainerEffect> {
        for op in &batch.ops[from..] {
            match op {
                Op::NewContainer { parent, .. } => {
                    return Some(ContainerEffect::Created {
                        id: ContainerId(self.conts.len() as u32 - 1),
                        parent: *parent,
                    })
                }
                Op::Destroy { c, .. } => return Some(ContainerEffect::Destroyed(*c)),
                _ => {}
            }
        }
        None
    }

    /// Number of values created so far: the handle the next new value gets.
    pub fn value_count(&self) -> u32 {
        self.nvalues
    }
}

fn expected_kind(kind: EventKind) -> TypeKind {
    match kind {
        EventKind::NewEvent => TypeKind::Event,
        EventKind::SetState
        | EventKind::PushState
        | EventKind::PopState
        | EventKind::ResetState => TypeKind::State,
        EventKind::SetVariable | EventKind::AddVariable | EventKind::SubVariable => {
            TypeKind::Variable
        }
        _ => TypeKind::Link,
    }
}

#[inline]
fn push_entity(batch: &mut Batch, mut small: SmallOp, key: &[u8], extras: Extras) {
    let long_key = if small.list_kind == TypeKind::Link {
        match pack(key) {
            Some(p) => {
                small.key = p;
                None
            }
            None => Some(key),
        }
    } else {
        None
    };
    if extras.count == 0 && long_key.is_none() {
        batch.ops.push(Op::Small(small));
    } else {
        let long_key = long_key.map(|k| batch.put(k));
        batch.big.push(EntityOp {
            small,
            long_key,
            extras,
        });
        batch.ops.push(Op::Entity(batch.big.len() as u32 - 1));
    }
}

/// A change of the container tree, see [`Resolver::container_effect`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ContainerEffect {
    /// A container was created.
    Created {
        /// Its handle.
        id: ContainerId,
        /// Its parent.
        parent: ContainerId,
    },
    /// A container was destroyed.
    Destroyed(ContainerId),
}

/// The handles an entity event was resolved to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct EntityHandles {
    /// The container.
    pub container: ContainerId,
    /// The type.
    pub ty: TypeId,
    /// The value (`u32::MAX` for variables and pops).
    pub value: ValueId,
    /// The other end of a link (the container itself for other kinds).
    pub other: ContainerId,
    /// True when this event created its value (first use of the name).
    pub new_value: bool,
}

/// The value of an entity event given by handle: an existing value, or the
/// identifier of a value created by this event (its first use).
#[derive(Clone, Copy, Debug)]
pub enum ValueRef<'a> {
    /// An existing value.
    Id(ValueId),
    /// A value used for the first time, by its identifier.
    New(&'a [u8]),
}

/// An entity event (state, event, variable or link) whose references are
/// handles; see [`Resolver::resolve_handles`].
#[derive(Clone, Copy, Debug)]
pub struct HandleEvent<'a> {
    /// Its definition (gives the names of user-defined fields).
    pub def: &'a EventDef,
    /// Its kind: the definition's, or `PajeSetVariable` for a variable's
    /// value restored at a known number (binary keyframes).
    pub kind: EventKind,
    /// Line (or record number) reported in errors.
    pub line: u64,
    /// Time (0 when the definition has no time field).
    pub time: f64,
    /// The container (`Container` field).
    pub container: ContainerId,
    /// The type (`Type` field).
    pub ty: TypeId,
    /// The value of a state, event or link.
    pub value: ValueRef<'a>,
    /// The other end of a link (`StartContainer` or `EndContainer`).
    pub other: ContainerId,
    /// The value of a variable event (read from its word as the
    /// simulation's [`Precision`] says).
    pub number: f64,
    /// The key of a link.
    pub key: &'a [u8],
    /// Values of the user-defined fields, in definition order.
    pub extras: &'a [&'a [u8]],
}

/// Reads back a string of a batch (helper for the engine).
pub(crate) fn text(batch: &Batch, s: Str) -> &[u8] {
    batch.get(s)
}
