//! Starting the server: binding a port, the token, the thread that serves
//! until Ctrl-C or [`Running::stop`], for a trace ready now ([`start`]),
//! loaded meanwhile ([`start_loading`]) or a stream ([`start_stream`]).

use std::net::{IpAddr, Ipv4Addr, Ipv6Addr, SocketAddr};
use std::sync::{Arc, OnceLock};

use trama_sim::Trace;

use crate::animation::NodeViewOptions;
use crate::compare;
use crate::conn;
use crate::limit;
use crate::live::Live;
use crate::options::ViewerOptions;
use crate::prepare::{prepare, prepare_input};
use crate::routes;
use crate::state::{Input, Loading, Shared, State};
use crate::stream::{StreamOptions, StreamSink};

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
    /// The second run of a comparison could not be opened.
    #[error("{0}")]
    Read(String),
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
/// it (see [`crate::stream`]); the caller ends it with [`StreamSink::end`].
pub fn start_stream(
    opts: &ViewerOptions,
    stream: StreamOptions,
) -> Result<(Running, StreamSink), Error> {
    let live = Arc::new(Live::default());
    let sink = StreamSink::new(live.clone(), stream, NodeViewOptions::of(opts));
    let shared = Arc::new(Shared {
        state: OnceLock::new(),
        stream: Some(live),
        loading: None,
        failed: OnceLock::new(),
        work: limit::Work::new(&opts.limits),
    });
    Ok((serve(shared, opts)?, sink))
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
    let shared = loading_shared(loading, opts);
    let running = serve(shared.clone(), opts)?;
    spawn_load(shared, load, opts, |_| {});
    Ok(running)
}

/// Serves two runs compared (`trama view A B`, see
/// [`crate::routes`]): each read by its `load` on a thread of its own
/// meanwhile (as [`start_loading`]), B's values coloured as A's of the
/// same name; `names` are the runs' names, `iteration` the state value
/// marking an iteration.
pub fn start_compare<F, G>(
    (load_a, loading_a): (F, Option<Loading>),
    (load_b, loading_b): (G, Option<Loading>),
    names: [String; 2],
    iteration: Option<String>,
    opts: &ViewerOptions,
) -> Result<Running, Error>
where
    F: FnOnce() -> Result<Input, String> + Send + 'static,
    G: FnOnce() -> Result<Input, String> + Send + 'static,
{
    let (a, b) = (
        loading_shared(loading_a, opts),
        loading_shared(loading_b, opts),
    );
    let pair = Arc::new(compare::pair(
        a.clone(),
        b.clone(),
        names.clone(),
        iteration,
    ));
    let running = serve_router(opts, |token, addr| {
        routes::compare_router(pair, token, addr)
    })?;
    let mut opts_b = opts.clone();
    opts_b.name = names[1].clone();
    opts_b.run_info.clear();
    spawn_load(a.clone(), load_a, opts, |_| {});
    spawn_load(b, load_b, &opts_b, move |state| {
        if let Some(sa) = compare::wait_for(&a) {
            compare::share_colors(&sa.model.model, state);
        }
    });
    Ok(running)
}

/// The shared state of a trace still loading, `loading` telling how far.
pub(crate) fn loading_shared(loading: Option<Loading>, opts: &ViewerOptions) -> Arc<Shared> {
    Arc::new(Shared {
        state: OnceLock::new(),
        stream: None,
        loading,
        failed: OnceLock::new(),
        work: limit::Work::new(&opts.limits),
    })
}

/// Reads the trace `load` gives on a thread of its own into `shared`
/// (its failure, else its state, which `finish` completes before it is
/// served).
pub(crate) fn spawn_load<F, G>(shared: Arc<Shared>, load: F, opts: &ViewerOptions, finish: G)
where
    F: FnOnce() -> Result<Input, String> + Send + 'static,
    G: FnOnce(&mut State) + Send + 'static,
{
    let opts = opts.clone();
    std::thread::spawn(move || match load().and_then(|i| prepare_input(i, &opts)) {
        Ok(mut state) => {
            finish(&mut state);
            let _ = shared.state.set(Box::leak(Box::new(state)));
        }
        Err(e) => {
            let _ = shared.failed.set(e);
        }
    });
}

/// Binds the first free port from `opts.port` (or 8060 on) and serves
/// `state` on a thread of its own until Ctrl-C or [`Running::stop`].
fn serve(state: Arc<Shared>, opts: &ViewerOptions) -> Result<Running, Error> {
    serve_router(opts, |token, addr| routes::router(state, token, addr))
}

/// Binds the first free port from `opts.port` (or 8060 on) and serves the
/// router `app` makes (given the token and the bound address) on a thread
/// of its own until Ctrl-C or [`Running::stop`].
pub(crate) fn serve_router(
    opts: &ViewerOptions,
    app: impl FnOnce(&str, SocketAddr) -> axum::Router,
) -> Result<Running, Error> {
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
    let app = app(&token, addr);
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
