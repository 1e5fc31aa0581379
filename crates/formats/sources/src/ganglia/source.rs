//! [`GangliaSource`]: the samples of either input kind, filtered, without
//! repeats, in time order, as records.

use std::collections::BTreeMap;

use super::repeats::Seen;
use super::{read_samples, Format, GangliaOptions};
use crate::reading::OpenSource;
use trama_records::{path, Nanos, Path, Record, Source, SourceError, VarOp, What};

/// What a [`GangliaSource`] read and what it left out.
#[non_exhaustive]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ReadStats {
    /// `GANGLIA_XML` documents (0 for a text log).
    pub documents: u64,
    /// Samples read (every METRIC of every document, every log line).
    pub samples: u64,
    /// Samples left out by [`GangliaOptions`].
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

impl OpenSource for GangliaSource {
    type Options = GangliaOptions;

    /// Reads the whole of an XML dump or a text log.
    fn from_bytes(
        name: String,
        bytes: Vec<u8>,
        opts: &GangliaOptions,
    ) -> Result<Self, SourceError> {
        let mut seen = Seen::default();
        let mut stats = ReadStats::default();
        let mut containers: Vec<Path> = Vec::new();
        let mut metrics: Vec<String> = Vec::new();
        let mut units: BTreeMap<String, String> = BTreeMap::new();
        let mut entries: Vec<Entry> = Vec::new();
        let (format, scan) = read_samples(&name, &bytes, &mut |s| {
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
            if !verdict.is_new(&mut stats.repeats, &mut stats.unchanged) {
                return;
            }
            let val = match s.number {
                Some(n) => {
                    stats.variables += 1;
                    Val::Num(n)
                }
                None => {
                    stats.events += 1;
                    Val::Text(s.value.into())
                }
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
}

impl GangliaSource {
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
                ty: ty.into(),
                op: VarOp::Set,
                value,
            },
            Val::Text(t) => What::Event {
                container,
                ty: ty.into(),
                value: t.into(),
                extra: Vec::new(),
            },
        };
        Ok(Some(Record { time: e.time, what }))
    }
}
