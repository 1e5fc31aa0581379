//! Traces for the unit tests: random valid traces of `trama-gen`,
//! simulated.

use trama_paje::{read_paje, ReadOptions};
use trama_sim::{SimOptions, Simulator, Trace, TraceBuilder};

/// The trace `trama-gen` generates from `seed` (at most 20,000 events).
#[allow(clippy::result_large_err)]
pub(crate) fn generated(seed: u64) -> Trace {
    let text = trama_gen::generate(seed, &trama_gen::GenOptions::varied(seed, 20_000));
    let mut sim = Simulator::new(TraceBuilder::default(), SimOptions::default());
    read_paje(text.as_bytes(), &ReadOptions::default(), |ev| {
        sim.event(&ev)
    })
    .expect("a generated trace is valid");
    let (model, sink, warnings) = sim.finish().expect("a generated trace is valid");
    sink.into_trace(model, warnings)
}
