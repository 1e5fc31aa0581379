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
//!   once, straight from the decimal value); [`Precision`], which of the
//!   two reads a trace's variable values.
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

/// How a trace's variable values are read from their text: PajeNG reads
/// a Pajé text's with `strtof` (so `dump` prints what `pj_dump` prints);
/// a format whose numbers are the source's own (OTF2's metric values)
/// keeps them as they are.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum Precision {
    /// As PajeNG reads Pajé text: C's `strtof` (float32), widened.
    #[default]
    Float32,
    /// Exactly: C's `strtod` (integers up to 2^53 exact, doubles as
    /// doubles).
    Double,
}

impl Precision {
    /// The value of `text` read by this rule, as a double.
    #[inline]
    pub fn read(self, text: &[u8]) -> f64 {
        match self {
            Precision::Float32 => strtof(text) as f64,
            Precision::Double => atof(text),
        }
    }
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
