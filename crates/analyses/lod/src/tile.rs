//! A tile of an offline report's summary (`trama_viewer::offline`): what
//! `api/timeline` answers for a window (the [`Summary`] of every row),
//! encoded compactly. It holds exactly what the `TRTL` reply of
//! `docs/view-api.md` holds ([`crate::trtl`]), and the page decodes it into the same
//! object (the viewer's `assets/tile.js`); rows with nothing in the window are left
//! out. Measured on the 1M-line bench trace at 2048 columns, a tile takes
//! 3.5 times fewer bytes than its `TRTL` reply once both are compressed
//! with gzip, so the summary holds two levels of detail more.
//!
//! Unsigned integers are LEB128 varints (7 bits a byte, low first, the
//! high bit set on every byte but the last); `f64` are little-endian
//! IEEE doubles. A tile is a header, then 11 streams, each its byte
//! length (a varint) then its bytes. Fields of one kind go in one stream,
//! so that gzip finds their repetitions:
//!
//! ```text
//! "TRTC"              4 bytes
//! version             u32 little-endian = 1
//! t0, t1              f64, f64    the window; columns as in TRTL
//! width, widened      varint, varint
//! nrows               varint      rows kept
//! links_total, links_dense, links_unplaced, neach    varints
//! shape     per row: row − (previous row + 1) (the first: row), nbands,
//!           per band: type, nlevels, per level: nspans;
//!           then nevents, nvar, nsent, nreceived
//! gap       per state span: x0 − the previous span's x1 (0 at a level's start)
//! len       per state span: x1 − x0
//! value     per state span: value
//! count     per state span: count · 2 + mixed
//! tick      per event, sent and received column: x − the previous x (0 at a list's start)
//! ticks     per such column: its count
//! vcol      per variable span: x0 − the previous x1, x1 − x0
//! vval      per variable span: min, max, last (f64)
//! link      per link: from, to, value
//! ltime     per link: start, end (f64)
//! ```

use trama_sim::Trace;

use crate::{ColumnCount, Summary};

fn varint(out: &mut Vec<u8>, mut x: u64) {
    while x >= 0x80 {
        out.push((x as u8 & 0x7f) | 0x80);
        x >>= 7;
    }
    out.push(x as u8);
}

/// The streams of a tile, in their order.
#[derive(Default)]
struct Streams {
    shape: Vec<u8>,
    gap: Vec<u8>,
    len: Vec<u8>,
    value: Vec<u8>,
    count: Vec<u8>,
    tick: Vec<u8>,
    ticks: Vec<u8>,
    vcol: Vec<u8>,
    vval: Vec<u8>,
    link: Vec<u8>,
    ltime: Vec<u8>,
}

/// The tile of `s`, whose rows are `asked` (indices into the meta's
/// rows), rows with nothing in the window left out.
pub fn encode(trace: &Trace, s: &Summary, asked: &[u32]) -> Vec<u8> {
    let m = &trace.model;
    let mut z = Streams::default();
    let mut kept = 0u64;
    let mut next_row = 0u32;
    for (&r, row) in asked.iter().zip(&s.rows) {
        if row.is_empty() {
            continue;
        }
        kept += 1;
        varint(&mut z.shape, u64::from(r - next_row));
        next_row = r + 1;
        varint(&mut z.shape, row.states.len() as u64);
        for band in &row.states {
            varint(&mut z.shape, u64::from(m.list(band.list).ty.0));
            varint(&mut z.shape, band.levels.len() as u64);
            for level in &band.levels {
                varint(&mut z.shape, level.len() as u64);
                let mut prev = 0;
                for span in level {
                    varint(&mut z.gap, u64::from(span.x0 - prev));
                    varint(&mut z.len, u64::from(span.x1 - span.x0));
                    varint(&mut z.value, u64::from(span.value.0));
                    let count = u64::from(span.count.min(0x7fff_ffff));
                    varint(&mut z.count, count << 1 | u64::from(span.mixed));
                    prev = span.x1;
                }
            }
        }
        let counts = |c: &[ColumnCount], z: &mut Streams| {
            varint(&mut z.shape, c.len() as u64);
            let mut prev = 0;
            for x in c {
                varint(&mut z.tick, u64::from(x.x - prev));
                varint(&mut z.ticks, u64::from(x.count));
                prev = x.x;
            }
        };
        counts(&row.events, &mut z);
        varint(&mut z.shape, row.variable.len() as u64);
        let mut prev = 0;
        for v in &row.variable {
            varint(&mut z.vcol, u64::from(v.x0 - prev));
            varint(&mut z.vcol, u64::from(v.x1 - v.x0));
            for x in [v.min, v.max, v.last] {
                z.vval.extend_from_slice(&x.to_le_bytes());
            }
            prev = v.x1;
        }
        counts(&row.sent, &mut z);
        counts(&row.received, &mut z);
    }
    for k in &s.links.each {
        varint(&mut z.link, u64::from(asked[k.from as usize]));
        varint(&mut z.link, u64::from(asked[k.to as usize]));
        varint(&mut z.link, u64::from(k.value.0));
        z.ltime.extend_from_slice(&k.start.to_le_bytes());
        z.ltime.extend_from_slice(&k.end.to_le_bytes());
    }
    let mut out = Vec::with_capacity(64);
    out.extend_from_slice(b"TRTC");
    out.extend_from_slice(&1u32.to_le_bytes());
    out.extend_from_slice(&s.grid.t0.to_le_bytes());
    out.extend_from_slice(&s.grid.t1.to_le_bytes());
    varint(&mut out, u64::from(s.grid.width));
    varint(&mut out, u64::from(s.grid.widened));
    varint(&mut out, kept);
    let l = &s.links;
    for x in [l.total, l.dense, l.unplaced, l.each.len() as u64] {
        varint(&mut out, x);
    }
    for stream in [
        &z.shape, &z.gap, &z.len, &z.value, &z.count, &z.tick, &z.ticks, &z.vcol, &z.vval, &z.link,
        &z.ltime,
    ] {
        varint(&mut out, stream.len() as u64);
        out.extend_from_slice(stream);
    }
    out
}

#[cfg(test)]
mod tests {
    //! A tile decodes to what the TRTL reply of the same summary holds.
    use super::*;

    /// What a reply holds, as both formats give it.
    #[derive(Debug, Default, PartialEq)]
    struct Reply {
        t: (f64, f64, u64, u64),
        /// row, bands (type, levels of spans), events, vars, sent, received
        rows: Vec<Row>,
        links: (f64, f64, f64),
        each: Vec<(u64, u64, f64, f64, u64)>,
    }

    type Spans = Vec<[u64; 4]>;

    #[derive(Debug, Default, PartialEq)]
    struct Row {
        row: u64,
        bands: Vec<(u64, Vec<Spans>)>,
        events: Vec<(u64, u64)>,
        vars: Vec<(u64, u64, f64, f64, f64)>,
        sent: Vec<(u64, u64)>,
        received: Vec<(u64, u64)>,
    }

    impl Row {
        fn is_empty(&self) -> bool {
            self.bands.is_empty()
                && self.events.is_empty()
                && self.vars.is_empty()
                && self.sent.is_empty()
                && self.received.is_empty()
        }
    }

    struct Le<'a>(&'a [u8]);

    impl Le<'_> {
        fn u32(&mut self) -> u64 {
            let (a, b) = self.0.split_at(4);
            self.0 = b;
            u64::from(u32::from_le_bytes(a.try_into().unwrap()))
        }
        fn f64(&mut self) -> f64 {
            let (a, b) = self.0.split_at(8);
            self.0 = b;
            f64::from_le_bytes(a.try_into().unwrap())
        }
        fn var(&mut self) -> u64 {
            let (mut x, mut shift) = (0u64, 0);
            loop {
                let b = self.0[0];
                self.0 = &self.0[1..];
                x |= u64::from(b & 0x7f) << shift;
                shift += 7;
                if b < 0x80 {
                    return x;
                }
            }
        }
        fn take(&mut self, n: usize) -> Le<'_> {
            let (a, b) = self.0.split_at(n);
            self.0 = b;
            Le(a)
        }
    }

    fn trtl(bytes: &[u8]) -> Reply {
        let mut r = Le(bytes);
        assert_eq!(r.take(4).0, b"TRTL");
        assert_eq!(r.u32(), 1);
        let mut out = Reply {
            t: (r.f64(), r.f64(), r.u32(), r.u32()),
            ..Reply::default()
        };
        let counts = |r: &mut Le| (0..r.u32()).map(|_| (r.u32(), r.u32())).collect();
        for _ in 0..r.u32() {
            let mut row = Row {
                row: r.u32(),
                ..Row::default()
            };
            for _ in 0..r.u32() {
                let ty = r.u32();
                let levels = (0..r.u32())
                    .map(|_| {
                        (0..r.u32())
                            .map(|_| [r.u32(), r.u32(), r.u32(), r.u32()])
                            .collect()
                    })
                    .collect();
                row.bands.push((ty, levels));
            }
            row.events = counts(&mut r);
            row.vars = (0..r.u32())
                .map(|_| (r.u32(), r.u32(), r.f64(), r.f64(), r.f64()))
                .collect();
            row.sent = counts(&mut r);
            row.received = counts(&mut r);
            if !row.is_empty() {
                out.rows.push(row);
            }
        }
        out.links = (r.f64(), r.f64(), r.f64());
        out.each = (0..r.u32())
            .map(|_| (r.u32(), r.u32(), r.f64(), r.f64(), r.u32()))
            .collect();
        assert!(r.0.is_empty());
        out
    }

    fn trtc(bytes: &[u8]) -> Reply {
        let mut r = Le(bytes);
        assert_eq!(r.take(4).0, b"TRTC");
        assert_eq!(r.u32(), 1);
        let mut out = Reply {
            t: (r.f64(), r.f64(), r.var(), r.var()),
            ..Reply::default()
        };
        let nrows = r.var();
        let links = (r.var() as f64, r.var() as f64, r.var() as f64);
        let neach = r.var();
        let mut s: Vec<Le> = (0..11)
            .map(|_| {
                let n = r.var() as usize;
                let (a, b) = r.0.split_at(n);
                r.0 = b;
                Le(a)
            })
            .collect();
        assert!(r.0.is_empty());
        let [shape, gap, len, value, count, tick, ticks, vcol, vval, link, ltime] = &mut s[..]
        else {
            unreachable!()
        };
        let mut next = 0;
        for _ in 0..nrows {
            let mut row = Row {
                row: next + shape.var(),
                ..Row::default()
            };
            next = row.row + 1;
            for _ in 0..shape.var() {
                let ty = shape.var();
                let levels = (0..shape.var())
                    .map(|_| {
                        let mut prev = 0;
                        (0..shape.var())
                            .map(|_| {
                                let x0 = prev + gap.var();
                                let x1 = x0 + len.var();
                                prev = x1;
                                let c = count.var();
                                [x0, x1, value.var(), (c >> 1) | (c & 1) << 31]
                            })
                            .collect()
                    })
                    .collect();
                row.bands.push((ty, levels));
            }
            let mut counts = |shape: &mut Le| {
                let mut prev = 0;
                (0..shape.var())
                    .map(|_| {
                        prev += tick.var();
                        (prev, ticks.var())
                    })
                    .collect::<Vec<_>>()
            };
            row.events = counts(shape);
            let mut prev = 0;
            row.vars = (0..shape.var())
                .map(|_| {
                    let x0 = prev + vcol.var();
                    let x1 = x0 + vcol.var();
                    prev = x1;
                    (x0, x1, vval.f64(), vval.f64(), vval.f64())
                })
                .collect();
            row.sent = counts(shape);
            row.received = counts(shape);
            if !row.is_empty() {
                out.rows.push(row);
            }
        }
        out.links = links;
        out.each = (0..neach)
            .map(|_| {
                let (from, to, v) = (link.var(), link.var(), link.var());
                (from, to, ltime.f64(), ltime.f64(), v)
            })
            .collect();
        assert!(s.iter().all(|x| x.0.is_empty()));
        out
    }

    #[test]
    fn a_tile_holds_what_the_reply_holds() {
        for seed in [3, 11, 29] {
            let trace = crate::testing::generated(seed);
            let lod = crate::Lod::new(&trace);
            let rows = crate::rows(&trace, None);
            let asked: Vec<u32> = (0..rows.len() as u32).collect();
            let (a, z) = (trace.start_time(), trace.end_time());
            for (t0, t1, width) in [(a, z, 300), (a, a + (z - a) / 7.0, 2048), (z, z + 1.0, 5)] {
                let q = crate::Query {
                    window: Some((t0, t1)),
                    width,
                    ..crate::Query::default()
                };
                let s = lod.summarize(&rows, &q);
                let want = trtl(&crate::trtl::encode(&trace, &s, &asked, true));
                assert_eq!(trtc(&encode(&trace, &s, &asked)), want, "seed {seed}");
            }
        }
    }
}
