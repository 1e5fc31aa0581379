//! Maps from identifier bytes to handles, fast for short identifiers.
//!
//! Identifiers of up to 15 bytes (nearly all of them: `p12`, `S`,
//! `MPI_Send`) are packed with their length into a `u128` and hashed as an
//! integer: no allocation, no `memcmp`. Longer ones go to an ordinary map.

use std::hash::BuildHasher;

use hashbrown::{HashMap, HashSet};

type Fast = foldhash::fast::FixedState;

/// Packs an identifier of at most 15 bytes with its length (in the top
/// byte) into a `u128`, one-to-one. Overlapping unaligned loads avoid a
/// byte-by-byte copy (and the store-forwarding stall it causes).
#[inline]
pub fn pack(s: &[u8]) -> Option<u128> {
    let n = s.len();
    let len = (n as u128) << 120;
    let body: u128 = if n >= 8 {
        if n > 15 {
            return None;
        }
        let a = u64::from_le_bytes(s[..8].try_into().unwrap()) as u128;
        let b = u64::from_le_bytes(s[n - 8..].try_into().unwrap());
        // Bytes 8..n are the top n-8 bytes of b.
        let hi = if n == 8 {
            0
        } else {
            (b >> (8 * (16 - n))) as u128
        };
        a | hi << 64
    } else if n >= 4 {
        let a = u32::from_le_bytes(s[..4].try_into().unwrap()) as u128;
        let b = u32::from_le_bytes(s[n - 4..].try_into().unwrap());
        let hi = if n == 4 {
            0
        } else {
            (b >> (8 * (8 - n))) as u128
        };
        a | hi << 32
    } else if n > 0 {
        s[0] as u128 | (s[n / 2] as u128) << 8 | (s[n - 1] as u128) << 16
    } else {
        0
    };
    Some(body | len)
}

/// Unpacks what [`pack`] made into `buf`, returning the bytes.
#[inline]
pub fn unpack(k: u128, buf: &mut [u8; 16]) -> &[u8] {
    let n = (k >> 120) as usize;
    let body = k & ((1u128 << 120) - 1);
    let b = body.to_le_bytes();
    if n >= 8 {
        buf[..8].copy_from_slice(&b[..8]);
        buf[8..n].copy_from_slice(&b[8..n]);
    } else if n >= 4 {
        buf[..n].copy_from_slice(&b[..n]);
    } else if n > 0 {
        buf[0] = b[0];
        buf[n / 2] = b[1];
        buf[n - 1] = b[2];
    }
    &buf[..n]
}

/// A map from identifier bytes to `V`.
#[derive(Clone, Debug)]
pub struct IdMap<V> {
    short: HashMap<u128, V, Fast>,
    long: HashMap<Box<[u8]>, V, Fast>,
}

impl<V> Default for IdMap<V> {
    fn default() -> Self {
        let s = Fast::with_seed(0x7472_616d);
        IdMap {
            short: HashMap::with_hasher(s),
            long: HashMap::with_hasher(s),
        }
    }
}

impl<V> IdMap<V> {
    /// The value of `k`.
    #[inline]
    pub fn get(&self, k: &[u8]) -> Option<&V> {
        match pack(k) {
            Some(p) => self.short.get(&p),
            None => self.long.get(k),
        }
    }

    /// Is `k` present?
    #[inline]
    pub fn contains_key(&self, k: &[u8]) -> bool {
        self.get(k).is_some()
    }

    /// Inserts or replaces.
    #[inline]
    pub fn insert(&mut self, k: &[u8], v: V) {
        match pack(k) {
            Some(p) => {
                self.short.insert(p, v);
            }
            None => {
                self.long.insert(k.into(), v);
            }
        }
    }

    /// Removes and returns the value of `k`.
    #[inline]
    pub fn remove(&mut self, k: &[u8]) -> Option<V> {
        match pack(k) {
            Some(p) => self.short.remove(&p),
            None => self.long.remove(k),
        }
    }

    /// Number of entries.
    pub fn len(&self) -> usize {
        self.short.len() + self.long.len()
    }

    /// True when empty.
    pub fn is_empty(&self) -> bool {
        self.short.is_empty() && self.long.is_empty()
    }

    /// Removes everything.
    pub fn clear(&mut self) {
        self.short.clear();
        self.long.clear();
    }

    /// The values, in no particular order.
    pub fn values(&self) -> impl Iterator<Item = &V> {
        self.short.values().chain(self.long.values())
    }
}

/// A set of identifiers, 8 bytes per entry: identifiers of up to 7 bytes
/// are stored exactly (bytes and length in a `u64`), longer ones by a
/// 64-bit SipHash (a false "already present" needs a 64-bit collision within
/// one (container, link type): negligible).
#[derive(Clone, Debug)]
pub struct KeySet {
    exact: HashSet<u64, Fast>,
    hashed: HashSet<u64, Fast>,
    hasher: std::hash::BuildHasherDefault<std::collections::hash_map::DefaultHasher>,
}

impl Default for KeySet {
    fn default() -> Self {
        let s = Fast::with_seed(0x6b65_7973);
        KeySet {
            exact: HashSet::with_hasher(s),
            hashed: HashSet::with_hasher(s),
            hasher: Default::default(),
        }
    }
}

impl KeySet {
    #[inline]
    fn small(k: &[u8]) -> Option<u64> {
        if k.len() > 7 {
            return None;
        }
        // `pack` keeps bytes in the low 56 bits for lengths below 8.
        let p = pack(k)? as u64 & ((1 << 56) - 1);
        Some(p | (k.len() as u64) << 56)
    }

    /// Is `k` in the set?
    #[inline]
    pub fn contains(&self, k: &[u8]) -> bool {
        match Self::small(k) {
            Some(p) => self.exact.contains(&p),
            None => self.hashed.contains(&self.hasher.hash_one(k)),
        }
    }

    /// Adds `k`.
    #[inline]
    pub fn insert(&mut self, k: &[u8]) {
        match Self::small(k) {
            Some(p) => {
                self.exact.insert(p);
            }
            None => {
                let h = self.hasher.hash_one(k);
                self.hashed.insert(h);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn packing_is_one_to_one() {
        let mut seen = std::collections::HashMap::new();
        let alphabet = [b'a', b'b', 0u8];
        // Every string of length <= 5 over a 3-letter alphabet, plus longer ones.
        let mut all: Vec<Vec<u8>> = vec![vec![]];
        for _ in 0..5 {
            let mut next = Vec::new();
            for s in all.iter().filter(|s| s.len() == all.last().unwrap().len()) {
                for &c in &alphabet {
                    let mut t = s.clone();
                    t.push(c);
                    next.push(t);
                }
            }
            all.extend(next);
        }
        for n in 6..=15 {
            for i in 0..n {
                let mut v = vec![b'x'; n];
                v[i] = b'y';
                all.push(v);
            }
        }
        for s in &all {
            let k = pack(s).unwrap();
            if let Some(prev) = seen.insert(k, s.clone()) {
                assert_eq!(&prev, s, "collision");
            }
        }
    }

    #[test]
    fn short_and_long_keys() {
        let mut m = IdMap::default();
        let long = b"a-rather-long-identifier-of-a-container";
        m.insert(b"p1", 1);
        m.insert(b"", 2);
        m.insert(b"\0", 3);
        m.insert(long, 4);
        m.insert(b"123456789012345", 5);
        m.insert(b"1234567890123456", 6);
        assert_eq!(m.get(b"p1"), Some(&1));
        assert_eq!(m.get(b""), Some(&2));
        assert_eq!(m.get(b"\0"), Some(&3));
        assert_eq!(m.get(long), Some(&4));
        assert_eq!(m.get(b"123456789012345"), Some(&5));
        assert_eq!(m.get(b"1234567890123456"), Some(&6));
        assert_eq!(m.get(b"p2"), None);
        assert_eq!(m.remove(b"p1"), Some(1));
        assert_eq!(m.len(), 5);
        let mut buf = [0; 16];
        for n in 0..=15 {
            let k: Vec<u8> = (0..n as u8).map(|i| b'a' + i).collect();
            assert_eq!(unpack(pack(&k).unwrap(), &mut buf), &k[..]);
        }
        assert!(pack(b"1234567890123456").is_none());

        let mut s = KeySet::default();
        s.insert(b"k1");
        s.insert(long);
        s.insert(b"1234567");
        s.insert(b"12345678");
        assert!(s.contains(b"k1") && s.contains(long) && !s.contains(b"k2"));
        assert!(s.contains(b"1234567") && s.contains(b"12345678"));
        assert!(!s.contains(b"123456") && !s.contains(b"k1\0") && !s.contains(b""));
        s.insert(b"");
        assert!(s.contains(b""));
    }
}
