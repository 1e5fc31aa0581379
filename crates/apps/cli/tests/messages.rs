//! Error messages say where and what, briefly: a long token is cut
//! whichever reader found it, an error of a source's record names where
//! in the source it came from, a text file's bytes that are not UTF-8 are
//! named by their line, a cause is said once.

mod common;

use std::path::{Path, PathBuf};

use common::{trama, write_in};
use trama_rastro::rst::{Clock, Encoder, Layout, Stamp};

fn s(p: &Path) -> &str {
    p.to_str().unwrap()
}

/// Runs trama, which must fail with exit 1; its standard error.
fn fails(args: &[&str]) -> String {
    let o = trama(args);
    let err = String::from_utf8_lossy(&o.stderr).into_owned();
    assert_eq!(o.status.code(), Some(1), "{args:?}: {err}");
    err
}

fn example() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../examples/ring.paje")
}

/// Regression: Paraver and OpenTS errors echoed the whole offending token
/// (121 KB on one line); the Pajé reader's errors cut it, and so do all.
#[test]
fn paraver_and_opents_errors_cut_a_long_token() {
    let tmp = tempfile::tempdir().unwrap();
    let long = "9".repeat(121_000);
    // Paraver: a header of one application of one task and one thread.
    let prv = write_in(
        tmp.path(),
        "t.prv",
        format!("#Paraver (01/01/2024 at 00:00):1000_ns:1(1):1:1(1:1)\n1:1:1:1:1:0:10:{long}\n"),
    );
    // OpenTS: a rank number that is no number.
    let xml = write_in(
        tmp.path(),
        "t.xml",
        format!("<?xml version='1.0'?>\n<trace ranks='3'>\n<slice num='0' time='0.1'>\n<rank num='x{long}'/>\n"),
    );
    for (file, line) in [(&prv, 2), (&xml, 4)] {
        let err = fails(&["check", s(file)]);
        assert!(err.len() < 400, "{} bytes: {}", err.len(), &err[..400]);
        assert!(err.contains(&format!("{}:{line}: ", s(file))), "{err}");
        // The token's start and its length.
        assert!(err.contains("9999999999… (12100"), "{err}");
    }
}

/// A libRastro file (timed layout, clock at second 1.7e9, 1 ns ticks) of
/// host `h0`, ids 2 and 0, with `events` (id, ticks, no values) and the
/// stop event.
fn rst_file(events: &[(u16, u64)]) -> Vec<u8> {
    let mut enc = Encoder::new(Vec::new(), Layout::Timed);
    let clock = Clock {
        seconds: 1_700_000_000,
        resolution: 1_000_000_000,
    };
    let stamp = |ticks| Stamp::Timed {
        time_set: None,
        ticks,
    };
    enc.init_event(
        Stamp::Timed {
            time_set: Some(clock),
            ticks: 0,
        },
        2,
        0,
        b"h0",
    )
    .unwrap();
    for (id, ticks) in events {
        enc.event(*id, stamp(*ticks), &[]).unwrap();
    }
    let last = events.last().map_or(0, |e| e.1);
    enc.event(16382, stamp(last), &[]).unwrap();
    enc.finish().unwrap()
}

/// Regression: a libRastro file whose rank's container is created twice
/// (two MPI_Init events) was rejected naming no record nor offset.
#[test]
fn a_librastro_container_created_twice_names_the_event_and_its_offset() {
    let tmp = tempfile::tempdir().unwrap();
    // The header event takes 48 bytes, an event without values 12: the
    // second MPI_Init (1000) is at byte 60.
    let rst = write_in(
        tmp.path(),
        "rastro-2-0.rst",
        rst_file(&[(1000, 10), (1000, 20)]),
    );
    let err = fails(&["check", s(&rst)]);
    assert!(
        err.contains(&format!("{}: at byte 60: container ", s(&rst))),
        "{err}"
    );
    assert!(err.contains("created twice"), "{err}");
    // Its records are numbered from the declarations on.
    assert!(err.contains("(record "), "{err}");
}

/// Regression: bytes that are not UTF-8 in a timesync file or a machine
/// file stopped a merge with "stream did not contain valid UTF-8", naming
/// no line.
#[test]
fn merge_names_the_line_of_bytes_that_are_not_utf8() {
    let tmp = tempfile::tempdir().unwrap();
    let plan = write_in(
        tmp.path(),
        "plan.toml",
        "hierarchy = [\"site\", \"node\", \"rank\"]\nhost_level = \"node\"\n[top]\nsite = \"lab\"\n\
         [[source]]\nname = \"a\"\nkind = \"paje\"\nlevels = { Node = \"node\", Rank = \"rank\" }\n",
    );
    let source = format!("a={}", s(&example()));
    let out = tmp.path().join("merged.paje");
    let sync = write_in(tmp.path(), "sync.txt", b"a 1 b 2\n\nh\xff 3 c 4\n");
    let err = fails(&[
        "merge",
        "--plan",
        s(&plan),
        &source,
        "--sync",
        s(&sync),
        "-o",
        s(&out),
    ]);
    assert!(
        err.contains(&format!("{}:3: not UTF-8: byte 0xff", s(&sync))),
        "{err}"
    );
    let data = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/integration");
    let hosts = write_in(tmp.path(), "hosts", b"node-a\nnode-\xe9:2\n");
    let plan = write_in(
        tmp.path(),
        "mpi.toml",
        "hierarchy = [\"cluster\", \"host\", \"process\"]\n[top]\ncluster = \"c\"\n\
         [[source]]\nname = \"mpi\"\nkind = \"clog2\"\nlevels = { rank = \"process\" }\n",
    );
    let mpi = format!("mpi={}", s(&data.join("pingpong.clog2")));
    let err = fails(&[
        "merge",
        "--plan",
        s(&plan),
        &mpi,
        "--mpinodes",
        s(&hosts),
        "-o",
        s(&out),
    ]);
    assert!(
        err.contains(&format!("{}:2: not UTF-8: byte 0xe9", s(&hosts))),
        "{err}"
    );
    assert!(!out.exists());
}

/// Regression: the Parquet export's error for a directory it cannot make
/// its output in said its cause twice.
#[test]
fn parquet_says_once_why_its_directory_cannot_be_made() {
    // Nobody, root included, makes a folder in /sys.
    if !Path::new("/sys/kernel").is_dir() {
        return;
    }
    let err = fails(&["export", "parquet", s(&example()), "-o", "/sys/tables"]);
    assert!(
        err.contains("cannot create /sys/tables: no folder can be made in /sys"),
        "{err}"
    );
    assert_eq!(err.matches("(os error").count(), 1, "{err}");
}
