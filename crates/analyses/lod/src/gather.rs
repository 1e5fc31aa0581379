//! One pass over a trace read by blocks ([`BlockSource`]: a `.ptb` whose
//! windows are replayed from their keyframes): stretch after stretch (a
//! few blocks each, one stretch replayed at a time), it gathers what a
//! viewer needs of the whole trace without holding it:
//!
//! - the reference model: the model with every list of every stretch, so
//!   that rows name each variable once (windows number lists in an order
//!   of their own);
//! - the summary of the whole trace at [`BASE`] columns for the pyramid:
//!   stretches are cut on the base's column borders, so each stretch fills
//!   its own columns and nothing is counted twice; links are placed in the
//!   stretch where they begin (their earlier end);
//! - the link tally (which link types are messages), the messages per
//!   pair (the seed's host order), the containers with states (the host
//!   level of a trace without messages), entity counts and time span;
//! - per stretch, the values its states and events take, so a search
//!   replays only the stretches that hold what it looks for.
//!
//! [`crate::saved`] keeps what it gathered, so that the next view of the
//! same file starts without this pass.

use std::collections::{HashMap, HashSet};
use std::sync::atomic::{AtomicU64, Ordering};

use trama_sim::{ContainerId, ListId, Trace, TypeId, TypeKind, ValueId};

use crate::pyramid::{BASE, FEW_LINKS};
use crate::{
    ColumnCount, Grid, LinkItem, Links, Query, Row, RowSummary, StateBand, StateSpan, Summary,
    VarSpan,
};

/// A trace read by blocks, as the pass reads it.
pub trait BlockSource: Sync {
    /// `(t_min, t_max)` of each block (events frame), in file order.
    fn frames(&self) -> &[(f64, f64)];
    /// The trace's model (containers, types, values) with no list.
    fn model(&self) -> Result<Trace, String>;
    /// The entities overlapping `[t0, t1]`, replayed (the memory the
    /// replay read given back).
    fn replay(&self, t0: f64, t1: f64) -> Result<Trace, String>;
}

/// Entity counts of a whole trace.
#[derive(Clone, Debug, Default, serde::Serialize)]
pub struct Counts {
    /// Containers.
    pub containers: usize,
    /// States.
    pub states: usize,
    /// Events.
    pub events: usize,
    /// Variable values.
    pub variables: usize,
    /// Links.
    pub links: usize,
}

/// Events frames per stretch.
const STRETCH_BLOCKS: usize = 4;

/// A row by what it shows: a container, and a variable's type.
type RowKey = (ContainerId, Option<TypeId>);

/// A stretch of the trace: `[t0, t1]`, and the values its states and
/// events take.
pub struct Stretch {
    /// Its first time.
    pub t0: f64,
    /// Its last time.
    pub t1: f64,
    /// Per value id, whether a state or event of the stretch takes it.
    pub values: Vec<bool>,
}

/// What a row shows over the whole trace, gathered stretch by stretch.
#[derive(Default)]
struct RowParts {
    states: Vec<(TypeId, Vec<Vec<StateSpan>>)>,
    events: Vec<ColumnCount>,
    variable: Vec<VarSpan>,
}

/// What the pass gathered.
pub struct Gathered {
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
    /// The stretches, in time order.
    pub stretches: Vec<Stretch>,
}

/// A link seen in a stretch: type, ends, start, end, value.
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
    stretches: Vec<Stretch>,
}

/// The base columns where stretches begin: on the column borders at the
/// first time of every [`STRETCH_BLOCKS`]th events frame.
fn borders(frames: &[(f64, f64)], grid: &Grid) -> Vec<u32> {
    let mut out = vec![0u32];
    for f in frames.iter().step_by(STRETCH_BLOCKS).skip(1) {
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

/// Replays the stretch of base columns `[c0, c1)` and summarizes its
/// states, events and variables at those columns.
fn replay_stretch(
    blocks: &impl BlockSource,
    grid: &Grid,
    (c0, c1): (u32, u32),
) -> Result<(Trace, Summary), String> {
    let (t0, t1) = (grid.time_of(c0), grid.time_of(c1));
    let trace = blocks.replay(t0, t1)?;
    let lod = crate::Lod::new(&trace);
    let rows = crate::rows(&trace, None);
    let q = Query {
        window: Some((t0, t1)),
        width: c1 - c0,
        link_types: Some(Vec::new()),
        ..Query::default()
    };
    let s = lod.summarize(&rows, &q);
    drop(lod);
    Ok((trace, s))
}

impl Pass {
    /// Adds the stretch `[t0, t1]` (base columns `[c0, c1)`) of `trace`,
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
        self.stretches.push(Stretch { t0, t1, values });
    }

    /// The gathered whole, links of `link_types` only (`None`: all).
    fn finish(self, grid: Grid, link_types: impl Fn(TypeId) -> bool) -> Gathered {
        let mut reference = self.reference.expect("one stretch at least");
        reference.lists = vec![Default::default(); reference.model.lists.len()];
        let rows = crate::rows(&reference, None);
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
                            list: reference.model.list_of(from, ty).unwrap_or(ListId(0)),
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
                                list: reference.model.list_of(row.container, ty)?,
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
            stretches: self.stretches,
        }
    }
}

/// Reads `blocks` stretch by stretch (see the module documentation),
/// adding to `done` the events frames read. Links of the types
/// `link_types` keeps (given the link tally) are drawn.
pub fn gather(
    blocks: &impl BlockSource,
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
        stretches: Vec::new(),
    };
    // Stretches are replayed and summarized on a thread of their own while
    // this one adds up the previous one (at most two stretches held).
    let spans: Vec<(u32, u32)> = borders.windows(2).map(|w| (w[0], w[1])).collect();
    std::thread::scope(|scope| {
        let (tx, rx) = std::sync::mpsc::sync_channel(0);
        let (spans, grid) = (&spans, &grid);
        scope.spawn(move || {
            for &span in spans {
                let r = replay_stretch(blocks, grid, span);
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
            "trama: timings: view: {} stretches gathered in {:.0} ms; summary of {} spans, density maps {}",
            borders.len() - 1,
            started.elapsed().as_secs_f64() * 1e3,
            spans,
            pass.sent.len() + pass.received.len()
        );
    }
    let tally = pass.tally.clone();
    let shown = {
        let r = pass.reference.as_ref().expect("one stretch at least");
        link_types(r, &tally)
    };
    Ok(pass.finish(grid, |t| shown.as_ref().is_none_or(|s| s.contains(&t))))
}
