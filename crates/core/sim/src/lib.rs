//! Simulation of Pajé traces and the in-memory trace store.
//!
//! [`Simulator`] replays a stream of [`trama_events::Event`]s with PajeNG's
//! semantics and hands each entity to a [`Sink`] when it is final:
//! [`TraceBuilder`] keeps them in a columnar [`Trace`]; other sinks count
//! them or write them out at once (bounded memory).
//!
//! The [`Trace`] serves analyses and renderers: the type tree and container
//! tree ([`Model::types_depth_first`], [`Model::containers_depth_first`]),
//! the entity lists of a container ([`Trace::lists_of`]) and the entities of
//! a list in a time window ([`Trace::window`]).
//!
//! [`replay`] holds what binary traces need: the model alone, a replay of
//! entity events from a saved state, and the assembly of a trace from the
//! pieces of a parallel replay.
#![deny(missing_docs)]
// Errors end a simulation: their size never weighs on the hot path.
#![allow(clippy::result_large_err)]

mod engine;
mod error;
mod idmap;
mod intern;
mod keys;
mod lenient;
mod model;
mod natural;
mod op;
pub mod replay;
mod resolve;
mod sim;
mod sink;
mod store;

pub use error::{SimError, SimErrorKind};
pub use intern::{Interner, StrId};
pub use keys::{KeySuspects, LinkKeys, KEY_FILTER_BYTES};
pub use lenient::{Tolerated, MARK as LENIENT_MARK, SHOWN};
pub use model::{
    label, ContainerId, ContainerInfo, ListId, ListInfo, Model, TypeId, TypeInfo, TypeKind,
    ValueId, ValueInfo,
};
pub use natural::{natural_cmp, natural_cmp_bytes};
pub use op::Batch;
pub use resolve::{ContainerEffect, EntityHandles, HandleEvent, Resolver, ValueRef};
pub use sim::{
    Closed, CountingSink, Entity, Finished, OpenEntity, Pipeline, SimOptions, Simulator, Sink,
};
pub use store::{Columns, EntityRef, ParallelTraceBuilder, Trace, TraceBuilder};
