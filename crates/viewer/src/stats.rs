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
    states: Option<StateStats>,
    comm: Option<CommMatrix>,
    wait: WaitMatrix,
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
        if !state.readable(start, end) {
            return Err(
                "the statistics of so wide a window are not computed on a trace read by blocks: zoom in"
                    .to_string(),
            );
        }
        let held = state.window(start, end)?;
        let trace = held.trace();
        let w = Window { start, end };
        let msgs = &state.msgs;
        Ok(WindowStats {
            states: time_per_state(trace, w, None),
            comm: comm_matrix(trace, w, msgs, None, None),
            wait: wait_matrix(trace, w, msgs, &[]),
        })
    })
    .await;
    match reply {
        Ok(Ok(s)) => Json(s).into_response(),
        Ok(Err(e)) => crate::guard::text(
            axum::http::StatusCode::UNPROCESSABLE_ENTITY,
            format!("{e}\n"),
        ),
        Err(e) => bad(e.to_string()),
    }
}
