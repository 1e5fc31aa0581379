//! The HTTP API under `/TOKEN/api/` (specified in `docs/view-api.md`).

use std::sync::Arc;

use axum::extract::{Query, State as Extract};
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use axum::{Json, Router};

use crate::guard::{bytes, text};
use crate::timeline::{timeline, Window};
use crate::State;

/// The API's routes.
pub(crate) fn routes() -> Router<Arc<State>> {
    Router::new()
        .route("/meta", get(meta))
        .route("/timeline", get(window))
        .route("/entity", get(crate::entity::entity))
        .route("/search", get(crate::search::search))
        .route("/stats", get(crate::stats::stats))
}

/// `GET api/meta`.
async fn meta(Extract(state): Extract<Arc<State>>) -> Response {
    Json(&state.meta).into_response()
}

/// A 400 reply saying why.
pub(crate) fn bad(why: impl Into<String>) -> Response {
    text(StatusCode::BAD_REQUEST, format!("{}\n", why.into()))
}

/// `GET api/timeline?start=T0&end=T1&width=W[&rows=…]`.
async fn window(
    Extract(state): Extract<Arc<State>>,
    Query(params): Query<Vec<(String, String)>>,
) -> Response {
    let w = match Window::parse(&params, state.rows.len()) {
        Ok(w) => w,
        Err(e) => return bad(e),
    };
    let reply = tokio::task::spawn_blocking(move || {
        timeline(&state.lod, &state.rows, state.link_types.as_deref(), &w)
    })
    .await;
    match reply {
        Ok(body) => bytes("application/octet-stream", body),
        Err(e) => text(StatusCode::INTERNAL_SERVER_ERROR, format!("{e}\n")),
    }
}
