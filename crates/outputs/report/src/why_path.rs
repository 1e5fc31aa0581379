//! The outputs of `trama stats critical-path` and `trama stats delays`:
//! the critical path of a run and the delay costs of its wait states
//! ([`trama_why`]), as a table, CSV or JSON (formats in
//! `docs/stats-formats.md`).
//!
//! - critical-path, CSV: `value,seconds`, one row per region on the path
//!   (`value` empty for the time outside any state), the rows adding up to
//!   the run's length; with `--by container`:
//!   `container,seconds,share,imbalance`, one row per process. JSON: a
//!   [`CriticalPath`].
//! - delays, CSV: `container,value,short_term,long_term`, one row per
//!   causing process and region with a cost. JSON: a [`Delays`].

use std::io::Write;

use serde::Serialize;
use trama_sim::Trace;
use trama_why::{critical_path, delay_costs, path_processes, path_profile, wait_states, Run};

use crate::table::{columns, csv, csv_field, num, secs, table};
use crate::why::{run_of, By};
use crate::{Error, Format, StatsOptions};

/// A region's part in the critical path.
#[derive(Clone, Debug, Serialize)]
pub struct PathRegionRow {
    /// The region (state value); `None` for the time outside any state.
    pub value: Option<String>,
    /// Seconds on the path.
    pub seconds: f64,
    /// Mean seconds per process in the region, waiting excluded.
    pub mean: f64,
    /// Critical-path imbalance: `max(0, seconds − mean)`.
    pub imbalance: f64,
}

/// A process's part in the critical path.
#[derive(Clone, Debug, Serialize)]
pub struct PathProcessRow {
    /// The process's container.
    pub container: String,
    /// Seconds on the path.
    pub seconds: f64,
    /// Share of the run's length.
    pub share: f64,
    /// Its part of the critical-path imbalance.
    pub imbalance: f64,
}

/// A piece of the critical path.
#[derive(Clone, Debug, Serialize)]
pub struct PathSegmentRow {
    /// The process's container.
    pub container: String,
    /// The region (state value); `None` outside any state.
    pub value: Option<String>,
    /// Start, seconds.
    pub start: f64,
    /// End, seconds.
    pub end: f64,
}

/// The critical path of a trace (see [`trama_why::critical_path`] and
/// [`trama_why::path_profile`] for the definitions).
#[derive(Clone, Debug, Serialize)]
pub struct CriticalPath {
    /// The run's start.
    pub start: f64,
    /// The run's end.
    pub end: f64,
    /// The regions on the path, by decreasing seconds.
    pub regions: Vec<PathRegionRow>,
    /// Every process, in the run's order.
    pub processes: Vec<PathProcessRow>,
    /// The path, in time order.
    pub segments: Vec<PathSegmentRow>,
}

/// The waiting one region of one process caused.
#[derive(Clone, Debug, Serialize)]
pub struct DelayRow {
    /// The causing process's container.
    pub container: String,
    /// The region (state value).
    pub value: String,
    /// Waiting caused directly.
    pub short_term: f64,
    /// Waiting caused through the propagation of wait states.
    pub long_term: f64,
}

/// The delay costs of a trace (see [`trama_why::delay_costs`]).
#[derive(Clone, Debug, Serialize)]
pub struct Delays {
    /// The waiting time of the wait states the costs explain (every
    /// pattern but the completion ones).
    pub waiting: f64,
    /// The costs, by causing process then region.
    pub rows: Vec<DelayRow>,
}

/// A region's name.
fn region(run: &Run, r: Option<u32>) -> Option<String> {
    r.and_then(|r| run.regions.get(r as usize).cloned())
}

/// A process's name.
fn process(run: &Run, p: u32) -> String {
    run.processes
        .get(p as usize)
        .map_or_else(|| p.to_string(), |x| x.name.clone())
}

/// The critical path of `trace`.
pub fn critical_path_of(trace: &Trace, opts: &StatsOptions) -> Result<CriticalPath, Error> {
    let run = run_of(trace, opts)?;
    let waits = wait_states(&run);
    let path = critical_path(&run, &waits);
    let regions = path_profile(&run, &waits, &path)
        .into_iter()
        .map(|r| PathRegionRow {
            value: region(&run, r.region),
            seconds: r.seconds,
            mean: r.mean,
            imbalance: r.imbalance,
        })
        .collect();
    let processes = path_processes(&run, &waits, &path)
        .into_iter()
        .map(|p| PathProcessRow {
            container: process(&run, p.proc),
            seconds: p.seconds,
            share: p.share,
            imbalance: p.imbalance,
        })
        .collect();
    let segments = path
        .iter()
        .map(|s| PathSegmentRow {
            container: process(&run, s.proc),
            value: region(&run, s.region),
            start: s.start,
            end: s.end,
        })
        .collect();
    Ok(CriticalPath {
        start: run.start,
        end: run.end,
        regions,
        processes,
        segments,
    })
}

/// The delay costs of `trace`.
pub fn delays_of(trace: &Trace, opts: &StatsOptions) -> Result<Delays, Error> {
    let run = run_of(trace, opts)?;
    let waits = wait_states(&run);
    let waiting = waits
        .iter()
        .filter(|w| {
            !matches!(
                w.pattern,
                trama_why::Pattern::BarrierCompletion | trama_why::Pattern::NxnCompletion
            )
        })
        .fold(0.0, |sum, w| sum + w.duration.max(0.0));
    let rows = delay_costs(&run, &waits)
        .into_iter()
        .map(|c| DelayRow {
            container: process(&run, c.causing),
            value: region(&run, Some(c.region)).unwrap_or_default(),
            short_term: c.short_term,
            long_term: c.long_term,
        })
        .collect();
    Ok(Delays { waiting, rows })
}

/// The name of a region in a table.
fn shown(v: &Option<String>) -> String {
    v.clone().unwrap_or_else(|| "(no state)".into())
}

/// A share as a percentage.
fn pct(x: f64) -> String {
    format!("{:.1}%", 100.0 * x)
}

/// Writes the critical path: per region (`by` [`By::Region`]) or per
/// process.
pub fn write_critical_path(
    cp: &CriticalPath,
    by: By,
    format: Format,
    out: &mut dyn Write,
) -> Result<(), Error> {
    let length = cp.end - cp.start;
    match (format, by) {
        (Format::Json, _) => {
            serde_json::to_writer_pretty(&mut *out, cp)?;
            writeln!(out)?;
        }
        (Format::Csv, By::Container) => csv(
            out,
            &cp.processes,
            &[
                ("container", |p| csv_field(&p.container)),
                ("seconds", |p| num(p.seconds)),
                ("share", |p| num(p.share)),
                ("imbalance", |p| num(p.imbalance)),
            ],
        )?,
        (Format::Csv, _) => csv(
            out,
            &cp.regions,
            &[
                ("value", |r| csv_field(r.value.as_deref().unwrap_or(""))),
                ("seconds", |r| num(r.seconds)),
            ],
        )?,
        (Format::Table, by) => {
            writeln!(
                out,
                "Critical path over [{}, {}] ({} s, {} segments)",
                cp.start,
                cp.end,
                secs(length),
                cp.segments.len()
            )?;
            if by == By::Container {
                let lines = columns(
                    &cp.processes,
                    &[
                        ("container", |p| p.container.clone()),
                        ("on path", |p| secs(p.seconds)),
                        ("share", |p| pct(p.share)),
                        ("imbalance", |p| secs(p.imbalance)),
                    ],
                );
                table(out, &lines, 1)?;
            } else {
                let mut lines = columns(
                    &cp.regions,
                    &[
                        ("value", |r| shown(&r.value)),
                        ("on path", |r| secs(r.seconds)),
                        ("mean per process", |r| secs(r.mean)),
                        ("imbalance", |r| secs(r.imbalance)),
                    ],
                );
                for (l, r) in lines.iter_mut().skip(1).zip(&cp.regions) {
                    l.insert(
                        2,
                        pct(if length > 0.0 {
                            r.seconds / length
                        } else {
                            0.0
                        }),
                    );
                }
                if let Some(head) = lines.first_mut() {
                    head.insert(2, "of run".into());
                }
                table(out, &lines, 1)?;
            }
        }
    }
    Ok(())
}

/// Writes the delay costs: in CSV and JSON by causing process then
/// region, in a table by decreasing total cost.
pub fn write_delays(d: &Delays, format: Format, out: &mut dyn Write) -> Result<(), Error> {
    match format {
        Format::Json => {
            serde_json::to_writer_pretty(&mut *out, d)?;
            writeln!(out)?;
        }
        Format::Csv => csv(
            out,
            &d.rows,
            &[
                ("container", |r| csv_field(&r.container)),
                ("value", |r| csv_field(&r.value)),
                ("short_term", |r| num(r.short_term)),
                ("long_term", |r| num(r.long_term)),
            ],
        )?,
        Format::Table => {
            let explained = (d.rows.iter()).fold(0.0, |s, r| s + r.short_term + r.long_term);
            writeln!(
                out,
                "Delay costs: {} s of waiting, {} s explained by delays",
                secs(d.waiting),
                secs(explained)
            )?;
            let mut rows: Vec<&DelayRow> = d.rows.iter().collect();
            rows.sort_by(|a, b| {
                let t = |r: &DelayRow| r.short_term + r.long_term;
                t(b).total_cmp(&t(a))
            });
            let rows: Vec<DelayRow> = rows.into_iter().cloned().collect();
            let lines = columns(
                &rows,
                &[
                    ("causing", |r| r.container.clone()),
                    ("value", |r| r.value.clone()),
                    ("short-term", |r| secs(r.short_term)),
                    ("long-term", |r| secs(r.long_term)),
                    ("total", |r| secs(r.short_term + r.long_term)),
                ],
            );
            table(out, &lines, 2)?;
        }
    }
    Ok(())
}
