//! glibc-compatible `printf("%.*f")` and `printf("%g")`.
//!
//! glibc prints the exact decimal expansion of the binary value, rounded in
//! the current rounding mode (round-half-even on exact ties by default).
//! Three tiers are used, fastest first:
//!
//! 1. a floating-point fast path (`v * 10^prec` rounded once, with an error
//!    bound check, see [`fast_round`]);
//! 2. an exact integer path with `u128` arithmetic for moderate magnitudes
//!    and precisions;
//! 3. Rust's exact `core::fmt` float formatting, which is exact and rounds
//!    ties half to even too.

use crate::parse::{POW10_F64, POW10_U64};
use std::io::Write as _;

/// Two-digit lookup table "00" ..= "99".
const DIGITS2: &[u8; 200] = b"\
0001020304050607080910111213141516171819\
2021222324252627282930313233343536373839\
4041424344454647484950515253545556575859\
6061626364656667686970717273747576777879\
8081828384858687888990919293949596979899";

/// Scratch buffer big enough for a u128 plus padding.
const BUF: usize = 64;

/// Writes the two digits of `v < 100` at `buf[at..at + 2]`.
#[inline(always)]
fn write2(buf: &mut [u8; BUF], at: usize, v: u32) {
    let i = v as usize * 2;
    buf[at..at + 2].copy_from_slice(&DIGITS2[i..i + 2]);
}

/// Writes exactly 8 digits of `v < 10^8` at `buf[at..at + 8]`.
#[inline(always)]
fn write8(buf: &mut [u8; BUF], at: usize, v: u32) {
    let hi = v / 10_000;
    let lo = v % 10_000;
    write2(buf, at, hi / 100);
    write2(buf, at + 2, hi % 100);
    write2(buf, at + 4, lo / 100);
    write2(buf, at + 6, lo % 100);
}

/// Writes the decimal digits of `n` right-aligned ending at `buf[end]`,
/// zero-padded to at least `min_digits` digits. Returns the start index.
#[inline(always)]
fn digits_u64(buf: &mut [u8; BUF], end: usize, mut n: u64, min_digits: usize) -> usize {
    let mut pos = end;
    while n >= 100_000_000 {
        pos -= 8;
        write8(buf, pos, (n % 100_000_000) as u32);
        n /= 100_000_000;
    }
    let mut m = n as u32;
    while m >= 100 {
        pos -= 2;
        write2(buf, pos, m % 100);
        m /= 100;
    }
    if m >= 10 {
        pos -= 2;
        write2(buf, pos, m);
    } else {
        pos -= 1;
        buf[pos] = b'0' + m as u8;
    }
    while end - pos < min_digits {
        pos -= 1;
        buf[pos] = b'0';
    }
    pos
}

/// Like [`digits_u64`] for a `u128`.
#[inline]
fn digits_u128(buf: &mut [u8; BUF], end: usize, n: u128, min_digits: usize) -> usize {
    if n <= u64::MAX as u128 {
        return digits_u64(buf, end, n as u64, min_digits);
    }
    const E19: u128 = 10_000_000_000_000_000_000;
    let lo = (n % E19) as u64;
    let hi = n / E19;
    let mid = digits_u64(buf, end, lo, 19);
    digits_u128(buf, mid, hi, min_digits.saturating_sub(19))
}

/// Turns the digits of the scaled integer `n` in `buf[start..BUF]` (at
/// least `prec + 1` of them) into `[-]int[.frac]` in place, and appends it.
#[inline(always)]
fn emit_scaled(out: &mut Vec<u8>, buf: &mut [u8; BUF], mut start: usize, prec: usize, neg: bool) {
    if prec != 0 {
        let dot = BUF - prec;
        buf.copy_within(start..dot, start - 1);
        buf[dot - 1] = b'.';
        start -= 1;
    }
    if neg {
        start -= 1;
        buf[start] = b'-';
    }
    out.extend_from_slice(&buf[start..]);
}

/// Appends "nan", "-nan", "inf" or "-inf" (glibc spelling).
#[inline]
fn write_special(out: &mut Vec<u8>, v: f64) {
    let neg = v.is_sign_negative();
    if neg {
        out.push(b'-');
    }
    out.extend_from_slice(if v.is_nan() { b"nan" } else { b"inf" });
}

/// 2^-53 (unit roundoff of f64).
const U: f64 = 1.0 / 9_007_199_254_740_992.0;
/// 2^53.
const TWO53: f64 = 9_007_199_254_740_992.0;

/// Rounds the exact real `x` to the nearest integer, given only
/// `s = fl(x)`, the correctly rounded f64 result of a single IEEE operation
/// (multiplication or division by an exact power of ten), with `0 <= s < 2^53`.
/// Returns None when the result could depend on the rounding error.
///
/// Error bound: round-to-nearest gives `|s - x| <= ulp(s)/2`, and for `s` in
/// `[2^k, 2^(k+1))` half an ulp is `2^(k-53) <= s * 2^-53` (at a binade
/// boundary `s = 2^k` the values below have a smaller ulp, so the bound
/// still holds). Let `n = floor(s)` and `f = s - n` (exact: `n` and `s`
/// share the exponent or `n` is 0). The rounding of `x` could differ from
/// the rounding of `s` only if `x` and `s` lie on different sides of a
/// half-integer, i.e. if `|f - 0.5| <= |s - x|` (the other half-integers
/// `n - 0.5` and `n + 1.5` are at least 0.5 away from `s`, more than the error
/// whenever the test below can succeed). So `|f - 0.5| > s * 2^-53` proves
/// `round(x) = n + (f > 0.5)`, and an exact tie `x = n + 0.5` (then `s = x`,
/// `f = 0.5`) is always sent to the exact path.
///
/// The test itself is computed exactly: `s * 2^-53` is a power-of-two
/// scaling (an underflow there only happens for tiny `s`, where
/// `|f - 0.5| ~ 0.5`); `f - 0.5` is exact by Sterbenz's lemma when
/// `f >= 0.25`, and when `f < 0.25` it is at least 0.25 in magnitude while
/// `s * 2^-53 < 0.25` (for `s >= 2^51`, `f` is 0 or 0.5 and exact anyway).
#[inline(always)]
fn fast_round(s: f64) -> Option<u64> {
    // `s` is finite or +inf here (never NaN).
    if s >= TWO53 {
        return None;
    }
    // 0 <= s < 2^53: truncation is floor and fits an i64 (a plain
    // cvttsd2si, unlike `floor`, which needs SSE4.1 or a libm call).
    let n = s as i64;
    let f = s - n as f64;
    let d = f - 0.5;
    if d.abs() > s * U {
        Some(n as u64 + (d > 0.0) as u64)
    } else {
        None
    }
}

/// Decomposes a finite, non-negative f64 into `m * 2^e` with integer `m`.
#[inline]
fn decompose(a: f64) -> (u64, i64) {
    let bits = a.to_bits();
    let field = ((bits >> 52) & 0x7ff) as i64;
    let frac = bits & ((1 << 52) - 1);
    if field == 0 {
        (frac, -1074)
    } else {
        (frac | (1 << 52), field - 1075)
    }
}

/// Exact `round_half_even(a * 10^prec)` with u128 arithmetic, when it fits.
fn exact_scaled_u128(a: f64, prec: usize) -> Option<u128> {
    if prec >= POW10_U64.len() {
        return None;
    }
    let (m, e) = decompose(a);
    // m < 2^53, 10^prec < 2^64: the product is below 2^117.
    let n = m as u128 * POW10_U64[prec] as u128;
    if e >= 0 {
        if e > 10 {
            return None;
        }
        return Some(n << e);
    }
    let s = (-e) as u32;
    if s >= 128 {
        // n < 2^117 < 2^(s-1): below one half, rounds to zero.
        return Some(0);
    }
    let q = n >> s;
    let r = n & ((1u128 << s) - 1);
    let half = 1u128 << (s - 1);
    let up = r > half || (r == half && q & 1 == 1);
    Some(q + up as u128)
}

/// glibc `printf("%.*f", prec, v)`.
#[inline]
pub(crate) fn write_fixed(out: &mut Vec<u8>, v: f64, prec: usize) {
    // The precisions pj_dump users ask for, with constant divisors.
    let done = match prec {
        6 => fixed_const::<6>(out, v),
        3 => fixed_const::<3>(out, v),
        9 => fixed_const::<9>(out, v),
        _ => false,
    };
    if !done {
        write_fixed_general(out, v, prec)
    }
}

/// Number of decimal digits of `n` (1 for 0).
#[inline(always)]
fn decimal_len(n: u64) -> usize {
    // floor(log10(n)) from the bit length, corrected by one comparison.
    let bits = 64 - (n | 1).leading_zeros() as usize;
    let guess = (bits * 1233) >> 12;
    guess + ((n | 1) >= POW10_U64[guess.min(19)]) as usize
}

/// Writes `x < 10^count` as `count` decimal digits (zero-padded), two at a
/// time, so that they end just before `buf[end]`.
#[inline(always)]
fn last_digits(buf: &mut [u8], end: usize, mut x: u64, mut count: usize) {
    let mut p = end;
    while count >= 2 {
        let i = (x % 100) as usize * 2;
        x /= 100;
        p -= 2;
        buf[p..p + 2].copy_from_slice(&DIGITS2[i..i + 2]);
        count -= 2;
    }
    if count == 1 {
        buf[p - 1] = b'0' + x as u8;
    }
}

/// `%.Pf` for `P <= 9` on the fast path: the digits are built in a fixed
/// buffer and appended with one fixed-size copy. Returns false when the
/// value needs another path (too big, not finite, too close to a tie).
#[inline(always)]
fn fixed_const<const P: usize>(out: &mut Vec<u8>, v: f64) -> bool {
    const MAX_INT: u64 = 1_000_000_000_000; // 13 integer digits at most
    let neg = v.is_sign_negative();
    let a = v.abs();
    // Also rejects NaN and infinities (comparisons are false).
    if a.is_nan() || a >= MAX_INT as f64 {
        return false;
    }
    let scale = POW10_U64[P];
    let Some(n) = fast_round(a * POW10_F64[P]) else {
        return false;
    };
    let int = n / scale;
    let frac = n % scale;
    // sign + 13 digits + '.' + 9 digits < 32
    let mut buf = [0u8; 32];
    let int_len = decimal_len(int);
    let mut pos = neg as usize + int_len;
    buf[0] = b'-';
    last_digits(&mut buf, pos, int, int_len);
    if P > 0 {
        buf[pos] = b'.';
        pos += 1 + P;
        last_digits(&mut buf, pos, frac, P);
    }
    let len = out.len();
    out.extend_from_slice(&buf);
    out.truncate(len + pos);
    true
}

fn write_fixed_general(out: &mut Vec<u8>, v: f64, prec: usize) {
    if !v.is_finite() {
        write_special(out, v);
        return;
    }
    let neg = v.is_sign_negative();
    let a = v.abs();
    if prec < POW10_F64.len() {
        // POW10_F64[prec] is exact, so `s` is one correctly rounded product.
        if let Some(n) = fast_round(a * POW10_F64[prec]) {
            let mut buf = [0u8; BUF];
            let start = digits_u64(&mut buf, BUF, n, prec + 1);
            emit_scaled(out, &mut buf, start, prec, neg);
            return;
        }
    }
    write_fixed_slow(out, a, prec, neg);
}

/// The exact tiers of [`write_fixed`] for a finite `a >= 0`.
#[cold]
#[inline(never)]
fn write_fixed_slow(out: &mut Vec<u8>, a: f64, prec: usize, neg: bool) {
    if let Some(n) = exact_scaled_u128(a, prec) {
        let mut buf = [0u8; BUF];
        let start = digits_u128(&mut buf, BUF, n, prec + 1);
        emit_scaled(out, &mut buf, start, prec, neg);
        return;
    }
    if neg {
        out.push(b'-');
    }
    // Rust's float formatting with an explicit precision is exact and rounds
    // ties half to even, like glibc. Writing into a Vec cannot fail.
    let _ = write!(out, "{:.*}", prec, a);
}

/// Exponent of 10 and 6 significant digits (100000..=999999) of `a > 0`,
/// correctly rounded half to even: `a ~ d * 10^(x - 5)`.
#[inline]
fn sig6(a: f64) -> (u32, i32) {
    if let Some(r) = sig6_fast(a) {
        return r;
    }
    sig6_exact(a)
}

/// Multiplies `a` by `10^k` with a single rounding, when `10^|k|` is exact.
#[inline(always)]
fn mul_pow10(a: f64, k: i32) -> Option<f64> {
    if (0..=22).contains(&k) {
        Some(a * POW10_F64[k as usize])
    } else if (-22..0).contains(&k) {
        Some(a / POW10_F64[(-k) as usize])
    } else {
        None
    }
}

#[inline(always)]
fn sig6_fast(a: f64) -> Option<(u32, i32)> {
    let field = ((a.to_bits() >> 52) & 0x7ff) as i32;
    if field == 0 {
        return None;
    }
    let e2 = field - 1023; // 2^e2 <= a < 2^(e2+1)
                           // ~floor(e2 * log10(2)); floor(log10(a)) is then x0 or x0 + 1 (give or
                           // take one for the approximation), which the adjustment below absorbs.
    let x0 = (e2 * 78913) >> 18;
    let mut x = x0;
    let mut s = mul_pow10(a, 5 - x)?;
    // Decisions on the rounded `s` are safe: when the exact product is on
    // the other side of 10^5 or 10^6, both choices of x round to the same
    // value (a power of ten).
    if s < 1e5 {
        x -= 1;
        s = mul_pow10(a, 5 - x)?;
    } else if s >= 1e6 {
        x += 1;
        s = mul_pow10(a, 5 - x)?;
    }
    if s >= 1e6 {
        return None;
    }
    // `s` is one correctly rounded operation on exact operands: fast_round
    // applies (see its proof).
    let n = fast_round(s)?;
    if n >= 1_000_000 {
        Some((100_000, x + 1))
    } else if n < 100_000 {
        // Cannot happen with exact operands; be conservative.
        None
    } else {
        Some((n as u32, x))
    }
}

/// A fixed-size `fmt::Write` sink.
struct StackBuf {
    buf: [u8; 48],
    len: usize,
}

impl core::fmt::Write for StackBuf {
    fn write_str(&mut self, s: &str) -> core::fmt::Result {
        let b = s.as_bytes();
        let end = self.len + b.len();
        if end > self.buf.len() {
            return Err(core::fmt::Error);
        }
        self.buf[self.len..end].copy_from_slice(b);
        self.len = end;
        Ok(())
    }
}

/// Exact fallback: Rust's `{:.5e}` is exact and rounds ties half to even.
#[cold]
fn sig6_exact(a: f64) -> (u32, i32) {
    use core::fmt::Write as _;
    let mut sb = StackBuf {
        buf: [0; 48],
        len: 0,
    };
    // "d.ddddde[-]x": at most 13 bytes for an f64.
    let _ = write!(sb, "{:.5e}", a);
    let text = &sb.buf[..sb.len];
    let mut d: u32 = 0;
    let mut i = 0;
    while i < text.len() && text[i] != b'e' {
        if text[i].is_ascii_digit() {
            d = d * 10 + (text[i] - b'0') as u32;
        }
        i += 1;
    }
    let mut x: i32 = 0;
    let mut neg = false;
    for &c in &text[(i + 1).min(text.len())..] {
        if c == b'-' {
            neg = true;
        } else if c.is_ascii_digit() {
            x = x * 10 + (c - b'0') as i32;
        }
    }
    (d, if neg { -x } else { x })
}

/// glibc `printf("%g", v)` (precision 6).
#[inline]
pub(crate) fn write_general(out: &mut Vec<u8>, v: f64) {
    if !v.is_finite() {
        write_special(out, v);
        return;
    }
    let neg = v.is_sign_negative();
    if v == 0.0 {
        out.extend_from_slice(if neg { b"-0" } else { b"0" });
        return;
    }
    let (d, x) = sig6(v.abs());
    // %g: with P = 6, if P > X >= -4 use %f with precision P-1-X, else %e
    // with precision P-1, then remove trailing zeros and a trailing point.
    // Both conversions print the same six significant digits `d` (the %f
    // rounding position is the %e one, or the value rounded up to 10^X at
    // both), so only the layout differs.
    let mut buf = [0u8; BUF];
    // The six digits at buf[8..14], then the count without trailing zeros.
    write2(&mut buf, 8, d / 10_000);
    write2(&mut buf, 10, d / 100 % 100);
    write2(&mut buf, 12, d % 100);
    let mut nd = 6;
    while nd > 1 && buf[8 + nd - 1] == b'0' {
        nd -= 1;
    }
    let (mut start, mut end);
    if (0..6).contains(&x) {
        // ddd[.ddd]: shift the integer digits left by one over a '.'.
        let int_len = x as usize + 1;
        start = 8;
        end = 8 + int_len;
        if nd > int_len {
            buf.copy_within(8..8 + int_len, 7);
            buf[7 + int_len] = b'.';
            start = 7;
            end = 8 + nd;
        }
    } else if (-4..0).contains(&x) {
        // 0.000ddd: the prefix goes right before the digits.
        let zeros = (-x) as usize; // including the one before the point
        start = 8 - zeros - 1;
        buf[start..8].fill(b'0');
        buf[start + 1] = b'.';
        end = 8 + nd;
    } else {
        // d[.ddddd]e±XX[X]
        start = 7;
        buf[7] = buf[8];
        end = 8;
        if nd > 1 {
            buf[8] = b'.';
            end = 8 + nd;
        }
        buf[end] = b'e';
        buf[end + 1] = if x < 0 { b'-' } else { b'+' };
        let ax = x.unsigned_abs();
        if ax >= 100 {
            buf[end + 2] = b'0' + (ax / 100) as u8;
            write2(&mut buf, end + 3, ax % 100);
            end += 5;
        } else {
            write2(&mut buf, end + 2, ax);
            end += 4;
        }
    }
    if neg {
        start -= 1;
        buf[start] = b'-';
    }
    out.extend_from_slice(&buf[start..end]);
}
