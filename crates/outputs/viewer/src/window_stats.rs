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
pub(crate) fn trace_stats(
    trace: &trama_sim::Trace,
    msgs: &trama_analysis::Messages,
    start: f64,
    end: f64,
) -> WindowStats {
    let w = Window { start, end };
    WindowStats {
        states: time_per_state(trace, w, None),
        comm: comm_matrix(trace, w, msgs, None, None),
        wait: wait_matrix(trace, w, msgs, &[]),
    }
}
