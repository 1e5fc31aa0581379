//! Two runs compared: their profiles side by side and their difference,
//! with the time on the critical path and in each wait-state pattern when
//! the runs have MPI calls (`trama diff A B`, and the diff panel of
//! `trama view A B`; the printed forms are `trama-report`'s `write_diff`,
//! documented in `docs/stats-formats.md`).
//!
//! # What is compared
//!
//! - Each run's length (the trace's end minus its start).
//! - Per state value (a region: `MPI_Recv`, `compute`, …): the exclusive
//!   time summed over every container (state types merged: a value is its
//!   name), as `trama stats states` gives it; with [`DiffBy::Container`]
//!   per (container, value). Containers are matched by name, or by the
//!   group a mapping gives them ([`Groups`]), so runs of different process
//!   counts compare by groups (all processes as one, per host, or a file).
//! - Per value, the seconds on the critical path (`trama stats
//!   critical-path`), when both runs have MPI calls.
//! - Per wait-state pattern, the seconds waited (`trama stats waits`).
//! - With an iteration's value ([`DiffOptions::iteration`]): per
//!   iteration (the n-th state of that value on every container, from the
//!   earliest start to the latest end, [`iteration_windows`]) its length
//!   and the time per value within it. `auto` finds the value from a
//!   repeated region ([`find_iteration`]).
//!
//! A missing row on one side counts as 0 s. A run diffed with itself gives
//! zeros everywhere.

use std::collections::{BTreeMap, HashMap};

use serde::Serialize;
use trama_analysis::{time_per_state, Window};
use trama_sim::Trace;

use crate::{critical_path, wait_states, Pattern, Run, RunOptions};

/// An argument of a diff is wrong: a mapping of containers to groups that
/// cannot be read (the message names the file, the line and the text), a
/// guarded value in neither run.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct DiffError(pub String);

/// What the rows of a diff are per.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
#[non_exhaustive]
pub enum DiffBy {
    /// Per state value, over every container.
    #[default]
    Value,
    /// Per (container or group, state value).
    Container,
}

impl DiffBy {
    /// Every choice with its name on the command line and a line of help.
    pub const ALL: [(DiffBy, &'static str, &'static str); 2] = [
        (
            DiffBy::Value,
            "value",
            "Per state value, over every container",
        ),
        (
            DiffBy::Container,
            "container",
            "Per container (or group) and state value",
        ),
    ];
}

/// Which group each container belongs to, by name: containers of two runs
/// with the same group are compared as one.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Groups {
    by_name: HashMap<String, String>,
    /// The group of containers the mapping does not name (`None`: their
    /// own name).
    pub others: Option<String>,
}

impl Groups {
    /// Every container in one group named `name`.
    pub fn all(name: &str) -> Groups {
        Groups {
            by_name: HashMap::new(),
            others: Some(name.to_string()),
        }
    }

    /// A mapping read from `text`: one `CONTAINER GROUP` per line (the
    /// group is the last word, the container the words before it), blank
    /// lines and lines starting with `#` skipped; `what` names the text in
    /// errors.
    pub fn parse(text: &str, what: &str) -> Result<Groups, DiffError> {
        let mut by_name = HashMap::new();
        for (i, line) in text.lines().enumerate() {
            let line = line.trim();
            if line.is_empty() || line.starts_with('#') {
                continue;
            }
            let Some((container, group)) = line.rsplit_once(char::is_whitespace) else {
                let shown: String = line.chars().take(80).collect();
                return Err(DiffError(format!(
                    "{what}:{}: a line is `CONTAINER GROUP`, not '{shown}'",
                    i + 1
                )));
            };
            by_name.insert(container.trim().to_string(), group.to_string());
        }
        Ok(Groups {
            by_name,
            others: None,
        })
    }

    /// The groups `--group` names: `all` (every container in one group)
    /// or the path of a mapping file ([`Groups::parse`]).
    pub fn from_arg(arg: &str) -> Result<Groups, DiffError> {
        if arg == "all" {
            return Ok(Groups::all("all"));
        }
        let text = std::fs::read_to_string(arg)
            .map_err(|e| DiffError(format!("{arg}: cannot read the mapping: {e}")))?;
        Groups::parse(&text, arg)
    }

    /// The group of the container named `name`.
    fn of<'a>(&'a self, name: &'a str) -> &'a str {
        self.by_name
            .get(name)
            .map(String::as_str)
            .or(self.others.as_deref())
            .unwrap_or(name)
    }
}

/// How [`diff`] compares.
#[derive(Clone, Debug, Default)]
#[non_exhaustive]
pub struct DiffOptions {
    /// The rows' grouping.
    pub by: DiffBy,
    /// Containers' groups (with [`DiffBy::Container`]); `None`: by name.
    pub groups: Option<Groups>,
    /// Roll containers up to this type first (e.g. hosts).
    pub level: Option<String>,
    /// The link types that are messages (the why analyses).
    pub link_types: Vec<String>,
    /// The state value marking one iteration: the runs are also compared
    /// iteration by iteration ([`Diff::iterations`]); `auto`: the value
    /// found from a repeated region ([`find_iteration`]).
    pub iteration: Option<String>,
}

/// One run's figures.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct RunSide {
    /// The trace's start, seconds.
    pub start: f64,
    /// The trace's end.
    pub end: f64,
    /// Its length.
    pub length: f64,
    /// Why it has no critical path or wait states, when it has none.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub why_not: Option<String>,
}

/// One row of a diff.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct DiffRow {
    /// The container or group ([`DiffBy::Container`]).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub container: Option<String>,
    /// The state value.
    pub value: String,
    /// Exclusive seconds in A.
    pub a_seconds: f64,
    /// Exclusive seconds in B.
    pub b_seconds: f64,
    /// `b_seconds - a_seconds`.
    pub delta_seconds: f64,
    /// Seconds on A's critical path, when it has one.
    pub a_path_seconds: Option<f64>,
    /// Seconds on B's critical path.
    pub b_path_seconds: Option<f64>,
}

impl DiffRow {
    /// A row of `a` and `b` seconds, without critical-path figures.
    fn new(container: Option<String>, value: String, a: f64, b: f64) -> DiffRow {
        DiffRow {
            container,
            value,
            a_seconds: a,
            b_seconds: b,
            delta_seconds: b - a,
            a_path_seconds: None,
            b_path_seconds: None,
        }
    }
}

/// One wait-state pattern's seconds in both runs.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct PatternDelta {
    /// The pattern's name (`late_sender`, …).
    pub pattern: &'static str,
    /// Seconds waited in A.
    pub a_seconds: f64,
    /// In B.
    pub b_seconds: f64,
    /// `b_seconds - a_seconds`.
    pub delta_seconds: f64,
}

/// What [`diff`] computes.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Diff {
    /// The first run.
    pub a: RunSide,
    /// The second run.
    pub b: RunSide,
    /// `b.length - a.length`.
    pub delta_length: f64,
    /// How the rows are grouped.
    pub by: DiffBy,
    /// The rows, by decreasing absolute delta (then by name).
    pub rows: Vec<DiffRow>,
    /// Per container (or group): its exclusive seconds in both runs, by
    /// decreasing absolute delta.
    pub containers: Vec<DiffRow>,
    /// The wait-state patterns found in either run, in Scalasca's order.
    pub patterns: Vec<PatternDelta>,
    /// With [`DiffOptions::iteration`]: the value marking the iterations
    /// (the one given, or the one `auto` found; `auto` when it found
    /// none).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub iteration: Option<String>,
    /// With [`DiffOptions::iteration`]: each iteration in both runs.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub iterations: Vec<IterationDelta>,
}

/// One iteration in both runs: the n-th state of the iteration's value on
/// every container, from the earliest start to the latest end.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct IterationDelta {
    /// Its number, from 1.
    pub iteration: usize,
    /// Its length in A (0 when A has fewer iterations).
    pub a_seconds: f64,
    /// In B.
    pub b_seconds: f64,
    /// `b_seconds - a_seconds`.
    pub delta_seconds: f64,
    /// Per state value within the iteration (exclusive seconds over every
    /// container), by decreasing absolute delta.
    pub rows: Vec<DiffRow>,
}

impl Diff {
    /// The share (percent) by which `value`'s seconds (`None`: the run's
    /// length) grew from A to B; `None` when the value is in neither run.
    pub fn growth(&self, value: Option<&str>) -> Option<f64> {
        let (a, b) = match value {
            None => (self.a.length, self.b.length),
            Some(v) => self.rows.iter().filter(|r| r.value == v).fold(
                None,
                |acc: Option<(f64, f64)>, r| {
                    let (a, b) = acc.unwrap_or((0.0, 0.0));
                    Some((a + r.a_seconds, b + r.b_seconds))
                },
            )?,
        };
        Some(if a > 0.0 {
            (b - a) / a * 100.0
        } else if b > 0.0 {
            f64::INFINITY
        } else {
            0.0
        })
    }
}

impl Diff {
    /// With `--fail-over limit`: why the run's length (or `value`'s time)
    /// grew by more than `limit` percent from A to B, `None` when it did
    /// not; an error when `value` is in neither run.
    pub fn over(&self, limit: f64, value: Option<&str>) -> Option<Result<String, DiffError>> {
        let Some(grew) = self.growth(value) else {
            let v = value.unwrap_or_default();
            return Some(Err(DiffError(format!(
                "--value: neither run has a state valued '{v}'"
            ))));
        };
        let what = value.map_or("the run's length".into(), |v| format!("the time in {v}"));
        (grew > limit).then(|| {
            Ok(format!(
                "{what} grew by {grew:.2} % from A to B, over --fail-over {limit} %"
            ))
        })
    }
}

/// One run's figures per (group, value), per value on the critical path,
/// per pattern.
struct Profile {
    side: RunSide,
    cells: BTreeMap<(String, String), f64>,
    path: Option<BTreeMap<String, f64>>,
    patterns: BTreeMap<Pattern, f64>,
}

fn profile(trace: &Trace, opts: &DiffOptions) -> Profile {
    let (start, end) = (trace.start_time(), trace.end_time().max(trace.start_time()));
    let window = Window::new(trace, Some(start), Some(end));
    let groups = opts.groups.clone().unwrap_or_default();
    let mut cells = BTreeMap::new();
    if let Some(s) = time_per_state(trace, window, opts.level.as_deref()) {
        for r in s.rows {
            let group = match opts.by {
                DiffBy::Value => String::new(),
                DiffBy::Container => groups.of(&r.container).to_string(),
            };
            *cells.entry((group, r.value)).or_insert(0.0) += r.exclusive;
        }
    }
    let ro = RunOptions {
        link_types: opts.link_types.clone(),
    };
    let (path, patterns, why_not) = match Run::from_trace(trace, &ro) {
        Ok(run) => {
            let waits = wait_states(&run);
            let mut patterns = BTreeMap::new();
            for w in &waits {
                *patterns.entry(w.pattern).or_insert(0.0) += w.duration;
            }
            let mut path = BTreeMap::new();
            for s in critical_path(&run, &waits) {
                let name = s
                    .region
                    .map_or("(none)", |r| run.regions[r as usize].as_str());
                *path.entry(name.to_string()).or_insert(0.0) += s.end - s.start;
            }
            (Some(path), patterns, None)
        }
        Err(e) => (None, BTreeMap::new(), Some(e.to_string())),
    };
    Profile {
        side: RunSide {
            start,
            end,
            length: end - start,
            why_not,
        },
        cells,
        path,
        patterns,
    }
}

/// The iterations of `trace` marked by states valued `value`: the n-th
/// such state of every container, from the earliest start to the latest
/// end, in order.
pub fn iteration_windows(trace: &Trace, value: &str) -> Vec<(f64, f64)> {
    let m = &trace.model;
    let mut per_container: BTreeMap<u32, Vec<(f64, f64)>> = BTreeMap::new();
    for (l, info) in m.lists.iter().enumerate() {
        if info.kind != trama_sim::TypeKind::State {
            continue;
        }
        let cols = &trace.lists[l];
        for i in 0..cols.len() {
            if m.names(m.value(cols.value[i]).name, value) && !cols.start[i].is_nan() {
                let list = per_container.entry(info.container.0).or_default();
                list.push((cols.start[i], cols.end[i].max(cols.start[i])));
            }
        }
    }
    let mut out: Vec<(f64, f64)> = Vec::new();
    for mut list in per_container.into_values() {
        list.sort_by(|a, b| a.0.total_cmp(&b.0));
        for (n, (a, b)) in list.into_iter().enumerate() {
            match out.get_mut(n) {
                Some(w) => *w = (w.0.min(a), w.1.max(b)),
                None => out.push((a, b)),
            }
        }
    }
    out
}

/// The value whose states mark iterations in every run of `runs`, found
/// from a repeated region: on every container with states, the value is
/// entered the same number of times (at least twice, the number may differ
/// between runs) at one nesting level with deeper states on the container
/// (a body that holds calls, not a call), and its states cover at least
/// half of the container's time (from its first state's start to its last
/// state's end: an iteration's body, not a call made once per iteration).
/// Among such values the outermost is taken (the lowest level, summed over
/// the runs), then the one covering the most time. `None` when no value
/// repeats so.
pub fn find_iteration(runs: &[&Trace]) -> Option<String> {
    // Per run: value name -> (level, seconds) of the values that qualify.
    let per_run: Vec<HashMap<String, (u32, f64)>> = runs.iter().map(|t| repeated(t)).collect();
    let (first, rest) = per_run.split_first()?;
    let mut best: Option<(u32, f64, &String)> = None;
    for (name, &(level, secs)) in first {
        let others: Option<Vec<&(u32, f64)>> = rest.iter().map(|m| m.get(name)).collect();
        let Some(others) = others else { continue };
        let level = level + others.iter().map(|o| o.0).sum::<u32>();
        let secs = secs + others.iter().map(|o| o.1).sum::<f64>();
        let better =
            best.is_none_or(|(l, s, n)| (level, -secs, name.as_str()) < (l, -s, n.as_str()));
        if better {
            best = Some((level, secs, name));
        }
    }
    best.map(|b| b.2.clone())
}

/// The values of `trace` that repeat as [`find_iteration`] asks, with their
/// level and the seconds their states cover.
fn repeated(trace: &Trace) -> HashMap<String, (u32, f64)> {
    let m = &trace.model;
    // (container, value name) -> (count, level or u32::MAX if mixed, seconds).
    let mut seen: HashMap<(u32, String), (usize, u32, f64)> = HashMap::new();
    // container -> its states' first start, last end and deepest level.
    let mut containers: HashMap<u32, (f64, f64, u32)> = HashMap::new();
    for (l, info) in m.lists.iter().enumerate() {
        if info.kind != trama_sim::TypeKind::State {
            continue;
        }
        let cols = &trace.lists[l];
        for i in 0..cols.len() {
            if cols.start[i].is_nan() {
                continue;
            }
            let c = (containers.entry(info.container.0)).or_insert((
                f64::INFINITY,
                f64::NEG_INFINITY,
                0,
            ));
            *c = (
                c.0.min(cols.start[i]),
                c.1.max(cols.end[i]),
                c.2.max(cols.level[i]),
            );
            let name = m.label(m.value(cols.value[i]).name);
            let e = seen
                .entry((info.container.0, name))
                .or_insert((0, cols.level[i], 0.0));
            e.0 += 1;
            if e.1 != cols.level[i] {
                e.1 = u32::MAX;
            }
            e.2 += (cols.end[i] - cols.start[i]).max(0.0);
        }
    }
    // value -> (count, level, seconds, containers), None once it disagrees.
    let mut by_value: HashMap<String, Option<(usize, u32, f64, usize)>> = HashMap::new();
    for ((c, name), (count, level, secs)) in seen {
        let (first, last, deepest) = containers.get(&c).copied().unwrap_or_default();
        let e = by_value.entry(name).or_insert(Some((count, level, 0.0, 0)));
        let body = level < deepest && secs >= 0.5 * (last - first);
        *e = e.filter(|v| v.0 == count && v.1 == level && body);
        if let Some(v) = e {
            (v.2, v.3) = (v.2 + secs, v.3 + 1);
        }
    }
    by_value
        .into_iter()
        .filter_map(|(name, v)| {
            let (count, level, secs, n) = v?;
            (count >= 2 && n == containers.len()).then_some((name, (level, secs)))
        })
        .collect()
}

/// Exclusive seconds per state value of `trace` within `[a, b]`.
fn values_within(trace: &Trace, (a, b): (f64, f64), level: Option<&str>) -> BTreeMap<String, f64> {
    let mut cells = BTreeMap::new();
    let window = Window::new(trace, Some(a), Some(b));
    for r in time_per_state(trace, window, level).map_or_else(Vec::new, |s| s.rows) {
        *cells.entry(r.value).or_insert(0.0) += r.exclusive;
    }
    cells
}

/// Each iteration of runs `a` and `b` marked by `value`.
fn iterations(a: &Trace, b: &Trace, value: &str, level: Option<&str>) -> Vec<IterationDelta> {
    let (wa, wb) = (iteration_windows(a, value), iteration_windows(b, value));
    (0..wa.len().max(wb.len()))
        .map(|n| {
            let side = |t: &Trace, w: Option<&(f64, f64)>| {
                w.map_or((0.0, BTreeMap::new()), |&w| {
                    (w.1 - w.0, values_within(t, w, level))
                })
            };
            let ((la, ca), (lb, cb)) = (side(a, wa.get(n)), side(b, wb.get(n)));
            let mut values: Vec<&String> = ca.keys().chain(cb.keys()).collect();
            values.sort();
            values.dedup();
            let mut rows: Vec<DiffRow> = values
                .into_iter()
                .map(|v| {
                    let x = ca.get(v).copied().unwrap_or(0.0) + 0.0;
                    let y = cb.get(v).copied().unwrap_or(0.0) + 0.0;
                    DiffRow::new(None, v.clone(), x, y)
                })
                .collect();
            sort_rows(&mut rows);
            IterationDelta {
                iteration: n + 1,
                a_seconds: la,
                b_seconds: lb,
                delta_seconds: lb - la,
                rows,
            }
        })
        .collect()
}

/// Rows by decreasing absolute delta, then by container and value.
fn sort_rows(rows: &mut [DiffRow]) {
    rows.sort_by(|x, y| {
        y.delta_seconds
            .abs()
            .total_cmp(&x.delta_seconds.abs())
            .then_with(|| x.container.cmp(&y.container))
            .then_with(|| x.value.cmp(&y.value))
    });
}

/// The difference from run `a` to run `b`.
pub fn diff(a: &Trace, b: &Trace, opts: &DiffOptions) -> Diff {
    let iteration = match opts.iteration.as_deref() {
        // Kept as asked when nothing repeats: no iteration is found then.
        Some("auto") => find_iteration(&[a, b]).or(Some("auto".into())),
        v => v.map(str::to_string),
    };
    let (pa, pb) = (profile(a, opts), profile(b, opts));
    let mut keys: Vec<&(String, String)> = pa.cells.keys().chain(pb.cells.keys()).collect();
    keys.sort();
    keys.dedup();
    let path_of = |p: &Profile, v: &str| p.path.as_ref().map(|m| m.get(v).copied().unwrap_or(0.0));
    let mut rows = Vec::new();
    let mut per_group: BTreeMap<&str, (f64, f64)> = BTreeMap::new();
    for k in keys {
        // `+ 0.0`: a sum of nothing (-0) shows as 0.
        let (x, y) = (
            pa.cells.get(k).copied().unwrap_or(0.0) + 0.0,
            pb.cells.get(k).copied().unwrap_or(0.0) + 0.0,
        );
        let g = per_group.entry(k.0.as_str()).or_default();
        (g.0, g.1) = (g.0 + x, g.1 + y);
        let by_value = opts.by == DiffBy::Value;
        let mut row = DiffRow::new((!by_value).then(|| k.0.clone()), k.1.clone(), x, y);
        row.a_path_seconds = by_value.then(|| path_of(&pa, &k.1)).flatten();
        row.b_path_seconds = by_value.then(|| path_of(&pb, &k.1)).flatten();
        rows.push(row);
    }
    sort_rows(&mut rows);
    let mut containers: Vec<DiffRow> = per_group
        .into_iter()
        .filter(|(g, _)| !g.is_empty())
        .map(|(g, (x, y))| DiffRow::new(Some(g.to_string()), String::new(), x, y))
        .collect();
    sort_rows(&mut containers);
    let patterns = Pattern::ALL
        .iter()
        .filter_map(|p| {
            let (x, y) = (pa.patterns.get(p), pb.patterns.get(p));
            (x.is_some() || y.is_some()).then(|| {
                let (x, y) = (x.copied().unwrap_or(0.0), y.copied().unwrap_or(0.0));
                PatternDelta {
                    pattern: p.name(),
                    a_seconds: x,
                    b_seconds: y,
                    delta_seconds: y - x,
                }
            })
        })
        .collect();
    Diff {
        delta_length: pb.side.length - pa.side.length,
        a: pa.side,
        b: pb.side,
        by: opts.by,
        rows,
        containers,
        patterns,
        iterations: iteration
            .as_deref()
            .map_or_else(Vec::new, |v| iterations(a, b, v, opts.level.as_deref())),
        iteration,
    }
}
