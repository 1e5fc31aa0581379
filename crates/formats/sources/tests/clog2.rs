//! The MPE CLOG-2 reader and converter: the real `cpilog.clog2` sample, and
//! small logs written here from the documented layout (both byte orders).

mod common;

use std::collections::{BTreeMap, HashMap};
use std::path::PathBuf;

use trama_records::{collect, Decl, DisplayPath, Record, Source, What};
use trama_sources::clog2::{
    rank_hosts, read_machine_file, Body, Clog2Options, Clog2Reader, Clog2Record, Clog2Source,
};
use trama_sources::OpenSource;

// ---------------------------------------------------------------------------
// A writer of CLOG-2 files, from the layout in the module documentation.

const SEND: i32 = -101;
const RECV: i32 = -102;

type Clog = trama_gen::clog2::Clog2Writer;

fn text(s: &str, n: usize) -> Vec<u8> {
    let mut v = s.as_bytes().to_vec();
    v.resize(n, 0);
    v
}

/// Checks `bytes` against the committed `tests/data/clog2/<name>` (writes
/// it with `TRAMA_BLESS=1`), and returns its path.
#[track_caller]
fn fixture(name: &str, bytes: &[u8]) -> PathBuf {
    let p = common::data(&format!("clog2/{name}"));
    trama_gen::golden::check(&p, bytes);
    p
}

/// A file of this test's own in a temporary folder.
fn temp(bytes: &[u8]) -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("t.clog2");
    std::fs::write(&p, bytes).unwrap();
    (dir, p)
}

/// One line per record, to compare with expectations written by hand.
fn show(r: &Record) -> String {
    let p = |p: &[trama_records::Step]| DisplayPath(p).to_string();
    let t = r.time;
    match &r.what {
        What::Declare(Decl::Value { ty, name, color }) => {
            format!("{t} value {ty}={name} {}", color.as_deref().unwrap_or("-"))
        }
        What::Declare(d) => format!("{t} {d:?}"),
        What::PushState {
            container,
            ty,
            value,
            ..
        } => format!("{t} push {} {ty}={value}", p(container)),
        What::PopState { container, ty, .. } => format!("{t} pop {} {ty}", p(container)),
        What::Event {
            container,
            ty,
            value,
            ..
        } => format!("{t} event {} {ty}={value}", p(container)),
        What::StartLink {
            from: end,
            ty,
            value,
            key,
            extra,
            container,
        }
        | What::EndLink {
            to: end,
            ty,
            value,
            key,
            extra,
            container,
        } => {
            let side = if matches!(r.what, What::StartLink { .. }) {
                "start"
            } else {
                "end"
            };
            format!(
                "{t} {side} {} {ty}={value} key={key} {extra:?} in {container:?}",
                p(end)
            )
        }
        other => format!("{t} {other:?}"),
    }
}

fn map(pairs: &[(&str, u64)]) -> BTreeMap<String, u64> {
    pairs.iter().map(|(k, v)| (k.to_string(), *v)).collect()
}

fn read_all(p: &PathBuf) -> Vec<Clog2Record> {
    let mut r = Clog2Reader::open(p).unwrap();
    let mut v = Vec::new();
    while let Some(rec) = r.next_record().unwrap() {
        v.push(rec);
    }
    v
}

// ---------------------------------------------------------------------------
// The real sample.

fn cpilog() -> Option<PathBuf> {
    common::samples("mpe-clog").map(|d| d.join("clog2/cpilog.clog2"))
}

#[test]
fn real_preamble() {
    let Some(p) = cpilog() else { return };
    let r = Clog2Reader::open(&p).unwrap();
    let pre = r.preamble();
    assert_eq!(pre.version, "CLOG-02.44");
    assert!(pre.is_big_endian);
    assert!(pre.is_finalized);
    // Block size, buffered blocks, world size and threads.
    let sizes = (
        pre.block_size,
        pre.num_buffered_blocks,
        pre.max_comm_world_size,
        pre.max_thread_count,
    );
    assert_eq!(sizes, (65536, 128, 5, 1));
    // Where the known and user identifiers start, and how many there are.
    let starts = [
        pre.known_eventid_start,
        pre.user_eventid_start,
        pre.known_solo_eventid_start,
        pre.user_solo_eventid_start,
    ];
    assert_eq!(starts, [0, 600, -10, 5000]);
    let counts = [
        pre.known_stateid_count,
        pre.user_stateid_count,
        pre.known_solo_eventid_count,
        pre.user_solo_eventid_count,
    ];
    assert_eq!(counts, [300, 7, 0, 0]);
    assert_eq!(pre.commtable_fptr, 66560);
}

#[test]
fn real_records_and_comm_table() {
    let Some(p) = cpilog() else { return };
    let recs = read_all(&p);
    let mut counts: BTreeMap<&str, u64> = BTreeMap::new();
    for r in &recs {
        *counts.entry(r.body.kind_name()).or_default() += 1;
    }
    let expected: BTreeMap<&str, u64> = [
        ("CARGO", 124),
        ("COMM", 10),
        ("CONSTDEF", 3),
        ("ENDLOG", 1),
        ("STATEDEF", 8),
        ("TIMESHIFT", 5),
    ]
    .into_iter()
    .collect();
    assert_eq!(counts, expected);
    // The first record is rank 4's time shift, right after the preamble.
    assert_eq!(recs[0].offset, 1024);
    assert_eq!((recs[0].rank, recs[0].icomm), (4, 0));
    assert!(matches!(recs[0].body, Body::TimeShift { shift } if shift == 0.0));
    // The log ends inside its single block, at 11120 bytes.
    let last = recs.last().unwrap();
    assert_eq!((last.offset, &last.body), (11120, &Body::EndLog));
    // Every rank says where MPI_COMM_WORLD is and which is its world rank.
    let mut worlds: Vec<(i32, i32)> = recs
        .iter()
        .filter_map(|r| match &r.body {
            Body::Comm {
                etype: 0, wrank, ..
            } => Some((r.rank, *wrank)),
            _ => None,
        })
        .collect();
    worlds.sort();
    assert_eq!(worlds, [(0, 0), (1, 1), (2, 2), (3, 3), (4, 4)]);

    let table = Clog2Reader::open(&p).unwrap().comm_table().unwrap();
    assert_eq!(table.len(), 6);
    let lids: Vec<i32> = table.iter().map(|c| c.lid).collect();
    assert_eq!(lids, [0, 1, 2, 3, 4, 5]);
    assert!(table.iter().all(|c| c.gid.name == "node1331"));
    assert_eq!(table[0].kind, 1);
}

#[test]
fn real_state_definitions() {
    let Some(p) = cpilog() else { return };
    let src = Clog2Source::open(&p, &Clog2Options::default()).unwrap();
    let defs: Vec<(i32, i32, i32, &str, &str)> = src
        .state_defs()
        .iter()
        .map(|d| (d.id, d.start, d.end, d.name.as_str(), d.color.as_str()))
        .collect();
    assert_eq!(
        defs,
        [
            (300, 600, 601, "reading inputs", "red"),
            (301, 602, 603, "training", "blue"),
            (302, 604, 605, "inital broadcast", "green"),
            (303, 606, 607, "recieving weights", "yellow"),
            (304, 608, 609, "computation", "gray"),
            (305, 610, 611, "sending new weights", "pink"),
            (306, 612, 613, "adjusting new weights", "white"),
            (280, 560, 561, "CLOG_Buffer_write2disk", "maroon"),
        ]
    );
    assert!(src.event_defs().is_empty());
    let names: Vec<(i32, &str)> = src
        .processor_names()
        .iter()
        .map(|(r, n)| (*r, n.as_str()))
        .collect();
    assert_eq!(
        names,
        [
            (0, "node1331"),
            (1, "node1331"),
            (2, "node1331"),
            (3, "node1331"),
            (4, "node1331")
        ]
    );
}

#[test]
fn real_conversion() {
    let Some(p) = cpilog() else { return };
    let mut src = Clog2Source::open(&p, &Clog2Options::default()).unwrap();
    assert!(src.extra_fields().is_empty(), "no messages in this log");
    let recs = collect(&mut src).unwrap();
    // Declarations first; colours from the X11 names (MPE's "gray" is X11's).
    let values: Vec<String> = recs
        .iter()
        .filter(|r| matches!(r.what, What::Declare(Decl::Value { .. })))
        .map(show)
        .collect();
    let t0 = recs[0].time;
    assert_eq!(
        t0, 30994,
        "the first event, rank 1 entering `reading inputs`"
    );
    let expect: Vec<String> = [
        "reading inputs 1.000 0.000 0.000",
        "training 0.000 0.000 1.000",
        "inital broadcast 0.000 1.000 0.000",
        "recieving weights 1.000 1.000 0.000",
        "computation 0.745 0.745 0.745",
        "sending new weights 1.000 0.753 0.796",
        "adjusting new weights 1.000 1.000 1.000",
        "CLOG_Buffer_write2disk 0.690 0.188 0.376",
    ]
    .iter()
    .map(|s| format!("{t0} value MPI={s}"))
    .collect();
    assert_eq!(values, expect);
    let first_timed = recs
        .iter()
        .position(|r| !matches!(r.what, What::Declare(_)))
        .unwrap();
    assert!(recs[first_timed..]
        .iter()
        .all(|r| !matches!(r.what, What::Declare(_))));
    // Time order.
    assert!(recs.windows(2).all(|w| w[0].time <= w[1].time));
    // One container per rank, and states nest: a pop always has a push.
    let mut stacks: BTreeMap<String, Vec<String>> = BTreeMap::new();
    let (mut pushes, mut pops) = (0, 0);
    for r in &recs[first_timed..] {
        match &r.what {
            What::PushState {
                container, value, ..
            } => {
                pushes += 1;
                stacks
                    .entry(DisplayPath(container).to_string())
                    .or_default()
                    .push(value.to_string());
            }
            What::PopState { container, .. } => {
                pops += 1;
                let s = stacks
                    .get_mut(&DisplayPath(container).to_string())
                    .expect("pop on a container that never pushed");
                assert!(s.pop().is_some(), "pop on an empty stack at {}", r.time);
            }
            other => panic!("unexpected record {other:?}"),
        }
    }
    let containers: Vec<&String> = stacks.keys().collect();
    assert_eq!(
        containers,
        ["rank:0", "rank:1", "rank:2", "rank:3", "rank:4"]
    );
    // Every CARGO record is a state's start or end event: 124 events, of
    // which 65 enter (the even ids 600, 602...) and 59 leave.
    assert_eq!(pushes, 65);
    // Rank 0 enters `computation` (608) four times before each of its two
    // 609s, so 2 x 3 computations are still open when `training` ends,
    // which closes them; every other start has its end.
    assert_eq!(pops, 59 + 6);
    assert!(stacks.values().all(|s| s.is_empty()), "{stacks:?}");
    assert_eq!(
        src.anomalies(),
        &map(&[("state closed by the end of an enclosing state", 6)])
    );
    assert_eq!(
        src.skipped(),
        &map(&[("CARGO bytes", 124), ("CONSTDEF", 3)])
    );
    assert_eq!(src.record_counts()["CARGO"], 124);
}

#[test]
fn clog_v1_is_refused() {
    let Some(d) = common::samples("mpe-clog") else {
        return;
    };
    let p = d.join("clog-v1/fpilog.clog");
    let e = Clog2Source::open(&p, &Clog2Options::default())
        .err()
        .expect("a CLOG v1 log");
    let msg = e.to_string();
    assert!(msg.contains("at byte 0: not a CLOG-2 log"), "{msg}");
    assert!(
        msg.contains("found bytes `3f 47 8f 68 be 00 00 00`"),
        "{msg}"
    );
    assert!(msg.contains("CLOG v1"), "{msg}");
}

// ---------------------------------------------------------------------------
// Crafted logs.

/// States: nesting, an end that closes an inner state, an end never
/// entered, a state open at the end, an event before its state's
/// definition, a solo event, an undefined event, unmapped records.
fn states_log(big: bool) -> Vec<u8> {
    let mut c = Clog::new(big, 2);
    c.worlds(0.5);
    c.bare(1.0, 0, 600);
    c.statedef(1.0, 300, 600, 601, "red", "outer");
    c.statedef(1.0, 301, 602, 603, "ForestGreen", "inner");
    c.statedef(1.0, 302, 604, 605, "no such colour", "other");
    c.eventdef(1.0, 5000, "yellow", "tick");
    c.cargo(1.5, 0, 602, "payload");
    c.bare(2.0, 0, 5000);
    c.bare(2.5, 0, 601);
    c.bare(3.0, 0, 603);
    c.bare(3.5, 1, 604);
    c.bare(4.0, 1, 777);
    let b = c.ints(&[-201, -1]);
    let mut b = b;
    b.extend(text("MPI_ANY_TAG", 32));
    c.rec(4.5, 1, 4, &b);
    let b = c.ints(&[1, 0, 8, 0]);
    c.rec(4.5, 1, 8, &b);
    let mut b = c.ints(&[1, 42]);
    b.extend(text("cpi.c", 40));
    c.rec(4.5, 1, 10, &b);
    c.finish()
}

const STATES_EXPECTED: &[&str] = &[
    "1000000000 ContainerType { name: \"rank\", parent: None }",
    "1000000000 EntityType { kind: State, name: \"MPI\", container: \"rank\", color: None }",
    "1000000000 value MPI=outer 1.000 0.000 0.000",
    "1000000000 value MPI=inner 0.133 0.545 0.133",
    "1000000000 value MPI=other -",
    "1000000000 EntityType { kind: Event, name: \"MPI event\", container: \"rank\", color: None }",
    "1000000000 value MPI event=tick 1.000 1.000 0.000",
    "1000000000 push rank:0 MPI=outer",
    "1500000000 push rank:0 MPI=inner",
    "2000000000 event rank:0 MPI event=tick",
    "2500000000 pop rank:0 MPI",
    "2500000000 pop rank:0 MPI",
    "3500000000 push rank:1 MPI=other",
    "4000000000 event rank:1 MPI event=event 777",
];

#[test]
fn crafted_states_both_byte_orders() {
    for (big, file) in [(true, "states-be.clog2"), (false, "states-le.clog2")] {
        let p = fixture(file, &states_log(big));
        let mut src = Clog2Source::open(&p, &Clog2Options::default()).unwrap();
        assert_eq!(src.preamble().is_big_endian, big);
        let got = common::lines(&mut src, show);
        assert_eq!(got, STATES_EXPECTED, "{file}");
        assert_eq!(
            src.anomalies(),
            &map(&[
                ("state closed by the end of an enclosing state", 1),
                ("state left without being entered", 1),
                ("state still open at the end of the log", 1),
                ("undefined event id", 1),
                ("unknown colour", 1),
            ]),
            "{file}"
        );
        assert_eq!(
            src.skipped(),
            &map(&[
                ("CARGO bytes", 1),
                ("COLL", 1),
                ("CONSTDEF", 1),
                ("SRCLOC", 1)
            ]),
            "{file}"
        );
    }
    // Both byte orders hold the same typed records, spread over blocks.
    let be = read_all(&common::data("clog2/states-be.clog2"));
    let le = read_all(&common::data("clog2/states-le.clog2"));
    assert_eq!(be, le);
    let blocks = be.iter().filter(|r| r.body == Body::EndBlock).count();
    assert!(blocks >= 2, "the states log spans {} blocks", blocks + 1);
    match &be
        .iter()
        .find(|r| r.body.kind_name() == "CARGO")
        .unwrap()
        .body
    {
        Body::Cargo { etype, bytes } => {
            assert_eq!(*etype, 602);
            assert_eq!(&bytes[..8], b"payload\0");
        }
        _ => unreachable!(),
    }
}

/// Messages: two of the same triple, one whose receive comes first in the
/// file (earlier clock), one received on a process named through its
/// `MPI_COMM_SELF`, and a receive without a send.
fn messages_log(big: bool) -> Vec<u8> {
    let mut c = Clog::new(big, 3);
    c.worlds(0.5);
    c.comm(0.5, 0, 1, 1, 0, "hostA");
    c.comm(0.5, 1, 1, 2, 0, "hostB");
    c.comm(0.5, 2, 1, 3, 0, "hostC");
    c.msg(1.0, 0, 0, SEND, 1, 7, 16);
    c.msg(1.5, 0, 0, SEND, 1, 7, 32);
    c.msg(2.0, 0, 1, RECV, 0, 7, 16);
    c.msg(2.5, 0, 1, RECV, 0, 7, 32);
    // Rank 2 speaks through its MPI_COMM_SELF (local id 3, rank 0 there).
    c.msg(3.0, 3, 0, RECV, 1, 9, 8);
    c.msg(3.5, 0, 1, SEND, 2, 9, 8);
    c.msg(4.0, 0, 2, RECV, 0, 5, 4);
    c.finish()
}

#[test]
fn crafted_messages_pair_up() {
    for (big, file) in [(true, "messages-be.clog2"), (false, "messages-le.clog2")] {
        let p = fixture(file, &messages_log(big));
        let mut src = Clog2Source::open(&p, &Clog2Options::default()).unwrap();
        assert_eq!(src.extra_fields().len(), 1);
        assert_eq!(src.extra_fields()[0].name, "Size");
        let recs = collect(&mut src).unwrap();
        let got: Vec<String> = recs.iter().map(show).collect();
        let expect = [
            "1000000000 ContainerType { name: \"rank\", parent: None }",
            "1000000000 EntityType { kind: State, name: \"MPI\", container: \"rank\", color: None }",
            "1000000000 LinkType { name: \"message\", container: None, start: \"rank\", end: \"rank\" }",
            "1000000000 start rank:0 message=7 key=0-1-7-0 [(\"Size\", \"16\")] in None",
            "1500000000 start rank:0 message=7 key=0-1-7-1 [(\"Size\", \"32\")] in None",
            "2000000000 end rank:1 message=7 key=0-1-7-0 [] in None",
            "2500000000 end rank:1 message=7 key=0-1-7-1 [] in None",
            "3000000000 end rank:2 message=9 key=1-2-9-0 [] in None",
            "3500000000 start rank:1 message=9 key=1-2-9-0 [(\"Size\", \"8\")] in None",
        ];
        assert_eq!(got, expect, "{file}");
        assert_eq!(src.anomalies(), &map(&[("unmatched receive", 1)]), "{file}");
        let names: Vec<&str> = src.processor_names().values().map(String::as_str).collect();
        assert_eq!(names, ["hostA", "hostB", "hostC"]);
        // Every link has both ends, once each.
        let mut ends: HashMap<String, (u32, u32)> = HashMap::new();
        for r in &recs {
            match &r.what {
                What::StartLink { key, .. } => ends.entry(key.to_string()).or_default().0 += 1,
                What::EndLink { key, .. } => ends.entry(key.to_string()).or_default().1 += 1,
                _ => {}
            }
        }
        assert_eq!(ends.len(), 3);
        assert!(ends.values().all(|e| *e == (1, 1)), "{ends:?}");
    }
}

#[test]
fn non_finalized_log_applies_its_time_shifts_and_is_sorted() {
    let mut c = Clog::new(false, 1);
    c.finalized = false;
    c.worlds(0.0);
    c.eventdef(0.0, 5000, "red", "a");
    c.eventdef(0.0, 5001, "blue", "b");
    c.timeshift(0.5, 0, 0.25);
    c.bare(1.0, 0, 5000); // 1.25 s
    c.timeshift(1.5, 0, -1.0);
    c.bare(2.0, 0, 5001); // 1.0 s: before the first
    let (_d, p) = temp(&c.finish());
    let mut src = Clog2Source::open(&p, &Clog2Options::default()).unwrap();
    let got: Vec<String> = collect(&mut src)
        .unwrap()
        .iter()
        .filter(|r| !matches!(r.what, What::Declare(_)))
        .map(show)
        .collect();
    assert_eq!(
        got,
        [
            "1000000000 event rank:0 MPI event=b",
            "1250000000 event rank:0 MPI event=a"
        ]
    );
}

#[test]
fn finalized_log_keeps_its_times() {
    let mut c = Clog::new(true, 1);
    c.worlds(0.0);
    c.eventdef(0.0, 5000, "red", "a");
    c.timeshift(0.5, 0, -0.25);
    c.bare(1.0, 0, 5000);
    let (_d, p) = temp(&c.finish());
    let recs = collect(&mut Clog2Source::open(&p, &Clog2Options::default()).unwrap()).unwrap();
    assert_eq!(recs.last().unwrap().time, 1_000_000_000);
}

#[test]
fn threads_get_their_own_containers() {
    let mut c = Clog::new(true, 1);
    c.threads = 2;
    c.worlds(0.0);
    c.statedef(0.0, 300, 600, 601, "red", "work");
    c.record(1.0, 0, 0, 1, 5, &c.ints(&[600, 0]));
    c.record(2.0, 0, 0, 0, 5, &c.ints(&[600, 0]));
    c.record(3.0, 0, 0, 1, 5, &c.ints(&[601, 0]));
    let (_d, p) = temp(&c.finish());
    let mut src = Clog2Source::open(&p, &Clog2Options::default()).unwrap();
    let got = common::lines(&mut src, show);
    assert_eq!(
        got,
        [
            "1000000000 ContainerType { name: \"rank\", parent: None }",
            "1000000000 ContainerType { name: \"thread\", parent: Some(\"rank\") }",
            "1000000000 EntityType { kind: State, name: \"MPI\", container: \"thread\", color: None }",
            "1000000000 value MPI=work 1.000 0.000 0.000",
            "1000000000 push rank:0/thread:1 MPI=work",
            "2000000000 push rank:0/thread:0 MPI=work",
            "3000000000 pop rank:0/thread:1 MPI",
        ]
    );
}

fn open_err(bytes: &[u8]) -> String {
    let (_d, p) = temp(bytes);
    let e = Clog2Source::open(&p, &Clog2Options::default())
        .err()
        .expect("an error");
    e.to_string().replace(&p.display().to_string(), "FILE")
}

#[test]
fn truncated_block_is_an_error() {
    let bytes = states_log(true);
    assert!(bytes.len() > 1024 + 512 + 100);
    let msg = open_err(&bytes[..1024 + 512 + 100]);
    assert_eq!(
        msg,
        "FILE: at byte 1636: truncated block: the file ends 100 bytes into the block \
         starting at byte 1536 (block_size 512)"
    );
    let msg = open_err(&bytes[..1000]);
    assert_eq!(
        msg,
        "FILE: at byte 1000: truncated preamble: the file ends after 1000 of its 1024 bytes"
    );
}

#[test]
fn unknown_record_type_is_an_error() {
    let mut c = Clog::new(false, 1);
    c.worlds(0.0);
    c.record(1.0, 0, 0, 0, 42, &[0; 8]);
    // The world record takes 24 + 48 bytes from 1024.
    assert_eq!(
        open_err(&c.finish()),
        "FILE: at byte 1096: unknown record type 42 (`[2a, 00, 00, 00]`)"
    );
}

#[test]
fn log_without_endlog_is_an_error() {
    let mut c = Clog::new(true, 1);
    c.worlds(0.0);
    c.end_block();
    let mut bytes = c.finish();
    // Drop the last block (the ENDLOG) and the table, and say there is none.
    bytes.truncate(1024 + 512);
    let (_d, p) = temp(&bytes);
    let mut r = Clog2Reader::open(&p).unwrap();
    assert_eq!(r.preamble().commtable_fptr, 2048);
    let e = loop {
        match r.next_record() {
            Ok(Some(_)) => {}
            Ok(None) => panic!("no error"),
            Err(e) => break e,
        }
    };
    assert!(
        e.to_string()
            .ends_with("at byte 1536: the log ends without an ENDLOG record (truncated file?)"),
        "{e}"
    );
}

#[test]
fn other_versions_are_refused() {
    let mut bytes = states_log(true);
    bytes[8..10].copy_from_slice(b"40");
    assert_eq!(
        open_err(&bytes),
        "FILE: at byte 0: unsupported CLOG-2 version `CLOG-02.40`: only CLOG-02.44 is read"
    );
    assert_eq!(open_err(b""), "FILE: empty file: not a CLOG-2 log");
    let mut bytes = states_log(true);
    // `block_size=` 512 becomes 5x2.
    let at = bytes.windows(4).position(|w| w == b"512\0").unwrap();
    bytes[at + 1] = b'x';
    let msg = open_err(&bytes);
    assert!(
        msg.ends_with("preamble `block_size=` value `5x2` is not an integer"),
        "{msg}"
    );
}

#[test]
fn machine_file_places_ranks() {
    let p = common::data("clog2/machines");
    let m = read_machine_file(&p).unwrap();
    assert_eq!(m, ["node1", "node2", "node2", "node3", "node3", "node3"]);
    assert_eq!(
        rank_hosts(&m, 8),
        ["node1", "node2", "node2", "node3", "node3", "node3", "node1", "node2"]
    );
    let e = read_machine_file(common::data("clog2/no-such-file")).unwrap_err();
    assert!(e.to_string().contains("cannot read"), "{e}");
}

#[test]
fn crafted_messages_as_paje() {
    use trama_events::FieldType;
    use trama_records::{Dialect, PajeWriter, WriterOptions};
    let mut src = Clog2Source::open(
        common::data("clog2/messages-be.clog2"),
        &Clog2Options::default(),
    )
    .unwrap();
    let mut dialect = Dialect::standard();
    for f in src.extra_fields() {
        assert_eq!(f.field_type, "int");
        dialect = dialect.with_extras(f.kind, &[(f.name.as_str(), FieldType::Int)]);
    }
    let mut w = PajeWriter::new(Vec::new(), dialect, WriterOptions::default()).unwrap();
    for r in collect(&mut src).unwrap() {
        w.write(&r).unwrap();
    }
    let text = String::from_utf8(w.finish().unwrap()).unwrap();
    // Each key is written on two event lines (start and end); the start
    // line carries the size last.
    let lines_with = |key: &str| -> Vec<&str> {
        text.lines()
            .filter(|l| !l.starts_with('%') && l.split_whitespace().any(|t| t == key))
            .collect()
    };
    for (key, size) in [("0-1-7-0", "16"), ("0-1-7-1", "32"), ("1-2-9-0", "8")] {
        let lines = lines_with(key);
        assert_eq!(lines.len(), 2, "{key}: {lines:?}\n{text}");
        let sized: Vec<&&str> = lines
            .iter()
            .filter(|l| l.split_whitespace().last() == Some(size))
            .collect();
        assert_eq!(sized.len(), 1, "{key}: {lines:?}");
    }
}

#[test]
fn real_log_writes_as_paje() {
    use trama_records::{Dialect, PajeWriter, WriterOptions};
    let Some(p) = cpilog() else { return };
    let mut src = Clog2Source::open(&p, &Clog2Options::default()).unwrap();
    let mut w = PajeWriter::new(Vec::new(), Dialect::standard(), WriterOptions::default()).unwrap();
    let mut n = 0;
    for r in collect(&mut src).unwrap() {
        w.write(&r).unwrap();
        n += 1;
    }
    assert_eq!(w.records(), n);
    let text = String::from_utf8(w.finish().unwrap()).unwrap();
    // The colour of `reading inputs` is MPE's `red`.
    assert!(
        text.lines()
            .any(|l| l.contains("\"reading inputs\"") && l.contains("\"1.000 0.000 0.000\"")),
        "{text}"
    );
}
