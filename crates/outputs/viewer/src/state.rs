//! What every request handler shares: the trace once loaded ([`State`]:
//! its model, rows, summary and where its entities are), else how far its
//! loading is ([`Loading`]) or why it failed ([`Shared`]).

use std::sync::atomic::AtomicU64;
use std::sync::{Arc, OnceLock};

use trama_lod::{gather, pyramid};
use trama_sim::Trace;

use crate::animation::Animation;
use crate::blocks;
use crate::limit;
use crate::live::Live;
use crate::metadata::Meta;
use crate::reply;

/// What a request handler reads: the trace's model, rows and summary, and
/// where its entities are.
pub(crate) struct State {
    /// Names and the container tree: the whole trace, or (read by blocks)
    /// the model with every list and no entity.
    pub model: &'static Trace,
    pub rows: Vec<trama_lod::Row>,
    pub meta: Meta,
    /// The link types drawn: `None`, every one; else those that are
    /// messages (link types whose links all last 0 s, a platform's
    /// topology, are left out, as the analyses do; `meta.notes` says so).
    pub link_types: Option<Vec<trama_sim::TypeId>>,
    /// The zoomed-out level of detail, computed once.
    pub pyramid: pyramid::Pyramid,
    /// The link types that are messages, chosen once for the statistics.
    pub msgs: trama_analysis::Messages,
    /// The entities.
    pub store: Store,
    /// What the animated views are drawn on.
    pub animation: Animation,
    /// The wait states and the critical path, computed on first use.
    pub why: crate::why_run::Cache,
}

/// Where the entities are.
pub(crate) enum Store {
    /// In memory, indexed.
    Whole(trama_lod::Lod<'static>),
    /// In a `.ptb` read by blocks, with its stretches.
    Blocks(Box<blocks::Blocks>, Vec<gather::Stretch>),
}

/// The entities of a window: the whole trace, or a window replayed.
pub(crate) enum Held {
    Whole(&'static trama_lod::Lod<'static>),
    Blocks(Arc<blocks::Loaded>),
}

impl Held {
    /// The window's level-of-detail index.
    pub fn lod(&self) -> &trama_lod::Lod<'_> {
        match self {
            Held::Whole(l) => l,
            Held::Blocks(b) => b.borrow_dependent(),
        }
    }

    /// The window's trace.
    pub fn trace(&self) -> &Trace {
        match self {
            Held::Whole(l) => l.trace(),
            Held::Blocks(b) => b.borrow_owner(),
        }
    }

    /// `row` (of the state's rows) in this window's trace: `None` for a
    /// variable the window does not have.
    pub fn row(&self, state: &State, row: trama_lod::Row) -> Option<trama_lod::Row> {
        match self {
            Held::Whole(_) => Some(row),
            Held::Blocks(b) => blocks::local_row(state.model, b.borrow_owner(), row),
        }
    }
}

impl State {
    /// The entities overlapping `[t0, t1]`.
    pub fn window(&'static self, t0: f64, t1: f64) -> Result<Held, String> {
        match &self.store {
            Store::Whole(lod) => Ok(Held::Whole(lod)),
            Store::Blocks(b, _) => b.window(t0, t1).map(Held::Blocks),
        }
    }

    /// Whether a request may read `[t0, t1]` (a trace read by blocks
    /// replays at most [`blocks::MAX_BLOCKS`] blocks for one).
    pub fn readable(&self, t0: f64, t1: f64) -> bool {
        match &self.store {
            Store::Whole(_) => true,
            Store::Blocks(b, _) => b.replayable(t0, t1),
        }
    }
}

/// What [`crate::start_loading`] serves (moved once: the size of its variants
/// does not matter).
#[allow(clippy::large_enum_variant)]
pub enum Input {
    /// A trace held in memory.
    Whole(Trace),
    /// A trace read by blocks; its `done` counts the blocks read by the
    /// first pass; what the first pass gathers is saved at its `summary`
    /// (whole or not at all), and read back instead of a first pass the
    /// next time.
    Blocks(trama_open::ByBlocks),
}

/// How far the loading of the trace is, shared with the thread that reads
/// it.
#[derive(Clone, Debug)]
pub struct Loading {
    /// Done so far.
    pub done: Arc<AtomicU64>,
    /// The total, when known.
    pub total: Option<u64>,
    /// What is counted (`bytes`, `events`).
    pub unit: &'static str,
}

/// What every handler shares: the trace once loaded, else how far its
/// loading is, or why it failed.
pub(crate) struct Shared {
    pub state: OnceLock<&'static State>,
    /// A stream's frames (`trama view --stream`), instead of a trace.
    pub stream: Option<Arc<Live>>,
    pub loading: Option<Loading>,
    pub failed: OnceLock<String>,
    /// The turns of the requests that read entities.
    pub work: limit::Work,
}

impl Shared {
    /// The loaded trace, or the reply to give while there is none: 503
    /// (with `Retry-After`) while loading, 500 when loading failed.
    pub fn ready(&self) -> Result<&'static State, reply::Error> {
        if let Some(s) = self.state.get() {
            return Ok(*s);
        }
        if let Some(e) = self.failed.get() {
            return Err(reply::Error::internal(format!(
                "the trace could not be read: {e}"
            )));
        }
        Err(reply::Error::later("the trace is still loading"))
    }
}

/// Two runs compared (`trama view A B`): each one's shared state, served
/// under `a/` and `b/`, and their diff, computed once per iteration value
/// asked for.
pub(crate) struct Pair {
    /// The first run (A).
    pub a: Arc<Shared>,
    /// The second run (B).
    pub b: Arc<Shared>,
    /// The runs' names (their files).
    pub names: [String; 2],
    /// The state value marking an iteration, as `--iteration` names it.
    pub iteration: Option<String>,
    /// The replies of `api/diff` so far, by iteration value (`""`: none).
    pub diffs: std::sync::Mutex<std::collections::HashMap<String, Arc<serde_json::Value>>>,
}
