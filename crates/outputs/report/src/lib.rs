//! Printed outputs of the analyses of a simulated trace
//! ([`trama_sim::Trace`]), each written to any [`std::io::Write`].
//!
//! - [`stats`]: computes one [`Analysis`] of [`trama_analysis`] and writes
//!   it as a [`Format`]: aligned columns for people ([`Format::Table`],
//!   which may change), or the stable CSV and JSON forms documented in
//!   `docs/stats-formats.md` (the JSON document is the serde form of the
//!   analysis' result type). The writers of each result are public:
//!   [`write_states`], [`write_comm`], [`write_order`], [`write_wait`],
//!   [`write_kiviat`], [`write_slices`], [`write_graph`], and [`write_waits`]
//!   for the wait states of `trama_why` ([`waits`]).
//! - [`diff`]: two runs' profiles side by side and their difference
//!   (`trama diff`), written by [`write_diff`].
//! - [`check_summary`]: what `trama check` says of a valid trace.
//! - [`ptb_info`]: what a `.ptb` file holds and where its bytes go.
//! - [`html_report`]: one self-contained HTML page (nothing to fetch) with
//!   a summary of the trace, the explorable timeline of `trama view`
//!   reading a summary embedded in the page ([`trama_viewer::offline`]),
//!   every view of [`trama_views`] and the time per state.
#![deny(missing_docs)]
// Errors end an output: their size never weighs on the hot path.
#![allow(clippy::result_large_err)]

mod check;
mod diff;
mod dump;
mod export;
mod html;
mod info;
mod picture;
mod stats;
mod table;
mod why;
mod why_path;

use std::io;

pub use check::{check_summary, check_warnings};
pub use diff::{html_diff_report, write_diff};
pub use dump::{check, dump, DumpSettings};
pub use export::{export, export_parquet, Export};
pub use html::html_report;
pub use info::{info, ptb_info, InfoOptions};
pub use picture::{check_recording, picture};
pub use stats::{
    stats, write_comm, write_graph, write_kiviat, write_order, write_slices, write_states,
    write_wait, Analysis, Notes, StatsOptions,
};
pub use trama_why::{
    diff, Diff, DiffBy, DiffError, DiffOptions, DiffRow, Groups, IterationDelta, PatternDelta,
    RunSide,
};
pub use why::{waits, write_waits, By, Waits, WaitsInstance, WaitsRow};
pub use why_path::{
    critical_path_of, delays_of, write_critical_path, write_delays, CriticalPath, DelayRow, Delays,
    PathProcessRow, PathRegionRow, PathSegmentRow,
};

/// Output formats of [`stats`].
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[non_exhaustive]
pub enum Format {
    /// Aligned columns for people.
    #[default]
    Table,
    /// Comma-separated values with a header line.
    Csv,
    /// One JSON document.
    Json,
}

impl Format {
    /// Every format with its name on the command line and a line of help.
    pub const ALL: [(Format, &'static str, &'static str); 3] = [
        (Format::Table, "table", "Aligned columns for people"),
        (
            Format::Csv,
            "csv",
            "Comma-separated values with a header line",
        ),
        (Format::Json, "json", "One JSON document"),
    ];
}

/// Why an output could not be made.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// Reading the trace.
    #[error(transparent)]
    Read(#[from] trama_open::Error),
    /// Writing the output.
    #[error(transparent)]
    Io(#[from] io::Error),
    /// Writing the JSON document.
    #[error(transparent)]
    Json(#[from] serde_json::Error),
    /// No container type has the [`StatsOptions::level`] name.
    #[error("--level: no container type is called '{0}'")]
    UnknownLevel(String),
    /// No level was given and none could be chosen from the trace.
    #[error(
        "no hosts can be chosen from the trace: no container type lies above the containers \
         that exchange messages or hold states; --level NAME names the container type of the hosts"
    )]
    NoHostLevel,
    /// A link type named for messages that the trace does not have.
    #[error(transparent)]
    LinkType(#[from] trama_analysis::UnknownLinkType),
    /// A file to describe is damaged (the message names it and the offset).
    #[error("{0}")]
    Damaged(String),
    /// A trace `trama info` does not describe (not a `.ptb`): what does.
    #[error("{0}")]
    NotPtb(String),
    /// Export does not take `-i`.
    #[error("export does not take -i (--no-imbrication): without imbrication a pushed state ends the one it covers, which a slice cannot show")]
    NoImbrication,
    /// The Parquet tables could not be made.
    #[error(transparent)]
    Parquet(#[from] trama_parquet::Error),
    /// Writing an output directory failed.
    #[error("writing {dir}")]
    Writing {
        /// The directory.
        dir: String,
        /// Why.
        #[source]
        source: Box<dyn std::error::Error + Send + Sync>,
    },
    /// A view could not be drawn.
    #[error(transparent)]
    View(#[from] trama_views::ViewError),
    /// A picture could not be rasterized.
    #[error("rasterizing the picture: {0}")]
    Raster(String),
    /// A recording's size (width, height) is out of bounds.
    #[error(
        "a recording of {0}×{1} pixels: --width and --height must be within 200–8192 and 150–8192"
    )]
    RecordingSize(u32, u32),
    /// An instant of `--at` is not a number.
    #[error("--at: '{0}' is not a number")]
    Instant(String),
    /// An argument of `trama diff` is wrong: a mapping of containers to
    /// groups that cannot be read (the message names the file, the line and
    /// the text), a guarded value in neither run.
    #[error("{0}")]
    Diff(String),
    /// The run of the why analyses (`waits`, `critical-path`, `delays`)
    /// could not be read from the trace.
    #[error(transparent)]
    Why(#[from] trama_why::WhyError),
    /// A [`StatsOptions::slice_length`] that is not positive.
    #[error("--slice-length must be positive, not {0}")]
    SliceLength(f64),
}
