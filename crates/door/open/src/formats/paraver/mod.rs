//! Paraver traces (`.prv`), with the names of the `.pcf` and `.row` files
//! beside them (same stem: `run.prv`, `run.pcf`, `run.row`).
//!
//! # The format
//!
//! The first line is the header,
//! `#Paraver (DATE):DURATION[_UNIT]:NODES:NAPPS:APP[:APP]*`, where
//! `DURATION` is an integer in `UNIT` (`ns` when no unit is given; `us`,
//! `ms`, `s`), `NODES` is `n(cpus,…)` or `0`, and each application is
//! `ntasks(nthreads:node,…)` optionally followed by `,ncommunicators`
//! (applications separated by `,` rather than `:` are taken too). Lines
//! starting with `c` (communicators) follow; they are skipped and counted.
//! Then one record per line, sorted by time, fields separated by `:`:
//!
//! | record | fields |
//! |---|---|
//! | state | `1:cpu:appl:task:thread:begin:end:state` |
//! | event | `2:cpu:appl:task:thread:time:type:value[:type:value]*` |
//! | communication | `3:cpu:appl:task:thread:lsend:psend:cpu:appl:task:thread:lrecv:precv:size:tag` |
//!
//! Lines starting with `#` are comments; blank lines are skipped.
//!
//! # Mapping to Pajé
//!
//! - Containers: the root holds one `Application` per application of the
//!   header, each holding its `Task`s, each holding its `Thread`s, all
//!   created at 0 and destroyed at the end (the header's duration, or the
//!   last record's time if later). Names come from the `.row`'s `APPL`,
//!   `TASK` and `THREAD` levels when given, else `APPL a`, `TASK a.t`,
//!   `THREAD a.t.h`.
//! - A state record is a `State` pushed on its thread at `begin` and
//!   popped at `end`; its value is the `.pcf`'s name of the state (`STATES`,
//!   coloured by `STATES_COLOR`), else its number.
//! - Each type/value pair of an event record is an event of the type named
//!   by the `.pcf`'s `EVENT_TYPE` (`NAME (type)` when two types share a
//!   name), else by its number, whose value is the name of its `VALUES`,
//!   else the number.
//! - Events of Extrae's MPI call types (numbers 50000000 to 50099999: point to
//!   point, collective, other, one-sided, I/O, …) also give each thread an
//!   `MPI call` state, as Paraver's MPI call view shows them: a non-zero
//!   value (`MPI_Send`, named by the `.pcf`) pushes it, the value 0
//!   (`End`, `Outside MPI`) pops it; a non-zero value while a call is open
//!   ends that call first; a call still open at the end of the trace ends
//!   there. The wait-state analysis reads MPI calls from these states.
//! - A communication is a `Communication` link (value `message`) from the
//!   sending thread at its logical send time to the receiving thread at its
//!   logical receive time, with `Size` (bytes, as `trama stats comm
//!   --size-field Size` reads it) and `Tag` as fields of its start.
//!   Physical times are not kept.
//!
//! Times are the records' integers times the header's unit, in
//! nanoseconds. Record times (a state's begin, an event's time, a
//! communication's logical send) must not decrease; ends of states and
//! receptions are held until the reading passes them, so the records come
//! out in time order. Errors name the file, the line and the offending
//! field: malformed numbers, missing or extra fields, an application, task
//! or thread the header does not have, a record earlier than the one
//! before it, a state that ends before it begins, a message received
//! before it is sent.

mod meta;

use std::cmp::{Ordering, Reverse};
use std::collections::{BinaryHeap, HashMap, HashSet, VecDeque};
use std::io::{BufRead, BufReader, Read};
use std::path::{Path as FsPath, PathBuf};

use trama_events::EventKind;
use trama_records::{
    path, Decl, EntityKind, ExtraField, Nanos, Path, Record, Source, SourceError, What,
};

pub(crate) use meta::{Header, Pcf, Row};

use crate::formats::records::RecordsReader;
use crate::input::Head;
use crate::Error;

/// The state type of state records.
pub const STATE_TYPE: &str = "State";
/// The state type of the MPI calls read from Extrae's MPI events.
pub const MPI_CALL_TYPE: &str = "MPI call";
/// Extrae's MPI call event types: `50000000..=50099999` (not the
/// `501xxxxx` types, which give details of a call: sizes, root, communicator).
const MPI_EVENT_TYPES: std::ops::RangeInclusive<u64> = 50_000_000..=50_099_999;
/// The link type of communication records.
pub const LINK_TYPE: &str = "Communication";
const APPL: &str = "Application";
const TASK: &str = "Task";
const THREAD: &str = "Thread";

/// Opens a Paraver trace as records, with the `.pcf` and `.row` beside
/// its file when there are.
pub(crate) fn open(head: Head) -> Result<RecordsReader, Error> {
    let beside = head
        .path
        .clone()
        .or_else(|| Some(PathBuf::from(&head.name)).filter(|p| p.is_file()));
    let mut notes = Vec::new();
    let mut pcf = Pcf::default();
    let mut row = Row::default();
    if let Some(p) = &beside {
        let (pcf_path, row_path) = companions(p);
        match std::fs::read(&pcf_path) {
            Ok(b) => pcf = Pcf::parse(&String::from_utf8_lossy(&b)),
            Err(_) => notes.push(format!(
                "no {}: states and events are named by their numbers",
                pcf_path.display()
            )),
        }
        if let Ok(b) = std::fs::read(&row_path) {
            row = Row::parse(&String::from_utf8_lossy(&b));
        }
    }
    let name = head.name.clone();
    let (input, _) = head.into_reader()?;
    let source = ParaverSource::new(name, input, pcf, row).map_err(Error::Source)?;
    if source.comm_lines > 0 {
        notes.push(format!(
            "{} communicator lines (c:…) skipped",
            source.comm_lines
        ));
    }
    crate::formats::records::open(Box::new(source), notes)
}

/// The `.pcf` and `.row` of the trace at `prv` (a `.prv`, maybe compressed).
pub(crate) fn companions(prv: &FsPath) -> (PathBuf, PathBuf) {
    let mut s = prv.to_string_lossy().into_owned();
    for ext in [".gz", ".zst", ".zstd"] {
        if let Some(t) = s.strip_suffix(ext) {
            s = t.to_string();
        }
    }
    if let Some(t) = s.strip_suffix(".prv") {
        s = t.to_string();
    }
    (
        PathBuf::from(format!("{s}.pcf")),
        PathBuf::from(format!("{s}.row")),
    )
}

/// A record held until the reading passes its time (a state's end, a
/// message's reception), ordered by time then by arrival.
struct Held {
    time: Nanos,
    seq: u64,
    record: Record,
}

impl PartialEq for Held {
    fn eq(&self, o: &Self) -> bool {
        (self.time, self.seq) == (o.time, o.seq)
    }
}
impl Eq for Held {}
impl PartialOrd for Held {
    fn partial_cmp(&self, o: &Self) -> Option<Ordering> {
        Some(self.cmp(o))
    }
}
impl Ord for Held {
    fn cmp(&self, o: &Self) -> Ordering {
        (self.time, self.seq).cmp(&(o.time, o.seq))
    }
}

/// The records of a Paraver trace, in time order.
pub(crate) struct ParaverSource {
    name: String,
    input: BufReader<Box<dyn Read + Send>>,
    header: Header,
    pcf: Pcf,
    /// Per application, per task, per thread, its path.
    threads: Vec<Vec<Vec<Path>>>,
    /// Every container, parents first.
    containers: Vec<Path>,
    /// Event type → its name in the trace.
    type_names: HashMap<u64, String>,
    queue: VecDeque<Record>,
    held: BinaryHeap<Reverse<Held>>,
    seq: u64,
    line: Vec<u8>,
    /// The line after the communicators, read while counting them.
    first: Option<Vec<u8>>,
    line_no: u64,
    /// The last record's time and line.
    last: (Nanos, u64),
    /// The latest time handed out.
    latest: Nanos,
    linked: bool,
    links: u64,
    /// Whether the `MPI call` state type is declared (at the first call:
    /// a trace whose MPI events are all 0 has none).
    mpi_declared: bool,
    /// The threads inside an MPI call.
    in_mpi: HashSet<Path>,
    done: bool,
    comm_lines: u64,
}

impl ParaverSource {
    /// Reads the header and the communicator lines of `input`.
    pub(crate) fn new(
        name: String,
        input: Box<dyn Read + Send>,
        pcf: Pcf,
        row: Row,
    ) -> Result<ParaverSource, SourceError> {
        let mut input = BufReader::with_capacity(256 << 10, input);
        let mut line = Vec::new();
        let read = |input: &mut BufReader<_>, line: &mut Vec<u8>, no: u64| {
            line.clear();
            let n = input
                .read_until(b'\n', line)
                .map_err(|e| SourceError::line(name.clone(), no, format!("cannot read: {e}")))?;
            while line.last().is_some_and(|b| *b == b'\n' || *b == b'\r') {
                line.pop();
            }
            Ok::<usize, SourceError>(n)
        };
        read(&mut input, &mut line, 1)?;
        let text = std::str::from_utf8(&line)
            .map_err(|_| SourceError::line(name.clone(), 1, "the header is not UTF-8"))?;
        let header = Header::parse(text).map_err(|m| SourceError::line(name.clone(), 1, m))?;
        let mut line_no = 1;
        let mut comm_lines = 0;
        let mut first = None;
        loop {
            let n = read(&mut input, &mut line, line_no + 1)?;
            if n == 0 {
                break;
            }
            line_no += 1;
            if line.first() == Some(&b'c') {
                comm_lines += 1;
            } else {
                line_no -= 1;
                first = Some(std::mem::take(&mut line));
                break;
            }
        }
        let mut threads = Vec::new();
        let mut containers = Vec::new();
        let (mut task_index, mut thread_index) = (0, 0);
        for (a, tasks) in header.apps.iter().enumerate() {
            let appl = row
                .name("APPL", a)
                .map_or_else(|| format!("APPL {}", a + 1), str::to_string);
            containers.push(path(&[(APPL, appl.as_str())]));
            let mut app_threads = Vec::new();
            for (t, &nthreads) in tasks.iter().enumerate() {
                let task = row
                    .name("TASK", task_index)
                    .map_or_else(|| format!("TASK {}.{}", a + 1, t + 1), str::to_string);
                task_index += 1;
                containers.push(path(&[(APPL, appl.as_str()), (TASK, task.as_str())]));
                let mut task_threads = Vec::new();
                for h in 0..nthreads as usize {
                    let thread = row.name("THREAD", thread_index).map_or_else(
                        || format!("THREAD {}.{}.{}", a + 1, t + 1, h + 1),
                        str::to_string,
                    );
                    thread_index += 1;
                    let p = path(&[
                        (APPL, appl.as_str()),
                        (TASK, task.as_str()),
                        (THREAD, thread.as_str()),
                    ]);
                    containers.push(p.clone());
                    task_threads.push(p);
                }
                app_threads.push(task_threads);
            }
            threads.push(app_threads);
        }
        // Event type names, unique: a name two types share gets its number.
        let mut by_name: HashMap<&str, usize> = HashMap::new();
        for n in pcf.types.values() {
            *by_name.entry(n.as_str()).or_default() += 1;
        }
        let type_names = pcf
            .types
            .iter()
            .map(|(ty, n)| {
                let reserved = n == STATE_TYPE || n == LINK_TYPE;
                let shared = by_name[n.as_str()] > 1 || reserved;
                let name = if shared {
                    format!("{n} ({ty})")
                } else {
                    n.clone()
                };
                (*ty, name)
            })
            .collect();
        let mut s = ParaverSource {
            name,
            input,
            header,
            pcf,
            threads,
            containers,
            type_names,
            queue: VecDeque::new(),
            held: BinaryHeap::new(),
            seq: 0,
            line: Vec::new(),
            first,
            line_no,
            last: (0, 1),
            latest: 0,
            linked: false,
            links: 0,
            mpi_declared: false,
            in_mpi: HashSet::new(),
            done: false,
            comm_lines,
        };
        s.declare();
        Ok(s)
    }

    /// The types, the state values of the `.pcf` and the containers.
    fn declare(&mut self) {
        let decl = |d| Record {
            time: 0,
            what: What::Declare(d),
        };
        self.queue.push_back(decl(Decl::ContainerType {
            name: APPL.into(),
            parent: None,
        }));
        self.queue.push_back(decl(Decl::ContainerType {
            name: TASK.into(),
            parent: Some(APPL.into()),
        }));
        self.queue.push_back(decl(Decl::ContainerType {
            name: THREAD.into(),
            parent: Some(TASK.into()),
        }));
        self.queue.push_back(decl(Decl::EntityType {
            kind: EntityKind::State,
            name: STATE_TYPE.into(),
            container: THREAD.into(),
            color: None,
        }));
        let mut states: Vec<_> = self.pcf.states.iter().collect();
        states.sort();
        for (v, name) in states {
            self.queue.push_back(decl(Decl::Value {
                ty: STATE_TYPE.into(),
                name: name.clone(),
                color: self.pcf.state_colors.get(v).cloned(),
            }));
        }
        for c in &self.containers {
            self.queue.push_back(Record {
                time: 0,
                what: What::Create {
                    container: c.clone(),
                },
            });
        }
    }

    fn error(&self, message: impl Into<String>) -> SourceError {
        SourceError::line(self.name.clone(), self.line_no, message)
    }

    /// Reads the next line into `self.line`; false at the end.
    fn read_line(&mut self) -> Result<bool, SourceError> {
        if let Some(l) = self.first.take() {
            self.line = l;
            self.line_no += 1;
            return Ok(true);
        }
        self.line.clear();
        let n = self
            .input
            .read_until(b'\n', &mut self.line)
            .map_err(|e| self.error(format!("cannot read: {e}")))?;
        if n == 0 {
            return Ok(false);
        }
        self.line_no += 1;
        while self.line.last().is_some_and(|b| *b == b'\n' || *b == b'\r') {
            self.line.pop();
        }
        Ok(true)
    }

    /// Hands over the held records timed at or before `t`.
    fn release(&mut self, t: Nanos) {
        while self.held.peek().is_some_and(|h| h.0.time <= t) {
            let h = self.held.pop().expect("peeked").0;
            self.queue.push_back(h.record);
        }
    }

    fn hold(&mut self, time: Nanos, what: What) {
        self.seq += 1;
        self.held.push(Reverse(Held {
            time,
            seq: self.seq,
            record: Record { time, what },
        }));
    }

    /// Converts the next line into the queue: false at the end.
    fn step(&mut self) -> Result<bool, SourceError> {
        if self.done {
            return Ok(false);
        }
        loop {
            if !self.read_line()? {
                self.finish();
                return Ok(true);
            }
            let line = std::mem::take(&mut self.line);
            let r = self.record(&line);
            self.line = line;
            if r? {
                return Ok(true);
            }
        }
    }

    /// At the end: every held record, then the containers destroyed.
    fn finish(&mut self) {
        self.done = true;
        while let Some(h) = self.held.pop() {
            self.latest = self.latest.max(h.0.time);
            self.queue.push_back(h.0.record);
        }
        let end = self.header.duration.max(self.latest);
        let mut open: Vec<Path> = self.in_mpi.drain().collect();
        open.sort();
        for thread in open {
            self.queue.push_back(Record {
                time: end,
                what: What::PopState {
                    container: thread,
                    ty: MPI_CALL_TYPE.into(),
                    extra: Vec::new(),
                },
            });
        }
        for c in self.containers.iter().rev() {
            self.queue.push_back(Record {
                time: end,
                what: What::Destroy {
                    container: c.clone(),
                },
            });
        }
    }

    /// Converts one line; false when it holds no record.
    fn record(&mut self, line: &[u8]) -> Result<bool, SourceError> {
        if line.iter().all(u8::is_ascii_whitespace) {
            return Ok(false);
        }
        if line[0] == b'#' {
            return Ok(false);
        }
        let text = std::str::from_utf8(line).map_err(|_| self.error("the line is not UTF-8"))?;
        let f: Vec<&str> = text.split(':').collect();
        let (kind, want) = match f[0] {
            "1" => ("state", Some(8)),
            "2" => ("event", None),
            "3" => ("communication", Some(15)),
            "c" => {
                return Err(self.error(format!(
                    "a communicator line among the records (they follow the header): '{text}'"
                )))
            }
            other => {
                return Err(self.error(format!(
                    "unknown record type '{other}' (1: state, 2: event, 3: communication): '{text}'"
                )))
            }
        };
        match want {
            Some(n) if f.len() != n => {
                return Err(self.error(format!(
                    "a {kind} record has {n} fields, this one {}: '{text}'",
                    f.len()
                )))
            }
            None if f.len() < 8 || !f.len().is_multiple_of(2) => {
                return Err(self.error(format!(
                "an event record has 6 fields and type:value pairs, this one {} fields: '{text}'",
                f.len()
            )))
            }
            _ => {}
        }
        let time = self.time(f[5], kind, if kind == "state" { "begin" } else { "time" })?;
        if time < self.last.0 {
            return Err(self.error(format!(
                "this {kind} record at {} comes before the record of line {} at {}: the records of a Paraver trace are sorted by time",
                f[5],
                self.last.1,
                self.last.0 / self.header.unit
            )));
        }
        self.last = (time, self.line_no);
        self.release(time);
        self.latest = self.latest.max(time);
        let thread = self.thread(&f[1..5], kind)?;
        match kind {
            "state" => self.state_record(&f, text, time, thread)?,
            "event" => self.events_record(&f, time, thread)?,
            _ => self.communication_record(&f, text, time, thread)?,
        }
        Ok(true)
    }

    /// A state record (`f`: its fields, `text`: its line) of `thread`
    /// beginning at `time`: its push now, its pop held until it ends.
    fn state_record(
        &mut self,
        f: &[&str],
        text: &str,
        time: Nanos,
        thread: Path,
    ) -> Result<(), SourceError> {
        const KIND: &str = "state";
        let end = self.time(f[6], KIND, "end")?;
        if end < time {
            return Err(self.error(format!(
                "this state ends ({}) before it begins ({}): '{text}'",
                f[6], f[5]
            )));
        }
        let v: i64 = self.num(f[7], KIND, "state")?;
        let value = self
            .pcf
            .states
            .get(&v)
            .cloned()
            .unwrap_or_else(|| v.to_string());
        self.queue.push_back(Record {
            time,
            what: What::PushState {
                container: thread.clone(),
                ty: STATE_TYPE.into(),
                value: value.into(),
                extra: Vec::new(),
            },
        });
        self.hold(
            end,
            What::PopState {
                container: thread,
                ty: STATE_TYPE.into(),
                extra: Vec::new(),
            },
        );
        Ok(())
    }

    /// An event record (`f`: its fields) of `thread` at `time`: one event
    /// per type:value pair.
    fn events_record(&mut self, f: &[&str], time: Nanos, thread: Path) -> Result<(), SourceError> {
        const KIND: &str = "event";
        for pair in f[6..].chunks(2) {
            let ty: u64 = self.num(pair[0], KIND, "type")?;
            let v: i64 = self.num(pair[1], KIND, "value")?;
            let ty_name = self
                .type_names
                .get(&ty)
                .cloned()
                .unwrap_or_else(|| ty.to_string());
            let value = self
                .pcf
                .values
                .get(&ty)
                .and_then(|m| m.get(&v))
                .cloned()
                .unwrap_or_else(|| v.to_string());
            if MPI_EVENT_TYPES.contains(&ty) {
                self.mpi_call(time, &thread, (v != 0).then_some(value.as_str()));
            }
            self.queue.push_back(Record {
                time,
                what: What::Event {
                    container: thread.clone(),
                    ty: ty_name.into(),
                    value: value.into(),
                    extra: Vec::new(),
                },
            });
        }
        Ok(())
    }

    /// An MPI event on `thread` at `time`: the call it opens (`Some`: its
    /// name) or the end of the open one (`None`).
    fn mpi_call(&mut self, time: Nanos, thread: &Path, call: Option<&str>) {
        if self.in_mpi.contains(thread) {
            self.queue.push_back(Record {
                time,
                what: What::PopState {
                    container: thread.clone(),
                    ty: MPI_CALL_TYPE.into(),
                    extra: Vec::new(),
                },
            });
            if call.is_none() {
                self.in_mpi.remove(thread);
            }
        }
        if let Some(name) = call {
            if !self.mpi_declared {
                self.mpi_declared = true;
                self.queue.push_back(Record {
                    time,
                    what: What::Declare(Decl::EntityType {
                        kind: EntityKind::State,
                        name: MPI_CALL_TYPE.into(),
                        container: THREAD.into(),
                        color: None,
                    }),
                });
            }
            self.in_mpi.insert(thread.clone());
            self.queue.push_back(Record {
                time,
                what: What::PushState {
                    container: thread.clone(),
                    ty: MPI_CALL_TYPE.into(),
                    value: name.into(),
                    extra: Vec::new(),
                },
            });
        }
    }

    /// A communication record (`f`: its fields, `text`: its line) sent by
    /// `thread` at `time`: its start now, its end held until received.
    fn communication_record(
        &mut self,
        f: &[&str],
        text: &str,
        time: Nanos,
        thread: Path,
    ) -> Result<(), SourceError> {
        const KIND: &str = "communication";
        let _psend: i64 = self.num(f[6], KIND, "physical send")?;
        let to = self.thread(&f[7..11], KIND)?;
        let recv = self.time(f[11], KIND, "logical receive")?;
        let _precv: i64 = self.num(f[12], KIND, "physical receive")?;
        let size: i64 = self.num(f[13], KIND, "size")?;
        let tag: i64 = self.num(f[14], KIND, "tag")?;
        if recv < time {
            return Err(self.error(format!(
                "this message is received ({}) before it is sent ({}): '{text}'",
                f[11], f[5]
            )));
        }
        if !self.linked {
            self.linked = true;
            self.queue.push_back(Record {
                time,
                what: What::Declare(Decl::LinkType {
                    name: LINK_TYPE.into(),
                    container: None,
                    start: THREAD.into(),
                    end: THREAD.into(),
                }),
            });
        }
        self.links += 1;
        let key = format!("m{}", self.links);
        self.queue.push_back(Record {
            time,
            what: What::StartLink {
                container: None,
                ty: LINK_TYPE.into(),
                from: thread,
                value: "message".into(),
                key: key.clone().into(),
                extra: vec![
                    ("Size".into(), size.to_string().into()),
                    ("Tag".into(), tag.to_string().into()),
                ],
            },
        });
        self.hold(
            recv,
            What::EndLink {
                container: None,
                ty: LINK_TYPE.into(),
                to,
                value: "message".into(),
                key: key.into(),
                extra: Vec::new(),
            },
        );
        Ok(())
    }

    fn num<T: std::str::FromStr>(
        &self,
        word: &str,
        kind: &str,
        what: &str,
    ) -> Result<T, SourceError> {
        let digits = word.strip_prefix('-').unwrap_or(word);
        if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
            return Err(self.error(format!(
                "the {what} of this {kind} record is not a number: '{word}'"
            )));
        }
        word.parse().map_err(|_| {
            self.error(format!(
                "the {what} of this {kind} record is out of range: '{word}'"
            ))
        })
    }

    /// A time field in nanoseconds.
    fn time(&self, word: &str, kind: &str, what: &str) -> Result<Nanos, SourceError> {
        let t: u64 = self.num(word, kind, what)?;
        i64::try_from(t)
            .ok()
            .and_then(|t| t.checked_mul(self.header.unit))
            .ok_or_else(|| {
                self.error(format!(
                    "the {what} of this {kind} record is out of range: '{word}'"
                ))
            })
    }

    /// The thread of `cpu:appl:task:thread`.
    fn thread(&self, f: &[&str], kind: &str) -> Result<Path, SourceError> {
        let _cpu: u64 = self.num(f[0], kind, "cpu")?;
        let a: usize = self.num(f[1], kind, "application")?;
        let t: usize = self.num(f[2], kind, "task")?;
        let h: usize = self.num(f[3], kind, "thread")?;
        a.checked_sub(1)
            .and_then(|a| self.threads.get(a))
            .and_then(|ts| t.checked_sub(1).and_then(|t| ts.get(t)))
            .and_then(|hs| h.checked_sub(1).and_then(|h| hs.get(h)))
            .cloned()
            .ok_or_else(|| {
                self.error(format!(
                    "this {kind} record names thread {a}.{t}.{h} (application.task.thread), which the header does not have"
                ))
            })
    }
}

impl Source for ParaverSource {
    fn name(&self) -> &str {
        &self.name
    }

    fn next_record(&mut self) -> Result<Option<Record>, SourceError> {
        loop {
            if let Some(r) = self.queue.pop_front() {
                return Ok(Some(r));
            }
            if !self.step()? {
                return Ok(None);
            }
        }
    }

    fn extra_fields(&self) -> Vec<ExtraField> {
        ["Size", "Tag"]
            .into_iter()
            .map(|n| ExtraField {
                kind: EventKind::StartLink,
                name: n.into(),
                field_type: "int".into(),
            })
            .collect()
    }
}
