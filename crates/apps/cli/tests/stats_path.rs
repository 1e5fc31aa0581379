//! `trama stats critical-path` and `trama stats delays` on a small Pajé
//! trace whose answers are worked out by hand.
//!
//! Three ranks, each a container of type `Rank` whose states are its
//! activities (MPI calls by their names) and whose links are messages:
//!
//! ```text
//! rank0  compute [0, 4]    MPI_Send [4, 4.1] → rank1   compute [4.1, 5]
//! rank1  compute [0, 1]    MPI_Recv [1, 4.2]           MPI_Send [4.2, 4.3] → rank2
//!        compute [4.3, 4.8] MPI_Recv [4.8, 5.6] ← rank2
//! rank2  compute [0, 2]    MPI_Recv [2, 4.4]           compute [4.4, 5.4]
//!        MPI_Send [5.4, 5.5] → rank1
//! ```
//!
//! Each message's link runs within its send and its receive. A chain of
//! late senders (rank1 waits from 1 to 4 for rank0's send, rank2 from 2 to
//! 4.2 for rank1's) and a late sender back (rank1 waits from 4.8 to 5.4
//! for rank2's); the run lasts 5.6 s.

mod common;

use common::{trama, write_in};

/// The trace described in the module's documentation.
fn trace() -> String {
    let mut s = String::from(
        "%EventDef PajeDefineContainerType 0\n% Alias string\n% Type string\n% Name string\n%EndEventDef\n\
         %EventDef PajeDefineStateType 1\n% Alias string\n% Type string\n% Name string\n%EndEventDef\n\
         %EventDef PajeDefineLinkType 2\n% Alias string\n% Type string\n% StartContainerType string\n\
         % EndContainerType string\n% Name string\n%EndEventDef\n\
         %EventDef PajeCreateContainer 3\n% Time date\n% Alias string\n% Type string\n% Container string\n\
         % Name string\n%EndEventDef\n\
         %EventDef PajeDestroyContainer 4\n% Time date\n% Type string\n% Name string\n%EndEventDef\n\
         %EventDef PajePushState 5\n% Time date\n% Type string\n% Container string\n% Value string\n%EndEventDef\n\
         %EventDef PajePopState 6\n% Time date\n% Type string\n% Container string\n%EndEventDef\n\
         %EventDef PajeStartLink 7\n% Time date\n% Type string\n% Container string\n% StartContainer string\n\
         % Value string\n% Key string\n%EndEventDef\n\
         %EventDef PajeEndLink 8\n% Time date\n% Type string\n% Container string\n% EndContainer string\n\
         % Value string\n% Key string\n%EndEventDef\n\
         0 R 0 Rank\n1 S R State\n2 L 0 R R Link\n",
    );
    for r in 0..3 {
        s.push_str(&format!("3 0 r{r} R 0 rank{r}\n"));
    }
    let states: [(u32, &str, f64, f64); 12] = [
        (0, "compute", 0.0, 4.0),
        (0, "MPI_Send", 4.0, 4.1),
        (0, "compute", 4.1, 5.0),
        (1, "compute", 0.0, 1.0),
        (1, "MPI_Recv", 1.0, 4.2),
        (1, "MPI_Send", 4.2, 4.3),
        (1, "compute", 4.3, 4.8),
        (1, "MPI_Recv", 4.8, 5.6),
        (2, "compute", 0.0, 2.0),
        (2, "MPI_Recv", 2.0, 4.4),
        (2, "compute", 4.4, 5.4),
        (2, "MPI_Send", 5.4, 5.5),
    ];
    // Each link starts and ends strictly within its send and its receive,
    // so that no call's edge makes it ambiguous.
    let links: [(u32, u32, f64, f64); 3] =
        [(0, 1, 4.05, 4.15), (1, 2, 4.25, 4.35), (2, 1, 5.45, 5.55)];
    // (time, order at one instant, line): link ends, pops, pushes, link
    // starts, so that a link starts and ends within its calls.
    let mut events: Vec<(f64, u8, String)> = Vec::new();
    for (r, v, a, b) in states {
        events.push((a, 2, format!("5 {a} S r{r} {v}")));
        events.push((b, 1, format!("6 {b} S r{r}")));
    }
    for (k, (from, to, a, b)) in links.into_iter().enumerate() {
        events.push((a, 3, format!("7 {a} L 0 r{from} m k{k}")));
        events.push((b, 0, format!("8 {b} L 0 r{to} m k{k}")));
    }
    events.sort_by(|x, y| x.0.total_cmp(&y.0).then(x.1.cmp(&y.1)));
    for (_, _, line) in events {
        s.push_str(&line);
        s.push('\n');
    }
    for r in 0..3 {
        s.push_str(&format!("4 5.6 R r{r}\n"));
    }
    s
}

/// Runs `trama stats ANALYSIS` on the trace with `args`: the CSV rows
/// (header first) as cells.
fn csv_rows(analysis: &str, args: &[&str]) -> Vec<Vec<String>> {
    let dir = tempfile::tempdir().unwrap();
    let path = write_in(dir.path(), "ranks.paje", trace());
    let mut all = vec!["stats", analysis, path.to_str().unwrap(), "--format", "csv"];
    all.extend_from_slice(args);
    let out = trama(&all);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = String::from_utf8(out.stdout).unwrap();
    text.lines()
        .map(|l| l.split(',').map(String::from).collect())
        .collect()
}

/// The number in a cell.
fn n(cell: &str) -> f64 {
    cell.parse()
        .unwrap_or_else(|_| panic!("not a number: {cell}"))
}

fn near(a: f64, b: f64) -> bool {
    (a - b).abs() < 1e-6
}

/// Regression: the critical path per region. Going back from rank1's
/// end (5.6): its receive from 5.4 (rank2's send) is on the path, then
/// rank2's computation [4.4, 5.4] and receive from 4.2 (rank1's send),
/// rank1's receive from 4 (rank0's send), rank0's computation [0, 4]:
/// compute 5 s, MPI_Recv 0.6 s, adding up to the run's 5.6 s.
#[test]
fn critical_path_csv_per_region() {
    let rows = csv_rows("critical-path", &[]);
    assert_eq!(rows[0], ["value", "seconds"]);
    assert_eq!(rows.len(), 3, "{rows:?}");
    assert_eq!(rows[1][0], "compute");
    assert!(near(n(&rows[1][1]), 5.0), "{rows:?}");
    assert_eq!(rows[2][0], "MPI_Recv");
    assert!(near(n(&rows[2][1]), 0.6), "{rows:?}");
    let total: f64 = rows[1..].iter().map(|r| n(&r[1])).sum();
    assert!(near(total, 5.6));
}

/// Regression: the critical path per process, with its imbalance. On
/// the path: rank0 4 s (compute), rank1 0.4 s (MPI_Recv), rank2 1.2 s
/// (1 s compute, 0.2 s MPI_Recv). Mean per rank, waiting excluded:
/// compute (4.9 + 1.5 + 3) / 3, MPI_Recv (0.4 + 0.2) / 3 = 0.2;
/// imbalance compute 5 − 9.4/3, MPI_Recv 0.4, shared by time on the path.
#[test]
fn critical_path_csv_per_container() {
    let rows = csv_rows("critical-path", &["--by", "container"]);
    assert_eq!(rows[0], ["container", "seconds", "share", "imbalance"]);
    assert_eq!(rows.len(), 4, "{rows:?}");
    let compute = 5.0 - 9.4 / 3.0;
    let want = [
        ("rank0", 4.0, compute * 4.0 / 5.0),
        ("rank1", 0.4, 0.4 * 0.4 / 0.6),
        ("rank2", 1.2, compute / 5.0 + 0.4 * 0.2 / 0.6),
    ];
    for (row, (name, secs, imbalance)) in rows[1..].iter().zip(want) {
        assert_eq!(row[0], name);
        assert!(near(n(&row[1]), secs), "{rows:?}");
        assert!(near(n(&row[2]), secs / 5.6), "{rows:?}");
        assert!(near(n(&row[3]), imbalance), "{rows:?}");
    }
}

/// Regression: the delay costs. rank1's last wait (0.6 s): since their
/// previous synchronization point (rank1's send, rank2's receive), cut at
/// the calls' enters, rank2 spent 1 s computing and its receive's
/// completion (0.1 s after rank1's send left; the rest of the receive is
/// pruned), rank1 0.5 s computing (its send pruned to nothing): 0.5 s
/// short-term to rank2's compute and 0.1 s to its MPI_Recv. rank2's wait
/// (2.2 s): rank1's receive completion (0.2 s beyond rank2's none) and its
/// 3 s of waiting, σ = 2.2 / 3.2: 0.1375 s to rank1's MPI_Recv, 2.0625 s
/// carried to rank1's first wait. That wait (3 s): rank0's 3 s of
/// computation beyond rank1's: 3 s short-term, and the 2.0625 s long-term.
#[test]
fn delays_csv() {
    let rows = csv_rows("delays", &[]);
    assert_eq!(rows[0], ["container", "value", "short_term", "long_term"]);
    let want = [
        ("rank0", "compute", 3.0, 2.0625),
        ("rank1", "MPI_Recv", 0.1375, 0.0),
        ("rank2", "compute", 0.5, 0.0),
        ("rank2", "MPI_Recv", 0.1, 0.0),
    ];
    assert_eq!(rows.len(), want.len() + 1, "{rows:?}");
    for (row, (c, v, s, l)) in rows[1..].iter().zip(want) {
        assert_eq!((row[0].as_str(), row[1].as_str()), (c, v), "{rows:?}");
        assert!(near(n(&row[2]), s) && near(n(&row[3]), l), "{rows:?}");
    }
}

/// Regression: the JSON form holds the path's segments in time order,
/// tiling the run.
#[test]
fn critical_path_json_segments() {
    let dir = tempfile::tempdir().unwrap();
    let path = write_in(dir.path(), "ranks.paje", trace());
    let out = trama(&[
        "stats",
        "critical-path",
        path.to_str().unwrap(),
        "--format",
        "json",
    ]);
    assert!(out.status.success());
    let doc: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let segs = doc["segments"].as_array().unwrap();
    let got: Vec<(String, String, f64, f64)> = segs
        .iter()
        .map(|s| {
            (
                s["container"].as_str().unwrap().to_string(),
                s["value"].as_str().unwrap_or("").to_string(),
                s["start"].as_f64().unwrap(),
                s["end"].as_f64().unwrap(),
            )
        })
        .collect();
    let want = [
        ("rank0", "compute", 0.0, 4.0),
        ("rank1", "MPI_Recv", 4.0, 4.2),
        ("rank2", "MPI_Recv", 4.2, 4.4),
        ("rank2", "compute", 4.4, 5.4),
        ("rank1", "MPI_Recv", 5.4, 5.6),
    ];
    assert_eq!(got.len(), want.len(), "{got:?}");
    for (g, w) in got.iter().zip(want) {
        assert!(
            g.0 == w.0 && g.1 == w.1 && near(g.2, w.2) && near(g.3, w.3),
            "{got:?}"
        );
    }
}
