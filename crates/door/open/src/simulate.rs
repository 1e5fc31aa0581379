//! Simulating any trace into a sink: on the caller's thread with one
//! thread, else with the engine on a thread of its own; and the faster
//! paths of a `.ptb` (parallel replay, window reads) when they apply.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};

use trama_sim::{
    ContainerId, CountingSink, Entity, LinkKeys, ListId, Model, ParallelTraceBuilder, Pipeline,
    SimError, SimOptions, Simulator, Sink, Trace, TraceBuilder,
};

use crate::formats::each_reader;
use crate::keys::{Again, Found, KeyWatch};
use crate::reader::{Failure, Item, ReadStats, Stop, TraceReader};
use crate::{Error, Format, LoadOptions, Opened};

/// A finished simulation.
#[non_exhaustive]
pub struct Simulated<S> {
    /// The types, containers and values.
    pub model: Model,
    /// The sink, with what it received.
    pub sink: S,
    /// Remarks about accepted but suspicious input, from the reader and
    /// the simulation.
    pub warnings: Vec<String>,
    /// What the input held.
    pub stats: ReadStats,
    /// Its format.
    pub format: Format,
}

/// The simulation's options for `opts`, reading variable values by
/// `precision` (the reader's).
pub(crate) fn sim_options(opts: &LoadOptions, precision: trama_num::Precision) -> SimOptions {
    let mut o = SimOptions::default();
    o.precision = precision;
    o.stop_at = opts.stop_at;
    o.ignore_incomplete_links = opts.ignore_incomplete_links;
    o.no_imbrication = opts.no_imbrication;
    o.keep_extras = opts.keep_extras;
    o.warn_open_states = opts.warn_open_states;
    o.lenient = opts.lenient;
    if let Some(bytes) = opts.key_filter {
        o.link_keys = LinkKeys::Filter(bytes);
    }
    o
}

/// A sink that remembers it stopped (its output closed or failed) and
/// why, so that the simulation's end (incomplete links of a trace cut
/// short) is not taken for an error of the input; and that keeps the link
/// keys the filter suspects, to confirm them.
struct Watched<S> {
    sink: S,
    stopped: Arc<AtomicBool>,
    /// The error that stopped the sink ([`Sink::stop_error`]).
    reason: Arc<Mutex<Option<std::io::Error>>>,
    keys: Option<Arc<Mutex<KeyWatch>>>,
    /// Confirming the suspects found a reuse: stop.
    halted: Arc<AtomicBool>,
}

fn lock(keys: &Mutex<KeyWatch>) -> MutexGuard<'_, KeyWatch> {
    keys.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
}

impl<S: Sink> Sink for Watched<S> {
    #[inline]
    fn entity(&mut self, model: &Model, list: ListId, idx: u32, entity: &Entity<'_>) {
        self.sink.entity(model, list, idx, entity)
    }

    #[inline]
    fn state_begins(
        &mut self,
        model: &Model,
        list: ListId,
        idx: u32,
        start: f64,
        value: trama_sim::ValueId,
        level: u32,
    ) {
        self.sink
            .state_begins(model, list, idx, start, value, level)
    }

    fn container(&mut self, model: &Model, id: ContainerId) {
        self.sink.container(model, id)
    }

    fn list(&mut self, model: &Model, list: ListId) {
        self.sink.list(model, list)
    }

    fn stopped(&self) -> bool {
        let stopped = self.sink.stopped();
        if stopped && !self.stopped.swap(true, Ordering::Relaxed) {
            *self.reason.lock().unwrap_or_else(|p| p.into_inner()) = self.sink.stop_error();
        }
        stopped || self.halted.load(Ordering::Relaxed)
    }

    fn keeps_strings(&self) -> bool {
        self.sink.keeps_strings()
    }

    fn next_tick(&self) -> f64 {
        self.sink.next_tick()
    }

    fn tick(
        &mut self,
        model: &Model,
        time: f64,
        open: &mut dyn Iterator<Item = trama_sim::OpenEntity<'_>>,
    ) {
        self.sink.tick(model, time, open)
    }

    fn possibly_reused_key(&mut self, _: &Model, list: ListId, key: &[u8], line: u64) -> bool {
        self.keys
            .as_ref()
            .is_some_and(|keys| lock(keys).suspect(list, key, line))
    }
}

/// The error of a simulation whose sink stopped: a closed output, or the
/// write error that stopped it.
fn stop_error(reason: &Mutex<Option<std::io::Error>>) -> Error {
    match reason.lock().unwrap_or_else(|p| p.into_inner()).take() {
        Some(e) if e.kind() != std::io::ErrorKind::BrokenPipe => Error::Output(e),
        _ => Error::output_closed(),
    }
}

fn timings() -> bool {
    std::env::var_os("TRAMA_TIMINGS").is_some()
}

impl Opened {
    /// Reads and simulates the whole trace into `sink` (every block of a
    /// `.ptb`: the window of `opts` is not applied). Stops early when the
    /// sink says it is [stopped](Sink::stopped): with
    /// [`Error::is_output_closed`] for a closed output, with
    /// [`Error::Output`] for the write error that stopped it
    /// ([`Sink::stop_error`]).
    pub fn simulate_into<S: Sink + Send>(
        &mut self,
        sink: S,
        opts: &LoadOptions,
    ) -> Result<Simulated<S>, Error> {
        self.check_sort_window(opts)?;
        let sopts = sim_options(opts, self.precision());
        // The simulation takes entity events by handles, unless they go
        // through the sort window, which copies words.
        let mut handled = opts.clone();
        handled.handles = !opts.reorders();
        let opts = &handled;
        let stopped = Arc::new(AtomicBool::new(false));
        let reason: Arc<Mutex<Option<std::io::Error>>> = Arc::default();
        let halted = Arc::new(AtomicBool::new(false));
        let keys = opts.key_filter.map(|bytes| {
            let again = Again::of(self, opts);
            Arc::new(Mutex::new(KeyWatch::new(again, bytes, halted.clone())))
        });
        let sink = Watched {
            sink,
            stopped: stopped.clone(),
            reason: reason.clone(),
            keys: keys.clone(),
            halted,
        };
        let reader = &mut self.reader;
        let (read, finished) = if opts.threads == 1 {
            let mut sim = Simulator::new(sink, sopts);
            let read = each_reader!(reader, r => r.read_sorted(opts, |item| {
                match item {
                    Item::Chunk { .. } => return Ok(()),
                    Item::Event(ev) => sim.event(&ev),
                    Item::Handles(h) => sim.event_handles(h),
                }
                .map_err(|e| Stop::Sim(Box::new(e)))?;
                if sim.sink().stopped() {
                    return Err(Stop::OutputClosed);
                }
                Ok(())
            }));
            let finished = read.is_ok().then(|| sim.finish());
            (read, finished)
        } else {
            let (read, finished) = Pipeline::run(sink, sopts, |front| {
                each_reader!(reader, r => r.read_sorted(opts, |item| {
                    match item {
                        Item::Chunk { .. } => Ok(()),
                        Item::Event(ev) => front.event(&ev),
                        Item::Handles(h) => front.event_handles(h),
                    }
                    .map_err(|_| Stop::Closed)
                }))
            });
            (read, Some(finished))
        };
        if let Some(keys) = &keys {
            // A reuse confirmed while simulating, or now, among the keys
            // the filter suspected, is the first error of the trace.
            let found = lock(keys).take_found();
            if let Some(found) = found {
                return Err(self.found(found));
            }
            if !stopped.load(Ordering::Relaxed) {
                let mut keys = lock(keys);
                keys.confirm();
                if let Some(line) = keys.timings().filter(|_| timings()) {
                    eprintln!("trama: timings: {line}");
                }
                if let Some(found) = keys.take_found() {
                    drop(keys);
                    return Err(self.found(found));
                }
            }
        }
        if stopped.load(Ordering::Relaxed) {
            return Err(stop_error(&reason));
        }
        let read = match read {
            // The engine's error (or the resolver's) comes out of `finished`.
            Err(Failure::Stop(Stop::Closed)) => Ok(ReadStats::default()),
            other => other,
        };
        let stats = match read {
            Ok(stats) => stats,
            Err(Failure::Syntax {
                line,
                error,
                contents,
            }) => {
                // An engine error earlier in the trace wins over this one.
                if let Some(Err(e)) = finished {
                    if e.line != 0 && e.line < line {
                        return Err(self.sim_error(e));
                    }
                }
                return Err(Error::Syntax {
                    name: self.name.clone(),
                    line,
                    error,
                    contents,
                });
            }
            Err(Failure::Stop(Stop::Sim(e))) => {
                // The sort window's error: an engine error earlier in the
                // trace wins over it too.
                if let Some(Err(first)) = finished {
                    if first.line != 0 && first.line < e.line {
                        return Err(self.sim_error(first));
                    }
                }
                return Err(self.sim_error(*e));
            }
            Err(f) => return Err(self.failure(f)),
        };
        let (model, sink, mut warnings) = match finished {
            Some(Ok(f)) => f,
            Some(Err(e)) => return Err(self.sim_error(e)),
            None => unreachable!("a simulation read to its end finishes"),
        };
        if sink.stopped() {
            return Err(stop_error(&reason));
        }
        warnings.extend(stats.warnings.iter().cloned());
        Ok(Simulated {
            model,
            sink: sink.sink,
            warnings,
            stats,
            format: self.format,
        })
    }

    /// Reads and simulates the trace into the columnar store. With a
    /// window, a `.ptb` reads only the blocks it needs; other formats are
    /// read whole (the window is for what uses the trace).
    pub fn load(&mut self, opts: &LoadOptions) -> Result<Trace, Error> {
        if let Some(trace) = self.replay_trace(opts)? {
            return Ok(trace);
        }
        Ok(if opts.threads == 1 {
            let done = self.simulate_into(TraceBuilder::default(), opts)?;
            done.sink.into_trace(done.model, done.warnings)
        } else {
            // Columns are filled on a thread of their own.
            let done = self.simulate_into(ParallelTraceBuilder::new(), opts)?;
            done.sink.into_trace(done.model, done.warnings)
        })
    }

    /// Counts what the trace holds (`trama check`).
    pub fn count(&mut self, opts: &LoadOptions) -> Result<Simulated<CountingSink>, Error> {
        if let Some(file) = self.replayable(opts) {
            let (r, _) = file
                .replay_counts(&replay_options(opts))
                .map_err(|e| self.format_error(e))?;
            match r {
                trama_ptb::Replayed::Done(c) => {
                    return Ok(Simulated {
                        model: c.model,
                        sink: c.counts,
                        warnings: c.warnings,
                        stats: crate::formats::ptb::stats(file),
                        format: self.format,
                    });
                }
                trama_ptb::Replayed::Fallback(why) => fallback_note(&why),
            }
        }
        self.simulate_into(CountingSink::default(), opts)
    }

    /// The `.ptb` file the parallel replay can simulate with `opts` (an
    /// interned file; options it covers).
    fn replayable(&self, opts: &LoadOptions) -> Option<&trama_ptb::PtbFile> {
        if opts.no_imbrication || opts.stop_at.is_some() || opts.reorders() {
            return None;
        }
        self.ptb().filter(|f| f.interned())
    }

    fn replay_trace(&self, opts: &LoadOptions) -> Result<Option<Trace>, Error> {
        let Some(file) = self.replayable(opts) else {
            return Ok(None);
        };
        let (r, stats) = file
            .replay_trace(&replay_options(opts))
            .map_err(|e| self.format_error(e))?;
        match r {
            trama_ptb::Replayed::Done(trace) => {
                if timings() {
                    eprintln!(
                        "trama: timings: window read {} of {} blocks ({} segments replayed)",
                        stats.blocks_read, stats.blocks, stats.segments
                    );
                }
                Ok(Some(trace))
            }
            trama_ptb::Replayed::Fallback(why) => {
                fallback_note(&why);
                Ok(None)
            }
        }
    }

    fn format_error(&self, e: trama_ptb::FormatError) -> Error {
        Error::Format {
            name: self.name.clone(),
            message: e.to_string(),
        }
    }

    /// The error of a reading that failed, named after the input.
    pub fn failure(&self, f: Failure) -> Error {
        let name = self.name.clone();
        match f {
            Failure::Stop(Stop::Sim(e)) => self.sim_error(*e),
            Failure::Stop(Stop::OutputClosed) => Error::output_closed(),
            Failure::Stop(Stop::Closed) => {
                unreachable!("a closed pipeline's error comes with its result")
            }
            Failure::Stop(Stop::Other(e)) => Error::Producer {
                name,
                message: e.to_string(),
            },
            Failure::Syntax {
                line,
                error,
                contents,
            } => Error::Syntax {
                name,
                line,
                error,
                contents,
            },
            // A source's error already names the file and the line.
            Failure::Io(source) if source.to_string().starts_with(&format!("{name}:")) => {
                Error::Located {
                    message: source.to_string(),
                    name,
                }
            }
            Failure::Io(source) => Error::Io { name, source },
            Failure::Format(message) => Error::Format { name, message },
        }
    }

    fn found(&self, found: Found) -> Error {
        match found {
            Found::Reuse(e) => self.sim_error(e),
            Found::Input(e) => e,
        }
    }

    fn sim_error(&self, mut e: SimError) -> Error {
        let binary = self.binary();
        if e.line != 0 && !binary && e.contents.is_empty() {
            if let crate::formats::Reader::Otf2(r) = &self.reader {
                // An archive's events are mapped again up to that line.
                e.contents = r.words_at(e.line).unwrap_or_default();
            } else if let Some(f) = self.again.as_ref().and_then(|f| f.try_clone().ok()) {
                // Errors found by the engine carry no text: read the line
                // again (only possible for files, not for streams).
                e.contents = crate::lines::line_of(f, e.line).unwrap_or_default();
            }
        }
        Error::Sim {
            name: self.name.clone(),
            line: e.line,
            binary,
            kind: e.kind,
            contents: e.contents,
        }
    }
}

fn replay_options(opts: &LoadOptions) -> trama_ptb::ReplayOptions {
    let mut o = trama_ptb::ReplayOptions::default();
    o.threads = opts.threads;
    o.keep_extras = opts.keep_extras;
    o.ignore_incomplete_links = opts.ignore_incomplete_links;
    o.window = opts.window;
    o
}

fn fallback_note(why: &str) {
    if timings() {
        eprintln!("trama: timings: reference simulation ({why})");
    }
}
