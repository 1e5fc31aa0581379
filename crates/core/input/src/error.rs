//! The error type.

use std::io;
use std::path::PathBuf;

use crate::Compression;

/// Why an input could not be opened or read.
///
/// Every message starts with the input's name. Errors met while reading are
/// delivered as [`io::Error`]s wrapping one of these (see
/// [`io::Error::get_ref`]), with the [`io::ErrorKind`] of the cause
/// ([`io::ErrorKind::UnexpectedEof`] for a truncated compressed stream,
/// [`io::ErrorKind::InvalidData`] for other corruption).
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum InputError {
    /// The path does not exist.
    #[error("{}: no such file or directory", .path.display())]
    NotFound {
        /// The path given.
        path: PathBuf,
    },
    /// The path exists but may not be read.
    #[error("{}: permission denied", .path.display())]
    PermissionDenied {
        /// The path given.
        path: PathBuf,
    },
    /// The path is a directory.
    #[error("{}: is a directory", .path.display())]
    IsADirectory {
        /// The path given.
        path: PathBuf,
    },
    /// Any other failure to open the path.
    #[error("{}: cannot open: {source}", .path.display())]
    Open {
        /// The path given.
        path: PathBuf,
        /// The cause.
        source: io::Error,
    },
    /// Reading the underlying file or standard input failed.
    #[error("{name}: read error: {source}")]
    Read {
        /// The input name (path or `<stdin>`).
        name: String,
        /// The cause.
        source: io::Error,
    },
    /// The decompressor could not be set up.
    #[error("{name}: cannot initialise {compression} decoder: {source}")]
    Decoder {
        /// The input name (path or `<stdin>`).
        name: String,
        /// The compression of the input.
        compression: Compression,
        /// The cause.
        source: io::Error,
    },
    /// The compressed stream is corrupt or truncated.
    #[error(
        "{name}: corrupt {compression} stream{}: {source}",
        offset_suffix(.offset)
    )]
    Corrupt {
        /// The input name (path or `<stdin>`).
        name: String,
        /// The compression of the input.
        compression: Compression,
        /// Approximate offset in the compressed stream where decoding failed
        /// (the decoder consumes input in blocks, so the damage may lie up to
        /// a block earlier).
        offset: Option<u64>,
        /// The decoder's error.
        source: io::Error,
    },
}

fn offset_suffix(offset: &Option<u64>) -> String {
    match offset {
        Some(o) => format!(" near compressed byte offset {o}"),
        None => String::new(),
    }
}

impl InputError {
    /// The [`io::ErrorKind`] that best describes this error.
    pub fn kind(&self) -> io::ErrorKind {
        match self {
            InputError::NotFound { .. } => io::ErrorKind::NotFound,
            InputError::PermissionDenied { .. } => io::ErrorKind::PermissionDenied,
            InputError::IsADirectory { .. } => io::ErrorKind::Other,
            InputError::Open { source, .. }
            | InputError::Read { source, .. }
            | InputError::Decoder { source, .. } => source.kind(),
            InputError::Corrupt { source, .. } => match source.kind() {
                io::ErrorKind::UnexpectedEof => io::ErrorKind::UnexpectedEof,
                _ => io::ErrorKind::InvalidData,
            },
        }
    }
}

impl From<InputError> for io::Error {
    fn from(e: InputError) -> io::Error {
        io::Error::new(e.kind(), e)
    }
}
