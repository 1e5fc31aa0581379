//! Views of analysis results ([`trama_analysis`]) and the one entry point
//! that draws any view of a trace ([`draw`]).

use std::collections::BTreeMap;
use std::io::{self, Write};

use trama_analysis::{
    comm_matrix, dominant_states, find_value, graph, instants, kiviat, order, states_at,
    time_per_state, CommMatrix, ContainerState, Graph, Kiviat, Messages, Ordering, StateStats,
    WaitMatrix, WaitMethod, Window,
};
use trama_sim::{Trace, TypeId, TypeKind};

use crate::charts::{
    heatmap, kiviat_chart, mapping_chart, process_detail, process_graph, Heatmap, Mapped,
};
use crate::space_time::{space_time, SpaceTimeOptions};
use trama_style::{color, order_rows, value_colors};

/// The views [`draw`] makes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum View {
    /// Containers as rows, states as bars, links as arrows, over time
    /// ([`space_time`]).
    SpaceTime,
    /// Heatmap of messages between containers (or their
    /// [`ViewOptions::level`] ancestors): [`draw_traffic_matrix`].
    TrafficMatrix,
    /// Heatmap of who waited for whom: [`draw_wait_matrix`].
    WaitMatrix,
    /// Processes and the messages between them: [`draw_graph`].
    Graph,
    /// Each host's share of the network messages: [`draw_kiviat`].
    Kiviat,
    /// Hosts around a circle, their processes coloured by state:
    /// [`draw_mapping`].
    Mapping,
    /// One process: waiting per partner, time per state:
    /// [`draw_process`].
    Process,
    /// One frame of the process animation (a square per process coloured
    /// by its state, at [`ViewOptions::at`] or over the window);
    /// recorded frame by frame with [`record`](crate::record).
    ProcessAnimation,
    /// One frame of the traffic animation (the messages in flight, beside
    /// the whole run's matrix); recorded with [`record`](crate::record).
    TrafficAnimation,
    /// One frame of the node/arc view (nodes with status indicators, arcs
    /// between them): [`draw_node_frame`](crate::draw_node_frame);
    /// recorded with [`record`](crate::record).
    NodeView,
}

/// How [`draw`] and the views of analysis results draw.
#[derive(Clone, Debug)]
#[non_exhaustive]
pub struct ViewOptions {
    /// Width in pixels (the charts are squares at most 700 to 900 pixels
    /// wide).
    pub width: u32,
    /// Height in pixels; `None`: what the view needs.
    pub height: Option<u32>,
    /// Space-time rows in the seed's order: hosts (containers of this
    /// type) by the messages they put on the network, each followed by its
    /// processes.
    pub order: Option<String>,
    /// Traffic matrix: group containers by their ancestors of this type;
    /// Kiviat and mapping: the container type of the hosts.
    pub level: Option<String>,
    /// Matrices: values below are black.
    pub min: Option<f64>,
    /// Matrices: values above are white.
    pub max: Option<f64>,
    /// Process view: the container to detail (default: the first with
    /// states).
    pub process: Option<String>,
    /// Mapping: colour processes by their state at this instant instead of
    /// their dominant state over the window.
    pub at: Option<f64>,
    /// The link types that count as messages (names or aliases); empty:
    /// every one but those whose links all last 0 s ([`Messages::select`]).
    pub link_types: Vec<String>,
    /// Animations: the links' field holding a message's size in bytes;
    /// `None`: guessed ([`trama_analysis::guess_size_field`]).
    pub size_field: Option<String>,
    /// Node/arc view: the nodes' container type; `None`: the default of
    /// [`trama_analysis::NodeStage::new`].
    pub node_level: Option<String>,
    /// Node/arc view: the arcs drawn; `None`: every arc.
    pub arcs: Option<trama_analysis::ArcKind>,
    /// Node/arc view: the status indicators' style (0 bars, 1 sectors).
    pub sbars_style: u8,
}

impl Default for ViewOptions {
    fn default() -> ViewOptions {
        ViewOptions {
            width: SpaceTimeOptions::default().width,
            height: None,
            order: None,
            level: None,
            min: None,
            max: None,
            process: None,
            at: None,
            link_types: Vec::new(),
            size_field: None,
            node_level: None,
            arcs: None,
            sbars_style: 0,
        }
    }
}

impl View {
    /// Every view with its name on the command line and a line of help.
    pub const ALL: [(View, &'static str, &'static str); 10] = [
        (
            View::SpaceTime,
            "space-time",
            "Containers as rows, states as bars, links as arrows, over time",
        ),
        (
            View::TrafficMatrix,
            "traffic-matrix",
            "Heatmap of messages between containers (or their --level ancestors)",
        ),
        (
            View::WaitMatrix,
            "wait-matrix",
            "Heatmap of who waited for whom (share of each container's time)",
        ),
        (
            View::Graph,
            "graph",
            "Processes and the messages between them, force-directed",
        ),
        (
            View::Kiviat,
            "kiviat",
            "Each host's (--level) share of the network messages (radar chart)",
        ),
        (
            View::Mapping,
            "mapping",
            "Hosts (--level) around a circle, their processes coloured by dominant state",
        ),
        (
            View::Process,
            "process",
            "One process (--process): waiting per partner, time per state",
        ),
        (
            View::ProcessAnimation,
            "process-animation",
            "A square per process coloured by its state, frame by frame (.gif/.apng: recorded)",
        ),
        (
            View::TrafficAnimation,
            "traffic-animation",
            "The messages in flight between processes, frame by frame (.gif/.apng: recorded)",
        ),
        (
            View::NodeView,
            "node-view",
            "Nodes (--node-level) with status indicators and arcs (--arcs-type), frame by frame (.gif/.apng: recorded)",
        ),
    ];

    /// The animation a view records, if it is one.
    pub fn animation(self) -> Option<crate::Animation> {
        match self {
            View::ProcessAnimation => Some(crate::Animation::Processes),
            View::TrafficAnimation => Some(crate::Animation::Traffic),
            View::NodeView => Some(crate::Animation::Nodes),
            _ => None,
        }
    }

    /// Whether the view reads the trace's user-defined fields (the wait
    /// states read the MPI calls' tags, communicators and roots; the
    /// animations the messages' sizes): load the trace with them.
    pub fn reads_fields(self) -> bool {
        self.animation().is_some() || matches!(self, View::WaitMatrix | View::Process)
    }

    /// Whether the view needs the whole run read, whatever its window (the
    /// wait states match MPI calls across processes, see
    /// `trama_report::Analysis::reads_whole_run`).
    pub fn reads_whole_run(self) -> bool {
        matches!(self, View::WaitMatrix | View::Process)
    }

    /// The view called `name` (see [`View::ALL`]).
    pub fn from_name(name: &str) -> Option<View> {
        View::ALL.iter().find(|v| v.1 == name).map(|v| v.0)
    }
}

/// Why a view could not be drawn.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ViewError {
    /// No container type has the [`ViewOptions::level`] name.
    #[error("--level: no container type is called '{0}'")]
    UnknownLevel(String),
    /// No container type has the [`ViewOptions::order`] name.
    #[error("--order: no container type is called '{0}'")]
    UnknownOrder(String),
    /// The view needs [`ViewOptions::level`].
    #[error("{0} needs --level: the container type of the hosts")]
    NeedsLevel(&'static str),
    /// The process view with no [`ViewOptions::process`] on a trace
    /// without states.
    #[error("no container has states: use --process NAME")]
    NoStates,
    /// The node/arc view's level is not a container type of the trace.
    #[error("--node-level: {0}")]
    NodeLevel(String),
    /// The process to detail has neither states nor waits.
    #[error("--process: no container called '{0}' has states or waits")]
    UnknownProcess(String),
    /// A link type named for messages that the trace does not have.
    #[error(transparent)]
    LinkType(#[from] trama_analysis::UnknownLinkType),
    /// Writing the picture.
    #[error(transparent)]
    Io(#[from] io::Error),
}

/// Draws `view` of `trace` over `window` as SVG into `out`: computes the
/// analysis the view shows, then draws it. Returns the link types counted
/// as messages.
pub fn draw(
    trace: &Trace,
    view: View,
    window: Window,
    opts: &ViewOptions,
    out: &mut dyn Write,
) -> Result<Messages, ViewError> {
    let msgs = Messages::select(trace, &opts.link_types)?;
    let m = &trace.model;
    let link_types: Vec<TypeId> = (0..m.types.len() as u32)
        .map(TypeId)
        .filter(|t| m.ty(*t).kind == TypeKind::Link)
        .collect();
    // Links of no duration are drawn too when they happen during the run
    // (an actor's migration), not when all are at one instant (a
    // platform's topology, declared at once).
    let at_one_instant = |t: TypeId| {
        let mut starts = m
            .lists
            .iter()
            .enumerate()
            .filter(|(_, l)| l.ty == t)
            .flat_map(|(l, _)| trace.lists[l].start.iter().copied());
        let first = starts.next();
        starts.all(|s| Some(s) == first)
    };
    let shown: Vec<TypeId> = link_types
        .iter()
        .copied()
        .filter(|t| msgs.counts(*t) || !at_one_instant(*t))
        .collect();
    let mut st = SpaceTimeOptions {
        width: opts.width,
        height: opts.height,
        window: Some((window.start, window.end)),
        // The links counted as messages (not a platform's topology).
        link_types: (shown.len() < link_types.len()).then_some(shown),
        ..SpaceTimeOptions::default()
    };
    if let Some(level) = &opts.order {
        let o = order(trace, window, &msgs, level)
            .ok_or_else(|| ViewError::UnknownOrder(level.clone()))?;
        st.order = Some(order_rows(trace, &o));
    }
    let level = opts.level.as_deref();
    let no_level = || ViewError::UnknownLevel(level.unwrap_or_default().to_string());
    match view {
        View::SpaceTime => space_time(trace, &st, out)?,
        View::TrafficMatrix => {
            let m = comm_matrix(trace, window, &msgs, level, None).ok_or_else(no_level)?;
            let note = m.pairs.is_empty().then(|| no_messages(&msgs));
            draw_traffic_matrix(&m, note.as_deref(), opts, out)?;
        }
        View::WaitMatrix => draw_wait_matrix(&who_waited(trace, window, &msgs), opts, out)?,
        View::Graph => {
            let g = graph(trace, window, &msgs, 300);
            let note = g.edges.is_empty().then(|| no_messages(&msgs));
            draw_graph(&g, note.as_deref(), opts, out)?;
        }
        View::Kiviat => {
            let l = level.ok_or(ViewError::NeedsLevel("kiviat"))?;
            let k = kiviat(trace, window, &msgs, l, &instants(window, 10)).ok_or_else(no_level)?;
            let none = k.shares.iter().flatten().all(|v| *v == 0.0);
            let note = none.then(|| no_messages(&msgs));
            draw_kiviat(&k, note.as_deref(), opts, out)?;
        }
        View::Mapping => {
            let l = level.ok_or(ViewError::NeedsLevel("mapping"))?;
            let o = order(trace, window, &msgs, l).ok_or_else(no_level)?;
            let states = match opts.at {
                Some(t) => states_at(trace, t),
                None => dominant_states(trace, window),
            };
            draw_mapping(trace, &o, &states, opts, out)?;
        }
        View::Process => {
            let states = time_per_state(trace, window, None).ok_or_else(no_level)?;
            let wait = who_waited(trace, window, &msgs);
            draw_process(trace, &states, &wait, opts, out)?;
        }
        View::ProcessAnimation | View::TrafficAnimation | View::NodeView => {
            // One frame: the instant --at, else the whole window.
            let r = crate::RecordOptions {
                frames: 1,
                width: opts.width,
                height: opts.height.unwrap_or(opts.width * 3 / 4),
                level: opts.level.clone(),
                min: opts.min,
                max: opts.max,
                link_types: opts.link_types.clone(),
                size_field: opts.size_field.clone(),
                node_level: opts.node_level.clone(),
                arcs: opts.arcs.clone(),
                sbars_style: opts.sbars_style,
                ..Default::default()
            };
            let animation = view.animation().unwrap_or(crate::Animation::Processes);
            let mut film = crate::Film::new(trace, window, &r)?;
            if animation == crate::Animation::Nodes {
                film.add_nodes(trace, &r)?;
            }
            if let Some(t) = opts.at {
                film.frames = vec![(t, 0.0)];
            }
            let colors = crate::value_colors(&trace.model);
            crate::draw_film_frame(trace, &film, animation, 0, &r, &colors, out)?;
        }
    }
    Ok(msgs)
}

/// Why a view of messages is empty: no links, or only links of the types
/// left out as a platform's topology.
fn no_messages(msgs: &Messages) -> String {
    let left: u64 = msgs.left_out.iter().map(|l| l.1).sum();
    if left > 0 {
        format!(
            "No messages: the trace's {left} links all last 0 s (a platform's topology, not communication); --link-type NAME counts them"
        )
    } else {
        "No messages in this window".to_string()
    }
}

/// The traffic matrix: messages from row to column (`note` under the
/// title).
pub fn draw_traffic_matrix(
    m: &CommMatrix,
    note: Option<&str>,
    opts: &ViewOptions,
    out: &mut dyn Write,
) -> io::Result<()> {
    let idx = |n: &str| m.containers.iter().position(|c| c == n).unwrap_or(0);
    let k = m.containers.len();
    let mut values = vec![vec![0.0; k]; k];
    for p in &m.pairs {
        values[idx(&p.from)][idx(&p.to)] = p.count as f64;
    }
    let h = Heatmap {
        title: format!(
            "Messages from row to column, [{}, {}]",
            m.window.start, m.window.end
        ),
        rows: m.containers.clone(),
        cols: m.containers.clone(),
        values,
        min: opts.min,
        max: opts.max,
        note: note.map(String::from),
        ..Heatmap::default()
    };
    heatmap(&h, out)
}

/// Who waited for whom over `window`, as `trama stats wait` computes it:
/// from the wait states of the MPI calls when the trace has them, else
/// the waiting states attributed to the last message received
/// ([`trama_why::who_waited`]).
fn who_waited(trace: &Trace, window: Window, msgs: &Messages) -> WaitMatrix {
    trama_why::who_waited(trace, window, msgs, &[], &trama_why::RunOptions::default())
}

/// How `m` was made, in a line under its title.
fn wait_note(m: &WaitMatrix) -> String {
    let none = m.rows.iter().all(|r| r.waiting_share == 0.0);
    let how = match m.method {
        WaitMethod::WaitStates => "from the wait states of the MPI calls".to_string(),
        _ => format!(
            "states named {} attributed to the last message received",
            m.patterns.join(", ")
        ),
    };
    match none {
        true => format!("No waiting found ({how})"),
        false => format!("Waiting {how}"),
    }
}

/// The wait matrix: each row's waiting for each column, as a share of its
/// time, and in total (a column on a scale of its own).
pub fn draw_wait_matrix(m: &WaitMatrix, opts: &ViewOptions, out: &mut dyn Write) -> io::Result<()> {
    let mut cols = m.senders.clone();
    cols.push("total".into());
    let h = Heatmap {
        title: format!(
            "Waiting of each row for each column, % of its time, [{}, {}]",
            m.window.start, m.window.end
        ),
        rows: m.rows.iter().map(|r| r.container.clone()).collect(),
        cols,
        values: m
            .rows
            .iter()
            .map(|r| {
                let mut v = r.share_of_time.clone();
                v.push(r.waiting_share);
                v
            })
            .collect(),
        min: opts.min,
        max: opts.max,
        percent: true,
        summary: 1,
        note: Some(wait_note(m)),
    };
    heatmap(&h, out)
}

/// The communication graph at its layout's coordinates (`note` under the
/// title).
pub fn draw_graph(
    g: &Graph,
    note: Option<&str>,
    opts: &ViewOptions,
    out: &mut dyn Write,
) -> io::Result<()> {
    let nodes: Vec<(String, f64, f64)> =
        g.nodes.iter().map(|n| (n.name.clone(), n.x, n.y)).collect();
    let edges: Vec<(usize, usize, u64)> = g.edges.iter().map(|e| (e.a, e.b, e.messages)).collect();
    let size = opts.height.unwrap_or(opts.width.min(900));
    process_graph(
        "Processes and their messages",
        note,
        &nodes,
        &edges,
        size,
        out,
    )
}

/// The Kiviat chart of each host's share of the network messages (`note`
/// under the title).
pub fn draw_kiviat(
    k: &Kiviat,
    note: Option<&str>,
    opts: &ViewOptions,
    out: &mut dyn Write,
) -> io::Result<()> {
    let size = opts.height.unwrap_or(opts.width.min(700));
    kiviat_chart(
        &format!("Network share per {}", k.level),
        note,
        &k.hosts,
        &k.instants,
        &k.shares,
        size,
        out,
    )
}

/// The mapping of the processes of `o`'s hosts, each coloured by its state
/// in `states` (per container name, e.g. [`dominant_states`]).
pub fn draw_mapping(
    trace: &Trace,
    o: &Ordering,
    states: &BTreeMap<String, ContainerState>,
    opts: &ViewOptions,
    out: &mut dyn Write,
) -> io::Result<()> {
    let colors = value_colors(&trace.model);
    let hosts: Vec<(String, Vec<Mapped>)> = o
        .hosts
        .iter()
        .map(|h| {
            let procs = h
                .processes
                .iter()
                .map(|(p, _)| match states.get(p) {
                    Some(s) => (p.clone(), state_color(&colors, s), s.value.clone()),
                    None => (p.clone(), "#dddddd".into(), "no state".into()),
                })
                .collect();
            (h.host.clone(), procs)
        })
        .collect();
    let size = opts.height.unwrap_or(opts.width.min(800));
    let title = match opts.at {
        Some(t) => format!("Processes by {}, coloured by their state at {t}", o.level),
        None => format!(
            "Processes by {}, coloured by dominant state, [{}, {}]",
            o.level, o.window.start, o.window.end
        ),
    };
    let none = hosts.iter().all(|h| h.1.is_empty());
    let note = none.then(|| {
        format!(
            "No processes below the containers of type {}: no container there exchanges messages or holds states",
            o.level
        )
    });
    mapping_chart(&title, note.as_deref(), &hosts, size, out)
}

/// The detail of one process ([`ViewOptions::process`], or the first
/// container of `states`): its waiting per partner from `wait` and its
/// time per state from `states`.
pub fn draw_process(
    trace: &Trace,
    states: &StateStats,
    wait: &WaitMatrix,
    opts: &ViewOptions,
    out: &mut dyn Write,
) -> Result<(), ViewError> {
    let p = match &opts.process {
        // Names are shown without PajeNG's quotes: either spelling names it.
        Some(p) => trama_sim::label(p.as_bytes()),
        None => states
            .rows
            .first()
            .map(|r| r.container.clone())
            .ok_or(ViewError::NoStates)?,
    };
    let waits: Vec<(String, f64)> = wait
        .rows
        .iter()
        .find(|r| r.container == p)
        .map(|r| {
            wait.senders
                .iter()
                .zip(&r.seconds)
                .filter(|(_, v)| **v > 0.0)
                .map(|(n, v)| (n.clone(), *v))
                .collect()
        })
        .unwrap_or_default();
    let colors = value_colors(&trace.model);
    let pie: Vec<(String, String, f64)> = states
        .rows
        .iter()
        .filter(|r| r.container == p && r.exclusive > 0.0)
        .map(|r| {
            let s = ContainerState {
                value: r.value.clone(),
                id: find_value(&trace.model, &r.state_type, &r.value),
            };
            (r.value.clone(), state_color(&colors, &s), r.exclusive)
        })
        .collect();
    if pie.is_empty() && waits.is_empty() {
        return Err(ViewError::UnknownProcess(p));
    }
    let w = states.window;
    process_detail(
        &format!("Process {p}, [{}, {}]", w.start, w.end),
        &waits,
        &pie,
        out,
    )?;
    Ok(())
}

/// The colour of a state value: its value's ([`value_colors`] gave
/// `colors`), or the palette's for its name.
fn state_color(colors: &[String], s: &ContainerState) -> String {
    match s.id.and_then(|v| colors.get(v.index())) {
        Some(c) => c.clone(),
        None => color(b"", s.value.as_bytes()),
    }
}
