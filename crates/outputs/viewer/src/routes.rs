//! The router: every route under `/TOKEN/` and the handler that answers
//! it (the one place that names them all; the HTTP API is specified in
//! `docs/view-api.md`), anything else 404, and the layers around them:
//! [`crate::guard`]'s checks before any handler, then the headers of every
//! reply ([`reply::secured`]).

use std::net::SocketAddr;
use std::sync::Arc;

use axum::middleware::{from_fn, map_response};
use axum::response::Redirect;
use axum::routing::get;
use axum::Router;

use crate::reply::{self, Error};
use crate::state::Shared;
use crate::{assets, entity, frames, guard, meta, search, selection, stats, stream, timeline, why};

/// The API's routes, under `/TOKEN/api/`; their replies are not stored.
fn api() -> Router<Arc<Shared>> {
    Router::new()
        .route("/meta", get(meta::get_meta))
        .route("/timeline", get(timeline::get_timeline))
        .route("/entity", get(entity::get_entity))
        .route("/search", get(search::get_search))
        .route("/stats", get(stats::get_stats))
        .route("/selection", get(selection::get_selection))
        .route("/progress", get(meta::get_progress))
        .route("/stage", get(frames::get_stage))
        .route("/frame", get(frames::get_frame))
        .route("/stream", get(stream::get_stream))
        .route("/why", get(why::get_why))
        .route("/why/overlay", get(why::get_overlay))
        .layer(map_response(reply::no_store))
        .layer(from_fn(reply::compressed))
}

/// Every route, under `/TOKEN/` (`/TOKEN` redirects there); anything else
/// is 404.
pub(crate) fn router(state: Arc<Shared>, token: &str, bound: SocketAddr) -> Router {
    let base = format!("/{token}/");
    let to_base = base.clone();
    let token = token.to_string();
    Router::new()
        .route(&base, get(assets::get_index))
        .route(
            &format!("/{token}"),
            get(move || async move { Redirect::permanent(&to_base) }),
        )
        .route(&format!("{base}{{file}}"), get(assets::get_asset))
        .nest(&format!("{base}api"), api())
        .with_state(state)
        .fallback(|| async { Error::not_found() })
        .layer(from_fn(move |req, next| {
            guard::guard(bound, token.clone(), req, next)
        }))
        .layer(map_response(reply::secured))
}
