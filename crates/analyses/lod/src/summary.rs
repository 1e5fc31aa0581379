//! What a window shows at a given width: [`Lod::summarize`].

use std::collections::HashMap;

use trama_sim::{ContainerId, ListId, TypeId, TypeKind, ValueId};

use crate::cells::{counts, ColumnCount, StateCells, StateSpan, VarCells, VarSpan};
use crate::grid::Grid;
use crate::index::Lod;
use crate::rows::Row;
use crate::MAX_LEVELS;

/// What to summarize.
#[derive(Clone, Debug)]
#[non_exhaustive]
pub struct Query {
    /// The time window; `None`: the whole trace (its root's lifetime).
    pub window: Option<(f64, f64)>,
    /// Number of pixel columns.
    pub width: u32,
    /// Up to this many links in the window are all given one by one.
    pub max_links: usize,
    /// Beyond [`Query::max_links`], links are given one by one only where
    /// they are sparse: in blocks of this many columns where at most
    /// [`Query::links_per_block`] links begin, as in each neighbouring
    /// block; the others are counted per row and column ([`RowSummary::sent`], [`RowSummary::received`]).
    pub link_block: u32,
    /// See [`Query::link_block`].
    pub links_per_block: u32,
    /// The link types shown; `None`: every one.
    pub link_types: Option<Vec<TypeId>>,
    /// Only links whose earlier end is at or after this time: summaries of
    /// consecutive windows that each start where the previous one ends
    /// then count a link crossing their border once, in the window where
    /// it begins.
    pub links_from: Option<f64>,
}

impl Default for Query {
    fn default() -> Query {
        Query {
            window: None,
            width: 1920,
            max_links: 200,
            link_block: 16,
            links_per_block: 8,
            link_types: None,
            links_from: None,
        }
    }
}

/// The states of one state type of a row.
#[derive(Clone, Debug, PartialEq)]
pub struct StateBand {
    /// The list (the state type in the row's container).
    pub list: ListId,
    /// Per nesting level (0: outermost, at most [`MAX_LEVELS`]), the
    /// columns where states of that level are.
    pub levels: Vec<Vec<StateSpan>>,
}

/// What one row shows in the window.
#[derive(Clone, Debug, PartialEq)]
pub struct RowSummary {
    /// The row.
    pub row: Row,
    /// The container's state types with states in the window (none on a
    /// variable's row).
    pub states: Vec<StateBand>,
    /// Events of the container, all types together, per column.
    pub events: Vec<ColumnCount>,
    /// The variable of a variable's row, per column.
    pub variable: Vec<VarSpan>,
    /// Links counted as density ([`Links::dense`]) leaving this row, per
    /// column of their start.
    pub sent: Vec<ColumnCount>,
    /// Links counted as density arriving at this row, per column of their
    /// end.
    pub received: Vec<ColumnCount>,
    /// Links of the window with an end on this row (given one by one or
    /// not).
    pub links: u64,
}

impl RowSummary {
    /// A row with nothing in the window.
    pub fn empty(row: Row) -> RowSummary {
        RowSummary {
            row,
            states: Vec::new(),
            events: Vec::new(),
            variable: Vec::new(),
            sent: Vec::new(),
            received: Vec::new(),
            links: 0,
        }
    }

    /// True when the row has nothing in the window.
    pub fn is_empty(&self) -> bool {
        self.states.is_empty()
            && self.events.is_empty()
            && self.variable.is_empty()
            && self.links == 0
    }
}

/// One link given one by one.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct LinkItem {
    /// Its list.
    pub list: ListId,
    /// Its index in the list.
    pub index: u32,
    /// Row of its start container (index into [`Summary::rows`]).
    pub from: u32,
    /// Row of its end container.
    pub to: u32,
    /// Start time.
    pub start: f64,
    /// End time.
    pub end: f64,
    /// Its value.
    pub value: ValueId,
}

/// The links of the window.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Links {
    /// Links in the window between two rows.
    pub total: u64,
    /// Those given one by one, by list and index.
    pub each: Vec<LinkItem>,
    /// Those counted per row and column instead (`total - each.len()`).
    pub dense: u64,
    /// Links in the window whose start or end container has no row.
    pub unplaced: u64,
}

/// What a window shows at a given width: per row, per pixel column, the
/// dominant state of each nesting level, events, a variable's range, and
/// the links. Its size grows with rows × width, not with the trace.
#[derive(Clone, Debug, PartialEq)]
pub struct Summary {
    /// The window and its columns.
    pub grid: Grid,
    /// One per row asked for, in the same order.
    pub rows: Vec<RowSummary>,
    /// The links.
    pub links: Links,
}

impl Lod<'_> {
    /// Summarizes `rows` over the window of `q` at `q.width` columns.
    pub fn summarize(&self, rows: &[Row], q: &Query) -> Summary {
        let trace = self.trace;
        let m = &trace.model;
        let (t0, t1) = q.window.unwrap_or((trace.start_time(), trace.end_time()));
        let grid = Grid::new(t0, t1, q.width);
        let mut out: Vec<RowSummary> = rows
            .iter()
            .map(|&row| {
                let mut s = RowSummary::empty(row);
                match row.variable {
                    Some(l) => s.variable = self.variable(l, &grid),
                    None => {
                        let mut events = Vec::new();
                        for &(_, l) in &m.container(row.container).lists {
                            match m.list(l).kind {
                                TypeKind::State => {
                                    let band = self.states(l, &grid);
                                    if !band.levels.is_empty() {
                                        s.states.push(band);
                                    }
                                }
                                TypeKind::Event => self.events(l, &grid, &mut events),
                                _ => {}
                            }
                        }
                        s.events = counts(events);
                    }
                }
                s
            })
            .collect();
        let links = self.links(&mut out, &grid, q);
        Summary {
            grid,
            rows: out,
            links,
        }
    }

    fn states(&self, list: ListId, grid: &Grid) -> StateBand {
        let c = self.trace.columns(list);
        let mut levels: Vec<StateCells> = Vec::new();
        self.candidates(list, grid, |i| {
            let level = c.level.get(i).copied().unwrap_or(0) as usize;
            if level >= MAX_LEVELS {
                return;
            }
            if levels.len() <= level {
                levels.resize_with(level + 1, StateCells::new);
            }
            levels[level].add(grid, c.start[i], c.end[i], c.value[i]);
        });
        let mut levels: Vec<Vec<StateSpan>> = levels.into_iter().map(StateCells::finish).collect();
        while levels.last().is_some_and(|l| l.is_empty()) {
            levels.pop();
        }
        StateBand { list, levels }
    }

    fn events(&self, list: ListId, grid: &Grid, cols: &mut Vec<u32>) {
        let c = self.trace.columns(list);
        self.candidates(list, grid, |i| {
            if let Some(x) = grid.column(c.start[i]) {
                cols.push(x);
            }
        });
    }

    fn variable(&self, list: ListId, grid: &Grid) -> Vec<VarSpan> {
        let c = self.trace.columns(list);
        let mut cells = VarCells::new();
        self.candidates(list, grid, |i| {
            cells.add(grid, c.start[i], c.end[i], c.number[i]);
        });
        cells.finish()
    }

    fn links(&self, rows: &mut [RowSummary], grid: &Grid, q: &Query) -> Links {
        let m = &self.trace.model;
        let row_of: HashMap<ContainerId, u32> = rows
            .iter()
            .enumerate()
            .filter(|(_, r)| r.row.variable.is_none())
            .map(|(i, r)| (r.row.container, i as u32))
            .collect();
        let mut links = Links::default();
        let mut all: Vec<LinkItem> = Vec::new();
        for (l, info) in m.lists.iter().enumerate() {
            let list = ListId(l as u32);
            if info.kind != TypeKind::Link
                || q.link_types.as_ref().is_some_and(|t| !t.contains(&info.ty))
            {
                continue;
            }
            let c = self.trace.columns(list);
            self.candidates(list, grid, |i| {
                let (s, e) = (c.start[i], c.end[i]);
                if grid.columns(s.min(e), s.max(e)).is_none()
                    || q.links_from.is_some_and(|t| s.min(e) < t)
                {
                    return;
                }
                let row = |x: u32| row_of.get(&ContainerId(x)).copied();
                match (row(c.from[i]), row(c.to[i])) {
                    (Some(from), Some(to)) => all.push(LinkItem {
                        list,
                        index: i as u32,
                        from,
                        to,
                        start: s,
                        end: e,
                        value: c.value[i],
                    }),
                    _ => links.unplaced += 1,
                }
            });
        }
        links.total = all.len() as u64;
        let col = |t: f64| grid.column(t.clamp(grid.t0, grid.t1)).unwrap_or(0);
        for k in &all {
            rows[k.from as usize].links += 1;
            if k.to != k.from {
                rows[k.to as usize].links += 1;
            }
        }
        if all.len() <= q.max_links {
            links.each = all;
            return links;
        }
        let block = q.link_block.max(1);
        let mut per_block = vec![0u32; (grid.width / block + 1) as usize];
        for k in &all {
            per_block[(col(k.start) / block) as usize] += 1;
        }
        let mut sent: Vec<Vec<u32>> = vec![Vec::new(); rows.len()];
        let mut received: Vec<Vec<u32>> = vec![Vec::new(); rows.len()];
        // A block is sparse when it and its neighbours are: the edge of a
        // burst is part of the burst.
        // The last block may be narrower: its count is scaled to a whole
        // block's width.
        let count = |b: usize| {
            let w = block.min(grid.width - (b as u32 * block).min(grid.width));
            per_block[b] as u64 * block as u64 / w.max(1) as u64
        };
        let busy = |b: usize| {
            let before = b.checked_sub(1).map_or(0, count);
            let after = if b + 1 < per_block.len() {
                count(b + 1)
            } else {
                0
            };
            count(b).max(before).max(after)
        };
        for k in all {
            if busy((col(k.start) / block) as usize) <= q.links_per_block as u64 {
                links.each.push(k);
            } else {
                links.dense += 1;
                sent[k.from as usize].push(col(k.start));
                received[k.to as usize].push(col(k.end));
            }
        }
        for (r, (s, v)) in rows.iter_mut().zip(sent.into_iter().zip(received)) {
            r.sent = counts(s);
            r.received = counts(v);
        }
        links
    }
}
