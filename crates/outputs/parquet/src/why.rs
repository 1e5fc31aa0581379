//! The tables of the wait-state analysis: `wait_states` and
//! `critical_path`, from the run `trama-why` reads of the trace.
//!
//! - `wait_states` (partition `pattern`: the pattern's name, as
//!   [`Pattern::name`] gives it): one row per instance of
//!   [`wait_states`], in its order: the waiting container
//!   (`container_id`, `container`), the container waited for
//!   (`waited_for_id`, `waited_for`, `NULL` when the pattern names none),
//!   the waiting call's region (`region`) and interval (`call_start_ns`,
//!   `call_end_ns`), and the waiting (`start_ns`, `end_ns`,
//!   `duration_ns`): the rows of `trama stats waits --instances N`.
//! - `critical_path` (partition `type`: the type of the container the
//!   segment is on): one row per [`critical_path`] segment, in time
//!   order: `container_id`, `container`, `value` (the region the time is
//!   credited to, `NULL` outside any state), `start_ns`, `end_ns`,
//!   `duration_ns`: the segments of `trama stats critical-path --format
//!   json`. The segments tile the run, so their `duration_ns` add up to
//!   the root container's.
//!
//! A trace in which the analysis finds no process (no MPI call, no
//! message between states) has both tables empty.
//!
//! The export keeps, while it streams the other tables, what the
//! analysis reads ([`Kept`]: the states with their user-defined fields,
//! which give an OTF2 collective's communicator and root, and the links
//! without theirs), and writes the two tables once the trace is read.

use trama_sim::{ContainerId, Entity, ListId, Model, Sink, Trace, TraceBuilder, TypeKind};
use trama_why::{critical_path, wait_states, Pattern, Run, RunOptions};

use crate::table::Cell;
use crate::{ns, Error, ParquetSink, Table};

/// The states and links of a trace, kept in memory as the simulation
/// hands them over, for the analysis at the end.
#[derive(Debug, Default)]
pub(crate) struct Kept {
    builder: TraceBuilder,
}

impl Kept {
    /// Keeps entity `idx` of `list` when the analysis reads it.
    pub(crate) fn entity(&mut self, m: &Model, list: ListId, idx: u32, e: &Entity<'_>) {
        match m.list(list).kind {
            TypeKind::State => self.builder.entity(m, list, idx, e),
            TypeKind::Link => {
                let bare = Entity {
                    extras: &[],
                    ..e.clone()
                };
                self.builder.entity(m, list, idx, &bare)
            }
            _ => {}
        }
    }

    /// A new list (so that the trace has columns for every list).
    pub(crate) fn list(&mut self, m: &Model, list: ListId) {
        self.builder.list(m, list)
    }

    /// The trace kept, with `model`.
    pub(crate) fn into_trace(self, model: Model) -> Trace {
        self.builder.into_trace(model, Vec::new())
    }
}

/// A wait state as a row.
pub(crate) struct WaitRow {
    pub(crate) pattern: Pattern,
    pub(crate) container: ContainerId,
    pub(crate) waited_for: Option<ContainerId>,
    /// Index into [`WhyRows::regions`].
    pub(crate) region: usize,
    pub(crate) call_start: i64,
    pub(crate) call_end: i64,
    pub(crate) start: i64,
    pub(crate) end: i64,
}

/// A segment of the critical path as a row.
pub(crate) struct PathRow {
    pub(crate) container: ContainerId,
    /// Index into [`WhyRows::regions`]; `None` outside any state.
    pub(crate) value: Option<usize>,
    pub(crate) start: i64,
    pub(crate) end: i64,
}

/// The rows of both tables.
#[derive(Default)]
pub(crate) struct WhyRows {
    pub(crate) waits: Vec<WaitRow>,
    pub(crate) path: Vec<PathRow>,
    /// The run's regions (state values' names).
    pub(crate) regions: Vec<String>,
}

/// The wait states and critical path of `trace` as rows (times in the
/// tables' nanoseconds); none when the analysis finds no process in it.
pub(crate) fn why_rows(trace: &Trace) -> WhyRows {
    let Ok(run) = Run::from_trace(trace, &RunOptions::default()) else {
        return WhyRows::default();
    };
    let waits = wait_states(&run);
    let path = critical_path(&run, &waits);
    let container = |p: u32| run.processes[p as usize].container;
    let wait_rows = waits
        .iter()
        .map(|w| {
            let call = &run.calls[w.call as usize];
            WaitRow {
                pattern: w.pattern,
                container: container(call.proc),
                waited_for: w.waited_for.map(container),
                region: call.region as usize,
                call_start: ns(call.enter),
                call_end: ns(call.exit),
                start: ns(w.start),
                end: ns(w.start + w.duration),
            }
        })
        .collect();
    let path_rows = path
        .iter()
        .map(|s| PathRow {
            container: container(s.proc),
            value: s.region.map(|r| r as usize),
            start: ns(s.start),
            end: ns(s.end),
        })
        .collect();
    WhyRows {
        waits: wait_rows,
        path: path_rows,
        regions: run.regions,
    }
}

impl ParquetSink {
    /// Adds the rows of the wait states and the critical path of the
    /// trace kept (read with `model`).
    pub(crate) fn why_tables(&mut self, kept: Kept, model: Model) -> Result<(), Error> {
        let trace = kept.into_trace(model);
        let rows = why_rows(&trace);
        let m = &trace.model;
        let regions: Vec<u32> = rows
            .regions
            .iter()
            .map(|r| self.name(r.as_bytes()))
            .collect();
        for w in &rows.waits {
            let p = self.partition(Table::WaitStates, w.pattern.name())?;
            let (name, _) = self.container_strings(m, w.container)?;
            let waited = w.waited_for.map(|c| self.container_strings(m, c));
            let waited = waited.transpose()?.map(|(name, _)| name);
            self.push(
                p,
                &[
                    Cell::Id(w.container.0),
                    Cell::Str(name),
                    Cell::OptI64(w.waited_for.map(|c| i64::from(c.0))),
                    Cell::OptStr(waited),
                    Cell::Str(regions[w.region]),
                    Cell::I64(w.call_start),
                    Cell::I64(w.call_end),
                    Cell::I64(w.start),
                    Cell::I64(w.end),
                    Cell::I64(w.end - w.start),
                ],
            )?;
        }
        for s in &rows.path {
            let p = self.type_partition(m, Table::CriticalPath, m.container(s.container).ty)?;
            let (name, _) = self.container_strings(m, s.container)?;
            self.push(
                p,
                &[
                    Cell::Id(s.container.0),
                    Cell::Str(name),
                    Cell::OptStr(s.value.map(|v| regions[v])),
                    Cell::I64(s.start),
                    Cell::I64(s.end),
                    Cell::I64(s.end - s.start),
                ],
            )?;
        }
        Ok(())
    }
}
