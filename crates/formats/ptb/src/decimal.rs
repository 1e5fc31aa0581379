//! Decimal texts stored as (mantissa, scale), keeping every digit.

use trama_num::Precision;

/// Largest scale stored as a decimal.
pub(crate) const MAX_SCALE: u8 = 30;

const POW10: [f64; 23] = [
    1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15, 1e16,
    1e17, 1e18, 1e19, 1e20, 1e21, 1e22,
];

/// Parses a canonical decimal `-?(0|[1-9][0-9]*)(\.[0-9]+)?` of at most 18
/// digits and [`MAX_SCALE`] decimals into (mantissa, scale). Anything else
/// (exponents, signs, leading zeros, `-0`, spaces) gives `None`: such texts
/// are stored as strings.
#[inline]
pub(crate) fn parse(text: &[u8]) -> Option<(i64, u8)> {
    let (neg, d) = match text.split_first()? {
        (b'-', rest) => (true, rest),
        _ => (false, text),
    };
    // At most 18 digits and a point: the digits below never overflow.
    if d.len() > 19 {
        return None;
    }
    let mut m = 0u64;
    let mut int_digits = 0;
    while let Some(&c) = d.get(int_digits) {
        let x = c.wrapping_sub(b'0');
        if x > 9 {
            break;
        }
        m = m.wrapping_mul(10).wrapping_add(x as u64);
        int_digits += 1;
    }
    if int_digits == 0 || (int_digits > 1 && d[0] == b'0') {
        return None;
    }
    let mut s = 0;
    if let Some((&point, frac)) = d[int_digits..].split_first() {
        if point != b'.' || frac.is_empty() {
            return None;
        }
        m = fraction(frac, m)?;
        s = frac.len();
    }
    if int_digits + s > 18 || s > MAX_SCALE as usize {
        return None;
    }
    let m = m as i64;
    if neg {
        if m == 0 {
            return None;
        }
        return Some((-m, s as u8));
    }
    Some((m, s as u8))
}

/// Appends the digits of `f` to `m` (wrapping), eight at a time while it
/// can; `None` if one is not a digit.
#[inline]
fn fraction(mut f: &[u8], mut m: u64) -> Option<u64> {
    while let Some((head, rest)) = f.split_first_chunk::<8>() {
        let x = u64::from_le_bytes(*head);
        // All eight are '0'..='9'?
        let low = x.wrapping_sub(0x3030_3030_3030_3030);
        if (x & 0xf0f0_f0f0_f0f0_f0f0) != 0x3030_3030_3030_3030
            || (low.wrapping_add(0x0606_0606_0606_0606) & 0xf0f0_f0f0_f0f0_f0f0) != 0
        {
            return None;
        }
        // Pairs, then quads, then the eight digits (first digit in the
        // lowest byte).
        let x = (low.wrapping_mul(10) + (low >> 8)) & 0x00ff_00ff_00ff_00ff;
        let x = (x.wrapping_mul(100) + (x >> 16)) & 0x0000_ffff_0000_ffff;
        let x = (x.wrapping_mul(10000) + (x >> 32)) & 0xffff_ffff;
        m = m.wrapping_mul(100_000_000).wrapping_add(x);
        f = rest;
    }
    for &c in f {
        let x = c.wrapping_sub(b'0');
        if x > 9 {
            return None;
        }
        m = m.wrapping_mul(10).wrapping_add(x as u64);
    }
    Some(m)
}

/// Writes the text of (m, s) back, as [`parse`] read it.
pub(crate) fn write(out: &mut Vec<u8>, m: i64, s: u8) {
    if m < 0 {
        out.push(b'-');
    }
    let mut digits = [0u8; 40];
    let mut n = 0;
    let mut u = m.unsigned_abs();
    while u > 0 || n <= s as usize {
        digits[n] = b'0' + (u % 10) as u8;
        u /= 10;
        n += 1;
    }
    for i in (0..n).rev() {
        out.push(digits[i]);
        if i == s as usize && s > 0 {
            out.push(b'.');
        }
    }
}

/// The value C's `strtod` reads from the text of (m, s).
#[inline(always)]
pub(crate) fn to_f64(m: i64, s: u8) -> f64 {
    if m.unsigned_abs() < (1 << 53) && s <= 22 {
        // Both operands are exact: one correctly rounded division.
        m as f64 / POW10[s as usize]
    } else {
        from_text(m, s, trama_num::atof)
    }
}

/// The value C's `strtof` reads from the text of (m, s), widened.
#[inline(always)]
pub(crate) fn to_f32(m: i64, s: u8) -> f32 {
    if m.unsigned_abs() < (1 << 24) && s <= 10 {
        m as f32 / POW10[s as usize] as f32
    } else {
        from_text(m, s, trama_num::strtof)
    }
}

/// A variable's value: what `precision` reads from the text of (m, s).
#[inline(always)]
pub(crate) fn value(m: i64, s: u8, precision: Precision) -> f64 {
    match precision {
        Precision::Float32 => to_f32(m, s) as f64,
        Precision::Double => to_f64(m, s),
    }
}

/// What `parse` reads from the text of (m, s): the slow path of
/// [`to_f64`] and [`to_f32`].
#[inline(never)]
fn from_text<T>(m: i64, s: u8, parse: impl FnOnce(&[u8]) -> T) -> T {
    let mut buf = Vec::with_capacity(48);
    write(&mut buf, m, s);
    parse(&buf)
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::strategy::Strategy;

    fn round(t: &str) -> Option<String> {
        let (m, s) = parse(t.as_bytes())?;
        let mut out = Vec::new();
        write(&mut out, m, s);
        Some(String::from_utf8(out).unwrap())
    }

    #[test]
    fn canonical_decimals_keep_their_digits() {
        for t in [
            "0",
            "0.000000",
            "8.325898472",
            "-3.5",
            "120",
            "0.05",
            "999999999999999999",
            "-0.000000001",
        ] {
            assert_eq!(round(t).as_deref(), Some(t), "{t}");
        }
    }

    #[test]
    fn long_digit_runs_read_as_one_at_a_time() {
        for t in [
            "12345678",
            "1.23456789",
            "98765432.1",
            "0.000000001",
            "123456789012345678",
            "8.00000000",
            "1234567.12345678",
        ] {
            let want: i64 = t
                .replace('.', "")
                .trim_start_matches('0')
                .parse()
                .unwrap_or(0);
            let s = t.find('.').map_or(0, |p| t.len() - p - 1);
            assert_eq!(parse(t.as_bytes()), Some((want, s as u8)), "{t}");
        }
        // A non-digit inside a run of eight.
        assert_eq!(parse(b"1.2345a789"), None);
        assert_eq!(parse(b"1234:6789"), None);
        assert_eq!(parse(b"12345678/"), None);
    }

    #[test]
    fn other_texts_are_refused() {
        for t in [
            "",
            "-",
            "-0",
            "-0.0",
            "00",
            "01.5",
            ".5",
            "5.",
            "1e3",
            "+1",
            " 1",
            "1.2.3",
            "nan",
            "1234567890123456789",
            "0x10",
        ] {
            assert_eq!(parse(t.as_bytes()), None, "{t}");
        }
        let long = format!("0.{}", "1".repeat(31));
        assert_eq!(parse(long.as_bytes()), None);
    }

    /// What `parse` accepts, said plainly.
    fn reference(t: &str) -> Option<(i64, u8)> {
        let d = t.strip_prefix('-').unwrap_or(t);
        let (int, frac) = match d.split_once('.') {
            Some((i, f)) if !f.is_empty() => (i, f),
            Some(_) => return None,
            None => (d, ""),
        };
        let digits = |x: &str| x.bytes().all(|c| c.is_ascii_digit());
        if int.is_empty()
            || !digits(int)
            || !digits(frac)
            || (int.len() > 1 && int.starts_with('0'))
        {
            return None;
        }
        if int.len() + frac.len() > 18 {
            return None;
        }
        let m: i64 = format!("{int}{frac}").parse().ok()?;
        if t.starts_with('-') {
            return (m != 0).then_some((-m, frac.len() as u8));
        }
        Some((m, frac.len() as u8))
    }

    proptest::proptest! {
        #[test]
        fn parse_accepts_what_the_reference_does(t in "-?[0-9]{0,12}(\\.[0-9]{0,12})?[0-9a.]?") {
            proptest::prop_assert_eq!(parse(t.as_bytes()), reference(&t), "{}", t);
        }

        /// Any bytes, digits and points most often, up to and past a
        /// time's usual length (8 to 16 bytes).
        #[test]
        fn parse_of_any_bytes_matches_the_reference(
            bytes in proptest::collection::vec::<_>(
                proptest::prop_oneof![
                    6 => proptest::num::u8::ANY.prop_map(|b| b'0' + b % 10),
                    2 => proptest::strategy::Just(b'.'),
                    1 => proptest::sample::select(b"-/:>\x1e\x2e\xae\xb0\x00 e".to_vec()),
                    1 => proptest::num::u8::ANY,
                ],
                0..20,
            )
        ) {
            let want = std::str::from_utf8(&bytes).ok().and_then(reference);
            proptest::prop_assert_eq!(parse(&bytes), want, "{:?}", bytes);
        }
    }

    #[test]
    fn every_point_position_in_8_to_17_digits() {
        for n in 8..=17 {
            let digits: String = (0..n).map(|i| char::from(b'1' + (i % 9) as u8)).collect();
            for at in 0..=n {
                let t = format!("{}.{}", &digits[..at], &digits[at..]);
                assert_eq!(parse(t.as_bytes()), reference(&t), "{t}");
                let t = format!("-{t}");
                assert_eq!(parse(t.as_bytes()), reference(&t), "{t}");
                let z = format!("0{}", &t[1..]);
                assert_eq!(parse(z.as_bytes()), reference(&z), "{z}");
            }
            assert_eq!(parse(digits.as_bytes()), reference(&digits), "{digits}");
        }
    }

    #[test]
    fn values_match_the_c_library() {
        for t in [
            "0.1",
            "8.325898472",
            "-2.75",
            "123456789.123456789",
            "0.00000000000000001",
            "96.8",
            "16777217",
            "3.4028236",
        ] {
            let (m, s) = parse(t.as_bytes()).unwrap();
            assert_eq!(
                to_f64(m, s).to_bits(),
                trama_num::atof(t.as_bytes()).to_bits(),
                "{t}"
            );
            assert_eq!(
                to_f32(m, s).to_bits(),
                trama_num::strtof(t.as_bytes()).to_bits(),
                "{t}"
            );
        }
    }
}
