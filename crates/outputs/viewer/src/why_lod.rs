//! The level of detail of the why overlay (`api/why/overlay`): the wait
//! states and the critical-path segments of a window, merged below the
//! width of a pixel column, so that a reply holds at most a few marks per
//! column and row whatever the run.
//!
//! - Wait states ([`Marks`]): per process, its instances sorted by start.
//!   Consecutive instances are one mark when the next starts less than a
//!   column after the mark ends and either they are of the same pattern or
//!   one of them is narrower than a column; a merged mark takes the
//!   pattern that holds most of its seconds, and counts its instances.
//! - The critical path ([`path_in`]): its segments clipped to the window,
//!   consecutive ones of one process joined; a run of segments each
//!   narrower than a column is cut into groups at least a column wide,
//!   each given to the process holding most of its time. The result still
//!   tiles the window's part of the path: each piece starts where the one
//!   before ends.

use trama_why::{PathSegment, Pattern, ProcId, WaitState};

/// A wait-state mark: `[t0, t1]` on a process, of a pattern (its index in
/// [`Pattern::ALL`]), standing for `n` instances.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct Mark {
    pub t0: f64,
    pub t1: f64,
    pub pattern: u8,
    pub n: u32,
}

/// The wait states of a run per process, indexed for window queries.
pub(crate) struct Marks {
    /// Per process: its instances as unmerged marks, sorted by start.
    each: Vec<Vec<Mark>>,
    /// Per process: the latest end of its first k+1 instances (so that
    /// the first instance that can overlap a window is found by bisection).
    ends: Vec<Vec<f64>>,
}

/// The index of `p` in [`Pattern::ALL`].
pub(crate) fn pattern_index(p: Pattern) -> u8 {
    Pattern::ALL.iter().position(|&q| q == p).unwrap_or(0) as u8
}

impl Marks {
    /// The instances of `waits`, each on the process `proc_of` gives its
    /// call, over `procs` processes.
    pub(crate) fn new(
        waits: &[WaitState],
        procs: usize,
        proc_of: impl Fn(&WaitState) -> ProcId,
    ) -> Marks {
        let mut each = vec![Vec::new(); procs];
        for w in waits {
            if let Some(v) = each.get_mut(proc_of(w) as usize) {
                v.push(Mark {
                    t0: w.start,
                    t1: w.start + w.duration,
                    pattern: pattern_index(w.pattern),
                    n: 1,
                });
            }
        }
        let mut ends = Vec::with_capacity(procs);
        for v in &mut each {
            v.sort_by(|a: &Mark, b: &Mark| a.t0.total_cmp(&b.t0));
            let mut most = f64::NEG_INFINITY;
            ends.push(
                v.iter()
                    .map(|m| {
                        most = most.max(m.t1);
                        most
                    })
                    .collect(),
            );
        }
        Marks { each, ends }
    }

    /// The marks of process `p` overlapping `[t0, t1]`, merged at columns
    /// `px` seconds wide.
    pub(crate) fn window(&self, p: usize, (t0, t1): (f64, f64), px: f64) -> Vec<Mark> {
        let (Some(all), Some(ends)) = (self.each.get(p), self.ends.get(p)) else {
            return Vec::new();
        };
        let first = ends.partition_point(|&e| e < t0);
        let inside = all[first..]
            .iter()
            .take_while(|m| m.t0 <= t1)
            .filter(|m| m.t1 >= t0);
        merge_marks(inside.copied(), px)
    }
}

/// Marks sorted by start, merged at columns `px` seconds wide (see the
/// module's documentation).
pub(crate) fn merge_marks(marks: impl Iterator<Item = Mark>, px: f64) -> Vec<Mark> {
    let mut out: Vec<Mark> = Vec::new();
    // Seconds per pattern of the mark being merged.
    let mut secs = [0.0f64; Pattern::ALL.len()];
    for m in marks {
        if let Some(cur) = out.last_mut() {
            let near = m.t0 < cur.t1 + px;
            let narrow = cur.t1 - cur.t0 < px || m.t1 - m.t0 < px;
            if near && (cur.pattern == m.pattern || narrow) {
                secs[m.pattern as usize] += m.t1 - m.t0;
                cur.t1 = cur.t1.max(m.t1);
                cur.n += m.n;
                cur.pattern = most(&secs, cur.pattern);
                continue;
            }
        }
        secs = [0.0; Pattern::ALL.len()];
        secs[m.pattern as usize] = m.t1 - m.t0;
        out.push(m);
    }
    out
}

/// The pattern holding the most seconds (`keep` on a tie).
fn most(secs: &[f64], keep: u8) -> u8 {
    let mut best = keep;
    for (i, &s) in secs.iter().enumerate() {
        if s > secs[best as usize] {
            best = i as u8;
        }
    }
    best
}

/// A run of narrow pieces being merged: its start, its end and the time
/// of each process in it.
type Group = Option<(f64, f64, Vec<(ProcId, f64)>)>;

/// A piece of the path as the overlay draws it: `[t0, t1]` on a process.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct Piece {
    pub proc: ProcId,
    pub t0: f64,
    pub t1: f64,
}

/// The part of `path` (segments in time order, tiling the run) within
/// `[t0, t1]`, merged at columns `px` seconds wide (see the module's
/// documentation).
pub(crate) fn path_in(path: &[PathSegment], (t0, t1): (f64, f64), px: f64) -> Vec<Piece> {
    let first = path.partition_point(|s| s.end <= t0);
    let clipped = path[first..]
        .iter()
        .take_while(|s| s.start < t1)
        .map(|s| Piece {
            proc: s.proc,
            t0: s.start.max(t0),
            t1: s.end.min(t1),
        })
        .filter(|p| p.t1 > p.t0);
    let mut joined: Vec<Piece> = Vec::new();
    for p in clipped {
        push_piece(&mut joined, p);
    }
    let mut out: Vec<Piece> = Vec::new();
    // A group of narrow pieces: its start, end and time per process.
    let mut group: Group = None;
    let flush = |out: &mut Vec<Piece>, group: &mut Group| {
        if let Some((g0, g1, per)) = group.take() {
            let mut best = per[0];
            for &x in &per[1..] {
                if x.1 > best.1 {
                    best = x;
                }
            }
            push_piece(
                out,
                Piece {
                    proc: best.0,
                    t0: g0,
                    t1: g1,
                },
            );
        }
    };
    for p in joined {
        if p.t1 - p.t0 >= px {
            flush(&mut out, &mut group);
            push_piece(&mut out, p);
            continue;
        }
        let g = group.get_or_insert_with(|| (p.t0, p.t0, Vec::new()));
        g.1 = p.t1;
        match g.2.iter_mut().find(|x| x.0 == p.proc) {
            Some(x) => x.1 += p.t1 - p.t0,
            None => g.2.push((p.proc, p.t1 - p.t0)),
        }
        if g.1 - g.0 >= px {
            flush(&mut out, &mut group);
        }
    }
    flush(&mut out, &mut group);
    out
}

/// Appends `p`, joined to the last piece when it is of the same process.
fn push_piece(out: &mut Vec<Piece>, p: Piece) {
    if let Some(last) = out.last_mut() {
        if last.proc == p.proc {
            last.t1 = p.t1;
            return;
        }
    }
    out.push(p);
}

#[cfg(test)]
mod tests {
    use super::*;

    fn mark(t0: f64, t1: f64, pattern: u8) -> Mark {
        Mark {
            t0,
            t1,
            pattern,
            n: 1,
        }
    }

    #[test]
    fn wait_marks_merge_below_a_column_and_keep_their_main_pattern() {
        let marks = vec![
            mark(0.0, 5.0, 0),
            // Same pattern, a gap narrower than a column: one mark.
            mark(5.5, 9.0, 0),
            // Another pattern, both wide: a mark of its own.
            mark(9.2, 12.0, 3),
            // Narrow ones of other patterns just after: merged into it.
            mark(12.1, 12.3, 5),
            mark(12.4, 12.6, 5),
            // Far: a new mark.
            mark(20.0, 20.5, 5),
        ];
        let out = merge_marks(marks.into_iter(), 1.0);
        assert_eq!(
            out,
            vec![
                Mark {
                    t0: 0.0,
                    t1: 9.0,
                    pattern: 0,
                    n: 2
                },
                Mark {
                    t0: 9.2,
                    t1: 12.6,
                    pattern: 3,
                    n: 3
                },
                Mark {
                    t0: 20.0,
                    t1: 20.5,
                    pattern: 5,
                    n: 1
                },
            ]
        );
        // At a finer column, nothing merges.
        let fine = merge_marks([mark(0.0, 5.0, 0), mark(5.5, 9.0, 0)].into_iter(), 0.1);
        assert_eq!(fine.len(), 2);
    }

    #[test]
    fn a_merged_mark_takes_the_pattern_of_most_seconds() {
        let out = merge_marks(
            [mark(0.0, 0.1, 0), mark(0.15, 0.5, 4), mark(0.55, 0.6, 0)].into_iter(),
            1.0,
        );
        assert_eq!(out.len(), 1);
        assert_eq!((out[0].pattern, out[0].n), (4, 3));
    }

    #[test]
    fn window_marks_are_those_overlapping_it() {
        let w = |pattern, start: f64, duration| WaitState {
            pattern,
            call: 0,
            waited_for: None,
            start,
            duration,
        };
        // A long wait first: it overlaps a window after shorter ones start.
        let waits = [
            w(Pattern::WaitBarrier, 0.0, 10.0),
            w(Pattern::LateSender, 1.0, 1.0),
            w(Pattern::LateSender, 11.0, 1.0),
        ];
        let m = Marks::new(&waits, 1, |_| 0);
        let got = m.window(0, (5.0, 6.0), 0.001);
        assert_eq!(got.len(), 1);
        assert_eq!((got[0].t0, got[0].t1), (0.0, 10.0));
        assert_eq!(m.window(0, (10.5, 20.0), 0.001).len(), 1);
        assert!(m.window(1, (0.0, 20.0), 0.001).is_empty());
    }

    fn seg(proc: ProcId, start: f64, end: f64) -> PathSegment {
        PathSegment {
            proc,
            region: None,
            start,
            end,
        }
    }

    #[test]
    fn path_pieces_tile_the_window_and_merge_narrow_runs() {
        let path = [
            seg(0, 0.0, 4.0),
            seg(0, 4.0, 5.0),
            seg(1, 5.0, 5.2),
            seg(2, 5.2, 5.3),
            seg(1, 5.3, 5.8),
            seg(2, 5.8, 9.0),
            seg(3, 9.0, 10.0),
        ];
        let out = path_in(&path, (1.0, 9.5), 1.0);
        // Process 0 joined; the narrow run 5–5.8 given to 1 (0.7 s of it).
        assert_eq!(
            out,
            vec![
                Piece {
                    proc: 0,
                    t0: 1.0,
                    t1: 5.0
                },
                Piece {
                    proc: 1,
                    t0: 5.0,
                    t1: 5.8
                },
                Piece {
                    proc: 2,
                    t0: 5.8,
                    t1: 9.0
                },
                Piece {
                    proc: 3,
                    t0: 9.0,
                    t1: 9.5
                },
            ]
        );
        for p in out.windows(2) {
            assert_eq!(p[0].t1, p[1].t0);
        }
        // Finer columns keep every change of process.
        assert_eq!(path_in(&path, (0.0, 10.0), 0.01).len(), 6);
    }
}
