//! How to find the entities of a list in a window without reading the
//! whole list: the store keeps each list in creation order, which is time
//! order for states, events and variables, and completion order for links.
//! One pass over the columns checks that order and notes what a window
//! query needs; a list that breaks it is read whole.

use trama_sim::{Columns, ListId, Trace, TypeKind};

use crate::grid::Grid;
use crate::MAX_LEVELS;

/// Entities between two checkpoints of a state list.
const STRIDE: usize = 256;

/// What is known of one list's order.
#[derive(Clone, Debug)]
enum ListIndex {
    /// Starts and ends (unfinished: last) both non-decreasing: the window
    /// is a range found by two binary searches.
    Monotone,
    /// Nested states, starts non-decreasing: every `STRIDE`th entity keeps
    /// the indexes of the states open when it began (its ancestors) at the
    /// levels below [`MAX_LEVELS`]; any other earlier state had ended by
    /// then, or is deeper.
    Stacked(Vec<Vec<u32>>),
    /// Links, in non-decreasing order of their later end; `span` is the
    /// longest link.
    Links {
        /// The longest duration of a link of the list.
        span: f64,
    },
    /// No order to rely on: every entity is a candidate.
    Scan,
}

/// A trace with what window queries need to find each list's entities by
/// binary search. Building it reads every list once (O(entities), a few
/// bytes per 256 states); each [`Lod::summarize`] then costs
/// O(entities in the window + rows × width).
#[derive(Clone, Debug)]
pub struct Lod<'t> {
    pub(crate) trace: &'t Trace,
    index: Vec<ListIndex>,
}

fn end_of(c: &Columns, i: usize) -> f64 {
    if c.end[i] < c.start[i] {
        f64::INFINITY
    } else {
        c.end[i]
    }
}

fn monotone(c: &Columns) -> bool {
    (1..c.len()).all(|i| c.start[i - 1] <= c.start[i] && end_of(c, i - 1) <= end_of(c, i))
}

fn stacked(c: &Columns) -> Option<Vec<Vec<u32>>> {
    let mut stack: Vec<u32> = Vec::new();
    let mut checkpoints = Vec::with_capacity(c.len() / STRIDE + 1);
    for i in 0..c.len() {
        if i > 0 && c.start[i - 1] > c.start[i] {
            return None;
        }
        let level = c.level.get(i).copied().unwrap_or(0) as usize;
        // The states at this level or deeper are over: they must have
        // ended by the time this one begins.
        while stack.len() > level {
            let j = stack.pop()? as usize;
            if end_of(c, j) > c.start[i] {
                return None;
            }
        }
        if i % STRIDE == 0 {
            // Only the levels a summary gives: deeper ones would make the
            // checkpoints grow with the square of the nesting.
            checkpoints.push(stack[..stack.len().min(MAX_LEVELS)].to_vec());
        }
        stack.push(i as u32);
    }
    Some(checkpoints)
}

fn links(c: &Columns) -> Option<f64> {
    let later = |i: usize| c.start[i].max(c.end[i]);
    let mut span: f64 = 0.0;
    for i in 0..c.len() {
        if i > 0 && later(i - 1) > later(i) {
            return None;
        }
        let d = (c.end[i] - c.start[i]).abs();
        if !d.is_finite() {
            return None;
        }
        span = span.max(d);
    }
    Some(span)
}

impl<'t> Lod<'t> {
    /// Reads the order of every list of `trace`.
    pub fn new(trace: &'t Trace) -> Lod<'t> {
        let m = &trace.model;
        let index = trace
            .lists
            .iter()
            .enumerate()
            .map(|(l, c)| match m.list(ListId(l as u32)).kind {
                TypeKind::Link => {
                    links(c).map_or(ListIndex::Scan, |span| ListIndex::Links { span })
                }
                _ if monotone(c) => ListIndex::Monotone,
                TypeKind::State => stacked(c).map_or(ListIndex::Scan, ListIndex::Stacked),
                _ => ListIndex::Scan,
            })
            .collect();
        Lod { trace, index }
    }

    /// The trace.
    pub fn trace(&self) -> &'t Trace {
        self.trace
    }

    /// Calls `f` with the index of every entity of `list` that may touch
    /// the window of `grid`, in increasing order (a superset: callers test
    /// each with [`Grid::columns`]), but states nested [`MAX_LEVELS`] deep
    /// or deeper that began before the window's checkpoint.
    pub(crate) fn candidates(&self, list: ListId, grid: &Grid, mut f: impl FnMut(usize)) {
        let c = &self.trace.lists[list.index()];
        let (t0, t1) = (grid.t0, grid.t1);
        let upto = |t: f64| c.start.partition_point(|&s| s <= t);
        match &self.index[list.index()] {
            ListIndex::Monotone => {
                let lo = partition(c.len(), |i| end_of(c, i) < t0);
                (lo..upto(t1).max(lo)).for_each(f);
            }
            ListIndex::Stacked(checkpoints) => {
                let hi = upto(t1);
                // The checkpoint at or before the last state begun before
                // t0: the states not open there had ended before t0.
                let first = c.start.partition_point(|&s| s < t0);
                let k = first.saturating_sub(1) / STRIDE;
                if let Some(open) = checkpoints.get(k) {
                    for &j in open {
                        f(j as usize);
                    }
                }
                (k * STRIDE..hi).for_each(f);
            }
            ListIndex::Links { span } => {
                let later = |i: usize| c.start[i].max(c.end[i]);
                let lo = partition(c.len(), |i| later(i) < t0);
                let hi = partition(c.len(), |i| later(i) <= t1 + span);
                (lo..hi.max(lo)).for_each(f);
            }
            ListIndex::Scan => (0..c.len()).for_each(f),
        }
    }
}

/// The first `i` in `0..n` for which `before(i)` is false (`before` is
/// true on a prefix).
fn partition(n: usize, before: impl Fn(usize) -> bool) -> usize {
    let (mut lo, mut hi) = (0, n);
    while lo < hi {
        let mid = lo + (hi - lo) / 2;
        if before(mid) {
            lo = mid + 1;
        } else {
            hi = mid;
        }
    }
    lo
}
