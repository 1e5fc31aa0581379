//! What the animated views of a run are drawn on ([`Animation`], computed
//! once per trace) and the settings of the player and the node/arc view.

use serde::Serialize;
use trama_analysis::{ArcKind, Flights, FrameCell, NodeLinks, NodeStage, Stage};

use crate::options::ViewerOptions;

/// What the animated views of a run are drawn on.
pub(crate) struct Animation {
    /// The processes, grouped by host.
    pub stage: Stage,
    /// The run's messages by time, when the trace is held whole.
    pub flights: Option<Flights>,
    /// The player's rate and speed asked for on the command line.
    pub player: PlayerOptions,
    /// Per process, its place in the force-directed graph of the whole
    /// run's messages (`[0, 1]²`), when held whole and it has messages.
    pub layout: Vec<Option<(f64, f64)>>,
    /// The node/arc view's nodes, or why there are none (a level asked
    /// for that the trace does not have).
    pub nodes: Result<NodeStage, String>,
    /// The run's links between nodes, when the trace is held whole: read
    /// at the node/arc view's first frame (only its users pay for them).
    pub node_links: std::sync::OnceLock<NodeLinks>,
    /// Whether the trace is held whole.
    pub whole: bool,
    /// A trace read by blocks: the run's messages per pair of processes,
    /// counted by the pass over the whole trace (no rates: sizes are not
    /// read there).
    pub counted: Option<Vec<FrameCell>>,
    /// The node/arc view's settings.
    pub node_view: NodeViewOptions,
}

/// The node/arc view's settings asked for on the command line.
#[derive(Clone, Debug, Serialize)]
pub(crate) struct NodeViewOptions {
    /// The arcs drawn.
    pub arcs: ArcKind,
    /// 0: bars; 1: sectors.
    pub sbars_style: u8,
    /// What panel C says of the run: (label, value).
    pub run: Vec<(String, String)>,
}

impl NodeViewOptions {
    pub(crate) fn of(opts: &ViewerOptions) -> NodeViewOptions {
        NodeViewOptions {
            arcs: opts.arcs_type.clone().unwrap_or_else(ArcKind::all),
            sbars_style: opts.sbars_style,
            run: opts.run_info.clone(),
        }
    }
}

/// The player's settings asked for on the command line (`null`: the
/// page's defaults).
#[derive(Clone, Copy, Debug, Default, Serialize)]
pub(crate) struct PlayerOptions {
    /// Seconds of execution per second of playback.
    pub rate: Option<f64>,
    /// Wall seconds per frame.
    pub play_speed: Option<f64>,
}

impl Animation {
    /// The animation of `trace` (held whole: `whole`), its processes in
    /// the seed's order when there is one.
    pub fn new(
        trace: &trama_sim::Trace,
        ordering: Option<&trama_analysis::Ordering>,
        msgs: &trama_analysis::Messages,
        opts: &ViewerOptions,
        whole: bool,
    ) -> Animation {
        let size_field = opts.size_field.as_deref();
        let guessed;
        let size_field = match size_field {
            Some(f) => Some(f),
            None if whole => {
                guessed = trama_analysis::guess_size_field(trace);
                guessed.as_deref()
            }
            None => None,
        };
        let stage = Stage::new(trace, ordering, size_field);
        let flights = whole.then(|| Flights::new(trace, &stage, msgs));
        // The graph's layout, when it is affordable (its cost grows with
        // the square of the processes).
        let mut layout = vec![None; stage.processes.len()];
        if whole && stage.processes.len() <= 2000 {
            let g = trama_analysis::graph(trace, trama_analysis::Window::of(trace), msgs, 200);
            let at: std::collections::HashMap<&str, (f64, f64)> = g
                .nodes
                .iter()
                .map(|n| (n.name.as_str(), (n.x, n.y)))
                .collect();
            for (i, p) in stage.processes.iter().enumerate() {
                layout[i] = at.get(p.name.as_str()).copied();
            }
        }
        let nodes = NodeStage::new(trace, opts.node_level.as_deref(), None, whole);
        Animation {
            nodes,
            node_links: std::sync::OnceLock::new(),
            whole,
            counted: None,
            node_view: NodeViewOptions::of(opts),
            layout,
            stage,
            flights,
            player: PlayerOptions {
                rate: opts.rate,
                play_speed: opts.play_speed,
            },
        }
    }
}

impl Animation {
    /// Takes the run's messages per (sender, receiver, count) container,
    /// for the whole run's matrix of a trace read by blocks (by count: not
    /// when the matrices are coloured by rate).
    pub fn counted(&mut self, pairs: &[(trama_sim::ContainerId, trama_sim::ContainerId, u64)]) {
        if self.stage.size_field.is_some() {
            return;
        }
        let mut cells: std::collections::BTreeMap<(u32, u32), u64> = Default::default();
        for (from, to, n) in pairs {
            if let (Some(a), Some(b)) = (self.stage.process_of(*from), self.stage.process_of(*to)) {
                *cells.entry((a, b)).or_default() += n;
            }
        }
        self.counted = Some(
            cells
                .into_iter()
                .map(|((from, to), n)| FrameCell {
                    from,
                    to,
                    count: n.min(u32::MAX as u64) as u32,
                    rate: None,
                })
                .collect(),
        );
    }
}

/// What the node/arc view is drawn on.
#[derive(Serialize)]
pub(crate) struct NodesReply<'a> {
    /// The nodes, or `null` with `error`.
    pub stage: Option<&'a NodeStage>,
    /// Why there are no nodes.
    pub error: Option<&'a str>,
    /// The arc kinds offered.
    pub choices: Vec<ArcKind>,
    /// The settings asked for.
    #[serde(flatten)]
    pub options: &'a NodeViewOptions,
}

impl<'a> NodesReply<'a> {
    pub(crate) fn of(nodes: &'a Result<NodeStage, String>, options: &'a NodeViewOptions) -> Self {
        let mut choices = nodes.as_ref().map(ArcKind::choices).unwrap_or_default();
        if !choices.contains(&options.arcs) {
            choices.push(options.arcs.clone());
        }
        NodesReply {
            stage: nodes.as_ref().ok(),
            error: nodes.as_ref().err().map(String::as_str),
            choices,
            options,
        }
    }
}
