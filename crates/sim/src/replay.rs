//! Replay: the engine's semantics on events already resolved to handles,
//! starting from a snapshot of its state.
//!
//! [`Replay`] applies what the [`crate::Simulator`] does with its default
//! options (with or without `-z`) to [`ReplayEvent`]s whose references are
//! handles, starting from a [`ReplayState`]: the containers created and
//! alive, and per entity list the entities that are not final yet (the
//! state stack and the last entity, the pending links). A binary trace
//! stores such a state before its blocks (a *keyframe*), so that its blocks
//! can be simulated independently, in parallel; the state reached at the
//! end of a block must equal the next keyframe, which proves that the
//! pieces add up to the simulation of the whole trace.
//!
//! The engine keeps, per list, the entities that are not final in creation
//! order; they are always the stacked states and, after them, at most one
//! entity that is the list's last and is not stacked (a popped state, the
//! current value of a variable, the last event or link). A replay keeps
//! exactly that: a stack and a tail.
//!
//! A replay does not report errors itself: on anything the reference
//! engine would reject (or that its options do not cover, such as a second
//! destruction of a container) it gives up with a [`Bail`], and the caller
//! simulates again with the reference engine, which names the error.
//!
//! Links are numbered per list, in the order of their first ends; the
//! second end of a link names its pending first end by how many first ends
//! of its list came since (binary traces store that instead of the key
//! again), so that the events of a list can be replayed without those of
//! the others. A replay fed with keys ([`Replay::with_key_index`]) pairs
//! the ends by key, as the engine does, and numbers them the same way.
//! Link events on destroyed containers are ignored and not numbered.
//!
//! Link keys need the whole trace: a key cannot be used again once its
//! link is complete. A replay records a hash of every link's *first end*
//! (the event that makes it pending) in [`Replay::first_ends`]; the keys
//! of a list are all different exactly when no key was reused, which the
//! caller checks over every block at the end ([`has_duplicates`]).

use std::hash::BuildHasher;

use hashbrown::HashTable;
use smallvec::SmallVec;
use trama_events::EventKind;

use crate::idmap::{pack, unpack};
use crate::model::{ContainerId, Model, TypeKind};
pub use crate::pending::Pending;

/// "No handle" (a link end not known yet, an event without value).
pub const NONE: u32 = u32::MAX;

/// The tag (top byte) of a [`Live::key`] that indexes a long key.
const LONG: u128 = 0xff << 120;

type Fast = foldhash::fast::FixedState;

fn fast() -> Fast {
    Fast::with_seed(0x7265_706c)
}

/// A key of at most 15 bytes packed one-to-one into an integer (`None`
/// for longer ones).
#[inline]
pub fn pack_key(key: &[u8]) -> Option<u128> {
    pack(key)
}

/// The hash of a link key.
#[inline]
pub fn key_hash(key: &[u8]) -> u64 {
    match pack(key) {
        Some(p) => fast().hash_one(p),
        None => fast().hash_one(key),
    }
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

/// A link's key as an entity keeps it: its bytes packed when at most 15
/// long ([`pack`](crate::idmap::pack)), else where they lie in the state.
/// Two words rather than a `u128`, so that an entity is aligned on 8 bytes
/// (72 bytes instead of 80, and no padding in `Option<Live>`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Key([u64; 2]);

impl From<u128> for Key {
    #[inline(always)]
    fn from(k: u128) -> Key {
        Key([k as u64, (k >> 64) as u64])
    }
}

impl From<Key> for u128 {
    #[inline(always)]
    fn from(k: Key) -> u128 {
        k.0[0] as u128 | (k.0[1] as u128) << 64
    }
}

/// An entity that is not final yet, as the engine keeps it.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
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
    /// Key of a link: packed when at most 15 bytes long, else the index of
    /// its bytes in the state ([`ReplayState::key`] gives them).
    pub key: Key,
    /// User-defined fields: a range of [`ReplayState::extras`] holding
    /// `[name, value, …]` codes (opaque to the replay).
    pub extras: (u32, u32),
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
    /// The stacked states, bottom first.
    pub stack: Vec<Live>,
    /// The last entity, when it is not stacked and not final.
    pub tail: Option<Live>,
    /// Links whose first end was seen so far: the number of the next one.
    pub links: u64,
    /// Links with one end seen, by number.
    pub pending: Pending,
    /// For replays fed with keys: the pending links' numbers by the hash
    /// of their keys (not part of the state a keyframe holds).
    pub by_key: HashTable<(u64, u64)>,
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
            stack: Vec::new(),
            tail: None,
            links: 0,
            pending: Pending::default(),
            by_key: HashTable::new(),
        }
    }

    /// The last entity not final (the tail, else the top of the stack).
    #[inline]
    pub fn last(&self) -> Option<&Live> {
        self.tail.as_ref().or(self.stack.last())
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
    pub lists: SmallVec<[(u32, u32); 4]>,
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
    /// The user-defined fields of entities, see [`Live::extras`].
    pub extras: Vec<u32>,
    /// The bytes of keys longer than 15 bytes, see [`Live::key`].
    pub long_keys: Vec<u8>,
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
                lists: SmallVec::new(),
            }],
            lists: Vec::new(),
            list_count: 0,
            extras: Vec::new(),
            long_keys: Vec::new(),
        }
    }

    /// The earliest time an entity open now is known by: the start of
    /// entities whose end is not known, the known end of pending links
    /// (infinity when none). No entity started before it is still open.
    pub fn open_min(&self) -> f64 {
        let mut m = f64::INFINITY;
        for (_, l) in self.live_lists() {
            for e in l.stack.iter().chain(&l.tail) {
                if e.end == -1.0 {
                    m = m.min(e.start);
                }
            }
            for (_, p) in l.pending.iter() {
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

    /// The bytes of a key.
    #[inline]
    pub fn key<'a>(&'a self, key: Key, buf: &'a mut [u8; 16]) -> &'a [u8] {
        let key = u128::from(key);
        if key & LONG == LONG {
            let off = (key as u64) as usize;
            let len = ((key >> 64) as u32) as usize;
            self.long_keys.get(off..off + len).unwrap_or(&[])
        } else {
            unpack(key, buf)
        }
    }

    /// The key of these bytes (a long one is stored in the state).
    pub fn make_key(&mut self, b: &[u8]) -> Key {
        match pack(b) {
            Some(p) => p.into(),
            None => {
                let off = self.long_keys.len() as u128;
                self.long_keys.extend_from_slice(b);
                (LONG | (b.len() as u128) << 64 | off).into()
            }
        }
    }

    /// The user-defined fields of an entity.
    #[inline]
    pub fn extras_of(&self, e: &Live) -> &[u32] {
        let (o, n) = (e.extras.0 as usize, e.extras.1 as usize);
        self.extras.get(o..o + n).unwrap_or(&[])
    }

    /// Stores user-defined fields; returns their range.
    #[inline(always)]
    pub fn put_extras(&mut self, x: &[u32]) -> (u32, u32) {
        if x.is_empty() {
            return (0, 0);
        }
        let o = self.extras.len() as u32;
        self.extras.extend_from_slice(x);
        (o, x.len() as u32)
    }

    /// Adds a pending link to list `l` (a state read back from a keyframe).
    #[inline(always)]
    pub fn insert_pending(&mut self, l: usize, number: u64, e: Live) {
        self.lists[l].pending.insert(number, e);
    }

    /// Drops the user-defined fields and long keys of entities that are
    /// final (they pile up as a replay goes).
    pub fn compact(&mut self) {
        let mut extras = Vec::new();
        let mut keys = Vec::new();
        let (old_x, old_k) = (
            std::mem::take(&mut self.extras),
            std::mem::take(&mut self.long_keys),
        );
        let mut fix = |e: &mut Live| {
            let (o, n) = (e.extras.0 as usize, e.extras.1 as usize);
            if n > 0 {
                e.extras.0 = extras.len() as u32;
                extras.extend_from_slice(&old_x[o..o + n]);
            }
            let key = u128::from(e.key);
            if key & LONG == LONG {
                let off = (key as u64) as usize;
                let len = ((key >> 64) as u32) as usize;
                let at = keys.len() as u128;
                keys.extend_from_slice(&old_k[off..off + len]);
                e.key = (LONG | (len as u128) << 64 | at).into();
            }
        };
        for l in &mut self.lists {
            for e in l.stack.iter_mut().chain(l.tail.as_mut()) {
                fix(e);
            }
            for (_, p) in l.pending.iter_mut() {
                fix(p);
            }
        }
        self.extras = extras;
        self.long_keys = keys;
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
    /// The pending link this event completes, when known: how many first
    /// ends of its list came since that link's (≥ 1; else the key tells,
    /// see [`Replay::with_key_index`]).
    pub pair: Option<u64>,
    /// User-defined fields, `[name, value, …]` codes.
    pub extras: &'a [u32],
}

/// A final entity, as handed to a [`ReplaySink`].
pub struct Final<'a> {
    /// Its list.
    pub list: u32,
    /// The nature of the list's type.
    pub kind: TypeKind,
    /// The entity.
    pub e: &'a Live,
    /// The state it lived in (for [`ReplayState::key`] and
    /// [`ReplayState::extras_of`]).
    pub state: &'a ReplayState,
}

/// Receives entities once final.
pub trait ReplaySink {
    /// An entity is final.
    fn entity(&mut self, f: &Final<'_>);
}

impl ReplaySink for () {
    #[inline]
    fn entity(&mut self, _: &Final<'_>) {}
}

impl<S: ReplaySink + ?Sized> ReplaySink for &mut S {
    #[inline]
    fn entity(&mut self, f: &Final<'_>) {
        (**self).entity(f)
    }
}

/// Counts entities by nature.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct CountSink {
    by_kind: [u64; 5],
}

fn kind_index(k: TypeKind) -> usize {
    match k {
        TypeKind::Container => 0,
        TypeKind::State => 1,
        TypeKind::Event => 2,
        TypeKind::Variable => 3,
        TypeKind::Link => 4,
    }
}

impl CountSink {
    /// Adds another count.
    pub fn add(&mut self, o: &CountSink) {
        for (a, b) in self.by_kind.iter_mut().zip(o.by_kind) {
            *a += b;
        }
    }

    /// States.
    pub fn states(&self) -> u64 {
        self.by_kind[1]
    }

    /// Events.
    pub fn events(&self) -> u64 {
        self.by_kind[2]
    }

    /// Variable values.
    pub fn variables(&self) -> u64 {
        self.by_kind[3]
    }

    /// Links.
    pub fn links(&self) -> u64 {
        self.by_kind[4]
    }
}

impl ReplaySink for CountSink {
    #[inline]
    fn entity(&mut self, f: &Final<'_>) {
        self.by_kind[kind_index(f.kind)] += 1;
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
    /// Pair link ends by key (else a second end comes with its number).
    key_index: bool,
    /// The last list an event went to: container, type, nature, list
    /// (`u32::MAX` for none). Events come in runs on one list (a binary
    /// trace stores them so): the next one most often goes there too, and
    /// is then known alive without a look-up. Cleared when a container is
    /// destroyed.
    hint: (u32, u32, TypeKind, u32),
}

const NO_HINT: (u32, u32, TypeKind, u32) = (u32::MAX, u32::MAX, TypeKind::Container, u32::MAX);

#[inline]
fn emit<S: ReplaySink>(sink: &mut S, state: &ReplayState, list: u32, kind: TypeKind, e: &Live) {
    sink.entity(&Final {
        list,
        kind,
        e,
        state,
    });
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
            key_index: false,
            hint: NO_HINT,
        }
    }

    /// Pairs link ends by their keys, as the engine does (for events read
    /// from text). The state must not hold pending links yet.
    pub fn with_key_index(mut self) -> Replay<S> {
        self.key_index = true;
        self
    }

    /// A model record with no effect on entities (a stream's declaration).
    pub fn model_record(&mut self) {
        self.state.model_cursor += 1;
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
            lists: SmallVec::new(),
        });
        Ok(())
    }

    /// Sets the time of the last event to `time`, an event of container
    /// `c` (whose last event it is, when alive): after events replayed
    /// out of trace order, the times as trace order leaves them.
    pub fn set_last_time(&mut self, c: u32, time: f64) {
        self.state.last_time = time;
        if let Some(cs) = self.state.containers.get_mut(c as usize) {
            if cs.alive {
                cs.end = time;
            }
        }
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
        self.hint = NO_HINT;
        let st = &mut self.state;
        let cs = &mut st.containers[c as usize];
        cs.alive = false;
        cs.end = time;
        self.destroyed.push((c, time));
        let lists = cs.lists.clone();
        // Finish the last entity of every list.
        for &(_, li) in &lists {
            let ls = &mut st.lists[li as usize];
            let kind = ls.kind;
            let last = match &mut ls.tail {
                Some(t) => Some(t),
                None => ls.stack.last_mut(),
            };
            if let Some(last) = last {
                if kind == TypeKind::Event {
                    if last.start == -1.0 {
                        last.start = time;
                        last.end = time;
                    }
                } else if last.end == -1.0 {
                    last.end = time;
                }
            }
        }
        for &(_, li) in &lists {
            let ls = &mut st.lists[li as usize];
            if ls.pending.is_empty() {
                continue;
            }
            if !self.opts.ignore_incomplete_links {
                return Err(Bail("incomplete links"));
            }
            let n = ls.pending.len();
            self.warnings.push(format!(
                "{n} incomplete link(s) of type '{}' in container '{}' ignored (-z)",
                t.type_name.get(ls.ty as usize).map_or("", |s| s),
                t.cont_name.get(c as usize).map_or("", |s| s),
            ));
            ls.pending.clear();
            ls.by_key.clear();
        }
        // Close stacked states and hand over everything not final.
        for &(_, li) in &lists {
            let ls = &mut st.lists[li as usize];
            let (id, kind) = (ls.id, ls.kind);
            let mut stack = std::mem::take(&mut ls.stack);
            let tail = ls.tail.take();
            for e in &mut stack {
                e.end = time;
            }
            for e in stack.iter().chain(&tail) {
                emit(&mut self.sink, st, id, kind, e);
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

    /// Checks a new list's type against its container and the event, and
    /// creates it.
    #[cold]
    fn new_list(&mut self, t: &ReplayTables, c: u32, ty: u32, kind: TypeKind) -> R<usize> {
        let st = &mut self.state;
        if ty >= st.types
            || t.type_kind.get(ty as usize) != Some(&kind)
            || t.type_parent.get(ty as usize) != t.cont_ty.get(c as usize)
        {
            return Err(Bail("type does not fit the event or the container"));
        }
        let l = st.lists.len();
        let id = st.list_count;
        st.list_count += 1;
        st.lists.push(ListState::new(id, c, ty, kind));
        st.containers[c as usize].lists.push((ty, l as u32));
        self.new_lists.push(NewList {
            id,
            container: c,
            ty,
            kind,
        });
        Ok(l)
    }

    /// The checks of an event on a destroyed container (no list is made).
    #[cold]
    fn check_type(&self, t: &ReplayTables, c: u32, ty: u32, kind: TypeKind) -> R {
        let (c, ty) = (c as usize, ty as usize);
        if ty >= self.state.types as usize
            || t.type_kind.get(ty) != Some(&kind)
            || t.type_parent.get(ty) != t.cont_ty.get(c)
        {
            return Err(Bail("type does not fit the event or the container"));
        }
        Ok(())
    }

    /// An entity event (states, events, variables, links).
    #[inline]
    pub fn entity(&mut self, t: &ReplayTables, ev: &ReplayEvent<'_>) -> R {
        let (c, ty, time) = (ev.container, ev.ty, ev.time);
        match ev.kind {
            EventKind::NewEvent => self.new_event(t, c, ty, ev.value, time, ev.extras),
            EventKind::SetState => self.set_state(t, c, ty, ev.value, time, ev.extras),
            EventKind::PushState => self.push_state(t, c, ty, ev.value, time, ev.extras),
            EventKind::PopState => self.pop_state(t, c, ty, time),
            EventKind::ResetState => self.reset_state(t, c, ty, time),
            EventKind::SetVariable | EventKind::AddVariable | EventKind::SubVariable => {
                self.variable_event(t, ev.kind, c, ty, time, ev.number, ev.extras)
            }
            EventKind::StartLink | EventKind::EndLink => self.link_event(
                t,
                ev.kind == EventKind::StartLink,
                c,
                ty,
                ev.value,
                ev.other,
                time,
                ev.key,
                ev.pair,
                ev.extras,
            ),
            _ => Err(Bail("not an entity event")),
        }
    }

    /// The list an event of nature `kind` on (`c`, `ty`) goes to, made on
    /// first use; `None` when the container is destroyed (the event is
    /// ignored). Sets the time of the last event.
    #[inline(always)]
    fn list_of(
        &mut self,
        t: &ReplayTables,
        c: u32,
        ty: u32,
        kind: TypeKind,
        time: f64,
    ) -> R<Option<usize>> {
        self.state.last_time = time;
        let (hc, hty, hkind, hl) = self.hint;
        if c == hc && ty == hty && kind == hkind {
            return Ok(Some(hl as usize));
        }
        let Some(cs) = self.state.containers.get(c as usize) else {
            return Err(Bail("handle out of range"));
        };
        if !cs.alive {
            self.check_type(t, c, ty, kind)?;
            return Ok(None);
        }
        let l = match cs.lists.iter().find(|(x, _)| *x == ty) {
            Some(&(_, l)) if self.state.lists[l as usize].kind == kind => l as usize,
            Some(_) => return Err(Bail("type does not fit the event or the container")),
            None => self.new_list(t, c, ty, kind)?,
        };
        self.hint = (c, ty, kind, l as u32);
        Ok(Some(l))
    }

    /// The value of a state, event or link event belongs to its type.
    #[inline(always)]
    fn check_value(&self, t: &ReplayTables, ty: u32, value: u32) -> R {
        if value >= self.state.values || t.value_ty.get(value as usize) != Some(&ty) {
            return Err(Bail("value out of range"));
        }
        Ok(())
    }

    /// `PajeNewEvent`.
    #[inline(always)]
    pub fn new_event(
        &mut self,
        t: &ReplayTables,
        c: u32,
        ty: u32,
        value: u32,
        time: f64,
        extras: &[u32],
    ) -> R {
        self.check_value(t, ty, value)?;
        let Some(l) = self.list_of(t, c, ty, TypeKind::Event, time)? else {
            return Ok(());
        };
        self.check_order(l, time)?;
        let extras = self.state.put_extras(extras);
        self.append(
            l,
            Live {
                start: time,
                end: time,
                value,
                from: NONE,
                to: NONE,
                extras,
                ..Live::default()
            },
        );
        self.state.containers[c as usize].end = time;
        Ok(())
    }

    /// `PajePushState`.
    #[inline(always)]
    pub fn push_state(
        &mut self,
        t: &ReplayTables,
        c: u32,
        ty: u32,
        value: u32,
        time: f64,
        extras: &[u32],
    ) -> R {
        self.check_value(t, ty, value)?;
        let Some(l) = self.list_of(t, c, ty, TypeKind::State, time)? else {
            return Ok(());
        };
        self.check_order(l, time)?;
        let level = self.state.lists[l].stack.last().map_or(0, |x| x.level + 1);
        let extras = self.state.put_extras(extras);
        self.push(
            l,
            Live {
                start: time,
                end: -1.0,
                value,
                level,
                from: NONE,
                to: NONE,
                extras,
                ..Live::default()
            },
        );
        self.state.containers[c as usize].end = time;
        Ok(())
    }

    /// `PajeSetState`.
    #[inline(always)]
    pub fn set_state(
        &mut self,
        t: &ReplayTables,
        c: u32,
        ty: u32,
        value: u32,
        time: f64,
        extras: &[u32],
    ) -> R {
        self.check_value(t, ty, value)?;
        let Some(l) = self.list_of(t, c, ty, TypeKind::State, time)? else {
            return Ok(());
        };
        self.check_order(l, time)?;
        self.reset(l, time);
        let extras = self.state.put_extras(extras);
        self.push(
            l,
            Live {
                start: time,
                end: -1.0,
                value,
                level: 0,
                from: NONE,
                to: NONE,
                extras,
                ..Live::default()
            },
        );
        self.state.containers[c as usize].end = time;
        Ok(())
    }

    /// `PajePopState`.
    #[inline(always)]
    pub fn pop_state(&mut self, t: &ReplayTables, c: u32, ty: u32, time: f64) -> R {
        let Some(l) = self.list_of(t, c, ty, TypeKind::State, time)? else {
            return Ok(());
        };
        self.check_order(l, time)?;
        self.pop(l, time)?;
        self.state.containers[c as usize].end = time;
        Ok(())
    }

    /// `PajeResetState`.
    #[inline(always)]
    pub fn reset_state(&mut self, t: &ReplayTables, c: u32, ty: u32, time: f64) -> R {
        let Some(l) = self.list_of(t, c, ty, TypeKind::State, time)? else {
            return Ok(());
        };
        self.check_order(l, time)?;
        self.reset(l, time);
        self.state.containers[c as usize].end = time;
        Ok(())
    }

    /// `PajeSetVariable`, `PajeAddVariable` or `PajeSubVariable` (`kind`).
    #[inline(always)]
    #[allow(clippy::too_many_arguments)]
    pub fn variable_event(
        &mut self,
        t: &ReplayTables,
        kind: EventKind,
        c: u32,
        ty: u32,
        time: f64,
        number: f64,
        extras: &[u32],
    ) -> R {
        let Some(l) = self.list_of(t, c, ty, TypeKind::Variable, time)? else {
            return Ok(());
        };
        self.variable(l, kind, time, number, extras)?;
        self.state.containers[c as usize].end = time;
        Ok(())
    }

    /// `PajeStartLink` (`start`) or `PajeEndLink`.
    #[inline(always)]
    #[allow(clippy::too_many_arguments)]
    pub fn link_event(
        &mut self,
        t: &ReplayTables,
        start: bool,
        c: u32,
        ty: u32,
        value: u32,
        other: u32,
        time: f64,
        key: &[u8],
        pair: Option<u64>,
        extras: &[u32],
    ) -> R {
        let o = other as usize;
        let want = if start {
            t.type_start.get(ty as usize)
        } else {
            t.type_end.get(ty as usize)
        };
        if o >= self.state.containers.len() || t.cont_ty.get(o) != want {
            return Err(Bail("link end of the wrong type"));
        }
        self.check_value(t, ty, value)?;
        let Some(l) = self.list_of(t, c, ty, TypeKind::Link, time)? else {
            return Ok(());
        };
        let pair = match pair {
            Some(back) => match self.state.lists[l].links.checked_sub(back) {
                Some(n) if back > 0 => Some(n),
                _ => return Err(Bail("link end pairs with no pending link")),
            },
            None if self.key_index => self.find_by_key(l, key),
            None => None,
        };
        match pair {
            Some(n) => self.link_second(l, n, start, value, other, time, extras)?,
            None => self.link_first(l, key, start, value, other, time, extras),
        }
        self.state.containers[c as usize].end = time;
        Ok(())
    }

    #[inline(always)]
    fn check_order(&self, l: usize, time: f64) -> R {
        if let Some(last) = self.state.lists[l].last() {
            if last.start > time || (last.end != -1.0 && last.end > time) {
                return Err(Bail("not in time order"));
            }
        }
        Ok(())
    }

    /// Appends an unstacked entity: it becomes the tail; the previous tail
    /// is final.
    #[inline(always)]
    fn append(&mut self, l: usize, mut e: Live) {
        // The previous tail is handed to the sink where it lies: copied
        // out right after a field of it changed, it would be read back
        // from a half-forwarded store.
        let st = &self.state;
        let ls = &st.lists[l];
        e.idx = ls.next_idx;
        if let Some(prev) = &ls.tail {
            emit(&mut self.sink, st, ls.id, ls.kind, prev);
        }
        let ls = &mut self.state.lists[l];
        ls.next_idx += 1;
        ls.tail = Some(e);
    }

    /// Pushes a state: the previous tail is final.
    #[inline(always)]
    fn push(&mut self, l: usize, mut e: Live) {
        let st = &self.state;
        let ls = &st.lists[l];
        e.idx = ls.next_idx;
        if let Some(prev) = &ls.tail {
            emit(&mut self.sink, st, ls.id, ls.kind, prev);
        }
        let ls = &mut self.state.lists[l];
        ls.next_idx += 1;
        ls.tail = None;
        ls.stack.push(e);
    }

    /// Ends every stacked state: all final but the list's last one.
    fn reset(&mut self, l: usize, time: f64) {
        let st = &mut self.state;
        let ls = &mut st.lists[l];
        if ls.stack.is_empty() {
            return;
        }
        let (id, kind) = (ls.id, ls.kind);
        let mut stack = std::mem::take(&mut ls.stack);
        if ls.tail.is_none() {
            // The top stays, as the list's last entity: its end is set
            // where it lands.
            ls.tail = stack.pop();
            if let Some(t) = &mut ls.tail {
                t.end = time;
            }
        }
        for e in &mut stack {
            e.end = time;
            emit(&mut self.sink, st, id, kind, e);
        }
        stack.clear();
        st.lists[l].stack = stack;
    }

    #[inline(always)]
    fn pop(&mut self, l: usize, time: f64) -> R {
        let st = &mut self.state;
        let ls = &mut st.lists[l];
        let Some(mut e) = ls.stack.pop() else {
            return Err(Bail("pop of an empty stack"));
        };
        if ls.tail.is_none() {
            // The popped state is the list's last: not final yet (its end
            // is set where it lands).
            ls.tail.insert(e).end = time;
        } else {
            e.end = time;
            let (id, kind) = (ls.id, ls.kind);
            emit(&mut self.sink, st, id, kind, &e);
        }
        Ok(())
    }

    #[inline(always)]
    fn variable(&mut self, l: usize, kind: EventKind, time: f64, v: f64, extras: &[u32]) -> R {
        let ls = &mut self.state.lists[l];
        let has_last = ls.next_idx > 0;
        if kind != EventKind::SetVariable && !has_last {
            return Err(Bail("variable changed before it was set"));
        }
        let mut previous = 0.0;
        if let Some(last) = &mut ls.tail {
            if last.start > time || (last.end != -1.0 && last.end > time) {
                return Err(Bail("not in time order"));
            }
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
        let extras = self.state.put_extras(extras);
        self.append(
            l,
            Live {
                start: time,
                end: -1.0,
                number,
                value: NONE,
                from: NONE,
                to: NONE,
                extras,
                ..Live::default()
            },
        );
        Ok(())
    }

    /// The number of the link pending in list `l` under `key`.
    fn find_by_key(&self, l: usize, key: &[u8]) -> Option<u64> {
        let st = &self.state;
        let ls = &st.lists[l];
        let h = key_hash(key);
        let mut buf = [0u8; 16];
        ls.by_key
            .find(h, |&(kh, n)| {
                kh == h
                    && ls
                        .pending
                        .get(n)
                        .is_some_and(|p| st.key(p.key, &mut buf) == key)
            })
            .map(|&(_, n)| n)
    }

    /// A link's first end: it is pending until its other end comes.
    #[inline(always)]
    #[allow(clippy::too_many_arguments)]
    fn link_first(
        &mut self,
        l: usize,
        key: &[u8],
        is_start: bool,
        value: u32,
        other: u32,
        time: f64,
        extras: &[u32],
    ) {
        let st = &mut self.state;
        let n = st.lists[l].links;
        st.lists[l].links += 1;
        let h = key_hash(key);
        self.first_ends
            .push(h ^ (st.lists[l].id as u64).wrapping_mul(0x9e37_79b9_7f4a_7c15));
        let key = st.make_key(key);
        let extras = st.put_extras(extras);
        let p = Live {
            start: if is_start { time } else { -1.0 },
            end: if is_start { -1.0 } else { time },
            value,
            from: if is_start { other } else { NONE },
            to: if is_start { NONE } else { other },
            key,
            extras,
            ..Live::default()
        };
        st.insert_pending(l, n, p);
        if self.key_index {
            st.lists[l].by_key.insert_unique(h, (h, n), |(h, _)| *h);
        }
    }

    /// A link's second end, completing pending link `n`.
    #[inline(always)]
    #[allow(clippy::too_many_arguments)]
    fn link_second(
        &mut self,
        l: usize,
        n: u64,
        is_start: bool,
        value: u32,
        other: u32,
        time: f64,
        extras: &[u32],
    ) -> R {
        let st = &mut self.state;
        let ls = &mut st.lists[l];
        let Some(mut p) = ls.pending.remove(n) else {
            return Err(Bail("link end pairs with no pending link"));
        };
        if self.key_index {
            let mut buf = [0u8; 16];
            let h = key_hash(st.key(p.key, &mut buf));
            if let Ok(e) = st.lists[l].by_key.find_entry(h, |&(_, x)| x == n) {
                e.remove();
            }
        }
        if is_start {
            p.start = time;
            p.from = other;
        } else {
            p.end = time;
            p.to = other;
        }
        if !extras.is_empty() {
            let mut x = st.extras_of(&p).to_vec();
            x.extend_from_slice(extras);
            p.extras = st.put_extras(&x);
        }
        if p.value != value {
            return Err(Bail("link ends with different values"));
        }
        self.check_order(l, time)?;
        self.append(l, p);
        Ok(())
    }
}

/// Hashes of links' first ends ([`Replay::first_ends`]), spread over 256
/// buckets by their top bits so that [`has_duplicates`] checks buckets in
/// parallel, each small enough to stay in cache.
#[derive(Clone, Debug)]
pub struct FirstEnds {
    buckets: Vec<Vec<u64>>,
}

impl Default for FirstEnds {
    fn default() -> Self {
        FirstEnds {
            buckets: vec![Vec::new(); 256],
        }
    }
}

impl FirstEnds {
    /// Adds hashes.
    pub fn add(&mut self, hashes: &[u64]) {
        for &h in hashes {
            self.buckets[(h >> 56) as usize].push(h);
        }
    }

    /// Number of hashes.
    pub fn len(&self) -> usize {
        self.buckets.iter().map(|b| b.len()).sum()
    }

    /// True when empty.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// True when two of the hashes gathered in `parts` are equal: a link key
/// may have been reused (or, very rarely, two keys hash alike), and the
/// reference engine must decide. Buckets are checked on `threads` threads
/// (the caller's and `threads - 1` more), each taking the next bucket not
/// taken until one finds a duplicate.
pub fn has_duplicates(parts: &[FirstEnds], threads: usize) -> bool {
    use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
    let total: usize = parts.iter().map(FirstEnds::len).sum();
    if total < 2 {
        return false;
    }
    // Small sets are not worth a thread.
    let threads = if total < 1 << 14 { 1 } else { threads };
    let next = AtomicUsize::new(0);
    let found = AtomicBool::new(false);
    let work = || {
        let mut table = Vec::new();
        while !found.load(Ordering::Relaxed) {
            let b = next.fetch_add(1, Ordering::Relaxed);
            if b >= 256 {
                break;
            }
            if bucket_has_duplicates(parts, b, &mut table) {
                found.store(true, Ordering::Relaxed);
            }
        }
    };
    std::thread::scope(|scope| {
        for _ in 1..threads.max(1) {
            scope.spawn(work);
        }
        work();
    });
    found.into_inner()
}

/// True when two hashes of bucket `b` of `parts` are equal; `table` is
/// scratch space.
fn bucket_has_duplicates(parts: &[FirstEnds], b: usize, table: &mut Vec<u64>) -> bool {
    let n: usize = parts.iter().map(|p| p.buckets[b].len()).sum();
    if n < 2 {
        return false;
    }
    // Open addressing, linear probing; 0 marks an empty slot (a zero hash
    // is stored as 1, which at worst reports a duplicate that is not one:
    // the reference engine then decides).
    let size = (2 * n).next_power_of_two();
    let mask = size - 1;
    table.clear();
    table.resize(size, 0);
    for p in parts {
        for &h in &p.buckets[b] {
            let h = h.max(1);
            // The top byte is the bucket's: spread with the low bits.
            let mut i = (h.wrapping_mul(0x9e37_79b9_7f4a_7c15) >> 32) as usize & mask;
            loop {
                match table[i] {
                    0 => {
                        table[i] = h;
                        break;
                    }
                    x if x == h => return true,
                    _ => i = (i + 1) & mask,
                }
            }
        }
    }
    false
}
