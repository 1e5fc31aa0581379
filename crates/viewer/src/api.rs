//! The HTTP API under `/TOKEN/api/` (specified in `docs/view-api.md`).

use std::sync::Arc;

use axum::extract::{Query, State as Extract};
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use axum::{Json, Router};

use crate::guard::{bytes, text};
use crate::timeline::{timeline, Window};
use crate::Shared;

/// The API's routes.
pub(crate) fn routes() -> Router<Arc<Shared>> {
    Router::new()
        .route("/meta", get(meta))
        .route("/timeline", get(window))
        .route("/entity", get(crate::entity::entity))
        .route("/search", get(crate::search::search))
        .route("/stats", get(crate::stats::stats))
        .route("/progress", get(progress))
        .route("/stage", get(crate::frames::stage))
        .route("/frame", get(crate::frames::frame_of))
        .route("/stream", get(stream))
        .layer(axum::middleware::map_response(no_store))
}

/// An API reply is not stored by the browser (a window's data changes
/// with the trace viewed behind the same URL).
async fn no_store(mut r: Response) -> Response {
    r.headers_mut().insert(
        axum::http::header::CACHE_CONTROL,
        axum::http::HeaderValue::from_static("no-store"),
    );
    r
}

/// `GET api/meta`.
async fn meta(Extract(shared): Extract<Arc<Shared>>) -> Response {
    let state = match shared.ready() {
        Ok(s) => s,
        Err(r) => return *r,
    };
    Json(&state.meta).into_response()
}

/// `GET api/progress`: whether the trace is loaded, how far its reading
/// is, or why it failed.
async fn progress(Extract(shared): Extract<Arc<Shared>>) -> Response {
    use std::sync::atomic::Ordering;
    let state = if shared.stream.is_some() {
        "stream"
    } else if shared.state.get().is_some() {
        "ready"
    } else if shared.failed.get().is_some() {
        "failed"
    } else {
        "loading"
    };
    let l = shared.loading.as_ref();
    Json(serde_json::json!({
        "state": state,
        "done": l.map(|l| l.done.load(Ordering::Relaxed)),
        "total": l.and_then(|l| l.total),
        "unit": l.map(|l| l.unit),
        "error": shared.failed.get(),
    }))
    .into_response()
}

/// `GET api/stream?after=K&version=V[&last=1]`: a stream's frames.
async fn stream(
    Extract(shared): Extract<Arc<Shared>>,
    Query(params): Query<Vec<(String, String)>>,
) -> Response {
    let Some(live) = shared.stream.clone() else {
        return bad("this trace is not streamed (trama view --stream plays one)");
    };
    let get = |name: &str| params.iter().find(|p| p.0 == name).map(|p| p.1.as_str());
    let after = match get("after").map(str::parse::<i64>) {
        None => None,
        Some(Ok(k)) if k < 0 => None,
        Some(Ok(k)) => Some(k as u64),
        Some(Err(_)) => return bad("after= is not a frame number"),
    };
    let version = get("version").and_then(|v| v.parse().ok()).unwrap_or(0);
    let last = get("last") == Some("1");
    let reply = tokio::task::spawn_blocking(move || live.read(after, last, version)).await;
    match reply {
        Ok(r) => Json(r).into_response(),
        Err(e) => bad(e.to_string()),
    }
}

/// A 400 reply saying why.
pub(crate) fn bad(why: impl Into<String>) -> Response {
    text(StatusCode::BAD_REQUEST, format!("{}\n", why.into()))
}

/// Runs `work` off the server's threads in a turn of `shared`'s work
/// ([`crate::limit`]) and answers what it gives as JSON, or its error as a
/// 500 (503 when too many requests are pending).
pub(crate) async fn json_of<T: serde::Serialize + Send + 'static>(
    shared: &Shared,
    work: impl FnOnce() -> Result<T, String> + Send + 'static,
) -> Response {
    match shared.work.run(work).await {
        Ok(Ok(x)) => Json(x).into_response(),
        Ok(Err(e)) => text(StatusCode::INTERNAL_SERVER_ERROR, format!("{e}\n")),
        Err(r) => *r,
    }
}

/// `GET api/timeline?start=T0&end=T1&width=W[&rows=…]`.
async fn window(
    Extract(shared): Extract<Arc<Shared>>,
    Query(params): Query<Vec<(String, String)>>,
) -> Response {
    let state = match shared.ready() {
        Ok(s) => s,
        Err(r) => return *r,
    };
    let w = match Window::parse(&params, state.rows.len()) {
        Ok(w) => w,
        Err(e) => return bad(e),
    };
    match shared.work.run(move || timeline(state, &w)).await {
        Ok(Ok(body)) => bytes("application/octet-stream", body),
        Ok(Err(e)) => text(StatusCode::INTERNAL_SERVER_ERROR, format!("{e}\n")),
        Err(r) => *r,
    }
}
