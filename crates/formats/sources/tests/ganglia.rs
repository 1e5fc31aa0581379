//! The Ganglia reader on the real gmond/gmetad dumps of the shared samples,
//! on small files of our own (successive dumps, nested grids, the text
//! log) with golden records, on bad inputs, and the collector against a
//! fake gmond.

mod common;

use std::io::Write as _;
use std::net::TcpListener;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Duration;

use trama_records::{collect as records, DisplayPath, Location, Record, VarOp, What};
use trama_sources::ganglia::{
    collect, detect, read_samples, CollectEvent, CollectOptions, Format, GangliaOptions,
    GangliaSource,
};
use trama_sources::OpenSource;

const NS: i64 = 1_000_000_000;

fn read(path: &std::path::Path, opts: &GangliaOptions) -> (GangliaSource, Vec<Record>) {
    common::read(path, opts)
}

/// The shared sample `ganglia/<file>`, if the samples are there.
fn sample(file: &str, opts: &GangliaOptions) -> Option<(GangliaSource, Vec<Record>)> {
    common::read_sample("ganglia", file, opts)
}

/// One line per record: `seconds container V|E type value`.
fn golden(recs: &[Record]) -> String {
    let mut out = String::from(
        "# time (s) container type value, one record a line (V: variable set, E: event)\n",
    );
    for r in recs {
        let secs = if r.time % NS == 0 {
            (r.time / NS).to_string()
        } else {
            format!("{}", r.time as f64 / NS as f64)
        };
        match &r.what {
            What::Variable {
                container,
                ty,
                op: VarOp::Set,
                value,
            } => out += &format!("{secs} {} V {ty} {value}\n", DisplayPath(container)),
            What::Event {
                container,
                ty,
                value,
                extra,
            } => {
                assert!(extra.is_empty());
                out += &format!("{secs} {} E {ty} {value}\n", DisplayPath(container))
            }
            other => panic!("unexpected record {other:?}"),
        }
    }
    out
}

/// Reads `ganglia/<stem>.<ext>` of the test data with the default options
/// and checks its records against `ganglia/<stem>.expected`.
fn read_golden(stem: &str, ext: &str) -> (GangliaSource, Vec<Record>) {
    let file = common::data(&format!("ganglia/{stem}.{ext}"));
    let (src, recs) = read(&file, &GangliaOptions::default());
    let expected = common::data(&format!("ganglia/{stem}.expected"));
    assert_eq!(golden(&recs), std::fs::read_to_string(expected).unwrap());
    (src, recs)
}

/// (seconds, record) of the samples of metric `ty` of the container whose
/// last step is `host`.
fn samples<'r>(
    recs: &'r [Record],
    host: &'r str,
    ty: &'r str,
) -> impl Iterator<Item = (i64, &'r What)> {
    recs.iter()
        .filter(move |r| match &r.what {
            What::Variable {
                container, ty: t, ..
            }
            | What::Event {
                container, ty: t, ..
            } => t == ty && container.last().unwrap().name == host,
            _ => false,
        })
        .map(|r| (r.time / NS, &r.what))
}

/// The values of variable `ty` of `host` (see [`samples`]).
fn variable(recs: &[Record], host: &str, ty: &str) -> Vec<(i64, f64)> {
    samples(recs, host, ty)
        .filter_map(|(t, w)| match w {
            What::Variable { value, .. } => Some((t, *value)),
            _ => None,
        })
        .collect()
}

/// The texts of event `ty` of `host` (see [`samples`]).
fn events(recs: &[Record], host: &str, ty: &str) -> Vec<(i64, String)> {
    samples(recs, host, ty)
        .filter_map(|(t, w)| match w {
            What::Event { value, .. } => Some((t, value.to_string())),
            _ => None,
        })
        .collect()
}

fn hosts(src: &GangliaSource) -> Vec<String> {
    src.containers()
        .iter()
        .map(|p| DisplayPath(p).to_string())
        .collect()
}

fn assert_sorted(recs: &[Record]) {
    assert!(recs.windows(2).all(|w| w[0].time <= w[1].time));
}

/// Samples of one file, each the only one of its host and metric: host,
/// metric, seconds, value.
type Samples<V> = &'static [(&'static str, &'static str, i64, V)];

/// Numbers of the real dumps, by file.
const REAL_NUMBERS: &[(&str, Samples<f64>)] = &[
    (
        "gmond-3.3.8-cassandra.xml",
        // CLUSTER LOCALTIME="1396016573" minus each METRIC's TN.
        &[
            ("cassandra_seednode", "bytes_out", 1396016563, 8288.58),
            ("10.0.0.7", "bytes_out", 1396016542, 259.70),
            ("cassandra_node_1", "bytes_out", 1396016427, 803.75),
            ("cassandra_seednode", "mem_cached", 1396016563, 187896.0),
        ],
    ),
    (
        "gmond-3.7.1-darwin.xml",
        // LOCALTIME="1468980799"; cpu_user TN=1, load_one TN=51, disk_free TN=141.
        &[
            ("10.62.51.152", "cpu_user", 1468980798, 9.7),
            ("10.62.51.152", "load_one", 1468980748, 1.62),
            ("10.62.51.152", "disk_free", 1468980658, 48.329),
            ("10.62.51.152", "cpu_speed", 1468980778, 2645152798.0),
        ],
    ),
    (
        "gmetad-3.7.1-pretty-printed.xml",
        // GRID LOCALTIME="1468982343" (not the CLUSTER's 1468982340) minus TN.
        &[
            ("10.62.51.152", "disk_total", 1468980659, 190.0),
            ("10.62.51.152", "load_one", 1468982329, 1.48),
            ("10.62.51.152", "cpu_user", 1468982321, 5.2),
        ],
    ),
];

/// Texts of the real dumps, as [`REAL_NUMBERS`].
const REAL_TEXTS: &[(&str, Samples<&str>)] = &[
    (
        "gmond-3.3.8-cassandra.xml",
        &[
            ("cassandra_seednode", "os_name", 1396016123, "Linux"),
            ("10.0.0.7", "gexec", 1396016542, "OFF"),
        ],
    ),
    (
        "gmond-3.7.1-darwin.xml",
        &[("10.62.51.152", "os_release", 1468980778, "15.5.0")],
    ),
    (
        "gmetad-3.7.1-pretty-printed.xml",
        &[("10.62.51.152", "gexec", 1468982159, "OFF")],
    ),
];

/// Checks the samples of [`REAL_NUMBERS`] and [`REAL_TEXTS`] of `file`
/// among its records.
fn assert_real_samples(file: &str, recs: &[Record]) {
    for (_, samples) in REAL_NUMBERS.iter().filter(|(f, _)| *f == file) {
        for (host, ty, t, v) in samples.iter() {
            assert_eq!(variable(recs, host, ty), [(*t, *v)], "{file}: {host} {ty}");
        }
    }
    for (_, samples) in REAL_TEXTS.iter().filter(|(f, _)| *f == file) {
        for (host, ty, t, v) in samples.iter() {
            let want = [(*t, v.to_string())];
            assert_eq!(events(recs, host, ty), want, "{file}: {host} {ty}");
        }
    }
}

#[test]
fn gmond_cassandra_three_hosts() {
    let Some((src, recs)) = sample("gmond-3.3.8-cassandra.xml", &GangliaOptions::default()) else {
        return;
    };
    assert_eq!(src.format(), Format::Xml);
    assert_eq!(
        hosts(&src),
        [
            "cluster:cassandra/host:cassandra_seednode",
            "cluster:cassandra/host:10.0.0.7",
            "cluster:cassandra/host:cassandra_node_1"
        ]
    );
    let st = src.stats();
    assert_eq!(st.documents, 1);
    assert_eq!(st.samples, 86);
    // 28 + 22 + 27 numeric METRICs, 4 + 1 + 4 of TYPE="string".
    assert_eq!((st.variables, st.events), (77, 9));
    assert_eq!(
        (st.repeats, st.unchanged, st.filtered, st.non_finite),
        (0, 0, 0, 0)
    );
    assert_eq!(recs.len(), 86);
    assert_sorted(&recs);
    assert_real_samples("gmond-3.3.8-cassandra.xml", &recs);
    assert_eq!(src.units("bytes_out"), Some("bytes/sec"));
    assert_eq!(src.units("cpu_num"), Some("CPUs"));
    assert_eq!(src.units("load_one"), None, "UNITS=\" \" is no unit");
    assert_eq!(src.units("os_name"), None);
    // The earliest sample: the seednode's string metrics, TN=450.
    assert_eq!(recs[0].time, 1396016123 * NS);
}

#[test]
fn gmond_darwin_one_host() {
    let Some((src, recs)) = sample("gmond-3.7.1-darwin.xml", &GangliaOptions::default()) else {
        return;
    };
    assert_eq!(hosts(&src), ["cluster:my cluster/host:10.62.51.152"]);
    let st = src.stats();
    assert_eq!((st.samples, st.variables, st.events), (33, 29, 4));
    assert_eq!(src.metrics().len(), 33);
    assert_sorted(&recs);
    assert_real_samples("gmond-3.7.1-darwin.xml", &recs);
    assert_eq!(src.units("disk_free"), Some("GB"));
}

#[test]
fn gmetad_times_come_from_the_root_grid() {
    let Some((src, recs)) = sample(
        "gmetad-3.7.1-pretty-printed.xml",
        &GangliaOptions::default(),
    ) else {
        return;
    };
    // The GRID is not part of the path: same container as the gmond dump.
    assert_eq!(hosts(&src), ["cluster:my cluster/host:10.62.51.152"]);
    let st = src.stats();
    assert_eq!(
        (st.documents, st.samples, st.variables, st.events),
        (1, 33, 29, 4)
    );
    assert_sorted(&recs);
    assert_real_samples("gmetad-3.7.1-pretty-printed.xml", &recs);
}

#[test]
fn real_gmond_then_gmetad_dump_drops_repeats() {
    let Some(dir) = common::samples("ganglia") else {
        return;
    };
    let mut both = std::fs::read(dir.join("gmond-3.7.1-darwin.xml")).unwrap();
    both.extend(std::fs::read(dir.join("gmetad-3.7.1-pretty-printed.xml")).unwrap());
    let mut src =
        GangliaSource::from_reader("both", both.as_slice(), &GangliaOptions::default()).unwrap();
    let recs = records(&mut src).unwrap();
    let st = src.stats();
    assert_eq!((st.documents, st.samples), (2, 66));
    // disk_total 190.000 was taken at 1468980658 by the gmond's clock and
    // 1468980659 by the gmetad's: one sample. Every other value of the
    // gmetad dump is younger than the gmond dump (TN <= 184).
    assert_eq!(st.repeats, 1);
    assert_eq!(
        variable(&recs, "10.62.51.152", "disk_total"),
        [(1468980658, 190.0)]
    );
    // The four strings did not change.
    assert_eq!(st.unchanged, 4);
    assert_eq!((st.variables, st.events), (29 + 28, 4));
    // mem_total kept its value but was sent again: two samples.
    assert_eq!(
        variable(&recs, "10.62.51.152", "mem_total"),
        [(1468980778, 8388608.0), (1468982281, 8388608.0)]
    );
    assert_sorted(&recs);
}

#[test]
fn filters_by_host_name_or_ip_and_metric() {
    let Some(dir) = common::samples("ganglia") else {
        return;
    };
    let opts = GangliaOptions::new(
        vec!["cassandra_node_1".into(), "10.0.0.7".into()],
        vec!["cpu_*".into(), "os_name".into()],
    );
    let (src, recs) = read(&dir.join("gmond-3.3.8-cassandra.xml"), &opts);
    assert_eq!(
        hosts(&src),
        [
            "cluster:cassandra/host:10.0.0.7",
            "cluster:cassandra/host:cassandra_node_1"
        ]
    );
    let names: std::collections::BTreeSet<&str> = recs
        .iter()
        .map(|r| match &r.what {
            What::Variable { ty, .. } | What::Event { ty, .. } => ty.as_str(),
            _ => unreachable!(),
        })
        .collect();
    assert!(names
        .iter()
        .all(|n| n.starts_with("cpu_") || *n == "os_name"));
    // 10.0.0.7 sends 6 cpu_* metrics and no os_name; cassandra_node_1 sends
    // 8 cpu_* metrics and os_name.
    assert_eq!(recs.len(), 6 + 8 + 1);
    assert_eq!(src.stats().filtered, 86 - 15);
    assert_eq!(
        events(&recs, "cassandra_node_1", "os_name"),
        [(1396016427, "Linux".to_string())]
    );
}

#[test]
fn successive_dumps_golden() {
    let (src, _) = read_golden("successive", "xml");
    let st = src.stats();
    assert_eq!(st.documents, 3);
    assert_eq!(st.samples, 4 + 5 + 6);
    // Dump 2: a's load_one and cpu_num one second off; dump 3: a's
    // cpu_num, b's load_one.
    assert_eq!(st.repeats, 4);
    assert_eq!(st.unchanged, 2);
    assert_eq!(st.non_finite, 1);
    assert_eq!((st.variables, st.events), (5, 3));
    assert_eq!(src.units("cpu_num"), Some("CPUs"));
}

#[test]
fn nested_grids_summaries_and_bare_hosts_golden() {
    let (src, _) = read_golden("gmetad-nested", "xml");
    let st = src.stats();
    assert_eq!((st.documents, st.samples, st.summaries), (2, 4, 2));
}

#[test]
fn text_log_golden() {
    let (src, _) = read_golden("log", "txt");
    assert_eq!(src.format(), Format::TextLog);
    let st = src.stats();
    assert_eq!((st.samples, st.repeats, st.unchanged), (10, 1, 1));
    assert_eq!(src.units("bytes_out"), None);
    let (_, only) = read(
        &common::data("ganglia/log.txt"),
        &GangliaOptions::new(vec!["paple*".into()], vec!["bytes_out".into()]),
    );
    assert_eq!(only.len(), 2);
}

#[test]
fn detection() {
    assert_eq!(detect(b"\xEF\xBB\xBF  \n<?xml"), Some(Format::Xml));
    assert_eq!(
        detect(b"1096944667 bytes_out h 0.59\n"),
        Some(Format::TextLog)
    );
    assert_eq!(detect(b"# comment\n"), Some(Format::TextLog));
    assert_eq!(detect(b" \n\t"), None);
}

fn error(bytes: &[u8]) -> (Location, String) {
    match GangliaSource::from_reader("bad", bytes, &GangliaOptions::default()) {
        Ok(_) => panic!("accepted {:?}", String::from_utf8_lossy(bytes)),
        Err(e) => {
            assert_eq!(e.file, "bad");
            (e.location, e.message)
        }
    }
}

#[test]
fn bad_text_logs_name_the_line_and_token() {
    let (loc, msg) = error(b"# ok\n1 m h 2\n12x m h 3\n");
    assert_eq!(loc, Location::Line(3));
    assert!(msg.contains("`12x`"), "{msg}");
    let (loc, msg) = error(b"1 m h\n");
    assert_eq!(loc, Location::Line(1));
    assert!(msg.contains("no value"), "{msg}");
    let (loc, msg) = error(b"1 m h Linux\n");
    assert_eq!(loc, Location::Line(1));
    assert!(msg.contains("`Linux`"), "{msg}");
    let (_, msg) = error(b"1 m h two words\n");
    assert!(msg.contains("quoted"), "{msg}");
    let (loc, msg) = error(b"1 m h 1\n2 m h \"open\n");
    assert_eq!(loc, Location::Line(2));
    assert!(msg.contains("unterminated"), "{msg}");
    let (loc, _) = error(b"   \n");
    assert_eq!(loc, Location::File);
}

#[test]
fn bad_dumps_name_the_line_and_token() {
    let head = "<GANGLIA_XML VERSION=\"3\" SOURCE=\"gmond\">\n<CLUSTER NAME=\"c\" LOCALTIME=\"100\">\n<HOST NAME=\"h\" IP=\"i\" REPORTED=\"99\">\n";
    let tail = "</HOST>\n</CLUSTER>\n</GANGLIA_XML>\n";
    let doc = |m: &str| format!("{head}{m}\n{tail}");
    let (loc, msg) = error(doc("<METRIC NAME=\"x\" VAL=\"1,5\" TYPE=\"float\"/>").as_bytes());
    assert_eq!(loc, Location::Line(4));
    assert!(msg.contains("`1,5`"), "{msg}");
    let (loc, msg) = error(doc("<METRIC NAME=\"x\" VAL=\"1\" TYPE=\"int64\"/>").as_bytes());
    assert_eq!(loc, Location::Line(4));
    assert!(msg.contains("`int64`"), "{msg}");
    let (_, msg) = error(doc("<METRIC NAME=\"x\" VAL=\"1\" TYPE=\"float\" TN=\"-\"/>").as_bytes());
    assert!(msg.contains("TN=`-`"), "{msg}");
    let (_, msg) = error(doc("<METRIC NAME=\"x\" TYPE=\"float\"/>").as_bytes());
    assert!(msg.contains("without VAL"), "{msg}");
    let (loc, msg) = error(doc("<METRIC NAME=\"x\" VAL=\"1\" TYPE=\"float\">").as_bytes());
    assert!(matches!(loc, Location::Line(_)));
    assert!(msg.contains("malformed"), "{msg}");
    // A dump cut short, as a killed collector would leave it.
    let cut = doc("<METRIC NAME=\"x\" VAL=\"1\" TYPE=\"float\"/>");
    let (loc, msg) = error(&cut.as_bytes()[..cut.len() - "</GANGLIA_XML>\n".len()]);
    assert_eq!(loc, Location::Line(7));
    assert!(msg.contains("ends inside"), "{msg}");
    let (_, msg) = error(&cut.as_bytes()[..cut.len() - 30]);
    assert!(msg.contains("malformed"), "{msg}");
    let (_, msg) = error(b"<CLUSTER NAME=\"c\" LOCALTIME=\"1\"/>");
    assert!(msg.contains("outside a GANGLIA_XML"), "{msg}");
    let (loc, msg) = error(
        b"<GANGLIA_XML>\n<HOST NAME=\"h\" IP=\"i\">\n<METRIC NAME=\"m\" VAL=\"1\" TYPE=\"float\"/>\n</HOST></GANGLIA_XML>",
    );
    assert_eq!(loc, Location::Line(3));
    assert!(msg.contains("no time"), "{msg}");
    let (_, msg) =
        error(b"<GANGLIA_XML><CLUSTER NAME=\"c\" LOCALTIME=\"1\">text</CLUSTER></GANGLIA_XML>");
    assert!(msg.contains("`text`"), "{msg}");
}

#[test]
fn read_samples_reports_raw_samples() {
    let bytes = std::fs::read(common::data("ganglia/successive.xml")).unwrap();
    let mut n = 0;
    let mut first = None;
    let (fmt, scan) = read_samples("s", &bytes, &mut |s| {
        n += 1;
        if first.is_none() {
            first = Some((
                s.cluster.map(String::from),
                s.host.to_string(),
                s.ip.map(String::from),
                s.metric.to_string(),
                s.time,
                s.value.to_string(),
                s.number,
                s.units.map(String::from),
            ));
        }
    })
    .unwrap();
    assert_eq!(fmt, Format::Xml);
    assert_eq!((scan.documents, scan.samples, n), (3, 15, 15));
    assert_eq!(
        first.unwrap(),
        (
            Some("lab".into()),
            "a".into(),
            Some("10.0.0.1".into()),
            "load_one".into(),
            995 * NS,
            "0.50".into(),
            Some(0.5),
            None
        )
    );
}

/// A fake gmond answering every connection with `dump`, on 127.0.0.1.
fn fake_gmond(dump: Vec<u8>) -> String {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = listener.local_addr().unwrap().to_string();
    std::thread::spawn(move || {
        for conn in listener.incoming() {
            let Ok(mut conn) = conn else { continue };
            let _ = conn.write_all(&dump);
        }
    });
    addr
}

#[test]
fn collector_logs_new_samples_once_and_reads_back() {
    let dumps = std::fs::read(common::data("ganglia/successive.xml")).unwrap();
    let addr = fake_gmond(dumps);
    let mut opts = CollectOptions::new(addr, Duration::from_millis(20));
    opts.count = Some(3);
    opts.filter = GangliaOptions::new(vec!["a".into()], vec![]);
    let mut log = Vec::new();
    let mut rounds = Vec::new();
    let stats = collect(&opts, &AtomicBool::new(false), &mut log, &mut |e| {
        rounds.push(e.clone())
    })
    .unwrap();
    // The fake gmond sends the same three concatenated dumps every time:
    // the first poll logs host a's new samples, the next ones nothing.
    assert_eq!(stats.rounds, 3);
    assert_eq!(stats.failed, 0);
    let text = String::from_utf8(log.clone()).unwrap();
    assert_eq!(
        text,
        "900 os_release a \"1.0\"\n900 cpu_num a 4\n995 load_one a 0.50\n\
         1026 load_one a 0.50\n1026 os_release a \"1.1\"\n"
    );
    assert_eq!(stats.lines, 5);
    assert!(matches!(
        rounds[0],
        CollectEvent::Round {
            round: 1,
            hosts: 1,
            lines: 5
        }
    ));
    assert!(matches!(rounds[2], CollectEvent::Round { lines: 0, .. }));
    // The log reads back to the reader's own records of the dumps.
    let mut back =
        GangliaSource::from_reader("log", log.as_slice(), &GangliaOptions::default()).unwrap();
    let back = records(&mut back).unwrap();
    let (_, direct) = read(
        &common::data("ganglia/successive.xml"),
        &GangliaOptions::new(vec!["a".into()], vec![]),
    );
    assert_eq!(back.len(), direct.len());
    for (b, d) in back.iter().zip(&direct) {
        assert_eq!(b.time, d.time);
        assert_eq!(b.what.kind(), d.what.kind());
    }
}

#[test]
fn collector_stops_through_the_flag() {
    let addr = fake_gmond(std::fs::read(common::data("ganglia/successive.xml")).unwrap());
    let mut opts = CollectOptions::new(addr, Duration::from_millis(10));
    opts.count = None;
    let stop = Arc::new(AtomicBool::new(false));
    let mut log = Vec::new();
    let mut events = Vec::new();
    let flag = stop.clone();
    // Without the flag this never ends; raise it after the second poll.
    let stats = collect(&opts, &stop, &mut log, &mut |e| {
        events.push(e.clone());
        if events.len() == 2 {
            flag.store(true, Ordering::SeqCst);
        }
    })
    .unwrap();
    assert_eq!(stats.rounds, 2);
    assert_eq!(events.len(), 2);
    // Everything of the first poll is in the log.
    let mut back =
        GangliaSource::from_reader("log", log.as_slice(), &GangliaOptions::default()).unwrap();
    assert_eq!(records(&mut back).unwrap().len(), 8);
}

#[test]
fn collector_first_poll_failure_is_an_error_later_ones_warnings() {
    // A port nobody listens on: bind, note it, close.
    let port = TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let mut opts = CollectOptions::new(format!("127.0.0.1:{port}"), Duration::from_millis(10));
    opts.count = Some(2);
    let mut log = Vec::new();
    let err = collect(&opts, &AtomicBool::new(false), &mut log, &mut |_| {}).unwrap_err();
    assert!(err.to_string().contains("first poll"), "{err}");
    assert!(log.is_empty());

    // A gmond that answers, sends garbage twice, then answers again.
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = listener.local_addr().unwrap().to_string();
    let dump = std::fs::read(common::data("ganglia/successive.xml")).unwrap();
    std::thread::spawn(move || {
        for (i, conn) in listener.incoming().enumerate() {
            let Ok(mut conn) = conn else { continue };
            let bad = i == 1 || i == 2;
            let _ = conn.write_all(if bad { b"<GANGLIA_XML><oops" } else { &dump });
        }
    });
    let mut opts = CollectOptions::new(addr, Duration::from_millis(10));
    opts.count = Some(4);
    let mut events = Vec::new();
    let stats = collect(&opts, &AtomicBool::new(false), &mut log, &mut |e| {
        events.push(e.clone())
    })
    .unwrap();
    assert_eq!((stats.rounds, stats.failed), (4, 2));
    let warnings: Vec<_> = events
        .iter()
        .filter_map(|e| match e {
            CollectEvent::Warning { round, message } => Some((*round, message.clone())),
            _ => None,
        })
        .collect();
    // The same failure twice is reported once, and the recovery.
    assert_eq!(warnings.len(), 2, "{warnings:?}");
    assert_eq!(warnings[0].0, 2);
    assert!(warnings[0].1.contains("failed"), "{}", warnings[0].1);
    assert_eq!(warnings[1].0, 4);
    assert!(
        warnings[1].1.contains("after 2 failed polls"),
        "{}",
        warnings[1].1
    );
    // Hosts a (5) and b (3), and b's bytes_out "nan", logged once.
    assert_eq!(stats.lines, 9);
}

#[test]
fn collector_warns_about_filters_matching_nothing() {
    let addr = fake_gmond(std::fs::read(common::data("ganglia/successive.xml")).unwrap());
    let mut opts = CollectOptions::new(addr, Duration::from_millis(10));
    opts.count = Some(1);
    opts.filter = GangliaOptions::new(
        vec!["zz".into(), "10.0.0.2".into()],
        vec!["load_*".into(), "nope".into()],
    );
    let mut log = Vec::new();
    let mut warnings = Vec::new();
    collect(&opts, &AtomicBool::new(false), &mut log, &mut |e| {
        if let CollectEvent::Warning { message, .. } = e {
            warnings.push(message.clone())
        }
    })
    .unwrap();
    assert_eq!(warnings.len(), 2, "{warnings:?}");
    assert!(warnings[0].contains("`zz`") && warnings[1].contains("`nope`"));
    // Host b by its IP: load_one 1.25, 1.50 (once).
    assert_eq!(
        String::from_utf8(log).unwrap(),
        "998 load_one b 1.25\n1012 load_one b 1.50\n"
    );
}
