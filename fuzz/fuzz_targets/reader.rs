//! Fuzz target: the Pajé text reader on arbitrary bytes, with quotes kept
//! and stripped, strict and not. Besides "no panic", checks that events
//! match their definitions, that syntax errors name an existing line, and
//! that reading with several threads and small chunks gives the same
//! events and the same error as reading with one.
#![no_main]

use libfuzzer_sys::fuzz_target;
use trama_paje::{read_paje, QuoteMode, ReadError, ReadOptions};

/// What a read produced: (line, words) of every event, then the outcome.
type Outcome = (Vec<(u64, String)>, Result<u64, (Option<u64>, String)>);

fn read(data: &[u8], quotes: QuoteMode, strict: bool, threads: usize) -> Outcome {
    let mut opts = ReadOptions::default();
    opts.quotes = quotes;
    opts.strict = strict;
    opts.threads = threads;
    opts.chunk_size = 4096;
    let lines = data.iter().filter(|&&b| b == b'\n').count() as u64 + 1;
    let mut events = Vec::new();
    let result = read_paje(data, &opts, |ev| -> Result<(), std::convert::Infallible> {
        assert_eq!(ev.word_count(), ev.def().field_count());
        assert!(
            ev.line() >= 1 && ev.line() <= lines,
            "line {} of {lines}",
            ev.line()
        );
        let first = ev.word(0);
        assert_eq!(first, ev.def().id());
        for f in trama_events::Field::KNOWN {
            let _ = ev.get(f);
        }
        let _ = ev.extras().count();
        events.push((ev.line(), ev.contents()));
        Ok(())
    });
    let outcome = match result {
        Ok(stats) => {
            assert_eq!(stats.events as usize, events.len());
            assert_eq!(stats.bytes as usize, data.len());
            Ok(stats.lines)
        }
        Err(ReadError::Syntax { line, error, .. }) => {
            assert!(line >= 1 && line <= lines, "error line {line} of {lines}");
            Err((Some(line), error.to_string()))
        }
        Err(e) => Err((e.line(), e.to_string())),
    };
    (events, outcome)
}

fuzz_target!(|data: &[u8]| {
    for quotes in [QuoteMode::Keep, QuoteMode::Strip] {
        for strict in [true, false] {
            let one = read(data, quotes, strict, 1);
            if data.len() > 4096 && strict {
                // Several chunks: the parallel reader must agree.
                let many = read(data, quotes, strict, 3);
                assert!(one == many, "1 vs 3 threads differ");
            }
        }
    }
});
