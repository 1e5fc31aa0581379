//! Resolved operations: what the resolver hands the engine.
//!
//! The resolver turns each event into one or more [`Op`]s whose identifiers
//! are already handles; strings the engine must keep (names of new types,
//! containers and values, long link keys, user-defined fields) travel in the
//! batch's byte arena.

use crate::model::{ContainerId, ListId, TypeId, TypeKind, ValueId};
use crate::SimError;
use trama_events::EventKind;

/// A string in a [`Batch`]'s arena.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct Str {
    pub off: u32,
    pub len: u32,
}

/// A range of (name, value) pairs in [`Batch::extras`].
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct Extras {
    pub start: u32,
    pub count: u32,
}

/// One resolved operation (plain data: a batch is cleared in O(1)).
#[derive(Clone, Copy, Debug)]
pub(crate) enum Op {
    /// An event with no effect but setting the last known time.
    Time { time: f64 },
    /// A new type (its id is the next one).
    NewType {
        kind: TypeKind,
        parent: TypeId,
        start_type: Option<TypeId>,
        end_type: Option<TypeId>,
        name: Str,
        alias: Str,
        color: Str,
    },
    /// A new value (its id is the next one). `defined` is true for
    /// `PajeDefineEntityValue` (an event of its own, which sets the time to
    /// 0), false for values created on first use.
    NewValue {
        ty: TypeId,
        name: Str,
        alias: Str,
        color: Str,
        defined: bool,
    },
    /// A new container (its id is the next one).
    NewContainer {
        time: f64,
        ty: TypeId,
        parent: ContainerId,
        name: Str,
        alias: Str,
        extras: Extras,
    },
    /// A new entity list (its id is the next one).
    NewList {
        c: ContainerId,
        ty: TypeId,
        kind: TypeKind,
    },
    /// Destroy a container and its living descendants.
    Destroy { time: f64, c: ContainerId },
    /// An entity event with user-defined fields: index in [`Batch::big`].
    Entity(u32),
    /// A complete link: index in [`Batch::links`].
    Link(u32),
    /// An entity event without extras nor long key (the common case, unboxed).
    Small(SmallOp),
    /// The resolver failed here: the error is [`Batch::fail`].
    Fail,
}

/// A state, event or variable event on a living container, kept small.
#[derive(Clone, Copy, Debug)]
pub(crate) struct SmallOp {
    pub line: u64,
    pub time: f64,
    /// Value of a variable event (as `strtof` read it).
    pub number: f64,
    pub list: ListId,
    pub value: ValueId,
    pub kind: EventKind,
}

/// An entity event with user-defined fields.
#[derive(Clone, Copy, Debug)]
pub(crate) struct EntityOp {
    pub small: SmallOp,
    pub extras: Extras,
}

/// A link whose two ends have been matched.
#[derive(Clone, Copy, Debug)]
pub(crate) struct LinkOp {
    pub line: u64,
    pub list: ListId,
    /// The time checked against the list's last entity (the completing end).
    pub check: f64,
    pub start: f64,
    pub end: f64,
    pub value: ValueId,
    pub from: u32,
    pub to: u32,
    /// The key packed when short (see `idmap::pack`), else `long_key`.
    pub key: u128,
    pub long_key: Option<Str>,
    pub extras: Extras,
}

/// A batch of operations with their strings.
#[derive(Debug, Default)]
pub(crate) struct Batch {
    pub ops: Vec<Op>,
    pub bytes: Vec<u8>,
    pub extras: Vec<(Str, Str)>,
    /// Entity events with user-defined fields.
    pub big: Vec<EntityOp>,
    /// Complete links.
    pub links: Vec<LinkOp>,
    /// The resolver's error, when the batch ends with [`Op::Fail`].
    pub fail: Option<Box<SimError>>,
    /// Set on the last batch: the end time of the trace and the warnings.
    pub end: Option<(f64, Vec<String>)>,
}

impl Batch {
    /// Stores a string.
    #[inline]
    pub fn put(&mut self, s: &[u8]) -> Str {
        let off = self.bytes.len() as u32;
        self.bytes.extend_from_slice(s);
        Str {
            off,
            len: s.len() as u32,
        }
    }

    /// Reads a string back.
    #[inline]
    pub fn get(&self, s: Str) -> &[u8] {
        &self.bytes[s.off as usize..(s.off + s.len) as usize]
    }

    /// Empties the batch, keeping its allocations.
    pub fn clear(&mut self) {
        self.ops.clear();
        self.bytes.clear();
        self.extras.clear();
        self.big.clear();
        self.links.clear();
        self.fail = None;
        self.end = None;
    }
}
