//! Level of detail of a simulated trace ([`trama_sim::Trace`]): what a
//! time window shows at a given width in pixels, computed once for every
//! picture of it (the SVG space-time view, an interactive viewer).
//!
//! A window `[t0, t1]` is cut into `W` pixel columns ([`Grid`]). For each
//! row ([`Row`], from [`rows`]: a container, or one of its variables),
//! [`Lod::summarize`] gives
//!
//! - per state type and per nesting level, for each column: the value
//!   whose states cover the most time there, whether states of several
//!   values touch it (`mixed`) and how many states do ([`StateSpan`]);
//!   a viewer draws level 0, then each deeper level inside it;
//! - events: a count per column ([`ColumnCount`]);
//! - a variable: its lowest, highest and last value per column
//!   ([`VarSpan`]);
//! - links: one by one ([`LinkItem`]) when the window holds few, else one
//!   by one only in blocks of columns where few begin (and in their
//!   neighbours), the others as
//!   counts per row and column of their start ([`RowSummary::sent`]) and
//!   end ([`RowSummary::received`]).
//!
//! Consecutive columns with the same summary are one span, so a summary's
//! size grows with rows × width (× nesting levels, at most
//! [`MAX_LEVELS`]: no picture shows deeper ones, each level being drawn
//! inside the one below it), never with the number of entities or of
//! pairs of rows. [`Lod::new`] reads each list's order once (the store
//! keeps states, events and variables in time order, links in order of
//! completion), so a summary reads only the entities in the window (found
//! by binary search; nested states through checkpoints of the open states
//! every 256 entities) plus O(rows × width). A window of no duration (a
//! trace whose every entity is at one instant) is widened to a second
//! around that instant ([`Grid::widened`]).
//!
//! # Summaries kept, and their forms
//! - [`pyramid`]: the whole trace summarized once at
//!   [`pyramid::BASE`] columns; zoomed-out windows are answered by merging
//!   its columns.
//! - [`gather`]: one pass over a trace read by blocks (a `.ptb` replayed
//!   stretch by stretch) gathers that base summary and what a viewer needs
//!   of the whole trace without holding it; [`saved`] writes what it
//!   gathered to a file (or a `.ptb`'s summary frame) and reads it back.
//! - [`trtl`] and [`tile`]: a summary as bytes, the reply of a viewer's
//!   `api/timeline` (`TRTL`) and its compact form in an offline page's
//!   tiles (`TRTC`).
#![deny(missing_docs)]

mod cells;
pub mod gather;
mod grid;
mod index;
pub mod pyramid;
mod rows;
pub mod saved;
mod summary;
#[cfg(test)]
mod testing;
pub mod tile;
pub mod trtl;

pub use cells::{ColumnCount, StateSpan, VarSpan};
pub use grid::Grid;
pub use index::Lod;
pub use rows::{rows, Row};
pub use summary::{LinkItem, Links, Query, RowSummary, StateBand, Summary};

/// Nesting levels of states a summary gives (0 to `MAX_LEVELS - 1`);
/// deeper states are left out, and the index kept for nested states grows
/// with the entities, not with the square of their nesting.
pub const MAX_LEVELS: usize = 256;
