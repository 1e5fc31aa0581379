//! Perfetto's `TrackEvent` protobuf, written as the simulation goes.
//!
//! # The format written
//!
//! A `perfetto.protos.Trace`: a sequence of `packet` fields (field 1,
//! length-delimited), each a `TracePacket`. Field numbers are those of
//! Perfetto's protos (`protos/perfetto/trace/`):
//!
//! | message (file) | fields used |
//! |---|---|
//! | `Trace` (`trace.proto`) | `packet` = 1 |
//! | `TracePacket` (`trace_packet.proto`) | `timestamp` = 8 (uint64, ns), `trusted_packet_sequence_id` = 10, `track_event` = 11, `interned_data` = 12, `sequence_flags` = 13 (`SEQ_INCREMENTAL_STATE_CLEARED` = 1, `SEQ_NEEDS_INCREMENTAL_STATE` = 2), `track_descriptor` = 60 |
//! | `TrackDescriptor` (`track_event/track_descriptor.proto`) | `uuid` = 1, `name` = 2, `parent_uuid` = 5, `counter` = 8, `child_ordering` = 11 (`EXPLICIT` = 3), `sibling_order_rank` = 12 |
//! | `CounterDescriptor` (`track_event/counter_descriptor.proto`) | none (an empty message makes the track a counter track) |
//! | `TrackEvent` (`track_event/track_event.proto`) | `category_iids` = 3, `type` = 9 (`TYPE_SLICE_BEGIN` = 1, `TYPE_SLICE_END` = 2, `TYPE_INSTANT` = 3, `TYPE_COUNTER` = 4), `name_iid` = 10, `track_uuid` = 11, `double_counter_value` = 44, `flow_ids` = 47 (fixed64), `terminating_flow_ids` = 48 (fixed64) |
//! | `InternedData` (`interned_data/interned_data.proto`) | `event_categories` = 1, `event_names` = 2 |
//! | `EventCategory`, `EventName` (`track_event/track_event.proto`) | `iid` = 1, `name` = 2 |
//!
//! Packets are on the first sequence (`trusted_packet_sequence_id` 0x74,
//! "t": one byte), but for those that come too late for it (see Order),
//! on sequences 0x75, 0x76, …. The first packet carries
//! `SEQ_INCREMENTAL_STATE_CLEARED`, every track event of the first
//! sequence `SEQ_NEEDS_INCREMENTAL_STATE`. On the first sequence names and
//! categories are interned: a packet whose event uses a name or category
//! for the first time carries its `EventName` or `EventCategory` in its
//! `interned_data`; the event refers to it by `name_iid` and
//! `category_iids` (iids from 1). Events of the other sequences carry
//! theirs in full: `TrackEvent`'s `categories` = 22 and `name` = 23.
//!
//! Tracks, each declared by a `TrackDescriptor` packet before its first
//! event (uuids from 1 in declaration order, so that they take a byte or
//! two; `sibling_order_rank` = the uuid, so the UI keeps the trace's order):
//!
//! - one per container but the root, named by the container's name, with
//!   `parent_uuid` its parent container's track (none for the root's
//!   children), `child_ordering` `EXPLICIT`; declared before its first
//!   use, and at the latest when it is destroyed (an empty container too);
//! - one per state type of a container (named by the type, child of the
//!   container's track): its states are slices, `TYPE_SLICE_BEGIN` at the
//!   state's start (`name_iid` the state's value, `category_iids` its
//!   type) and `TYPE_SLICE_END` at its end; a state nested in another
//!   (imbrication level n) is a slice at depth n;
//! - one per event type of a container (named by the type): events are
//!   `TYPE_INSTANT`s (name: the event's value, category: its type);
//! - one counter track per variable of a container (named by the type,
//!   `counter` set): each value is a `TYPE_COUNTER` at its start with
//!   `double_counter_value`;
//! - one per link type at each container a link starts or ends at (named
//!   by the link type): a link is a `TYPE_INSTANT` at its start time on its
//!   start container's track with `flow_ids` = [its id] and a
//!   `TYPE_INSTANT` at its end time on its end container's track with
//!   `terminating_flow_ids` = [its id] (both named by the link's value,
//!   category the link type; ids from 1 in the order links complete);
//! - one for what the root container itself holds (states, events or
//!   variables of the root), named by [`ExportOptions::name`], when needed.
//!
//! A state that ends before it starts or before a state nested in it
//! (PajeNG's `-a` can make one, and so does a trace whose last line is a
//! definition: its end time is then 0) ends at the latest time already
//! written on its track, so that the track stays in order; a link may end
//! before it starts (its flow goes back).
//!
//! Times are the trace's seconds in integer nanoseconds (rounded; a
//! negative time is written as the two's complement of a negative number,
//! which the trace processor reads as that `int64`).
//!
//! # Order
//!
//! Perfetto wants each track's slice begins and ends in time order. A
//! state's begin is made when it is pushed and its end once it and the
//! states above it are final (see the crate's documentation), so on every
//! track begins and ends come in time order, an enclosing slice's begin
//! before its nested slices' (even at the same time) and its end after
//! theirs. Across tracks they do not: ends come when their state is final
//! (at the latest when the next state of the same list begins or its
//! container is destroyed), counters and events when final (the next
//! value or event of the same list), links when both ends are known.
//!
//! Packets with a timestamp therefore wait in a buffer of at most
//! 65,536 (`order::HELD`), which lets the earliest go when it is full
//! and at the end (equal times in the order they were made, which keeps
//! each track's order): each sequence is written in time order, as strict
//! and streaming readers want. A packet made when a later one has gone
//! (it waited in the simulation longer than the buffer could hold) goes
//! to the sequence whose last packet is the latest not after it, a new
//! one if there is none: every sequence's timestamps never decrease.
//! Track descriptors (no timestamp) are written at once, before any event
//! on their track.
//!
//! Memory: the interning tables, the names of the values and types used,
//! and track uuids (by value, type, container and list of the model), one
//! entry per open state, the buffer (a few dozen bytes per packet held),
//! and the last timestamp of each sequence.

use std::collections::HashMap;
use std::io::{self, Write};

use trama_sim::{ContainerId, Entity, ListId, Model, TypeId, TypeKind, ValueId};

use crate::order::{Lanes, Reorder, HELD};
use crate::protobuf::Encoder;
use crate::slices::{slice_sink, Flow as SliceFlow, Slices, Slicing};
use crate::{label, list_type_label, nanos, value_label, ExportOptions, Written};

/// Sequence id of the first sequence (the others follow it).
pub const SEQUENCE_ID: u64 = 0x74;

const SEQ_INCREMENTAL_STATE_CLEARED: u64 = 1;
const SEQ_NEEDS_INCREMENTAL_STATE: u64 = 2;
const TYPE_SLICE_BEGIN: u64 = 1;
const TYPE_SLICE_END: u64 = 2;
const TYPE_INSTANT: u64 = 3;
const TYPE_COUNTER: u64 = 4;
const CHILD_ORDERING_EXPLICIT: u64 = 3;

/// A flow's end on an instant.
enum Flow {
    None,
    Starts(u64),
    Ends(u64),
}

/// A [`Sink`] that writes the entities it receives as a Perfetto trace
/// into `W` (see the module's documentation). Write errors are kept:
/// after one nothing more is written, the simulation is told to stop, and
/// [`PerfettoWriter::finish`] returns it.
pub struct PerfettoWriter<W: Write> {
    out: W,
    /// Packets not yet written out.
    buf: Vec<u8>,
    /// The packet being built.
    pkt: Encoder,
    /// The interned data the packet being built introduces.
    interned: Encoder,
    error: Option<io::Error>,
    first: bool,
    name: String,
    next_uuid: u64,
    /// Track of each container (0: not declared).
    containers: Vec<u64>,
    /// Track of each list of states, events or variables (0: not declared).
    lists: Vec<u64>,
    /// Tracks of link ends, by container and link type.
    link_ends: HashMap<(ContainerId, TypeId), u64>,
    /// iid of each value's name (0: not interned yet).
    value_iids: Vec<u64>,
    /// iid of each type's name as a category (0: not interned yet).
    category_iids: Vec<u64>,
    next_name_iid: u64,
    next_category_iid: u64,
    slicing: Slicing,
    /// Timed packets not written yet, let go in time order.
    held: Reorder<Timed>,
    /// The sequences timed packets go to.
    lanes: Lanes,
    /// Each value's and type's name, once used (packets are encoded when
    /// they leave `held`, possibly once the model is gone).
    value_names: Vec<Option<Box<str>>>,
    type_names: Vec<Option<Box<str>>>,
}

/// A timed packet, held until its turn comes and encoded then.
enum Timed {
    /// A slice's begin or an instant, named by a value, its type the
    /// category.
    Named {
        track: u64,
        kind: u64,
        value: ValueId,
        ty: TypeId,
        flow: Flow,
    },
    /// A slice's end.
    End { track: u64 },
    /// A counter's value.
    Counter { track: u64, value: f64 },
}

impl<W: Write> PerfettoWriter<W> {
    /// A writer into `out`.
    pub fn new(out: W, opts: &ExportOptions) -> PerfettoWriter<W> {
        PerfettoWriter {
            out,
            buf: Vec::with_capacity(1 << 17),
            pkt: Encoder::default(),
            interned: Encoder::default(),
            error: None,
            first: true,
            name: opts.name.clone(),
            next_uuid: 0,
            containers: Vec::new(),
            lists: Vec::new(),
            link_ends: HashMap::new(),
            value_iids: Vec::new(),
            category_iids: Vec::new(),
            next_name_iid: 0,
            next_category_iid: 0,
            slicing: Slicing::default(),
            held: Reorder::new(HELD),
            lanes: Lanes::default(),
            value_names: Vec::new(),
            type_names: Vec::new(),
        }
    }

    /// What was written so far.
    pub fn written(&self) -> Written {
        self.slicing.written
    }

    /// Writes what is left and returns the writer, or the first write error.
    pub fn finish(mut self) -> io::Result<W> {
        while let Some((t, x)) = self.held.pop() {
            self.emit(t, x);
        }
        if let Some(e) = self.error.take() {
            return Err(e);
        }
        if self.first {
            // An empty trace: one packet that opens the sequence.
            self.begin_packet(0);
            self.end_packet();
        }
        self.out.write_all(&self.buf)?;
        self.out.flush()?;
        Ok(self.out)
    }

    /// Starts a packet on the sequence of lane `lane`.
    fn begin_packet(&mut self, lane: usize) {
        self.pkt.buf.clear();
        self.interned.buf.clear();
        self.pkt.uint(10, SEQUENCE_ID + lane as u64);
        if self.first {
            self.pkt.uint(13, SEQ_INCREMENTAL_STATE_CLEARED);
            self.first = false;
        }
    }

    fn end_packet(&mut self) {
        if !self.interned.buf.is_empty() {
            self.pkt.bytes(12, &self.interned.buf);
        }
        let mut e = Encoder {
            buf: std::mem::take(&mut self.buf),
        };
        e.bytes(1, &self.pkt.buf);
        self.buf = e.buf;
        if self.buf.len() >= 1 << 16 && self.error.is_none() {
            if let Err(err) = self.out.write_all(&self.buf) {
                self.error = Some(err);
            }
            self.buf.clear();
        }
    }

    fn new_uuid(&mut self) -> u64 {
        self.next_uuid += 1;
        self.next_uuid
    }

    fn descriptor(
        &mut self,
        uuid: u64,
        parent: Option<u64>,
        name: &str,
        counter: bool,
        group: bool,
    ) {
        self.begin_packet(0);
        self.pkt.message(60, |d| {
            d.uint(1, uuid);
            d.bytes(2, name.as_bytes());
            if let Some(p) = parent {
                d.uint(5, p);
            }
            if counter {
                d.message(8, |_| {});
            }
            if group {
                d.uint(11, CHILD_ORDERING_EXPLICIT);
            }
            d.uint(12, uuid);
        });
        self.end_packet();
        self.slicing.written.tracks += 1;
    }

    /// The track of container `c` (`None` for the root), declared with its
    /// ancestors' when not yet (outermost first; iterative, for trees of
    /// any depth).
    fn container_track(&mut self, m: &Model, c: ContainerId) -> Option<u64> {
        let known = |containers: &[u64], c: ContainerId| {
            containers.get(c.index()).copied().filter(|&t| t != 0)
        };
        // The containers without a track, from `c` up to the first with one.
        let mut missing = Vec::new();
        let mut parent = None;
        let mut at = Some(c);
        while let Some(x) = at.filter(|&x| x != ContainerId::ROOT) {
            if let Some(t) = known(&self.containers, x) {
                parent = Some(t);
                break;
            }
            missing.push(x);
            at = m.container(x).parent;
        }
        for x in missing.into_iter().rev() {
            let uuid = self.new_uuid();
            if self.containers.len() <= x.index() {
                self.containers.resize(x.index() + 1, 0);
            }
            self.containers[x.index()] = uuid;
            let name = label(m, m.container(x).name);
            self.descriptor(uuid, parent, &name, false, true);
            parent = Some(uuid);
        }
        parent
    }

    /// The parent track of what container `c` holds: its own, or for the
    /// root a track named after the trace.
    fn holder_track(&mut self, m: &Model, c: ContainerId) -> u64 {
        if let Some(t) = self.container_track(m, c) {
            return t;
        }
        if self.containers.is_empty() {
            self.containers.push(0);
        }
        if self.containers[0] == 0 {
            let uuid = self.new_uuid();
            self.containers[0] = uuid;
            let name = self.name.clone();
            self.descriptor(uuid, None, &name, false, true);
        }
        self.containers[0]
    }

    fn list_track(&mut self, m: &Model, l: ListId) -> u64 {
        if let Some(&t) = self.lists.get(l.index()).filter(|&&t| t != 0) {
            return t;
        }
        let info = m.list(l);
        let parent = self.holder_track(m, info.container);
        let uuid = self.new_uuid();
        if self.lists.len() <= l.index() {
            self.lists.resize(l.index() + 1, 0);
        }
        self.lists[l.index()] = uuid;
        let name = list_type_label(m, l);
        self.descriptor(
            uuid,
            Some(parent),
            &name,
            info.kind == TypeKind::Variable,
            false,
        );
        uuid
    }

    fn link_end_track(&mut self, m: &Model, c: ContainerId, ty: TypeId) -> u64 {
        if let Some(&t) = self.link_ends.get(&(c, ty)) {
            return t;
        }
        let parent = self.holder_track(m, c);
        let uuid = self.new_uuid();
        self.link_ends.insert((c, ty), uuid);
        let name = label(m, m.ty(ty).name);
        self.descriptor(uuid, Some(parent), &name, false, false);
        uuid
    }

    /// The iid of value `v`'s name (known: see [`PerfettoWriter::hold`]),
    /// interned in the packet being built when new.
    fn name_iid(&mut self, v: ValueId) -> u64 {
        let i = v.index();
        if self.value_iids.len() <= i {
            self.value_iids.resize(i + 1, 0);
        }
        if self.value_iids[i] == 0 {
            self.next_name_iid += 1;
            let iid = self.next_name_iid;
            self.value_iids[i] = iid;
            let name = self.value_names[i].as_deref().unwrap_or_default();
            self.interned.message(2, |n| {
                n.uint(1, iid);
                n.bytes(2, name.as_bytes());
            });
        }
        self.value_iids[i]
    }

    /// The iid of type `ty`'s name as a category (known), interned in the
    /// packet being built when new.
    fn category_iid(&mut self, ty: TypeId) -> u64 {
        let i = ty.index();
        if self.category_iids.len() <= i {
            self.category_iids.resize(i + 1, 0);
        }
        if self.category_iids[i] == 0 {
            self.next_category_iid += 1;
            let iid = self.next_category_iid;
            self.category_iids[i] = iid;
            let name = self.type_names[i].as_deref().unwrap_or_default();
            self.interned.message(1, |n| {
                n.uint(1, iid);
                n.bytes(2, name.as_bytes());
            });
        }
        self.category_iids[i]
    }

    /// A named track event (slice begin or instant).
    #[allow(clippy::too_many_arguments)]
    fn named_event(
        &mut self,
        m: &Model,
        track: u64,
        kind: u64,
        t: f64,
        value: ValueId,
        ty: TypeId,
        flow: Flow,
    ) {
        known(&mut self.value_names, value.index(), || {
            value_label(m, value)
        });
        known(&mut self.type_names, ty.index(), || label(m, m.ty(ty).name));
        let x = Timed::Named {
            track,
            kind,
            value,
            ty,
            flow,
        };
        self.hold(t, x);
    }

    fn slice_end(&mut self, track: u64, t: f64) {
        self.hold(t, Timed::End { track });
    }

    fn counter(&mut self, track: u64, t: f64, value: f64) {
        self.hold(t, Timed::Counter { track, value });
    }

    /// Holds a timed packet; writes the earliest held when they are too
    /// many.
    fn hold(&mut self, t: f64, x: Timed) {
        if let Some((t, x)) = self.held.push(nanos(t), x) {
            self.emit(t, x);
        }
    }

    /// Writes a timed packet on the first sequence whose last packet is
    /// not later (see [`Lanes`]). Names are interned on the first sequence
    /// and written out on the others.
    fn emit(&mut self, t: i64, x: Timed) {
        if self.error.is_some() {
            return;
        }
        let (lane, _) = self.lanes.lane(t);
        self.begin_packet(lane);
        self.pkt.uint(8, t as u64);
        if lane == 0 {
            self.pkt.uint(13, SEQ_NEEDS_INCREMENTAL_STATE);
        }
        match x {
            Timed::Named {
                track,
                kind,
                value,
                ty,
                flow,
            } => {
                let flow = |e: &mut Encoder| match flow {
                    Flow::None => {}
                    Flow::Starts(id) => e.fixed64(47, id),
                    Flow::Ends(id) => e.fixed64(48, id),
                };
                if lane == 0 {
                    let name = self.name_iid(value);
                    let cat = self.category_iid(ty);
                    self.pkt.message(11, |e| {
                        e.uint(3, cat);
                        e.uint(9, kind);
                        e.uint(10, name);
                        e.uint(11, track);
                        flow(e);
                    });
                } else {
                    let name = self.value_names[value.index()].as_deref();
                    let cat = self.type_names[ty.index()].as_deref();
                    self.pkt.message(11, |e| {
                        e.bytes(22, cat.unwrap_or_default().as_bytes());
                        e.uint(9, kind);
                        e.bytes(23, name.unwrap_or_default().as_bytes());
                        e.uint(11, track);
                        flow(e);
                    });
                }
            }
            Timed::End { track } => self.pkt.message(11, |e| {
                e.uint(9, TYPE_SLICE_END);
                e.uint(11, track);
            }),
            Timed::Counter { track, value } => self.pkt.message(11, |e| {
                e.uint(9, TYPE_COUNTER);
                e.uint(11, track);
                e.double(44, value);
            }),
        }
        self.end_packet();
    }
}

/// Entry `i` of `names`, made by `name()` when first asked.
fn known(names: &mut Vec<Option<Box<str>>>, i: usize, name: impl FnOnce() -> String) {
    if names.len() <= i {
        names.resize(i + 1, None);
    }
    if names[i].is_none() {
        names[i] = Some(name().into_boxed_str());
    }
}

impl<W: Write> Slices for PerfettoWriter<W> {
    type At = u64;

    fn error(&self) -> Option<&io::Error> {
        self.error.as_ref()
    }

    fn slicing(&mut self) -> &mut Slicing {
        &mut self.slicing
    }

    fn at(&mut self, m: &Model, list: ListId) -> u64 {
        self.list_track(m, list)
    }

    fn begin(&mut self, m: &Model, track: u64, t: f64, value: ValueId, ty: TypeId) {
        self.named_event(m, track, TYPE_SLICE_BEGIN, t, value, ty, Flow::None);
    }

    fn end(&mut self, track: u64, t: f64) {
        self.slice_end(track, t);
    }

    fn instant(&mut self, m: &Model, list: ListId, t: f64, value: ValueId, ty: TypeId) {
        let track = self.list_track(m, list);
        self.named_event(m, track, TYPE_INSTANT, t, value, ty, Flow::None);
    }

    fn variable(&mut self, m: &Model, list: ListId, t: f64, number: f64) {
        let track = self.list_track(m, list);
        self.counter(track, t, number);
    }

    fn link(&mut self, m: &Model, e: &Entity<'_>, l: SliceFlow) {
        let SliceFlow { from, to, ty, id } = l;
        let a = self.link_end_track(m, from, ty);
        self.named_event(m, a, TYPE_INSTANT, e.start, e.value, ty, Flow::Starts(id));
        let b = self.link_end_track(m, to, ty);
        self.named_event(m, b, TYPE_INSTANT, e.end, e.value, ty, Flow::Ends(id));
    }

    fn container(&mut self, m: &Model, id: ContainerId) {
        self.container_track(m, id);
    }
}

slice_sink!(PerfettoWriter);
