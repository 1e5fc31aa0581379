//! Pictures of a simulated trace ([`trama_sim::Trace`]) as SVG written to
//! any [`std::io::Write`], and PNG through a pure-Rust rasterizer
//! ([`svg_to_png`]).
//!
//! - [`space_time`]: the space-time diagram, drawn from the level of
//!   detail of [`trama_lod`]. One row per container (the container tree
//!   depth-first, names indented by depth, or a given order) and one per
//!   variable; rows with nothing in the window are hidden (the containers
//!   above a shown row stay as headers) and a note says how many. In each
//!   pixel column of a row, the value whose states cover the most time
//!   there, level by level: nested states are drawn inside and over their
//!   parents. Events are marks, variables step lines through each
//!   column's range. Links are arrows where few; where more begin than
//!   the eye can follow, they are counted per row and pixel column and
//!   shown as a grey strip under the row, darker where more leave or
//!   arrive. The file's size depends on the picture's width and the
//!   number of rows, not on the trace's length. A window of no duration
//!   gets an axis of a second around its instant and a note. The legend
//!   has one entry per value name and colour, wrapped into as many lines
//!   as it needs. Colours come from `PajeDefineEntityValue` when it gives
//!   one, else from a stable palette keyed by the value's name.
//! - [`heatmap`]: a matrix (traffic, waits) with seed 002's gradient rules
//!   (below the minimum black, above the maximum white);
//!   [`process_graph`]: nodes and weighted edges at given coordinates;
//!   [`kiviat_chart`]: one axis per host, one polygon per instant;
//!   [`mapping_chart`]: hosts around a circle with their processes coloured;
//!   [`process_detail`]: one process's waiting per partner and time per
//!   state.
//!
//! - [`record`]: the animated views (process animation, traffic
//!   animation) as animated GIF or PNG, frame by frame from the frame model
//!   of `trama-analysis` that `trama view`'s player draws.
//!
//! The views of analysis results take the types of [`trama_analysis`]:
//! [`draw_traffic_matrix`] ([`trama_analysis::CommMatrix`]),
//! [`draw_wait_matrix`], [`draw_graph`], [`draw_kiviat`], [`draw_mapping`]
//! and [`draw_process`]; [`draw`] computes the analysis a [`View`] shows and
//! draws it, with [`ViewOptions`].
#![deny(missing_docs)]

mod animation;
mod charts;
mod draw;
mod labels;
mod legend;
mod node_view;
mod space_time;
mod svg;

pub use animation::{
    draw_film_frame, draw_process_frame, draw_traffic_frame, record, Animation, Film, Gradient,
    RecordOptions, Recording, Square,
};
pub use charts::{
    heatmap, kiviat_chart, mapping_chart, process_detail, process_graph, Heatmap, Mapped,
};
pub use draw::{
    draw, draw_graph, draw_kiviat, draw_mapping, draw_process, draw_traffic_matrix,
    draw_wait_matrix, View, ViewError, ViewOptions,
};
pub use node_view::{draw_node_frame, node_place, NodeStyle, TASK_COLORS};
pub use space_time::{space_time, SpaceTimeOptions};
pub use svg::svg_to_png;
pub use trama_style::{color, order_rows, value_colors};
