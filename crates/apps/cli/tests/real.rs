//! Defaults that fit the real traces of `../shared/samples` (SimGrid,
//! StarPU): what a person reads there is right without options.

mod common;

use common::{shared_dir, trama, trama_out as out};

/// SimGrid quotes its names (`"master-1"`, kept by PajeNG as part of the
/// name): tables and pictures show them without quotes, and options take
/// either spelling.
#[test]
fn names_are_shown_and_taken_without_their_quotes() {
    let Some(shared) = shared_dir() else { return };
    let trace =
        shared.join("samples/paje-real/simgrid/pajengr-simgrid-3.20.90-masterworkers.trace");
    let t = trace.to_str().unwrap();
    let dump = out(&["dump", t]);
    assert!(dump.contains("\"master-1\""), "the dump keeps the bytes");
    for format in ["table", "csv", "json"] {
        let s = out(&["stats", "states", t, "--format", format]);
        assert!(s.contains("master-1"), "{format}");
        // In JSON the name is a string: its quotes would be escaped.
        let quoted = if format == "json" {
            "\\\"master"
        } else {
            "\"master"
        };
        assert!(!s.contains(quoted), "{format}: {s}");
    }
    let tmp = tempfile::tempdir().unwrap();
    for name in ["master-1", "\"master-1\""] {
        let svg = tmp.path().join("p.svg");
        out(&[
            "render",
            "process",
            t,
            "--process",
            name,
            "-o",
            svg.to_str().unwrap(),
        ]);
        let text = std::fs::read_to_string(&svg).unwrap();
        assert!(
            text.contains("master-1") && !text.contains("&quot;master"),
            "{name}"
        );
    }
}

/// SimGrid's platform links (all at t = 0, of zero duration) are not
/// messages: left out of the communication analyses by default, with a
/// note; --link-type counts them.
#[test]
fn topology_links_are_not_messages() {
    let Some(shared) = shared_dir() else { return };
    let trace = shared.join("samples/paje-real/simgrid/s4u-trace-process-migration.paje");
    let t = trace.to_str().unwrap();
    let table = out(&["stats", "comm", t]);
    assert!(table.contains("L1-LINK7-LINK7 (29 links)"), "{table}");
    assert!(!table.contains("emigrant-1  emigrant-1"), "{table}");
    let o = trama(&["stats", "comm", t, "--format", "csv"]);
    let csv = String::from_utf8(o.stdout).unwrap();
    assert_eq!(csv.lines().count(), 1, "only the header: {csv}");
    assert!(
        String::from_utf8_lossy(&o.stderr).contains("note: link types whose links all last 0 s")
    );
    let counted = out(&[
        "stats",
        "comm",
        t,
        "--link-type",
        "ACTOR_LINK",
        "--format",
        "csv",
    ]);
    assert!(counted.lines().count() > 1, "{counted}");
    let bad = trama(&["stats", "comm", t, "--link-type", "nope"]);
    assert_eq!(bad.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&bad.stderr).contains("ACTOR_LINK"));
}

/// `stats slices` prints aligned columns as a table (not tabs), one column
/// per value name (an alias and a name of one value share it), and CSV
/// numbers without the noise of sums (`0.021`, not `0.020999999999999464`).
#[test]
fn slices_are_a_table_and_csv_numbers_are_short() {
    let Some(shared) = shared_dir() else { return };
    let replay = shared.join("samples/paje-real/simgrid/smpi-replay.paje");
    let t = replay.to_str().unwrap();
    let table = out(&["stats", "slices", t]);
    assert!(!table.contains('\t'), "{table}");
    let lines: Vec<&str> = table.lines().skip(1).collect();
    let head = lines[0];
    let at = head.find("computing").unwrap() + "computing".len();
    for l in &lines[1..] {
        // Right-aligned under its header.
        assert!(l.as_bytes()[at - 1].is_ascii_digit(), "{head}\n{l}");
    }
    for analysis in ["slices", "states", "comm"] {
        let csv = out(&["stats", analysis, t, "--format", "csv"]);
        for field in csv.lines().skip(1).flat_map(|l| l.split(',')) {
            if let Some((_, frac)) = field.split_once('.') {
                if frac.bytes().all(|b| b.is_ascii_digit()) {
                    assert!(frac.len() <= 9, "{analysis}: {field}");
                }
            }
        }
    }
    let example = shared.join("conformance/pajeng/example.trace");
    let csv = out(&[
        "stats",
        "slices",
        example.to_str().unwrap(),
        "--format",
        "csv",
    ]);
    let head: Vec<&str> = csv.lines().next().unwrap().split(',').collect();
    let mut unique = head.clone();
    unique.sort();
    unique.dedup();
    assert_eq!(unique.len(), head.len(), "{head:?}");
    assert!(head.contains(&"Running"), "{head:?}");
}
