//! The `timesync` file: the seed's worked example, offsets only, blocks,
//! units, rounding and errors with their lines.

use std::path::{Path, PathBuf};

use trama_timesync::{Correction, Pair, SyncError, SyncTable, TimeUnit};

fn data(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data")
        .join(name)
}

const US: i64 = 1_000;

/// Table 4.6 of the seed: paple is the reference; paple03's time
/// 1094222084364200 µs is 1094221333343713 µs on paple's clock.
#[test]
fn worked_example_of_the_seed() {
    let t = SyncTable::read(data("paple.timesync"), TimeUnit::Microseconds).unwrap();
    assert_eq!(t.reference(), "paple");
    assert_eq!(
        t.hosts().collect::<Vec<_>>(),
        ["paple01", "paple02", "paple03", "paple04"]
    );
    assert_eq!(t.blocks(), 2);
    // Lines 3 and 7 of the table are paple03's.
    let (before, after) = t.pairs("paple03").unwrap();
    assert_eq!(before.line, 3);
    assert_eq!(after.unwrap().line, 7);
    let c = t.correction("paple03").unwrap();
    assert!(c.corrects_drift());
    let corrected = c.apply(1_094_222_084_364_200 * US);
    assert_eq!(
        TimeUnit::Microseconds.floor(corrected),
        1_094_221_333_343_713
    );
    // Exactly: 37 µs * 4408668 / 4408711 = 36.999639... µs after t_o_ref, floored in ns.
    assert_eq!(corrected, 1_094_221_333_343_677 * US + 36_999);
}

/// The formula against floating point on every host, at the pairs
/// themselves (exact) and in between (to a microsecond).
#[test]
fn every_host_maps_its_pairs_onto_the_reference() {
    let t = SyncTable::read(data("paple.timesync"), TimeUnit::Microseconds).unwrap();
    for h in t.hosts() {
        let (o, n) = t.pairs(h).unwrap();
        let n = n.unwrap();
        let c = t.correction(h).unwrap();
        assert_eq!(c.apply(o.host_ns), o.reference_ns, "{h}");
        assert_eq!(c.apply(n.host_ns), n.reference_ns, "{h}");
        let mid = o.host_ns + (n.host_ns - o.host_ns) / 3;
        let slope = (n.reference_ns - o.reference_ns) as f64 / (n.host_ns - o.host_ns) as f64;
        let expect = o.reference_ns as f64 + (mid - o.host_ns) as f64 * slope;
        assert!((c.apply(mid) as f64 - expect).abs() < 1_000.0, "{h}");
    }
}

#[test]
fn offset_only_with_one_block() {
    let text = std::fs::read_to_string(data("paple.timesync")).unwrap();
    let first: String = text.lines().take(4).map(|l| format!("{l}\n")).collect();
    let t = SyncTable::parse(&first, "before-only", TimeUnit::Microseconds).unwrap();
    assert_eq!(t.blocks(), 1);
    let c = t.correction("paple03").unwrap();
    assert!(!c.corrects_drift());
    // 1094222084364200 - 1094222084364163 + 1094221333343677
    assert_eq!(
        c.apply(1_094_222_084_364_200 * US),
        1_094_221_333_343_714 * US
    );
    assert_eq!(
        c.apply(-5),
        -5 + (1_094_221_333_343_677 - 1_094_222_084_364_163) * US
    );
}

#[test]
fn the_reference_is_not_corrected_and_unknown_hosts_have_no_correction() {
    let t = SyncTable::read(data("paple.timesync"), TimeUnit::Microseconds).unwrap();
    let c = t.correction("paple").unwrap();
    assert!(c.is_identity());
    assert_eq!(c.apply(123_456_789), 123_456_789);
    assert_eq!(t.correction("paple05"), None);
    assert_eq!(t.correction("PAPLE03"), None);
}

/// Blank lines and comments separate blocks; then a host may have several
/// pairs in a block: the earliest before the run, the latest after it.
#[test]
fn explicit_blocks_with_several_pairs_per_host() {
    let text = "# before the run\n\
                paple 1000 a 5000\n\
                paple 900 a 4950   # an earlier pair: kept\n\
                paple 1100 b 100\n\
                \n\
                # after the run\n\
                paple 2000 a 6000\n\
                paple 2100 b 1200\n\
                paple 2500 a 6400\n\
                paple 2400 a 6300\n";
    let t = SyncTable::parse(text, "explicit", TimeUnit::Microseconds).unwrap();
    assert_eq!(t.blocks(), 2);
    let (o, n) = t.pairs("a").unwrap();
    assert_eq!((o.line, n.unwrap().line), (3, 9));
    assert_eq!((o.reference_ns, o.host_ns), (900 * US, 4950 * US));
    // a: 900 + (t - 4950) * 1600 / 1450
    let c = t.correction("a").unwrap();
    assert_eq!(c.apply(5095 * US), (900 + 160) * US);
    // Without the separators, the repeated host would have started the second block.
    let t = SyncTable::parse(
        "paple 1000 a 5000\npaple 1100 b 100\npaple 2000 a 6000\npaple 2100 b 1200\n",
        "implicit",
        TimeUnit::Microseconds,
    )
    .unwrap();
    assert_eq!(t.blocks(), 2);
    assert_eq!(t.pairs("b").unwrap().1.unwrap().line, 4);
}

/// The same table written in seconds with a fraction, or in nanoseconds,
/// gives the same corrections.
#[test]
fn units_of_the_file() {
    let us = std::fs::read_to_string(data("paple.timesync")).unwrap();
    let conv = |f: &dyn Fn(&str) -> String| -> String {
        us.lines()
            .map(|l| {
                let v: Vec<&str> = l.split_whitespace().collect();
                format!("{}\t{}\t{}\t{}\n", v[0], f(v[1]), v[2], f(v[3]))
            })
            .collect()
    };
    let secs = conv(&|t| format!("{}.{}", &t[..t.len() - 6], &t[t.len() - 6..]));
    let nanos = conv(&|t| format!("{t}000"));
    assert!(secs.starts_with("paple\t1094221332.965040\t"));
    let ts = SyncTable::parse(&secs, "s", TimeUnit::Seconds).unwrap();
    let tn = SyncTable::parse(&nanos, "ns", TimeUnit::Nanoseconds).unwrap();
    let tu = SyncTable::parse(&us, "us", TimeUnit::Microseconds).unwrap();
    for h in tu.hosts() {
        let t = 1_094_222_000_000_000 * US + 777;
        let expect = tu.correction(h).unwrap().apply(t);
        assert_eq!(ts.correction(h).unwrap().apply(t), expect);
        assert_eq!(tn.correction(h).unwrap().apply(t), expect);
    }
    // Read as milliseconds, the same numbers are beyond 2262: out of range.
    let e = SyncTable::parse(&us, "ms", TimeUnit::Milliseconds).unwrap_err();
    assert_eq!(e.line, Some(1));
    assert!(
        e.message.contains("`1094221332965040`") && e.message.contains("out of range"),
        "{e}"
    );
}

#[test]
fn rounding_is_floor_and_order_is_kept() {
    let before = Pair {
        reference_ns: 0,
        host_ns: 0,
        line: 0,
    };
    let after = Pair {
        reference_ns: 1,
        host_ns: 3,
        line: 0,
    };
    let c = Correction::drift(before, after).unwrap();
    let got: Vec<i64> = (-4..=4).map(|t| c.apply(t)).collect();
    assert_eq!(got, [-2, -1, -1, -1, 0, 0, 0, 1, 1]);
    assert!(got.windows(2).all(|w| w[0] <= w[1]));
    assert_eq!(Correction::drift(before, before), None);
    // Saturation instead of overflow.
    let fast = Correction::drift(
        before,
        Pair {
            reference_ns: 1_000,
            host_ns: 1,
            line: 0,
        },
    )
    .unwrap();
    assert_eq!(fast.apply(i64::MAX / 10), i64::MAX);
    assert_eq!(fast.apply(i64::MIN / 10), i64::MIN);
}

#[test]
fn time_units_parse_and_format() {
    let us = TimeUnit::Microseconds;
    assert_eq!(us.parse_ns("12"), Ok(12_000));
    assert_eq!(us.parse_ns("-1.5"), Ok(-1_500));
    assert_eq!(us.parse_ns("+0.001"), Ok(1));
    assert_eq!(us.parse_ns("1.0010000"), Ok(1_001));
    assert!(us.parse_ns("1.0001").is_err());
    assert!(us.parse_ns("1e3").is_err());
    assert!(us.parse_ns(".").is_err());
    assert!(us.parse_ns("").is_err());
    assert!(us.parse_ns("99999999999999999999").is_err());
    assert_eq!(TimeUnit::Seconds.parse_ns("1.5"), Ok(1_500_000_000));
    assert_eq!(us.format(1_999, 0), "1");
    assert_eq!(us.format(-1, 0), "-1");
    assert_eq!(us.format(-1_500, 1), "-1.5");
    assert_eq!(TimeUnit::Seconds.format(1_000_000_001, 9), "1.000000001");
    assert_eq!(TimeUnit::Seconds.format(1_500_000_000, 3), "1.500");
    for (name, u) in [
        ("s", TimeUnit::Seconds),
        ("ms", TimeUnit::Milliseconds),
        ("us", TimeUnit::Microseconds),
        ("ns", TimeUnit::Nanoseconds),
    ] {
        assert_eq!(name.parse::<TimeUnit>(), Ok(u));
        assert_eq!(u.to_string(), name);
    }
    assert!("min".parse::<TimeUnit>().is_err());
}

fn error(text: &str) -> SyncError {
    SyncTable::parse(text, "sync.txt", TimeUnit::Microseconds).unwrap_err()
}

/// Tables that fail: the text, the line of the error and words its
/// message holds.
const ERRORS: &[(&str, u64, &[&str])] = &[
    ("r 1 a 10\nr 2 b\n", 2, &["found 3", "`r 2 b`"]),
    ("r 1 a 10\n\nr 2 b 1O\n", 3, &["`1O`"]),
    ("r 1 a 10\nr 2 b 20\nq 3 c 30\n", 3, &["`q`", "line 1"]),
    // A host after the run only.
    (
        "r 1 a 10\n\nr 5 a 20\nr 6 z 30\n",
        4,
        &["`z`", "none before"],
    ),
    // A host before the run only.
    (
        "r 1 a 10\nr 2 b 10\n# after\nr 5 a 20\n",
        2,
        &["`b`", "none after"],
    ),
    // Zero interval on the host's clock, then on the reference's.
    ("r 1 a 10\nr 5 a 10\n", 2, &["host time `10`"]),
    ("r 7 a 10\nr 7 a 12\n", 2, &["reference time `7`"]),
    // A third block.
    ("r 1 a 10\nr 2 a 20\nr 3 a 30\n", 3, &["third block"]),
    ("r 1 a 10\n\nr 2 a 20\n#\nr 3 a 30\n", 5, &[]),
];

#[test]
fn errors_name_the_line_and_the_token() {
    for (text, line, words) in ERRORS {
        let e = error(text);
        assert_eq!(e.line, Some(*line), "{text:?}: {e}");
        for w in *words {
            assert!(e.message.contains(w), "{text:?}: {e}");
        }
    }
    let e = error(ERRORS[0].0);
    assert!(e.to_string().starts_with("sync.txt:2: "), "{e}");

    // Finer than a nanosecond.
    let e = SyncTable::parse("r 1 a 0.5\n", "f", TimeUnit::Nanoseconds).unwrap_err();
    assert!(
        e.message.contains("`0.5`") && e.message.contains("nanosecond"),
        "{e}"
    );

    // Nothing at all.
    let e = error("# nothing\n\n");
    assert_eq!(e.line, None);
    assert_eq!(
        e.to_string(),
        "sync.txt: no clock pairs (`refhost reftime host hosttime` lines)"
    );

    let e = SyncTable::read(data("absent.timesync"), TimeUnit::Microseconds).unwrap_err();
    assert!(e.message.starts_with("cannot read"), "{e}");
}
