//! OTF2 archives (Score-P, APEX, TAU, …) read natively, without the OTF2
//! library, and mapped to the Pajé model.
//!
//! # The format, as read here
//!
//! An archive is an anchor file `NAME.otf2` ([`Anchor`]: byte order,
//! version, chunk sizes, file substrate, compression, counts), the global
//! definitions `NAME.def` ([`defs`]), and per location `L` its events
//! `NAME/L.evt` and, possibly, its local definitions `NAME/L.def`
//! ([`local`]: mapping tables from the identifiers its events use to
//! global ones, clock offsets). Every file is a buffer of records in the
//! byte order of the machine that wrote it (either is read), cut into
//! chunks of the anchor's size, each opened by a header (`0x03`, the
//! endianness byte `0x42` little or `0x23` big, and in chunked buffers the
//! numbers of its first and last event). A record is its type byte, its
//! length (one byte, or `0xff` and a full 64-bit length) and its
//! attributes: 8- and 16-bit values and timestamps at full width, 32- and
//! 64-bit integers compressed (a length byte, then that many low-order
//! bytes; `0xff` alone is the undefined reference), strings ending with
//! NUL. Attributes added by later versions come last, so a record is
//! decoded as far as this reader knows it and the rest skipped by its
//! length. In event files, a timestamp record (`0x05`, a full 64-bit
//! tick) sets the time of the records after it, an attribute list
//! (`0x06`) belongs to the next event, and the event records of OTF2 1.0
//! and 1.1 made of one compressed integer (Enter, Leave, …) have no
//! length. The record types and identifiers are OTF2 3.0's ([`records`]).
//! SION containers and zlib-compressed archives are refused with a clear
//! error.
//!
//! # The mapping to Pajé
//!
//! | OTF2 | Pajé |
//! |---|---|
//! | system tree nodes | containers, nested as the tree; one container type per class (`machine`, `node`, …) under its parent's type |
//! | location groups | containers (type `Process`, `Accelerator` or `Location group`) in their system tree node |
//! | locations | containers (type `Thread`, `Stream`, `Metric location` or `Location`) in their group; a name several locations share (`Master thread`) gets its group's name in parentheses |
//! | `Enter`, `Leave` | pushed and popped states of type `Region` in the location, valued by the region's name (the `Enter`'s); a `Leave` that names a region further down ends it and the regions above it, which are entered again at once, and one that names no open region ends the innermost (below; `trama check` counts and names them) |
//! | `MpiSend`, `MpiIsend` / `MpiRecv`, `MpiIrecv` | the start / the end of a link of type `MPI message` in the root container, valued by the communicator's name, user-defined fields `Tag` and `Size`; a send and a receive match when they agree on communicator, sender, receiver (ranks of the communicator, through its group of the world's locations) and tag, in order (MPI's non-overtaking rule): the key is `COMM_SENDER_RECEIVER_TAG_N`, `N` counting such messages |
//! | `MpiIsendComplete`, `MpiIrecvRequest` | events of type `MPI request` (`Isend complete`, `Irecv request`) |
//! | `MpiCollectiveBegin` … `MpiCollectiveEnd` | a state of type `MPI collective` valued by the operation (`ALLREDUCE`, …), fields `Communicator`, `Root`, `Sent`, `Received` (the end is read ahead on the location, at most [`LOOK_AHEAD`] records) |
//! | `Metric` | one variable per metric member (`NAME [UNIT]`) set to its value, exact (64-bit integers up to 2^53, doubles as doubles: not through `strtof` as Pajé text, [`PRECISION`]): a metric class's in the location recording it, a metric instance's in its scope (location, location group or system tree node) |
//! | `ThreadFork` … `ThreadJoin`, `OmpFork` … `OmpJoin` | a state of type `Thread fork` valued by the paradigm (`OpenMP`, …), field `Threads` (requested) |
//! | `ThreadTeamBegin` … `ThreadTeamEnd`, `ThreadBegin` … `ThreadEnd` | a state of type `Thread team` valued by the team's (or contingent's) communicator |
//! | `ThreadCreate`, `ThreadWait` | events of type `Thread event` |
//! | other records (RMA, I/O, parameters, locks, tasks, calling contexts, …) | skipped by their length and counted by type ([`Stats`]; `trama check` lists them) |
//! | the end of the trace: its last event record (mapped or not: `ProgramEnd`), the end of the clock's span (offset plus length), the later | the containers below the root destroyed then (`PajeDestroyContainer`, after every other event), so that they, and the trace, end where the archive ends |
//!
//! A `Leave` should name the region of the matching `Enter`, and Pajé's
//! states nest; archives do not always comply (APEX's of HPX tasks). The
//! rule, so that every interval keeps the region its `Enter` named:
//!
//! - a `Leave` that names the innermost open region of its location ends
//!   it;
//! - one that names a region further down (the innermost open instance of
//!   it, at most 64 levels down) ends that region at its time; the regions
//!   entered after it and still open end there too and are entered again
//!   at once, one level lower: each keeps its time whole, in two intervals
//!   (regions that interleave, as tasks switched on one thread do, are
//!   shown so);
//! - one that names no open region (APEX writes `Enter hpx_main` …
//!   `Leave run_helper` when a task's timer gets another name; so does a
//!   region more than 64 levels down) ends the innermost open region;
//! - one on a location where no region is open is an error of the
//!   simulation (a pop of an empty stack).
//!
//! The `Leave` records of the second and third kinds are counted, with
//! the pairs of regions met most often and the first one's location and
//! time, in a warning ([`Stats::warnings`]; `trama check` shows it).
//!
//! Containers are created at time 0, the clock's global offset: times are
//! seconds from it (`(tick - offset) / resolution`, after the location's
//! clock correction). Identifiers of the events go through the location's
//! mapping tables. Type names get the location type's name when an
//! archive has several (`Region (Stream)`).
//!
//! # Reading
//!
//! [`Archive::open`] reads the anchor and the definitions and maps each
//! location's events file ([`Archive::from_memory`] takes the files from
//! memory). [`Archive::events`] reads one location's events
//! ([`EventReader`]: records decoded, counted, mapped and corrected);
//! [`Archive::merged`] all of them in time order ([`Merged`], a tournament
//! over the locations: memory holds a position per location, and pages of
//! the files read are given back). [`read_paje`] and [`read_paje_items`]
//! hand the Pajé events over: definitions and containers first, then the
//! merged events, then the containers' end where the archive ends; entity
//! events either by their words or by the
//! simulator's handles, decoding and merging on a thread of their own.
//! Every error ([`Error`]) names the file and, for damage, the byte
//! offset; no input makes the reader panic.
#![deny(missing_docs)]

mod anchor;
mod archive;
mod batch;
mod buf;
mod chunks;
pub mod defs;
mod error;
mod events;
pub mod local;
mod model;
mod out;
mod paje;
pub mod records;
mod regions;
mod table;
mod words;

pub use anchor::Anchor;
pub use archive::{Archive, Merged};
pub use error::Error;
pub use events::{Event, EventReader, Kind, MetricValue, LOOK_AHEAD};
pub use paje::{definitions, read_paje, read_paje_items, Item, ReadError, Stats};
pub use table::Table;

/// How the variable values of the mapping are read: exactly, as the
/// archive gives them (a metric's 64-bit integers up to 2^53 and its
/// doubles keep every digit), not through `strtof` as PajeNG reads Pajé
/// text. A simulation or a `.ptb` of the mapping's events uses this rule.
pub const PRECISION: trama_num::Precision = trama_num::Precision::Double;
