//! `trama view --stream`: a trace of any length played forward as it is
//! read, in memory that does not grow with it.
//!
//! A [`StreamSink`] is the simulation's sink. It asks for a
//! [tick](trama_sim::Sink::tick) at the end of each frame (`[t, t + Δ]`,
//! Δ fixed for the run): when the first event past that end comes, every
//! state that overlaps the frame is either final (received and kept) or
//! still open (on its stack, which the tick gives), so the frame is exact
//! for states; it is cut with [`trama_analysis::frame`], the frame model of
//! the player and the recordings. A message overlaps the frame when it has
//! ended (both ends known) or when its start came and its end has not: its
//! receiver is not known yet, and the frame counts it per sender as
//! `pending`. The Kiviat radii count the off-host messages started up to
//! the frame's end whose receive has come when it is cut (a pending one
//! counts in the frames cut after its receive).
//! The input is taken in time order, as tracers and `trama merge` write it:
//! an event earlier than the end of a frame already cut counts only in the
//! frames still to come.
//!
//! What is kept: the entities that overlap the current frame, the open
//! ones (the simulation's own), the model, and at most
//! [`StreamOptions::ahead`] frames cut but not yet read by the page (the
//! simulation waits for the page beyond that). `GET api/stream?after=K`
//! gives the frames after `K`; `&last=1` skips to the newest (the live
//! edge). See `docs/view-api.md`.

use std::sync::Arc;

use axum::extract::{Query, State as Extract};
use axum::Json;
use serde::Serialize;
use trama_analysis::{
    frame, node_frame, size_of, Flights, Frame, LinkItem, NodeFrame, NodeLinks, NodeStage, Stage,
    Window,
};
use trama_sim::{Columns, ContainerId, Entity, ListId, Model, OpenEntity, Sink, Trace, TypeKind};

use crate::live::{Live, StreamReply};
use crate::params::param;
use crate::reply::Error;
use crate::state::Shared;

/// How the frames of a stream are cut.
#[derive(Clone, Debug)]
#[non_exhaustive]
pub struct StreamOptions {
    /// The frames' length, seconds of the trace.
    pub dt: f64,
    /// Frames cut ahead of the page at most.
    pub ahead: usize,
    /// The links' field holding a message's size; `None`: the first
    /// numeric field named like a size.
    pub size_field: Option<String>,
    /// The node/arc view's level (`None`: its default).
    pub node_level: Option<String>,
}

impl Default for StreamOptions {
    fn default() -> StreamOptions {
        StreamOptions {
            dt: 0.1,
            ahead: 64,
            size_field: None,
            node_level: None,
        }
    }
}

/// A frame of the stream, as the page reads it.
#[derive(Serialize)]
struct StreamFrame<'a> {
    /// Its number: frame `k` is `[t0 + k Δ, t0 + (k + 1) Δ]`.
    k: u64,
    #[serde(flatten)]
    frame: &'a Frame,
    /// Messages whose start came in or before the frame and whose end has
    /// not come: (sender, count).
    pending: Vec<(u32, u32)>,
    /// The node/arc view of the frame.
    nodes: Option<NodeFrame>,
}

/// The processes and values the frames refer to.
#[derive(Serialize)]
struct StreamStage<'a> {
    #[serde(flatten)]
    stage: &'a Stage,
    values: Vec<crate::metadata::MetaValue>,
    nodes: crate::animation::NodesReply<'a>,
    /// Frames carry the Kiviat radii (of the messages received so far).
    kiviat: bool,
}

/// Tells the page that a stream failed (see [`StreamSink::ender`]).
#[derive(Clone)]
pub struct StreamEnd(Arc<Live>);

impl StreamEnd {
    /// The stream failed: the page says why.
    pub fn fail(&self, why: String) {
        self.0.fail(why);
    }
}

/// A state kept while it overlaps the frames to come.
#[derive(Clone, Copy)]
struct Kept {
    list: ListId,
    start: f64,
    end: f64,
    level: u32,
    value: u32,
}

/// A message kept while it overlaps the frames to come.
#[derive(Clone, Copy)]
struct Message {
    from: ContainerId,
    to: ContainerId,
    start: f64,
    end: f64,
    size: Option<f64>,
    /// Its list and value, and its fields `count` and `bytes`, for the
    /// node/arc view.
    list: ListId,
    value: u32,
    count: Option<f64>,
    bytes: Option<f64>,
}

impl Message {
    fn of(
        model: &Model,
        list: ListId,
        (from, to): (ContainerId, ContainerId),
        (start, end): (f64, f64),
        value: u32,
        extras: &[trama_sim::StrId],
        size_field: Option<&str>,
    ) -> Message {
        Message {
            from,
            to,
            start,
            end,
            size: size_field.and_then(|f| size_of(model, extras, f)),
            list,
            value,
            count: size_of(model, extras, "count"),
            bytes: size_of(model, extras, "bytes"),
        }
    }
}

/// The sink of a streamed simulation: cuts frames as the events come (see
/// the module documentation).
pub struct StreamSink {
    live: Arc<Live>,
    opts: StreamOptions,
    /// Frame being filled: number, start.
    k: u64,
    start: Option<f64>,
    states: Vec<Kept>,
    messages: Vec<Message>,
    /// The model as the frames were last cut, and its sizes then.
    trace: Trace,
    sizes: (usize, usize, usize, usize),
    stage: Option<Stage>,
    size_field: Option<String>,
    last_time: f64,
    /// Per variable list, its latest value handed over: (set at, value).
    vars: std::collections::HashMap<ListId, (f64, f64)>,
    /// The node/arc view's nodes, and its settings.
    nodes: Result<NodeStage, String>,
    node_view: crate::animation::NodeViewOptions,
    /// Messages whose two ends came, not yet in `kiviat`: (start, from, to).
    recent: Vec<(f64, ContainerId, ContainerId)>,
    /// Per (sender, receiver) container, the messages counted so far
    /// (their hosts are read at each frame: the stage may have grown).
    kiviat: std::collections::HashMap<(ContainerId, ContainerId), u64>,
}

impl StreamSink {
    pub(crate) fn new(
        live: Arc<Live>,
        opts: StreamOptions,
        node_view: crate::animation::NodeViewOptions,
    ) -> StreamSink {
        live.set_dt(opts.dt);
        StreamSink {
            live,
            size_field: opts.size_field.clone(),
            opts,
            k: 0,
            start: None,
            states: Vec::new(),
            messages: Vec::new(),
            trace: Trace::default(),
            sizes: (0, 0, 0, 0),
            stage: None,
            last_time: f64::NEG_INFINITY,
            vars: Default::default(),
            nodes: Err("no container yet".into()),
            node_view,
            recent: Vec::new(),
            kiviat: Default::default(),
        }
    }

    /// What tells the page the stream failed, when the sink itself is
    /// gone with the simulation that failed.
    pub fn ender(&self) -> StreamEnd {
        StreamEnd(self.live.clone())
    }

    /// The end of the input (or its failure): the frames up to the last
    /// event are cut, and the page told.
    pub fn end(mut self, model: &Model, result: Result<(), String>) {
        if result.is_ok() {
            if let Some(s) = self.start {
                let last = self.last_time.max(s);
                // Everything is final now: no open entity. The frames up
                // to the one holding the last instant.
                while self.frame_start() <= last || self.k == 0 {
                    self.cut(model, &[], &[], &[], &[]);
                }
            }
        }
        self.live.end(result);
    }

    fn frame_start(&self) -> f64 {
        self.start.unwrap_or(0.0) + self.k as f64 * self.opts.dt
    }

    fn frame_end(&self) -> f64 {
        self.frame_start() + self.opts.dt
    }

    /// Brings the model and stage up to date with `model`.
    fn refresh(&mut self, model: &Model) {
        let sizes = (
            model.types.len(),
            model.values.len(),
            model.containers.len(),
            model.lists.len(),
        );
        if sizes == self.sizes && self.stage.is_some() {
            return;
        }
        self.sizes = sizes;
        self.trace = Trace {
            model: model.clone(),
            ..Trace::default()
        };
        let with_states: std::collections::HashSet<ContainerId> = model
            .lists
            .iter()
            .filter(|l| l.kind == TypeKind::State)
            .map(|l| l.container)
            .collect();
        let ordering =
            trama_analysis::host_level_of(&self.trace, &with_states, false).and_then(|level| {
                trama_analysis::order_of(
                    &self.trace,
                    Window {
                        start: 0.0,
                        end: 0.0,
                    },
                    std::iter::empty(),
                    &level.name,
                )
            });
        let mut stage = Stage::new(&self.trace, ordering.as_ref(), self.size_field.as_deref());
        // Processes keep the index earlier frames gave them.
        if let Some(old) = &self.stage {
            let ids: Vec<u32> = old.processes.iter().map(|p| p.id).collect();
            stage.keep_order(&ids);
        }
        let values = crate::metadata::meta_values(model);
        // The nodes keep their indices as the model grows.
        self.nodes = match std::mem::replace(&mut self.nodes, Err(String::new())) {
            Ok(mut n) => n.regrow(&self.trace).map(|_| n),
            Err(_) => NodeStage::new(&self.trace, self.opts.node_level.as_deref(), None, false),
        };
        let json = serde_json::to_string(&StreamStage {
            stage: &stage,
            values,
            nodes: crate::animation::NodesReply::of(&self.nodes, &self.node_view),
            kiviat: true,
        })
        .unwrap_or_default();
        self.live.set_stage(json);
        self.stage = Some(stage);
    }

    /// Cuts the current frame from what is kept and what the simulation
    /// holds (`open` states, `held` complete links not handed over yet,
    /// `pending` links missing their end, `vars` the variables' current
    /// values), and moves to the next.
    fn cut(
        &mut self,
        model: &Model,
        open: &[Kept],
        held: &[Message],
        pending: &[(ContainerId, f64)],
        vars: &[(ListId, f64, f64)],
    ) {
        self.refresh(model);
        let (t0, t1) = (self.frame_start(), self.frame_end());
        let stage = self.stage.as_ref().expect("refreshed");
        let mut lists = vec![Columns::default(); model.lists.len()];
        // In start order (parents before their children), as a trace's
        // lists are: states come final children first.
        let mut here: Vec<&Kept> = self
            .states
            .iter()
            .chain(open)
            .filter(|s| s.start <= t1 && (s.end >= t0 || s.end < s.start))
            .collect();
        here.sort_by(|a, b| {
            (a.list.0, a.start, a.level)
                .partial_cmp(&(b.list.0, b.start, b.level))
                .unwrap_or(std::cmp::Ordering::Equal)
        });
        for s in here {
            {
                let c = &mut lists[s.list.index()];
                c.start.push(s.start);
                c.end.push(s.end);
                c.level.push(s.level);
                c.value.push(trama_sim::ValueId(s.value));
            }
        }
        self.trace.lists = lists;
        let messages = self
            .messages
            .iter()
            .chain(held)
            .filter(|m| m.start <= t1 && m.end >= t0)
            .map(|m| (m.from, m.to, m.start, m.end, m.size));
        let flights = Flights::of(&self.trace, stage, messages);
        let mut f = frame(&self.trace, stage, &flights, t0, self.opts.dt, None);
        // The Kiviat radii: the off-host messages started up to the
        // frame's end whose receive has come (the others, pending, come in
        // later frames).
        let host_of = |c: ContainerId| {
            stage
                .process_of(c)
                .and_then(|p| stage.processes[p as usize].host)
        };
        let mut counted = Vec::new();
        self.recent.retain(|&(start, from, to)| {
            if start > t1 {
                return true;
            }
            counted.push((from, to));
            false
        });
        for pair in counted {
            *self.kiviat.entry(pair).or_default() += 1;
        }
        let mut per = vec![0u64; stage.hosts.len()];
        let held_now = held
            .iter()
            .filter(|m| m.start <= t1)
            .map(|m| ((m.from, m.to), 1));
        for ((from, to), n) in self.kiviat.iter().map(|(k, n)| (*k, *n)).chain(held_now) {
            if let (Some(a), Some(b)) = (host_of(from), host_of(to)) {
                if a != b {
                    per[a as usize] += n;
                }
            }
        }
        f.sent = per.iter().sum();
        f.kiviat = per
            .iter()
            .map(|n| match f.sent {
                0 => 0.0,
                s => *n as f64 / s as f64,
            })
            .collect();
        // The node/arc view: the same states, each variable's value at the
        // frame's end, the links by kind.
        let nodes = self.nodes.as_ref().ok().map(|ns| {
            let mut latest = self.vars.clone();
            for (l, s, x) in vars {
                if latest.get(l).is_none_or(|(s0, _)| s >= s0) {
                    latest.insert(*l, (*s, *x));
                }
            }
            for (l, (s, x)) in latest {
                if s <= t1 {
                    let c = &mut self.trace.lists[l.index()];
                    c.start.push(s);
                    c.end.push(s);
                    c.number.push(x);
                }
            }
            let items = self
                .messages
                .iter()
                .chain(held)
                .filter(|m| m.start <= t1 && m.end >= t0)
                .map(|m| LinkItem {
                    ty: model.label(model.ty(model.list(m.list).ty).name),
                    value: model.label(model.value(trama_sim::ValueId(m.value)).name),
                    from: m.from,
                    to: m.to,
                    start: m.start,
                    end: m.end,
                    count: m.count,
                    bytes: m.bytes,
                });
            let links = NodeLinks::of(ns, items);
            node_frame(&self.trace, ns, &links, t0, self.opts.dt)
        });
        let mut per: std::collections::BTreeMap<u32, u32> = Default::default();
        for (c, start) in pending {
            if *start <= t1 {
                if let Some(p) = stage.process_of(*c) {
                    *per.entry(p).or_default() += 1;
                }
            }
        }
        let json = serde_json::to_string(&StreamFrame {
            k: self.k,
            frame: &f,
            pending: per.into_iter().collect(),
            nodes,
        })
        .unwrap_or_default();
        self.trace.lists = Vec::new();
        self.live.push(self.k, json, self.opts.ahead);
        self.k += 1;
        let t0 = self.frame_start();
        self.states.retain(|s| s.end >= t0);
        self.messages.retain(|m| m.end >= t0);
    }
}

impl Sink for StreamSink {
    fn entity(&mut self, model: &Model, list: ListId, _idx: u32, e: &Entity<'_>) {
        let t0 = self.frame_start();
        self.last_time = self.last_time.max(e.start).max(e.end);
        match model.list(list).kind {
            TypeKind::State if e.end >= t0 => self.states.push(Kept {
                list,
                start: e.start,
                end: e.end,
                level: e.level,
                value: e.value.0,
            }),
            TypeKind::Link if e.end >= t0 => {
                let (Some(from), Some(to)) = (e.from, e.to) else {
                    return;
                };
                self.recent.push((e.start, from, to));
                if self.size_field.is_none() && !e.extras.is_empty() {
                    // The first numeric field named like a size.
                    self.size_field = e.extras.chunks_exact(2).find_map(|p| {
                        let name = model.label(p[0]);
                        let lower = name.to_lowercase();
                        let sized = ["size", "bytes", "length"]
                            .iter()
                            .any(|w| lower.contains(w));
                        (sized && size_of(model, e.extras, &name).is_some()).then_some(name)
                    });
                    if self.size_field.is_some() {
                        // The stage is made again, with the field.
                        self.sizes = (0, 0, 0, 0);
                    }
                }
                self.messages.push(Message::of(
                    model,
                    list,
                    (from, to),
                    (e.start, e.end),
                    e.value.0,
                    e.extras,
                    self.size_field.as_deref(),
                ));
            }
            // Ended before the frame: only the Kiviat radii count it now.
            TypeKind::Link => {
                if let (Some(from), Some(to)) = (e.from, e.to) {
                    self.recent.push((e.start, from, to));
                }
            }
            TypeKind::Variable => {
                let slot = self.vars.entry(list).or_insert((e.start, e.number));
                if e.start >= slot.0 {
                    *slot = (e.start, e.number);
                }
            }
            _ => {}
        }
    }

    fn container(&mut self, model: &Model, id: ContainerId) {
        let c = model.container(id);
        self.last_time = self.last_time.max(c.end);
    }

    fn keeps_strings(&self) -> bool {
        false
    }

    fn next_tick(&self) -> f64 {
        match self.start {
            None => f64::NEG_INFINITY,
            Some(_) => self.frame_end(),
        }
    }

    fn tick(&mut self, model: &Model, time: f64, open: &mut dyn Iterator<Item = OpenEntity<'_>>) {
        self.last_time = self.last_time.max(time);
        let Some(_) = self.start else {
            // The first timed event starts frame 0.
            if time.is_finite() && time >= 0.0 {
                self.start = Some(time);
            }
            return;
        };
        let mut states = Vec::new();
        let mut pending = Vec::new();
        let mut complete = Vec::new();
        let mut vars = Vec::new();
        for e in open {
            match model.list(e.list).kind {
                TypeKind::State => states.push(Kept {
                    list: e.list,
                    start: e.start,
                    end: e.end,
                    level: e.level,
                    value: e.value.0,
                }),
                TypeKind::Link => match (e.from, e.to) {
                    // Complete, not yet handed over (the list's last).
                    (Some(from), Some(to)) if e.start >= 0.0 && e.end >= 0.0 => {
                        complete.push(Message::of(
                            model,
                            e.list,
                            (from, to),
                            (e.start, e.end),
                            e.value.0,
                            e.extras,
                            self.size_field.as_deref(),
                        ));
                    }
                    (Some(from), None) if e.start >= 0.0 => pending.push((from, e.start)),
                    _ => {}
                },
                TypeKind::Variable if e.start >= 0.0 => vars.push((e.list, e.start, e.number)),
                _ => {}
            }
        }
        // A gap of many frames with nothing in it is jumped over.
        let behind = ((time - self.frame_end()) / self.opts.dt).floor();
        if behind > 10_000.0 && self.states.is_empty() && states.is_empty() {
            self.k += behind as u64;
        }
        while time > self.frame_end() {
            self.cut(model, &states, &complete, &pending, &vars);
        }
        self.live.set_time(time);
    }
}

/// `GET api/stream?after=K&version=V[&last=1]`: a stream's frames.
pub(crate) async fn get_stream(
    Extract(shared): Extract<Arc<Shared>>,
    Query(params): Query<Vec<(String, String)>>,
) -> Result<Json<StreamReply>, Error> {
    let Some(live) = shared.stream.clone() else {
        return Err(Error::bad(
            "this trace is not streamed (trama view --stream plays one)",
        ));
    };
    let after = match param(&params, "after").map(str::parse::<i64>) {
        None => None,
        Some(Ok(k)) if k < 0 => None,
        Some(Ok(k)) => Some(k as u64),
        Some(Err(_)) => return Err(Error::bad("after= is not a frame number")),
    };
    let version = param(&params, "version")
        .and_then(|v| v.parse().ok())
        .unwrap_or(0);
    let last = param(&params, "last") == Some("1");
    tokio::task::spawn_blocking(move || live.read(after, last, version))
        .await
        .map(Json)
        .map_err(|e| Error::bad(e.to_string()))
}
