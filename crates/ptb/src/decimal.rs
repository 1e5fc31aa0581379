//! Decimal texts stored as (mantissa, scale), keeping every digit.

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
    let (neg, digits) = match text.first()? {
        b'-' => (true, &text[1..]),
        _ => (false, text),
    };
    let mut m: i64 = 0;
    let mut ndigits = 0usize;
    let mut scale: Option<usize> = None;
    let mut int_digits = 0usize;
    for (i, &b) in digits.iter().enumerate() {
        match b {
            b'0'..=b'9' => {
                if scale.is_none() {
                    if int_digits == 1 && digits[0] == b'0' {
                        return None; // leading zero
                    }
                    int_digits += 1;
                }
                ndigits += 1;
                if ndigits > 18 {
                    return None;
                }
                m = m * 10 + (b - b'0') as i64;
            }
            b'.' if scale.is_none() && i > 0 => scale = Some(i + 1),
            _ => return None,
        }
    }
    let s = match scale {
        Some(start) => digits.len() - start,
        None => 0,
    };
    if int_digits == 0 || (scale.is_some() && s == 0) || s > MAX_SCALE as usize {
        return None;
    }
    if neg {
        if m == 0 {
            return None;
        }
        m = -m;
    }
    Some((m, s as u8))
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
        to_f64_text(m, s)
    }
}

#[inline(never)]
fn to_f64_text(m: i64, s: u8) -> f64 {
    let mut buf = Vec::with_capacity(48);
    write(&mut buf, m, s);
    trama_num::atof(&buf)
}

/// The value C's `strtof` reads from the text of (m, s), widened.
#[inline(always)]
pub(crate) fn to_f32(m: i64, s: u8) -> f32 {
    if m.unsigned_abs() < (1 << 24) && s <= 10 {
        m as f32 / POW10[s as usize] as f32
    } else {
        to_f32_text(m, s)
    }
}

#[inline(never)]
fn to_f32_text(m: i64, s: u8) -> f32 {
    let mut buf = Vec::with_capacity(48);
    write(&mut buf, m, s);
    trama_num::strtof(&buf)
}

#[cfg(test)]
mod tests {
    use super::*;

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
