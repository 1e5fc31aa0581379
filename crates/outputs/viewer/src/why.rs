//! `GET /TOKEN/api/why` and `GET /TOKEN/api/why/overlay`: why the run was
//! slow, as [`trama_why`] finds it (`trama stats waits` and
//! `critical-path` compute the same): its wait states per pattern with
//! their most severe instances, the critical path's profile, and, for a
//! window, the wait states and the path's pieces to draw over the
//! timeline (merged below a pixel column). Replies are specified in
//! `docs/view-api.md`.
//!
//! The run and its analyses are computed once, on the first request, and
//! kept with the trace (`crate::why_run`). A trace read by blocks, or one
//! without MPI processes, has none: the replies say why
//! (`"available": false` and a `reason`).

use std::sync::Arc;

use axum::extract::{Query, State as Extract};
use axum::response::{IntoResponse, Response};
use axum::Json;
use serde_json::{json, Value};

use crate::params::{span, width};
use crate::reply::Error;
use crate::state::{Shared, State, Store};
use crate::why_run::Analysis;

/// Widest overlay asked for, in pixel columns (as `api/timeline`).
const MAX_WIDTH: f64 = 16384.0;

/// The analyses of `state`'s trace, computed the first time (none for a
/// trace read by blocks).
fn analysis(state: &State) -> Result<Arc<Analysis>, String> {
    state.why.get(|| match &state.store {
        Store::Blocks(..) => Err(
            "the trace is read by blocks (it is larger than the memory allowed): the wait \
             states and the critical path need the whole run in memory; `trama stats waits` \
             and `trama stats critical-path` compute them"
                .into(),
        ),
        Store::Whole(_) => Analysis::new(state.model, &state.meta),
    })
}

/// Why there is no analysis, as the replies say it.
fn unavailable(reason: &str) -> Value {
    json!({ "available": false, "reason": reason })
}

/// `GET api/why`.
pub(crate) async fn get_why(Extract(shared): Extract<Arc<Shared>>) -> Result<Response, Error> {
    let state = shared.ready()?;
    let v = shared
        .work
        .run(move || match analysis(state) {
            Ok(a) => a.summary(),
            Err(e) => unavailable(&e),
        })
        .await?;
    Ok(Json(v).into_response())
}

/// `GET api/why/overlay?start=T0&end=T1&width=W`.
pub(crate) async fn get_overlay(
    Extract(shared): Extract<Arc<Shared>>,
    Query(params): Query<Vec<(String, String)>>,
) -> Result<Response, Error> {
    let state = shared.ready()?;
    let (start, end) = span(&params).map_err(Error::bad)?;
    let width = width(&params, MAX_WIDTH).map_err(Error::bad)?;
    let v = shared
        .work
        .run(move || match analysis(state) {
            Ok(a) => a.overlay((start, end), width),
            Err(e) => unavailable(&e),
        })
        .await?;
    Ok(Json(v).into_response())
}
