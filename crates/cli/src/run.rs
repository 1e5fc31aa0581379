//! Reading, simulating and reporting, shared by the subcommands.

use std::io::Write;
use std::process::ExitCode;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;
use std::time::Duration;

use anyhow::{anyhow, Context};
use trama_dump::{dump_trace, DumpOptions, StreamDump};
use trama_input::{Input, Source};
use trama_paje::{read_paje, QuoteMode, ReadError, ReadStats, ReaderOptions};
use trama_ptb::{
    Decoded, PtbFile, ReadError as PtbReadError, ReadOptions as PtbReadOptions, ReplayOptions,
    Replayed,
};
use trama_sim::{
    CountingSink, Model, ParallelTraceBuilder, Pipeline, SimError, SimOptions, Simulator, Sink,
    TraceBuilder, TypeKind,
};

use crate::ReadArgs;

/// What `trama dump` was asked to do.
pub struct DumpSettings {
    pub start: Option<f64>,
    pub end: Option<f64>,
    pub user_defined: bool,
    pub header: bool,
    pub precision: usize,
    pub quiet: bool,
    pub stream: bool,
}

/// A stop requested by the sink (its output is closed).
#[derive(Debug)]
enum Stop {
    Sim(Box<SimError>),
    OutputClosed,
    /// The two-thread pipeline closed; its error comes with its result.
    Engine,
}

struct Simulated<S> {
    model: Model,
    sink: S,
    warnings: Vec<String>,
    stats: ReadStats,
    /// The input was a binary trace (its lines are those of the original text).
    binary: bool,
    /// Its format, as shown by `trama check`.
    format: &'static str,
}

/// Shows a progress bar on a terminal while the input is read.
pub(crate) struct Progress {
    done: Arc<AtomicBool>,
    handle: Option<std::thread::JoinHandle<()>>,
}

impl Progress {
    /// A bar over the bytes of `input` read so far (for inputs over 64 MB).
    pub(crate) fn start(input: &Input, enabled: bool) -> Progress {
        match (enabled, input.len_hint()) {
            (true, Some(len)) if len > 64 << 20 => Progress::spawn(
                input.name().to_string(),
                len,
                input.progress_counter(),
                "{msg} [{bar:30}] {bytes}/{total_bytes} {bytes_per_sec} eta {eta}",
            ),
            _ => Progress::none(),
        }
    }

    /// A bar over `total` events, of which `counter` holds those done (for
    /// more than 4 million).
    pub(crate) fn events(
        name: &str,
        total: u64,
        counter: Arc<AtomicU64>,
        enabled: bool,
    ) -> Progress {
        if !enabled || total <= 4 << 20 {
            return Progress::none();
        }
        Progress::spawn(
            name.to_string(),
            total,
            counter,
            "{msg} [{bar:30}] {human_pos}/{human_len} events, eta {eta}",
        )
    }

    fn none() -> Progress {
        Progress {
            done: Arc::new(AtomicBool::new(false)),
            handle: None,
        }
    }

    fn spawn(
        name: String,
        total: u64,
        counter: Arc<AtomicU64>,
        template: &'static str,
    ) -> Progress {
        let done = Arc::new(AtomicBool::new(false));
        let done2 = done.clone();
        let handle = std::thread::spawn(move || {
            let bar = indicatif::ProgressBar::with_draw_target(
                Some(total),
                indicatif::ProgressDrawTarget::stderr_with_hz(4),
            );
            bar.set_style(
                indicatif::ProgressStyle::with_template(template)
                    .unwrap_or_else(|_| indicatif::ProgressStyle::default_bar())
                    .progress_chars("=> "),
            );
            bar.set_message(name);
            while !done2.load(Ordering::Relaxed) {
                bar.set_position(counter.load(Ordering::Relaxed));
                std::thread::sleep(Duration::from_millis(100));
            }
            bar.finish_and_clear();
        });
        Progress {
            done,
            handle: Some(handle),
        }
    }
}

impl Drop for Progress {
    fn drop(&mut self) {
        self.done.store(true, Ordering::Relaxed);
        if let Some(h) = self.handle.take() {
            let _ = h.join();
        }
    }
}

/// An input, by format (detected from its first bytes, not its name).
pub(crate) enum Opened {
    Text(Input),
    Binary(PtbFile),
    /// The original proposal's binary Pajé in libRastro files, held in memory.
    Rastro(Vec<u8>),
}

/// Opens the input of `args` and detects its format.
pub(crate) fn open_any(args: &ReadArgs) -> anyhow::Result<Opened> {
    let source = Source::from_arg(args.file.as_deref());
    let name = source.display_name();
    if let Source::Path(path) = &source {
        let mut prefix = [0u8; 8];
        let n = std::fs::File::open(path)
            .and_then(|mut f| read_prefix(&mut f, &mut prefix))
            .map_err(|e| anyhow!("cannot open {name}: {e}"))?;
        if trama_ptb::is_ptb(&prefix[..n]) {
            let file = PtbFile::open(path)
                .map_err(|e| anyhow!("cannot open {name}: {e}"))?
                .map_err(|e| anyhow!("{name}: {e}"))?;
            return Ok(Opened::Binary(file));
        }
        if trama_rastro::is_rastro(&prefix[..n]) {
            let data = std::fs::read(path).map_err(|e| anyhow!("cannot read {name}: {e}"))?;
            return Ok(Opened::Rastro(data));
        }
        return Ok(Opened::Text(Input::open(&source)?));
    }
    let mut input = Input::open(&source)?;
    let binary = {
        use std::io::BufRead;
        // The first read may give only the few bytes used to detect
        // compression: the magic's first four bytes are enough to tell.
        let buf = input
            .fill_buf()
            .with_context(|| format!("reading {name}"))?;
        buf.len() >= 4 && trama_ptb::MAGIC.starts_with(&buf[..4]) || trama_rastro::is_rastro(buf)
    };
    if binary {
        use std::io::Read;
        let mut data = Vec::new();
        input
            .read_to_end(&mut data)
            .with_context(|| format!("reading {name}"))?;
        if trama_rastro::is_rastro(&data) {
            return Ok(Opened::Rastro(data));
        }
        let file = PtbFile::from_vec(data).map_err(|e| anyhow!("{name}: {e}"))?;
        return Ok(Opened::Binary(file));
    }
    Ok(Opened::Text(input))
}

fn read_prefix(r: &mut impl std::io::Read, buf: &mut [u8]) -> std::io::Result<usize> {
    let mut n = 0;
    while n < buf.len() {
        match r.read(&mut buf[n..])? {
            0 => break,
            k => n += k,
        }
    }
    Ok(n)
}

/// Decoding threads for a binary trace: the simulation already takes two
/// threads (resolution and engine), decoding gets the rest, at least one.
fn ptb_options(args: &ReadArgs) -> PtbReadOptions {
    let mut o = PtbReadOptions::default();
    let cores = if args.threads == 0 {
        o.threads
    } else {
        args.threads
    };
    o.threads = cores.saturating_sub(2).max(1);
    o
}

/// Feeds every record of a binary trace to `record`.
fn feed_binary<E>(
    file: &PtbFile,
    args: &ReadArgs,
    record: impl FnMut(Decoded<'_>) -> Result<(), E>,
) -> Result<ReadStats, Failure<E>> {
    let threads = if args.threads == 1 {
        0
    } else {
        ptb_options(args).threads
    };
    let mut o = PtbReadOptions::default();
    o.threads = threads;
    file.read(&o, record).map_err(|e| match e {
        PtbReadError::Format(f) => Failure::Format(f),
        PtbReadError::Handler(e) => Failure::Stop(e),
    })?;
    Ok(binary_stats(file))
}

fn binary_stats(file: &PtbFile) -> ReadStats {
    ReadStats {
        lines: file.text_lines(),
        bytes: file.len(),
        events: file.events(),
        definitions: file.definitions().to_vec(),
        ..ReadStats::default()
    }
}

/// Why reading stopped, whatever the format.
pub(crate) enum Failure<E> {
    Stop(E),
    Syntax {
        line: u64,
        error: trama_paje::SyntaxError,
        contents: String,
    },
    Io(std::io::Error),
    Format(trama_ptb::FormatError),
    /// A libRastro file that cannot be read (the message names the offset).
    Rastro(String),
}

impl<E> From<ReadError<E>> for Failure<E> {
    fn from(e: ReadError<E>) -> Failure<E> {
        match e {
            ReadError::Handler(e) => Failure::Stop(e),
            ReadError::Syntax {
                line,
                error,
                contents,
            } => Failure::Syntax {
                line,
                error,
                contents,
            },
            ReadError::Io(e) => Failure::Io(e),
        }
    }
}

pub(crate) fn reader_options(args: &ReadArgs) -> ReaderOptions {
    let mut o = ReaderOptions::default();
    o.strict = !args.no_strict;
    o.quotes = if args.strip_quotes {
        QuoteMode::Strip
    } else {
        QuoteMode::Keep
    };
    o.threads = args.threads;
    o
}

fn sim_options(args: &ReadArgs, keep_extras: bool) -> SimOptions {
    let mut o = SimOptions::default();
    o.stop_at = args.stop_at;
    o.ignore_incomplete_links = args.ignore_incomplete_links;
    o.no_imbrication = args.no_imbrication;
    o.keep_extras = keep_extras;
    o
}

/// Reads and simulates the whole input into `sink`: on the caller's thread
/// with one thread, else with the engine on a thread of its own.
fn simulate<S: Sink + Send>(
    args: &ReadArgs,
    sink: S,
    keep_extras: bool,
    stop_early: impl Fn(&S) -> bool,
) -> anyhow::Result<Simulated<S>> {
    let opened = open_any(args)?;
    let name = Source::from_arg(args.file.as_deref()).display_name();
    let binary = matches!(opened, Opened::Binary(_) | Opened::Rastro(_));
    let format = match opened {
        Opened::Text(_) => "text",
        Opened::Binary(_) => "binary (.ptb)",
        Opened::Rastro(_) => "libRastro binary Pajé (.rst)",
    };
    let sopts = sim_options(args, keep_extras);
    let (read, finished): (Result<ReadStats, Failure<Stop>>, _) = match opened {
        Opened::Text(input) => {
            let progress = Progress::start(&input, !args.no_progress);
            let ropts = reader_options(args);
            let r = if args.threads == 1 {
                let mut sim = Simulator::new(sink, sopts);
                let read = read_paje(input, &ropts, |ev| {
                    sim.event(&ev).map_err(|e| Stop::Sim(Box::new(e)))?;
                    if stop_early(sim.sink()) {
                        return Err(Stop::OutputClosed);
                    }
                    Ok(())
                });
                let finished = match &read {
                    Ok(_) => Some(sim.finish()),
                    Err(_) => None,
                };
                (read.map_err(Failure::from), finished)
            } else {
                let (read, finished) = Pipeline::run(sink, sopts, |front| {
                    read_paje(input, &ropts, |ev| {
                        front.event(&ev).map_err(|_| Stop::Engine)
                    })
                });
                (read.map_err(Failure::from), Some(finished))
            };
            drop(progress);
            r
        }
        Opened::Rastro(data) => {
            let ropts = trama_rastro::paje::ReadOptions::default();
            let feed = |event: &mut dyn FnMut(&trama_events::Event<'_>) -> Result<(), Stop>| {
                trama_rastro::read_rastro_paje(&data, &ropts, |ev| event(&ev))
                    .map(|st| ReadStats {
                        lines: st.rastro_events,
                        bytes: st.bytes,
                        events: st.events,
                        definitions: st.definitions,
                        ..ReadStats::default()
                    })
                    .map_err(|e| match e {
                        trama_rastro::paje::Error::Handler(e) => Failure::Stop(e),
                        trama_rastro::paje::Error::Rst(e) => Failure::Rastro(e.to_string()),
                        trama_rastro::paje::Error::Format {
                            event,
                            offset,
                            error,
                        } => Failure::Rastro(format!(
                            "rastro event {event} (byte {offset}): {error}"
                        )),
                    })
            };
            if args.threads == 1 {
                let mut sim = Simulator::new(sink, sopts);
                let read = feed(&mut |ev| {
                    sim.event(ev).map_err(|e| Stop::Sim(Box::new(e)))?;
                    if stop_early(sim.sink()) {
                        return Err(Stop::OutputClosed);
                    }
                    Ok(())
                });
                let finished = match &read {
                    Ok(_) => Some(sim.finish()),
                    Err(_) => None,
                };
                (read, finished)
            } else {
                let (read, finished) = Pipeline::run(sink, sopts, |front| {
                    feed(&mut |ev| front.event(ev).map_err(|_| Stop::Engine))
                });
                (read, Some(finished))
            }
        }
        Opened::Binary(file) => {
            // The reference simulation reads every block (a window is cut
            // out afterwards); the parallel replay (`replay_binary`) reads
            // only what a window needs.
            if args.threads == 1 {
                let mut sim = Simulator::new(sink, sopts);
                let read = feed_binary(&file, args, |rec| {
                    match rec {
                        Decoded::Text(ev) => sim.event(&ev),
                        Decoded::Handles(h) => sim.event_handles(&h.event),
                    }
                    .map_err(|e| Stop::Sim(Box::new(e)))?;
                    if stop_early(sim.sink()) {
                        return Err(Stop::OutputClosed);
                    }
                    Ok(())
                });
                let finished = match &read {
                    Ok(_) => Some(sim.finish()),
                    Err(_) => None,
                };
                (read, finished)
            } else {
                let (read, finished) = Pipeline::run(sink, sopts, |front| {
                    feed_binary(&file, args, |rec| {
                        match rec {
                            Decoded::Text(ev) => front.event(&ev),
                            Decoded::Handles(h) => front.event_handles(&h.event),
                        }
                        .map_err(|_| Stop::Engine)
                    })
                });
                (read, Some(finished))
            }
        }
    };
    let (read, finished) = match read {
        // The engine's error (or the resolver's) comes out of `finished`.
        Err(Failure::Stop(Stop::Engine)) => (Ok(ReadStats::default()), finished),
        other => (other, finished),
    };
    let stats = match read {
        Ok(stats) => stats,
        Err(Failure::Stop(Stop::OutputClosed)) => {
            return Err(anyhow!(std::io::Error::from(
                std::io::ErrorKind::BrokenPipe
            )))
        }
        Err(Failure::Stop(Stop::Sim(e))) => return Err(sim_error(&name, args, binary, *e)),
        Err(Failure::Stop(Stop::Engine)) => unreachable_stop(),
        Err(Failure::Syntax {
            line,
            error,
            contents,
        }) => {
            // An engine error earlier in the trace wins over this one.
            if let Some(Err(e)) = finished {
                if e.line != 0 && e.line < line {
                    return Err(sim_error(&name, args, binary, e));
                }
            }
            return Err(anyhow!("{name}:{line}: {error}\n  | {contents}"));
        }
        Err(Failure::Io(e)) => return Err(anyhow!(e).context(format!("reading {name}"))),
        Err(Failure::Format(e)) => return Err(anyhow!("{name}: {e}")),
        Err(Failure::Rastro(e)) => return Err(anyhow!("{name}: {e}")),
    };
    let (model, sink, mut warnings) = match finished {
        Some(Ok(f)) => f,
        Some(Err(e)) => return Err(sim_error(&name, args, binary, e)),
        None => unreachable_stop(),
    };
    if stop_early(&sink) {
        return Err(anyhow!(std::io::Error::from(
            std::io::ErrorKind::BrokenPipe
        )));
    }
    warnings.extend(stats.warnings.iter().cloned());
    for w in &warnings {
        eprintln!("trama: warning: {name}: {w}");
    }
    Ok(Simulated {
        model,
        sink,
        warnings,
        stats,
        binary,
        format,
    })
}

fn unreachable_stop() -> ! {
    panic!("internal error: simulation stopped without an error")
}

fn sim_error(name: &str, args: &ReadArgs, binary: bool, mut e: SimError) -> anyhow::Error {
    if e.line == 0 {
        return anyhow!("{name}: at the end of the trace: {}", e.kind);
    }
    if binary {
        let what = if e.contents.is_empty() {
            String::new()
        } else {
            format!("\n  | {}", e.contents)
        };
        return anyhow!(
            "{name}: event from line {} of the original text: {}{what}",
            e.line,
            e.kind
        );
    }
    if e.contents.is_empty() {
        // Errors found by the engine carry no text: read the line again
        // (only possible for files, not for standard input).
        e.contents = line_of(args, e.line).unwrap_or_default();
    }
    if e.contents.is_empty() {
        anyhow!("{name}:{}: {}", e.line, e.kind)
    } else {
        anyhow!("{name}:{}: {}\n  | {}", e.line, e.kind, e.contents)
    }
}

/// The text of line `n` (1-based) of the input, when it is a file.
fn line_of(args: &ReadArgs, n: u64) -> Option<String> {
    use std::io::BufRead;
    let source = Source::from_arg(args.file.as_deref());
    if matches!(source, Source::Stdin) {
        return None;
    }
    let mut input = Input::open(&source).ok()?;
    let mut buf = Vec::new();
    for _ in 0..n {
        buf.clear();
        if input.read_until(b'\n', &mut buf).ok()? == 0 {
            return None;
        }
    }
    let text = String::from_utf8_lossy(&buf);
    Some(text.trim_end_matches(['\n', '\r']).trim().to_string())
}

pub fn dump(
    args: &ReadArgs,
    s: &DumpSettings,
    out: &mut (dyn Write + Send),
) -> anyhow::Result<ExitCode> {
    let mut opts = DumpOptions::default();
    opts.start = s.start;
    opts.end = s.end;
    opts.precision = s.precision;
    opts.user_defined = s.user_defined;
    opts.header = s.header;
    opts.threads = args.threads;
    opts.legacy_event_header = args.strip_quotes;
    let keep_extras = s.user_defined;
    let window = (s.start.is_some() || s.end.is_some()).then(|| {
        (
            s.start.unwrap_or(f64::NEG_INFINITY),
            s.end.unwrap_or(f64::INFINITY),
        )
    });
    if s.quiet {
        count(args)?;
        return Ok(ExitCode::SUCCESS);
    }
    if s.stream {
        let sink = StreamDump::new(out, &opts);
        let done = simulate(args, sink, keep_extras, |d| d.failed())?;
        done.sink.finish().context("writing the dump")?;
        return Ok(ExitCode::SUCCESS);
    }
    let t0 = std::time::Instant::now();
    let trace = load_trace(args, keep_extras, window)?;
    let t1 = std::time::Instant::now();
    dump_trace(&trace, &opts, out).context("writing the dump")?;
    if std::env::var_os("TRAMA_TIMINGS").is_some() {
        eprintln!(
            "trama: timings: read+simulate {:.3} s, format+write {:.3} s, {} entities",
            (t1 - t0).as_secs_f64(),
            t1.elapsed().as_secs_f64(),
            trace.entity_count()
        );
    }
    // Freeing millions of columns takes time and changes nothing.
    std::mem::forget(trace);
    Ok(ExitCode::SUCCESS)
}

/// Reads and simulates the whole input into the columnar store (with a
/// window, a binary trace reads only what the window needs).
pub fn load_trace(
    args: &ReadArgs,
    keep_extras: bool,
    window: Option<(f64, f64)>,
) -> anyhow::Result<trama_sim::Trace> {
    if let Some(trace) = replay_binary(args, keep_extras, window)? {
        return Ok(trace);
    }
    Ok(if args.threads == 1 {
        let done = simulate(args, TraceBuilder::default(), keep_extras, |_| false)?;
        done.sink.into_trace(done.model, done.warnings)
    } else {
        // Columns are filled on a thread of their own.
        let done = simulate(args, ParallelTraceBuilder::new(), keep_extras, |_| false)?;
        done.sink.into_trace(done.model, done.warnings)
    })
}

/// A binary trace the parallel replay can simulate (an interned `.ptb`
/// file, options it covers), opened; `None` for the reference path.
fn replayable(args: &ReadArgs) -> anyhow::Result<Option<PtbFile>> {
    if args.no_imbrication || args.stop_at.is_some() {
        return Ok(None);
    }
    let source = Source::from_arg(args.file.as_deref());
    let Source::Path(path) = &source else {
        return Ok(None);
    };
    let mut prefix = [0u8; 8];
    let n = std::fs::File::open(path)
        .and_then(|mut f| read_prefix(&mut f, &mut prefix))
        .map_err(|e| anyhow!("cannot open {}: {e}", source.display_name()))?;
    if !trama_ptb::is_ptb(&prefix[..n]) {
        return Ok(None);
    }
    let name = source.display_name();
    let file = PtbFile::open(path)
        .map_err(|e| anyhow!("cannot open {name}: {e}"))?
        .map_err(|e| anyhow!("{name}: {e}"))?;
    Ok(file.interned().then_some(file))
}

fn replay_options(args: &ReadArgs, keep_extras: bool, window: Option<(f64, f64)>) -> ReplayOptions {
    let mut o = ReplayOptions::default();
    o.threads = args.threads;
    o.keep_extras = keep_extras;
    o.ignore_incomplete_links = args.ignore_incomplete_links;
    o.window = window;
    o
}

fn timings() -> bool {
    std::env::var_os("TRAMA_TIMINGS").is_some()
}

fn fallback_note(why: &str) {
    if timings() {
        eprintln!("trama: timings: reference simulation ({why})");
    }
}

fn print_warnings(args: &ReadArgs, warnings: &[String]) {
    let name = Source::from_arg(args.file.as_deref()).display_name();
    for w in warnings {
        eprintln!("trama: warning: {name}: {w}");
    }
}

/// The trace of a binary file by the parallel replay, when it applies.
fn replay_binary(
    args: &ReadArgs,
    keep_extras: bool,
    window: Option<(f64, f64)>,
) -> anyhow::Result<Option<trama_sim::Trace>> {
    let Some(file) = replayable(args)? else {
        return Ok(None);
    };
    let name = Source::from_arg(args.file.as_deref()).display_name();
    let (r, stats) = file
        .replay_trace(&replay_options(args, keep_extras, window))
        .map_err(|e| anyhow!("{name}: {e}"))?;
    match r {
        Replayed::Done(trace) => {
            if timings() {
                eprintln!(
                    "trama: timings: window read {} of {} blocks ({} segments replayed)",
                    stats.blocks_read, stats.blocks, stats.segments
                );
            }
            print_warnings(args, &trace.warnings);
            Ok(Some(trace))
        }
        Replayed::Fallback(why) => {
            fallback_note(&why);
            Ok(None)
        }
    }
}

/// Counts what a trace holds (`check`, `dump -q`).
fn count(args: &ReadArgs) -> anyhow::Result<Simulated<CountingSink>> {
    if let Some(file) = replayable(args)? {
        let name = Source::from_arg(args.file.as_deref()).display_name();
        let (r, _) = file
            .replay_counts(&replay_options(args, false, None))
            .map_err(|e| anyhow!("{name}: {e}"))?;
        match r {
            Replayed::Done(c) => {
                print_warnings(args, &c.warnings);
                return Ok(Simulated {
                    model: c.model,
                    sink: c.counts,
                    warnings: c.warnings,
                    stats: binary_stats(&file),
                    binary: true,
                    format: "binary (.ptb)",
                });
            }
            Replayed::Fallback(why) => fallback_note(&why),
        }
    }
    simulate(args, CountingSink::default(), false, |_| false)
}

pub fn check(args: &ReadArgs) -> anyhow::Result<ExitCode> {
    let done = count(args)?;
    let m = &done.model;
    let c = &done.sink;
    let mut types = [0usize; 5];
    for t in &m.types[1..] {
        types[match t.kind {
            TypeKind::Container => 0,
            TypeKind::State => 1,
            TypeKind::Event => 2,
            TypeKind::Variable => 3,
            TypeKind::Link => 4,
        }] += 1;
    }
    let root = m.container(trama_sim::ContainerId::ROOT);
    let name = Source::from_arg(args.file.as_deref()).display_name();
    let mut o = std::io::stdout().lock();
    writeln!(o, "{name}: valid Pajé trace")?;
    if done.binary {
        writeln!(
            o,
            "  input       {}, {} bytes, {} events, {} event definitions (from {} lines or records)",
            done.format,
            done.stats.bytes,
            done.stats.events,
            done.stats.definitions.len(),
            done.stats.lines,
        )?;
    } else {
        writeln!(
            o,
            "  input       {} lines, {} bytes, {} events, {} event definitions",
            done.stats.lines,
            done.stats.bytes,
            done.stats.events,
            done.stats.definitions.len()
        )?;
    }
    writeln!(
        o,
        "  types       {} ({} container, {} state, {} event, {} variable, {} link)",
        m.types.len() - 1,
        types[0],
        types[1],
        types[2],
        types[3],
        types[4]
    )?;
    writeln!(o, "  containers  {} (root included)", m.containers.len())?;
    writeln!(
        o,
        "  entities    {} ({} states, {} events, {} variable values, {} links)",
        c.states + c.events + c.variables + c.links,
        c.states,
        c.events,
        c.variables,
        c.links
    )?;
    let mut span = Vec::new();
    trama_num::write_general(&mut span, root.start);
    span.extend_from_slice(b" .. ");
    trama_num::write_general(&mut span, root.end);
    writeln!(o, "  time span   {}", String::from_utf8_lossy(&span))?;
    if !done.warnings.is_empty() {
        writeln!(o, "  warnings    {}", done.warnings.len())?;
    }
    Ok(ExitCode::SUCCESS)
}
