//! Resolved operations: what the resolver hands the engine.
//!
//! The resolver turns each event into one or more [`Op`]s whose identifiers
//! are already handles; strings the engine must keep (names of new types,
//! containers and values, long link keys, user-defined fields) travel in the
//! batch's byte arena.

use crate::model::{ContainerId, TypeId, TypeKind, ValueId};
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
    /// `PajeDestroyContainer`.
    Destroy {
        line: u64,
        time: f64,
        c: ContainerId,
    },
    /// An entity event with extras or a long key: index in [`Batch::big`].
    Entity(u32),
    /// An entity event without extras nor long key (the common case, unboxed).
    Small(SmallOp),
    /// The resolver failed here: the error is [`Batch::fail`].
    Fail,
}

/// The common entity event, kept small.
#[derive(Clone, Copy, Debug)]
pub(crate) struct SmallOp {
    pub line: u64,
    pub time: f64,
    pub number: f64,
    pub key: u128,
    pub c: ContainerId,
    pub ty: TypeId,
    pub value: ValueId,
    pub other: ContainerId,
    pub kind: EventKind,
    pub list_kind: TypeKind,
}

/// An entity event with extras or a long key.
#[derive(Clone, Copy, Debug)]
pub(crate) struct EntityOp {
    pub small: SmallOp,
    /// A key longer than 15 bytes (the short ones are packed in `small`).
    pub long_key: Option<Str>,
    pub extras: Extras,
}

/// A batch of resolved operations with their strings: what stage one of the
/// simulation hands stage two. Opaque outside the simulator.
#[derive(Debug, Default)]
pub struct Batch {
    pub(crate) ops: Vec<Op>,
    pub(crate) bytes: Vec<u8>,
    pub(crate) extras: Vec<(Str, Str)>,
    /// Entity events with extras or long keys.
    pub(crate) big: Vec<EntityOp>,
    /// The resolver's error, when the batch ends with [`Op::Fail`].
    pub(crate) fail: Option<Box<SimError>>,
}

impl Batch {
    /// Stores a string.
    #[inline]
    pub(crate) fn put(&mut self, s: &[u8]) -> Str {
        let off = self.bytes.len() as u32;
        self.bytes.extend_from_slice(s);
        Str {
            off,
            len: s.len() as u32,
        }
    }

    /// Reads a string back.
    #[inline]
    pub(crate) fn get(&self, s: Str) -> &[u8] {
        &self.bytes[s.off as usize..(s.off + s.len) as usize]
    }

    /// Number of operations in the batch.
    pub fn len(&self) -> usize {
        self.ops.len()
    }

    /// True when the batch holds no operation.
    pub fn is_empty(&self) -> bool {
        self.ops.is_empty()
    }

    /// Empties the batch, keeping its allocations.
    pub fn clear(&mut self) {
        self.ops.clear();
        self.bytes.clear();
        self.extras.clear();
        self.big.clear();
        self.fail = None;
    }
}
