//! Unit tests with fixed expectations (glibc output, PajeNG expected dumps).

use super::*;

fn fixed(v: f64, prec: usize) -> String {
    let mut out = Vec::new();
    write_fixed(&mut out, v, prec);
    String::from_utf8(out).unwrap()
}

fn general(v: f64) -> String {
    let mut out = Vec::new();
    write_general(&mut out, v);
    String::from_utf8(out).unwrap()
}

#[test]
fn atof_examples() {
    assert_eq!(atof(b"1e-3"), 0.001);
    assert_eq!(atof(b"2.5E+1"), 25.0);
    assert_eq!(atof(b".5e2"), 50.0);
    assert_eq!(atof(b"abc"), 0.0);
    assert_eq!(atof(b"12abc"), 12.0);
    assert_eq!(atof(b"1e"), 1.0);
    assert_eq!(atof(b"  -3.5x"), -3.5);
    assert_eq!(atof(b"12.345678901"), 12.345678901);
    assert_eq!(atof(b"1."), 1.0);
    assert_eq!(atof(b"1.e2"), 100.0);
    assert_eq!(atof(b""), 0.0);
}

#[test]
fn strtod_consumed() {
    assert_eq!(strtod(b"1e5"), (1e5, 3));
    assert_eq!(strtod(b"1E+5"), (1e5, 4));
    assert_eq!(strtod(b"1e+"), (1.0, 1));
    assert_eq!(strtod(b"1e+x"), (1.0, 1));
    assert_eq!(strtod(b"2.5e-3z"), (2.5e-3, 6));
    assert_eq!(strtod(b" \t\n\x0b\x0c\r7"), (7.0, 7));
    assert_eq!(strtod(b"abc"), (0.0, 0));
    assert_eq!(strtod(b"-"), (0.0, 0));
    assert_eq!(strtod(b"."), (0.0, 0));
    assert_eq!(strtod(b"-.e1"), (0.0, 0));
    assert_eq!(strtod(b"+.5"), (0.5, 3));
    assert_eq!(strtod(b"0x1.8p3"), (12.0, 7));
    assert_eq!(strtod(b"0X1P-2"), (0.25, 6));
    assert_eq!(strtod(b"0x"), (0.0, 1));
    assert_eq!(strtod(b"0x.p1"), (0.0, 1));
    assert_eq!(strtod(b"0x1p"), (1.0, 3));
    assert_eq!(strtod(b"0x.8"), (0.5, 4));
    let (z, n) = strtod(b"-0x");
    assert_eq!((z.to_bits(), n), ((-0.0f64).to_bits(), 2));
    assert_eq!(strtod(b"inf"), (f64::INFINITY, 3));
    assert_eq!(strtod(b"-INFINITYx"), (f64::NEG_INFINITY, 9));
    assert_eq!(strtod(b"infinit"), (f64::INFINITY, 3));
    let (n1, c1) = strtod(b"nan");
    assert!(n1.is_nan() && n1.is_sign_positive() && c1 == 3);
    let (n2, c2) = strtod(b"-NaN(abc_1)x");
    assert!(n2.is_nan() && n2.is_sign_negative() && c2 == 11);
    let (n3, c3) = strtod(b"nan(abc");
    assert!(n3.is_nan() && c3 == 3);
    let (n4, _) = strtod(b"nan(0x5)");
    assert_eq!(n4.to_bits(), 0x7ff8_0000_0000_0005);
    assert_eq!(strtod(b"1e400").0, f64::INFINITY);
    assert_eq!(strtod(b"-1e400").0, f64::NEG_INFINITY);
    assert_eq!(strtod(b"1e-400").0, 0.0);
    assert_eq!(strtod(b"4.9406564584124654e-324").0, f64::from_bits(1));
    assert_eq!(strtod(b"0x1p-1074").0, f64::from_bits(1));
    assert_eq!(strtod(b"0x1p-1075").0, 0.0);
    assert_eq!(strtod(b"0x1.8p-1074").0, f64::from_bits(2));
    assert_eq!(strtod(b"0x1p1024").0, f64::INFINITY);
    assert_eq!(strtod(b"0x1.fffffffffffff8p1023").0, f64::INFINITY);
    assert_eq!(strtod(b"0x1.fffffffffffff7p1023").0, f64::MAX);
    // Many digits: falls back to the exact parser.
    assert_eq!(
        strtod(b"0.1000000000000000055511151231257827021181583404541015625").0,
        0.1
    );
    assert_eq!(
        strtod(b"123456789012345678901234567890").0,
        1.2345678901234568e29
    );
}

#[test]
fn swar_digit_scanning() {
    // Non-digit bytes (including non-ASCII) right after 8-digit chunks.
    for tail in [
        &b"\xb0"[..],
        b"\xff",
        b"\x80",
        b"/",
        b":",
        b"\x00",
        b"\xba",
        b"x",
    ] {
        for len in 1..=20 {
            let mut s: Vec<u8> = (0..len).map(|i| b'1' + (i % 9) as u8).collect();
            let expect: f64 = std::str::from_utf8(&s).unwrap().parse().unwrap();
            s.extend_from_slice(tail);
            s.extend_from_slice(b"12345678");
            assert_eq!(strtod(&s), (expect, len), "{s:?}");
        }
    }
    assert_eq!(
        strtod(b"0.123456781234567812345678"),
        (0.12345678123456781, 26)
    );
    assert_eq!(strtod(b"00000000000000000000000012.5"), (12.5, 28));
    assert_eq!(strtod(b"0.00000000000000000000000000"), (0.0, 28));
}

#[test]
fn strtof_cases() {
    assert_eq!(strtof(b"0.1"), 0.1f32);
    assert_eq!(fixed(strtof(b"0.1") as f64, 10), "0.1000000015");
    assert_eq!(
        fixed(strtof(b"123456789.123") as f64, 6),
        "123456792.000000"
    );
    assert_eq!(strtof(b"16777217"), 16777216.0);
    let sum = 16777216.0 + 0.1f32 as f64 + 0.2f32 as f64;
    assert_eq!(fixed(sum, 10), "16777216.3000000045");
    assert_eq!(fixed(sum, 6), "16777216.300000");
    let big = strtof(b"1e40");
    assert_eq!(big, f32::INFINITY);
    assert_eq!(fixed(big as f64, 6), "inf");
    assert_eq!(fixed(strtof(b"-0") as f64, 6), "-0.000000");
    assert_eq!(strtof(b"abc"), 0.0);
    // Double rounding trap: 2^24 + 1 + tiny rounds up in one step, but via
    // f64 of the midpoint 16777217 it would round to even (down).
    assert_eq!(strtof(b"16777217.000000001"), 16777218.0);
    // Same trap on the Clinger fast path: 1844674517322118e4 is 608 above
    // the f32 midpoint (2^24 + 1) * 2^40, and its f64 rounds onto it.
    let mid = 16777217.0f64 * 2f64.powi(40);
    assert_eq!(atof(b"1844674517322118e4"), mid);
    assert_eq!(strtof(b"1844674517322118e4"), 16777218.0f32 * 2f32.powi(40));
    assert_eq!(strtof(b"0x1.000001p0"), 1.0);
    assert_eq!(strtof(b"0x1.0000011p0"), 1.0 + f32::EPSILON);
    assert_eq!(strtof(b"0x1p-149"), f32::from_bits(1));
}

#[test]
fn fixed_examples() {
    for (v, prec, want) in [
        (0.125, 2, "0.12"),
        (0.375, 2, "0.38"),
        (2.5, 0, "2"),
        (3.5, 0, "4"),
        (0.5, 0, "0"),
        (1.5, 0, "2"),
        (-0.0, 6, "-0.000000"),
        (0.0, 0, "0"),
        (-0.001, 2, "-0.00"),
        (f64::INFINITY, 3, "inf"),
        (f64::NEG_INFINITY, 3, "-inf"),
        (f64::NAN, 3, "nan"),
        (-f64::NAN, 3, "-nan"),
        (12.345678901, 9, "12.345678901"),
        (1e22, 2, "10000000000000000000000.00"),
        (0.1, 30, "0.100000000000000005551115123126"),
        (f64::from_bits(1), 3, "0.000"),
    ] {
        assert_eq!(fixed(v, prec), want, "{v:e} at {prec}");
    }
    assert_eq!(fixed(1e300, 0).len(), 301);
}

#[test]
fn general_examples() {
    for (v, want) in [
        (1234567.891, "1.23457e+06"),
        (0.0000123, "1.23e-05"),
        (1.359, "1.359"),
        (4.0, "4"),
        (0.0, "0"),
        (-0.0, "-0"),
        (100000.0, "100000"),
        (1000000.0, "1e+06"),
        (0.0001, "0.0001"),
        (0.00001, "1e-05"),
        (999999.5, "1e+06"),
        (-2.5, "-2.5"),
        (1e300, "1e+300"),
        (f64::from_bits(1), "4.94066e-324"),
        (f64::NAN, "nan"),
        (-f64::NAN, "-nan"),
        (f64::NEG_INFINITY, "-inf"),
        (9.999995, "10"),
        (0.000099999996, "0.0001"),
    ] {
        assert_eq!(general(v), want, "{v:e}");
    }
}
