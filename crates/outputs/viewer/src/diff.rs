//! `GET /TOKEN/api/diff[?iteration=VALUE]` (two runs compared, `trama
//! view A B`): `trama diff`'s rows of the two runs and each run's
//! iterations of VALUE (default: `--iteration`'s), as `crate::compare`
//! specifies; computed once per value and kept. Both runs must be held
//! whole (else 501 saying so).

use std::sync::Arc;

use axum::extract::{Query, State as Extract};
use axum::response::{IntoResponse, Response};
use axum::Json;

use crate::compare::diff_json;
use crate::reply::Error;
use crate::state::{Pair, Store};

/// `GET api/diff`.
pub(crate) async fn get_diff(
    Extract(pair): Extract<Arc<Pair>>,
    Query(params): Query<Vec<(String, String)>>,
) -> Result<Response, Error> {
    let (a, b) = (pair.a.ready()?, pair.b.ready()?);
    let asked = params
        .iter()
        .find(|(k, _)| k == "iteration")
        .map(|(_, v)| v.clone());
    let iteration = asked
        .or_else(|| pair.iteration.clone())
        .filter(|v| !v.is_empty());
    let key = iteration.clone().unwrap_or_default();
    if let Some(v) = pair
        .diffs
        .lock()
        .map_err(|_| Error::internal("a diff failed"))?
        .get(&key)
    {
        return Ok(Json(v.as_ref().clone()).into_response());
    }
    let (Store::Whole(_), Store::Whole(_)) = (&a.store, &b.store) else {
        return Err(Error::new(
            axum::http::StatusCode::NOT_IMPLEMENTED,
            "the diff needs both runs held whole in memory (`trama view --whole A B`); \
             `trama diff A B` computes it",
        ));
    };
    let names = pair.names.clone();
    let v = pair
        .a
        .work
        .run(move || diff_json(a.model, b.model, &names, iteration.as_deref()))
        .await?;
    let v = Arc::new(v);
    if let Ok(mut kept) = pair.diffs.lock() {
        kept.insert(key, v.clone());
    }
    Ok(Json(v.as_ref().clone()).into_response())
}
