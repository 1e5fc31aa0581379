//! Why reading stops: a damaged file ([`FormatError`]) or the caller's
//! handler ([`ReadError`]).

/// A malformed, truncated or corrupted file: what is wrong and where.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("byte {offset}: {what}")]
pub struct FormatError {
    /// Byte offset in the file of the frame (or field) at fault.
    pub offset: u64,
    /// What is wrong.
    pub what: String,
}

pub(crate) fn bad(offset: u64, what: impl Into<String>) -> FormatError {
    FormatError {
        offset,
        what: what.into(),
    }
}

/// Why reading a binary trace stopped.
#[derive(Debug, thiserror::Error)]
pub enum ReadError<E> {
    /// The file is not a valid `.ptb` file.
    #[error(transparent)]
    Format(#[from] FormatError),
    /// The handler returned an error.
    #[error("stopped by the event handler")]
    Handler(E),
}
