//! The streaming writer.

use hashbrown::HashMap;
use std::io::{self, Write};
use std::thread::JoinHandle;

use crossbeam_channel::{bounded, Sender};
use trama_events::{Event, EventDef};
use trama_sim::{ContainerEffect, EntityHandles};

use crate::keyframe::Tracker;

use crate::decimal;
use crate::format::*;
use crate::varint;

/// How strings are stored (the two modes of the original binary proposal).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum StringMode {
    /// Every field as its text, in every event.
    Plain,
    /// Each distinct string stored once; entity events refer to types,
    /// containers and values by handle.
    #[default]
    Interned,
}

/// Options of a [`Writer`].
#[derive(Clone, Debug)]
#[non_exhaustive]
pub struct WriteOptions {
    /// String mode.
    pub strings: StringMode,
    /// zstd level of each frame; `None` stores frames uncompressed.
    pub zstd_level: Option<i32>,
    /// Events per events frame (at most 65536).
    pub block_events: usize,
    /// The text was read with quotes stripped (recorded in the header).
    pub quotes_stripped: bool,
}

impl Default for WriteOptions {
    fn default() -> WriteOptions {
        WriteOptions {
            strings: StringMode::Interned,
            zstd_level: Some(3),
            block_events: 1 << 16,
            quotes_stripped: false,
        }
    }
}

/// What the text source was, recorded in the footer.
#[derive(Clone, Copy, Debug, Default)]
pub struct SourceStats {
    /// Lines of text.
    pub lines: u64,
}

type WriterResult<W> = io::Result<(W, Vec<IndexEntry>, u64)>;

struct Job {
    kind: u8,
    payload: Vec<u8>,
    count: u64,
    first: u64,
    t_min: f64,
    t_max: f64,
    open_min: f64,
}

#[derive(Clone, Debug)]
pub(crate) struct IndexEntry {
    pub kind: u8,
    pub offset: u64,
    pub count: u64,
    pub first: u64,
    pub t_min: f64,
    pub t_max: f64,
    pub open_min: f64,
}

pub(crate) fn put_index(out: &mut Vec<u8>, e: &IndexEntry) {
    out.push(e.kind);
    varint::put(out, e.offset);
    varint::put(out, e.count);
    varint::put(out, e.first);
    out.extend_from_slice(&e.t_min.to_le_bytes());
    out.extend_from_slice(&e.t_max.to_le_bytes());
    out.extend_from_slice(&e.open_min.to_le_bytes());
}

/// Writes a `.ptb` file in one pass: feed it every event in trace order,
/// then [`Writer::finish`] with the definitions. Frames are compressed and
/// written on a thread of their own.
pub struct Writer<W: Write + Send + 'static> {
    opts: WriteOptions,
    cols: [Vec<u8>; NCOLS],
    count: u64,
    first_line: u64,
    prev_line: u64,
    t_min: f64,
    t_max: f64,
    prev_time: Option<(i64, u8)>,
    strings: HashMap<Box<[u8]>, u32>,
    new_strings: Vec<u8>,
    new_count: u64,
    nstrings: u64,
    events: u64,
    tracker: Tracker,
    /// Per definition index: the roles of its fields (with handles, without).
    plans: Vec<Option<[Vec<Role>; 2]>>,
    blocks: u64,
    since_keyframe: usize,
    keyframe_size: usize,
    tx: Option<Sender<Job>>,
    thread: Option<JoinHandle<WriterResult<W>>>,
}

fn write_frame<W: Write>(
    out: &mut W,
    kind: u8,
    codec: u8,
    raw_len: usize,
    payload: &[u8],
) -> io::Result<u64> {
    let mut h = [0u8; FRAME_HEADER_LEN];
    h[0] = kind;
    h[1] = codec;
    h[4..8].copy_from_slice(&(payload.len() as u32).to_le_bytes());
    h[8..12].copy_from_slice(&(raw_len as u32).to_le_bytes());
    h[12..16].copy_from_slice(&crc32fast::hash(payload).to_le_bytes());
    out.write_all(&h)?;
    out.write_all(payload)?;
    Ok((FRAME_HEADER_LEN + payload.len()) as u64)
}

fn too_big() -> io::Error {
    io::Error::new(io::ErrorKind::InvalidInput, "frame larger than 4 GiB")
}

impl<W: Write + Send + 'static> Writer<W> {
    /// Starts a file on `out` (the header is written at once).
    pub fn new(mut out: W, opts: WriteOptions) -> io::Result<Writer<W>> {
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
        header[10..12].copy_from_slice(&u16::to_le_bytes(flags));
        out.write_all(&header)?;
        let (tx, rx) = bounded::<Job>(2);
        let level = opts.zstd_level;
        let thread = std::thread::Builder::new()
            .name("trama-ptb-write".into())
            .spawn(move || {
                let mut offset = HEADER_LEN as u64;
                let mut index = Vec::new();
                let mut compressed = Vec::new();
                for job in rx.iter() {
                    if job.payload.len() > u32::MAX as usize {
                        return Err(too_big());
                    }
                    let (codec, stored): (u8, &[u8]) = match level {
                        Some(l) => {
                            compressed.clear();
                            zstd::stream::copy_encode(&job.payload[..], &mut compressed, l)?;
                            (CODEC_ZSTD, &compressed)
                        }
                        None => (CODEC_NONE, &job.payload),
                    };
                    let n = write_frame(&mut out, job.kind, codec, job.payload.len(), stored)?;
                    index.push(IndexEntry {
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
        let block_events = opts.block_events.clamp(1, 1 << 16);
        Ok(Writer {
            opts: WriteOptions {
                block_events,
                ..opts
            },
            cols: Default::default(),
            count: 0,
            first_line: 0,
            prev_line: 0,
            t_min: 0.0,
            t_max: 0.0,
            prev_time: None,
            strings: HashMap::new(),
            new_strings: Vec::new(),
            new_count: 0,
            nstrings: 0,
            events: 0,
            tracker: Tracker::new(),
            plans: Vec::new(),
            blocks: 0,
            since_keyframe: 0,
            keyframe_size: 0,
            tx: Some(tx),
            thread: Some(thread),
        })
    }

    fn send(&mut self, job: Job) -> io::Result<()> {
        let ok = self.tx.as_ref().is_some_and(|tx| tx.send(job).is_ok());
        if ok {
            Ok(())
        } else {
            // The writing thread stopped: its error tells why.
            Err(self.join_err())
        }
    }

    fn join_err(&mut self) -> io::Error {
        self.tx = None;
        match self.thread.take().map(|t| t.join()) {
            Some(Ok(Err(e))) => e,
            Some(Err(p)) => std::panic::resume_unwind(p),
            _ => io::Error::other("the binary writer stopped"),
        }
    }

    #[inline]
    fn put_str(&mut self, s: &[u8]) {
        if self.opts.strings == StringMode::Plain {
            varint::put_bytes(&mut self.cols[STRS], s);
            return;
        }
        let id = match self.strings.get(s) {
            Some(&id) => id,
            None => {
                let id = self.nstrings as u32;
                self.nstrings += 1;
                self.strings.insert(s.into(), id);
                varint::put_bytes(&mut self.new_strings, s);
                self.new_count += 1;
                id
            }
        };
        varint::put(&mut self.cols[STRS], id as u64);
    }

    fn put_time(&mut self, w: &[u8]) -> f64 {
        match decimal::parse(w) {
            Some((m, s)) => {
                let t = decimal::to_f64(m, s);
                if self.t_min == 0.0 && self.t_max == 0.0 && self.prev_time.is_none() {
                    self.t_min = t;
                    self.t_max = t;
                } else {
                    self.t_min = self.t_min.min(t);
                    self.t_max = self.t_max.max(t);
                }
                let col = &mut self.cols[TIMES];
                match self.prev_time {
                    Some((pm, ps)) if ps == s => varint::put(col, varint::zigzag(m - pm) << 1),
                    _ => {
                        varint::put(col, 1);
                        col.push(s);
                        varint::put(col, varint::zigzag(m));
                    }
                }
                self.prev_time = Some((m, s));
                t
            }
            None => {
                let t = trama_num::atof(w);
                if !t.is_nan() {
                    self.t_min = self.t_min.min(t);
                    self.t_max = self.t_max.max(t);
                }
                varint::put(&mut self.cols[TIMES], 1);
                self.cols[TIMES].push(TIME_TEXT);
                self.put_str(w);
                t
            }
        }
    }

    fn put_number(&mut self, w: &[u8]) {
        match decimal::parse(w) {
            Some((m, s)) if m.unsigned_abs() < 1 << 58 => {
                varint::put(&mut self.cols[NUMS], varint::zigzag(m) << 5 | s as u64)
            }
            _ => {
                varint::put(&mut self.cols[NUMS], NUM_TEXT);
                self.put_str(w);
            }
        }
    }

    /// Adds one event. `handles` are what the resolver made of it
    /// ([`trama_sim::Resolver::entity_handles`]); they are required for
    /// entity events in interned mode (without them the event is stored as
    /// text, which a reader resolves again). `container` is what it did to
    /// the container tree ([`trama_sim::Resolver::container_effect`]), for
    /// keyframes and the containers' end times.
    pub fn event(
        &mut self,
        ev: &Event<'_>,
        handles: Option<EntityHandles>,
        container: Option<ContainerEffect>,
    ) -> io::Result<()> {
        let def = ev.def();
        let kind = def.kind();
        if self.count == 0 {
            self.first_line = ev.line();
            self.prev_line = ev.line().saturating_sub(1);
        }
        varint::put(&mut self.cols[DEFS], def.index() as u64);
        varint::put(
            &mut self.cols[LINES],
            ev.line().wrapping_sub(self.prev_line).wrapping_sub(1),
        );
        self.prev_line = ev.line();
        let h = match handles {
            Some(h) if self.opts.strings == StringMode::Interned && is_entity(kind) => Some(h),
            _ => None,
        };
        let mut time = 0.0;
        let di = def.index() as usize;
        if self.plans.len() <= di {
            self.plans.resize(di + 1, None);
        }
        let plan = self.plans[di].get_or_insert_with(|| {
            let roles = |handles| {
                def.fields()[1..]
                    .iter()
                    .map(|&(f, _)| role(kind, f, handles))
                    .collect()
            };
            [roles(true), roles(false)]
        });
        let plan = std::mem::take(&mut plan[if h.is_some() { 0 } else { 1 }]);
        for (i, &r) in plan.iter().enumerate() {
            let w = ev.word(i + 1);
            match (r, h) {
                (Role::Time, _) => time = self.put_time(w),
                (Role::Container, Some(h)) => {
                    varint::put(&mut self.cols[HANDLES], h.container.0 as u64)
                }
                (Role::Type, Some(h)) => varint::put(&mut self.cols[HANDLES], h.ty.0 as u64),
                (Role::Other, Some(h)) => varint::put(&mut self.cols[HANDLES], h.other.0 as u64),
                (Role::Value, Some(h)) => {
                    if h.new_value {
                        varint::put(&mut self.cols[HANDLES], 0);
                        self.put_str(w);
                    } else {
                        varint::put(&mut self.cols[HANDLES], h.value.0 as u64 + 1);
                    }
                }
                (Role::Number, _) => self.put_number(w),
                (Role::Key, _) => varint::put_bytes(&mut self.cols[KEYS], w),
                _ => self.put_str(w),
            }
        }
        if let Some(p) = &mut self.plans[di] {
            p[if h.is_some() { 0 } else { 1 }] = plan;
        }
        self.tracker.event(ev, time, handles, container);
        self.count += 1;
        self.events += 1;
        if self.count as usize >= self.opts.block_events {
            self.flush()?;
        }
        Ok(())
    }

    fn flush(&mut self) -> io::Result<()> {
        if self.new_count > 0 {
            let mut payload = Vec::with_capacity(self.new_strings.len() + 16);
            let first = self.nstrings - self.new_count;
            varint::put(&mut payload, first);
            varint::put(&mut payload, self.new_count);
            payload.extend_from_slice(&self.new_strings);
            self.new_strings.clear();
            let count = std::mem::take(&mut self.new_count);
            self.send(Job {
                kind: KIND_STRINGS,
                payload,
                count,
                first,
                t_min: 0.0,
                t_max: 0.0,
                open_min: 0.0,
            })?;
        }
        if self.count == 0 {
            return Ok(());
        }
        let size: usize = self.cols.iter().map(|c| c.len() + 10).sum();
        let mut payload = Vec::with_capacity(size + 40);
        varint::put(&mut payload, self.count);
        varint::put(&mut payload, self.first_line);
        payload.extend_from_slice(&self.t_min.to_le_bytes());
        payload.extend_from_slice(&self.t_max.to_le_bytes());
        for c in &mut self.cols {
            varint::put(&mut payload, c.len() as u64);
            payload.extend_from_slice(c);
            c.clear();
        }
        let job = Job {
            kind: KIND_EVENTS,
            payload,
            count: self.count,
            first: self.first_line,
            t_min: self.t_min,
            t_max: self.t_max,
            open_min: self.tracker.open_min(),
        };
        self.count = 0;
        self.t_min = 0.0;
        self.t_max = 0.0;
        self.prev_time = None;
        self.since_keyframe += job.payload.len();
        self.blocks += 1;
        self.send(job)?;
        // A keyframe for the next block, when the blocks since the last
        // one weigh four times a keyframe (so keyframes stay under a fifth
        // of the file whatever the model's size).
        if self.since_keyframe >= 4 * self.keyframe_size {
            self.keyframe_size = self.send_keyframe()?;
            self.since_keyframe = 0;
        }
        Ok(())
    }

    /// Sends the keyframe for the next events frame; returns its size.
    fn send_keyframe(&mut self) -> io::Result<usize> {
        let payload = self.tracker.keyframe(self.blocks);
        let size = payload.len();
        self.send(Job {
            kind: KIND_KEYFRAME,
            payload,
            count: 0,
            first: self.blocks,
            t_min: 0.0,
            t_max: 0.0,
            open_min: 0.0,
        })?;
        Ok(size)
    }

    /// Events written so far.
    pub fn events(&self) -> u64 {
        self.events
    }

    /// Writes the last frames, the footer (with `defs`, every definition of
    /// the trace in declaration order) and the trailer; returns the output.
    pub fn finish(mut self, defs: &[EventDef], source: SourceStats) -> io::Result<W> {
        self.flush()?;
        // The last keyframe holds every model record: a reader that stops
        // early replays the ones after its stop to know every container.
        self.send_keyframe()?;
        // The index is known to the writing thread only: let it end, then
        // write the footer from here.
        self.tx = None;
        let (mut out, index, footer_offset) = match self.thread.take().map(|t| t.join()) {
            Some(Ok(r)) => r?,
            Some(Err(p)) => std::panic::resume_unwind(p),
            None => return Err(io::Error::other("the binary writer stopped")),
        };
        let mut footer = Vec::new();
        varint::put(&mut footer, defs.len() as u64);
        for d in defs {
            put_def(&mut footer, d);
        }
        varint::put(&mut footer, index.len() as u64);
        for e in &index {
            put_index(&mut footer, e);
        }
        varint::put(&mut footer, source.lines);
        varint::put(&mut footer, self.events);
        let ends = self.tracker.container_ends();
        varint::put(&mut footer, ends.len() as u64);
        for e in ends {
            footer.extend_from_slice(&e.to_le_bytes());
        }
        let (codec, stored) = match self.opts.zstd_level {
            Some(l) => (CODEC_ZSTD, zstd::bulk::compress(&footer, l)?),
            None => (CODEC_NONE, footer.clone()),
        };
        if stored.len() > u32::MAX as usize {
            return Err(too_big());
        }
        write_frame(&mut out, KIND_FOOTER, codec, footer.len(), &stored)?;
        let mut trailer = [0u8; TRAILER_LEN];
        trailer[..8].copy_from_slice(&footer_offset.to_le_bytes());
        trailer[8..].copy_from_slice(&END_MAGIC);
        out.write_all(&trailer)?;
        out.flush()?;
        Ok(out)
    }
}

impl<W: Write + Send + 'static> Drop for Writer<W> {
    fn drop(&mut self) {
        self.tx = None;
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}
