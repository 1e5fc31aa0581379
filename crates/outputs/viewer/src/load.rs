//! Serving a trace as `trama-open` decided to read it
//! ([`trama_open::Reading`]): held whole, read by blocks, or converted
//! once into the cache and read by blocks; and a stream's player fed from
//! an input opened now or when the reading starts
//! ([`trama_open::Pending`]). What reading says (warnings, a conversion
//! under way) goes to standard error, as `trama: warning: NAME: …`.

use std::sync::{Arc, OnceLock};
use std::time::Duration;

use trama_open::{ByBlocks, LoadOptions, Pending, ProgressUnit, PtbWindows, Reading, Windowed};

use crate::options::ViewerOptions;
use crate::server::{start_loading, start_stream, Error, Running};
use crate::state::{Input, Loading};
use crate::stream::StreamOptions;

/// A viewer serving a trace read as [`start_reading`] was told: serves
/// until Ctrl-C, unless reading the trace fails.
pub struct Served {
    /// The viewer.
    pub running: Running,
    failed: Arc<OnceLock<String>>,
}

impl Served {
    /// Serves until Ctrl-C; the error of reading the trace, which ends it.
    pub fn wait(self) -> Result<(), String> {
        loop {
            if let Some(e) = self.failed.get() {
                let e = e.clone();
                self.running.stop();
                return Err(e);
            }
            if self.running.finished() {
                self.running.wait();
                return Ok(());
            }
            std::thread::sleep(Duration::from_millis(50));
        }
    }
}

/// Serves at once the trace `reading` reads (with `load`), read on a
/// thread of its own meanwhile (see [`start_loading`]); `until_loaded` is
/// kept until it is read (a progress bar). A failure to read it ends the
/// serving ([`Served::wait`]).
pub fn start_reading(
    reading: Reading,
    load: LoadOptions,
    opts: &ViewerOptions,
    until_loaded: Box<dyn Send>,
) -> Result<Served, Error> {
    let mut opts = opts.clone();
    if let Reading::Whole(o) | Reading::Convert { opened: o, .. } = &reading {
        opts.run_info = o.run_info().to_vec();
    }
    let failed: Arc<OnceLock<String>> = Arc::default();
    let (read_a, loading_a) = reader(reading, &load, until_loaded, &failed);
    let running = match opts.compare.clone() {
        None => start_loading(read_a, loading_a, &opts)?,
        Some(c) => {
            // B, read as A is (its notes said here, its reading's
            // failure ending the serving as A's).
            let (b, notes) = trama_open::open_reading(&c.other, &load, &c.needs)
                .map_err(|e| Error::Read(trama_open::chain(&e)))?;
            for n in notes {
                eprintln!("trama: note: {n}");
            }
            let name_b = match &c.other {
                trama_open::Source::Path(p) => crate::options::run_name(Some(p.as_os_str())),
                trama_open::Source::Stdin => crate::options::run_name(None),
            };
            let read_b = reader(b, &load, Box::new(()), &failed);
            let names = [opts.name.clone(), name_b];
            crate::server::start_compare((read_a, loading_a), read_b, names, c.iteration, &opts)?
        }
    };
    Ok(Served { running, failed })
}

/// What reads the trace `reading` reads (with `load`, keeping
/// `until_loaded` until then, its failure set in `failed`), and how far
/// it is.
fn reader(
    reading: Reading,
    load: &LoadOptions,
    until_loaded: Box<dyn Send>,
    failed: &Arc<OnceLock<String>>,
) -> (
    impl FnOnce() -> Result<Input, String> + Send + 'static,
    Option<Loading>,
) {
    let loading = reading.progress().map(|p| Loading {
        done: p.done,
        total: p.total,
        unit: match p.unit {
            ProgressUnit::Bytes => "bytes",
            ProgressUnit::Blocks => "blocks",
            _ => "events",
        },
    });
    let (fail, load) = (failed.clone(), load.clone());
    let read = move || {
        let input = read(reading, &load);
        drop(until_loaded);
        input.inspect_err(|e| {
            let _ = fail.set(e.clone());
        })
    };
    (read, loading)
}

/// Prints the warnings of reading `name`.
fn warn(name: &str, warnings: &[String]) {
    for w in warnings {
        eprintln!("trama: warning: {name}: {w}");
    }
}

/// Reads what `reading` says, as the server takes it.
fn read(reading: Reading, load: &LoadOptions) -> Result<Input, String> {
    match reading {
        Reading::Whole(mut opened) => {
            let trace = opened.load(load).map_err(|e| e.to_string())?;
            warn(opened.name(), &trace.warnings);
            Ok(Input::Whole(trace))
        }
        Reading::Blocks(b) => Ok(Input::Blocks(b)),
        Reading::Convert { opened, entry } => {
            let chain = |e: &dyn std::error::Error| trama_open::chain(e);
            let trace = match trama_open::cached(&entry).map_err(|e| e.to_string())? {
                Some(w) => w,
                None => {
                    let name = opened.name().to_string();
                    eprintln!(
                        "trama: converting {name} to {} (once: read by blocks from then on)",
                        entry.display()
                    );
                    let input = std::path::PathBuf::from(&name);
                    let opts = trama_convert::ConvertOptions::default();
                    let (out, warnings) =
                        trama_convert::convert_file(opened, load, opts, &entry, &[&input], true)
                            .map_err(|e| chain(&e))?;
                    warn(&name, &warnings);
                    out.commit().map_err(|e| chain(&e))?;
                    PtbWindows::open(&entry).map_err(|e| e.to_string())?
                }
            };
            let total = trace.blocks()?.len() as u64;
            let summary = Some(entry.with_extension("view"));
            Ok(Input::Blocks(ByBlocks::new(
                Box::new(trace),
                total,
                summary,
            )))
        }
    }
}

/// Serves a stream's player (see [`crate::start_stream`]) of `input`,
/// simulated with `load` on a thread of its own once the page is served
/// (standard input may only come once someone reads it). A failure to
/// open or read it is said on standard error and in the page.
pub fn stream_reading(
    input: Pending,
    load: LoadOptions,
    opts: &ViewerOptions,
    stream: StreamOptions,
) -> Result<Running, Error> {
    let mut opts = opts.clone();
    opts.run_info = input.run_info();
    let (running, sink) = start_stream(&opts, stream)?;
    let ender = sink.ender();
    std::thread::spawn(move || {
        let mut opened = match input.open() {
            Ok(o) => o,
            Err(e) => {
                let e = trama_open::chain(&e);
                eprintln!("trama: {e}");
                return ender.fail(e);
            }
        };
        match opened.simulate_into(sink, &load) {
            Ok(sim) => {
                warn(opened.name(), &sim.warnings);
                sim.sink.end(&sim.model, Ok(()));
            }
            Err(e) => {
                eprintln!("trama: {e}");
                ender.fail(e.to_string());
            }
        }
    });
    Ok(running)
}

/// Prints on standard output where `running` serves (and how to stop it),
/// and opens a browser on it when `open` and there is a display (else a
/// note on standard error).
pub fn announce(running: &Running, open: bool) -> std::io::Result<()> {
    use std::io::Write;
    let mut out = std::io::stdout();
    writeln!(out, "trama: viewing at {}", running.url)?;
    for other in &running.others {
        writeln!(out, "trama: from another machine: {other}")?;
    }
    writeln!(out, "trama: press Ctrl-C to stop")?;
    out.flush()?;
    if open && !open_browser(&running.url) {
        eprintln!("trama: note: no display to open a browser on: open the URL above");
    }
    Ok(())
}

/// Opens the default browser on `url` when there is a display; whether it
/// was tried.
fn open_browser(url: &str) -> bool {
    let display = ["DISPLAY", "WAYLAND_DISPLAY"]
        .iter()
        .any(|v| std::env::var_os(v).is_some_and(|x| !x.is_empty()));
    let opener = if cfg!(target_os = "macos") {
        "open"
    } else if display {
        "xdg-open"
    } else {
        return false;
    };
    std::process::Command::new(opener)
        .arg(url)
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .is_ok()
}
