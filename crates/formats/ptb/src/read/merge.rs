//! The order of the events of a frame whose runs are merged by time.

use crate::varint::Cursor;

/// The order of two events of merged runs, by (time, run) (times are
/// never NaN nor -0 there, see [`mergeable_time`]).
pub(crate) fn merge_order(a: (f64, u32), b: (f64, u32)) -> std::cmp::Ordering {
    a.0.partial_cmp(&b.0)
        .unwrap_or(std::cmp::Ordering::Equal)
        .then(a.1.cmp(&b.1))
}

/// Can a merged run hold this time (equal times are then the same bits)?
#[inline]
pub(crate) fn mergeable_time(t: f64) -> bool {
    !t.is_nan() && t.to_bits() != (-0.0f64).to_bits()
}

/// The order of merged runs: `keys` holds each event's (time, run) in run
/// order, each run's times never decreasing; the result lists positions in
/// `keys`. Events go by time; where the heads of several runs have the same
/// time, the next entry of `ties` names the run to take. `None` when `ties`
/// does not match: an entry missing, naming a run with no event left at
/// that time, or left over at the end.
pub(crate) fn merge_runs(keys: &[(f64, u32)], ties: &[u8]) -> Option<Vec<usize>> {
    let mut idx: Vec<usize> = (0..keys.len()).collect();
    // Stable: within a time, by run, then rank in the run.
    idx.sort_by(|&a, &b| merge_order(keys[a], keys[b]));
    let mut ties = Cursor::new(ties);
    let mut out = Vec::with_capacity(keys.len());
    let mut segs: Vec<(u32, usize, usize)> = Vec::new();
    let mut i = 0;
    while i < idx.len() {
        let t = keys[idx[i]].0;
        let mut j = i + 1;
        while j < idx.len() && keys[idx[j]].0 == t {
            j += 1;
        }
        // The group's runs: (run, next, end) over idx[i..j].
        segs.clear();
        for n in i..j {
            let k = keys[idx[n]].1;
            match segs.last_mut() {
                Some(s) if s.0 == k => s.2 = n + 1,
                _ => segs.push((k, n, n + 1)),
            }
        }
        let mut live = segs.len();
        for _ in i..j {
            let pick = if live > 1 {
                let want = ties.varint()?;
                segs.iter().position(|s| s.1 < s.2 && want == s.0 as u64)?
            } else {
                segs.iter().position(|s| s.1 < s.2)?
            };
            let s = &mut segs[pick];
            out.push(idx[s.1]);
            s.1 += 1;
            if s.1 == s.2 {
                live -= 1;
            }
        }
        i = j;
    }
    ties.at_end().then_some(out)
}

#[cfg(test)]
mod tests {
    use super::merge_runs;

    #[test]
    fn ties_must_match_the_runs() {
        // Run 0 at positions 0-1, run 1 at 2-3; both at times 1 and 2.
        let keys = [(1.0, 0), (2.0, 0), (1.0, 1), (2.0, 1)];
        // Each time, the first pick is between two runs (one entry), the
        // second is forced.
        assert_eq!(merge_runs(&keys, &[1, 0]), Some(vec![2, 0, 1, 3]));
        assert_eq!(merge_runs(&keys, &[0, 1]), Some(vec![0, 2, 3, 1]));
        assert_eq!(merge_runs(&keys, &[1]), None, "an entry missing");
        assert_eq!(merge_runs(&keys, &[5, 0]), None, "no such run");
        assert_eq!(merge_runs(&keys, &[1, 0, 0]), None, "an entry left over");
        // No ties: no entries.
        assert_eq!(merge_runs(&[(1.0, 0), (2.0, 1)], &[]), Some(vec![0, 1]));
        assert_eq!(merge_runs(&[(1.0, 0), (2.0, 1)], &[0]), None);
    }
}
