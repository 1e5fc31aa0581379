//! The link keys already used, remembered so that a reused one is
//! rejected as PajeNG does ("the key was already used for another link").
//!
//! Keeping every key ([`LinkKeys::Exact`], the default) costs memory in
//! proportion to the links of the trace. Exact rejection cannot be had in
//! constant memory, so a simulation whose memory must not depend on the
//! trace (`trama dump --stream`, `trama check`) uses a filter of fixed size
//! instead ([`LinkKeys::Filter`]). Its keys are kept exactly, as by
//! default, while they are few (at most 7/512 of the filter's size in
//! keys: 229,376 for 16 MiB, a set of about 2.4 MB), so a small trace is
//! simulated exactly and as fast; past that they go into the filter, and
//! the set is freed. A key the filter has not seen is certainly new;
//! a key it has seen *may* have been used (a false positive is possible) and
//! is handed to the sink ([`Sink::possibly_reused_key`](crate::Sink)), which
//! confirms it by reading the input again ([`LinkKeys::Confirm`]: a second
//! simulation that keeps exactly the keys under suspicion), or else gives a
//! warning. A valid trace is never rejected.
//!
//! The filter is a blocked Bloom filter: a key (its list and the 64 bits
//! [`KeySet`] keeps of it) sets one bit in each of the eight 64-bit words
//! of one 64-byte block (one cache line per lookup).
//! With `b` bits per key its false-positive rate is about that of a Bloom
//! filter with eight hashes; for the default 16 MiB
//! ([`KEY_FILTER_BYTES`]), a key looked up after `n` completed links is a
//! false positive with probability ≈ 8·10⁻⁸ at 1.7 M links, 5·10⁻⁵ at 5 M,
//! 2·10⁻³ at 10 M and 0.23 at 30 M.

use std::hash::BuildHasher;
use std::sync::Arc;

use hashbrown::{Equivalent, HashSet};

use crate::idmap::KeySet;
use crate::model::ListId;

/// The default size of the filter of [`LinkKeys::Filter`]: 16 MiB.
pub const KEY_FILTER_BYTES: usize = 16 << 20;

/// How a simulation remembers the link keys already used.
#[derive(Clone, Debug, Default)]
#[non_exhaustive]
pub enum LinkKeys {
    /// Every key, exactly: a reused key is an error at once. Memory grows
    /// with the number of links.
    #[default]
    Exact,
    /// A filter of this many bytes (rounded down to 64, at least 64),
    /// allocated once the keys kept exactly reach 7/512 of that size:
    /// memory does not depend on the trace. A key the filter has seen goes
    /// to
    /// [`Sink::possibly_reused_key`](crate::Sink::possibly_reused_key) and
    /// the simulation goes on as for a new key.
    Filter(usize),
    /// Only the keys of these lists are remembered, exactly, and a reuse of
    /// one of them is an error; other keys are taken as new. Confirms what
    /// a [`LinkKeys::Filter`] simulation of the same input suspected: every
    /// reuse is among its suspects, so the first error is the one an exact
    /// simulation gives.
    Confirm(Arc<KeySuspects>),
}

/// Link keys under suspicion, by list: what [`LinkKeys::Confirm`] keeps.
#[derive(Clone, Debug, Default)]
pub struct KeySuspects {
    set: HashSet<(u32, Box<[u8]>)>,
}

impl KeySuspects {
    /// Adds key `key` of `list`.
    pub fn insert(&mut self, list: ListId, key: &[u8]) {
        self.set.insert((list.0, key.into()));
    }

    /// Is key `key` of `list` under suspicion?
    #[inline]
    pub fn contains(&self, list: ListId, key: &[u8]) -> bool {
        !self.set.is_empty() && self.set.contains(&Probe(list.0, key))
    }

    /// Keys under suspicion.
    pub fn len(&self) -> usize {
        self.set.len()
    }

    /// True when there are none.
    pub fn is_empty(&self) -> bool {
        self.set.is_empty()
    }
}

/// A (list, key) pair looked up without copying the key: it hashes as
/// the stored tuple does (field after field).
#[derive(Hash)]
struct Probe<'a>(u32, &'a [u8]);

impl Equivalent<(u32, Box<[u8]>)> for Probe<'_> {
    fn equivalent(&self, k: &(u32, Box<[u8]>)) -> bool {
        self.0 == k.0 && self.1 == &*k.1
    }
}

/// A blocked Bloom filter of (list, key) pairs.
#[derive(Clone, Debug)]
pub(crate) struct KeyFilter {
    /// Blocks of eight words; allocated (zeroed, so untouched pages cost
    /// nothing) at the first insertion.
    words: Vec<u64>,
    blocks: u64,
    hasher: foldhash::quality::FixedState,
}

/// One odd multiplier per word of a block: each picks a bit of its word
/// from the same 32 bits of hash (the split-block Bloom filter's salts).
const SALT: [u32; 8] = [
    0x47b6_137b,
    0x4497_4d91,
    0x8824_ad5b,
    0xa2b7_289d,
    0x7054_95c7,
    0x2df1_424b,
    0x9efc_4947,
    0x5c6b_fb31,
];

impl KeyFilter {
    /// A filter of `bytes` (rounded down to a multiple of 64, at least 64).
    pub fn new(bytes: usize) -> KeyFilter {
        KeyFilter {
            words: Vec::new(),
            blocks: (bytes / 64).clamp(1, u32::MAX as usize) as u64,
            hasher: foldhash::quality::FixedState::with_seed(0x6c69_6e6b),
        }
    }

    /// The first word of the block of (`list`, `code`), and the bit of
    /// each word.
    #[inline]
    fn place(&self, list: ListId, code: (u8, u64)) -> (usize, [u64; 8]) {
        let h = self.hasher.hash_one((list.0, code));
        let block = (((h >> 32) * self.blocks) >> 32) as usize;
        let x = h as u32;
        let bits = SALT.map(|s| 1u64 << (x.wrapping_mul(s) >> 26));
        (block * 8, bits)
    }

    /// Was (`list`, `key`) perhaps inserted? False means certainly not.
    #[inline]
    pub fn contains(&self, list: ListId, key: &[u8]) -> bool {
        if self.words.is_empty() {
            return false;
        }
        let (at, bits) = self.place(list, KeySet::code(key));
        let block = &self.words[at..at + 8];
        block.iter().zip(bits).all(|(w, b)| w & b != 0)
    }

    /// Inserts (`list`, `key`).
    #[inline]
    pub fn insert(&mut self, list: ListId, key: &[u8]) {
        self.insert_code(list, KeySet::code(key));
    }

    /// Inserts (`list`, a key of code `code`, see [`KeySet::code`]).
    #[inline]
    pub fn insert_code(&mut self, list: ListId, code: (u8, u64)) {
        if self.words.is_empty() {
            self.words = vec![0; self.blocks as usize * 8];
        }
        let (at, bits) = self.place(list, code);
        for (w, b) in self.words[at..at + 8].iter_mut().zip(bits) {
            *w |= b;
        }
    }
}

/// What an engine keeps of the keys used, when not every key of every
/// list ([`LinkKeys::Exact`] keeps them per list, beside the list).
#[derive(Debug)]
pub(crate) enum UsedKeys {
    /// Per list.
    Exact,
    /// Per list, until there are `left` more; then in a filter of `bytes`.
    Growing { left: usize, bytes: usize },
    /// In a filter.
    Filter(KeyFilter),
    /// The keys under suspicion that were used.
    Confirm {
        suspects: Arc<KeySuspects>,
        used: HashSet<(u32, Box<[u8]>)>,
    },
}

impl UsedKeys {
    pub fn new(keys: &LinkKeys) -> UsedKeys {
        match keys {
            LinkKeys::Exact => UsedKeys::Exact,
            LinkKeys::Filter(bytes) => match bytes / 512 * 7 {
                0 => UsedKeys::Filter(KeyFilter::new(*bytes)),
                left => UsedKeys::Growing {
                    left,
                    bytes: *bytes,
                },
            },
            LinkKeys::Confirm(suspects) => UsedKeys::Confirm {
                suspects: suspects.clone(),
                used: HashSet::new(),
            },
        }
    }

    /// Whether key `key` of `list` was used, when this knows it (`None`
    /// for keys kept per list: the list's own set knows).
    #[inline]
    pub fn seen(&self, list: ListId, key: &[u8]) -> Option<Seen> {
        match self {
            UsedKeys::Exact | UsedKeys::Growing { .. } => None,
            UsedKeys::Filter(f) => Some(if f.contains(list, key) {
                Seen::Maybe
            } else {
                Seen::No
            }),
            UsedKeys::Confirm { used, .. } => Some(if used.contains(&Probe(list.0, key)) {
                Seen::Yes
            } else {
                Seen::No
            }),
        }
    }

    /// Remembers that key `key` of `list` is used; false when the list's
    /// own set is to keep it.
    #[inline]
    pub fn insert(&mut self, list: ListId, key: &[u8]) -> bool {
        match self {
            UsedKeys::Exact => return false,
            UsedKeys::Growing { left, .. } => {
                *left = left.saturating_sub(1);
                return false;
            }
            UsedKeys::Filter(f) => f.insert(list, key),
            UsedKeys::Confirm { suspects, used } => {
                if suspects.contains(list, key) {
                    used.insert((list.0, key.into()));
                }
            }
        }
        true
    }
}

/// What is known of a key: certainly not used, perhaps used, used.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Seen {
    /// Not used by a completed link.
    No,
    /// Perhaps used (the filter has seen it, or a false positive).
    Maybe,
    /// Used.
    Yes,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_filter_never_forgets_a_key() {
        let mut f = KeyFilter::new(4096);
        assert!(!f.contains(ListId(0), b"k0"));
        for i in 0..20_000u32 {
            f.insert(ListId(i % 3), format!("k{i}").as_bytes());
        }
        for i in 0..20_000u32 {
            assert!(f.contains(ListId(i % 3), format!("k{i}").as_bytes()));
        }
    }

    #[test]
    fn a_roomy_filter_has_few_false_positives() {
        // 1 MiB for 100,000 keys: 84 bits per key, a false positive
        // about once in 10⁸ lookups.
        let mut f = KeyFilter::new(1 << 20);
        for i in 0..100_000u32 {
            f.insert(ListId(1), format!("k{i}").as_bytes());
        }
        let false_hits = (100_000..200_000u32)
            .filter(|i| f.contains(ListId(1), format!("k{i}").as_bytes()))
            .count();
        assert!(false_hits <= 2, "{false_hits} false positives");
        // The list is part of what the filter holds.
        let other = (0..100_000u32)
            .filter(|i| f.contains(ListId(2), format!("k{i}").as_bytes()))
            .count();
        assert!(other <= 2, "{other} false positives in another list");
    }

    #[test]
    fn a_tiny_filter_says_yes_to_nearly_everything() {
        let mut f = KeyFilter::new(0);
        for i in 0..1000u32 {
            f.insert(ListId(0), format!("k{i}").as_bytes());
        }
        let hits = (1000..2000u32)
            .filter(|i| f.contains(ListId(0), format!("k{i}").as_bytes()))
            .count();
        assert!(hits > 900, "{hits}");
    }

    #[test]
    fn suspects_are_kept_by_list() {
        let mut s = KeySuspects::default();
        assert!(!s.contains(ListId(0), b"k1"));
        s.insert(ListId(0), b"k1");
        s.insert(ListId(1), b"a-key-longer-than-sixteen-bytes");
        assert!(s.contains(ListId(0), b"k1"));
        assert!(!s.contains(ListId(1), b"k1"));
        assert!(s.contains(ListId(1), b"a-key-longer-than-sixteen-bytes"));
        assert_eq!(s.len(), 2);
    }
}
