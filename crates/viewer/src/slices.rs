//! One pass over a trace read by blocks ([`crate::blocks`]): slice after
//! slice (a few blocks each, one slice replayed at a time), it gathers
//! what the server needs of the whole trace without holding it:
//!
//! - the reference model: the model with every list of every slice, so
//!   that rows name each variable once (windows number lists in an order
//!   of their own);
//! - the summary of the whole trace at [`BASE`] columns for the pyramid:
//!   slices are cut on the base's column borders, so each slice fills its
//!   own columns and nothing is counted twice; links are placed in the
//!   slice where they begin (their earlier end);
//! - the link tally (which link types are messages), the messages per
//!   pair (the seed's host order), the containers with states (the host
//!   level of a trace without messages), entity counts and time span;
//! - per slice, the values its states and events take, so a search
//!   replays only the slices that hold what it looks for.

use std::collections::{HashMap, HashSet};
use std::sync::atomic::{AtomicU64, Ordering};

use trama_lod::{
    ColumnCount, Grid, LinkItem, Links, Query, Row, RowSummary, StateBand, StateSpan, Summary,
    VarSpan,
};
use trama_sim::{ContainerId, ListId, Trace, TypeId, TypeKind, ValueId};

use crate::blocks::{list_of, Blocks};
use crate::meta::Counts;
use crate::pyramid::{BASE, FEW_LINKS};

/// Events frames per slice.
const SLICE_BLOCKS: usize = 4;

/// A row by what it shows: a container, and a variable's type.
type RowKey = (ContainerId, Option<TypeId>);

/// A slice of the trace: `[t0, t1]`, and the values its states and
/// events take (by value id).
pub(crate) struct Slice {
    pub t0: f64,
    pub t1: f64,
    pub values: Vec<bool>,
}

/// What a row shows over the whole trace, gathered slice by slice.
#[derive(Default)]
struct RowParts {
    states: Vec<(TypeId, Vec<Vec<StateSpan>>)>,
    events: Vec<ColumnCount>,
    variable: Vec<VarSpan>,
}

/// What the pass gathered.
pub(crate) struct Gathered {
    /// The model with every list, and no entity.
    pub reference: Trace,
    /// Its rows.
    pub rows: Vec<Row>,
    /// The whole trace at [`BASE`] columns over `rows`.
    pub base: Summary,
    /// Per link type, its links and whether one lasts some time.
    pub tally: Vec<(u64, bool)>,
    /// Links per (type, from, to).
    pub pairs: HashMap<(TypeId, ContainerId, ContainerId), u64>,
    /// Containers with states.
    pub with_states: HashSet<ContainerId>,
    /// Entity counts.
    pub counts: Counts,
    /// Earliest and latest time of an entity or a container.
    pub span: (f64, f64),
    /// The slices.
    pub slices: Vec<Slice>,
}

/// A link seen in a slice: type, ends, start, end, value.
type SeenLink = (TypeId, ContainerId, ContainerId, f64, f64, ValueId);

/// The pass's state.
struct Pass {
    reference: Option<Trace>,
    known: HashSet<(ContainerId, TypeId)>,
    rows: HashMap<RowKey, RowParts>,
    /// Links one by one while there are at most [`FEW_LINKS`].
    each: Vec<SeenLink>,
    /// Per (type, container): links leaving, per base column of their
    /// start; arriving, per base column of their end.
    sent: HashMap<(TypeId, ContainerId), Vec<u32>>,
    received: HashMap<(TypeId, ContainerId), Vec<u32>>,
    tally: Vec<(u64, bool)>,
    pairs: HashMap<(TypeId, ContainerId, ContainerId), u64>,
    with_states: HashSet<ContainerId>,
    counts: Counts,
    span: (f64, f64),
    slices: Vec<Slice>,
}

/// The base columns where slices begin: on the column borders at the
/// first time of every [`SLICE_BLOCKS`]th events frame.
fn borders(frames: &[(f64, f64)], grid: &Grid) -> Vec<u32> {
    let mut out = vec![0u32];
    for f in frames.iter().step_by(SLICE_BLOCKS).skip(1) {
        let c = (((f.0 - grid.t0) / grid.column_time()).floor().max(0.0) as u32).min(grid.width);
        if c > *out.last().expect("one border") && c < grid.width {
            out.push(c);
        }
    }
    out.push(grid.width);
    out
}

/// Shifts spans and counts by `dx` columns.
fn shift_states(levels: Vec<Vec<StateSpan>>, dx: u32) -> Vec<Vec<StateSpan>> {
    levels
        .into_iter()
        .map(|l| {
            l.into_iter()
                .map(|s| StateSpan {
                    x0: s.x0 + dx,
                    x1: s.x1 + dx,
                    ..s
                })
                .collect()
        })
        .collect()
}

/// Replays the slice of base columns `[c0, c1)` and summarizes its states,
/// events and variables at those columns.
fn replay_slice(
    blocks: &Blocks,
    grid: &Grid,
    (c0, c1): (u32, u32),
) -> Result<(Trace, Summary), String> {
    let (t0, t1) = (grid.time_of(c0), grid.time_of(c1));
    let trace = blocks.replay(t0, t1)?;
    blocks.release();
    let lod = trama_lod::Lod::new(&trace);
    let rows = trama_lod::rows(&trace, None);
    let mut q = Query::default();
    q.window = Some((t0, t1));
    q.width = c1 - c0;
    q.link_types = Some(Vec::new());
    let s = lod.summarize(&rows, &q);
    drop(lod);
    Ok((trace, s))
}

impl Pass {
    /// Adds the slice `[t0, t1]` (base columns `[c0, c1)`) of `trace`,
    /// whose states, events and variables `s` summarizes.
    fn add(&mut self, trace: &Trace, s: Summary, grid: &Grid, (c0, c1): (u32, u32), last: bool) {
        let (t0, t1) = (grid.time_of(c0), grid.time_of(c1));
        let m = &trace.model;
        match &mut self.reference {
            None => {
                self.reference = Some(Trace {
                    model: m.clone(),
                    lists: Vec::new(),
                    key_bytes: Vec::new(),
                    extras_pool: Vec::new(),
                    warnings: Vec::new(),
                });
                for l in &m.lists {
                    self.known.insert((l.container, l.ty));
                }
            }
            Some(r) => {
                for l in &m.lists {
                    if self.known.insert((l.container, l.ty)) {
                        let id = ListId(r.model.lists.len() as u32);
                        r.model.lists.push(*l);
                        r.model.containers[l.container.0 as usize]
                            .lists
                            .push((l.ty, id));
                    }
                }
            }
        }
        // States, events and variables, at the base's columns.
        for r in s.rows {
            let key = (r.row.container, r.row.variable.map(|l| m.list(l).ty));
            let parts = self.rows.entry(key).or_default();
            for band in r.states {
                let ty = m.list(band.list).ty;
                let levels = shift_states(band.levels, c0);
                match parts.states.iter_mut().find(|b| b.0 == ty) {
                    Some(b) => {
                        if b.1.len() < levels.len() {
                            b.1.resize(levels.len(), Vec::new());
                        }
                        for (into, l) in b.1.iter_mut().zip(levels) {
                            into.extend(l);
                        }
                    }
                    None => parts.states.push((ty, levels)),
                }
            }
            parts
                .events
                .extend(r.events.iter().map(|c| ColumnCount { x: c.x + c0, ..*c }));
            parts.variable.extend(r.variable.iter().map(|v| VarSpan {
                x0: v.x0 + c0,
                x1: v.x1 + c0,
                ..*v
            }));
        }
        // Entities, counted where they begin; links placed there.
        let begins = |t: f64| (t >= t0 || c0 == 0) && (t < t1 || last);
        let col = |t: f64| {
            (((t - grid.t0) / grid.column_time()).floor().max(0.0) as usize)
                .min(grid.width as usize - 1)
        };
        let mut values = vec![false; m.values.len()];
        for (l, info) in m.lists.iter().enumerate() {
            let cols = &trace.lists[l];
            for i in 0..cols.len() {
                let (s, e) = (cols.start[i], cols.end[i]);
                let first = s.min(e);
                if begins(first) {
                    self.span.0 = self.span.0.min(first);
                    self.span.1 = self.span.1.max(s.max(e));
                } else if info.kind != TypeKind::Link {
                    continue;
                }
                match info.kind {
                    TypeKind::State | TypeKind::Event => {
                        values[cols.value[i].0 as usize] = true;
                        if info.kind == TypeKind::State {
                            self.counts.states += 1;
                            self.with_states.insert(info.container);
                        } else {
                            self.counts.events += 1;
                        }
                    }
                    TypeKind::Variable => self.counts.variables += 1,
                    TypeKind::Link => {
                        if !begins(first) {
                            continue;
                        }
                        self.counts.links += 1;
                        let ty = info.ty;
                        let t = &mut self.tally;
                        if t.len() <= ty.0 as usize {
                            t.resize(ty.0 as usize + 1, (0, false));
                        }
                        t[ty.0 as usize].0 += 1;
                        t[ty.0 as usize].1 |= e > s;
                        let (from, to) = (ContainerId(cols.from[i]), ContainerId(cols.to[i]));
                        *self.pairs.entry((ty, from, to)).or_default() += 1;
                        if self.counts.links <= FEW_LINKS {
                            self.each.push((ty, from, to, s, e, cols.value[i]));
                        }
                        let width = grid.width as usize;
                        self.sent
                            .entry((ty, from))
                            .or_insert_with(|| vec![0; width])[col(s)] += 1;
                        self.received
                            .entry((ty, to))
                            .or_insert_with(|| vec![0; width])[col(e)] += 1;
                    }
                    TypeKind::Container => {}
                }
            }
        }
        self.slices.push(Slice { t0, t1, values });
    }

    /// The gathered whole, links of `link_types` only (`None`: all).
    fn finish(self, grid: Grid, link_types: impl Fn(TypeId) -> bool) -> Gathered {
        let mut reference = self.reference.expect("one slice at least");
        reference.lists = vec![Default::default(); reference.model.lists.len()];
        let rows = trama_lod::rows(&reference, None);
        let mut parts = self.rows;
        let few = self.counts.links <= FEW_LINKS;
        let mut links = Links::default();
        let index: HashMap<ContainerId, u32> = rows
            .iter()
            .enumerate()
            .filter(|(_, r)| r.variable.is_none())
            .map(|(i, r)| (r.container, i as u32))
            .collect();
        let mut per_row = vec![0u64; rows.len()];
        if few {
            for &(ty, from, to, s, e, value) in self.each.iter().filter(|l| link_types(l.0)) {
                match (index.get(&from), index.get(&to)) {
                    (Some(&f), Some(&t)) => {
                        per_row[f as usize] += 1;
                        if t != f {
                            per_row[t as usize] += 1;
                        }
                        links.each.push(LinkItem {
                            list: list_of(&reference, from, ty).unwrap_or(ListId(0)),
                            index: 0,
                            from: f,
                            to: t,
                            start: s,
                            end: e,
                            value,
                        });
                    }
                    _ => links.unplaced += 1,
                }
            }
        }
        // Density: the columns' counts of a row's links, all types shown.
        let density = |maps: &HashMap<(TypeId, ContainerId), Vec<u32>>, c: ContainerId| {
            let mut sum: Option<Vec<u32>> = None;
            for ((ty, k), v) in maps {
                if *k != c || !link_types(*ty) {
                    continue;
                }
                match &mut sum {
                    Some(s) => s.iter_mut().zip(v).for_each(|(a, b)| *a += b),
                    None => sum = Some(v.clone()),
                }
            }
            sum.map(|s| {
                s.iter()
                    .enumerate()
                    .filter(|(_, n)| **n > 0)
                    .map(|(x, n)| ColumnCount {
                        x: x as u32,
                        count: *n,
                    })
                    .collect::<Vec<_>>()
            })
            .unwrap_or_default()
        };
        let out = rows
            .iter()
            .enumerate()
            .map(|(i, row)| {
                let m = &reference.model;
                let key = (row.container, row.variable.map(|l| m.list(l).ty));
                let p = parts.remove(&key).unwrap_or_default();
                let (sent, received) = if few || row.variable.is_some() {
                    (Vec::new(), Vec::new())
                } else {
                    let s = density(&self.sent, row.container);
                    let r = density(&self.received, row.container);
                    links.dense += s.iter().map(|c| c.count as u64).sum::<u64>();
                    (s, r)
                };
                RowSummary {
                    row: *row,
                    states: p
                        .states
                        .into_iter()
                        .filter_map(|(ty, levels)| {
                            Some(StateBand {
                                list: list_of(&reference, row.container, ty)?,
                                levels,
                            })
                        })
                        .collect(),
                    events: p.events,
                    variable: p.variable,
                    links: per_row[i]
                        + sent
                            .iter()
                            .chain(&received)
                            .map(|c| c.count as u64)
                            .sum::<u64>(),
                    sent,
                    received,
                }
            })
            .collect();
        links.total = links.dense + links.each.len() as u64;
        let span = if self.span.0 <= self.span.1 {
            self.span
        } else {
            (f64::INFINITY, f64::NEG_INFINITY)
        };
        let mut counts = self.counts;
        counts.containers = reference.model.containers.len();
        Gathered {
            base: Summary {
                grid,
                rows: out,
                links,
            },
            reference,
            rows,
            tally: self.tally,
            pairs: self.pairs,
            with_states: self.with_states,
            counts,
            span,
            slices: self.slices,
        }
    }
}

/// Reads `blocks` slice by slice (see the module documentation), adding
/// to `done` the events frames read. Links of the types `link_types`
/// keeps (given the link tally) are drawn.
pub(crate) fn gather(
    blocks: &Blocks,
    done: Option<&AtomicU64>,
    link_types: impl Fn(&Trace, &[(u64, bool)]) -> Option<Vec<TypeId>>,
) -> Result<Gathered, String> {
    let started = std::time::Instant::now();
    let frames = blocks.frames();
    // The trace's lifetime, from the window of its first instant.
    let first = blocks.model()?;
    // The trace's events and containers (as `meta` counts them).
    let (lo, hi) = frames
        .iter()
        .fold((f64::INFINITY, f64::NEG_INFINITY), |a, f| {
            (a.0.min(f.0), a.1.max(f.1))
        });
    let m = &first.model;
    let (lo, hi) = m
        .containers
        .iter()
        .fold((lo, hi), |a, c| (a.0.min(c.start), a.1.max(c.end)));
    let grid = Grid::new(lo, hi.max(lo), BASE);
    drop(first);
    let borders = borders(frames, &grid);
    let mut pass = Pass {
        reference: None,
        known: HashSet::new(),
        rows: HashMap::new(),
        each: Vec::new(),
        sent: HashMap::new(),
        received: HashMap::new(),
        tally: Vec::new(),
        pairs: HashMap::new(),
        with_states: HashSet::new(),
        counts: Counts::default(),
        span: (f64::INFINITY, f64::NEG_INFINITY),
        slices: Vec::new(),
    };
    // Slices are replayed and summarized on a thread of their own while
    // this one adds up the previous one (at most two slices held).
    let spans: Vec<(u32, u32)> = borders.windows(2).map(|w| (w[0], w[1])).collect();
    std::thread::scope(|scope| {
        let (tx, rx) = std::sync::mpsc::sync_channel(0);
        let (spans, grid) = (&spans, &grid);
        scope.spawn(move || {
            for &span in spans {
                let r = replay_slice(blocks, grid, span);
                let failed = r.is_err();
                if tx.send(r).is_err() || failed {
                    return;
                }
            }
        });
        for (k, &(c0, c1)) in spans.iter().enumerate() {
            let (trace, s) = rx.recv().map_err(|e| e.to_string())??;
            pass.add(&trace, s, grid, (c0, c1), k + 1 == spans.len());
            if let Some(d) = done {
                let upto = frames.iter().filter(|f| f.0 < grid.time_of(c1)).count();
                d.store(upto as u64, Ordering::Relaxed);
            }
        }
        Ok::<(), String>(())
    })?;
    if std::env::var_os("TRAMA_TIMINGS").is_some() {
        let spans: usize = pass
            .rows
            .values()
            .map(|r| {
                r.states
                    .iter()
                    .flat_map(|b| &b.1)
                    .map(Vec::len)
                    .sum::<usize>()
                    + r.events.len()
                    + r.variable.len()
            })
            .sum();
        eprintln!(
            "trama: timings: view: {} slices gathered in {:.0} ms; summary of {} spans, density maps {}",
            borders.len() - 1,
            started.elapsed().as_secs_f64() * 1e3,
            spans,
            pass.sent.len() + pass.received.len()
        );
    }
    let tally = pass.tally.clone();
    let shown = {
        let r = pass.reference.as_ref().expect("one slice at least");
        link_types(r, &tally)
    };
    Ok(pass.finish(grid, |t| shown.as_ref().is_none_or(|s| s.contains(&t))))
}
