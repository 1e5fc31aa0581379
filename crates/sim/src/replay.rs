//! A lean simulation of events whose references are already handles (as a
//! binary trace stores them), for the common case.
//!
//! [`Replay`] gives the same entities as the [`crate::Simulator`] for a
//! valid trace under the default options (with user-defined fields or not,
//! with an end time), at a fraction of the cost: no operations between
//! stages, compact per-list state, entities handed to the [`Sink`] as soon
//! as their data is final. It does not explain problems: on anything the
//! full simulator would report (time order, empty pop, key reuse, …) it
//! returns [`Anomaly`], and the caller replays the trace with the full
//! simulator to get the exact error.

use hashbrown::{HashMap, HashSet};
use trama_events::{Event, EventKind};

use crate::engine::{apply_model, sort_children, CountingSink, Entity, SimOptions, Sink};
use crate::idmap::pack;
use crate::intern::StrId;
use crate::model::{ContainerId, ListId, ListInfo, Model, TypeId, TypeKind, ValueId};
use crate::op::{Batch, Op};
use crate::resolve::{HandleEvent, Resolver};
use crate::sim::Finished;

/// The lean simulation cannot decide: replay with the full simulator.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Anomaly;

impl std::fmt::Display for Anomaly {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("the trace needs the full simulation")
    }
}

impl std::error::Error for Anomaly {}

type R<T = ()> = Result<T, Anomaly>;

/// What the full simulator reports as the ends of entities that are not
/// links (its default), kept so that both hand identical entities over.
const ROOT: Option<ContainerId> = Some(ContainerId::ROOT);

#[derive(Clone, Debug, Default)]
struct Open {
    idx: u32,
    start: f64,
    value: u32,
    level: u32,
    extras: Vec<StrId>,
}

#[derive(Clone, Debug, Default)]
struct Pending {
    start: f64,
    end: f64,
    value: u32,
    from: u32,
    to: u32,
    extras: Vec<StrId>,
}

#[derive(Debug, Default)]
struct ListState {
    next_idx: u32,
    /// Start and end of the last entity created (end −1 while open).
    last_start: f64,
    last_end: f64,
    /// States: the stack. Variables: the current value (one entry).
    stack: Vec<Open>,
    /// Variables: the current number.
    number: f64,
    /// Links (boxed: most lists have none).
    links: Option<Box<Links>>,
}

#[derive(Debug, Default)]
struct Links {
    pending: HashMap<u128, Pending>,
    pending_long: HashMap<Box<[u8]>, Pending>,
    used: HashSet<u128>,
    used_long: HashSet<Box<[u8]>>,
}

/// See the module documentation.
pub struct Replay<S> {
    resolver: Resolver,
    batch: Batch,
    model: Model,
    sink: S,
    opts: SimOptions,
    lists: Vec<ListState>,
    destroyed: Vec<bool>,
    last_time: f64,
    events: u64,
}

impl<S: Sink> Replay<S> {
    /// A replay with only the root type and container. Options other than
    /// `keep_extras` and `end_time` need the full simulator.
    pub fn new(sink: S, opts: SimOptions) -> Replay<S> {
        Replay {
            resolver: Resolver::new(opts.keep_extras),
            batch: Batch::default(),
            model: Model::default(),
            sink,
            opts,
            lists: Vec::new(),
            destroyed: vec![false],
            last_time: -1.0,
            events: 0,
        }
    }

    /// Can these options be replayed here?
    pub fn supports(opts: &SimOptions) -> bool {
        opts.stop_at.is_none() && !opts.no_imbrication && !opts.ignore_incomplete_links
    }

    /// The sink.
    pub fn sink(&self) -> &S {
        &self.sink
    }

    /// An event stored as its words (definitions, containers, values).
    pub fn event(&mut self, ev: &Event<'_>) -> R {
        self.batch.clear();
        self.resolver
            .resolve(ev, &mut self.batch)
            .map_err(|_| Anomaly)?;
        let batch = std::mem::take(&mut self.batch);
        let r = self.apply_ops(&batch);
        self.batch = batch;
        r
    }

    /// A value created by a first use before a keyframe.
    pub fn declare_value(&mut self, ty: TypeId, name: &[u8]) -> R {
        self.batch.clear();
        self.resolver
            .declare_value(ty, name, &mut self.batch)
            .map_err(|_| Anomaly)?;
        let batch = std::mem::take(&mut self.batch);
        let r = self.apply_ops(&batch);
        self.batch = batch;
        r
    }

    fn apply_ops(&mut self, batch: &Batch) -> R {
        for op in &batch.ops {
            match op {
                Op::Time { time } => {
                    self.events += 1;
                    self.last_time = *time;
                }
                Op::NewType { .. } => {
                    self.events += 1;
                    self.last_time = 0.0;
                    apply_model(&mut self.model, op, batch);
                }
                Op::NewValue { defined, .. } => {
                    if *defined {
                        self.events += 1;
                        self.last_time = 0.0;
                    }
                    apply_model(&mut self.model, op, batch);
                }
                Op::NewContainer { time, .. } => {
                    self.events += 1;
                    self.last_time = *time;
                    apply_model(&mut self.model, op, batch);
                    self.destroyed.push(false);
                }
                Op::Destroy { time, c, .. } => {
                    self.events += 1;
                    self.last_time = *time;
                    let end = self.model.container(*c).end;
                    if *time < end {
                        return Err(Anomaly);
                    }
                    if !self.destroyed[c.index()] {
                        self.destroy(*c, *time)?;
                    }
                }
                // Entity events come by handles; anything else is for the
                // full simulator.
                Op::Small(_) | Op::Entity(_) | Op::Fail => return Err(Anomaly),
            }
        }
        Ok(())
    }

    fn list_for(&mut self, c: ContainerId, ty: TypeId, kind: TypeKind) -> ListId {
        if let Some(&(_, l)) = self.model.containers[c.index()]
            .lists
            .iter()
            .find(|(t, _)| *t == ty)
        {
            return l;
        }
        let l = ListId(self.model.lists.len() as u32);
        self.model.lists.push(ListInfo {
            container: c,
            ty,
            kind,
        });
        self.model.containers[c.index()].lists.push((ty, l));
        self.lists.push(ListState {
            last_end: -1.0,
            ..ListState::default()
        });
        self.sink.list(&self.model, l);
        l
    }

    #[inline]
    fn check_order(&self, l: ListId, time: f64) -> R {
        let s = &self.lists[l.index()];
        if s.next_idx > 0 && (s.last_start > time || (s.last_end != -1.0 && s.last_end > time)) {
            return Err(Anomaly);
        }
        Ok(())
    }

    #[inline]
    fn emit(&mut self, l: ListId, idx: u32, e: &Entity<'_>) {
        self.sink.entity(&self.model, l, idx, e);
    }

    fn extras(&mut self, ev: &HandleEvent<'_>) -> Vec<StrId> {
        if !self.opts.keep_extras || ev.extras.is_empty() {
            return Vec::new();
        }
        let strings = &mut self.model.strings;
        let mut v = Vec::with_capacity(2 * ev.extras.len());
        for (name, value) in ev.def.extra_names().iter().zip(ev.extras) {
            v.push(strings.intern(name.as_bytes()));
            v.push(strings.intern(value));
        }
        v
    }

    /// An entity event given by handles.
    pub fn entity(&mut self, ev: &HandleEvent<'_>) -> R {
        if !self.batch.ops.is_empty() {
            self.batch.clear();
        }
        let (value, other) = self
            .resolver
            .check_handles(ev, &mut self.batch)
            .map_err(|_| Anomaly)?;
        if !self.batch.ops.is_empty() {
            let batch = std::mem::take(&mut self.batch);
            let r = self.apply_ops(&batch);
            self.batch = batch;
            r?;
        }
        self.events += 1;
        self.last_time = ev.time;
        let c = ev.container;
        if self.destroyed[c.index()] {
            return Ok(());
        }
        let time = ev.time;
        let kind = ev.kind;
        let list_kind = match kind {
            EventKind::NewEvent => TypeKind::Event,
            EventKind::SetState
            | EventKind::PushState
            | EventKind::PopState
            | EventKind::ResetState => TypeKind::State,
            EventKind::SetVariable | EventKind::AddVariable | EventKind::SubVariable => {
                TypeKind::Variable
            }
            _ => TypeKind::Link,
        };
        let l = self.list_for(c, ev.ty, list_kind);
        match kind {
            EventKind::NewEvent => {
                self.check_order(l, time)?;
                let extras = self.extras(ev);
                let s = &mut self.lists[l.index()];
                let idx = s.next_idx;
                s.next_idx += 1;
                s.last_start = time;
                s.last_end = time;
                self.emit(
                    l,
                    idx,
                    &Entity {
                        start: time,
                        end: time,
                        value,
                        number: 0.0,
                        level: 0,
                        extras: &extras,
                        key: &[],
                        from: ROOT,
                        to: ROOT,
                    },
                );
            }
            EventKind::SetState | EventKind::PushState => {
                self.check_order(l, time)?;
                if kind == EventKind::SetState {
                    self.reset(l, time);
                }
                let extras = self.extras(ev);
                let s = &mut self.lists[l.index()];
                let level = s.stack.last().map_or(0, |t| t.level + 1);
                let idx = s.next_idx;
                s.next_idx += 1;
                s.last_start = time;
                s.last_end = -1.0;
                s.stack.push(Open {
                    idx,
                    start: time,
                    value: value.0,
                    level,
                    extras,
                });
            }
            EventKind::PopState => {
                self.check_order(l, time)?;
                let s = &mut self.lists[l.index()];
                let top = s.stack.pop().ok_or(Anomaly)?;
                if top.idx + 1 == s.next_idx {
                    s.last_end = time;
                }
                self.emit_state(l, &top, time);
            }
            EventKind::ResetState => {
                self.check_order(l, time)?;
                self.reset(l, time);
            }
            EventKind::SetVariable | EventKind::AddVariable | EventKind::SubVariable => {
                let has_last = self.lists[l.index()].next_idx > 0;
                if kind != EventKind::SetVariable && !has_last {
                    return Err(Anomaly);
                }
                if has_last {
                    self.check_order(l, time)?;
                }
                let v = ev.number;
                let s = &mut self.lists[l.index()];
                if has_last && s.last_start == time {
                    match kind {
                        EventKind::SetVariable => s.number = v,
                        EventKind::AddVariable => s.number += v,
                        _ => s.number -= v,
                    }
                } else {
                    let previous = if has_last { s.number } else { 0.0 };
                    let number = match kind {
                        EventKind::SetVariable => v,
                        EventKind::AddVariable => previous + v,
                        _ => previous - v,
                    };
                    if let Some(prev) = s.stack.pop() {
                        let n = s.number;
                        self.emit(
                            l,
                            prev.idx,
                            &Entity {
                                start: prev.start,
                                end: time,
                                value: ValueId(0),
                                number: n,
                                level: 0,
                                extras: &prev.extras,
                                key: &[],
                                from: ROOT,
                                to: ROOT,
                            },
                        );
                    }
                    let extras = self.extras(ev);
                    let s = &mut self.lists[l.index()];
                    let idx = s.next_idx;
                    s.next_idx += 1;
                    s.last_start = time;
                    s.last_end = -1.0;
                    s.number = number;
                    s.stack.push(Open {
                        idx,
                        start: time,
                        extras,
                        ..Open::default()
                    });
                }
            }
            EventKind::StartLink | EventKind::EndLink => {
                let is_start = kind == EventKind::StartLink;
                let extras = self.extras(ev);
                let s = &mut self.lists[l.index()];
                let (next_idx, last_start, last_end) = (s.next_idx, s.last_start, s.last_end);
                let s = &mut **s.links.get_or_insert_with(Default::default);
                let packed = pack(ev.key);
                let found = match packed {
                    Some(k) => s.pending.remove(&k),
                    None => s.pending_long.remove(ev.key),
                };
                match found {
                    None => {
                        let used = match packed {
                            Some(k) => s.used.contains(&k),
                            None => s.used_long.contains(ev.key),
                        };
                        if used {
                            return Err(Anomaly);
                        }
                        let p = Pending {
                            start: if is_start { time } else { -1.0 },
                            end: if is_start { -1.0 } else { time },
                            value: value.0,
                            from: if is_start { other.0 } else { u32::MAX },
                            to: if is_start { u32::MAX } else { other.0 },
                            extras,
                        };
                        match packed {
                            Some(k) => s.pending.insert(k, p),
                            None => s.pending_long.insert(ev.key.into(), p),
                        };
                    }
                    Some(mut p) => {
                        if is_start {
                            p.start = time;
                            p.from = other.0;
                        } else {
                            p.end = time;
                            p.to = other.0;
                        }
                        p.extras.extend(extras);
                        if p.value != value.0 {
                            return Err(Anomaly);
                        }
                        let t = if is_start { p.start } else { p.end };
                        if next_idx > 0 && (last_start > t || (last_end != -1.0 && last_end > t)) {
                            return Err(Anomaly);
                        }
                        match packed {
                            Some(k) => s.used.insert(k),
                            None => s.used_long.insert(ev.key.into()),
                        };
                        let s = &mut self.lists[l.index()];
                        let idx = s.next_idx;
                        s.next_idx += 1;
                        s.last_start = p.start;
                        s.last_end = p.end;
                        let from = (p.from != u32::MAX).then_some(ContainerId(p.from));
                        let to = (p.to != u32::MAX).then_some(ContainerId(p.to));
                        self.emit(
                            l,
                            idx,
                            &Entity {
                                start: p.start,
                                end: p.end,
                                value: ValueId(p.value),
                                number: 0.0,
                                level: 0,
                                extras: &p.extras,
                                key: ev.key,
                                from,
                                to,
                            },
                        );
                    }
                }
            }
            _ => return Err(Anomaly),
        }
        self.model.containers[c.index()].end = time;
        Ok(())
    }

    fn emit_state(&mut self, l: ListId, e: &Open, end: f64) {
        self.emit(
            l,
            e.idx,
            &Entity {
                start: e.start,
                end,
                value: ValueId(e.value),
                number: 0.0,
                level: e.level,
                extras: &e.extras,
                key: &[],
                from: ROOT,
                to: ROOT,
            },
        );
    }

    /// Ends every state on the stack at `time`.
    fn reset(&mut self, l: ListId, time: f64) {
        let stack = std::mem::take(&mut self.lists[l.index()].stack);
        let s = &mut self.lists[l.index()];
        if stack.last().is_some_and(|t| t.idx + 1 == s.next_idx) {
            s.last_end = time;
        }
        for e in &stack {
            self.emit_state(l, e, time);
        }
        let mut stack = stack;
        stack.clear();
        self.lists[l.index()].stack = stack;
    }

    fn destroy(&mut self, c: ContainerId, time: f64) -> R {
        self.destroyed[c.index()] = true;
        self.model.containers[c.index()].end = time;
        let lists: Vec<(TypeId, ListId)> = self.model.container(c).lists.clone();
        for &(_, l) in &lists {
            let pending = self.lists[l.index()]
                .links
                .as_ref()
                .is_some_and(|k| !k.pending.is_empty() || !k.pending_long.is_empty());
            if pending {
                // Incomplete links: an error (or a warning with -z).
                return Err(Anomaly);
            }
        }
        for &(_, l) in &lists {
            let kind = self.model.list(l).kind;
            match kind {
                TypeKind::State => self.reset(l, time),
                TypeKind::Variable => {
                    let s = &mut self.lists[l.index()];
                    if let Some(prev) = s.stack.pop() {
                        let n = s.number;
                        self.emit(
                            l,
                            prev.idx,
                            &Entity {
                                start: prev.start,
                                end: time,
                                value: ValueId(0),
                                number: n,
                                level: 0,
                                extras: &prev.extras,
                                key: &[],
                                from: ROOT,
                                to: ROOT,
                            },
                        );
                    }
                }
                _ => {}
            }
        }
        self.sink.container(&self.model, c);
        let children = self.model.container(c).children.clone();
        for child in children {
            if !self.destroyed[child.index()] {
                self.destroy(child, time)?;
            }
        }
        Ok(())
    }

    fn recursive_destroy(&mut self, c: ContainerId, time: f64) -> R {
        if !self.destroyed[c.index()] {
            self.destroy(c, time)?;
        }
        let children = self.model.container(c).children.clone();
        for child in children {
            self.recursive_destroy(child, time)?;
        }
        Ok(())
    }

    /// Ends the trace: destroys every container still alive at the end time.
    pub fn finish(mut self) -> Result<Finished<S>, Anomaly> {
        let t = self.opts.end_time.unwrap_or(self.last_time);
        self.recursive_destroy(ContainerId::ROOT, t)?;
        sort_children(&mut self.model);
        Ok((self.model, self.sink, Vec::new()))
    }

    /// Events replayed so far.
    pub fn events(&self) -> u64 {
        self.events
    }
}

/// A replay that only counts (what `trama check` needs).
pub type CountingReplay = Replay<CountingSink>;
