//! Frames: checked (bounds, checksum) and decompressed.

use super::{bad, FormatError};
use crate::format::*;
use crate::varint::Cursor;

/// Reads, checks and decompresses the frame at `offset`.
pub(crate) fn frame(b: &[u8], offset: u64, kind: u8, limit: u64) -> Result<Vec<u8>, FormatError> {
    let mut out = Vec::new();
    Ok(frame_into(b, offset, kind, limit, &mut out)?.to_vec())
}

/// Like [`frame`], decompressing into `out` (whose allocation is reused).
pub(crate) fn frame_into<'a>(
    b: &'a [u8],
    offset: u64,
    kind: u8,
    limit: u64,
    out: &'a mut Vec<u8>,
) -> Result<&'a [u8], FormatError> {
    match frame_parts(b, offset, kind, limit, out)? {
        Payload::InPlace(p) => Ok(p),
        Payload::Out => Ok(&out[..]),
        Payload::Split(at, n) => {
            out.extend_from_slice(&b[at..at + n]);
            Ok(&out[..])
        }
    }
}

/// A frame's payload in two parts: the first, decompressed into `out` or
/// read in place; the second, the tail a split frame stores as is, read in
/// place (empty for other codecs).
pub(crate) fn frame_split<'a>(
    b: &'a [u8],
    offset: u64,
    kind: u8,
    out: &'a mut Vec<u8>,
) -> Result<(&'a [u8], &'a [u8]), FormatError> {
    Ok(match frame_parts(b, offset, kind, u64::MAX, out)? {
        Payload::InPlace(p) => (p, &[]),
        Payload::Out => (&out[..], &[]),
        Payload::Split(at, n) => (&out[..], &b[at..at + n]),
    })
}

/// Where [`frame_parts`] left a payload.
enum Payload<'a> {
    /// Stored as is.
    InPlace(&'a [u8]),
    /// Decompressed into the buffer.
    Out,
    /// Decompressed into the buffer but for its tail, stored as is at
    /// (offset, length) in the file.
    Split(usize, usize),
}

/// Checks a frame and decompresses its payload into `out`, but for the
/// tail of a split frame.
fn frame_parts<'a>(
    b: &'a [u8],
    offset: u64,
    kind: u8,
    limit: u64,
    out: &mut Vec<u8>,
) -> Result<Payload<'a>, FormatError> {
    let o = usize::try_from(offset).map_err(|_| bad(offset, "frame offset out of range"))?;
    let end_limit = limit.min(b.len() as u64) as usize;
    if o < HEADER_LEN || o > end_limit.saturating_sub(FRAME_HEADER_LEN) {
        return Err(bad(offset, "frame offset out of range (truncated file?)"));
    }
    let h = &b[o..o + FRAME_HEADER_LEN];
    if h[0] != kind {
        return Err(bad(
            offset,
            format!("expected a frame of kind {kind}, found kind {}", h[0]),
        ));
    }
    let stored = u32::from_le_bytes(h[4..8].try_into().expect("4 bytes")) as usize;
    let raw = u32::from_le_bytes(h[8..12].try_into().expect("4 bytes")) as usize;
    let crc = u32::from_le_bytes(h[12..16].try_into().expect("4 bytes"));
    let p = o + FRAME_HEADER_LEN;
    if p + stored > end_limit {
        return Err(bad(
            offset,
            "frame runs past the end of the file (truncated file?)",
        ));
    }
    let payload = &b[p..p + stored];
    // Since version 5 the checksum covers the frame header as well.
    let mut sum = crc32fast::Hasher::new();
    if u16::from_le_bytes([b[8], b[9]]) >= 5 {
        sum.update(&h[..12]);
    }
    sum.update(payload);
    if sum.finalize() != crc {
        return Err(bad(offset, "checksum mismatch: the frame is corrupted"));
    }
    if h[1] != CODEC_NONE && raw > stored.saturating_mul(MAX_ZSTD_RATIO) {
        return Err(bad(
            offset,
            format!("the frame header says {raw} bytes decompressed from {stored}: more than zstd gives"),
        ));
    }
    match h[1] {
        CODEC_NONE if raw == stored => Ok(Payload::InPlace(payload)),
        CODEC_ZSTD => {
            unzstd(payload, raw, out).map_err(|e| bad(offset, e))?;
            Ok(Payload::Out)
        }
        CODEC_SPLIT => {
            let mut c = Cursor::new(payload);
            let z = c
                .varint()
                .and_then(|n| usize::try_from(n).ok())
                .filter(|&n| n <= c.remaining())
                .ok_or_else(|| bad(offset, "split frame: bad zstd length"))?;
            let (z, tail) = c.data()[c.pos()..].split_at(z);
            let head = raw
                .checked_sub(tail.len())
                .ok_or_else(|| bad(offset, "split frame: tail longer than the payload"))?;
            // Room for the tail too, should the caller append it.
            out.clear();
            make_room(out, z, head, raw).map_err(|e| bad(offset, e))?;
            unzstd(z, head, out).map_err(|e| bad(offset, e))?;
            Ok(Payload::Split(p + stored - tail.len(), tail.len()))
        }
        CODEC_NONE => Err(bad(
            offset,
            format!("frame stored as is, but its lengths differ ({raw} and {stored} bytes)"),
        )),
        c => Err(bad(offset, format!("unknown codec {c}"))),
    }
}

/// The most bytes zstd decompresses from one byte (a block of 128 KiB
/// repeating one byte takes 4): a frame header that claims more lies.
const MAX_ZSTD_RATIO: usize = 1 << 15;

/// Makes room in `out` for `room` bytes, of which the zstd frames `z`
/// decompress to `raw`: the sizes the frames declare (when they do) must
/// agree, and an allocation that fails is an error, not an abort.
fn make_room(out: &mut Vec<u8>, z: &[u8], raw: usize, room: usize) -> Result<(), String> {
    if let Some(n) = declared_size(z) {
        if n != raw as u64 {
            return Err(format!(
                "the frame header says {raw} bytes decompressed, its zstd frames {n}"
            ));
        }
    }
    out.try_reserve(room)
        .map_err(|_| format!("cannot allocate {room} bytes to decompress the frame"))
}

/// The total of the sizes the zstd frames `z` declare, when each does.
fn declared_size(mut z: &[u8]) -> Option<u64> {
    use zstd::zstd_safe::{find_frame_compressed_size, get_frame_content_size};
    let mut total = 0u64;
    while !z.is_empty() {
        let n = get_frame_content_size(z).ok()??;
        let len = find_frame_compressed_size(z).ok().filter(|&l| l > 0)?;
        total = total.checked_add(n)?;
        z = z.get(len..)?;
    }
    Some(total)
}

/// Decompresses the zstd frames `z` into `out`, which must come to exactly
/// `raw` bytes.
fn unzstd(z: &[u8], raw: usize, out: &mut Vec<u8>) -> Result<(), String> {
    out.clear();
    make_room(out, z, raw, raw)?;
    thread_local! {
        // One decompression context per thread, reused frame after frame.
        static DCTX: std::cell::RefCell<Option<zstd::bulk::Decompressor<'static>>> =
            const { std::cell::RefCell::new(None) };
    }
    let n = DCTX
        .with(|d| {
            let mut d = d.borrow_mut();
            if d.is_none() {
                *d = Some(zstd::bulk::Decompressor::new()?);
            }
            d.as_mut().expect("made above").decompress_to_buffer(z, out)
        })
        .map_err(|e| format!("zstd: {e}"))?;
    if n != raw || out.len() != raw {
        return Err("decompressed size does not match the frame header".into());
    }
    Ok(())
}
