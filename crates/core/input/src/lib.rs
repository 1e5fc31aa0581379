//! Opening trace inputs for streaming reading.
//!
//! `trama-input` is the one place where the toolkit turns a command-line
//! argument (a path, `-` or nothing) into a byte stream. Inputs of any size are
//! read in a streaming fashion through large buffers, and compressed inputs are
//! decompressed transparently:
//!
//! * the compression is detected from the **magic bytes** at the start of the
//!   stream, never from the file name, so it works on standard input as well;
//! * gzip (`1f 8b`) is decoded member after member, so concatenated `.gz`
//!   files read as the concatenation of their contents;
//! * zstd (`28 b5 2f fd`) is decoded frame after frame, skippable frames are
//!   ignored, and long-distance-matching windows (`zstd --long`) are accepted.
//!
//! [`Input`] implements [`std::io::Read`] and [`std::io::BufRead`] and is
//! [`Send`]. For progress bars it reports the size of the file on disk
//! ([`Input::len_hint`]) and a shared counter of the raw bytes consumed so far
//! ([`Input::progress_counter`]), both in *compressed* bytes for compressed
//! inputs, so they can be compared with each other.
//!
//! Errors name the input and the cause: opening errors are [`InputError`]s;
//! errors while reading surface as [`std::io::Error`]s whose message starts
//! with the input name and whose inner error (see
//! [`std::io::Error::get_ref`]) is an [`InputError`].
//!
//! ```
//! use std::io::Read;
//! use trama_input::{Compression, Input, Source};
//!
//! let dir = tempfile::tempdir()?;
//! let path = dir.path().join("trace.paje");
//! std::fs::write(&path, "%EventDef PajeDefineContainerType 0\n")?;
//!
//! let source = Source::from_arg(Some(path.as_os_str()));
//! let mut input = Input::open(&source)?;
//! assert_eq!(input.compression(), Compression::None);
//! assert_eq!(input.len_hint(), Some(36));
//!
//! let mut text = String::new();
//! input.read_to_string(&mut text)?;
//! assert!(text.starts_with("%EventDef"));
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

#![deny(missing_docs)]

mod compression;
mod error;
mod input;
mod source;
mod text;

pub use compression::Compression;
pub use error::InputError;
pub use input::{open_file, Input, BUFFER_SIZE};
pub use source::Source;
pub use text::{utf8_text, NotUtf8};
