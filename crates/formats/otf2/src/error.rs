//! The errors of reading an archive: each names the file and, for a
//! damaged file, the byte offset where the problem was found.

use std::io;

/// Why an archive could not be read.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// A file of the archive could not be opened or read.
    #[error("{file}: {source}")]
    Io {
        /// The file.
        file: String,
        /// The cause.
        #[source]
        source: io::Error,
    },
    /// A file is damaged or is not what the archive says it is.
    #[error("{file}: byte {offset}: {what}")]
    Format {
        /// The file.
        file: String,
        /// Where in it the problem was found.
        offset: u64,
        /// What is wrong.
        what: String,
    },
    /// The archive uses a feature this reader does not implement (SION
    /// containers, compressed files).
    #[error("{file}: {what}")]
    Unsupported {
        /// The file.
        file: String,
        /// What is not supported.
        what: String,
    },
}

impl Error {
    /// The file the error is about.
    pub fn file(&self) -> &str {
        match self {
            Error::Io { file, .. }
            | Error::Format { file, .. }
            | Error::Unsupported { file, .. } => file,
        }
    }

    /// The byte offset of a damaged file's problem.
    pub fn offset(&self) -> Option<u64> {
        match self {
            Error::Format { offset, .. } => Some(*offset),
            _ => None,
        }
    }
}

/// A problem found at byte `at` of the data being decoded, before the
/// file's name is known to the decoder.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Bad {
    pub at: usize,
    pub what: String,
}

impl Bad {
    pub fn new(at: usize, what: impl Into<String>) -> Bad {
        Bad {
            at,
            what: what.into(),
        }
    }

    /// The error naming `file`.
    pub fn in_file(self, file: &str) -> Error {
        Error::Format {
            file: file.to_string(),
            offset: self.at as u64,
            what: self.what,
        }
    }
}
