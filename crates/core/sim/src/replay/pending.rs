//! The pending links of one list, by number.
//!
//! Links of a list are numbered in the order of their first ends, and most
//! complete soon after: a ring indexed by number holds the recent ones
//! (completed ones leave holes, dropped once they reach its front), and a
//! hash table the few that stay pending long (moved there when the ring
//! grows past a bound, so it never holds more than that).

use hashbrown::HashTable;

use crate::replay::Live;

/// Entries the ring holds at most.
const RING_MAX: usize = 1 << 12;

#[inline]
fn num_hash(n: u64) -> u64 {
    n.wrapping_mul(0x9e37_79b9_7f4a_7c15)
}

/// The links of the ring slots `ring` (the first numbered `base`; holes
/// are `None`), then those of the spill, with their numbers.
fn numbered<E>(
    base: u64,
    ring: impl Iterator<Item = Option<E>>,
    spill: impl Iterator<Item = (u64, E)>,
) -> impl Iterator<Item = (u64, E)> {
    ring.enumerate()
        .filter_map(move |(i, e)| e.map(|e| (base + i as u64, e)))
        .chain(spill)
}

/// Pending links by number.
#[derive(Clone, Debug, Default)]
pub struct Pending {
    /// The number of `ring[0]`.
    base: u64,
    ring: Ring,
    /// Entries of `ring` that are `Some`.
    in_ring: usize,
    /// Older ones.
    spill: HashTable<(u64, Live)>,
}

impl Pending {
    /// Number of pending links.
    #[inline]
    pub fn len(&self) -> usize {
        self.in_ring + self.spill.len()
    }

    /// No pending link.
    #[inline]
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Forgets every pending link.
    pub fn clear(&mut self) {
        self.ring.clear();
        self.in_ring = 0;
        self.spill.clear();
    }

    /// Adds link `n` (not pending already).
    #[inline(always)]
    pub fn insert(&mut self, n: u64, e: Live) {
        if self.ring.is_empty() {
            self.base = n;
        }
        let end = self.base + self.ring.len() as u64;
        if n < end {
            self.spill_one(n, e);
            return;
        }
        let gap = n - end;
        if gap as usize >= RING_MAX {
            self.spill_ring();
            self.base = n;
        } else {
            for _ in 0..gap {
                self.ring.push_back(None);
            }
        }
        self.ring.push_back(Some(e));
        self.in_ring += 1;
        while self.ring.len() > RING_MAX {
            if let Some(Some(old)) = self.ring.pop_front() {
                self.in_ring -= 1;
                let at = self.base;
                self.spill_one(at, old);
            }
            self.base += 1;
        }
        self.trim();
    }

    /// Takes pending link `n` out.
    #[inline(always)]
    pub fn remove(&mut self, n: u64) -> Option<Live> {
        if let Some(i) = n.checked_sub(self.base) {
            if let Some(slot) = self.ring.get_mut(i as usize) {
                let e = slot.take()?;
                self.in_ring -= 1;
                self.trim();
                return Some(e);
            }
        }
        if self.spill.is_empty() {
            return None;
        }
        match self.spill.find_entry(num_hash(n), |(x, _)| *x == n) {
            Ok(entry) => Some(entry.remove().0 .1),
            Err(_) => None,
        }
    }

    /// Pending link `n`.
    pub fn get(&self, n: u64) -> Option<&Live> {
        if let Some(i) = n.checked_sub(self.base) {
            if let Some(slot) = self.ring.get(i as usize) {
                return slot.as_ref();
            }
        }
        self.spill
            .find(num_hash(n), |(x, _)| *x == n)
            .map(|(_, e)| e)
    }

    /// The pending links, in no particular order.
    pub fn iter(&self) -> impl Iterator<Item = (u64, &Live)> + '_ {
        let ring = self.ring.iter().map(Option::as_ref);
        numbered(self.base, ring, self.spill.iter().map(|(n, e)| (*n, e)))
    }

    /// The pending links, mutable, in no particular order.
    pub fn iter_mut(&mut self) -> impl Iterator<Item = (u64, &mut Live)> + '_ {
        let ring = self.ring.iter_mut().map(Option::as_mut);
        numbered(self.base, ring, self.spill.iter_mut().map(|(n, e)| (*n, e)))
    }

    /// The pending links in increasing number.
    pub fn sorted(&self) -> Vec<(u64, &Live)> {
        let mut v: Vec<(u64, &Live)> = self.iter().collect();
        v.sort_unstable_by_key(|(n, _)| *n);
        v
    }

    /// Drops the holes at the front of the ring.
    #[inline(always)]
    fn trim(&mut self) {
        while let Some(None) = self.ring.front() {
            self.ring.skip_front();
            self.base += 1;
        }
    }

    fn spill_one(&mut self, n: u64, e: Live) {
        self.spill
            .insert_unique(num_hash(n), (n, e), |(x, _)| num_hash(*x));
    }

    fn spill_ring(&mut self) {
        let base = self.base;
        let mut ring = std::mem::take(&mut self.ring);
        for (i, e) in ring.drain().enumerate() {
            if let Some(e) = e {
                self.spill_one(base + i as u64, e);
            }
        }
        self.in_ring = 0;
    }
}

/// A double-ended queue of slots, written in place: `VecDeque::push_back`
/// takes its (large) element through the stack and reads it back, which
/// stalls when the element was just written.
#[derive(Clone, Debug, Default)]
struct Ring {
    /// A power of two long (or empty).
    slots: Vec<Option<Live>>,
    head: usize,
    len: usize,
}

impl Ring {
    #[inline(always)]
    fn len(&self) -> usize {
        self.len
    }

    #[inline(always)]
    fn is_empty(&self) -> bool {
        self.len == 0
    }

    fn clear(&mut self) {
        self.slots.clear();
        self.head = 0;
        self.len = 0;
    }

    #[inline(always)]
    fn at(&self, i: usize) -> usize {
        (self.head + i) & (self.slots.len() - 1)
    }

    #[inline(always)]
    fn get(&self, i: usize) -> Option<&Option<Live>> {
        if i < self.len {
            Some(&self.slots[self.at(i)])
        } else {
            None
        }
    }

    #[inline(always)]
    fn get_mut(&mut self, i: usize) -> Option<&mut Option<Live>> {
        if i < self.len {
            let at = self.at(i);
            Some(&mut self.slots[at])
        } else {
            None
        }
    }

    #[inline(always)]
    fn front(&self) -> Option<&Option<Live>> {
        self.get(0)
    }

    #[inline(always)]
    fn pop_front(&mut self) -> Option<Option<Live>> {
        if self.len == 0 {
            return None;
        }
        let e = self.slots[self.head].take();
        self.head = (self.head + 1) & (self.slots.len() - 1);
        self.len -= 1;
        Some(e)
    }

    /// Drops the front slot, which is empty.
    #[inline(always)]
    fn skip_front(&mut self) {
        debug_assert!(self.slots[self.head].is_none());
        self.head = (self.head + 1) & (self.slots.len() - 1);
        self.len -= 1;
    }

    #[inline(always)]
    fn push_back(&mut self, e: Option<Live>) {
        if self.len == self.slots.len() {
            self.grow();
        }
        let at = self.at(self.len);
        self.slots[at] = e;
        self.len += 1;
    }

    #[cold]
    #[inline(never)]
    fn grow(&mut self) {
        let mut slots = vec![None; (2 * self.slots.len()).max(16)];
        for (i, s) in slots.iter_mut().enumerate().take(self.len) {
            let at = self.at(i);
            *s = self.slots[at].take();
        }
        self.slots = slots;
        self.head = 0;
    }

    fn iter(&self) -> impl Iterator<Item = &Option<Live>> + '_ {
        (0..self.len).map(|i| &self.slots[self.at(i)])
    }

    fn iter_mut(&mut self) -> impl Iterator<Item = &mut Option<Live>> + '_ {
        let (head, len) = (self.head, self.len);
        let (back, front) = self.slots.split_at_mut(head);
        let n = front.len();
        front
            .iter_mut()
            .take(len)
            .chain(back.iter_mut().take(len.saturating_sub(n)))
    }

    fn drain(&mut self) -> impl Iterator<Item = Option<Live>> + '_ {
        (0..std::mem::take(&mut self.len)).map(move |i| {
            let at = (self.head + i) & (self.slots.len() - 1);
            self.slots[at].take()
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn live(n: u64) -> Live {
        Live {
            idx: n as u32,
            ..Live::default()
        }
    }

    /// The same answers as a map, whatever the order of completions.
    #[test]
    fn behaves_as_a_map() {
        let mut state = 0x1234_5678_u64;
        let mut rnd = move |m: u64| {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state % m
        };
        for round in 0..20 {
            let mut p = Pending::default();
            let mut map = std::collections::BTreeMap::new();
            let mut next = rnd(5);
            for _ in 0..20_000 {
                if rnd(100) < 52 || map.is_empty() {
                    // Gaps now and then, sometimes beyond the ring.
                    next += match rnd(1000) {
                        0 if round % 2 == 0 => RING_MAX as u64 + rnd(10),
                        1..=20 => rnd(40),
                        _ => 0,
                    };
                    p.insert(next, live(next));
                    map.insert(next, live(next));
                    next += 1;
                } else {
                    // Mostly recent ones; some links stay pending long.
                    let keys: Vec<u64> = map.keys().copied().collect();
                    let k = if rnd(10) < 8 {
                        keys[keys.len() - 1 - rnd(keys.len().min(8) as u64) as usize]
                    } else {
                        keys[rnd(keys.len() as u64) as usize]
                    };
                    assert_eq!(p.get(k), map.get(&k));
                    assert_eq!(p.remove(k), map.remove(&k));
                    assert_eq!(p.remove(k), None);
                }
                assert_eq!(p.len(), map.len());
                assert!(p.ring.len() <= RING_MAX);
            }
            let sorted: Vec<(u64, Live)> = p.sorted().into_iter().map(|(n, e)| (n, *e)).collect();
            let want: Vec<(u64, Live)> = map.into_iter().collect();
            assert_eq!(sorted, want);
            // The mutable walk names the same links (the ring wraps).
            let mut walked: Vec<(u64, Live)> = p.iter_mut().map(|(n, e)| (n, *e)).collect();
            walked.sort_unstable_by_key(|(n, _)| *n);
            assert_eq!(walked, want);
        }
    }
}
