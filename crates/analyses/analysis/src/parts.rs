//! The statistics of a window whose entities are read part by part (a
//! trace too large to hold, replayed window after window): time per state,
//! the communication matrix and the wait-time matrix add up over
//! consecutive [`Part`]s of the window to what [`time_per_state`],
//! [`comm_matrix`] and [`wait_matrix`] give on the whole trace (up to the
//! rounding of sums taken in another order).
//!
//! [`time_per_state`]: crate::time_per_state
//! [`comm_matrix`]: crate::comm_matrix
//! [`wait_matrix`]: crate::wait_matrix

use std::collections::BTreeMap;

use trama_sim::Trace;

use crate::comm::{finish_comm, CommParts};
use crate::states::{add_states, finish_states, Acc, Key};
use crate::wait::WaitParts;
use crate::window::{Part, Window};
use crate::{CommMatrix, Messages, StateStats, WaitMatrix};

/// Time per state (per container), messages per pair of containers and
/// waits of a window, added up part by part.
pub struct WindowParts {
    window: Window,
    msgs: Messages,
    states: BTreeMap<Key, Acc>,
    comm: CommParts,
    wait: WaitParts,
}

impl WindowParts {
    /// Nothing added yet over `window`, counting the messages of `msgs`;
    /// only `model`'s model is read (any trace of the same file).
    pub fn new(model: &Trace, window: Window, msgs: &Messages) -> WindowParts {
        WindowParts {
            window,
            msgs: msgs.clone(),
            states: BTreeMap::new(),
            comm: CommParts::default(),
            wait: WaitParts::new(model, &[]),
        }
    }

    /// Adds `part` of the window, read from `trace` (which holds at least
    /// every entity overlapping the part). Parts are added in time order
    /// and cut the window without gap or overlap.
    pub fn add(&mut self, trace: &Trace, part: &Part) {
        add_states(trace, &self.window, part, &mut self.states);
        self.comm
            .add(trace, self.window, part, &self.msgs, None, None)
            .expect("no level: every container is placed");
        self.wait.add(trace, self.window, part, &self.msgs);
    }

    /// The three results; `model` (the trace's model with every list) names
    /// containers, types and values.
    pub fn finish(self, model: &Trace) -> (Option<StateStats>, CommMatrix, WaitMatrix) {
        let w = self.window;
        (
            finish_states(model, &self.states, w, None),
            finish_comm(model, self.comm, w, None, None),
            self.wait.finish(model, w),
        )
    }
}
