//! The regions open on each location, and what a `Leave` record does to
//! them: the rule of the crate documentation for `Leave` records that do
//! not name the innermost open region (a region further down ends with
//! those above it, which are entered again; a region not open ends the
//! innermost), which are counted, by pair of regions, for a warning.

use std::collections::HashMap;

/// How far down a `Leave` looks for the region it names: the regions
/// entered again are at most this many, whatever the archive.
pub(crate) const REENTER_LIMIT: usize = 64;

/// Pairs of regions (innermost open, named by the `Leave`) counted apart;
/// more are counted in the totals only.
const PAIRS: usize = 4096;

/// What a `Leave` does to its location's states.
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum Leave {
    /// The innermost state ends.
    Innermost,
    /// The innermost `reenter.len() + 1` states end, and the regions of
    /// `reenter` (outermost first) are entered again.
    Below { reenter: Vec<u32> },
}

/// A `Leave` that did not name the innermost open region.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Mismatch {
    /// The location (its index).
    pub location: usize,
    /// Its time, in ticks.
    pub time: u64,
    /// The innermost open region.
    pub open: u32,
    /// The region the `Leave` names.
    pub named: u32,
}

/// The regions open on each location, and the mismatches met.
#[derive(Debug, Default)]
pub(crate) struct OpenRegions {
    stacks: Vec<Vec<u32>>,
    /// `Leave` records naming a region further down.
    pub below: u64,
    /// `Leave` records naming no open region.
    pub unopened: u64,
    /// The first mismatch.
    pub first: Option<Mismatch>,
    /// Mismatches by (innermost open, named) region.
    pairs: HashMap<(u32, u32), u64>,
}

impl OpenRegions {
    /// No region open on `locations` locations.
    pub fn new(locations: usize) -> OpenRegions {
        OpenRegions {
            stacks: vec![Vec::new(); locations],
            ..OpenRegions::default()
        }
    }

    /// `region` is entered on `location`.
    #[inline]
    pub fn enter(&mut self, location: usize, region: u32) {
        self.stacks[location].push(region);
    }

    /// A `Leave` of `region` on `location` at `time`: what it ends.
    #[inline]
    pub fn leave(&mut self, location: usize, time: u64, region: u32) -> Leave {
        let stack = &mut self.stacks[location];
        let Some(&open) = stack.last() else {
            return Leave::Innermost;
        };
        if open == region {
            stack.pop();
            return Leave::Innermost;
        }
        let depth = stack
            .iter()
            .rev()
            .take(REENTER_LIMIT + 1)
            .position(|&r| r == region);
        let leave = match depth {
            Some(above) => {
                let at = stack.len() - 1 - above;
                let reenter = stack.split_off(at + 1);
                stack.pop();
                self.below += 1;
                Leave::Below { reenter }
            }
            None => {
                stack.pop();
                self.unopened += 1;
                Leave::Innermost
            }
        };
        self.first.get_or_insert(Mismatch {
            location,
            time,
            open,
            named: region,
        });
        let n = self.pairs.len();
        match self.pairs.get_mut(&(open, region)) {
            Some(c) => *c += 1,
            None if n < PAIRS => {
                self.pairs.insert((open, region), 1);
            }
            None => {}
        }
        leave
    }

    /// The mismatches met.
    pub fn mismatches(&self) -> u64 {
        self.below + self.unopened
    }

    /// The `n` pairs (innermost open, named) met most often, with their
    /// counts, the most frequent first (ties by region).
    pub fn most_often(&self, n: usize) -> Vec<((u32, u32), u64)> {
        let mut v: Vec<((u32, u32), u64)> = self.pairs.iter().map(|(&k, &c)| (k, c)).collect();
        v.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
        v.truncate(n);
        v
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn leaves_end_what_the_rule_says() {
        let mut o = OpenRegions::new(2);
        // Matching.
        o.enter(0, 1);
        assert_eq!(o.leave(0, 5, 1), Leave::Innermost);
        // Below: 1 [2 3] left as 1: 2 and 3 entered again.
        for r in [1, 2, 3] {
            o.enter(0, r);
        }
        assert_eq!(
            o.leave(0, 10, 1),
            Leave::Below {
                reenter: vec![2, 3]
            }
        );
        assert_eq!(o.stacks[0], [] as [u32; 0]);
        // The innermost open instance: 4 5 4 6 left as 4 ends the upper 4.
        for r in [4, 5, 4, 6] {
            o.enter(1, r);
        }
        assert_eq!(o.leave(1, 20, 4), Leave::Below { reenter: vec![6] });
        assert_eq!(o.stacks[1], [4, 5]);
        // Not open: the innermost ends.
        assert_eq!(o.leave(1, 30, 9), Leave::Innermost);
        assert_eq!(o.stacks[1], [4]);
        // Nothing open: the simulation's error.
        o.stacks[0].clear();
        assert_eq!(o.leave(0, 40, 7), Leave::Innermost);
        assert_eq!((o.below, o.unopened, o.mismatches()), (2, 1, 3));
        assert_eq!(
            o.first,
            Some(Mismatch {
                location: 0,
                time: 10,
                open: 3,
                named: 1
            })
        );
        assert_eq!(o.most_often(2), [((3, 1), 1), ((5, 9), 1)]);
    }

    #[test]
    fn a_region_too_far_down_counts_as_not_open() {
        let mut o = OpenRegions::new(1);
        o.enter(0, 1);
        for _ in 0..REENTER_LIMIT + 1 {
            o.enter(0, 2);
        }
        assert_eq!(o.leave(0, 1, 1), Leave::Innermost);
        assert_eq!(o.unopened, 1);
        assert_eq!(o.stacks[0].len(), REENTER_LIMIT + 1);
        // Just within reach.
        let mut o = OpenRegions::new(1);
        o.enter(0, 1);
        for _ in 0..REENTER_LIMIT {
            o.enter(0, 2);
        }
        assert_eq!(
            o.leave(0, 1, 1),
            Leave::Below {
                reenter: vec![2; REENTER_LIMIT]
            }
        );
    }
}
