//! The why analyses of a served trace ([`trama_why`]: wait states, the
//! critical path and its profile), computed once and kept with the trace
//! ([`Cache`]), and the replies of `api/why` and `api/why/overlay` made
//! from them ([`Analysis::summary`], [`Analysis::overlay`]; specified in
//! `docs/view-api.md`), which the offline page embeds too.

use std::sync::{Arc, OnceLock};

use serde::Serialize;
use serde_json::{json, Value};
use trama_sim::Trace;
use trama_why::{
    critical_path, path_processes, path_profile, wait_states, PathSegment, Pattern, Run,
    RunOptions, WaitState,
};

use crate::metadata::Meta;
use crate::why_lod::{path_in, pattern_index, Marks};

/// The most severe instances listed per pattern.
pub(crate) const TOP: usize = 50;

/// The analyses of a trace, computed on first use.
#[derive(Default)]
pub(crate) struct Cache(OnceLock<Result<Arc<Analysis>, String>>);

/// What the why analyses found in a run, ready to answer.
pub(crate) struct Analysis {
    /// The reply of `api/why` (without `available`).
    summary: Value,
    /// Each process's row (an index into the meta's rows), if it has one.
    rows: Vec<Option<u32>>,
    /// The wait states, per process.
    marks: Marks,
    /// The critical path.
    path: Vec<PathSegment>,
}

/// One instance as listed.
#[derive(Serialize)]
struct Instance<'a> {
    container: &'a str,
    row: Option<u32>,
    waited_for: Option<&'a str>,
    waited_row: Option<u32>,
    region: &'a str,
    start: f64,
    duration: f64,
}

impl Cache {
    /// The analyses, computed by `compute` the first time.
    pub(crate) fn get(
        &self,
        compute: impl FnOnce() -> Result<Analysis, String>,
    ) -> Result<Arc<Analysis>, String> {
        self.0.get_or_init(|| compute().map(Arc::new)).clone()
    }
}

impl Analysis {
    /// The analyses of `trace`, whose rows `meta` gives.
    pub(crate) fn new(trace: &Trace, meta: &Meta) -> Result<Analysis, String> {
        let run = Run::from_trace(trace, &RunOptions::default())
            .map_err(|e| format!("no wait-state analysis for this trace: {e}"))?;
        let waits = wait_states(&run);
        let path = critical_path(&run, &waits);
        let rows: Vec<Option<u32>> = run
            .processes
            .iter()
            .map(|p| {
                meta.rows
                    .iter()
                    .position(|r| r.container == p.container.0 && r.variable.is_none())
                    .map(|i| i as u32)
            })
            .collect();
        let summary = summary(&run, &waits, &path, &rows);
        let marks = Marks::new(&waits, run.processes.len(), |w| {
            run.calls[w.call as usize].proc
        });
        Ok(Analysis {
            summary,
            rows,
            marks,
            path,
        })
    }

    /// The overlay of `[t0, t1]` at `width` columns (the reply of
    /// `api/why/overlay`).
    pub(crate) fn overlay(&self, (t0, t1): (f64, f64), width: u32) -> Value {
        let px = (t1 - t0) / f64::from(width.max(1));
        let mut waits = Vec::new();
        for (p, row) in self.rows.iter().enumerate() {
            let Some(row) = row else { continue };
            for m in self.marks.window(p, (t0, t1), px) {
                waits.push(json!([row, m.pattern, m.t0, m.t1, m.n]));
            }
        }
        let path: Vec<Value> = path_in(&self.path, (t0, t1), px)
            .into_iter()
            .map(|s| {
                json!([
                    self.rows.get(s.proc as usize).copied().flatten(),
                    s.t0,
                    s.t1
                ])
            })
            .collect();
        json!({ "start": t0, "end": t1, "width": width, "waits": waits, "path": path })
    }

    /// The reply of `api/why`.
    pub(crate) fn summary(&self) -> Value {
        let mut v = self.summary.clone();
        v["available"] = json!(true);
        v
    }
}

/// The reply of `api/why` for `run`: its patterns by decreasing time,
/// each with its most severe instances, and the critical path's profile.
fn summary(run: &Run, waits: &[WaitState], path: &[PathSegment], rows: &[Option<u32>]) -> Value {
    let name = |p: u32| run.processes[p as usize].name.as_str();
    let mut patterns = Vec::new();
    for p in Pattern::ALL {
        let mut of: Vec<&WaitState> = waits.iter().filter(|w| w.pattern == p).collect();
        if of.is_empty() {
            continue;
        }
        let seconds: f64 = of.iter().map(|w| w.duration).sum();
        of.sort_by(|a, b| b.duration.total_cmp(&a.duration));
        let top: Vec<Instance> = of
            .iter()
            .take(TOP)
            .map(|w| {
                let call = &run.calls[w.call as usize];
                Instance {
                    container: name(call.proc),
                    row: rows[call.proc as usize],
                    waited_for: w.waited_for.map(name),
                    waited_row: w.waited_for.and_then(|q| rows[q as usize]),
                    region: &run.regions[call.region as usize],
                    start: w.start,
                    duration: w.duration,
                }
            })
            .collect();
        patterns.push((
            seconds,
            json!({
                "pattern": p.name(),
                "index": pattern_index(p),
                "seconds": seconds,
                "instances": of.len(),
                "top": top,
            }),
        ));
    }
    patterns.sort_by(|a, b| b.0.total_cmp(&a.0));
    let patterns: Vec<Value> = patterns.into_iter().map(|p| p.1).collect();
    let region = |r: Option<u32>| r.map(|r| run.regions[r as usize].as_str());
    let regions: Vec<Value> = path_profile(run, waits, path)
        .into_iter()
        .map(|r| {
            json!({
                "value": region(r.region),
                "seconds": r.seconds,
                "mean": r.mean,
                "imbalance": r.imbalance,
            })
        })
        .collect();
    let processes: Vec<Value> = path_processes(run, waits, path)
        .into_iter()
        .map(|p| {
            json!({
                "container": name(p.proc),
                "seconds": p.seconds,
                "share": p.share,
                "imbalance": p.imbalance,
            })
        })
        .collect();
    json!({
        "start": run.start,
        "end": run.end,
        "processes": run.processes.iter().zip(rows).map(|(p, r)| json!({"name": p.name, "row": r})).collect::<Vec<_>>(),
        "names": Pattern::ALL.map(Pattern::name),
        "patterns": patterns,
        "path": { "segments": path.len(), "regions": regions, "processes": processes },
    })
}
