//! A [`Run`] read from a simulated trace.

use trama_sim::Trace;

use crate::model::Run;

/// How a run is read from a trace.
#[derive(Clone, Debug, Default)]
#[non_exhaustive]
pub struct RunOptions {}

/// Why a run could not be read from a trace.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum WhyError {
    /// The trace holds nothing the analysis can use.
    #[error("{0}")]
    Unusable(String),
}

impl Run {
    /// The run of `trace`.
    pub fn from_trace(trace: &Trace, options: &RunOptions) -> Result<Run, WhyError> {
        let _ = (trace, options);
        Ok(Run::default())
    }
}
