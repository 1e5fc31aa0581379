//! A trace read by blocks ([`trama_open::Windowed`], e.g. a `.ptb` file
//! kept on disk), whose windows are replayed from their keyframes when a
//! request needs them, so that the server's memory does not grow with the
//! trace.
//!
//! A replayed window numbers its lists in an order of its own: rows and
//! state bands are matched to the reference model ([`trama_lod::gather`]) by
//! container and type, never by list id. The last few windows replayed
//! are held (widened to whole blocks, so panning inside them replays
//! nothing), and a window that would need more than [`MAX_BLOCKS`] blocks
//! is not replayed: the caller answers it from the summaries instead.

use std::sync::{Arc, Mutex};

use trama_lod::{Lod, Row};
use trama_open::Windowed;
use trama_sim::{ContainerId, ListId, Trace, TypeId};

self_cell::self_cell!(
    /// A replayed window of the trace with its level-of-detail index.
    pub(crate) struct Loaded {
        owner: Trace,
        #[covariant]
        dependent: Lod,
    }
);

/// Entities held at most in the windows kept (those of the latest window
/// are kept whatever their number); before a window is replayed, those
/// held are cut to half of it.
const HELD_ENTITIES: usize = 1_000_000;

/// The widest window replayed for one request by default, in events
/// frames (65,536 events each at most: about 1M events, ~70 MB replayed).
pub(crate) const MAX_BLOCKS: usize = 16;

/// The statistics of a window `[t0, t1]`, computed.
pub(crate) type StatsDone = ((f64, f64), Arc<crate::window_stats::WindowStats>);

/// A trace read window by window.
pub(crate) struct Blocks {
    trace: Box<dyn Windowed>,
    /// The widest window replayed for a request, in events frames.
    pub max_blocks: usize,
    /// `(t_min, t_max)` of each events frame, in file order.
    frames: Vec<(f64, f64)>,
    /// Windows replayed lately, `[t0, t1]` each, the latest last.
    held: Mutex<Vec<(f64, f64, Arc<Loaded>)>>,
    /// Statistics of the last wide windows added up slice by slice (one
    /// computed at a time).
    pub stats: Mutex<Vec<StatsDone>>,
}

impl Blocks {
    /// `trace`, whose blocks are described by its index.
    pub(crate) fn new(trace: Box<dyn Windowed>, max_blocks: usize) -> Result<Blocks, String> {
        let frames = trace.blocks()?;
        Ok(Blocks {
            trace,
            max_blocks,
            frames,
            held: Mutex::new(Vec::new()),
            stats: Mutex::new(Vec::new()),
        })
    }

    /// The trace's model (containers, types, values) with no list, from
    /// its model records alone.
    pub(crate) fn model(&self) -> Result<Trace, String> {
        self.trace.model()
    }

    /// The trace read.
    pub(crate) fn trace(&self) -> &dyn Windowed {
        &*self.trace
    }

    /// Gives back the pages of the file read so far.
    pub(crate) fn release(&self) {
        self.trace.release();
    }

    /// `(t_min, t_max)` of each events frame.
    pub(crate) fn frames(&self) -> &[(f64, f64)] {
        &self.frames
    }

    /// Replays the entities overlapping `[t0, t1]` (see the `.ptb` format's
    /// window reads).
    pub(crate) fn replay(&self, t0: f64, t1: f64) -> Result<Trace, String> {
        self.trace.replay(t0, t1)
    }

    /// Replays `[start, end]` of a trace read by blocks stretch by stretch, in
    /// time order, handing each stretch and its part of the window to `add`.
    pub(crate) fn by_stretches(
        &self,
        stretches: &[trama_lod::gather::Stretch],
        start: f64,
        end: f64,
        mut add: impl FnMut(&trama_sim::Trace, &trama_analysis::Part),
    ) -> Result<(), String> {
        let inside: Vec<&trama_lod::gather::Stretch> = stretches
            .iter()
            .filter(|s| s.t1 >= start && s.t0 <= end)
            .collect();
        for (i, s) in inside.iter().enumerate() {
            let last = i + 1 == inside.len();
            let part = trama_analysis::Part {
                start: s.t0.max(start),
                end: if last { end } else { s.t1.min(end) },
                last,
            };
            let trace = self.replay(part.start, part.end)?;
            self.release();
            add(&trace, &part);
        }
        Ok(())
    }

    /// The events frames `[t0, t1]` touches: the first that ends at or
    /// after `t0` to the last that begins at or before `t1` (frames of a
    /// trace out of time order may overlap).
    fn span(&self, t0: f64, t1: f64) -> (usize, usize) {
        let first = self.frames.iter().position(|f| f.1 >= t0).unwrap_or(0);
        let last = self.frames.iter().rposition(|f| f.0 <= t1).unwrap_or(0);
        (first, last.max(first))
    }

    /// Whether `[t0, t1]` is narrow enough to replay for a request.
    pub(crate) fn replayable(&self, t0: f64, t1: f64) -> bool {
        let (a, z) = self.span(t0, t1);
        z + 1 - a <= self.max_blocks
    }

    /// The entities overlapping `[t0, t1]`, from a window held or replayed
    /// (widened to the blocks it touches).
    pub(crate) fn window(&self, t0: f64, t1: f64) -> Result<Arc<Loaded>, String> {
        {
            let mut held = self.held.lock().unwrap_or_else(|e| e.into_inner());
            if let Some(i) = held.iter().position(|h| h.0 <= t0 && t1 <= h.1) {
                let h = held.remove(i);
                let loaded = h.2.clone();
                held.push(h);
                return Ok(loaded);
            }
            // Room for the window about to be replayed: the oldest windows
            // go first, so that their memory is used again for it rather
            // than both held at once.
            let mut total: usize = held.iter().map(entities).sum();
            while total > HELD_ENTITIES / 2 {
                total -= entities(&held.remove(0));
            }
        }
        let (a, z) = self.span(t0, t1);
        let (lo, hi) = match (self.frames.get(a), self.frames.get(z)) {
            (Some(f), Some(g)) => (t0.min(f.0), t1.max(g.1)),
            _ => (t0, t1),
        };
        let trace = self.replay(lo, hi)?;
        self.trace.release();
        let loaded = Arc::new(Loaded::new(trace, |t| Lod::new(t)));
        let mut held = self.held.lock().unwrap_or_else(|e| e.into_inner());
        held.push((lo, hi, loaded.clone()));
        let mut total: usize = held.iter().map(entities).sum();
        while held.len() > 1 && total > HELD_ENTITIES {
            total -= entities(&held.remove(0));
        }
        Ok(loaded)
    }
}

/// The entities of a window held.
fn entities(h: &(f64, f64, Arc<Loaded>)) -> usize {
    h.2.borrow_owner().entity_count()
}

/// The list of `trace` that container `c` has of type `ty`.
pub(crate) fn list_of(trace: &Trace, c: ContainerId, ty: TypeId) -> Option<ListId> {
    trace
        .model
        .containers
        .get(c.0 as usize)?
        .lists
        .iter()
        .find(|(t, _)| *t == ty)
        .map(|(_, l)| *l)
}

/// `row` of the reference model `reference`, in `trace` (a window
/// replayed): `None` when it is a variable the window does not have.
pub(crate) fn local_row(reference: &Trace, trace: &Trace, row: Row) -> Option<Row> {
    match row.variable {
        None => Some(row),
        Some(l) => {
            let ty = reference.model.list(l).ty;
            list_of(trace, row.container, ty).map(|v| Row {
                container: row.container,
                variable: Some(v),
            })
        }
    }
}
