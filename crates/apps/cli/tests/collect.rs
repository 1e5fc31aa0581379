//! `trama collect ganglia` against a fake gmond on 127.0.0.1 that answers
//! every connection with a recorded dump.

mod common;

use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::process::Output;

use common::trama;
use trama_records::{collect as records, What};
use trama_sources::ganglia::{read_samples, GangliaOptions, GangliaSource};
use trama_sources::OpenSource;
use trama_testkit::shared;

/// The recorded dump: the real 3-host gmond dump of the shared samples
/// when present, else the sources crate's own successive dumps.
fn dump() -> (PathBuf, &'static [&'static str]) {
    let real = shared::dir().join("samples/ganglia/gmond-3.3.8-cassandra.xml");
    if real.is_file() {
        (real, &["cassandra_seednode", "cassandra_node_1"])
    } else {
        (
            Path::new(env!("CARGO_MANIFEST_DIR"))
                .join("../../formats/sources/tests/data/ganglia/successive.xml"),
            &["a", "b"],
        )
    }
}

/// `trama collect ganglia` from the gmond at `addr`: `count` polls of the
/// chosen hosts and metrics, logged to `log`, with `extra` arguments.
fn collect(addr: &str, count: &str, hosts: &str, log: &Path, extra: &[&str]) -> Output {
    let args = [
        "collect",
        "ganglia",
        "--gmond",
        addr,
        "--interval",
        "0.2",
        "--count",
        count,
        "--hosts",
        hosts,
        "--metrics",
        "load_one,cpu_*,os_name",
        "-o",
        log.to_str().unwrap(),
    ];
    trama(&[&args[..], extra].concat())
}

#[test]
fn collects_chosen_hosts_and_metrics_into_a_readable_log() {
    let (path, hosts) = dump();
    let bytes = std::fs::read(&path).unwrap();
    let addr = shared::serve(bytes.clone());
    let dir = tempfile::tempdir().unwrap();
    let log = dir.path().join("ganglia.log");
    let host_list = hosts.join(",");
    let out = collect(&addr, "3", &host_list, &log, &[]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    assert!(stderr.contains("3 polls (0 failed)"), "{stderr}");

    // What the log should hold: every distinct sample of the dump for the
    // chosen hosts and metrics, read straight from the dump.
    let opts = GangliaOptions::new(
        hosts.iter().map(|h| h.to_string()).collect(),
        vec!["load_one".into(), "cpu_*".into(), "os_name".into()],
    );
    let mut direct = GangliaSource::from_reader("dump", bytes.as_slice(), &opts).unwrap();
    let direct = records(&mut direct).unwrap();
    assert!(!direct.is_empty());

    let text = std::fs::read(&log).unwrap();
    let mut lines = 0;
    read_samples("log", &text, &mut |s| {
        lines += 1;
        assert!(hosts.contains(&s.host), "host {}", s.host);
        assert!(
            s.metric == "load_one" || s.metric == "os_name" || s.metric.starts_with("cpu_"),
            "metric {}",
            s.metric
        );
    })
    .unwrap();
    // The same dump three times: logged once.
    assert_eq!(lines, direct.len());
    let mut back = GangliaSource::open(&log, &GangliaOptions::default()).unwrap();
    let back = records(&mut back).unwrap();
    assert_eq!(back.len(), direct.len());
    for (b, d) in back.iter().zip(&direct) {
        assert_eq!(b.time, d.time);
        match (&b.what, &d.what) {
            (
                What::Variable {
                    container: cb,
                    ty: tb,
                    value: vb,
                    ..
                },
                What::Variable {
                    container: cd,
                    ty: td,
                    value: vd,
                    ..
                },
            ) => {
                // The log names hosts only.
                assert_eq!(cb.last(), cd.last());
                assert_eq!((tb, vb), (td, vd));
            }
            (
                What::Event {
                    ty: tb, value: vb, ..
                },
                What::Event {
                    ty: td, value: vd, ..
                },
            ) => assert_eq!((tb, vb), (td, vd)),
            other => panic!("records differ: {other:?}"),
        }
    }

    // A second run appends; the reader drops the repeats.
    let out = collect(&addr, "1", &host_list, &log, &["-q"]);
    assert!(out.status.success());
    let text2 = std::fs::read(&log).unwrap();
    assert_eq!(text2.len(), 2 * text.len());
    let mut again = GangliaSource::open(&log, &GangliaOptions::default()).unwrap();
    assert_eq!(records(&mut again).unwrap().len(), direct.len());
}

#[test]
fn unreachable_gmond_is_an_error_and_help_explains() {
    let port = TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let dir = tempfile::tempdir().unwrap();
    let log = dir.path().join("x.log");
    let out = trama(&[
        "collect",
        "ganglia",
        "--gmond",
        &format!("127.0.0.1:{port}"),
        "--count",
        "2",
        "--interval",
        "0.1",
        "-o",
        log.to_str().unwrap(),
    ]);
    assert!(!out.status.success());
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("first poll"), "{stderr}");

    let out = trama(&[
        "collect",
        "ganglia",
        "--gmond",
        "h:1",
        "--interval",
        "0",
        "-o",
        "x",
    ]);
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("--interval"));

    let out = trama(&["collect", "ganglia", "--help"]);
    let help = String::from_utf8_lossy(&out.stdout);
    for word in [
        "--gmond",
        "--interval",
        "--hosts",
        "--metrics",
        "--count",
        "Ctrl-C",
    ] {
        assert!(help.contains(word), "{word} missing from\n{help}");
    }
}

/// A peer on loopback that answers every connection with `serve`, until
/// the client goes away; its address.
fn peer(serve: fn(std::net::TcpStream)) -> String {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = listener.local_addr().unwrap().to_string();
    std::thread::spawn(move || {
        for s in listener.incoming().flatten() {
            std::thread::spawn(move || serve(s));
        }
    });
    addr
}

fn collect_once(addr: &str, extra: &[&str]) -> Output {
    let dir = tempfile::tempdir().unwrap();
    let log = dir.path().join("g.log");
    let mut args = vec![
        "collect",
        "ganglia",
        "--gmond",
        addr,
        "--count",
        "1",
        "-o",
        log.to_str().unwrap(),
    ];
    args.extend_from_slice(extra);
    trama(&args)
}

#[test]
fn collect_bounds_the_size_of_an_endless_answer() {
    let addr = peer(|mut s| {
        use std::io::Write;
        let block = [b'<'; 65536];
        while s.write_all(&block).is_ok() {}
    });
    let out = collect_once(&addr, &["--max-answer", "1000000", "--timeout", "30"]);
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains(&format!(
            "{addr} sent more than 1000000 bytes in one answer"
        )),
        "{err}"
    );
}

#[test]
fn collect_bounds_the_time_of_a_slow_drip() {
    let addr = peer(|mut s| {
        use std::io::Write;
        while s.write_all(b"<").is_ok() {
            std::thread::sleep(std::time::Duration::from_millis(50));
        }
    });
    let out = collect_once(&addr, &["--timeout", "0.5"]);
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains(&format!("no complete answer from {addr} within 0.5 s")),
        "{err}"
    );
}
