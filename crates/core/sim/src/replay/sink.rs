//! What a replay takes in (entity events given by handles) and gives out
//! (final entities, to a [`ReplaySink`]).

use trama_events::EventKind;

use super::{Live, ReplayState};
use crate::model::TypeKind;
use crate::CountingSink;

/// An entity event given by handles.
#[derive(Clone, Copy, Debug)]
pub struct ReplayEvent<'a> {
    /// One of the ten entity event kinds.
    pub kind: EventKind,
    /// Its time (0 when its definition has none).
    pub time: f64,
    /// The container.
    pub container: u32,
    /// The type.
    pub ty: u32,
    /// The value of a state, event or link.
    pub value: u32,
    /// The other end of a link.
    pub other: u32,
    /// The value of a variable event, read from its word as the file says
    /// (`strtof` for Pajé text, see [`trama_num::Precision`]).
    pub number: f64,
    /// The key of a link.
    pub key: &'a [u8],
    /// The pending link this event completes, when known: how many first
    /// ends of its list came since that link's (≥ 1; else the key tells,
    /// see [`Replay::with_key_index`]).
    pub pair: Option<u64>,
    /// User-defined fields, `[name, value, …]` codes.
    pub extras: &'a [u32],
}

/// A final entity, as handed to a [`ReplaySink`].
pub struct Final<'a> {
    /// Its list.
    pub list: u32,
    /// The nature of the list's type.
    pub kind: TypeKind,
    /// The entity.
    pub e: &'a Live,
    /// The state it lived in (for [`ReplayState::key`] and
    /// [`ReplayState::extras_of`]).
    pub state: &'a ReplayState,
}

/// Receives entities once final.
pub trait ReplaySink {
    /// An entity is final.
    fn entity(&mut self, f: &Final<'_>);
}

impl ReplaySink for () {
    #[inline]
    fn entity(&mut self, _: &Final<'_>) {}
}

impl<S: ReplaySink + ?Sized> ReplaySink for &mut S {
    #[inline]
    fn entity(&mut self, f: &Final<'_>) {
        (**self).entity(f)
    }
}

impl ReplaySink for CountingSink {
    #[inline]
    fn entity(&mut self, f: &Final<'_>) {
        self.count(f.kind);
    }
}
