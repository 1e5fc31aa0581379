//! What a file is made of, for `trama info` and tests: its frames, their
//! codecs and layouts, and the weight of each column.

use super::{bad, frame_into, FormatError, PtbFile};
use crate::format::*;

/// What a frame holds (see the format's specification, "Layout").
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum FrameKind {
    /// New interned strings.
    Strings,
    /// Model records (types, containers, values, streams).
    Model,
    /// A block of events.
    Events,
    /// The simulation's state before an events frame.
    Keyframe,
    /// What a viewer reads of the whole trace (after the footer, out of
    /// the index).
    Summary,
}

/// How a frame's payload is stored.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum Codec {
    /// As is.
    None,
    /// zstd.
    Zstd,
    /// zstd, then a tail (an events frame's times) as is.
    ZstdRawTail,
}

/// Events frames of one layout, as [`PtbFile::frame_layouts`] counts them.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Layout {
    /// Events frames.
    pub frames: u64,
    /// Events in them.
    pub events: u64,
}

/// One frame of a file, from its index entry and its header.
#[derive(Clone, Copy, Debug, PartialEq)]
#[non_exhaustive]
pub struct FrameInfo {
    /// What it holds.
    pub kind: FrameKind,
    /// Its byte offset in the file.
    pub offset: u64,
    /// Its bytes in the file, header included.
    pub stored: u64,
    /// Its payload's bytes once decompressed.
    pub raw: u64,
    /// How its payload is stored.
    pub codec: Codec,
    /// Events frames: events; strings and model frames: strings or
    /// records; keyframes: 0.
    pub count: u64,
    /// Events frames: the line of the first event; strings and model
    /// frames: the number of the first string or record; keyframes: the
    /// index (among events frames) of the frame it precedes.
    pub first: u64,
    /// Events frames: the smallest and largest time of their events (both
    /// 0 when none is timed, and for other frames).
    pub t_min: f64,
    /// See `t_min`.
    pub t_max: f64,
}

impl PtbFile {
    /// What each column of the events frames weighs: its name, its bytes
    /// decompressed, and its bytes when each frame's part of it is
    /// compressed alone at zstd `level` (to see where the size goes).
    pub fn column_sizes(&self, level: i32) -> Result<Vec<(&'static str, u64, u64)>, FormatError> {
        let mut sizes: Vec<(&'static str, u64, u64)> =
            COLUMN_NAMES.iter().map(|&n| (n, 0, 0)).collect();
        let mut raw = Vec::new();
        for f in self.events_frames() {
            let payload = frame_into(self.bytes(), f.offset, KIND_EVENTS, u64::MAX, &mut raw)?;
            let c = self.columns(&f, payload)?;
            for (i, col) in c.cols.iter().enumerate() {
                let d = col.data();
                sizes[i].1 += d.len() as u64;
                let z = zstd::bulk::compress(d, level).map_err(|e| bad(f.offset, e.to_string()))?;
                sizes[i].2 += z.len().min(d.len()) as u64;
            }
        }
        Ok(sizes)
    }

    /// How many events frames use each layout, and how many events they
    /// hold: `[in trace order, grouped by list, grouped and merged by
    /// time]` (see the format's specification, "Events frame").
    pub fn frame_layouts(&self) -> Result<[Layout; 3], FormatError> {
        let mut n = [Layout::default(); 3];
        let mut raw = Vec::new();
        for f in self.events_frames() {
            let payload = frame_into(self.bytes(), f.offset, KIND_EVENTS, u64::MAX, &mut raw)?;
            let c = self.columns(&f, payload)?;
            let l = &mut n[c.grouped as usize + c.merged as usize];
            l.frames += 1;
            l.events += f.count;
        }
        Ok(n)
    }

    /// Every frame of the index (the footer aside), in file order, as the
    /// index and each frame's header describe it (nothing is decompressed),
    /// then the summary frame after the footer, when there is one.
    /// A frame that overlaps the next one (or the footer), or whose header
    /// does not match its index entry, is an error at its offset.
    pub fn frames(&self) -> Result<Vec<FrameInfo>, FormatError> {
        let b = self.bytes();
        let t = b.len() - TRAILER_LEN;
        let footer = u64::from_le_bytes(b[t..t + 8].try_into().expect("8 bytes"));
        let mut out = Vec::with_capacity(self.frames.len());
        for (i, f) in self.frames.iter().enumerate() {
            let limit = self.frames.get(i + 1).map_or(footer, |n| n.offset);
            let o = f.offset as usize;
            if f.offset < HEADER_LEN as u64
                || f.offset.saturating_add(FRAME_HEADER_LEN as u64) > limit
            {
                return Err(bad(
                    f.offset,
                    "frame out of place: the index is not in file order or the frame has no room",
                ));
            }
            let h = &b[o..o + FRAME_HEADER_LEN];
            let word = |i: usize| u32::from_le_bytes(h[i..i + 4].try_into().expect("4 bytes"));
            let stored = FRAME_HEADER_LEN as u64 + word(4) as u64;
            if h[0] != f.kind || h[1] > CODEC_SPLIT {
                return Err(bad(
                    f.offset,
                    format!(
                        "frame header of kind {} and codec {}, the index says kind {}",
                        h[0], h[1], f.kind
                    ),
                ));
            }
            if f.offset + stored > limit {
                return Err(bad(
                    f.offset,
                    "frame runs into the next one (damaged header or index)",
                ));
            }
            let kind = match f.kind {
                KIND_STRINGS => FrameKind::Strings,
                KIND_MODEL => FrameKind::Model,
                KIND_KEYFRAME => FrameKind::Keyframe,
                _ => FrameKind::Events,
            };
            let codec = match h[1] {
                CODEC_NONE => Codec::None,
                CODEC_ZSTD => Codec::Zstd,
                _ => Codec::ZstdRawTail,
            };
            out.push(FrameInfo {
                kind,
                offset: f.offset,
                stored,
                raw: word(8) as u64,
                codec,
                count: f.count,
                first: f.first,
                t_min: f.t_min,
                t_max: f.t_max,
            });
        }
        if let Some(at) = self.summary_at {
            let o = at as usize;
            let h = b
                .get(o..o + FRAME_HEADER_LEN)
                .filter(|h| h[0] == KIND_SUMMARY && o + FRAME_HEADER_LEN <= t);
            if let Some(h) = h {
                let word = |i: usize| u32::from_le_bytes(h[i..i + 4].try_into().expect("4 bytes"));
                out.push(FrameInfo {
                    kind: FrameKind::Summary,
                    offset: at,
                    stored: FRAME_HEADER_LEN as u64 + word(4) as u64,
                    raw: word(8) as u64,
                    codec: if h[1] == CODEC_NONE {
                        Codec::None
                    } else {
                        Codec::Zstd
                    },
                    count: 0,
                    first: 0,
                    t_min: 0.0,
                    t_max: 0.0,
                });
            }
        }
        Ok(out)
    }

    /// The version of the format the file was written in.
    pub fn version(&self) -> u16 {
        let b = self.bytes();
        u16::from_le_bytes([b[8], b[9]])
    }

    /// How many frames of the index (the footer aside) are stored with
    /// each codec: `[as is, zstd, zstd and a tail as is]` (see the format's
    /// specification, "Layout"); all 0 when [`PtbFile::frames`] finds the
    /// index damaged.
    pub fn frame_codecs(&self) -> [u64; 3] {
        let mut n = [0u64; 3];
        for f in self.frames().unwrap_or_default() {
            n[match f.codec {
                Codec::None => 0,
                Codec::Zstd => 1,
                Codec::ZstdRawTail => 2,
            }] += 1;
        }
        n
    }
}
