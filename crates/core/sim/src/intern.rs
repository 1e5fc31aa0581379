//! String interning: every name, alias, value and key is stored once.

use std::hash::BuildHasher;

use hashbrown::HashTable;

/// Handle of an interned string.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Default)]
pub struct StrId(pub u32);

impl StrId {
    /// The empty string, always present.
    pub const EMPTY: StrId = StrId(0);

    /// This string, or `other` when this one is empty.
    #[inline]
    pub fn or(self, other: StrId) -> StrId {
        if self == StrId::EMPTY {
            other
        } else {
            self
        }
    }
}

/// An append-only string table: bytes live in one buffer, handles are indexes.
#[derive(Clone)]
pub struct Interner {
    bytes: Vec<u8>,
    ends: Vec<u32>,
    table: HashTable<u32>,
    hasher: foldhash::fast::FixedState,
}

impl std::fmt::Debug for Interner {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Interner({} strings)", self.len())
    }
}

impl Default for Interner {
    fn default() -> Self {
        let mut i = Interner {
            bytes: Vec::new(),
            ends: Vec::new(),
            table: HashTable::new(),
            hasher: foldhash::fast::FixedState::with_seed(0x7261_6d61),
        };
        i.intern(b"");
        i
    }
}

impl Interner {
    #[inline]
    fn hash(&self, s: &[u8]) -> u64 {
        self.hasher.hash_one(s)
    }

    #[inline]
    fn slice<'a>(bytes: &'a [u8], ends: &[u32], i: u32) -> &'a [u8] {
        let end = ends[i as usize] as usize;
        let start = if i == 0 {
            0
        } else {
            ends[i as usize - 1] as usize
        };
        &bytes[start..end]
    }

    /// The handle of `s`, adding it if new.
    #[inline]
    pub fn intern(&mut self, s: &[u8]) -> StrId {
        let h = self.hash(s);
        let (bytes, ends) = (&self.bytes, &self.ends);
        if let Some(&i) = self.table.find(h, |&i| Self::slice(bytes, ends, i) == s) {
            return StrId(i);
        }
        let id = self.ends.len() as u32;
        self.bytes.extend_from_slice(s);
        self.ends.push(self.bytes.len() as u32);
        let (bytes, ends, hasher) = (&self.bytes, &self.ends, &self.hasher);
        self.table
            .insert_unique(h, id, |&i| hasher.hash_one(Self::slice(bytes, ends, i)));
        StrId(id)
    }

    /// The handle of `s` if it was interned.
    #[inline]
    pub fn lookup(&self, s: &[u8]) -> Option<StrId> {
        let h = self.hash(s);
        self.table
            .find(h, |&i| Self::slice(&self.bytes, &self.ends, i) == s)
            .map(|&i| StrId(i))
    }

    /// The bytes of a handle.
    #[inline]
    pub fn get(&self, id: StrId) -> &[u8] {
        Self::slice(&self.bytes, &self.ends, id.0)
    }

    /// The string of a handle, lossily decoded.
    pub fn get_str(&self, id: StrId) -> std::borrow::Cow<'_, str> {
        String::from_utf8_lossy(self.get(id))
    }

    /// Number of distinct strings.
    pub fn len(&self) -> usize {
        self.ends.len()
    }

    /// Always false: the empty string is always present.
    pub fn is_empty(&self) -> bool {
        false
    }

    /// Approximate heap bytes used.
    pub fn heap_bytes(&self) -> usize {
        self.bytes.capacity() + self.ends.capacity() * 4 + self.table.capacity() * 5
    }
}

/// The top bit of a [`StrId`] of the [`Scratch`] strings.
const SCRATCH: u32 = 1 << 31;

/// Strings needed only while their entity is alive: the user-defined
/// values of entities handed to a sink that does not keep them (a
/// streamed dump). Interned apart (their handles have the top bit set)
/// and forgotten when they pile up ([`Scratch::compact`] keeps those of
/// the entities still alive), so memory does not grow with the number of
/// distinct values.
#[derive(Clone, Debug, Default)]
pub(crate) struct Scratch {
    strings: Interner,
    /// Strings held before compacting: twice what survived the last
    /// compaction, at least [`Scratch::MIN`].
    limit: usize,
}

impl Scratch {
    /// Strings held before the first compaction.
    const MIN: usize = 1 << 16;

    /// Whether `id` is a scratch string's.
    #[inline]
    pub fn holds(id: StrId) -> bool {
        id.0 & SCRATCH != 0
    }

    /// The handle of `s`, adding it if new.
    #[inline]
    pub fn intern(&mut self, s: &[u8]) -> StrId {
        StrId(self.strings.intern(s).0 | SCRATCH)
    }

    /// The bytes of a scratch handle.
    #[inline]
    pub fn get(&self, id: StrId) -> &[u8] {
        self.strings.get(StrId(id.0 & !SCRATCH))
    }

    /// Time to compact?
    #[inline]
    pub fn full(&self) -> bool {
        self.strings.len() >= self.limit.max(Self::MIN)
    }

    /// Keeps only the strings of the scratch handles among `ids`, which
    /// are renumbered in place.
    pub fn compact<'a>(&mut self, ids: impl Iterator<Item = &'a mut StrId>) {
        let mut kept = Interner::default();
        for id in ids.filter(|id| Self::holds(**id)) {
            *id = StrId(kept.intern(self.get(*id)).0 | SCRATCH);
        }
        self.limit = 2 * kept.len();
        self.strings = kept;
    }

    /// Strings held.
    #[cfg(test)]
    pub fn len(&self) -> usize {
        self.strings.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scratch_strings_are_forgotten_but_those_still_used() {
        let mut s = Scratch::default();
        let mut alive = [s.intern(b"kept"), s.intern(b"")];
        for i in 0..Scratch::MIN {
            s.intern(format!("v{i}").as_bytes());
        }
        assert!(s.full());
        assert!(alive.iter().all(|&id| Scratch::holds(id)));
        s.compact(alive.iter_mut());
        assert_eq!(s.get(alive[0]), b"kept");
        assert_eq!(s.get(alive[1]), b"");
        assert!(s.len() <= 3, "{}", s.len());
        assert!(!s.full());
    }

    #[test]
    fn interning_is_stable() {
        let mut i = Interner::default();
        assert_eq!(i.intern(b""), StrId::EMPTY);
        let a = i.intern(b"rank-1");
        let b = i.intern(b"rank-2");
        assert_ne!(a, b);
        assert_eq!(i.intern(b"rank-1"), a);
        assert_eq!(i.get(b), b"rank-2");
        assert_eq!(i.lookup(b"rank-3"), None);
        for k in 0..10_000 {
            i.intern(format!("k{k}").as_bytes());
        }
        assert_eq!(i.get(a), b"rank-1");
        assert_eq!(i.lookup(b"k9999").map(|id| i.get(id)), Some(&b"k9999"[..]));
        assert_eq!(i.len(), 3 + 10_000);
    }
}
