//! `trama export parquet`, read back by DuckDB, pyarrow and Polars: every
//! table of every export, empty ones included, has in each as many rows as
//! the dump has lines of its kind, the SQL of `docs/sql` gives the numbers of
//! `trama stats states`, `comm` and `wait`, type names that need escaping
//! come back whole through Hive partitioning, and the output directory is
//! safe (a foreign one refused and untouched, an earlier export replaced
//! whole).
//!
//! On the PajeNG conformance cases and the real samples of `../shared`
//! (see `conformance.rs`), generated traces (`trama-gen`), the bundled
//! example (as text and as `.ptb`), the shared OTF2 archive and an archive
//! of MPI collectives written by the OTF2 library. The readers are
//! Python's `duckdb`, `pyarrow` and `polars` packages, run by
//! `$TRAMA_PYTHON` (else `python3`); without them the tests print a note
//! and pass, unless `TRAMA_REQUIRE_DUCKDB=1` (set by `.ci/run`, which
//! installs them in a virtual environment).

mod common;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use common::{
    assert_none_failed, cases, docs_sql, duckdb_python as python, run_python, shared_dir, trama,
    write_in, REAL_ACCEPTED,
};
use serde_json::Value;
use trama_gen::{generate, GenOptions};

const KINDS: [(&str, &str); 5] = [
    ("Container", "containers"),
    ("State", "states"),
    ("Event", "events"),
    ("Link", "links"),
    ("Variable", "variables"),
];

/// Per export directory, table and reader, the rows read (with Hive
/// partitioning, as docs/parquet.md shows each reader), or the reader's
/// error: DuckDB through docs/sql's views, pyarrow's `read_table` and
/// Polars' `read_parquet` on the table's folder.
const COUNT: &str = r#"
import json, sys
import duckdb_run
import polars
import pyarrow.parquet
readers = {
    "pyarrow": lambda d, t: pyarrow.parquet.read_table(f"{d}/{t}").num_rows,
    "polars": lambda d, t: polars.read_parquet(f"{d}/{t}", hive_partitioning=True).height,
}
out = {}
for d in json.loads(sys.argv[1]):
    con = duckdb_run.connect(d)
    out[d] = {}
    for t in duckdb_run.TABLES:
        out[d][t] = {"duckdb": con.sql(f"SELECT count(*) FROM {t}").fetchall()[0][0]}
        for name, read in readers.items():
            try:
                out[d][t][name] = read(d, t)
            except Exception as e:
                out[d][t][name] = f"{type(e).__name__}: {e}"
print(json.dumps(out))
"#;

/// The readers of [`COUNT`].
const READERS: [&str; 3] = ["duckdb", "pyarrow", "polars"];

/// Per export directory and query file, the rows it gives.
const QUERIES: &str = r#"
import json, sys
import duckdb_run
out = {}
for d, queries in json.loads(sys.argv[1]):
    con = duckdb_run.connect(d)
    out[d] = {}
    for q in queries:
        rel = con.sql(open(q, encoding="utf-8").read())
        out[d][q] = [dict(zip(rel.columns, r)) for r in rel.fetchall()]
print(json.dumps(out))
"#;

/// A trace to check: its path and the reading flags it needs.
struct Input {
    name: String,
    path: PathBuf,
    args: Vec<String>,
}

/// The accepted conformance cases, the real samples PajeNG accepts, a few
/// generated traces and the bundled example.
fn inputs(tmp: &Path) -> Vec<Input> {
    let mut v = Vec::new();
    if let Some(shared) = shared_dir() {
        let dir = shared.join("conformance/pajeng");
        for case in cases(&dir) {
            // Flags of the dump alone (a window, user-defined fields,
            // precision) are not the export's.
            let reading = ["-n", "-a", "-z", "-i", "--lenient", "--sort-window"];
            let dump_only = case
                .args
                .iter()
                .any(|a| a.starts_with('-') && !reading.contains(&a.as_str()));
            if case.rc_head != "0"
                || dump_only
                || case.note.contains("undefined-behaviour-in-pajeng")
            {
                continue;
            }
            v.push(Input {
                name: case.name.clone(),
                path: dir.join(&case.trace),
                args: case.args.clone(),
            });
        }
        for rel in REAL_ACCEPTED {
            v.push(Input {
                name: rel.to_string(),
                path: shared.join("samples/paje-real").join(rel),
                args: Vec::new(),
            });
        }
    }
    for seed in [1u64, 2, 3] {
        let mut o = GenOptions::varied(seed, 3000);
        o.events = 3000;
        let text = generate(seed, &o);
        v.push(Input {
            name: format!("generated-{seed}"),
            path: write_in(tmp, &format!("gen-{seed}.paje"), text),
            args: Vec::new(),
        });
    }
    let ring = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../examples/ring.paje");
    v.push(Input {
        name: "ring".into(),
        path: ring.clone(),
        args: Vec::new(),
    });
    // Other formats go through the same door: the example as .ptb, and
    // the shared OTF2 archive.
    let ptb = tmp.join("ring.ptb");
    let out = trama(&[
        "convert",
        "--no-progress",
        ring.to_str().unwrap(),
        ptb.to_str().unwrap(),
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    v.push(Input {
        name: "ring.ptb".into(),
        path: ptb,
        args: Vec::new(),
    });
    if let Some(shared) = shared_dir() {
        v.push(Input {
            name: "apex-phylanx (OTF2)".into(),
            path: shared.join("samples/otf2/apex-phylanx/APEX.otf2"),
            args: Vec::new(),
        });
    }
    // An archive of MPI collectives: waits in two state types.
    v.extend(otf2_case(tmp, "collectives"));
    v
}

/// The archive `case` of `trama_gen::otf2::write_case`, written in `tmp`
/// (`None` without the OTF2 tools).
fn otf2_case(tmp: &Path, case: &str) -> Option<Input> {
    trama_gen::otf2::tools().then(|| Input {
        name: format!("{case} (OTF2)"),
        path: trama_gen::otf2::write_case(case, &tmp.join(case)),
        args: Vec::new(),
    })
}

fn run(cmd: &[&str], input: &Input, extra: &[&str]) -> std::process::Output {
    let mut args: Vec<&str> = cmd.to_vec();
    args.push("--no-progress");
    args.extend(input.args.iter().map(String::as_str));
    args.extend(extra);
    args.push(input.path.to_str().unwrap());
    trama(&args)
}

/// Exports `input` into `tmp`, which must succeed; its folder.
fn export_one(tmp: &Path, input: &Input) -> String {
    let (exported, failures) = export_all(tmp, std::slice::from_ref(input));
    assert_none_failed(&failures, "the export");
    exported[0].1.clone()
}

/// `trama export parquet TRACE -o DIR`, without progress.
fn export_to(trace: &Path, dir: &Path) -> std::process::Output {
    let (trace, dir) = (trace.to_str().unwrap(), dir.to_str().unwrap());
    trama(&["export", "parquet", "--no-progress", trace, "-o", dir])
}

/// Python with the readers, a temporary folder and the inputs written in
/// it; `None` without Python.
fn python_and_inputs() -> Option<(String, tempfile::TempDir, Vec<Input>)> {
    let py = python()?;
    let tmp = tempfile::tempdir().unwrap();
    let inputs = inputs(tmp.path());
    Some((py, tmp, inputs))
}

/// Exports every input into `tmp`; the inputs exported with their
/// folders, and the failures.
fn export_all<'a>(tmp: &Path, inputs: &'a [Input]) -> (Vec<(&'a Input, String)>, Vec<String>) {
    let (mut done, mut failures) = (Vec::new(), Vec::new());
    for (i, input) in inputs.iter().enumerate() {
        let dir = tmp.join(format!("export-{i}"));
        let out = run(
            &["export", "parquet", "-o", dir.to_str().unwrap()],
            input,
            &[],
        );
        if !out.status.success() {
            failures.push(format!(
                "{}: export failed: {}",
                input.name,
                String::from_utf8_lossy(&out.stderr)
            ));
            continue;
        }
        done.push((input, dir.to_str().unwrap().to_string()));
    }
    (done, failures)
}

/// Regression: pyarrow's `read_table` failed on a table without rows
/// ("couldn't infer type" of its only partition, the NULL one), which
/// pandas users meet first. Every table of every export reads in DuckDB,
/// pyarrow and Polars, with as many rows as the dump has lines of its
/// kind; some tables are empty. The tables of the wait-state analysis read
/// the same in all three, empty ones (traces without MPI) included.
#[test]
fn every_table_reads_in_duckdb_pyarrow_and_polars_empty_ones_included() {
    let Some((py, tmp, inputs)) = python_and_inputs() else {
        return;
    };
    let (exported, mut failures) = export_all(tmp.path(), &inputs);
    let dirs: Vec<&String> = exported.iter().map(|(_, d)| d).collect();
    let counts = run_python(&py, COUNT, &serde_json::to_string(&dirs).unwrap());
    let (mut empty, mut why_empty) = (0, 0);
    for (input, dir) in &exported {
        let dump = run(&["dump"], input, &[]);
        assert!(dump.status.success(), "{}: dump failed", input.name);
        let mut lines: BTreeMap<&str, u64> = BTreeMap::new();
        for l in dump.stdout.split(|&b| b == b'\n') {
            for (label, table) in KINDS {
                if l.starts_with(label.as_bytes()) && l.get(label.len()) == Some(&b',') {
                    *lines.entry(table).or_default() += 1;
                }
            }
        }
        for (_, table) in KINDS {
            let want = lines.get(table).copied().unwrap_or(0);
            empty += usize::from(want == 0);
            for reader in READERS {
                let got = &counts[dir][table][reader];
                if got.as_u64() != Some(want) {
                    failures.push(format!(
                        "{}: {table} read by {reader}: {got}, the dump has {want} lines",
                        input.name
                    ));
                }
            }
        }
        for reader in READERS {
            if counts[dir]["types"][reader].as_u64().is_none_or(|n| n == 0) {
                failures.push(format!("{}: no types read by {reader}", input.name));
            }
        }
        for table in ["wait_states", "critical_path"] {
            let duckdb = counts[dir][table]["duckdb"].as_u64();
            why_empty += usize::from(duckdb == Some(0));
            for reader in READERS {
                let got = &counts[dir][table][reader];
                if duckdb.is_none() || got.as_u64() != duckdb {
                    failures.push(format!(
                        "{}: {table} read by {reader}: {got}, by duckdb: {duckdb:?}",
                        input.name
                    ));
                }
            }
        }
    }
    eprintln!("rows per table against the dump: {} traces", exported.len());
    assert!(exported.len() >= 4, "too few traces exported");
    assert!(empty > 0, "no export has an empty table");
    assert!(
        why_empty > 0,
        "no export has an empty wait_states or critical_path"
    );
    assert_none_failed(&failures, "the exports");
}

fn close(a: f64, b: f64) -> bool {
    (a - b).abs() <= 1e-6 + 1e-9 * a.abs().max(b.abs())
}

fn num(v: &Value) -> f64 {
    v.as_f64().unwrap_or_else(|| panic!("a number: {v}"))
}

fn string(v: &Value) -> String {
    v.as_str().unwrap_or_default().to_string()
}

/// Rows of `trama stats ANALYSIS --format json`.
fn stats(input: &Input, analysis: &str) -> Value {
    stats_with(input, analysis, &[])
}

/// Rows of `trama stats ANALYSIS --format json EXTRA…`.
fn stats_with(input: &Input, analysis: &str, extra: &[&str]) -> Value {
    let mut args = vec!["--format", "json"];
    args.extend(extra);
    let out = run(&["stats", analysis], input, &args);
    assert!(
        out.status.success(),
        "{}: stats {analysis} failed: {}",
        input.name,
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).unwrap()
}

/// Rows by key, the numbers of each row (see [`grouped`]).
type Grouped = BTreeMap<String, Vec<Vec<f64>>>;

/// Groups rows by key; the values of each key sorted, so that rows of
/// containers that share a name compare as sets.
fn grouped(rows: Vec<(String, Vec<f64>)>) -> Grouped {
    let mut m: BTreeMap<String, Vec<Vec<f64>>> = BTreeMap::new();
    for (k, v) in rows {
        m.entry(k).or_default().push(v);
    }
    for v in m.values_mut() {
        v.sort_by(|a, b| a.partial_cmp(b).unwrap());
    }
    m
}

fn compare(
    what: &str,
    ours: BTreeMap<String, Vec<Vec<f64>>>,
    sql: BTreeMap<String, Vec<Vec<f64>>>,
    failures: &mut Vec<String>,
) {
    let keys: std::collections::BTreeSet<&String> = ours.keys().chain(sql.keys()).collect();
    for k in keys {
        let (a, b) = (ours.get(k), sql.get(k));
        let same = match (a, b) {
            (Some(a), Some(b)) => {
                a.len() == b.len()
                    && a.iter().zip(b).all(|(x, y)| {
                        x.len() == y.len() && x.iter().zip(y).all(|(p, q)| close(*p, *q))
                    })
            }
            _ => false,
        };
        if !same {
            failures.push(format!("{what}: {k}: trama {a:?}, SQL {b:?}"));
        }
    }
}

/// The key of a row: the input's name, then the strings of `parts`
/// joined by `sep`.
fn row_key(input: &Input, sep: &str, parts: &[&Value]) -> String {
    let parts: Vec<String> = parts.iter().map(|v| string(v)).collect();
    format!("{} {}", input.name, parts.join(sep))
}

/// `rows` keyed by `key`, each with the numbers of its `fields`, grouped.
fn keyed(rows: &[Value], key: impl Fn(&Value) -> String, fields: &[&str]) -> Grouped {
    grouped(
        rows.iter()
            .map(|r| (key(r), fields.iter().map(|f| num(&r[*f])).collect()))
            .collect(),
    )
}

/// The rows of `trama stats states` of `input` (`ours`) against those of
/// `states.sql`, and its load imbalance against `states_imbalance.sql`.
fn check_states_sql(
    input: &Input,
    ours: &Value,
    sql: &[Value],
    sql_imbalance: &[Value],
    failures: &mut Vec<String>,
) {
    let key = |c: &'static str, t: &'static str| {
        move |r: &Value| row_key(input, " / ", &[&r[c], &r[t], &r["value"]])
    };
    let fields = [
        "count",
        "total",
        "exclusive",
        "inclusive",
        "mean",
        "max",
        "share",
    ];
    let a = keyed(
        ours["rows"].as_array().unwrap(),
        key("container", "state_type"),
        &fields,
    );
    let b = keyed(sql, key("container", "state_type"), &fields);
    compare("states", a, b, failures);
    // The load imbalance.
    let fields = ["containers", "mean", "max", "imbalance", "stddev"];
    let key = |r: &Value| row_key(input, " / ", &[&r["state_type"], &r["value"]]);
    compare(
        "imbalance",
        keyed(ours["imbalance"].as_array().unwrap(), key, &fields),
        keyed(sql_imbalance, key, &fields),
        failures,
    );
}

/// The pairs of `trama stats comm` of `input` (`ours`) against the rows of
/// `comm.sql`.
fn check_comm_sql(input: &Input, ours: &Value, sql: &[Value], failures: &mut Vec<String>) {
    let key = |from: &'static str, to: &'static str| {
        move |r: &Value| row_key(input, " -> ", &[&r[from], &r[to]])
    };
    let a = keyed(
        ours["pairs"].as_array().unwrap(),
        key("from", "to"),
        &["count"],
    );
    let b = keyed(sql, key("from_container", "to_container"), &["count"]);
    compare("comm", a, b, failures);
}

/// The cells with some waiting of `trama stats wait` of `input` (`ours`)
/// against the rows of `wait.sql`.
fn check_wait_sql(input: &Input, ours: &Value, sql: &[Value], failures: &mut Vec<String>) {
    let senders: Vec<String> = ours["senders"]
        .as_array()
        .unwrap()
        .iter()
        .map(string)
        .collect();
    let mut a = Vec::new();
    for r in ours["rows"].as_array().unwrap() {
        for (j, s) in r["seconds"].as_array().unwrap().iter().enumerate() {
            if num(s) > 1e-9 {
                a.push((
                    format!(
                        "{} {} <- {}",
                        input.name,
                        string(&r["container"]),
                        senders[j]
                    ),
                    vec![
                        num(s),
                        num(&r["time"]),
                        num(&r["waiting"]),
                        num(&r["share_of_time"][j]),
                        num(&r["share_of_waiting"][j]),
                    ],
                ));
            }
        }
    }
    let waiting: Vec<Value> = sql
        .iter()
        .filter(|r| num(&r["seconds"]) > 1e-9)
        .cloned()
        .collect();
    let key = |r: &Value| row_key(input, " <- ", &[&r["container"], &r["sender"]]);
    let fields = [
        "seconds",
        "time",
        "waiting",
        "share_of_time",
        "share_of_waiting",
    ];
    compare("wait", grouped(a), keyed(&waiting, key, &fields), failures);
}

#[test]
fn the_shipped_sql_gives_the_numbers_of_trama_stats() {
    let Some((py, tmp, inputs)) = python_and_inputs() else {
        return;
    };
    let (exported, mut failures) = export_all(tmp.path(), &inputs);
    let sql = docs_sql();
    let q = |n: &str| sql.join(format!("{n}.sql")).to_str().unwrap().to_string();
    let (qs, qc, qw, qi) = (q("states"), q("comm"), q("wait"), q("states_imbalance"));
    let jobs: Vec<(&String, [&String; 4])> = exported
        .iter()
        .map(|(_, d)| (d, [&qs, &qc, &qw, &qi]))
        .collect();
    let results = run_python(&py, QUERIES, &serde_json::to_string(&jobs).unwrap());
    let rows = |d: &str, q: &str| results[d][q].as_array().unwrap().clone();
    let mut checked = 0;
    for (input, dir) in &exported {
        let f = &mut failures;
        check_states_sql(
            input,
            &stats(input, "states"),
            &rows(dir, &qs),
            &rows(dir, &qi),
            f,
        );
        check_comm_sql(input, &stats(input, "comm"), &rows(dir, &qc), f);
        // wait.sql is the attribution to the last message.
        let wait = stats_with(input, "wait", &["--last-message"]);
        check_wait_sql(input, &wait, &rows(dir, &qw), f);
        checked += 1;
    }
    eprintln!("SQL against trama stats: {checked} traces");
    assert!(checked >= 4, "too few traces checked");
    assert_none_failed(&failures, "the SQL results");
}

/// The `%EventDef` lines of the bundled example.
fn header() -> String {
    let ring = std::fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../examples/ring.paje"),
    )
    .unwrap();
    ring.lines()
        .filter(|l| l.starts_with('%'))
        .map(|l| format!("{l}\n"))
        .collect()
}

/// Type names with spaces, quotes, `/`, `=` and `%` come back whole.
#[test]
fn type_names_that_need_escaping_round_trip_through_hive_partitioning() {
    let Some(py) = python() else { return };
    let tmp = tempfile::tempdir().unwrap();
    let body = r#"0 N 0 "Node type/1"
1 S N "MPI state = 'x'"
1 T N "100% \"busy\""
4 E N "a=b/c"
6 0 n0 N 0 node-0
10 1.0 S n0 run
10 2.0 T n0 idle
17 1.5 E n0 tick
7 3.0 N n0
"#;
    let trace = write_in(tmp.path(), "names.paje", format!("{}{body}", header()));
    let dir = tmp.path().join("out");
    let out = export_to(&trace, &dir);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let script = r#"
import json, sys
import duckdb_run
con = duckdb_run.connect(sys.argv[1])
print(json.dumps({t: sorted(r[0] for r in con.sql(f"SELECT DISTINCT type FROM {t}").fetchall())
                  for t in ("states", "events", "containers")}))
"#;
    let got = run_python(&py, script, dir.to_str().unwrap());
    let expected: Value = serde_json::json!({
        "states": ["100% \\\"busy\\\"", "MPI state = 'x'"],
        "events": ["a=b/c"],
        "containers": ["0", "Node type/1"],
    });
    // The lexer keeps the backslashes of \" inside a quoted name: compare
    // with the names trama itself reports.
    let stats = trama(&[
        "stats",
        "states",
        "--no-progress",
        "--format",
        "json",
        trace.to_str().unwrap(),
    ]);
    let stats: Value = serde_json::from_slice(&stats.stdout).unwrap();
    let mut names: Vec<String> = stats["rows"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| string(&r["state_type"]))
        .collect();
    names.sort();
    assert_eq!(got["states"], serde_json::json!(names));
    assert_eq!(got["events"], expected["events"]);
    assert_eq!(got["containers"], expected["containers"]);
    assert!(names.contains(&"MPI state = 'x'".to_string()), "{names:?}");
    // Folders are percent-encoded: no folder name holds a space, a quote or `=` past the key.
    for t in ["states", "events", "containers"] {
        for e in std::fs::read_dir(dir.join(t)).unwrap() {
            let n = e.unwrap().file_name().into_string().unwrap();
            let v = n.split_once('=').unwrap().1;
            assert!(
                !v.contains([' ', '"', '\'', '=', '/']),
                "{t}: folder {n} is not escaped"
            );
        }
    }
}

/// The sizes of the row groups of the states of `ring.paje` exported with `flags`.
fn state_row_groups(py: &str, flags: &[&str]) -> Vec<u64> {
    let tmp = tempfile::tempdir().unwrap();
    let ring = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../examples/ring.paje");
    let dir = tmp.path().join("out");
    let mut args = vec!["export", "parquet", "--no-progress"];
    args.extend(flags);
    args.extend([ring.to_str().unwrap(), "-o", dir.to_str().unwrap()]);
    let out = trama(&args);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let script = r#"
import json, sys
import duckdb
d = sys.argv[1]
rows = duckdb.sql(f"SELECT row_group_id, row_group_num_rows FROM parquet_metadata('{d}/states/*/*.parquet') GROUP BY ALL").fetchall()
print(json.dumps(sorted(r[1] for r in rows)))
"#;
    let groups = run_python(py, script, dir.to_str().unwrap());
    groups
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_u64().unwrap())
        .collect()
}

/// Row groups follow --row-group-rows and --row-group-bytes.
#[test]
fn row_groups_follow_the_flags() {
    let Some(py) = python() else { return };
    let sizes = state_row_groups(&py, &["--row-group-rows", "10"]);
    // 72 states: 7 groups of 10 and one of 2.
    assert_eq!(sizes.iter().sum::<u64>(), 72, "{sizes:?}");
    assert_eq!(sizes.len(), 8, "{sizes:?}");
    assert!(sizes.iter().all(|s| *s <= 10), "{sizes:?}");
    // About 56 bytes of values per state: 2000 bytes make several groups.
    let sizes = state_row_groups(&py, &["--row-group-bytes", "2000"]);
    assert_eq!(sizes.iter().sum::<u64>(), 72, "{sizes:?}");
    assert!(sizes.len() > 1, "{sizes:?}");
    // By default, one.
    assert_eq!(state_row_groups(&py, &[]), vec![72]);
}

fn listing(dir: &Path) -> Vec<String> {
    let mut v: Vec<String> = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).unwrap() {
            let p = e.unwrap().path();
            v.push(p.strip_prefix(dir).unwrap().display().to_string());
            if p.is_dir() {
                stack.push(p);
            }
        }
    }
    v.sort();
    v
}

/// A directory trama did not make is refused and left as it was; an
/// earlier export is replaced whole; a failed export leaves the earlier
/// one and nothing beside it.
#[test]
fn the_output_directory_is_safe() {
    let tmp = tempfile::tempdir().unwrap();
    let ring = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../examples/ring.paje");
    let export = export_to;
    // Foreign.
    let mine = tmp.path().join("mine");
    std::fs::create_dir(&mine).unwrap();
    write_in(&mine, "thesis.tex", "years of work");
    let out = export(&ring, &mine);
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("not made by trama"), "{err}");
    assert_eq!(listing(&mine), vec!["thesis.tex".to_string()]);
    assert_eq!(
        std::fs::read_to_string(mine.join("thesis.tex")).unwrap(),
        "years of work"
    );
    // A file is not a directory.
    let file = write_in(tmp.path(), "file", "data");
    assert!(!export(&ring, &file).status.success());
    assert_eq!(std::fs::read_to_string(&file).unwrap(), "data");
    // An export, then another of another trace in its place.
    let dir = tmp.path().join("out");
    assert!(export(&ring, &dir).status.success());
    let first = listing(&dir);
    assert!(first.contains(&"states/type=MPI%20state/part-0.parquet".to_string()));
    assert!(first.contains(&"_trama_parquet".to_string()));
    let small = write_in(
        tmp.path(),
        "small.paje",
        format!(
            "{}0 P 0 Proc\n1 S P Work\n6 0 p0 P 0 p0\n10 1.0 S p0 busy\n7 2.0 P p0\n",
            header()
        ),
    );
    let out = export(&small, &dir);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let second = listing(&dir);
    assert!(second.contains(&"states/type=Work/part-0.parquet".to_string()));
    assert!(
        !second.iter().any(|p| p.contains("MPI%20state")),
        "the first export's partitions are left: {second:?}"
    );
    // A failed export leaves the previous one as it was.
    let bad = write_in(
        tmp.path(),
        "bad.paje",
        format!("{}10 1.0 S nowhere x\n", header()),
    );
    assert!(!export(&bad, &dir).status.success());
    assert_eq!(listing(&dir), second);
    // Nothing left beside the outputs.
    let mut top: Vec<String> = std::fs::read_dir(tmp.path())
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .collect();
    top.sort();
    assert_eq!(top, ["bad.paje", "file", "mine", "out", "small.paje"]);
}

/// docs/parquet.md shows the query files whole, as they are.
#[test]
fn the_documentation_shows_the_shipped_queries() {
    let doc = std::fs::read_to_string(docs_sql().join("../parquet.md")).unwrap();
    for q in ["states", "states_imbalance", "comm", "wait"] {
        let text = std::fs::read_to_string(docs_sql().join(format!("{q}.sql"))).unwrap();
        assert!(
            doc.contains(&format!("```sql\n{text}```")),
            "docs/parquet.md does not show docs/sql/{q}.sql as it is"
        );
    }
}

/// Per export directory, the bits of each variable's values in time order,
/// by variable type.
const VARIABLE_BITS: &str = r#"
import json, struct, sys
import duckdb_run
out = {}
for d in json.loads(sys.argv[1]):
    con = duckdb_run.connect(d)
    rows = con.sql("SELECT type, value FROM variables ORDER BY type, start_ns").fetchall()
    by_type = {}
    for t, v in rows:
        by_type.setdefault(t, []).append(struct.unpack("<Q", struct.pack("<d", v))[0])
    out[d] = by_type
print(json.dumps(out))
"#;

/// Regression: an OTF2 archive's metric values reached the `value` column
/// through PajeNG's float32 rule. The variables of an archive written by
/// the OTF2 library (64-bit counters near 1.3e14, negative 64-bit
/// integers, doubles) hold the archive's values exactly.
#[test]
fn otf2_metric_values_keep_precision_in_parquet() {
    let Some(py) = python() else { return };
    let tmp = tempfile::tempdir().unwrap();
    let Some(input) = otf2_case(tmp.path(), "counters") else {
        return;
    };
    let d = &export_one(tmp.path(), &input);
    let got = run_python(&py, VARIABLE_BITS, &serde_json::to_string(&[d]).unwrap());
    for (ty, values) in trama_gen::otf2::counters_values() {
        let want: Vec<u64> = values.iter().map(|v| v.to_bits()).collect();
        let got: Vec<u64> = got[d][ty]
            .as_array()
            .unwrap_or_else(|| panic!("no variable {ty}: {got}"))
            .iter()
            .map(|v| v.as_u64().unwrap())
            .collect();
        assert_eq!(got, want, "{ty}");
    }
}

/// The row of `container` in the wait matrix `doc` waits `waiting`
/// seconds, `want` per sender.
#[track_caller]
fn check_wait_row(doc: &Value, container: &str, waiting: f64, want: &[(&str, f64)]) {
    let senders: Vec<String> = doc["senders"]
        .as_array()
        .unwrap()
        .iter()
        .map(string)
        .collect();
    let row = doc["rows"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| string(&r["container"]) == container)
        .unwrap_or_else(|| panic!("no row of {container}: {doc}"));
    assert!(close(num(&row["waiting"]), waiting), "{row}");
    for &(sender, seconds) in want {
        let j = senders.iter().position(|s| s == sender).unwrap();
        assert!(close(num(&row["seconds"][j]), seconds), "{sender}: {row}");
    }
}

/// Regression: on an OTF2 archive, `stats wait` and `docs/sql/wait.sql`
/// counted an MPI collective twice, as its `MPI_Allreduce` region and as
/// the `MPI collective` state inside it. Four ranks written by the OTF2
/// library: rank 0 spends 300 µs in each of three MPI_Allreduce (no
/// message ends then) and 100 µs in each MPI_Recv of a message from
/// rank 1. Attributed to the last message (`--last-message`, wait.sql),
/// those are its waits; from the wait states (the default on MPI runs), rank 0
/// waits 30 µs in each MPI_Allreduce for rank 3 (the last to enter, 30 µs
/// after it) and 50 µs in each MPI_Recv for rank 1 (which enters its
/// MPI_Send 50 µs after).
#[test]
fn stats_wait_counts_an_mpi_collective_once_on_otf2_and_in_sql() {
    let Some(py) = python() else { return };
    let tmp = tempfile::tempdir().unwrap();
    let Some(input) = otf2_case(tmp.path(), "collectives") else {
        return;
    };
    let rank0 = "Master thread (MPI Rank 0)";
    let rank1 = "Master thread (MPI Rank 1)";
    let rank3 = "Master thread (MPI Rank 3)";
    let states = stats(&input, "wait");
    assert_eq!(states["method"], "wait_states", "{states}");
    check_wait_row(
        &states,
        rank0,
        240e-6,
        &[(rank1, 3.0 * 50e-6), (rank3, 3.0 * 30e-6)],
    );
    let want = [(rank1, 3.0 * 100e-6), ("unattributed", 3.0 * 300e-6)];
    let ours = stats_with(&input, "wait", &["--last-message"]);
    assert_eq!(ours["method"], "last_message", "{ours}");
    check_wait_row(&ours, rank0, 1200e-6, &want);
    let dir = &export_one(tmp.path(), &input);
    let q = docs_sql().join("wait.sql").to_str().unwrap().to_string();
    let results = run_python(
        &py,
        QUERIES,
        &serde_json::to_string(&[(dir, [&q])]).unwrap(),
    );
    for (sender, seconds) in want {
        let r = results[dir][&q]
            .as_array()
            .unwrap()
            .iter()
            .find(|r| string(&r["container"]) == rank0 && string(&r["sender"]) == sender)
            .unwrap_or_else(|| panic!("SQL: no row {rank0} <- {sender}"));
        assert!(close(num(&r["seconds"]), seconds), "SQL: {r}");
        assert!(close(num(&r["waiting"]), 1200e-6), "SQL: {r}");
    }
}
