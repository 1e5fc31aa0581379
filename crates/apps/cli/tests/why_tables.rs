//! The tables `wait_states` and `critical_path` of `trama export parquet`,
//! read back by DuckDB and pyarrow: their rows are the instances of
//! `trama stats waits --instances N` and the segments of `trama stats
//! critical-path`, the segments add up to the run's length, and
//! `docs/sql/late_sender.sql` and `wait_nxn.sql` give, per container, what
//! the `wait_states` table gives (to the nanosecond of each instance).
//!
//! On the generated MPI runs of `crates/analyses/why/tests/mpi_runs.py`
//! (Pajé text, and OTF2 when Python's `otf2` module is there), whose
//! length `expected.json` gives. DuckDB and pyarrow are those of
//! `$TRAMA_PYTHON` (see `common::duckdb_python`); without them the test
//! prints a note and passes, unless `TRAMA_REQUIRE_DUCKDB=1`.

mod common;

use std::collections::BTreeMap;

use common::{docs_sql, duckdb_python, mpi_runs, run_python, trama, trama_out};
use serde_json::Value;

/// Per export directory: the rows of both tables as DuckDB reads them
/// (through docs/sql's views) and as pyarrow's `read_table` reads the
/// table's folder; the root container's span; the rows of the two query
/// files and the same sums from the `wait_states` table.
const READ: &str = r#"
import json, sys
import duckdb_run
import pyarrow.parquet as pq
d, late, nxn = json.loads(sys.argv[1])
con = duckdb_run.connect(d)
def rows(sql):
    rel = con.sql(sql)
    return [dict(zip(rel.columns, r)) for r in rel.fetchall()]
def arrow(t, keys):
    tab = pq.read_table(f"{d}/{t}")
    got = [{k: (str(v) if k in ("type", "pattern") else v) for k, v in r.items()} for r in tab.to_pylist()]
    return sorted(got, key=lambda r: [r[k] for k in keys])
waits_keys = ["pattern", "container_id", "start_ns", "call_start_ns"]
per_container = lambda patterns: rows(
    "SELECT container, SUM(CAST(duration_ns AS DOUBLE)) / 1e9 AS seconds, COUNT(*) AS instances "
    f"FROM wait_states WHERE pattern IN ({', '.join(repr(p) for p in patterns)}) "
    "GROUP BY container ORDER BY container")
out = {
    "waits": rows("SELECT * FROM wait_states ORDER BY " + ", ".join(waits_keys)),
    "waits_arrow": arrow("wait_states", waits_keys),
    "path": rows("SELECT * FROM critical_path ORDER BY start_ns"),
    "path_arrow": arrow("critical_path", ["start_ns"]),
    "root": rows("SELECT start_ns, end_ns FROM containers WHERE parent_id IS NULL"),
    "sql": {
        "late": rows(open(late, encoding="utf-8").read()),
        "nxn": rows(open(nxn, encoding="utf-8").read()),
    },
    "table": {
        "late": per_container(["late_sender", "late_sender_wrong_order"]),
        "nxn": per_container(["wait_nxn"]),
    },
}
print(json.dumps(out))
"#;

/// `trama stats ANALYSIS TRACE ARGS --format json`.
fn stats(analysis: &str, trace: &str, args: &[&str]) -> Value {
    let mut all = vec!["stats", analysis, trace];
    all.extend_from_slice(args);
    all.extend_from_slice(&["--format", "json"]);
    serde_json::from_str(&trama_out(&all)).expect("JSON from trama stats")
}

/// Rows of `container`, `seconds`, `instances` by container.
fn per_container(rows: &Value) -> BTreeMap<String, (f64, u64)> {
    (rows.as_array().unwrap().iter())
        .map(|r| {
            let n = r["instances"].as_u64().unwrap();
            (text(&r["container"]), (r["seconds"].as_f64().unwrap(), n))
        })
        .collect()
}

/// Seconds as the tables' nanoseconds.
fn ns(s: f64) -> i64 {
    (s * 1e9).round() as i64
}

/// A field as text (`null` for a missing one).
fn text(v: &Value) -> String {
    v.as_str().map_or_else(|| "null".into(), str::to_string)
}

/// The wait states of `tables` against the instances of `trama stats
/// waits`: one row per instance, same pattern, containers, region, start
/// and duration (to the nanosecond).
fn check_waits(name: &str, trace: &str, tables: &Value, failures: &mut Vec<String>) {
    let doc = stats("waits", trace, &["--instances", "1000000"]);
    let key = |p: &Value, c: &Value, w: &Value, r: &Value, start: i64, d: i64| {
        format!(
            "{} {} {} {} {start} {d}",
            text(p),
            text(c),
            text(w),
            text(r)
        )
    };
    let mut ours: Vec<String> = doc["instances"]
        .as_array()
        .unwrap()
        .iter()
        .map(|i| {
            let (s, d) = (
                i["start"].as_f64().unwrap(),
                i["duration"].as_f64().unwrap(),
            );
            key(
                &i["pattern"],
                &i["container"],
                &i["waited_for"],
                &i["region"],
                ns(s),
                ns(s + d) - ns(s),
            )
        })
        .collect();
    let mut rows: Vec<String> = tables["waits"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| {
            let (s, e) = (
                r["start_ns"].as_i64().unwrap(),
                r["end_ns"].as_i64().unwrap(),
            );
            assert_eq!(r["duration_ns"].as_i64(), Some(e - s), "{name}: {r}");
            let (cs, ce) = (r["call_start_ns"].as_i64(), r["call_end_ns"].as_i64());
            assert!(
                cs <= Some(s) && Some(e) <= ce,
                "{name}: outside its call: {r}"
            );
            key(
                &r["pattern"],
                &r["container"],
                &r["waited_for"],
                &r["region"],
                s,
                e - s,
            )
        })
        .collect();
    ours.sort();
    rows.sort();
    if ours.is_empty() || ours != rows {
        failures.push(format!(
            "{name}: wait_states {rows:#?}\ntrama stats waits {ours:#?}"
        ));
    }
    if tables["waits"] != tables["waits_arrow"] {
        failures.push(format!(
            "{name}: wait_states read by DuckDB and pyarrow differ"
        ));
    }
}

/// The critical path of `tables` against `trama stats critical-path`:
/// the same segments, adding up to the root container's span and to the
/// run's `length` (seconds).
fn check_path(name: &str, trace: &str, tables: &Value, length: f64, failures: &mut Vec<String>) {
    let doc = stats("critical-path", trace, &[]);
    let ours: Vec<String> = (doc["segments"].as_array().unwrap().iter())
        .map(|s| {
            let (a, b) = (s["start"].as_f64().unwrap(), s["end"].as_f64().unwrap());
            format!(
                "{} {} {} {}",
                text(&s["container"]),
                text(&s["value"]),
                ns(a),
                ns(b)
            )
        })
        .collect();
    let path = tables["path"].as_array().unwrap();
    let rows: Vec<String> = (path.iter())
        .map(|r| {
            let (a, b) = (&r["start_ns"], &r["end_ns"]);
            format!("{} {} {a} {b}", text(&r["container"]), text(&r["value"]))
        })
        .collect();
    if ours.is_empty() || ours != rows {
        failures.push(format!(
            "{name}: critical_path {rows:#?}\ntrama stats critical-path {ours:#?}"
        ));
    }
    let sum: i64 = path
        .iter()
        .map(|r| r["duration_ns"].as_i64().unwrap())
        .sum();
    let root = &tables["root"][0];
    let span = root["end_ns"].as_i64().unwrap() - root["start_ns"].as_i64().unwrap();
    if sum != span || sum != ns(length) {
        failures.push(format!(
            "{name}: the segments add up to {sum} ns, the root container spans {span} ns, \
             the run lasts {length} s"
        ));
    }
    if tables["path"] != tables["path_arrow"] {
        failures.push(format!(
            "{name}: critical_path read by DuckDB and pyarrow differ"
        ));
    }
}

/// Regression: the export had no table of the wait-state analysis. On
/// generated runs, `wait_states` holds the instances of `trama stats
/// waits` and `critical_path` the segments of `trama stats critical-path`
/// (both as DuckDB and pyarrow read them), the segments add up to the
/// run's length, and the shipped queries of Late Sender and Wait at N×N
/// give the `wait_states` table's numbers.
#[test]
fn wait_states_and_critical_path_tables_equal_trama_stats() {
    let Some(py) = duckdb_python() else { return };
    let tmp = tempfile::tempdir().unwrap();
    let mut failures = Vec::new();
    let mut checked = 0;
    for (ranks, iterations, seed) in [("8", "2", "1"), ("4", "3", "7")] {
        let (runs, otf2) = mpi_runs(tmp.path(), ranks, iterations, seed, true);
        let expected: Value =
            serde_json::from_str(&std::fs::read_to_string(runs.join("expected.json")).unwrap())
                .unwrap();
        let mut traces = vec![
            ("waits", runs.join("waits.paje")),
            ("chain", runs.join("chain.paje")),
        ];
        if otf2 {
            traces.push(("waits", runs.join("waits/traces.otf2")));
            traces.push(("chain", runs.join("chain/traces.otf2")));
        }
        for (i, (run, trace)) in traces.iter().enumerate() {
            let name = format!("{run}-{ranks}-{iterations}-{seed} ({})", trace.display());
            let out = tmp.path().join(format!("{run}-{ranks}-{seed}-{i}.parquet"));
            let t = trace.to_str().unwrap();
            let o = trama(&["export", "parquet", t, "-o", out.to_str().unwrap()]);
            assert!(
                o.status.success(),
                "{name}: {}",
                String::from_utf8_lossy(&o.stderr)
            );
            let q = |f: &str| docs_sql().join(f).to_str().unwrap().to_string();
            let arg = serde_json::json!([
                out.to_str().unwrap(),
                q("late_sender.sql"),
                q("wait_nxn.sql")
            ]);
            let tables = run_python(&py, READ, &arg.to_string());
            let r = &expected["runs"][*run];
            let length = r["end"].as_f64().unwrap() - r["start"].as_f64().unwrap();
            check_waits(&name, t, &tables, &mut failures);
            check_path(&name, t, &tables, length, &mut failures);
            for q in ["late", "nxn"] {
                let (sql, table) = (
                    per_container(&tables["sql"][q]),
                    per_container(&tables["table"][q]),
                );
                let same = sql.len() == table.len()
                    && sql
                        .iter()
                        .zip(&table)
                        .all(|((ka, (sa, na)), (kb, (sb, nb)))| {
                            ka == kb && na == nb && (sa - sb).abs() <= 1e-8 * (*na as f64).max(1.0)
                        });
                // The chain passes a token: no collective.
                if (table.is_empty() && *run == "waits") || !same {
                    failures.push(format!(
                        "{name}: {q}: the query gives {sql:?}, wait_states {table:?}"
                    ));
                }
            }
            checked += 1;
        }
    }
    assert!(checked >= 4, "only {checked} traces checked");
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// `--no-why` leaves the tables of the wait-state analysis out (and says
/// nothing of them), the others as they are.
#[test]
fn no_why_leaves_the_why_tables_out() {
    let tmp = tempfile::tempdir().unwrap();
    let (runs, _) = mpi_runs(tmp.path(), "4", "1", "2", false);
    let trace = runs.join("waits.paje");
    let export = |dir: &str, flags: &[&str]| {
        let out = tmp.path().join(dir);
        let mut args = vec!["export", "parquet", trace.to_str().unwrap()];
        args.extend_from_slice(flags);
        args.extend_from_slice(&["-o", out.to_str().unwrap()]);
        let o = trama(&args);
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        (out, String::from_utf8_lossy(&o.stderr).into_owned())
    };
    let (with, said) = export("with", &[]);
    let (without, bare) = export("without", &["--no-why"]);
    for t in ["wait_states", "critical_path"] {
        assert!(with.join(t).is_dir() && said.contains(t), "{said}");
        assert!(!without.join(t).exists() && !bare.contains(t), "{bare}");
    }
    for t in ["containers", "states", "links", "types"] {
        assert_eq!(
            common::files(&with.join(t)),
            common::files(&without.join(t))
        );
    }
}
