//! Time order with bounded memory: the writers make their timed packets
//! (events) in the order the simulation hands entities over, which is not
//! time order (see the crate's documentation); a [`Reorder`] holds up to
//! [`HELD`] of them and lets the earliest go first, and [`Lanes`] spreads
//! what comes out over sequences each in time order.
//!
//! A packet that comes when packets later than it have already gone
//! (held by the simulation longer than the buffer could wait: the last
//! event or counter value of a list, final only when the next one comes;
//! a link's start, known when the link completes; the end of a state
//! final only when its list's next state begins) cannot join the
//! sequence they went to: it goes to another sequence whose last packet
//! is not later than it ([`Lanes::lane`]), a new one if none is.

use std::cmp::{Ordering, Reverse};
use std::collections::{BTreeSet, BinaryHeap};

/// The packets a [`Reorder`] holds at most.
pub const HELD: usize = 1 << 18;

/// A packet held, by time, then by arrival.
struct Held<T> {
    t: i64,
    n: u64,
    item: T,
}

impl<T> PartialEq for Held<T> {
    fn eq(&self, o: &Self) -> bool {
        (self.t, self.n) == (o.t, o.n)
    }
}

impl<T> Eq for Held<T> {}

impl<T> PartialOrd for Held<T> {
    fn partial_cmp(&self, o: &Self) -> Option<Ordering> {
        Some(self.cmp(o))
    }
}

impl<T> Ord for Held<T> {
    fn cmp(&self, o: &Self) -> Ordering {
        (self.t, self.n).cmp(&(o.t, o.n))
    }
}

/// Packets held so that they go out in time order (equal times in the
/// order they came), at most a given number at a time.
pub(crate) struct Reorder<T> {
    heap: BinaryHeap<Reverse<Held<T>>>,
    next: u64,
    capacity: usize,
}

impl<T> Reorder<T> {
    /// A buffer holding at most `capacity` packets (at least 1).
    pub(crate) fn new(capacity: usize) -> Reorder<T> {
        Reorder {
            heap: BinaryHeap::new(),
            next: 0,
            capacity: capacity.max(1),
        }
    }

    /// Holds `item`, of time `t` (nanoseconds); the earliest packet held
    /// when that makes one too many.
    pub(crate) fn push(&mut self, t: i64, item: T) -> Option<(i64, T)> {
        self.heap.push(Reverse(Held {
            t,
            n: self.next,
            item,
        }));
        self.next += 1;
        if self.heap.len() > self.capacity {
            self.pop()
        } else {
            None
        }
    }

    /// The earliest packet held.
    pub(crate) fn pop(&mut self) -> Option<(i64, T)> {
        self.heap.pop().map(|Reverse(h)| (h.t, h.item))
    }
}

/// Sequences of packets, each in time order: lane 0 takes every packet
/// not earlier than its last; another, one that comes too late for it.
#[derive(Debug, Default)]
pub(crate) struct Lanes {
    /// (last time, lane) of each lane.
    by_last: BTreeSet<(i64, usize)>,
    last: Vec<i64>,
}

impl Lanes {
    /// The lane a packet of time `t` goes to (the one whose last packet
    /// is the latest not later than `t`: lane 0 unless `t` is earlier
    /// than its last), and whether it is new.
    pub(crate) fn lane(&mut self, t: i64) -> (usize, bool) {
        let found = self.by_last.range(..=(t, usize::MAX)).next_back().copied();
        let (lane, new) = match found {
            Some((last, lane)) => {
                self.by_last.remove(&(last, lane));
                (lane, false)
            }
            None => {
                self.last.push(t);
                (self.last.len() - 1, true)
            }
        };
        self.last[lane] = t;
        self.by_last.insert((t, lane));
        (lane, new)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn packets_go_in_time_order_and_late_ones_to_other_lanes() {
        let mut r = Reorder::new(2);
        let mut out = Vec::new();
        for (t, x) in [(5, 'a'), (3, 'b'), (3, 'c'), (9, 'd'), (1, 'e'), (7, 'f')] {
            out.extend(r.push(t, x));
        }
        while let Some(p) = r.pop() {
            out.push(p);
        }
        // 'e' (1) came once 3 and 3 had gone.
        assert_eq!(
            out,
            [(3, 'b'), (3, 'c'), (1, 'e'), (5, 'a'), (7, 'f'), (9, 'd')]
        );
        let mut lanes = Lanes::default();
        let got: Vec<(usize, bool)> = out.iter().map(|&(t, _)| lanes.lane(t)).collect();
        assert_eq!(
            got,
            [
                (0, true),
                (0, false),
                (1, true),
                (0, false),
                (0, false),
                (0, false)
            ]
        );
        // A late packet takes the lane that fits it most closely.
        assert_eq!(lanes.lane(2), (1, false));
        assert_eq!(lanes.lane(4), (1, false));
        assert_eq!(lanes.lane(0), (2, true));
    }
}
