//! Compression formats and their detection.

use std::fmt;

/// Number of leading bytes needed by [`Compression::from_magic`].
pub(crate) const MAGIC_LEN: usize = 4;

const GZIP_MAGIC: [u8; 2] = [0x1f, 0x8b];
const ZSTD_MAGIC: [u8; 4] = [0x28, 0xb5, 0x2f, 0xfd];

/// Compression detected at the start of an input.
#[non_exhaustive]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Compression {
    /// Not compressed (or not in a recognised format): bytes pass through.
    None,
    /// gzip (RFC 1952), possibly several concatenated members.
    Gzip,
    /// Zstandard, possibly several concatenated frames.
    Zstd,
}

impl Compression {
    /// Detects the compression from the first bytes of a stream (at least four
    /// are needed to recognise zstd; fewer bytes are never zstd).
    pub fn from_magic(start: &[u8]) -> Compression {
        if start.starts_with(&ZSTD_MAGIC) {
            Compression::Zstd
        } else if start.starts_with(&GZIP_MAGIC) {
            Compression::Gzip
        } else {
            Compression::None
        }
    }

    /// A short lowercase name: `none`, `gzip` or `zstd`.
    pub fn as_str(self) -> &'static str {
        match self {
            Compression::None => "none",
            Compression::Gzip => "gzip",
            Compression::Zstd => "zstd",
        }
    }
}

impl fmt::Display for Compression {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn magic() {
        assert_eq!(Compression::from_magic(&[]), Compression::None);
        assert_eq!(Compression::from_magic(b"%Ev"), Compression::None);
        assert_eq!(Compression::from_magic(&[0x1f, 0x8b]), Compression::Gzip);
        assert_eq!(
            Compression::from_magic(&[0x1f, 0x8b, 8, 0]),
            Compression::Gzip
        );
        assert_eq!(
            Compression::from_magic(&[0x28, 0xb5, 0x2f, 0xfd]),
            Compression::Zstd
        );
        assert_eq!(
            Compression::from_magic(&[0x28, 0xb5, 0x2f]),
            Compression::None
        );
        assert_eq!(Compression::Zstd.to_string(), "zstd");
    }
}
