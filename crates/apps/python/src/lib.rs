//! The Python package `trama`: what its functions compute, in Rust.
//!
//! The package only translates: a trace is opened by `trama-open` with the
//! reading options of the command line ([`Reading`]), its tables are those
//! of the Parquet export built as Arrow record batches
//! ([`trama_parquet::arrow_table`]), each analysis is the JSON document of
//! `trama stats … --format json` written by `trama-report` ([`stats`]),
//! and `view` serves the trace with `trama-viewer`. Errors keep the
//! message the command line prints and where it points ([`Failure`]).
//!
//! The bindings themselves (PyO3, the Arrow C data interface through
//! `arrow-pyarrow`) are the module `py`, built only with the feature
//! `extension`, as maturin builds the extension module
//! (`crates/apps/python/pyproject.toml`); the Python side of the package is
//! `crates/apps/python/python/trama/__init__.py`. `docs/python.md` is its
//! guide.
#![deny(missing_docs)]
// Errors end a call: their size never weighs on a hot path.
#![allow(clippy::result_large_err)]

#[cfg(feature = "extension")]
mod py;

use std::sync::Arc;

use arrow_array::{Float64Array, Int64Array, RecordBatch, StringArray};
use arrow_schema::{DataType, Field, Schema, SchemaRef};
use trama_analysis::{Messages, TimeWindow, Window};
use trama_open::{LoadOptions, ReadFlags, Source};
use trama_report::{Analysis, Format, StatsOptions};
use trama_sim::Trace;

/// How a trace is read: the reading flags of `trama dump` / `trama stats`
/// (`--no-strict`, `--strip-quotes`, `-a`, `-z`, `-i`, `--lenient`,
/// `--sort-window`, `-j`), `--window`, plus whether to keep the
/// user-defined fields (message sizes).
#[derive(Clone, Debug, Default)]
pub struct Reading {
    /// The reading flags.
    pub flags: ReadFlags,
    /// `--window START:END`: only what overlaps it is needed (a `.ptb`
    /// reads only its blocks); the analyses' default window.
    pub window: Option<String>,
    /// Keep the user-defined fields of entities (a message's size).
    pub keep_extras: bool,
}

impl Reading {
    /// The options of `trama-open`, as the command line makes them.
    fn load_options(&self, window: Option<(f64, f64)>) -> LoadOptions {
        self.flags.load_options(self.keep_extras, window)
    }
}

/// Why a call failed: the message as the command line prints it (after
/// `trama: error: `), and where it points when it says so.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Failure {
    /// The message, with its causes after `: `.
    pub message: String,
    /// The input it is about.
    pub file: Option<String>,
    /// The 1-based line (of the text a binary file was made from, for a
    /// `.ptb`).
    pub line: Option<u64>,
    /// The byte offset in a binary file.
    pub offset: Option<u64>,
    /// The input does not exist.
    pub not_found: bool,
}

impl Failure {
    /// A failure that points nowhere.
    pub fn new(message: impl Into<String>) -> Failure {
        Failure {
            message: message.into(),
            ..Failure::default()
        }
    }
}

/// `e` and its causes joined by `: `, as the command line prints an error.
fn chain(e: &dyn std::error::Error) -> String {
    let mut s = e.to_string();
    let mut cause = e.source();
    while let Some(c) = cause {
        let text = c.to_string();
        if !s.ends_with(&text) {
            s.push_str(": ");
            s.push_str(&text);
        }
        cause = c.source();
    }
    s
}

/// The byte offset a message gives as `byte N:` (binary formats).
fn offset_in(message: &str) -> Option<u64> {
    message.match_indices("byte ").find_map(|(i, w)| {
        let rest = &message[i + w.len()..];
        let digits: String = rest.chars().take_while(char::is_ascii_digit).collect();
        let after = rest[digits.len()..].chars().next();
        (!digits.is_empty() && matches!(after, Some(':') | Some(')')))
            .then(|| digits.parse().ok())
            .flatten()
    })
}

impl From<trama_open::Error> for Failure {
    fn from(e: trama_open::Error) -> Failure {
        use trama_open::Error as E;
        let message = chain(&e);
        let (file, line) = match &e {
            E::Syntax { name, line, .. } => (Some(name.clone()), Some(*line)),
            E::Sim { name, line, .. } => (Some(name.clone()), (*line > 0).then_some(*line)),
            E::Io { name, .. }
            | E::Located { name, .. }
            | E::Format { name, .. }
            | E::Unsupported { name, .. }
            | E::Producer { name, .. } => (Some(name.clone()), None),
            _ => (None, None),
        };
        let not_found = matches!(&e, E::Input(i) if i.kind() == std::io::ErrorKind::NotFound);
        Failure {
            offset: offset_in(&message),
            message,
            file,
            line,
            not_found,
        }
    }
}

/// A trace opened and held in memory, with how it was read.
pub struct Opened {
    /// The trace.
    pub trace: Arc<Trace>,
    /// Its name in messages (the path).
    pub name: String,
    /// The window it was read with (the analyses' default).
    pub window: TimeWindow,
    /// Whether user-defined fields were kept.
    pub keep_extras: bool,
    /// Whether only the window was read (a `.ptb` opened with a window
    /// replays only the blocks it needs).
    pub partial: bool,
}

/// Opens and loads `path` as `trama stats` does (any format `trama-open`
/// reads, told from the content).
pub fn open(path: &str, reading: &Reading) -> Result<Opened, Failure> {
    let window = TimeWindow::parse_opt(reading.window.as_deref())
        .map_err(|e| Failure::new(e.to_string()))?;
    let at = |e: trama_open::Error| {
        let mut f = Failure::from(e);
        f.file.get_or_insert_with(|| path.to_string());
        f
    };
    let mut opened = trama_open::open(&Source::Path(path.into())).map_err(at)?;
    let trace = opened
        .load(&reading.load_options(window.bounds()))
        .map_err(at)?;
    Ok(Opened {
        trace: Arc::new(trace),
        name: opened.name().to_string(),
        window,
        keep_extras: reading.keep_extras,
        partial: window.bounds().is_some() && opened.ptb().is_some(),
    })
}

/// The options of one analysis, as `trama stats` takes them.
#[derive(Clone, Debug, Default)]
pub struct StatsArgs {
    /// `--window START:END` (`None`: the window the trace was read with).
    pub window: Option<String>,
    /// `--level NAME`.
    pub level: Option<String>,
    /// `--size-field FIELD`.
    pub size_field: Option<String>,
    /// `--waiting PATTERN`, repeated.
    pub waiting: Vec<String>,
    /// `--slices N`.
    pub slices: Option<usize>,
    /// `--slice-length SECONDS`.
    pub slice_length: Option<f64>,
    /// `--instants N`.
    pub instants: Option<usize>,
    /// `--at T,T,…`.
    pub at: Option<Vec<f64>>,
    /// `--link-type NAME`, repeated.
    pub link_types: Vec<String>,
    /// `--instances N` (waits).
    pub instances: Option<usize>,
    /// `--by container|region` (waits, critical-path).
    pub by: Option<String>,
}

impl Opened {
    /// The window of an analysis: `window` (`START:END`), else the one the
    /// trace was read with.
    pub fn window(&self, window: Option<&str>) -> Result<Window, Failure> {
        let w = match window {
            Some(w) => TimeWindow::parse_opt(Some(w)).map_err(|e| Failure::new(e.to_string()))?,
            None => self.window,
        };
        Ok(w.resolve(&self.trace))
    }
}

/// `analysis` (a name of `trama stats`: `states`, `comm`, `order`, `info`,
/// `wait`, `kiviat`, `slices`, `graph`, `waits`, `critical-path`,
/// `delays`) of `opened`, as the JSON document
/// `trama stats ANALYSIS --format json` prints, with the notes it prints
/// on standard error.
pub fn stats(
    opened: &Opened,
    analysis: &str,
    args: &StatsArgs,
) -> Result<(String, Vec<String>), Failure> {
    let a = Analysis::from_name(analysis).ok_or_else(|| {
        let names: Vec<&str> = Analysis::ALL.iter().map(|a| a.1).collect();
        Failure::new(format!(
            "no analysis is called '{analysis}' (the analyses: {})",
            names.join(", ")
        ))
    })?;
    if args.size_field.is_some() && !opened.keep_extras {
        return Err(Failure::new(format!(
            "{}: a size field needs the user-defined fields: open the trace with user_fields=True",
            opened.name
        )));
    }
    if a.reads_whole_run() && opened.partial {
        return Err(Failure::new(format!(
            "{}: {analysis} matches MPI calls across the whole run, and only a window of it was read: open the trace without window= and give the window to this call",
            opened.name
        )));
    }
    let window = opened.window(args.window.as_deref())?;
    let mut opts = StatsOptions::default();
    (opts.level, opts.size_field) = (args.level.clone(), args.size_field.clone());
    opts.waiting = args.waiting.clone();
    opts.slices = args.slices.unwrap_or(opts.slices);
    opts.slice_length = args.slice_length;
    opts.instants = args.instants.unwrap_or(opts.instants);
    opts.at = args.at.clone();
    opts.link_types = args.link_types.clone();
    opts.waits_instances = args.instances.unwrap_or(opts.waits_instances);
    if let Some(by) = &args.by {
        let known = trama_report::By::ALL.iter().find(|b| b.1 == by.as_str());
        let names: Vec<&str> = trama_report::By::ALL.iter().map(|b| b.1).collect();
        opts.by = Some(known.map(|b| b.0).ok_or_else(|| {
            Failure::new(format!("by: '{by}' is not one of {}", names.join(", ")))
        })?);
    }
    opts.format = Format::Json;
    let mut out = Vec::new();
    let notes = trama_report::stats(&opened.trace, a, window, &opts, &mut out)
        .map_err(|e| Failure::new(chain(&e)))?;
    let json = String::from_utf8(out).map_err(|e| Failure::new(e.to_string()))?;
    Ok((json, notes.lines))
}

/// The schema of [`messages`].
pub fn messages_schema() -> SchemaRef {
    Arc::new(Schema::new(vec![
        Field::new("from_id", DataType::Int64, false),
        Field::new("from", DataType::Utf8, false),
        Field::new("to_id", DataType::Int64, false),
        Field::new("to", DataType::Utf8, false),
        Field::new("start_ns", DataType::Int64, false),
        Field::new("end_ns", DataType::Int64, false),
        Field::new("size", DataType::Float64, true),
    ]))
}

/// Every message overlapping the window (the links `trama stats comm`
/// counts: of the types `link_types` names, else of every type but those
/// whose links all last 0 s) as one record batch: sender and receiver
/// (number and name), start and end in nanoseconds, and the size the
/// user-defined field `size_field` gives (null when it has none).
pub fn messages(
    opened: &Opened,
    window: Option<&str>,
    size_field: Option<&str>,
    link_types: &[String],
) -> Result<RecordBatch, Failure> {
    let trace = &*opened.trace;
    let window = opened.window(window)?;
    let msgs = Messages::select(trace, link_types).map_err(|e| Failure::new(e.to_string()))?;
    let m = &trace.model;
    let name = |c: trama_sim::ContainerId| m.label(m.container(c).name);
    let ns = |t: f64| (t * 1e9).round() as i64;
    let (mut from_id, mut from, mut to_id, mut to) = (vec![], vec![], vec![], vec![]);
    let (mut start, mut end, mut size) = (vec![], vec![], vec![]);
    for (a, b, s, e, z) in trama_analysis::each_message(trace, &window, &msgs, size_field) {
        from_id.push(i64::from(a.0));
        from.push(name(a));
        to_id.push(i64::from(b.0));
        to.push(name(b));
        start.push(ns(s));
        end.push(ns(e));
        size.push(z);
    }
    RecordBatch::try_new(
        messages_schema(),
        vec![
            Arc::new(Int64Array::from(from_id)),
            Arc::new(StringArray::from(from)),
            Arc::new(Int64Array::from(to_id)),
            Arc::new(StringArray::from(to)),
            Arc::new(Int64Array::from(start)),
            Arc::new(Int64Array::from(end)),
            Arc::new(Float64Array::from(size)),
        ],
    )
    .map_err(|e| Failure::new(e.to_string()))
}

/// The table called `name` (`containers`, `states`, `events`, `links`,
/// `variables`, `types`, `wait_states`, `critical_path`): its schema and
/// batches.
pub fn table(opened: &Opened, name: &str) -> Result<(SchemaRef, Vec<RecordBatch>), Failure> {
    let t = trama_parquet::Table::ALL
        .into_iter()
        .find(|t| t.name() == name)
        .ok_or_else(|| Failure::new(format!("no table is called '{name}'")))?;
    trama_parquet::arrow_table(&opened.trace, t).map_err(|e| Failure::new(e.to_string()))
}

/// Serves `opened` with the viewer of `trama view` (a copy of the trace,
/// held until the process ends); the running server.
pub fn view(opened: &Opened, port: Option<u16>) -> Result<trama_viewer::Running, Failure> {
    let mut opts = trama_viewer::ViewerOptions::default();
    opts.name = opened.name.clone();
    opts.port = port;
    trama_viewer::start((*opened.trace).clone(), &opts).map_err(|e| Failure::new(chain(&e)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn offsets_are_read_from_binary_messages() {
        assert_eq!(
            offset_in("x.otf2: byte 190: a string has no NUL"),
            Some(190)
        );
        assert_eq!(offset_in("rastro event 3 (byte 44): bad"), Some(44));
        assert_eq!(offset_in("unknown endianness byte 0x07"), None);
        assert_eq!(offset_in("x.paje:3: bad"), None);
    }
}
