//! `trama view`: the interactive viewer in the browser.

use std::net::IpAddr;
use std::process::ExitCode;

use clap::Args;
use trama_open::{Needs, Pending};
use trama_viewer::{Compare, ViewerOptions};

use crate::run::Bar;
use crate::ReadArgs;

/// Arguments of `trama view`.
#[derive(Args, Debug)]
pub struct ViewArgs {
    #[command(flatten)]
    pub read: ReadArgs,
    /// A second run to compare with the first (A): both timelines, coupled, and their difference.
    #[arg(value_name = "B", conflicts_with = "stream")]
    pub other: Option<std::ffi::OsString>,
    /// With B: the state value marking an iteration (as `trama diff`, `auto` too), to align the runs at one.
    #[arg(long, value_name = "VALUE", requires = "other")]
    pub iteration: Option<String>,
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
    /// Sets the node/arc view's options of `opts`.
    pub fn apply(&self, opts: &mut ViewerOptions) {
        opts.node_level = self.node_level.clone();
        opts.arcs_type = self.arcs_type.clone();
        opts.sbars_style = self.sbars_style;
    }
}

/// `trama view --stream`: the player of a trace read as it comes.
fn stream(a: &ViewArgs, opts: &ViewerOptions) -> anyhow::Result<ExitCode> {
    let mut s = trama_viewer::StreamOptions::default();
    s.dt = a.rate.unwrap_or(1.0) * a.play_speed.unwrap_or(0.1);
    s.size_field = a.size_field.clone();
    s.node_level = a.nodes.node_level.clone();
    let input = match (a.follow, a.read.path()) {
        (true, Some(p)) => Pending::follow(p)?,
        (true, None) => anyhow::bail!("--follow needs a file (standard input is followed anyway)"),
        (false, _) => Pending::new(a.read.source()),
    };
    let mut lo = a.read.load_options(true, None);
    lo.key_filter = Some(trama_open::KEY_FILTER_BYTES);
    if a.follow || a.read.path().is_none() {
        // Lines still coming are read and simulated as they come, on one
        // thread: no chunk or batch waits to be filled.
        lo.live = true;
        lo.threads = 1;
    }
    let running = trama_viewer::stream_reading(input, lo, opts, s)?;
    trama_viewer::announce(&running, !a.no_open)?;
    running.wait();
    Ok(ExitCode::SUCCESS)
}

/// A positive number.
pub fn positive(s: &str) -> Result<f64, String> {
    match s.parse::<f64>() {
        Ok(x) if x > 0.0 && x.is_finite() => Ok(x),
        _ => Err(format!("{s:?} is not a positive number")),
    }
}

pub fn view(a: &ViewArgs) -> anyhow::Result<ExitCode> {
    let mut opts = viewer_options(a);
    if a.stream {
        return stream(a, &opts);
    }
    // Serve at once; the trace is read meanwhile (the page shows how far).
    let mut needs = Needs::default();
    (needs.whole, needs.blocks, needs.cache) = (a.whole, a.blocks, a.cache.clone());
    let load = a.read.load_options(true, None);
    opts.compare = Compare::of(a.other.as_deref(), &needs, &a.iteration);
    let (reading, notes) = trama_open::open_reading(&a.read.source(), &load, &needs)?;
    for n in notes {
        eprintln!("trama: note: {n}");
    }
    let name = a.read.source().display_name();
    let bar = Bar::over(reading.progress(), name, !a.read.no_progress);
    let served = trama_viewer::start_reading(reading, load, &opts, Box::new(bar))?;
    trama_viewer::announce(&served.running, !a.no_open)?;
    served.wait().map_err(anyhow::Error::msg)?;
    Ok(ExitCode::SUCCESS)
}

/// The viewer's options from the flags.
fn viewer_options(a: &ViewArgs) -> ViewerOptions {
    let name = trama_viewer::run_name(a.read.file.as_deref());
    let mut opts = ViewerOptions::default();
    (opts.address, opts.port, opts.name) = (a.address, a.port, name);
    (opts.rate, opts.play_speed, opts.size_field) = (a.rate, a.play_speed, a.size_field.clone());
    a.nodes.apply(&mut opts);
    if !a.address.is_loopback() {
        eprintln!(
            "trama: warning: listening on {}: other machines can reach this trace (with the URL's token)",
            a.address
        );
    }
    opts
}
