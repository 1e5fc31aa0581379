//! One libRastro file decoded event by event and mapped to records.

use std::collections::{HashMap, VecDeque};
use std::sync::Arc;

use trama_rastro::rst::{
    detect_layout, Clock, Decoder, Layout, RstError, RstEvent, Stamp, Value, EVENT_INIT, EVENT_STOP,
};

use super::mapping::{
    Action, Entity, LinkSpec, Mapping, OutPolicy, Partner, StateMode, UnknownPolicy,
};
use super::template::{Ctx, LinkCtx, Missing, Template};
use super::Skipped;
use trama_records::{Extras, Nanos, Path, Record, SourceError, Step, What};

/// The most partners one collective event may name (a damaged count
/// must not allocate without bound).
const MAX_PARTNERS: u64 = 1 << 20;

/// Events decoded at a time (the decoder borrows the data, so it is
/// rebuilt for every batch).
const BATCH: usize = 512;

/// The identity of a file: its header event.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Header {
    pub id1: u64,
    pub id2: u64,
    pub host: String,
}

/// A link end among an event's records: which record, and its two sides.
#[derive(Clone, Debug)]
pub(crate) struct LinkInfo {
    pub record: usize,
    pub src: String,
    pub dst: String,
}

/// One event of the file with the records it makes.
#[derive(Debug)]
pub(crate) struct Decoded {
    /// Byte offset of the event.
    pub offset: u64,
    /// The event's time in nanoseconds (exact up to the clock's resolution).
    pub time: Nanos,
    /// `seconds × resolution + ticks`: libRastro's integer time.
    pub total_ticks: u128,
    /// Ticks per second.
    pub resolution: u64,
    pub records: Vec<Record>,
    pub links: Vec<LinkInfo>,
}

impl Decoded {
    /// The time as libRastro's reader computes it: a double of seconds.
    pub fn seconds_f64(&self) -> f64 {
        self.total_ticks as f64 / self.resolution as f64
    }
}

/// Mutable mapping state of a file.
struct State {
    name: String,
    mapping: Arc<Mapping>,
    header: Header,
    path: Path,
    holder: Option<Path>,
    me: String,
    clock: Option<Clock>,
    last: Option<Nanos>,
    /// Push mode: the stack of states per state type.
    stacks: HashMap<String, Vec<String>>,
    /// Set mode: the state an IN set, per state type.
    current: HashMap<String, String>,
    seq_start: HashMap<String, u64>,
    seq_end: HashMap<String, u64>,
    skipped: Skipped,
}

/// A libRastro file being read.
pub(crate) struct Engine {
    data: Vec<u8>,
    pos: usize,
    events: u64,
    state: State,
    queue: VecDeque<Decoded>,
    error: Option<SourceError>,
    finished: bool,
}

fn rst_error(name: &str, base: usize, first_event: u64, e: &RstError) -> SourceError {
    SourceError::byte(
        name,
        (base + e.offset) as u64,
        format!(
            "{} (rastro event {} starting at byte {})",
            e.kind,
            first_event + e.event,
            base + e.event_offset
        ),
    )
}

/// Does the data start with a header event of the timed layout (ids, a
/// host name and a clock of non-zero resolution)?
fn timed_header(data: &[u8]) -> bool {
    let mut d = Decoder::new(data, Layout::Timed);
    match d.next_event() {
        Ok(Some(ev)) => {
            ev.init_info().is_some()
                && matches!(ev.stamp, Stamp::Timed { time_set: Some(c), .. } if c.resolution > 0)
        }
        _ => false,
    }
}

/// `ticks / resolution` seconds in nanoseconds, rounded to the nearest.
fn to_nanos(total: u128, resolution: u64) -> Option<Nanos> {
    let r = resolution as u128;
    let ns = (total * 1_000_000_000 + r / 2) / r;
    i64::try_from(ns).ok()
}

impl Engine {
    /// Opens a file held in memory: checks the layout and reads the header.
    pub fn open(name: String, data: Vec<u8>, mapping: Arc<Mapping>) -> Result<Engine, SourceError> {
        // The layout is found by decoding the first events both ways; a
        // file damaged among them but whose header reads as timed is
        // read as timed, so its records come before the error.
        let layout = match detect_layout(&data) {
            Ok(l) => l,
            Err(_) if timed_header(&data) => Layout::Timed,
            Err(e) => return Err(rst_error(&name, 0, 0, &e)),
        };
        if layout == Layout::Timeless {
            return Err(SourceError::file(
                &name,
                "this libRastro file has the timeless layout (2015): its events carry no \
                 time stamps to map",
            ));
        }
        let mut dec = Decoder::new(&data, layout);
        let head = dec
            .next_event()
            .map_err(|e| rst_error(&name, 0, 0, &e))?
            .ok_or_else(|| SourceError::file(&name, "empty file"))?;
        debug_assert_eq!(head.type_id, EVENT_INIT);
        let (id1, id2, host) = head
            .init_info()
            .ok_or_else(|| SourceError::byte(&name, 0, "the header event is not 'lls'"))?;
        let header = Header {
            id1,
            id2,
            host: String::from_utf8_lossy(host).into_owned(),
        };
        let clock = head.clock;
        let pos = dec.position();
        let ctx = Ctx {
            id1,
            id2,
            host: &header.host,
            type_id: EVENT_INIT,
            values: &[],
            link: None,
        };
        let mut steps = Vec::new();
        for (ty, t) in &mapping.path {
            let n = t
                .render(&ctx)
                .expect("header templates only use the header");
            steps.push(Step {
                ty: ty.clone(),
                name: n,
            });
        }
        let path: Path = steps.into();
        let holder = (mapping.link_holder > 0).then(|| path[..mapping.link_holder].into());
        let me = mapping.me.render(&ctx).expect("header template");
        Ok(Engine {
            data,
            pos,
            events: 1,
            state: State {
                name,
                mapping,
                header,
                path,
                holder,
                me,
                clock,
                last: None,
                stacks: HashMap::new(),
                current: HashMap::new(),
                seq_start: HashMap::new(),
                seq_end: HashMap::new(),
                skipped: Skipped::default(),
            },
            queue: VecDeque::new(),
            error: None,
            finished: false,
        })
    }

    pub fn name(&self) -> &str {
        &self.state.name
    }

    pub fn header(&self) -> &Header {
        &self.state.header
    }

    pub fn path(&self) -> &Path {
        &self.state.path
    }

    pub fn mapping(&self) -> &Arc<Mapping> {
        &self.state.mapping
    }

    pub fn skipped(&self) -> Skipped {
        self.state.skipped
    }

    /// The next event with its records; `None` after the stop event (or
    /// the end of the data).
    pub fn next_event(&mut self) -> Result<Option<Decoded>, SourceError> {
        if self.queue.is_empty() && !self.finished {
            self.fill();
        }
        if let Some(d) = self.queue.pop_front() {
            return Ok(Some(d));
        }
        match self.error.take() {
            Some(e) => Err(e),
            None => Ok(None),
        }
    }

    fn fill(&mut self) {
        let data = &self.data[self.pos..];
        let mut dec = Decoder::new(data, Layout::Timed);
        let first = self.events;
        let mut stop = false;
        for _ in 0..BATCH {
            match dec.next_event() {
                Ok(Some(ev)) => {
                    let offset = self.pos + ev.offset;
                    if ev.type_id == EVENT_STOP {
                        stop = true;
                        let end = ev.offset + ev.len;
                        if end < data.len() {
                            self.error = Some(SourceError::byte(
                                &self.state.name,
                                (self.pos + end) as u64,
                                format!(
                                    "{} bytes after the stop event ({EVENT_STOP})",
                                    data.len() - end
                                ),
                            ));
                        }
                        break;
                    }
                    match self.state.map(&ev, offset) {
                        Ok(d) => self.queue.push_back(d),
                        Err(e) => {
                            self.error = Some(e);
                            stop = true;
                            break;
                        }
                    }
                }
                Ok(None) => {
                    stop = true;
                    break;
                }
                Err(e) => {
                    self.error = Some(rst_error(&self.state.name, self.pos, first, &e));
                    stop = true;
                    break;
                }
            }
        }
        self.events += dec.events();
        self.pos += dec.position();
        self.finished = stop;
    }
}

/// The event's value letters, for messages.
fn signature(values: &[Value<'_>]) -> String {
    values.iter().map(|v| v.code().letter()).collect()
}

impl State {
    fn map(&mut self, ev: &RstEvent<'_, '_>, offset: usize) -> Result<Decoded, SourceError> {
        let offset = offset as u64;
        let name = self.name.clone();
        let fail = |m: String| SourceError::byte(&name, offset, m);
        let Stamp::Timed { time_set, ticks } = ev.stamp else {
            return Err(fail("an event without a time stamp".into()));
        };
        if let Some(c) = time_set {
            self.clock = Some(c);
        }
        let clock = self
            .clock
            .ok_or_else(|| fail("an event before any clock (RST_TIME_SET) was given".into()))?;
        if clock.resolution == 0 {
            return Err(fail("the clock's resolution is 0 ticks per second".into()));
        }
        let total = clock.seconds as u128 * clock.resolution as u128 + ticks as u128;
        let time = to_nanos(total, clock.resolution).ok_or_else(|| {
            fail(format!(
                "time stamp {}.{} s does not fit in signed 64-bit nanoseconds",
                clock.seconds, ticks
            ))
        })?;
        if let Some(last) = self.last {
            if time < last {
                return Err(fail(format!(
                    "event {} goes back in time ({time} ns after {last} ns)",
                    ev.type_id
                )));
            }
        }
        self.last = Some(time);
        let mut out = Decoded {
            offset,
            time,
            total_ticks: total,
            resolution: clock.resolution,
            records: Vec::new(),
            links: Vec::new(),
        };
        let mapping = self.mapping.clone();
        match mapping.action(ev.type_id) {
            Some(a) => self.apply(a, ev, &mut out)?,
            None => match mapping.unknown {
                UnknownPolicy::Error => {
                    return Err(fail(format!(
                        "event id {} (values '{}') is not in the mapping {}",
                        ev.type_id,
                        signature(ev.values),
                        mapping.name
                    )))
                }
                UnknownPolicy::Skip => self.skipped.unknown += 1,
                UnknownPolicy::Event => out.records.push(Record {
                    time,
                    what: What::Event {
                        container: self.path.clone(),
                        ty: mapping.event_type.clone().into(),
                        value: ev.type_id.to_string().into(),
                        extra: Vec::new(),
                    },
                }),
            },
        }
        Ok(out)
    }

    fn apply(
        &mut self,
        a: &Action,
        ev: &RstEvent<'_, '_>,
        out: &mut Decoded,
    ) -> Result<(), SourceError> {
        if a.skip {
            return Ok(());
        }
        let time = out.time;
        let path = self.path.clone();
        let rec = |what: What| Record { time, what };
        if a.create {
            out.records.push(rec(What::Create {
                container: path.clone(),
            }));
        }
        if let Some((ty, t)) = &a.out {
            let value =
                Rendering::new(&self.name, &self.header, a, ev, out.offset).render("out", t)?;
            self.leave_state(a, ev.type_id, ty, value, &path, out)?;
        }
        self.apply_states(a, ev, &path, out)?;
        for (spec, start) in [(&a.send, true), (&a.recv, false)] {
            let Some(spec) = spec else { continue };
            self.link_end(a, ev, spec, start, &path, out)?;
        }
        if a.destroy {
            out.records.push(rec(What::Destroy { container: path }));
        }
        Ok(())
    }

    /// An OUT leaving state `value` of type `ty`: pops (push mode) or
    /// resets to idle (set mode) a matching state, else skips it or fails
    /// as the mapping says.
    fn leave_state(
        &mut self,
        a: &Action,
        type_id: u16,
        ty: &str,
        value: String,
        path: &Path,
        out: &mut Decoded,
    ) -> Result<(), SourceError> {
        let mode = self.mapping.mode;
        let matched = match mode {
            StateMode::Push => {
                let stack = self.stacks.entry(ty.to_string()).or_default();
                if stack.last() == Some(&value) {
                    stack.pop();
                    true
                } else {
                    false
                }
            }
            StateMode::Set => {
                if self.current.get(ty) == Some(&value) {
                    self.current.remove(ty);
                    true
                } else {
                    false
                }
            }
        };
        if matched {
            let what = match mode {
                StateMode::Push => What::PopState {
                    container: path.clone(),
                    ty: ty.to_string().into(),
                    extra: Vec::new(),
                },
                StateMode::Set => What::SetState {
                    container: path.clone(),
                    ty: ty.to_string().into(),
                    value: self.mapping.idle.clone().expect("checked").into(),
                    extra: Vec::new(),
                },
            };
            out.records.push(Record {
                time: out.time,
                what,
            });
        } else if self.mapping.unmatched_out == OutPolicy::Skip {
            self.skipped.unmatched_out += 1;
        } else {
            let now = match mode {
                StateMode::Push => self.stacks.get(ty).and_then(|s| s.last()),
                StateMode::Set => self.current.get(ty),
            };
            let now = match now {
                Some(s) => format!("the file is in {s}"),
                None => "the file is in no state".into(),
            };
            return Err(SourceError::byte(
                &self.name,
                out.offset,
                format!(
                    "event {type_id} ({}) leaves state {value} of type {ty}, but {now} (unmatched OUT)",
                    a.key
                ),
            ));
        }
        Ok(())
    }

    /// The records of an action's `set`, `in` and `event`.
    fn apply_states(
        &mut self,
        a: &Action,
        ev: &RstEvent<'_, '_>,
        path: &Path,
        out: &mut Decoded,
    ) -> Result<(), SourceError> {
        let r = Rendering::new(&self.name, &self.header, a, ev, out.offset);
        let time = out.time;
        let rec = |what: What| Record { time, what };
        if let Some(Entity { ty, value, extra }) = &a.set {
            let value = r.render("set", value)?;
            self.current.remove(ty);
            out.records.push(rec(What::SetState {
                container: path.clone(),
                ty: ty.clone().into(),
                value: value.into(),
                extra: r.extras(extra),
            }));
        }
        if let Some(Entity { ty, value, extra }) = &a.enter {
            let value = r.render("in", value)?;
            let extra = r.extras(extra);
            let what = match self.mapping.mode {
                StateMode::Push => {
                    self.stacks
                        .entry(ty.clone())
                        .or_default()
                        .push(value.clone());
                    What::PushState {
                        container: path.clone(),
                        ty: ty.clone().into(),
                        value: value.into(),
                        extra,
                    }
                }
                StateMode::Set => {
                    self.current.insert(ty.clone(), value.clone());
                    What::SetState {
                        container: path.clone(),
                        ty: ty.clone().into(),
                        value: value.into(),
                        extra,
                    }
                }
            };
            out.records.push(rec(what));
        }
        if let Some(Entity { ty, value, extra }) = &a.event {
            let value = r.render("event", value)?;
            out.records.push(rec(What::Event {
                container: path.clone(),
                ty: ty.clone().into(),
                value: value.into(),
                extra: r.extras(extra),
            }));
        }
        Ok(())
    }

    /// The link ends of an action's `send` (`start`) or `recv`: one per
    /// partner, each numbered in its channel.
    fn link_end(
        &mut self,
        a: &Action,
        ev: &RstEvent<'_, '_>,
        spec: &LinkSpec,
        start: bool,
        path: &Path,
        out: &mut Decoded,
    ) -> Result<(), SourceError> {
        let r = Rendering::new(&self.name, &self.header, a, ev, out.offset);
        let LinkSpec {
            ty,
            value,
            partner,
            key,
            extra,
        } = spec;
        let what = if start { "send" } else { "recv" };
        let value = r.render(what, value)?;
        let extra = r.extras(extra);
        let partners = partners(&r, partner, start, &self.me)?;
        for p in partners {
            let (src, dst) = if start {
                (self.me.clone(), p)
            } else {
                (p, self.me.clone())
            };
            let mut kctx = Ctx {
                link: Some(LinkCtx {
                    src: &src,
                    dst: &dst,
                    value: &value,
                    seq: None,
                }),
                ..r.ctx
            };
            let channel = key.render(&kctx).map_err(|m| r.missing("key", m))?;
            let counters = if start {
                &mut self.seq_start
            } else {
                &mut self.seq_end
            };
            let n = counters.entry(format!("{ty}\u{0}{channel}")).or_insert(0);
            let seq = *n;
            *n += 1;
            if let Some(l) = kctx.link.as_mut() {
                l.seq = Some(seq);
            }
            let k = key.render(&kctx).map_err(|m| r.missing("key", m))?;
            out.links.push(LinkInfo {
                record: out.records.len(),
                src: src.clone(),
                dst: dst.clone(),
            });
            let what = if start {
                What::StartLink {
                    container: self.holder.clone(),
                    ty: ty.clone().into(),
                    from: path.clone(),
                    value: value.clone().into(),
                    key: k.into(),
                    extra: extra.clone(),
                }
            } else {
                What::EndLink {
                    container: self.holder.clone(),
                    ty: ty.clone().into(),
                    to: path.clone(),
                    value: value.clone().into(),
                    key: k.into(),
                    extra: extra.clone(),
                }
            };
            out.records.push(Record {
                time: out.time,
                what,
            });
        }
        Ok(())
    }
}

/// The partners of a link end (`start`: a send), but the file itself
/// (`me`): none named (one empty partner), one, or all of a count.
fn partners(
    r: &Rendering<'_, '_>,
    partner: &Partner,
    start: bool,
    me: &str,
) -> Result<Vec<String>, SourceError> {
    Ok(match partner {
        Partner::None => vec![String::new()],
        Partner::One(t) => vec![r.render(if start { "to" } else { "from" }, t)?],
        Partner::AllBelow(t) => {
            let text = r.render(
                if start {
                    "to_all_below"
                } else {
                    "from_all_below"
                },
                t,
            )?;
            let n: u64 = text.trim().parse().map_err(|_| {
                SourceError::byte(
                    r.name,
                    r.offset,
                    format!(
                        "event {} ({}): the number of partners '{text}' is not a count",
                        r.ctx.type_id, r.a.key
                    ),
                )
            })?;
            if n > MAX_PARTNERS {
                return Err(SourceError::byte(
                    r.name,
                    r.offset,
                    format!(
                        "event {} ({}): {n} partners, more than the {MAX_PARTNERS} a run can have",
                        r.ctx.type_id, r.a.key
                    ),
                ));
            }
            (0..n).map(|i| i.to_string()).filter(|p| *p != me).collect()
        }
    })
}

/// The templates of an action filled from one event of a file.
struct Rendering<'v, 'a> {
    ctx: Ctx<'v, 'a>,
    /// The file's name and the event's byte offset, for errors.
    name: &'v str,
    offset: u64,
    a: &'v Action,
}

impl<'v, 'a> Rendering<'v, 'a> {
    fn new(
        name: &'v str,
        header: &'v Header,
        a: &'v Action,
        ev: &RstEvent<'v, 'a>,
        offset: u64,
    ) -> Self {
        let ctx = Ctx {
            id1: header.id1,
            id2: header.id2,
            host: &header.host,
            type_id: ev.type_id,
            values: ev.values,
            link: None,
        };
        Rendering {
            ctx,
            name,
            offset,
            a,
        }
    }

    /// The error of a template `what` whose placeholder the event lacks.
    fn missing(&self, what: &str, m: Missing) -> SourceError {
        SourceError::byte(
            self.name,
            self.offset,
            format!(
                "event {} ({}): {what} needs {}, but the event holds '{}'",
                self.ctx.type_id,
                self.a.key,
                m.placeholder,
                signature(self.ctx.values)
            ),
        )
    }

    /// The template `t` of key `what`, filled.
    fn render(&self, what: &str, t: &Template) -> Result<String, SourceError> {
        t.render(&self.ctx).map_err(|m| self.missing(what, m))
    }

    /// Extras are all or nothing: one that cannot be filled drops them all.
    fn extras(&self, list: &[(String, Template)]) -> Extras {
        let mut v = Vec::with_capacity(list.len());
        for (n, t) in list {
            match t.render(&self.ctx) {
                Ok(s) => v.push((n.into(), s.into())),
                Err(_) => return Vec::new(),
            }
        }
        v
    }
}
