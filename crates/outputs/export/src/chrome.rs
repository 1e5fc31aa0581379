//! Chrome's trace-event JSON format, written as the simulation goes.
//!
//! # The format written
//!
//! One JSON object, `{"displayTimeUnit":"ns","traceEvents":[…]}`, one
//! event per line. Times (`ts`) are microseconds with three decimals (the
//! trace's nanoseconds exactly). Chrome's model has processes and threads
//! only, so the container hierarchy maps onto them:
//!
//! - `pid`: the root's child (the top of the hierarchy: a host, a node)
//!   the container belongs to, numbered by its container index plus one
//!   (so from 2); what the root container itself holds has `pid` 1. Each
//!   process is named by a metadata event (`"ph":"M"`, `process_name`,
//!   the top container's name, or [`ExportOptions::name`] for pid 1) and
//!   ordered by `process_sort_index` (its pid).
//! - `tid`: one per state type of a container, per event type of a
//!   container and per link type at a container a link starts or ends at,
//!   numbered from 1 in the order they are first used (unique across
//!   processes), named by `thread_name` (the container's path from the
//!   top, names joined by `/`, a space, the type's name) and ordered by
//!   `thread_sort_index` (the tid). Metadata events come before the first
//!   event of their process or thread.
//!
//! Entities:
//!
//! - a state: `"ph":"B"` at its start (`name` its value, `cat` its type)
//!   and `"ph":"E"` at its end, on its thread; nested states are nested
//!   (begins and ends in time order per thread, as for Perfetto: see the
//!   crate's documentation);
//! - an event: `"ph":"i"`, `"s":"t"` (`name` its value, `cat` its type);
//! - a variable's value: `"ph":"C"` at its start on the process, `name`
//!   the container's path, a space and the variable's type, `args`
//!   `{"value": v}` (`null` for a value that is not finite);
//! - a link: at its start, on its start container's thread for its type,
//!   `"ph":"X"` with `"dur":0` and `"ph":"s"` (a flow's start), at its end,
//!   on its end container's thread, `"ph":"X"` with `"dur":0` and `"ph":"f"`
//!   with `"bp":"e"` (the flow's end, bound to that instant slice); all
//!   four have the link's value as `name`, its type as `cat`, and the flow
//!   events the link's `id` (from 1 in the order links complete).
//!
//! A state that ends before it starts or before a state nested in it
//! ends as in the Perfetto export (see there). Strings are JSON-escaped (invalid UTF-8 replaced). Containers that hold
//! nothing do not appear.
//!
//! # Order
//!
//! Events with a time wait in a buffer of at most 65,536 that lets the
//! earliest go first, as in the Perfetto export (see there): the file is
//! in time order but for events that waited in the simulation longer
//! than the buffer could hold, and each thread's (and counter's) events
//! are in time order. A link end that comes when a later event of its
//! thread has gone goes to another thread of the same container and link
//! type, named like the first with ` (2)`, ` (3)`, … after it (the first
//! whose last event is not later, a new one if none is). Metadata events
//! have no time and are written at once.

use std::collections::HashMap;
use std::io::{self, Write};

use trama_sim::{ContainerId, Entity, ListId, Model, TypeId, ValueId};

use crate::order::{Lanes, Reorder, HELD};
use crate::slices::{slice_sink, Flow as SliceFlow, Slices, Slicing};
use crate::{container_path, label, list_type_label, nanos, value_label, ExportOptions, Written};

/// A [`Sink`] that writes the entities it receives as Chrome trace-event
/// JSON into `W` (see the module's documentation). Write errors are kept:
/// after one nothing more is written, the simulation is told to stop, and
/// [`ChromeWriter::finish`] returns it.
pub struct ChromeWriter<W: Write> {
    out: W,
    buf: Vec<u8>,
    error: Option<io::Error>,
    events: u64,
    name: String,
    /// Processes named so far (by pid).
    pids: Vec<bool>,
    /// (pid, tid) of each list of states or events (tid 0: none yet).
    lists: Vec<(u64, u64)>,
    /// The threads of link ends, by container and link type.
    link_ends: HashMap<(ContainerId, TypeId), LinkThreads>,
    /// Process and counter name (a JSON string) of each variable list.
    counters: Vec<Option<(u64, Box<[u8]>)>>,
    /// Each value's name as a JSON string, once used.
    value_names: Vec<Option<Box<[u8]>>>,
    /// Each type's name as a JSON string, once used.
    type_names: Vec<Option<Box<[u8]>>>,
    next_tid: u64,
    slicing: Slicing,
    /// Timed events not written yet, let go in time order.
    held: Reorder<Timed>,
}

/// Appends `s` as a JSON string.
fn json_str(out: &mut Vec<u8>, s: &str) {
    out.push(b'"');
    for c in s.chars() {
        match c {
            '"' => out.extend_from_slice(b"\\\""),
            '\\' => out.extend_from_slice(b"\\\\"),
            '\n' => out.extend_from_slice(b"\\n"),
            '\r' => out.extend_from_slice(b"\\r"),
            '\t' => out.extend_from_slice(b"\\t"),
            c if (c as u32) < 0x20 => {
                let _ = write!(out, "\\u{:04x}", c as u32);
            }
            c => {
                let mut b = [0u8; 4];
                out.extend_from_slice(c.encode_utf8(&mut b).as_bytes());
            }
        }
    }
    out.push(b'"');
}

/// Entry `i` of `cache`, the JSON string of `name()`, made when first asked.
fn cached(cache: &mut Vec<Option<Box<[u8]>>>, i: usize, name: impl FnOnce() -> String) -> &[u8] {
    if cache.len() <= i {
        cache.resize(i + 1, None);
    }
    cache[i].get_or_insert_with(|| {
        let mut b = Vec::new();
        json_str(&mut b, &name());
        b.into_boxed_slice()
    })
}

/// Appends a time (nanoseconds) in microseconds with three decimals.
fn json_ts(out: &mut Vec<u8>, ns: i64) {
    let sign = if ns < 0 { "-" } else { "" };
    let a = ns.unsigned_abs();
    let _ = write!(out, "{sign}{}.{:03}", a / 1000, a % 1000);
}

impl<W: Write> ChromeWriter<W> {
    /// A writer into `out`.
    pub fn new(out: W, opts: &ExportOptions) -> ChromeWriter<W> {
        let mut buf = Vec::with_capacity(1 << 17);
        buf.extend_from_slice(b"{\"displayTimeUnit\":\"ns\",\"traceEvents\":[");
        ChromeWriter {
            out,
            buf,
            error: None,
            events: 0,
            name: opts.name.clone(),
            pids: Vec::new(),
            lists: Vec::new(),
            link_ends: HashMap::new(),
            counters: Vec::new(),
            value_names: Vec::new(),
            type_names: Vec::new(),
            next_tid: 0,
            slicing: Slicing::default(),
            held: Reorder::new(HELD),
        }
    }

    /// What was written so far.
    pub fn written(&self) -> Written {
        self.slicing.written
    }

    /// Closes the JSON, writes what is left and returns the writer, or the
    /// first write error.
    pub fn finish(mut self) -> io::Result<W> {
        while let Some((t, x)) = self.held.pop() {
            self.emit(t, x);
        }
        if let Some(e) = self.error.take() {
            return Err(e);
        }
        self.buf.extend_from_slice(b"\n]}\n");
        self.out.write_all(&self.buf)?;
        self.out.flush()?;
        Ok(self.out)
    }

    /// Starts an event: its separator and opening brace.
    fn open(&mut self) {
        self.buf
            .extend_from_slice(if self.events == 0 { b"\n{" } else { b",\n{" });
        self.events += 1;
    }

    fn close(&mut self) {
        self.buf.push(b'}');
        if self.buf.len() >= 1 << 16 && self.error.is_none() {
            if let Err(e) = self.out.write_all(&self.buf) {
                self.error = Some(e);
            }
            self.buf.clear();
        }
    }

    fn metadata(&mut self, what: &str, pid: u64, tid: u64, name: &str, rank: u64) {
        self.open();
        let _ = write!(self.buf, "\"ph\":\"M\",\"name\":\"{what}_name\",\"pid\":{pid},\"tid\":{tid},\"args\":{{\"name\":");
        json_str(&mut self.buf, name);
        self.buf.extend_from_slice(b"}");
        self.close();
        self.open();
        let _ = write!(self.buf, "\"ph\":\"M\",\"name\":\"{what}_sort_index\",\"pid\":{pid},\"tid\":{tid},\"args\":{{\"sort_index\":{rank}}}");
        self.close();
    }

    /// The process of container `c`, named when new.
    fn pid(&mut self, m: &Model, c: ContainerId) -> u64 {
        let mut top = c;
        while let Some(p) = m.container(top).parent.filter(|&p| p != ContainerId::ROOT) {
            top = p;
        }
        let pid = top.0 as u64 + 1;
        let i = pid as usize;
        if self.pids.len() <= i {
            self.pids.resize(i + 1, false);
        }
        if !self.pids[i] {
            self.pids[i] = true;
            let name = if top == ContainerId::ROOT {
                self.name.clone()
            } else {
                label(m, m.container(top).name)
            };
            self.metadata("process", pid, 0, &name, pid);
            self.slicing.written.tracks += 1;
        }
        pid
    }

    /// A new thread of container `c` for type name `ty`; its name too.
    fn thread(&mut self, m: &Model, c: ContainerId, ty: &str) -> ((u64, u64), String) {
        let pid = self.pid(m, c);
        let path = container_path(m, c);
        let name = if path.is_empty() {
            ty.to_string()
        } else {
            format!("{path} {ty}")
        };
        let tid = self.named_thread(pid, &name);
        ((pid, tid), name)
    }

    /// A new thread of process `pid` named `name`.
    fn named_thread(&mut self, pid: u64, name: &str) -> u64 {
        self.next_tid += 1;
        let tid = self.next_tid;
        self.metadata("thread", pid, tid, name, tid);
        self.slicing.written.tracks += 1;
        tid
    }

    fn list_thread(&mut self, m: &Model, l: ListId) -> (u64, u64) {
        if let Some(&x) = self.lists.get(l.index()).filter(|x| x.1 != 0) {
            return x;
        }
        let ty = list_type_label(m, l);
        let (x, _) = self.thread(m, m.list(l).container, &ty);
        if self.lists.len() <= l.index() {
            self.lists.resize(l.index() + 1, (0, 0));
        }
        self.lists[l.index()] = x;
        x
    }

    /// Declares the thread of the link ends of type `ty` at container `c`
    /// when new.
    fn link_end_thread(&mut self, m: &Model, c: ContainerId, ty: TypeId) {
        if self.link_ends.contains_key(&(c, ty)) {
            return;
        }
        let ((pid, tid), name) = self.thread(m, c, &label(m, m.ty(ty).name));
        let threads = LinkThreads {
            pid,
            name,
            tids: vec![tid],
            lanes: Lanes::default(),
        };
        self.link_ends.insert((c, ty), threads);
    }

    /// Makes sure the names of `value` and `ty` are known when the event
    /// is written (perhaps once the model is gone).
    fn know(&mut self, m: &Model, value: ValueId, ty: TypeId) {
        cached(&mut self.value_names, value.index(), || {
            value_label(m, value)
        });
        cached(&mut self.type_names, ty.index(), || label(m, m.ty(ty).name));
    }

    /// Holds a timed event; writes the earliest held when they are too
    /// many.
    fn hold(&mut self, t: f64, x: Timed) {
        if let Some((t, x)) = self.held.push(nanos(t), x) {
            self.emit(t, x);
        }
    }

    /// Writes a timed event.
    fn emit(&mut self, t: i64, x: Timed) {
        if self.error.is_some() {
            return;
        }
        match x {
            Timed::Begin { at, value, ty } => {
                self.open();
                self.named("B", at, t, value, ty);
                self.close();
            }
            Timed::End { at: (pid, tid) } => {
                self.open();
                self.buf.extend_from_slice(b"\"ph\":\"E\",\"ts\":");
                json_ts(&mut self.buf, t);
                let _ = write!(self.buf, ",\"pid\":{pid},\"tid\":{tid}");
                self.close();
            }
            Timed::Instant { at, value, ty } => {
                self.open();
                self.named("i", at, t, value, ty);
                self.buf.extend_from_slice(b",\"s\":\"t\"");
                self.close();
            }
            Timed::Counter { list, value } => self.counter_value(list, t, value),
            Timed::Link {
                end,
                value,
                ty,
                flow,
                id,
            } => {
                let at = self.link_lane(end, t);
                self.link_end(at, t, value, ty, flow, id);
            }
        }
    }

    /// The thread a link end at time `t` goes to: the first of its
    /// container and type whose last event is not later (see [`Lanes`]),
    /// a new one if none is.
    fn link_lane(&mut self, end: (ContainerId, TypeId), t: i64) -> (u64, u64) {
        let Some(lt) = self.link_ends.get_mut(&end) else {
            return (0, 0);
        };
        let (lane, new) = lt.lanes.lane(t);
        let pid = lt.pid;
        if new && lane > 0 {
            let name = format!("{} ({})", lt.name, lane + 1);
            let tid = self.named_thread(pid, &name);
            if let Some(lt) = self.link_ends.get_mut(&end) {
                lt.tids.push(tid);
            }
        }
        let tid = self.link_ends.get(&end).map_or(0, |lt| lt.tids[lane]);
        (pid, tid)
    }

    /// Writes `"ph":ph,"name":…,"cat":…,"ts":…,"pid":…,"tid":…` of a named
    /// event (whose names are known).
    fn named(&mut self, ph: &str, (pid, tid): (u64, u64), t: i64, value: ValueId, ty: TypeId) {
        let _ = write!(self.buf, "\"ph\":\"{ph}\",\"name\":");
        let v = self.value_names[value.index()]
            .as_deref()
            .unwrap_or(b"\"\"");
        self.buf.extend_from_slice(v);
        self.buf.extend_from_slice(b",\"cat\":");
        let c = self.type_names[ty.index()].as_deref().unwrap_or(b"\"\"");
        self.buf.extend_from_slice(c);
        self.buf.extend_from_slice(b",\"ts\":");
        json_ts(&mut self.buf, t);
        let _ = write!(self.buf, ",\"pid\":{pid},\"tid\":{tid}");
    }

    /// A link's end: an instant slice and the flow's start or end.
    fn link_end(
        &mut self,
        at: (u64, u64),
        t: i64,
        value: ValueId,
        ty: TypeId,
        flow: &str,
        id: u64,
    ) {
        self.open();
        self.named("X", at, t, value, ty);
        self.buf.extend_from_slice(b",\"dur\":0");
        self.close();
        self.open();
        self.named(flow, at, t, value, ty);
        let _ = write!(self.buf, ",\"id\":{id}");
        if flow == "f" {
            self.buf.extend_from_slice(b",\"bp\":\"e\"");
        }
        self.close();
    }

    /// A value of the variable of `list` (its counter named when it was
    /// held).
    fn counter_value(&mut self, list: ListId, t: i64, value: f64) {
        let Some((pid, name)) = self.counters.get_mut(list.index()).and_then(Option::take) else {
            return;
        };
        self.open();
        self.buf.extend_from_slice(b"\"ph\":\"C\",\"name\":");
        self.buf.extend_from_slice(&name);
        self.counters[list.index()] = Some((pid, name));
        self.buf.extend_from_slice(b",\"ts\":");
        json_ts(&mut self.buf, t);
        let _ = write!(self.buf, ",\"pid\":{pid},\"args\":{{\"value\":");
        if value.is_finite() {
            let _ = write!(self.buf, "{value:?}");
        } else {
            self.buf.extend_from_slice(b"null");
        }
        self.buf.extend_from_slice(b"}");
        self.close();
    }

    /// Names the counter of the variable of `list` when new.
    fn counter_name(&mut self, m: &Model, list: ListId) {
        let l = list.index();
        if self.counters.len() <= l {
            self.counters.resize(l + 1, None);
        }
        if self.counters[l].is_some() {
            return;
        }
        let c = m.list(list).container;
        let pid = self.pid(m, c);
        let path = container_path(m, c);
        let ty = list_type_label(m, list);
        let n = if path.is_empty() {
            ty
        } else {
            format!("{path} {ty}")
        };
        let mut b = Vec::new();
        json_str(&mut b, &n);
        self.counters[l] = Some((pid, b.into_boxed_slice()));
    }
}

/// A timed event, held until its turn comes and written then.
enum Timed {
    /// A state's begin.
    Begin {
        at: (u64, u64),
        value: ValueId,
        ty: TypeId,
    },
    /// A state's end.
    End { at: (u64, u64) },
    /// An event.
    Instant {
        at: (u64, u64),
        value: ValueId,
        ty: TypeId,
    },
    /// A variable's value.
    Counter { list: ListId, value: f64 },
    /// A link's end (`flow` "s" at its start, "f" at its end) at a
    /// container, of a type.
    Link {
        end: (ContainerId, TypeId),
        value: ValueId,
        ty: TypeId,
        flow: &'static str,
        id: u64,
    },
}

/// The threads of the link ends of one type at one container: the first,
/// and those opened for link ends that came too late for it.
struct LinkThreads {
    pid: u64,
    name: String,
    tids: Vec<u64>,
    lanes: Lanes,
}

impl<W: Write> Slices for ChromeWriter<W> {
    type At = (u64, u64);

    fn error(&self) -> Option<&io::Error> {
        self.error.as_ref()
    }

    fn slicing(&mut self) -> &mut Slicing {
        &mut self.slicing
    }

    fn at(&mut self, m: &Model, list: ListId) -> (u64, u64) {
        self.list_thread(m, list)
    }

    fn begin(&mut self, m: &Model, at: (u64, u64), t: f64, value: ValueId, ty: TypeId) {
        self.know(m, value, ty);
        self.hold(t, Timed::Begin { at, value, ty });
    }

    fn end(&mut self, at: (u64, u64), t: f64) {
        self.hold(t, Timed::End { at });
    }

    fn instant(&mut self, m: &Model, list: ListId, t: f64, value: ValueId, ty: TypeId) {
        let at = self.list_thread(m, list);
        self.know(m, value, ty);
        self.hold(t, Timed::Instant { at, value, ty });
    }

    fn variable(&mut self, m: &Model, list: ListId, t: f64, number: f64) {
        self.counter_name(m, list);
        self.hold(
            t,
            Timed::Counter {
                list,
                value: number,
            },
        );
    }

    fn link(&mut self, m: &Model, e: &Entity<'_>, l: SliceFlow) {
        let SliceFlow { from, to, ty, id } = l;
        self.know(m, e.value, ty);
        self.link_end_thread(m, from, ty);
        self.link_end_thread(m, to, ty);
        let value = e.value;
        for (end, t, flow) in [((from, ty), e.start, "s"), ((to, ty), e.end, "f")] {
            let x = Timed::Link {
                end,
                value,
                ty,
                flow,
                id,
            };
            self.hold(t, x);
        }
    }
}

slice_sink!(ChromeWriter);
