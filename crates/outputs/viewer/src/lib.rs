//! The interactive viewer's server: `trama view` opens a trace and serves,
//! on a local address, one page and the window queries it makes.
//!
//! # What it serves
//! Every path starts with a random token of 128 bits (32 hexadecimal
//! digits), as in `http://127.0.0.1:8060/TOKEN/`: the page (`index.html`,
//! `app.js`, `app.css`, embedded in the binary: nothing is fetched from the
//! network) and the HTTP API under `TOKEN/api/`, specified in
//! `docs/view-api.md`.
//!
//! # Security
//! - A request whose path does not start with the token gets 404; only the
//!   embedded assets and the API are served (no path reaches the disk).
//! - Only `GET` and `HEAD` (else 405), a path in the request line (not a
//!   URL, whose host would stand for the Host header; else 400).
//! - Exactly one `Host` header (else 400), which must name the bound
//!   address or `localhost` (bound to every address, `--address 0.0.0.0`:
//!   any address as a number; else 403): a page of another site cannot
//!   reach the server by rebinding its name to 127.0.0.1.
//! - No CORS headers; every reply carries `Content-Security-Policy:
//!   default-src 'self'; frame-ancestors 'none'`, `X-Frame-Options: DENY`,
//!   `X-Content-Type-Options: nosniff` and `Referrer-Policy: no-referrer`
//!   (the token stays out of other sites' logs), the API's also
//!   `Cache-Control: no-store`; a head too long is refused with them too
//!   ([`conn`]).
//! - Bounded work ([`Limits`]): requests that read entities are computed a
//!   few at a time, a few more wait, the next get 503 ([`limit`]); a
//!   connection has [`Limits::header_timeout`] to send each request's head.
//! - The server binds to 127.0.0.1 unless told otherwise.
//!
//! # Traces larger than memory
//! A trace is held whole ([`Input::Whole`]) or read by blocks
//! ([`Input::Blocks`], e.g. a `.ptb`; how is `trama-open`'s decision,
//! [`trama_open::Reading`], served by [`start_reading`]): then one pass gathers the summary of the
//! whole trace and what the page needs of it ([`trama_lod::gather`]), and each
//! request replays only the blocks of its window ([`blocks`]), so memory
//! does not grow with the trace.
#![deny(missing_docs)]

mod assets;
mod blocks;
mod conn;
mod entity;
mod frames;
mod guard;
mod limit;
pub use limit::Limits;
mod load;
pub use load::{announce, start_reading, stream_reading, Served};
mod meta;
pub mod offline;
mod params;
mod pass;
mod reply;
mod routes;
mod search;
mod stream;
pub use stream::{StreamEnd, StreamOptions, StreamSink};
mod stats;
mod timeline;

use std::net::{IpAddr, Ipv4Addr, Ipv6Addr, SocketAddr};
use std::sync::atomic::AtomicU64;
use std::sync::{Arc, OnceLock};

use trama_lod::{gather, pyramid, saved};
use trama_sim::Trace;

pub use meta::{meta, Meta};
pub use offline::{offline, Offline, OfflineOptions};

/// How [`start`] serves.
#[derive(Clone, Debug)]
#[non_exhaustive]
pub struct ViewerOptions {
    /// The address to bind (default 127.0.0.1).
    pub address: IpAddr,
    /// The port; `None`: the first free one from 8060.
    pub port: Option<u16>,
    /// The token; `None`: 128 random bits.
    pub token: Option<String>,
    /// The trace's name, shown in the page.
    pub name: String,
    /// A trace read by blocks replays at most this many blocks for a
    /// window; a wider window is answered from the summary of the whole
    /// trace (default 16).
    pub max_blocks: usize,
    /// The field of the links holding a message's size in bytes, for the
    /// effective rates of the traffic animation; `None`: guessed from a
    /// trace held whole (see [`trama_analysis::guess_size_field`]).
    pub size_field: Option<String>,
    /// The player's rate, seconds of execution per second of playback;
    /// `None`: the visible window in 30 s.
    pub rate: Option<f64>,
    /// The player's wall seconds per frame; `None`: 0.1.
    pub play_speed: Option<f64>,
    /// The node/arc view's nodes: a container type (`None`: see
    /// [`trama_analysis::NodeStage::new`]).
    pub node_level: Option<String>,
    /// The node/arc view's arcs (`--arcs-type`, see
    /// [`trama_analysis::ArcKind::parse`]); `None`: every arc.
    pub arcs_type: Option<trama_analysis::ArcKind>,
    /// The style of the nodes' status indicators: 0, bars; 1, sectors.
    pub sbars_style: u8,
    /// What the statistics panel says of the run (command, start time, …),
    /// as (label, value) pairs.
    pub run_info: Vec<(String, String)>,
    /// How much the server takes on at once: requests computed and
    /// waiting, connections, the time to send a request's head.
    pub limits: Limits,
}

impl Default for ViewerOptions {
    fn default() -> ViewerOptions {
        ViewerOptions {
            address: IpAddr::V4(Ipv4Addr::LOCALHOST),
            port: None,
            token: None,
            name: String::new(),
            max_blocks: blocks::MAX_BLOCKS,
            size_field: None,
            rate: None,
            play_speed: None,
            node_level: None,
            arcs_type: None,
            sbars_style: 0,
            run_info: Vec::new(),
            limits: Limits::default(),
        }
    }
}

/// Why the viewer could not start.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// No port could be bound.
    #[error("cannot listen on {address}: {source}")]
    Bind {
        /// The address tried (the last port, when searching).
        address: SocketAddr,
        /// Why.
        source: std::io::Error,
    },
    /// The system's random source failed.
    #[error("no random token: {0}")]
    Random(String),
    /// The asynchronous runtime could not start.
    #[error("cannot start the server: {0}")]
    Runtime(std::io::Error),
}

/// What a request handler reads: the trace's model, rows and summary, and
/// where its entities are.
pub(crate) struct State {
    /// Names and the container tree: the whole trace, or (read by blocks)
    /// the model with every list and no entity.
    pub model: &'static Trace,
    pub rows: Vec<trama_lod::Row>,
    pub meta: Meta,
    /// The link types drawn: `None`, every one; else those that are
    /// messages (link types whose links all last 0 s, a platform's
    /// topology, are left out, as the analyses do; `meta.notes` says so).
    pub link_types: Option<Vec<trama_sim::TypeId>>,
    /// The zoomed-out level of detail, computed once.
    pub pyramid: pyramid::Pyramid,
    /// The link types that are messages, chosen once for the statistics.
    pub msgs: trama_analysis::Messages,
    /// The entities.
    pub store: Store,
    /// What the animated views are drawn on.
    pub animation: frames::Animation,
}

/// Where the entities are.
pub(crate) enum Store {
    /// In memory, indexed.
    Whole(trama_lod::Lod<'static>),
    /// In a `.ptb` read by blocks, with its stretches.
    Blocks(Box<blocks::Blocks>, Vec<gather::Stretch>),
}

/// The entities of a window: the whole trace, or a window replayed.
pub(crate) enum Held {
    Whole(&'static trama_lod::Lod<'static>),
    Blocks(Arc<blocks::Loaded>),
}

impl Held {
    /// The window's level-of-detail index.
    pub fn lod(&self) -> &trama_lod::Lod<'_> {
        match self {
            Held::Whole(l) => l,
            Held::Blocks(b) => b.borrow_dependent(),
        }
    }

    /// The window's trace.
    pub fn trace(&self) -> &Trace {
        match self {
            Held::Whole(l) => l.trace(),
            Held::Blocks(b) => b.borrow_owner(),
        }
    }

    /// `row` (of the state's rows) in this window's trace: `None` for a
    /// variable the window does not have.
    pub fn row(&self, state: &State, row: trama_lod::Row) -> Option<trama_lod::Row> {
        match self {
            Held::Whole(_) => Some(row),
            Held::Blocks(b) => blocks::local_row(state.model, b.borrow_owner(), row),
        }
    }
}

impl State {
    /// The entities overlapping `[t0, t1]`.
    pub fn window(&'static self, t0: f64, t1: f64) -> Result<Held, String> {
        match &self.store {
            Store::Whole(lod) => Ok(Held::Whole(lod)),
            Store::Blocks(b, _) => b.window(t0, t1).map(Held::Blocks),
        }
    }

    /// Whether a request may read `[t0, t1]` (a trace read by blocks
    /// replays at most [`blocks::MAX_BLOCKS`] blocks for one).
    pub fn readable(&self, t0: f64, t1: f64) -> bool {
        match &self.store {
            Store::Whole(_) => true,
            Store::Blocks(b, _) => b.replayable(t0, t1),
        }
    }
}

/// What [`start_loading`] serves (moved once: the size of its variants
/// does not matter).
#[allow(clippy::large_enum_variant)]
pub enum Input {
    /// A trace held in memory.
    Whole(Trace),
    /// A trace read by blocks; its `done` counts the blocks read by the
    /// first pass; what the first pass gathers is saved at its `summary`
    /// (whole or not at all), and read back instead of a first pass the
    /// next time.
    Blocks(trama_open::ByBlocks),
}

/// How far the loading of the trace is, shared with the thread that reads
/// it.
#[derive(Clone, Debug)]
pub struct Loading {
    /// Done so far.
    pub done: Arc<AtomicU64>,
    /// The total, when known.
    pub total: Option<u64>,
    /// What is counted (`bytes`, `events`).
    pub unit: &'static str,
}

/// What every handler shares: the trace once loaded, else how far its
/// loading is, or why it failed.
pub(crate) struct Shared {
    pub state: OnceLock<&'static State>,
    /// A stream's frames (`trama view --stream`), instead of a trace.
    pub stream: Option<Arc<stream::Live>>,
    pub loading: Option<Loading>,
    pub failed: OnceLock<String>,
    /// The turns of the requests that read entities.
    pub work: limit::Work,
}

impl Shared {
    /// The loaded trace, or the reply to give while there is none: 503
    /// (with `Retry-After`) while loading, 500 when loading failed.
    pub fn ready(&self) -> Result<&'static State, reply::Error> {
        if let Some(s) = self.state.get() {
            return Ok(*s);
        }
        if let Some(e) = self.failed.get() {
            return Err(reply::Error::internal(format!(
                "the trace could not be read: {e}"
            )));
        }
        Err(reply::Error::later("the trace is still loading"))
    }
}

/// A running viewer: its URL, until [`Running::stop`] or the end of the
/// process.
pub struct Running {
    /// The page's URL (with the token), for a browser on this machine
    /// (bound to every address: the loopback address).
    pub url: String,
    /// Bound to every address: the page's URLs at this machine's other
    /// addresses, for other machines (IPv4 only when bound to 0.0.0.0).
    pub others: Vec<String>,
    /// The bound address.
    pub addr: SocketAddr,
    stop: Option<tokio::sync::oneshot::Sender<()>>,
    thread: Option<std::thread::JoinHandle<()>>,
}

impl Running {
    /// Serves until Ctrl-C.
    pub fn wait(mut self) {
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }

    /// Whether the server has ended (Ctrl-C).
    pub fn finished(&self) -> bool {
        self.thread.as_ref().is_none_or(|t| t.is_finished())
    }

    /// Stops serving and waits for the server to end.
    pub fn stop(mut self) {
        if let Some(s) = self.stop.take() {
            let _ = s.send(());
        }
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

/// A new token: 128 random bits in hexadecimal.
fn token() -> Result<String, Error> {
    let mut b = [0u8; 16];
    getrandom::fill(&mut b).map_err(|e| Error::Random(e.to_string()))?;
    Ok(b.iter().map(|x| format!("{x:02x}")).collect())
}

/// Serves `trace`, ready from the first request (see [`start_loading`]).
pub fn start(trace: Trace, opts: &ViewerOptions) -> Result<Running, Error> {
    let shared = Arc::new(Shared {
        state: OnceLock::new(),
        stream: None,
        loading: None,
        failed: OnceLock::new(),
        work: limit::Work::new(&opts.limits),
    });
    let _ = shared.state.set(Box::leak(Box::new(prepare(trace, opts))));
    serve(shared, opts)
}

/// Serves a stream's player (`trama view --stream`): the page plays the
/// frames the returned sink cuts as the caller simulates the input into
/// it (see [`stream`]); the caller ends it with [`StreamSink::end`].
pub fn start_stream(
    opts: &ViewerOptions,
    stream: StreamOptions,
) -> Result<(Running, StreamSink), Error> {
    let live = Arc::new(stream::Live::default());
    let sink = StreamSink::new(live.clone(), stream, frames::NodeViewOptions::of(opts));
    let shared = Arc::new(Shared {
        state: OnceLock::new(),
        stream: Some(live),
        loading: None,
        failed: OnceLock::new(),
        work: limit::Work::new(&opts.limits),
    });
    Ok((serve(shared, opts)?, sink))
}

/// Marks in `meta` the rows with nothing over the whole run, and says so.
fn idle(pyramid: &pyramid::Pyramid, trace: &Trace, meta: &mut Meta) {
    meta.idle = pyramid.idle_rows(trace);
    if !meta.idle.is_empty() {
        let names: Vec<&str> = meta
            .idle
            .iter()
            .take(5)
            .map(|i| meta.rows[*i as usize].label.as_str())
            .collect();
        let more = meta.idle.len().saturating_sub(names.len());
        meta.notes.push(format!(
            "{} rows with nothing over the whole run are not shown: {}{}",
            meta.idle.len(),
            names.join(", "),
            if more > 0 {
                format!(" and {more} more")
            } else {
                String::new()
            }
        ));
    }
}

/// The link types drawn when `msgs` leaves some out.
fn drawn(trace: &Trace, msgs: &trama_analysis::Messages) -> Option<Vec<trama_sim::TypeId>> {
    (!msgs.left_out.is_empty()).then(|| {
        let m = &trace.model;
        (0..m.types.len() as u32)
            .map(trama_sim::TypeId)
            .filter(|t| m.ty(*t).kind == trama_sim::TypeKind::Link && msgs.counts(*t))
            .collect()
    })
}

/// The seed's order of `rows` (hosts by the messages they put on the
/// network, each followed by its processes), into `meta`.
fn host_order(
    trace: &Trace,
    rows: &[trama_lod::Row],
    level: trama_analysis::HostLevel,
    ordering: Option<&trama_analysis::Ordering>,
    meta: &mut Meta,
) {
    let Some(o) = ordering else { return };
    let ids = trama_style::order_rows(trace, o);
    let ordered = trama_lod::rows(trace, Some(&ids));
    let index: std::collections::HashMap<&trama_lod::Row, u32> = rows
        .iter()
        .enumerate()
        .map(|(i, r)| (r, i as u32))
        .collect();
    meta.host_order = ordered
        .iter()
        .filter_map(|r| index.get(r).copied())
        .collect();
    meta.host_level = Some(level.name);
}

/// What the handlers read of `trace` (leaked: the server answers until the
/// process ends).
fn prepare(trace: Trace, opts: &ViewerOptions) -> State {
    let trace: &'static Trace = Box::leak(Box::new(trace));
    let Described {
        rows,
        meta,
        link_types,
        msgs,
        ordering,
    } = describe(trace, &opts.name);
    let animation = frames::Animation::new(trace, ordering.as_ref(), &msgs, opts, true);
    let lod = trama_lod::Lod::new(trace);
    let pyramid = pyramid::Pyramid::new(&lod, (meta.start, meta.end), &rows, link_types.as_deref());
    let mut meta = meta;
    idle(&pyramid, trace, &mut meta);
    State {
        model: trace,
        rows,
        meta,
        link_types,
        pyramid,
        msgs,
        store: Store::Whole(lod),
        animation,
    }
}

/// What the page is told of a trace before its first window.
pub(crate) struct Described {
    /// The timeline's rows.
    pub rows: Vec<trama_lod::Row>,
    /// The reply of `api/meta`.
    pub meta: Meta,
    /// The link types drawn (see [`State::link_types`]).
    pub link_types: Option<Vec<trama_sim::TypeId>>,
    /// The link types that are messages.
    pub msgs: trama_analysis::Messages,
    /// The seed's order of hosts and processes, when there is a host level.
    pub ordering: Option<trama_analysis::Ordering>,
}

/// The rows, meta, link types and messages of `trace` (called `name`).
pub(crate) fn describe(trace: &Trace, name: &str) -> Described {
    let rows = trama_lod::rows(trace, None);
    let mut meta = meta(trace, &rows, name);
    let msgs = trama_analysis::Messages::select(trace, &[])
        .unwrap_or_else(|_| trama_analysis::Messages::all());
    let link_types = drawn(trace, &msgs);
    meta.notes.extend(msgs.note());
    let mut ordering = None;
    if let Some(level) = trama_analysis::host_level(trace, &msgs) {
        let window = trama_analysis::Window::of(trace);
        ordering = trama_analysis::order(trace, window, &msgs, &level.name);
        host_order(trace, &rows, level, ordering.as_ref(), &mut meta);
    }
    Described {
        rows,
        meta,
        link_types,
        msgs,
        ordering,
    }
}

/// What the handlers read of a `.ptb` read by blocks: one pass over its
/// stretches ([`gather::gather`]).
fn prepare_blocks(
    file: Box<dyn trama_open::Windowed>,
    done: Option<&AtomicU64>,
    summary: Option<&std::path::Path>,
    opts: &ViewerOptions,
) -> Result<State, String> {
    let (name, max_blocks) = (&opts.name, opts.max_blocks);
    use trama_analysis::Messages;
    let (size, events) = (file.size(), file.events());
    let blocks = blocks::Blocks::new(file, max_blocks)?;
    let saved = match summary.and_then(|p| std::fs::read(p).ok()) {
        Some(bytes) => saved::decode(&bytes, size, events, blocks.model()?),
        None => None,
    };
    let g = match saved {
        Some(g) => {
            if let Some(d) = done {
                d.store(
                    blocks.frames().len() as u64,
                    std::sync::atomic::Ordering::Relaxed,
                );
            }
            g
        }
        None => {
            let g = gather::gather(&blocks, done, |r, tally| {
                drawn(r, &Messages::from_tally(r, tally))
            })?;
            if let Some(p) = summary {
                let _ = saved::write(p, &saved::encode(&g, size, events));
            }
            g
        }
    };
    let reference: &'static Trace = Box::leak(Box::new(g.reference));
    let msgs = Messages::from_tally(reference, &g.tally);
    let link_types = drawn(reference, &msgs);
    let mut meta = meta(reference, &g.rows, name);
    // Containers' lifetimes (what `meta` saw) and the entities'.
    meta.start = meta.start.min(g.span.0);
    meta.end = meta.end.max(g.span.1);
    meta.counts = g.counts;
    meta.notes.extend(msgs.note());
    let pairs: Vec<_> = g
        .pairs
        .iter()
        .filter(|(k, _)| msgs.counts(k.0))
        .map(|(k, n)| (k.1, k.2, *n))
        .collect();
    let whole_pairs = pairs.clone();
    let mut ends: std::collections::HashSet<trama_sim::ContainerId> =
        pairs.iter().flat_map(|p| [p.0, p.1]).collect();
    let by_messages = !ends.is_empty();
    if !by_messages {
        ends = g.with_states;
    }
    let mut ordering = None;
    if let Some(level) = trama_analysis::host_level_of(reference, &ends, by_messages) {
        let window = trama_analysis::Window {
            start: g.span.0,
            end: g.span.1,
        };
        ordering = trama_analysis::order_of(reference, window, pairs.into_iter(), &level.name);
        host_order(reference, &g.rows, level, ordering.as_ref(), &mut meta);
    }
    let mut animation = frames::Animation::new(reference, ordering.as_ref(), &msgs, opts, false);
    animation.counted(&whole_pairs);
    let pyramid = pyramid::Pyramid::from_base(g.base);
    idle(&pyramid, reference, &mut meta);
    Ok(State {
        model: reference,
        rows: g.rows,
        meta,
        link_types,
        pyramid,
        msgs,
        store: Store::Blocks(Box::new(blocks), g.stretches),
        animation,
    })
}

/// What the handlers read of `input`.
fn prepare_input(input: Input, opts: &ViewerOptions) -> Result<State, String> {
    match input {
        Input::Whole(trace) => Ok(prepare(trace, opts)),
        Input::Blocks(b) => prepare_blocks(b.trace, Some(&b.done), b.summary.as_deref(), opts),
    }
}

/// Binds the first free port from `opts.port` (or 8060 on) and serves at
/// once, on a thread of its own until Ctrl-C or [`Running::stop`], while
/// `load` reads the trace on another: until it is read, the page shows
/// `loading`'s progress (`api/progress`) and the other API routes answer
/// 503; if it fails, they answer 500 with its message.
pub fn start_loading<F>(
    load: F,
    loading: Option<Loading>,
    opts: &ViewerOptions,
) -> Result<Running, Error>
where
    F: FnOnce() -> Result<Input, String> + Send + 'static,
{
    let shared = Arc::new(Shared {
        state: OnceLock::new(),
        stream: None,
        loading,
        failed: OnceLock::new(),
        work: limit::Work::new(&opts.limits),
    });
    let running = serve(shared.clone(), opts)?;
    let opts = opts.clone();
    std::thread::spawn(move || match load().and_then(|i| prepare_input(i, &opts)) {
        Ok(state) => {
            let _ = shared.state.set(Box::leak(Box::new(state)));
        }
        Err(e) => {
            let _ = shared.failed.set(e);
        }
    });
    Ok(running)
}

/// Binds the first free port from `opts.port` (or 8060 on) and serves
/// `state` on a thread of its own until Ctrl-C or [`Running::stop`].
fn serve(state: Arc<Shared>, opts: &ViewerOptions) -> Result<Running, Error> {
    let token = match &opts.token {
        Some(t) => t.clone(),
        None => token()?,
    };
    let (first, last) = match opts.port {
        Some(p) => (p, p),
        None => (8060, 8160),
    };
    let mut listener = None;
    let mut last_err = None;
    for port in first..=last {
        let addr = SocketAddr::new(opts.address, port);
        match std::net::TcpListener::bind(addr) {
            Ok(l) => {
                listener = Some(l);
                break;
            }
            Err(e) => last_err = Some((addr, e)),
        }
    }
    let listener = match (listener, last_err) {
        (Some(l), _) => l,
        (None, Some((address, source))) => return Err(Error::Bind { address, source }),
        (None, None) => unreachable!("at least one port is tried"),
    };
    let addr = listener.local_addr().map_err(Error::Runtime)?;
    listener.set_nonblocking(true).map_err(Error::Runtime)?;
    let app = routes::router(state, &token, addr);
    let limits = opts.limits;
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .map_err(Error::Runtime)?;
    let (stop_tx, stop_rx) = tokio::sync::oneshot::channel::<()>();
    let thread = std::thread::spawn(move || {
        runtime.block_on(async move {
            let Ok(listener) = tokio::net::TcpListener::from_std(listener) else {
                return;
            };
            let stopped = async {
                tokio::select! {
                    _ = stop_rx => {}
                    _ = tokio::signal::ctrl_c() => {}
                }
            };
            conn::serve(listener, app, limits, stopped).await;
        });
    });
    let url = |ip: IpAddr| match ip {
        IpAddr::V6(ip) => format!("http://[{ip}]:{}/{token}/", addr.port()),
        IpAddr::V4(ip) => format!("http://{ip}:{}/{token}/", addr.port()),
    };
    // Bound to every address: a browser here opens the loopback one, other
    // machines this machine's others.
    let (here, others) = match addr.ip() {
        IpAddr::V4(ip) if ip.is_unspecified() => (IpAddr::V4(Ipv4Addr::LOCALHOST), addresses(true)),
        IpAddr::V6(ip) if ip.is_unspecified() => {
            (IpAddr::V6(Ipv6Addr::LOCALHOST), addresses(false))
        }
        ip => (ip, Vec::new()),
    };
    Ok(Running {
        url: url(here),
        others: others.into_iter().map(url).collect(),
        addr,
        stop: Some(stop_tx),
        thread: Some(thread),
    })
}

/// This machine's addresses other than loopback ones (`v4`: IPv4 only,
/// else every one), in the system's order; none if they cannot be listed.
fn addresses(v4: bool) -> Vec<IpAddr> {
    let Ok(list) = nix::ifaddrs::getifaddrs() else {
        return Vec::new();
    };
    let mut out: Vec<IpAddr> = Vec::new();
    for a in list {
        let Some(s) = a.address else { continue };
        let ip = match (s.as_sockaddr_in(), s.as_sockaddr_in6()) {
            (Some(x), _) => IpAddr::V4(x.ip()),
            (None, Some(x)) if !v4 => IpAddr::V6(x.ip()),
            _ => continue,
        };
        // Link-local IPv6 addresses need a zone a URL cannot carry.
        let link_local = matches!(ip, IpAddr::V6(x) if x.segments()[0] & 0xffc0 == 0xfe80);
        if !ip.is_loopback() && !link_local && !out.contains(&ip) {
            out.push(ip);
        }
    }
    out
}
