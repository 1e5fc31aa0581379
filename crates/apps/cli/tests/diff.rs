//! `trama diff A B`: two runs compared.
//!
//! The generated runs are bulk-synchronous: per iteration (a state
//! `iteration` around it) each rank computes (`compute`, rank r for 1 + 0.1 r s) then enters an
//! `MPI_Barrier` that every rank leaves 0.01 s after the last one entered.
//! A delay injected into the last rank's computation of one iteration
//! lengthens the run by the delay, the last rank's `compute` by the delay,
//! and every other rank's barrier (Wait at Barrier) by the delay: numbers
//! worked out here from the times, not read from trama.

mod common;

use std::path::{Path, PathBuf};

use common::{trama, write_in};
use serde_json::Value;

/// The generated run of `ranks` ranks and `iterations` iterations, with
/// `delay` seconds more of computation on the last rank at iteration 1,
/// as Pajé text.
fn run(ranks: usize, iterations: usize, delay: f64) -> String {
    trama_testkit::runs::bsp_run(ranks, iterations, delay)
}

/// Runs `trama diff` with `args`: its standard output, checked to succeed.
fn diff_ok(args: &[&str]) -> String {
    let out = trama(&[&["diff"], args].concat());
    assert!(
        out.status.success(),
        "trama diff {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

fn json(args: &[&str]) -> Value {
    serde_json::from_str(&diff_ok(&[args, &["--format", "json"]].concat())).unwrap()
}

fn s(p: &Path) -> &str {
    p.to_str().unwrap()
}

/// The shared samples of several formats, when there.
fn samples() -> Vec<PathBuf> {
    let Some(dir) = trama_testkit::shared::find("samples/otf2/pipit-ping-pong/traces.otf2", "diff")
    else {
        return Vec::new();
    };
    [
        "samples/otf2/pipit-ping-pong/traces.otf2",
        "samples/paje-real/simgrid/smpi-replay.paje",
        "samples/paje-real/simgrid/pajengr-simgrid-3.20.90-masterworkers.trace",
        "samples/paraver/profet-test1/test1.prv",
    ]
    .iter()
    .map(|p| dir.join(p))
    .collect()
}

/// Every row of a diff (JSON) has a delta of 0 and both sides equal, on
/// the critical path too.
fn assert_zero_diff(d: &Value, what: &str) {
    let rows = d["rows"].as_array().unwrap();
    assert!(!rows.is_empty(), "{what}: no rows");
    for r in rows {
        assert_eq!(r["delta_seconds"], 0.0, "{what}: {r}");
        assert_eq!(r["a_seconds"], r["b_seconds"], "{what}: {r}");
        assert_eq!(r["a_path_seconds"], r["b_path_seconds"], "{what}: {r}");
    }
    for p in d["patterns"].as_array().unwrap() {
        assert_eq!(p["delta_seconds"], 0.0, "{what}: {p}");
    }
    assert_eq!(d["delta_length"], 0.0, "{what}");
}

/// regression: a trace diffed with itself gives zeros everywhere, in any
/// format, and against its own `.ptb` and its Pajé conversion.
#[test]
fn a_trace_diffed_with_itself_gives_zeros() {
    let tmp = tempfile::tempdir().unwrap();
    let generated = write_in(tmp.path(), "run.paje", run(4, 3, 0.0));
    let mut traces = samples();
    traces.push(generated);
    for t in &traces {
        assert_zero_diff(&json(&[s(t), s(t)]), &t.display().to_string());
        let by = json(&[s(t), s(t), "--by", "container"]);
        assert_zero_diff(&by, &format!("{} by container", t.display()));
        let csv = diff_ok(&[s(t), s(t), "--format", "csv"]);
        let head = "value,a_seconds,b_seconds,delta_seconds,a_path_seconds,b_path_seconds";
        assert!(csv.starts_with(head), "{csv}");
        let values = json(&[s(t), s(t)])["rows"].as_array().unwrap().len();
        assert_eq!(csv.lines().count(), 1 + values, "{csv}");
        let text = t.extension().is_some_and(|e| e == "paje" || e == "trace");
        for ext in ["ptb", "paje"]
            .into_iter()
            .filter(|e| !(text && *e == "paje"))
        {
            let stem = t.file_stem().unwrap().to_str().unwrap();
            let c = tmp.path().join(format!("{stem}.conv.{ext}"));
            let out = trama(&["convert", s(t), "-o", s(&c)]);
            assert!(
                out.status.success(),
                "{}",
                String::from_utf8_lossy(&out.stderr)
            );
            let d = json(&[s(t), s(&c), "--by", "container"]);
            assert_zero_diff(&d, &format!("{} against {ext}", t.display()));
        }
    }
}

/// The row of `rows` (a JSON array) with `value` (and `container`).
fn row<'a>(rows: &'a Value, container: Option<&str>, value: &str) -> &'a Value {
    rows.as_array()
        .unwrap()
        .iter()
        .find(|r| r["value"] == value && container.is_none_or(|c| r["container"] == c))
        .unwrap_or_else(|| panic!("no row {container:?} {value} in {rows:#}"))
}

#[track_caller]
fn within_1_percent(got: &Value, want: f64) {
    let got = got.as_f64().unwrap();
    assert!(
        (got - want).abs() <= want.abs() * 0.01,
        "{got} is not {want} within 1 %"
    );
}

/// regression: a delay injected into one process's computation is found
/// as that value's and that process's delta, within 1 %, with its effect
/// on the others' waiting (their Wait at Barrier) and on the run's length.
#[test]
fn an_injected_delay_is_found_where_it_was_put() {
    let tmp = tempfile::tempdir().unwrap();
    let (ranks, delay) = (4, 0.5);
    let a = write_in(tmp.path(), "a.paje", run(ranks, 3, 0.0));
    let b = write_in(tmp.path(), "b.paje", run(ranks, 3, delay));
    let d = json(&[s(&a), s(&b)]);
    within_1_percent(&d["delta_length"], delay);
    within_1_percent(&row(&d["rows"], None, "compute")["delta_seconds"], delay);
    let others = (ranks - 1) as f64 * delay;
    within_1_percent(
        &row(&d["rows"], None, "MPI_Barrier")["delta_seconds"],
        others,
    );
    let barrier = d["patterns"]
        .as_array()
        .unwrap()
        .iter()
        .find(|p| p["pattern"] == "wait_barrier")
        .expect("wait_barrier");
    within_1_percent(&barrier["delta_seconds"], others);
    // The largest delta comes first: the others' barriers.
    assert_eq!(d["rows"][0]["value"], "MPI_Barrier");

    let d = json(&[s(&a), s(&b), "--by", "container"]);
    let last = format!("rank-{}", ranks - 1);
    within_1_percent(
        &row(&d["rows"], Some(&last), "compute")["delta_seconds"],
        delay,
    );
    let zero = |v: &Value| assert!(v.as_f64().unwrap().abs() < 1e-9, "{v}");
    zero(&row(&d["rows"], Some("rank-0"), "compute")["delta_seconds"]);
    within_1_percent(
        &row(&d["rows"], Some("rank-0"), "MPI_Barrier")["delta_seconds"],
        delay,
    );
    zero(&row(&d["rows"], Some(&last), "MPI_Barrier")["delta_seconds"]);

    // The table's summary says it first.
    let table = diff_ok(&[s(&a), s(&b)]);
    assert!(table.starts_with("Run length: A "), "{table}");
    assert!(
        table.contains("Gained most: MPI_Barrier +1.500000 s, compute +0.500000 s"),
        "{table}"
    );
    assert!(
        table.contains("Wait states that grew: wait_barrier +1.500000 s"),
        "{table}"
    );
}

/// regression: runs of 4 and 8 processes compare by grouping; the deltas
/// add up to the difference of the totals.
#[test]
fn runs_of_different_sizes_compare_by_group() {
    let tmp = tempfile::tempdir().unwrap();
    let a = write_in(tmp.path(), "a.paje", run(4, 2, 0.0));
    let b = write_in(tmp.path(), "b.paje", run(8, 2, 0.0));
    let d = json(&[s(&a), s(&b), "--by", "container", "--group", "all"]);
    let rows = d["rows"].as_array().unwrap();
    assert!(rows.iter().all(|r| r["container"] == "all"), "{rows:#?}");
    // compute: sum over ranks and iterations of 1 + 0.1 r.
    let compute = |n: usize| 2.0 * (0..n).map(|r| 1.0 + 0.1 * r as f64).sum::<f64>();
    within_1_percent(
        &row(&d["rows"], Some("all"), "compute")["a_seconds"],
        compute(4),
    );
    within_1_percent(
        &row(&d["rows"], Some("all"), "compute")["b_seconds"],
        compute(8),
    );
    let sum = |k: &str| rows.iter().map(|r| r[k].as_f64().unwrap()).sum::<f64>();
    assert!((sum("delta_seconds") - (sum("b_seconds") - sum("a_seconds"))).abs() < 1e-9);
    // A mapping file: ranks 0-3 of B as "low", the others "high"; A's
    // ranks by their names (not in the file).
    let map: String = (0..8)
        .map(|r| format!("rank-{r} {}\n", if r < 4 { "low" } else { "high" }))
        .collect();
    let map = write_in(tmp.path(), "groups.txt", format!("# rank group\n{map}"));
    let d = json(&[s(&a), s(&b), "--by", "container", "--group", s(&map)]);
    let low = row(&d["rows"], Some("low"), "compute");
    within_1_percent(&low["a_seconds"], compute(4));
    within_1_percent(&low["b_seconds"], compute(4));
    let bad = write_in(tmp.path(), "bad.txt", "rank-0 low\nlonely\n");
    let out = trama(&[
        "diff",
        s(&a),
        s(&b),
        "--by",
        "container",
        "--group",
        s(&bad),
    ]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success());
    assert!(
        err.contains("bad.txt:2") && err.contains("'lonely'"),
        "{err}"
    );
}

/// regression: `--fail-over PERCENT` exits 1 when the run (or a value)
/// grew by more than PERCENT, 0 otherwise, and names an unknown value.
#[test]
fn fail_over_guards_a_run_s_time() {
    let tmp = tempfile::tempdir().unwrap();
    let a = write_in(tmp.path(), "a.paje", run(4, 3, 0.0));
    let b = write_in(tmp.path(), "b.paje", run(4, 3, 0.5));
    // The run grows by 0.5 s of about 3.9 s: 12.8 %.
    let code = |args: &[&str]| trama(&[&["diff", s(&a), s(&b)], args].concat());
    let over = code(&["--fail-over", "10"]);
    assert_eq!(over.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&over.stderr).contains("the run's length grew by 12."));
    assert_eq!(code(&["--fail-over", "15"]).status.code(), Some(0));
    // compute: +0.5 s of 3 × (1 + 1.1 + 1.2 + 1.3) = 13.8 s: 3.6 %.
    assert_eq!(
        code(&["--fail-over", "3", "--value", "compute"])
            .status
            .code(),
        Some(1)
    );
    assert_eq!(
        code(&["--fail-over", "4", "--value", "compute"])
            .status
            .code(),
        Some(0)
    );
    let unknown = code(&["--fail-over", "4", "--value", "nothing"]);
    assert_eq!(unknown.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&unknown.stderr).contains("'nothing'"));
    // Faster is never over.
    let back = trama(&["diff", s(&b), s(&a), "--fail-over", "0"]);
    assert_eq!(back.status.code(), Some(0));
}

/// regression: `--iteration VALUE` compares the runs iteration by
/// iteration: only the delayed one changed, by the delay, most in the
/// others' barriers.
#[test]
fn iterations_compare_one_by_one() {
    let tmp = tempfile::tempdir().unwrap();
    let (ranks, delay) = (4, 0.5);
    let a = write_in(tmp.path(), "a.paje", run(ranks, 3, 0.0));
    let b = write_in(tmp.path(), "b.paje", run(ranks, 3, delay));
    let d = json(&[s(&a), s(&b), "--iteration", "iteration"]);
    let its = d["iterations"].as_array().unwrap();
    assert_eq!(its.len(), 3);
    // Each iteration lasts its slowest rank's computation and 0.01 s.
    for (n, it) in its.iter().enumerate() {
        assert_eq!(it["iteration"], n + 1);
        within_1_percent(&it["a_seconds"], 1.3 + 0.01);
        let extra = if n == 1 { delay } else { 0.0 };
        within_1_percent(&it["b_seconds"], 1.3 + 0.01 + extra);
    }
    assert_eq!(its[1]["rows"][0]["value"], "MPI_Barrier");
    within_1_percent(&its[1]["rows"][0]["delta_seconds"], 3.0 * delay);
    for n in [0, 2] {
        let top = &its[n]["rows"][0]["delta_seconds"];
        assert!(top.as_f64().unwrap().abs() < 1e-9, "{}", its[n]);
    }
    // Iteration 2's barriers: (1.3 - c) + 0.01 per rank computing c in A
    // (0.64 s), (1.8 - c) + 0.01 for the three others in B and 0.01 for the
    // last (2.14 s).
    let csv = diff_ok(&[s(&a), s(&b), "--iteration", "iteration", "--format", "csv"]);
    assert!(
        csv.starts_with("iteration,value,a_seconds,b_seconds,delta_seconds\n")
            && csv.contains("\n2,MPI_Barrier,0.64,2.14,1.5\n"),
        "{csv}"
    );
    let table = diff_ok(&[s(&a), s(&b), "--iteration", "iteration"]);
    assert!(table.contains("MPI_Barrier +1.500000 s"), "{table}");
}

/// regression: `--iteration auto` finds the value marking the iterations
/// from a repeated region: `iteration` is entered three times on every
/// rank at the outermost level (as `compute` and `MPI_Barrier` are, one
/// level in), so the comparison is that of `--iteration iteration`. Runs
/// of one iteration repeat nothing, and the table says so.
#[test]
fn iterations_found_from_a_repeated_region() {
    let tmp = tempfile::tempdir().unwrap();
    let a = write_in(tmp.path(), "a.paje", run(4, 3, 0.0));
    let b = write_in(tmp.path(), "b.paje", run(4, 3, 0.5));
    let named = json(&[s(&a), s(&b), "--iteration", "iteration"]);
    let found = json(&[s(&a), s(&b), "--iteration", "auto"]);
    assert_eq!(found["iteration"], "iteration");
    assert_eq!(found["iterations"], named["iterations"]);
    assert_eq!(found["iterations"].as_array().unwrap().len(), 3);
    let table = diff_ok(&[s(&a), s(&b), "--iteration", "auto"]);
    assert!(table.contains("iterations marked by iteration"), "{table}");
    let one_a = write_in(tmp.path(), "one-a.paje", run(4, 1, 0.0));
    let one_b = write_in(tmp.path(), "one-b.paje", run(4, 1, 0.5));
    let none = json(&[s(&one_a), s(&one_b), "--iteration", "auto"]);
    assert_eq!(none["iteration"], "auto");
    assert!(none.get("iterations").is_none(), "{none}");
    let table = diff_ok(&[s(&one_a), s(&one_b), "--iteration", "auto"]);
    assert!(table.contains("name one with --iteration VALUE"), "{table}");
    // Calls repeated alike with no body around them mark nothing: a
    // collective entered once per iteration is not an iteration.
    let text = run(4, 3, 0.0);
    let lines: Vec<&str> = text.lines().collect();
    // Each iteration ends with two equal pops: the barrier's, the body's.
    let flat: String = (0..lines.len())
        .filter(|&i| !lines[i].ends_with(" iteration"))
        .filter(|&i| !(i > 0 && lines[i].starts_with("5 ") && lines[i] == lines[i - 1]))
        .map(|i| format!("{}\n", lines[i]))
        .collect();
    let flat = write_in(tmp.path(), "flat.paje", flat);
    let none = json(&[s(&flat), s(&flat), "--iteration", "auto"]);
    assert_eq!(none["iteration"], "auto", "{none}");
}
