//! The state a replay goes on from (what a keyframe holds): the
//! containers, and per entity list the entities not final yet.

use hashbrown::HashTable;
use smallvec::SmallVec;

use super::{Pending, NONE};
use crate::idmap::{pack, unpack};
use crate::model::TypeKind;

/// The tag (top byte) of a [`Live::key`] that indexes a long key.
const LONG: u128 = 0xff << 120;

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

impl Live {
    /// An entity from `start` to `end` of `value`, with `extras`, that is
    /// not a link.
    #[inline(always)]
    pub(crate) fn new(start: f64, end: f64, value: u32, extras: (u32, u32)) -> Live {
        Live {
            start,
            end,
            value,
            from: NONE,
            to: NONE,
            extras,
            ..Live::default()
        }
    }
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
