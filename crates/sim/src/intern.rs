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

#[cfg(test)]
mod tests {
    use super::*;

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
