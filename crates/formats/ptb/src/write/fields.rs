//! How the fields of an event are stored: strings, times and numbers in
//! the columns of the current run, streams and runs chosen per list, link
//! ends paired.

use std::io::Write;

use hashbrown::hash_map::Entry;
use trama_events::{EventDef, Field, StringMode};

use super::encoder::Encoder;
use crate::decimal;
use crate::format::*;
use crate::varint;

impl<W: Write + Send + 'static> Encoder<W> {
    /// Stores a string in `STRS`; returns its identifier (interned mode).
    #[inline]
    pub(super) fn put_str(&mut self, s: &[u8]) -> u32 {
        if self.opts.strings == StringMode::Plain {
            varint::put_bytes(&mut self.runs[self.cur].cols[STRS], s);
            return 0;
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
        varint::put(&mut self.runs[self.cur].cols[STRS], id as u64);
        id
    }

    /// A new run of the block; returns its index.
    pub(super) fn new_run(&mut self) -> u32 {
        if self.nruns == self.runs.len() {
            self.runs.push(RunBuf::default());
        }
        self.nruns += 1;
        (self.nruns - 1) as u32
    }

    /// The run of the block holding the events of stream `s`.
    #[inline]
    pub(super) fn stream_run(&mut self, s: u32) -> u32 {
        let stamp = self.blocks + 1;
        let info = self.stream_info[s as usize];
        if info.stamp == stamp {
            return info.run;
        }
        let (b, r) = self.list_run[info.list as usize];
        let r = if b == stamp {
            r
        } else {
            let r = self.new_run();
            self.list_run[info.list as usize] = (stamp, r);
            r
        };
        self.stream_info[s as usize] = StreamInfo {
            stamp,
            run: r,
            list: info.list,
        };
        r
    }

    /// Makes run `r` the current one; `stream` goes to its `STREAMS`.
    #[inline]
    pub(super) fn enter_run(&mut self, r: u32, stream: u32) {
        self.cur = r as usize;
        let run = &mut self.runs[self.cur];
        run.count += 1;
        run.streams.push(stream);
        self.order.push(r);
    }

    pub(super) fn put_time(&mut self, w: &[u8]) -> f64 {
        let t = match decimal::parse(w) {
            Some((m, s)) => {
                let run = &mut self.runs[self.cur];
                let col = &mut run.cols[TIMES];
                match run.prev_time {
                    Some((pm, ps)) if ps == s => varint::put(col, varint::zigzag(m - pm) << 1),
                    _ => {
                        varint::put(col, 1);
                        col.push(s);
                        varint::put(col, varint::zigzag(m));
                    }
                }
                run.prev_time = Some((m, s));
                decimal::to_f64(m, s)
            }
            None => {
                let col = &mut self.runs[self.cur].cols[TIMES];
                varint::put(col, 1);
                col.push(TIME_TEXT);
                self.put_str(w);
                trama_num::atof(w)
            }
        };
        // As the reader computes them (NaN never a bound).
        if !self.timed {
            self.t_min = f64::INFINITY;
            self.t_max = f64::NEG_INFINITY;
            self.timed = true;
        }
        if t < self.t_min {
            self.t_min = t;
        }
        if t > self.t_max {
            self.t_max = t;
        }
        t
    }

    /// Stores a variable's value; returns it as the file's precision
    /// reads it (`strtof` for Pajé text).
    pub(super) fn put_number(&mut self, w: &[u8]) -> f64 {
        let precision = self.opts.precision;
        match decimal::parse(w) {
            Some((m, s)) if m.unsigned_abs() < 1 << 58 => {
                let col = &mut self.runs[self.cur].cols[NUMS];
                varint::put(col, varint::zigzag(m) << 5 | s as u64);
                decimal::value(m, s, precision)
            }
            _ => {
                varint::put(&mut self.runs[self.cur].cols[NUMS], NUM_TEXT);
                self.put_str(w);
                precision.read(w)
            }
        }
    }

    /// The stream of entity events of definition `d` on (`c`, `ty`),
    /// declared (a model record) at its first use.
    pub(super) fn stream(&mut self, d: u32, c: u32, ty: u32, line: u64) -> u32 {
        // Per container and definition, the first type seen is looked up
        // directly; others (rare) in a map.
        let (c_, d_) = (c as usize, d as usize);
        if self.streams.len() <= c_ {
            self.streams.resize_with(c_ + 1, Vec::new);
        }
        let row = &mut self.streams[c_];
        if row.len() <= d_ {
            row.resize(d_ + 1, (u32::MAX, 0));
        }
        let (t0, s0) = row[d_];
        if t0 == ty {
            return s0;
        }
        if t0 != u32::MAX {
            if let Some(&s) = self.other_streams.get(&(c, d, ty)) {
                return s;
            }
        }
        let s = self.nstreams;
        self.nstreams += 1;
        let nlists = self.list_ids.len() as u32;
        let list = *self
            .list_ids
            .entry((c as u64) << 32 | ty as u64)
            .or_insert(nlists);
        if list == nlists {
            self.list_run.push((0, 0));
            self.list_links.push(0);
        }
        self.stream_info.push(StreamInfo {
            stamp: 0,
            run: 0,
            list,
        });
        if t0 == u32::MAX {
            row[d_] = (ty, s);
        } else {
            self.other_streams.insert((c, d, ty), s);
        }
        self.model.push(REC_STREAM);
        varint::put(&mut self.model, d as u64);
        varint::put(&mut self.model, c as u64);
        varint::put(&mut self.model, ty as u64);
        varint::put(&mut self.model, line);
        self.model_count += 1;
        self.model_total += 1;
        if let Some(r) = &mut self.replay {
            r.model_record();
        }
        s
    }

    /// Builds the steps of definition `def` (the fields that store
    /// something, in order); returns where they lie in `steps`.
    #[inline(never)]
    pub(super) fn plan(&mut self, def: &EventDef, interned: bool) -> (u32, u32) {
        let from = self.steps.len() as u32;
        for (i, &(f, _)) in def.fields().iter().enumerate().skip(1) {
            let step = match role(def.kind(), f, interned) {
                Role::Time => FieldStep::Time,
                // Given by the stream.
                Role::Container | Role::Type => continue,
                Role::Other => FieldStep::Other,
                Role::Value => FieldStep::Value,
                Role::Number => FieldStep::Number,
                Role::Key => FieldStep::Key,
                Role::Str if f == Field::Extra => FieldStep::Extra,
                Role::Str => FieldStep::Str,
            };
            self.steps.push((step, i as u32));
        }
        let at = (from, self.steps.len() as u32);
        let d = def.index() as usize;
        if self.plans.len() <= d {
            self.plans.resize(d + 1, (u32::MAX, 0));
        }
        self.plans[d] = at;
        at
    }

    /// Pairs a link end with the pending one of the same key in the same
    /// list (container `c`, type `ty`), as the simulation does, and stores
    /// the pairing: `LINKS` holds how many first ends of the list back its
    /// other end was, or 0 for a first end (whose key goes to `KEYS`; so
    /// does the key of an end on a destroyed container, which the
    /// simulation ignores). Returns that distance for a second end.
    pub(super) fn pair(&mut self, list: u32, c: u32, key: &[u8]) -> Option<u64> {
        let run = &mut self.runs[self.cur];
        if self.dead.get(c as usize).is_some_and(|d| !d.is_nan()) {
            varint::put(&mut run.cols[LINKS], 0);
            varint::put_bytes(&mut run.cols[KEYS], key);
            return None;
        }
        let count = &mut self.list_links[list as usize];
        // One lookup: a second end takes its first end out, a first end
        // goes in with its number.
        let found = match trama_sim::replay::pack_key(key) {
            Some(p) => match self.pending.entry((list, p)) {
                Entry::Occupied(o) => Some(o.remove()),
                Entry::Vacant(v) => {
                    v.insert(*count);
                    None
                }
            },
            None => match self.pending_long.entry((list, key.into())) {
                Entry::Occupied(o) => Some(o.remove()),
                Entry::Vacant(v) => {
                    v.insert(*count);
                    None
                }
            },
        };
        match found {
            Some(n) => {
                let back = *count - n;
                varint::put(&mut run.cols[LINKS], back);
                Some(back)
            }
            None => {
                varint::put(&mut run.cols[LINKS], 0);
                varint::put_bytes(&mut run.cols[KEYS], key);
                *count += 1;
                None
            }
        }
    }
}

/// What storing a field of an entity event takes (see [`Role`]; fields
/// the stream gives have none).
#[derive(Clone, Copy, Debug)]
pub(super) enum FieldStep {
    Time,
    Value,
    Number,
    Other,
    Key,
    Str,
    /// A user-defined field (a string the simulation keeps).
    Extra,
}

/// A stream's list (numbered by first use) and the run its events go to in
/// block `stamp - 1`.
#[derive(Clone, Copy, Debug)]
pub(super) struct StreamInfo {
    pub(super) stamp: u64,
    pub(super) run: u32,
    pub(super) list: u32,
}

/// The events of one list (or the model events, or in plain mode all
/// events) of the block being written, column by column.
#[derive(Default)]
pub(super) struct RunBuf {
    pub(super) count: u64,
    pub(super) streams: Vec<u32>,
    pub(super) handles: Vec<u32>,
    /// The byte columns (`TIMES`, `NUMS`, `STRS`, `KEYS`, `LINKS`).
    pub(super) cols: [Vec<u8>; NCOLS],
    /// The previous time of the run (decimal mantissa and scale).
    pub(super) prev_time: Option<(i64, u8)>,
}

impl RunBuf {
    pub(super) fn clear(&mut self) {
        self.count = 0;
        self.streams.clear();
        self.handles.clear();
        for c in &mut self.cols {
            c.clear();
        }
        self.prev_time = None;
    }
}
