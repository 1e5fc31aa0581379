//! Decimal seconds read exactly into integer nanoseconds.
//!
//! Trace formats write times as decimal numbers of seconds
//! (`1094222084.364200`, `0.143853`, `-2.5`). [`parse_seconds`] reads such
//! a text without going through a double, so every decimal with at most
//! nine decimals gives its exact number of nanoseconds, in an `i64`
//! (about ±292 years around 0).
//!
//! # Syntax
//!
//! The plain form is `digits[.digits]` (`12`, `12.`, `12.5`), nothing
//! around it (callers trim when their format allows blanks). A
//! [`SecondsSyntax`] widens it, as each format needs:
//!
//! - `sign`: a leading `+` or `-`, and negative results;
//! - `bare_fraction`: no digit before the point (`.5`);
//! - `past_nanos`: digits after the ninth decimal are an error
//!   ([`PastNanos::Reject`]), cut ([`PastNanos::Truncate`]) or rounded half
//!   away from zero ([`PastNanos::Round`]);
//! - `double`: any other text C's `strtod` reads whole (exponents `1e-3`,
//!   hexadecimal floats, leading white space) is read by [`crate::strtod`]
//!   and rounded to the nearest nanosecond; without `sign`, a negative
//!   value read so is refused. Infinities and NaNs are refused.
//!
//! The result must fit an `i64` ([`SecondsError::Range`] otherwise).

use std::fmt;

/// Nanoseconds in a second.
pub const NANOS_PER_SECOND: i64 = 1_000_000_000;

/// What digits after the ninth decimal do.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PastNanos {
    /// They are an error ([`SecondsError::Fraction`]).
    Reject,
    /// They are dropped: the time is cut to the nanosecond.
    Truncate,
    /// The time is rounded to the nearest nanosecond, half away from zero.
    Round,
}

/// The forms [`parse_seconds`] accepts besides `digits[.digits]` with at
/// most nine decimals (see the [module](self) documentation).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct SecondsSyntax {
    /// A leading `+` or `-` is read, and negative times are allowed.
    pub sign: bool,
    /// The whole part may be left out (`.5`).
    pub bare_fraction: bool,
    /// What digits after the ninth decimal do.
    pub past_nanos: PastNanos,
    /// Other texts C's `strtod` reads whole are read through a double.
    pub double: bool,
}

/// For each `field: Type`, a `const fn field(self, value: Type)` that
/// returns the syntax with that field set.
macro_rules! setters {
    ($($(#[$doc:meta])* $field:ident: $ty:ty;)*) => {$(
        $(#[$doc])*
        pub const fn $field(mut self, value: $ty) -> SecondsSyntax {
            self.$field = value;
            self
        }
    )*};
}

impl SecondsSyntax {
    /// `digits[.digits]`, at most nine decimals, nothing else.
    pub const PLAIN: SecondsSyntax = SecondsSyntax {
        sign: false,
        bare_fraction: false,
        past_nanos: PastNanos::Reject,
        double: false,
    };

    setters! {
        /// This syntax with or without a sign.
        sign: bool;
        /// This syntax with or without `.5` forms.
        bare_fraction: bool;
        /// This syntax with digits after the ninth decimal treated so.
        past_nanos: PastNanos;
        /// This syntax with or without the double path.
        double: bool;
    }
}

impl Default for SecondsSyntax {
    fn default() -> SecondsSyntax {
        SecondsSyntax::PLAIN
    }
}

/// Why a text is not a number of seconds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SecondsError {
    /// No number: no digit, a sign or a character the syntax does not
    /// allow before the point (or anywhere, for the double path).
    Malformed,
    /// The part after the point is not digits, or has more than nine of
    /// them where [`PastNanos::Reject`] refuses that.
    Fraction,
    /// The nanoseconds do not fit an `i64`.
    Range,
}

impl fmt::Display for SecondsError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            SecondsError::Malformed => "not a number of seconds",
            SecondsError::Fraction => "bad fraction of a second",
            SecondsError::Range => "out of range",
        })
    }
}

impl std::error::Error for SecondsError {}

/// Reads `text`, a number of seconds in `syntax`, as nanoseconds.
pub fn parse_seconds(text: &[u8], syntax: SecondsSyntax) -> Result<i64, SecondsError> {
    let (neg, body) = match text.first() {
        Some(b'-') if syntax.sign => (true, &text[1..]),
        Some(b'+') if syntax.sign => (false, &text[1..]),
        _ => (false, text),
    };
    let (int, frac) = match body.iter().position(|&b| b == b'.') {
        Some(d) => (&body[..d], &body[d + 1..]),
        None => (body, &body[body.len()..]),
    };
    let digits = |s: &[u8]| s.iter().all(u8::is_ascii_digit);
    let int_bad = !digits(int) || (int.is_empty() && (frac.is_empty() || !syntax.bare_fraction));
    if int_bad || !digits(frac) {
        if syntax.double {
            return through_double(text, syntax.sign);
        }
        return Err(if int_bad {
            SecondsError::Malformed
        } else {
            SecondsError::Fraction
        });
    }
    if frac.len() > 9 && syntax.past_nanos == PastNanos::Reject {
        return Err(SecondsError::Fraction);
    }
    let mut ns: i128 = 0;
    for &b in int {
        ns = ns
            .checked_mul(10)
            .and_then(|n| n.checked_add(i128::from(b - b'0')))
            .ok_or(SecondsError::Range)?;
    }
    ns = ns
        .checked_mul(i128::from(NANOS_PER_SECOND))
        .ok_or(SecondsError::Range)?;
    let mut scale = i128::from(NANOS_PER_SECOND / 10);
    for &b in frac.iter().take(9) {
        ns += i128::from(b - b'0') * scale;
        scale /= 10;
    }
    if syntax.past_nanos == PastNanos::Round && frac.len() > 9 && frac[9] >= b'5' {
        ns += 1;
    }
    if neg {
        ns = -ns;
    }
    i64::try_from(ns).map_err(|_| SecondsError::Range)
}

/// The double path: what `strtod` reads whole, rounded to the nanosecond.
fn through_double(text: &[u8], negative: bool) -> Result<i64, SecondsError> {
    let (v, used) = crate::strtod(text);
    if used == 0 || used != text.len() || !v.is_finite() || (!negative && v < 0.0) {
        return Err(SecondsError::Malformed);
    }
    let ns = (v * 1e9).round();
    // 2^63, the first value past the i64 range, is an exact double.
    let limit = -(i64::MIN as f64);
    if !(-limit..limit).contains(&ns) {
        return Err(SecondsError::Range);
    }
    Ok(ns as i64)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn plain(s: &str) -> Result<i64, SecondsError> {
        parse_seconds(s.as_bytes(), SecondsSyntax::PLAIN)
    }

    #[test]
    fn plain_is_exact_and_strict() {
        assert_eq!(plain("1096944667"), Ok(1_096_944_667 * NANOS_PER_SECOND));
        assert_eq!(plain("2.000000001"), Ok(2 * NANOS_PER_SECOND + 1));
        assert_eq!(plain("3."), Ok(3 * NANOS_PER_SECOND));
        assert_eq!(plain("2.0000000001"), Err(SecondsError::Fraction));
        assert_eq!(plain("1.2.3"), Err(SecondsError::Fraction));
        assert_eq!(plain("-1"), Err(SecondsError::Malformed));
        assert_eq!(plain(".5"), Err(SecondsError::Malformed));
        assert_eq!(plain(" 1"), Err(SecondsError::Malformed));
        assert_eq!(plain(""), Err(SecondsError::Malformed));
        assert_eq!(plain("1e3"), Err(SecondsError::Malformed));
        assert_eq!(plain("1.5e3"), Err(SecondsError::Fraction));
        assert_eq!(plain("99999999999999999999"), Err(SecondsError::Range));
    }

    #[test]
    fn widened_syntaxes() {
        let signed = SecondsSyntax::PLAIN.sign(true).bare_fraction(true);
        let p = |s: &str, syn| parse_seconds(s.as_bytes(), syn);
        assert_eq!(p("-0.5", signed), Ok(-500_000_000));
        assert_eq!(p("+.25", signed), Ok(250_000_000));
        assert_eq!(p("-.", signed), Err(SecondsError::Malformed));
        assert_eq!(
            p("-9223372036.854775808", signed),
            Ok(i64::MIN),
            "the lowest i64 is reachable"
        );
        assert_eq!(p("9223372036.854775808", signed), Err(SecondsError::Range));
        let cut = signed.past_nanos(PastNanos::Truncate);
        assert_eq!(p("1.0000000019", cut), Ok(1_000_000_001));
        let round = signed.past_nanos(PastNanos::Round).double(true);
        assert_eq!(p("1.0000000015", round), Ok(1_000_000_002));
        assert_eq!(p("-1.0000000015", round), Ok(-1_000_000_002));
        assert_eq!(p("1e-3", round), Ok(1_000_000));
        assert_eq!(p("-2.5e0", round), Ok(-2_500_000_000));
        assert_eq!(p("inf", round), Err(SecondsError::Malformed));
        assert_eq!(p("1e300", round), Err(SecondsError::Range));
        assert_eq!(p("1e", round), Err(SecondsError::Malformed));
        let unsigned = SecondsSyntax::PLAIN.bare_fraction(true).double(true);
        assert_eq!(p("+5", unsigned), Ok(5_000_000_000));
        assert_eq!(p("-0", unsigned), Ok(0));
        assert_eq!(p("-1e-3", unsigned), Err(SecondsError::Malformed));
    }
}
