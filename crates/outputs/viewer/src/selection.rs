//! `GET /TOKEN/api/selection?start=T0&end=T1&containers=ID,ID,…`: the
//! statistics of an area of the timeline, a window and some containers
//! (see `docs/view-api.md`): time per state as `trama stats states
//! --window T0,T1` gives it for those containers, and their messages
//! ([`trama_analysis::selection`]).

use std::sync::Arc;

use axum::extract::{Query, State as Extract};
use axum::response::{IntoResponse, Response};
use axum::Json;
use trama_analysis::{Selection, SelectionParts, Window};
use trama_sim::ContainerId;

use crate::params::{param, span};
use crate::reply::Error;
use crate::state::{Shared, State, Store};

/// `GET api/selection?start=T0&end=T1&containers=…` (no `containers`:
/// every container).
pub(crate) async fn get_selection(
    Extract(shared): Extract<Arc<Shared>>,
    Query(params): Query<Vec<(String, String)>>,
) -> Result<Response, Error> {
    let state = shared.ready()?;
    let (start, end) = span(&params).map_err(Error::bad)?;
    let ids = param(&params, "containers")
        .map(|list| containers(list, state.model.model.containers.len()))
        .transpose()
        .map_err(Error::bad)?;
    let s = shared
        .work
        .compute(move || selection(state, start, end, ids.as_deref()))
        .await?;
    Ok(Json(&s).into_response())
}

/// The container ids of `list` (comma-separated, each below `count`), or
/// the first that is not one.
fn containers(list: &str, count: usize) -> Result<Vec<ContainerId>, String> {
    list.split(',')
        .filter(|t| !t.is_empty())
        .map(|t| match t.parse::<u32>() {
            Ok(i) if (i as usize) < count => Ok(ContainerId(i)),
            _ => {
                let cut: String = t.chars().take(24).collect();
                Err(format!(
                    "containers: {cut:?} is not a container id (0 to {})",
                    count.saturating_sub(1)
                ))
            }
        })
        .collect()
}

/// The selection's statistics, from the entities of the window (the whole
/// trace or a window replayed) or, for a window too wide to replay at
/// once, stretch by stretch.
fn selection(
    state: &'static State,
    start: f64,
    end: f64,
    ids: Option<&[ContainerId]>,
) -> Result<Selection, String> {
    let w = Window { start, end };
    let size = state.animation.stage.size_field.as_deref();
    let mut parts = SelectionParts::new(w, &state.msgs, size, ids);
    match &state.store {
        Store::Blocks(blocks, stretches) if !state.readable(start, end) => {
            blocks.by_stretches(stretches, start, end, |t, p| parts.add(t, p))?;
        }
        _ => {
            let held = state.window(start, end)?;
            parts.add(held.trace(), &trama_analysis::Part::whole(w));
        }
    }
    Ok(parts.finish(state.model))
}
