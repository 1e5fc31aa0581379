//! Who waited for whom, from the wait states: the matrix of
//! `trama stats wait` on MPI runs.
//!
//! A cell (waiting process, process waited for) is the sum of the seconds
//! of the wait states ([`crate::wait_states`], every pattern) of the
//! waiting process that waited for the other, each instance cut to the
//! window. The process waited for is the instance's
//! [`WaitState::waited_for`]: the sender of a late sender, the receiver
//! of a late receiver, the root of a late broadcast, the last to enter of
//! a barrier or an N×N operation (`wait_nxn`: the participant whose enter
//! ended the waiting), the last non-root to enter of an early reduce, the
//! last to enter among those before it of an early scan. The completion
//! patterns (`barrier_completion`, `nxn_completion`) wait for no one:
//! their seconds go to the column `unattributed`.
//!
//! Each wait is counted once: an instance is a part of one MPI call (the
//! call is the outermost state naming the MPI operation, an OTF2
//! `MPI collective` state inside it only gives the communicator and the
//! root), and the instances of a call do not overlap, so a row adds up to
//! at most the process's time in MPI calls.
//!
//! [`who_waited`] chooses between this form and
//! [`trama_analysis::wait_matrix`] (waiting states by name, each
//! attributed to the sender of the latest message received during it):
//! the latter when the trace has no MPI call that a pattern reads (a send,
//! a receive or a collective operation: `MPI_Init` alone does not make a
//! run), or when the waiting states are named. [`WaitMatrix::method`] says
//! which.

use std::collections::HashMap;

use trama_analysis::{wait_matrix, Messages, WaitCells, WaitMatrix, WaitMethod, Window};
use trama_sim::Trace;

use crate::model::{CallKind, Pattern, Run, WaitState};
use crate::{wait_states, RunOptions};

/// The wait matrix of `run` (read from `trace`) with its wait states
/// `waits`, over `window` (see the module's documentation).
pub fn wait_state_matrix(
    trace: &Trace,
    run: &Run,
    waits: &[WaitState],
    window: Window,
) -> WaitMatrix {
    let mut cells = WaitCells::new();
    let mut patterns: Vec<Pattern> = Vec::new();
    let mut regions: Vec<u32> = Vec::new();
    for w in waits {
        let a = w.start.max(window.start);
        let b = (w.start + w.duration).min(window.end);
        if b <= a {
            continue;
        }
        let call = &run.calls[w.call as usize];
        let container = |p: u32| run.processes.get(p as usize).map(|x| x.container);
        let (Some(waiter), waited) = (container(call.proc), w.waited_for.and_then(container))
        else {
            continue;
        };
        let row: &mut HashMap<_, f64> = cells.entry(waiter).or_default();
        *row.entry(waited).or_default() += b - a;
        patterns.push(w.pattern);
        regions.push(call.region);
    }
    patterns.sort_unstable();
    patterns.dedup();
    regions.sort_unstable();
    regions.dedup();
    let mut m = WaitMatrix::from_cells(trace, window, &cells, WaitMethod::WaitStates);
    m.patterns = patterns.iter().map(|p| p.name().to_string()).collect();
    m.waiting_states = regions
        .iter()
        .map(|&r| run.regions[r as usize].clone())
        .collect();
    m
}

/// Who waited for whom in `trace` over `window`: from the wait states
/// ([`wait_state_matrix`]) when the trace has MPI calls a pattern reads
/// (sends, receives, collectives) and `waiting` is empty, else [`trama_analysis::wait_matrix`] with `msgs` and the
/// waiting patterns `waiting`. `options` reads the run.
pub fn who_waited(
    trace: &Trace,
    window: Window,
    msgs: &Messages,
    waiting: &[String],
    options: &RunOptions,
) -> WaitMatrix {
    if waiting.is_empty() {
        if let Ok(run) = Run::from_trace(trace, options) {
            if run.calls.iter().any(|c| c.kind != CallKind::Other) {
                let waits = wait_states(&run);
                return wait_state_matrix(trace, &run, &waits, window);
            }
        }
    }
    wait_matrix(trace, window, msgs, waiting)
}
