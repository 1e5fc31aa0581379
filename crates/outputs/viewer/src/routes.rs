//! The router: every route under `/TOKEN/` (a run's page and API, or two
//! runs compared: a page of their comparison and each run's under
//! `/TOKEN/a/` and `/TOKEN/b/`) and the handler that answers it (the one place that names them all; the HTTP API is specified in
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
use crate::state::{Pair, Shared};
use crate::{assets, diff, entity, frames, guard, meta};
use crate::{search, selection, stats, stream, timeline, why};

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

/// A run's page and API under `base` (which ends with `/`): the page at
/// `base`, its files at `base` + file, its API under `base` + `api`.
fn page(base: &str) -> Router<Arc<Shared>> {
    Router::new()
        .route(base, get(assets::get_index))
        .route(&format!("{base}{{file}}"), get(assets::get_asset))
        .nest(&format!("{base}api"), api())
}

/// The layers around every route: `/TOKEN` redirected to `/TOKEN/`,
/// anything else 404, the guard, then the headers of every reply
/// (`framed`: the pages may frame one another).
fn guarded(routes: Router, token: &str, bound: SocketAddr, framed: bool) -> Router {
    let base = format!("/{token}/");
    let token = token.to_string();
    let routes = routes
        .route(
            &format!("/{token}"),
            get(move || async move { Redirect::permanent(&base) }),
        )
        .fallback(|| async { Error::not_found() })
        .layer(from_fn(move |req, next| {
            guard::guard(bound, token.clone(), req, next)
        }));
    if framed {
        routes.layer(map_response(reply::secured_framed))
    } else {
        routes.layer(map_response(reply::secured))
    }
}

/// Every route, under `/TOKEN/` (`/TOKEN` redirects there); anything else
/// is 404.
pub(crate) fn router(state: Arc<Shared>, token: &str, bound: SocketAddr) -> Router {
    let routes = page(&format!("/{token}/")).with_state(state);
    guarded(routes, token, bound, false)
}

/// The routes of two runs compared (`trama view A B`): the comparison's
/// page at `/TOKEN/` (its files beside it, `api/diff`), and each run's
/// page and API under `/TOKEN/a/` and `/TOKEN/b/`.
pub(crate) fn compare_router(pair: Arc<Pair>, token: &str, bound: SocketAddr) -> Router {
    let base = format!("/{token}/");
    let routes = Router::new()
        .merge(page(&format!("{base}a/")).with_state(pair.a.clone()))
        .merge(page(&format!("{base}b/")).with_state(pair.b.clone()))
        .route(&base, get(assets::get_compare))
        .route(&format!("{base}{{file}}"), get(assets::get_asset))
        .route(
            &format!("{base}api/diff"),
            get(diff::get_diff)
                .layer(map_response(reply::no_store))
                .layer(from_fn(reply::compressed)),
        )
        .with_state(pair);
    guarded(routes, token, bound, true)
}
