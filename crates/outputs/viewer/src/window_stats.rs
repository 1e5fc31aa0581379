//! The statistics of a window, as `trama stats` computes them.

use serde::Serialize;
use trama_analysis::{
    comm_matrix, time_per_state, wait_matrix, CommMatrix, StateStats, WaitMatrix, Window,
};

/// The reply: the JSON forms of `trama stats states`, `comm` and `wait`
/// over the window (`docs/stats-formats.md`).
#[derive(Debug, Serialize)]
pub(crate) struct WindowStats {
    pub states: Option<StateStats>,
    pub comm: Option<CommMatrix>,
    pub wait: WaitMatrix,
}

/// The statistics of `[start, end]` of `trace`, which holds at least the
/// entities overlapping it (`msgs`: the link types that are messages).
/// The wait matrix is made of the wait states of the run when `whole`
/// (`trace` is the whole trace) and the trace has MPI calls
/// ([`trama_why::who_waited`]); a window replayed alone may cut
/// collective operations, whose instances the analysis matches by order,
/// so its waits are attributed to the last message received during them
/// ([`wait_matrix`]), as the matrix's `method` says.
pub(crate) fn trace_stats(
    trace: &trama_sim::Trace,
    msgs: &trama_analysis::Messages,
    start: f64,
    end: f64,
    whole: bool,
) -> WindowStats {
    let w = Window { start, end };
    let wait = if whole {
        trama_why::who_waited(trace, w, msgs, &[], &trama_why::RunOptions::default())
    } else {
        wait_matrix(trace, w, msgs, &[])
    };
    WindowStats {
        states: time_per_state(trace, w, None),
        comm: comm_matrix(trace, w, msgs, None, None),
        wait,
    }
}
