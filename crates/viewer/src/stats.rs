//! `GET /TOKEN/api/stats?start=T0&end=T1`: the statistics of a window, as
//! `trama stats` computes them (see `docs/view-api.md`).

use std::sync::Arc;

use axum::extract::{Query, State as Extract};
use axum::response::{IntoResponse, Response};
use axum::Json;
use serde::Serialize;
use trama_analysis::{
    comm_matrix, time_per_state, wait_matrix, CommMatrix, StateStats, WaitMatrix, Window,
};

use crate::api::bad;
use crate::timeline::number;
use crate::Shared;

/// The reply: the JSON forms of `trama stats states`, `comm` and `wait`
/// over the window (`docs/stats-formats.md`).
#[derive(Debug, Serialize)]
pub(crate) struct WindowStats {
    pub states: Option<StateStats>,
    pub comm: Option<CommMatrix>,
    pub wait: WaitMatrix,
}

/// The statistics of `[start, end]` (`msgs`: the link types that are
/// messages).
pub(crate) fn window_stats(
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

/// `GET api/stats?start=T0&end=T1`.
pub(crate) async fn stats(
    Extract(shared): Extract<Arc<Shared>>,
    Query(params): Query<Vec<(String, String)>>,
) -> Response {
    let state = match shared.ready() {
        Ok(s) => s,
        Err(r) => return *r,
    };
    let (start, end) = match (number(&params, "start"), number(&params, "end")) {
        (Ok(a), Ok(b)) if b > a => (a, b),
        (Ok(a), Ok(b)) => {
            return bad(format!(
                "the window is empty or inverted: start={a} end={b}"
            ))
        }
        (Err(e), _) | (_, Err(e)) => return bad(e),
    };
    let reply = tokio::task::spawn_blocking(move || {
        window_stats(state.lod.trace(), &state.msgs, start, end)
    })
    .await;
    match reply {
        Ok(s) => Json(s).into_response(),
        Err(e) => bad(e.to_string()),
    }
}
