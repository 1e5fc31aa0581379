//! The anchor file (`<name>.otf2`): what the archive holds and how its
//! other files are laid out.
//!
//! Layout (one unchunked buffer): the chunk-header byte `0x03`, the
//! endianness byte, the string `OTF2`, two format bytes, the library
//! version (major, minor, bugfix: one byte each), the chunk sizes of event
//! and definition files (full 64-bit), the file substrate and compression
//! (one byte each), the numbers of locations and of global definitions
//! (full 64-bit), the machine name, creator and description (strings),
//! the properties (a full 32-bit count, then name and value strings), the
//! trace identifier (full 64-bit) and the numbers of snapshots and
//! thumbnails (full 32-bit each).

use crate::buf::{Cursor, BIG_ENDIAN, LITTLE_ENDIAN};
use crate::error::Bad;

/// The file substrate `POSIX`: one file per location.
pub const SUBSTRATE_POSIX: u8 = 1;
/// The file substrate `SION`: locations packed in container files.
pub const SUBSTRATE_SION: u8 = 2;
/// No compression of the archive's files.
pub const COMPRESSION_NONE: u8 = 1;

/// Chunk sizes the library accepts (256 KiB to 16 MiB); others are damage.
const CHUNK_MIN: u64 = 256 << 10;
const CHUNK_MAX: u64 = 16 << 20;

/// What the anchor file says.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Anchor {
    /// The buffers are big endian.
    pub big_endian: bool,
    /// The version of the library that wrote the archive.
    pub version: (u8, u8, u8),
    /// Size of the chunks of event files.
    pub chunk_size_events: u64,
    /// Size of the chunks of definition files.
    pub chunk_size_defs: u64,
    /// The file substrate (1 POSIX, 2 SION, 3 none).
    pub substrate: u8,
    /// The compression (1 none, 2 zlib).
    pub compression: u8,
    /// Number of locations.
    pub locations: u64,
    /// Number of global definitions.
    pub global_definitions: u64,
    /// The machine name.
    pub machine: String,
    /// The program that wrote the archive.
    pub creator: String,
    /// A description.
    pub description: String,
    /// Named properties.
    pub properties: Vec<(String, String)>,
    /// The trace identifier.
    pub trace_id: u64,
}

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

impl Anchor {
    /// Parses an anchor file.
    pub(crate) fn parse(data: &[u8]) -> Result<Anchor, Bad> {
        let mut c = Cursor::new(data, 0, data.len(), false);
        if c.u8()? != 3 {
            return Err(Bad::new(0, "not an OTF2 anchor file (no buffer header)"));
        }
        let big = match c.u8()? {
            LITTLE_ENDIAN => false,
            BIG_ENDIAN => true,
            b => return Err(Bad::new(1, format!("unknown endianness byte {b:#04x}"))),
        };
        c.big = big;
        if c.string()? != b"OTF2" {
            return Err(Bad::new(2, "not an OTF2 anchor file (no OTF2 mark)"));
        }
        let _format = (c.u8()?, c.u8()?);
        let version = (c.u8()?, c.u8()?, c.u8()?);
        let at = c.pos;
        let chunk_size_events = c.u64_full()?;
        let chunk_size_defs = c.u64_full()?;
        for (size, at, what) in [
            (chunk_size_events, at, "event"),
            (chunk_size_defs, at + 8, "definition"),
        ] {
            if !(CHUNK_MIN..=CHUNK_MAX).contains(&size) {
                return Err(Bad::new(
                    at,
                    format!("chunk size of {what} files {size} is not between 256 KiB and 16 MiB"),
                ));
            }
        }
        let substrate = c.u8()?;
        let compression = c.u8()?;
        let locations = c.u64_full()?;
        let global_definitions = c.u64_full()?;
        let machine = text(c.string()?);
        let creator = text(c.string()?);
        let description = text(c.string()?);
        let mut properties = Vec::new();
        let mut trace_id = 0;
        // Archives of old versions end here.
        if c.remaining() >= 4 {
            let n = c.u32_full()?;
            for _ in 0..n {
                let name = text(c.string()?);
                let value = text(c.string()?);
                properties.push((name, value));
            }
            if c.remaining() >= 8 {
                trace_id = c.u64_full()?;
            }
        }
        Ok(Anchor {
            big_endian: big,
            version,
            chunk_size_events,
            chunk_size_defs,
            substrate,
            compression,
            locations,
            global_definitions,
            machine,
            creator,
            description,
            properties,
            trace_id,
        })
    }
}
