//! Stage two of the simulation: the semantics of entities.
//!
//! The engine receives resolved [`Op`]s in trace order and keeps, per
//! (container, type) list, the state stack, the last entity, pending links
//! and used link keys. An entity is *final* once it is not the last of its
//! list and not on a state stack (or when its container is destroyed): at
//! most the stack depth plus one entity per list is alive, so memory does
//! not depend on the trace length. Final entities go to the [`Sink`].

use trama_events::EventKind;

use crate::error::{SimError, SimErrorKind};
use crate::idmap::{pack, unpack, IdMap, KeySet};
use crate::keys::{KeyFilter, LinkKeys, Seen, UsedKeys};
use crate::lenient::Tolerated;
use crate::op::{Batch, EntityOp, Extras, Op, SmallOp};
use crate::resolve::text;
use crate::sink::{Entity, Sink};

mod tick;

use crate::intern::StrId;
use crate::model::{
    ContainerId, ContainerInfo, ListId, ListInfo, Model, TypeId, TypeInfo, TypeKind, ValueId,
    ValueInfo,
};

/// Options of the simulation.
#[derive(Clone, Debug, Default)]
#[non_exhaustive]
pub struct SimOptions {
    /// Stop the simulation at this time (pj_dump `-a`).
    pub stop_at: Option<f64>,
    /// Drop links that never got their other end instead of failing (pj_dump `-z`).
    pub ignore_incomplete_links: bool,
    /// Push and pop do not nest: popping resumes the state below as a new entity (pj_dump `-i`).
    pub no_imbrication: bool,
    /// Keep the user-defined fields of events (needed to show them, e.g. pj_dump `-u`).
    pub keep_extras: bool,
    /// The time the trace ends at, when known better than by its last
    /// event seen (a reader that stops early, e.g. for a time window).
    pub end_time: Option<f64>,
    /// Warn of states pushed and never popped (ended by their container's
    /// end): one warning per state type, with their number (not with
    /// [`SimOptions::stop_at`] or [`SimOptions::end_time`], which end a
    /// trace early on purpose).
    pub warn_open_states: bool,
    /// Let real traces' problems pass with warnings instead of failing:
    /// events on unknown containers are ignored, so are pops of empty
    /// state stacks, and a container destroyed before its last event is
    /// destroyed at that event's time. A valid trace gives the same result.
    pub lenient: bool,
    /// How the link keys already used are remembered: every one (the
    /// default), or in a filter of fixed size (memory bounded whatever
    /// the trace).
    pub link_keys: LinkKeys,
    /// How variable values are read from their words: as PajeNG reads
    /// Pajé text (`strtof`, the default), or exactly, for a reader whose
    /// numbers are the source's own (OTF2).
    pub precision: trama_num::Precision,
}

const NONE: u32 = u32::MAX;

/// The classes of problems a lenient engine lets pass.
const POPS_IGNORED: &str = "pops of empty state stacks ignored";
const LATE_DESTROYED: &str =
    "containers destroyed before their last event (at that event's time instead)";

#[derive(Clone, Debug, Default)]
struct Live {
    start: f64,
    end: f64,
    number: f64,
    /// Link key packed by [`pack`] (0 when empty or long).
    key: u128,
    idx: u32,
    value: u32,
    level: u32,
    from: u32,
    to: u32,
    stacked: bool,
    /// Rare data: user-defined fields, long link keys.
    more: Option<Box<More>>,
}

#[derive(Clone, Debug, Default)]
struct More {
    extras: Vec<StrId>,
    key_long: Box<[u8]>,
}

impl Live {
    fn extras(&self) -> &[StrId] {
        self.more.as_ref().map_or(&[], |m| &m.extras)
    }

    fn set_key(&mut self, key: &[u8]) {
        match pack(key) {
            Some(k) => self.key = k,
            None => self.more.get_or_insert_with(Default::default).key_long = key.into(),
        }
    }

    #[inline(always)]
    fn with_extras(mut self, extras: Vec<StrId>) -> Live {
        if !extras.is_empty() {
            self.more.get_or_insert_with(Default::default).extras = extras;
        }
        self
    }
}

#[derive(Debug, Default)]
struct ListLive {
    next_idx: u32,
    /// The live entities in creation order (`idx` increasing), so that one
    /// is found by bisection whatever the depth of the stack.
    live: Vec<Live>,
    stack: Vec<u32>,
    /// Pending links: key → slot in [`Engine::slab`].
    pending: IdMap<u32>,
    /// The keys of completed links, with [`LinkKeys::Exact`].
    used_keys: KeySet,
    /// The bottom of the stack was set (`PajeSetState`), not pushed.
    set_base: bool,
}

impl ListLive {
    /// The position of live entity `idx`.
    #[inline]
    fn position(&self, idx: u32) -> Option<usize> {
        self.live.binary_search_by_key(&idx, |e| e.idx).ok()
    }

    /// Live entity `idx`.
    #[inline]
    fn get_mut(&mut self, idx: u32) -> Option<&mut Live> {
        let pos = self.position(idx)?;
        Some(&mut self.live[pos])
    }
}

#[derive(Debug, Default)]
struct ContainerLive {
    destroyed: bool,
}

/// Stage two of the simulation: entity semantics, fed with resolved operations.
pub(crate) struct Engine<S> {
    model: Model,
    sink: S,
    opts: SimOptions,
    lists: Vec<ListLive>,
    conts: Vec<ContainerLive>,
    last_time: f64,
    events: u64,
    warnings: Vec<String>,
    /// Per state type: states pushed and never popped, the containers
    /// that had some, and the first of them.
    open_states: Vec<(TypeId, u64, u64, ContainerId)>,
    /// What [`SimOptions::lenient`] let pass.
    tolerated: Tolerated,
    /// Pending links, referenced by slot (moving an index through the
    /// maps is cheaper than moving the link).
    slab: Vec<Live>,
    /// The sink's [`Sink::next_tick`].
    next_tick: f64,
    free_slots: Vec<u32>,
    /// The keys of completed links, unless each list keeps its own.
    used: UsedKeys,
    /// Keys possibly reused that became warnings.
    possibly_reused: u64,
    /// User-defined values of entities go to the model's scratch strings
    /// (the sink does not keep them).
    scratch_extras: bool,
}

/// Keys possibly reused named one by one in warnings; the others are counted.
const SHOWN_SUSPECTS: u64 = 10;

type R<T = ()> = Result<T, SimErrorKind>;

fn s(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

impl<S: Sink> Engine<S> {
    /// An engine with only the root type and container.
    pub fn new(sink: S, opts: SimOptions) -> Engine<S> {
        let next_tick = sink.next_tick();
        Engine {
            next_tick,
            used: UsedKeys::new(&opts.link_keys),
            possibly_reused: 0,
            scratch_extras: !sink.keeps_strings(),
            model: Model::default(),
            sink,
            opts,
            lists: Vec::new(),
            conts: vec![ContainerLive::default()],
            last_time: -1.0,
            events: 0,
            warnings: Vec::new(),
            open_states: Vec::new(),
            tolerated: Tolerated::default(),
            slab: Vec::new(),
            free_slots: Vec::new(),
        }
    }

    fn slab_put(&mut self, e: Live) -> u32 {
        match self.free_slots.pop() {
            Some(i) => {
                self.slab[i as usize] = e;
                i
            }
            None => {
                self.slab.push(e);
                (self.slab.len() - 1) as u32
            }
        }
    }

    fn slab_take(&mut self, i: u32) -> Live {
        self.free_slots.push(i);
        std::mem::take(&mut self.slab[i as usize])
    }

    /// Applies the operations of a batch, in order.
    pub fn apply_batch(&mut self, batch: &Batch) -> Result<(), SimError> {
        for op in &batch.ops {
            self.apply(op, batch)?;
        }
        Ok(())
    }

    /// Applies one operation.
    pub fn apply(&mut self, op: &Op, batch: &Batch) -> Result<(), SimError> {
        match op {
            Op::Time { time } | Op::NewContainer { time, .. } | Op::Destroy { time, .. } => {
                self.at(*time)
            }
            Op::Small(e) => self.at(e.time),
            Op::Entity(i) => self.at(batch.big[*i as usize].small.time),
            _ => {}
        }
        match op {
            Op::Time { time } => {
                self.events += 1;
                self.last_time = *time;
                Ok(())
            }
            Op::NewType { .. } => {
                self.events += 1;
                self.last_time = 0.0;
                apply_model(&mut self.model, op, batch);
                Ok(())
            }
            Op::NewValue { defined, .. } => {
                if *defined {
                    self.events += 1;
                    self.last_time = 0.0;
                }
                apply_model(&mut self.model, op, batch);
                Ok(())
            }
            Op::NewContainer { time, .. } => {
                self.events += 1;
                self.last_time = *time;
                apply_model(&mut self.model, op, batch);
                self.conts.push(ContainerLive::default());
                Ok(())
            }
            Op::Destroy { line, time, c } => {
                self.events += 1;
                self.last_time = *time;
                self.destroy_event(*line, *c, *time)
                    .map_err(|kind| SimError {
                        line: *line,
                        kind,
                        contents: String::new(),
                    })
            }
            Op::Small(e) => {
                self.events += 1;
                self.last_time = e.time;
                self.entity(e, None, batch).map_err(|kind| SimError {
                    line: e.line,
                    kind,
                    contents: String::new(),
                })
            }
            Op::Entity(i) => {
                let e = &batch.big[*i as usize];
                self.events += 1;
                self.last_time = e.small.time;
                self.entity(&e.small, Some(e), batch)
                    .map_err(|kind| SimError {
                        line: e.small.line,
                        kind,
                        contents: String::new(),
                    })
            }
            Op::Fail => Err(batch.fail.as_deref().cloned().unwrap_or_else(|| SimError {
                line: 0,
                kind: SimErrorKind::Internal,
                contents: String::new(),
            })),
        }
    }

    fn extras(&mut self, batch: &Batch, x: Extras) -> Vec<StrId> {
        if !self.scratch_extras || x.count == 0 {
            return intern_extras(&mut self.model, batch, x);
        }
        if self.model.scratch.full() {
            // Keep the strings of the entities still alive (stacked, last
            // of their list, pending links), forget the others.
            let lives = self.lists.iter_mut().flat_map(|l| l.live.iter_mut());
            let ids = lives
                .chain(self.slab.iter_mut())
                .filter_map(|e| e.more.as_mut())
                .flat_map(|m| m.extras.iter_mut());
            self.model.scratch.compact(ids);
        }
        let scratch = &mut self.model.scratch;
        let mut v = Vec::with_capacity(2 * x.count as usize);
        for &(n, val) in &batch.extras[x.start as usize..(x.start + x.count) as usize] {
            v.push(scratch.intern(text(batch, n)));
            v.push(scratch.intern(text(batch, val)));
        }
        v
    }

    fn destroy_event(&mut self, line: u64, c: ContainerId, mut time: f64) -> R {
        let end = self.model.container(c).end;
        if time < end && self.opts.lenient {
            let (name, at, last) = (self.cname(c), fmt_time(time), fmt_time(end));
            let done = if self.conts[c.index()].destroyed {
                "was destroyed at"
            } else {
                "is destroyed at"
            };
            self.tolerated.note(LATE_DESTROYED, line, || {
                format!("container '{name}' is destroyed at {at}, before its last event at {last}; it {done} {last}")
            });
            time = end;
        }
        if time < end {
            return Err(SimErrorKind::DestroyNotTimeOrdered {
                container: self.cname(c),
                time: fmt_time(time),
                last: fmt_time(end),
            });
        }
        if self.conts[c.index()].destroyed {
            return Ok(());
        }
        if let Some(stop) = self.stop_for(c, time) {
            return self.destroy(c, stop);
        }
        self.destroy(c, time)
    }

    #[inline]
    fn entity(&mut self, e: &SmallOp, big: Option<&EntityOp>, batch: &Batch) -> R {
        let c = e.c;
        let time = e.time;
        if self.conts[c.index()].destroyed {
            return Ok(());
        }
        if let Some(stop) = self.stop_for(c, time) {
            return self.destroy(c, stop);
        }
        let extras = match big {
            Some(b) => self.extras(batch, b.extras),
            None => Vec::new(),
        };
        let l = self.list_for(c, e.ty, e.list_kind);
        match e.kind {
            EventKind::NewEvent => {
                self.check_order(l, time)?;
                self.append(
                    l,
                    Live {
                        start: time,
                        end: time,
                        value: e.value.0,
                        ..Live::default()
                    }
                    .with_extras(extras),
                );
            }
            EventKind::SetState | EventKind::PushState => {
                self.check_order(l, time)?;
                let level = if e.kind == EventKind::SetState {
                    self.reset(l, time);
                    self.lists[l.index()].set_base = true;
                    0
                } else {
                    let no_imbrication = self.opts.no_imbrication;
                    let ll = &mut self.lists[l.index()];
                    if ll.stack.is_empty() {
                        ll.set_base = false;
                    }
                    match ll.stack.last() {
                        None => 0,
                        Some(&top) => ll.get_mut(top).map_or(0, |x| {
                            // Without imbrication a push ends the state it
                            // covers (it resumes as a new entity on pop).
                            if no_imbrication {
                                x.end = time;
                            }
                            x.level + 1
                        }),
                    }
                };
                let idx = self.append(
                    l,
                    Live {
                        start: time,
                        end: -1.0,
                        value: e.value.0,
                        level,
                        stacked: true,
                        ..Live::default()
                    }
                    .with_extras(extras),
                );
                self.lists[l.index()].stack.push(idx);
                self.sink
                    .state_begins(&self.model, l, idx, time, e.value, level);
            }
            EventKind::PopState => {
                self.check_order(l, time)?;
                self.pop(l, time, e.line)?;
            }
            EventKind::ResetState => {
                self.check_order(l, time)?;
                self.reset(l, time);
            }
            EventKind::SetVariable | EventKind::AddVariable | EventKind::SubVariable => {
                self.variable(l, e.kind, time, e.number, extras)?;
            }
            EventKind::StartLink | EventKind::EndLink => {
                let mut buf = [0u8; 16];
                let key: &[u8] = match big.and_then(|b| b.long_key) {
                    Some(s) => text(batch, s),
                    None => unpack(e.key, &mut buf),
                };
                self.link(l, e.kind, time, e.value, e.other, key, extras, e.line)?;
            }
            _ => {}
        }
        self.model.containers[c.index()].end = time;
        Ok(())
    }

    fn variable(&mut self, l: ListId, kind: EventKind, time: f64, v: f64, extras: Vec<StrId>) -> R {
        let has_last = self.lists[l.index()].next_idx > 0;
        if kind != EventKind::SetVariable && !has_last {
            let info = self.model.list(l);
            return Err(SimErrorKind::VariableWithoutValue {
                op: if kind == EventKind::AddVariable {
                    "PajeAddVariable"
                } else {
                    "PajeSubVariable"
                },
                ty: self.tname(info.ty),
                container: self.cname(info.container),
            });
        }
        if has_last {
            self.check_order(l, time)?;
        }
        let ll = &mut self.lists[l.index()];
        let last = ll
            .live
            .last_mut()
            .map(|e| (e.start, &mut e.end, &mut e.number));
        let Some(number) = variable_step(kind, time, v, last) else {
            return Ok(());
        };
        self.append(
            l,
            Live {
                start: time,
                end: -1.0,
                number,
                ..Live::default()
            }
            .with_extras(extras),
        );
        Ok(())
    }

    #[allow(clippy::too_many_arguments)]
    fn link(
        &mut self,
        l: ListId,
        kind: EventKind,
        time: f64,
        value: ValueId,
        other: ContainerId,
        key: &[u8],
        extras: Vec<StrId>,
        line: u64,
    ) -> R {
        let is_start = kind == EventKind::StartLink;
        // A pending key is never a used one: look at the (small) pending
        // map first, and at the (large) set of used keys only for new links.
        let ll = &mut self.lists[l.index()];
        match ll.pending.remove(key) {
            None => {
                let used = match self.used.seen(l, key) {
                    None => ll.used_keys.contains(key),
                    Some(Seen::Yes) => true,
                    Some(Seen::No) => false,
                    Some(Seen::Maybe) => {
                        self.possibly_reused(l, key, line);
                        false
                    }
                };
                if used {
                    let info = self.model.list(l);
                    return Err(SimErrorKind::KeyReused {
                        key: s(key),
                        ty: self.tname(info.ty),
                        container: self.cname(info.container),
                    });
                }
                let mut p = Live {
                    start: if is_start { time } else { -1.0 },
                    end: if is_start { -1.0 } else { time },
                    value: value.0,
                    from: if is_start { other.0 } else { NONE },
                    to: if is_start { NONE } else { other.0 },
                    ..Live::default()
                }
                .with_extras(extras);
                p.set_key(key);
                let slot = self.slab_put(p);
                self.lists[l.index()].pending.insert(key, slot);
                Ok(())
            }
            Some(slot) => {
                let mut p = self.slab_take(slot);
                if is_start {
                    p.start = time;
                    p.from = other.0;
                } else {
                    p.end = time;
                    p.to = other.0;
                }
                if !extras.is_empty() {
                    p.more
                        .get_or_insert_with(Default::default)
                        .extras
                        .extend(extras);
                }
                if p.value != value.0 {
                    let m = &self.model;
                    return Err(SimErrorKind::LinkValueMismatch {
                        this: if is_start {
                            "PajeStartLink"
                        } else {
                            "PajeEndLink"
                        },
                        other: if is_start {
                            "PajeEndLink"
                        } else {
                            "PajeStartLink"
                        },
                        key: s(key),
                        found: s(m.str(m.value(value).name)),
                        expected: s(m.str(m.value(ValueId(p.value)).name)),
                    });
                }
                self.check_order(l, if is_start { p.start } else { p.end })?;
                if !self.used.insert(l, key) {
                    self.lists[l.index()].used_keys.insert(key);
                    if let UsedKeys::Growing { left: 0, bytes } = self.used {
                        self.keys_to_filter(bytes);
                    }
                }
                self.append(l, p);
                Ok(())
            }
        }
    }

    /// The keys kept per list are too many: they go into a filter of
    /// `bytes`, and the lists' sets are freed.
    #[cold]
    fn keys_to_filter(&mut self, bytes: usize) {
        let mut filter = KeyFilter::new(bytes);
        for (i, ll) in self.lists.iter_mut().enumerate() {
            let set = std::mem::take(&mut ll.used_keys);
            for code in set.codes() {
                filter.insert_code(ListId(i as u32), code);
            }
        }
        self.used = UsedKeys::Filter(filter);
    }

    /// A key the filter has seen: the sink's to confirm, else a warning.
    #[cold]
    fn possibly_reused(&mut self, l: ListId, key: &[u8], line: u64) {
        if self.sink.possibly_reused_key(&self.model, l, key, line) {
            return;
        }
        self.possibly_reused += 1;
        if self.possibly_reused <= SHOWN_SUSPECTS {
            let info = self.model.list(l);
            self.warnings.push(format!(
                "link key '{}' of type '{}' in container '{}' possibly reused (line {line}): \
                 the input cannot be read again to confirm it",
                s(key),
                self.tname(info.ty),
                self.cname(info.container)
            ));
        }
    }

    /// The model built so far.
    pub fn model(&self) -> &Model {
        &self.model
    }

    /// The sink.
    pub fn sink(&self) -> &S {
        &self.sink
    }

    /// Events simulated so far.
    pub fn events(&self) -> u64 {
        self.events
    }

    /// Ends the trace: destroys every container still alive at the end time
    /// and returns the model, the sink and any warnings.
    pub fn finish(mut self) -> Result<(Model, S, Vec<String>), SimError> {
        let t = self
            .opts
            .stop_at
            .or(self.opts.end_time)
            .unwrap_or(self.last_time);
        if self.possibly_reused > SHOWN_SUSPECTS {
            self.warnings.push(format!(
                "… and {} more link keys possibly reused",
                self.possibly_reused - SHOWN_SUSPECTS
            ));
        }
        self.recursive_destroy(ContainerId::ROOT, t)
            .map_err(|kind| SimError {
                line: 0,
                kind,
                contents: String::new(),
            })?;
        self.sort_children();
        for &(ty, n, k, first) in &self.open_states {
            let w = format!(
                "{n} state(s) of type '{}' pushed and never popped, in {k} container(s) (the first: '{}'): each lasts until its container ends, so statistics count that time",
                self.model.label(self.model.ty(ty).name),
                self.model.label(self.model.container(first).name)
            );
            self.warnings.push(w);
        }
        let mut warnings = self.tolerated.warnings();
        warnings.append(&mut self.warnings);
        Ok((self.model, self.sink, warnings))
    }

    fn sort_children(&mut self) {
        sort_children(&mut self.model);
    }

    fn tname(&self, t: TypeId) -> String {
        s(self.model.str(self.model.ty(t).name))
    }

    fn cname(&self, c: ContainerId) -> String {
        s(self.model.str(self.model.container(c).name))
    }

    /// The stop-at time if it applies to an event at `time` on `c`.
    #[inline]
    fn stop_for(&self, c: ContainerId, time: f64) -> Option<f64> {
        match self.opts.stop_at {
            Some(stop) if c != ContainerId::ROOT && time > stop => Some(stop),
            _ => None,
        }
    }

    /// Destroys, at `time`, every container of the subtree of `c` not
    /// destroyed yet, parents before children (in the order of a
    /// depth-first walk; iterative, for trees of any depth).
    fn recursive_destroy(&mut self, c: ContainerId, time: f64) -> R {
        let mut todo = vec![c];
        while let Some(c) = todo.pop() {
            if !self.conts[c.index()].destroyed {
                self.destroy(c, time)?;
            }
            todo.extend(self.model.container(c).children.iter().rev());
        }
        Ok(())
    }

    /// Destroys `c` at `time`, and with it its children not destroyed yet,
    /// theirs, and so on (depth first, parents first; iterative).
    fn destroy(&mut self, c: ContainerId, time: f64) -> R {
        let mut todo = vec![c];
        while let Some(c) = todo.pop() {
            self.destroy_one(c, time)?;
            let children = &self.model.container(c).children;
            let conts = &self.conts;
            todo.extend(
                children
                    .iter()
                    .rev()
                    .filter(|ch| !conts[ch.index()].destroyed),
            );
        }
        Ok(())
    }

    /// Destroys `c` alone: its entities end, its container is handed over.
    fn destroy_one(&mut self, c: ContainerId, time: f64) -> R {
        self.conts[c.index()].destroyed = true;
        self.model.containers[c.index()].end = time;
        let lists: Vec<(TypeId, ListId)> = self.model.container(c).lists.clone();
        // Finish the last entity of every list.
        for &(_, l) in &lists {
            let kind = self.model.list(l).kind;
            if let Some(last) = self.lists[l.index()].live.last_mut() {
                end_at_destruction(kind, &mut last.start, &mut last.end, time);
            }
        }
        // Pending links.
        for &(_, l) in &lists {
            if self.lists[l.index()].pending.is_empty() {
                continue;
            }
            if self.opts.ignore_incomplete_links {
                let n = self.lists[l.index()].pending.len();
                self.warnings.push(format!(
                    "{n} incomplete link(s) of type '{}' in container '{}' ignored (-z)",
                    self.tname(self.model.list(l).ty),
                    self.cname(c)
                ));
                let slots: Vec<u32> = self.lists[l.index()].pending.values().collect();
                for slot in slots {
                    self.slab_take(slot);
                }
                self.lists[l.index()].pending.clear();
            } else {
                return Err(self.incomplete_links(c, l));
            }
        }
        // Close stacked states and emit everything still alive.
        for &(ty, l) in &lists {
            let ll = &mut self.lists[l.index()];
            let open = ll.stack.len() as u64 - u64::from(ll.set_base && !ll.stack.is_empty());
            if open > 0
                && self.opts.warn_open_states
                && self.opts.stop_at.is_none()
                && self.opts.end_time.is_none()
            {
                match self.open_states.iter_mut().find(|x| x.0 == ty) {
                    Some(x) => (x.1, x.2) = (x.1 + open, x.2 + 1),
                    None => self.open_states.push((ty, open, 1, c)),
                }
            }
            let stack = std::mem::take(&mut ll.stack);
            for idx in stack {
                if let Some(e) = ll.get_mut(idx) {
                    e.end = time;
                    e.stacked = false;
                }
            }
            let live = std::mem::take(&mut ll.live);
            for e in &live {
                emit(&self.model, &mut self.sink, l, e);
            }
        }
        self.sink.container(&self.model, c);
        Ok(())
    }

    fn incomplete_links(&self, c: ContainerId, l: ListId) -> SimErrorKind {
        /// Links shown in the message; the others are counted.
        const SHOWN: usize = 10;
        let ll = &self.lists[l.index()];
        let info = self.model.list(l);
        // The first links by key, found without sorting (or copying) them
        // all: a trace may leave millions open.
        let mut first: Vec<(Vec<u8>, &Live)> = Vec::with_capacity(SHOWN + 1);
        let mut buf = [0u8; 16];
        for slot in ll.pending.values() {
            let p = &self.slab[slot as usize];
            let key: &[u8] = match &p.more {
                Some(m) if !m.key_long.is_empty() => &m.key_long,
                _ => unpack(p.key, &mut buf),
            };
            if first.len() == SHOWN && first[SHOWN - 1].0.as_slice() <= key {
                continue;
            }
            let at = first.partition_point(|(k, _)| k.as_slice() <= key);
            first.insert(at, (key.to_vec(), p));
            first.truncate(SHOWN);
        }
        let name = |x: u32| {
            if x == NONE {
                "NULL".to_string()
            } else {
                self.cname(ContainerId(x))
            }
        };
        let mut list = String::new();
        for (key, p) in &first {
            list.push_str(&format!(
                "  Link, {}, {}, {}, {}, {}, {}, {}, {}\n",
                self.cname(info.container),
                self.tname(info.ty),
                fmt_time(p.start),
                fmt_time(p.end),
                s(self.model.str(self.model.value(ValueId(p.value)).name)),
                name(p.from),
                name(p.to),
                s(key)
            ));
        }
        let count = ll.pending.len();
        if count > first.len() {
            list.push_str(&format!("  … and {} more\n", count - first.len()));
        }
        list.pop();
        SimErrorKind::IncompleteLinks {
            container: self.cname(c),
            count,
            list,
        }
    }

    #[inline]
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
        self.lists.push(ListLive::default());
        self.sink.list(&self.model, l);
        l
    }

    fn check_order(&self, l: ListId, time: f64) -> R {
        if let Some(last) = self.lists[l.index()].live.last() {
            if last.start > time || (last.end != -1.0 && last.end > time) {
                let info = self.model.list(l);
                let lt = if last.start > time {
                    last.start
                } else {
                    last.end
                };
                return Err(SimErrorKind::NotTimeOrdered {
                    time: fmt_time(time),
                    last: fmt_time(lt),
                    ty: self.tname(info.ty),
                    container: self.cname(info.container),
                });
            }
        }
        Ok(())
    }

    /// Appends an entity; the previous last one becomes final unless stacked.
    fn append(&mut self, l: ListId, mut e: Live) -> u32 {
        let ll = &mut self.lists[l.index()];
        let idx = ll.next_idx;
        ll.next_idx += 1;
        e.idx = idx;
        match ll.live.last_mut() {
            // The previous last entity becomes final: hand it over, then
            // reuse its slot (no pop and push of the whole entity).
            Some(prev) if !prev.stacked => {
                emit(&self.model, &mut self.sink, l, prev);
                *prev = e;
            }
            _ => ll.live.push(e),
        }
        idx
    }

    /// Makes the live entity `idx` final if it is neither last nor stacked.
    fn settle(&mut self, l: ListId, idx: u32) {
        let ll = &mut self.lists[l.index()];
        let n = ll.live.len();
        if let Some(pos) = ll.position(idx) {
            if pos + 1 < n && !ll.live[pos].stacked {
                let e = ll.live.remove(pos);
                emit(&self.model, &mut self.sink, l, &e);
            }
        }
    }

    fn reset(&mut self, l: ListId, time: f64) {
        let ll = &mut self.lists[l.index()];
        let mut stack = std::mem::take(&mut ll.stack);
        if stack.is_empty() {
            ll.stack = stack;
            return;
        }
        for &idx in &stack {
            if let Some(e) = ll.get_mut(idx) {
                e.end = time;
                e.stacked = false;
            }
        }
        // Only stacked entities and the last one are alive: with the stack
        // emptied, all but the last are final, in creation order (one pass,
        // whatever the depth).
        let keep = ll.live.len() - 1;
        for e in ll.live.drain(..keep) {
            emit(&self.model, &mut self.sink, l, &e);
        }
        // Give the (now empty) stack its allocation back.
        stack.clear();
        ll.stack = stack;
    }

    fn pop(&mut self, l: ListId, time: f64, line: u64) -> R {
        let Some(top) = self.lists[l.index()].stack.pop() else {
            let info = self.model.list(l);
            if self.opts.lenient {
                let (ty, c) = (self.tname(info.ty), self.cname(info.container));
                self.tolerated.note(POPS_IGNORED, line, || {
                    format!("PajePopState on type '{ty}' of container '{c}' whose state stack is empty ignored")
                });
                return Ok(());
            }
            return Err(SimErrorKind::PopEmpty {
                ty: self.tname(info.ty),
                container: self.cname(info.container),
            });
        };
        let ll = &mut self.lists[l.index()];
        if let Some(e) = ll.get_mut(top) {
            e.end = time;
            e.stacked = false;
        }
        if self.opts.no_imbrication {
            // The state below was ended by the push that covered it; it
            // resumes, as a new entity, now.
            if let Some(&below) = ll.stack.last() {
                let mut resumed = None;
                if let Some(e) = ll.get_mut(below) {
                    e.stacked = false;
                    resumed = Some(
                        Live {
                            start: time,
                            end: -1.0,
                            value: e.value,
                            level: e.level,
                            stacked: true,
                            ..Live::default()
                        }
                        .with_extras(e.extras().to_vec()),
                    );
                }
                ll.stack.pop();
                if let Some(r) = resumed {
                    let idx = self.append(l, r);
                    self.lists[l.index()].stack.push(idx);
                }
                self.settle(l, below);
            }
        }
        self.settle(l, top);
        Ok(())
    }
}

/// PajeNG's rule for the last entity of a list whose container is
/// destroyed at `time` (given by its start and end): an event not placed
/// in time yet takes that time; any other entity whose end is not known
/// ends then. The engine and the replay both apply it.
#[inline]
pub(crate) fn end_at_destruction(kind: TypeKind, start: &mut f64, end: &mut f64, time: f64) {
    if kind == TypeKind::Event {
        if *start == -1.0 {
            *start = time;
            *end = time;
        }
    } else if *end == -1.0 {
        *end = time;
    }
}

/// PajeNG's rule for a variable event (`PajeSetVariable`, `PajeAddVariable`
/// or `PajeSubVariable`, `kind`) of value `v` at `time`, given the
/// variable's last value, if any, as (start, end, value): at the time that
/// value started, the event changes it in place (`None`); otherwise that
/// value ends at `time`, and the new value, to append, is returned. The
/// engine and the replay both apply it.
#[inline(always)]
pub(crate) fn variable_step(
    kind: EventKind,
    time: f64,
    v: f64,
    last: Option<(f64, &mut f64, &mut f64)>,
) -> Option<f64> {
    let mut previous = 0.0;
    if let Some((start, end, number)) = last {
        if start == time {
            match kind {
                EventKind::SetVariable => *number = v,
                EventKind::AddVariable => *number += v,
                _ => *number -= v,
            }
            return None;
        }
        *end = time;
        previous = *number;
    }
    Some(match kind {
        EventKind::SetVariable => v,
        EventKind::AddVariable => previous + v,
        _ => previous - v,
    })
}

/// Applies an operation that builds the model (a new type, value or
/// container); returns false for other operations.
pub(crate) fn apply_model(m: &mut Model, op: &Op, batch: &Batch) -> bool {
    match op {
        Op::NewType {
            kind,
            parent,
            start_type,
            end_type,
            name,
            alias,
            color,
        } => {
            let name_id = m.strings.intern(text(batch, *name));
            let alias_id = m.strings.intern(text(batch, *alias));
            let color = m.strings.intern(text(batch, *color));
            let ident = if alias.len == 0 { *name } else { *alias };
            let id = TypeId(m.types.len() as u32);
            m.types.push(TypeInfo {
                name: name_id,
                alias: alias_id,
                kind: *kind,
                parent: Some(*parent),
                depth: m.types[parent.index()].depth + 1,
                start_type: *start_type,
                end_type: *end_type,
                color,
                children: Vec::new(),
            });
            m.values_by_type.push(IdMap::default());
            m.type_by_ident.insert(text(batch, ident), id);
            let mut children = std::mem::take(&mut m.types[parent.index()].children);
            let types = &m.types;
            Model::insert_sorted(&m.strings, &mut children, id, |t| types[t.index()].ident());
            m.types[parent.index()].children = children;
            true
        }
        Op::NewValue {
            ty,
            name,
            alias,
            color,
            ..
        } => {
            let id = ValueId(m.values.len() as u32);
            let name_id = m.strings.intern(text(batch, *name));
            let alias_id = m.strings.intern(text(batch, *alias));
            let color = m.strings.intern(text(batch, *color));
            m.values.push(ValueInfo {
                ty: *ty,
                name: name_id,
                alias: alias_id,
                color,
            });
            let ident = if alias.len == 0 { *name } else { *alias };
            m.values_by_type[ty.index()].insert(text(batch, ident), id);
            true
        }
        Op::NewContainer {
            time,
            ty,
            parent,
            name,
            alias,
            extras,
        } => {
            let extras = intern_extras(m, batch, *extras);
            let id = ContainerId(m.containers.len() as u32);
            let name_id = m.strings.intern(text(batch, *name));
            let alias_id = m.strings.intern(text(batch, *alias));
            let depth = m.containers[parent.index()].depth + 1;
            m.containers.push(ContainerInfo {
                name: name_id,
                alias: alias_id,
                ty: *ty,
                parent: Some(*parent),
                start: *time,
                end: -1.0,
                depth,
                extras,
                children: Vec::new(),
                lists: Vec::new(),
            });
            m.containers[parent.index()].children.push(id);
            let ident = if alias.len == 0 { *name } else { *alias };
            m.container_by_ident.insert(text(batch, ident), id);
            true
        }
        _ => false,
    }
}

/// Interns the user-defined fields of an operation as (name, value) pairs.
pub(crate) fn intern_extras(m: &mut Model, batch: &Batch, x: Extras) -> Vec<StrId> {
    if x.count == 0 {
        return Vec::new();
    }
    let strings = &mut m.strings;
    let mut v = Vec::with_capacity(2 * x.count as usize);
    for &(n, val) in &batch.extras[x.start as usize..(x.start + x.count) as usize] {
        v.push(strings.intern(text(batch, n)));
        v.push(strings.intern(text(batch, val)));
    }
    v
}

/// Sorts every container's children by identifier (PajeNG's order).
pub(crate) fn sort_children(m: &mut Model) {
    let strings = &m.strings;
    let conts = &m.containers;
    let mut all: Vec<Vec<ContainerId>> = conts.iter().map(|c| c.children.clone()).collect();
    for ch in &mut all {
        ch.sort_by(|a, b| {
            strings
                .get(conts[a.index()].ident())
                .cmp(strings.get(conts[b.index()].ident()))
        });
    }
    for (c, ch) in m.containers.iter_mut().zip(all) {
        c.children = ch;
    }
}

fn emit<S: Sink>(model: &Model, sink: &mut S, l: ListId, e: &Live) {
    let mut buf = [0u8; 16];
    let key: &[u8] = match &e.more {
        Some(m) if !m.key_long.is_empty() => &m.key_long,
        _ if e.key != 0 => unpack(e.key, &mut buf),
        _ => &[],
    };
    sink.entity(
        model,
        l,
        e.idx,
        &Entity {
            start: e.start,
            end: e.end,
            value: ValueId(e.value),
            number: e.number,
            level: e.level,
            extras: e.extras(),
            key,
            from: (e.from != NONE).then_some(ContainerId(e.from)),
            to: (e.to != NONE).then_some(ContainerId(e.to)),
        },
    );
}

fn fmt_time(t: f64) -> String {
    let mut v = Vec::new();
    trama_num::write_fixed(&mut v, t, 6);
    String::from_utf8(v).unwrap_or_default()
}
