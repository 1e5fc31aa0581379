//! The text of a trace's words and times.

use std::fmt;

use crate::record::Nanos;

/// Appends a word, quoted when it holds blanks or is empty.
pub(super) fn push_word(out: &mut Vec<u8>, w: &str) {
    let needs_quotes = w.is_empty()
        || w.bytes()
            .any(|b| b.is_ascii_whitespace() || b == b'"' || b == b'#');
    if !needs_quotes {
        out.extend_from_slice(w.as_bytes());
        return;
    }
    out.push(b'"');
    for b in w.bytes() {
        out.push(match b {
            b'"' => b'\'',
            b'\n' | b'\r' | b'\t' => b' ',
            b => b,
        });
    }
    out.push(b'"');
}

/// A time in nanoseconds printed as seconds with `decimals` decimals,
/// rounded half away from zero.
pub struct TimeText(pub Nanos, pub u32);

impl fmt::Display for TimeText {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let TimeText(t, decimals) = *self;
        let neg = t < 0;
        let mut abs = (t as i128).unsigned_abs();
        let drop = 10u128.pow(9 - decimals.min(9));
        abs = (abs + drop / 2) / drop;
        let scale = 10u128.pow(decimals.min(9));
        let (secs, frac) = (abs / scale, abs % scale);
        if neg && abs != 0 {
            f.write_str("-")?;
        }
        if decimals == 0 {
            write!(f, "{secs}")
        } else {
            write!(f, "{secs}.{frac:0width$}", width = decimals as usize)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn times_are_exact() {
        assert_eq!(TimeText(1_500_000_001, 9).to_string(), "1.500000001");
        assert_eq!(TimeText(-1_500_000_001, 9).to_string(), "-1.500000001");
        assert_eq!(TimeText(1_500_000_500, 6).to_string(), "1.500001");
        assert_eq!(
            TimeText(1_094_222_084_364_200_000, 6).to_string(),
            "1094222084.364200"
        );
        assert_eq!(TimeText(499_999_999, 0).to_string(), "0");
        assert_eq!(TimeText(-1, 6).to_string(), "0.000000");
    }
}
