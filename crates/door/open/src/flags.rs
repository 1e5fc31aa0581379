//! The reading flags, defined once for the command line (feature `clap`)
//! and the Python package, and the [`LoadOptions`] they make.

use std::ffi::OsString;
use std::path::Path;

use crate::{LoadOptions, QuoteMode, Source};

/// The reading flags of every command that reads a trace (with the
/// feature `clap`, the command line's arguments) and of the Python
/// package's `open`, and the [`LoadOptions`] they make.
#[derive(Clone, Debug)]
#[cfg_attr(feature = "clap", derive(clap::Args))]
#[non_exhaustive]
pub struct ReadFlags {
    /// Trace file: Pajé text (plain, .gz or .zst), trama's binary .ptb, the proposal's
    /// libRastro .rst, an OTF2 archive's anchor (.otf2, its other files beside it), a
    /// Paraver .prv (its .pcf and .row beside it), or a source `trama merge` reads (OpenTS,
    /// Ganglia, PCP, sched, CLOG-2, Akypuera); the format is told from the content.
    /// Standard input when absent or "-".
    #[cfg_attr(feature = "clap", arg(value_name = "FILE"))]
    pub file: Option<OsString>,
    /// Accept the old field names of Pajé 1.x (ContainerType, EntityType, SourceContainer, DestContainer, …).
    #[cfg_attr(feature = "clap", arg(short = 'n', long))]
    pub no_strict: bool,
    /// Behave like PajeNG 1.3.10: quotes are syntax and are removed ("MPI State" → MPI State),
    /// and the -h header of event lines uses 1.3.10's wording. By default quotes stay part of
    /// values, as in PajeNG's current version.
    #[cfg_attr(feature = "clap", arg(long))]
    pub strip_quotes: bool,
    /// Stop the simulation at TIME: containers alive then are destroyed at TIME.
    #[cfg_attr(
        feature = "clap",
        arg(short = 'a', long, value_name = "TIME", allow_negative_numbers = true)
    )]
    pub stop_at: Option<f64>,
    /// Drop links that never got their other end instead of failing (not recommended).
    #[cfg_attr(feature = "clap", arg(short = 'z', long))]
    pub ignore_incomplete_links: bool,
    /// No imbrication: a pushed state ends the state it covers, which resumes as a new entity
    /// when the pushed one is popped.
    #[cfg_attr(feature = "clap", arg(short = 'i', long))]
    pub no_imbrication: bool,
    /// Let real traces' problems pass with a warning naming each line (the first 5 of a kind,
    /// then their count) instead of failing: events on containers never created (or created
    /// further on, as in StarPU's raw traces) and pops of empty state stacks are ignored, a
    /// container destroyed before its last event is destroyed then. A valid trace reads the same.
    #[cfg_attr(feature = "clap", arg(long))]
    pub lenient: bool,
    /// Reorder a trace that is nearly in time order: each event is held until the input is more
    /// than SECONDS past it, then passed on in time order (equal times in file order; events
    /// without a time, such as definitions, at once). An event older than one passed on is an
    /// error that names the window needed. Text traces only.
    #[cfg_attr(feature = "clap", arg(long, value_name = "SECONDS", value_parser = parse_sort_window))]
    pub sort_window: Option<f64>,
    /// Sort the whole trace by time, whatever its order (StarPU's raw traces, where each
    /// window --sort-window suggests is too short further on): events are held to the end of
    /// the input, then passed on in time order (equal times in file order; events without a
    /// time at once), as a sort window longer than the trace would. Past --sort-memory,
    /// events held go sorted to temporary files in the system's temporary folder (TMPDIR),
    /// removed as soon as made. Text traces only.
    #[cfg_attr(feature = "clap", arg(long, conflicts_with = "sort_window"))]
    pub sort: bool,
    /// Bytes of events --sort holds in memory before it writes them, sorted, to a temporary
    /// file (at least 65536).
    #[cfg_attr(feature = "clap", arg(long, value_name = "BYTES", default_value_t = 1 << 30, value_parser = clap::value_parser!(u64).range(65536..)))]
    pub sort_memory: u64,
    /// Threads to use (0 = one per core).
    #[cfg_attr(
        feature = "clap",
        arg(short = 'j', long, value_name = "N", default_value_t = 0)
    )]
    pub threads: usize,
    /// Never show a progress bar (it is shown on a terminal for long reads).
    #[cfg_attr(feature = "clap", arg(long))]
    pub no_progress: bool,
}

impl Default for ReadFlags {
    fn default() -> ReadFlags {
        ReadFlags {
            file: None,
            no_strict: false,
            strip_quotes: false,
            stop_at: None,
            ignore_incomplete_links: false,
            no_imbrication: false,
            lenient: false,
            sort_window: None,
            sort: false,
            sort_memory: 1 << 30,
            threads: 0,
            no_progress: false,
        }
    }
}

/// A sort window: a number of seconds, zero or more.
#[cfg(feature = "clap")]
fn parse_sort_window(s: &str) -> Result<f64, String> {
    match s.parse::<f64>() {
        Ok(w) if w >= 0.0 && w.is_finite() => Ok(w),
        _ => Err(format!("'{s}' is not a number of seconds (0 or more)")),
    }
}

impl ReadFlags {
    /// The options of reading and simulating these flags make, the values
    /// of user-defined fields kept or not, only what overlaps `window`
    /// needed; the other options are the defaults.
    pub fn load_options(&self, keep_extras: bool, window: Option<(f64, f64)>) -> LoadOptions {
        LoadOptions {
            threads: self.threads,
            strict: !self.no_strict,
            quotes: if self.strip_quotes {
                QuoteMode::Strip
            } else {
                QuoteMode::Keep
            },
            stop_at: self.stop_at,
            ignore_incomplete_links: self.ignore_incomplete_links,
            no_imbrication: self.no_imbrication,
            keep_extras,
            window,
            lenient: self.lenient,
            sort_window: self.sort_window,
            sort: self.sort,
            sort_memory: usize::try_from(self.sort_memory).unwrap_or(usize::MAX),
            ..LoadOptions::default()
        }
    }

    /// The input.
    pub fn source(&self) -> Source {
        Source::from_arg(self.file.as_deref())
    }

    /// The input's path, unless it is standard input.
    pub fn path(&self) -> Option<&Path> {
        self.file.as_deref().filter(|f| *f != "-").map(Path::new)
    }
}
