//! The statistics of a selection: a window and a set of containers (an
//! area dragged over the rows of a timeline). Time per state is
//! [`time_per_state`]'s, computed the same way (each container's rows are
//! its own, so they are those `trama stats states` gives for the window,
//! kept for the selected containers only); messages are
//! [`comm_matrix`]'s, kept for the pairs with an end among the selected
//! containers. Both add up part by part ([`Part`]) like
//! [`crate::WindowParts`].
//!
//! [`time_per_state`]: crate::time_per_state
//! [`comm_matrix`]: crate::comm_matrix

use std::collections::{BTreeMap, HashSet};

use serde::Serialize;
use trama_sim::{ContainerId, Trace};

use crate::comm::{finish_comm, CommParts};
use crate::states::{add_states, finish_states, Acc, Key};
use crate::window::{Part, Window};
use crate::{CommMatrix, Messages, StateStats};

/// What [`selection`] computes.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Selection {
    /// Time per state of the selected containers over the window: the rows
    /// of [`crate::time_per_state`] for those containers (`imbalance` is
    /// left empty: it compares containers outside the selection too).
    pub states: Option<StateStats>,
    /// The messages overlapping the window with a sender or a receiver
    /// among the selected containers, per pair.
    pub comm: CommMatrix,
}

/// A selection's statistics added up part by part.
pub struct SelectionParts {
    window: Window,
    msgs: Messages,
    size_field: Option<String>,
    keep: Option<HashSet<ContainerId>>,
    states: BTreeMap<Key, Acc>,
    comm: CommParts,
}

impl SelectionParts {
    /// Nothing added yet over `window` for `containers` (`None`: every
    /// container), counting the messages of `msgs` with their size read
    /// from the links' field `size_field`.
    pub fn new(
        window: Window,
        msgs: &Messages,
        size_field: Option<&str>,
        containers: Option<&[ContainerId]>,
    ) -> SelectionParts {
        SelectionParts {
            window,
            msgs: msgs.clone(),
            size_field: size_field.map(String::from),
            keep: containers.map(|c| c.iter().copied().collect()),
            states: BTreeMap::new(),
            comm: CommParts::default(),
        }
    }

    fn kept(&self, c: ContainerId) -> bool {
        self.keep.as_ref().is_none_or(|k| k.contains(&c))
    }

    /// Adds `part` of the window, read from `trace` (which holds at least
    /// every entity overlapping the part); parts come in time order and
    /// cut the window without gap or overlap.
    pub fn add(&mut self, trace: &Trace, part: &Part) {
        add_states(trace, &self.window, part, &mut self.states);
        let size = self.size_field.as_deref();
        self.comm
            .add(trace, self.window, part, &self.msgs, None, size)
            .expect("no level: every container is placed");
    }

    /// The selection's statistics; `model` (the trace's model with every
    /// list) names containers, types and values.
    pub fn finish(mut self, model: &Trace) -> Selection {
        let states: BTreeMap<Key, Acc> = std::mem::take(&mut self.states)
            .into_iter()
            .filter(|(k, _)| self.kept(k.0))
            .collect();
        let mut comm = std::mem::take(&mut self.comm);
        comm.retain(|a, b| self.kept(a) || self.kept(b));
        let w = self.window;
        let mut states = finish_states(model, &states, w, None);
        if let Some(s) = states.as_mut() {
            s.imbalance.clear();
        }
        Selection {
            states,
            comm: finish_comm(model, comm, w, None, self.size_field.as_deref()),
        }
    }
}

/// The statistics of `containers` (`None`: all) over `window` of `trace`
/// (see [`SelectionParts`]).
pub fn selection(
    trace: &Trace,
    window: Window,
    msgs: &Messages,
    size_field: Option<&str>,
    containers: Option<&[ContainerId]>,
) -> Selection {
    let mut parts = SelectionParts::new(window, msgs, size_field, containers);
    parts.add(trace, &Part::whole(window));
    parts.finish(trace)
}
