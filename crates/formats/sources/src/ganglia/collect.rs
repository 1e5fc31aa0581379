//! The collector: polls a gmond and appends the new samples to a text log
//! (`trama collect ganglia`).

use std::fmt::Write as _;
use std::io::{self, Read, Write};
use std::net::{SocketAddr, TcpStream, ToSocketAddrs};
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use super::log::{format_seconds, quote_value};
use super::repeats::Seen;
use super::xml::read_xml;
use super::{decode, detect, matches, quote, Format, GangliaOptions, Sample};
use trama_records::Nanos;

/// The gmond's port when `--gmond` gives none.
pub const GMOND_PORT: u16 = 8649;

/// Settings of [`collect`].
#[non_exhaustive]
#[derive(Clone, Debug)]
pub struct CollectOptions {
    /// The gmond, `HOST:PORT` (`HOST` alone: port [`GMOND_PORT`]).
    pub gmond: String,
    /// Time between the starts of two polls.
    pub interval: Duration,
    /// Stop after this many polls (failed ones included); `None`: until stopped.
    pub count: Option<u64>,
    /// Hosts and metrics to keep.
    pub filter: GangliaOptions,
    /// Longest time of one poll: to connect, then to receive the whole
    /// dump (a gmond that sends slowly is cut off after it).
    pub timeout: Duration,
    /// Largest answer of one poll, in bytes: a peer that sends more (a
    /// stream that never ends) is cut off there.
    pub max_answer: u64,
}

/// The default [`CollectOptions::max_answer`]: 256 MiB, far above the
/// dump of a gmetad of thousands of hosts.
pub const MAX_ANSWER: u64 = 256 << 20;

impl CollectOptions {
    /// Polls `gmond` every `interval`, everything kept, until stopped, with
    /// a 10 s timeout and answers of at most [`MAX_ANSWER`] bytes.
    pub fn new(gmond: impl Into<String>, interval: Duration) -> CollectOptions {
        CollectOptions {
            gmond: gmond.into(),
            interval,
            count: None,
            filter: GangliaOptions::default(),
            timeout: Duration::from_secs(10),
            max_answer: MAX_ANSWER,
        }
    }
}

/// What [`collect`] did.
#[non_exhaustive]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct CollectStats {
    /// Polls attempted.
    pub rounds: u64,
    /// Polls that failed (no connection, a bad dump).
    pub failed: u64,
    /// Lines written to the log.
    pub lines: u64,
    /// Samples of the dumps left out by the filter.
    pub filtered: u64,
    /// Numeric samples not written again (already in the log).
    pub repeats: u64,
    /// String samples not written because their text had not changed.
    pub unchanged: u64,
    /// Samples whose host or metric name has blanks (the log cannot hold them).
    pub unloggable: u64,
}

/// What [`collect`] reports as it goes.
#[non_exhaustive]
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum CollectEvent {
    /// A poll succeeded.
    Round {
        /// Its number, from 1.
        round: u64,
        /// Hosts in the dump (kept by the filter).
        hosts: u64,
        /// Lines it appended.
        lines: u64,
    },
    /// Something went wrong but collection goes on (a failed poll, a filter
    /// entry that matches nothing, a name the log cannot hold).
    Warning {
        /// The poll it is about.
        round: u64,
        /// What.
        message: String,
    },
}

/// Why [`collect`] stopped without completing.
#[non_exhaustive]
#[derive(Debug, thiserror::Error)]
pub enum CollectError {
    /// The options are unusable.
    #[error("{0}")]
    GangliaOptions(String),
    /// The first poll failed: the gmond was never reached or sent no dump.
    #[error("first poll of gmond {gmond} failed: {message}")]
    FirstPoll {
        /// The gmond.
        gmond: String,
        /// What went wrong.
        message: String,
    },
    /// The log could not be written.
    #[error("writing the log: {0}")]
    Write(#[from] io::Error),
}

/// Where [`collect`] appends its log: a writer that can also push what it
/// wrote to stable storage.
pub trait LogSink: Write {
    /// Makes what was written durable (`fsync`).
    fn sync(&mut self) -> io::Result<()>;
}

impl LogSink for std::fs::File {
    fn sync(&mut self) -> io::Result<()> {
        self.sync_data()
    }
}

impl LogSink for Vec<u8> {
    fn sync(&mut self) -> io::Result<()> {
        Ok(())
    }
}

fn resolve(gmond: &str) -> io::Result<Vec<SocketAddr>> {
    let with_port = if gmond.parse::<SocketAddr>().is_ok() || gmond.rsplit_once(':').is_some() {
        gmond.to_string()
    } else {
        format!("{gmond}:{GMOND_PORT}")
    };
    Ok(with_port.to_socket_addrs()?.collect())
}

/// Seconds as people read them (`3 s`, `0.5 s`).
fn secs(d: Duration) -> String {
    format!("{} s", d.as_secs_f64())
}

/// Connects, reads the whole dump within `timeout` (connection included)
/// and `max` bytes, returns it.
fn fetch(gmond: &str, timeout: Duration, max: u64) -> Result<Vec<u8>, String> {
    let start = Instant::now();
    let addrs = resolve(gmond).map_err(|e| format!("cannot resolve {gmond}: {e}"))?;
    let mut last = format!("{gmond} has no address");
    for a in addrs {
        match TcpStream::connect_timeout(&a, timeout) {
            Ok(mut s) => {
                let mut buf = Vec::new();
                let mut chunk = vec![0u8; 64 << 10];
                loop {
                    let left = timeout.saturating_sub(start.elapsed());
                    let late = || {
                        format!(
                            "no complete answer from {a} within {} ({} bytes received; --timeout)",
                            secs(timeout),
                            buf.len()
                        )
                    };
                    if left.is_zero() {
                        return Err(late());
                    }
                    s.set_read_timeout(Some(left))
                        .map_err(|e| format!("{a}: {e}"))?;
                    match s.read(&mut chunk) {
                        Ok(0) => break,
                        Ok(n) => {
                            if buf.len() as u64 + n as u64 > max {
                                return Err(format!(
                                    "{a} sent more than {max} bytes in one answer (an endless stream?); \
                                     reading stopped there (--max-answer)"
                                ));
                            }
                            buf.extend_from_slice(&chunk[..n]);
                        }
                        Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                        Err(e)
                            if matches!(
                                e.kind(),
                                io::ErrorKind::WouldBlock | io::ErrorKind::TimedOut
                            ) =>
                        {
                            return Err(late())
                        }
                        Err(e) => return Err(format!("reading from {a}: {e}")),
                    }
                }
                if buf.iter().all(|b| b.is_ascii_whitespace()) {
                    return Err(format!(
                        "{a} closed the connection without sending anything \
                         (is this host allowed by the gmond's tcp_accept_channel acl?)"
                    ));
                }
                return Ok(buf);
            }
            Err(e)
                if matches!(
                    e.kind(),
                    io::ErrorKind::WouldBlock | io::ErrorKind::TimedOut
                ) =>
            {
                last = format!("no answer from {a} within {} (--timeout)", secs(timeout))
            }
            Err(e) => last = format!("cannot connect to {a}: {e}"),
        }
    }
    Err(last)
}

struct Owned {
    cluster: Option<String>,
    host: String,
    ip: Option<String>,
    metric: String,
    time: Nanos,
    value: String,
    number: Option<f64>,
}

/// Polls the gmond of `opts` every interval and appends the new samples of
/// the chosen hosts and metrics to `out` as text-log lines (one write, one
/// flush and one [`LogSink::sync`] per poll, lines in time order within a
/// poll), until `stop` is set (checked between polls and while waiting:
/// the poll under way is completed and written first) or `count` polls
/// were made.
///
/// A poll that fails is reported through `progress` (once for a run of
/// identical failures, and again when the gmond answers) and retried at
/// the next interval, except the first one: if the gmond cannot be reached or
/// sends no valid dump then, nothing is written and the error is returned.
/// A sample whose host or metric name has blanks cannot be logged: it is
/// counted and reported once per name.
pub fn collect(
    opts: &CollectOptions,
    stop: &AtomicBool,
    out: &mut dyn LogSink,
    progress: &mut dyn FnMut(&CollectEvent),
) -> Result<CollectStats, CollectError> {
    check_options(opts)?;
    let mut stats = CollectStats::default();
    let mut seen = Seen::default();
    let mut warned: std::collections::HashSet<String> = Default::default();
    let mut next = Instant::now();
    let mut streak = 0u64;
    let mut last_failure: Option<String> = None;
    loop {
        stats.rounds += 1;
        let round = stats.rounds;
        let mut polled = Polled::default();
        let result = poll(opts, round, &mut polled);
        match result {
            Err(message) if round == 1 => {
                return Err(CollectError::FirstPoll {
                    gmond: opts.gmond.clone(),
                    message,
                })
            }
            Err(message) => {
                stats.failed += 1;
                streak += 1;
                // Once per run of identical failures.
                if last_failure.as_deref() != Some(message.as_str()) {
                    progress(&CollectEvent::Warning {
                        round,
                        message: format!(
                            "poll of gmond {} failed (retrying every interval): {message}",
                            opts.gmond
                        ),
                    });
                    last_failure = Some(message);
                }
            }
            Ok(_) => {
                if streak > 0 {
                    progress(&CollectEvent::Warning {
                        round,
                        message: format!(
                            "gmond {} answers again after {streak} failed polls",
                            opts.gmond
                        ),
                    });
                    streak = 0;
                    last_failure = None;
                }
                if round == 1 {
                    warn_unmatched(opts, &polled.hosts_seen, &polled.metrics_seen, progress);
                }
                stats.filtered += polled.filtered;
                let mut log = RoundLog {
                    round,
                    seen: &mut seen,
                    warned: &mut warned,
                    stats: &mut stats,
                };
                log.write(polled.samples, out, progress)?;
            }
        }
        if opts.count.is_some_and(|c| round >= c) {
            break;
        }
        next += opts.interval;
        let now = Instant::now();
        if next < now {
            next = now;
        }
        if wait_until(next, stop) {
            break;
        }
    }
    Ok(stats)
}

/// Checks the options a collection needs.
fn check_options(opts: &CollectOptions) -> Result<(), CollectError> {
    if opts.interval.is_zero() {
        return Err(CollectError::GangliaOptions(
            "the interval must be positive".into(),
        ));
    }
    if opts.count == Some(0) {
        return Err(CollectError::GangliaOptions(
            "the count must be at least 1".into(),
        ));
    }
    if opts.gmond.trim().is_empty() {
        return Err(CollectError::GangliaOptions("no gmond given".into()));
    }
    Ok(())
}

/// What one poll of the gmond gave.
#[derive(Default)]
struct Polled {
    /// The samples the filter keeps.
    samples: Vec<Owned>,
    /// First round: every host (and address) and metric of the dump.
    hosts_seen: Vec<(String, Option<String>)>,
    metrics_seen: Vec<String>,
    /// How many samples the filter left out.
    filtered: u64,
}

/// Polls the gmond once (round `round`) into `polled`; the error says why
/// the poll gave no dump.
fn poll(opts: &CollectOptions, round: u64, polled: &mut Polled) -> Result<(), String> {
    let label = "its dump";
    let bytes = fetch(&opts.gmond, opts.timeout, opts.max_answer)?;
    if detect(&bytes) != Some(Format::Xml) {
        return Err(format!(
            "it sent no XML dump (first bytes {})",
            quote(&decode(&bytes[..bytes.len().min(40)]))
        ));
    }
    read_xml(label, &bytes, &mut |s| {
        if round == 1 {
            if !polled.hosts_seen.iter().any(|(h, _)| h == s.host) {
                polled
                    .hosts_seen
                    .push((s.host.into(), s.ip.map(Into::into)));
            }
            if !polled.metrics_seen.iter().any(|m| m == s.metric) {
                polled.metrics_seen.push(s.metric.into());
            }
        }
        if !opts.filter.keeps_host(s.host, s.ip) || !opts.filter.keeps_metric(s.metric) {
            polled.filtered += 1;
            return;
        }
        polled.samples.push(Owned {
            cluster: s.cluster.map(Into::into),
            host: s.host.into(),
            ip: s.ip.map(Into::into),
            metric: s.metric.into(),
            time: s.time,
            value: s.value.into(),
            number: s.number,
        });
    })
    .map(|_| ())
    .map_err(|e| e.to_string())
}

/// Waits until `next`, or until `stop` is set (then true).
fn wait_until(next: Instant, stop: &AtomicBool) -> bool {
    loop {
        if stop.load(Ordering::SeqCst) {
            return true;
        }
        let now = Instant::now();
        if now >= next {
            return false;
        }
        std::thread::sleep((next - now).min(Duration::from_millis(50)));
    }
}

/// The logging of one round's samples, and what it keeps across rounds.
struct RoundLog<'a> {
    round: u64,
    /// The samples logged so far (repeats and unchanged values are not
    /// logged again).
    seen: &'a mut Seen,
    /// The names already reported as having blanks.
    warned: &'a mut std::collections::HashSet<String>,
    stats: &'a mut CollectStats,
}

impl RoundLog<'_> {
    /// Logs the new samples of a round, in time order, to `out`.
    fn write(
        &mut self,
        mut samples: Vec<Owned>,
        out: &mut dyn LogSink,
        progress: &mut dyn FnMut(&CollectEvent),
    ) -> Result<(), CollectError> {
        let round = self.round;
        samples.sort_by_key(|s| s.time);
        let mut text = String::new();
        let mut lines = 0;
        let mut hosts: Vec<&str> = Vec::new();
        for s in &samples {
            if !hosts.contains(&s.host.as_str()) {
                hosts.push(&s.host);
            }
            let bad = [&s.host, &s.metric]
                .into_iter()
                .find(|n| n.is_empty() || n.contains(char::is_whitespace));
            if let Some(bad) = bad {
                self.stats.unloggable += 1;
                if self.warned.insert(bad.clone()) {
                    progress(&CollectEvent::Warning {
                        round,
                        message: format!(
                            "the name {} has blanks: its samples cannot be logged",
                            quote(bad)
                        ),
                    });
                }
                continue;
            }
            let sample = Sample {
                cluster: s.cluster.as_deref(),
                host: &s.host,
                ip: s.ip.as_deref(),
                metric: &s.metric,
                time: s.time,
                value: &s.value,
                number: s.number,
                units: None,
            };
            // Non-finite values are logged too (once): the reader
            // counts them.
            let verdict = self.seen.admit(&sample).2;
            if !verdict.is_new(&mut self.stats.repeats, &mut self.stats.unchanged) {
                continue;
            }
            let _ = write!(text, "{} {} {} ", format_seconds(s.time), s.metric, s.host);
            if s.number.is_some() {
                text.push_str(&s.value);
            } else {
                quote_value(&mut text, &s.value);
            }
            text.push('\n');
            lines += 1;
        }
        out.write_all(text.as_bytes())?;
        out.flush()?;
        out.sync()?;
        self.stats.lines += lines;
        progress(&CollectEvent::Round {
            round,
            hosts: hosts.len() as u64,
            lines,
        });
        Ok(())
    }
}

fn warn_unmatched(
    opts: &CollectOptions,
    hosts: &[(String, Option<String>)],
    metrics: &[String],
    progress: &mut dyn FnMut(&CollectEvent),
) {
    for h in &opts.filter.hosts {
        if !hosts
            .iter()
            .any(|(n, ip)| matches(h, n) || ip.as_deref().is_some_and(|ip| matches(h, ip)))
        {
            progress(&CollectEvent::Warning {
                round: 1,
                message: format!("no host {} in the gmond's dump", quote(h)),
            });
        }
    }
    for m in &opts.filter.metrics {
        if !metrics.iter().any(|n| matches(m, n)) {
            progress(&CollectEvent::Warning {
                round: 1,
                message: format!("no metric {} in the gmond's dump", quote(m)),
            });
        }
    }
}
