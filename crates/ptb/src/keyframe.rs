//! Keyframes: what a reader must replay to start simulating at a block.
//!
//! The writer follows the trace with a [`Tracker`]: the records that built
//! the model (definitions, containers, values) and, per entity list, the
//! events whose entities are still open — the state stack, the current
//! variable value, the pending links. Replayed in order before block `k`,
//! they leave the simulator with the entities alive at the start of `k`.
//! The tracker assumes a valid trace (the simulator checks it when the
//! whole file is read); it also records when containers are destroyed, so
//! that a reader that stops early knows their final end times.

use hashbrown::HashMap;

use trama_events::{Event, EventKind, Field};
use trama_sim::{ContainerEffect, EntityHandles};

use crate::varint;

pub(crate) const REC_TEXT: u8 = 0;
pub(crate) const REC_VALUE: u8 = 1;
pub(crate) const REC_ENTITY: u8 = 2;

/// An open entity's record in the arena.
#[derive(Clone, Copy, Debug)]
struct Slot {
    off: u32,
    len: u32,
    time: f64,
}

#[derive(Default)]
struct Var {
    start: f64,
    number: f64,
    /// The record that started the current value (its number is replaced).
    def: u32,
    line: u64,
    c: u32,
    ty: u32,
    extras: Vec<Box<[u8]>>,
}

#[derive(Default)]
struct ListTrack {
    stack: Vec<Slot>,
    var: Option<Var>,
    pending: HashMap<Box<[u8]>, Slot>,
}

/// Follows open entities and the model; see the module documentation.
#[derive(Default)]
pub(crate) struct Tracker {
    model: Vec<u8>,
    model_records: u64,
    arena: Vec<u8>,
    /// Per container: (type, index in `tracks`) of its lists.
    lists: Vec<Vec<(u32, u32)>>,
    tracks: Vec<ListTrack>,
    children: Vec<Vec<u32>>,
    /// Destroy time per container (NaN while alive).
    destroyed: Vec<f64>,
    pub last_time: f64,
}

fn put_f64(out: &mut Vec<u8>, v: f64) {
    out.extend_from_slice(&v.to_le_bytes());
}

/// Encodes an entity record (see the format's keyframe section).
#[allow(clippy::too_many_arguments)]
fn entity_record<'a>(
    out: &mut Vec<u8>,
    def: u32,
    kind: EventKind,
    line: u64,
    time: f64,
    h: &EntityHandles,
    number: f64,
    key: &[u8],
    extras: impl ExactSizeIterator<Item = &'a [u8]>,
) {
    out.push(REC_ENTITY);
    varint::put(out, def as u64);
    out.push(kind as u8);
    varint::put(out, line);
    put_f64(out, time);
    varint::put(out, h.container.0 as u64);
    varint::put(out, h.ty.0 as u64);
    varint::put(
        out,
        if h.value.0 == u32::MAX {
            0
        } else {
            h.value.0 as u64 + 1
        },
    );
    varint::put(out, h.other.0 as u64);
    put_f64(out, number);
    varint::put_bytes(out, key);
    varint::put(out, extras.len() as u64);
    for x in extras {
        varint::put_bytes(out, x);
    }
}

impl Tracker {
    pub fn new() -> Tracker {
        Tracker {
            children: vec![Vec::new()],
            destroyed: vec![f64::NAN],
            lists: vec![Vec::new()],
            ..Tracker::default()
        }
    }

    fn alive(&self, c: u32) -> bool {
        // Containers the tracker has not seen created count as alive.
        self.destroyed.get(c as usize).is_none_or(|d| d.is_nan())
    }

    fn destroy(&mut self, c: u32, time: f64) {
        let mut todo = vec![c];
        while let Some(c) = todo.pop() {
            if !self.alive(c) {
                continue;
            }
            self.destroyed[c as usize] = time;
            for &(_, t) in &self.lists[c as usize] {
                self.tracks[t as usize] = ListTrack::default();
            }
            todo.extend(self.children[c as usize].iter().copied());
        }
    }

    /// The index of the list (container `c`, type `ty`) in `tracks`.
    #[inline]
    fn track(&mut self, c: u32, ty: u32) -> usize {
        if c as usize >= self.lists.len() {
            self.lists.resize(c as usize + 1, Vec::new());
        }
        let lists = &mut self.lists[c as usize];
        if let Some(&(_, i)) = lists.iter().find(|(t, _)| *t == ty) {
            return i as usize;
        }
        let i = self.tracks.len();
        lists.push((ty, i as u32));
        self.tracks.push(ListTrack::default());
        i
    }

    fn put_slot(&mut self, time: f64, build: impl FnOnce(&mut Vec<u8>)) -> Slot {
        let off = self.arena.len();
        build(&mut self.arena);
        Slot {
            off: off as u32,
            len: (self.arena.len() - off) as u32,
            time,
        }
    }

    /// Follows one event. `time` is its time (0 when untimed).
    pub fn event(
        &mut self,
        ev: &Event<'_>,
        time: f64,
        handles: Option<EntityHandles>,
        container: Option<ContainerEffect>,
    ) {
        self.last_time = time;
        let def = ev.def();
        let kind = def.kind();
        let Some(h) = handles else {
            // Model records: kept whole, in order.
            match container {
                Some(ContainerEffect::Created { id, parent }) => {
                    let n = id.0 as usize + 1;
                    if self.children.len() < n {
                        self.children.resize(n, Vec::new());
                        self.destroyed.resize(n, f64::NAN);
                        self.lists.resize(n, Vec::new());
                    }
                    if let Some(ch) = self.children.get_mut(parent.0 as usize) {
                        ch.push(id.0);
                    }
                }
                Some(ContainerEffect::Destroyed(c)) => self.destroy(c.0, time),
                None => {}
            }
            if kind != EventKind::TraceFile {
                self.model.push(REC_TEXT);
                varint::put(&mut self.model, def.index() as u64);
                varint::put(&mut self.model, ev.line());
                varint::put(&mut self.model, ev.word_count() as u64 - 1);
                for i in 1..ev.word_count() {
                    varint::put_bytes(&mut self.model, ev.word(i));
                }
                self.model_records += 1;
            }
            return;
        };
        if h.new_value {
            self.model.push(REC_VALUE);
            varint::put(&mut self.model, h.ty.0 as u64);
            varint::put_bytes(&mut self.model, ev.get(Field::Value));
            varint::put(&mut self.model, ev.line());
            self.model_records += 1;
        }
        if !self.alive(h.container.0) {
            return;
        }
        let t = self.track(h.container.0, h.ty.0);
        let extras = || ev.extras();
        match kind {
            EventKind::SetState | EventKind::PushState => {
                let slot = self.put_slot(time, |out| {
                    entity_record(
                        out,
                        def.index(),
                        kind,
                        ev.line(),
                        time,
                        &h,
                        0.0,
                        &[],
                        extras(),
                    )
                });
                let l = &mut self.tracks[t];
                if kind == EventKind::SetState {
                    l.stack.clear();
                }
                l.stack.push(slot);
            }
            EventKind::PopState => {
                self.tracks[t].stack.pop();
            }
            EventKind::ResetState => self.tracks[t].stack.clear(),
            EventKind::SetVariable | EventKind::AddVariable | EventKind::SubVariable => {
                let v = trama_num::strtof(ev.get(Field::Value)) as f64;
                let l = &mut self.tracks[t];
                let previous = match &mut l.var {
                    Some(var) if var.start == time => {
                        match kind {
                            EventKind::SetVariable => var.number = v,
                            EventKind::AddVariable => var.number += v,
                            _ => var.number -= v,
                        }
                        return;
                    }
                    Some(var) => var.number,
                    None => 0.0,
                };
                let number = match kind {
                    EventKind::SetVariable => v,
                    EventKind::AddVariable => previous + v,
                    _ => previous - v,
                };
                l.var = Some(Var {
                    start: time,
                    number,
                    def: def.index(),
                    line: ev.line(),
                    c: h.container.0,
                    ty: h.ty.0,
                    extras: ev.extras().map(|x| x.into()).collect(),
                });
            }
            EventKind::StartLink | EventKind::EndLink => {
                let k = ev.get(Field::Key);
                if self.tracks[t].pending.remove(k).is_none() {
                    let slot = Slot {
                        off: self.arena.len() as u32,
                        len: 0,
                        time,
                    };
                    entity_record(
                        &mut self.arena,
                        def.index(),
                        kind,
                        ev.line(),
                        time,
                        &h,
                        0.0,
                        k,
                        extras(),
                    );
                    let slot = Slot {
                        len: self.arena.len() as u32 - slot.off,
                        ..slot
                    };
                    self.tracks[t].pending.insert(k.into(), slot);
                }
            }
            _ => {}
        }
    }

    /// The keyframe payload for the next block (`block` = its index among
    /// events frames); compacts the arena of open records.
    pub fn keyframe(&mut self, block: u64) -> Vec<u8> {
        let mut open = Vec::new();
        let mut n_open = 0u64;
        let mut arena = Vec::with_capacity(self.arena.len() / 2 + 64);
        // Lists in creation order.
        for l in &mut self.tracks {
            for s in &mut l.stack {
                let r = &self.arena[s.off as usize..(s.off + s.len) as usize];
                open.extend_from_slice(r);
                n_open += 1;
                let off = arena.len() as u32;
                arena.extend_from_slice(r);
                s.off = off;
            }
            if let Some(v) = &l.var {
                let h = EntityHandles {
                    container: trama_sim::ContainerId(v.c),
                    ty: trama_sim::TypeId(v.ty),
                    value: trama_sim::ValueId(u32::MAX),
                    other: trama_sim::ContainerId(v.c),
                    new_value: false,
                };
                entity_record(
                    &mut open,
                    v.def,
                    EventKind::SetVariable,
                    v.line,
                    v.start,
                    &h,
                    v.number,
                    &[],
                    v.extras.iter().map(|x| &x[..]),
                );
                n_open += 1;
            }
            let mut pending: Vec<(&Box<[u8]>, &mut Slot)> = l.pending.iter_mut().collect();
            pending.sort_unstable_by_key(|(_, s)| s.off);
            for (_, s) in pending {
                let r = &self.arena[s.off as usize..(s.off + s.len) as usize];
                open.extend_from_slice(r);
                n_open += 1;
                let off = arena.len() as u32;
                arena.extend_from_slice(r);
                s.off = off;
            }
        }
        self.arena = arena;
        let mut out = Vec::with_capacity(self.model.len() + open.len() + 16);
        varint::put(&mut out, block);
        varint::put(&mut out, self.model_records + n_open);
        out.extend_from_slice(&self.model);
        out.extend_from_slice(&open);
        out
    }

    /// The earliest start of the entities open now (infinity when none).
    pub fn open_min(&self) -> f64 {
        let mut m = f64::INFINITY;
        for l in &self.tracks {
            for s in &l.stack {
                m = m.min(s.time);
            }
            if let Some(v) = &l.var {
                m = m.min(v.start);
            }
            for s in l.pending.values() {
                m = m.min(s.time);
            }
        }
        m
    }

    /// Final end time of every container (its destruction, else the end of
    /// the trace), root first.
    pub fn container_ends(&self) -> Vec<f64> {
        self.destroyed
            .iter()
            .map(|d| if d.is_nan() { self.last_time } else { *d })
            .collect()
    }
}
