//! The outputs of `trama stats waits`: the wait states of a run
//! ([`trama_why::wait_states`], Scalasca's patterns) per pattern and
//! waiting container (or region), and the most severe instances.
//!
//! The forms are documented in `docs/stats-formats.md` ("waits"). The
//! instances counted are those that start inside the window.

use std::collections::BTreeMap;
use std::io::Write;

use serde::Serialize;
use trama_analysis::Window;
use trama_sim::Trace;
use trama_why::{wait_states, CollectiveKind, Pattern, Run, RunOptions, WaitState};

use crate::table::{csv_field, num, secs, table};
use crate::{Error, Format, StatsOptions};

/// What the rows of the why analyses are per: `trama stats waits` (per
/// pattern and waiting container, the default, or region: the waiting
/// call's state value) and `critical-path` (per region, the default, or
/// process: its time on the path, share and imbalance).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum By {
    /// Per container (process).
    Container,
    /// Per region (state value).
    Region,
}

impl By {
    /// Every grouping with its name on the command line and a line of help.
    pub const ALL: [(By, &'static str, &'static str); 2] = [
        (
            By::Container,
            "container",
            "Per container (waits: the waiting one; critical-path: with share and imbalance)",
        ),
        (
            By::Region,
            "region",
            "Per region (waits: the waiting call's; critical-path: state values on the path)",
        ),
    ];

    fn name(self) -> &'static str {
        match self {
            By::Container => "container",
            By::Region => "region",
        }
    }
}

/// One row of the waits: a pattern's waiting in one container or region.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct WaitsRow {
    /// The pattern's name (`late_sender`, …).
    pub pattern: &'static str,
    /// The waiting container (grouped by container).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub container: Option<String>,
    /// The region (grouped by region).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub region: Option<String>,
    /// Seconds waited.
    pub seconds: f64,
    /// Number of instances.
    pub instances: u64,
}

/// One instance of a pattern, as listed.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct WaitsInstance {
    /// The pattern's name.
    pub pattern: &'static str,
    /// The waiting container.
    pub container: String,
    /// The container waited for, if any.
    pub waited_for: Option<String>,
    /// The waiting call's region.
    pub region: String,
    /// When the waiting started, seconds.
    pub start: f64,
    /// How long it lasted, seconds.
    pub duration: f64,
}

/// What `trama stats waits` computes.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Waits {
    /// The window.
    pub window: Window,
    /// How the rows are grouped: `container` or `region`.
    pub by: &'static str,
    /// The rows: patterns in [`Pattern::ALL`]'s order, then containers
    /// in the run's order (regions by name).
    pub rows: Vec<WaitsRow>,
    /// The most severe instances (with `--instances N`), the most severe
    /// first.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub instances: Vec<WaitsInstance>,
}

/// The run of `trace` as the why analyses read it, with the link types
/// of `opts` as messages.
pub(crate) fn run_of(trace: &Trace, opts: &StatsOptions) -> Result<Run, Error> {
    Ok(Run::from_trace(trace, &run_options(opts))?)
}

/// How the why analyses read a run: the link types of `opts` as messages.
pub(crate) fn run_options(opts: &StatsOptions) -> RunOptions {
    let mut ro = RunOptions::default();
    ro.link_types = opts.link_types.clone();
    ro
}

/// The waits of `trace` over `window`, grouped `by`, with the `top` most
/// severe instances; sentences for the reader go to `notes`.
pub fn waits(
    trace: &Trace,
    window: Window,
    opts: &StatsOptions,
    notes: &mut Vec<String>,
) -> Result<Waits, Error> {
    let run = run_of(trace, opts)?;
    let all = wait_states(&run);
    let inside = |w: &&WaitState| w.start >= window.start && w.start <= window.end;
    let kept: Vec<&WaitState> = all.iter().filter(inside).collect();
    let by = opts.by.unwrap_or(By::Container);
    let mut cells: BTreeMap<(Pattern, u32), (f64, u64)> = BTreeMap::new();
    for w in &kept {
        let call = &run.calls[w.call as usize];
        let key = match by {
            By::Container => call.proc,
            By::Region => call.region,
        };
        let c = cells.entry((w.pattern, key)).or_default();
        c.0 += w.duration;
        c.1 += 1;
    }
    let mut rows: Vec<WaitsRow> = cells
        .into_iter()
        .map(|((p, key), (seconds, instances))| {
            let (container, region) = match by {
                By::Container => (Some(run.processes[key as usize].name.clone()), None),
                By::Region => (None, Some(run.regions[key as usize].clone())),
            };
            WaitsRow {
                pattern: p.name(),
                container,
                region,
                seconds,
                instances,
            }
        })
        .collect();
    if by == By::Region {
        rows.sort_by(|a, b| {
            let p = |r: &WaitsRow| Pattern::from_name(r.pattern);
            p(a).cmp(&p(b)).then(a.region.cmp(&b.region))
        });
    }
    let mut top = kept.clone();
    top.sort_by(|a, b| b.duration.total_cmp(&a.duration));
    top.truncate(opts.waits_instances);
    let instances = top.iter().map(|w| instance(&run, w)).collect();
    notes.extend(run_notes(&run));
    Ok(Waits {
        window,
        by: by.name(),
        rows,
        instances,
    })
}

/// An instance as listed.
fn instance(run: &Run, w: &WaitState) -> WaitsInstance {
    let call = &run.calls[w.call as usize];
    WaitsInstance {
        pattern: w.pattern.name(),
        container: run.processes[call.proc as usize].name.clone(),
        waited_for: w.waited_for.map(|p| run.processes[p as usize].name.clone()),
        region: run.regions[call.region as usize].clone(),
        start: w.start,
        duration: w.duration,
    }
}

/// What the reader should know of the run: its size, the definitions'
/// main departure, collectives whose root is unknown.
fn run_notes(run: &Run) -> Vec<String> {
    let mut lines = vec![format!(
        "{} processes, {} MPI calls, {} messages, {} collective operations; Scalasca's Late Sender is late_sender + late_sender_wrong_order",
        run.processes.len(),
        run.calls.len(),
        run.messages.len(),
        run.collectives.len()
    )];
    let rootless = run
        .collectives
        .iter()
        .filter(|c| {
            matches!(c.kind, CollectiveKind::OneToN | CollectiveKind::NToOne) && c.root.is_none()
        })
        .count();
    if rootless > 0 {
        lines.push(format!(
            "{rootless} one-to-N or N-to-one operations have no known root: late_broadcast and early_reduce are not looked for there"
        ));
    }
    lines
}

/// Writes the waits: in CSV one row per (pattern, container or region),
/// or, with instances asked for, one row per instance; a table shows
/// both.
pub fn write_waits(w: &Waits, format: Format, out: &mut dyn Write) -> Result<(), Error> {
    let group = |r: &WaitsRow| r.container.clone().or(r.region.clone()).unwrap_or_default();
    match format {
        Format::Json => {
            serde_json::to_writer_pretty(&mut *out, w)?;
            writeln!(out)?;
        }
        Format::Csv if !w.instances.is_empty() => {
            writeln!(out, "pattern,container,waited_for,region,start,duration")?;
            for i in &w.instances {
                writeln!(
                    out,
                    "{},{},{},{},{},{}",
                    i.pattern,
                    csv_field(&i.container),
                    csv_field(i.waited_for.as_deref().unwrap_or_default()),
                    csv_field(&i.region),
                    num(i.start),
                    num(i.duration)
                )?;
            }
        }
        Format::Csv => {
            writeln!(out, "pattern,{},seconds,instances", w.by)?;
            for r in &w.rows {
                let g = csv_field(&group(r));
                let (s, n) = (num(r.seconds), r.instances);
                writeln!(out, "{},{g},{s},{n}", r.pattern)?;
            }
        }
        Format::Table => {
            // Summed from +0 (an empty `sum` of floats is -0).
            let total = w.rows.iter().fold(0.0, |t, r| t + r.seconds);
            let count: u64 = w.rows.iter().map(|r| r.instances).sum();
            writeln!(
                out,
                "Wait states (Scalasca's patterns) over [{}, {}]: {count} instances, {} s",
                w.window.start,
                w.window.end,
                secs(total)
            )?;
            let mut lines = vec![["pattern", w.by, "seconds", "instances"]
                .map(String::from)
                .to_vec()];
            for r in &w.rows {
                let (s, n) = (secs(r.seconds), r.instances.to_string());
                lines.push(vec![r.pattern.to_string(), group(r), s, n]);
            }
            table(out, &lines, 2)?;
            if !w.instances.is_empty() {
                writeln!(out, "\nThe {} most severe instances:", w.instances.len())?;
                let head = ["pattern", "container", "for", "region", "start", "seconds"];
                let mut lines = vec![head.map(String::from).to_vec()];
                for i in &w.instances {
                    lines.push(vec![
                        i.pattern.to_string(),
                        i.container.clone(),
                        i.waited_for.clone().unwrap_or_else(|| "-".into()),
                        i.region.clone(),
                        secs(i.start),
                        secs(i.duration),
                    ]);
                }
                table(out, &lines, 4)?;
            }
        }
    }
    Ok(())
}
