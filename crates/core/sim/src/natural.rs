//! The order in which people read names: numbers inside names by value,
//! so that `rank-8`, `rank-9` come before `rank-10`. Every view that orders
//! rows, hosts, values or legend entries by name uses [`natural_cmp`]; the
//! viewer's page compares names the same way (`natural` in
//! `crates/outputs/viewer/assets/util.js`).
//!
//! The rule: both names are cut into runs of ASCII digits and single other
//! bytes; two runs of digits compare by value (leading zeros ignored),
//! other bytes by their value, a digit run before any other byte only when
//! its first digit's byte is smaller; a name that is the beginning of the
//! other comes first; names equal this way (`r01`, `r1`) are ordered by
//! their bytes, so that only equal names are equal.

use std::cmp::Ordering;

/// `a` against `b` in natural order (see the module's documentation).
pub fn natural_cmp(a: &str, b: &str) -> Ordering {
    natural_cmp_bytes(a.as_bytes(), b.as_bytes())
}

/// [`natural_cmp`] on bytes (names as a trace stores them).
pub fn natural_cmp_bytes(a: &[u8], b: &[u8]) -> Ordering {
    let (mut i, mut j) = (0, 0);
    while i < a.len() && j < b.len() {
        if a[i].is_ascii_digit() && b[j].is_ascii_digit() {
            let (x, next_i) = digits(a, i);
            let (y, next_j) = digits(b, j);
            let o = x.len().cmp(&y.len()).then_with(|| x.cmp(y));
            if o != Ordering::Equal {
                return o;
            }
            (i, j) = (next_i, next_j);
        } else {
            if a[i] != b[j] {
                return a[i].cmp(&b[j]);
            }
            (i, j) = (i + 1, j + 1);
        }
    }
    (a.len() - i).cmp(&(b.len() - j)).then_with(|| a.cmp(b))
}

/// The run of digits of `s` from `at`, without its leading zeros, and
/// where it ends.
fn digits(s: &[u8], at: usize) -> (&[u8], usize) {
    let end = at + s[at..].iter().take_while(|c| c.is_ascii_digit()).count();
    let first = at + s[at..end].iter().take_while(|c| **c == b'0').count();
    (&s[first..end], end)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_inside_names_by_value() {
        let mut v = vec![
            "rank-10", "rank-9", "rank-1", "rank-15", "rank-8", "rank-02", "rank-2", "node", "",
            "rank-", "rank-1a", "rank-1-3", "a10b2", "a10b10", "a9b99",
        ];
        v.sort_by(|a, b| natural_cmp(a, b));
        assert_eq!(
            v,
            [
                "", "a9b99", "a10b2", "a10b10", "node", "rank-", "rank-1", "rank-1-3", "rank-1a",
                "rank-02", "rank-2", "rank-8", "rank-9", "rank-10", "rank-15",
            ]
        );
        assert_eq!(natural_cmp("x", "x"), Ordering::Equal);
        assert_eq!(
            natural_cmp("99999999999999999999999", "100000000000000000000000"),
            Ordering::Less
        );
    }
}
