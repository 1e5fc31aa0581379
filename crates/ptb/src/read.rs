//! The reader: `mmap`, checks, parallel decoding of events frames.

use std::io;
use std::path::Path;

use trama_events::{Event, EventDef, EventKind, Field, Span};
use trama_sim::{ContainerId, HandleEvent, TypeId, ValueId, ValueRef};

use crate::decimal;
use crate::format::*;
use crate::varint::{self, Cursor};

/// A malformed, truncated or corrupted file: what is wrong and where.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("byte {offset}: {what}")]
pub struct FormatError {
    /// Byte offset in the file of the frame (or field) at fault.
    pub offset: u64,
    /// What is wrong.
    pub what: String,
}

fn bad(offset: u64, what: impl Into<String>) -> FormatError {
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

/// One index entry.
#[derive(Clone, Copy, Debug)]
struct Frame {
    kind: u8,
    offset: u64,
    count: u64,
    first: u64,
    t_min: f64,
    t_max: f64,
    /// Events frames: the earliest start of the entities open at its end.
    open_min: f64,
}

/// An open `.ptb` file: header, definitions, index and string table are
/// read and checked; events are decoded by [`PtbFile::read`].
pub struct PtbFile {
    data: Data,
    flags: u16,
    defs: Vec<EventDef>,
    frames: Vec<Frame>,
    strings: Vec<u8>,
    string_spans: Vec<(u32, u32)>,
    text_lines: u64,
    events: u64,
    /// Per definition: the role of each field (after the identifier), as
    /// stored (with handles in interned mode for entity events).
    plans: Vec<Vec<Role>>,
    /// Final end time of every container, root first.
    container_ends: Vec<f64>,
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
}

impl Default for ReadOptions {
    fn default() -> ReadOptions {
        ReadOptions {
            threads: std::thread::available_parallelism().map_or(1, |n| n.get()),
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
    /// A value created by a first use before a keyframe: declare it (with
    /// [`trama_sim::Resolver::declare_value`]) so that handles stay the same.
    Value {
        /// Its type.
        ty: TypeId,
        /// Its identifier.
        name: &'a [u8],
    },
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
    pub c: u32,
    pub ty: u32,
    /// `u32::MAX`: a new value named by the Value word.
    pub value: u32,
    pub other: u32,
    pub number: f64,
    /// Number as decimal (scale 255: its text is the Value word).
    pub nm: i64,
    pub ns: u8,
    /// First word in the block's spans (word 0 is the event identifier).
    pub words: u32,
    /// Event kind of a handle record (a keyframe may restore a variable's
    /// value with `PajeSetVariable` whatever event started it).
    pub kind: u8,
    /// A value declaration (keyframes): type `ty`, name in word 0.
    pub decl: bool,
}

#[derive(Default)]
pub(crate) struct Block {
    pub recs: Vec<Rec>,
    pub arena: Vec<u8>,
    pub spans: Vec<Span>,
    /// Decompressed payload (kept to reuse its allocation).
    raw: Vec<u8>,
}

impl PtbFile {
    /// Opens a file through `mmap`.
    pub fn open(path: &Path) -> io::Result<Result<PtbFile, FormatError>> {
        let file = std::fs::File::open(path)?;
        // SAFETY: the map is read-only; a file changed underneath is the
        // user's doing, and every byte read is checked (CRC, bounds).
        let map = unsafe { memmap2::Mmap::map(&file)? };
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
                || !matches!(e.kind, KIND_STRINGS | KIND_EVENTS | KIND_KEYFRAME)
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
        let mut file = PtbFile {
            data,
            flags,
            defs,
            frames,
            strings: Vec::new(),
            string_spans: Vec::new(),
            text_lines,
            events,
            plans: Vec::new(),
            container_ends,
        };
        let interned = file.interned();
        file.plans = file
            .defs
            .iter()
            .map(|d| {
                let handles = interned && is_entity(d.kind());
                d.fields()[1..]
                    .iter()
                    .map(|&(f, _)| role(d.kind(), f, handles))
                    .collect()
            })
            .collect();
        file.load_strings()?;
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

    /// Number of distinct strings (interned mode).
    pub fn strings(&self) -> usize {
        self.string_spans.len()
    }

    /// Hands every event to `handler`, in trace order. Frames are decoded
    /// on `opts.threads` threads.
    pub fn read<E>(
        &self,
        opts: &ReadOptions,
        mut handler: impl FnMut(Record<'_>) -> Result<(), E>,
    ) -> Result<(), ReadError<E>> {
        let blocks: Vec<Frame> = self
            .frames
            .iter()
            .filter(|f| f.kind == KIND_EVENTS)
            .copied()
            .collect();
        let workers = opts.threads.min(blocks.len());
        if workers == 0 {
            let mut block = Block::default();
            for f in &blocks {
                self.decode(f, &mut block)?;
                self.deliver(&block, &mut handler)?;
            }
            return Ok(());
        }
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
                            let r = self.decode(f, &mut block).map(|_| block);
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
                let r = self.deliver(&block, &mut handler);
                let _ = recycle[w].try_send(block);
                if let Err(e) = r {
                    // Dropping the receivers stops the workers.
                    drop(rxs);
                    return Err(e);
                }
            }
            Ok(())
        })
    }

    /// Final end time of every container (root first), as the whole trace
    /// gives them: what a simulation of a window does not see.
    pub fn container_ends(&self) -> &[f64] {
        &self.container_ends
    }

    /// Hands over what a simulation needs for the entities that overlap
    /// `[start, end]`: the keyframe before the first block that reaches
    /// `start`, the blocks from there on until no entity that started by
    /// `end` is still open, then the records that create and destroy the
    /// containers after that point. Entities outside the window come out
    /// incomplete (and container end times must be taken from
    /// [`PtbFile::container_ends`]). Returns (blocks read, blocks).
    pub fn read_window<E>(
        &self,
        opts: &ReadOptions,
        start: f64,
        end: f64,
        mut handler: impl FnMut(Record<'_>) -> Result<(), E>,
    ) -> Result<(usize, usize), ReadError<E>> {
        let blocks: Vec<Frame> = self
            .frames
            .iter()
            .filter(|f| f.kind == KIND_EVENTS)
            .copied()
            .collect();
        let n = blocks.len();
        let first = blocks.iter().position(|b| b.t_max >= start).unwrap_or(n);
        let keyframe = self
            .frames
            .iter()
            .rfind(|f| f.kind == KIND_KEYFRAME && f.first as usize <= first);
        let begin = keyframe.map_or(0, |k| k.first as usize);
        // No block after `last` holds a time up to `end`.
        let last = blocks.iter().rposition(|b| b.t_min <= end).unwrap_or(0);
        let mut block = Block::default();
        let mut last_line = 0;
        if let Some(k) = keyframe {
            self.decode_keyframe(k, &mut block, 0)?;
            self.deliver(&block, &mut handler)?;
        }
        let _ = opts;
        let mut read = 0;
        let mut stopped = false;
        for (b, f) in blocks.iter().enumerate().skip(begin) {
            self.decode(f, &mut block)?;
            self.deliver(&block, &mut handler)?;
            read += 1;
            last_line = block.recs.last().map_or(last_line, |r| r.line);
            if b >= last && f.open_min > end && b + 1 < n {
                stopped = true;
                break;
            }
        }
        if stopped {
            // The containers created and destroyed afterwards: from the
            // last keyframe, which lists every model record.
            if let Some(k) = self.frames.iter().rfind(|f| f.kind == KIND_KEYFRAME) {
                self.decode_keyframe(k, &mut block, last_line)?;
                block.recs.retain(|r| !r.handles);
                self.deliver(&block, &mut handler)?;
            }
        }
        Ok((read, n))
    }

    /// Decodes a keyframe into `block`; with `after` > 0, only its model
    /// records of lines after `after`.
    fn decode_keyframe(&self, f: &Frame, block: &mut Block, after: u64) -> Result<(), FormatError> {
        let payload = frame(self.data.bytes(), f.offset, KIND_KEYFRAME, u64::MAX)?;
        let kbad = |what: &str| bad(f.offset, format!("keyframe: {what}"));
        let mut c = Cursor::new(&payload);
        let _block = c.varint().ok_or_else(|| kbad("truncated"))?;
        let count = c.varint().ok_or_else(|| kbad("truncated"))?;
        block.recs.clear();
        block.arena.clear();
        block.spans.clear();
        let push = |block: &mut Block, bytes: &[u8]| {
            let start = block.arena.len() as u32;
            block.arena.extend_from_slice(bytes);
            block.spans.push(Span {
                start,
                end: block.arena.len() as u32,
            });
        };
        for _ in 0..count {
            let tag = c.byte().ok_or_else(|| kbad("truncated"))?;
            let words = block.spans.len() as u32;
            match tag {
                crate::keyframe::REC_TEXT => {
                    let (def_idx, line, nwords) = (|| Some((c.u32()?, c.varint()?, c.varint()?)))()
                        .ok_or_else(|| kbad("truncated record"))?;
                    let def = self
                        .defs
                        .get(def_idx as usize)
                        .ok_or_else(|| kbad("no such event definition"))?;
                    if nwords + 1 != def.field_count() as u64 {
                        return Err(kbad("record does not match its definition"));
                    }
                    push(block, def.id());
                    for _ in 0..nwords {
                        let w = c.bytes().ok_or_else(|| kbad("truncated record"))?;
                        push(block, w);
                    }
                    if line > after {
                        block.recs.push(Rec {
                            def: def_idx,
                            line,
                            words,
                            kind: def.kind() as u8,
                            ..Rec::default()
                        });
                    }
                }
                crate::keyframe::REC_VALUE => {
                    let (ty, name, line) = (|| Some((c.u32()?, c.bytes()?, c.varint()?)))()
                        .ok_or_else(|| kbad("truncated record"))?;
                    push(block, name);
                    if line > after {
                        block.recs.push(Rec {
                            ty,
                            line,
                            words,
                            decl: true,
                            ..Rec::default()
                        });
                    }
                }
                crate::keyframe::REC_ENTITY => {
                    let r = (|| {
                        let def = c.u32()?;
                        let kind = c.byte()?;
                        let line = c.varint()?;
                        let time = c.f64()?;
                        let cont = c.u32()?;
                        let ty = c.u32()?;
                        let value = c.u32()?;
                        let other = c.u32()?;
                        let number = c.f64()?;
                        let key = c.bytes()?;
                        Some((def, kind, line, time, cont, ty, value, other, number, key))
                    })()
                    .ok_or_else(|| kbad("truncated record"))?;
                    let (def_idx, kind, line, time, cont, ty, value, other, number, key) = r;
                    let def = self
                        .defs
                        .get(def_idx as usize)
                        .ok_or_else(|| kbad("no such event definition"))?;
                    let ok_kind = EventKind::ALL
                        .get(kind as usize)
                        .is_some_and(|k| is_entity(*k));
                    if !ok_kind || !is_entity(def.kind()) {
                        return Err(kbad("not an entity record"));
                    }
                    let nextras = c.varint().ok_or_else(|| kbad("truncated record"))?;
                    if nextras != def.extra_slots().len() as u64 {
                        return Err(kbad("record does not match its definition"));
                    }
                    // Words: empty but for the key and the extras.
                    let base = block.spans.len();
                    for _ in 0..def.field_count() {
                        block.spans.push(Span::default());
                    }
                    if let Some(i) = def.slot(Field::Key) {
                        let start = block.arena.len() as u32;
                        block.arena.extend_from_slice(key);
                        block.spans[base + i] = Span {
                            start,
                            end: block.arena.len() as u32,
                        };
                    }
                    for &slot in def.extra_slots() {
                        let x = c.bytes().ok_or_else(|| kbad("truncated record"))?;
                        let start = block.arena.len() as u32;
                        block.arena.extend_from_slice(x);
                        block.spans[base + slot as usize] = Span {
                            start,
                            end: block.arena.len() as u32,
                        };
                    }
                    if after == 0 {
                        block.recs.push(Rec {
                            def: def_idx,
                            line,
                            time,
                            handles: true,
                            c: cont,
                            ty,
                            value: value.wrapping_sub(1),
                            other,
                            number,
                            words,
                            kind,
                            ..Rec::default()
                        });
                    }
                }
                _ => return Err(kbad("unknown record")),
            }
        }
        if !c.at_end() {
            return Err(kbad("trailing bytes"));
        }
        Ok(())
    }

    fn deliver<E>(
        &self,
        block: &Block,
        handler: &mut impl FnMut(Record<'_>) -> Result<(), E>,
    ) -> Result<(), ReadError<E>> {
        let mut extras: [&[u8]; 32] = [&[]; 32];
        for rec in &block.recs {
            if rec.decl {
                let s = block.spans[rec.words as usize];
                let name = &block.arena[s.start as usize..s.end as usize];
                handler(Record::Value {
                    ty: TypeId(rec.ty),
                    name,
                })
                .map_err(ReadError::Handler)?;
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
                ValueRef::New(def.slot(Field::Value).map_or(&[][..], word))
            } else {
                ValueRef::Id(ValueId(rec.value))
            };
            let key = match def.slot(Field::Key) {
                Some(i) => word(i),
                None => &[],
            };
            let event = HandleEvent {
                def,
                kind: EventKind::ALL[rec.kind as usize],
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

    fn string(&self, id: u64) -> Option<&[u8]> {
        let &(s, l) = self.string_spans.get(usize::try_from(id).ok()?)?;
        Some(&self.strings[s as usize..(s + l) as usize])
    }

    fn decode(&self, f: &Frame, block: &mut Block) -> Result<(), FormatError> {
        let mut raw = std::mem::take(&mut block.raw);
        let r = self.decode_with(f, block, &mut raw);
        block.raw = raw;
        r
    }

    fn decode_with(
        &self,
        f: &Frame,
        block: &mut Block,
        raw: &mut Vec<u8>,
    ) -> Result<(), FormatError> {
        let payload = frame_into(self.data.bytes(), f.offset, KIND_EVENTS, u64::MAX, raw)?;
        let ebad = |what: String| bad(f.offset, format!("events frame: {what}"));
        let mut head = Cursor::new(payload);
        let (count, first_line, t_min, t_max) =
            (|| Some((head.varint()?, head.varint()?, head.f64()?, head.f64()?)))()
                .ok_or_else(|| ebad("truncated header".into()))?;
        if count > 1 << 16
            || count != f.count
            || first_line != f.first
            || t_min.to_bits() != f.t_min.to_bits()
            || t_max.to_bits() != f.t_max.to_bits()
        {
            return Err(ebad("header does not match the index".into()));
        }
        let mut cols: [Cursor<'_>; NCOLS] = [Cursor::new(&[]); NCOLS];
        for (i, col) in cols.iter_mut().enumerate() {
            let data = head
                .bytes()
                .ok_or_else(|| ebad(format!("column {i} truncated")))?;
            *col = Cursor::new(data);
        }
        if !head.at_end() {
            return Err(ebad("trailing bytes".into()));
        }
        block.recs.clear();
        block.arena.clear();
        block.spans.clear();
        let interned = self.interned();
        let mut prev_line = first_line.wrapping_sub(1);
        let mut prev_time: Option<(i64, u8)> = None;
        let names = ["DEFS", "LINES", "TIMES", "NUMS", "HANDLES", "STRS", "KEYS"];
        for n in 0..count {
            let short = |col: usize| ebad(format!("event {n}: column {} too short", names[col]));
            let def_idx = cols[DEFS].u32().ok_or_else(|| short(DEFS))?;
            let def = self
                .defs
                .get(def_idx as usize)
                .ok_or_else(|| ebad(format!("event {n}: no event definition {def_idx}")))?;
            let line = prev_line
                .wrapping_add(1)
                .wrapping_add(cols[LINES].varint().ok_or_else(|| short(LINES))?);
            prev_line = line;
            let kind = def.kind();
            let handles = interned && is_entity(kind);
            let mut rec = Rec {
                def: def_idx,
                line,
                handles,
                words: block.spans.len() as u32,
                ts: TIME_TEXT,
                ns: TIME_TEXT,
                kind: kind as u8,
                ..Rec::default()
            };
            let start = block.arena.len() as u32;
            if !handles {
                block.arena.extend_from_slice(def.id());
            }
            block.spans.push(Span {
                start,
                end: block.arena.len() as u32,
            });
            for &r in &self.plans[def_idx as usize] {
                let start = block.arena.len() as u32;
                match r {
                    Role::Time => {
                        let v = cols[TIMES].varint().ok_or_else(|| short(TIMES))?;
                        let dec = if v & 1 == 0 {
                            let (pm, ps) = prev_time.ok_or_else(|| {
                                ebad(format!("event {n}: time delta without a base"))
                            })?;
                            Some((pm.wrapping_add(varint::unzigzag(v >> 1)), ps))
                        } else {
                            let s = cols[TIMES].byte().ok_or_else(|| short(TIMES))?;
                            if s == TIME_TEXT {
                                None
                            } else if s > decimal::MAX_SCALE {
                                return Err(ebad(format!("event {n}: bad time scale {s}")));
                            } else {
                                let m = varint::unzigzag(
                                    cols[TIMES].varint().ok_or_else(|| short(TIMES))?,
                                );
                                Some((m, s))
                            }
                        };
                        match dec {
                            Some((m, s)) => {
                                prev_time = Some((m, s));
                                rec.tm = m;
                                rec.ts = s;
                                rec.time = decimal::to_f64(m, s);
                                if !handles {
                                    decimal::write(&mut block.arena, m, s);
                                }
                            }
                            None => {
                                self.get_str(&mut cols[STRS], interned, &mut block.arena)
                                    .ok_or_else(|| short(STRS))?;
                                rec.time = trama_num::atof(&block.arena[start as usize..]);
                            }
                        }
                    }
                    Role::Container => rec.c = cols[HANDLES].u32().ok_or_else(|| short(HANDLES))?,
                    Role::Type => rec.ty = cols[HANDLES].u32().ok_or_else(|| short(HANDLES))?,
                    Role::Other => rec.other = cols[HANDLES].u32().ok_or_else(|| short(HANDLES))?,
                    Role::Value => {
                        let v = cols[HANDLES].u32().ok_or_else(|| short(HANDLES))?;
                        if v == 0 {
                            rec.value = u32::MAX;
                            self.get_str(&mut cols[STRS], interned, &mut block.arena)
                                .ok_or_else(|| short(STRS))?;
                        } else {
                            rec.value = v - 1;
                        }
                    }
                    Role::Number => {
                        let v = cols[NUMS].varint().ok_or_else(|| short(NUMS))?;
                        if v & 31 == NUM_TEXT {
                            self.get_str(&mut cols[STRS], interned, &mut block.arena)
                                .ok_or_else(|| short(STRS))?;
                            rec.number = trama_num::strtof(&block.arena[start as usize..]) as f64;
                        } else {
                            let s = (v & 31) as u8;
                            let m = varint::unzigzag(v >> 5);
                            rec.nm = m;
                            rec.ns = s;
                            rec.number = decimal::to_f32(m, s) as f64;
                        }
                    }
                    Role::Key => {
                        let k = cols[KEYS].bytes().ok_or_else(|| short(KEYS))?;
                        block.arena.extend_from_slice(k);
                    }
                    Role::Str => {
                        self.get_str(&mut cols[STRS], interned, &mut block.arena)
                            .ok_or_else(|| short(STRS))?;
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
        for (i, c) in cols.iter().enumerate() {
            if !c.at_end() {
                return Err(ebad(format!(
                    "column {} has {} bytes left over",
                    names[i],
                    {
                        let mut c = *c;
                        let p = c.pos();
                        let mut n = 0;
                        while c.byte().is_some() {
                            n += 1;
                        }
                        let _ = p;
                        n
                    }
                )));
            }
        }
        Ok(())
    }

    #[inline]
    fn get_str(&self, c: &mut Cursor<'_>, interned: bool, out: &mut Vec<u8>) -> Option<()> {
        let s = if interned {
            self.string(c.varint()?)?
        } else {
            c.bytes()?
        };
        out.extend_from_slice(s);
        Some(())
    }
}

/// Reads, checks and decompresses the frame at `offset`.
fn frame(b: &[u8], offset: u64, kind: u8, limit: u64) -> Result<Vec<u8>, FormatError> {
    let mut out = Vec::new();
    Ok(frame_into(b, offset, kind, limit, &mut out)?.to_vec())
}

/// Like [`frame`], decompressing into `out` (whose allocation is reused).
fn frame_into<'a>(
    b: &'a [u8],
    offset: u64,
    kind: u8,
    limit: u64,
    out: &'a mut Vec<u8>,
) -> Result<&'a [u8], FormatError> {
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
        CODEC_NONE if raw == stored => Ok(payload),
        CODEC_ZSTD => {
            out.clear();
            out.reserve(raw);
            let n = zstd::bulk::Decompressor::new()
                .and_then(|mut d| d.decompress_to_buffer(payload, out))
                .map_err(|e| bad(offset, format!("zstd: {e}")))?;
            if n != raw || out.len() != raw {
                return Err(bad(
                    offset,
                    "decompressed size does not match the frame header",
                ));
            }
            Ok(&out[..])
        }
        c => Err(bad(offset, format!("unknown codec {c}"))),
    }
}
