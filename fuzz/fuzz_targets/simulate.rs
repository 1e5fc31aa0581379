//! Fuzz target: the whole pipeline (read, simulate, dump into memory) with
//! options taken from the first input byte:
//! bit 0 strip quotes, bit 1 not strict, bit 2 no imbrication (-i),
//! bit 3 ignore incomplete links (-z), bit 4 user-defined fields (-u),
//! bit 5 stop at a time (-a, from the second byte), bit 6 a time window
//! (-s/-e, from the second and third bytes), bit 7 streaming dump.
#![no_main]

use libfuzzer_sys::fuzz_target;
use trama_dump::{dump_trace, DumpOptions, StreamDump};
use trama_paje::{read_paje, QuoteMode, ReadError, ReadOptions};
use trama_sim::{Finished, SimOptions, Simulator, Sink, TraceBuilder};

fuzz_target!(|data: &[u8]| {
    let Some((&flags, rest)) = data.split_first() else {
        return;
    };
    let b1 = rest.first().copied().unwrap_or(0) as f64;
    let b2 = rest.get(1).copied().unwrap_or(0) as f64;
    let text = rest;

    let mut ropts = ReadOptions::default();
    ropts.quotes = if flags & 1 != 0 {
        QuoteMode::Strip
    } else {
        QuoteMode::Keep
    };
    ropts.strict = flags & 2 == 0;
    ropts.threads = 1;
    ropts.chunk_size = 4096;

    let mut sopts = SimOptions::default();
    sopts.no_imbrication = flags & 4 != 0;
    sopts.ignore_incomplete_links = flags & 8 != 0;
    sopts.keep_extras = flags & 16 != 0;
    if flags & 32 != 0 {
        sopts.stop_at = Some(b1 / 4.0);
    }

    let mut dopts = DumpOptions::default();
    dopts.user_defined = flags & 16 != 0;
    dopts.header = flags & 16 != 0;
    dopts.threads = 1;
    if flags & 64 != 0 {
        dopts.start = Some(b1 / 8.0);
        dopts.end = Some(b1 / 8.0 + b2);
    }
    if flags & 128 != 0 {
        let sink = StreamDump::new(Vec::new(), &dopts);
        if let Some((_, sink, _)) = simulate(text, &ropts, sink, sopts) {
            sink.finish().expect("write into a Vec");
        }
    } else if let Some((model, sink, warnings)) =
        simulate(text, &ropts, TraceBuilder::default(), sopts)
    {
        let trace = sink.into_trace(model, warnings);
        let mut out = Vec::new();
        dump_trace(&trace, &dopts, &mut out).expect("write into a Vec");
    }
});

/// Reads `text` into a simulation that feeds `sink`: the finished
/// simulation, or `None` when the text or the simulation is rejected (an
/// error must name a line of the text).
fn simulate<S: Sink>(
    text: &[u8],
    ropts: &ReadOptions,
    sink: S,
    sopts: SimOptions,
) -> Option<Finished<S>> {
    let lines = text.iter().filter(|&&b| b == b'\n').count() as u64 + 1;
    let check_line = |line: u64| {
        assert!(line <= lines, "error at line {line} of {lines}");
    };
    let mut sim = Simulator::new(sink, sopts);
    let read = read_paje(text, ropts, |ev| sim.event(&ev));
    match read {
        Ok(_) => sim.finish().ok(),
        Err(ReadError::Handler(e)) => {
            check_line(e.line);
            None
        }
        Err(ReadError::Syntax { line, .. }) => {
            check_line(line);
            None
        }
        Err(e) => panic!("unexpected error {e}"),
    }
}
