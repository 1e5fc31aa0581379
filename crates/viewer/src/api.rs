//! The HTTP API under `/TOKEN/api/` (specified in `docs/view-api.md`).

use std::sync::Arc;

use axum::extract::State as Extract;
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use axum::{Json, Router};

use crate::State;

/// The API's routes.
pub(crate) fn routes() -> Router<Arc<State>> {
    Router::new().route("/meta", get(meta))
}

/// `GET api/meta`.
async fn meta(Extract(state): Extract<Arc<State>>) -> Response {
    Json(&state.meta).into_response()
}
