//! The header of an events frame and where its columns and runs lie,
//! checked against the index.

use super::{bad, FormatError, PtbFile};
use crate::format::*;
use crate::varint::Cursor;

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

impl PtbFile {
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
        let lens = run_table(&mut head, nruns, payload.len() as u64 * 8)
            .map_err(|what| ebad(what.into()))?;
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
        let runs = run_spans(&lens, at, streams_width, handles_width);
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
}

/// The run table of an events frame: per run its events, its handles, then
/// the bytes of TIMES … LINKS (none above `limit`); what is wrong with it.
fn run_table(head: &mut Cursor<'_>, nruns: u64, limit: u64) -> Result<Vec<[u64; 7]>, &'static str> {
    let mut lens = Vec::with_capacity(nruns as usize);
    for _ in 0..nruns {
        let mut l = [0u64; 7];
        for x in &mut l {
            *x = head
                .varint()
                .filter(|&v| v <= limit)
                .ok_or("truncated run table")?;
        }
        if l[0] == 0 {
            return Err("an empty run");
        }
        lens.push(l);
    }
    Ok(lens)
}

/// Where each run's part of each column starts and ends, the runs laid one
/// after the other from `at` (STREAMS and HANDLES `streams_width` and
/// `handles_width` bytes a value, the others a byte).
fn run_spans(
    lens: &[[u64; 7]],
    mut at: [usize; NCOLS],
    streams_width: usize,
    handles_width: usize,
) -> Vec<RunSpan> {
    lens.iter()
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
        .collect()
}
