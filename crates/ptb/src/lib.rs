#![doc = include_str!("../../../docs/ptb-format.md")]
//!
//! # This crate
//!
//! [`Writer`] writes a file in one pass from events and the handles the
//! simulator's resolver gave them; [`PtbFile`] opens one (through `mmap`),
//! checks it and hands its events back in order ([`PtbFile::read`]),
//! decoding frames on several threads; [`write_text`] turns it back into
//! Pajé text.
#![deny(missing_docs)]

mod decimal;
mod format;
mod keyframe;
mod read;
mod text;
mod varint;
mod write;

pub use format::{MAGIC, VERSION};
pub use read::{is_ptb, FormatError, HandleRecord, PtbFile, ReadError, ReadOptions, Record};
pub use text::write_text;
pub use write::{SourceStats, StringMode, WriteOptions, Writer};
