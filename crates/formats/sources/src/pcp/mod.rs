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
//! - A number becomes [`What::Variable`](trama_records::What::Variable) with [`VarOp::Set`](trama_records::VarOp::Set), one per
//!   non-empty cell (or value line), at the row's time.
//! - A string value becomes [`What::SetState`](trama_records::What::SetState) of the same type name with
//!   the string as value, only when it differs from the last one of that
//!   type and container (a string metric is a state that lasts).
//!
//! The records are sorted by time (stable: input order within a time)
//! through [`VecSource`](trama_records::VecSource); [`CountedSource::stats`]
//! reports what was read and what was not mapped.

mod convert;
mod pmdumplog;
mod pmdumptext;
mod pmrep;
mod time;

use crate::reading::{CountedSource, OpenSource};
use convert::Converter;
use pmdumplog::{parse_record_head, read_pmdumplog};
use pmdumptext::{is_full_name_line, read_pmdumptext};
use pmrep::read_pmrep;
use trama_records::SourceError;

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
#[non_exhaustive]
#[derive(Clone, Debug)]
pub struct PcpOptions {
    /// The layout; `None` (the default): detected from the content
    /// ([`detect_format`]).
    pub format: Option<PcpFormat>,
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
            format: None,
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

/// A PCP text export read into records, served in time order, with what
/// was read and what was not mapped ([`CountedSource::stats`]).
pub type PcpSource = CountedSource<PcpStats>;

impl OpenSource for PcpSource {
    type Options = PcpOptions;
    const IO_ERROR: &'static str = "cannot read: ";

    /// Reads UTF-8 text, in the layout of the options or detected.
    fn from_bytes(name: String, bytes: Vec<u8>, opts: &PcpOptions) -> Result<Self, SourceError> {
        let text = String::from_utf8(bytes).map_err(|e| {
            SourceError::byte(&name, e.utf8_error().valid_up_to() as u64, "not UTF-8 text")
        })?;
        PcpSource::from_text(&name, &text, opts)
    }
}

impl PcpSource {
    fn from_text(name: &str, text: &str, opts: &PcpOptions) -> Result<PcpSource, SourceError> {
        let format = match opts.format.or_else(|| detect_format(text)) {
            Some(f) => f,
            None => {
                let (line, first) = text
                    .lines()
                    .enumerate()
                    .find(|(_, l)| !l.trim().is_empty())
                    .map_or((1, ""), |(i, l)| (i as u64 + 1, l));
                let shown: String = first.chars().take(60).collect();
                return Err(SourceError::line(
                    name,
                    line,
                    format!(
                        "not a PCP text export: `{shown}` is no pmrep CSV header (`Time,\"metric\"...`), pmdumptext header (`Time<tab>metric...`) or pmdumplog label"
                    ),
                ));
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
        Ok(PcpSource::new(name, records, stats))
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
