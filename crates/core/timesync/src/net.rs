//! The measurement: a time server and an NTP-style client over TCP
//! (protocol in the crate's docs).

use std::io::{self, Read, Write};
use std::net::{IpAddr, Ipv4Addr, Ipv6Addr, SocketAddr, TcpListener, TcpStream, ToSocketAddrs};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use crate::table::{Pair, TimeUnit};

/// The TCP port a time server listens on unless told otherwise.
pub const DEFAULT_PORT: u16 = 7362;

const REQUEST_MAGIC: &[u8; 4] = b"TSRQ";
const REPLY_MAGIC: &[u8; 4] = b"TSRP";
const REQUEST_LEN: usize = 8;
const REPLY_LEN: usize = 24;

/// This host's clock: nanoseconds since the Unix epoch (negative before it,
/// saturated beyond the range of `i64`).
pub fn now_ns() -> i64 {
    match SystemTime::now().duration_since(UNIX_EPOCH) {
        Ok(d) => i64::try_from(d.as_nanos()).unwrap_or(i64::MAX),
        Err(e) => i64::try_from(e.duration().as_nanos()).map_or(i64::MIN, |n| -n),
    }
}

/// Options of a time server.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ServerOptions {
    /// Added to the server's clock in every reply, in nanoseconds: a fake
    /// clock shift, for tests of the measurement (0 in real use).
    pub shift_ns: i64,
}

fn server_clock(options: ServerOptions) -> i64 {
    now_ns().saturating_add(options.shift_ns)
}

/// Reads exactly `buf.len()` bytes; `Ok(false)` if the peer closed the
/// connection before the first byte.
fn read_frame(s: &mut TcpStream, buf: &mut [u8]) -> io::Result<bool> {
    let mut got = 0;
    while got < buf.len() {
        match s.read(&mut buf[got..]) {
            Ok(0) if got == 0 => return Ok(false),
            Ok(0) => {
                return Err(io::Error::new(
                    io::ErrorKind::UnexpectedEof,
                    format!(
                        "connection closed in the middle of a frame ({got} of {} bytes)",
                        buf.len()
                    ),
                ))
            }
            Ok(n) => got += n,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    Ok(true)
}

/// Answers the requests of one connection until the client closes it.
fn answer(mut s: TcpStream, options: ServerOptions) -> io::Result<()> {
    s.set_nodelay(true)?;
    let mut req = [0u8; REQUEST_LEN];
    while read_frame(&mut s, &mut req)? {
        let t1 = server_clock(options);
        if &req[..4] != REQUEST_MAGIC {
            return Err(io::Error::new(
                io::ErrorKind::InvalidData,
                format!("not a time request: {:02x?}", &req[..4]),
            ));
        }
        let mut rep = [0u8; REPLY_LEN];
        rep[..4].copy_from_slice(REPLY_MAGIC);
        rep[4..8].copy_from_slice(&req[4..8]);
        rep[8..16].copy_from_slice(&t1.to_be_bytes());
        let t2 = server_clock(options);
        rep[16..24].copy_from_slice(&t2.to_be_bytes());
        s.write_all(&rep)?;
    }
    Ok(())
}

/// Serves time requests on `listener` forever, one thread per connection.
/// A connection that sends something else than requests is closed; errors
/// of one connection do not stop the server. Returns only when accepting
/// fails for good.
pub fn serve(listener: TcpListener, options: ServerOptions) -> io::Result<()> {
    accept_loop(&listener, options, None)
}

fn accept_loop(
    listener: &TcpListener,
    options: ServerOptions,
    stop: Option<&AtomicBool>,
) -> io::Result<()> {
    let mut failures = 0u32;
    loop {
        let accepted = listener.accept();
        if stop.is_some_and(|s| s.load(Ordering::SeqCst)) {
            return Ok(());
        }
        match accepted {
            Ok((s, _)) => {
                failures = 0;
                std::thread::spawn(move || {
                    let _ = answer(s, options);
                });
            }
            // Transient (a client gone before it was accepted, too many files...).
            Err(e) => {
                failures += 1;
                if failures > 100 {
                    return Err(e);
                }
                std::thread::sleep(Duration::from_millis(10));
            }
        }
    }
}

/// A time server running on a thread of its own (the library form of
/// `trama timesync --serve`); stopped when dropped.
pub struct Server {
    addr: SocketAddr,
    stop: Arc<AtomicBool>,
    thread: Option<JoinHandle<io::Result<()>>>,
}

impl Server {
    /// Binds `addr` (port 0 picks a free port) and serves on a new thread.
    pub fn spawn(addr: impl ToSocketAddrs, options: ServerOptions) -> io::Result<Server> {
        let listener = TcpListener::bind(addr)?;
        let addr = listener.local_addr()?;
        let stop = Arc::new(AtomicBool::new(false));
        let flag = Arc::clone(&stop);
        let thread = std::thread::spawn(move || accept_loop(&listener, options, Some(&flag)));
        Ok(Server {
            addr,
            stop,
            thread: Some(thread),
        })
    }

    /// The address it listens on.
    pub fn addr(&self) -> SocketAddr {
        self.addr
    }

    /// Stops accepting connections (those open are answered until closed).
    pub fn stop(mut self) {
        self.shutdown();
    }

    fn shutdown(&mut self) {
        let Some(thread) = self.thread.take() else {
            return;
        };
        self.stop.store(true, Ordering::SeqCst);
        // Wake the accept with a connection of our own.
        let mut wake = self.addr;
        if wake.ip().is_unspecified() {
            wake.set_ip(match wake.ip() {
                IpAddr::V4(_) => IpAddr::V4(Ipv4Addr::LOCALHOST),
                IpAddr::V6(_) => IpAddr::V6(Ipv6Addr::LOCALHOST),
            });
        }
        if TcpStream::connect_timeout(&wake, Duration::from_secs(2)).is_ok() {
            let _ = thread.join();
        }
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        self.shutdown();
    }
}

/// One request and its reply: t0 and t3 read on the client's clock, t1 and
/// t2 on the server's, all in nanoseconds since the Unix epoch.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Exchange {
    /// The client sends the request.
    pub t0: i64,
    /// The server has received it.
    pub t1: i64,
    /// The server sends its reply.
    pub t2: i64,
    /// The client has received the reply.
    pub t3: i64,
}

impl Exchange {
    /// How far the server's clock is ahead of the client's:
    /// `((t1 - t0) + (t2 - t3)) / 2`, floored, in nanoseconds.
    pub fn offset(&self) -> i64 {
        let s = (i128::from(self.t1) - i128::from(self.t0))
            + (i128::from(self.t2) - i128::from(self.t3));
        clamp(s.div_euclid(2))
    }

    /// The time on the network: `(t3 - t0) - (t2 - t1)`, in nanoseconds;
    /// the offset is exact to within half of it.
    pub fn round_trip(&self) -> i64 {
        clamp(
            (i128::from(self.t3) - i128::from(self.t0))
                - (i128::from(self.t2) - i128::from(self.t1)),
        )
    }

    /// The clock pair this exchange gives: the client's (reference's) clock
    /// at the middle of the exchange, `(t0 + t3) / 2`, and the server's
    /// (host's) at the same instant, `(t1 + t2) / 2` (floored; `line` 0).
    pub fn pair(&self) -> Pair {
        let mid = |a: i64, b: i64| clamp((i128::from(a) + i128::from(b)).div_euclid(2));
        Pair {
            reference_ns: mid(self.t0, self.t3),
            host_ns: mid(self.t1, self.t2),
            line: 0,
        }
    }
}

fn clamp(v: i128) -> i64 {
    v.clamp(i128::from(i64::MIN), i128::from(i64::MAX)) as i64
}

fn invalid(message: String) -> io::Error {
    io::Error::new(io::ErrorKind::InvalidData, message)
}

/// Exchanges `samples` requests with the time server at `addr` on one
/// connection (each read or write waits at most `timeout`) and returns the
/// exchange with the lowest round trip (the first among equals).
pub fn measure(
    addr: impl ToSocketAddrs,
    samples: usize,
    timeout: Duration,
) -> io::Result<Exchange> {
    if samples == 0 {
        return Err(io::Error::new(
            io::ErrorKind::InvalidInput,
            "at least one exchange is needed",
        ));
    }
    let mut last = None;
    let mut stream = None;
    for a in addr.to_socket_addrs()? {
        match TcpStream::connect_timeout(&a, timeout) {
            Ok(s) => {
                stream = Some(s);
                break;
            }
            Err(e) => last = Some(e),
        }
    }
    let mut s = match stream {
        Some(s) => s,
        None => {
            return Err(last.unwrap_or_else(|| {
                io::Error::new(io::ErrorKind::NotFound, "the address resolves to nothing")
            }))
        }
    };
    s.set_nodelay(true)?;
    s.set_read_timeout(Some(timeout))?;
    s.set_write_timeout(Some(timeout))?;
    let mut best: Option<Exchange> = None;
    for seq in 0..samples {
        let seq = seq as u32;
        let mut req = [0u8; REQUEST_LEN];
        req[..4].copy_from_slice(REQUEST_MAGIC);
        req[4..].copy_from_slice(&seq.to_be_bytes());
        let mut rep = [0u8; REPLY_LEN];
        let t0 = now_ns();
        s.write_all(&req)?;
        if !read_frame(&mut s, &mut rep)? {
            return Err(io::Error::new(
                io::ErrorKind::UnexpectedEof,
                "the server closed the connection",
            ));
        }
        let t3 = now_ns();
        if &rep[..4] != REPLY_MAGIC {
            return Err(invalid(format!("not a time reply: {:02x?}", &rep[..4])));
        }
        let got = u32::from_be_bytes(rep[4..8].try_into().expect("4 bytes"));
        if got != seq {
            return Err(invalid(format!("reply to request {got}, expected {seq}")));
        }
        let e = Exchange {
            t0,
            t1: i64::from_be_bytes(rep[8..16].try_into().expect("8 bytes")),
            t2: i64::from_be_bytes(rep[16..24].try_into().expect("8 bytes")),
            t3,
        };
        if !matches!(best, Some(b) if b.round_trip() <= e.round_trip()) {
            best = Some(e);
        }
    }
    Ok(best.expect("samples > 0"))
}

/// Writes one block of a `timesync` file: a `#` comment line (which also
/// separates it from a block already in the file), then one line
/// `reference reftime host hosttime` per host, in microseconds (floored),
/// from each host's exchange ([`Exchange::pair`]). `samples` is only
/// mentioned in the comment. Names holding white space or `#` are refused.
pub fn write_block(
    w: &mut dyn Write,
    reference: &str,
    hosts: &[(String, Exchange)],
    samples: usize,
) -> io::Result<()> {
    let check = |name: &str| {
        if name.is_empty() || name.chars().any(|c| c.is_whitespace() || c == '#') {
            Err(io::Error::new(
                io::ErrorKind::InvalidInput,
                format!("host name `{name}` cannot be written in a timesync file"),
            ))
        } else {
            Ok(())
        }
    };
    check(reference)?;
    for (h, _) in hosts {
        check(h)?;
    }
    writeln!(
        w,
        "# trama timesync: reference {reference}, {samples} exchange(s) per host, lowest round trip kept; times in us"
    )?;
    let us = TimeUnit::Microseconds;
    for (h, e) in hosts {
        let p = e.pair();
        writeln!(
            w,
            "{reference} {} {h} {}",
            us.floor(p.reference_ns),
            us.floor(p.host_ns)
        )?;
    }
    Ok(())
}
