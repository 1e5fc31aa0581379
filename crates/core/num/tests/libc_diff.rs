//! Differential tests against the real C library (glibc on the CI machine):
//! `strtod`, `strtof`, `snprintf("%.*f")` and `snprintf("%g")`.

use proptest::prelude::*;
use std::ffi::{c_char, c_int, CString};

fn c_strtod(s: &[u8]) -> (f64, usize) {
    let c = CString::new(s).unwrap();
    let mut end: *mut c_char = std::ptr::null_mut();
    // SAFETY: `c` is a valid NUL-terminated string; `end` points into it.
    unsafe {
        let v = libc::strtod(c.as_ptr(), &mut end);
        (v, end.offset_from(c.as_ptr()) as usize)
    }
}

fn c_strtof(s: &[u8]) -> f32 {
    let c = CString::new(s).unwrap();
    // SAFETY: `c` is a valid NUL-terminated string.
    unsafe { libc::strtof(c.as_ptr(), std::ptr::null_mut()) }
}

/// The text C's `snprintf` writes through `print(buf, size)` into a
/// buffer of `size` bytes.
fn c_print(size: usize, print: impl FnOnce(*mut c_char, usize) -> c_int) -> String {
    let mut buf = vec![0u8; size];
    let n = print(buf.as_mut_ptr() as *mut c_char, buf.len());
    buf.truncate(n as usize);
    String::from_utf8(buf).unwrap()
}

fn c_fixed(v: f64, prec: usize) -> String {
    // SAFETY: the buffer is large enough for any %.17f of an f64 (at most
    // 309 integer digits), and snprintf never writes past its size.
    c_print(1200, |buf, size| unsafe {
        libc::snprintf(buf, size, c"%.*f".as_ptr(), prec as c_int, v)
    })
}

fn c_general(v: f64) -> String {
    // SAFETY: "%g" output is at most ~14 bytes; snprintf respects the size.
    c_print(64, |buf, size| unsafe {
        libc::snprintf(buf, size, c"%g".as_ptr(), v)
    })
}

fn fixed(v: f64, prec: usize) -> String {
    let mut out = b"prefix:".to_vec();
    trama_num::write_fixed(&mut out, v, prec);
    String::from_utf8(out[7..].to_vec()).unwrap()
}

fn general(v: f64) -> String {
    let mut out = Vec::new();
    trama_num::write_general(&mut out, v);
    String::from_utf8(out).unwrap()
}

fn check_print(v: f64) -> Result<(), TestCaseError> {
    for prec in 0..=17 {
        prop_assert_eq!(fixed(v, prec), c_fixed(v, prec), "v={:e} prec={}", v, prec);
    }
    prop_assert_eq!(general(v), c_general(v), "v={:e}", v);
    Ok(())
}

fn check_parse(s: &str) -> Result<(), TestCaseError> {
    let b = s.as_bytes();
    let (ours, n) = trama_num::strtod(b);
    let (theirs, m) = c_strtod(b);
    prop_assert_eq!(ours.to_bits(), theirs.to_bits(), "strtod({:?})", s);
    prop_assert_eq!(n, m, "strtod({:?}) consumed", s);
    prop_assert_eq!(trama_num::atof(b).to_bits(), theirs.to_bits());
    let f = trama_num::strtof(b);
    prop_assert_eq!(f.to_bits(), c_strtof(b).to_bits(), "strtof({:?})", s);
    Ok(())
}

/// Case count: moderate by default (debug-mode CI), `PROPTEST_CASES`
/// raises it for long runs (`cargo test --release`).
fn cases() -> u32 {
    std::env::var("PROPTEST_CASES")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(1500)
}

/// Interesting f64 values.
fn values() -> impl Strategy<Value = f64> {
    prop_oneof![
        // Random bit patterns (all magnitudes, NaNs with payloads, both signs).
        any::<u64>().prop_map(f64::from_bits),
        // Random short decimals, like trace time stamps.
        (any::<i64>(), 0u32..=12)
            .prop_map(|(m, k)| (m % 1_000_000_000_000_000) as f64 / 10f64.powi(k as i32)),
        // Dyadic values k / 2^n: exact ties at many precisions.
        (any::<i32>(), 0u32..=64).prop_map(|(k, n)| k as f64 / 2f64.powi(n as i32)),
        // Decimal near-ties (x.5 at some position), computed in binary.
        (any::<i32>(), 0u32..=17).prop_map(|(k, p)| (k as f64 + 0.5) / 10f64.powi(p as i32)),
        // Large and small magnitudes.
        (1u64..(1 << 52), 0u64..2047, any::<bool>())
            .prop_map(|(m, e, s)| f64::from_bits(((s as u64) << 63) | (e << 52) | m)),
        (any::<f64>(), -320i32..=308).prop_map(|(m, e)| (m % 10.0) * 10f64.powi(e)),
        // f32 values widened, as PajeNG prints them.
        any::<u32>().prop_map(|b| f32::from_bits(b) as f64),
        Just(f64::NAN),
        Just(-f64::NAN),
        Just(f64::INFINITY),
        Just(f64::NEG_INFINITY),
        Just(0.0),
        Just(-0.0),
        Just(999999.5),
        Just(9.9999995),
        Just(0.000099999995),
    ]
}

/// Numeric-looking ASCII strings, with garbage prefixes and suffixes.
const NUMERIC: &str = "[ \t\n]{0,2}[+-]?(\
[0-9]{0,22}(\\.[0-9]{0,22})?([eE][+-]?[0-9]{0,4})?\
|0[0-9]{0,3}\\.[0-9]{0,12}\
|[1-9][0-9]{0,15}[eE]-?[0-9]{1,3}\
|0[xX][0-9a-fA-F]{0,18}(\\.[0-9a-fA-F]{0,18})?([pP][+-]?[0-9]{0,5})?\
|[iI][nN][fF]([iI][nN][iI][tT][yY]?)?\
|[nN][aA][nN](\\([a-zA-Z0-9_]{0,8}\\)?)?\
|nan\\((0x[0-9a-f]{1,17}|0[0-7]{1,22}|[0-9]{1,21})\\)\
)[a-zA-Z.,()+ 0-9-]{0,3}";

proptest! {
    #![proptest_config(ProptestConfig { cases: cases(), ..ProptestConfig::default() })]

    #[test]
    fn print_matches_libc(v in values()) {
        check_print(v)?;
    }

    #[test]
    fn parse_matches_libc(s in NUMERIC) {
        check_parse(&s)?;
    }

    #[test]
    fn roundtrip_printed_values(v in values()) {
        // Strings as printed by %g and %.17g style outputs parse identically.
        for s in [c_general(v), format!("{:e}", v), format!("{}", v), c_fixed(v, 9)] {
            check_parse(&s)?;
        }
    }

    #[test]
    fn short_decimals(int in 0u64..100_000, frac in 0u64..1_000_000_000, digits in 0usize..=12) {
        let s = format!("{int}.{frac:0digits$}");
        check_parse(&s)?;
        let v = trama_num::atof(s.as_bytes());
        check_print(v)?;
    }
}

#[test]
fn exhaustive_small_cases() {
    for s in [
        "",
        " ",
        "+",
        "-",
        ".",
        "+.",
        "e5",
        ".e5",
        "0x",
        "-0x",
        "0x.",
        "0x.p1",
        "0xp1",
        "0x1p",
        "0x1p+",
        "0x1.",
        "0X.8P1",
        "1e",
        "1e+",
        "1e-",
        "1.e5",
        "00",
        "-0",
        "0.",
        "inf",
        "INFINITY",
        "infinit",
        "infx",
        "in",
        "nan",
        "nan(",
        "nan()",
        "nan(1)",
        "nan(0x)",
        "nan(08)",
        "nan(0xffffffffffffffffff)",
        "nan(_)",
        "-nan(12)",
        "nanq",
        "1e99999999999999999999",
        "1e-99999999999999999999",
        "0x1p99999999999999999999",
        "0x1p-99999999999999999999",
        "2.2250738585072011e-308",
        "2.2250738585072012e-308",
        "4.9406564584124654e-324",
        "2.4703282292062327e-324",
        "2.4703282292062328e-324",
        "1.7976931348623158e308",
        "1.7976931348623159e308",
        "3.4028235677973366e38",
        "3.4028235677973367e38",
        "1.40129846e-45",
        "7.0064923e-46",
        "7.0064924e-46",
        "9007199254740993",
        "9007199254740992.5",
        "1e22",
        "1e23",
        "123456789012345678e20",
        "0.000000000000000000001e10",
    ] {
        let b = s.as_bytes();
        let (ours, n) = trama_num::strtod(b);
        let (theirs, m) = c_strtod(b);
        assert_eq!((ours.to_bits(), n), (theirs.to_bits(), m), "strtod({s:?})");
        assert_eq!(
            trama_num::strtof(b).to_bits(),
            c_strtof(b).to_bits(),
            "strtof({s:?})"
        );
    }
    // All precisions on a few awkward values, including large precisions.
    for v in [
        0.5,
        1.5,
        2.5,
        0.125,
        0.375,
        1e-7,
        5e-324,
        1e300,
        f64::MAX,
        0.1,
        2.675,
    ] {
        for prec in [0, 1, 2, 3, 6, 9, 17, 20, 25, 40] {
            assert_eq!(fixed(v, prec), c_fixed(v, prec), "v={v:e} prec={prec}");
            assert_eq!(fixed(-v, prec), c_fixed(-v, prec), "v={:e} prec={prec}", -v);
        }
    }
}
