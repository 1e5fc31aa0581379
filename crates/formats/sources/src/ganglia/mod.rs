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
//! - a numeric metric is a [`What::Variable`](trama_records::What::Variable) ([`VarOp::Set`](trama_records::VarOp::Set)) of the
//!   variable type named by the metric (`bytes_out`); its units are not part
//!   of the name but are offered by [`GangliaSource::units`];
//! - a string metric (`os_name`, `gexec`...) is a point [`What::Event`](trama_records::What::Event) of
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
//! [`GangliaOptions`] keeps only some hosts (by name or IP) and metrics; what it
//! leaves out is counted in [`ReadStats::filtered`].
//!
//! # Collector
//!
//! [`collect`] polls a gmond every interval, keeps the chosen hosts and
//! metrics, and appends the samples that are new (same rules as above) to a
//! text log; `trama collect ganglia` is its command line.

mod collect;
mod log;
mod repeats;
mod source;
mod xml;

pub use collect::{
    collect, CollectError, CollectEvent, CollectOptions, CollectStats, LogSink, GMOND_PORT,
    MAX_ANSWER,
};
pub use source::{GangliaSource, ReadStats};

use std::borrow::Cow;

use trama_records::{Nanos, SourceError};

const NS: i64 = 1_000_000_000;

/// Which hosts and metrics to keep. Empty lists keep everything.
///
/// An entry ending with `*` matches every name starting with what precedes
/// it (`cpu_*`); any other entry matches exactly. A host is kept when its
/// name or its IP address matches.
#[non_exhaustive]
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct GangliaOptions {
    /// Host names or IP addresses to keep (all when empty).
    pub hosts: Vec<String>,
    /// Metric names to keep (all when empty).
    pub metrics: Vec<String>,
}

impl GangliaOptions {
    /// GangliaOptions keeping these hosts and metrics (empty: all).
    pub fn new(hosts: Vec<String>, metrics: Vec<String>) -> GangliaOptions {
        GangliaOptions { hosts, metrics }
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
        Some(Format::Xml) => Ok((Format::Xml, xml::read_xml(name, bytes, each)?)),
        Some(Format::TextLog) => Ok((Format::TextLog, log::read_text_log(name, bytes, each)?)),
    }
}

/// Decodes bytes as UTF-8, or as ISO-8859-1 when they are not UTF-8.
fn decode(bytes: &[u8]) -> Cow<'_, str> {
    match std::str::from_utf8(bytes) {
        Ok(s) => Cow::Borrowed(s),
        Err(_) => Cow::Owned(bytes.iter().map(|&b| b as char).collect()),
    }
}

/// A token for a message: between backquotes, cut after 60 characters.
fn quote(tok: &str) -> String {
    let mut s: String = tok.chars().take(60).collect();
    if s.len() < tok.len() {
        s.push('…');
    }
    format!("`{s}`")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn patterns() {
        let o = GangliaOptions::new(
            vec!["node*".into(), "10.0.0.7".into()],
            vec!["cpu_*".into()],
        );
        assert!(o.keeps_host("node3", None));
        assert!(o.keeps_host("x", Some("10.0.0.7")));
        assert!(!o.keeps_host("x", Some("10.0.0.8")));
        assert!(o.keeps_metric("cpu_user"));
        assert!(!o.keeps_metric("load_one"));
        assert!(GangliaOptions::default().keeps_metric("anything"));
    }
}
