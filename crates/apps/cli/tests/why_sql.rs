//! `docs/sql/late_sender.sql` and `docs/sql/wait_nxn.sql` give, from a
//! Parquet export's `states` and `links` tables alone, the numbers of
//! `trama stats waits`: per waiting container, the seconds and instances
//! of Late Sender (trama's `late_sender` plus `late_sender_wrong_order`)
//! and of Wait at N×N.
//!
//! On the generated MPI runs of `crates/analyses/why/tests/mpi_runs.py`
//! (written as Pajé text, so that no OTF2 library is needed), SimGrid's
//! SMPI replay sample, the Akypuera samples read as merges of their
//! `.rst` files (as `trama` opens the first rank's), and pipit's Score-P ping-pong (OTF2). DuckDB runs the
//! queries (`$TRAMA_PYTHON`, see `common::duckdb_python`); without it the
//! test prints a note and passes, unless `TRAMA_REQUIRE_DUCKDB=1`.

mod common;

use std::collections::BTreeMap;
use std::path::Path;

use common::{docs_sql, duckdb_python, mpi_runs, run_python, shared_dir, trama, trama_out};
use serde_json::Value;

/// Per query file, the rows it gives on an export directory.
const QUERIES: &str = r#"
import json, sys
import duckdb_run
d, queries = json.loads(sys.argv[1])
con = duckdb_run.connect(d)
out = {}
for q in queries:
    rel = con.sql(open(q, encoding="utf-8").read())
    out[q] = [dict(zip(rel.columns, r)) for r in rel.fetchall()]
print(json.dumps(out))
"#;

/// Per container, (seconds, instances).
type PerContainer = BTreeMap<String, (f64, u64)>;

/// `trama stats waits` of `args` (the trace and its reading flags), added
/// up per container over the patterns in `patterns`.
fn ours(args: &[&str], patterns: &[&str]) -> PerContainer {
    let mut all = vec!["stats", "waits"];
    all.extend_from_slice(args);
    all.extend_from_slice(&["--format", "csv"]);
    let csv = trama_out(&all);
    let mut lines = csv.lines();
    assert_eq!(
        lines.next(),
        Some("pattern,container,seconds,instances"),
        "{csv}"
    );
    let mut out = PerContainer::new();
    for line in lines {
        let f: Vec<&str> = line.split(',').collect();
        assert_eq!(f.len(), 4, "{line}");
        if patterns.contains(&f[0]) {
            let e = out.entry(f[1].to_string()).or_default();
            e.0 += f[2].parse::<f64>().unwrap();
            e.1 += f[3].parse::<u64>().unwrap();
        }
    }
    out
}

/// The rows of a query, per container.
fn rows(v: &Value) -> PerContainer {
    v.as_array()
        .unwrap()
        .iter()
        .map(|r| {
            (
                r["container"].as_str().unwrap().to_string(),
                (
                    r["seconds"].as_f64().unwrap(),
                    r["instances"].as_u64().unwrap(),
                ),
            )
        })
        .collect()
}

/// The differences between trama's and the query's numbers (times to the
/// nanosecond of the Parquet tables).
fn differ(what: &str, a: &PerContainer, b: &PerContainer, failures: &mut Vec<String>) {
    let same = a.len() == b.len()
        && a.iter().zip(b).all(|((ka, (sa, na)), (kb, (sb, nb)))| {
            ka == kb && na == nb && (sa - sb).abs() <= 1e-8 * (*na as f64).max(1.0)
        });
    if !same {
        failures.push(format!("{what}: trama {a:?}, SQL {b:?}"));
    }
}

/// Exports `args` (a trace and its flags) to Parquet in `dir` and checks
/// both queries against `trama stats waits`; returns how many containers
/// had a Late Sender and a Wait at N×N.
fn check(py: &str, dir: &Path, name: &str, args: &[&str], failures: &mut Vec<String>) -> usize {
    let out = dir.join(format!("{name}.parquet"));
    let mut export = vec!["export", "parquet"];
    export.extend_from_slice(args);
    export.extend_from_slice(&["-o", out.to_str().unwrap()]);
    let o = trama(&export);
    assert!(
        o.status.success(),
        "export {name}: {}",
        String::from_utf8_lossy(&o.stderr)
    );
    let q = |f: &str| docs_sql().join(f).to_str().unwrap().to_string();
    let (ls, nxn) = (q("late_sender.sql"), q("wait_nxn.sql"));
    let arg = serde_json::json!([out.to_str().unwrap(), [&ls, &nxn]]).to_string();
    let sql = run_python(py, QUERIES, &arg);
    let late = ours(args, &["late_sender", "late_sender_wrong_order"]);
    let waits = ours(args, &["wait_nxn"]);
    differ(
        &format!("{name}: late sender"),
        &late,
        &rows(&sql[&ls]),
        failures,
    );
    differ(
        &format!("{name}: wait at NxN"),
        &waits,
        &rows(&sql[&nxn]),
        failures,
    );
    late.len() + waits.len()
}

#[test]
fn the_sql_of_late_sender_and_wait_nxn_gives_trama_stats_waits() {
    let Some(py) = duckdb_python() else { return };
    let tmp = tempfile::tempdir().unwrap();
    let mut failures = Vec::new();
    let mut found = 0;
    for (ranks, iterations, seed) in [("8", "2", "1"), ("4", "3", "7"), ("6", "1", "3")] {
        let (runs, _) = mpi_runs(tmp.path(), ranks, iterations, seed, false);
        let trace = runs.join("waits.paje");
        let name = format!("waits-{ranks}-{iterations}-{seed}");
        found += check(
            &py,
            tmp.path(),
            &name,
            &[trace.to_str().unwrap()],
            &mut failures,
        );
        let chain = runs.join("chain.paje");
        check(
            &py,
            tmp.path(),
            &format!("chain-{seed}"),
            &[chain.to_str().unwrap()],
            &mut failures,
        );
    }
    // The generated runs have both patterns on every rank.
    assert!(
        found >= 2 * (8 + 4 + 6) / 2,
        "only {found} containers with waits"
    );
    if let Some(shared) = shared_dir() {
        let samples = shared.join("samples");
        let pipit = samples.join("otf2/pipit-ping-pong/traces.otf2");
        check(
            &py,
            tmp.path(),
            "pipit",
            &[pipit.to_str().unwrap()],
            &mut failures,
        );
        for ex in ["ring", "small", "smpi_bug"] {
            // The first rank's file: its siblings are read with it.
            let rst = samples.join(format!("librastro-rst/akypuera/{ex}/rastro-0-0.rst"));
            check(&py, tmp.path(), ex, &[rst.to_str().unwrap()], &mut failures);
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
