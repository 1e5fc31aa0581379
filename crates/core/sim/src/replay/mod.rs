//! Replay: the engine's semantics on events already resolved to handles,
//! starting from a snapshot of its state.
//!
//! [`Replay`] applies what the [`crate::Simulator`] does with its default
//! options (with or without `-z`) to [`ReplayEvent`]s whose references are
//! handles, starting from a [`ReplayState`]: the containers created and
//! alive, and per entity list the entities that are not final yet (the
//! state stack and the last entity, the pending links). A binary trace
//! stores such a state before its blocks (a *keyframe*), so that its blocks
//! can be simulated independently, in parallel; the state reached at the
//! end of a block must equal the next keyframe, which proves that the
//! pieces add up to the simulation of the whole trace.
//!
//! The engine keeps, per list, the entities that are not final in creation
//! order; they are always the stacked states and, after them, at most one
//! entity that is the list's last and is not stacked (a popped state, the
//! current value of a variable, the last event or link). A replay keeps
//! exactly that: a stack and a tail.
//!
//! A replay does not report errors itself: on anything the reference
//! engine would reject (or that its options do not cover, such as a second
//! destruction of a container) it gives up with a [`Bail`], and the caller
//! simulates again with the reference engine, which names the error.
//!
//! Links are numbered per list, in the order of their first ends; the
//! second end of a link names its pending first end by how many first ends
//! of its list came since (binary traces store that instead of the key
//! again), so that the events of a list can be replayed without those of
//! the others. A replay fed with keys ([`Replay::with_key_index`]) pairs
//! the ends by key, as the engine does, and numbers them the same way.
//! Link events on destroyed containers are ignored and not numbered.
//!
//! Link keys need the whole trace: a key cannot be used again once its
//! link is complete. A replay records a hash of every link's *first end*
//! (the event that makes it pending) in [`Replay::first_ends`]; the keys
//! of a list are all different exactly when no key was reused, which the
//! caller checks over every block at the end ([`has_duplicates`]).
//!
//! # What binary traces need from the simulator
//!
//! This module gathers everything the binary format (`trama-ptb`) uses of
//! the simulator, and nothing else uses: the model alone
//! ([`ModelBuilder`]), the replay ([`Replay`], its state and tables), the
//! sinks of a replay ([`ReplaySink`], [`ColumnSink`]) and the assembly of a
//! [`Trace`](crate::Trace) from the pieces of a parallel replay
//! ([`assemble_trace`]). It stays in the simulator because it needs the
//! simulator's private parts: the resolver and the model operations
//! ([`ModelBuilder`]), the engine's rules (which a replay must apply the
//! same way: they are written once, in the engine), the packed keys and
//! the trace store's columns ([`assemble_trace`]).
//!
//! - `model`: the model alone ([`ModelBuilder`], [`ModelEffect`]);
//! - `state`: what a keyframe holds ([`ReplayState`] and its parts);
//! - `tables`: the model in flat tables ([`ReplayTables`]);
//! - `sink`: entity events given by handles and final entities
//!   ([`ReplayEvent`], [`ReplaySink`], [`Final`]);
//! - `run` and `entity`: the replay, model events and entity events;
//! - `pending`: links with one end seen ([`Pending`]);
//! - `first_ends`: the check that no link key was reused
//!   ([`has_duplicates`]);
//! - `assemble`: a trace from the pieces of a parallel replay.

use std::hash::BuildHasher;

use crate::idmap::pack;

mod assemble;
mod entity;
mod first_ends;
mod model;
mod pending;
mod run;
mod sink;
mod state;
mod tables;

pub use assemble::{assemble_trace, ColumnSink, TraceParts};
pub use entity::Valued;
pub use first_ends::{has_duplicates, FirstEnds};
pub use model::{is_entity_kind, ModelBuilder, ModelEffect};
pub use pending::Pending;
pub use run::{NewList, Replay};
pub use sink::{Final, ReplayEvent, ReplaySink};
pub use state::{ContainerState, Key, ListState, Live, ReplayState};
pub use tables::ReplayTables;

/// "No handle" (a link end not known yet, an event without value).
pub const NONE: u32 = u32::MAX;

type Fast = foldhash::fast::FixedState;

fn fast() -> Fast {
    Fast::with_seed(0x7265_706c)
}

/// A key of at most 15 bytes packed one-to-one into an integer (`None`
/// for longer ones).
#[inline]
pub fn pack_key(key: &[u8]) -> Option<u128> {
    pack(key)
}

/// The hash of a link key.
#[inline]
pub fn key_hash(key: &[u8]) -> u64 {
    match pack(key) {
        Some(p) => fast().hash_one(p),
        None => fast().hash_one(key),
    }
}

/// Why a replay gave up; the reference engine must simulate the trace to
/// tell what is wrong (or to cover what the replay does not).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Bail(pub &'static str);

impl std::fmt::Display for Bail {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.0)
    }
}

type R<T = ()> = Result<T, Bail>;
