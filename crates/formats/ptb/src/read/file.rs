//! An open file: the header, the footer (definitions, index, counts,
//! container end times), the strings and the model records, read and
//! checked when it is opened; and what they tell.

use std::io;
use std::path::Path;

use trama_events::EventDef;
use trama_num::Precision;

use super::plan::plan;
use super::{bad, frame, FormatError, Plan};
use crate::format::*;
use crate::model::Records;
use crate::varint::Cursor;

enum Data {
    Mmap(memmap2::Mmap),
    Owned(Vec<u8>),
}

impl Data {
    fn bytes(&self) -> &[u8] {
        match self {
            Data::Mmap(m) => m,
            Data::Owned(v) => v,
        }
    }
}

/// A stream as its model record declares it (checked when replayed).
#[derive(Clone, Copy, Debug)]
pub(crate) struct StreamRec {
    pub def: u32,
    pub container: u32,
    pub ty: u32,
    /// Its model record.
    pub record: u64,
}

/// An open `.ptb` file: header, definitions, index, strings and model
/// records are read and checked; events are decoded when simulated.
pub struct PtbFile {
    data: Data,
    flags: u16,
    pub(crate) defs: Vec<EventDef>,
    pub(crate) frames: Vec<Frame>,
    strings: Vec<u8>,
    string_spans: Vec<(u32, u32)>,
    text_lines: u64,
    events: u64,
    pub(crate) plans: Vec<Plan>,
    pub(crate) records: Records,
    pub(crate) streams: Vec<StreamRec>,
    /// Final end time of every container, root first.
    pub(crate) container_ends: Vec<f64>,
    /// Where the bytes between the footer and the trailer begin, when
    /// there are some (a summary frame).
    pub(crate) summary_at: Option<u64>,
}

/// True when `prefix` starts like a `.ptb` file.
pub fn is_ptb(prefix: &[u8]) -> bool {
    prefix.starts_with(&MAGIC)
}

impl PtbFile {
    /// Opens a file through `mmap`.
    pub fn open(path: &Path) -> io::Result<Result<PtbFile, FormatError>> {
        PtbFile::from_file(&std::fs::File::open(path)?)
    }

    /// Reads an open file through `mmap` (as [`PtbFile::open`] does once
    /// the file is open).
    pub fn from_file(file: &std::fs::File) -> io::Result<Result<PtbFile, FormatError>> {
        // SAFETY: the map is read-only; a file changed underneath is the
        // user's doing, and every byte read is checked (CRC, bounds).
        // Pages are mapped up front (one system call instead of a fault
        // per page as the reading threads reach them).
        let map = unsafe { memmap2::MmapOptions::new().populate().map(file)? };
        Ok(PtbFile::parse(Data::Mmap(map)))
    }

    /// Opens a file through `mmap` without reading it up front: for a reader
    /// that reads parts of a large file ([`PtbFile::release`] gives back
    /// the pages read).
    pub fn open_lazy(path: &Path) -> io::Result<Result<PtbFile, FormatError>> {
        PtbFile::from_file_lazy(&std::fs::File::open(path)?)
    }

    /// Reads an open file through `mmap` without reading it up front (as
    /// [`PtbFile::open_lazy`] does once the file is open).
    pub fn from_file_lazy(file: &std::fs::File) -> io::Result<Result<PtbFile, FormatError>> {
        // SAFETY: as in `from_file`.
        let map = unsafe { memmap2::Mmap::map(file)? };
        Ok(PtbFile::parse(Data::Mmap(map)))
    }

    /// Gives back the pages of the file read so far (they stay in the
    /// system's cache; the next read maps them again), so that the
    /// process's resident memory does not grow with what it has read.
    pub fn release(&self) {
        if let Data::Mmap(m) = &self.data {
            // SAFETY: the map is private and read-only: dropping its pages
            // only makes the next access read them from the file again.
            let _ = unsafe { m.unchecked_advise(memmap2::UncheckedAdvice::DontNeed) };
        }
    }

    /// Reads a file held in memory (e.g. from standard input).
    pub fn from_vec(data: Vec<u8>) -> Result<PtbFile, FormatError> {
        PtbFile::parse(Data::Owned(data))
    }

    fn parse(data: Data) -> Result<PtbFile, FormatError> {
        let b = data.bytes();
        if b.len() < HEADER_LEN || !is_ptb(b) {
            return Err(bad(0, "not a trama binary trace (no PTB magic number)"));
        }
        let version = u16::from_le_bytes([b[8], b[9]]);
        if !(OLDEST_VERSION..=VERSION).contains(&version) {
            return Err(bad(
                8,
                format!("format version {version}, this trama reads versions {OLDEST_VERSION} to {VERSION}"),
            ));
        }
        let flags = u16::from_le_bytes([b[10], b[11]]);
        if b.len() < HEADER_LEN + TRAILER_LEN || b[b.len() - 8..] != END_MAGIC {
            return Err(bad(
                b.len() as u64,
                "truncated file: the end marker is missing (was the conversion interrupted?)",
            ));
        }
        let t = b.len() - TRAILER_LEN;
        let footer_offset = u64::from_le_bytes(b[t..t + 8].try_into().expect("8 bytes"));
        let footer = frame(b, footer_offset, KIND_FOOTER, t as u64)?;
        // `frame` checked that the footer ends before the trailer.
        let o = footer_offset as usize;
        let stored = u32::from_le_bytes(b[o + 4..o + 8].try_into().expect("4 bytes")) as u64;
        let footer_end = footer_offset + (FRAME_HEADER_LEN as u64) + stored;
        let summary_at = (footer_end < t as u64).then_some(footer_end);
        let mut c = Cursor::new(&footer);
        let fbad = |what: &str| bad(footer_offset, format!("footer: {what}"));
        let ndefs = c.varint().ok_or_else(|| fbad("truncated"))?;
        let mut defs = Vec::new();
        for i in 0..ndefs {
            let d = get_def(&mut c, i as u32).ok_or_else(|| fbad("malformed event definition"))?;
            defs.push(d);
        }
        let nframes = c.varint().ok_or_else(|| fbad("truncated"))?;
        let mut frames = Vec::new();
        for _ in 0..nframes {
            let e = (|| {
                Some(Frame {
                    kind: c.byte()?,
                    offset: c.varint()?,
                    count: c.varint()?,
                    first: c.varint()?,
                    t_min: c.f64()?,
                    t_max: c.f64()?,
                    open_min: c.f64()?,
                })
            })()
            .ok_or_else(|| fbad("truncated index"))?;
            if e.offset >= footer_offset
                || !matches!(
                    e.kind,
                    KIND_STRINGS | KIND_EVENTS | KIND_KEYFRAME | KIND_MODEL
                )
            {
                return Err(fbad("index entry out of range"));
            }
            frames.push(e);
        }
        let (text_lines, events) =
            (|| Some((c.varint()?, c.varint()?)))().ok_or_else(|| fbad("truncated"))?;
        let nconts = c.varint().ok_or_else(|| fbad("truncated"))?;
        if nconts > footer.len() as u64 {
            return Err(fbad("container count out of range"));
        }
        let mut container_ends = Vec::with_capacity(nconts as usize);
        for _ in 0..nconts {
            container_ends.push(c.f64().ok_or_else(|| fbad("truncated container ends"))?);
        }
        if !c.at_end() {
            return Err(fbad("trailing bytes"));
        }
        let interned = flags & FLAG_INTERNED != 0;
        let plans = defs.iter().map(|d| plan(d, interned)).collect();
        let mut file = PtbFile {
            data,
            flags,
            defs,
            frames,
            strings: Vec::new(),
            string_spans: Vec::new(),
            text_lines,
            events,
            plans,
            records: Records::default(),
            streams: Vec::new(),
            container_ends,
            summary_at,
        };
        file.load_strings()?;
        file.load_records()?;
        Ok(file)
    }

    fn load_strings(&mut self) -> Result<(), FormatError> {
        let b = self.data.bytes();
        for f in self.frames.iter().filter(|f| f.kind == KIND_STRINGS) {
            let payload = frame(b, f.offset, KIND_STRINGS, u64::MAX)?;
            let mut c = Cursor::new(&payload);
            let sbad = |what: &str| bad(f.offset, format!("strings frame: {what}"));
            let first = c.varint().ok_or_else(|| sbad("truncated"))?;
            let count = c.varint().ok_or_else(|| sbad("truncated"))?;
            if first != self.string_spans.len() as u64 || count != f.count {
                return Err(sbad("string identifiers out of sequence"));
            }
            for _ in 0..count {
                let s = c.bytes().ok_or_else(|| sbad("truncated string"))?;
                let start = self.strings.len();
                if start + s.len() > u32::MAX as usize {
                    return Err(sbad("string table larger than 4 GiB"));
                }
                self.strings.extend_from_slice(s);
                self.string_spans.push((start as u32, s.len() as u32));
            }
            if !c.at_end() {
                return Err(sbad("trailing bytes"));
            }
        }
        Ok(())
    }

    fn load_records(&mut self) -> Result<(), FormatError> {
        let b = self.data.bytes();
        let mut records = Records::default();
        for f in self.frames.iter().filter(|f| f.kind == KIND_MODEL) {
            let payload = frame(b, f.offset, KIND_MODEL, u64::MAX)?;
            if f.first != records.recs.len() as u64 {
                return Err(bad(f.offset, "model frame: records out of sequence"));
            }
            let before = records.recs.len();
            records
                .load(&payload, &self.defs)
                .ok_or_else(|| bad(f.offset, "model frame: malformed record"))?;
            if records.recs.len() as u64 != f.first + f.count {
                return Err(bad(f.offset, "model frame: count does not match the index"));
            }
            for (i, r) in records.recs.iter().enumerate().skip(before) {
                match r.tag {
                    REC_VALUE | REC_STREAM if !self.interned() => {
                        return Err(bad(f.offset, "model frame: handle records in plain mode"))
                    }
                    REC_STREAM => self.streams.push(StreamRec {
                        def: r.def,
                        container: r.container,
                        ty: r.ty,
                        record: i as u64,
                    }),
                    _ => {}
                }
            }
        }
        self.records = records;
        Ok(())
    }

    /// The payload of the file's summary frame (see the format's
    /// specification, "Summary frame") and the size of the file without
    /// that frame; `None` when it has none, or one that is damaged (its
    /// checksum fails, it does not fill the room before the trailer).
    pub fn summary(&self) -> Option<(Vec<u8>, u64)> {
        let at = self.summary_at?;
        let b = self.bytes();
        let t = (b.len() - TRAILER_LEN) as u64;
        let o = usize::try_from(at).ok()?;
        let stored = u32::from_le_bytes(b.get(o + 4..o + 8)?.try_into().ok()?) as u64;
        if at + FRAME_HEADER_LEN as u64 + stored != t {
            return None;
        }
        let payload = frame(b, at, KIND_SUMMARY, t).ok()?;
        Some((payload, at + TRAILER_LEN as u64))
    }

    /// Every event definition, in declaration order.
    pub fn definitions(&self) -> &[EventDef] {
        &self.defs
    }

    /// Are strings interned (entity events stored with handles)?
    pub fn interned(&self) -> bool {
        self.flags & FLAG_INTERNED != 0
    }

    /// Was the text read with quotes stripped?
    pub fn quotes_stripped(&self) -> bool {
        self.flags & FLAG_STRIPPED != 0
    }

    /// How its variable values are read: as `strtof` reads Pajé text, or
    /// exactly (a file made from a reader whose numbers are the source's
    /// own, such as OTF2's).
    pub fn precision(&self) -> Precision {
        if self.flags & FLAG_EXACT_VALUES != 0 {
            Precision::Double
        } else {
            Precision::Float32
        }
    }

    /// Number of events.
    pub fn events(&self) -> u64 {
        self.events
    }

    /// Lines of the text the file was made from.
    pub fn text_lines(&self) -> u64 {
        self.text_lines
    }

    /// Size of the file in bytes.
    pub fn len(&self) -> u64 {
        self.data.bytes().len() as u64
    }

    /// True for an empty file (never: a valid file has a header).
    pub fn is_empty(&self) -> bool {
        self.data.bytes().is_empty()
    }

    /// Number of events frames.
    pub fn blocks(&self) -> usize {
        self.frames.iter().filter(|f| f.kind == KIND_EVENTS).count()
    }

    /// Number of keyframes.
    pub fn keyframes(&self) -> usize {
        self.frames
            .iter()
            .filter(|f| f.kind == KIND_KEYFRAME)
            .count()
    }

    /// Number of distinct strings (interned mode).
    pub fn strings(&self) -> usize {
        self.string_spans.len()
    }

    /// Final end time of every container (root first), as the whole trace
    /// gives them: what a simulation of a window does not see.
    pub fn container_ends(&self) -> &[f64] {
        &self.container_ends
    }

    pub(crate) fn bytes(&self) -> &[u8] {
        self.data.bytes()
    }

    pub(crate) fn events_frames(&self) -> Vec<Frame> {
        self.frames
            .iter()
            .filter(|f| f.kind == KIND_EVENTS)
            .copied()
            .collect()
    }

    pub(crate) fn string(&self, id: u64) -> Option<&[u8]> {
        let &(s, l) = self.string_spans.get(usize::try_from(id).ok()?)?;
        Some(&self.strings[s as usize..(s + l) as usize])
    }

    pub(crate) fn string_count(&self) -> u32 {
        self.string_spans.len() as u32
    }
}
