//! Readers of the sources trama integrates into one trace, one module per
//! format, each documented with its record layout:
//!
//! - [`rst`]: libRastro binary traces (DECK, Akypuera), mapped to Pajé by a TOML file;
//! - [`clog2`]: MPE CLOG-2 logs of MPI programs;
//! - [`ganglia`]: Ganglia gmond/gmetad XML dumps and the seed's text log, and a collector;
//! - [`pcp`]: Performance Co-Pilot `pmrep` CSV and `pmdumptext` output;
//! - [`sched`]: Linux scheduling (`sched_switch` of ftrace, trace-cmd, perf script);
//! - [`opents`]: OpenTS (T-system) XML traces;
//! - [`trace`]: any trace trama reads, as its Pajé text (made by `trama-open`).
//!
//! Every reader yields [`Record`](trama_records::Record)s, the model of
//! `trama-records`: Pajé-level facts about containers named by their path
//! in the source's hierarchy, timed in nanoseconds of the source's clock,
//! served as a [`Source`](trama_records::Source); that crate's
//! `PajeWriter` writes such a stream as a Pajé trace.
//!
//! Every kind is opened the same way: `<Kind>Source::open(path, &options)`
//! or `<Kind>Source::from_reader(name, reader, &options)` (`name` names
//! the input in messages), with the kind's own options, `<Kind>Options`
//! (`GangliaOptions`, `PcpOptions`, `RstOptions` holding the mapping...),
//! which have a `Default` or, for sched, a `new` taking the host. The kinds
//! that need their whole input read it all first: they implement
//! [`OpenSource`], whose methods these are; OpenTS and Pajé traces are
//! read as they are served.

#![deny(missing_docs)]

pub mod clog2;
pub mod ganglia;
pub mod opents;
pub mod pcp;
mod reading;
pub mod rst;
pub mod sched;
pub mod trace;

pub use reading::{CountedSource, OpenSource};
