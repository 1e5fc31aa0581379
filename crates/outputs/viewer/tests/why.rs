//! The why panel and overlay in a real browser (headless Chromium over
//! WebDriver), on a generated 8-rank MPI run with known wait states
//! (`trama-why`'s `tests/mpi_runs.py`, its Pajé form): the panel's
//! patterns and totals, the instances a pattern lists, the window a click
//! on an instance zooms to, the wait states and critical-path pieces the
//! overlay draws, the critical path's profile in the statistics panel —
//! each against what `trama_why` computes (the functions `trama stats
//! waits` and `critical-path` call) — and the same panel in the offline
//! report opened from `file://`. A trace without MPI processes and one
//! read by blocks get a panel that says why there is no analysis.
//!
//! Without chromedriver (or python3 with its `otf2` module, which the
//! generator needs) the browser tests are skipped with a note, unless
//! `TRAMA_REQUIRE_BROWSER=1`.

mod common;

use common::{load, serve};
use trama_testkit::webdriver;

use std::path::{Path, PathBuf};
use std::process::Command;

use fantoccini::Client;
use serde_json::{json, Value};
use trama_open::{LoadOptions, Source};
use trama_sim::Trace;
use trama_testkit::http::{self, status_and_body};
use trama_viewer::{start_loading, Input, Running, ViewerOptions};
use trama_why::{
    critical_path, path_processes, path_profile, wait_states, PathSegment, Pattern, Run,
    RunOptions, WaitState,
};
use webdriver::{browser, click, driver, js, no_script_error, open_ready, press, until, window};

/// Instances listed per pattern (the server's `TOP`).
const TOP: usize = 50;

/// A generated run of 8 ranks in a new folder: the folder and its Pajé
/// trace; `None` (after a note) without the generator's tools.
fn generated() -> Option<(tempfile::TempDir, PathBuf)> {
    if !trama_gen::otf2::tools() {
        eprintln!("NOTE: python3 with otf2 or otf2-print missing: the why browser test SKIPPED");
        return None;
    }
    let dir = tempfile::tempdir().unwrap();
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../analyses/why/tests/mpi_runs.py");
    let out = Command::new("/usr/bin/python3")
        .arg(script)
        .arg(dir.path())
        .args(["--ranks", "8", "--iterations", "3", "--seed", "1"])
        .output()
        .expect("running python3");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let paje = dir.path().join("waits.paje");
    Some((dir, paje))
}

/// What the analysis finds: the run, its wait states, its path.
struct Found {
    run: Run,
    waits: Vec<WaitState>,
    path: Vec<PathSegment>,
}

fn analyse(trace: &Trace) -> Found {
    let run = Run::from_trace(trace, &RunOptions::default()).unwrap();
    let waits = wait_states(&run);
    let path = critical_path(&run, &waits);
    Found { run, waits, path }
}

impl Found {
    /// Per pattern found: its name, seconds and instances, most seconds
    /// first.
    fn totals(&self) -> Vec<(&'static str, f64, usize)> {
        let mut out: Vec<(&'static str, f64, usize)> = Pattern::ALL
            .iter()
            .map(|&p| {
                let of = self.waits.iter().filter(|w| w.pattern == p);
                (p.name(), of.clone().map(|w| w.duration).sum(), of.count())
            })
            .filter(|t| t.2 > 0)
            .collect();
        out.sort_by(|a, b| b.1.total_cmp(&a.1));
        out
    }

    /// The most severe instances of `pattern`, as the panel lists them:
    /// [waiting, waited for, region].
    fn worst(&self, pattern: &str) -> Vec<(Vec<String>, &WaitState)> {
        let mut of: Vec<&WaitState> = self
            .waits
            .iter()
            .filter(|w| w.pattern.name() == pattern)
            .collect();
        of.sort_by(|a, b| b.duration.total_cmp(&a.duration));
        of.into_iter()
            .take(TOP)
            .map(|w| {
                let call = &self.run.calls[w.call as usize];
                let name = |p: u32| self.run.processes[p as usize].name.clone();
                let cells = vec![
                    name(call.proc),
                    w.waited_for.map_or("—".into(), name),
                    self.run.regions[call.region as usize].clone(),
                ];
                (cells, w)
            })
            .collect()
    }
}

/// The meta row of each process, by its name, checked against the
/// page's row labels.
async fn rows_of(c: &Client) -> Vec<(String, u64)> {
    let rows = js(c, "return window.trama.why().rows").await;
    rows.as_array()
        .unwrap()
        .iter()
        .map(|r| {
            assert_eq!(r[0], r[2], "a process on the row of its name");
            (r[0].as_str().unwrap().to_string(), r[1].as_u64().unwrap())
        })
        .collect()
}

/// The panel's patterns: [name, seconds, instances].
async fn panel(c: &Client) -> Value {
    js(c, "return window.trama.why()").await
}

/// The panel shows the analysis' patterns, in decreasing time, with their
/// instances.
async fn totals_match(c: &Client, found: &Found) {
    let p = panel(c).await;
    let shown: Vec<(String, f64, u64)> = p["patterns"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| {
            (
                r["pattern"].as_str().unwrap().to_string(),
                r["seconds"].as_f64().unwrap(),
                r["instances"].as_u64().unwrap(),
            )
        })
        .collect();
    let want = found.totals();
    assert!(
        want.len() >= 6,
        "the generated run has its patterns: {want:?}"
    );
    assert_eq!(shown.len(), want.len(), "{shown:?} vs {want:?}");
    for (s, w) in shown.iter().zip(&want) {
        assert_eq!(s.0, w.0);
        assert!((s.1 - w.1).abs() <= 1e-12 * w.1.max(1.0), "{s:?} vs {w:?}");
        assert_eq!(s.2 as usize, w.2, "{}", w.0);
    }
}

/// A click at the middle of the element `whyRow(args)` gives.
async fn click_row(c: &Client, args: &str) {
    let at = js(c, &format!("return window.trama.whyRow({args})")).await;
    let (x, y) = (at[0].as_f64().unwrap(), at[1].as_f64().unwrap());
    click(c, x, y).await;
}

/// A click on the top pattern lists its worst instances; a click on the
/// first zooms to it. The instance, its pattern and its row.
async fn instances_listed_and_zoomed(c: &Client, found: &Found) -> (f64, f64, String) {
    let top = found.totals()[0].0;
    click_row(c, &format!("{}", json!(top))).await;
    until(
        c,
        "return window.trama.why().listed.length > 0",
        "the instances",
    )
    .await;
    let listed = panel(c).await["listed"].clone();
    let listed: Vec<Vec<String>> = listed
        .as_array()
        .unwrap()
        .iter()
        .map(|r| {
            r.as_array()
                .unwrap()
                .iter()
                .map(|x| x.as_str().unwrap().to_string())
                .collect()
        })
        .filter(|r: &Vec<String>| r.len() == 5)
        .collect();
    let want = found.worst(top);
    assert_eq!(listed.len(), want.len());
    for (l, (w, _)) in listed.iter().zip(&want) {
        assert_eq!(&l[..3], &w[..], "a listed instance");
    }
    let (_, first) = want[0];
    click_row(c, &format!("{}, 0", json!(top))).await;
    let (a, b) = (
        first.start - first.duration / 2.0,
        first.start + first.duration * 1.5,
    );
    until(
        c,
        &format!(
            "const [a, b] = window.trama.window(); return Math.abs(a - {a}) < 1e-9 && Math.abs(b - {b}) < 1e-9"
        ),
        "the zoom to the instance",
    )
    .await;
    let sel = panel(c).await["selected"].clone();
    assert_eq!(sel["t0"].as_f64().unwrap(), first.start);
    (first.start, first.start + first.duration, top.to_string())
}

/// Waits until the overlay drawn is the window's.
async fn overlay_of_window(c: &Client) -> Value {
    let (a, b) = window(c).await;
    until(
        c,
        &format!(
            "const o = window.trama.why().overlay; return o != null && o.t0 === {a} && o.t1 === {b}"
        ),
        "the overlay of the window",
    )
    .await;
    panel(c).await
}

/// The overlay drawn in the window: every wait state overlapping it lies
/// in a mark of its row and of the instances counted, and the marks count
/// no other; the path's pieces tile its part of the run, each on the row
/// of the process the path is on for most of it.
fn overlay_matches(p: &Value, found: &Found, rows: &[(String, u64)], (a, b): (f64, f64)) {
    let row_of = |proc: u32| {
        let name = &found.run.processes[proc as usize].name;
        rows.iter().find(|r| &r.0 == name).map(|r| r.1).unwrap()
    };
    let marks: Vec<(u64, f64, f64, u64)> = p["waits"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| {
            (
                m["row"].as_u64().unwrap(),
                m["t0"].as_f64().unwrap(),
                m["t1"].as_f64().unwrap(),
                m["n"].as_u64().unwrap(),
            )
        })
        .collect();
    let inside: Vec<&WaitState> = found
        .waits
        .iter()
        .filter(|w| w.start <= b && w.start + w.duration >= a)
        .collect();
    let counted: u64 = marks.iter().map(|m| m.3).sum();
    assert_eq!(
        counted as usize,
        inside.len(),
        "instances drawn in [{a}, {b}]"
    );
    for w in &inside {
        let row = row_of(found.run.calls[w.call as usize].proc);
        let end = w.start + w.duration;
        assert!(
            marks
                .iter()
                .any(|m| m.0 == row && m.1 <= w.start + 1e-12 && m.2 >= end - 1e-12),
            "{w:?} is drawn on row {row}"
        );
    }
    let pieces: Vec<(u64, f64, f64)> = p["path"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| {
            (
                s["row"].as_u64().unwrap(),
                s["t0"].as_f64().unwrap(),
                s["t1"].as_f64().unwrap(),
            )
        })
        .collect();
    assert!(!pieces.is_empty(), "the path is drawn");
    let (r0, r1) = (found.run.start.max(a), found.run.end.min(b));
    assert!((pieces[0].1 - r0).abs() < 1e-12 && (pieces.last().unwrap().2 - r1).abs() < 1e-12);
    for w in pieces.windows(2) {
        assert_eq!(w[0].2, w[1].1, "pieces follow each other");
    }
    // Each piece: most of its time on the path is on its row's process.
    for &(row, t0, t1) in &pieces {
        let on: f64 = found
            .path
            .iter()
            .filter(|s| row_of(s.proc) == row)
            .map(|s| (s.end.min(t1) - s.start.max(t0)).max(0.0))
            .sum();
        assert!(on >= (t1 - t0) / 2.0 - 1e-12, "piece {row} [{t0}, {t1}]");
    }
}

/// The statistics panel's critical-path profile: the regions and
/// processes of `path_profile` and `path_processes`.
async fn profile_matches(c: &Client, found: &Found) {
    press(c, "stats-button").await;
    until(
        c,
        "return document.querySelector('#stats #why-processes') != null",
        "the critical path's profile",
    )
    .await;
    let cells = |id: &str| {
        format!(
            "return [...document.querySelectorAll('#stats #{id} tr')].slice(1).map((tr) => [...tr.children].map((td) => td.textContent))"
        )
    };
    let regions = js(c, &cells("why-regions")).await;
    let want = path_profile(&found.run, &found.waits, &found.path);
    let names: Vec<String> = regions
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r[0].as_str().unwrap().to_string())
        .collect();
    let want_names: Vec<String> = want
        .iter()
        .map(|r| {
            r.region.map_or("(no state)".into(), |x| {
                found.run.regions[x as usize].clone()
            })
        })
        .collect();
    assert_eq!(names, want_names);
    let procs = js(c, &cells("why-processes")).await;
    let mut want = path_processes(&found.run, &found.waits, &found.path);
    want.sort_by(|a, b| b.seconds.total_cmp(&a.seconds));
    let shown: Vec<(String, String)> = procs
        .as_array()
        .unwrap()
        .iter()
        .map(|r| (r[0].as_str().unwrap().into(), r[2].as_str().unwrap().into()))
        .collect();
    let want: Vec<(String, String)> = want
        .iter()
        .map(|p| {
            (
                found.run.processes[p.proc as usize].name.clone(),
                format!("{:.1} %", 100.0 * p.share),
            )
        })
        .collect();
    assert_eq!(shown, want);
    press(c, "stats-button").await;
}

/// The legend's entries hide and show a pattern's marks and the path.
async fn legend_toggles(c: &Client, pattern: &str) {
    let index = Pattern::ALL
        .iter()
        .position(|p| p.name() == pattern)
        .unwrap();
    let count = |what: &str| format!("return window.trama.why().{what}.length");
    assert!(js(c, &count("path")).await.as_u64().unwrap() > 0);
    let toggle = |label: String| {
        format!(
            "const e = [...document.querySelectorAll('#legend .why')].find((e) => e.textContent === {}); e.click(); return true",
            json!(label)
        )
    };
    js(c, &toggle(format!("wait: {pattern}"))).await;
    until(
        c,
        &format!("return !window.trama.why().waits.some((m) => m.pattern === {index})"),
        "the pattern hidden",
    )
    .await;
    js(c, &toggle("critical path".into())).await;
    until(c, &format!("{} === 0", count("path")), "the path hidden").await;
    js(c, &toggle(format!("wait: {pattern}"))).await;
    js(c, &toggle("critical path".into())).await;
    until(
        c,
        &format!(
            "return window.trama.why().path.length > 0 && window.trama.why().waits.some((m) => m.pattern === {index})"
        ),
        "the pattern and path shown again",
    )
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn why_panel_and_overlay_show_the_analysis() {
    let Some(d) = driver() else { return };
    let Some((dir, paje)) = generated() else {
        return;
    };
    let found = analyse(&load(&paje));
    let server = serve(load(&paje), "waits.paje");
    let c = browser(&d).await;
    open_ready(&c, &format!("{}#why", server.url), "the first frame").await;
    until(
        &c,
        "return document.body.dataset.why === 'ready'",
        "the why panel",
    )
    .await;
    let rows = rows_of(&c).await;
    totals_match(&c, &found).await;

    // The whole run: every wait state drawn, the path across it.
    js(&c, "document.getElementById('fit').click(); return true").await;
    let p = overlay_of_window(&c).await;
    overlay_matches(&p, &found, &rows, window(&c).await);

    let (t0, t1, pattern) = instances_listed_and_zoomed(&c, &found).await;
    let p = overlay_of_window(&c).await;
    let w = window(&c).await;
    overlay_matches(&p, &found, &rows, w);
    // The instance is drawn where it is.
    assert!(
        p["waits"]
            .as_array()
            .unwrap()
            .iter()
            .any(|m| m["t0"].as_f64().unwrap() <= t0 && m["t1"].as_f64().unwrap() >= t1),
        "the chosen instance drawn"
    );
    legend_toggles(&c, &pattern).await;
    profile_matches(&c, &found).await;
    no_script_error(&c).await;
    assert_eq!(
        js(&c, "return document.body.dataset.csp || null").await,
        Value::Null,
        "the page's policy holds"
    );

    // The offline report, from file://: the same panel, its instances and
    // zoom, the overlay of the whole run.
    let trace = load(&paje);
    let url = format!(
        "{}#why",
        common::offline_page(&trace, "waits.paje", dir.path())
    );
    open_ready(&c, &url, "the offline page").await;
    assert_eq!(js(&c, "return window.trama.offline").await, json!(true));
    until(
        &c,
        "return document.body.dataset.why === 'ready'",
        "the offline why panel",
    )
    .await;
    totals_match(&c, &found).await;
    let p = overlay_of_window(&c).await;
    let counted: u64 = p["waits"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["n"].as_u64().unwrap())
        .sum();
    assert_eq!(
        counted as usize,
        found.waits.len(),
        "the whole run's instances drawn"
    );
    instances_listed_and_zoomed(&c, &found).await;
    no_script_error(&c).await;
    assert_eq!(
        js(&c, "return document.body.dataset.csp || null").await,
        Value::Null
    );
    c.close().await.unwrap();
}

/// A trace with no MPI process: states, no message.
fn no_mpi(dir: &Path) -> PathBuf {
    let text = trama_gen::event_defs(
        "PajeDefineContainerType 0; PajeDefineStateType 1; PajeCreateContainer 3; \
         PajePushState 4; PajePopState 5",
    ) + "0 R 0 Rank\n1 S R State\n3 0 a R 0 a\n3 0 b R 0 b\n4 0 S a compute\n5 2 S a\n\
          4 1 S b compute\n5 3 S b\n";
    let path = dir.join("plain.paje");
    std::fs::write(&path, text).unwrap();
    path
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn why_panel_says_why_a_trace_without_mpi_has_no_analysis() {
    let Some(d) = driver() else { return };
    let dir = tempfile::tempdir().unwrap();
    let path = no_mpi(dir.path());
    let server = serve(load(&path), "plain.paje");
    let c = browser(&d).await;
    open_ready(&c, &format!("{}#why", server.url), "the first frame").await;
    until(
        &c,
        "return document.body.dataset.why === 'unavailable'",
        "the why panel",
    )
    .await;
    let text = js(
        &c,
        "return document.querySelector('#why .why-unavailable').textContent",
    )
    .await;
    assert!(
        text.as_str().unwrap().contains("no process"),
        "the reason: {text}"
    );
    no_script_error(&c).await;
    c.close().await.unwrap();
}

/// The reply of `path` (under the token) from `r`.
fn get_json(r: &Running, path: &str) -> Value {
    let after = r.url.split_once("//").unwrap().1;
    let token = &after[after.find('/').unwrap()..];
    let (status, body) = status_and_body(
        &http::get(r.addr, &format!("{token}{path}"), &r.addr.to_string()).unwrap(),
    );
    assert_eq!(status, 200, "{path}: {}", String::from_utf8_lossy(&body));
    serde_json::from_slice(&body).unwrap()
}

#[test]
fn why_is_unavailable_for_a_trace_read_by_blocks() {
    let dir = tempfile::tempdir().unwrap();
    let text = trama_gen::generate(3, &trama_gen::GenOptions::varied(3, 4000));
    let paje = dir.path().join("t.paje");
    std::fs::write(&paje, text).unwrap();
    let ptb = dir.path().join("t.ptb");
    let opened = trama_open::open(&Source::Path(paje)).unwrap();
    let mut co = trama_convert::ConvertOptions::default();
    co.block_events = 1024;
    let file = std::fs::File::create(&ptb).unwrap();
    trama_convert::convert(opened, &LoadOptions::default(), &co, file).unwrap();
    let input = Input::Blocks(trama_open::ByBlocks::new(
        Box::new(trama_open::PtbWindows::open(&ptb).unwrap()),
        0,
        None,
    ));
    let mut opts = ViewerOptions::default();
    opts.port = Some(0);
    opts.name = "t.ptb".into();
    let r = start_loading(move || Ok(input), None, &opts).unwrap();
    for _ in 0..600 {
        if get_json(&r, "api/progress")["state"] == "ready" {
            break;
        }
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    for path in ["api/why", "api/why/overlay?start=0&end=1&width=100"] {
        let v = get_json(&r, path);
        assert_eq!(v["available"], json!(false), "{path}: {v}");
        assert!(
            v["reason"].as_str().unwrap().contains("read by blocks"),
            "{path}: {v}"
        );
    }
}
