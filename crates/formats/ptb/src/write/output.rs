//! The output thread: frames compressed and written, the index kept; the
//! file's header, footer and trailer.

use std::io::{self, Write};
use std::thread::JoinHandle;

use crossbeam_channel::{bounded, Sender};
use trama_events::{EventDef, StringMode};
use trama_num::Precision;

use super::{SourceStats, WriteOptions};

use crate::format::*;
use crate::varint;

pub(super) type WriterResult<W> = io::Result<(W, Vec<Frame>, u64)>;

pub(super) struct Job {
    pub(super) kind: u8,
    pub(super) payload: Vec<u8>,
    pub(super) count: u64,
    pub(super) first: u64,
    pub(super) t_min: f64,
    pub(super) t_max: f64,
    pub(super) open_min: f64,
    /// Where the payload's tail (the `TIMES` column of an events frame)
    /// starts, 0 for none: a tail that zstd hardly shrinks is stored as is.
    pub(super) split: usize,
}

impl Job {
    /// A frame that is not an events frame (no times, no tail).
    pub(super) fn new(kind: u8, payload: Vec<u8>, count: u64, first: u64) -> Job {
        Job {
            kind,
            payload,
            count,
            first,
            t_min: 0.0,
            t_max: 0.0,
            open_min: 0.0,
            split: 0,
        }
    }

    /// A strings or model frame: the numbers of its first item and of its
    /// items, then `items`.
    pub(super) fn table(kind: u8, first: u64, count: u64, items: &[u8]) -> Job {
        let mut payload = Vec::with_capacity(items.len() + 16);
        varint::put(&mut payload, first);
        varint::put(&mut payload, count);
        payload.extend_from_slice(items);
        Job::new(kind, payload, count, first)
    }

    /// The strings or model frame of the `count` items gathered in `items`
    /// (`total` so far in the file, theirs included), which are then
    /// cleared; `None` when there are none.
    pub(super) fn take_table(
        kind: u8,
        total: u64,
        count: &mut u64,
        items: &mut Vec<u8>,
    ) -> Option<Job> {
        if *count == 0 {
            return None;
        }
        let job = Job::table(kind, total - *count, *count, items);
        items.clear();
        *count = 0;
        Some(job)
    }
}

fn put_index(out: &mut Vec<u8>, e: &Frame) {
    out.push(e.kind);
    varint::put(out, e.offset);
    varint::put(out, e.count);
    varint::put(out, e.first);
    out.extend_from_slice(&e.t_min.to_le_bytes());
    out.extend_from_slice(&e.t_max.to_le_bytes());
    out.extend_from_slice(&e.open_min.to_le_bytes());
}

/// Writes a frame whose stored payload is the concatenation of `parts`.
pub(super) fn write_frame<W: Write>(
    out: &mut W,
    kind: u8,
    codec: u8,
    raw_len: usize,
    parts: &[&[u8]],
) -> io::Result<u64> {
    let stored: usize = parts.iter().map(|p| p.len()).sum();
    if stored > u32::MAX as usize {
        return Err(too_big());
    }
    let mut h = [0u8; FRAME_HEADER_LEN];
    h[0] = kind;
    h[1] = codec;
    h[4..8].copy_from_slice(&(stored as u32).to_le_bytes());
    h[8..12].copy_from_slice(&(raw_len as u32).to_le_bytes());
    // The checksum covers the header's first 12 bytes, then the payload.
    let mut crc = crc32fast::Hasher::new();
    crc.update(&h[..12]);
    for p in parts {
        crc.update(p);
    }
    h[12..16].copy_from_slice(&crc.finalize().to_le_bytes());
    out.write_all(&h)?;
    for p in parts {
        out.write_all(p)?;
    }
    Ok((FRAME_HEADER_LEN + stored) as u64)
}

/// zstd must shrink a payload's tail by at least 1/`TAIL_GAIN` for it to
/// be compressed: incompressible times are faster to read as they are.
const TAIL_GAIN: usize = 8;

/// How the last tails went: after `fails` tails in a row that zstd hardly
/// shrank, the next `skip` are stored as they are without trying (the
/// times of a trace keep their nature: trying every frame would compress
/// the incompressible for nothing).
#[derive(Default)]
struct Tails {
    fails: u32,
    skip: u32,
}

/// The codec and stored parts of `payload`, compressed with `c` into `a`
/// and `b` (buffers reused from frame to frame). The part from `split` on
/// is compressed on its own, and stored as is when zstd hardly shrinks it.
fn compress<'a>(
    c: &mut zstd::bulk::Compressor<'_>,
    payload: &'a [u8],
    split: usize,
    tails: &mut Tails,
    (a, b, len): (&'a mut Vec<u8>, &'a mut Vec<u8>, &'a mut Vec<u8>),
) -> io::Result<(u8, [&'a [u8]; 3])> {
    let into = |c: &mut zstd::bulk::Compressor<'_>, src: &[u8], dst: &mut Vec<u8>| {
        dst.clear();
        dst.reserve(zstd::zstd_safe::compress_bound(src.len()));
        c.compress_to_buffer(src, dst).map(|_| ())
    };
    let split = if split > 0 && split < payload.len() {
        split
    } else {
        payload.len()
    };
    let (head, tail) = payload.split_at(split);
    into(c, head, a)?;
    if tail.is_empty() {
        return Ok((CODEC_ZSTD, [a, &[], &[]]));
    }
    if tails.skip > 0 {
        tails.skip -= 1;
    } else {
        into(c, tail, b)?;
        if b.len() + tail.len() / TAIL_GAIN <= tail.len() {
            tails.fails = 0;
            // Two zstd frames one after the other decompress as one.
            return Ok((CODEC_ZSTD, [a, b, &[]]));
        }
        tails.fails += 1;
        tails.skip = (1u32 << tails.fails.min(4)) - 1;
    }
    len.clear();
    varint::put(len, a.len() as u64);
    Ok((CODEC_SPLIT, [len, a, tail]))
}

fn too_big() -> io::Error {
    io::Error::new(io::ErrorKind::InvalidInput, "frame larger than 4 GiB")
}

/// Writes the header of a file on `out` and starts the output thread,
/// which writes the frames it is sent and returns the output, the index
/// and the offset past the last frame.
#[allow(clippy::type_complexity)]
pub(super) fn start<W: Write + Send + 'static>(
    mut out: W,
    opts: &WriteOptions,
) -> io::Result<(Sender<Job>, JoinHandle<WriterResult<W>>)> {
    let mut header = [0u8; HEADER_LEN];
    header[..8].copy_from_slice(&MAGIC);
    header[8..10].copy_from_slice(&VERSION.to_le_bytes());
    let mut flags = 0;
    if opts.strings == StringMode::Interned {
        flags |= FLAG_INTERNED;
    }
    if opts.quotes_stripped {
        flags |= FLAG_STRIPPED;
    }
    if opts.precision == Precision::Double {
        flags |= FLAG_EXACT_VALUES;
    }
    header[10..12].copy_from_slice(&u16::to_le_bytes(flags));
    out.write_all(&header)?;
    let (tx, rx) = bounded::<Job>(2);
    let level = opts.zstd_level;
    let thread = std::thread::Builder::new()
        .name("trama-ptb-write".into())
        .spawn(move || {
            let mut offset = HEADER_LEN as u64;
            let mut index = Vec::new();
            let (mut a, mut b, mut len) = (Vec::new(), Vec::new(), Vec::new());
            let mut tails = Tails::default();
            let mut cctx = match level {
                Some(l) => Some(zstd::bulk::Compressor::new(l)?),
                None => None,
            };
            for job in rx.iter() {
                if job.payload.len() > u32::MAX as usize {
                    return Err(too_big());
                }
                let (codec, parts) = match &mut cctx {
                    Some(c) => {
                        let bufs = (&mut a, &mut b, &mut len);
                        compress(c, &job.payload, job.split, &mut tails, bufs)?
                    }
                    None => (CODEC_NONE, [&job.payload[..], &[], &[]]),
                };
                let n = write_frame(&mut out, job.kind, codec, job.payload.len(), &parts)?;
                index.push(Frame {
                    kind: job.kind,
                    offset,
                    count: job.count,
                    first: job.first,
                    t_min: job.t_min,
                    t_max: job.t_max,
                    open_min: job.open_min,
                });
                offset += n;
            }
            Ok((out, index, offset))
        })?;
    Ok((tx, thread))
}

/// Writes the footer (`defs`, every definition of the trace in declaration
/// order; the `index` of the frames before it, at `footer_offset`; the
/// counts; every container's end time) and the trailer.
#[allow(clippy::too_many_arguments)]
pub(super) fn end<W: Write>(
    out: &mut W,
    zstd_level: Option<i32>,
    defs: &[EventDef],
    index: &[Frame],
    footer_offset: u64,
    source: SourceStats,
    events: u64,
    container_ends: impl ExactSizeIterator<Item = f64>,
) -> io::Result<()> {
    let mut footer = Vec::new();
    varint::put(&mut footer, defs.len() as u64);
    for d in defs {
        put_def(&mut footer, d);
    }
    varint::put(&mut footer, index.len() as u64);
    for e in index {
        put_index(&mut footer, e);
    }
    varint::put(&mut footer, source.lines);
    varint::put(&mut footer, events);
    varint::put(&mut footer, container_ends.len() as u64);
    for end in container_ends {
        footer.extend_from_slice(&end.to_le_bytes());
    }
    let (codec, stored) = match zstd_level {
        Some(l) => (CODEC_ZSTD, zstd::bulk::compress(&footer, l)?),
        None => (CODEC_NONE, footer.clone()),
    };
    if stored.len() > u32::MAX as usize {
        return Err(too_big());
    }
    write_frame(out, KIND_FOOTER, codec, footer.len(), &[&stored])?;
    let mut trailer = [0u8; TRAILER_LEN];
    trailer[..8].copy_from_slice(&footer_offset.to_le_bytes());
    trailer[8..].copy_from_slice(&END_MAGIC);
    out.write_all(&trailer)?;
    out.flush()
}
