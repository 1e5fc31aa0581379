//! Why a run was slow: the wait states of its processes, the critical
//! path that set its length, and the delays that caused the waiting.
//!
//! The analysis works on a [`Run`] ([`model`]): the processes of a
//! simulated trace ([`trama_sim::Trace`]) with their activities (the
//! innermost state at each instant), their MPI calls, the messages that
//! joined them and the collective operations they took part in. A run is
//! built from any trace trama reads (OTF2 MPI records, Pajé traces of
//! SimGrid/SMPI or Akypuera whose MPI calls are states and messages
//! links, merged traces, Paraver communications).
//!
//! The definitions are Scalasca's (its pattern reference and the papers
//! on its critical-path and root-cause analyses), written again here:
//!
//! - wait states: [`Pattern`], each instance a [`WaitState`];
//! - the critical path: a chain of [`PathSegment`]s tiling the run from
//!   its start to its end;
//! - delay costs: [`DelayCost`], the waiting each computation caused;
//! - who waited for whom: [`who_waited`], the wait matrix made of the
//!   wait states;
//! - two runs compared: [`diff`], their profiles, critical paths and
//!   wait states side by side.
#![deny(missing_docs)]

mod delays;
mod diff;
mod extract;
mod matrix;
pub mod model;
mod path;
mod patterns;
mod sync;
#[cfg(test)]
mod test_runs;

pub use delays::delay_costs;
pub use diff::{
    diff, find_iteration, iteration_windows, Diff, DiffBy, DiffError, DiffOptions, DiffRow, Groups,
    IterationDelta, PatternDelta, RunSide,
};
pub use extract::{call_kind, RunOptions, WhyError};
pub use matrix::{wait_state_matrix, who_waited};
pub use path::{critical_path, path_processes, path_profile, PathProcess, PathRegion};
pub use patterns::wait_states;

pub use model::{
    Activity, Call, CallId, CallKind, Collective, CollectiveId, CollectiveKind, DelayCost, Message,
    PathSegment, Pattern, ProcId, Process, RegionId, Run, WaitState,
};
