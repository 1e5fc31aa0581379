//! `GET /TOKEN/api/meta`: what the page needs before its first window, and
//! `GET /TOKEN/api/progress`: how far the loading of the trace is (see
//! `docs/view-api.md`).

use std::sync::Arc;

use crate::metadata::Meta;
use crate::reply::Error;
use crate::state::Shared;
use axum::extract::State as Extract;
use axum::Json;

/// `GET api/meta`.
pub(crate) async fn get_meta(
    Extract(shared): Extract<Arc<Shared>>,
) -> Result<Json<&'static Meta>, Error> {
    Ok(Json(&shared.ready()?.meta))
}

/// `GET api/progress`: whether the trace is loaded, how far its reading
/// is, or why it failed.
pub(crate) async fn get_progress(Extract(shared): Extract<Arc<Shared>>) -> Json<serde_json::Value> {
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
}
