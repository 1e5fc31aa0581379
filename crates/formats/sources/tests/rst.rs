//! libRastro sources: Akypuera's five example traces converted as
//! `aky_converter` does and compared with its tesh expectations, the
//! per-rank sources the merge takes, the shipped mappings, and crafted
//! files for the edge cases (unknown id, truncation, unmatched OUT, DECK).

mod common;

use std::collections::HashMap;
use std::path::PathBuf;

use trama_rastro::rst::{Encoder, Layout, Stamp, Value};
use trama_records::{
    collect, path, Decl, Dialect, EntityKind, Extras, Location, PajeWriter, Record, Source,
    SourceError, What,
};
use trama_sources::rst::{
    akypuera_convert, akypuera_dialect, akypuera_options, akypuera_source, akypuera_sources,
    Mapping, RstOptions, RstSource, Skipped, AKY_HEADER,
};
use trama_sources::OpenSource;

const EXAMPLES: [&str; 5] = ["collective", "prog", "ring", "small", "smpi_bug"];

fn rank_files(dir: &std::path::Path) -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
        .expect("example folder")
        .map(|e| e.expect("entry").path())
        .filter(|p| p.extension().is_some_and(|x| x == "rst"))
        .collect();
    files.sort();
    files
}

/// The tesh filter: `grep -vPe '^[#|%]' | cut -d' ' -f2-`.
fn tesh_filter(text: &str) -> Vec<String> {
    text.lines()
        .filter(|l| !l.starts_with(['#', '|', '%']))
        .map(|l| match l.split_once(' ') {
            Some((_, rest)) => rest.to_string(),
            None => l.to_string(),
        })
        .collect()
}

#[test]
fn akypuera_examples_match_aky_converter() {
    let Some(dir) = common::samples("librastro-rst/akypuera") else {
        return;
    };
    for ex in EXAMPLES {
        let files = rank_files(&dir.join(ex));
        let mut src = akypuera_source(&files).expect("opens");
        let text = {
            let mut w = PajeWriter::new(Vec::new(), akypuera_dialect(), akypuera_options())
                .expect("writer");
            while let Some(r) = src.next_record().expect("record") {
                w.write(&r).unwrap_or_else(|e| panic!("writing {r:?}: {e}"));
            }
            String::from_utf8(w.finish().expect("finish")).expect("utf-8")
        };
        let got = tesh_filter(&text);
        let expected: Vec<String> =
            std::fs::read_to_string(dir.join(ex).join(format!("{ex}.expected.paje")))
                .expect("expected output")
                .lines()
                .map(str::to_string)
                .collect();
        for (i, (g, e)) in got.iter().zip(&expected).enumerate() {
            assert_eq!(g, e, "{ex}: line {} differs", i + 1);
        }
        assert_eq!(got.len(), expected.len(), "{ex}: number of lines");
    }
}

/// The rank files of the small example, read with the Akypuera mapping:
/// exact times of the rank's clock, keys pairing across the files.
#[test]
fn akypuera_rank_sources_small_example() {
    let Some(dir) = common::samples("librastro-rst/akypuera") else {
        return;
    };
    let mut sources = akypuera_sources(&rank_files(&dir.join("small"))).expect("opens");
    assert_eq!(sources.len(), 2);
    assert_eq!(sources[0].header(), (0, 0, "caligula"));
    let rank0 = path(&[("ROOT", "root"), ("PROCESS", "rank0")]);
    let rank1 = path(&[("ROOT", "root"), ("PROCESS", "rank1")]);
    let root = Some(path(&[("ROOT", "root")]));
    assert_eq!(sources[0].container(), &rank0);
    // Clock of both files: second 1483709721 at 1 ns resolution.
    let t = |ticks: i64| 1_483_709_721_000_000_000 + ticks;
    let r0 = collect(&mut sources[0]).expect("rank 0");
    let decl = |d: Decl| Record {
        time: t(137_810_294),
        what: What::Declare(d),
    };
    let rec = |ticks: i64, what: What| Record {
        time: t(ticks),
        what,
    };
    let push = |value: &str, extra: Extras| What::PushState {
        container: rank0.clone(),
        ty: "STATE".into(),
        value: value.into(),
        extra,
    };
    let pop = || What::PopState {
        container: rank0.clone(),
        ty: "STATE".into(),
        extra: vec![],
    };
    let ex = |pairs: &[(&str, &str)]| -> Extras {
        pairs
            .iter()
            .map(|(a, b)| ((*a).into(), (*b).into()))
            .collect()
    };
    let expected = vec![
        decl(Decl::ContainerType {
            name: "ROOT".into(),
            parent: None,
        }),
        decl(Decl::ContainerType {
            name: "PROCESS".into(),
            parent: Some("ROOT".into()),
        }),
        decl(Decl::EntityType {
            kind: EntityKind::State,
            name: "STATE".into(),
            container: "PROCESS".into(),
            color: None,
        }),
        decl(Decl::LinkType {
            name: "LINK".into(),
            container: Some("ROOT".into()),
            start: "PROCESS".into(),
            end: "PROCESS".into(),
        }),
        rec(
            137_810_294,
            What::Create {
                container: rank0.clone(),
            },
        ),
        rec(137_812_247, push("MPI_Comm_rank", vec![])),
        rec(137_812_388, pop()),
        rec(137_823_572, push("MPI_Send", ex(&[("Mark", "0")]))),
        rec(
            137_832_521,
            What::StartLink {
                container: root.clone(),
                ty: "LINK".into(),
                from: rank0.clone(),
                value: "PTP".into(),
                key: "0_1:PTP:0".into(),
                extra: ex(&[("Mark", "0"), ("Size", "4")]),
            },
        ),
        rec(137_881_248, pop()),
        rec(137_881_962, push("MPI_Finalize", vec![])),
        rec(140_533_004, pop()),
        rec(
            140_533_004,
            What::Destroy {
                container: rank0.clone(),
            },
        ),
    ];
    assert_eq!(r0, expected);
    let r1 = collect(&mut sources[1]).expect("rank 1");
    let ends: Vec<&Record> = r1
        .iter()
        .filter(|r| matches!(r.what, What::EndLink { .. }))
        .collect();
    assert_eq!(
        ends,
        vec![&Record {
            time: t(137_909_304),
            what: What::EndLink {
                container: root,
                ty: "LINK".into(),
                to: rank1,
                value: "PTP".into(),
                key: "0_1:PTP:0".into(),
                extra: vec![],
            },
        }]
    );
    assert_eq!(sources[1].skipped(), Skipped::default());
}

/// Messages as `(sender, receiver, value)`, sorted: from the rank sources
/// (keys paired) and from aky_converter's expected output (a key's first
/// line is its start).
fn messages_of_records(records: &[Record]) -> Vec<(String, String, String)> {
    let mut starts: HashMap<String, (String, String)> = HashMap::new();
    let mut out = Vec::new();
    for r in records {
        match &r.what {
            What::StartLink {
                from, value, key, ..
            } => {
                let prev =
                    starts.insert(key.to_string(), (from[1].name.clone(), value.to_string()));
                assert!(prev.is_none(), "key {key} starts twice");
            }
            What::EndLink { to, value, key, .. } => {
                let (from, v) = starts
                    .remove(key.as_str())
                    .unwrap_or_else(|| panic!("{key} ends unstarted"));
                assert_eq!(&v, value, "{key}");
                out.push((from, to[1].name.clone(), v));
            }
            _ => {}
        }
    }
    assert!(starts.is_empty(), "links without an end: {starts:?}");
    out.sort();
    out
}

fn messages_of_expected(text: &str) -> Vec<(String, String, String)> {
    let mut starts: HashMap<String, (String, String)> = HashMap::new();
    let mut out = Vec::new();
    for l in text.lines() {
        let w: Vec<&str> = l.split(' ').collect();
        if w.len() >= 6 && w[2] == "LINK" && w[1] == "root" {
            let (rank, value, key) = (w[3].to_string(), w[4].to_string(), w[5].to_string());
            match starts.remove(&key) {
                None => {
                    starts.insert(key, (rank, value));
                }
                Some((from, v)) => out.push((from, rank, v)),
            }
        }
    }
    assert!(starts.is_empty());
    out.sort();
    out
}

#[test]
fn akypuera_rank_sources_pair_the_same_messages_as_aky_converter() {
    let Some(dir) = common::samples("librastro-rst/akypuera") else {
        return;
    };
    let mut total = 0;
    for ex in EXAMPLES {
        let files = rank_files(&dir.join(ex));
        let mut all = Vec::new();
        for (i, mut s) in akypuera_sources(&files)
            .expect("opens")
            .into_iter()
            .enumerate()
        {
            let recs = collect(&mut s).expect("reads");
            assert!(
                recs.windows(2).all(|w| w[0].time <= w[1].time),
                "{ex}: order"
            );
            assert_eq!(s.skipped(), Skipped::default(), "{ex}");
            all.extend(recs.into_iter().map(|r| (r.time, i, r)));
        }
        // Until the merge: a stable sort by (time, file).
        all.sort_by_key(|(t, i, _)| (*t, *i));
        let records: Vec<Record> = all.into_iter().map(|(_, _, r)| r).collect();
        let ours = messages_of_records(&records);
        let expected = std::fs::read_to_string(dir.join(ex).join(format!("{ex}.expected.paje")))
            .expect("expected output");
        assert_eq!(ours, messages_of_expected(&expected), "{ex}");
        total += ours.len();
    }
    // collective 12, prog 0, ring 11, small 1, smpi_bug 6 messages.
    assert_eq!(total, 30);
}

#[test]
fn akypuera_header_and_dialect() {
    let full = Dialect::from_header(AKY_HEADER).expect("valid header");
    assert_eq!(full.defs().len(), 20);
    let d = akypuera_dialect();
    assert_eq!(d.header(), AKY_HEADER);
    assert!(d.header().contains("%       Mark string"));
    // Values are used, never declared, as aky_converter does.
    let value_def = d
        .defs()
        .iter()
        .find(|d| d.kind() == trama_events::EventKind::DefineEntityValue)
        .map(|d| format!("{} ", String::from_utf8_lossy(d.id())))
        .expect("the header defines values");
    if let Some(dir) = common::samples("librastro-rst/akypuera") {
        let (out, n) = akypuera_convert(&rank_files(&dir.join("ring")), Vec::new()).unwrap();
        let text = String::from_utf8(out).unwrap();
        assert!(n > 90, "{n}");
        assert!(text.contains("MPI_Send"));
        assert!(!text.lines().any(|l| l.starts_with(&value_def)), "{text}");
    }
    let m = Mapping::akypuera();
    let names: Vec<(String, String)> = m
        .extra_fields()
        .iter()
        .map(|f| (f.kind.name().to_string(), f.name.clone()))
        .collect();
    assert_eq!(
        names,
        [
            ("PajePushState", "Mark"),
            ("PajeStartLink", "Mark"),
            ("PajeStartLink", "Size")
        ]
        .map(|(a, b)| (a.to_string(), b.to_string()))
    );
    assert_eq!(m.path_types().collect::<Vec<_>>(), ["ROOT", "PROCESS"]);
    let deck = Mapping::deck();
    assert_eq!(
        deck.path_types().collect::<Vec<_>>(),
        ["host", "node", "thread"]
    );
}

// ---------------------------------------------------------------------
// Crafted files, written with libRastro's encoder (timed layout, clock at
// second T0, 1 ns ticks). Header event of host "h0": 4 (word) + 16
// (clock) + 8 (ticks) + 16 (ids) + 4 ("h0\0" padded) = 48 bytes; an event
// without values takes 12 bytes, one with a u32 16.

const T0: u64 = 1_700_000_000;

fn at(ticks: u64) -> i64 {
    T0 as i64 * 1_000_000_000 + ticks as i64
}

fn rst_file(id1: u64, id2: u64, host: &str, events: &[(u16, u64, Vec<Value<'static>>)]) -> Vec<u8> {
    use trama_rastro::rst::Clock;
    let mut enc = Encoder::new(Vec::new(), Layout::Timed);
    let clock = Clock {
        seconds: T0,
        resolution: 1_000_000_000,
    };
    let stamp = Stamp::Timed {
        time_set: Some(clock),
        ticks: 0,
    };
    enc.init_event(stamp, id1, id2, host.as_bytes())
        .expect("header");
    let mut last = 0;
    for (ty, ticks, values) in events {
        enc.event(
            *ty,
            Stamp::Timed {
                time_set: None,
                ticks: *ticks,
            },
            values,
        )
        .expect("event");
        last = *ticks;
    }
    enc.event(
        16382,
        Stamp::Timed {
            time_set: None,
            ticks: last,
        },
        &[],
    )
    .expect("stop");
    enc.finish().expect("bytes")
}

fn strict() -> RstOptions {
    RstOptions::new(Mapping::load(&common::data("rst/strict-mpi.toml")).expect("test mapping"))
}

fn with_policy(unknown: &str, out: &str) -> RstOptions {
    let text = std::fs::read_to_string(common::data("rst/strict-mpi.toml")).expect("mapping");
    let text = text.replacen(
        "name = \"strict MPI\"",
        &format!("name = \"strict MPI\"\nunknown = \"{unknown}\"\nunmatched_out = \"{out}\""),
        1,
    );
    RstOptions::new(Mapping::from_toml("policy.toml", &text).expect("mapping"))
}

/// Reads a source to its end: the records before the first error, and it.
fn read_all(s: &mut dyn Source) -> (Vec<Record>, Option<SourceError>) {
    let mut v = Vec::new();
    loop {
        match s.next_record() {
            Ok(Some(r)) => v.push(r),
            Ok(None) => return (v, None),
            Err(e) => return (v, Some(e)),
        }
    }
}

fn not_declarations(records: Vec<Record>) -> Vec<Record> {
    records
        .into_iter()
        .filter(|r| !matches!(r.what, What::Declare(_)))
        .collect()
}

#[test]
fn unknown_id_is_an_error_naming_file_offset_and_id_unless_the_mapping_says() {
    let bytes = rst_file(
        2,
        0,
        "h0",
        &[(1000, 10, vec![]), (777, 20, vec![Value::U32(5)])],
    );
    let mut s = RstSource::from_reader("crafted-unknown.rst", bytes.as_slice(), &strict()).unwrap();
    let (recs, err) = read_all(&mut s);
    let err = err.expect("an error");
    assert_eq!(err.file, "crafted-unknown.rst");
    assert_eq!(err.location, Location::Byte(60));
    assert!(err.message.contains("777"), "{}", err.message);
    assert!(err.message.contains("'i'"), "{}", err.message);
    assert!(err
        .to_string()
        .starts_with("crafted-unknown.rst: at byte 60: "));
    // The create of event 1000 came first.
    let rank = path(&[("host", "h0"), ("rank", "2")]);
    assert_eq!(
        not_declarations(recs),
        vec![Record {
            time: at(10),
            what: What::Create {
                container: rank.clone()
            }
        }]
    );

    let mut s =
        RstSource::from_reader("u.rst", bytes.as_slice(), &with_policy("skip", "error")).unwrap();
    let (recs, err) = read_all(&mut s);
    assert!(err.is_none());
    assert_eq!(not_declarations(recs).len(), 1);
    assert_eq!(s.skipped().unknown, 1);

    let mut s =
        RstSource::from_reader("u.rst", bytes.as_slice(), &with_policy("event", "error")).unwrap();
    let recs = not_declarations(collect(&mut s).unwrap());
    assert_eq!(
        recs[1],
        Record {
            time: at(20),
            what: What::Event {
                container: rank,
                ty: "event".into(),
                value: "777".into(),
                extra: vec![]
            }
        }
    );
}

#[test]
fn truncated_file_gives_its_records_then_an_error_at_the_cut() {
    // 1000 at 48, 49 at 60, 50 at 72 (its ticks at 76..84), stop at 84.
    let bytes = rst_file(
        0,
        0,
        "h0",
        &[(1000, 1, vec![]), (49, 2, vec![]), (50, 3, vec![])],
    );
    assert_eq!(bytes.len(), 96);
    let cut = bytes[..78].to_vec();
    let mut s = RstSource::from_reader("cut.rst", cut.as_slice(), &strict()).unwrap();
    let (recs, err) = read_all(&mut s);
    let err = err.expect("truncated");
    assert_eq!(err.location, Location::Byte(76));
    assert!(err.message.contains("truncated"), "{}", err.message);
    assert!(
        err.message.contains("starting at byte 72"),
        "{}",
        err.message
    );
    let kinds: Vec<_> = not_declarations(recs)
        .iter()
        .map(|r| r.what.kind())
        .collect();
    assert_eq!(kinds.len(), 2, "create and push before the cut");

    // Cut inside the header: the file is refused at once.
    let err = RstSource::from_reader("head.rst", &bytes[..30], &strict())
        .err()
        .expect("refused");
    assert_eq!(err.file, "head.rst");
    assert!(matches!(err.location, Location::Byte(_)));

    // Data after the stop event.
    let mut more = bytes.clone();
    more.extend_from_slice(&bytes[48..60]);
    let mut s = RstSource::from_reader("more.rst", more.as_slice(), &strict()).unwrap();
    let (_, err) = read_all(&mut s);
    let err = err.expect("trailing data");
    assert_eq!(err.location, Location::Byte(96));
    assert!(
        err.message.contains("after the stop event"),
        "{}",
        err.message
    );
}

#[test]
fn unmatched_out_is_an_error_or_counted() {
    // OUT of MPI_Comm_rank (50) without its IN, then a proper pair.
    let bytes = rst_file(
        1,
        0,
        "h0",
        &[
            (1000, 1, vec![]),
            (50, 2, vec![]),
            (49, 3, vec![]),
            (50, 4, vec![]),
        ],
    );
    let mut s = RstSource::from_reader("out.rst", bytes.as_slice(), &strict()).unwrap();
    let (_, err) = read_all(&mut s);
    let err = err.expect("unmatched");
    assert_eq!(err.location, Location::Byte(60));
    assert!(err.message.contains("unmatched OUT"), "{}", err.message);
    assert!(err.message.contains("MPI_Comm_rank"), "{}", err.message);
    assert!(err.message.contains("no state"), "{}", err.message);

    let mut s =
        RstSource::from_reader("out.rst", bytes.as_slice(), &with_policy("error", "skip")).unwrap();
    let recs = not_declarations(collect(&mut s).unwrap());
    assert_eq!(s.skipped().unmatched_out, 1);
    let kinds: Vec<&str> = recs.iter().map(|r| r.what.kind().name()).collect();
    assert_eq!(
        kinds,
        ["PajeCreateContainer", "PajePushState", "PajePopState"]
    );
}

#[test]
fn crafted_point_to_point_pairs_keys_and_extras_are_all_or_nothing() {
    // Rank 0 sends twice to rank 1 (the second send without its size),
    // rank 1 receives twice.
    let send = |mark: u64, size: Option<u32>| {
        let mut v = vec![Value::U64(mark), Value::U32(1)];
        v.extend(size.map(Value::U32));
        v
    };
    let r0 = rst_file(
        0,
        0,
        "h0",
        &[
            (161, 10, vec![Value::U64(0)]),
            (5000, 11, send(0, Some(64))),
            (162, 12, vec![]),
            (161, 20, vec![Value::U64(1)]),
            (5000, 21, send(1, None)),
            (162, 22, vec![]),
        ],
    );
    let r1 = rst_file(
        1,
        0,
        "h1",
        &[
            (5001, 15, vec![Value::U32(0)]),
            (5001, 25, vec![Value::U32(0)]),
        ],
    );
    let m = strict();
    let a = not_declarations(
        collect(&mut RstSource::from_reader("r0", r0.as_slice(), &m).unwrap()).unwrap(),
    );
    let b = not_declarations(
        collect(&mut RstSource::from_reader("r1", r1.as_slice(), &m).unwrap()).unwrap(),
    );
    let starts: Vec<(String, Vec<(String, String)>)> = a
        .iter()
        .filter_map(|r| match &r.what {
            What::StartLink { key, extra, .. } => Some((
                key.to_string(),
                extra
                    .iter()
                    .map(|(n, v)| (n.to_string(), v.to_string()))
                    .collect(),
            )),
            _ => None,
        })
        .collect();
    assert_eq!(
        starts,
        vec![
            (
                "PTP:0>1:0".to_string(),
                vec![("Size".to_string(), "64".to_string())]
            ),
            ("PTP:0>1:1".to_string(), vec![]),
        ]
    );
    let ends: Vec<String> = b
        .iter()
        .filter_map(|r| match &r.what {
            What::EndLink { key, container, .. } => {
                assert!(container.is_none(), "links live at the top by default");
                Some(key.to_string())
            }
            _ => None,
        })
        .collect();
    assert_eq!(ends, ["PTP:0>1:0", "PTP:0>1:1"]);
    // Push states carry the mark.
    assert!(
        matches!(&a[0].what, What::PushState { extra, .. } if extra == &[("Mark".into(), "0".into())])
    );
}

#[test]
fn time_going_back_and_timeless_files_are_refused() {
    let bytes = rst_file(0, 0, "h0", &[(1000, 10, vec![]), (49, 5, vec![])]);
    let mut s = RstSource::from_reader("back.rst", bytes.as_slice(), &strict()).unwrap();
    let (_, err) = read_all(&mut s);
    let err = err.expect("backwards");
    assert_eq!(err.location, Location::Byte(60));
    assert!(err.message.contains("back in time"), "{}", err.message);

    let mut enc = Encoder::new(Vec::new(), Layout::Timeless);
    enc.init_event(Stamp::Timeless { time_set: true }, 0, 0, b"vm")
        .unwrap();
    enc.event(16382, Stamp::Timeless { time_set: false }, &[])
        .unwrap();
    let err = RstSource::from_reader("old.rst", enc.finish().unwrap().as_slice(), &strict())
        .err()
        .expect("timeless");
    assert!(err.message.contains("timeless"), "{}", err.message);
}

#[test]
fn a_deck_trace_with_two_nodes() {
    let node0 = rst_file(
        0,
        0,
        "n0",
        &[
            (101, 10, vec![]),
            (405, 20, vec![Value::U32(7)]),
            (305, 28, vec![]),
            (320, 30, vec![Value::U32(2)]),
            (306, 32, vec![]),
            (102, 40, vec![]),
        ],
    );
    let node1 = rst_file(
        1,
        0,
        "n1",
        &[
            (101, 12, vec![]),
            (406, 15, vec![]),
            (407, 25, vec![Value::U32(7)]),
            (321, 35, vec![Value::U32(0)]),
            (102, 45, vec![]),
        ],
    );
    let m = RstOptions::new(Mapping::deck());
    let mut s0 = RstSource::from_reader("deck-0-0.rst", node0.as_slice(), &m).unwrap();
    let mut s1 = RstSource::from_reader("deck-1-0.rst", node1.as_slice(), &m).unwrap();
    let a = collect(&mut s0).unwrap();
    let b = collect(&mut s1).unwrap();
    let t0 = path(&[("host", "n0"), ("node", "0"), ("thread", "0")]);
    let t1 = path(&[("host", "n1"), ("node", "1"), ("thread", "0")]);
    let decls: Vec<&Decl> = a
        .iter()
        .filter_map(|r| match &r.what {
            What::Declare(d) => Some(d),
            _ => None,
        })
        .collect();
    assert_eq!(decls.len(), 6);
    assert_eq!(
        decls[5],
        &Decl::LinkType {
            name: "com".into(),
            container: None,
            start: "thread".into(),
            end: "thread".into()
        }
    );
    let set = |c: &trama_records::Path, v: &str| What::SetState {
        container: c.clone(),
        ty: "deck".into(),
        value: v.into(),
        extra: vec![],
    };
    let link = |start: bool, c: &trama_records::Path, v: &str, k: &str| {
        if start {
            What::StartLink {
                container: None,
                ty: "com".into(),
                from: c.clone(),
                value: v.into(),
                key: k.into(),
                extra: vec![],
            }
        } else {
            What::EndLink {
                container: None,
                ty: "com".into(),
                to: c.clone(),
                value: v.into(),
                key: k.into(),
                extra: vec![],
            }
        }
    };
    let r = |t: u64, what: What| Record { time: at(t), what };
    assert_eq!(
        not_declarations(a),
        vec![
            r(
                10,
                What::Create {
                    container: t0.clone()
                }
            ),
            r(10, set(&t0, "exec")),
            r(
                20,
                What::Event {
                    container: t0.clone(),
                    ty: "deck_event".into(),
                    value: "mbox_post 7".into(),
                    extra: vec![]
                }
            ),
            r(20, link(true, &t0, "mbox", "mbox 7:0")),
            r(28, set(&t0, "group_bcast")),
            r(30, link(true, &t0, "bcast", "bcast:0>1:0")),
            r(32, set(&t0, "exec")),
            r(
                40,
                What::Destroy {
                    container: t0.clone()
                }
            ),
        ]
    );
    assert_eq!(
        not_declarations(b),
        vec![
            r(
                12,
                What::Create {
                    container: t1.clone()
                }
            ),
            r(12, set(&t1, "exec")),
            r(15, set(&t1, "mbox_retrv")),
            r(25, set(&t1, "exec")),
            r(25, link(false, &t1, "mbox", "mbox 7:0")),
            r(35, link(false, &t1, "bcast", "bcast:0>1:0")),
            r(
                45,
                What::Destroy {
                    container: t1.clone()
                }
            ),
        ]
    );
}

#[test]
fn mapping_errors_name_the_file_the_line_and_the_key() {
    let base = "[container]\npath = [[\"rank\", \"{id1}\"]]\n";
    // A mapping (after `base` or whole), the line of its error if the
    // message has one to check, and words of the message.
    let cases: [(String, Option<u64>, &[&str]); 6] = [
        (format!("{base}bogus = 1\n"), Some(3), &["bogus"]),
        (
            format!("{base}[events]\n16383 = {{ skip = true }}\n"),
            Some(4),
            &["events.16383"],
        ),
        (
            format!("{base}[events]\n5000 = {{ send = \"PTP\" }}\n"),
            None,
            &["events.5000", "'to'"],
        ),
        (
            format!("{base}[events]\n1 = {{ in = \"A\", colour = \"red\" }}\n"),
            Some(4),
            &["colour"],
        ),
        (
            "[container]\npath = [[\"rank\", \"{u32.0}\"]]\n".to_string(),
            None,
            &["container.path[0]"],
        ),
        (
            format!("{base}[states]\nmode = \"set\"\n"),
            None,
            &["states.idle"],
        ),
    ];
    for (toml, line, words) in &cases {
        let e = Mapping::from_toml("m.toml", toml).unwrap_err();
        assert_eq!(e.file, "m.toml");
        if let Some(line) = line {
            assert_eq!(e.location, Location::Line(*line), "{toml}");
        }
        for w in *words {
            assert!(e.message.contains(w), "{}", e.message);
        }
    }

    let file = common::data("rst/bad-out.toml");
    let e = Mapping::load(&file).unwrap_err();
    assert_eq!(e.file, file.display().to_string());
    assert_eq!(e.location, Location::Line(7));
    assert!(e.message.contains("events.50"), "{}", e.message);
    assert!(e.message.contains("MPI_Comm_Rank"), "{}", e.message);
}

/// Reading speed on a large synthetic rank file (run by hand:
/// `cargo test -p trama-sources --test rst -- --ignored --nocapture`).
#[test]
#[ignore]
fn throughput_of_a_large_rank_file() {
    let mut events = vec![(1000u16, 1u64, vec![])];
    let mut t = 2;
    for i in 0..100_000u64 {
        events.push((49, t, vec![]));
        events.push((50, t + 1, vec![]));
        events.push((161, t + 2, vec![Value::U64(i)]));
        events.push((
            5000,
            t + 3,
            vec![Value::U64(i), Value::U32(1), Value::U32(8)],
        ));
        events.push((162, t + 4, vec![]));
        t += 5;
    }
    let n = events.len();
    let bytes = rst_file(0, 0, "h0", &events);
    let size = bytes.len();
    let start = std::time::Instant::now();
    let mut s = RstSource::from_reader(
        "big.rst",
        bytes.as_slice(),
        &RstOptions::new(Mapping::akypuera()),
    )
    .unwrap();
    let mut records = 0u64;
    while s.next_record().unwrap().is_some() {
        records += 1;
    }
    let secs = start.elapsed().as_secs_f64();
    println!(
        "{n} events, {size} bytes, {records} records in {secs:.3} s: {:.0} events/s, {:.1} MB/s",
        n as f64 / secs,
        size as f64 / secs / 1e6
    );
    assert_eq!(records, 4 + 1 + 5 * 100_000);
}
