//! Labels that stay legible when there are many: names shortened by what
//! they all share (as the viewer's player does), and boxes that must not
//! overlap.

/// The box a label of `chars` characters takes at 11 pixels, its text
/// starting at `(x, y)` (the baseline) with `anchor`: (x0, y0, x1, y1).
pub(crate) fn label_box(x: f64, y: f64, chars: usize, anchor: &str) -> (f64, f64, f64, f64) {
    let w = 6.6 * chars as f64;
    let x0 = match anchor {
        "end" => x - w,
        "middle" => x - w / 2.0,
        _ => x,
    };
    (x0, y - 10.0, x0 + w, y + 2.0)
}

/// Whether two boxes (x0, y0, x1, y1) overlap.
pub(crate) fn overlaps(a: (f64, f64, f64, f64), b: (f64, f64, f64, f64)) -> bool {
    a.0 < b.2 && b.0 < a.2 && a.1 < b.3 && b.1 < a.3
}

/// The prefix every name shares up to a word's end (after a character
/// neither a letter nor a digit, or between a letter and a digit), kept
/// only when each name keeps something after it: "MPI Rank 3",
/// "MPI Rank 12" → "MPI Rank ".
fn shared_prefix(names: &[Vec<char>]) -> usize {
    if names.len() < 2 {
        return 0;
    }
    let first = &names[0];
    let mut p = first.len();
    for s in names {
        p = p.min(first.iter().zip(s).take_while(|(a, b)| a == b).count());
    }
    let digit_at = |s: &Vec<char>, c: usize| s.get(c).is_some_and(|x| x.is_numeric());
    let ends = |c: usize| {
        c == 0
            || !first[c - 1].is_alphanumeric()
            || (!first[c - 1].is_numeric() && names.iter().all(|s| digit_at(s, c)))
    };
    while !ends(p) {
        p -= 1;
    }
    if names.iter().all(|s| s.len() > p) {
        p
    } else {
        0
    }
}

/// `names` as short as they can be told apart: what they all share before
/// and after left out ("Master thread (MPI Rank 3)" → "3"). Gives the
/// short names and what they leave out ("Master thread (MPI Rank …)"; empty
/// when nothing is).
pub(crate) fn short_names(names: &[String]) -> (Vec<String>, String) {
    let chars: Vec<Vec<char>> = names.iter().map(|s| s.chars().collect()).collect();
    let pre = shared_prefix(&chars);
    let mids: Vec<Vec<char>> = chars.iter().map(|s| s[pre..].to_vec()).collect();
    let backs: Vec<Vec<char>> = mids
        .iter()
        .map(|s| s.iter().rev().copied().collect())
        .collect();
    let suf = shared_prefix(&backs);
    if pre == 0 && suf == 0 {
        return (names.to_vec(), String::new());
    }
    let short = mids
        .iter()
        .map(|s| s[..s.len() - suf].iter().collect())
        .collect();
    let prefix: String = chars[0][..pre].iter().collect();
    let suffix: String = mids[0][mids[0].len() - suf..].iter().collect();
    (short, format!("{prefix}…{suffix}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn v(names: &[&str]) -> Vec<String> {
        names.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn names_are_shortened_by_what_they_all_share() {
        let (short, shared) = short_names(&v(&[
            "Master thread (MPI Rank 0)",
            "Master thread (MPI Rank 12)",
            "Master thread (MPI Rank 10)",
        ]));
        assert_eq!(short, v(&["0", "12", "10"]));
        assert_eq!(shared, "Master thread (MPI Rank …)");
        assert_eq!(short_names(&v(&["rank12", "rank3"])).0, v(&["12", "3"]));
        // Not inside a word; nothing shared: as they are.
        assert_eq!(
            short_names(&v(&["alpha", "alps"])),
            (v(&["alpha", "alps"]), String::new())
        );
        assert_eq!(short_names(&v(&["one"])), (v(&["one"]), String::new()));
    }
}
