//! The text of a trace's words and times.

use std::fmt;

use crate::record::Nanos;

/// A time in nanoseconds printed as seconds with `decimals` decimals,
/// rounded half away from zero.
pub struct TimeText(pub Nanos, pub u32);

impl fmt::Display for TimeText {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut out = Vec::with_capacity(32);
        push_time(&mut out, self.0, self.1);
        f.write_str(std::str::from_utf8(&out).expect("digits"))
    }
}

/// Appends `t` nanoseconds as seconds with `decimals` decimals (at most
/// 9), rounded half away from zero (see [`TimeText`]).
pub(super) fn push_time(out: &mut Vec<u8>, t: Nanos, decimals: u32) {
    let decimals = decimals.min(9);
    let neg = t < 0;
    // |i64::MIN| + a half fits in a u64.
    let mut abs = t.unsigned_abs();
    let drop = 10u64.pow(9 - decimals);
    abs = abs / drop + u64::from(abs % drop >= drop.div_ceil(2) && drop > 1);
    let scale = 10u64.pow(decimals);
    let (secs, frac) = (abs / scale, abs % scale);
    if neg && abs != 0 {
        out.push(b'-');
    }
    push_digits(out, secs, 0);
    if decimals > 0 {
        out.push(b'.');
        push_digits(out, frac, decimals as usize);
    }
}

/// Appends `n` in decimal, with at least `width` digits (zeros before).
fn push_digits(out: &mut Vec<u8>, n: u64, width: usize) {
    let mut buf = itoa::Buffer::new();
    let digits = buf.format(n).as_bytes();
    out.resize(out.len() + width.saturating_sub(digits.len()), b'0');
    out.extend_from_slice(digits);
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
        assert_eq!(TimeText(1_499, 6).to_string(), "0.000001");
        assert_eq!(TimeText(1_500, 6).to_string(), "0.000002");
        assert_eq!(TimeText(-1_500, 6).to_string(), "-0.000002");
        assert_eq!(TimeText(i64::MIN, 9).to_string(), "-9223372036.854775808");
        assert_eq!(TimeText(i64::MAX, 0).to_string(), "9223372037");
    }
}
