//! The selection of `trama view` and of an offline report, in a real
//! browser: the panel of an area (rows × time) shows per state value what
//! `trama stats states --window T0:T1` gives for the same containers, per
//! container on demand, sorted by any column, as CSV; a report, which
//! holds the whole run's statistics only, answers a selection of the whole
//! run and says so for any other.
//!
//! Without chromedriver the tests are skipped with a note, unless
//! `TRAMA_REQUIRE_BROWSER=1` (set by `.ci/run`), which makes them fail.

mod common;
use trama_testkit::webdriver;

use std::collections::BTreeSet;
use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};

use fantoccini::Client;
use serde_json::Value;
use webdriver::{browser, click_id, driver, js, open_ready, until};

use common::trama_out;

/// The example: four ranks on two nodes, their states and messages.
fn example() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../examples/ring.paje")
}

/// The first shown row whose container has states in `cli`, and the
/// third after it (or the last).
fn rows_to_select(labels: &[String], cli: &Value) -> (String, String) {
    let rows = cli["rows"].as_array().unwrap();
    let i = labels
        .iter()
        .position(|l| rows.iter().any(|r| r["container"] == *l))
        .expect("a row with states");
    (
        labels[i].clone(),
        labels[(i + 3).min(labels.len() - 1)].clone(),
    )
}

/// `trama view` of `trace`: the process, its URL, and its standard
/// output, kept open (the server ends when it closes).
fn view(trace: &Path) -> (Child, String, impl Sized) {
    let mut child = Command::new(env!("CARGO_BIN_EXE_trama"))
        .args(["view", "--no-open", "--port", "0"])
        .arg(trace)
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut lines = BufReader::new(child.stdout.take().unwrap()).lines();
    let line = lines.next().unwrap().unwrap();
    let url = line.split_whitespace().last().unwrap().to_string();
    (child, url, lines)
}

/// `trama stats states --window T0:T1 --format json` of `trace`.
fn stats_states(trace: &Path, t0: f64, t1: f64) -> Value {
    let out = trama_out(&[
        "stats",
        "states",
        "--window",
        &format!("{t0}:{t1}"),
        "--format",
        "json",
        trace.to_str().unwrap(),
    ]);
    serde_json::from_str(&out).unwrap()
}

/// The CLI's rows of containers `names`, added up per state type and
/// value (in the order values first appear), as the panel shows them:
/// (state type, value, count, total, exclusive, mean, min, max).
fn per_value(cli: &Value, names: &BTreeSet<String>) -> Vec<(String, String, u64, [f64; 5])> {
    let mut out: Vec<(String, String, u64, [f64; 5])> = Vec::new();
    for r in cli["rows"].as_array().unwrap() {
        if !names.contains(r["container"].as_str().unwrap()) {
            continue;
        }
        let (ty, v) = (
            r["state_type"].as_str().unwrap(),
            r["value"].as_str().unwrap(),
        );
        let f = |k: &str| r[k].as_f64().unwrap();
        let count = r["count"].as_u64().unwrap();
        let at = match out.iter().position(|x| x.0 == ty && x.1 == v) {
            Some(i) => i,
            None => {
                out.push((ty.into(), v.into(), 0, [0.0, 0.0, 0.0, 0.0, 0.0]));
                out.len() - 1
            }
        };
        let x = &mut out[at];
        if count > 0 {
            x.3[3] = if x.2 > 0 {
                x.3[3].min(f("min"))
            } else {
                f("min")
            };
        }
        x.2 += count;
        x.3[0] += f("total");
        x.3[1] += f("exclusive");
        x.3[4] = x.3[4].max(f("max"));
    }
    for x in &mut out {
        x.3[2] = if x.2 > 0 { x.3[0] / x.2 as f64 } else { 0.0 };
    }
    out
}

/// The panel's rows in the same form, in the CLI's order of values.
fn panel(
    shown: &Value,
    order: &[(String, String, u64, [f64; 5])],
) -> Vec<(String, String, u64, [f64; 5])> {
    let rows = shown["rows"].as_array().unwrap();
    order
        .iter()
        .map(|(ty, v, _, _)| {
            let r = rows
                .iter()
                .find(|r| r["state_type"] == *ty && r["value"] == *v)
                .unwrap_or_else(|| panic!("no row {ty} {v} in the panel: {shown}"));
            let f = |k: &str| r[k].as_f64().unwrap();
            let count = r["count"].as_u64().unwrap();
            (
                ty.clone(),
                v.clone(),
                count,
                [f("total"), f("exclusive"), f("mean"), f("min"), f("max")],
            )
        })
        .collect()
}

fn close(a: f64, b: f64) -> bool {
    (a - b).abs() <= 1e-12 * a.abs().max(b.abs()).max(1.0)
}

fn assert_same(got: &[(String, String, u64, [f64; 5])], want: &[(String, String, u64, [f64; 5])]) {
    assert_eq!(got.len(), want.len());
    for (g, w) in got.iter().zip(want) {
        assert_eq!(
            (&g.0, &g.1, g.2),
            (&w.0, &w.1, w.2),
            "count of {} {}",
            w.0,
            w.1
        );
        for (k, name) in ["total", "self", "mean", "min", "max"].iter().enumerate() {
            assert!(
                close(g.3[k], w.3[k]),
                "{name} of {} {}: {} in the panel, {} from stats states",
                w.0,
                w.1,
                g.3[k],
                w.3[k]
            );
        }
    }
}

/// The names of the container ids `ids` (all containers when null).
fn names_of(meta: &Value, ids: &Value) -> BTreeSet<String> {
    let all = meta["containers"].as_array().unwrap();
    all.iter()
        .filter(|c| ids.is_null() || ids.as_array().unwrap().contains(&c["id"]))
        .map(|c| c["name"].as_str().unwrap().to_string())
        .collect()
}

async fn meta(c: &Client) -> Value {
    js(c, "return window.trama.meta()").await
}

/// Selects `t0..t1` of the rows labelled `from` to `to` and waits for the
/// panel's numbers.
async fn select(c: &Client, t0: f64, t1: f64, from: &str, to: &str) -> Value {
    let call = format!("window.trama.select({t0}, {t1}, {from:?}, {to:?}); return true");
    js(c, &call).await;
    until(
        c,
        "const s = window.trama.selection(); return s != null && s.ready",
        "the selection's numbers",
    )
    .await;
    js(c, "return window.trama.selection()").await
}

/// regression: the selection panel of `trama view` shows, per state value,
/// the count, total, self, mean, min and max of `trama stats states
/// --window` for the selected containers; per container, the CLI's rows;
/// a click on a header sorts by it; the CSV holds the table.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn selection_panel_equals_stats_states_window() {
    let Some(d) = driver() else { return };
    let trace = example();
    let (mut server, url, _out) = view(&trace);
    let c = browser(&d).await;
    open_ready(&c, &url, "the first frame").await;
    let m = meta(&c).await;
    let (start, end) = (m["start"].as_f64().unwrap(), m["end"].as_f64().unwrap());
    let (t0, t1) = (start + 0.23 * (end - start), start + 0.71 * (end - start));
    // Rows 2 to 5 of those shown.
    let labels: Vec<String> =
        serde_json::from_value(js(&c, "return window.trama.shownLabels()").await).unwrap();
    assert!(labels.len() > 6, "{labels:?}");
    let shown = select(&c, t0, t1, &labels[1], &labels[4]).await;
    let names = names_of(&m, &shown["containers"]);
    assert!(!names.is_empty() && names.len() < m["containers"].as_array().unwrap().len());
    let cli = stats_states(&trace, t0, t1);
    let want = per_value(&cli, &names);
    assert!(want.len() > 1, "values: {want:?}");
    assert_same(&panel(&shown, &want), &want);
    // Per container: the CLI's own rows.
    click_id(&c, "sel-per-container").await;
    let per = js(&c, "return window.trama.selection().rows").await;
    let mine: Vec<&Value> = cli["rows"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|r| names.contains(r["container"].as_str().unwrap()))
        .collect();
    assert_eq!(per.as_array().unwrap().len(), mine.len());
    for r in mine {
        let p = per
            .as_array()
            .unwrap()
            .iter()
            .find(|p| {
                p["container"] == r["container"]
                    && p["state_type"] == r["state_type"]
                    && p["value"] == r["value"]
            })
            .unwrap();
        for k in [
            "count",
            "total",
            "exclusive",
            "inclusive",
            "mean",
            "min",
            "max",
        ] {
            assert!(
                close(p[k].as_f64().unwrap(), r[k].as_f64().unwrap()),
                "{k}: {p} vs {r}"
            );
        }
    }
    // A click on "count" sorts by count, most first; again: least first.
    let counts = "return window.trama.selection().rows.map((r) => r.count)";
    js(
        &c,
        "document.querySelector('#sel-table th[data-key=count]').click(); return true",
    )
    .await;
    let most: Vec<u64> = serde_json::from_value(js(&c, counts).await).unwrap();
    assert!(most.windows(2).all(|w| w[0] >= w[1]), "{most:?}");
    js(
        &c,
        "document.querySelector('#sel-table th[data-key=count]').click(); return true",
    )
    .await;
    let least: Vec<u64> = serde_json::from_value(js(&c, counts).await).unwrap();
    assert!(least.windows(2).all(|w| w[0] <= w[1]), "{least:?}");
    // The CSV: a header and a line per row, the counts in the table's order.
    let csv = js(&c, "return window.trama.selection().csv").await;
    let lines: Vec<&str> = csv.as_str().unwrap().lines().collect();
    assert!(
        lines[0]
            .starts_with("container,state_type,value,count,total,exclusive,inclusive,mean,min,max"),
        "{}",
        lines[0]
    );
    assert_eq!(lines.len(), least.len() + 1);
    let column: Vec<u64> = lines[1..]
        .iter()
        .map(|l| l.rsplit(',').nth(7).unwrap().parse().unwrap())
        .collect();
    assert_eq!(column, least);
    webdriver::no_script_error(&c).await;
    c.close().await.unwrap();
    server.kill().unwrap();
    server.wait().unwrap();
}

/// regression: an offline report holds the time per state of the whole
/// run only: a selection of the whole run shows `trama stats states`'
/// numbers of its containers, any other a note and no number.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn offline_selection_is_exact_or_says_why_not() {
    let Some(d) = driver() else { return };
    let dir = tempfile::tempdir().unwrap();
    let trace = example();
    let html = dir.path().join("report.html");
    trama_out(&[
        "report",
        trace.to_str().unwrap(),
        "-o",
        html.to_str().unwrap(),
    ]);
    let c = browser(&d).await;
    let url = format!("file://{}", html.canonicalize().unwrap().display());
    open_ready(&c, &url, "the first frame").await;
    let m = meta(&c).await;
    let (start, end) = (m["start"].as_f64().unwrap(), m["end"].as_f64().unwrap());
    let cli = stats_states(&trace, start, end);
    let labels: Vec<String> =
        serde_json::from_value(js(&c, "return window.trama.shownLabels()").await).unwrap();
    let (from, to) = rows_to_select(&labels, &cli);
    let shown = select(&c, start, end, &from, &to).await;
    let exact = shown["note"].as_str().unwrap();
    assert!(exact.starts_with("From the report"), "{shown}");
    let names = names_of(&m, &shown["containers"]);
    let want = per_value(&cli, &names);
    assert!(want.len() > 1);
    assert_same(&panel(&shown, &want), &want);
    // Part of the run: a note, no numbers.
    let part = select(&c, start + 0.1 * (end - start), end, &from, &to).await;
    assert!(part["rows"].is_null(), "{part}");
    assert!(
        part["note"].as_str().unwrap().contains("whole run"),
        "{part}"
    );
    let note = js(&c, "return document.getElementById('sel-note').textContent").await;
    assert!(note.as_str().unwrap().starts_with("No numbers"), "{note}");
    webdriver::no_script_error(&c).await;
    c.close().await.unwrap();
}
