//! `trama timesync`: the seed's worked example by hand (--correct), units,
//! errors, and a measurement against `trama timesync --serve` on loopback.

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};

fn trama(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_trama"))
        .args(args)
        .output()
        .expect("run trama")
}

/// Table 4.6 of the seed (the timesync crate's test file).
fn paple() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../core/timesync/tests/data/paple.timesync")
}

fn stdout(o: &Output) -> String {
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    String::from_utf8(o.stdout.clone()).unwrap()
}

#[test]
fn correct_prints_the_worked_example() {
    let f = paple();
    let f = f.to_str().unwrap();
    let o = trama(&["timesync", "--correct", f, "paple03", "1094222084364200"]);
    assert_eq!(stdout(&o), "1094221333343713\n");
    // With decimals: the nanoseconds below, floored to TIME's precision.
    let o = trama(&[
        "timesync",
        "--correct",
        f,
        "paple03",
        "1094222084364200.000",
    ]);
    assert_eq!(stdout(&o), "1094221333343713.999\n");
    // The reference is not corrected.
    let o = trama(&["timesync", "--correct", f, "paple", "-12.5"]);
    assert_eq!(stdout(&o), "-12.5\n");
}

#[test]
fn correct_in_seconds() {
    let dir = tempfile::tempdir().unwrap();
    let text = std::fs::read_to_string(paple()).unwrap();
    let secs: String = text
        .lines()
        .map(|l| {
            let v: Vec<&str> = l.split_whitespace().collect();
            let s = |t: &str| format!("{}.{}", &t[..t.len() - 6], &t[t.len() - 6..]);
            format!("{} {} {} {}\n", v[0], s(v[1]), v[2], s(v[3]))
        })
        .collect();
    let f = dir.path().join("sync-s");
    std::fs::write(&f, secs).unwrap();
    let o = trama(&[
        "timesync",
        "--unit",
        "s",
        "--correct",
        f.to_str().unwrap(),
        "paple03",
        "1094222084.364200",
    ]);
    assert_eq!(stdout(&o), "1094221333.343713\n");
    // Read in microseconds, the same file has fractions finer than a nanosecond.
    let o = trama(&["timesync", "--correct", f.to_str().unwrap(), "paple03", "1"]);
    assert!(!o.status.success());
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        err.contains("sync-s:1:") && err.contains("`1094221332.965040`"),
        "{err}"
    );
}

#[test]
fn correct_errors() {
    let f = paple();
    let f = f.to_str().unwrap();
    let o = trama(&["timesync", "--correct", f, "paple09", "1"]);
    assert!(!o.status.success());
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        err.contains("`paple09`") && err.contains("paple01, paple02"),
        "{err}"
    );
    let o = trama(&["timesync", "--correct", f, "paple03", "12h"]);
    assert!(!o.status.success());
    assert!(String::from_utf8_lossy(&o.stderr).contains("`12h`"));
    let o = trama(&["timesync", "--correct", f, "paple03"]);
    assert!(!o.status.success());
    let o = trama(&["timesync", "--unit", "min", "--correct", f, "paple03", "1"]);
    assert!(!o.status.success());
}

struct Served(Child);

impl Drop for Served {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// The round trip in ms printed for each host.
fn round_trips(out: &str) -> Vec<f64> {
    out.lines()
        .filter_map(|l| l.split("round trip ").nth(1))
        .map(|r| r.trim_end_matches(" ms").parse().unwrap())
        .collect()
}

#[test]
fn measure_against_a_served_clock() {
    let mut child = Command::new(env!("CARGO_BIN_EXE_trama"))
        .args(["timesync", "--serve", "--listen", "127.0.0.1:0"])
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut line = String::new();
    BufReader::new(child.stderr.take().unwrap())
        .read_line(&mut line)
        .unwrap();
    let _served = Served(child);
    let addr = line.trim().rsplit(' ').next().unwrap().to_string();
    assert!(addr.starts_with("127.0.0.1:"), "{line}");

    let dir = tempfile::tempdir().unwrap();
    let f = dir.path().join("timesync");
    let fs = f.to_str().unwrap();
    let host = format!("node7={addr}");
    let before = trama(&[
        "timesync",
        "--reference",
        "front",
        "--samples",
        "4",
        &host,
        "-o",
        fs,
    ]);
    let out = stdout(&before);
    assert!(
        out.contains("node7: clock ") && out.contains("offsets only"),
        "{out}"
    );
    // Not twice without --append.
    let again = trama(&["timesync", "--reference", "front", &host, "-o", fs]);
    assert!(!again.status.success());
    assert!(String::from_utf8_lossy(&again.stderr).contains("--append"));
    std::thread::sleep(std::time::Duration::from_millis(3));
    let after = trama(&[
        "timesync",
        "--reference",
        "front",
        "--samples",
        "4",
        "--append",
        &host,
        "-o",
        fs,
    ]);
    let out2 = stdout(&after);
    assert!(out2.contains("2 block(s)"), "{out2}");

    let text = std::fs::read_to_string(&f).unwrap();
    let pairs: Vec<Vec<&str>> = text
        .lines()
        .filter(|l| !l.starts_with('#'))
        .map(|l| l.split(' ').collect())
        .collect();
    assert_eq!(pairs.len(), 2, "{text}");
    assert!(pairs.iter().all(|p| p[0] == "front" && p[2] == "node7"));
    assert_eq!(text.lines().filter(|l| l.starts_with('#')).count(), 2);

    // The same clock: a time between the blocks is corrected by less than
    // the worse round trip (printed in ms, to the µs) plus the flooring.
    let mid = (pairs[0][3].parse::<i64>().unwrap() + pairs[1][3].parse::<i64>().unwrap()) / 2;
    let o = trama(&["timesync", "--correct", fs, "node7", &mid.to_string()]);
    let corrected: i64 = stdout(&o).trim().parse().unwrap();
    let rtt_us = round_trips(&out)
        .into_iter()
        .chain(round_trips(&out2))
        .fold(0.0, f64::max)
        * 1000.0;
    assert!(
        ((corrected - mid) as f64).abs() <= rtt_us / 2.0 + 4.0,
        "corrected {corrected}, time {mid}, round trip {rtt_us} µs"
    );

    // A host nobody serves.
    let closed = {
        let l = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        l.local_addr().unwrap().port()
    };
    let o = trama(&[
        "timesync",
        "--reference",
        "front",
        "--timeout",
        "2",
        &format!("ghost=127.0.0.1:{closed}"),
        "-o",
        dir.path().join("other").to_str().unwrap(),
    ]);
    assert!(!o.status.success());
    assert!(String::from_utf8_lossy(&o.stderr).contains("measuring ghost"));
    assert!(!dir.path().join("other").exists());
}
