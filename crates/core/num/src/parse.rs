//! glibc-compatible `strtod`/`strtof`.
//!
//! The grammar follows glibc's `strtod_l.c` in the C locale: leading
//! `isspace` characters, an optional sign, then one of
//!
//! * a decimal number `digits [. digits] [(e|E) [sign] digits]` with at least
//!   one mantissa digit (an exponent marker not followed by digits is not
//!   consumed);
//! * a hexadecimal number `0x hexdigits [. hexdigits] [(p|P) [sign] digits]`
//!   with at least one hex digit (otherwise only the leading `0` is consumed);
//! * `inf` or `infinity`, case-insensitive;
//! * `nan` or `nan(chars)` where chars are `[A-Za-z0-9_]*`, case-insensitive;
//!   the chars, when they are a complete `strtoull(.., 0)` number, become the
//!   NaN payload like glibc's `SET_NAN_PAYLOAD`.
//!
//! When nothing matches, the result is `+0.0` and nothing is consumed.
//!
//! Decimal conversion uses Clinger's fast path when it is exact and Rust's
//! correctly rounded `str::parse` otherwise; hexadecimal conversion is done
//! here with explicit round-half-even.

/// Target floating-point type of a parse: an IEEE 754 binary format, known
/// by the widths of its fields.
pub(crate) trait Float: Copy + core::ops::Neg<Output = Self> + core::str::FromStr {
    /// Number of explicit mantissa bits (52 or 23).
    const MANT_BITS: u32;
    /// Number of exponent bits (11 or 8).
    const EXP_BITS: u32;
    /// Exponent bias (1023 or 127).
    const BIAS: i64 = (1 << (Self::EXP_BITS - 1)) - 1;
    /// Largest biased exponent field (all ones: inf/NaN).
    const MAX_FIELD: i64 = (1 << Self::EXP_BITS) - 1;
    /// Mask of the NaN payload bits glibc sets from `nan(n)`: every
    /// mantissa bit but the quiet bit (glibc's `mantissa0` and `mantissa1`
    /// of `ieee_nan` for a double, its `mantissa` for a float).
    const NAN_PAYLOAD_MASK: u64 = (1 << (Self::MANT_BITS - 1)) - 1;
    /// Positive infinity's bits.
    const INF_BITS: u64 = (Self::MAX_FIELD as u64) << Self::MANT_BITS;
    /// The default quiet NaN bits (glibc's `NAN`): the quiet bit alone.
    const NAN_BITS: u64 = Self::INF_BITS | 1 << (Self::MANT_BITS - 1);
    /// Positive zero.
    const ZERO: Self;
    /// Builds a value from raw (sign-less) bits.
    fn from_raw(bits: u64) -> Self;
    /// Clinger's fast path: exact conversion of `m * 10^e` when possible.
    fn fast(m: u64, e: i64) -> Option<Self>;
    /// Correctly rounded conversion of a validated, sign-less decimal.
    fn slow(s: &str) -> Self {
        // The caller validated the syntax; Rust's grammar is a superset of
        // the validated one, so this cannot fail.
        s.parse().unwrap_or(Self::ZERO)
    }
}

/// Exact powers of ten representable in an f64 (10^0 ..= 10^22).
pub(crate) const POW10_F64: [f64; 23] = [
    1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15, 1e16,
    1e17, 1e18, 1e19, 1e20, 1e21, 1e22,
];

/// Powers of ten as integers, 10^0 ..= 10^19.
pub(crate) const POW10_U64: [u64; 20] = [
    1,
    10,
    100,
    1_000,
    10_000,
    100_000,
    1_000_000,
    10_000_000,
    100_000_000,
    1_000_000_000,
    10_000_000_000,
    100_000_000_000,
    1_000_000_000_000,
    10_000_000_000_000,
    100_000_000_000_000,
    1_000_000_000_000_000,
    10_000_000_000_000_000,
    100_000_000_000_000_000,
    1_000_000_000_000_000_000,
    10_000_000_000_000_000_000,
];

/// Clinger's fast path in f64: `m * 10^e` with a single rounding.
///
/// When `m < 2^53` both `m` and `10^|e|` (|e| <= 22) are exact doubles, so a
/// single IEEE multiplication or division yields the correctly rounded
/// result. For `e > 22`, if `m * 10^(e-22)` is still an exact integer below
/// 2^53, the same argument applies to `(m * 10^(e-22)) * 10^22`.
#[inline(always)]
fn clinger_f64(m: u64, e: i64) -> Option<f64> {
    const TWO53: u64 = 1 << 53;
    if m >= TWO53 {
        return None;
    }
    let mf = m as f64;
    if e == 0 {
        Some(mf)
    } else if (1..=22).contains(&e) {
        Some(mf * POW10_F64[e as usize])
    } else if (-22..0).contains(&e) {
        Some(mf / POW10_F64[(-e) as usize])
    } else if (23..=22 + 15).contains(&e) {
        let k = (e - 22) as usize;
        let mm = m.checked_mul(POW10_U64[k])?;
        if mm >= TWO53 {
            return None;
        }
        Some(mm as f64 * 1e22)
    } else {
        None
    }
}

impl Float for f64 {
    const MANT_BITS: u32 = 52;
    const EXP_BITS: u32 = 11;
    const ZERO: Self = 0.0;

    #[inline(always)]
    fn from_raw(bits: u64) -> Self {
        f64::from_bits(bits)
    }

    #[inline(always)]
    fn fast(m: u64, e: i64) -> Option<Self> {
        clinger_f64(m, e)
    }
}

impl Float for f32 {
    const MANT_BITS: u32 = 23;
    const EXP_BITS: u32 = 8;
    const ZERO: Self = 0.0;

    #[inline(always)]
    fn from_raw(bits: u64) -> Self {
        f32::from_bits(bits as u32)
    }

    /// f32 fast path through an exact f64 Clinger conversion.
    ///
    /// `d = round64(x)` is correctly rounded. Every f32 rounding boundary
    /// (the midpoint between two adjacent f32 values, including the overflow
    /// threshold 2^128 - 2^103) is exactly representable as an f64, and
    /// rounding is monotone, so `round64(x)` lies on the same side of every
    /// boundary as `x` unless it lands exactly on one. Hence if `d` is not
    /// an f32 midpoint, `d as f32 == round32(x)` (no double rounding).
    /// Clinger results are >= 1e-22 > f32::MIN_POSITIVE, so only the normal
    /// range matters: a midpoint has its low 29 mantissa bits equal to
    /// `1 << 28`.
    #[inline(always)]
    fn fast(m: u64, e: i64) -> Option<Self> {
        let d = clinger_f64(m, e)?;
        let low = d.to_bits() & ((1 << 29) - 1);
        if low == 1 << 28 || (d != 0.0 && d < f32::MIN_POSITIVE as f64) {
            return None;
        }
        Some(d as f32)
    }
}

/// C-locale `isspace`.
#[inline(always)]
fn is_space(b: u8) -> bool {
    b == b' ' || (b'\t'..=b'\r').contains(&b)
}

#[inline(always)]
fn hex_val(b: u8) -> Option<u64> {
    match b {
        b'0'..=b'9' => Some((b - b'0') as u64),
        b'a'..=b'f' => Some((b - b'a' + 10) as u64),
        b'A'..=b'F' => Some((b - b'A' + 10) as u64),
        _ => None,
    }
}

/// Case-insensitive prefix test (`pat` is lower case).
#[inline]
fn starts_with_ci(s: &[u8], pat: &[u8]) -> bool {
    s.len() >= pat.len() && s.iter().zip(pat).all(|(a, b)| a.to_ascii_lowercase() == *b)
}

/// Scans an optional sign at `s[i]`: whether it is `-`, and the index
/// after it.
#[inline(always)]
fn scan_sign(s: &[u8], i: usize) -> (bool, usize) {
    match s.get(i) {
        Some(b'-') => (true, i + 1),
        Some(b'+') => (false, i + 1),
        _ => (false, i),
    }
}

/// Scans an exponent `[+-]digits` starting at `s[i]` (just after the
/// marker). Returns the saturated signed exponent and the end index, or None
/// when there are no digits (the marker is then not consumed).
#[inline]
fn scan_exponent(s: &[u8], i: usize) -> Option<(i64, usize)> {
    let (neg, mut i) = scan_sign(s, i);
    if !matches!(s.get(i), Some(b'0'..=b'9')) {
        return None;
    }
    let mut e: i64 = 0;
    while let Some(&c) = s.get(i) {
        if !c.is_ascii_digit() {
            break;
        }
        // Saturate: anything this large overflows/underflows anyway, and
        // the cap keeps later additions of digit counts from overflowing.
        if e < 1_000_000_000 {
            e = e * 10 + (c - b'0') as i64;
        }
        i += 1;
    }
    Some((if neg { -e } else { e }, i))
}

/// glibc `strtod`/`strtof`: returns the value and the number of bytes used.
#[inline]
pub(crate) fn parse<F: Float>(s: &[u8]) -> (F, usize) {
    let mut i = 0;
    while i < s.len() && is_space(s[i]) {
        i += 1;
    }
    let (neg, i) = scan_sign(s, i);
    let (v, end) = match s.get(i) {
        Some(b'0'..=b'9') | Some(b'.') => {
            if s[i] == b'0' && matches!(s.get(i + 1), Some(b'x') | Some(b'X')) {
                parse_hex::<F>(s, i)
            } else {
                match parse_decimal::<F>(s, i) {
                    Some(r) => r,
                    None => return (F::ZERO, 0),
                }
            }
        }
        Some(b'i') | Some(b'I') if starts_with_ci(&s[i..], b"inf") => {
            let n = if starts_with_ci(&s[i + 3..], b"inity") {
                8
            } else {
                3
            };
            (F::from_raw(F::INF_BITS), i + n)
        }
        Some(b'n') | Some(b'N') if starts_with_ci(&s[i..], b"nan") => parse_nan::<F>(s, i + 3),
        _ => return (F::ZERO, 0),
    };
    (if neg { -v } else { v }, end)
}

/// Loads 8 bytes at `s[i..i + 8]` as a little-endian word, if available.
#[inline(always)]
fn load8(s: &[u8], i: usize) -> Option<u64> {
    let chunk: [u8; 8] = s.get(i..i + 8)?.try_into().ok()?;
    Some(u64::from_le_bytes(chunk))
}

/// Whether all 8 bytes of the word are ASCII digits (SWAR).
#[inline(always)]
fn is_8_digits(v: u64) -> bool {
    let a = v.wrapping_add(0x4646_4646_4646_4646);
    let b = v.wrapping_sub(0x3030_3030_3030_3030);
    (a | b) & 0x8080_8080_8080_8080 == 0
}

/// Value of 8 ASCII digits (first digit in the lowest byte), SWAR.
#[inline(always)]
fn parse_8_digits(v: u64) -> u64 {
    const MASK: u64 = 0x0000_00ff_0000_00ff;
    const MUL1: u64 = 100 + (1_000_000 << 32);
    const MUL2: u64 = 1 + (10_000 << 32);
    let v = v.wrapping_sub(0x3030_3030_3030_3030);
    let v = v.wrapping_mul(10).wrapping_add(v >> 8);
    let v1 = (v & MASK).wrapping_mul(MUL1);
    let v2 = ((v >> 16) & MASK).wrapping_mul(MUL2);
    (v1.wrapping_add(v2) >> 32) as u32 as u64
}

/// Scans digits from `s[i]`, accumulating them (wrapping) into `mant`.
/// Returns the end index.
#[inline(always)]
fn scan_digits(s: &[u8], mut i: usize, mant: &mut u64) -> usize {
    while let Some(w) = load8(s, i) {
        if !is_8_digits(w) {
            break;
        }
        *mant = mant
            .wrapping_mul(100_000_000)
            .wrapping_add(parse_8_digits(w));
        i += 8;
    }
    while let Some(&c) = s.get(i) {
        let d = c.wrapping_sub(b'0');
        if d > 9 {
            break;
        }
        *mant = mant.wrapping_mul(10).wrapping_add(d as u64);
        i += 1;
    }
    i
}

/// Decimal number starting at `s[start]` (a digit or '.'). None when there
/// is no mantissa digit.
#[inline(always)]
fn parse_decimal<F: Float>(s: &[u8], start: usize) -> Option<(F, usize)> {
    // All digits are accumulated with wrapping arithmetic; the result is
    // only used when there are at most 19 significant digits, where it is
    // exact (< 10^19 < 2^64).
    let mut mant: u64 = 0;
    let int_end = scan_digits(s, start, &mut mant);
    let mut ndigits = int_end - start;
    let mut i = int_end;
    let mut frac_digits = 0;
    if s.get(i) == Some(&b'.') {
        let frac_end = scan_digits(s, i + 1, &mut mant);
        frac_digits = frac_end - (i + 1);
        ndigits += frac_digits;
        if ndigits > 0 {
            i = frac_end;
        }
    }
    if ndigits == 0 {
        return None;
    }
    let mut exp: i64 = 0;
    if matches!(s.get(i), Some(b'e') | Some(b'E')) {
        if let Some((e, j)) = scan_exponent(s, i + 1) {
            exp = e;
            i = j;
        }
    }
    if ndigits > 19 {
        // Leading zeros are not significant.
        let mut sig = ndigits;
        for &c in &s[start..i] {
            match c {
                b'0' => sig -= 1,
                b'.' => {}
                _ => break,
            }
        }
        if sig == 0 {
            return Some((F::ZERO, i));
        }
        if sig > 19 {
            return Some((slow::<F>(s, start, i), i));
        }
    }
    if mant == 0 {
        return Some((F::ZERO, i));
    }
    match F::fast(mant, exp - frac_digits as i64) {
        Some(v) => Some((v, i)),
        None => Some((slow::<F>(s, start, i), i)),
    }
}

/// Exact fallback on the validated ASCII prefix `s[start..end]` (no
/// allocation).
#[cold]
#[inline(never)]
fn slow<F: Float>(s: &[u8], start: usize, end: usize) -> F {
    let text = core::str::from_utf8(&s[start..end]).unwrap_or("0");
    F::slow(text)
}

/// Hexadecimal float; `s[start..]` begins with "0x" or "0X".
fn parse_hex<F: Float>(s: &[u8], start: usize) -> (F, usize) {
    let mut i = start + 2;
    let mut mant: u64 = 0;
    let mut ndig = 0u32; // hex digits in `mant` (after leading zeros)
    let mut exp2: i64 = 0;
    let mut sticky = false;
    let mut any = false;

    while let Some(d) = s.get(i).and_then(|&c| hex_val(c)) {
        any = true;
        if ndig < 16 {
            mant = (mant << 4) | d;
            if mant != 0 {
                ndig += 1;
            }
        } else {
            exp2 += 4;
            sticky |= d != 0;
        }
        i += 1;
    }
    if s.get(i) == Some(&b'.') {
        let mut j = i + 1;
        let mut frac_any = false;
        while let Some(d) = s.get(j).and_then(|&c| hex_val(c)) {
            frac_any = true;
            if ndig < 16 {
                mant = (mant << 4) | d;
                exp2 -= 4;
                if mant != 0 {
                    ndig += 1;
                }
            } else {
                sticky |= d != 0;
            }
            j += 1;
        }
        if any || frac_any {
            any = true;
            i = j;
        }
    }
    if !any {
        // "0x" without digits: only the "0" is a number.
        return (F::ZERO, start + 1);
    }
    if matches!(s.get(i), Some(b'p') | Some(b'P')) {
        if let Some((e, j)) = scan_exponent(s, i + 1) {
            exp2 += e;
            i = j;
        }
    }
    if mant == 0 {
        return (F::ZERO, i);
    }
    (F::from_raw(round_binary::<F>(mant, exp2, sticky)), i)
}

/// Bits of the value `(mant + sticky*epsilon) * 2^exp2` correctly rounded
/// (half to even) to the format of `F`, with gradual underflow and overflow
/// to infinity. `mant` must be non-zero.
pub(crate) fn round_binary<F: Float>(mant: u64, exp2: i64, sticky: bool) -> u64 {
    let p = F::MANT_BITS as i64 + 1; // precision in bits
    let min_q = 1 - F::BIAS - (p - 1); // exponent of the smallest subnormal
    let msb = 63 - mant.leading_zeros() as i64;
    let top = exp2 + msb; // value in [2^top, 2^(top+1))
    if top > F::BIAS {
        return F::INF_BITS;
    }
    // Quantum (exponent of the last kept bit).
    let q = (top - (p - 1)).max(min_q);
    let shift = q - exp2;
    let mut m: u64;
    let mut q = q;
    if shift <= 0 {
        // Exact: fewer than p significant bits, no rounding needed.
        m = mant << (-shift) as u32;
    } else {
        let (kept, half, rest) = if shift >= 65 {
            (0, false, true)
        } else if shift == 64 {
            (0, mant >> 63 != 0, mant & !(1 << 63) != 0)
        } else {
            let s = shift as u32;
            (
                mant >> s,
                (mant >> (s - 1)) & 1 != 0,
                mant & ((1u64 << (s - 1)) - 1) != 0,
            )
        };
        m = kept;
        if half && (rest || sticky || m & 1 == 1) {
            m += 1;
            if m == 1 << p {
                m >>= 1;
                q += 1;
            }
        }
    }
    if m == 0 {
        return 0;
    }
    let hidden = 1u64 << F::MANT_BITS;
    if m < hidden {
        // Subnormal (q == min_q).
        return m;
    }
    let field = q + (p - 1) + F::BIAS;
    if field >= F::MAX_FIELD {
        return F::INF_BITS;
    }
    ((field as u64) << F::MANT_BITS) | (m - hidden)
}

/// `nan` was matched; `i` is just past it. Handles `(chars)`.
fn parse_nan<F: Float>(s: &[u8], i: usize) -> (F, usize) {
    let default = (F::from_raw(F::NAN_BITS), i);
    if s.get(i) != Some(&b'(') {
        return default;
    }
    let body_start = i + 1;
    let mut j = body_start;
    while let Some(&c) = s.get(j) {
        if c.is_ascii_alphanumeric() || c == b'_' {
            j += 1;
        } else {
            break;
        }
    }
    if s.get(j) != Some(&b')') {
        return default;
    }
    let mut bits = F::NAN_BITS;
    if let Some(mant) = strtoull_whole(&s[body_start..j]) {
        let payload = mant & F::NAN_PAYLOAD_MASK;
        if payload != 0 {
            bits |= payload;
        }
    }
    (F::from_raw(bits), j + 1)
}

/// `strtoull(s, &end, 0)` where `s` holds only `[A-Za-z0-9_]`; Some only
/// when the whole of `s` is consumed (glibc also accepts the empty string
/// then, giving 0). Overflow saturates like strtoull.
fn strtoull_whole(s: &[u8]) -> Option<u64> {
    if s.is_empty() {
        return Some(0);
    }
    let (base, digits) = if s.len() >= 2
        && s[0] == b'0'
        && (s[1] == b'x' || s[1] == b'X')
        && s.get(2).and_then(|&c| hex_val(c)).is_some()
    {
        (16u64, &s[2..])
    } else if s[0] == b'0' {
        (8, &s[1..])
    } else {
        (10, s)
    };
    let mut v: u64 = 0;
    let mut overflow = false;
    for &c in digits {
        let d = hex_val(c)?;
        if d >= base {
            return None;
        }
        match v.checked_mul(base).and_then(|x| x.checked_add(d)) {
            Some(x) => v = x,
            None => overflow = true,
        }
    }
    Some(if overflow { u64::MAX } else { v })
}
