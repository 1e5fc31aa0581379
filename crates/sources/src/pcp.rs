//! Performance Co-Pilot text exports: `pmrep -o csv`, `pmdumptext` and
//! `pmdumplog -a`.
//!
//! PCP archives are binary; the tools that ship with PCP print them as text,
//! and these are the texts read here. Three layouts are understood; the
//! reader picks one from the content ([`detect_format`]) unless told.
//!
//! # `pmrep -o csv`
//!
//! Lines end with `\n` (a `\r` before it is dropped). Fields are separated
//! by one delimiter character (`,` unless `pmrep -l` chose another; the
//! reader takes the character after `Time` or `Host` in the header). pmrep
//! never escapes: it replaces the delimiter, `"` and new lines inside names
//! and string values by spaces, so a quoted field runs from its opening `"`
//! to the next `"`, which must end the field.
//!
//! - pmrep always writes the time in CSV (`-p` only matters for its
//!   columns output, which is not read here).
//! - Lines starting with `#` before the header (the `-x` extended header,
//!   written as `#` comments for CSV) and empty lines are skipped.
//! - The header line is `Time` followed by one quoted column name per metric
//!   value, or `Host<d>Interval<d>Time` followed by them (`-k`, extended
//!   CSV). pmrep writes no header with `-H`: such a file cannot be read
//!   (its columns have no names) and is an error. With `-1` (dynamic
//!   header) a new header line may come between rows; it replaces the
//!   columns from there on.
//! - A column name is a metric name (PMNS components: letters, digits, `_`,
//!   separated by `.`) followed by at most one instance and one unit:
//!   `metric`, `metric[inst]` (current pmrep), `metric-inst` (pmrep 2 to 5,
//!   an empty instance after `-` when it has no name), `metric(unit)` or
//!   `metric[inst](unit)` (`--csv-unit-info`). A name starting with `{` is
//!   a label column of `-m` (`--include-labels`): its cells are not values
//!   and are ignored. With `--no-inst-info` a metric with instances repeats
//!   its bare name once per instance: these columns are told apart by their
//!   rank, as instances `#1`, `#2`... (1-based, in column order).
//! - Each data line has exactly as many fields as the header: the host
//!   (extended CSV), the interval in seconds (extended CSV, ignored), the
//!   time, then one cell per column. An empty cell is a missing value
//!   (instance absent at that time, no value): it produces no record. A
//!   quoted cell is a string value; any other cell is a number (`inf`,
//!   `-inf` and `NaN` are counted in [`PcpStats::non_finite`] and produce no
//!   record, as Pajé variables cannot hold them).
//!
//! # `pmdumptext`
//!
//! Fields are separated by one delimiter character (a tab unless
//! `pmdumptext -d` chose another; the reader takes the character after
//! `Time` in the header line). Strings are written between `"` without any
//! escape.
//!
//! - `pmdumptext -m` (or `-H`) writes a header line `Time<d>spec<d>spec...`
//!   where each `spec` is `[source:|source/]metric["instance"]` (the source,
//!   with `-l`, is a host followed by `:` or an archive path followed by
//!   `/`). `-M` writes instead, once, a numbered list of lines
//!   `[ n] spec` then an empty line and a `Column` line of column numbers.
//!   One of the two is required: plain `pmdumptext` output names no column.
//! - `-u` adds a units line whose first field is `none`; `-N` a
//!   normalisation line whose first field is the unavailable string (`?`).
//!   Both are header lines: skipped. A header repeated by `-R` replaces the
//!   columns.
//! - The interactive layout of `-i` (header lines starting with `Metric`,
//!   `Source`, `Inst`, `Normal`, `Units`, padded) truncates names to the
//!   column width and is refused, unless the full names were listed first
//!   (`-X`): then these lines are skipped and fields are trimmed.
//! - A data line is `[offset<d>]time<d>value<d>value...`: the offset in
//!   seconds from the start (`-o`, ignored), the time (by default the first
//!   19 characters of `ctime`, `Thu Jan  1 00:00:00`, which carry no year:
//!   [`PcpOptions::year`] gives it), then one value per column: the
//!   unavailable string (`?`, or [`PcpOptions::unavailable`]) is a missing
//!   value, `"text"` a string, anything else a number.
//!
//! # `pmdumplog -a` (and `pmdumplog` of values only)
//!
//! - `Performance metrics from host H` names the host; the `commencing`
//!   line (`commencing Fri Aug  7 04:34:32.257504 1998`) gives the date of
//!   the first record.
//! - A record starts with a line `HH:MM:SS.frac N metrics` (`metric` when
//!   N is 1). Its times carry no date: the first is on the commencing date
//!   and a time of day smaller than the previous one moves to the next day.
//!   `HH:MM:SS.frac <mark>` lines (gaps in the archive) are counted.
//! - Value lines, indented, are `pmid (name): value V`,
//!   `pmid (name): inst [id or "iname"] value V`, or `pmid (name):`
//!   followed by lines `inst [id or "iname"] value V` (an instance without
//!   name, `inst [id or ???]`, is named by its number). `V` is a number or a
//!   `"string"`; other values (aggregates, events) and lines such as
//!   `No values returned!` are counted in [`PcpStats::unsupported`].
//! - Every other line (the label, metric descriptions, instance domains,
//!   the temporal index, `[N bytes]`) is outside records and skipped.
//!
//! # Times
//!
//! Times are printed in a zone, not in UTC: pmrep and pmdumptext print
//! local time, or the archive's zone with `-z`, or `-Z`'s zone. The reader
//! takes them as wall-clock times of the fixed offset
//! [`PcpOptions::utc_offset`] (seconds east of UTC, default 0: UTC, which is
//! what `-z` prints for an archive made in UTC such as the QA's
//! `dyninsts`). An explicit zone written after a time wins over the option:
//! pmrep's extended CSV suffix ` UTC+H[:MM]` (`UTC+2` is two hours ahead of
//! UTC), ` +HHMM`, ` +HH:MM` or `Z`. Time layouts accepted everywhere:
//! `YYYY-MM-DD HH:MM:SS[.frac]` (pmrep's default, `T` also accepted between
//! date and time), `Www Mmm dd HH:MM:SS[.frac][ YYYY]` (ctime), and a bare
//! number of seconds since the Unix epoch (`-f %s`, never shifted). Records
//! are timed in nanoseconds since the Unix epoch, UTC.
//!
//! # Records
//!
//! The path of every record is `[("host", H)]`: `H` is the row's `Host`
//! (extended CSV), the source of a `pmdumptext -l` column, the host of a
//! `pmdumplog` label, or else [`PcpOptions::host`]; with none of them the
//! input is refused. Metric names stay whole and hierarchical as entity type
//! names (`mem.util.free`). An instance is kept in the type name as
//! `disk.dev.read[sda]` ([`InstanceMapping::InName`], the default: it is
//! PCP's own notation, and every instance keeps its own variable beside the
//! host's others), or becomes a container below the host
//! (`[("host", H), ("instance", "sda")]`, type `disk.dev.read`) with
//! [`InstanceMapping::Container`].
//!
//! - A number becomes [`What::Variable`] with [`VarOp::Set`], one per
//!   non-empty cell (or value line), at the row's time.
//! - A string value becomes [`What::SetState`] of the same type name with
//!   the string as value, only when it differs from the last one of that
//!   type and container (a string metric is a state that lasts).
//!
//! The records are sorted by time (stable: input order within a time)
//! through [`VecSource`]; [`PcpSource::stats`] reports what was read and
//! what was not mapped.

use std::collections::HashMap;
use std::path::Path as FsPath;

use trama_num::{SecondsError, SecondsSyntax};

use crate::record::{path, Nanos, Path, Record, Source, SourceError, VarOp, VecSource, What};

/// Which PCP text layout an input has.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PcpFormat {
    /// `pmrep -o csv`.
    PmrepCsv,
    /// `pmdumptext` (with `-m`, `-H` or `-M`).
    Pmdumptext,
    /// `pmdumplog -a` (or any `pmdumplog` output that holds values).
    Pmdumplog,
}

/// Where instances of metrics go.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum InstanceMapping {
    /// In the type name: `disk.dev.read[sda]` in the host's container.
    #[default]
    InName,
    /// In a container `("instance", "sda")` below the host; the type is the
    /// metric name.
    Container,
}

/// How to read a PCP text export.
#[derive(Clone, Debug)]
pub struct PcpOptions {
    /// The host when the input names none (pmrep CSV without `-k`,
    /// pmdumptext without `-l`, or with an archive as source).
    pub host: Option<String>,
    /// The offset of the printed times from UTC, in seconds east (3600 for
    /// UTC+1). Default 0 (UTC).
    pub utc_offset: i32,
    /// The year of `pmdumptext`'s default time stamps, which have none.
    pub year: Option<i32>,
    /// The string standing for an unavailable value in `pmdumptext`
    /// (its `-U`); default `?`.
    pub unavailable: String,
    /// Where instances go.
    pub instances: InstanceMapping,
}

impl Default for PcpOptions {
    fn default() -> Self {
        PcpOptions {
            host: None,
            utc_offset: 0,
            year: None,
            unavailable: "?".to_string(),
            instances: InstanceMapping::InName,
        }
    }
}

/// One value column of an input: a metric and its instance.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PcpColumn {
    /// The metric name (`disk.dev.read`).
    pub metric: String,
    /// The instance (`sda`, or `#2` for unnamed instances), if any.
    pub instance: Option<String>,
    /// The unit, when the input tells it (`count`, `Kbyte`).
    pub unit: Option<String>,
    /// The host named by the column itself (`pmdumptext -l`), if any.
    pub host: Option<String>,
}

/// What a PCP reader read.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct PcpStats {
    /// The layout read.
    pub format: Option<PcpFormat>,
    /// Data rows (pmrep, pmdumptext) or records (pmdumplog).
    pub rows: u64,
    /// Numeric values turned into variable records.
    pub values: u64,
    /// String values read (a state record is made only on change).
    pub strings: u64,
    /// State records made from string values.
    pub string_changes: u64,
    /// Empty or unavailable cells (no record).
    pub missing: u64,
    /// `inf`, `-inf` and `NaN` values (no record).
    pub non_finite: u64,
    /// Values of kinds not mapped (pmdumplog aggregates, events, errors):
    /// no record.
    pub unsupported: u64,
    /// Cells of `-m` label columns (no record).
    pub label_cells: u64,
    /// `<mark>` records of pmdumplog.
    pub marks: u64,
    /// Header and other non-data lines skipped.
    pub skipped_lines: u64,
    /// The columns of the last header (pmrep, pmdumptext).
    pub columns: Vec<PcpColumn>,
}

/// A PCP text export read into records, served in time order.
pub struct PcpSource {
    inner: VecSource,
    stats: PcpStats,
}

impl PcpSource {
    /// Reads the file at `path`, detecting its layout.
    pub fn open(path: impl AsRef<FsPath>, opts: &PcpOptions) -> Result<PcpSource, SourceError> {
        let name = path.as_ref().display().to_string();
        let bytes = std::fs::read(path.as_ref())
            .map_err(|e| SourceError::file(&name, format!("cannot read: {e}")))?;
        let text = String::from_utf8(bytes).map_err(|e| {
            SourceError::byte(&name, e.utf8_error().valid_up_to() as u64, "not UTF-8 text")
        })?;
        PcpSource::from_text(&name, &text, None, opts)
    }

    /// Reads `text` (named `name` in messages) in layout `format`, or the
    /// detected one when `None`.
    pub fn from_text(
        name: &str,
        text: &str,
        format: Option<PcpFormat>,
        opts: &PcpOptions,
    ) -> Result<PcpSource, SourceError> {
        let format = match format.or_else(|| detect_format(text)) {
            Some(f) => f,
            None => {
                return Err(SourceError::file(
                    name,
                    "not a PCP text export: no pmrep CSV header (`Time,\"metric\"...`), pmdumptext header (`Time<tab>metric...`) or pmdumplog label",
                ))
            }
        };
        let mut conv = Converter::new(name, opts);
        conv.stats.format = Some(format);
        match format {
            PcpFormat::PmrepCsv => read_pmrep(&mut conv, text)?,
            PcpFormat::Pmdumptext => read_pmdumptext(&mut conv, text)?,
            PcpFormat::Pmdumplog => read_pmdumplog(&mut conv, text)?,
        }
        let Converter { records, stats, .. } = conv;
        Ok(PcpSource {
            inner: VecSource::new(name, records),
            stats,
        })
    }

    /// What was read and what was not mapped.
    pub fn stats(&self) -> &PcpStats {
        &self.stats
    }
}

impl Source for PcpSource {
    fn name(&self) -> &str {
        self.inner.name()
    }

    fn next_record(&mut self) -> Result<Option<Record>, SourceError> {
        self.inner.next_record()
    }
}

/// Tells the layout of a PCP text export from its first meaningful lines.
pub fn detect_format(text: &str) -> Option<PcpFormat> {
    for line in text.lines().take(200) {
        let line = line.trim_end_matches('\r');
        if line.starts_with("Log Label")
            || line.starts_with("Performance metrics from host")
            || line.starts_with("Note: timezone set")
        {
            return Some(PcpFormat::Pmdumplog);
        }
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        if let Some(rest) = line.strip_prefix("Host") {
            let mut c = rest.chars();
            if let Some(d) = c.next() {
                if c.as_str().starts_with(&format!("Interval{d}Time")) {
                    return Some(PcpFormat::PmrepCsv);
                }
            }
        }
        if let Some(rest) = line.strip_prefix("Time") {
            let mut c = rest.chars();
            return match (c.next(), c.next()) {
                (Some(_), Some('"')) | (None, _) => Some(PcpFormat::PmrepCsv),
                (Some(_), _) => Some(PcpFormat::Pmdumptext),
            };
        }
        let word = line
            .trim_start()
            .split(char::is_whitespace)
            .next()
            .unwrap_or("");
        if is_full_name_line(line).is_some() || word == "Metric" || word == "Source" {
            return Some(PcpFormat::Pmdumptext);
        }
        if parse_record_head(line).is_some() {
            return Some(PcpFormat::Pmdumplog);
        }
        return None;
    }
    None
}

// ---------------------------------------------------------------------------
// Conversion shared by the three layouts.

struct Converter<'a> {
    name: &'a str,
    opts: &'a PcpOptions,
    records: Vec<Record>,
    stats: PcpStats,
    hosts: HashMap<String, Path>,
    instances: HashMap<String, HashMap<String, Path>>,
    last_string: HashMap<(Path, String), String>,
}

impl<'a> Converter<'a> {
    fn new(name: &'a str, opts: &'a PcpOptions) -> Self {
        Converter {
            name,
            opts,
            records: Vec::new(),
            stats: PcpStats::default(),
            hosts: HashMap::new(),
            instances: HashMap::new(),
            last_string: HashMap::new(),
        }
    }

    fn err(&self, line: u64, msg: impl Into<String>) -> SourceError {
        SourceError::line(self.name, line, msg)
    }

    /// The host for a value: the row's or column's, else the option's.
    fn host(&self, own: Option<&str>, line: u64) -> Result<String, SourceError> {
        match own.filter(|h| !h.is_empty()).or(self.opts.host.as_deref()) {
            Some(h) => Ok(h.to_string()),
            None => Err(self.err(
                line,
                "the input names no host (no Host column, source or label): give one in the options",
            )),
        }
    }

    /// The entity type name of `metric` with instance `inst`.
    fn type_name(&self, metric: &str, inst: Option<&str>) -> String {
        match (inst, self.opts.instances) {
            (Some(i), InstanceMapping::InName) => format!("{metric}[{i}]"),
            _ => metric.to_string(),
        }
    }

    /// The container of values of `host` with instance `inst`.
    fn container(&mut self, host: &str, inst: Option<&str>) -> Path {
        if let (Some(i), InstanceMapping::Container) = (inst, self.opts.instances) {
            if let Some(p) = self.instances.get(host).and_then(|m| m.get(i)) {
                return p.clone();
            }
            let p = path(&[("host", host), ("instance", i)]);
            self.instances
                .entry(host.to_string())
                .or_default()
                .insert(i.to_string(), p.clone());
            return p;
        }
        if let Some(p) = self.hosts.get(host) {
            return p.clone();
        }
        let p = path(&[("host", host)]);
        self.hosts.insert(host.to_string(), p.clone());
        p
    }

    /// One value of type `ty` (instance `inst`) on `host` at `time`.
    fn value(
        &mut self,
        time: Nanos,
        host: &str,
        inst: Option<&str>,
        ty: &str,
        value: Value<'_>,
        line: u64,
    ) -> Result<(), SourceError> {
        match value {
            Value::Missing => self.stats.missing += 1,
            Value::Text(s) => {
                self.stats.strings += 1;
                let container = self.container(host, inst);
                let ty = ty.to_string();
                let key = (container.clone(), ty.clone());
                if self.last_string.get(&key).map(String::as_str) != Some(s) {
                    self.last_string.insert(key, s.to_string());
                    self.stats.string_changes += 1;
                    self.records.push(Record {
                        time,
                        what: What::SetState {
                            container,
                            ty,
                            value: s.to_string(),
                            extra: Vec::new(),
                        },
                    });
                }
            }
            Value::Number(tok) => {
                let v: f64 = tok.trim().parse().map_err(|_| {
                    self.err(line, format!("value `{tok}` of {ty} is not a number"))
                })?;
                if !v.is_finite() {
                    self.stats.non_finite += 1;
                    return Ok(());
                }
                self.stats.values += 1;
                let container = self.container(host, inst);
                let ty = ty.to_string();
                self.records.push(Record {
                    time,
                    what: What::Variable {
                        container,
                        ty,
                        op: VarOp::Set,
                        value: v,
                    },
                });
            }
        }
        Ok(())
    }

    /// A printed time to UTC nanoseconds.
    fn time(&self, text: &str, line: u64) -> Result<Nanos, SourceError> {
        parse_time(text, self.opts.year, self.opts.utc_offset)
            .map_err(|m| self.err(line, format!("time `{text}`: {m}")))
    }
}

enum Value<'t> {
    Missing,
    Text(&'t str),
    Number(&'t str),
}

// ---------------------------------------------------------------------------
// Fields.

/// One field of a delimited line: its text (quotes removed) and whether it
/// was quoted.
struct Field<'t> {
    text: &'t str,
    quoted: bool,
}

/// Splits a pmrep/pmdumptext line: fields separated by `delim`; a field
/// starting with `"` runs to the next `"`, which must end the field (these
/// tools never escape quotes). Returns the 0-based rank of a bad field.
fn split_fields(line: &str, delim: char) -> Result<Vec<Field<'_>>, String> {
    let mut out = Vec::new();
    let mut rest = line;
    loop {
        if let Some(after) = rest.strip_prefix('"') {
            let Some(end) = after.find('"') else {
                return Err(format!(
                    "field {} has no closing quote: `{rest}`",
                    out.len() + 1
                ));
            };
            out.push(Field {
                text: &after[..end],
                quoted: true,
            });
            let tail = &after[end + 1..];
            if tail.is_empty() {
                return Ok(out);
            }
            match tail.strip_prefix(delim) {
                Some(t) => rest = t,
                None => {
                    return Err(format!(
                        "field {} has text after its closing quote: `{tail}`",
                        out.len()
                    ))
                }
            }
        } else {
            match rest.find(delim) {
                Some(i) => {
                    out.push(Field {
                        text: &rest[..i],
                        quoted: false,
                    });
                    rest = &rest[i + delim.len_utf8()..];
                }
                None => {
                    out.push(Field {
                        text: rest,
                        quoted: false,
                    });
                    return Ok(out);
                }
            }
        }
    }
}

fn is_metric_char(c: char) -> bool {
    c.is_ascii_alphanumeric() || c == '_' || c == '.'
}

/// A pmrep column name: `metric`, `metric[inst]`, `metric-inst`, each with
/// an optional `(unit)`; `None` for a label column (`{...}`).
fn parse_pmrep_column(name: &str) -> Result<Option<PcpColumn>, String> {
    if name.starts_with('{') {
        return Ok(None);
    }
    let split = name
        .find(|c: char| !is_metric_char(c))
        .unwrap_or(name.len());
    let (metric, rest) = name.split_at(split);
    if metric.is_empty() || metric.starts_with('.') || metric.ends_with('.') {
        return Err(format!("column `{name}` does not start with a metric name"));
    }
    let col = |instance: Option<&str>, unit: Option<&str>| PcpColumn {
        metric: metric.to_string(),
        instance: instance.map(str::to_string),
        unit: unit.map(str::to_string),
        host: None,
    };
    if rest.is_empty() {
        return Ok(Some(col(None, None)));
    }
    if let Some(inst) = rest.strip_prefix('-') {
        return Ok(Some(col(Some(inst), None)));
    }
    if let Some(r) = rest.strip_prefix('[') {
        if let Some(body) = r.strip_suffix(')') {
            if let Some(i) = body.rfind("](") {
                return Ok(Some(col(Some(&body[..i]), Some(&body[i + 2..]))));
            }
        }
        if let Some(inst) = r.strip_suffix(']') {
            return Ok(Some(col(Some(inst), None)));
        }
        return Err(format!("column `{name}`: instance without closing `]`"));
    }
    if let Some(unit) = rest.strip_prefix('(').and_then(|r| r.strip_suffix(')')) {
        return Ok(Some(col(None, Some(unit))));
    }
    Err(format!(
        "column `{name}`: unexpected `{rest}` after the metric name"
    ))
}

/// Names repeated bare metric columns (`--no-inst-info`) `#1`, `#2`...
fn number_unnamed(cols: &mut [Option<PcpColumn>]) {
    let mut counts: HashMap<String, usize> = HashMap::new();
    for c in cols.iter().flatten() {
        if c.instance.is_none() {
            *counts.entry(c.metric.clone()).or_default() += 1;
        }
    }
    let mut seen: HashMap<String, usize> = HashMap::new();
    for c in cols.iter_mut().flatten() {
        if c.instance.is_none() && counts[&c.metric] > 1 {
            let k = seen.entry(c.metric.clone()).or_default();
            *k += 1;
            c.instance = Some(format!("#{k}"));
        }
    }
}

// ---------------------------------------------------------------------------
// pmrep CSV.

struct CsvHeader {
    delim: char,
    extended: bool,
    cols: Vec<Option<PcpColumn>>,
    /// The entity type name of each column.
    tys: Vec<String>,
}

fn pmrep_header(line: &str) -> Option<(char, bool)> {
    if let Some(rest) = line.strip_prefix("Host") {
        let d = rest.chars().next()?;
        if rest[d.len_utf8()..].starts_with(&format!("Interval{d}Time")) {
            return Some((d, true));
        }
        return None;
    }
    let rest = line.strip_prefix("Time")?;
    match rest.chars().next() {
        None => Some((',', false)),
        Some(d) if rest[d.len_utf8()..].starts_with('"') || rest.len() == d.len_utf8() => {
            Some((d, false))
        }
        Some(_) => None,
    }
}

fn read_pmrep(conv: &mut Converter<'_>, text: &str) -> Result<(), SourceError> {
    let mut header: Option<CsvHeader> = None;
    for (i, raw) in text.split('\n').enumerate() {
        let ln = i as u64 + 1;
        let line = raw.strip_suffix('\r').unwrap_or(raw);
        if line.is_empty() || (header.is_none() && line.starts_with('#')) {
            conv.stats.skipped_lines += 1;
            continue;
        }
        if let Some((delim, extended)) = pmrep_header(line) {
            let fields = split_fields(line, delim).map_err(|m| conv.err(ln, m))?;
            let skip = if extended { 3 } else { 1 };
            let mut cols = Vec::new();
            for f in &fields[skip..] {
                cols.push(parse_pmrep_column(f.text).map_err(|m| conv.err(ln, m))?);
            }
            number_unnamed(&mut cols);
            conv.stats.columns = cols.iter().flatten().cloned().collect();
            conv.stats.skipped_lines += 1;
            let tys = cols
                .iter()
                .map(|c| {
                    c.as_ref().map_or(String::new(), |c| {
                        conv.type_name(&c.metric, c.instance.as_deref())
                    })
                })
                .collect();
            header = Some(CsvHeader {
                delim,
                extended,
                cols,
                tys,
            });
            continue;
        }
        let Some(h) = header.as_ref() else {
            let shown: String = line.chars().take(60).collect();
            return Err(conv.err(
                ln,
                format!("expected the pmrep CSV header (`Time,\"metric\",...`; pmrep -H writes none), found `{shown}`"),
            ));
        };
        let fields = split_fields(line, h.delim).map_err(|m| conv.err(ln, m))?;
        let lead = if h.extended { 3 } else { 1 };
        if fields.len() != lead + h.cols.len() {
            return Err(conv.err(
                ln,
                format!(
                    "{} fields where the header has {}",
                    fields.len(),
                    lead + h.cols.len()
                ),
            ));
        }
        let row_host = if h.extended {
            Some(fields[0].text)
        } else {
            None
        };
        let time = conv.time(fields[lead - 1].text, ln)?;
        let host = conv.host(row_host, ln)?;
        conv.stats.rows += 1;
        for ((col, ty), f) in h.cols.iter().zip(&h.tys).zip(&fields[lead..]) {
            let Some(col) = col else {
                conv.stats.label_cells += 1;
                continue;
            };
            let v = if f.quoted {
                Value::Text(f.text)
            } else if f.text.is_empty() {
                Value::Missing
            } else {
                Value::Number(f.text)
            };
            conv.value(time, &host, col.instance.as_deref(), ty, v, ln)?;
        }
    }
    if header.is_none() {
        return Err(SourceError::file(conv.name, "no pmrep CSV header line"));
    }
    Ok(())
}

// ---------------------------------------------------------------------------
// pmdumptext.

/// `[ n] spec` of `pmdumptext -M`: (n, spec).
fn is_full_name_line(line: &str) -> Option<(usize, &str)> {
    let rest = line.strip_prefix('[')?;
    let close = rest.find(']')?;
    let n: usize = rest[..close].trim().parse().ok()?;
    let spec = rest[close + 1..].strip_prefix(' ')?;
    Some((n, spec))
}

/// A pmdumptext spec `[source:|source/]metric["inst"]`.
fn parse_spec(spec: &str) -> Result<PcpColumn, String> {
    let spec = spec.trim();
    let (head, instance) = match spec.find("[\"") {
        Some(i) => {
            let inst = spec[i + 2..]
                .strip_suffix("\"]")
                .ok_or_else(|| format!("`{spec}`: instance without closing `\"]`"))?;
            (&spec[..i], Some(inst.to_string()))
        }
        None => (spec, None),
    };
    let (source, metric) = match head.rfind([':', '/']) {
        Some(i) => (Some((&head[..i], head.as_bytes()[i])), &head[i + 1..]),
        None => (None, head),
    };
    if metric.is_empty() || !metric.chars().all(is_metric_char) {
        return Err(format!("`{spec}` is not a metric name"));
    }
    Ok(PcpColumn {
        metric: metric.to_string(),
        instance,
        unit: None,
        // A host source ends with `:`; an archive (`/`) names no host.
        host: source.and_then(|(s, sep)| (sep == b':').then(|| s.to_string())),
    })
}

fn read_pmdumptext(conv: &mut Converter<'_>, text: &str) -> Result<(), SourceError> {
    let mut delim = '\t';
    let mut cols: Vec<PcpColumn> = Vec::new();
    let mut full: Vec<PcpColumn> = Vec::new();
    for (i, raw) in text.split('\n').enumerate() {
        let ln = i as u64 + 1;
        let line = raw.strip_suffix('\r').unwrap_or(raw);
        if line.trim().is_empty() {
            conv.stats.skipped_lines += 1;
            continue;
        }
        if let Some((n, spec)) = is_full_name_line(line) {
            if n != full.len() + 1 {
                full.clear();
                if n != 1 {
                    return Err(conv.err(ln, format!("column list entry [{n}] out of order")));
                }
            }
            full.push(parse_spec(spec).map_err(|m| conv.err(ln, m))?);
            cols = full.clone();
            conv.stats.columns = cols.clone();
            conv.stats.skipped_lines += 1;
            continue;
        }
        let first_word = line
            .trim_start()
            .split(|c: char| !c.is_alphanumeric())
            .next()
            .unwrap_or("");
        if matches!(
            first_word,
            "Metric" | "Source" | "Inst" | "Normal" | "Units" | "Column"
        ) {
            // Header lines of the interactive layout: readable only when the
            // full names were listed first (-X); `Column` numbers them.
            if first_word == "Column" || !full.is_empty() {
                conv.stats.skipped_lines += 1;
                continue;
            }
            return Err(conv.err(
                ln,
                format!("`{first_word}` header: the interactive layout (pmdumptext -i) truncates names and cannot be read without -X"),
            ));
        }
        if let Some(rest) = line.strip_prefix("Time") {
            if let Some(d) = rest.chars().next() {
                delim = d;
                let fields = split_fields(rest, d).map_err(|m| conv.err(ln, m))?;
                let mut c = Vec::new();
                for f in &fields[1..] {
                    c.push(parse_spec(f.text).map_err(|m| conv.err(ln, m))?);
                }
                cols = c;
                conv.stats.columns = cols.clone();
                conv.stats.skipped_lines += 1;
                continue;
            }
        }
        let fields = split_fields(line, delim).map_err(|m| conv.err(ln, m))?;
        let f0 = fields[0].text.trim();
        if f0 == "none" || f0 == conv.opts.unavailable || f0.is_empty() {
            // Units (-u), normalisation (-N) or column-number (-M) lines.
            conv.stats.skipped_lines += 1;
            continue;
        }
        if cols.is_empty() {
            let shown: String = line.chars().take(60).collect();
            return Err(conv.err(
                ln,
                format!(
                    "data line `{shown}` before any metric names: pmdumptext needs -m, -H or -M"
                ),
            ));
        }
        let lead = match fields.len().checked_sub(cols.len()) {
            Some(1) => 1,
            Some(2) => 2,
            _ => {
                return Err(conv.err(
                    ln,
                    format!(
                        "{} fields for {} columns (expected the time, optionally after an offset, then one value per column)",
                        fields.len(),
                        cols.len()
                    ),
                ))
            }
        };
        if lead == 2 && fields[0].text.trim().parse::<f64>().is_err() {
            return Err(conv.err(ln, format!("offset `{}` is not a number", fields[0].text)));
        }
        let time = conv.time(fields[lead - 1].text.trim(), ln)?;
        conv.stats.rows += 1;
        for (col, f) in cols.iter().zip(&fields[lead..]) {
            let host = conv.host(col.host.as_deref(), ln)?;
            let t = f.text.trim();
            let v = if f.quoted {
                Value::Text(f.text)
            } else if t.is_empty() || t == conv.opts.unavailable {
                Value::Missing
            } else {
                Value::Number(t)
            };
            let ty = conv.type_name(&col.metric, col.instance.as_deref());
            conv.value(time, &host, col.instance.as_deref(), &ty, v, ln)?;
        }
    }
    if cols.is_empty() {
        return Err(SourceError::file(
            conv.name,
            "no pmdumptext metric names (-m, -H or -M)",
        ));
    }
    Ok(())
}

// ---------------------------------------------------------------------------
// pmdumplog.

/// `HH:MM:SS.frac N metrics` → (time of day in ns, N).
fn parse_record_head(line: &str) -> Option<(i64, u64)> {
    let mut it = line.split(' ');
    let t = parse_tod(it.next()?).ok()?;
    let n: u64 = it.next()?.parse().ok()?;
    match (it.next()?, it.next()) {
        ("metrics" | "metric", None) => Some((t, n)),
        _ => None,
    }
}

/// `inst [id or "name"] value V` → (instance name, value text).
fn parse_inst_value(s: &str) -> Option<(String, &str)> {
    let r = s.strip_prefix("inst [")?;
    let (id, r) = r.split_once(" or ")?;
    let (name, r) = if let Some(q) = r.strip_prefix('"') {
        let end = q.find("\"]")?;
        (q[..end].to_string(), &q[end + 2..])
    } else {
        let end = r.find(']')?;
        (id.to_string(), &r[end + 1..])
    };
    let v = r.strip_prefix(" value ")?;
    Some((name, v))
}

fn read_pmdumplog(conv: &mut Converter<'_>, text: &str) -> Result<(), SourceError> {
    let mut host: Option<String> = None;
    let mut day: Option<i64> = None; // days since the epoch of the current record
    let mut last_tod: i64 = -1;
    let mut time: Option<Nanos> = None; // the current record's time
    let mut metric: Option<String> = None; // the metric awaiting instance lines
    let offset_ns = conv.opts.utc_offset as i64 * 1_000_000_000;
    for (i, raw) in text.split('\n').enumerate() {
        let ln = i as u64 + 1;
        let line = raw.strip_suffix('\r').unwrap_or(raw);
        if let Some(h) = line.strip_prefix("Performance metrics from host ") {
            host = Some(h.trim().to_string());
        }
        if let Some(c) = line.trim_start().strip_prefix("commencing ") {
            let (d, tod, _) = parse_ctime(c.trim(), None)
                .map_err(|m| conv.err(ln, format!("commencing `{c}`: {m}")))?;
            day = Some(d);
            last_tod = tod;
            conv.stats.skipped_lines += 1;
            continue;
        }
        if let Some((tod, _n)) = parse_record_head(line) {
            let Some(d) = day.as_mut() else {
                return Err(conv.err(
                    ln,
                    "a record before the `commencing` line: its date is unknown",
                ));
            };
            if tod < last_tod {
                *d += 1;
            }
            last_tod = tod;
            time = Some(*d * NS_PER_DAY + tod - offset_ns);
            metric = None;
            conv.stats.rows += 1;
            continue;
        }
        if line.ends_with(" <mark>") && parse_tod(line.split(' ').next().unwrap_or("")).is_ok() {
            conv.stats.marks += 1;
            time = None;
            continue;
        }
        let Some(t) = time else {
            conv.stats.skipped_lines += 1;
            continue;
        };
        if !line.starts_with("    ") {
            // A blank line or `[N bytes]`: the record is over.
            time = None;
            conv.stats.skipped_lines += 1;
            continue;
        }
        let body = line.trim_start();
        if let Some(r) = body.strip_prefix("inst [") {
            let Some(m) = metric.clone() else {
                return Err(conv.err(
                    ln,
                    format!("instance line `{body}` without its metric line"),
                ));
            };
            let Some((inst, v)) = parse_inst_value(body) else {
                return Err(conv.err(ln, format!("cannot read instance value `inst [{r}`")));
            };
            let h = conv.host(host.as_deref(), ln)?;
            dumplog_value(conv, t, &h, &m, Some(&inst), v, ln)?;
            continue;
        }
        // `pmid (name): ...`
        let Some(open) = body.find(" (") else {
            return Err(conv.err(ln, format!("cannot read value line `{body}`")));
        };
        let Some(close) = body[open..].find("):").map(|c| c + open) else {
            return Err(conv.err(ln, format!("cannot read value line `{body}`")));
        };
        let name = body[open + 2..close].to_string();
        let rest = body[close + 2..].trim_start();
        let h = conv.host(host.as_deref(), ln)?;
        if rest.is_empty() {
            metric = Some(name);
        } else if let Some(v) = rest.strip_prefix("value ") {
            metric = None;
            dumplog_value(conv, t, &h, &name, None, v, ln)?;
        } else if rest.starts_with("inst [") {
            metric = None;
            let Some((inst, v)) = parse_inst_value(rest) else {
                return Err(conv.err(ln, format!("cannot read instance value `{rest}`")));
            };
            dumplog_value(conv, t, &h, &name, Some(&inst), v, ln)?;
        } else {
            metric = None;
            conv.stats.unsupported += 1;
        }
    }
    if day.is_none() {
        return Err(SourceError::file(
            conv.name,
            "no `commencing` line: not pmdumplog -a output with a label",
        ));
    }
    Ok(())
}

fn dumplog_value(
    conv: &mut Converter<'_>,
    t: Nanos,
    host: &str,
    metric: &str,
    inst: Option<&str>,
    v: &str,
    ln: u64,
) -> Result<(), SourceError> {
    let v = v.trim();
    if let Some(s) = v.strip_prefix('"').and_then(|s| s.strip_suffix('"')) {
        let ty = conv.type_name(metric, inst);
        return conv.value(t, host, inst, &ty, Value::Text(s), ln);
    }
    if v.parse::<f64>().is_ok() {
        let ty = conv.type_name(metric, inst);
        return conv.value(t, host, inst, &ty, Value::Number(v), ln);
    }
    conv.stats.unsupported += 1;
    Ok(())
}

// ---------------------------------------------------------------------------
// Times.

const NS_PER_SEC: i64 = 1_000_000_000;
const NS_PER_DAY: i64 = 86_400 * NS_PER_SEC;

/// Days from 1970-01-01 to a date of the proleptic Gregorian calendar.
fn days_from_civil(y: i64, m: u32, d: u32) -> i64 {
    let y = if m <= 2 { y - 1 } else { y };
    let era = if y >= 0 { y } else { y - 399 } / 400;
    let yoe = y - era * 400;
    let mp = (m as i64 + 9) % 12;
    let doy = (153 * mp + 2) / 5 + d as i64 - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

fn days_in_month(y: i64, m: u32) -> u32 {
    match m {
        1 | 3 | 5 | 7 | 8 | 10 | 12 => 31,
        4 | 6 | 9 | 11 => 30,
        _ if (y % 4 == 0 && y % 100 != 0) || y % 400 == 0 => 29,
        _ => 28,
    }
}

fn date_days(y: i64, m: u32, d: u32) -> Result<i64, String> {
    if !(1..=12).contains(&m) || d == 0 || d > days_in_month(y, m) {
        return Err(format!("no such date {y}-{m:02}-{d:02}"));
    }
    Ok(days_from_civil(y, m, d))
}

/// `digits[.digits]` seconds to nanoseconds (at most 9 fraction digits).
fn parse_seconds(s: &str) -> Result<i64, String> {
    trama_num::parse_seconds(s.as_bytes(), SecondsSyntax::PLAIN).map_err(|e| match e {
        SecondsError::Malformed => format!("`{s}` is not a number of seconds"),
        SecondsError::Fraction => format!("`{s}`: bad fraction of a second"),
        SecondsError::Range => format!("`{s}` is too large"),
    })
}

/// `HH:MM:SS[.frac]` → nanoseconds since midnight.
fn parse_tod(s: &str) -> Result<i64, String> {
    let mut it = s.splitn(3, ':');
    let (Some(h), Some(m), Some(sec)) = (it.next(), it.next(), it.next()) else {
        return Err(format!("`{s}` is not HH:MM:SS"));
    };
    let num = |x: &str| -> Result<i64, String> {
        if x.len() != 2 || !x.bytes().all(|b| b.is_ascii_digit()) {
            return Err(format!("`{s}` is not HH:MM:SS"));
        }
        Ok(x.parse().unwrap_or(0))
    };
    let (h, m) = (num(h)?, num(m)?);
    let sec_int = sec.split('.').next().unwrap_or("");
    num(sec_int)?;
    let sec_ns = parse_seconds(sec)?;
    if h > 23 || m > 59 || sec_ns >= 61 * NS_PER_SEC {
        return Err(format!("`{s}` is not a time of day"));
    }
    Ok((h * 3600 + m * 60) * NS_PER_SEC + sec_ns)
}

fn month_number(s: &str) -> Option<u32> {
    const M: [&str; 12] = [
        "Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec",
    ];
    M.iter().position(|m| *m == s).map(|i| i as u32 + 1)
}

/// `Www Mmm dd HH:MM:SS[.frac][ YYYY]` → (days, ns of day, rest after the
/// year). Without a year in the text, `year` is used.
fn parse_ctime(s: &str, year: Option<i32>) -> Result<(i64, i64, String), String> {
    let mut it = s.split_whitespace();
    let (Some(_wday), Some(mon), Some(day), Some(tod)) =
        (it.next(), it.next(), it.next(), it.next())
    else {
        return Err("not `Www Mmm dd HH:MM:SS`".into());
    };
    let mon = month_number(mon).ok_or_else(|| format!("`{mon}` is not a month"))?;
    let day: u32 = day.parse().map_err(|_| format!("`{day}` is not a day"))?;
    let tod = parse_tod(tod)?;
    let rest: Vec<&str> = it.collect();
    let (y, rest) = match rest.first().and_then(|y| y.parse::<i64>().ok()) {
        Some(y) => (y, rest[1..].join(" ")),
        None => match year {
            Some(y) => (y as i64, rest.join(" ")),
            None => {
                return Err("the time stamp has no year (pmdumptext's default): give the year in the options, or print times with -f".into())
            }
        },
    };
    Ok((date_days(y, mon, day)?, tod, rest))
}

/// A zone suffix → seconds east of UTC.
fn parse_zone(s: &str) -> Result<i64, String> {
    let z = s.trim();
    if z == "Z" || z == "UTC" || z == "GMT" {
        return Ok(0);
    }
    let signed = z
        .strip_prefix("UTC")
        .or_else(|| z.strip_prefix("GMT"))
        .unwrap_or(z);
    let (sign, body) = match signed.as_bytes().first() {
        Some(b'+') => (1, &signed[1..]),
        Some(b'-') => (-1, &signed[1..]),
        _ => return Err(format!("`{z}` is not a zone offset")),
    };
    let (h, m) = if let Some((h, m)) = body.split_once(':') {
        (h, m)
    } else if body.len() == 4 && signed.len() == z.len() {
        body.split_at(2)
    } else {
        (body, "0")
    };
    let h: i64 = h
        .parse()
        .map_err(|_| format!("`{z}` is not a zone offset"))?;
    let m: i64 = m
        .parse()
        .map_err(|_| format!("`{z}` is not a zone offset"))?;
    if h > 18 || m > 59 {
        return Err(format!("`{z}` is not a zone offset"));
    }
    Ok(sign * (h * 3600 + m * 60))
}

/// A printed time to UTC nanoseconds since the epoch.
fn parse_time(s: &str, year: Option<i32>, utc_offset: i32) -> Result<Nanos, String> {
    let s = s.trim();
    if s.is_empty() {
        return Err("empty time".into());
    }
    // Seconds since the epoch (`-f %s`): absolute, never shifted.
    if s.bytes().all(|b| b.is_ascii_digit() || b == b'.') {
        return parse_seconds(s);
    }
    let (days, tod, rest) = if s.as_bytes().first().is_some_and(u8::is_ascii_digit) {
        // YYYY-MM-DD[ T]HH:MM:SS[.frac][ zone]
        let (date, tail) = s.split_at(s.find([' ', 'T']).ok_or("no time after the date")?);
        let mut d = date.split('-');
        let (Some(y), Some(m), Some(dd), None) = (d.next(), d.next(), d.next(), d.next()) else {
            return Err("not YYYY-MM-DD HH:MM:SS".into());
        };
        let y: i64 = y.parse().map_err(|_| format!("`{y}` is not a year"))?;
        let m: u32 = m.parse().map_err(|_| format!("`{m}` is not a month"))?;
        let dd: u32 = dd.parse().map_err(|_| format!("`{dd}` is not a day"))?;
        let tail = &tail[1..];
        let end = tail
            .find(|c: char| !(c.is_ascii_digit() || c == ':' || c == '.'))
            .unwrap_or(tail.len());
        let tod = parse_tod(&tail[..end])?;
        (date_days(y, m, dd)?, tod, tail[end..].to_string())
    } else {
        parse_ctime(s, year)?
    };
    let offset = if rest.trim().is_empty() {
        utc_offset as i64
    } else {
        parse_zone(&rest)?
    };
    Ok(days * NS_PER_DAY + tod - offset * NS_PER_SEC)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn civil_days() {
        assert_eq!(days_from_civil(1970, 1, 1), 0);
        assert_eq!(days_from_civil(2000, 3, 1), 11_017);
        assert_eq!(days_from_civil(1998, 8, 7), 10_445);
        assert!(date_days(2023, 2, 29).is_err());
        assert!(date_days(2024, 2, 29).is_ok());
    }

    #[test]
    fn times() {
        assert_eq!(
            parse_time("1970-01-01 00:00:19", None, 0),
            Ok(19 * NS_PER_SEC)
        );
        assert_eq!(parse_time("1970-01-01 01:00:00", None, 3600), Ok(0));
        assert_eq!(
            parse_time("1970-01-01 02:00:00.5 UTC+2", None, -7200),
            Ok(NS_PER_SEC / 2)
        );
        assert_eq!(
            parse_time("1970-01-01T00:00:00-0130", None, 0),
            Ok(5400 * NS_PER_SEC)
        );
        assert_eq!(
            parse_time("1970-01-01 00:00:00 +05:30", None, 0),
            Ok(-19800 * NS_PER_SEC)
        );
        assert_eq!(
            parse_time("Thu Jan  1 00:00:07", Some(1970), 0),
            Ok(7 * NS_PER_SEC)
        );
        assert_eq!(
            parse_time("Thu Jan  1 00:00:07 1970", None, 0),
            Ok(7 * NS_PER_SEC)
        );
        assert!(parse_time("Thu Jan  1 00:00:07", None, 0)
            .unwrap_err()
            .contains("year"));
        assert_eq!(
            parse_time("12.000000001", None, 3600),
            Ok(12 * NS_PER_SEC + 1)
        );
        assert!(parse_time("1970-13-01 00:00:00", None, 0).is_err());
        assert!(parse_time("1970-01-01 24:00:00", None, 0).is_err());
        assert!(parse_time("1970-01-01 00:00:00 EST", None, 0).is_err());
    }

    #[test]
    fn columns() {
        let c = parse_pmrep_column("disk.dev.read[sda](count)")
            .unwrap()
            .unwrap();
        assert_eq!(
            (c.metric.as_str(), c.instance.as_deref(), c.unit.as_deref()),
            ("disk.dev.read", Some("sda"), Some("count"))
        );
        let c = parse_pmrep_column("kernel.all.load-1 minute")
            .unwrap()
            .unwrap();
        assert_eq!(c.instance.as_deref(), Some("1 minute"));
        let c = parse_pmrep_column("proc.psinfo.cmd[001 (sh) x]")
            .unwrap()
            .unwrap();
        assert_eq!(c.instance.as_deref(), Some("001 (sh) x"));
        let c = parse_pmrep_column("mem.util.free(Kbyte)").unwrap().unwrap();
        assert_eq!((c.instance, c.unit.as_deref()), (None, Some("Kbyte")));
        assert!(parse_pmrep_column("{\"a\":1}").unwrap().is_none());
        assert!(parse_pmrep_column("mem.util.free]").is_err());
        assert!(parse_pmrep_column("[x]").is_err());
    }

    #[test]
    fn specs() {
        let c = parse_spec("gonzo:disk.dev.read[\"sda\"]").unwrap();
        assert_eq!(
            (c.host.as_deref(), c.metric.as_str(), c.instance.as_deref()),
            (Some("gonzo"), "disk.dev.read", Some("sda"))
        );
        let c = parse_spec("/var/log/pcp/a/20240101/kernel.all.load[\"1 minute\"]").unwrap();
        assert_eq!((c.host, c.instance.as_deref()), (None, Some("1 minute")));
        let c = parse_spec("mem.util.free").unwrap();
        assert_eq!((c.host, c.instance), (None, None));
        assert!(parse_spec("mem.util.free[\"x").is_err());
    }

    #[test]
    fn fields() {
        let f = split_fields("a,\"b,c\",,\"\"", ',').unwrap();
        let t: Vec<(&str, bool)> = f.iter().map(|f| (f.text, f.quoted)).collect();
        assert_eq!(
            t,
            vec![("a", false), ("b,c", true), ("", false), ("", true)]
        );
        assert!(split_fields("\"ab", ',').is_err());
        assert!(split_fields("\"a\"b,c", ',').is_err());
    }
}
