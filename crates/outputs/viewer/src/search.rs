//! `GET /TOKEN/api/search?q=TEXT[&after=T]`: containers and values by
//! name, and the next state or event of a matching value after a time
//! (see `docs/view-api.md`).

use std::collections::HashSet;
use std::sync::Arc;

use axum::extract::{Query, State as Extract};
use axum::Json;
use serde::Serialize;
use trama_sim::{Trace, TypeKind, ValueId};

use crate::params::{number, param};
use crate::reply::Error;
use crate::state::{Shared, State};

/// At most this many containers are listed.
const MAX_ROWS: usize = 50;

/// A row whose label matches.
#[derive(Debug, Serialize)]
pub(crate) struct RowHit {
    row: u32,
    label: String,
}

/// The next occurrence of a matching value.
#[derive(Debug, Serialize)]
pub(crate) struct Next {
    row: u32,
    value: String,
    start: f64,
    end: f64,
}

/// The reply.
#[derive(Debug, Serialize)]
pub(crate) struct Found {
    rows: Vec<RowHit>,
    values: Vec<String>,
    next: Option<Next>,
}

/// The first state or event after `after` whose value is in `values`, with
/// its container's row.
fn next(state: &State, trace: &Trace, values: &HashSet<ValueId>, after: f64) -> Option<Next> {
    let m = &trace.model;
    let mut best: Option<(f64, usize, usize)> = None;
    for (l, info) in m.lists.iter().enumerate() {
        if !matches!(info.kind, TypeKind::State | TypeKind::Event) {
            continue;
        }
        let cols = &trace.lists[l];
        let from = cols.start.partition_point(|s| *s <= after);
        let until = best.map_or(f64::INFINITY, |b| b.0);
        let hit = (from..cols.len())
            .take_while(|i| cols.start[*i] < until)
            .find(|i| values.contains(&cols.value[*i]));
        if let Some(i) = hit {
            best = Some((cols.start[i], l, i));
        }
    }
    let (_, l, i) = best?;
    let cols = &trace.lists[l];
    let c = m.lists[l].container;
    let row = state
        .rows
        .iter()
        .position(|r| r.container == c && r.variable.is_none())?;
    Some(Next {
        row: row as u32,
        value: m.label(m.value(cols.value[i]).name),
        start: cols.start[i],
        end: cols.end[i],
    })
}

/// `GET api/search?q=TEXT&after=T`.
pub(crate) async fn get_search(
    Extract(shared): Extract<Arc<Shared>>,
    Query(params): Query<Vec<(String, String)>>,
) -> Result<Json<Found>, Error> {
    let state = shared.ready()?;
    let q = param(&params, "q")
        .ok_or_else(|| Error::bad("missing parameter q"))?
        .to_lowercase();
    if q.is_empty() {
        return Err(Error::bad("q is empty"));
    }
    let after = match param(&params, "after") {
        Some(_) => number(&params, "after").map_err(Error::bad)?,
        None => f64::NEG_INFINITY,
    };
    let found = shared
        .work
        .run(move || {
            let m = &state.model.model;
            let rows = state
                .meta
                .rows
                .iter()
                .enumerate()
                .filter(|(_, r)| r.label.to_lowercase().contains(&q))
                .take(MAX_ROWS)
                .map(|(i, r)| RowHit {
                    row: i as u32,
                    label: r.label.clone(),
                })
                .collect();
            let ids: HashSet<ValueId> = (0..m.values.len() as u32)
                .map(ValueId)
                .filter(|v| m.label(m.value(*v).name).to_lowercase().contains(&q))
                .collect();
            let mut values: Vec<String> = ids.iter().map(|v| m.label(m.value(*v).name)).collect();
            values.sort();
            values.dedup();
            let next = match &state.store {
                crate::state::Store::Whole(lod) => next(state, lod.trace(), &ids, after),
                crate::state::Store::Blocks(_, stretches) => {
                    // The first stretch after `after` holding one of the values.
                    let mut found = None;
                    for s in stretches.iter().filter(|s| s.t1 >= after) {
                        if !ids
                            .iter()
                            .any(|v| s.values.get(v.0 as usize) == Some(&true))
                        {
                            continue;
                        }
                        match state.window(s.t0.max(after), s.t1) {
                            Ok(held) => {
                                found = next(state, held.trace(), &ids, after);
                                if found.is_some() {
                                    break;
                                }
                            }
                            Err(_) => break,
                        }
                    }
                    found
                }
            };
            Found { rows, values, next }
        })
        .await?;
    Ok(Json(found))
}
