//! The end of a block: its strings, model records and events frame
//! handed to the output thread; and the end of the file.

use std::io::{self, Write};

use trama_events::{EventDef, StringMode};

use super::encoder::Encoder;
use super::output::{self, Job};
use super::{SourceStats, Written};
use crate::format::*;
use crate::varint;

impl<W: Write + Send + 'static> Encoder<W> {
    pub(super) fn flush(&mut self) -> io::Result<()> {
        // Before the model frame goes: did the block use model records?
        let grouped = self.model_count == 0 && self.opts.strings == StringMode::Interned;
        let (total, count, items) = (self.nstrings, &mut self.new_count, &mut self.new_strings);
        if let Some(job) = Job::take_table(KIND_STRINGS, total, count, items) {
            self.send(job)?;
        }
        let (total, count, items) = (self.model_total, &mut self.model_count, &mut self.model);
        if let Some(job) = Job::take_table(KIND_MODEL, total, count, items) {
            self.send(job)?;
        }
        if self.count == 0 {
            return Ok(());
        }
        let (t_min, t_max) = if self.timed {
            (self.t_min, self.t_max)
        } else {
            (0.0, 0.0)
        };
        let runs = &self.runs[..self.nruns];
        let size: usize = runs
            .iter()
            .map(|r| r.cols.iter().map(Vec::len).sum::<usize>() + 4 * r.handles.len() + 40)
            .sum::<usize>()
            + self.lines.len()
            + 6 * self.order.len();
        let mut payload = Vec::with_capacity(size + 64);
        varint::put(&mut payload, self.count);
        varint::put(&mut payload, self.first_line);
        varint::put(&mut payload, self.first_model);
        // Trace order is the merge of the runs by time: no `ORDER`.
        let merged = grouped && self.merged && runs.len() > 1;
        let flags = match (grouped, merged) {
            (true, true) => FRAME_GROUPED | FRAME_MERGED,
            (true, false) => FRAME_GROUPED,
            _ => 0,
        };
        varint::put(&mut payload, flags);
        payload.extend_from_slice(&t_min.to_le_bytes());
        payload.extend_from_slice(&t_max.to_le_bytes());
        varint::put(&mut payload, runs.len() as u64);
        for r in runs {
            varint::put(&mut payload, r.count);
            varint::put(&mut payload, r.handles.len() as u64);
            for col in [TIMES, NUMS, STRS, KEYS, LINKS] {
                varint::put(&mut payload, r.cols[col].len() as u64);
            }
        }
        let mut col = Vec::new();
        let mut split = 0;
        for c in STORED_COLS {
            col.clear();
            let data: &[u8] = match c {
                ORDER if runs.len() <= 1 => &[],
                ORDER if merged => {
                    put_ties(&mut col, &self.times, &self.order, runs.len());
                    &col
                }
                ORDER => {
                    varint::put_fixed(&mut col, &self.order);
                    &col
                }
                LINES => &self.lines,
                STREAMS => {
                    varint::put_fixed_parts(&mut col, runs.iter().map(|r| &r.streams[..]));
                    &col
                }
                HANDLES => {
                    varint::put_fixed_parts(&mut col, runs.iter().map(|r| &r.handles[..]));
                    &col
                }
                _ => {
                    let n: usize = runs.iter().map(|r| r.cols[c].len()).sum();
                    varint::put(&mut payload, n as u64);
                    if c == TIMES {
                        split = payload.len();
                    }
                    for r in runs {
                        payload.extend_from_slice(&r.cols[c]);
                    }
                    continue;
                }
            };
            varint::put(&mut payload, data.len() as u64);
            payload.extend_from_slice(data);
        }
        for r in &mut self.runs[..self.nruns] {
            r.clear();
        }
        self.nruns = 0;
        self.model_run = None;
        self.order.clear();
        self.times.clear();
        self.lines.clear();
        let open_min = match &self.replay {
            Some(r) => r.state.open_min(),
            // Where the simulation is not followed, windows read on.
            None => f64::NEG_INFINITY,
        };
        if let Some(r) = &mut self.replay {
            // Only a reader checks the keys of first ends (across segments).
            r.first_ends.clear();
            // The fields and long keys of final entities pile up: drop them
            // once they outweigh those kept and a few blocks' worth.
            let pooled = r.state.extras.len() + r.state.long_keys.len();
            if pooled > 2 * self.kept + 4 * self.opts.block_events {
                r.state.compact();
                self.kept = r.state.extras.len() + r.state.long_keys.len();
            }
        }
        let job = Job {
            kind: KIND_EVENTS,
            payload,
            count: self.count,
            first: self.first_line,
            t_min,
            t_max,
            open_min,
            split,
        };
        self.count = 0;
        self.timed = false;
        self.since_keyframe += job.payload.len();
        self.blocks += 1;
        self.send(job)
    }

    /// Writes the last frames, the footer (with `defs`, every definition of
    /// the trace in declaration order) and the trailer; returns the output
    /// and what was written.
    pub(super) fn finish(
        mut self,
        defs: &[EventDef],
        source: SourceStats,
    ) -> io::Result<(W, Written)> {
        self.flush()?;
        if let Some(mut r) = self.replay.take() {
            if r.finish(&self.tables, None).is_err() {
                self.invalid_at = Some(0);
            }
        }
        // The index is known to the writing thread only: let it end, then
        // write the footer from here.
        self.tx = None;
        let (mut out, index, footer_offset) = match self.thread.take().map(|t| t.join()) {
            Some(Ok(r)) => r?,
            Some(Err(p)) => std::panic::resume_unwind(p),
            None => return Err(io::Error::other("the binary writer stopped")),
        };
        let (last_time, dead) = (self.last_time, &self.dead);
        output::end(
            &mut out,
            self.opts.zstd_level,
            defs,
            &index,
            footer_offset,
            source,
            self.events,
            dead.iter().map(|&d| if d.is_nan() { last_time } else { d }),
        )?;
        let written = Written {
            events: self.events,
            blocks: self.blocks,
            keyframes: self.keyframes,
            invalid_at: self.invalid_at,
        };
        Ok((out, written))
    }
}

/// The `ORDER` column of merged runs: at each event of a group of equal
/// times where the runs left in the group are more than one, the run the
/// event is in (see the format's events frame).
fn put_ties(out: &mut Vec<u8>, times: &[f64], order: &[u32], nruns: usize) {
    let mut seen = vec![usize::MAX; nruns];
    let mut left = Vec::new();
    let mut i = 0;
    while i < times.len() {
        let mut j = i + 1;
        while j < times.len() && times[j] == times[i] {
            j += 1;
        }
        if j - i > 1 {
            // Distinct runs among the group's events from each on.
            left.clear();
            left.resize(j - i, 0u32);
            let mut distinct = 0;
            for n in (i..j).rev() {
                let k = order[n] as usize;
                if seen[k] != i {
                    seen[k] = i;
                    distinct += 1;
                }
                left[n - i] = distinct;
            }
            for n in i..j {
                if left[n - i] > 1 {
                    varint::put(out, order[n] as u64);
                }
            }
        }
        i = j;
    }
}
