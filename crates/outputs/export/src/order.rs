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
//!
//! Memory: at most [`HELD`] packets (a few dozen bytes each, about 4 MB in
//! all), and 16 bytes for each sequence but the first. A sequence is only
//! opened for a packet that came too late for all the others, so there
//! are never more than late packets; on the traces measured (see
//! BENCHMARKS.md) there is one sequence, or two.

use std::cmp::Reverse;
use std::collections::{BTreeSet, BinaryHeap, VecDeque};

/// The packets a [`Reorder`] holds at most.
pub const HELD: usize = 1 << 16;

/// Packets held, in time order (equal times in the order they came), at
/// most a given number at a time. Most come in order (a state's begin is
/// made when it is pushed): those wait in a queue, the others in a heap
/// of small keys whose packets stay in a slab.
pub(crate) struct Reorder<T> {
    /// (time, arrival, packet) of the packets that came not earlier than
    /// the last one queued: in order.
    run: VecDeque<(i64, u64, T)>,
    /// (time, arrival, slot) of the others, the earliest first.
    heap: BinaryHeap<Reverse<(i64, u64, u32)>>,
    slots: Vec<Option<T>>,
    free: Vec<u32>,
    next: u64,
    capacity: usize,
}

impl<T> Reorder<T> {
    /// A buffer holding at most `capacity` packets (at least 1).
    pub(crate) fn new(capacity: usize) -> Reorder<T> {
        Reorder {
            run: VecDeque::new(),
            heap: BinaryHeap::new(),
            slots: Vec::new(),
            free: Vec::new(),
            next: 0,
            capacity: capacity.max(1),
        }
    }

    /// Holds `item`, of time `t` (nanoseconds); the earliest packet held
    /// when that makes one too many.
    pub(crate) fn push(&mut self, t: i64, item: T) -> Option<(i64, T)> {
        let n = self.next;
        self.next += 1;
        if self.run.back().is_none_or(|b| b.0 <= t) {
            self.run.push_back((t, n, item));
        } else {
            let slot = match self.free.pop() {
                Some(s) => {
                    self.slots[s as usize] = Some(item);
                    s
                }
                None => {
                    self.slots.push(Some(item));
                    self.slots.len() as u32 - 1
                }
            };
            self.heap.push(Reverse((t, n, slot)));
        }
        if self.run.len() + self.heap.len() > self.capacity {
            self.pop()
        } else {
            None
        }
    }

    /// The earliest packet held.
    pub(crate) fn pop(&mut self) -> Option<(i64, T)> {
        let queued = self.run.front().map(|x| (x.0, x.1));
        match (queued, self.heap.peek()) {
            (Some(q), Some(Reverse(h))) if (h.0, h.1) < q => self.pop_heap(),
            (Some(_), _) => self.run.pop_front().map(|(t, _, x)| (t, x)),
            (None, _) => self.pop_heap(),
        }
    }

    fn pop_heap(&mut self) -> Option<(i64, T)> {
        let Reverse((t, _, slot)) = self.heap.pop()?;
        self.free.push(slot);
        self.slots[slot as usize].take().map(|x| (t, x))
    }
}

/// Sequences of packets, each in time order: lane 0 takes every packet
/// not earlier than its last; another, one that comes too late for it.
/// Lane 0's last packet is the latest of all lanes' (the others only
/// take packets earlier than it).
#[derive(Debug, Default)]
pub(crate) struct Lanes {
    /// The last time of lane 0, once it exists.
    first: Option<i64>,
    /// (last time, lane) of each other lane.
    others: BTreeSet<(i64, usize)>,
}

impl Lanes {
    /// The lane a packet of time `t` goes to (the one whose last packet
    /// is the latest not later than `t`: lane 0 unless `t` is earlier
    /// than its last), and whether it is new.
    pub(crate) fn lane(&mut self, t: i64) -> (usize, bool) {
        match self.first {
            None => {
                self.first = Some(t);
                return (0, true);
            }
            Some(last) if last <= t => {
                self.first = Some(t);
                return (0, false);
            }
            Some(_) => {}
        }
        let found = self.others.range(..=(t, usize::MAX)).next_back().copied();
        let (lane, new) = match found {
            Some(x) => {
                self.others.remove(&x);
                (x.1, false)
            }
            None => (self.others.len() + 1, true),
        };
        self.others.insert((t, lane));
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
