//! How traces look wherever they are drawn, shared by the pictures
//! (`trama-views`) and the interactive viewer (`trama-viewer`) so that
//! neither depends on the other: the colours of values ([`color`]) and
//! the seed's order of rows ([`order_rows`]).
#![deny(missing_docs)]

pub mod color;

pub use color::{color, line_color, shared_value_colors, value_colors};

use trama_analysis::Ordering;
use trama_sim::{ContainerId, Trace};

/// The space-time rows of an ordering: each host, then its processes.
pub fn order_rows(trace: &Trace, o: &Ordering) -> Vec<ContainerId> {
    let m = &trace.model;
    let by_name = |n: &str| {
        (0..m.containers.len() as u32)
            .map(ContainerId)
            .find(|c| m.names(m.container(*c).name, n))
    };
    let mut rows = Vec::new();
    for h in &o.hosts {
        rows.extend(by_name(&h.host));
        rows.extend(h.processes.iter().filter_map(|(p, _)| by_name(p)));
    }
    rows
}
