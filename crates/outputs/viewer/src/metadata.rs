//! What the page needs before its first window ([`Meta`], the reply of
//! `api/meta`), computed from a trace.

use serde::Serialize;
use trama_lod::gather::Counts;
use trama_lod::Row;
use trama_sim::{ContainerId, Trace, TypeKind};
use trama_style::value_colors;

/// A container of [`Meta`]: rows of the timeline.
#[derive(Clone, Debug, Serialize)]
pub struct MetaContainer {
    /// Its id (an index: the `rows=` of window queries).
    pub id: u32,
    /// Its name, without PajeNG's quotes.
    pub name: String,
    /// Its type's id.
    #[serde(rename = "type")]
    pub ty: u32,
    /// Its parent's id (none for the root).
    pub parent: Option<u32>,
    /// Depth in the tree (root = 0).
    pub depth: u32,
    /// Creation and destruction times.
    pub start: f64,
    /// See `start`.
    pub end: f64,
    /// Its children's ids, in the tree's order.
    pub children: Vec<u32>,
}

/// A row of the timeline in [`Meta`]: a container's own row, or one of
/// its variables.
#[derive(Clone, Debug, Serialize)]
pub struct MetaRow {
    /// The container's id.
    pub container: u32,
    /// The variable's type id, on a variable's row.
    pub variable: Option<u32>,
    /// The label: the container's name, or the variable's.
    pub label: String,
    /// Indentation of the label.
    pub depth: u32,
}

/// A type of [`Meta`].
#[derive(Clone, Debug, Serialize)]
pub struct MetaType {
    /// Its id.
    pub id: u32,
    /// Its name.
    pub name: String,
    /// `container`, `state`, `event`, `variable` or `link`.
    pub kind: &'static str,
    /// The container type it belongs to.
    pub parent: Option<u32>,
}

/// A value of [`Meta`] (states, events, links).
#[derive(Clone, Debug, Serialize)]
pub struct MetaValue {
    /// Its id (the value ids of window replies).
    pub id: u32,
    /// Its type's id.
    #[serde(rename = "type")]
    pub ty: u32,
    /// Its name.
    pub name: String,
    /// What legends show: its name, with its alias when another value of
    /// its type has the same name ([`trama_sim::Model::value_labels`]).
    pub label: String,
    /// Its colour as `#rrggbb`, one per value
    /// ([`trama_style::value_colors`]).
    pub color: String,
}

/// The values of `m` as [`Meta`] gives them.
pub(crate) fn meta_values(m: &trama_sim::Model) -> Vec<MetaValue> {
    let colors = value_colors(m);
    let labels = m.value_labels();
    m.values
        .iter()
        .zip(colors.into_iter().zip(labels))
        .enumerate()
        .map(|(i, (v, (color, label)))| MetaValue {
            id: i as u32,
            ty: v.ty.0,
            name: m.label(v.name),
            label,
            color,
        })
        .collect()
}

/// The reply of `api/meta`.
#[derive(Clone, Debug, Serialize)]
pub struct Meta {
    /// The trace's name (its file).
    pub name: String,
    /// The earliest time of the trace.
    pub start: f64,
    /// The latest.
    pub end: f64,
    /// Containers, depth-first from the root.
    pub containers: Vec<MetaContainer>,
    /// The timeline's rows, top to bottom (`rows=` of window queries
    /// counts in this list).
    pub rows: Vec<MetaRow>,
    /// Types.
    pub types: Vec<MetaType>,
    /// Values.
    pub values: Vec<MetaValue>,
    /// Entities per kind.
    pub counts: Counts,
    /// What the page should say it leaves out.
    pub notes: Vec<String>,
    /// The container type of the hosts, chosen from the trace, when there
    /// is one.
    pub host_level: Option<String>,
    /// The rows in the seed's order (indices into `rows`): hosts by the
    /// messages they put on the network, each followed by its processes.
    pub host_order: Vec<u32>,
    /// Rows with nothing over the whole run (indices into `rows`), which the
    /// page does not show: a container's row stays while a row of its
    /// subtree shows something.
    pub idle: Vec<u32>,
}

/// The summary of `trace`, whose timeline shows `rows`, that `api/meta`
/// sends.
pub fn meta(trace: &Trace, rows: &[Row], name: &str) -> Meta {
    let m = &trace.model;
    let mut counts = Counts {
        containers: m.containers.len(),
        ..Counts::default()
    };
    let (mut start, mut end) = (f64::INFINITY, f64::NEG_INFINITY);
    for (l, cols) in trace.lists.iter().enumerate() {
        let kind = m.lists[l].kind;
        let n = cols.len();
        match kind {
            TypeKind::State => counts.states += n,
            TypeKind::Event => counts.events += n,
            TypeKind::Variable => counts.variables += n,
            TypeKind::Link => counts.links += n,
            TypeKind::Container => {}
        }
        for (s, e) in cols.start.iter().zip(&cols.end) {
            start = start.min(*s);
            end = end.max(*e);
        }
    }
    for c in &m.containers {
        start = start.min(c.start);
        end = end.max(c.end);
    }
    if start > end {
        (start, end) = (0.0, 0.0);
    }
    let containers = m
        .containers_depth_first()
        .into_iter()
        .map(|c: ContainerId| {
            let info = m.container(c);
            MetaContainer {
                id: c.0,
                name: m.label(info.name),
                ty: info.ty.0,
                parent: info.parent.map(|p| p.0),
                depth: info.depth,
                start: info.start,
                end: info.end,
                children: m.children_in_order(c).iter().map(|c| c.0).collect(),
            }
        })
        .collect();
    let types = m
        .types
        .iter()
        .enumerate()
        .map(|(i, t)| MetaType {
            id: i as u32,
            name: m.label(t.name),
            kind: t.kind.name(),
            parent: t.parent.map(|p| p.0),
        })
        .collect();
    let values = meta_values(m);
    let rows = rows
        .iter()
        .map(|r| MetaRow {
            container: r.container.0,
            variable: r.variable.map(|l| m.list(l).ty.0),
            label: r.label(trace),
            depth: r.depth(trace) as u32,
        })
        .collect();
    Meta {
        name: name.to_string(),
        start,
        end,
        containers,
        rows,
        types,
        values,
        counts,
        notes: Vec::new(),
        host_level: None,
        host_order: Vec::new(),
        idle: Vec::new(),
    }
}
