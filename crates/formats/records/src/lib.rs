//! The record model of the sources trama integrates into one trace, and
//! the engine that turns records into Pajé events.
//!
//! Every reader of `trama-sources` yields [`Record`]s (see [`record`]):
//! Pajé-level facts about containers named by their path in the source's
//! hierarchy, timed in nanoseconds of the source's clock, served by a
//! [`Source`] in time order. [`Declarer`] is the one engine that declares
//! types, containers and values on first use for such a stream, handing
//! each event by its words to an [`EventOut`]: [`PajeWriter`] writes them
//! as Pajé text in any header dialect ([`Dialect`]); `trama-open` hands
//! them to the simulation. [`Prefetched`] reads a source ahead on a
//! thread of its own.

#![deny(missing_docs)]

mod prefetch;
pub mod record;
mod writer;

pub use prefetch::Prefetched;
pub use record::{
    collect, path, Decl, DisplayPath, EntityKind, ExtraField, Extras, Location, Name, Nanos, Path,
    PathMap, Record, Source, SourceError, Step, VarOp, VecSource, What, ROOT_TYPE,
};
pub use writer::{
    Declarer, Dialect, DialectError, EventOut, PajeWriter, TextOut, TimeText, Words, WriteError,
    WriterOptions,
};
