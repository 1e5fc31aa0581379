//! Pictures of a simulated trace ([`trama_sim::Trace`]) as SVG written to
//! any [`std::io::Write`], and PNG through a pure-Rust rasterizer
//! ([`svg_to_png`]).
//!
//! - [`space_time`]: the space-time diagram. One row per container (the
//!   container tree depth-first, names indented by depth, or a given
//!   order), states as coloured bars (nested states as narrower bars
//!   inside), events as marks, variables as step plots in their
//!   container's row, links as arrows, a time axis and a legend. Colours
//!   come from `PajeDefineEntityValue` when it gives one, else from a
//!   stable palette keyed by the value's name. Level of detail: where
//!   several states fall in one pixel column of a row, one mark of the
//!   dominant value (the longest in that column) is drawn, so the file's
//!   size depends on the picture's width and the number of rows, not on
//!   the trace's length; at most 5000 link arrows are drawn (the busiest
//!   pixel columns of each pair first), the others are counted in the
//!   legend.
//! - [`heatmap`]: a matrix (traffic, waits) with seed 002's gradient rules
//!   (below the minimum black, above the maximum white);
//!   [`process_graph`]: nodes and weighted edges at given coordinates;
//!   [`kiviat_chart`]: one axis per host, one polygon per instant;
//!   [`mapping_chart`]: hosts around a circle with their processes coloured;
//!   [`process_detail`]: one process's waiting per partner and time per
//!   state.
//!
//! The views of analysis results take the types of [`trama_analysis`]:
//! [`draw_traffic_matrix`] ([`trama_analysis::CommMatrix`]),
//! [`draw_wait_matrix`], [`draw_graph`], [`draw_kiviat`], [`draw_mapping`]
//! and [`draw_process`]; [`draw`] computes the analysis a [`View`] shows and
//! draws it, with [`ViewOptions`].
#![deny(missing_docs)]

mod charts;
mod color;
mod draw;
mod space_time;
mod svg;

pub use charts::{
    heatmap, kiviat_chart, mapping_chart, process_detail, process_graph, Heatmap, Mapped,
};
pub use color::color;
pub use draw::{
    draw, draw_graph, draw_kiviat, draw_mapping, draw_process, draw_traffic_matrix,
    draw_wait_matrix, order_rows, View, ViewError, ViewOptions,
};
pub use space_time::{space_time, SpaceTimeOptions};
pub use svg::svg_to_png;
