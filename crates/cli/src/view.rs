//! `trama view`: the interactive viewer in the browser.

use std::io::Write;
use std::net::IpAddr;
use std::process::ExitCode;

use clap::Args;
use std::sync::atomic::AtomicU64;
use std::sync::Arc;
use trama_open::ProgressUnit;

use anyhow::Context;
use trama_viewer::{start_loading, Input, Loading, ViewerOptions};

use crate::run::{open, warn, Bar};
use crate::ReadArgs;

/// Arguments of `trama view`.
#[derive(Args, Debug)]
pub struct ViewArgs {
    #[command(flatten)]
    pub read: ReadArgs,
    /// Port to listen on (default: the first free one from 8060).
    #[arg(long)]
    pub port: Option<u16>,
    /// Address to listen on. Anything but a loopback address lets other
    /// machines reach the trace (anyone who learns the URL's token).
    #[arg(long, default_value = "127.0.0.1")]
    pub address: IpAddr,
    /// Do not open a browser; only print the URL.
    #[arg(long)]
    pub no_open: bool,
    /// Hold the whole trace in memory, however large. By default a .ptb of more than 2 million
    /// events, or a text trace file larger than 64 MiB, is read by blocks: the server keeps a
    /// summary of the whole trace and reads from the .ptb only the blocks a window needs, so
    /// its memory does not grow with the trace.
    #[arg(long, conflicts_with = "blocks")]
    pub whole: bool,
    /// Read the trace by blocks however small (a text trace is converted to .ptb in the cache
    /// first).
    #[arg(long)]
    pub blocks: bool,
    /// Where text traces read by blocks are converted to .ptb, once per version of the input
    /// (default: $XDG_CACHE_HOME/trama, else ~/.cache/trama).
    #[arg(long, value_name = "DIR")]
    pub cache: Option<std::path::PathBuf>,
    /// The player (button "play", key p): seconds of execution per second of playback
    /// (default: the visible window in 30 s; 1e-3 plays a millisecond a second, slow motion).
    #[arg(long, value_name = "R", value_parser = positive)]
    pub rate: Option<f64>,
    /// The player: wall seconds per frame (default 0.1; 0.5 = 2 frames a second, 0.04 = 25).
    #[arg(long, value_name = "SEC", value_parser = positive)]
    pub play_speed: Option<f64>,
    /// The field of the links holding a message's size in bytes, for the effective rates of
    /// the traffic animation (default: guessed when one field is named like a size).
    #[arg(long, value_name = "NAME")]
    pub size_field: Option<String>,
    /// Play the trace forward as it is read, in memory that does not grow with it: only the
    /// player (play/pause, next, and last: the newest frame), frames of --rate × --play-speed
    /// seconds of the trace (default 1 × 0.1). For traces of any size, and for a merge as it
    /// is produced: `trama merge plan.toml -o - | trama view --stream -`.
    #[arg(long, conflicts_with_all = ["whole", "blocks"])]
    pub stream: bool,
    /// With --stream: keep reading the file as a tracer appends to it (until Ctrl-C). A file
    /// truncated or replaced meanwhile (a tracer started again) stops the stream, saying so.
    #[arg(long, requires = "stream")]
    pub follow: bool,
    #[command(flatten)]
    pub nodes: NodeViewArgs,
}

/// The node/arc view's flags, shared by `trama view` and `trama render node-view`.
#[derive(Args, Debug, Clone)]
pub struct NodeViewArgs {
    /// The node/arc view: the container type drawn as nodes (default: OpenTS's ranks, else the
    /// type of the containers holding states).
    #[arg(long, value_name = "TYPE")]
    pub node_level: Option<String>,
    /// The node/arc view: the arcs drawn. OpenTS's letters: e exported tasks, i imported
    /// tasks, a all task migrations, c ctrl messages, d data messages, m all messages,
    /// s all messages in bytes, r messages other than ctrl and data; or `all` (default), a
    /// link type's name, or TYPE=VALUE.
    #[arg(long, value_name = "ARCTYPE", value_parser = trama_analysis::ArcKind::parse)]
    pub arcs_type: Option<trama_analysis::ArcKind>,
    /// The node/arc view: the style of the status indicators inscribed in each node: 0, bars
    /// (one per task state, or per state value); 1, sectors (state shares: a pie).
    #[arg(long, value_name = "ID", default_value_t = 0, value_parser = clap::value_parser!(u8).range(0..=1))]
    pub sbars_style: u8,
}

impl NodeViewArgs {
    /// Sets the node/arc view's options of `opts`, with what `file` says of its run.
    pub fn apply(&self, opts: &mut ViewerOptions, file: Option<&std::path::Path>) {
        opts.node_level = self.node_level.clone();
        opts.arcs_type = self.arcs_type.clone();
        opts.sbars_style = self.sbars_style;
        opts.run_info = file.map(trama_open::kinds::run_info).unwrap_or_default();
    }
}

/// A file read as it grows: at its end, waits for more instead of ending;
/// except once when the file is shorter than the head its format is
/// sniffed from, so that what is there already is sniffed without waiting
/// for more (a reader past the head never sees an end: an XML or text
/// line cut by the writer is completed when it comes). A file truncated
/// (shorter than what was read, or no longer holding the last bytes read
/// where they were: truncated and written again) or replaced (its path
/// now names another file) while followed ends the reading with an error
/// that says so: what was played came from a trace that is gone.
struct Follow {
    file: std::fs::File,
    path: std::path::PathBuf,
    sniffed: bool,
    read: u64,
    /// The last bytes read (at most [`Follow::TAIL`]).
    tail: Vec<u8>,
}

impl Follow {
    /// Bytes kept to check, at the end of the file, that it still holds
    /// what was read.
    const TAIL: usize = 64;

    fn new(file: std::fs::File, path: std::path::PathBuf) -> Follow {
        Follow {
            file,
            path,
            sniffed: false,
            read: 0,
            tail: Vec::new(),
        }
    }

    /// Why the followed file cannot be read on, if it cannot.
    fn gone(&self) -> std::io::Result<Option<String>> {
        let here = self.file.metadata()?;
        let path = self.path.display();
        let truncated = |now: u64| {
            format!(
                "{path} was truncated while it was followed ({} bytes read, {now} there now): the trace played is gone; run trama view again to play the file from its start",
                self.read
            )
        };
        if here.len() < self.read {
            return Ok(Some(truncated(here.len())));
        }
        #[cfg(unix)]
        {
            use std::os::unix::fs::{FileExt, MetadataExt};
            let mut again = vec![0; self.tail.len()];
            let at = self.read - self.tail.len() as u64;
            if self.file.read_exact_at(&mut again, at).is_err() || again != self.tail {
                return Ok(Some(truncated(here.len())));
            }
            // A path that names nothing for now may be about to name the
            // next file: only another file there is a replacement.
            if let Ok(now) = std::fs::metadata(&self.path) {
                if (now.dev(), now.ino()) != (here.dev(), here.ino()) {
                    return Ok(Some(format!(
                        "{path} was replaced by another file while it was followed: run trama view again to play the new one"
                    )));
                }
            }
        }
        Ok(None)
    }
}

impl std::io::Read for Follow {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        loop {
            let n = self.file.read(buf)?;
            self.read += n as u64;
            if n > 0 || buf.is_empty() {
                let keep = n.min(Follow::TAIL);
                let drop = (self.tail.len() + keep).saturating_sub(Follow::TAIL);
                self.tail.drain(..drop);
                self.tail.extend_from_slice(&buf[n - keep..n]);
                return Ok(n);
            }
            if !self.sniffed && self.read < trama_open::HEAD as u64 {
                self.sniffed = true;
                return Ok(0);
            }
            std::thread::sleep(std::time::Duration::from_millis(200));
            // Whatever happened while waiting is seen before reading on.
            if let Some(why) = self.gone()? {
                return Err(std::io::Error::other(why));
            }
        }
    }
}

/// `trama view --stream`: the player of a trace read as it comes. The
/// page is served first; the input is opened and read on a thread of its
/// own (standard input may only come once someone reads it).
fn stream(a: &ViewArgs, opts: &ViewerOptions) -> anyhow::Result<ExitCode> {
    let mut s = trama_viewer::StreamOptions::default();
    s.dt = a.rate.unwrap_or(1.0) * a.play_speed.unwrap_or(0.1);
    s.size_field = a.size_field.clone();
    s.node_level = a.nodes.node_level.clone();
    let follow = match (a.follow, a.read.path()) {
        (true, Some(p)) => Some((
            std::fs::File::open(p).with_context(|| format!("cannot open {}", p.display()))?,
            p.to_path_buf(),
        )),
        (true, None) => anyhow::bail!("--follow needs a file (standard input is followed anyway)"),
        (false, _) => None,
    };
    let (running, sink) = trama_viewer::start_stream(opts, s)?;
    announce(a, &running)?;
    let mut lo = a.read.load_options(true, None);
    lo.key_filter = Some(trama_sim::KEY_FILTER_BYTES);
    if follow.is_some() || a.read.path().is_none() {
        // Lines still coming are read and simulated as they come, on one
        // thread: no chunk or batch waits to be filled.
        lo.live = true;
        lo.threads = 1;
    }
    let ender = sink.ender();
    let read = a.read.clone();
    std::thread::spawn(move || {
        let opened = match follow {
            Some((file, path)) => {
                let name = path.display().to_string();
                trama_open::open_reader(name, Follow::new(file, path)).map_err(anyhow::Error::from)
            }
            None => open(&read),
        };
        let mut opened = match opened {
            Ok(o) => o,
            Err(e) => {
                eprintln!("trama: {e:#}");
                return ender.fail(format!("{e:#}"));
            }
        };
        let name = opened.name().to_string();
        match opened.simulate_into(sink, &lo) {
            Ok(sim) => {
                warn(&name, &sim.warnings);
                sim.sink.end(&sim.model, Ok(()));
            }
            Err(e) => {
                eprintln!("trama: {e}");
                ender.fail(e.to_string());
            }
        }
    });
    running.wait();
    Ok(ExitCode::SUCCESS)
}

/// Prints the URL and opens a browser on it.
fn announce(a: &ViewArgs, running: &trama_viewer::Running) -> anyhow::Result<()> {
    let mut out = std::io::stdout();
    writeln!(out, "trama: viewing at {}", running.url)?;
    for other in &running.others {
        writeln!(out, "trama: from another machine: {other}")?;
    }
    writeln!(out, "trama: press Ctrl-C to stop")?;
    out.flush()?;
    if !a.no_open && !open_browser(&running.url) {
        eprintln!("trama: note: no display to open a browser on: open the URL above");
    }
    Ok(())
}

/// A positive number of seconds.
fn positive(s: &str) -> Result<f64, String> {
    match s.parse::<f64>() {
        Ok(x) if x > 0.0 && x.is_finite() => Ok(x),
        _ => Err(format!("{s:?} is not a positive number")),
    }
}

/// Beyond this many events, a .ptb is read by blocks.
const BLOCKS_FROM_EVENTS: u64 = 2_000_000;

/// Beyond this many bytes, a text trace file is converted and read by
/// blocks.
const BLOCKS_FROM_BYTES: u64 = 64 << 20;

/// How the trace will be read.
enum Mode {
    Whole,
    /// Converted to this .ptb of the cache first (unless it is there).
    Convert(std::path::PathBuf),
}

/// The regular file `a` names, when it may be read by blocks (no reading
/// option that changes the simulation, no `--whole`).
fn blockable(a: &ViewArgs) -> Option<std::path::PathBuf> {
    let r = &a.read;
    let changes_simulation = r.no_imbrication
        || r.stop_at.is_some()
        || r.sort_window.is_some()
        || r.sort
        || r.lenient
        || r.no_strict
        || r.strip_quotes;
    let path = r
        .file
        .as_deref()
        .filter(|f| *f != "-")
        .map(std::path::PathBuf::from)
        .filter(|p| std::fs::metadata(p).is_ok_and(|m| m.is_file()))?;
    if a.whole {
        return None;
    }
    if changes_simulation {
        if a.blocks {
            eprintln!("trama: note: reading the whole trace: the reading options given change the simulation, which blocks replay as written");
        }
        return None;
    }
    Some(path)
}

/// The `.ptb` at `path` to read by blocks, opened without reading it
/// (its index only), when it is one and `a` asks for blocks or it is
/// large; `None` otherwise (the one door opens it, and names its errors).
fn lazy_ptb(a: &ViewArgs, path: &std::path::Path) -> Option<trama_ptb::PtbFile> {
    use std::io::Read;
    let mut head = [0u8; 8];
    std::fs::File::open(path).ok()?.read_exact(&mut head).ok()?;
    if !trama_ptb::is_ptb(&head) {
        return None;
    }
    let f = ptb(path).ok()?;
    (f.interned() && (a.blocks || f.events() > BLOCKS_FROM_EVENTS)).then_some(f)
}

/// How `a` asks to read `opened` (not a `.ptb` read by blocks).
fn mode(a: &ViewArgs, opened: &trama_open::Opened) -> anyhow::Result<Mode> {
    let Some(path) = blockable(a) else {
        return Ok(Mode::Whole);
    };
    if opened.ptb().is_some() {
        return Ok(Mode::Whole);
    }
    let text = matches!(
        opened.format(),
        trama_open::Format::PajeText | trama_open::Format::UnknownText
    );
    let big = std::fs::metadata(&path).is_ok_and(|m| m.len() > BLOCKS_FROM_BYTES);
    if text && (a.blocks || big) {
        let dir = crate::cache::directory(a.cache.as_deref())?;
        std::fs::create_dir_all(&dir).with_context(|| {
            format!(
                "cannot make the cache directory {} (choose another with --cache DIR, or view the trace with --whole)",
                dir.display()
            )
        })?;
        return Ok(Mode::Convert(crate::cache::entry(&dir, &path)?));
    }
    Ok(Mode::Whole)
}

/// Opens the `.ptb` at `path` for reading by blocks.
fn ptb(path: &std::path::Path) -> Result<trama_ptb::PtbFile, String> {
    match trama_ptb::PtbFile::open_lazy(path) {
        Ok(Ok(f)) => Ok(f),
        Ok(Err(e)) => Err(format!("{}: {e}", path.display())),
        Err(e) => Err(format!("cannot read {}: {e}", path.display())),
    }
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

/// Ends the process on a trace that cannot be viewed, as every command
/// ends on a bad trace.
fn fail(e: &str) -> ! {
    eprintln!("trama: error: {e}");
    std::process::exit(1);
}

pub fn view(a: &ViewArgs) -> anyhow::Result<ExitCode> {
    if a.stream {
        return stream(a, &viewer_options(a));
    }
    // Serve at once; the trace is read meanwhile (the page shows how far).
    let show = !a.read.no_progress;
    let lazy = blockable(a).and_then(|p| lazy_ptb(a, &p).map(|f| (p, f)));
    if let Some((path, file)) = lazy {
        let summary = summary_path(a, &path);
        return serve(a, blocks(&path, file, summary, show));
    }
    let mut opened = open(&a.read)?;
    let mode = mode(a, &opened)?;
    let loading = opened.progress().map(|p| Loading {
        done: p.done,
        total: p.total,
        unit: match p.unit {
            ProgressUnit::Bytes => "bytes",
            _ => "events",
        },
    });
    let load_opts = a.read.load_options(true, None);
    let load: Box<dyn FnOnce() -> Result<Input, String> + Send + 'static> = match mode {
        Mode::Whole => {
            let bar = Bar::start(&opened, show);
            Box::new(move || {
                let trace = opened.load(&load_opts).map_err(|e| e.to_string());
                drop(bar);
                match &trace {
                    Ok(t) => warn(opened.name(), &t.warnings),
                    Err(e) => fail(e),
                }
                trace.map(Input::Whole)
            })
        }
        Mode::Convert(entry) => {
            let input = std::path::PathBuf::from(a.read.file.clone().unwrap_or_default());
            Box::new(move || {
                if ptb(&entry).is_err() {
                    // Only a file trama made there is replaced.
                    if let Ok(mut f) = std::fs::File::open(&entry) {
                        use std::io::Read;
                        let mut head = [0u8; 8];
                        if f.read_exact(&mut head).is_err() || !trama_ptb::is_ptb(&head) {
                            fail(&format!(
                                "{} is in the way of the cache's entry and is not a trace trama converted: move it, or choose another cache with --cache DIR",
                                entry.display()
                            ));
                        }
                    }
                    eprintln!(
                        "trama: converting {} to {} (once: read by blocks from then on)",
                        input.display(),
                        entry.display()
                    );
                    let opts = trama_convert::ConvertOptions::default();
                    let out = crate::convert::write(
                        opened,
                        std::slice::from_ref(&input),
                        &load_opts,
                        &entry,
                        opts,
                        show,
                        true,
                    )
                    .unwrap_or_else(|e| fail(&format!("{e:#}")));
                    out.commit().unwrap_or_else(|e| fail(&e.to_string()));
                }
                Ok(Input::Blocks {
                    file: ptb(&entry)?,
                    done: None,
                    summary: Some(entry.with_extension("view")),
                })
            })
        }
    };
    serve(a, (load, loading))
}

/// How the server gets its trace: the reading, and how far it is.
type Loader = (
    Box<dyn FnOnce() -> Result<Input, String> + Send>,
    Option<Loading>,
);

/// Where the summary of the trace at `path` is saved in the cache (`None`,
/// with a note, when there is no cache directory to write it in).
fn summary_path(a: &ViewArgs, path: &std::path::Path) -> Option<std::path::PathBuf> {
    let made = crate::cache::directory(a.cache.as_deref()).and_then(|dir| {
        std::fs::create_dir_all(&dir)
            .with_context(|| format!("cannot make the cache directory {}", dir.display()))?;
        crate::cache::entry(&dir, path)
    });
    match made {
        Ok(entry) => Some(entry.with_extension("view")),
        Err(e) => {
            eprintln!("trama: note: {e:#}: the trace's summary will be gathered again next time (--cache DIR chooses where to keep it)");
            None
        }
    }
}

/// The reading by blocks of `file` (at `path`), with a bar over its first
/// pass, saving its summary at `summary`.
fn blocks(
    path: &std::path::Path,
    file: trama_ptb::PtbFile,
    summary: Option<std::path::PathBuf>,
    show: bool,
) -> Loader {
    let total = file.blocks() as u64;
    let done = Arc::new(AtomicU64::new(0));
    let loading = Loading {
        done: done.clone(),
        total: Some(total),
        unit: "blocks",
    };
    let bar = Bar::blocks(path.display().to_string(), total, done.clone(), show);
    let load = move || {
        let _bar = bar;
        Ok(Input::Blocks {
            file,
            done: Some(done),
            summary,
        })
    };
    (Box::new(load), Some(loading))
}

/// Serves what `load` reads, as `a` asks, until Ctrl-C.
fn serve(a: &ViewArgs, (load, loading): Loader) -> anyhow::Result<ExitCode> {
    let running = start_loading(load, loading, &viewer_options(a))?;
    announce(a, &running)?;
    running.wait();
    Ok(ExitCode::SUCCESS)
}

/// The viewer's options from the flags.
fn viewer_options(a: &ViewArgs) -> ViewerOptions {
    let name = a
        .read
        .file
        .as_deref()
        .and_then(|p| std::path::Path::new(p).file_name())
        .map_or("standard input".into(), |n| {
            n.to_string_lossy().into_owned()
        });
    let mut opts = ViewerOptions::default();
    (opts.address, opts.port, opts.name) = (a.address, a.port, name);
    (opts.rate, opts.play_speed, opts.size_field) = (a.rate, a.play_speed, a.size_field.clone());
    a.nodes.apply(&mut opts, a.read.path());
    if !a.address.is_loopback() {
        eprintln!(
            "trama: warning: listening on {}: other machines can reach this trace (with the URL's token)",
            a.address
        );
    }
    opts
}
