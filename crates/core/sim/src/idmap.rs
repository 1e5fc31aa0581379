//! Maps from identifier bytes to handles, fast for short identifiers.
//!
//! Identifiers of up to 15 bytes (nearly all of them: `p12`, `S`,
//! `MPI_Send`) are packed with their length into a `u128` and hashed as an
//! integer: no allocation, no `memcmp`. Longer ones go to an ordinary map.

use std::hash::BuildHasher;

use hashbrown::{HashMap, HashSet};

type Fast = foldhash::fast::FixedState;

/// The `n` bytes of `s`, `W <= n < 2 * W` (`W` is the size of `$t`), as
/// an integer (little-endian): two loads of a `$t`, the second one
/// overlapping the first unless `n` is `W`. A macro rather than a generic
/// function: each width compiles to its own loads and shifts.
macro_rules! two_loads {
    ($s:expr, $n:expr, $t:ty, $w:expr) => {{
        let (s, n): (&[u8], usize) = ($s, $n);
        let a = <$t>::from_le_bytes(s[..$w].try_into().unwrap()) as u128;
        let b = <$t>::from_le_bytes(s[n - $w..].try_into().unwrap());
        // Bytes W..n are the top n-W bytes of b.
        let hi = if n == $w {
            0
        } else {
            (b >> (8 * (2 * $w - n))) as u128
        };
        a | hi << (8 * $w)
    }};
}

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
        two_loads!(s, n, u64, 8)
    } else if n >= 4 {
        two_loads!(s, n, u32, 4)
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

/// An open-addressing table from packed identifiers to `V`: linear probing,
/// multiplicative hashing, load at most 1/2, deletion by backward shift.
/// The packed key 0 (the empty identifier) is kept aside, 0 marks free slots.
#[derive(Clone, Debug)]
struct PackedTable<V> {
    keys: Vec<u128>,
    vals: Vec<V>,
    len: usize,
    shift: u32,
    empty_key: Option<V>,
}

impl<V: Copy + Default> PackedTable<V> {
    fn new() -> Self {
        PackedTable {
            keys: Vec::new(),
            vals: Vec::new(),
            len: 0,
            shift: 64,
            empty_key: None,
        }
    }

    #[inline(always)]
    fn home(&self, k: u128) -> usize {
        let x = (k as u64) ^ ((k >> 64) as u64).rotate_left(31);
        (x.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> self.shift) as usize
    }

    #[inline]
    fn get(&self, k: u128) -> Option<V> {
        if k == 0 {
            return self.empty_key;
        }
        self.slot_of(k).map(|i| self.vals[i])
    }

    /// The slot of key `k` (not 0), by linear probing from its home.
    #[inline(always)]
    fn slot_of(&self, k: u128) -> Option<usize> {
        if self.keys.is_empty() {
            return None;
        }
        let mask = self.keys.len() - 1;
        let mut i = self.home(k);
        loop {
            let slot = self.keys[i];
            if slot == k {
                return Some(i);
            }
            if slot == 0 {
                return None;
            }
            i = (i + 1) & mask;
        }
    }

    fn grow(&mut self) {
        let cap = (self.keys.len() * 2).max(16);
        let old_keys = std::mem::replace(&mut self.keys, vec![0; cap]);
        let old_vals = std::mem::replace(&mut self.vals, vec![V::default(); cap]);
        self.shift = 64 - cap.trailing_zeros();
        for (k, v) in old_keys.into_iter().zip(old_vals) {
            if k != 0 {
                self.place(k, v);
            }
        }
    }

    #[inline]
    fn place(&mut self, k: u128, v: V) -> Option<V> {
        let mask = self.keys.len() - 1;
        let mut i = self.home(k);
        loop {
            let slot = self.keys[i];
            if slot == k {
                return Some(std::mem::replace(&mut self.vals[i], v));
            }
            if slot == 0 {
                self.keys[i] = k;
                self.vals[i] = v;
                return None;
            }
            i = (i + 1) & mask;
        }
    }

    #[inline]
    fn insert(&mut self, k: u128, v: V) {
        if k == 0 {
            if self.empty_key.replace(v).is_none() {
                self.len += 1;
            }
            return;
        }
        if 2 * (self.len + 1) > self.keys.len() {
            self.grow();
        }
        if self.place(k, v).is_none() {
            self.len += 1;
        }
    }

    #[inline]
    fn remove(&mut self, k: u128) -> Option<V> {
        if k == 0 {
            let v = self.empty_key.take();
            if v.is_some() {
                self.len -= 1;
            }
            return v;
        }
        let mut i = self.slot_of(k)?;
        let mask = self.keys.len() - 1;
        let v = self.vals[i];
        self.len -= 1;
        // Backward-shift deletion: pull later entries of the cluster back
        // unless their home lies cyclically in (i, j].
        let mut j = i;
        loop {
            j = (j + 1) & mask;
            let kj = self.keys[j];
            if kj == 0 {
                break;
            }
            let h = self.home(kj);
            let between = if i <= j {
                i < h && h <= j
            } else {
                i < h || h <= j
            };
            if !between {
                self.keys[i] = kj;
                self.vals[i] = self.vals[j];
                i = j;
            }
        }
        self.keys[i] = 0;
        Some(v)
    }

    fn clear(&mut self) {
        self.keys.iter_mut().for_each(|k| *k = 0);
        self.len = 0;
        self.empty_key = None;
    }

    fn values(&self) -> impl Iterator<Item = V> + '_ {
        self.keys
            .iter()
            .zip(&self.vals)
            .filter(|(k, _)| **k != 0)
            .map(|(_, v)| *v)
            .chain(self.empty_key)
    }
}

/// A map from identifier bytes to `V`.
#[derive(Clone, Debug)]
pub struct IdMap<V> {
    short: PackedTable<V>,
    long: HashMap<Box<[u8]>, V, Fast>,
}

impl<V: Copy + Default> Default for IdMap<V> {
    fn default() -> Self {
        IdMap {
            short: PackedTable::new(),
            long: HashMap::with_hasher(Fast::with_seed(0x7472_616d)),
        }
    }
}

impl<V: Copy + Default> IdMap<V> {
    /// The value of `k`.
    #[inline]
    pub fn get(&self, k: &[u8]) -> Option<V> {
        match pack(k) {
            Some(p) => self.short.get(p),
            None => self.long.get(k).copied(),
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
            Some(p) => self.short.insert(p, v),
            None => {
                self.long.insert(k.into(), v);
            }
        }
    }

    /// Removes and returns the value of `k`.
    #[inline]
    pub fn remove(&mut self, k: &[u8]) -> Option<V> {
        match pack(k) {
            Some(p) => self.short.remove(p),
            None => self.long.remove(k),
        }
    }

    /// Number of entries.
    pub fn len(&self) -> usize {
        self.short.len + self.long.len()
    }

    /// True when empty.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Removes everything.
    pub fn clear(&mut self) {
        self.short.clear();
        self.long.clear();
    }

    /// The values, in no particular order.
    pub fn values(&self) -> impl Iterator<Item = V> + '_ {
        self.short.values().chain(self.long.values().copied())
    }
}

/// A set of identifiers, 8 bytes per entry: identifiers of up to 8 bytes
/// are stored exactly (up to 7 bytes with their length in one set, exactly
/// 8 bytes as they are in another), longer ones by a 64-bit SipHash (a
/// false "already present" needs a 64-bit collision within one (container,
/// link type): negligible).
#[derive(Clone, Debug)]
pub struct KeySet {
    exact: HashSet<u64, Fast>,
    eight: HashSet<u64, Fast>,
    hashed: HashSet<u64, Fast>,
    hasher: std::hash::BuildHasherDefault<std::collections::hash_map::DefaultHasher>,
}

impl Default for KeySet {
    fn default() -> Self {
        let s = Fast::with_seed(0x6b65_7973);
        KeySet {
            exact: HashSet::with_hasher(s),
            eight: HashSet::with_hasher(s),
            hashed: HashSet::with_hasher(s),
            hasher: Default::default(),
        }
    }
}

enum Class {
    Exact(u64),
    Eight(u64),
    Hashed,
}

impl KeySet {
    #[inline]
    fn class(k: &[u8]) -> Class {
        match k.len() {
            0..=7 => {
                // `pack` keeps bytes in the low 56 bits for lengths below 8.
                let p = pack(k).unwrap_or(0) as u64 & ((1 << 56) - 1);
                Class::Exact(p | (k.len() as u64) << 56)
            }
            8 => Class::Eight(u64::from_le_bytes(k.try_into().unwrap_or([0; 8]))),
            _ => Class::Hashed,
        }
    }

    /// The 64 bits the set keeps of `k`, with their class (0: up to 7
    /// bytes, exact; 1: 8 bytes, exact; 2: longer, hashed): equal codes
    /// are equal keys but for a 64-bit collision of long ones.
    #[inline]
    pub fn code(k: &[u8]) -> (u8, u64) {
        match Self::class(k) {
            Class::Exact(p) => (0, p),
            Class::Eight(p) => (1, p),
            Class::Hashed => {
                let hasher: std::hash::BuildHasherDefault<
                    std::collections::hash_map::DefaultHasher,
                > = Default::default();
                (2, hasher.hash_one(k))
            }
        }
    }

    /// The codes ([`KeySet::code`]) of the keys in the set.
    pub fn codes(&self) -> impl Iterator<Item = (u8, u64)> + '_ {
        let exact = self.exact.iter().map(|&p| (0, p));
        let eight = self.eight.iter().map(|&p| (1, p));
        exact
            .chain(eight)
            .chain(self.hashed.iter().map(|&p| (2, p)))
    }

    /// Keys in the set.
    #[cfg(test)]
    pub fn len(&self) -> usize {
        self.exact.len() + self.eight.len() + self.hashed.len()
    }

    /// Is `k` in the set?
    #[inline]
    pub fn contains(&self, k: &[u8]) -> bool {
        match Self::class(k) {
            Class::Exact(p) => self.exact.contains(&p),
            Class::Eight(p) => self.eight.contains(&p),
            Class::Hashed => self.hashed.contains(&self.hasher.hash_one(k)),
        }
    }

    /// Adds `k`.
    #[inline]
    pub fn insert(&mut self, k: &[u8]) {
        match Self::class(k) {
            Class::Exact(p) => {
                self.exact.insert(p);
            }
            Class::Eight(p) => {
                self.eight.insert(p);
            }
            Class::Hashed => {
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
    fn table_agrees_with_a_std_map_under_churn() {
        let mut m: IdMap<u32> = IdMap::default();
        let mut reference = std::collections::HashMap::new();
        let mut x: u64 = 0x1234_5678;
        for step in 0..200_000u32 {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            let key = format!("k{}", x % 5000).into_bytes();
            match x % 3 {
                0 => {
                    m.insert(&key, step);
                    reference.insert(key, step);
                }
                1 => assert_eq!(m.remove(&key), reference.remove(&key)),
                _ => assert_eq!(m.get(&key), reference.get(&key).copied()),
            }
            assert_eq!(m.len(), reference.len());
        }
        let mut vals: Vec<u32> = m.values().collect();
        let mut want: Vec<u32> = reference.values().copied().collect();
        vals.sort();
        want.sort();
        assert_eq!(vals, want);
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
        assert_eq!(m.get(b"p1"), Some(1));
        assert_eq!(m.get(b""), Some(2));
        assert_eq!(m.get(b"\0"), Some(3));
        assert_eq!(m.get(long), Some(4));
        assert_eq!(m.get(b"123456789012345"), Some(5));
        assert_eq!(m.get(b"1234567890123456"), Some(6));
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
        assert!(!s.contains(b"12345679") && !s.contains(b"123456789"));
        s.insert(b"");
        assert!(s.contains(b""));
        // Codes tell keys apart, and the set gives back those it holds.
        let keys: [&[u8]; 6] = [b"", b"k1", b"1234567", b"12345678", long, b"123456789"];
        let codes: std::collections::HashSet<(u8, u64)> =
            keys.iter().map(|k| KeySet::code(k)).collect();
        assert_eq!(codes.len(), keys.len());
        let held: std::collections::HashSet<(u8, u64)> = s.codes().collect();
        assert_eq!(held.len(), s.len());
        assert_eq!(
            held,
            codes
                .iter()
                .copied()
                .filter(|c| *c != KeySet::code(b"123456789"))
                .collect()
        );
    }
}
