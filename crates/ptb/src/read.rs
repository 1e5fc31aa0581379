//! The reader: `mmap`, checks, and the events in order for the reference
//! simulation ([`PtbFile::read`]); the parallel replay is in `replay.rs`.

use std::io;
use std::path::Path;

use hashbrown::HashMap;
use trama_events::{Event, EventDef, EventKind, Field, Span};
use trama_sim::{ContainerId, HandleEvent, TypeId, ValueId, ValueRef};

use crate::decimal;
use crate::format::*;
use crate::model::Records;
use crate::varint::{self, Cursor, Fixed};

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

/// Where each field of an entity event is stored, as a reader decodes it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Slot {
    Time,
    /// Container and type: given by the stream (interned mode).
    Container,
    Type,
    Other,
    Value,
    Number,
    Key,
    Str,
    /// The k-th user-defined field (stored in `STRS`).
    Extra(u8),
}

/// How a replay decodes the events of one definition: a handler per kind
/// when the layout has a fixed path ([`Fast`]), else field by field.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Op {
    Model,
    /// An entity definition of more words than a Pajé event line may
    /// hold: no event of it can come from a text, and one stored is an
    /// error.
    Wide,
    Generic,
    SetState,
    PushState,
    PopState,
    ResetState,
    NewEvent,
    Variable,
    Link,
}

/// How the events of one definition are stored.
#[derive(Clone, Debug)]
pub(crate) struct Plan {
    pub kind: EventKind,
    pub op: Op,
    /// Entity events stored with handles (interned mode).
    pub handles: bool,
    /// The fields after the identifier.
    pub slots: Vec<Slot>,
    /// The fixed decoding path of the replay, when the layout allows one.
    pub fast: Option<Fast>,
}

pub(crate) const NO: u8 = u8::MAX;

/// The fixed path an entity event of one definition (interned mode) is
/// decoded along: its time, its value and other end (`HANDLES`, in field
/// order), its number, its link, then its strings. Only for definitions
/// whose texts stored in `STRS` come in that order (a time or number
/// stored as text comes first).
#[derive(Clone, Copy, Debug)]
pub(crate) struct Fast {
    pub timed: bool,
    /// Handles to read, and where the value and the other end are among
    /// them ([`NO`]: absent).
    pub nh: u8,
    pub vi: u8,
    pub oi: u8,
    pub number: bool,
    pub key: bool,
    /// The other strings: 0 for a standard field, k+1 for the k-th
    /// user-defined one.
    pub nstrs: u8,
    pub strs: [u8; 24],
}

/// The path of definitions without one (their handler is the generic one).
pub(crate) const NO_FAST: Fast = Fast {
    timed: false,
    nh: 0,
    vi: NO,
    oi: NO,
    number: false,
    key: false,
    nstrs: 0,
    strs: [0; 24],
};

fn fast_plan(slots: &[Slot]) -> Option<Fast> {
    let mut f = NO_FAST;
    let mut strings = false;
    for &s in slots {
        match s {
            Slot::Time if strings || f.number || f.timed => return None,
            Slot::Time => f.timed = true,
            Slot::Number if strings || f.number => return None,
            Slot::Number => f.number = true,
            Slot::Container | Slot::Type => {}
            Slot::Value | Slot::Other => {
                let at = if s == Slot::Value {
                    &mut f.vi
                } else {
                    &mut f.oi
                };
                if *at != NO {
                    return None;
                }
                *at = f.nh;
                f.nh += 1;
            }
            Slot::Key if f.key => return None,
            Slot::Key => f.key = true,
            Slot::Str | Slot::Extra(_) => {
                strings = true;
                if f.nstrs as usize == f.strs.len() {
                    return None;
                }
                f.strs[f.nstrs as usize] = match s {
                    Slot::Extra(k) => k.checked_add(1)?,
                    _ => 0,
                };
                f.nstrs += 1;
            }
        }
    }
    Some(f)
}

/// Why an event of `def`, a definition of too many fields, is refused.
pub(crate) fn wide(def: &EventDef) -> String {
    format!(
        "an event of definition '{}', whose {} words exceed the {MAX_WORDS} of a Pajé event line",
        String::from_utf8_lossy(def.id()),
        def.field_count()
    )
}

fn plan(d: &EventDef, interned: bool) -> Plan {
    let kind = d.kind();
    let model = !is_entity(kind);
    let handles = interned && !model;
    let mut k = 0u8;
    let slots: Vec<Slot> = d.fields()[1..]
        .iter()
        .map(|&(f, _)| {
            if f == Field::Extra {
                k += 1;
                return if handles {
                    Slot::Extra(k - 1)
                } else {
                    Slot::Str
                };
            }
            match role(kind, f, handles) {
                Role::Time => Slot::Time,
                Role::Container => Slot::Container,
                Role::Type => Slot::Type,
                Role::Other => Slot::Other,
                Role::Value => Slot::Value,
                Role::Number => Slot::Number,
                Role::Key => Slot::Key,
                Role::Str => Slot::Str,
            }
        })
        .collect();
    let fast = if handles { fast_plan(&slots) } else { None };
    let op = match (model, fast) {
        (true, _) => Op::Model,
        (false, _) if d.field_count() > MAX_WORDS => Op::Wide,
        (false, None) => Op::Generic,
        (false, Some(f)) => {
            let value = f.vi != NO;
            match kind {
                EventKind::SetState if value => Op::SetState,
                EventKind::PushState if value => Op::PushState,
                EventKind::PopState => Op::PopState,
                EventKind::ResetState => Op::ResetState,
                EventKind::NewEvent if value => Op::NewEvent,
                EventKind::SetVariable | EventKind::AddVariable | EventKind::SubVariable
                    if f.number =>
                {
                    Op::Variable
                }
                EventKind::StartLink | EventKind::EndLink if value && f.oi != NO && f.key => {
                    Op::Link
                }
                _ => Op::Generic,
            }
        }
    };
    Plan {
        kind,
        op,
        handles,
        slots,
        fast,
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
}

/// True when `prefix` starts like a `.ptb` file.
pub fn is_ptb(prefix: &[u8]) -> bool {
    prefix.starts_with(&MAGIC)
}

/// Options of [`PtbFile::read`].
#[derive(Clone, Debug)]
#[non_exhaustive]
pub struct ReadOptions {
    /// Threads decoding frames, besides the caller's, which hands events
    /// to the handler; 0 decodes on the caller's thread.
    pub threads: usize,
    /// When set, the events of each frame are added to it once handed to
    /// the handler (out of [`PtbFile::events`]), for a progress bar.
    pub progress: Option<std::sync::Arc<std::sync::atomic::AtomicU64>>,
}

/// Adds the events of frame `f` to the progress counter, if any.
#[inline]
fn advance(opts: &ReadOptions, f: &Frame) {
    if let Some(p) = &opts.progress {
        p.fetch_add(f.count, std::sync::atomic::Ordering::Relaxed);
    }
}

impl Default for ReadOptions {
    fn default() -> ReadOptions {
        ReadOptions {
            threads: std::thread::available_parallelism().map_or(1, |n| n.get()),
            progress: None,
        }
    }
}

/// An event of a binary trace: given as text (resolved again by the
/// simulator) or by handles.
pub enum Record<'a> {
    /// An event stored as its words.
    Text(Event<'a>),
    /// An entity event stored with handles.
    Handles(HandleRecord<'a>),
}

/// An entity event stored with handles.
pub struct HandleRecord<'a> {
    /// The event, ready for [`trama_sim::Resolver::resolve_handles`].
    pub event: HandleEvent<'a>,
    pub(crate) raw: &'a Rec,
    pub(crate) words: &'a [Span],
    pub(crate) arena: &'a [u8],
}

#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct Rec {
    pub def: u32,
    pub line: u64,
    pub time: f64,
    /// Time as decimal (scale 255: its text is the Time word).
    pub tm: i64,
    pub ts: u8,
    pub handles: bool,
    /// A model event: its record.
    pub model: Option<u32>,
    pub c: u32,
    pub ty: u32,
    /// `u32::MAX`: a new value, named by model record `vrec`.
    pub value: u32,
    pub vrec: u32,
    pub other: u32,
    pub number: f64,
    /// Number as decimal (scale 255: its text is the Value word).
    pub nm: i64,
    pub ns: u8,
    /// Links: for an event completing a link, how many first ends of its
    /// list back that link's is (0: a first end, or an end the simulation
    /// ignores, with its key).
    pub link: u64,
    /// First word in the block's spans (word 0 is the event identifier).
    pub words: u32,
    /// Its run in the frame, and its rank in the run.
    pub run: u32,
    pub nth: u32,
    /// Timed (its definition has a `Time` field).
    pub timed: bool,
}

#[derive(Default)]
pub(crate) struct Block {
    pub recs: Vec<Rec>,
    /// The model records the frame uses: from `first_model` to `model_end`.
    pub first_model: u64,
    pub model_end: u64,
    pub arena: Vec<u8>,
    pub spans: Vec<Span>,
    /// Decompressed payload (kept to reuse its allocation).
    raw: Vec<u8>,
}

/// The header of an events frame and its columns.
pub(crate) struct Columns<'a> {
    pub count: u64,
    pub first_line: u64,
    pub first_model: u64,
    /// No model record takes effect in the frame ([`FRAME_GROUPED`]).
    pub grouped: bool,
    /// Trace order is the merge of the runs by time ([`FRAME_MERGED`]).
    pub merged: bool,
    pub t_min: f64,
    pub t_max: f64,
    pub cols: [Cursor<'a>; NCOLS],
    /// Widths of the fixed-width columns `ORDER` (0 when absent: one
    /// run), `STREAMS` and `HANDLES`.
    pub order_width: usize,
    pub streams_width: usize,
    pub handles_width: usize,
    pub runs: Vec<RunSpan>,
}

/// Where one run of an events frame lies: per column of [`RUN_COLS`], its
/// first and past-the-end byte offsets in the payload (in the column's own
/// data for `TIMES`).
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct RunSpan {
    pub count: u64,
    pub start: [usize; NCOLS],
    pub end: [usize; NCOLS],
}

/// A run's cursors, for [`PtbFile::read`].
struct RunCursors<'a> {
    /// Events decoded so far.
    count: u32,
    streams: Fixed<'a>,
    handles: Fixed<'a>,
    c: [Cursor<'a>; NCOLS],
    prev_time: Option<(i64, u8)>,
}

/// The keys of the links pending while reading in order, by list
/// (container, type) and number, and the links numbered per list.
#[derive(Default)]
struct PendingKeys {
    keys: HashMap<(u32, u32, u64), Box<[u8]>>,
    links: HashMap<(u32, u32), u64>,
    /// The key of the last second end delivered.
    current: Box<[u8]>,
}

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
    /// Opens a file through `mmap`.
    pub fn open(path: &Path) -> io::Result<Result<PtbFile, FormatError>> {
        PtbFile::from_file(&std::fs::File::open(path)?)
    }

    /// Maps a file already opened.
    pub fn from_file(file: &std::fs::File) -> io::Result<Result<PtbFile, FormatError>> {
        // SAFETY: the map is read-only; a file changed underneath is the
        // user's doing, and every byte read is checked (CRC, bounds).
        // Pages are mapped up front (one system call instead of a fault
        // per page as the reading threads reach them).
        let map = unsafe { memmap2::MmapOptions::new().populate().map(file)? };
        Ok(PtbFile::parse(Data::Mmap(map)))
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
        if version != VERSION {
            return Err(bad(
                8,
                format!("format version {version}, this trama reads version {VERSION}"),
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
    /// index and each frame's header describe it (nothing is decompressed).
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
        Ok(out)
    }

    /// The version of the format the file was written in.
    pub fn version(&self) -> u16 {
        VERSION
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

    /// The line of the `nth` event of run `run` of an events frame (for
    /// messages; 0 when the frame cannot be decoded).
    pub(crate) fn line_in_run(&self, f: &Frame, run: usize, nth: u64) -> u64 {
        let mut block = Block::default();
        let mut cursor = u64::MAX;
        if self.decode(f, &mut block, &mut cursor).is_err() {
            return 0;
        }
        block
            .recs
            .iter()
            .find(|r| r.run as usize == run && r.nth as u64 == nth)
            .map_or(0, |r| r.line)
    }

    /// Hands every event to `handler`, in trace order. Frames are decoded
    /// on `opts.threads` threads.
    pub fn read<E>(
        &self,
        opts: &ReadOptions,
        mut handler: impl FnMut(Record<'_>) -> Result<(), E>,
    ) -> Result<(), ReadError<E>> {
        let blocks = self.events_frames();
        let workers = opts.threads.min(blocks.len());
        let mut cursor = 0u64;
        let mut keys = PendingKeys::default();
        if workers == 0 {
            let mut block = Block::default();
            for f in &blocks {
                self.decode(f, &mut block, &mut cursor)?;
                self.deliver(f, &block, &mut keys, &mut handler)?;
                advance(opts, f);
            }
            return self.check_records_used(cursor).map_err(ReadError::from);
        }
        // Each worker decodes every `workers`-th frame, taking the model
        // record it starts at from its header; the sequence is checked here.
        std::thread::scope(|scope| {
            let mut rxs = Vec::new();
            let mut recycle = Vec::new();
            for w in 0..workers {
                let (tx, rx) = crossbeam_channel::bounded::<Result<Block, FormatError>>(2);
                let (rtx, rrx) = crossbeam_channel::bounded::<Block>(3);
                rxs.push(rx);
                recycle.push(rtx);
                let blocks = &blocks;
                std::thread::Builder::new()
                    .name(format!("trama-ptb-{w}"))
                    .spawn_scoped(scope, move || {
                        for f in blocks.iter().skip(w).step_by(workers) {
                            let mut block = rrx.try_recv().unwrap_or_default();
                            let mut at = u64::MAX;
                            let r = self.decode(f, &mut block, &mut at).map(|_| block);
                            let failed = r.is_err();
                            if tx.send(r).is_err() || failed {
                                return;
                            }
                        }
                    })
                    .expect("cannot start a decoding thread");
            }
            for (i, f) in blocks.iter().enumerate() {
                let w = i % workers;
                let block = match rxs[w].recv() {
                    Ok(r) => r?,
                    Err(_) => return Err(bad(f.offset, "decoding thread stopped").into()),
                };
                if block.first_model != cursor {
                    return Err(bad(f.offset, "events frame: model records out of sequence").into());
                }
                cursor = block.model_end;
                let r = self.deliver(f, &block, &mut keys, &mut handler);
                advance(opts, f);
                let _ = recycle[w].try_send(block);
                if let Err(e) = r {
                    // Dropping the receivers stops the workers.
                    drop(rxs);
                    return Err(e);
                }
            }
            self.check_records_used(cursor).map_err(ReadError::from)
        })
    }

    fn check_records_used(&self, used: u64) -> Result<(), FormatError> {
        if used != self.records.recs.len() as u64 {
            let off = self
                .frames
                .iter()
                .rfind(|f| f.kind == KIND_MODEL)
                .map_or(0, |f| f.offset);
            return Err(bad(
                off,
                format!(
                    "{} model records, but the events use {used}",
                    self.records.recs.len()
                ),
            ));
        }
        Ok(())
    }

    fn deliver<E>(
        &self,
        f: &Frame,
        block: &Block,
        keys: &mut PendingKeys,
        handler: &mut impl FnMut(Record<'_>) -> Result<(), E>,
    ) -> Result<(), ReadError<E>> {
        let mut extras: [&[u8]; 32] = [&[]; 32];
        for rec in &block.recs {
            if let Some(r) = rec.model {
                let m = &self.records.recs[r as usize];
                let ev = self.records.event(m, &self.defs);
                handler(Record::Text(ev)).map_err(ReadError::Handler)?;
                continue;
            }
            let def = &self.defs[rec.def as usize];
            let n = def.field_count();
            let words = &block.spans[rec.words as usize..rec.words as usize + n];
            if !rec.handles {
                let ev = Event::new(def, rec.line, &block.arena, words);
                handler(Record::Text(ev)).map_err(ReadError::Handler)?;
                continue;
            }
            let word = |i: usize| {
                let s = words[i];
                &block.arena[s.start as usize..s.end as usize]
            };
            let mut nx = 0;
            for &slot in def.extra_slots() {
                extras[nx] = word(slot as usize);
                nx += 1;
            }
            let value = if rec.value == u32::MAX {
                ValueRef::New(self.records.name(&self.records.recs[rec.vrec as usize]))
            } else {
                ValueRef::Id(ValueId(rec.value))
            };
            let key: &[u8] = match def.slot(Field::Key) {
                Some(_) if rec.link > 0 => {
                    let n = keys.links.get(&(rec.c, rec.ty)).copied().unwrap_or(0);
                    keys.current = n
                        .checked_sub(rec.link)
                        .and_then(|n| keys.keys.remove(&(rec.c, rec.ty, n)))
                        .ok_or_else(|| {
                            bad(
                                f.offset,
                                format!(
                                    "events frame: line {}: no pending link {} back",
                                    rec.line, rec.link
                                ),
                            )
                        })?;
                    &keys.current
                }
                Some(i) => {
                    let n = keys.links.entry((rec.c, rec.ty)).or_insert(0);
                    keys.keys.insert((rec.c, rec.ty, *n), word(i).into());
                    *n += 1;
                    word(i)
                }
                None => &[],
            };
            let event = HandleEvent {
                def,
                kind: def.kind(),
                line: rec.line,
                time: rec.time,
                container: ContainerId(rec.c),
                ty: TypeId(rec.ty),
                value,
                other: ContainerId(rec.other),
                number: rec.number,
                key,
                extras: &extras[..nx],
            };
            handler(Record::Handles(HandleRecord {
                event,
                raw: rec,
                words,
                arena: &block.arena,
            }))
            .map_err(ReadError::Handler)?;
        }
        Ok(())
    }

    pub(crate) fn columns<'a>(
        &self,
        f: &Frame,
        payload: &'a [u8],
    ) -> Result<Columns<'a>, FormatError> {
        self.columns_split(f, payload, &[])
    }

    /// The columns of an events frame whose payload is `payload` followed
    /// by `tail` (see [`frame_split`]): a tail is the data of `TIMES`.
    pub(crate) fn columns_split<'a>(
        &self,
        f: &Frame,
        payload: &'a [u8],
        tail: &'a [u8],
    ) -> Result<Columns<'a>, FormatError> {
        let ebad = |what: String| bad(f.offset, format!("events frame: {what}"));
        let mut head = Cursor::new(payload);
        let (count, first_line, first_model, flags, t_min, t_max, nruns) = (|| {
            Some((
                head.varint()?,
                head.varint()?,
                head.varint()?,
                head.varint()?,
                head.f64()?,
                head.f64()?,
                head.varint()?,
            ))
        })()
        .ok_or_else(|| ebad("truncated header".into()))?;
        if count > 1 << 16
            || count != f.count
            || first_line != f.first
            || t_min.to_bits() != f.t_min.to_bits()
            || t_max.to_bits() != f.t_max.to_bits()
        {
            return Err(ebad("header does not match the index".into()));
        }
        if flags & !(FRAME_GROUPED | FRAME_MERGED) != 0
            || flags & FRAME_MERGED != 0 && flags & FRAME_GROUPED == 0
        {
            return Err(ebad(format!("unknown flags {flags}")));
        }
        let merged = flags & FRAME_MERGED != 0;
        if nruns == 0 || nruns > count {
            return Err(ebad(format!("{nruns} runs for {count} events")));
        }
        // Per run: events, handles, then the bytes of TIMES … LINKS.
        let mut lens = Vec::with_capacity(nruns as usize);
        for _ in 0..nruns {
            let mut l = [0u64; 7];
            for x in &mut l {
                *x = head
                    .varint()
                    .filter(|&v| v <= payload.len() as u64 * 8)
                    .ok_or_else(|| ebad("truncated run table".into()))?;
            }
            if l[0] == 0 {
                return Err(ebad("an empty run".into()));
            }
            lens.push(l);
        }
        let mut cols: [Cursor<'_>; NCOLS] = [Cursor::new(&[]); NCOLS];
        for i in STORED_COLS {
            let data = if i == TIMES && !tail.is_empty() {
                head.varint()
                    .filter(|&n| n == tail.len() as u64 && head.at_end())
                    .map(|_| tail)
            } else {
                head.bytes()
            }
            .ok_or_else(|| ebad(format!("column {} truncated", COLUMN_NAMES[i])))?;
            cols[i] = Cursor::new(data);
        }
        if !head.at_end() {
            return Err(ebad("trailing bytes".into()));
        }
        // Offsets in the payload; in the column itself for TIMES (which
        // may lie apart).
        let base = payload.as_ptr() as usize;
        let start = |col: usize| match col {
            TIMES => 0,
            _ => cols[col].data().as_ptr() as usize - base,
        };
        // Fixed-width columns: their width byte, then `n` values.
        let width = |col: usize, n: u64| -> Result<usize, FormatError> {
            let d = cols[col].data();
            match d.first() {
                Some(&w) if matches!(w, 1 | 2 | 4) && (d.len() - 1) as u64 == n * w as u64 => {
                    Ok(w as usize)
                }
                _ => Err(ebad(format!(
                    "column {}: bad width or length",
                    COLUMN_NAMES[col]
                ))),
            }
        };
        let order_width = if nruns == 1 {
            if !cols[ORDER].data().is_empty() {
                return Err(ebad("column ORDER: present with one run".into()));
            }
            0
        } else if merged {
            // How ties go.
            0
        } else {
            width(ORDER, count)?
        };
        let total = |k: usize| lens.iter().try_fold(0u64, |a, l| a.checked_add(l[k]));
        if total(0) != Some(count) {
            return Err(ebad("runs do not hold the frame's events".into()));
        }
        let streams_width = width(STREAMS, count)?;
        let handles_width = width(HANDLES, total(1).unwrap_or(u64::MAX))?;
        for (k, &col) in RUN_COLS.iter().enumerate().skip(2) {
            if total(k) != Some(cols[col].data().len() as u64) {
                return Err(ebad(format!(
                    "column {}: runs do not add up to its length",
                    COLUMN_NAMES[col]
                )));
            }
        }
        let mut at = [0usize; NCOLS];
        at[STREAMS] = start(STREAMS) + 1;
        at[HANDLES] = start(HANDLES) + 1;
        for &col in &RUN_COLS[2..] {
            at[col] = start(col);
        }
        let runs = lens
            .iter()
            .map(|l| {
                let mut r = RunSpan {
                    count: l[0],
                    start: at,
                    end: at,
                };
                for (k, &col) in RUN_COLS.iter().enumerate() {
                    let unit = match col {
                        STREAMS => streams_width,
                        HANDLES => handles_width,
                        _ => 1,
                    };
                    r.end[col] = at[col] + l[k] as usize * unit;
                    at[col] = r.end[col];
                }
                r
            })
            .collect();
        Ok(Columns {
            count,
            first_line,
            first_model,
            grouped: flags & FRAME_GROUPED != 0,
            merged,
            t_min,
            t_max,
            cols,
            order_width,
            streams_width,
            handles_width,
            runs,
        })
    }

    /// Decodes an events frame for [`PtbFile::read`]. `cursor` is the
    /// model record the frame starts at (`u64::MAX`: take the frame's word
    /// for it, the caller checks the sequence).
    fn decode(&self, f: &Frame, block: &mut Block, cursor: &mut u64) -> Result<(), FormatError> {
        let mut raw = std::mem::take(&mut block.raw);
        let r = self.decode_with(f, block, &mut raw, cursor);
        block.raw = raw;
        r
    }

    fn decode_with(
        &self,
        f: &Frame,
        block: &mut Block,
        raw: &mut Vec<u8>,
        cursor: &mut u64,
    ) -> Result<(), FormatError> {
        let payload = frame_into(self.bytes(), f.offset, KIND_EVENTS, u64::MAX, raw)?;
        let ebad = |what: String| bad(f.offset, format!("events frame: {what}"));
        let cols = self.columns(f, payload)?;
        let (count, first_line, first_model) = (cols.count, cols.first_line, cols.first_model);
        if *cursor == u64::MAX {
            *cursor = first_model;
        } else if *cursor != first_model {
            return Err(ebad("model records out of sequence".into()));
        }
        block.first_model = first_model;
        block.recs.clear();
        block.arena.clear();
        block.spans.clear();
        let interned = self.interned();
        let mut prev_line = first_line.wrapping_sub(1);
        let nrecs = self.records.recs.len() as u64;
        let mut runs: Vec<RunCursors<'_>> = cols
            .runs
            .iter()
            .map(|r| {
                let part = |col: usize| match col {
                    TIMES => &cols.cols[TIMES].data()[r.start[col]..r.end[col]],
                    _ => &payload[r.start[col]..r.end[col]],
                };
                let mut c = [Cursor::new(&[]); NCOLS];
                for &col in &RUN_COLS[2..] {
                    c[col] = Cursor::new(part(col));
                }
                RunCursors {
                    count: 0,
                    streams: Fixed::with_width(part(STREAMS), cols.streams_width),
                    handles: Fixed::with_width(part(HANDLES), cols.handles_width),
                    c,
                    prev_time: None,
                }
            })
            .collect();
        // The run of each event in trace order; merged runs are decoded one
        // after the other, then put in trace order.
        let mut order = match cols.order_width {
            0 => None,
            w => Some(Fixed::with_width(&cols.cols[ORDER].data()[1..], w)),
        };
        let (mut run, mut nth) = (0usize, 0u64);
        for n in 0..count {
            let short =
                |col: usize| ebad(format!("event {n}: column {} too short", COLUMN_NAMES[col]));
            let k = if cols.merged {
                while cols.runs.get(run).is_some_and(|r| nth == r.count) {
                    (run, nth) = (run + 1, 0);
                }
                nth += 1;
                run
            } else {
                order.as_mut().map_or(0, |o| o.get()) as usize
            };
            let rc = runs
                .get_mut(k)
                .ok_or_else(|| ebad(format!("event {n}: no run {k}")))?;
            let v = rc.streams.next().ok_or_else(|| short(STREAMS))? as u64;
            let (line, run, nth) = (0, k as u32, rc.count);
            rc.count += 1;
            if v == 0 {
                let r = *cursor;
                let m = self
                    .records
                    .recs
                    .get(r as usize)
                    .filter(|m| m.tag == REC_EVENT)
                    .ok_or_else(|| {
                        ebad(format!(
                            "event {n}: model record {r} missing or not this event"
                        ))
                    })?;
                *cursor += 1;
                block.recs.push(Rec {
                    def: m.def,
                    line,
                    model: Some(r as u32),
                    run,
                    nth,
                    ..Rec::default()
                });
                continue;
            }
            let mut rec = Rec {
                line,
                run,
                nth,
                words: block.spans.len() as u32,
                ts: TIME_TEXT,
                ns: TIME_TEXT,
                ..Rec::default()
            };
            if interned {
                let s = self
                    .streams
                    .get((v - 1) as usize)
                    .ok_or_else(|| ebad(format!("event {n}: no stream {}", v - 1)))?;
                if s.record == *cursor {
                    *cursor += 1;
                } else if s.record > *cursor {
                    return Err(ebad(format!(
                        "event {n}: stream {} used before its declaration",
                        v - 1
                    )));
                }
                (rec.def, rec.c, rec.ty) = (s.def, s.container, s.ty);
            } else {
                rec.def = u32::try_from(v - 1)
                    .ok()
                    .filter(|&d| (d as usize) < self.defs.len())
                    .ok_or_else(|| ebad(format!("event {n}: no event definition {}", v - 1)))?;
            }
            let plan = &self.plans[rec.def as usize];
            if plan.op == Op::Model {
                return Err(ebad(format!(
                    "event {n}: a model event stored as an entity"
                )));
            }
            if plan.op == Op::Wide {
                return Err(ebad(format!(
                    "event {n}: {}",
                    wide(&self.defs[rec.def as usize])
                )));
            }
            let def = &self.defs[rec.def as usize];
            rec.handles = plan.handles;
            let start = block.arena.len() as u32;
            if !plan.handles {
                block.arena.extend_from_slice(def.id());
            }
            block.spans.push(Span {
                start,
                end: block.arena.len() as u32,
            });
            for &s in &plan.slots {
                let start = block.arena.len() as u32;
                match s {
                    Slot::Time => {
                        rec.timed = true;
                        match self
                            .time(&mut rc.c, &mut rc.prev_time)
                            .ok_or_else(|| ebad(format!("event {n}: bad time in TIMES or STRS")))?
                        {
                            Time::Decimal(m, s) => {
                                rec.tm = m;
                                rec.ts = s;
                                rec.time = decimal::to_f64(m, s);
                                if !plan.handles {
                                    decimal::write(&mut block.arena, m, s);
                                }
                            }
                            Time::Text(t) => {
                                block.arena.extend_from_slice(t);
                                rec.time = trama_num::atof(t);
                            }
                        }
                    }
                    // Given by the stream.
                    Slot::Container | Slot::Type => {}
                    Slot::Other => rec.other = rc.handles.next().ok_or_else(|| short(HANDLES))?,
                    Slot::Value => {
                        let v = rc.handles.next().ok_or_else(|| short(HANDLES))?;
                        if v == 0 {
                            let r = *cursor;
                            let m = (r < nrecs)
                                .then(|| &self.records.recs[r as usize])
                                .filter(|m| m.tag == REC_VALUE)
                                .ok_or_else(|| {
                                    ebad(format!("event {n}: value record {r} missing"))
                                })?;
                            block.arena.extend_from_slice(self.records.name(m));
                            rec.value = u32::MAX;
                            rec.vrec = r as u32;
                            *cursor += 1;
                        } else {
                            rec.value = v - 1;
                        }
                    }
                    Slot::Number => {
                        let v = rc.c[NUMS].varint().ok_or_else(|| short(NUMS))?;
                        if v & 31 == NUM_TEXT {
                            let t = self
                                .get_str(&mut rc.c[STRS], interned)
                                .ok_or_else(|| short(STRS))?;
                            block.arena.extend_from_slice(t);
                            rec.number = trama_num::strtof(t) as f64;
                        } else {
                            let s = (v & 31) as u8;
                            if s > decimal::MAX_SCALE {
                                return Err(ebad(format!("event {n}: bad number scale {s}")));
                            }
                            let m = varint::unzigzag(v >> 5);
                            rec.nm = m;
                            rec.ns = s;
                            rec.number = decimal::to_f32(m, s) as f64;
                        }
                    }
                    Slot::Key => {
                        rec.link = rc.c[LINKS].varint().ok_or_else(|| short(LINKS))?;
                        if rec.link == 0 {
                            let k = rc.c[KEYS].bytes().ok_or_else(|| short(KEYS))?;
                            block.arena.extend_from_slice(k);
                        }
                    }
                    Slot::Str | Slot::Extra(_) => {
                        let t = self
                            .get_str(&mut rc.c[STRS], interned)
                            .ok_or_else(|| short(STRS))?;
                        block.arena.extend_from_slice(t);
                    }
                }
                block.spans.push(Span {
                    start,
                    end: block.arena.len() as u32,
                });
            }
            if block.arena.len() > u32::MAX as usize / 2 {
                return Err(ebad("block larger than 2 GiB".into()));
            }
            block.recs.push(rec);
        }
        if cols.merged {
            let sorted = block
                .recs
                .windows(2)
                .all(|w| w[0].run != w[1].run || w[0].time <= w[1].time);
            if !sorted
                || block
                    .recs
                    .iter()
                    .any(|r| !r.timed || !mergeable_time(r.time))
            {
                return Err(ebad(
                    "merged runs whose times are missing or decrease".into(),
                ));
            }
            let keys: Vec<(f64, u32)> = block.recs.iter().map(|r| (r.time, r.run)).collect();
            let order = merge_runs(&keys, cols.cols[ORDER].data())
                .ok_or_else(|| ebad("column ORDER does not give how the runs' ties go".into()))?;
            let recs = std::mem::take(&mut block.recs);
            block.recs = order.into_iter().map(|i| recs[i]).collect();
        }
        let mut lines = cols.cols[LINES];
        for (n, rec) in block.recs.iter_mut().enumerate() {
            rec.line = prev_line.wrapping_add(1).wrapping_add(
                lines
                    .varint()
                    .ok_or_else(|| ebad(format!("event {n}: column LINES too short")))?,
            );
            prev_line = rec.line;
        }
        if !lines.at_end() {
            return Err(ebad("column LINES has bytes left over".into()));
        }
        for (k, rc) in runs.iter().enumerate() {
            for col in RUN_COLS {
                let left = match col {
                    STREAMS => !rc.streams.exact(),
                    HANDLES => !rc.handles.exact(),
                    _ => !rc.c[col].at_end(),
                };
                if left {
                    return Err(ebad(format!(
                        "run {k}: column {} has bytes left over",
                        COLUMN_NAMES[col]
                    )));
                }
            }
        }
        block.model_end = *cursor;
        Ok(())
    }

    #[inline]
    fn get_str<'a>(&'a self, c: &mut Cursor<'a>, interned: bool) -> Option<&'a [u8]> {
        if interned {
            self.string(c.varint()?)
        } else {
            c.bytes()
        }
    }

    /// Decodes a time: a decimal, or its text (in `STRS`).
    fn time<'a>(
        &'a self,
        c: &mut [Cursor<'a>; NCOLS],
        prev: &mut Option<(i64, u8)>,
    ) -> Option<Time<'a>> {
        let v = c[TIMES].varint()?;
        if v & 1 == 0 {
            let (pm, ps) = (*prev)?;
            let m = pm.wrapping_add(varint::unzigzag(v >> 1));
            *prev = Some((m, ps));
            return Some(Time::Decimal(m, ps));
        }
        let s = c[TIMES].byte()?;
        if s == TIME_TEXT {
            return Some(Time::Text(self.get_str(&mut c[STRS], self.interned())?));
        }
        if s > decimal::MAX_SCALE {
            return None;
        }
        let m = varint::unzigzag(c[TIMES].varint()?);
        *prev = Some((m, s));
        Some(Time::Decimal(m, s))
    }
}

/// The order of two events of merged runs, by (time, run) (times are
/// never NaN nor -0 there, see [`mergeable_time`]).
pub(crate) fn merge_order(a: (f64, u32), b: (f64, u32)) -> std::cmp::Ordering {
    a.0.partial_cmp(&b.0)
        .unwrap_or(std::cmp::Ordering::Equal)
        .then(a.1.cmp(&b.1))
}

/// Can a merged run hold this time (equal times are then the same bits)?
#[inline]
pub(crate) fn mergeable_time(t: f64) -> bool {
    !t.is_nan() && t.to_bits() != (-0.0f64).to_bits()
}

/// The order of merged runs: `keys` holds each event's (time, run) in run
/// order, each run's times never decreasing; the result lists positions in
/// `keys`. Events go by time; where the heads of several runs have the same
/// time, the next entry of `ties` names the run to take. `None` when `ties`
/// does not match: an entry missing, naming a run with no event left at
/// that time, or left over at the end.
pub(crate) fn merge_runs(keys: &[(f64, u32)], ties: &[u8]) -> Option<Vec<usize>> {
    let mut idx: Vec<usize> = (0..keys.len()).collect();
    // Stable: within a time, by run, then rank in the run.
    idx.sort_by(|&a, &b| merge_order(keys[a], keys[b]));
    let mut ties = Cursor::new(ties);
    let mut out = Vec::with_capacity(keys.len());
    let mut segs: Vec<(u32, usize, usize)> = Vec::new();
    let mut i = 0;
    while i < idx.len() {
        let t = keys[idx[i]].0;
        let mut j = i + 1;
        while j < idx.len() && keys[idx[j]].0 == t {
            j += 1;
        }
        // The group's runs: (run, next, end) over idx[i..j].
        segs.clear();
        for n in i..j {
            let k = keys[idx[n]].1;
            match segs.last_mut() {
                Some(s) if s.0 == k => s.2 = n + 1,
                _ => segs.push((k, n, n + 1)),
            }
        }
        let mut live = segs.len();
        for _ in i..j {
            let pick = if live > 1 {
                let want = ties.varint()?;
                segs.iter().position(|s| s.1 < s.2 && want == s.0 as u64)?
            } else {
                segs.iter().position(|s| s.1 < s.2)?
            };
            let s = &mut segs[pick];
            out.push(idx[s.1]);
            s.1 += 1;
            if s.1 == s.2 {
                live -= 1;
            }
        }
        i = j;
    }
    ties.at_end().then_some(out)
}

/// A decoded time.
enum Time<'a> {
    Decimal(i64, u8),
    Text(&'a [u8]),
}

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
    if crc32fast::hash(payload) != crc {
        return Err(bad(offset, "checksum mismatch: the frame is corrupted"));
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
            out.reserve(raw);
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

/// Decompresses the zstd frames `z` into `out`, which must come to exactly
/// `raw` bytes.
fn unzstd(z: &[u8], raw: usize, out: &mut Vec<u8>) -> Result<(), String> {
    out.clear();
    out.reserve(raw);
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

#[cfg(test)]
mod tests {
    use super::merge_runs;

    #[test]
    fn ties_must_match_the_runs() {
        // Run 0 at positions 0-1, run 1 at 2-3; both at times 1 and 2.
        let keys = [(1.0, 0), (2.0, 0), (1.0, 1), (2.0, 1)];
        // Each time, the first pick is between two runs (one entry), the
        // second is forced.
        assert_eq!(merge_runs(&keys, &[1, 0]), Some(vec![2, 0, 1, 3]));
        assert_eq!(merge_runs(&keys, &[0, 1]), Some(vec![0, 2, 3, 1]));
        assert_eq!(merge_runs(&keys, &[1]), None, "an entry missing");
        assert_eq!(merge_runs(&keys, &[5, 0]), None, "no such run");
        assert_eq!(merge_runs(&keys, &[1, 0, 0]), None, "an entry left over");
        // No ties: no entries.
        assert_eq!(merge_runs(&[(1.0, 0), (2.0, 1)], &[]), Some(vec![0, 1]));
        assert_eq!(merge_runs(&[(1.0, 0), (2.0, 1)], &[0]), None);
    }
}
