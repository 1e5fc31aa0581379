//! `GET /TOKEN/api/stats?start=T0&end=T1`: the statistics of a window, as
//! `trama stats` computes them (see `docs/view-api.md`).

use std::sync::Arc;

use axum::extract::{Query, State as Extract};
use axum::response::{IntoResponse, Response};
use axum::Json;
use trama_analysis::{Window, WindowParts};

use crate::params::span;
use crate::reply::Error;
use crate::state::Shared;
use crate::window_stats::{trace_stats, WindowStats};

/// `GET api/stats?start=T0&end=T1`.
pub(crate) async fn get_stats(
    Extract(shared): Extract<Arc<Shared>>,
    Query(params): Query<Vec<(String, String)>>,
) -> Result<Response, Error> {
    let state = shared.ready()?;
    let (start, end) = span(&params).map_err(Error::bad)?;
    let stats = shared
        .work
        .compute(move || window_stats(state, start, end))
        .await?;
    Ok(Json(&*stats).into_response())
}

/// The statistics of `[start, end]`: from the entities of the window (the
/// whole trace, or a window replayed), or, for a trace read by blocks and
/// a window too wide to replay at once, added up stretch by stretch.
pub(crate) fn window_stats(
    state: &'static crate::state::State,
    start: f64,
    end: f64,
) -> Result<Arc<WindowStats>, String> {
    let w = Window { start, end };
    let msgs = &state.msgs;
    let crate::state::Store::Blocks(blocks, stretches) = &state.store else {
        let held = state.window(start, end)?;
        return Ok(Arc::new(trace_stats(held.trace(), msgs, start, end, true)));
    };
    if state.readable(start, end) {
        let held = state.window(start, end)?;
        return Ok(Arc::new(trace_stats(held.trace(), msgs, start, end, false)));
    }
    // One wide window at a time: each holds a stretch replayed.
    let mut done = blocks.stats.lock().unwrap_or_else(|e| e.into_inner());
    if let Some(s) = done.iter().find(|d| d.0 == (start, end)) {
        return Ok(s.1.clone());
    }
    let mut parts = WindowParts::new(state.model, w, msgs);
    blocks.by_stretches(stretches, start, end, |trace, part| parts.add(trace, part))?;
    let (states, comm, wait) = parts.finish(state.model);
    let s = Arc::new(WindowStats {
        states,
        comm: Some(comm),
        wait,
    });
    done.push(((start, end), s.clone()));
    if done.len() > 4 {
        done.remove(0);
    }
    Ok(s)
}
