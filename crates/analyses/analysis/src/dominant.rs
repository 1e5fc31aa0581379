//! One state value per container: the state on top of its stack at an
//! instant ([`states_at`]), or its dominant state over a window
//! ([`dominant_states`]): the value with the most exclusive time (see
//! [`time_per_state`](crate::time_per_state)), the first in the order of
//! the rows on a tie.

use std::collections::BTreeMap;

use trama_sim::{Model, Trace, TypeKind, ValueId};

use crate::read::{container_name, lists_of};
use crate::states::time_per_state;
use crate::window::Window;

/// The state value of one container.
#[derive(Clone, Debug, PartialEq)]
pub struct ContainerState {
    /// The value's label ([`Model::value_labels`]).
    pub value: String,
    /// The value in the trace's model (where its colour is); `None` when
    /// no value of the model has this name (a name that was not UTF-8).
    pub id: Option<ValueId>,
}

/// The value labelled `value` ([`Model::value_labels`], as in the rows of
/// [`time_per_state`]) of the state type called `state_type`.
pub fn find_value(model: &Model, state_type: &str, value: &str) -> Option<ValueId> {
    Values::new(model).find(state_type, value)
}

/// The values of a model by state type and label, for [`find_value`]
/// repeated.
struct Values<'m> {
    model: &'m Model,
    labels: Vec<String>,
}

impl<'m> Values<'m> {
    fn new(model: &'m Model) -> Values<'m> {
        Values {
            model,
            labels: model.value_labels(),
        }
    }

    fn find(&self, state_type: &str, value: &str) -> Option<ValueId> {
        let m = self.model;
        m.values
            .iter()
            .zip(&self.labels)
            .position(|(v, l)| l == value && m.names(m.ty(v.ty).name, state_type))
            .map(|i| ValueId(i as u32))
    }
}

/// Per container name: the state on top of its stack at time `t` (the
/// deepest state containing `t`; a state still open never ends). With
/// several state types, the last one in the model's lists counts.
pub fn states_at(trace: &Trace, t: f64) -> BTreeMap<String, ContainerState> {
    let m = &trace.model;
    let labels = m.value_labels();
    let mut out = BTreeMap::new();
    for (info, cols) in lists_of(trace, TypeKind::State) {
        // The deepest state containing t.
        let mut best: Option<(u32, usize)> = None;
        for i in 0..cols.len() {
            let (a, b) = (cols.start[i], cols.end[i]);
            let b = if b < a { f64::INFINITY } else { b };
            if a <= t && t < b && best.is_none_or(|(lv, _)| cols.level[i] >= lv) {
                best = Some((cols.level[i], i));
            }
        }
        if let Some((_, i)) = best {
            let id = cols.value[i];
            out.insert(
                container_name(trace, info.container),
                ContainerState {
                    value: labels[id.index()].clone(),
                    id: Some(id),
                },
            );
        }
    }
    out
}

/// Per container name: its dominant state over `window`, the value with
/// the most exclusive time.
pub fn dominant_states(trace: &Trace, window: Window) -> BTreeMap<String, ContainerState> {
    let mut best: BTreeMap<String, (f64, &str, &str)> = BTreeMap::new();
    let stats = time_per_state(trace, window, None);
    for r in stats.iter().flat_map(|s| &s.rows) {
        let e = best.entry(r.container.clone()).or_insert((-1.0, "", ""));
        if r.exclusive > e.0 {
            *e = (r.exclusive, &r.state_type, &r.value);
        }
    }
    let values = Values::new(&trace.model);
    best.into_iter()
        .map(|(c, (_, ty, value))| {
            let id = values.find(ty, value);
            (
                c,
                ContainerState {
                    value: value.to_string(),
                    id,
                },
            )
        })
        .collect()
}
