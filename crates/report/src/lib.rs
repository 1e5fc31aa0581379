//! Printed outputs of the analyses of a simulated trace
//! ([`trama_sim::Trace`]), each written to any [`std::io::Write`].
//!
//! - [`stats`]: computes one [`Analysis`] of [`trama_analysis`] and writes
//!   it as a [`Format`]: aligned columns for people ([`Format::Table`],
//!   which may change), or the stable CSV and JSON forms documented in
//!   `docs/stats-formats.md` (the JSON document is the serde form of the
//!   analysis' result type). The writers of each result are public:
//!   [`write_states`], [`write_comm`], [`write_order`], [`write_wait`],
//!   [`write_kiviat`], [`write_slices`], [`write_graph`].
//! - [`check_summary`]: what `trama check` says of a valid trace.
//! - [`ptb_info`]: what a `.ptb` file holds and where its bytes go.
//! - [`html_report`]: one self-contained HTML page (nothing to fetch) with
//!   a summary of the trace, the explorable timeline of `trama view`
//!   reading a summary embedded in the page ([`trama_viewer::offline`]),
//!   every view of [`trama_views`] and the time per state.
#![deny(missing_docs)]

mod check;
mod html;
mod info;
mod stats;
mod table;

use std::io;

pub use check::{check_summary, check_warnings};
pub use html::html_report;
pub use info::{ptb_info, InfoOptions};
pub use stats::{
    stats, write_comm, write_graph, write_kiviat, write_order, write_slices, write_states,
    write_wait, Analysis, Notes, StatsOptions,
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
    /// A [`StatsOptions::slice_length`] that is not positive.
    #[error("--slice-length must be positive, not {0}")]
    SliceLength(f64),
}
