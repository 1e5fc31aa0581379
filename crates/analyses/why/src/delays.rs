//! The delay costs: which computation on which process caused the waiting.

use crate::model::{DelayCost, Run, WaitState};

/// The delay costs of the wait states `waits` of `run`, per causing
/// process and region.
pub fn delay_costs(run: &Run, waits: &[WaitState]) -> Vec<DelayCost> {
    let _ = (run, waits);
    Vec::new()
}
