//! Integration of many sources into one Pajé trace, in the three steps of
//! the design: **synchronization** (each host's clock corrected to the
//! reference, [`MergeOptions::corrections`]), **unification** (each
//! source's hierarchy and identifiers mapped into one hierarchy by a
//! [`Plan`]), and **standardization** (every source already speaks
//! [`Record`](trama_records::Record)s), then a streaming k-way [`merge`] by
//! synchronized time into a [`PajeWriter`](trama_records::PajeWriter).

#![deny(missing_docs)]
// Errors end a merge: their size never weighs on the hot path.
#![allow(clippy::result_large_err)]

mod job;
mod merge;
pub mod plan;
mod unify;
mod write;

pub use job::{Job, JobError};
pub use merge::{merge, Correct, Input, MergeOptions, MergeStats, Origin};
pub use plan::{parse_seconds, Plan, SourcePlan};
pub use unify::Mapper;

use trama_records::{SourceError, WriteError};

/// An error of a merge: the source (its file) and what went wrong.
#[derive(Debug, thiserror::Error)]
pub enum MergeError {
    /// The plan is invalid.
    #[error("{file}: {message}")]
    Plan {
        /// The plan's file.
        file: String,
        /// What is wrong.
        message: String,
    },
    /// A source's container cannot be placed in the unified hierarchy.
    #[error("{input}: {message}")]
    Unify {
        /// The source's file.
        input: String,
        /// What is wrong.
        message: String,
    },
    /// A source's records are out of time order.
    #[error("{input}: {message}")]
    Order {
        /// The source's file.
        input: String,
        /// What is wrong.
        message: String,
    },
    /// A source could not be read.
    #[error(transparent)]
    Source(#[from] SourceError),
    /// A record of a source could not be written.
    #[error("{}", SourceError::at(input, *position, format!("{error} (record {record} of the source)")))]
    Record {
        /// The source's file.
        input: String,
        /// The record's number in the source (from 1).
        record: u64,
        /// Where in the source it came from, when the source knows it.
        position: Option<trama_records::Location>,
        /// Why.
        error: WriteError,
    },
    /// The output could not be written.
    #[error(transparent)]
    Write(#[from] WriteError),
}
