//! The CLOG-2 [`Source`]: two passes over the file, the first for the
//! definitions, the rank map and the message counts, the second converting
//! (mapping in the module documentation).

use std::collections::{BTreeMap, BTreeSet, HashMap, VecDeque};
use std::io::{BufReader, Cursor, Read};
use std::path::Path as FsPath;
use std::sync::Arc;

use trama_events::EventKind;

use super::read::{
    Body, Clog2Reader, Clog2Record, CommEntry, EventDef, Preamble, StateDef, COMM_FREE,
    COMM_LID_NULL, COMM_SELF_CREATE, COMM_WORLD_CREATE, EVT_RECV, EVT_SEND,
};
use super::x11;
use crate::reading::{open_file, OpenSource, Stepwise};
use trama_records::{
    path, Decl, EntityKind, ExtraField, Nanos, Path, Record, Source, SourceError, What,
};

/// The state type of the records.
pub const STATE_TYPE: &str = "MPI";
/// The event type of solo events.
pub const EVENT_TYPE: &str = "MPI event";
/// The link type of messages.
pub const LINK_TYPE: &str = "message";
/// The extra field of message starts holding the size sent.
pub const SIZE_FIELD: &str = "Size";

/// What the first pass learns.
#[derive(Default)]
struct Scan {
    states: Vec<StateDef>,
    events: Vec<EventDef>,
    /// Event id → index in `states`, for entering and leaving.
    starts: HashMap<i32, usize>,
    ends: HashMap<i32, usize>,
    /// Event id → index in `events`.
    solo: HashMap<i32, usize>,
    /// (communicator, rank in it) → rank in `MPI_COMM_WORLD`.
    comm_ranks: HashMap<(i32, i32), i32>,
    /// Local ids of `MPI_COMM_WORLD`.
    worlds: BTreeSet<i32>,
    /// World rank → processor name (from its `MPI_COMM_SELF`'s global id).
    processor_names: BTreeMap<i32, String>,
    /// (sender, receiver, tag) → (sends, receives).
    messages: HashMap<(i32, i32, i32), (u64, u64)>,
    counts: BTreeMap<&'static str, u64>,
    comm_table: Vec<CommEntry>,
    /// Times of the records that produce output never decrease.
    sorted: bool,
    /// The time of the first record producing output.
    first_time: Option<f64>,
    /// Event ids of the bare and cargo records.
    etypes: BTreeSet<i32>,
    /// Some of them have no definition.
    undefined_events: bool,
}

/// Converts one CLOG-2 file into records (see the module documentation).
pub struct Clog2Source {
    name: String,
    preamble: Preamble,
    scan: Scan,
    conv: Converter,
    /// The log's reader while its records are streamed: `None` once they
    /// are all converted (or were converted whole and sorted).
    reader: Option<Clog2Reader<Input>>,
    pending: VecDeque<Record>,
}

/// What the two passes read: a file, or bytes held in memory.
type Input = Box<dyn Read + Send>;

/// The converting state of the second pass.
struct Converter {
    threads: bool,
    finalized: bool,
    shift: f64,
    paths: HashMap<(i32, i32), Path>,
    stacks: BTreeMap<(i32, i32), Vec<usize>>,
    sent: HashMap<(i32, i32, i32), u64>,
    received: HashMap<(i32, i32, i32), u64>,
    skipped: BTreeMap<String, u64>,
    anomalies: BTreeMap<String, u64>,
}

/// How to read a CLOG-2 log (nothing to choose yet).
#[non_exhaustive]
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Clog2Options {}

impl OpenSource for Clog2Source {
    type Options = Clog2Options;
    const IO_ERROR: &'static str = "read error: ";

    /// Opens a CLOG-2 file: reads it once for its definitions (so events
    /// logged before the definition of their state are understood) and
    /// prepares the conversion. Records come in time order: streamed when
    /// the file's events are in time order (a merged log), else converted
    /// whole and sorted.
    fn open(path: impl AsRef<FsPath>, opts: &Clog2Options) -> Result<Self, SourceError> {
        let path = path.as_ref();
        let open = || {
            let (name, f) = open_file(path, "cannot open: ")?;
            Clog2Reader::from_reader(
                name,
                Box::new(BufReader::with_capacity(1 << 16, f)) as Input,
            )
        };
        Clog2Source::read(&open, opts)
    }

    /// Reads a CLOG-2 log as [`Clog2Source::open`] reads a file, holding
    /// the whole log in memory for the two passes.
    fn from_bytes(name: String, bytes: Vec<u8>, opts: &Clog2Options) -> Result<Self, SourceError> {
        let bytes: Arc<[u8]> = bytes.into();
        let open = || {
            Clog2Reader::from_reader(name.clone(), Box::new(Cursor::new(bytes.clone())) as Input)
        };
        Clog2Source::read(&open, opts)
    }
}

impl Clog2Source {
    /// Both passes, each over an input from `open`.
    fn read(
        open: &dyn Fn() -> Result<Clog2Reader<Input>, SourceError>,
        _opts: &Clog2Options,
    ) -> Result<Clog2Source, SourceError> {
        let (preamble, scan) = scan(open()?)?;
        let mut reader = open()?;
        let name = reader.name().to_string();
        let mut conv = Converter {
            threads: preamble.max_thread_count > 1,
            finalized: preamble.is_finalized,
            shift: 0.0,
            paths: HashMap::new(),
            stacks: BTreeMap::new(),
            sent: HashMap::new(),
            received: HashMap::new(),
            skipped: BTreeMap::new(),
            anomalies: BTreeMap::new(),
        };
        let mut pending = VecDeque::new();
        let t0 = match scan.first_time {
            Some(t) => to_nanos(t, 0, &name)?,
            None => 0,
        };
        declarations(&scan, &mut conv, t0, &mut pending);
        let reader = if scan.sorted {
            Some(reader)
        } else {
            let mut all: Vec<Record> = pending.drain(..).collect();
            let mut out = VecDeque::new();
            while let Some(rec) = reader.next_record()? {
                conv.convert(&rec, &scan, &name, &mut out)?;
                all.extend(out.drain(..));
            }
            conv.finish();
            all.sort_by_key(|r| r.time);
            pending = all.into();
            None
        };
        Ok(Clog2Source {
            name,
            preamble,
            scan,
            conv,
            reader,
            pending,
        })
    }

    /// The file's preamble.
    pub fn preamble(&self) -> &Preamble {
        &self.preamble
    }

    /// The state definitions, in file order (a later definition of the
    /// same state id replaces an earlier one).
    pub fn state_defs(&self) -> &[StateDef] {
        &self.scan.states
    }

    /// The solo event definitions, in file order.
    pub fn event_defs(&self) -> &[EventDef] {
        &self.scan.events
    }

    /// How many records of each kind (`CARGO`, `MSG`, `ENDLOG`...) the file holds.
    pub fn record_counts(&self) -> &BTreeMap<&'static str, u64> {
        &self.scan.counts
    }

    /// The communicator table at the end of the file.
    pub fn comm_table(&self) -> &[CommEntry] {
        &self.scan.comm_table
    }

    /// The processor name (`MPI_Get_processor_name`, cut to 20 bytes) of
    /// each world rank, read from the global id of its `MPI_COMM_SELF`.
    pub fn processor_names(&self) -> &BTreeMap<i32, String> {
        &self.scan.processor_names
    }

    /// What was read but not turned into records, by kind: `CONSTDEF`,
    /// `COLL`, `SRCLOC`, `CARGO bytes` (the payloads of cargo events, whose
    /// events are converted), `MSG etype N`. Complete once the stream has
    /// ended.
    pub fn skipped(&self) -> &BTreeMap<String, u64> {
        &self.conv.skipped
    }

    /// Irregularities met while converting, counted by kind: `state left
    /// without being entered`, `state closed by the end of an enclosing
    /// state`, `state still open at the end of the log`, `unmatched send`,
    /// `unmatched receive`, `undefined event id`, `unknown colour`, `rank of
    /// an unknown communicator`. Complete once the stream has ended.
    pub fn anomalies(&self) -> &BTreeMap<String, u64> {
        &self.conv.anomalies
    }
}

impl Source for Clog2Source {
    fn name(&self) -> &str {
        &self.name
    }

    fn next_record(&mut self) -> Result<Option<Record>, SourceError> {
        self.next_queued()
    }

    fn extra_fields(&self) -> Vec<ExtraField> {
        if self.scan.messages.is_empty() {
            return Vec::new();
        }
        vec![ExtraField {
            kind: EventKind::StartLink,
            name: SIZE_FIELD.to_string(),
            field_type: "int".to_string(),
        }]
    }
}

impl Stepwise for Clog2Source {
    fn queue(&mut self) -> &mut VecDeque<Record> {
        &mut self.pending
    }

    fn step(&mut self) -> Result<bool, SourceError> {
        let Some(reader) = &mut self.reader else {
            return Ok(false);
        };
        match reader.next_record()? {
            Some(rec) => self
                .conv
                .convert(&rec, &self.scan, &self.name, &mut self.pending)?,
            None => {
                self.conv.finish();
                self.reader = None;
            }
        }
        Ok(true)
    }
}

/// The first pass.
fn scan(mut reader: Clog2Reader<Input>) -> Result<(Preamble, Scan), SourceError> {
    let preamble = reader.preamble().clone();
    let name = reader.name().to_string();
    let mut s = Scan {
        sorted: true,
        ..Scan::default()
    };
    let mut msgs: Vec<(i32, i32, i32, i32, i32, i32)> = Vec::new();
    let mut shift = 0.0;
    let mut last = f64::NEG_INFINITY;
    while let Some(rec) = reader.next_record()? {
        *s.counts.entry(rec.body.kind_name()).or_default() += 1;
        match &rec.body {
            Body::StateDef(d) => {
                if let Some(i) = s.states.iter().position(|x| x.id == d.id) {
                    s.states[i] = d.clone();
                } else {
                    s.states.push(d.clone());
                }
            }
            Body::EventDef(d) => {
                if let Some(i) = s.events.iter().position(|x| x.id == d.id) {
                    s.events[i] = d.clone();
                } else {
                    s.events.push(d.clone());
                }
            }
            Body::Comm {
                etype,
                icomm,
                rank,
                wrank,
                gcomm,
            } => {
                if *etype == COMM_WORLD_CREATE {
                    s.worlds.insert(*icomm);
                }
                if *etype == COMM_SELF_CREATE && *wrank >= 0 && !gcomm.name.is_empty() {
                    s.processor_names.insert(*wrank, gcomm.name.clone());
                }
                if *etype != COMM_FREE && *icomm != COMM_LID_NULL && *wrank >= 0 {
                    s.comm_ranks.insert((*icomm, *rank), *wrank);
                }
            }
            Body::Msg {
                etype,
                icomm,
                rank,
                tag,
                ..
            } if *etype == EVT_SEND || *etype == EVT_RECV => {
                msgs.push((rec.icomm, rec.rank, *etype, *icomm, *rank, *tag));
            }
            Body::TimeShift { shift: v } if !preamble.is_finalized => shift = *v,
            Body::Bare { etype } | Body::Cargo { etype, .. } => {
                s.etypes.insert(*etype);
            }
            _ => {}
        }
        if matches!(
            rec.body,
            Body::Bare { .. } | Body::Cargo { .. } | Body::Msg { .. }
        ) {
            let t = rec.time + shift;
            to_nanos(t, rec.offset, &name)?;
            if t < last {
                s.sorted = false;
            }
            last = last.max(t);
            s.first_time = Some(s.first_time.map_or(t, |f: f64| f.min(t)));
        }
    }
    s.comm_table = reader.comm_table()?;
    // Messages are counted per (sender, receiver, tag) once every
    // communicator is known.
    for (hc, hr, etype, pc, pr, tag) in msgs {
        let me = world_rank(&s, hc, hr).0;
        let partner = world_rank(&s, pc, pr).0;
        let e = if etype == EVT_SEND {
            &mut s.messages.entry((me, partner, tag)).or_default().0
        } else {
            &mut s.messages.entry((partner, me, tag)).or_default().1
        };
        *e += 1;
    }
    for (i, d) in s.states.iter().enumerate() {
        s.starts.insert(d.start, i);
        s.ends.insert(d.end, i);
    }
    for (i, d) in s.events.iter().enumerate() {
        s.solo.insert(d.id, i);
    }
    s.undefined_events = s
        .etypes
        .iter()
        .any(|e| !s.starts.contains_key(e) && !s.ends.contains_key(e) && !s.solo.contains_key(e));
    Ok((preamble, s))
}

/// The world rank of `rank` in communicator `icomm`, and whether the
/// communicator was known.
fn world_rank(s: &Scan, icomm: i32, rank: i32) -> (i32, bool) {
    if let Some(w) = s.comm_ranks.get(&(icomm, rank)) {
        (*w, true)
    } else if s.worlds.contains(&icomm) {
        (rank, true)
    } else {
        (rank, false)
    }
}

/// The untimed declarations, at the time of the first event.
fn declarations(s: &Scan, conv: &mut Converter, t0: Nanos, out: &mut VecDeque<Record>) {
    let leaf = if conv.threads { "thread" } else { "rank" };
    let mut push = |d: Decl| {
        out.push_back(Record {
            time: t0,
            what: What::Declare(d),
        })
    };
    push(Decl::ContainerType {
        name: "rank".into(),
        parent: None,
    });
    if conv.threads {
        push(Decl::ContainerType {
            name: "thread".into(),
            parent: Some("rank".into()),
        });
    }
    // A type, then its values (named and coloured by their definitions,
    // the first definition of a name only).
    let mut entity_type = |kind, ty: &str, values: &mut dyn Iterator<Item = (String, &str)>| {
        push(Decl::EntityType {
            kind,
            name: ty.into(),
            container: leaf.into(),
            color: None,
        });
        let mut seen = BTreeSet::new();
        for (name, color) in values {
            if seen.insert(name.clone()) {
                let color = conv.color(color);
                push(Decl::Value {
                    ty: ty.into(),
                    name,
                    color,
                });
            }
        }
    };
    let mut states = s.states.iter().map(|d| (state_name(d), &*d.color));
    entity_type(EntityKind::State, STATE_TYPE, &mut states);
    if !s.events.is_empty() || s.undefined_events {
        let mut events = s.events.iter().map(|d| (event_name(d), &*d.color));
        entity_type(EntityKind::Event, EVENT_TYPE, &mut events);
    }
    if !s.messages.is_empty() {
        push(Decl::LinkType {
            name: LINK_TYPE.into(),
            container: None,
            start: leaf.into(),
            end: leaf.into(),
        });
    }
}

fn state_name(d: &StateDef) -> String {
    if d.name.is_empty() {
        format!("state {}", d.id)
    } else {
        d.name.clone()
    }
}

fn event_name(d: &EventDef) -> String {
    if d.name.is_empty() {
        format!("event {}", d.id)
    } else {
        d.name.clone()
    }
}

/// Seconds to nanoseconds, refusing what does not fit.
fn to_nanos(t: f64, offset: u64, name: &str) -> Result<Nanos, SourceError> {
    let ns = (t * 1e9).round();
    if !ns.is_finite() || ns.abs() > 9.0e18 {
        return Err(SourceError::byte(
            name,
            offset,
            format!("record time `{t}` s is not a usable time"),
        ));
    }
    Ok(ns as Nanos)
}

impl Converter {
    fn count(map: &mut BTreeMap<String, u64>, key: &str) {
        *map.entry(key.to_string()).or_default() += 1;
    }

    /// A Pajé colour (`"r g b"` in 0..1) for an MPE colour: an X11 name,
    /// `#rrggbb`, or three numbers (0..255, or 0..1 when all are at most 1).
    fn color(&mut self, c: &str) -> Option<String> {
        if c.trim().is_empty() {
            return None;
        }
        let rgb = parse_color(c);
        if rgb.is_none() {
            Self::count(&mut self.anomalies, "unknown colour");
        }
        rgb.map(|(r, g, b)| format!("{r:.3} {g:.3} {b:.3}"))
    }

    fn path(&mut self, rank: i32, thread: i32) -> Path {
        let threads = self.threads;
        self.paths
            .entry((rank, if threads { thread } else { 0 }))
            .or_insert_with(|| {
                let r = rank.to_string();
                if threads {
                    path(&[
                        ("rank", r.as_str()),
                        ("thread", thread.to_string().as_str()),
                    ])
                } else {
                    path(&[("rank", r.as_str())])
                }
            })
            .clone()
    }

    fn convert(
        &mut self,
        rec: &Clog2Record,
        s: &Scan,
        name: &str,
        out: &mut VecDeque<Record>,
    ) -> Result<(), SourceError> {
        if let Body::TimeShift { shift } = rec.body {
            if !self.finalized {
                self.shift = shift;
            }
        }
        let etype = match &rec.body {
            Body::Bare { etype } => *etype,
            Body::Cargo { etype, .. } => {
                Self::count(&mut self.skipped, "CARGO bytes");
                *etype
            }
            Body::Msg {
                etype,
                icomm,
                rank,
                tag,
                size,
            } => {
                return self.message(rec, s, name, out, (*etype, *icomm, *rank, *tag, *size));
            }
            Body::ConstDef { .. } | Body::Coll { .. } | Body::SrcLoc { .. } => {
                Self::count(&mut self.skipped, rec.body.kind_name());
                return Ok(());
            }
            _ => return Ok(()),
        };
        let time = to_nanos(rec.time + self.shift, rec.offset, name)?;
        let (rank, known) = world_rank(s, rec.icomm, rec.rank);
        if !known {
            Self::count(&mut self.anomalies, "rank of an unknown communicator");
        }
        let container = self.path(rank, rec.thread);
        let key = (rank, if self.threads { rec.thread } else { 0 });
        if let Some(&st) = s.starts.get(&etype) {
            self.stacks.entry(key).or_default().push(st);
            out.push_back(Record {
                time,
                what: What::PushState {
                    container,
                    ty: STATE_TYPE.into(),
                    value: state_name(&s.states[st]).into(),
                    extra: Vec::new(),
                },
            });
        } else if let Some(&st) = s.ends.get(&etype) {
            let stack = self.stacks.entry(key).or_default();
            match stack.iter().rposition(|&x| x == st) {
                Some(p) => {
                    let above = stack.len() - 1 - p;
                    stack.truncate(p);
                    for _ in 0..above {
                        Self::count(
                            &mut self.anomalies,
                            "state closed by the end of an enclosing state",
                        );
                    }
                    for _ in 0..=above {
                        out.push_back(Record {
                            time,
                            what: What::PopState {
                                container: container.clone(),
                                ty: STATE_TYPE.into(),
                                extra: Vec::new(),
                            },
                        });
                    }
                }
                None => Self::count(&mut self.anomalies, "state left without being entered"),
            }
        } else {
            let value = match s.solo.get(&etype) {
                Some(&e) => event_name(&s.events[e]),
                None => {
                    Self::count(&mut self.anomalies, "undefined event id");
                    format!("event {etype}")
                }
            };
            out.push_back(Record {
                time,
                what: What::Event {
                    container,
                    ty: EVENT_TYPE.into(),
                    value: value.into(),
                    extra: Vec::new(),
                },
            });
        }
        Ok(())
    }

    fn message(
        &mut self,
        rec: &Clog2Record,
        s: &Scan,
        name: &str,
        out: &mut VecDeque<Record>,
        (etype, icomm, prank, tag, size): (i32, i32, i32, i32, i32),
    ) -> Result<(), SourceError> {
        if etype != EVT_SEND && etype != EVT_RECV {
            Self::count(&mut self.skipped, &format!("MSG etype {etype}"));
            return Ok(());
        }
        let time = to_nanos(rec.time + self.shift, rec.offset, name)?;
        let (me, known) = world_rank(s, rec.icomm, rec.rank);
        let (partner, pknown) = world_rank(s, icomm, prank);
        for k in [known, pknown] {
            if !k {
                Self::count(&mut self.anomalies, "rank of an unknown communicator");
            }
        }
        let here = self.path(me, rec.thread);
        let send = etype == EVT_SEND;
        let triple = if send {
            (me, partner, tag)
        } else {
            (partner, me, tag)
        };
        let (sends, recvs) = s.messages.get(&triple).copied().unwrap_or((0, 0));
        let counter = if send {
            self.sent.entry(triple).or_default()
        } else {
            self.received.entry(triple).or_default()
        };
        let n = *counter;
        *counter += 1;
        if n >= sends.min(recvs) {
            Self::count(
                &mut self.anomalies,
                if send {
                    "unmatched send"
                } else {
                    "unmatched receive"
                },
            );
            return Ok(());
        }
        let key = format!("{}-{}-{}-{}", triple.0, triple.1, triple.2, n);
        let what = if send {
            What::StartLink {
                container: None,
                ty: LINK_TYPE.into(),
                from: here,
                value: tag.to_string().into(),
                key: key.into(),
                extra: vec![(SIZE_FIELD.to_string().into(), size.to_string().into())],
            }
        } else {
            What::EndLink {
                container: None,
                ty: LINK_TYPE.into(),
                to: here,
                value: tag.to_string().into(),
                key: key.into(),
                extra: Vec::new(),
            }
        };
        out.push_back(Record { time, what });
        Ok(())
    }

    /// At the end of the log: counts the states left open.
    fn finish(&mut self) {
        let open: usize = self.stacks.values().map(Vec::len).sum();
        if open > 0 {
            *self
                .anomalies
                .entry("state still open at the end of the log".into())
                .or_default() += open as u64;
        }
        self.stacks.clear();
    }
}

/// An MPE colour as three components in 0..1.
pub(super) fn parse_color(c: &str) -> Option<(f64, f64, f64)> {
    let c = c.trim();
    if let Some(hex) = c.strip_prefix('#') {
        if hex.len() == 6 {
            let v = u32::from_str_radix(hex, 16).ok()?;
            return Some(split_rgb(v));
        }
        return None;
    }
    let nums: Vec<f64> = c
        .split(|ch: char| ch.is_whitespace() || ch == ',')
        .filter(|t| !t.is_empty())
        .map(|t| t.parse::<f64>())
        .collect::<Result<_, _>>()
        .unwrap_or_default();
    if nums.len() == 3 && nums.iter().all(|v| (0.0..=255.0).contains(v)) {
        let scale = if nums.iter().all(|v| *v <= 1.0) {
            1.0
        } else {
            255.0
        };
        return Some((nums[0] / scale, nums[1] / scale, nums[2] / scale));
    }
    let key: String = c
        .chars()
        .filter(|ch| !ch.is_whitespace())
        .flat_map(char::to_lowercase)
        .collect();
    x11::X11_COLORS
        .binary_search_by(|(n, _)| (*n).cmp(key.as_str()))
        .ok()
        .map(|i| split_rgb(x11::X11_COLORS[i].1))
}

fn split_rgb(v: u32) -> (f64, f64, f64) {
    let f = |s: u32| ((v >> s) & 0xff) as f64 / 255.0;
    (f(16), f(8), f(0))
}
