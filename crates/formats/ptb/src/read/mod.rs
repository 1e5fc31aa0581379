//! The reader: `mmap`, checks, and the events in order for the reference
//! simulation ([`PtbFile::read`]); the parallel replay is in `replay`.
//!
//! - `file`: opening a file (header, footer, strings, model records);
//! - `frame`: a frame checked and decompressed;
//! - `plan`: how the events of each definition are decoded;
//! - `columns`: where the columns and runs of an events frame lie;
//! - `decode`: an events frame decoded into records and words;
//! - `merge`: the order of runs merged by time;
//! - `events`: the events in trace order ([`PtbFile::read`]);
//! - `info`: what a file is made of (frames, codecs, layouts, columns);
//! - `error`: why reading stops.

mod columns;
mod decode;
mod error;
mod events;
mod file;
mod frame;
mod info;
mod merge;
mod plan;

pub(crate) use columns::{Columns, RunSpan};
pub(crate) use error::bad;
pub use error::{FormatError, ReadError};
pub use events::{Decoded, DecodedHandles, ReadOptions};
pub use file::{is_ptb, PtbFile};
pub(crate) use frame::{frame, frame_into, frame_split};
pub use info::{Codec, FrameInfo, FrameKind, Layout};
pub(crate) use merge::{merge_order, merge_runs, mergeable_time};
pub(crate) use plan::{wide, Fast, Op, Plan, Slot, NO_FAST};
