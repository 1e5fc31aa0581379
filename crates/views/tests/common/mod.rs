//! Shared by the tests: simulates a Pajé text into a trace store.

use trama_paje::{read_paje, ReadOptions};
use trama_sim::{SimOptions, Simulator, Trace, TraceBuilder};

/// Simulates `text` (a valid trace).
#[allow(clippy::result_large_err)]
pub fn simulate(text: &str) -> Trace {
    let mut sim = Simulator::new(TraceBuilder::default(), SimOptions::default());
    read_paje(text.as_bytes(), &ReadOptions::default(), |ev| {
        sim.event(&ev)
    })
    .expect("valid");
    let (model, sink, warnings) = sim.finish().expect("valid");
    sink.into_trace(model, warnings)
}

/// The ring example of the repository: 4 ranks on 2 nodes.
#[allow(dead_code)]
pub fn ring() -> Trace {
    let example = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples/ring.paje");
    simulate(&std::fs::read_to_string(example).unwrap())
}
