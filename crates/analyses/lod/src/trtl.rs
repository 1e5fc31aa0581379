//! A summary as the bytes of the `TRTL` reply of `api/timeline`
//! (specified in `docs/view-api.md`, little-endian): what a window shows
//! at a width, every row asked for in order. [`crate::tile`] holds the
//! same in a compact form.

use trama_sim::Trace;

use crate::{ColumnCount, RowSummary, Summary};

fn u32le(out: &mut Vec<u8>, x: u32) {
    out.extend_from_slice(&x.to_le_bytes());
}

fn f64le(out: &mut Vec<u8>, x: f64) {
    out.extend_from_slice(&x.to_le_bytes());
}

fn counts(out: &mut Vec<u8>, c: &[ColumnCount]) {
    u32le(out, c.len() as u32);
    for x in c {
        u32le(out, x.x);
        u32le(out, x.count);
    }
}

/// The reply's bytes for `s`, whose rows are `asked` (indices into the
/// rows the reply's row numbers name); rows with nothing in the window are
/// left out when `skip_empty`.
pub fn encode(trace: &Trace, s: &Summary, asked: &[u32], skip_empty: bool) -> Vec<u8> {
    let m = &trace.model;
    let mut out = Vec::with_capacity(1024);
    out.extend_from_slice(b"TRTL");
    u32le(&mut out, 1);
    f64le(&mut out, s.grid.t0);
    f64le(&mut out, s.grid.t1);
    u32le(&mut out, s.grid.width);
    u32le(&mut out, u32::from(s.grid.widened));
    let kept = |row: &&RowSummary| !(skip_empty && row.is_empty());
    u32le(&mut out, s.rows.iter().filter(kept).count() as u32);
    for (r, row) in asked.iter().zip(&s.rows) {
        if !kept(&row) {
            continue;
        }
        u32le(&mut out, *r);
        u32le(&mut out, row.states.len() as u32);
        for band in &row.states {
            u32le(&mut out, m.list(band.list).ty.0);
            u32le(&mut out, band.levels.len() as u32);
            for level in &band.levels {
                u32le(&mut out, level.len() as u32);
                for span in level {
                    u32le(&mut out, span.x0);
                    u32le(&mut out, span.x1);
                    u32le(&mut out, span.value.0);
                    u32le(
                        &mut out,
                        span.count.min(0x7fff_ffff) | (u32::from(span.mixed) << 31),
                    );
                }
            }
        }
        counts(&mut out, &row.events);
        u32le(&mut out, row.variable.len() as u32);
        for v in &row.variable {
            u32le(&mut out, v.x0);
            u32le(&mut out, v.x1);
            f64le(&mut out, v.min);
            f64le(&mut out, v.max);
            f64le(&mut out, v.last);
        }
        counts(&mut out, &row.sent);
        counts(&mut out, &row.received);
    }
    let l = &s.links;
    f64le(&mut out, l.total as f64);
    f64le(&mut out, l.dense as f64);
    f64le(&mut out, l.unplaced as f64);
    u32le(&mut out, l.each.len() as u32);
    for k in &l.each {
        u32le(&mut out, asked[k.from as usize]);
        u32le(&mut out, asked[k.to as usize]);
        f64le(&mut out, k.start);
        f64le(&mut out, k.end);
        u32le(&mut out, k.value.0);
    }
    out
}
