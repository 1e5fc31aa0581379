//! `GET /TOKEN/api/entity?row=R&t=T&px=SECONDS`: the entity under a point
//! of the timeline, for hover and pin (see `docs/view-api.md`).

use std::sync::Arc;

use axum::extract::{Query, State as Extract};
use axum::Json;
use serde::Serialize;
use trama_lod::Row;
use trama_sim::{ContainerId, ListId, Trace, TypeKind};

use crate::params::number;
use crate::reply::Error;
use crate::state::Shared;

/// How many states before the point are looked at for the deepest one
/// covering it.
const LOOK_BACK: usize = 4096;

/// The reply: what is under the point, if anything.
#[derive(Debug, Default, Serialize)]
pub(crate) struct Entity {
    /// `state`, `event`, `variable` or `none`.
    kind: &'static str,
    /// Its type's name.
    #[serde(rename = "type", skip_serializing_if = "String::is_empty")]
    ty: String,
    /// Its container's name.
    #[serde(skip_serializing_if = "String::is_empty")]
    container: String,
    /// Its value (a variable's as a number).
    #[serde(skip_serializing_if = "Option::is_none")]
    value: Option<serde_json::Value>,
    /// Start (an event's time).
    #[serde(skip_serializing_if = "Option::is_none")]
    start: Option<f64>,
    /// End.
    #[serde(skip_serializing_if = "Option::is_none")]
    end: Option<f64>,
    /// Nesting level of a state (0: outermost).
    #[serde(skip_serializing_if = "Option::is_none")]
    level: Option<u32>,
    /// A state's stack at the point, outermost first (values' names).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    stack: Vec<String>,
    /// User-defined fields, in their definition's order.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    fields: Vec<String>,
}

impl Entity {
    /// Entity `i` of list `l` (of container `c`), a state or an event
    /// (`kind`): its type, container, value, start and fields.
    fn valued(kind: &'static str, trace: &Trace, l: ListId, c: ContainerId, i: usize) -> Entity {
        let m = &trace.model;
        let cols = &trace.lists[l.index()];
        Entity {
            kind,
            ty: m.label(m.ty(m.list(l).ty).name),
            container: m.label(m.container(c).name),
            value: Some(m.label(m.value(cols.value[i]).name).into()),
            start: Some(cols.start[i]),
            fields: extras(trace, l, i),
            ..Entity::default()
        }
    }
}

fn extras(trace: &Trace, l: ListId, i: usize) -> Vec<String> {
    let m = &trace.model;
    match trace.lists[l.index()].extras.get(i) {
        Some(&(s, n)) => trace.extras_pool[s as usize..(s + n) as usize]
            .iter()
            .map(|x| m.label(*x))
            .collect(),
        None => Vec::new(),
    }
}

/// The deepest state of `c` covering `t`, with the stack above it.
fn state_at(trace: &Trace, c: ContainerId, t: f64) -> Option<Entity> {
    let m = &trace.model;
    let mut best: Option<(ListId, usize, u32)> = None;
    let mut stack: Vec<(u32, String)> = Vec::new();
    for &(ty, l) in &m.container(c).lists {
        if m.ty(ty).kind != TypeKind::State {
            continue;
        }
        let cols = &trace.lists[l.index()];
        let upto = cols.start.partition_point(|s| *s <= t);
        for i in (upto.saturating_sub(LOOK_BACK)..upto).rev() {
            if cols.end[i] > t || (cols.end[i] == t && cols.start[i] == t) {
                let level = cols.level.get(i).copied().unwrap_or(0);
                stack.push((level, m.label(m.value(cols.value[i]).name)));
                if best.is_none_or(|b| level > b.2) {
                    best = Some((l, i, level));
                }
            }
        }
    }
    let (l, i, level) = best?;
    let cols = &trace.lists[l.index()];
    stack.sort();
    stack.dedup_by_key(|s| s.0);
    Some(Entity {
        end: Some(cols.end[i]),
        level: Some(level),
        stack: stack.into_iter().map(|s| s.1).collect(),
        ..Entity::valued("state", trace, l, c, i)
    })
}

/// The event of `c` nearest `t`, within `px` seconds.
fn event_near(trace: &Trace, c: ContainerId, t: f64, px: f64) -> Option<Entity> {
    let m = &trace.model;
    let mut best: Option<(ListId, usize, f64)> = None;
    for &(ty, l) in &m.container(c).lists {
        if m.ty(ty).kind != TypeKind::Event {
            continue;
        }
        let cols = &trace.lists[l.index()];
        let at = cols.start.partition_point(|s| *s < t - px);
        for i in at..cols.start.len() {
            let d = (cols.start[i] - t).abs();
            if cols.start[i] > t + px {
                break;
            }
            if best.is_none_or(|b| d < b.2) {
                best = Some((l, i, d));
            }
        }
    }
    let (l, i, _) = best?;
    Some(Entity::valued("event", trace, l, c, i))
}

/// The value of variable `l` at `t`.
fn variable_at(trace: &Trace, l: ListId, t: f64) -> Option<Entity> {
    let m = &trace.model;
    let cols = &trace.lists[l.index()];
    let i = cols.start.partition_point(|s| *s <= t).checked_sub(1)?;
    (cols.end[i] >= t).then(|| Entity {
        kind: "variable",
        ty: m.label(m.ty(m.list(l).ty).name),
        container: m.label(m.container(m.list(l).container).name),
        value: Some(cols.number[i].into()),
        start: Some(cols.start[i]),
        end: Some(cols.end[i]),
        ..Entity::default()
    })
}

/// `GET api/entity?row=R&t=T&px=SECONDS`.
pub(crate) async fn get_entity(
    Extract(shared): Extract<Arc<Shared>>,
    Query(params): Query<Vec<(String, String)>>,
) -> Result<Json<Entity>, Error> {
    let state = shared.ready()?;
    let row = number(&params, "row").map_err(Error::bad)?;
    let t = number(&params, "t").map_err(Error::bad)?;
    let px = number(&params, "px").unwrap_or(0.0).max(0.0);
    if row < 0.0 || row.fract() != 0.0 || row as usize >= state.rows.len() {
        return Err(Error::bad(format!(
            "row={row}: not one of the {} rows",
            state.rows.len()
        )));
    }
    let r = state.rows[row as usize];
    let found = shared
        .work
        .compute(move || {
            let held = state.window(t - px, t + px)?;
            let trace = held.trace();
            Ok(match held.row(state, r) {
                None => None,
                Some(Row {
                    variable: Some(l), ..
                }) => variable_at(trace, l, t),
                Some(r) => event_near(trace, r.container, t, px)
                    .or_else(|| state_at(trace, r.container, t)),
            })
        })
        .await?;
    Ok(Json(found.unwrap_or(Entity {
        kind: "none",
        ..Entity::default()
    })))
}
