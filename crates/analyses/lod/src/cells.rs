//! Per pixel column accumulators of one level of one state list, and of
//! one variable, fed with entities in time order. Columns an entity covers
//! whole are written at once, so an entity costs O(1) plus the columns it
//! alone covers.

use trama_sim::ValueId;

use crate::grid::Grid;

/// Consecutive columns of one nesting level of a state list that have the
/// same summary.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct StateSpan {
    /// First column.
    pub x0: u32,
    /// One past the last column.
    pub x1: u32,
    /// The value whose states cover the most time in each column (ties:
    /// the one with more states, then the lowest value id).
    pub value: ValueId,
    /// True when states of more than one value touch each column.
    pub mixed: bool,
    /// Number of states that touch each column.
    pub count: u32,
}

/// Consecutive columns of a variable with the same summary.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct VarSpan {
    /// First column.
    pub x0: u32,
    /// One past the last column.
    pub x1: u32,
    /// Lowest value held in each column.
    pub min: f64,
    /// Highest value held in each column.
    pub max: f64,
    /// The value held last in each column.
    pub last: f64,
}

/// A count in one pixel column.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ColumnCount {
    /// The column.
    pub x: u32,
    /// How many.
    pub count: u32,
}

const NONE: u32 = u32::MAX;

/// One level of one state list, column after column.
#[derive(Debug, Default)]
pub(crate) struct StateCells {
    col: u32,
    /// (value, time covered in pixel units, states) in the current column.
    parts: Vec<(ValueId, f64, u32)>,
    pub(crate) spans: Vec<StateSpan>,
}

impl StateCells {
    pub(crate) fn new() -> StateCells {
        StateCells {
            col: NONE,
            ..StateCells::default()
        }
    }

    fn push(&mut self, x0: u32, x1: u32, value: ValueId, mixed: bool, count: u32) {
        if let Some(s) = self.spans.last_mut() {
            if s.x1 == x0 && s.value == value && s.mixed == mixed && s.count == count {
                s.x1 = x1;
                return;
            }
        }
        self.spans.push(StateSpan {
            x0,
            x1,
            value,
            mixed,
            count,
        });
    }

    fn part(&mut self, value: ValueId, cover: f64) {
        match self.parts.iter_mut().find(|p| p.0 == value) {
            Some(p) => {
                p.1 += cover;
                p.2 += 1;
            }
            None => self.parts.push((value, cover, 1)),
        }
    }

    fn flush(&mut self) {
        if self.col == NONE || self.parts.is_empty() {
            return;
        }
        let best = self
            .parts
            .iter()
            .copied()
            .reduce(|p, q| {
                let better = q.1 > p.1 || (q.1 == p.1 && (q.2 > p.2 || (q.2 == p.2 && q.0 < p.0)));
                if better {
                    q
                } else {
                    p
                }
            })
            .map(|p| p.0);
        let count = self.parts.iter().map(|p| p.2).sum();
        let mixed = self.parts.len() > 1;
        self.parts.clear();
        if let Some(v) = best {
            self.push(self.col, self.col + 1, v, mixed, count);
        }
    }

    /// Adds the state `[a, b]` of `value` (states of one level come in time
    /// order and do not overlap).
    pub(crate) fn add(&mut self, grid: &Grid, a: f64, b: f64, value: ValueId) {
        let Some((first, last)) = columns_from(grid, a, b, self.col) else {
            return;
        };
        if self.col != first {
            self.flush();
            self.col = first;
        }
        self.part(value, grid.cover(a, b, first));
        if last > first {
            self.flush();
            if last > first + 1 {
                self.push(first + 1, last, value, false, 1);
            }
            self.col = last;
            self.part(value, grid.cover(a, b, last));
        }
    }

    /// The spans, once every state is in.
    pub(crate) fn finish(mut self) -> Vec<StateSpan> {
        self.flush();
        self.spans
    }
}

/// The columns of `[a, b]` ([`Grid::columns`]), none before `col` (the
/// current column, or [`NONE`]): out of order (a list the index could not
/// vouch for), what falls before the current column is counted in it.
#[inline]
fn columns_from(grid: &Grid, a: f64, b: f64, col: u32) -> Option<(u32, u32)> {
    let (mut first, mut last) = grid.columns(a, b)?;
    if col != NONE && first < col {
        first = col;
        last = last.max(first);
    }
    Some((first, last))
}

/// One variable, column after column.
#[derive(Debug)]
pub(crate) struct VarCells {
    col: u32,
    cur: Option<(f64, f64, f64)>,
    spans: Vec<VarSpan>,
}

impl VarCells {
    pub(crate) fn new() -> VarCells {
        VarCells {
            col: NONE,
            cur: None,
            spans: Vec::new(),
        }
    }

    fn push(&mut self, x0: u32, x1: u32, (min, max, last): (f64, f64, f64)) {
        if let Some(s) = self.spans.last_mut() {
            if s.x1 == x0 && s.min == min && s.max == max && s.last == last {
                s.x1 = x1;
                return;
            }
        }
        self.spans.push(VarSpan {
            x0,
            x1,
            min,
            max,
            last,
        });
    }

    fn flush(&mut self) {
        if let Some(c) = self.cur.take() {
            self.push(self.col, self.col + 1, c);
        }
    }

    fn put(&mut self, v: f64) {
        self.cur = Some(match self.cur {
            Some((lo, hi, _)) => (lo.min(v), hi.max(v), v),
            None => (v, v, v),
        });
    }

    /// Adds the value `v` held over `[a, b]` (values come in time order).
    pub(crate) fn add(&mut self, grid: &Grid, a: f64, b: f64, v: f64) {
        let Some((first, last)) = columns_from(grid, a, b, self.col) else {
            return;
        };
        if self.col != first {
            self.flush();
            self.col = first;
        }
        self.put(v);
        if last > first {
            self.flush();
            if last > first + 1 {
                self.push(first + 1, last, (v, v, v));
            }
            self.col = last;
            self.put(v);
        }
    }

    /// The spans, once every value is in.
    pub(crate) fn finish(mut self) -> Vec<VarSpan> {
        self.flush();
        self.spans
    }
}

/// Counts of sorted or unsorted columns.
pub(crate) fn counts(mut cols: Vec<u32>) -> Vec<ColumnCount> {
    cols.sort_unstable();
    let mut out: Vec<ColumnCount> = Vec::new();
    for x in cols {
        match out.last_mut() {
            Some(c) if c.x == x => c.count += 1,
            _ => out.push(ColumnCount { x, count: 1 }),
        }
    }
    out
}
