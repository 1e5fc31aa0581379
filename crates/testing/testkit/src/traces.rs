//! The traces that the replay tests of `trama-sim` and `trama-ptb` go
//! through: generated ones, seed by seed, and the reference simulation's.

use trama_gen::{generate, GenOptions};
use trama_sim::{SimOptions, Simulator, Trace, TraceBuilder};

/// The hand-written OpenTS sample of the sources crate's tests.
pub fn opents_sample() -> std::path::PathBuf {
    std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../formats/sources/tests/data/opents/small.xml")
}

/// The trace of `seed`: one with every feature (the default options) for
/// one seed in `rich`, else a varied one of at most `max_events` events.
pub fn generated(seed: u64, rich: u64, max_events: usize) -> String {
    let opts = if seed.is_multiple_of(rich) {
        GenOptions::default()
    } else {
        GenOptions::varied(seed, max_events)
    };
    generate(seed, &opts)
}

/// The trace the engine makes of the events `feed` gives it; `None` when
/// `feed` fails (`None`) or the engine rejects the trace.
pub fn simulated<T>(
    keep_extras: bool,
    feed: impl FnOnce(&mut Simulator<TraceBuilder>) -> Option<T>,
) -> Option<Trace> {
    let mut o = SimOptions::default();
    o.keep_extras = keep_extras;
    let mut sim = Simulator::new(TraceBuilder::default(), o);
    feed(&mut sim)?;
    let (model, sink, warnings) = sim.finish().ok()?;
    Some(sink.into_trace(model, warnings))
}
