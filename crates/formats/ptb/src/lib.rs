#![doc = include_str!("../../../../docs/ptb-format.md")]
//!
//! # This crate
//!
//! [`Writer`] writes a file in one pass from the events of a text trace: it
//! resolves their references (as the simulator does), encodes them and
//! follows the simulation ([`trama_sim::replay`]) to write keyframes.
//! [`PtbFile`] opens a file (through `mmap`) and checks it; then either
//! [`PtbFile::read`] hands its events back in order, for the reference
//! simulator, decoding frames on several threads, or
//! [`PtbFile::replay_counts`] and [`PtbFile::replay_trace`] simulate its
//! blocks in parallel from their keyframes (and only those a time window
//! needs). [`write_text`] turns a file back into Pajé text.
#![deny(missing_docs)]

mod decimal;
mod format;
mod model;
mod read;
mod replay;
mod state;
mod text;
mod varint;
mod write;

pub use format::{MAGIC, OLDEST_VERSION, VERSION};
pub use read::{
    is_ptb, Codec, Decoded, DecodedHandles, FormatError, FrameInfo, FrameKind, Layout, PtbFile,
    ReadError, ReadOptions,
};
pub use replay::{Counted, ReplayOptions, ReplayStats, Replayed};
pub use text::write_text;
pub use write::{add_summary, SourceStats, StringMode, WriteError, WriteOptions, Writer, Written};
