//! Two runs compared (`trama view A B`): the server's routes and shared
//! colours, and the page in a real browser: coupled zoom and pan, the
//! alignment at an iteration, the difference lane over a delay injected
//! into one process (`trama_testkit::runs::bsp_run`: the last rank
//! computes `DELAY` more at iteration 1, so every other rank waits that
//! much longer in its barrier, from A's end of that barrier on).
//!
//! Without chromedriver the browser tests are skipped with a note, unless
//! `TRAMA_REQUIRE_BROWSER=1`.

mod common;

use std::path::{Path, PathBuf};

use serde_json::Value;
use trama_sim::Trace;
use trama_testkit::http::{get, status_and_body, url_parts};
use trama_testkit::runs::bsp_run;
use trama_testkit::webdriver::{
    browser, driver, js, lane_marks, move_to, no_script_error, open_compare, until,
};
use trama_viewer::{start_compare, Input, Running, ViewerOptions};

use common::load;

/// Seconds of computation added to the last rank at iteration 1.
const DELAY: f64 = 0.5;

/// Ranks of the generated runs.
const RANKS: usize = 8;

/// `text` written in `dir` as `name`, loaded.
fn trace(dir: &Path, name: &str, text: &str) -> Trace {
    let p: PathBuf = dir.join(name);
    std::fs::write(&p, text).unwrap();
    load(&p)
}

/// Runs `a` and `b` compared, served on a free port, iterations marked by
/// `iteration`.
fn serve_pair(a: Trace, b: Trace, iteration: Option<&str>) -> Running {
    let mut opts = ViewerOptions::default();
    opts.port = Some(0);
    opts.name = "a.paje".into();
    start_compare(
        (move || Ok(Input::Whole(a)), None),
        (move || Ok(Input::Whole(b)), None),
        ["a.paje".into(), "b.paje".into()],
        iteration.map(str::to_string),
        &opts,
    )
    .unwrap()
}

/// The generated runs without and with the delay.
fn runs(dir: &Path) -> (Trace, Trace) {
    (
        trace(dir, "a.paje", &bsp_run(RANKS, 4, 0.0)),
        trace(dir, "b.paje", &bsp_run(RANKS, 4, DELAY)),
    )
}

/// The status and body of `path` under the server.
fn fetch(server: &Running, path: &str) -> (u16, Vec<u8>) {
    let (host, base) = url_parts(&server.url).unwrap();
    status_and_body(&get(host, &format!("{base}{path}"), host).unwrap())
}

/// The JSON reply of `path` under the server, waiting while it loads.
fn get_json(server: &Running, path: &str) -> Value {
    for _ in 0..400 {
        let (status, body) = fetch(server, path);
        if status == 200 {
            return serde_json::from_slice(&body).unwrap();
        }
        assert_eq!(status, 503, "{path}: {}", String::from_utf8_lossy(&body));
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    panic!("{path}: still loading");
}

/// Regression: each run's values were coloured from its own values
/// defined before them, so a value of both runs could get two colours.
/// B here defines a value first that moves the colour `compute` has on
/// its own; compared, both runs give `compute` (and every shared name)
/// one colour.
#[test]
fn both_runs_colour_a_value_alike() {
    let dir = tempfile::tempdir().unwrap();
    let a = trace(dir.path(), "a.paje", &bsp_run(2, 2, 0.0));
    let colour = |t: &Trace, name: &str| {
        let m = &t.model;
        let colors = trama_style::value_colors(m);
        let i = m
            .values
            .iter()
            .position(|v| m.str(v.name) == name.as_bytes());
        colors[i.expect("the value")].clone()
    };
    let own = colour(&a, "compute");
    // A value pushed first that takes compute's palette entry on its own.
    let with_first = |name: &str| {
        let text = bsp_run(2, 2, DELAY).replacen(
            "2 0 r1 R 0 rank-1\n",
            &format!("2 0 r1 R 0 rank-1\n4 0 S r0 {name}\n5 0 S r0\n"),
            1,
        );
        trace(dir.path(), "b.paje", &text)
    };
    let name = (0..500)
        .map(|k| format!("v{k}"))
        .find(|n| colour(&with_first(n), "compute") != own)
        .expect("a value that takes compute's colour");
    let b = with_first(&name);
    let server = serve_pair(a, b, None);
    let (ma, mb) = (
        get_json(&server, "a/api/meta"),
        get_json(&server, "b/api/meta"),
    );
    let colours = |m: &Value| -> Vec<(String, String)> {
        let v = m["values"].as_array().unwrap();
        v.iter()
            .map(|v| {
                (
                    v["name"].as_str().unwrap().into(),
                    v["color"].as_str().unwrap().into(),
                )
            })
            .collect()
    };
    let (ca, cb) = (colours(&ma), colours(&mb));
    for (n, c) in &ca {
        let theirs = cb.iter().find(|(m, _)| m == n).map(|(_, c)| c);
        assert_eq!(theirs, Some(c), "{n}: A {c}, B {theirs:?}");
    }
    assert_eq!(ma["name"], "a.paje");
    assert_eq!(mb["name"], "b.paje");
    server.stop();
}

/// `api/diff` answers `trama diff`'s rows and, with an iteration value,
/// each run's iterations; the page and each run's page are served.
#[test]
fn the_pair_serves_both_runs_and_their_diff() {
    let dir = tempfile::tempdir().unwrap();
    let (a, b) = runs(dir.path());
    let server = serve_pair(a, b, Some("iteration"));
    let d = get_json(&server, "api/diff");
    let rows = d["diff"]["rows"].as_array().unwrap();
    let barrier = rows.iter().find(|r| r["value"] == "MPI_Barrier").unwrap();
    let want = (RANKS - 1) as f64 * DELAY;
    assert!((barrier["delta_seconds"].as_f64().unwrap() - want).abs() < 1e-6);
    let (wa, wb) = (
        d["windows"]["a"].as_array().unwrap(),
        d["windows"]["b"].as_array().unwrap(),
    );
    assert_eq!((wa.len(), wb.len()), (4, 4));
    // Iteration 1 (the second) is DELAY longer in B; the next starts later.
    let len = |w: &Value| w[1].as_f64().unwrap() - w[0].as_f64().unwrap();
    assert!((len(&wb[1]) - len(&wa[1]) - DELAY).abs() < 1e-6);
    assert!((wb[2][0].as_f64().unwrap() - wa[2][0].as_f64().unwrap() - DELAY).abs() < 1e-6);
    // Another value asked for: no iterations of a value none has.
    let none = get_json(&server, "api/diff?iteration=nothing");
    assert_eq!(none["windows"]["a"].as_array().unwrap().len(), 0);
    for path in [
        "",
        "compare.js",
        "lane.js",
        "a/",
        "b/",
        "a/app.js",
        "b/api/progress",
    ] {
        let (status, _) = fetch(&server, path);
        assert_eq!(status, 200, "{path}");
    }
    server.stop();
}

/// Both windows, as the page says them.
async fn windows(c: &fantoccini::Client) -> [(f64, f64); 2] {
    let w = js(c, "return window.compare.windows()").await;
    let p = |i: usize| (w[i][0].as_f64().unwrap(), w[i][1].as_f64().unwrap());
    [p(0), p(1)]
}

/// B's window is A's shifted by the runs' offsets.
async fn coupled(c: &fantoccini::Client) -> [(f64, f64); 2] {
    let [a, b] = windows(c).await;
    let off = js(c, "return window.compare.offsets()").await;
    let d = off[1].as_f64().unwrap() - off[0].as_f64().unwrap();
    assert!(
        (b.0 - a.0 - d).abs() < 1e-9 && (b.1 - a.1 - d).abs() < 1e-9,
        "A {a:?}, B {b:?}, offsets {off}"
    );
    [a, b]
}

/// Clicks the button `id` of run `run`'s page and waits until its window
/// changed from `before`.
async fn press_in(c: &fantoccini::Client, run: &str, id: &str, before: (f64, f64)) {
    js(
        c,
        &format!(
            "window.compare.frame('{run}').document.getElementById('{id}').click(); return true"
        ),
    )
    .await;
    let i = if run == "a" { 0 } else { 1 };
    until(
        c,
        &format!(
            "const w = window.compare.windows()[{i}]; return w[0] !== {} || w[1] !== {}",
            before.0, before.1
        ),
        "the window to change",
    )
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn coupled_zoom_keeps_both_windows_equal() {
    let Some(d) = driver() else { return };
    let dir = tempfile::tempdir().unwrap();
    let (a, b) = runs(dir.path());
    let server = serve_pair(a, b, Some("iteration"));
    let c = browser(&d).await;
    open_compare(&c, &server.url).await;
    let [a0, _] = coupled(&c).await;
    // Zoom in A: B follows; zoom out and pan in B: A follows.
    press_in(&c, "a", "zoomin", a0).await;
    let [a1, _] = coupled(&c).await;
    assert!(a1.1 - a1.0 < a0.1 - a0.0);
    let [_, b1] = windows(&c).await;
    press_in(&c, "b", "zoomout", b1).await;
    let [a2, _] = coupled(&c).await;
    assert!(a2.1 - a2.0 > a1.1 - a1.0);
    js(&c, "window.compare.setWindow('b', 2, 3); return true").await;
    let [a3, b3] = coupled(&c).await;
    assert_eq!(b3, (2.0, 3.0));
    assert_eq!(a3, (2.0, 3.0));
    // Aligned at iteration 3: its starts line up (B's DELAY later).
    until(
        &c,
        "return [...document.getElementById('align').options].some((o) => o.value === 'it:2')",
        "the iterations",
    )
    .await;
    js(&c, "window.compare.align('it:2'); return true").await;
    let off = js(&c, "return window.compare.offsets()").await;
    let shift = off[1].as_f64().unwrap() - off[0].as_f64().unwrap();
    assert!((shift - DELAY).abs() < 1e-6, "{off}");
    let [a4, b4] = coupled(&c).await;
    assert!((b4.0 - a4.0 - DELAY).abs() < 1e-6);
    // A's player drives B's: its frame at A's instant shifted by DELAY.
    let t = (a4.0 + a4.1) / 2.0;
    js(
        &c,
        &format!(
            "const A = window.compare.frame('a').trama; \
             A.openPlayer().then(() => A.player().seek({t})); return true"
        ),
    )
    .await;
    until(
        &c,
        &format!(
            "const f = window.compare.frame('b').trama.frame(); \
             return f != null && f.t <= {b} + 1e-9 && {b} < f.t + f.dt + 1e-9",
            b = t + DELAY
        ),
        "B's frame at A's instant",
    )
    .await;
    no_script_error(&c).await;
    c.close().await.unwrap();
    server.stop();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_difference_lane_marks_an_injected_delay() {
    let Some(d) = driver() else { return };
    let dir = tempfile::tempdir().unwrap();
    let (a, b) = runs(dir.path());
    // In A, iteration 1 ends when the last rank's barrier does.
    let it1_end = 2.0 * (1.0 + 0.1 * (RANKS - 1) as f64 + 0.01);
    let server = serve_pair(a, b, None);
    let c = browser(&d).await;
    open_compare(&c, &server.url).await;
    until(
        &c,
        "return window.compare.laneValue() === 'MPI_Barrier'",
        "the lane's value",
    )
    .await;
    // A window around the delay, aligned at the starts: before A's end of
    // iteration 1 the runs are alike; then every other rank waits DELAY
    // more in its barrier in B.
    js(
        &c,
        &format!(
            "window.compare.setWindow('a', 2.5, {}); return true",
            it1_end + 1.5
        ),
    )
    .await;
    for r in 0..RANKS - 1 {
        let marks = lane_marks(&c, &format!("rank-{r}"), "MPI_Barrier").await;
        let l = js(&c, "return window.compare.lane()").await;
        let col =
            (l["t1"].as_f64().unwrap() - l["t0"].as_f64().unwrap()) / l["width"].as_f64().unwrap();
        let first = marks.first().unwrap_or_else(|| panic!("rank-{r}: no mark"));
        assert_eq!(first.2, 1, "rank-{r}: {marks:?}");
        assert!((first.0 - it1_end).abs() < 3.0 * col, "rank-{r}: {marks:?}");
        assert!(
            (first.1 - (it1_end + DELAY)).abs() < 3.0 * col,
            "rank-{r}: {marks:?}"
        );
    }
    // One strip per rank.
    let groups = js(&c, "return window.compare.groups()").await;
    assert_eq!(groups.as_array().unwrap().len(), RANKS);
    // Hovering the lane there says which value and how much.
    let (lx, ly) = lane_point(&c, it1_end + DELAY / 2.0, 0).await;
    move_to(&c, lx, ly).await;
    until(
        &c,
        "const t = document.getElementById('lane-tip'); return !t.hidden && /rank-0:\\nMPI_Barrier \\+/.test(t.textContent)",
        "the lane's tooltip",
    )
    .await;
    no_script_error(&c).await;
    c.close().await.unwrap();
    server.stop();
}

/// Client coordinates of time `t` (of A) in the lane's strip of group `g`.
async fn lane_point(c: &fantoccini::Client, t: f64, g: usize) -> (f64, f64) {
    let p = js(
        c,
        &format!(
            "const l = window.compare.lane(); const r = window.compare.laneRect(); \
             const left = r.width - l.width; const h = r.height / window.compare.groups().length; \
             return [r.left + left + ({t} - l.t0) / (l.t1 - l.t0) * l.width, r.top + ({g} + 0.5) * h]"
        ),
    )
    .await;
    (p[0].as_f64().unwrap(), p[1].as_f64().unwrap())
}
