//! Property tests on generated traces (crate `trama-gen`):
//! - the in-memory dump (PajeNG order) and the streaming dump (completion
//!   order) hold the same lines, with and without user-defined fields and a
//!   time window;
//! - reading with 1, 2 or 4 threads and small chunks, and formatting with 1
//!   or 4 threads, gives the same bytes;
//! - `trama check` and `trama dump` accept every generated trace, and the
//!   CLI prints what the library does;
//! - garbled inputs never make the pipeline panic, the reader behaves the
//!   same with 1 or several threads on them, and errors that come from a
//!   line name it.

use std::io::Write;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::process::Command;

use proptest::prelude::*;
use trama_dump::{dump_trace, DumpOptions, StreamDump};
use trama_gen::{generate, mutate, GenOptions};
use trama_paje::{read_paje, QuoteMode, ReadError, ReadOptions};
use trama_sim::{Model, SimError, SimOptions, Simulator, Sink, Trace, TraceBuilder};

/// How a run of the pipeline failed.
#[derive(Debug, Clone, PartialEq)]
struct Failure {
    /// Line the error names (0: end of the trace; None: not from a line).
    line: Option<u64>,
    /// Words of the offending line, as the error shows them.
    contents: String,
    /// The whole message.
    message: String,
}

fn reader(quotes: QuoteMode, strict: bool, threads: usize, chunk: usize) -> ReadOptions {
    let mut o = ReadOptions::default();
    o.quotes = quotes;
    o.strict = strict;
    o.threads = threads;
    o.chunk_size = chunk;
    o
}

fn sim_options(keep_extras: bool) -> SimOptions {
    let mut o = SimOptions::default();
    o.keep_extras = keep_extras;
    o
}

/// Reads and simulates `text` into `sink`.
fn simulate<S: Sink>(
    text: &[u8],
    ropts: &ReadOptions,
    sopts: SimOptions,
    sink: S,
) -> Result<(Model, S, Vec<String>), Failure> {
    let mut sim = Simulator::new(sink, sopts);
    let result = read_paje(text, ropts, |ev| sim.event(&ev).map_err(Box::new));
    match result {
        Ok(_) => {}
        Err(ReadError::Syntax {
            line,
            error,
            contents,
        }) => {
            return Err(Failure {
                line: Some(line),
                contents,
                message: error.to_string(),
            })
        }
        Err(ReadError::Handler(e)) => return Err(sim_failure(*e)),
        Err(ReadError::Io(e)) => {
            return Err(Failure {
                line: None,
                contents: String::new(),
                message: e.to_string(),
            })
        }
    }
    sim.finish().map_err(sim_failure)
}

fn sim_failure(e: SimError) -> Failure {
    Failure {
        line: Some(e.line),
        contents: e.contents.clone(),
        message: e.to_string(),
    }
}

fn build(text: &[u8], ropts: &ReadOptions, keep_extras: bool) -> Result<Trace, Failure> {
    let (model, sink, warnings) = simulate(
        text,
        ropts,
        sim_options(keep_extras),
        TraceBuilder::default(),
    )?;
    Ok(sink.into_trace(model, warnings))
}

fn dump_opts(user_defined: bool, window: Option<(f64, f64)>, threads: usize) -> DumpOptions {
    let mut o = DumpOptions::default();
    o.user_defined = user_defined;
    o.threads = threads;
    if let Some((s, e)) = window {
        o.start = Some(s);
        o.end = Some(e);
    }
    o
}

fn dump_memory(trace: &Trace, opts: &DumpOptions) -> Vec<u8> {
    let mut out = Vec::new();
    dump_trace(trace, opts, &mut out).expect("dump into a Vec");
    out
}

fn dump_stream(
    text: &[u8],
    ropts: &ReadOptions,
    keep_extras: bool,
    opts: &DumpOptions,
) -> Result<Vec<u8>, Failure> {
    let sink = StreamDump::new(Vec::new(), opts);
    let (_, sink, _) = simulate(text, ropts, sim_options(keep_extras), sink)?;
    Ok(sink.finish().expect("stream into a Vec"))
}

fn sorted_lines(bytes: &[u8]) -> Vec<&[u8]> {
    let mut v: Vec<&[u8]> = bytes.split(|&b| b == b'\n').collect();
    v.sort();
    v
}

fn options(seed: u64, quoted: bool, old_names: bool, max_events: usize) -> GenOptions {
    let mut o = GenOptions::varied(seed, max_events);
    o.quoted_names = quoted;
    o.old_field_names = old_names;
    o
}

fn text_of(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    /// (a) Same lines in memory and streaming, plain, with -u, with a window.
    #[test]
    fn memory_and_stream_dumps_hold_the_same_lines(
        seed in any::<u64>(),
        quoted in any::<bool>(),
        old_names in any::<bool>(),
        w0 in 0.0f64..1.0,
        w1 in 0.0f64..1.0,
    ) {
        let text = generate(seed, &options(seed, quoted, old_names, 400));
        for quotes in [QuoteMode::Keep, QuoteMode::Strip] {
            let ropts = reader(quotes, !old_names, 1, 1 << 20);
            for user_defined in [false, true] {
                let trace = build(text.as_bytes(), &ropts, user_defined)
                    .map_err(|f| TestCaseError::fail(format!("{f:?}\n{text}")))?;
                let (s, e) = (trace.start_time(), trace.end_time());
                let (a, b) = (w0.min(w1), w0.max(w1));
                let window = (s + a * (e - s), s + b * (e - s));
                for window in [None, Some(window)] {
                    let opts = dump_opts(user_defined, window, 1);
                    let memory = dump_memory(&trace, &opts);
                    let stream = dump_stream(text.as_bytes(), &ropts, user_defined, &opts)
                        .map_err(|f| TestCaseError::fail(format!("{f:?}")))?;
                    prop_assert_eq!(
                        sorted_lines(&memory),
                        sorted_lines(&stream),
                        "quotes {:?} -u {} window {:?}\n{}",
                        quotes,
                        user_defined,
                        window,
                        text
                    );
                }
            }
        }
    }

    /// (b) Reader threads and dump threads do not change a byte.
    #[test]
    fn threads_and_chunks_do_not_change_the_dump(
        seed in any::<u64>(),
        quoted in any::<bool>(),
        strip in any::<bool>(),
        user_defined in any::<bool>(),
    ) {
        let mut o = options(seed, quoted, false, 600);
        // Big enough for several 4 KiB chunks.
        o.events = o.events.max(150);
        let text = generate(seed, &o);
        let quotes = if strip { QuoteMode::Strip } else { QuoteMode::Keep };
        let reference = build(text.as_bytes(), &reader(quotes, true, 1, 1 << 20), user_defined)
            .map_err(|f| TestCaseError::fail(format!("{f:?}")))?;
        let expected = dump_memory(&reference, &dump_opts(user_defined, None, 1));
        prop_assert_eq!(
            text_of(&dump_memory(&reference, &dump_opts(user_defined, None, 4))),
            text_of(&expected),
            "dump threads 4 vs 1"
        );
        for threads in [1, 2, 3] {
            let trace = build(text.as_bytes(), &reader(quotes, true, threads, 4096), user_defined)
                .map_err(|f| TestCaseError::fail(format!("{f:?}")))?;
            let got = dump_memory(&trace, &dump_opts(user_defined, None, 1));
            prop_assert_eq!(text_of(&got), text_of(&expected), "reader threads {}", threads);
        }
    }

    /// (c) The CLI accepts generated traces and prints what the library does.
    #[test]
    fn cli_check_and_dump_accept_generated_traces(
        seed in any::<u64>(),
        quoted in any::<bool>(),
        strip in any::<bool>(),
    ) {
        let text = generate(seed, &options(seed, quoted, false, 300));
        let mut file = tempfile::NamedTempFile::new().expect("temp file");
        file.write_all(text.as_bytes()).expect("write trace");
        file.flush().expect("flush");
        let path = file.path();
        let mut quote_arg: Vec<&str> = Vec::new();
        if strip {
            quote_arg.push("--strip-quotes");
        }
        let check = Command::new(env!("CARGO_BIN_EXE_trama"))
            .arg("check")
            .args(&quote_arg)
            .arg(path)
            .output()
            .expect("run trama check");
        prop_assert!(
            check.status.success(),
            "trama check rejected a generated trace (seed {}): {}\n{}",
            seed,
            text_of(&check.stderr),
            text
        );
        let dump = Command::new(env!("CARGO_BIN_EXE_trama"))
            .arg("dump")
            .args(&quote_arg)
            .arg(path)
            .output()
            .expect("run trama dump");
        prop_assert!(dump.status.success(), "trama dump: {}", text_of(&dump.stderr));
        let quotes = if strip { QuoteMode::Strip } else { QuoteMode::Keep };
        let trace = build(text.as_bytes(), &reader(quotes, true, 1, 1 << 20), false)
            .map_err(|f| TestCaseError::fail(format!("{f:?}")))?;
        prop_assert_eq!(
            text_of(&dump.stdout),
            text_of(&dump_memory(&trace, &dump_opts(false, None, 1)))
        );
    }
}

/// Words of a line as the reader splits them, roughly: enough to find the
/// event identifier of an error's line.
fn line_of(text: &[u8], line: u64) -> Option<&[u8]> {
    text.split(|&b| b == b'\n')
        .nth(line.checked_sub(1)? as usize)
}

/// Checks that an error that names a line names one that exists and holds
/// the offending words.
fn check_failure(text: &[u8], f: &Failure) -> Result<(), String> {
    let Some(line) = f.line else {
        return Err(format!("error without a line: {f:?}"));
    };
    if line == 0 {
        // An error at the end of the trace (e.g. incomplete links).
        return Ok(());
    }
    let Some(l) = line_of(text, line) else {
        return Err(format!("line {line} does not exist: {f:?}"));
    };
    if f.message.starts_with("NUL byte") || f.message.contains("NUL byte") {
        return if l.contains(&0) {
            Ok(())
        } else {
            Err(format!("no NUL byte on line {line}: {f:?}"))
        };
    }
    // The first word of the contents (event identifier or %-keyword), when
    // shown and clean text, must appear on that line.
    let first = f.contents.split(' ').next().unwrap_or("");
    if !first.contains('\u{fffd}') && !first.is_empty() {
        let found = l.windows(first.len()).any(|w| w == first.as_bytes());
        if !found {
            return Err(format!(
                "line {line} ({:?}) does not hold {first:?}: {f:?}",
                text_of(l)
            ));
        }
    }
    Ok(())
}

/// Runs the whole pipeline (read, simulate, dump in memory) on `input`.
fn pipeline(input: &[u8], ropts: &ReadOptions) -> Result<Vec<u8>, Failure> {
    let trace = build(input, ropts, true)?;
    let mut opts = dump_opts(true, None, 1);
    opts.header = true;
    Ok(dump_memory(&trace, &opts))
}

fn garbage(seed: u64) -> Vec<u8> {
    let mut r = trama_gen::Rng::new(seed);
    let n = r.below(600);
    let mut v = Vec::with_capacity(n);
    let alphabet = b"%EventDef PajeSetState 0123456789.e- \t\n\"#abcxyz";
    for _ in 0..n {
        if r.chance(0.1) {
            v.push(r.next_u64() as u8);
        } else {
            v.push(*r.pick(alphabet));
        }
    }
    v
}

/// Garbled inputs: no panic, same verdict and output with 1 or 3 reader
/// threads, in memory and streaming, and errors from a line name that line.
#[test]
fn garbled_inputs_never_panic_and_errors_name_their_line() {
    let dir = std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join("garbled");
    let mut rejected = 0;
    let cases = 400u64;
    for case in 0..cases {
        let input: Vec<u8> = if case % 8 == 7 {
            garbage(case)
        } else {
            let mut o = GenOptions::varied(case, 250);
            o.old_field_names = case % 5 == 0;
            let base = generate(case, &o);
            mutate(case.wrapping_mul(0x9E37_79B9), base.as_bytes())
        };
        let quotes = if case % 2 == 0 {
            QuoteMode::Keep
        } else {
            QuoteMode::Strip
        };
        let strict = case % 3 != 0;
        // Keeps the input as `<prefix>-<case>.trace`; the message to give.
        let keep = |prefix: &str, why: &str| {
            std::fs::create_dir_all(&dir).ok();
            let path = dir.join(format!("{prefix}-{case}.trace"));
            std::fs::write(&path, &input).ok();
            format!(
                "case {case} (quotes {quotes:?}, strict {strict}): {why}; input saved to {}",
                path.display()
            )
        };
        let save = |why: &str| keep("case", why);
        let outcome = catch_unwind(AssertUnwindSafe(|| {
            let one = pipeline(&input, &reader(quotes, strict, 1, 4096));
            let many = pipeline(&input, &reader(quotes, strict, 3, 4096));
            let stream = dump_stream(
                &input,
                &reader(quotes, strict, 2, 4096),
                true,
                &dump_opts(true, None, 1),
            );
            (one, many, stream)
        }));
        let (one, many, stream) = match outcome {
            Ok(r) => r,
            Err(panic) => {
                eprintln!("{}", keep("panic", "panicked"));
                std::panic::resume_unwind(panic);
            }
        };
        match (&one, &many) {
            (Ok(a), Ok(b)) => assert!(a == b, "{}", save("1 vs 3 reader threads differ")),
            (Err(a), Err(b)) => assert_eq!(a, b, "{}", save("1 vs 3 threads: other error")),
            _ => panic!(
                "{}: {:?} vs {:?}",
                save("1 vs 3 threads: other verdict"),
                one.as_ref().err(),
                many.as_ref().err()
            ),
        }
        match (&one, &stream) {
            (Ok(_), Ok(_)) => {}
            (Err(a), Err(b)) => assert_eq!(a, b, "{}", save("memory vs stream: other error")),
            _ => panic!("{}", save("memory vs stream: other verdict")),
        }
        if let Err(f) = &one {
            rejected += 1;
            if let Err(why) = check_failure(&input, f) {
                panic!("{}", save(&why));
            }
        }
    }
    // Most garbled inputs are invalid: make sure the test exercises errors.
    assert!(rejected > cases / 3, "only {rejected} of {cases} rejected");
}

/// A writer that fails once `left` more bytes are written (a closed pipe,
/// a full disk).
struct FailAfter {
    out: Vec<u8>,
    left: usize,
}

impl Write for FailAfter {
    fn write(&mut self, b: &[u8]) -> std::io::Result<usize> {
        if self.left == 0 {
            return Err(std::io::Error::new(
                std::io::ErrorKind::BrokenPipe,
                "closed",
            ));
        }
        let n = b.len().min(self.left);
        self.out.extend_from_slice(&b[..n]);
        self.left -= n;
        Ok(n)
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

#[test]
fn a_failing_output_ends_the_dump_with_its_error() {
    // Many more jobs than the formatting threads may run ahead of the
    // writing, so that some wait when the output fails: they must stop.
    let text = generate(7, &options(7, false, false, 50_000));
    let trace = build(
        text.as_bytes(),
        &reader(QuoteMode::Keep, true, 1, 1 << 20),
        false,
    )
    .expect("a generated trace is valid");
    for threads in [1, 2, 3] {
        let opts = dump_opts(false, None, threads);
        let full = dump_memory(&trace, &opts);
        let jobs = trace.model.containers.len() + trace.model.lists.len();
        assert!(jobs > 8 * 3, "{jobs} jobs");
        for cut in [0, 1, full.len() / 3, full.len() - 1] {
            let mut w = FailAfter {
                out: Vec::new(),
                left: cut,
            };
            let r = dump_trace(&trace, &opts, &mut w);
            assert!(r.is_err(), "{threads} threads, cut at {cut}");
            assert!(w.out == full[..cut], "{threads} threads, cut at {cut}");
        }
    }
}
