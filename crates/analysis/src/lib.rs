//! Analyses of a simulated trace ([`trama_sim::Trace`]): pure functions
//! over an optional time [`Window`], whose results serialize (serde) to the
//! stable JSON and CSV forms `trama stats` prints.
//!
//! - [`time_per_state`]: for every container, state type and value, the
//!   time spent (total, exclusive, inclusive), the number of states, their
//!   mean and longest duration and the share of the window; rolled up the
//!   container hierarchy; with the load imbalance across containers.
#![deny(missing_docs)]

mod states;
mod window;

pub use states::{time_per_state, Imbalance, StateRow, StateStats};
pub use window::Window;
