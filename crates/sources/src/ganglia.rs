//! Ganglia: gmond/gmetad XML dumps, the seed's text log, and a collector
//! that writes that log by polling a gmond.
//!
//! # Inputs
//!
//! The format is detected from the content: after an optional UTF-8 byte
//! order mark and blank space, a `<` starts an XML dump, anything else is
//! a text log. A blank file is an error.
//!
//! ## XML dumps
//!
//! What a gmond (port 8649) or a gmetad (port 8651) writes to any TCP
//! client before closing the connection: an XML declaration, an inline DTD,
//! then one `GANGLIA_XML` element:
//!
//! ```text
//! GANGLIA_XML (VERSION, SOURCE = gmond | gmetad)
//!   GRID* (NAME, AUTHORITY, LOCALTIME?)          gmetad only; may nest
//!     CLUSTER* (NAME, LOCALTIME, OWNER?, LATLONG?, URL?)
//!       HOST* (NAME, IP, REPORTED, TN?, TMAX?, DMAX?, LOCATION?, TAGS?, GMOND_STARTED?)
//!         METRIC* (NAME, VAL, TYPE, UNITS?, TN?, TMAX?, DMAX?, SLOPE?, SOURCE?)
//!           EXTRA_DATA > EXTRA_ELEMENT (NAME, VAL)   GROUP, DESC, TITLE...
//!       HOSTS (UP, DOWN, SOURCE), METRICS (NAME, SUM, NUM, TYPE, ...)   summaries
//! ```
//!
//! `TYPE` is one of `string`, `int8`, `uint8`, `int16`, `uint16`, `int32`,
//! `uint32`, `float`, `double`, `timestamp`; every type but `string` is
//! numeric and its `VAL` must parse as a number. `UNITS` is free text
//! (gmond writes `" "` for none). Several documents may follow one another
//! in one file, as a collector appending each poll's dump would write them
//! (each with its own declaration and DTD).
//!
//! **Times.** All times are integer Unix seconds. `TN` ("time now minus
//! t0") is the age of a value in seconds *at the moment the dump was
//! written*, and that moment is the `LOCALTIME` of the **outermost** `GRID`
//! or `CLUSTER` carrying one:
//!
//! - a gmond writes `CLUSTER LOCALTIME` = its clock when answering, a
//!   host's `REPORTED` = when it last heard from that host, and
//!   `TN = LOCALTIME - t0` for hosts and metrics alike (in
//!   `gmond-3.3.8-cassandra.xml`, `LOCALTIME - REPORTED` equals the host's
//!   `TN` for all three hosts: 2, 3 and 6). `REPORTED` is therefore *not*
//!   the origin of a metric's `TN`: metrics of one host have different ages
//!   (in `gmond-3.7.1-darwin.xml`, `cpu_user` TN=1, `load_one` TN=51,
//!   `disk_free` TN=141 under a host with REPORTED = LOCALTIME - 1);
//! - a gmetad wraps everything in a root `GRID` whose `LOCALTIME` is its
//!   own clock when answering, recomputes every `TN` against that clock,
//!   but keeps each `CLUSTER LOCALTIME` and `REPORTED` as last polled from
//!   the gmond. In `gmetad-3.7.1-pretty-printed.xml` (root GRID
//!   LOCALTIME 1468982343, CLUSTER LOCALTIME 1468982340) the value
//!   `disk_total` has TN=1684, giving 1468980659; the gmond dump of the
//!   same host 1544 s earlier gives 1468980799 - 141 = 1468980658 for the
//!   same sample. The cluster's LOCALTIME would give 1468980656.
//!
//! So a metric's **sample time** is `LOCALTIME - TN` (TN absent = 0),
//! LOCALTIME taken from the outermost GRID or CLUSTER that has one; a host
//! outside any of them (the DTD allows it) uses `REPORTED + host TN`
//! instead. Both `LOCALTIME` and `TN` are truncated to the second by their
//! writers, so the same sample seen in successive dumps may come out one
//! second apart (see *Repeats* below). The times of a gmetad dump are on
//! the gmetad's clock, those of a gmond dump on the gmond's.
//!
//! `METRICS` and `HOSTS` elements (summaries over a cluster or grid) are not
//! samples of any host: they are counted ([`ReadStats::summaries`]) and
//! left out; unknown elements, `EXTRA_DATA`, comments and the DTD are
//! skipped. Attribute values are UTF-8, or ISO-8859-1 (as the declaration
//! says) when they are not valid UTF-8; the five predefined entities and
//! character references are decoded.
//!
//! ## Text log
//!
//! The log of the seed's collector (and of [`collect`]), one sample a line:
//!
//! ```text
//! unixtime metric host value
//! 1096944667 bytes_out athlon01.lsc.ufsm.br 0.59
//! 1468980798 os_name 10.62.51.152 "Darwin"
//! ```
//!
//! Fields are separated by spaces or tabs. `unixtime` is Unix seconds,
//! with at most nine decimals; `metric` and `host` are single tokens;
//! `value` is a number (what Rust's `f64` parser accepts: `0.59`, `7.8e6`,
//! `nan`) or a string metric's text between double quotes (with `\"`,
//! `\\`, `\n`, `\t` escapes). Blank lines and lines starting with `#` are
//! skipped. Anything else is an error naming the line and quoting the token.
//! The log names no cluster.
//!
//! # Records
//!
//! Each sample is about the container
//! `[("cluster", CLUSTER NAME), ("host", HOST NAME)]` when it comes from
//! inside a `CLUSTER`, else `[("host", HOST NAME)]` (always so for the text
//! log; grids are not part of the path, so the gmond and gmetad dumps of
//! one host name the same container):
//!
//! - a numeric metric is a [`What::Variable`] ([`VarOp::Set`]) of the
//!   variable type named by the metric (`bytes_out`); its units are not part
//!   of the name but are offered by [`GangliaSource::units`];
//! - a string metric (`os_name`, `gexec`...) is a point [`What::Event`] of
//!   the event type named by the metric, whose value is the text, emitted
//!   only when the text differs from the last one of that host and metric;
//! - a numeric value that is not finite (`nan`, `inf`) cannot be a Pajé
//!   variable: it is counted ([`ReadStats::non_finite`]) and left out.
//!
//! **Repeats.** Successive dumps repeat the values that did not change
//! since the previous poll. A numeric sample is a repeat, and is not
//! emitted again, when a sample of the same container, metric and value
//! was already emitted at the same time or one second before or after it:
//! the truncation of LOCALTIME and TN to the second may move one sample by
//! a second from one dump to the next (a real new sample with the same
//! value within a second would not change the variable anyway). Two
//! different values at the same second are both kept, in file order. A
//! string sample is emitted only when its text differs from the last one
//! emitted for that container and metric, and was not already emitted at
//! the same time (give or take a second). Repeats are counted
//! ([`ReadStats::repeats`], [`ReadStats::unchanged`]).
//!
//! Records come in time order (samples of equal times in file order). The
//! reader holds the file and its samples in memory to sort them (dumps are
//! not in time order: each holds values of different ages), with the index
//! of emitted samples that finds repeats: about 150 MB for a log of a
//! million samples (45 MB).
//!
//! [`Options`] keeps only some hosts (by name or IP) and metrics; what it
//! leaves out is counted in [`ReadStats::filtered`].
//!
//! # Collector
//!
//! [`collect`] polls a gmond every interval, keeps the chosen hosts and
//! metrics, and appends the samples that are new (same rules as above) to a
//! text log; `trama collect ganglia` is its command line.

use std::borrow::Cow;
use std::collections::{BTreeMap, HashMap, HashSet};
use std::fmt::Write as _;
use std::io::{self, Read, Write};
use std::net::{SocketAddr, TcpStream, ToSocketAddrs};
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use quick_xml::events::{BytesStart, Event};
use quick_xml::Reader;
use trama_num::SecondsSyntax;

use crate::record::{path, Nanos, Path, Record, Source, SourceError, VarOp, What};

const NS: i64 = 1_000_000_000;

/// Which hosts and metrics to keep. Empty lists keep everything.
///
/// An entry ending with `*` matches every name starting with what precedes
/// it (`cpu_*`); any other entry matches exactly. A host is kept when its
/// name or its IP address matches.
#[non_exhaustive]
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Options {
    /// Host names or IP addresses to keep (all when empty).
    pub hosts: Vec<String>,
    /// Metric names to keep (all when empty).
    pub metrics: Vec<String>,
}

impl Options {
    /// Options keeping these hosts and metrics (empty: all).
    pub fn new(hosts: Vec<String>, metrics: Vec<String>) -> Options {
        Options { hosts, metrics }
    }

    /// Whether a host of this name (and IP, if known) is kept.
    pub fn keeps_host(&self, name: &str, ip: Option<&str>) -> bool {
        self.hosts.is_empty()
            || self
                .hosts
                .iter()
                .any(|p| matches(p, name) || ip.is_some_and(|ip| matches(p, ip)))
    }

    /// Whether a metric of this name is kept.
    pub fn keeps_metric(&self, name: &str) -> bool {
        self.metrics.is_empty() || self.metrics.iter().any(|p| matches(p, name))
    }
}

fn matches(pattern: &str, name: &str) -> bool {
    match pattern.strip_suffix('*') {
        Some(prefix) => name.starts_with(prefix),
        None => pattern == name,
    }
}

/// The two kinds of Ganglia input.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Format {
    /// gmond/gmetad XML dumps (one or several documents).
    Xml,
    /// The text log, `unixtime metric host value` a line.
    TextLog,
}

/// Which kind of input `bytes` holds (`None` when it is blank).
pub fn detect(bytes: &[u8]) -> Option<Format> {
    let b = bytes.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(bytes);
    let first = b.iter().find(|c| !c.is_ascii_whitespace())?;
    Some(if *first == b'<' {
        Format::Xml
    } else {
        Format::TextLog
    })
}

/// One sample as read, before filters and repeats are applied.
#[derive(Clone, Debug, PartialEq)]
pub struct Sample<'a> {
    /// The enclosing cluster's name (XML only).
    pub cluster: Option<&'a str>,
    /// The host's name.
    pub host: &'a str,
    /// The host's IP address (XML only).
    pub ip: Option<&'a str>,
    /// The metric's name.
    pub metric: &'a str,
    /// The sample time (see the module documentation), in nanoseconds of
    /// the Unix epoch.
    pub time: Nanos,
    /// The value as written (`VAL`, or the log's value without its quotes).
    pub value: &'a str,
    /// The value as a number, for numeric metrics; `None` for strings.
    pub number: Option<f64>,
    /// The units (`UNITS`, trimmed; `None` when blank or absent).
    pub units: Option<&'a str>,
}

/// What a scan of an input found besides its samples.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct Scan {
    /// `GANGLIA_XML` documents read (0 for a text log).
    pub documents: u64,
    /// Samples passed to the callback.
    pub samples: u64,
    /// `METRICS` summary elements left out.
    pub summaries: u64,
}

/// Reads every sample of `bytes` (either format, detected) in file order.
/// `name` names the input in errors.
pub fn read_samples(
    name: &str,
    bytes: &[u8],
    each: &mut dyn FnMut(&Sample<'_>),
) -> Result<(Format, Scan), SourceError> {
    match detect(bytes) {
        None => Err(SourceError::file(
            name,
            "blank input: neither a Ganglia XML dump nor a text log",
        )),
        Some(Format::Xml) => Ok((Format::Xml, read_xml(name, bytes, each)?)),
        Some(Format::TextLog) => Ok((Format::TextLog, read_text_log(name, bytes, each)?)),
    }
}

// ---------------------------------------------------------------- text

/// Decodes bytes as UTF-8, or as ISO-8859-1 when they are not UTF-8.
fn decode(bytes: &[u8]) -> Cow<'_, str> {
    match std::str::from_utf8(bytes) {
        Ok(s) => Cow::Borrowed(s),
        Err(_) => Cow::Owned(bytes.iter().map(|&b| b as char).collect()),
    }
}

fn quote(tok: &str) -> String {
    let mut s: String = tok.chars().take(60).collect();
    if s.len() < tok.len() {
        s.push('…');
    }
    format!("`{s}`")
}

/// Parses Unix seconds with up to nine decimals into nanoseconds.
fn parse_seconds(tok: &str) -> Option<Nanos> {
    trama_num::parse_seconds(tok.as_bytes(), SecondsSyntax::PLAIN).ok()
}

fn format_seconds(t: Nanos) -> String {
    let (s, f) = (t.div_euclid(NS), t.rem_euclid(NS));
    if f == 0 {
        s.to_string()
    } else {
        let frac = format!("{f:09}");
        format!("{s}.{}", frac.trim_end_matches('0'))
    }
}

/// Splits off the next blank-separated token: (token, rest).
fn token(s: &str) -> Option<(&str, &str)> {
    let s = s.trim_start_matches([' ', '\t']);
    if s.is_empty() {
        return None;
    }
    let end = s.find([' ', '\t']).unwrap_or(s.len());
    Some((&s[..end], &s[end..]))
}

/// Parses a quoted string value; `s` starts with `"`.
fn unquote(s: &str) -> Result<String, String> {
    let mut out = String::new();
    let mut chars = s[1..].chars();
    loop {
        match chars.next() {
            None => return Err(format!("unterminated quoted value {}", quote(s))),
            Some('"') => break,
            Some('\\') => match chars.next() {
                Some('"') => out.push('"'),
                Some('\\') => out.push('\\'),
                Some('n') => out.push('\n'),
                Some('t') => out.push('\t'),
                Some(c) => return Err(format!("unknown escape `\\{c}` in {}", quote(s))),
                None => return Err(format!("unterminated quoted value {}", quote(s))),
            },
            Some(c) => out.push(c),
        }
    }
    let rest = chars.as_str();
    if !rest.trim_matches([' ', '\t']).is_empty() {
        return Err(format!("unexpected {} after the quoted value", quote(rest)));
    }
    Ok(out)
}

fn quote_value(out: &mut String, text: &str) {
    out.push('"');
    for c in text.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\t' => out.push_str("\\t"),
            c => out.push(c),
        }
    }
    out.push('"');
}

fn read_text_log(
    name: &str,
    bytes: &[u8],
    each: &mut dyn FnMut(&Sample<'_>),
) -> Result<Scan, SourceError> {
    let mut scan = Scan::default();
    let bytes = bytes.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(bytes);
    for (i, raw) in bytes.split(|&b| b == b'\n').enumerate() {
        let lineno = i as u64 + 1;
        let raw = raw.strip_suffix(b"\r").unwrap_or(raw);
        let line = decode(raw);
        let l = line.trim_matches([' ', '\t']);
        if l.is_empty() || l.starts_with('#') {
            continue;
        }
        let err = |m: String| SourceError::line(name, lineno, m);
        let (t, rest) = token(l).expect("line is not blank");
        let time = parse_seconds(t).ok_or_else(|| {
            err(format!(
                "time {} is not Unix seconds (digits, at most nine decimals)",
                quote(t)
            ))
        })?;
        let (metric, rest) =
            token(rest).ok_or_else(|| err(format!("line {} has no metric", quote(l))))?;
        let (host, rest) =
            token(rest).ok_or_else(|| err(format!("line {} has no host", quote(l))))?;
        let v = rest.trim_matches([' ', '\t']);
        if v.is_empty() {
            return Err(err(format!("line {} has no value", quote(l))));
        }
        let text;
        let (value, number) = if v.starts_with('"') {
            text = unquote(v).map_err(err)?;
            (text.as_str(), None)
        } else {
            if v.contains([' ', '\t']) {
                return Err(err(format!(
                    "value {} has blanks: a string value must be quoted",
                    quote(v)
                )));
            }
            let n: f64 = v.parse().map_err(|_| {
                err(format!(
                    "value {} is neither a number nor a quoted string",
                    quote(v)
                ))
            })?;
            (v, Some(n))
        };
        scan.samples += 1;
        each(&Sample {
            cluster: None,
            host,
            ip: None,
            metric,
            time,
            value,
            number,
            units: None,
        });
    }
    Ok(scan)
}

// ---------------------------------------------------------------- XML

fn line_at(bytes: &[u8], pos: u64) -> u64 {
    let end = (pos as usize).min(bytes.len());
    memchr::memchr_iter(b'\n', &bytes[..end]).count() as u64 + 1
}

/// An open element of the document being read.
enum Open {
    Root,
    Grid {
        localtime: Option<i64>,
    },
    Cluster {
        name: String,
        localtime: Option<i64>,
    },
    Host(HostCtx),
    Other,
}

struct HostCtx {
    name: String,
    ip: Option<String>,
    reported: Option<i64>,
    tn: Option<i64>,
}

/// The attributes named in `wanted`, decoded, in that order.
fn attributes<const N: usize>(
    e: &BytesStart<'_>,
    wanted: [&str; N],
) -> Result<[Option<String>; N], String> {
    let mut out: [Option<String>; N] = std::array::from_fn(|_| None);
    for a in e.attributes() {
        let a = a.map_err(|err| format!("bad attribute: {err}"))?;
        if let Some(i) = wanted.iter().position(|w| w.as_bytes() == a.key.as_ref()) {
            let raw = decode(&a.value);
            let v = quick_xml::escape::unescape(&raw)
                .map_err(|err| format!("attribute {}={}: {err}", wanted[i], quote(&raw)))?;
            out[i] = Some(v.into_owned());
        }
    }
    Ok(out)
}

fn seconds_attr(elem: &str, attr: &str, v: &Option<String>) -> Result<Option<i64>, String> {
    match v {
        None => Ok(None),
        Some(s) => s.trim().parse::<i64>().map(Some).map_err(|_| {
            format!(
                "{elem} {attr}={} is not a whole number of seconds",
                quote(s)
            )
        }),
    }
}

fn read_xml(
    name: &str,
    bytes: &[u8],
    each: &mut dyn FnMut(&Sample<'_>),
) -> Result<Scan, SourceError> {
    let mut reader = Reader::from_reader(bytes);
    reader.config_mut().trim_text(true);
    let mut scan = Scan::default();
    let mut stack: Vec<Open> = Vec::new();
    loop {
        let ev = reader.read_event();
        // Errors about an element name the line of its closing `>`.
        let pos = reader.buffer_position().saturating_sub(1);
        let at = |m: String| SourceError::line(name, line_at(bytes, pos), m);
        let ev = match ev {
            Ok(ev) => ev,
            Err(e) => {
                return Err(SourceError::line(
                    name,
                    line_at(bytes, reader.error_position()),
                    format!("malformed XML: {e}"),
                ))
            }
        };
        let (e, empty) = match ev {
            Event::Start(e) => (e, false),
            Event::Empty(e) => (e, true),
            Event::End(_) => {
                stack.pop();
                continue;
            }
            Event::Text(t) => {
                let raw = decode(&t);
                if raw.trim().is_empty() {
                    continue;
                }
                return Err(at(format!("unexpected text {}", quote(raw.trim()))));
            }
            Event::CData(_) | Event::GeneralRef(_) => {
                return Err(at("unexpected text content".into()));
            }
            Event::Eof => break,
            // Declarations, the DTD, comments, processing instructions.
            _ => continue,
        };
        let tag = decode(e.name().as_ref()).into_owned();
        let open = match (stack.last(), tag.as_str()) {
            (None, "GANGLIA_XML") => {
                scan.documents += 1;
                Open::Root
            }
            (None, _) => {
                return Err(at(format!("<{tag}> outside a GANGLIA_XML document")));
            }
            (Some(_), "GANGLIA_XML") => {
                return Err(at("GANGLIA_XML inside GANGLIA_XML".into()));
            }
            (_, "GRID") => {
                let [lt] = attributes(&e, ["LOCALTIME"]).map_err(at)?;
                Open::Grid {
                    localtime: seconds_attr("GRID", "LOCALTIME", &lt).map_err(at)?,
                }
            }
            (_, "CLUSTER") => {
                let [n, lt] = attributes(&e, ["NAME", "LOCALTIME"]).map_err(at)?;
                Open::Cluster {
                    name: n.ok_or_else(|| at("CLUSTER without NAME".into()))?,
                    localtime: seconds_attr("CLUSTER", "LOCALTIME", &lt).map_err(at)?,
                }
            }
            (_, "HOST") => {
                let [n, ip, rep, tn] =
                    attributes(&e, ["NAME", "IP", "REPORTED", "TN"]).map_err(at)?;
                Open::Host(HostCtx {
                    name: n.ok_or_else(|| at("HOST without NAME".into()))?,
                    ip,
                    reported: seconds_attr("HOST", "REPORTED", &rep).map_err(at)?,
                    tn: seconds_attr("HOST", "TN", &tn).map_err(at)?,
                })
            }
            (Some(Open::Host(_)), "METRIC") => {
                let [n, val, ty, units, tn] =
                    attributes(&e, ["NAME", "VAL", "TYPE", "UNITS", "TN"]).map_err(at)?;
                let metric = n.ok_or_else(|| at("METRIC without NAME".into()))?;
                let val =
                    val.ok_or_else(|| at(format!("METRIC {} without VAL", quote(&metric))))?;
                let ty = ty.ok_or_else(|| at(format!("METRIC {} without TYPE", quote(&metric))))?;
                let tn = seconds_attr("METRIC", "TN", &tn).map_err(at)?.unwrap_or(0);
                let number = match ty.as_str() {
                    "string" => None,
                    "int8" | "uint8" | "int16" | "uint16" | "int32" | "uint32" | "float"
                    | "double" | "timestamp" => Some(val.trim().parse::<f64>().map_err(|_| {
                        at(format!(
                            "METRIC {} of TYPE {ty} has the value {}, not a number",
                            quote(&metric),
                            quote(&val)
                        ))
                    })?),
                    _ => {
                        return Err(at(format!(
                            "METRIC {} has the unknown TYPE {}",
                            quote(&metric),
                            quote(&ty)
                        )))
                    }
                };
                let Some(Open::Host(host)) = stack.last() else {
                    unreachable!("matched above")
                };
                let reference = stack
                    .iter()
                    .find_map(|o| match o {
                        Open::Grid { localtime } | Open::Cluster { localtime, .. } => *localtime,
                        _ => None,
                    })
                    .or_else(|| host.reported.map(|r| r + host.tn.unwrap_or(0)))
                    .ok_or_else(|| {
                        at(format!(
                            "no time for METRIC {}: no LOCALTIME above it and no REPORTED on its HOST",
                            quote(&metric)
                        ))
                    })?;
                let time = (reference - tn)
                    .checked_mul(NS)
                    .ok_or_else(|| at(format!("time {reference} - {tn} out of range")))?;
                let cluster = stack.iter().rev().find_map(|o| match o {
                    Open::Cluster { name, .. } => Some(name.as_str()),
                    _ => None,
                });
                let units = units.as_deref().map(str::trim).filter(|u| !u.is_empty());
                scan.samples += 1;
                each(&Sample {
                    cluster,
                    host: &host.name,
                    ip: host.ip.as_deref(),
                    metric: &metric,
                    time,
                    value: if number.is_some() { val.trim() } else { &val },
                    number,
                    units,
                });
                Open::Other
            }
            (_, "METRIC") => return Err(at("METRIC outside a HOST".into())),
            (_, "METRICS") => {
                scan.summaries += 1;
                Open::Other
            }
            _ => Open::Other,
        };
        if !empty {
            stack.push(open);
        }
    }
    if !stack.is_empty() {
        return Err(SourceError::line(
            name,
            line_at(bytes, bytes.len() as u64),
            "the file ends inside a GANGLIA_XML document (a dump cut short?)",
        ));
    }
    if scan.documents == 0 {
        return Err(SourceError::file(name, "no GANGLIA_XML document"));
    }
    Ok(scan)
}

// ---------------------------------------------------------------- repeats

enum Verdict {
    New,
    Repeat,
    Unchanged,
}

/// What was already emitted, for each container and metric.
#[derive(Default)]
struct Seen {
    /// Containers by `1 cluster \0 host` or `0 host`.
    containers: HashMap<String, u32>,
    key: String,
    metrics: HashMap<String, u32>,
    /// Numeric samples emitted: (container, metric, time, value bits).
    numbers: HashSet<(u32, u32, Nanos, u64)>,
    /// The last text emitted for each string metric.
    texts: HashMap<(u32, u32), Box<str>>,
    /// The texts emitted for each string metric at each time.
    texts_at: HashMap<(u32, u32, Nanos), Vec<Box<str>>>,
}

impl Seen {
    /// The container's and metric's indices (new ones numbered in order of
    /// appearance) and whether the sample is new.
    fn admit(&mut self, s: &Sample<'_>) -> (u32, u32, Verdict) {
        self.key.clear();
        match s.cluster {
            Some(cl) => {
                self.key.push('1');
                self.key.push_str(cl);
                self.key.push('\0');
            }
            None => self.key.push('0'),
        }
        self.key.push_str(s.host);
        let n = self.containers.len() as u32;
        let c = match self.containers.get(self.key.as_str()) {
            Some(&c) => c,
            None => {
                self.containers.insert(self.key.clone(), n);
                n
            }
        };
        let n = self.metrics.len() as u32;
        let m = match self.metrics.get(s.metric) {
            Some(&m) => m,
            None => {
                self.metrics.insert(s.metric.to_string(), n);
                n
            }
        };
        let verdict = match s.number {
            Some(v) => {
                // +0.0 and -0.0 are one value.
                let bits = (v + 0.0).to_bits();
                let seen = [s.time, s.time - NS, s.time + NS]
                    .iter()
                    .any(|&t| self.numbers.contains(&(c, m, t, bits)));
                if seen {
                    Verdict::Repeat
                } else {
                    self.numbers.insert((c, m, s.time, bits));
                    Verdict::New
                }
            }
            None => {
                let replayed = [s.time, s.time - NS, s.time + NS].iter().any(|&t| {
                    self.texts_at
                        .get(&(c, m, t))
                        .is_some_and(|v| v.iter().any(|x| **x == *s.value))
                });
                match self.texts.get(&(c, m)) {
                    Some(t) if **t == *s.value => Verdict::Unchanged,
                    _ if replayed => Verdict::Repeat,
                    _ => {
                        self.texts.insert((c, m), s.value.into());
                        self.texts_at
                            .entry((c, m, s.time))
                            .or_default()
                            .push(s.value.into());
                        Verdict::New
                    }
                }
            }
        };
        (c, m, verdict)
    }
}

// ---------------------------------------------------------------- source

/// What a [`GangliaSource`] read and what it left out.
#[non_exhaustive]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ReadStats {
    /// `GANGLIA_XML` documents (0 for a text log).
    pub documents: u64,
    /// Samples read (every METRIC of every document, every log line).
    pub samples: u64,
    /// Samples left out by [`Options`].
    pub filtered: u64,
    /// Numeric samples already emitted (repeated by a later dump).
    pub repeats: u64,
    /// String samples whose text had not changed.
    pub unchanged: u64,
    /// Numeric samples whose value is not finite (`nan`, `inf`), left out.
    pub non_finite: u64,
    /// `METRICS` summary elements, left out.
    pub summaries: u64,
    /// [`What::Variable`] records.
    pub variables: u64,
    /// [`What::Event`] records.
    pub events: u64,
}

enum Val {
    Num(f64),
    Text(Box<str>),
}

struct Entry {
    time: Nanos,
    container: u32,
    metric: u32,
    val: Val,
}

/// The records of a Ganglia XML dump file or text log (see the module
/// documentation).
pub struct GangliaSource {
    name: String,
    format: Format,
    containers: Vec<Path>,
    metrics: Vec<String>,
    units: BTreeMap<String, String>,
    entries: std::vec::IntoIter<Entry>,
    stats: ReadStats,
}

impl GangliaSource {
    /// Reads the file at `path`.
    pub fn open(
        path: impl AsRef<std::path::Path>,
        opts: &Options,
    ) -> Result<GangliaSource, SourceError> {
        let p = path.as_ref();
        let name = p.display().to_string();
        let bytes = std::fs::read(p).map_err(|e| SourceError::file(&name, e.to_string()))?;
        GangliaSource::from_bytes(name, &bytes, opts)
    }

    /// Reads an input held in memory; `name` names it in errors.
    pub fn from_bytes(
        name: impl Into<String>,
        bytes: &[u8],
        opts: &Options,
    ) -> Result<GangliaSource, SourceError> {
        let name = name.into();
        let mut seen = Seen::default();
        let mut stats = ReadStats::default();
        let mut containers: Vec<Path> = Vec::new();
        let mut metrics: Vec<String> = Vec::new();
        let mut units: BTreeMap<String, String> = BTreeMap::new();
        let mut entries: Vec<Entry> = Vec::new();
        let (format, scan) = read_samples(&name, bytes, &mut |s| {
            if !opts.keeps_host(s.host, s.ip) || !opts.keeps_metric(s.metric) {
                stats.filtered += 1;
                return;
            }
            if s.number.is_some_and(|n| !n.is_finite()) {
                stats.non_finite += 1;
                return;
            }
            let (c, m, verdict) = seen.admit(s);
            if c as usize == containers.len() {
                containers.push(match s.cluster {
                    Some(cl) => path(&[("cluster", cl), ("host", s.host)]),
                    None => path(&[("host", s.host)]),
                });
            }
            if m as usize == metrics.len() {
                metrics.push(s.metric.to_string());
            }
            if let Some(u) = s.units {
                units
                    .entry(s.metric.to_string())
                    .or_insert_with(|| u.to_string());
            }
            let val = match verdict {
                Verdict::Repeat => {
                    stats.repeats += 1;
                    return;
                }
                Verdict::Unchanged => {
                    stats.unchanged += 1;
                    return;
                }
                Verdict::New => match s.number {
                    Some(n) => {
                        stats.variables += 1;
                        Val::Num(n)
                    }
                    None => {
                        stats.events += 1;
                        Val::Text(s.value.into())
                    }
                },
            };
            entries.push(Entry {
                time: s.time,
                container: c,
                metric: m,
                val,
            });
        })?;
        stats.documents = scan.documents;
        stats.samples = scan.samples;
        stats.summaries = scan.summaries;
        entries.sort_by_key(|e| e.time);
        Ok(GangliaSource {
            name,
            format,
            containers,
            metrics,
            units,
            entries: entries.into_iter(),
            stats,
        })
    }

    /// The input's format.
    pub fn format(&self) -> Format {
        self.format
    }

    /// The units of a metric (`UNITS` of its first sample that had some:
    /// `bytes/sec`, `KB`, `%`...), `None` when unknown (always for a text log).
    pub fn units(&self, metric: &str) -> Option<&str> {
        self.units.get(metric).map(String::as_str)
    }

    /// Every metric with known units, by name.
    pub fn all_units(&self) -> &BTreeMap<String, String> {
        &self.units
    }

    /// The containers samples were read for (kept by the options), in order
    /// of first appearance.
    pub fn containers(&self) -> &[Path] {
        &self.containers
    }

    /// The metrics read (kept by the options), in order of first appearance.
    pub fn metrics(&self) -> &[String] {
        &self.metrics
    }

    /// What was read and left out.
    pub fn stats(&self) -> ReadStats {
        self.stats
    }
}

impl Source for GangliaSource {
    fn name(&self) -> &str {
        &self.name
    }

    fn next_record(&mut self) -> Result<Option<Record>, SourceError> {
        let Some(e) = self.entries.next() else {
            return Ok(None);
        };
        let container = self.containers[e.container as usize].clone();
        let ty = self.metrics[e.metric as usize].clone();
        let what = match e.val {
            Val::Num(value) => What::Variable {
                container,
                ty,
                op: VarOp::Set,
                value,
            },
            Val::Text(t) => What::Event {
                container,
                ty,
                value: t.into(),
                extra: Vec::new(),
            },
        };
        Ok(Some(Record { time: e.time, what }))
    }
}

// ---------------------------------------------------------------- collector

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
    pub filter: Options,
    /// Longest wait to connect, and between two reads of a dump.
    pub timeout: Duration,
}

impl CollectOptions {
    /// Polls `gmond` every `interval`, everything kept, until stopped, with
    /// a 10 s timeout.
    pub fn new(gmond: impl Into<String>, interval: Duration) -> CollectOptions {
        CollectOptions {
            gmond: gmond.into(),
            interval,
            count: None,
            filter: Options::default(),
            timeout: Duration::from_secs(10),
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
    Options(String),
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

/// Connects, reads the whole dump, returns it.
fn fetch(gmond: &str, timeout: Duration) -> Result<Vec<u8>, String> {
    let addrs = resolve(gmond).map_err(|e| format!("cannot resolve {gmond}: {e}"))?;
    let mut last = format!("{gmond} has no address");
    for a in addrs {
        match TcpStream::connect_timeout(&a, timeout) {
            Ok(mut s) => {
                s.set_read_timeout(Some(timeout))
                    .map_err(|e| e.to_string())?;
                let mut buf = Vec::new();
                s.read_to_end(&mut buf)
                    .map_err(|e| format!("reading from {a}: {e}"))?;
                if buf.iter().all(|b| b.is_ascii_whitespace()) {
                    return Err(format!(
                        "{a} closed the connection without sending anything \
                         (is this host allowed by the gmond's tcp_accept_channel acl?)"
                    ));
                }
                return Ok(buf);
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
    if opts.interval.is_zero() {
        return Err(CollectError::Options(
            "the interval must be positive".into(),
        ));
    }
    if opts.count == Some(0) {
        return Err(CollectError::Options("the count must be at least 1".into()));
    }
    if opts.gmond.trim().is_empty() {
        return Err(CollectError::Options("no gmond given".into()));
    }
    let mut stats = CollectStats::default();
    let mut seen = Seen::default();
    let mut warned: std::collections::HashSet<String> = Default::default();
    let mut next = Instant::now();
    let mut streak = 0u64;
    let mut last_failure: Option<String> = None;
    'rounds: loop {
        stats.rounds += 1;
        let round = stats.rounds;
        let label = "its dump";
        let mut samples: Vec<Owned> = Vec::new();
        let mut hosts_seen: Vec<(String, Option<String>)> = Vec::new();
        let mut metrics_seen: Vec<String> = Vec::new();
        let mut filtered = 0;
        let result = fetch(&opts.gmond, opts.timeout).and_then(|bytes| {
            if detect(&bytes) != Some(Format::Xml) {
                return Err(format!(
                    "it sent no XML dump (first bytes {})",
                    quote(&decode(&bytes[..bytes.len().min(40)]))
                ));
            }
            read_xml(label, &bytes, &mut |s| {
                if round == 1 {
                    if !hosts_seen.iter().any(|(h, _)| h == s.host) {
                        hosts_seen.push((s.host.into(), s.ip.map(Into::into)));
                    }
                    if !metrics_seen.iter().any(|m| m == s.metric) {
                        metrics_seen.push(s.metric.into());
                    }
                }
                if !opts.filter.keeps_host(s.host, s.ip) || !opts.filter.keeps_metric(s.metric) {
                    filtered += 1;
                    return;
                }
                samples.push(Owned {
                    cluster: s.cluster.map(Into::into),
                    host: s.host.into(),
                    ip: s.ip.map(Into::into),
                    metric: s.metric.into(),
                    time: s.time,
                    value: s.value.into(),
                    number: s.number,
                });
            })
            .map_err(|e| e.to_string())
        });
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
                    warn_unmatched(opts, &hosts_seen, &metrics_seen, progress);
                }
                stats.filtered += filtered;
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
                        stats.unloggable += 1;
                        if warned.insert(bad.clone()) {
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
                    match seen.admit(&sample).2 {
                        Verdict::Repeat => {
                            stats.repeats += 1;
                            continue;
                        }
                        Verdict::Unchanged => {
                            stats.unchanged += 1;
                            continue;
                        }
                        Verdict::New => {}
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
                stats.lines += lines;
                progress(&CollectEvent::Round {
                    round,
                    hosts: hosts.len() as u64,
                    lines,
                });
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
        loop {
            if stop.load(Ordering::SeqCst) {
                break 'rounds;
            }
            let now = Instant::now();
            if now >= next {
                break;
            }
            std::thread::sleep((next - now).min(Duration::from_millis(50)));
        }
    }
    Ok(stats)
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn seconds_round_trip() {
        assert_eq!(parse_seconds("1096944667"), Some(1_096_944_667 * NS));
        assert_eq!(parse_seconds("1.5"), Some(NS + NS / 2));
        assert_eq!(parse_seconds("2.000000001"), Some(2 * NS + 1));
        assert_eq!(parse_seconds("2.0000000001"), None);
        assert_eq!(parse_seconds("-1"), None);
        assert_eq!(parse_seconds("1e3"), None);
        assert_eq!(parse_seconds(".5"), None);
        assert_eq!(parse_seconds("99999999999999999999"), None);
        for t in [0, NS, 1_096_944_667 * NS, 3 * NS + 250_000_000, 7] {
            assert_eq!(parse_seconds(&format_seconds(t)), Some(t), "{t}");
        }
        assert_eq!(format_seconds(3 * NS + 250_000_000), "3.25");
    }

    #[test]
    fn quoting_round_trips() {
        for s in ["Darwin", "a \"b\" \\ c", "tab\there\nnl", ""] {
            let mut q = String::new();
            quote_value(&mut q, s);
            assert_eq!(unquote(&q).unwrap(), s);
        }
        assert!(unquote("\"abc").is_err());
        assert!(unquote("\"abc\" x").is_err());
        assert!(unquote("\"a\\qb\"").is_err());
    }

    #[test]
    fn patterns() {
        let o = Options::new(
            vec!["node*".into(), "10.0.0.7".into()],
            vec!["cpu_*".into()],
        );
        assert!(o.keeps_host("node3", None));
        assert!(o.keeps_host("x", Some("10.0.0.7")));
        assert!(!o.keeps_host("x", Some("10.0.0.8")));
        assert!(o.keeps_metric("cpu_user"));
        assert!(!o.keeps_metric("load_one"));
        assert!(Options::default().keeps_metric("anything"));
    }

    #[test]
    fn latin1_attributes() {
        let xml = b"<GANGLIA_XML><CLUSTER NAME=\"caf\xE9\" LOCALTIME=\"10\"><HOST NAME=\"h\" IP=\"i\" REPORTED=\"10\">\
<METRIC NAME=\"m\" VAL=\"a&amp;b\" TYPE=\"string\"/></HOST></CLUSTER></GANGLIA_XML>";
        let mut got = Vec::new();
        read_xml("x", xml, &mut |s| {
            got.push((s.cluster.unwrap().to_string(), s.value.to_string()))
        })
        .unwrap();
        assert_eq!(got, vec![("café".to_string(), "a&b".to_string())]);
    }
}
