//! Byte-exact, fast reproductions of the C library's number parsing and
//! printing, as glibc (x86_64, C locale, default rounding mode) does them.
//!
//! PajeNG's `pj_dump` reads numbers with `strtod`/`atof`/`strtof` and prints
//! them with `printf("%.*f")` or C++ streams (`%g`). To reproduce its output
//! byte for byte, this crate implements the same semantics:
//!
//! * [`atof`], [`strtod`], [`strtof`]: glibc `strtod`/`strtof` on a byte
//!   slice: leading white space, sign, decimal and hexadecimal floats,
//!   `inf`/`infinity`/`nan`/`nan(chars)` (with glibc's NaN payload rules),
//!   longest valid prefix, correctly rounded results (f32 results are rounded
//!   once, straight from the decimal value).
//! * [`write_fixed`]: glibc `printf("%.*f", prec, v)`, the exact decimal
//!   expansion of the binary value rounded half-to-even.
//! * [`write_general`]: glibc `printf("%g", v)`, i.e. C++ `std::cout << v`.
//! * [`parse_seconds`] ([`seconds`]): decimal seconds, the time stamps of
//!   trace formats, read exactly into integer nanoseconds, each format's
//!   variant (signs, more than nine decimals, exponents through
//!   [`strtod`]) chosen by a [`SecondsSyntax`].
//!
//! All functions have fast paths for the common cases (short decimals such as
//! time stamps with nine decimals, moderate magnitudes and precisions) and fall
//! back to exact methods otherwise; they never allocate on the fast paths.

#![deny(missing_docs)]
#![forbid(unsafe_code)]

mod parse;
mod print;
pub mod seconds;

pub use seconds::{parse_seconds, PastNanos, SecondsError, SecondsSyntax};

/// C `atof`/`strtod(s, NULL)` on bytes: parse the longest valid prefix; 0.0 when there is none.
#[inline]
pub fn atof(s: &[u8]) -> f64 {
    parse::parse::<f64>(s).0
}

/// Like atof but also returns how many bytes were consumed (0 = no number).
#[inline]
pub fn strtod(s: &[u8]) -> (f64, usize) {
    parse::parse::<f64>(s)
}

/// C `strtof(s, NULL)`: result correctly rounded straight to f32 (NOT via f64, avoid double rounding).
#[inline]
pub fn strtof(s: &[u8]) -> f32 {
    parse::parse::<f32>(s).0
}

/// Append exactly what glibc `printf("%.*f", prec, v)` prints.
#[inline]
pub fn write_fixed(out: &mut Vec<u8>, v: f64, prec: usize) {
    print::write_fixed(out, v, prec)
}

/// Append exactly what glibc `printf("%g", v)` prints (= C++ `std::cout << v` with default flags, precision 6).
#[inline]
pub fn write_general(out: &mut Vec<u8>, v: f64) {
    print::write_general(out, v)
}

#[cfg(test)]
mod tests;
