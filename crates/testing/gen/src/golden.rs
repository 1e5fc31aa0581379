//! Golden files: a test compares what it produces with a file committed
//! beside it, and rewrites that file when asked.
//!
//! [`check`] compares `actual` with the file at `path`, byte for byte, and
//! panics naming the file (and the first line that differs, for text) when
//! they differ or the file is missing. With the environment variable
//! `TRAMA_BLESS=1` it writes `actual` to the file instead, making its
//! folder: run the tests so after a change of output that is meant, then
//! review the files' diff and commit it. Any other value, or none, checks.

use std::path::Path;

/// The environment variable that makes [`check`] write instead of compare.
pub const BLESS_VAR: &str = "TRAMA_BLESS";

/// Whether this run rewrites golden files (`TRAMA_BLESS=1`).
pub fn blessing() -> bool {
    std::env::var(BLESS_VAR).as_deref() == Ok("1")
}

/// Checks `actual` against the golden file at `path`, or writes it there
/// with `TRAMA_BLESS=1` (see the [module](self) documentation).
#[track_caller]
pub fn check(path: impl AsRef<Path>, actual: impl AsRef<[u8]>) {
    check_or_bless(path.as_ref(), actual.as_ref(), blessing());
}

#[track_caller]
fn check_or_bless(path: &Path, actual: &[u8], bless: bool) {
    if bless {
        if let Some(dir) = path.parent() {
            std::fs::create_dir_all(dir)
                .unwrap_or_else(|e| panic!("cannot make {}: {e}", dir.display()));
        }
        std::fs::write(path, actual)
            .unwrap_or_else(|e| panic!("cannot write {}: {e}", path.display()));
        return;
    }
    let want = std::fs::read(path).unwrap_or_else(|e| {
        panic!(
            "golden file {}: {e} ({BLESS_VAR}=1 writes it)",
            path.display()
        )
    });
    if want != actual {
        panic!(
            "{} differs from what the test produced{} ({BLESS_VAR}=1 rewrites it)",
            path.display(),
            first_difference(&want, actual)
        );
    }
}

/// Where two texts part, as `: line N is ... instead of ...`; empty for
/// bytes that are not text.
fn first_difference(want: &[u8], got: &[u8]) -> String {
    let (Ok(want), Ok(got)) = (std::str::from_utf8(want), std::str::from_utf8(got)) else {
        return String::new();
    };
    let mut w = want.lines();
    let mut g = got.lines();
    for n in 1.. {
        match (w.next(), g.next()) {
            (Some(a), Some(b)) if a == b => continue,
            (None, None) => break,
            (a, b) => {
                let show = |l: Option<&str>| match l {
                    Some(l) => format!("{:?}", l.chars().take(120).collect::<String>()),
                    None => "the end".to_string(),
                };
                return format!(": line {n} is {} instead of {}", show(b), show(a));
            }
        }
    }
    String::new()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn blesses_then_checks() {
        let dir = std::env::temp_dir().join(format!("trama-golden-{}", std::process::id()));
        let path = dir.join("sub/out.txt");
        check_or_bless(&path, b"a\nb\n", true);
        assert_eq!(std::fs::read(&path).unwrap(), b"a\nb\n");
        check_or_bless(&path, b"a\nb\n", false);
        let e = std::panic::catch_unwind(|| check_or_bless(&path, b"a\nc\n", false))
            .unwrap_err()
            .downcast::<String>()
            .unwrap();
        assert!(
            e.contains("out.txt") && e.contains("line 2 is \"c\" instead of \"b\""),
            "{e}"
        );
        let missing = dir.join("none.txt");
        let e = std::panic::catch_unwind(|| check_or_bless(&missing, b"", false))
            .unwrap_err()
            .downcast::<String>()
            .unwrap();
        assert!(e.contains("none.txt") && e.contains("TRAMA_BLESS=1"), "{e}");
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
