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

/// Appends `v` (finite) as Rust's `Display` prints it (the shortest
/// digits that read back as `v`, never in exponent form): integers,
/// the most common values, without the formatting machinery.
pub(super) fn push_f64(out: &mut String, v: f64) {
    // Up to 2^53 every integer is exact: its digits are Display's.
    if v.fract() == 0.0 && v.abs() < 9_007_199_254_740_992.0 {
        if v == 0.0 && v.is_sign_negative() {
            out.push_str("-0");
        } else {
            out.push_str(itoa::Buffer::new().format(v as i64));
        }
        return;
    }
    // (Ryū's digits differ from Display's on ties: `1658206780088562.25`.)
    use std::fmt::Write as _;
    let _ = write!(out, "{v}");
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

    /// Regression: numbers of variables print as `Display` does, digit
    /// for digit, whatever their size (the fast paths included).
    #[test]
    fn numbers_print_as_display() {
        let mut x: u64 = 0x9e37_79b9_7f4a_7c15;
        let mut values = vec![
            0.0,
            -0.0,
            1.0,
            -1.0,
            0.1,
            947.4,
            1e15,
            1e16,
            1e17,
            1e21,
            1e22,
            1.5e-7,
            1e-5,
            1e-4,
            123456.789e3,
            9_007_199_254_740_992.0,
            -9_007_199_254_740_993.0,
            f64::MAX,
            f64::MIN_POSITIVE,
            5e-324,
            1_658_206_780_088_562.2,
        ];
        for _ in 0..200_000 {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            let v = f64::from_bits(x);
            if v.is_finite() {
                values.push(v);
            }
            // Decimals and integers of ordinary sizes too.
            values.push((x % 10_000_000) as f64 / 1000.0);
            values.push((x % 1_000_000_007) as f64);
        }
        for v in values {
            let mut s = String::new();
            push_f64(&mut s, v);
            assert_eq!(s, v.to_string(), "{v:e}");
        }
    }

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
