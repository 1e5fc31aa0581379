//! libRastro binary traces (`.rst`, one file per process or thread),
//! turned into records by a mapping given as TOML.
//!
//! # The file
//!
//! A libRastro file is a sequence of events, each starting at a multiple
//! of 4 bytes; integers are little-endian. An event starts with a `u32`
//! header word: bits 31..18 are the event id (0..=16383), bit 17 says
//! "last header word", bit 16 (`RST_TIME_SET`) says a clock follows, and
//! bits 15..0 hold four 4-bit value type codes (most significant first; 0
//! ends the list). When bit 17 is clear, continuation words follow, each
//! with seven codes in bits 27..0 and its "last" flag in bit 29. Codes:
//! 1 string (bytes, a NUL, zeros up to a multiple of 4 from the start of
//! the file), 2 `f64`, 3 `f32`, 4 `u64`, 5 `u16`, 6 `u8`, 7 `u32`.
//!
//! In the **timed** layout (libRastro as released, Akypuera, DECK) the
//! first header word is followed, when `RST_TIME_SET` is set, by two
//! `u64`: the reference second `seconds` and the clock's `resolution`
//! (ticks per second), then by every event's `u64` ticks since that
//! second; then come the continuation words and the values (packed in
//! code order, unaligned), and zeros up to the next multiple of 4.
//! The first event is the header, id 16383, with two `u64` identifiers
//! (`id1`, `id2`: MPI rank and 0 for Akypuera) and the host name
//! (`l l s`); it sets the clock. The last is the stop event 16382,
//! without values. The decoding itself is [`trama_rastro::rst`]'s.
//!
//! An event's time is `seconds × resolution + ticks` ticks, made
//! nanoseconds exactly when the resolution divides 10⁹ (rounded to the
//! nearest otherwise): the records' [`Nanos`](trama_records::Nanos) are the
//! file's own clock, from the Unix epoch. A later `RST_TIME_SET` changes
//! the clock for the events after it. The timeless layout of 2015 (no
//! clock at all) is refused: it has no times to give.
//!
//! Errors name the file and the byte offset: a truncated event, an
//! unknown value type, data after the stop event, an event earlier than
//! the one before it, an id the mapping does not know (with the event's
//! value letters), an OUT without its IN.
//!
//! # The mapping
//!
//! A [`Mapping`] says what each event id becomes. Two are shipped, and
//! embedded in the binary: [`Mapping::akypuera`]
//! (`mappings/akypuera-mpi.toml`, the MPI events of Akypuera's libaky)
//! and [`Mapping::deck`] (`mappings/deck.toml`, the DECK events of the
//! 2005 thesis). The schema (unknown keys are errors; errors name the
//! mapping file, its line and the key):
//!
//! ```toml
//! name = "Akypuera (MPI)"       # for messages
//! unknown = "error"             # an id not below: "error", "skip" (counted)
//!                               # or "event" (a point event valued by the id)
//! unmatched_out = "error"       # an OUT without its IN: "error" or "skip" (counted)
//!
//! [container]                   # the container of the file's records
//! path = [["ROOT", "root"], ["PROCESS", "rank{id1}"]]   # (type, name), top first
//! self = "{id1}"                # the file's identity in link keys (default "{id1}")
//! link_holder = 1               # links are held by the container of the path's
//!                               # first N steps (0, the default: the top)
//!
//! [types]                       # entity type names (defaults: state, event, link)
//! state = "STATE"
//! event = "EVENT"
//! link = "LINK"
//!
//! [states]
//! mode = "push"                 # "push": IN pushes, OUT pops;
//!                               # "set": IN sets, OUT sets `idle`
//! idle = "exec"                 # the state an OUT sets (set mode)
//! extra = { Mark = "{u64.0}" }  # extra fields of every IN
//!
//! [links]
//! key = "{value}:{src}>{dst}:{seq}"          # the default key
//! extra = { Size = "{u32.1}", Mark = "{u64.0}" }   # extra fields of every send
//!
//! [events]                      # one entry per event id (not 16382 nor 16383)
//! 1000 = { create = true }                       # the container starts
//! 49 = { in = "MPI_Comm_rank" }                  # a state entered...
//! 50 = { out = "MPI_Comm_rank" }                 # ...and left
//! 1003 = { out = "MPI_Finalize", destroy = true }
//! 5000 = { send = "PTP", to = "{u32.0}" }        # a link starts towards a partner
//! 5001 = { recv = "PTP", from = "{u32.0}" }      # a link ends, coming from a partner
//! 5002 = { send = "1TN", to_all_below = "{u32.0}" }  # one link to each of 0..n but self
//! 5005 = { recv = "NT1", from_all_below = "{u32.0}" }
//! 401 = { event = "mbox_create" }                # a point event
//! 101 = { create = true, set = "exec" }          # a state set outright
//! 405 = { send = "mbox", key = "mbox{u32.0}:{seq}" }  # a key naming its own channel
//! 102 = { skip = true }                          # nothing, on purpose
//! ```
//!
//! An entry may combine actions; its records come in the order create,
//! out, set, in, event, send, recv, destroy. `type = "..."` overrides the
//! entity type of its records, `extra = {...}` their extra fields (the
//! defaults are `states.extra` for an IN and `links.extra` for a send).
//! Extra fields are all or nothing: when one names a value the event does
//! not hold, the record carries none (Akypuera's sends carry their size
//! and mark only when recorded).
//!
//! Texts are templates: `{id1}`, `{id2}`, `{host}` (the header event),
//! `{type}` (the event id), `{u32.N}`, `{u64.N}`, `{u16.N}`, `{u8.N}`,
//! `{f64.N}`, `{f32.N}`, `{str.N}` (the N-th value of that type, counted
//! from 0 among the values of that type only, as libRastro's reader
//! counts them), and in keys `{src}`, `{dst}` (the identities of the
//! sending and receiving sides: `self` and the partner), `{value}` (the
//! link's value) and `{seq}`; `{{` and `}}` are braces. Container names
//! use only the header's placeholders. A value, partner or key naming a
//! value the event does not hold is an error at the event's offset.
//!
//! `{seq}` numbers the messages of a channel: the key rendered with an
//! empty `{seq}`, per link type, counted separately for starts and ends
//! within the file. The n-th send of rank 0 to rank 1 and the n-th
//! receive of rank 1 from rank 0 thus get the same key in their own
//! files, so keys pair across files (channels are first-in first-out,
//! as MPI's are between two ranks). A `{value}` in the key keeps
//! different kinds of messages apart.
//!
//! # Records
//!
//! Every [`RstSource`] starts with the mapping's declarations (its
//! container types, then its state, event and link types, with the time
//! of its first event), then gives each event's records with the event's
//! time, all about the file's container; link ends name the container
//! given by `link_holder`. The header and stop events make no record.
//! States left open at the end of the file stay open (the file does not
//! say when they end).
//!
//! A source reads its whole file into memory and maps it in batches of
//! events; [`open_all`] opens a set of files with one mapping.
//!
//! # Akypuera's converter
//!
//! [`akypuera_source`] reproduces `aky_converter` (Akypuera of 2017-2018)
//! on a set of rank files, record for record, with the Akypuera mapping:
//!
//! - files are merged as libRastro's reader does: a binary heap of files
//!   ordered by the double `(seconds × resolution + ticks) / resolution`
//!   of their next event, whose ties are decided by the heap's moves
//!   (not by file order);
//! - times are that double minus the first event's (the earliest rank's
//!   `MPI_Init`), rounded to the nanosecond ties-to-even as `%.9f` does;
//! - the root container is created before the first rank and destroyed
//!   at the time of the last event; keys are `src_dst_n` with one counter
//!   over all the links, in merged order; a message's `Size` and `Mark`
//!   are cut to 5 characters (the converter printed them through 6-byte
//!   buffers: 400000 bytes show as `40000`).
//!
//! Write it with [`akypuera_dialect`] (see there why it is not exactly
//! [`AKY_HEADER`]). [`akypuera_sources`] gives the same files as plain
//! sources for the merge: exact times of each rank's clock, keys that pair
//! across the files.

mod akypuera;
mod engine;
mod mapping;
mod template;

use std::collections::VecDeque;
use std::path::PathBuf;
use std::sync::Arc;

pub use akypuera::{
    akypuera_convert, akypuera_dialect, akypuera_options, akypuera_source, akypuera_sources,
    AkypueraSource, AKY_HEADER,
};
pub use mapping::{Mapping, OutPolicy, StateMode, UnknownPolicy, AKYPUERA_TOML, DECK_TOML};

use engine::Engine;

use crate::reading::{open_file, read_all, OpenSource, Stepwise};
use trama_records::{ExtraField, Location, Path, Record, Source, SourceError, What};

/// Events a source passed over because its mapping said to skip them.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Skipped {
    /// Events whose id the mapping does not name (`unknown = "skip"`).
    pub unknown: u64,
    /// OUT events without their IN (`unmatched_out = "skip"`).
    pub unmatched_out: u64,
}

/// How to read libRastro files: the mapping of their events.
#[non_exhaustive]
#[derive(Clone, Debug)]
pub struct RstOptions {
    /// What each event id becomes (default: [`Mapping::akypuera`]).
    pub mapping: Arc<Mapping>,
}

impl RstOptions {
    /// Options reading events through `mapping`.
    pub fn new(mapping: impl Into<Arc<Mapping>>) -> RstOptions {
        RstOptions {
            mapping: mapping.into(),
        }
    }
}

impl Default for RstOptions {
    fn default() -> RstOptions {
        RstOptions::new(Mapping::akypuera())
    }
}

/// Reads a whole file, naming it by its path.
fn read_file(path: &std::path::Path) -> Result<(String, Vec<u8>), SourceError> {
    let (name, file) = open_file(path, "")?;
    let data = read_all(&name, file, "")?;
    Ok((name, data))
}

/// One libRastro file read through a [`Mapping`] (see the module
/// documentation).
pub struct RstSource {
    engine: Engine,
    out: VecDeque<Record>,
    declared: bool,
    /// Byte offset of the event whose records are served.
    offset: Option<u64>,
}

impl OpenSource for RstSource {
    type Options = RstOptions;

    /// Reads a libRastro file: checks its layout and its header event.
    fn from_bytes(name: String, data: Vec<u8>, opts: &RstOptions) -> Result<Self, SourceError> {
        Ok(RstSource {
            engine: Engine::open(name, data, opts.mapping.clone())?,
            out: VecDeque::new(),
            declared: false,
            offset: None,
        })
    }
}

impl RstSource {
    /// The file's container, from its header event.
    pub fn container(&self) -> &Path {
        self.engine.path()
    }

    /// The header event's identifiers and host name.
    pub fn header(&self) -> (u64, u64, &str) {
        let h = self.engine.header();
        (h.id1, h.id2, &h.host)
    }

    /// The events passed over so far.
    pub fn skipped(&self) -> Skipped {
        self.engine.skipped()
    }
}

impl Source for RstSource {
    fn name(&self) -> &str {
        self.engine.name()
    }

    fn next_record(&mut self) -> Result<Option<Record>, SourceError> {
        self.next_queued()
    }

    fn extra_fields(&self) -> Vec<ExtraField> {
        self.engine.mapping().extra_fields().to_vec()
    }

    /// The byte offset of the event that made the record (records are
    /// served one event at a time).
    fn position(&self) -> Option<Location> {
        self.offset.map(Location::Byte)
    }
}

impl Stepwise for RstSource {
    fn queue(&mut self) -> &mut VecDeque<Record> {
        &mut self.out
    }

    /// Converts the next event, after the mapping's declarations at the
    /// time of the first.
    fn step(&mut self) -> Result<bool, SourceError> {
        let next = self.engine.next_event()?;
        if !self.declared {
            self.declared = true;
            let time = next.as_ref().map_or(0, |d| d.time);
            for d in self.engine.mapping().declarations() {
                self.out.push_back(Record {
                    time,
                    what: What::Declare(d.clone()),
                });
            }
        }
        match next {
            Some(d) => {
                self.offset = Some(d.offset);
                self.out.extend(d.records);
            }
            None => return Ok(!self.out.is_empty()),
        }
        Ok(true)
    }
}

/// Opens every file with the same options.
pub fn open_all(files: &[PathBuf], opts: &RstOptions) -> Result<Vec<RstSource>, SourceError> {
    files.iter().map(|f| RstSource::open(f, opts)).collect()
}
