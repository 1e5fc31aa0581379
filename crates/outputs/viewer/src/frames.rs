//! `GET /TOKEN/api/stage` and `GET /TOKEN/api/frame?t=T&dt=D`: what the
//! player's animated views draw (`docs/view-api.md`), from the frame model
//! of `trama-analysis` ([`trama_analysis::frame`]), the same that
//! `trama render` records.

use std::sync::Arc;

use axum::extract::{Query, State as Extract};
use axum::response::{IntoResponse, Response};
use axum::Json;
use serde::Serialize;
use trama_analysis::{frame, node_frame, Flights, Frame, FrameCell, NodeFrame, NodeLinks, Stage};

use crate::animation::{Animation, NodesReply, PlayerOptions};
use crate::params::{number, param};
use crate::reply::Error;
use crate::state::Shared;

/// Columns of the overview strip under the player's scrubber.
const OVERVIEW: usize = 512;

/// The reply of `api/stage`.
#[derive(Serialize)]
struct StageReply<'a> {
    #[serde(flatten)]
    stage: &'a Stage,
    /// The run's messages per (sender, receiver): count and mean effective
    /// rate (the matrix beside the frame's); `null` when the trace is read
    /// by blocks.
    whole: Option<Vec<FrameCell>>,
    /// Messages started per column of the run (the strip under the
    /// scrubber); empty when the trace is read by blocks.
    overview: Vec<u32>,
    /// Whether frames carry the Kiviat radii (the run's messages are held).
    kiviat: bool,
    /// The share at the Kiviat diagram's rim.
    kiviat_scale: f64,
    /// The player's settings asked for.
    player: PlayerOptions,
    /// What the messages leave out (a platform's links), if anything.
    note: Option<String>,
    /// Per process, its place in the graph of the run's messages.
    layout: &'a [Option<(f64, f64)>],
    /// Per pair of processes, when their first message starts: `[a, b,
    /// t]` (the graph's edges appear then).
    contacts: Vec<(u32, u32, f64)>,
    /// The lowest and highest effective rate of one message: the default
    /// gradient, which holds every frame's means and the run's.
    rates: Option<(f64, f64)>,
    /// The node/arc view.
    nodes: NodesReply<'a>,
}

/// The reply of `api/frame`: the frame and its node/arc view.
#[derive(Serialize)]
pub(crate) struct FrameReply {
    #[serde(flatten)]
    pub frame: Frame,
    /// The node/arc view of the frame (`null` without nodes).
    pub nodes: Option<NodeFrame>,
}

/// `GET api/stage`.
pub(crate) async fn get_stage(Extract(shared): Extract<Arc<Shared>>) -> Result<Response, Error> {
    let state = shared.ready()?;
    Ok(Json(stage_reply(
        &state.animation,
        (state.meta.start, state.meta.end),
        state.msgs.note(),
    ))
    .into_response())
}

/// What `api/stage` answers for `a`, a run spanning `(start, end)`.
fn stage_reply(a: &Animation, (start, end): (f64, f64), note: Option<String>) -> StageReply<'_> {
    let (whole, overview) = match &a.flights {
        Some(f) => (
            Some(f.cells(f64::NEG_INFINITY, f64::INFINITY)),
            f.overview(start, end, OVERVIEW),
        ),
        None => (a.counted.clone(), Vec::new()),
    };
    StageReply {
        stage: &a.stage,
        whole,
        overview,
        kiviat: a.flights.is_some(),
        kiviat_scale: a
            .flights
            .as_ref()
            .map_or(1.0, |f| f.kiviat_scale(a.stage.hosts.len())),
        player: a.player,
        note,
        layout: &a.layout,
        contacts: a
            .flights
            .as_ref()
            .map(|f| f.first_contacts())
            .unwrap_or_default(),
        rates: a.flights.as_ref().and_then(|f| f.rate_range()),
        nodes: NodesReply::of(&a.nodes, &a.node_view),
    }
}

/// The player of a page with no server (the offline report): the stage of
/// `trace` and `n` frames cutting the run `(start, end)` in equal parts,
/// each with its node/arc view, as JSON (`{"stage", "frames"}`; the stage
/// has `frames_dt`, the frames' length); fewer frames when they would take
/// more than `room` bytes, then frames without the node/arc view, and
/// `None` when even 8 of those would.
pub(crate) fn embedded(
    trace: &trama_sim::Trace,
    ordering: Option<&trama_analysis::Ordering>,
    msgs: &trama_analysis::Messages,
    (start, end): (f64, f64),
    room: usize,
) -> Option<String> {
    let a = Animation::new(
        trace,
        ordering,
        msgs,
        &crate::options::ViewerOptions::default(),
        true,
    );
    let flights = a.flights.as_ref()?;
    let links = a.nodes.as_ref().ok().map(|n| NodeLinks::new(trace, n));
    let mut stage = serde_json::to_value(stage_reply(&a, (start, end), msgs.note())).ok()?;
    // With the node/arc view's frames, else without (they are the larger).
    for with_nodes in [true, false] {
        let mut n = 200usize;
        while n >= 8 {
            let dt = (end - start) / n as f64;
            stage["frames_dt"] = serde_json::json!(dt);
            let frames: Vec<FrameReply> = (0..n)
                .map(|k| {
                    let t = start + k as f64 * dt;
                    FrameReply {
                        frame: frame(trace, &a.stage, flights, t, dt, Some(start)),
                        nodes: a
                            .nodes
                            .as_ref()
                            .ok()
                            .filter(|_| with_nodes)
                            .zip(links.as_ref())
                            .map(|(s, l)| node_frame(trace, s, l, t, dt)),
                    }
                })
                .collect();
            let json =
                serde_json::to_string(&serde_json::json!({"stage": stage, "frames": frames}))
                    .ok()?
                    .replace('<', "\\u003c");
            if json.len() <= room {
                return Some(json);
            }
            n /= 2;
        }
    }
    None
}

/// `GET api/frame?t=T&dt=D`.
pub(crate) async fn get_frame(
    Extract(shared): Extract<Arc<Shared>>,
    Query(params): Query<Vec<(String, String)>>,
) -> Result<Json<FrameReply>, Error> {
    let state = shared.ready()?;
    let t = number(&params, "t").map_err(Error::bad)?;
    let dt = match param(&params, "dt") {
        Some(_) => match number(&params, "dt").map_err(Error::bad)? {
            d if d >= 0.0 => d,
            d => return Err(Error::bad(format!("dt={d} is negative"))),
        },
        None => 0.0,
    };
    if !state.readable(t, t + dt) {
        return Err(Error::bad(format!(
            "a frame of {dt} s is too long to replay from this trace (read by blocks); ask for a shorter one"
        )));
    }
    let nodes = params.iter().any(|(k, v)| k == "nodes" && v == "1");
    let frame = shared
        .work
        .compute(move || frame_at(state, t, dt, nodes))
        .await?;
    Ok(Json(frame))
}

/// The frame `[t, t + dt]`: from the run's messages held, or from the
/// window replayed (then without the Kiviat radii); with the node/arc
/// view's when `nodes`.
pub(crate) fn frame_at(
    state: &'static crate::state::State,
    t: f64,
    dt: f64,
    nodes: bool,
) -> Result<FrameReply, String> {
    let a = &state.animation;
    let held = state.window(t, t + dt)?;
    let nodes = a
        .nodes
        .as_ref()
        .ok()
        .filter(|_| nodes)
        .map(|stage| match a.whole {
            true => {
                let l = a
                    .node_links
                    .get_or_init(|| NodeLinks::new(held.trace(), stage));
                node_frame(held.trace(), stage, l, t, dt)
            }
            false => {
                let l = NodeLinks::new(held.trace(), stage);
                node_frame(held.trace(), stage, &l, t, dt)
            }
        });
    let frame = match &a.flights {
        Some(f) => frame(held.trace(), &a.stage, f, t, dt, Some(state.meta.start)),
        None => {
            let f = Flights::new(held.trace(), &a.stage, &state.msgs);
            frame(held.trace(), &a.stage, &f, t, dt, None)
        }
    };
    Ok(FrameReply { frame, nodes })
}
