//! Analyses of a simulated trace ([`trama_sim::Trace`]): pure functions
//! over an optional time [`Window`], whose results serialize (serde) to the
//! stable JSON and CSV forms `trama stats` prints.
//!
//! - [`time_per_state`]: for every container, state type and value, the
//!   time spent (total, exclusive, inclusive), the number of states, their
//!   mean and longest duration and the share of the window; rolled up the
//!   container hierarchy; with the load imbalance across containers.
//! - [`comm_matrix`]: messages (links) per pair of containers, at a chosen
//!   level (processes, or their hosts), with bytes and effective rates from
//!   a size field.
//! - [`order`]: hosts and their processes ordered by the messages they put
//!   on the network (the seed's ordering for the space-time view).
//! - [`slices`]: per equal time slice and container, the time in each
//!   state and the messages sent and received (the data of animations);
//!   [`kiviat`]: each host's cumulative share of network messages.
//! - [`info`]: the seed's "Info" file: process and host counts, the hosts
//!   in order with their numbered processes, the network messages and the
//!   adjacency list.
//! - [`graph`]: the communication graph of processes with a deterministic
//!   force-directed (Fruchterman–Reingold) layout.
//! - [`wait_matrix`]: who waited for whom: waiting states attributed to the
//!   sender of the last message received during them (the fallback of
//!   `trama stats wait` for traces without MPI calls; on MPI runs the
//!   `trama-why` crate makes the matrix from the wait states, with
//!   [`WaitMatrix::from_cells`]).
//! - [`host_level`]: the container type of the hosts, chosen from the trace
//!   when the reader does not name it.
//! - [`states_at`] and [`dominant_states`]: one state value per container,
//!   at an instant or over the window.
//! - [`frame`]: what an animation shows at an instant or over an interval
//!   (each process's state, the messages in flight, the Kiviat radii so
//!   far) on a [`Stage`], the processes grouped by host.
//! - [`TimeWindow`]: a window as asked for (`START:END`, either side open),
//!   resolved against a trace into a [`Window`].
#![deny(missing_docs)]

mod comm;
mod dominant;
mod frames;
mod graph;
mod info;
mod levels;
mod messages;
mod nodes;
mod parts;
mod read;
mod selection;
mod slices;
mod states;
mod wait;
mod window;

pub use comm::{
    comm_matrix, messages as each_message, order, order_of, CommMatrix, CommPair, OrderedHost,
    Ordering,
};
pub use dominant::{dominant_states, find_value, states_at, ContainerState};
pub use frames::{
    frame, guess_size_field, size_of, Flights, Frame, FrameCell, FrameState, Stage, StageHost,
    StageProcess,
};
pub use graph::{graph, Edge, Graph, Node};
pub use info::{info, Info, InfoHost, InfoSender};
pub use levels::{host_level, host_level_of, HostLevel};
pub use messages::{Messages, UnknownLinkType};
pub use nodes::{
    node_frame, pair_totals, ArcKind, Indicators, LinkItem, NodeArc, NodeFrame, NodeLinks,
    NodeStage, NodeStatus, StageNode, OPENTS_ARCS, TASK_STATES,
};
pub use parts::WindowParts;
pub use selection::{selection, Selection, SelectionParts};
pub use slices::{instants, kiviat, slice_count, slices, Kiviat, SliceRow, Slices};
pub use states::{time_per_state, Imbalance, StateRow, StateStats};
pub use wait::{
    wait_matrix, WaitCells, WaitMatrix, WaitMethod, WaitRow, DEFAULT_WAITING, UNATTRIBUTED,
};
pub use window::{Part, TimeWindow, Window, WindowError};
