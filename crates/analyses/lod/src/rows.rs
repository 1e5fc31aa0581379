//! The rows of a space-time picture: one per container, one per variable.

use std::collections::HashSet;

use trama_sim::{ContainerId, ListId, Trace, TypeKind};

/// One row: a container's own row (its states, events and links), or one
/// of its variables.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Row {
    /// The container.
    pub container: ContainerId,
    /// The variable drawn on this row; `None`: the container's own row.
    pub variable: Option<ListId>,
}

impl Row {
    /// Depth of the row's label: the container's depth, one more for a
    /// variable.
    pub fn depth(&self, trace: &Trace) -> usize {
        trace.model.container(self.container).depth as usize + usize::from(self.variable.is_some())
    }

    /// The row's label: the container's name, or the variable type's.
    pub fn label(&self, trace: &Trace) -> String {
        let m = &trace.model;
        match self.variable {
            None => m.label(m.container(self.container).name),
            Some(l) => m.label(m.ty(m.list(l).ty).name),
        }
    }
}

/// The variables of a container, by type name (in natural order).
fn variables(trace: &Trace, c: ContainerId) -> Vec<ListId> {
    let m = &trace.model;
    let mut v: Vec<ListId> = m
        .container(c)
        .lists
        .iter()
        .map(|(_, l)| *l)
        .filter(|l| m.list(*l).kind == TypeKind::Variable)
        .collect();
    v.sort_by(|a, b| {
        trama_sim::natural_cmp_bytes(
            m.str(m.ty(m.list(*a).ty).name),
            m.str(m.ty(m.list(*b).ty).name),
        )
    });
    v
}

/// The rows of `trace`, top to bottom. With `order`, those containers in
/// that order, each followed by its variables. Without, the container
/// tree depth first (children in natural order of their identifiers:
/// [`trama_sim::Model::children_in_order`]) (the root only when it has entities other than
/// links), each container's variables after its subtree, as a host's
/// metrics come below its processes.
pub fn rows(trace: &Trace, order: Option<&[ContainerId]>) -> Vec<Row> {
    let m = &trace.model;
    let mut out = Vec::new();
    let push_vars = |out: &mut Vec<Row>, c: ContainerId| {
        out.extend(variables(trace, c).into_iter().map(|l| Row {
            container: c,
            variable: Some(l),
        }));
    };
    if let Some(order) = order {
        for &c in order {
            out.push(Row {
                container: c,
                variable: None,
            });
            push_vars(&mut out, c);
        }
        return out;
    }
    let root_draws = m
        .container(ContainerId::ROOT)
        .lists
        .iter()
        .any(|(_, l)| m.list(*l).kind != TypeKind::Link);
    let shown: HashSet<ContainerId> = m
        .containers_depth_first()
        .into_iter()
        .filter(|c| *c != ContainerId::ROOT || root_draws)
        .collect();
    let mut stack: Vec<(ContainerId, bool)> = vec![(ContainerId::ROOT, false)];
    while let Some((c, done)) = stack.pop() {
        if done {
            if shown.contains(&c) {
                push_vars(&mut out, c);
            }
            continue;
        }
        if shown.contains(&c) {
            out.push(Row {
                container: c,
                variable: None,
            });
        }
        stack.push((c, true));
        stack.extend(m.children_in_order(c).into_iter().rev().map(|k| (k, false)));
    }
    out
}
