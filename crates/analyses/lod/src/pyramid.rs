//! The zoomed-out level of detail, computed once: the whole trace summarized
//! at [`BASE`] columns when the server starts, so that a window whose pixel
//! columns each span at least [`MIN_MERGE`] base columns is answered by
//! merging base columns instead of reading every entity in it.
//!
//! A merged column shows the value that is dominant in most of its base
//! columns (weighted by how much of each it covers), `mixed` when its base
//! columns show several values or one of them is mixed, and the largest
//! count of states among them. Events and density of links are summed, a
//! variable's lowest and highest values kept and its last taken from the
//! last base column. Links are given one by one when the whole trace has
//! at most [`FEW_LINKS`], else as density only.

use trama_sim::TypeId;

use crate::{
    ColumnCount, Grid, LinkItem, Links, Lod, Query, Row, RowSummary, StateBand, StateSpan, Summary,
    VarSpan,
};

/// Columns of the summary of the whole trace.
pub const BASE: u32 = 16384;

/// Up to this many links in the whole trace, they are given one by one at
/// every zoom.
pub const FEW_LINKS: usize = 2000;

/// A window's column must span at least this many base columns to be
/// answered from the base.
pub const MIN_MERGE: f64 = 2.0;

/// The whole trace at [`BASE`] columns, one summary per row.
pub struct Pyramid {
    base: Summary,
}

/// The base columns that query column `c` overlaps: `(first, last)`.
fn under(q: &Grid, b: &Grid, c: u32) -> Option<(u32, u32)> {
    let (a, z) = (q.time_of(c), q.time_of(c + 1));
    let bx = |t: f64| (t - b.t0) / b.column_time();
    let first = bx(a).floor().max(0.0);
    let last = (bx(z).ceil() - 1.0).min(b.width as f64 - 1.0);
    (first <= last).then_some((first as u32, last as u32))
}

/// Sums `counts` (by base column) into the query's columns.
fn merge_counts(counts: &[ColumnCount], q: &Grid, b: &Grid) -> Vec<ColumnCount> {
    let mut out: Vec<ColumnCount> = Vec::new();
    for c in counts {
        let t = b.time_of(c.x) + b.column_time() / 2.0;
        let Some(x) = q.column(t) else { continue };
        match out.last_mut() {
            Some(last) if last.x == x => last.count += c.count,
            _ => out.push(ColumnCount { x, count: c.count }),
        }
    }
    out
}

/// Walks the query's columns over `spans` (base columns `[x0, x1)` each,
/// in order): `summary` gives each column's summary from the base columns
/// it overlaps (`first..=last`) and the spans there; equal neighbours make
/// one run `(x0, x1, summary)`.
fn merge<S, K: PartialEq>(
    spans: &[S],
    bounds: impl Fn(&S) -> (u32, u32),
    q: &Grid,
    b: &Grid,
    mut summary: impl FnMut((u32, u32), &[S]) -> Option<K>,
) -> Vec<(u32, u32, K)> {
    let mut out: Vec<(u32, u32, K)> = Vec::new();
    let mut i = 0;
    for c in 0..q.width {
        let Some((first, last)) = under(q, b, c) else {
            continue;
        };
        while i < spans.len() && bounds(&spans[i]).1 <= first {
            i += 1;
        }
        let mut j = i;
        while j < spans.len() && bounds(&spans[j]).0 <= last {
            j += 1;
        }
        let Some(k) = summary((first, last), &spans[i..j]) else {
            continue;
        };
        match out.last_mut() {
            Some(run) if run.1 == c && run.2 == k => run.1 = c + 1,
            _ => out.push((c, c + 1, k)),
        }
    }
    out
}

/// Merges one level of state spans.
fn merge_level(spans: &[StateSpan], q: &Grid, b: &Grid) -> Vec<StateSpan> {
    let mut weights: Vec<(u32, f64)> = Vec::new();
    let runs = merge(
        spans,
        |s| (s.x0, s.x1),
        q,
        b,
        |(first, last), under| {
            weights.clear();
            let (mut mixed, mut count) = (false, 0);
            for s in under {
                let w = (s.x1.min(last + 1) - s.x0.max(first)) as f64;
                match weights.iter_mut().find(|v| v.0 == s.value.0) {
                    Some(v) => v.1 += w,
                    None => weights.push((s.value.0, w)),
                }
                mixed |= s.mixed;
                count = count.max(s.count);
            }
            let &(value, _) = weights.iter().max_by(|a, b| a.1.total_cmp(&b.1))?;
            Some((value, mixed || weights.len() > 1, count))
        },
    );
    runs.into_iter()
        .map(|(x0, x1, (value, mixed, count))| StateSpan {
            x0,
            x1,
            value: trama_sim::ValueId(value),
            mixed,
            count,
        })
        .collect()
}

/// Merges a variable's spans.
fn merge_variable(spans: &[VarSpan], q: &Grid, b: &Grid) -> Vec<VarSpan> {
    let runs = merge(
        spans,
        |s| (s.x0, s.x1),
        q,
        b,
        |_, under| {
            let (first, rest) = under.split_first()?;
            Some(
                rest.iter()
                    .fold((first.min, first.max, first.last), |(lo, hi, _), s| {
                        (lo.min(s.min), hi.max(s.max), s.last)
                    }),
            )
        },
    );
    runs.into_iter()
        .map(|(x0, x1, (min, max, last))| VarSpan {
            x0,
            x1,
            min,
            max,
            last,
        })
        .collect()
}

impl Pyramid {
    /// Summarizes the whole trace, `span` (its entities and containers),
    /// for every row of `rows` (links of `link_types` only, when given).
    pub fn new(
        lod: &Lod<'_>,
        span: (f64, f64),
        rows: &[Row],
        link_types: Option<&[TypeId]>,
    ) -> Pyramid {
        let q = Query {
            window: Some(span),
            width: BASE,
            // A trace of few links keeps them one by one (a zoomed-out
            // window of it draws each); beyond, every link is density.
            max_links: FEW_LINKS,
            links_per_block: 0,
            link_types: link_types.map(<[_]>::to_vec),
            ..Query::default()
        };
        Pyramid {
            base: lod.summarize(rows, &q),
        }
    }

    /// The pyramid of a summary of the whole trace at [`BASE`] columns.
    pub fn from_base(base: Summary) -> Pyramid {
        Pyramid { base }
    }

    /// The rows (indices) with nothing over the whole run whose container
    /// has no row below it with something, in `trace`'s container tree.
    pub fn idle_rows(&self, trace: &trama_sim::Trace) -> Vec<u32> {
        let m = &trace.model;
        let mut busy = std::collections::HashSet::new();
        for r in self.base.rows.iter().filter(|r| !r.is_empty()) {
            let mut c = Some(r.row.container);
            while let Some(x) = c.filter(|x| busy.insert(*x)) {
                c = m.container(x).parent;
            }
        }
        self.base
            .rows
            .iter()
            .enumerate()
            .filter(|(_, r)| {
                r.is_empty() && (r.row.variable.is_some() || !busy.contains(&r.row.container))
            })
            .map(|(i, _)| i as u32)
            .collect()
    }

    /// The summary of `asked` rows over `[t0, t1]` at `width` columns, from
    /// the base; `None` when the columns are too narrow for it (unless
    /// `coarse`: then narrower columns show the base column they are in).
    pub fn answer(
        &self,
        t0: f64,
        t1: f64,
        width: u32,
        asked: &[u32],
        coarse: bool,
    ) -> Option<Summary> {
        let b = &self.base.grid;
        let q = Grid::new(t0, t1, width);
        if b.widened || q.widened || (!coarse && q.column_time() < MIN_MERGE * b.column_time()) {
            return None;
        }
        let mut links = Links::default();
        let rows = asked
            .iter()
            .map(|&r| {
                let base = &self.base.rows[r as usize];
                let sent = merge_counts(&base.sent, &q, b);
                links.dense += sent.iter().map(|c| c.count as u64).sum::<u64>();
                RowSummary {
                    row: base.row,
                    states: base
                        .states
                        .iter()
                        .map(|band| StateBand {
                            list: band.list,
                            levels: band.levels.iter().map(|l| merge_level(l, &q, b)).collect(),
                        })
                        .collect(),
                    events: merge_counts(&base.events, &q, b),
                    variable: merge_variable(&base.variable, &q, b),
                    received: merge_counts(&base.received, &q, b),
                    sent,
                    links: 0,
                }
            })
            .collect();
        if self.base.links.dense == 0 {
            // Few links: each one in the window whose ends are both asked.
            let at: std::collections::HashMap<u32, u32> = asked
                .iter()
                .enumerate()
                .map(|(i, r)| (*r, i as u32))
                .collect();
            links.dense = 0;
            for k in &self.base.links.each {
                if k.end < t0 || k.start > t1 {
                    continue;
                }
                match (at.get(&k.from), at.get(&k.to)) {
                    (Some(&from), Some(&to)) => links.each.push(LinkItem { from, to, ..*k }),
                    _ => links.unplaced += 1,
                }
            }
        }
        links.total = links.dense + links.each.len() as u64;
        Some(Summary {
            grid: q,
            rows,
            links,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashMap;

    /// Level 0 of each band of a row, as value per column.
    fn columns(r: &RowSummary) -> HashMap<(u32, u32), u32> {
        let mut out = HashMap::new();
        for (b, band) in r.states.iter().enumerate() {
            for s in band.levels.first().into_iter().flatten() {
                for x in s.x0..s.x1 {
                    out.insert((b as u32, x), s.value.0);
                }
            }
        }
        out
    }

    #[test]
    fn zoomed_out_windows_agree_with_reading_every_entity() {
        let trace = crate::testing::generated(11);
        let lod = Lod::new(&trace);
        let rows = crate::rows(&trace, None);
        let pyramid = Pyramid::new(&lod, (trace.start_time(), trace.end_time()), &rows, None);
        let (a, z) = (trace.start_time(), trace.end_time());
        let (t0, t1) = (a - (z - a), z + (z - a));
        let asked: Vec<u32> = (0..rows.len() as u32).collect();
        let merged = pyramid
            .answer(t0, t1, 1200, &asked, false)
            .expect("zoomed out");
        let q = Query {
            window: Some((t0, t1)),
            width: 1200,
            ..Query::default()
        };
        let direct = lod.summarize(&rows, &q);
        let (mut same, mut all) = (0, 0);
        for (m, d) in merged.rows.iter().zip(&direct.rows) {
            // Every event counted once, the whole trace being in the window.
            let sum = |c: &[ColumnCount]| c.iter().map(|c| c.count as u64).sum::<u64>();
            assert_eq!(sum(&m.events), sum(&d.events), "{:?}", d.row);
            let (cm, cd) = (columns(m), columns(d));
            for (k, v) in &cd {
                all += 1;
                same += usize::from(cm.get(k) == Some(v));
                assert!(cm.contains_key(k), "a column with states shows none: {k:?}");
            }
        }
        assert!(all > 100, "{all} columns with states");
        assert!(same * 10 >= all * 8, "{same} of {all} columns agree");
        // Zoomed in: the columns are too narrow for the base.
        assert!(pyramid
            .answer(a, a + (z - a) / 100.0, 1200, &asked, false)
            .is_none());
    }
}
