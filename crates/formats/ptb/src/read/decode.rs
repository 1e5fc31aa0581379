//! An events frame decoded for [`PtbFile::read`]: every event's record,
//! its words rebuilt as text where the simulator resolves them again.

use trama_events::Span;

use super::{bad, frame_into, merge_runs, mergeable_time, wide, FormatError, Op, PtbFile, Slot};
use crate::decimal;
use crate::format::*;
use crate::varint::{self, Cursor, Fixed};

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

/// A run's cursors, for [`PtbFile::read`].
struct RunCursors<'a> {
    /// Events decoded so far.
    count: u32,
    streams: Fixed<'a>,
    handles: Fixed<'a>,
    c: [Cursor<'a>; NCOLS],
    prev_time: Option<(i64, u8)>,
}

/// A decoded time.
enum Time<'a> {
    Decimal(i64, u8),
    Text(&'a [u8]),
}

impl PtbFile {
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

    /// Decodes an events frame for [`PtbFile::read`]. `cursor` is the
    /// model record the frame starts at (`u64::MAX`: take the frame's word
    /// for it, the caller checks the sequence).
    pub(super) fn decode(
        &self,
        f: &Frame,
        block: &mut Block,
        cursor: &mut u64,
    ) -> Result<(), FormatError> {
        let mut raw = std::mem::take(&mut block.raw);
        let r = self.decode_with(f, block, &mut raw, cursor);
        block.raw = raw;
        r
    }

    /// A measured hot loop (every event read by the reference simulation
    /// of a `.ptb`, `bench/binary.sh`): kept in one function, its readers
    /// macros, so that an event is decoded without a call.
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
                            rec.number = self.precision().read(t);
                        } else {
                            let s = (v & 31) as u8;
                            if s > decimal::MAX_SCALE {
                                return Err(ebad(format!("event {n}: bad number scale {s}")));
                            }
                            let m = varint::unzigzag(v >> 5);
                            rec.nm = m;
                            rec.ns = s;
                            rec.number = decimal::value(m, s, self.precision());
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
