//! `parse_seconds` against a plain reference: the decimal digits padded or
//! cut to nine decimals and read as one integer, and Rust's own `f64`
//! parser for the forms that go through a double, over the syntaxes the
//! trace readers use and texts made of the characters numbers are made of.

use proptest::prelude::*;
use trama_num::{parse_seconds, PastNanos, SecondsSyntax};

/// The syntaxes of the readers: the Ganglia log and PCP (plain), merge
/// plans (signed), OpenTS (cut, through a double), Pajé (rounded, signed,
/// through a double).
fn syntaxes() -> [SecondsSyntax; 4] {
    let p = SecondsSyntax::PLAIN;
    [
        p,
        p.sign(true).bare_fraction(true),
        p.bare_fraction(true)
            .past_nanos(PastNanos::Truncate)
            .double(true),
        p.sign(true)
            .bare_fraction(true)
            .past_nanos(PastNanos::Round)
            .double(true),
    ]
}

/// What `parse_seconds` should give, written the simple way.
fn reference(text: &str, syn: SecondsSyntax) -> Option<i64> {
    let (neg, body) = match text.as_bytes().first() {
        Some(b'-') if syn.sign => (true, &text[1..]),
        Some(b'+') if syn.sign => (false, &text[1..]),
        _ => (false, text),
    };
    let (int, frac) = body.split_once('.').unwrap_or((body, ""));
    let digits = |s: &str| s.chars().all(|c| c.is_ascii_digit());
    let plain = digits(int)
        && digits(frac)
        && !(int.is_empty() && frac.is_empty())
        && (syn.bare_fraction || !int.is_empty());
    if plain {
        if frac.len() > 9 && syn.past_nanos == PastNanos::Reject {
            return None;
        }
        let up = syn.past_nanos == PastNanos::Round && frac.len() > 9 && frac.as_bytes()[9] >= b'5';
        let nine: String = frac.chars().chain(std::iter::repeat('0')).take(9).collect();
        let n: i128 = format!("0{int}{nine}").parse().ok()?;
        let n = n + i128::from(up);
        return i64::try_from(if neg { -n } else { n }).ok();
    }
    if !syn.double {
        return None;
    }
    // C's strtod skips leading white space; Rust's parser does not.
    let v: f64 = text
        .trim_start_matches([' ', '\t', '\n', '\x0b', '\x0c', '\r'])
        .parse()
        .ok()?;
    if !v.is_finite() || (!syn.sign && v < 0.0) {
        return None;
    }
    let ns = (v * 1e9).round();
    let limit = 2f64.powi(63);
    (-limit..limit).contains(&ns).then_some(ns as i64)
}

/// Texts of digits, points, signs and exponents, some with blanks or junk
/// (hexadecimal floats, which Rust's parser does not read, are left out).
fn texts() -> impl Strategy<Value = String> {
    prop_oneof![
        "[+-]?[0-9]{0,12}(\\.[0-9]{0,14})?",
        "[+-]?[0-9]{0,4}(\\.[0-9]{0,6})?([eE][+-]?[0-9]{1,2})?",
        "[ +.eEa0-9-]{0,12}",
        "[0-9]{15,45}(\\.[0-9]{0,3})?",
    ]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(20_000))]

    #[test]
    fn matches_the_reference(text in texts()) {
        for syn in syntaxes() {
            let got = parse_seconds(text.as_bytes(), syn).ok();
            prop_assert_eq!(got, reference(&text, syn), "{:?} in {:?}", text, syn);
        }
    }

    #[test]
    fn nine_decimals_round_trip(ns in any::<i64>()) {
        let (s, f) = (ns.unsigned_abs() / 1_000_000_000, ns.unsigned_abs() % 1_000_000_000);
        let text = format!("{}{s}.{f:09}", if ns < 0 { "-" } else { "" });
        for syn in syntaxes() {
            let want = (ns >= 0 || syn.sign).then_some(ns);
            prop_assert_eq!(parse_seconds(text.as_bytes(), syn).ok(), want, "{}", text);
        }
    }
}
