//! Replay: the engine's semantics on events already resolved to handles,
//! starting from a snapshot of its state.
//!
//! [`Replay`] applies what the [`crate::Simulator`] does with its default
//! options (with or without `-z`) to [`ReplayEvent`]s whose references are
//! handles, starting from a [`ReplayState`]: the containers created and
//! alive, and per entity list the entities that are not final yet (the
//! state stack, the last entity, the pending links). A binary trace stores
//! such a state before its blocks (a *keyframe*), so that its blocks can be
//! simulated independently, in parallel; the state reached at the end of a
//! block must equal the next keyframe, which proves that the pieces add up
//! to the simulation of the whole trace.
//!
//! A replay does not report errors itself: on anything the reference
//! engine would reject (or that its options do not cover, such as a second
//! destruction of a container) it gives up with a [`Bail`], and the caller
//! simulates again with the reference engine, which names the error.
//!
//! Link keys need the whole trace: a key cannot be used again once its
//! link is complete. A replay records a hash of every link's *first end*
//! (the event that makes it pending) in [`Replay::first_ends`]; the keys
//! of a list are all different exactly when no key was reused, which the
//! caller checks over every block at the end ([`has_duplicates`]).

use std::hash::BuildHasher;

use hashbrown::HashMap;
use smallvec::SmallVec;
use trama_events::EventKind;

use crate::idmap::{pack, unpack};
use crate::model::{ContainerId, Model, TypeKind};

/// "No handle" (a link end not known yet, an event without value).
pub const NONE: u32 = u32::MAX;

type Fast = foldhash::fast::FixedState;

fn fast() -> Fast {
    Fast::with_seed(0x7265_706c)
}

/// Why a replay gave up; the reference engine must simulate the trace to
/// tell what is wrong (or to cover what the replay does not).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Bail(pub &'static str);

impl std::fmt::Display for Bail {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.0)
    }
}

type R<T = ()> = Result<T, Bail>;

/// A link key: packed with its length when at most 15 bytes long (as the
/// engine does), else its bytes.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum LinkKey {
    /// A key of at most 15 bytes, packed one-to-one into an integer.
    Packed(u128),
    /// A longer key.
    Long(Box<[u8]>),
}

impl Default for LinkKey {
    fn default() -> Self {
        LinkKey::Packed(0)
    }
}

impl LinkKey {
    /// The key of these bytes.
    #[inline]
    pub fn new(b: &[u8]) -> LinkKey {
        match pack(b) {
            Some(p) => LinkKey::Packed(p),
            None => LinkKey::Long(b.into()),
        }
    }

    /// The key's bytes.
    #[inline]
    pub fn bytes<'a>(&'a self, buf: &'a mut [u8; 16]) -> &'a [u8] {
        match self {
            LinkKey::Packed(p) => unpack(*p, buf),
            LinkKey::Long(b) => b,
        }
    }
}

/// User-defined fields of an entity as `[name, value, name, value, …]`
/// codes, opaque to the replay (the caller maps them to strings).
pub type Extras = SmallVec<[u32; 2]>;

/// An entity that is not final yet, as the engine keeps it.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Live {
    /// Creation index in its list.
    pub idx: u32,
    /// Start time (-1 when not known yet).
    pub start: f64,
    /// End time (-1 when not known yet).
    pub end: f64,
    /// Value of a variable.
    pub number: f64,
    /// Value of a state, event or link ([`NONE`] for variables).
    pub value: u32,
    /// Nesting level of a state.
    pub level: u32,
    /// Start container of a link ([`NONE`] when not known yet).
    pub from: u32,
    /// End container of a link ([`NONE`] when not known yet).
    pub to: u32,
    /// On its list's state stack.
    pub stacked: bool,
    /// Key of a link.
    pub key: LinkKey,
    /// User-defined fields (`[name, value, …]` codes).
    pub extras: Extras,
}

/// The state of one entity list: what is not final yet.
#[derive(Clone, Debug)]
pub struct ListState {
    /// The list's handle (creation order over the whole trace).
    pub id: u32,
    /// Its container.
    pub container: u32,
    /// Its type.
    pub ty: u32,
    /// The nature of its type.
    pub kind: TypeKind,
    /// Entities created so far (the next one's index).
    pub next_idx: u32,
    /// Entities not final, in creation order: the stacked states and the
    /// last entity.
    pub live: Vec<Live>,
    /// Indexes of the stacked states, bottom first.
    pub stack: Vec<u32>,
    /// Links with one end seen, by key.
    pub pending: HashMap<LinkKey, Live, Fast>,
}

impl ListState {
    /// An empty list.
    pub fn new(id: u32, container: u32, ty: u32, kind: TypeKind) -> ListState {
        ListState {
            id,
            container,
            ty,
            kind,
            next_idx: 0,
            live: Vec::new(),
            stack: Vec::new(),
            pending: HashMap::with_hasher(fast()),
        }
    }
}

/// The state of one container.
#[derive(Clone, Debug, Default)]
pub struct ContainerState {
    /// Created and not destroyed.
    pub alive: bool,
    /// The time of its last event (-1 before any); its destruction time
    /// once destroyed.
    pub end: f64,
    /// Its lists: (type, index in [`ReplayState::lists`]).
    pub lists: Vec<(u32, u32)>,
}

/// Everything a replay needs to go on from a point of the trace.
#[derive(Clone, Debug)]
pub struct ReplayState {
    /// Model records (definitions, containers, first uses of values)
    /// applied so far.
    pub model_cursor: u64,
    /// Types defined so far (the root type included). Follows from
    /// `model_cursor`.
    pub types: u32,
    /// Values created so far. Follows from `model_cursor`.
    pub values: u32,
    /// The time of the last event.
    pub last_time: f64,
    /// Every container created so far, by handle (the root first).
    pub containers: Vec<ContainerState>,
    /// Lists in creation order (those of destroyed containers may be
    /// missing: only their number counts).
    pub lists: Vec<ListState>,
    /// Lists created so far: the handle of the next one.
    pub list_count: u32,
}

impl Default for ReplayState {
    fn default() -> Self {
        ReplayState::new()
    }
}

impl ReplayState {
    /// The state at the beginning of a trace: the root type and container.
    pub fn new() -> ReplayState {
        ReplayState {
            model_cursor: 0,
            types: 1,
            values: 0,
            last_time: -1.0,
            containers: vec![ContainerState {
                alive: true,
                end: -1.0,
                lists: Vec::new(),
            }],
            lists: Vec::new(),
            list_count: 0,
        }
    }

    /// The earliest time an entity open now is known by: the start of
    /// entities whose end is not known, the known end of pending links
    /// (infinity when none). No entity started before it is still open.
    pub fn open_min(&self) -> f64 {
        let mut m = f64::INFINITY;
        for (c, l) in self.live_lists() {
            let _ = c;
            for e in &l.live {
                if e.end == -1.0 {
                    m = m.min(e.start);
                }
            }
            for p in l.pending.values() {
                m = m.min(if p.start == -1.0 { p.end } else { p.start });
            }
        }
        m
    }

    /// The lists of alive containers, in creation order.
    pub fn live_lists(&self) -> impl Iterator<Item = (u32, &ListState)> + '_ {
        self.lists.iter().filter_map(|l| {
            let alive = self
                .containers
                .get(l.container as usize)
                .is_some_and(|c| c.alive);
            alive.then_some((l.container, l))
        })
    }
}

/// The parts of a model a replay checks events against, in flat tables.
#[derive(Clone, Debug, Default)]
pub struct ReplayTables {
    type_kind: Vec<TypeKind>,
    type_parent: Vec<u32>,
    type_start: Vec<u32>,
    type_end: Vec<u32>,
    type_name: Vec<String>,
    cont_ty: Vec<u32>,
    cont_name: Vec<String>,
    children: Vec<Vec<u32>>,
    value_ty: Vec<u32>,
}

impl ReplayTables {
    /// Tables of `model`.
    pub fn new(model: &Model) -> ReplayTables {
        let mut t = ReplayTables::default();
        t.sync(model);
        t
    }

    /// Adds what `model` has gained since the last call (types, values and
    /// containers are only ever added).
    pub fn sync(&mut self, model: &Model) {
        let name = |id| String::from_utf8_lossy(model.str(id)).into_owned();
        for ty in &model.types[self.type_kind.len()..] {
            self.type_kind.push(ty.kind);
            self.type_parent.push(ty.parent.map_or(NONE, |p| p.0));
            self.type_start.push(ty.start_type.map_or(NONE, |p| p.0));
            self.type_end.push(ty.end_type.map_or(NONE, |p| p.0));
            self.type_name.push(name(ty.name));
        }
        for v in &model.values[self.value_ty.len()..] {
            self.value_ty.push(v.ty.0);
        }
        let first = self.cont_ty.len();
        for (i, c) in model.containers.iter().enumerate().skip(first) {
            self.cont_ty.push(c.ty.0);
            self.cont_name.push(name(c.name));
            self.children.push(Vec::new());
            if let Some(p) = c.parent {
                if let Some(ch) = self.children.get_mut(p.index()) {
                    ch.push(i as u32);
                }
            }
        }
    }

    /// Number of types.
    pub fn types(&self) -> usize {
        self.type_kind.len()
    }

    /// The nature of a type.
    pub fn type_kind(&self, ty: u32) -> Option<TypeKind> {
        self.type_kind.get(ty as usize).copied()
    }

    /// The type of a container.
    pub fn container_type(&self, c: u32) -> Option<u32> {
        self.cont_ty.get(c as usize).copied()
    }

    /// The type a value belongs to.
    pub fn value_type(&self, v: u32) -> Option<u32> {
        self.value_ty.get(v as usize).copied()
    }
}

/// An entity event given by handles.
#[derive(Clone, Copy, Debug)]
pub struct ReplayEvent<'a> {
    /// One of the ten entity event kinds.
    pub kind: EventKind,
    /// Its time (0 when its definition has none).
    pub time: f64,
    /// The container.
    pub container: u32,
    /// The type.
    pub ty: u32,
    /// The value of a state, event or link.
    pub value: u32,
    /// The other end of a link.
    pub other: u32,
    /// The value of a variable event, as `strtof` reads it.
    pub number: f64,
    /// The key of a link.
    pub key: &'a [u8],
    /// User-defined fields, `[name, value, …]` codes.
    pub extras: &'a [u32],
}

/// Receives entities once final.
pub trait ReplaySink {
    /// Entity `e` of list `list` (of nature `kind`) is final.
    fn entity(&mut self, list: u32, kind: TypeKind, e: &Live);
}

impl ReplaySink for () {
    #[inline]
    fn entity(&mut self, _: u32, _: TypeKind, _: &Live) {}
}

/// Counts entities by nature.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct CountSink {
    /// States.
    pub states: u64,
    /// Events.
    pub events: u64,
    /// Variable values.
    pub variables: u64,
    /// Links.
    pub links: u64,
}

impl CountSink {
    /// Adds another count.
    pub fn add(&mut self, o: &CountSink) {
        self.states += o.states;
        self.events += o.events;
        self.variables += o.variables;
        self.links += o.links;
    }
}

impl ReplaySink for CountSink {
    #[inline]
    fn entity(&mut self, _: u32, kind: TypeKind, _: &Live) {
        match kind {
            TypeKind::State => self.states += 1,
            TypeKind::Event => self.events += 1,
            TypeKind::Variable => self.variables += 1,
            TypeKind::Link => self.links += 1,
            TypeKind::Container => {}
        }
    }
}

/// Options of a replay.
#[derive(Clone, Copy, Debug, Default)]
#[non_exhaustive]
pub struct ReplayOptions {
    /// Drop links that never got their other end, with a warning (pj_dump
    /// `-z`), instead of giving up.
    pub ignore_incomplete_links: bool,
}

/// A list created during a replay.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct NewList {
    /// Its handle.
    pub id: u32,
    /// Its container.
    pub container: u32,
    /// Its type.
    pub ty: u32,
    /// The nature of its type.
    pub kind: TypeKind,
}

/// Replays entity events from a [`ReplayState`]; see the module docs.
pub struct Replay<S> {
    /// The current state.
    pub state: ReplayState,
    /// Where final entities go.
    pub sink: S,
    opts: ReplayOptions,
    /// Hashes of every link's first end (list and key).
    pub first_ends: Vec<u64>,
    /// Lists created by this replay.
    pub new_lists: Vec<NewList>,
    /// Containers destroyed by this replay, with the time.
    pub destroyed: Vec<(u32, f64)>,
    /// Warnings (links dropped with `-z`).
    pub warnings: Vec<String>,
    hasher: Fast,
}

fn expected_kind(kind: EventKind) -> Option<TypeKind> {
    Some(match kind {
        EventKind::NewEvent => TypeKind::Event,
        EventKind::SetState
        | EventKind::PushState
        | EventKind::PopState
        | EventKind::ResetState => TypeKind::State,
        EventKind::SetVariable | EventKind::AddVariable | EventKind::SubVariable => {
            TypeKind::Variable
        }
        EventKind::StartLink | EventKind::EndLink => TypeKind::Link,
        _ => return None,
    })
}

#[inline]
fn has_value(kind: EventKind) -> bool {
    matches!(
        kind,
        EventKind::NewEvent
            | EventKind::SetState
            | EventKind::PushState
            | EventKind::StartLink
            | EventKind::EndLink
    )
}

impl<S: ReplaySink> Replay<S> {
    /// A replay going on from `state`.
    pub fn new(state: ReplayState, sink: S, opts: ReplayOptions) -> Replay<S> {
        Replay {
            state,
            sink,
            opts,
            first_ends: Vec::new(),
            new_lists: Vec::new(),
            destroyed: Vec::new(),
            warnings: Vec::new(),
            hasher: fast(),
        }
    }

    /// A type definition (`PajeDefine*Type`).
    pub fn new_type(&mut self) {
        let st = &mut self.state;
        st.model_cursor += 1;
        st.types += 1;
        st.last_time = 0.0;
    }

    /// A new value: defined by `PajeDefineEntityValue` (an event, which
    /// sets the time to 0) or created by its first use (not an event).
    pub fn new_value(&mut self, defined: bool) {
        let st = &mut self.state;
        st.model_cursor += 1;
        st.values += 1;
        if defined {
            st.last_time = 0.0;
        }
    }

    /// `PajeCreateContainer` of container `id` (the next handle).
    pub fn new_container(&mut self, id: u32, time: f64) -> R {
        let st = &mut self.state;
        st.model_cursor += 1;
        st.last_time = time;
        if id as usize != st.containers.len() {
            return Err(Bail("container handles out of sequence"));
        }
        st.containers.push(ContainerState {
            alive: true,
            end: -1.0,
            lists: Vec::new(),
        });
        Ok(())
    }

    /// An event whose only effect is the time (`PajeTraceFile`).
    pub fn time_event(&mut self, time: f64) {
        self.state.model_cursor += 1;
        self.state.last_time = time;
    }

    /// `PajeDestroyContainer`.
    pub fn destroy_event(&mut self, t: &ReplayTables, c: u32, time: f64) -> R {
        let st = &mut self.state;
        st.model_cursor += 1;
        st.last_time = time;
        let Some(cs) = st.containers.get(c as usize) else {
            return Err(Bail("destroyed container not created"));
        };
        if time < cs.end {
            return Err(Bail("container destroyed before its last event"));
        }
        if !cs.alive {
            return Ok(());
        }
        self.destroy(t, c, time)
    }

    /// Ends the trace at `time` (by default the time of the last event):
    /// every container still alive is destroyed.
    pub fn finish(&mut self, t: &ReplayTables, time: Option<f64>) -> R {
        let time = time.unwrap_or(self.state.last_time);
        self.recursive_destroy(t, ContainerId::ROOT.0, time)
    }

    fn recursive_destroy(&mut self, t: &ReplayTables, c: u32, time: f64) -> R {
        if self.state.containers[c as usize].alive {
            self.destroy(t, c, time)?;
        }
        let n = self.state.containers.len() as u32;
        if let Some(children) = t.children.get(c as usize) {
            for &child in children.iter().take_while(|&&ch| ch < n) {
                self.recursive_destroy(t, child, time)?;
            }
        }
        Ok(())
    }

    fn destroy(&mut self, t: &ReplayTables, c: u32, time: f64) -> R {
        let Replay {
            state: st,
            sink,
            opts,
            destroyed,
            warnings,
            ..
        } = self;
        let cs = &mut st.containers[c as usize];
        cs.alive = false;
        cs.end = time;
        destroyed.push((c, time));
        let lists = &cs.lists;
        for &(_, li) in lists {
            let ls = &mut st.lists[li as usize];
            if let Some(last) = ls.live.last_mut() {
                if ls.kind == TypeKind::Event {
                    if last.start == -1.0 {
                        last.start = time;
                        last.end = time;
                    }
                } else if last.end == -1.0 {
                    last.end = time;
                }
            }
        }
        for &(_, li) in lists {
            let ls = &mut st.lists[li as usize];
            if ls.pending.is_empty() {
                continue;
            }
            if !opts.ignore_incomplete_links {
                return Err(Bail("incomplete links"));
            }
            let n = ls.pending.len();
            warnings.push(format!(
                "{n} incomplete link(s) of type '{}' in container '{}' ignored (-z)",
                t.type_name.get(ls.ty as usize).map_or("", |s| s),
                t.cont_name.get(c as usize).map_or("", |s| s),
            ));
            ls.pending.clear();
        }
        for &(_, li) in lists {
            let ls = &mut st.lists[li as usize];
            let stack = std::mem::take(&mut ls.stack);
            for idx in stack {
                if let Some(e) = ls.live.iter_mut().find(|e| e.idx == idx) {
                    e.end = time;
                    e.stacked = false;
                }
            }
            for e in std::mem::take(&mut ls.live) {
                sink.entity(ls.id, ls.kind, &e);
            }
        }
        let n = st.containers.len() as u32;
        if let Some(children) = t.children.get(c as usize) {
            for &child in children.iter().take_while(|&&ch| ch < n) {
                if self.state.containers[child as usize].alive {
                    self.destroy(t, child, time)?;
                }
            }
        }
        Ok(())
    }

    /// An entity event (states, events, variables, links).
    #[inline]
    pub fn entity(&mut self, t: &ReplayTables, ev: &ReplayEvent<'_>) -> R {
        let Some(expected) = expected_kind(ev.kind) else {
            return Err(Bail("not an entity event"));
        };
        let st = &mut self.state;
        let (c, ty) = (ev.container as usize, ev.ty as usize);
        if c >= st.containers.len() || ty >= st.types as usize {
            return Err(Bail("handle out of range"));
        }
        if t.type_kind.get(ty) != Some(&expected) || t.type_parent.get(ty) != t.cont_ty.get(c) {
            return Err(Bail("type does not fit the event or the container"));
        }
        if expected == TypeKind::Link {
            let o = ev.other as usize;
            let want = if ev.kind == EventKind::StartLink {
                t.type_start.get(ty)
            } else {
                t.type_end.get(ty)
            };
            if o >= st.containers.len() || t.cont_ty.get(o) != want {
                return Err(Bail("link end of the wrong type"));
            }
        }
        if has_value(ev.kind)
            && (ev.value >= st.values || t.value_ty.get(ev.value as usize) != Some(&ev.ty))
        {
            return Err(Bail("value out of range"));
        }
        st.last_time = ev.time;
        if !st.containers[c].alive {
            return Ok(());
        }
        let l = self.list_for(ev.container, ev.ty, expected);
        let time = ev.time;
        match ev.kind {
            EventKind::NewEvent => {
                self.check_order(l, time)?;
                self.append(
                    l,
                    Live {
                        start: time,
                        end: time,
                        value: ev.value,
                        from: NONE,
                        to: NONE,
                        extras: SmallVec::from_slice(ev.extras),
                        ..Live::default()
                    },
                );
            }
            EventKind::SetState | EventKind::PushState => {
                self.check_order(l, time)?;
                let level = if ev.kind == EventKind::SetState {
                    self.reset(l, time);
                    0
                } else {
                    let ls = &self.state.lists[l];
                    match ls.stack.last() {
                        None => 0,
                        Some(&top) => ls
                            .live
                            .iter()
                            .find(|x| x.idx == top)
                            .map_or(0, |x| x.level + 1),
                    }
                };
                let idx = self.append(
                    l,
                    Live {
                        start: time,
                        end: -1.0,
                        value: ev.value,
                        level,
                        from: NONE,
                        to: NONE,
                        stacked: true,
                        extras: SmallVec::from_slice(ev.extras),
                        ..Live::default()
                    },
                );
                self.state.lists[l].stack.push(idx);
            }
            EventKind::PopState => {
                self.check_order(l, time)?;
                self.pop(l, time)?;
            }
            EventKind::ResetState => {
                self.check_order(l, time)?;
                self.reset(l, time);
            }
            EventKind::SetVariable | EventKind::AddVariable | EventKind::SubVariable => {
                self.variable(l, ev.kind, time, ev.number, ev.extras)?;
            }
            _ => self.link(l, ev)?,
        }
        self.state.containers[c].end = time;
        Ok(())
    }

    #[inline]
    fn list_for(&mut self, c: u32, ty: u32, kind: TypeKind) -> usize {
        let st = &mut self.state;
        let cs = &mut st.containers[c as usize];
        if let Some(&(_, l)) = cs.lists.iter().find(|(t, _)| *t == ty) {
            return l as usize;
        }
        let l = st.lists.len();
        let id = st.list_count;
        st.list_count += 1;
        st.lists.push(ListState::new(id, c, ty, kind));
        cs.lists.push((ty, l as u32));
        self.new_lists.push(NewList {
            id,
            container: c,
            ty,
            kind,
        });
        l
    }

    #[inline]
    fn check_order(&self, l: usize, time: f64) -> R {
        if let Some(last) = self.state.lists[l].live.last() {
            if last.start > time || (last.end != -1.0 && last.end > time) {
                return Err(Bail("not in time order"));
            }
        }
        Ok(())
    }

    /// Appends an entity; the previous last one becomes final unless stacked.
    #[inline]
    fn append(&mut self, l: usize, mut e: Live) -> u32 {
        let ls = &mut self.state.lists[l];
        let idx = ls.next_idx;
        ls.next_idx += 1;
        e.idx = idx;
        match ls.live.last_mut() {
            Some(prev) if !prev.stacked => {
                self.sink.entity(ls.id, ls.kind, prev);
                *prev = e;
            }
            _ => ls.live.push(e),
        }
        idx
    }

    /// Makes the live entity `idx` final if it is neither last nor stacked.
    fn settle(&mut self, l: usize, idx: u32) {
        let ls = &mut self.state.lists[l];
        let n = ls.live.len();
        if let Some(pos) = ls.live.iter().position(|e| e.idx == idx) {
            if pos + 1 < n && !ls.live[pos].stacked {
                let e = ls.live.remove(pos);
                self.sink.entity(ls.id, ls.kind, &e);
            }
        }
    }

    fn reset(&mut self, l: usize, time: f64) {
        let stack = std::mem::take(&mut self.state.lists[l].stack);
        if stack.is_empty() {
            self.state.lists[l].stack = stack;
            return;
        }
        for &idx in &stack {
            if let Some(e) = self.state.lists[l].live.iter_mut().find(|e| e.idx == idx) {
                e.end = time;
                e.stacked = false;
            }
        }
        for &idx in &stack {
            self.settle(l, idx);
        }
        let mut stack = stack;
        stack.clear();
        self.state.lists[l].stack = stack;
    }

    #[inline]
    fn pop(&mut self, l: usize, time: f64) -> R {
        let ls = &mut self.state.lists[l];
        let Some(top) = ls.stack.pop() else {
            return Err(Bail("pop of an empty stack"));
        };
        if let Some(e) = ls.live.iter_mut().rev().find(|e| e.idx == top) {
            e.end = time;
            e.stacked = false;
        }
        self.settle(l, top);
        Ok(())
    }

    #[inline]
    fn variable(&mut self, l: usize, kind: EventKind, time: f64, v: f64, extras: &[u32]) -> R {
        let has_last = self.state.lists[l].next_idx > 0;
        if kind != EventKind::SetVariable && !has_last {
            return Err(Bail("variable changed before it was set"));
        }
        if has_last {
            self.check_order(l, time)?;
        }
        let ls = &mut self.state.lists[l];
        let mut previous = 0.0;
        if let Some(last) = ls.live.last_mut() {
            if last.start == time {
                match kind {
                    EventKind::SetVariable => last.number = v,
                    EventKind::AddVariable => last.number += v,
                    _ => last.number -= v,
                }
                return Ok(());
            }
            last.end = time;
            previous = last.number;
        }
        let number = match kind {
            EventKind::SetVariable => v,
            EventKind::AddVariable => previous + v,
            _ => previous - v,
        };
        self.append(
            l,
            Live {
                start: time,
                end: -1.0,
                number,
                value: NONE,
                from: NONE,
                to: NONE,
                extras: SmallVec::from_slice(extras),
                ..Live::default()
            },
        );
        Ok(())
    }

    #[inline]
    fn link(&mut self, l: usize, ev: &ReplayEvent<'_>) -> R {
        let is_start = ev.kind == EventKind::StartLink;
        let time = ev.time;
        let key = LinkKey::new(ev.key);
        let ls = &mut self.state.lists[l];
        match ls.pending.remove(&key) {
            None => {
                self.first_ends.push(self.hasher.hash_one((ls.id, &key)));
                let p = Live {
                    start: if is_start { time } else { -1.0 },
                    end: if is_start { -1.0 } else { time },
                    value: ev.value,
                    from: if is_start { ev.other } else { NONE },
                    to: if is_start { NONE } else { ev.other },
                    extras: SmallVec::from_slice(ev.extras),
                    key: key.clone(),
                    ..Live::default()
                };
                ls.pending.insert(key, p);
                Ok(())
            }
            Some(mut p) => {
                if is_start {
                    p.start = time;
                    p.from = ev.other;
                } else {
                    p.end = time;
                    p.to = ev.other;
                }
                p.extras.extend_from_slice(ev.extras);
                if p.value != ev.value {
                    return Err(Bail("link ends with different values"));
                }
                self.check_order(l, time)?;
                self.append(l, p);
                Ok(())
            }
        }
    }
}

/// True when two of `hashes` are equal. Takes the vectors of
/// [`Replay::first_ends`] of every part of a trace; equal hashes mean a
/// link key may have been reused (or, very rarely, two keys hash alike):
/// the reference engine must then decide.
pub fn has_duplicates(mut parts: Vec<Vec<u64>>) -> bool {
    const BITS: u32 = 8;
    let total: usize = parts.iter().map(|p| p.len()).sum();
    if total < 2 {
        return false;
    }
    // Partition by the top bits, then sort each (small) bucket.
    let mut buckets: Vec<Vec<u64>> = (0..1 << BITS)
        .map(|_| Vec::with_capacity(total >> BITS << 1))
        .collect();
    for p in &mut parts {
        for &h in p.iter() {
            buckets[(h >> (64 - BITS)) as usize].push(h);
        }
        *p = Vec::new();
    }
    buckets.into_iter().any(|mut b| {
        b.sort_unstable();
        b.windows(2).any(|w| w[0] == w[1])
    })
}
