//! Paraver traces (`.prv` with their `.pcf` and `.row`): the shared
//! samples read by every command, counts per record type checked against
//! a count of the file's lines made here, the mapping of a small trace
//! written here, and malformed records named by their line.

mod common;

use std::path::{Path, PathBuf};

use common::{shared_dir, trama, trama_out as out};

fn samples() -> Option<[PathBuf; 2]> {
    let s = shared_dir()?.join("samples/paraver");
    Some([
        s.join("profet-test1/test1.prv"),
        s.join("folding-bt.B/bt.B.models.prv"),
    ])
}

/// States, events (type/value pairs) and communications of a `.prv`,
/// counted from the first word of its lines.
fn line_counts(prv: &Path) -> (usize, usize, usize) {
    let text = std::fs::read_to_string(prv).unwrap();
    let (mut states, mut events, mut comms) = (0, 0, 0);
    for line in text.lines() {
        if line.starts_with("1:") {
            states += 1;
        } else if line.starts_with("2:") {
            // Six fields, then the pairs.
            events += (line.split(':').count() - 6) / 2;
        } else if line.starts_with("3:") {
            comms += 1;
        }
    }
    (states, events, comms)
}

/// The `entities` line of `trama check`: states, events, links.
fn checked(summary: &str) -> (usize, usize, usize) {
    let line = summary
        .lines()
        .find(|l| l.trim_start().starts_with("entities"))
        .unwrap_or_else(|| panic!("no entities line: {summary}"));
    let inner = line.split_once('(').unwrap().1;
    let n: Vec<usize> = inner
        .split(',')
        .map(|w| w.split_whitespace().next().unwrap().parse().unwrap())
        .collect();
    (n[0], n[1], n[3])
}

/// The dump's lines of each kind: states, events, links.
fn dumped(dump: &str) -> (usize, usize, usize) {
    let count = |k: &str| dump.lines().filter(|l| l.starts_with(k)).count();
    (count("State,"), count("Event,"), count("Link,"))
}

#[test]
fn the_samples_have_their_records_counted() {
    let Some(samples) = samples() else { return };
    // Counted by hand on the files: test1 has 8 state records and 25 event
    // records of 100 pairs; bt.B has 6 states and 4142 event records.
    let hand = [(8, 100, 0), (6, 35331, 0)];
    for (prv, want) in samples.iter().zip(hand) {
        let p = prv.to_str().unwrap();
        let counted = line_counts(prv);
        assert_eq!(counted, want, "{p}");
        let summary = out(&["check", p]);
        assert!(summary.contains("valid Pajé trace"), "{summary}");
        assert!(summary.contains("a Paraver trace"), "{summary}");
        // Its size is that of the Pajé text it is read as, and says so.
        assert!(summary.contains("bytes of Pajé text"), "{summary}");
        assert_eq!(checked(&summary), counted, "{p}: {summary}");
        assert_eq!(dumped(&out(&["dump", p])), counted, "{p}");
    }
}

#[test]
fn the_samples_take_their_names_from_pcf_and_row() {
    let Some([test1, bt]) = samples() else { return };
    let t = test1.to_str().unwrap();
    let dump = out(&["dump", t]);
    // Two applications of 8 and 12 tasks of one thread: 1 + 2 + 20 + 20.
    assert_eq!(
        dump.lines().filter(|l| l.starts_with("Container,")).count(),
        43
    );
    assert!(dump.contains(", THREAD 2.12.1\n"), "{dump}");
    // STATES: 1 is Running; EVENT_TYPE 50000001 with its VALUES.
    assert_eq!(dump.matches(", Running\n").count(), 8, "{dump}");
    assert!(dump.contains("Event, THREAD 1.5.1, MPI Point-to-point, 0.000000, Outside MPI"));
    // Counters (no VALUES) keep their numbers.
    assert!(
        dump.contains(", PAPI_TOT_INS ([Instr completed]), 0.000000, 5996\n"),
        "{dump}"
    );
    // The header's duration (ns) ends the trace.
    assert!(out(&["check", t]).contains("time span   0 .. 1.61638"));
    let b = bt.to_str().unwrap();
    let dump = out(&["dump", b]);
    assert!(
        dump.contains("Container, TASK 1.1, Thread, 0, 185.376, 185.376, THREAD 1.1.1"),
        "{}",
        &dump[..2000]
    );
    assert!(dump.contains("Executing CPU"));
    let stats = out(&["stats", "states", b, "--format", "csv"]);
    assert!(stats.contains("Running"), "{stats}");
}

#[test]
fn every_command_reads_the_samples() {
    let Some(samples) = samples() else { return };
    let tmp = tempfile::tempdir().unwrap();
    for prv in &samples {
        let p = prv.to_str().unwrap();
        let stem = prv.file_stem().unwrap().to_str().unwrap();
        let svg = tmp.path().join(format!("{stem}.svg"));
        out(&["render", "space-time", p, "-o", svg.to_str().unwrap()]);
        assert!(std::fs::read_to_string(&svg)
            .unwrap()
            .contains("THREAD 1.1.1"));
        for ext in ["paje", "ptb"] {
            let c = tmp.path().join(format!("{stem}.{ext}"));
            out(&["convert", p, "-o", c.to_str().unwrap()]);
            let c = c.to_str().unwrap();
            assert_eq!(
                checked(&out(&["check", c])),
                line_counts(prv),
                "{p} as {ext}"
            );
        }
        out(&["stats", "comm", p]);
    }
}

/// A small trace of two threads: its .pcf names states and one event
/// type, its .row the tasks; times in microseconds.
fn small_trace(dir: &Path, body: &str) -> PathBuf {
    let prv = dir.join("t.prv");
    std::fs::write(
        &prv,
        format!("#Paraver (01/01/2024 at 10:00):20_us:1(2):1:2(1:1,1:1),0\n{body}"),
    )
    .unwrap();
    std::fs::write(
        dir.join("t.pcf"),
        "STATES\n1 Running\n2 Waiting\n\nSTATES_COLOR\n1 {0,0,255}\n\nEVENT_TYPE\n0 7 Phase\nVALUES\n1 Init\n\n",
    )
    .unwrap();
    std::fs::write(dir.join("t.row"), "LEVEL TASK SIZE 2\nrank0\nrank1\n").unwrap();
    prv
}

#[test]
fn records_map_to_states_events_and_links_in_the_header_unit() {
    let tmp = tempfile::tempdir().unwrap();
    let prv = small_trace(
        tmp.path(),
        "1:1:1:1:1:1:8:1\n1:2:1:2:1:2:3:2\n# a comment\n\n1:2:1:2:1:3:9:1\n\
         3:1:1:1:1:3:3:2:1:2:1:7:7:64:5\n2:1:1:1:1:5:7:1:8:2\n",
    );
    let p = prv.to_str().unwrap();
    let dump = out(&["dump", p]);
    // `_us`: the records' integers are microseconds.
    for line in [
        "State, THREAD 1.1.1, State, 0.000001, 0.000008, 0.000007, 0.000000, Running",
        "State, THREAD 1.2.1, State, 0.000002, 0.000003, 0.000001, 0.000000, Waiting",
        "State, THREAD 1.2.1, State, 0.000003, 0.000009, 0.000006, 0.000000, Running",
        "Event, THREAD 1.1.1, Phase, 0.000005, Init",
        "Event, THREAD 1.1.1, 8, 0.000005, 2",
        "Link, 0, Communication, 0.000003, 0.000007, 0.000004, message, THREAD 1.1.1, THREAD 1.2.1",
        "Container, APPL 1, Task, 0, 2e-05, 2e-05, rank1",
    ] {
        assert!(dump.contains(line), "{line}\n{dump}");
    }
    assert_eq!(checked(&out(&["check", p])), (3, 2, 1));
    // Size and tag are fields of the link's start; the colour of STATES_COLOR.
    let paje = tmp.path().join("t.paje");
    out(&["convert", p, "-o", paje.to_str().unwrap()]);
    let text = std::fs::read_to_string(&paje).unwrap();
    assert!(
        text.contains("Communication \"THREAD 1.1.1\" message m1 64 5"),
        "{text}"
    );
    assert!(text.contains("Running State Running \"0 0 1\""), "{text}");
    let comm = out(&[
        "stats",
        "comm",
        p,
        "--size-field",
        "Size",
        "--format",
        "csv",
    ]);
    assert!(comm.contains("THREAD 1.1.1,THREAD 1.2.1,1,64,"), "{comm}");
}

/// regression: Extrae's MPI call events give each thread `MPI call`
/// states, which the wait-state analysis reads: a value opens a call, 0
/// ends it, a value while a call is open ends that one first, a call open
/// at the end ends with the trace; the events stay events, and the
/// `501xxxxx` details (here a root flag) open no call.
#[test]
fn extrae_mpi_events_become_mpi_call_states() {
    let tmp = tempfile::tempdir().unwrap();
    let prv = small_trace(
        tmp.path(),
        "2:2:1:2:1:2:50000001:2\n2:1:1:1:1:3:50000001:1\n3:1:1:1:1:3:3:2:1:2:1:6:6:8:0\n\
         2:1:1:1:1:4:50000001:0\n2:2:1:2:1:6:50000001:0\n\
         2:1:1:1:1:8:50000002:10:50100003:1\n2:1:1:1:1:9:50000002:7\n",
    );
    std::fs::write(
        tmp.path().join("t.pcf"),
        "EVENT_TYPE\n9 50000001 MPI Point-to-point\nVALUES\n0 End\n1 MPI_Send\n2 MPI_Recv\n\n\
         EVENT_TYPE\n9 50000002 MPI Collective Comm\nVALUES\n0 End\n7 MPI_Bcast\n10 MPI_Allreduce\n\n\
         EVENT_TYPE\n1 50100003 Root in MPI Global OP\n",
    )
    .unwrap();
    let p = prv.to_str().unwrap();
    let dump = out(&["dump", p]);
    let mut calls: Vec<&str> = dump
        .lines()
        .filter(|l| l.contains(", MPI call, "))
        .collect();
    calls.sort();
    assert_eq!(
        calls,
        [
            "State, THREAD 1.1.1, MPI call, 0.000003, 0.000004, 0.000001, 0.000000, MPI_Send",
            "State, THREAD 1.1.1, MPI call, 0.000008, 0.000009, 0.000001, 0.000000, MPI_Allreduce",
            "State, THREAD 1.1.1, MPI call, 0.000009, 0.000020, 0.000011, 0.000000, MPI_Bcast",
            "State, THREAD 1.2.1, MPI call, 0.000002, 0.000006, 0.000004, 0.000000, MPI_Recv",
        ],
        "{dump}"
    );
    assert!(dump.contains("Event, THREAD 1.1.1, MPI Point-to-point, 0.000004, End"));
    // The receive, entered at 2, waited for the send entered at 3.
    let waits = out(&["stats", "waits", p, "--format", "csv"]);
    assert!(
        waits.contains("\nlate_sender,THREAD 1.2.1,0.000001,1\n"),
        "{waits}"
    );
}

/// Runs `check` on `prv`: its error, which must name `line`.
fn error_at(prv: &Path, line: usize) -> String {
    let o = trama(&["check", prv.to_str().unwrap()]);
    let err = String::from_utf8_lossy(&o.stderr).into_owned();
    assert!(!o.status.success(), "line {line} accepted");
    assert!(!err.contains("panicked"), "{err}");
    assert!(
        err.contains(&format!("t.prv:{line}: ")),
        "line {line}: {err}"
    );
    // The file is named once, with its line.
    assert_eq!(err.matches("t.prv").count(), 1, "{err}");
    err
}

#[test]
fn malformed_records_are_named_by_their_line() {
    let tmp = tempfile::tempdir().unwrap();
    for (body, line, words) in [
        ("1:1:1:1:1:5:8:1\n1:1:1:1:1:2:3:1\n", 3, "sorted by time"),
        ("1:1:1:1:1:5:3:1\n", 2, "ends (3) before it begins (5)"),
        (
            "3:1:1:1:1:5:5:2:1:2:1:4:4:8:1\n",
            2,
            "received (4) before it is sent (5)",
        ),
        ("1:1:1:3:1:1:2:1\n", 2, "thread 1.3.1"),
        ("2:1:1:1:1:1:7\n", 2, "event record"),
        ("4:1:1:1:1:1:2:1\n", 2, "unknown record type '4'"),
        ("1:1:1:1:1:1:2:-\n", 2, "'-'"),
        ("1:1:1:1:1:99999999999999999999:2:1\n", 2, "out of range"),
    ] {
        let prv = small_trace(tmp.path(), body);
        let err = error_at(&prv, line);
        assert!(err.contains(words), "{body}: {err}");
    }
    // The header: a unit trama does not know.
    let prv = tmp.path().join("t.prv");
    std::fs::write(&prv, "#Paraver (x):20_parsecs:1(1):1:1(1:1),0\n").unwrap();
    assert!(error_at(&prv, 1).contains("'parsecs'"));
}

/// Every record line of a sample, truncated or with a field that is not
/// a number, gives an error naming its line (a truncation may leave a
/// valid record), never a panic.
#[test]
fn mutated_samples_fail_on_their_line() {
    let Some([test1, _]) = samples() else { return };
    let text = std::fs::read_to_string(&test1).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    let tmp = tempfile::tempdir().unwrap();
    let prv = tmp.path().join("t.prv");
    let mut tried = 0;
    for (i, l) in lines.iter().enumerate() {
        if !matches!(l.as_bytes().first(), Some(b'1' | b'2' | b'3')) {
            continue;
        }
        let fields: Vec<&str> = l.split(':').collect();
        let field = 1 + i % (fields.len() - 1);
        let bad: Vec<String> = fields
            .iter()
            .enumerate()
            .map(|(k, f)| {
                if k == field {
                    format!("{f}x")
                } else {
                    f.to_string()
                }
            })
            .collect();
        for (mutant, must_fail) in [(bad.join(":"), true), (l[..l.len() / 2].to_string(), false)] {
            let mut m = lines.clone();
            m[i] = &mutant;
            std::fs::write(&prv, m.join("\n")).unwrap();
            let o = trama(&["check", prv.to_str().unwrap()]);
            let err = String::from_utf8_lossy(&o.stderr);
            assert!(!err.contains("panicked"), "{mutant}: {err}");
            if must_fail || !o.status.success() {
                assert!(!o.status.success(), "{mutant} accepted");
                assert!(
                    err.contains(&format!("t.prv:{}: ", i + 1)),
                    "{mutant}: {err}"
                );
            }
            tried += 1;
        }
    }
    assert!(tried >= 60, "{tried}");
}
