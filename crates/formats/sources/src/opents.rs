//! OpenTS (T-system) XML traces (seed 004), read as a stream.
//!
//! # The format
//!
//! While a T-program runs, every 1/25 s the counters of every node (an MPI
//! *rank*) are sampled and sent to rank 0, which appends a *slice* to one
//! XML file (UTF-8):
//!
//! ```xml
//! <trace ranks="4" cmd="fib 10" time="27.04.2006 15:58">
//! <slice num="3" time="0.143853">
//!   <rank num="0">
//!     <resource mbytes="0" mflops="0" tasks="0.003538" idle="0.006406"
//!       sched="0.003083" mpi="0.002429" />
//!     <task type="prenatal" count="16" />
//!     <task type="exported" count="2">
//!       <detail count="1" to="1" />
//!       <detail count="1" to="3" />
//!     </task>
//!     <message sbytes="2536" scount="27" rbytes="1352" rcount="21">
//!       <extra type="ctrl" sbytes="2536" scount="27" rbytes="1352" rcount="21" />
//!     </message>
//!   </rank>
//!   ...
//! </slice>
//! ...
//! </trace>
//! ```
//!
//! | element | attributes | content |
//! |---------|------------|---------|
//! | `trace` (the root) | `ranks`: the number of ranks; `cmd`: the command line; `time`: the start, `DD.MM.YYYY HH:MM` | `slice`* |
//! | `slice` | `num`: its number from 0; `time`: seconds since the program started | `rank`* |
//! | `rank` | `num`: the rank, from 0 | `resource`, `task`*, `message` |
//! | `resource` | `mbytes`: free memory (MB); `mflops`: speed (Mflop/s); `tasks`, `idle`, `sched`, `mpi`: time (s) spent running tasks, idle, in the scheduler, in MPI | none |
//! | `task` | `type`: a state of T-tasks (`started`, `prenatal`, `exported`, `imported`, `active`, `suspended`, `finished`); `count`: how many tasks | `detail`* |
//! | `detail` | `count`: tasks that migrated; `to`: the rank they went to | none |
//! | `message` | `sbytes`, `scount`, `rbytes`, `rcount`: bytes and messages sent and received | `extra`* |
//! | `extra` | `type`: a kind of message (five kinds, mainly `ctrl` and `data`); the same counters for that kind | `detail`* (an extension, below) |
//! | `detail` in `extra` (an extension) | `to`: the rank the messages went to; `count`: how many; `bytes` (optional): their size | none |
//!
//! The seed gives no more than this (not whether counters are per slice or
//! totals since the start): values are mapped as they are written.
//!
//! The seed's excerpt elides what an `extra` holds (`...`), yet its viewer
//! draws message arcs between pairs of nodes, so a trace must carry
//! messages per destination somewhere. This reader accepts them as
//! `detail`s of an `extra`, shaped like those of a `task`:
//!
//! ```xml
//! <message sbytes="2536" scount="27" rbytes="1352" rcount="21">
//!   <extra type="ctrl" sbytes="2536" scount="27" rbytes="1352" rcount="21">
//!     <detail to="1" count="20" bytes="1800" />
//!     <detail to="3" count="7" bytes="736" />
//!   </extra>
//! </message>
//! ```
//!
//! # Records
//!
//! Each rank is the container `[("rank", "<num>")]`. For a slice at time
//! `t` (the `time` attribute, in seconds since the program's start, read
//! exactly to the nanosecond; without it `num / 25` s), whose interval
//! starts at `t0` (the previous slice's time; for the first slice
//! `t - 1/25 s`, but not below 0):
//!
//! - at `t0` of the first slice, a [`What::Create`] of every rank
//!   `0..ranks` (a trace without `ranks` creates each rank at `t0` of the
//!   first slice that names it, as a `rank` or as a `to`);
//! - at `t0`, one link of type `migration` ([`MIGRATION_LINK`]) per
//!   `detail` of a `task` with a non-zero count, from the rank to the rank
//!   `to`, valued by its task's `type`, with the extra field `count` (an
//!   `int`) on its [`What::StartLink`]; its [`What::EndLink`] is at `t`
//!   (the migration happened during the slice). A `to` names the
//!   destination whatever the task's type. Keys are `m1`, `m2`, ...;
//! - then, at `t0`, one link of type `message` ([`MESSAGE_LINK`]) per
//!   `detail` of an `extra` with a non-zero count, from the rank to the
//!   rank `to`, valued by the extra's `type`, with the extra fields
//!   `count` and (when given) `bytes`, both `int`s, on its
//!   [`What::StartLink`]; its [`What::EndLink`] is at `t`. Keys are `s<n>`,
//!   numbered with the migrations' (`n` counts the links of both types, so
//!   every key is unique);
//! - at `t`, [`What::Variable`]s set on the rank, in document order:
//!   `memory` (`mbytes`), `speed` (`mflops`), `time_tasks`, `time_idle`,
//!   `time_sched`, `time_mpi` (any other attribute `X` of `resource`:
//!   `resource_X`); `tasks_<type>` (a task's `count`); and per-rank
//!   traffic (the seed's format gives messages no destination): `msg_<attr>` for
//!   each attribute of `message` (`msg_sbytes`, `msg_scount`, `msg_rbytes`,
//!   `msg_rcount`) and `msg_<type>_<attr>` for each of an `extra`
//!   (`msg_ctrl_sbytes`, ...);
//! - after the last slice, a [`What::Destroy`] of every rank at the last
//!   slice's time.
//!
//! The trace's `cmd` and `time` are given by [`OpentsSource::header`]
//! (`time` also as Unix seconds, read as UTC). Elements and attributes
//! the format does not have (and a `to` on `message` or `extra`) are
//! skipped with their content and counted in [`OpentsSource::skipped`].
//! Errors name the line (quick-xml's byte positions are turned into lines
//! as the file is read) and quote the token: malformed XML, a missing or
//! malformed `num`, `type`, `count` or `to` (or a malformed `bytes`), a value that is not a finite
//! number, a rank beyond `ranks` or twice in a slice, a slice earlier than
//! the one before it, text where elements are expected, or a file that
//! ends inside the trace.
//!
//! The reader holds one slice at a time: memory is bounded by the largest
//! slice, whatever the file's size.

mod header;
mod lines;
mod xml;

pub use header::TraceHeader;
use lines::LineReader;
use xml::{attr_offset, describe, ignored, lossy};

use std::borrow::Cow;
use std::collections::{BTreeMap, HashSet, VecDeque};
use std::fs::File;
use std::io::Read;
use std::path::Path as FsPath;
use std::sync::Arc;

use quick_xml::events::{BytesStart, Event};
use quick_xml::Reader;
use trama_events::EventKind;
use trama_num::{PastNanos, SecondsSyntax};

use crate::reading::open_file;
use compact_str::ToCompactString;
use trama_records::{
    ExtraField, Extras, Name, Nanos, Path, Record, Source, SourceError, Step, VarOp, What,
};

/// One slice every 1/25 s: the time of a slice without a `time` attribute.
pub const SLICE_PERIOD_NS: Nanos = 40_000_000;

/// The most ranks a trace may declare (each is created at the first slice).
pub const MAX_RANKS: u32 = 1 << 20;

/// The link type of task migrations.
pub const MIGRATION_LINK: &str = "migration";

/// The link type of messages sent from one rank to another (the
/// `detail`s of an `extra`, an extension of the seed's format).
pub const MESSAGE_LINK: &str = "message";

/// Where the reader is in the document.
#[derive(Clone, Debug, PartialEq)]
enum Ctx {
    Trace,
    Slice,
    Rank,
    Task(Name),
    Message,
    /// An `extra` of this message type.
    Extra(Name),
    /// `resource`, `detail`: no children expected.
    Leaf(&'static str),
}

impl Ctx {
    fn name(&self) -> &'static str {
        match self {
            Ctx::Trace => "trace",
            Ctx::Slice => "slice",
            Ctx::Rank => "rank",
            Ctx::Task(_) => "task",
            Ctx::Message => "message",
            Ctx::Extra(_) => "extra",
            Ctx::Leaf(n) => n,
        }
    }
}

/// The slice being read.
struct SliceAcc {
    time: Nanos,
    /// Ranks of the slice, in document order, with their variables.
    ranks: Vec<(u32, Vec<(Name, f64)>)>,
    seen: HashSet<u32>,
    /// (from, to, task type, count).
    migrations: Vec<(u32, u32, Name, u64)>,
    /// (from, to, message type, count, bytes).
    messages: Vec<(u32, u32, Name, u64, Option<u64>)>,
}

/// A streaming reader of an OpenTS XML trace (see the module's docs).
pub struct OpentsSource<R: Read = File> {
    name: String,
    reader: Reader<LineReader<R>>,
    buf: Vec<u8>,
    header: TraceHeader,
    stack: Vec<Ctx>,
    slice: Option<SliceAcc>,
    queue: VecDeque<Record>,
    rank_paths: BTreeMap<u32, Path>,
    last_time: Option<Nanos>,
    slices: u64,
    links: u64,
    skipped: BTreeMap<String, u64>,
    done: bool,
}

/// How to read an OpenTS trace (nothing to choose yet).
#[non_exhaustive]
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct OpentsOptions {}

impl OpentsSource<File> {
    /// Opens the trace at `path` and reads its header.
    pub fn open(
        path: impl AsRef<FsPath>,
        opts: &OpentsOptions,
    ) -> Result<OpentsSource<File>, SourceError> {
        let (name, file) = open_file(path.as_ref(), "cannot open: ")?;
        OpentsSource::from_reader(name, file, opts)
    }
}

/// The attributes of an element (the format's have at most 6).
type Attrs<'e> = smallvec::SmallVec<[Attr<'e>; 6]>;

/// What an attribute of an element is (borrowed from its tag when it can).
struct Attr<'e> {
    key: Cow<'e, str>,
    value: Cow<'e, str>,
    /// Its line.
    line: u64,
}

impl<R: Read + Send> OpentsSource<R> {
    /// Reads a trace from `input` (named `name` in errors) up to its root
    /// element, whose attributes make the [`TraceHeader`].
    pub fn from_reader(
        name: impl Into<String>,
        input: R,
        _opts: &OpentsOptions,
    ) -> Result<OpentsSource<R>, SourceError> {
        let mut reader = Reader::from_reader(LineReader::new(input));
        reader.config_mut().check_end_names = true;
        let mut src = OpentsSource {
            name: name.into(),
            reader,
            buf: Vec::new(),
            header: TraceHeader::default(),
            stack: Vec::new(),
            slice: None,
            queue: VecDeque::new(),
            rank_paths: BTreeMap::new(),
            last_time: None,
            slices: 0,
            links: 0,
            skipped: BTreeMap::new(),
            done: false,
        };
        src.read_header()?;
        Ok(src)
    }

    /// The trace's header.
    pub fn header(&self) -> &TraceHeader {
        &self.header
    }

    /// Elements and attributes skipped so far, by a description
    /// (`element <foo> in <rank>`, `attribute message/@to`), with their counts.
    pub fn skipped(&self) -> &BTreeMap<String, u64> {
        &self.skipped
    }

    /// Slices read so far.
    pub fn slices(&self) -> u64 {
        self.slices
    }

    /// Records read but not yet handed out (at most one slice's).
    pub fn buffered(&self) -> usize {
        self.queue.len()
    }

    fn err(&self, line: u64, message: impl Into<String>) -> SourceError {
        SourceError::line(&self.name, line, message)
    }

    fn xml_err(&self, e: quick_xml::Error) -> SourceError {
        let pos = self.reader.error_position();
        let line = self.reader.get_ref().line_of(pos);
        self.err(line, format!("malformed XML: {e}"))
    }

    /// The next event read into `buf` (cleared first) and its line;
    /// `None` at the end of the input. Comments, declarations and blank
    /// text are events too: see [`ignored`].
    fn read_event<'b>(
        &mut self,
        buf: &'b mut Vec<u8>,
    ) -> Result<Option<(Event<'b>, u64)>, SourceError> {
        let start = self.reader.buffer_position();
        self.reader.get_mut().mark(start);
        buf.clear();
        let ev = match self.reader.read_event_into(buf) {
            Ok(Event::Eof) => return Ok(None),
            Ok(ev) => ev,
            Err(e) => return Err(self.xml_err(e)),
        };
        // The line of the event's first non-blank byte.
        let lead = match &ev {
            Event::Text(t) => t.iter().take_while(|b| b.is_ascii_whitespace()).count(),
            _ => 0,
        };
        let line = self.reader.get_ref().line_of(start + lead as u64);
        Ok(Some((ev, line)))
    }

    /// The next event that is not [`ignored`], described, with its line;
    /// `None` at the end of the input.
    fn next_event_text(&mut self) -> Result<Option<(String, u64)>, SourceError> {
        let mut buf = Vec::new();
        loop {
            match self.read_event(&mut buf)? {
                None => return Ok(None),
                Some((ev, _)) if ignored(&ev) => {}
                Some((ev, line)) => return Ok(Some((describe(&ev), line))),
            }
        }
    }

    /// The attributes of `e`, unescaped, each with its line.
    fn attributes<'e>(&self, e: &'e BytesStart, line: u64) -> Result<Attrs<'e>, SourceError> {
        let raw: &[u8] = e;
        let one_line = memchr::memchr(b'\n', raw).is_none();
        let mut out = Attrs::new();
        for a in e.attributes() {
            let a = a.map_err(|x| self.err(line, format!("malformed attribute: {x}")))?;
            let key = lossy(a.key.into_inner());
            let value = match &a.value {
                // Nothing to unescape: the text as it is in the tag.
                Cow::Borrowed(v) if memchr::memchr(b'&', v).is_none() => {
                    std::str::from_utf8(v).ok().map(Cow::Borrowed)
                }
                _ => None,
            };
            let value = match value {
                Some(v) => v,
                None => Cow::Owned(
                    a.unescape_value()
                        .map_err(|x| self.err(line, format!("attribute `{key}`: {x}")))?
                        .into_owned(),
                ),
            };
            // Its line: the tag's plus the newlines before the attribute in the tag.
            let line = if one_line {
                line
            } else {
                let at = attr_offset(raw, key.as_bytes()).unwrap_or(0);
                line + memchr::memchr_iter(b'\n', &raw[..at]).count() as u64
            };
            out.push(Attr { key, value, line });
        }
        Ok(out)
    }

    fn skip(&mut self, what: String) {
        *self.skipped.entry(what).or_default() += 1;
    }

    fn element_name<'e>(e: &'e BytesStart) -> Cow<'e, str> {
        lossy(e.name().into_inner())
    }

    fn read_header(&mut self) -> Result<(), SourceError> {
        let mut buf = std::mem::take(&mut self.buf);
        let read = self.read_header_with(&mut buf);
        self.buf = buf;
        read
    }

    fn read_header_with(&mut self, buf: &mut Vec<u8>) -> Result<(), SourceError> {
        let (ev, line) = loop {
            match self.read_event(buf)? {
                None => return Err(SourceError::file(&self.name, "empty: no <trace> element")),
                Some((ev, _)) if ignored(&ev) => {}
                Some(found) => break found,
            }
        };
        let (e, empty) = match &ev {
            Event::Start(e) => (e, false),
            Event::Empty(e) => (e, true),
            other => {
                return Err(self.err(
                    line,
                    format!(
                        "not an OpenTS trace: `{}` before the <trace> element",
                        describe(other)
                    ),
                ))
            }
        };
        let name = Self::element_name(e);
        if name != "trace" {
            return Err(self.err(
                line,
                format!("not an OpenTS trace: the root element is <{name}>, not <trace>"),
            ));
        }
        for a in self.attributes(e, line)? {
            match &*a.key {
                "ranks" => {
                    let n = a
                        .value
                        .trim()
                        .parse::<u32>()
                        .ok()
                        .filter(|n| *n <= MAX_RANKS)
                        .ok_or_else(|| {
                            self.err(
                                a.line,
                                format!(
                                    "ranks `{}`: not a count of ranks (at most {MAX_RANKS})",
                                    a.value
                                ),
                            )
                        })?;
                    self.header.ranks = Some(n);
                }
                "cmd" => self.header.cmd = Some(a.value.into_owned()),
                "time" => self.header.time = Some(a.value.into_owned()),
                k => self.skip(format!("attribute trace/@{k}")),
            }
        }
        if empty {
            self.done = true;
        } else {
            self.stack.push(Ctx::Trace);
        }
        Ok(())
    }

    /// Reads until a slice is complete (its records queued) or the trace ends.
    fn fill(&mut self) -> Result<(), SourceError> {
        // The events borrow the buffer while the reader's state changes.
        let mut buf = std::mem::take(&mut self.buf);
        let filled = self.fill_with(&mut buf);
        self.buf = buf;
        filled
    }

    fn fill_with(&mut self, buf: &mut Vec<u8>) -> Result<(), SourceError> {
        while self.queue.is_empty() && !self.done {
            let Some((ev, line)) = self.read_event(buf)? else {
                let open = self.stack.last().map_or("trace", Ctx::name);
                let line = self.reader.get_ref().line_of(self.reader.buffer_position());
                return Err(self.err(line, format!("the file ends inside <{open}>")));
            };
            match ev {
                Event::Start(e) => self.open_element(&e, line, false)?,
                Event::Empty(e) => self.open_element(&e, line, true)?,
                Event::End(_) => self.close(line)?,
                ref ev if ignored(ev) => {}
                Event::Text(t) => {
                    let text = String::from_utf8_lossy(&t)
                        .trim()
                        .chars()
                        .take(40)
                        .collect::<String>();
                    let within = self.stack.last().map_or("trace", Ctx::name);
                    return Err(self.err(line, format!("text `{text}` in <{within}>")));
                }
                other => {
                    let within = self.stack.last().map_or("trace", Ctx::name);
                    return Err(self.err(line, format!("`{}` in <{within}>", describe(&other))));
                }
            }
        }
        Ok(())
    }

    /// The value of attribute `a` of element `element`, a finite number.
    fn number(&self, a: &Attr, element: &str) -> Result<f64, SourceError> {
        match a.value.trim().parse::<f64>() {
            Ok(v) if v.is_finite() => Ok(v),
            _ => Err(self.err(
                a.line,
                format!("{element} {} `{}`: not a finite number", a.key, a.value),
            )),
        }
    }

    fn count(&self, a: &Attr, what: &str) -> Result<u64, SourceError> {
        a.value
            .trim()
            .parse::<u64>()
            .map_err(|_| self.err(a.line, format!("{what} `{}`: not a count", a.value)))
    }

    fn rank_num(&self, a: &Attr, what: &str) -> Result<u32, SourceError> {
        let n = a
            .value
            .trim()
            .parse::<u32>()
            .map_err(|_| self.err(a.line, format!("{what} `{}`: not a rank", a.value)))?;
        if let Some(r) = self.header.ranks {
            if n >= r {
                return Err(self.err(
                    a.line,
                    format!("{what} `{}`: beyond the trace's {r} ranks", a.value),
                ));
            }
        }
        Ok(n)
    }

    fn current_vars(&mut self) -> &mut Vec<(Name, f64)> {
        &mut self
            .slice
            .as_mut()
            .expect("inside a slice")
            .ranks
            .last_mut()
            .expect("inside a rank")
            .1
    }

    fn current_rank(&self) -> u32 {
        self.slice
            .as_ref()
            .expect("inside a slice")
            .ranks
            .last()
            .expect("inside a rank")
            .0
    }

    fn open_element(&mut self, e: &BytesStart, line: u64, empty: bool) -> Result<(), SourceError> {
        let name = Self::element_name(e);
        let parent = self.stack.last().unwrap_or(&Ctx::Trace);
        let ctx = match (parent, &*name) {
            (Ctx::Trace, "slice") => {
                self.open_slice(e, line)?;
                Ctx::Slice
            }
            (Ctx::Slice, "rank") => self.open_rank(e, line)?,
            (Ctx::Rank, "resource") => self.open_resource(e, line)?,
            (Ctx::Rank, "task") => self.open_task(e, line)?,
            (Ctx::Task(ty), "detail") => {
                let ty = ty.clone();
                self.open_task_detail(e, line, ty)?
            }
            (Ctx::Rank, "message") => self.open_message(e, line)?,
            (Ctx::Message, "extra") => self.open_extra(e, line)?,
            (Ctx::Extra(ty), "detail") => {
                let ty = ty.clone();
                self.open_extra_detail(e, line, ty)?
            }
            (p, _) => {
                // Not part of the format: skipped with its content, counted.
                let what = format!("element <{name}> in <{}>", p.name());
                self.skip(what);
                if !empty {
                    let end = e.name().as_ref().to_vec();
                    let mut junk = Vec::new();
                    self.reader
                        .read_to_end_into(quick_xml::name::QName(&end), &mut junk)
                        .map_err(|x| self.xml_err(x))?;
                }
                return Ok(());
            }
        };
        if empty {
            self.stack.push(ctx);
            self.close(line)
        } else {
            self.stack.push(ctx);
            Ok(())
        }
    }

    /// Opens a `<rank>` of a slice.
    fn open_rank(&mut self, e: &BytesStart, line: u64) -> Result<Ctx, SourceError> {
        let attrs = self.attributes(e, line)?;
        let mut num = None;
        for a in &attrs {
            match &*a.key {
                "num" => num = Some(self.rank_num(a, "rank num")?),
                k => self.skip(format!("attribute rank/@{k}")),
            }
        }
        let num = num.ok_or_else(|| self.err(line, "<rank> without `num`"))?;
        let slice = self.slice.as_mut().expect("inside a slice");
        if !slice.seen.insert(num) {
            return Err(self.err(line, format!("rank `{num}` twice in one slice")));
        }
        slice.ranks.push((num, Vec::new()));
        Ok(Ctx::Rank)
    }

    /// Reads a `<resource>` of a rank into its variables.
    fn open_resource(&mut self, e: &BytesStart, line: u64) -> Result<Ctx, SourceError> {
        for a in self.attributes(e, line)? {
            let var = match &*a.key {
                "mbytes" => Name::const_new("memory"),
                "mflops" => Name::const_new("speed"),
                k @ ("tasks" | "idle" | "sched" | "mpi") => concat(&["time_", k]),
                k => concat(&["resource_", k]),
            };
            let v = self.number(&a, "resource")?;
            self.current_vars().push((var, v));
        }
        Ok(Ctx::Leaf("resource"))
    }

    /// Opens a `<task>` of a rank (its count is a variable).
    fn open_task(&mut self, e: &BytesStart, line: u64) -> Result<Ctx, SourceError> {
        let mut ty = None;
        let mut count = None;
        for a in self.attributes(e, line)? {
            match &*a.key {
                "type" => {
                    if a.value.is_empty() || a.value.chars().any(char::is_whitespace) {
                        return Err(
                            self.err(a.line, format!("task type `{}`: not a name", a.value))
                        );
                    }
                    ty = Some(Name::from(&*a.value));
                }
                "count" => count = Some(self.count(&a, "task count")?),
                k => self.skip(format!("attribute task/@{k}")),
            }
        }
        let ty = ty.ok_or_else(|| self.err(line, "<task> without `type`"))?;
        if let Some(c) = count {
            let var = concat(&["tasks_", &ty]);
            self.current_vars().push((var, c as f64));
        }
        Ok(Ctx::Task(ty))
    }

    /// Reads a `<detail>` of a task of type `ty`: a migration.
    fn open_task_detail(
        &mut self,
        e: &BytesStart,
        line: u64,
        ty: Name,
    ) -> Result<Ctx, SourceError> {
        let (mut count, mut to) = (None, None);
        for a in self.attributes(e, line)? {
            match &*a.key {
                "count" => count = Some(self.count(&a, "detail count")?),
                "to" => to = Some(self.rank_num(&a, "detail to")?),
                k => self.skip(format!("attribute detail/@{k}")),
            }
        }
        let count = count.ok_or_else(|| self.err(line, "<detail> without `count`"))?;
        let to = to.ok_or_else(|| self.err(line, "<detail> without `to`"))?;
        if count > 0 {
            let from = self.current_rank();
            self.slice
                .as_mut()
                .expect("inside a slice")
                .migrations
                .push((from, to, ty, count));
        }
        Ok(Ctx::Leaf("detail"))
    }

    /// Opens the `<message>` of a rank (its attributes are variables).
    fn open_message(&mut self, e: &BytesStart, line: u64) -> Result<Ctx, SourceError> {
        for a in self.attributes(e, line)? {
            if a.key == "to" {
                self.skip("attribute message/@to".into());
                continue;
            }
            let v = self.number(&a, "message")?;
            let var = concat(&["msg_", &a.key]);
            self.current_vars().push((var, v));
        }
        Ok(Ctx::Message)
    }

    /// Opens an `<extra>` of a message: a message type and its variables.
    fn open_extra(&mut self, e: &BytesStart, line: u64) -> Result<Ctx, SourceError> {
        let attrs = self.attributes(e, line)?;
        let ty = attrs
            .iter()
            .find(|a| a.key == "type")
            .map(|a| Name::from(&*a.value))
            .ok_or_else(|| self.err(line, "<extra> without `type`"))?;
        if ty.is_empty() || ty.chars().any(char::is_whitespace) {
            return Err(self.err(line, format!("message type `{ty}`: not a name")));
        }
        for a in attrs.iter().filter(|a| a.key != "type") {
            if a.key == "to" {
                self.skip("attribute extra/@to".into());
                continue;
            }
            let v = self.number(a, "extra")?;
            let var = concat(&["msg_", &ty, "_", &a.key]);
            self.current_vars().push((var, v));
        }
        Ok(Ctx::Extra(ty))
    }

    /// Reads a `<detail>` of an `<extra>` of type `ty`: messages sent.
    fn open_extra_detail(
        &mut self,
        e: &BytesStart,
        line: u64,
        ty: Name,
    ) -> Result<Ctx, SourceError> {
        let (mut count, mut to, mut bytes) = (None, None, None);
        for a in self.attributes(e, line)? {
            match &*a.key {
                "count" => count = Some(self.count(&a, "message detail count")?),
                "bytes" => bytes = Some(self.count(&a, "message detail bytes")?),
                "to" => to = Some(self.rank_num(&a, "message detail to")?),
                k => self.skip(format!("attribute extra/detail/@{k}")),
            }
        }
        let count = count.ok_or_else(|| self.err(line, "<detail> of <extra> without `count`"))?;
        let to = to.ok_or_else(|| self.err(line, "<detail> of <extra> without `to`"))?;
        if count > 0 {
            let from = self.current_rank();
            self.slice
                .as_mut()
                .expect("inside a slice")
                .messages
                .push((from, to, ty, count, bytes));
        }
        Ok(Ctx::Leaf("detail"))
    }

    fn open_slice(&mut self, e: &BytesStart, line: u64) -> Result<(), SourceError> {
        let (mut num, mut time) = (None, None);
        let mut text = String::new();
        for a in self.attributes(e, line)? {
            match &*a.key {
                "num" => num = Some(self.count(&a, "slice num")?),
                "time" => {
                    let t = parse_seconds(&a.value).ok_or_else(|| {
                        self.err(
                            a.line,
                            format!("slice time `{}`: not a number of seconds", a.value),
                        )
                    })?;
                    time = Some(t);
                    text = format!("`{}`", a.value);
                }
                k => self.skip(format!("attribute slice/@{k}")),
            }
        }
        let time = match (time, num) {
            (Some(t), _) => t,
            (None, Some(n)) => i64::try_from(n)
                .ok()
                .and_then(|n| n.checked_mul(SLICE_PERIOD_NS))
                .ok_or_else(|| self.err(line, format!("slice num `{n}`: too large")))?,
            (None, None) => return Err(self.err(line, "<slice> without `time` or `num`")),
        };
        if let Some(last) = self.last_time {
            if time < last {
                return Err(self.err(
                    line,
                    format!(
                        "slice time {} ({} s) is before the previous slice's ({} s)",
                        if text.is_empty() {
                            format!("num `{}`", num.unwrap_or(0))
                        } else {
                            text
                        },
                        secs(time),
                        secs(last)
                    ),
                ));
            }
        }
        self.slice = Some(SliceAcc {
            time,
            ranks: Vec::new(),
            seen: HashSet::new(),
            migrations: Vec::new(),
            messages: Vec::new(),
        });
        Ok(())
    }

    fn close(&mut self, line: u64) -> Result<(), SourceError> {
        // quick-xml checks that the end tag matches the open element.
        match self.stack.pop() {
            Some(Ctx::Slice) => self.end_slice(),
            Some(Ctx::Trace) => {
                self.end_trace();
                // Anything after the root but comments is an error.
                if let Some((ev, line)) = self.next_event_text()? {
                    return Err(self.err(line, format!("`{ev}` after </trace>")));
                }
            }
            Some(_) => {}
            None => return Err(self.err(line, "an end tag outside <trace>")),
        }
        Ok(())
    }

    fn rank_path(&mut self, rank: u32) -> Path {
        self.rank_paths
            .entry(rank)
            .or_insert_with(|| {
                Arc::from(vec![Step {
                    ty: "rank".to_string(),
                    name: rank.to_string(),
                }])
            })
            .clone()
    }

    fn end_slice(&mut self) {
        let s = self.slice.take().expect("a slice was open");
        let t = s.time;
        let t0 = match self.last_time {
            Some(last) => last,
            None => (t - SLICE_PERIOD_NS).max(0).min(t),
        };
        // Containers: every rank of the header at the first slice, else on first sight.
        let mut new: Vec<u32> = Vec::new();
        if self.last_time.is_none() {
            if let Some(r) = self.header.ranks {
                new.extend(0..r);
            }
        }
        let mut fresh: HashSet<u32> = new.iter().copied().collect();
        for r in s
            .ranks
            .iter()
            .map(|(r, _)| *r)
            .chain(s.migrations.iter().map(|m| m.1))
            .chain(s.messages.iter().map(|m| m.1))
        {
            if !self.rank_paths.contains_key(&r) && fresh.insert(r) {
                new.push(r);
            }
        }
        for r in new {
            let container = self.rank_path(r);
            self.queue.push_back(Record {
                time: t0,
                what: What::Create { container },
            });
        }
        let mut ends = Vec::with_capacity(s.migrations.len() + s.messages.len());
        let links =
            s.migrations
                .into_iter()
                .map(|(from, to, ty, count)| (MIGRATION_LINK, from, to, ty, count, None))
                .chain(s.messages.into_iter().map(|(from, to, ty, count, bytes)| {
                    (MESSAGE_LINK, from, to, ty, count, bytes)
                }));
        for (link, from, to, ty, count, bytes) in links {
            self.links += 1;
            // Migrations are m1, m2, ...; messages s1, s2, ... (one count for both).
            let prefix = if link == MIGRATION_LINK { "m" } else { "s" };
            let key = concat(&[prefix, itoa::Buffer::new().format(self.links)]);
            let from = self.rank_path(from);
            let to = self.rank_path(to);
            let mut extra: Extras = vec![("count".into(), count.to_compact_string())];
            if let Some(b) = bytes {
                extra.push(("bytes".into(), b.to_compact_string()));
            }
            self.queue.push_back(Record {
                time: t0,
                what: What::StartLink {
                    container: None,
                    ty: Name::const_new(link),
                    from,
                    value: ty.clone(),
                    key: key.clone(),
                    extra,
                },
            });
            ends.push(Record {
                time: t,
                what: What::EndLink {
                    container: None,
                    ty: Name::const_new(link),
                    to,
                    value: ty,
                    key,
                    extra: Vec::new(),
                },
            });
        }
        for (rank, vars) in s.ranks {
            let container = self.rank_path(rank);
            for (ty, value) in vars {
                self.queue.push_back(Record {
                    time: t,
                    what: What::Variable {
                        container: container.clone(),
                        ty,
                        op: VarOp::Set,
                        value,
                    },
                });
            }
        }
        self.queue.extend(ends);
        self.last_time = Some(t);
        self.slices += 1;
    }

    fn end_trace(&mut self) {
        self.done = true;
        if let Some(t) = self.last_time {
            for container in self.rank_paths.values() {
                self.queue.push_back(Record {
                    time: t,
                    what: What::Destroy {
                        container: container.clone(),
                    },
                });
            }
        }
    }
}

impl<R: Read + Send> Source for OpentsSource<R> {
    fn name(&self) -> &str {
        &self.name
    }

    fn next_record(&mut self) -> Result<Option<Record>, SourceError> {
        if self.queue.is_empty() {
            self.fill()?;
        }
        Ok(self.queue.pop_front())
    }

    fn extra_fields(&self) -> Vec<ExtraField> {
        ["count", "bytes"]
            .into_iter()
            .map(|name| ExtraField {
                kind: EventKind::StartLink,
                name: name.to_string(),
                field_type: "int".to_string(),
            })
            .collect()
    }
}

/// Seconds (`0.143853`, `12`, `1e-3`) as nanoseconds: plain decimals
/// exactly (digits past the nanosecond cut), other forms through a double
/// (C's `strtod`); `None` for anything negative, non-finite or not a number.
fn parse_seconds(s: &str) -> Option<Nanos> {
    const SYNTAX: SecondsSyntax = SecondsSyntax::PLAIN
        .bare_fraction(true)
        .past_nanos(PastNanos::Truncate)
        .double(true);
    trama_num::parse_seconds(s.trim().as_bytes(), SYNTAX).ok()
}

/// The name made of `parts`, one after the other.
fn concat(parts: &[&str]) -> Name {
    let mut name = Name::with_capacity(parts.iter().map(|p| p.len()).sum());
    for p in parts {
        name.push_str(p);
    }
    name
}

fn secs(t: Nanos) -> String {
    format!("{}.{:09}", t / 1_000_000_000, t % 1_000_000_000)
}
