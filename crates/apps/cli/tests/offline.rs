//! The offline report: `trama report` embeds the page of `trama view` and a
//! summary of the trace at levels of detail, within a budget, so that the
//! file explores with no server. Its data is checked here, and its page in
//! a real browser opened from the file (`file://`).

mod common;
use trama_testkit::webdriver;

use std::io::Read;
use std::path::{Path, PathBuf};

use fantoccini::{Client, Locator};
use serde_json::{json, Value};
use trama_gen::{generate, GenOptions};
use trama_viewer::offline::BUDGET;
use webdriver::{
    a_state_of, at, browser, click, click_id, driver, inked, js, lane_marks, move_to, open_compare,
    open_ready, press, set, until, wheel, window,
};

use common::trama;

/// The text of the element `id` of `html` (a `<script>`).
fn script<'a>(html: &'a str, id: &str) -> &'a str {
    let open = format!("id=\"{id}\">");
    let start = html.find(&open).unwrap_or_else(|| panic!("no #{id}")) + open.len();
    let len = html[start..].find("</script>").unwrap();
    &html[start..start + len]
}

fn unbase64(text: &str) -> Vec<u8> {
    let digit = |c: u8| match c {
        b'A'..=b'Z' => c - b'A',
        b'a'..=b'z' => c - b'a' + 26,
        b'0'..=b'9' => c - b'0' + 52,
        b'+' => 62,
        b'/' => 63,
        _ => panic!("not base64: {c}"),
    };
    let mut out = Vec::new();
    for quad in text.as_bytes().chunks(4) {
        let pad = quad.iter().filter(|c| **c == b'=').count();
        let n = quad
            .iter()
            .map(|c| if *c == b'=' { 0 } else { digit(*c) as u32 })
            .fold(0u32, |n, d| n << 6 | d);
        out.extend_from_slice(&n.to_be_bytes()[1..4 - pad]);
    }
    out
}

/// What a report embeds: its JSON, the bytes the data takes in the page,
/// and per level the tiles (decompressed).
struct Embedded {
    info: Value,
    bytes: usize,
    levels: Vec<Vec<Vec<u8>>>,
}

fn embedded(html: &str) -> Embedded {
    let (info, tiles) = (script(html, "trama-offline"), script(html, "trama-tiles"));
    let block = unbase64(tiles);
    let u32at = |o: usize| u32::from_le_bytes(block[o..o + 4].try_into().unwrap());
    assert_eq!(&block[..4], b"TRTS");
    assert_eq!(u32at(4), 1);
    let (columns, nlevels) = (u32at(24), u32at(28) as usize);
    let mut o = 32;
    let mut lengths = Vec::new();
    for k in 0..nlevels {
        lengths.push(
            (0..1usize << k)
                .map(|i| u32at(o + 4 * i) as usize)
                .collect::<Vec<_>>(),
        );
        o += 4 << k;
    }
    let mut levels = Vec::new();
    for l in lengths {
        let mut tiles = Vec::new();
        for n in l {
            let mut tile = Vec::new();
            flate2::read::GzDecoder::new(&block[o..o + n])
                .read_to_end(&mut tile)
                .unwrap();
            assert_eq!(&tile[..4], b"TRTC");
            tiles.push(tile);
            o += n;
        }
        levels.push(tiles);
    }
    assert_eq!(o, block.len(), "the block is its tiles");
    let info: Value = serde_json::from_str(info).unwrap();
    assert_eq!(info["levels"], json!(nlevels));
    assert_eq!(info["columns"], json!(columns));
    Embedded {
        info,
        bytes: tiles.len() + script(html, "trama-offline").len(),
        levels,
    }
}

/// A generated trace of many states, written in `dir`.
fn busy_trace(dir: &Path) -> PathBuf {
    let mut o = GenOptions::plain();
    o.events = 120_000;
    o.max_containers = 12;
    common::write_in(dir, "busy.paje", generate(5, &o))
}

fn report(trace: &Path, html: &Path) -> String {
    report_of(&[trace], html)
}

/// `trama report` of `traces` (one run, or two compared) written to
/// `html`: its text.
fn report_of(traces: &[&Path], html: &Path) -> String {
    let mut args = vec!["report"];
    args.extend(traces.iter().map(|t| t.to_str().unwrap()));
    args.extend(["-o", html.to_str().unwrap()]);
    let out = trama(&args);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    std::fs::read_to_string(html).unwrap()
}

#[test]
fn the_summary_has_levels_of_detail_within_the_budget() {
    assert_eq!(BUDGET, 10_000_000, "the budget the documentation gives");
    let dir = tempfile::tempdir().unwrap();
    let html = report(&busy_trace(dir.path()), &dir.path().join("r.html"));
    let e = embedded(&html);
    assert!(e.bytes <= BUDGET, "{} bytes embedded", e.bytes);
    assert!(e.levels.len() >= 2, "{} levels", e.levels.len());
    for (k, tiles) in e.levels.iter().enumerate() {
        assert_eq!(tiles.len(), 1 << k);
    }
    // The page's data: the trace's rows, and the statistics of the run.
    assert!(e.info["meta"]["rows"].as_array().unwrap().len() > 3);
    assert!(e.info["stats"]["states"]["rows"].as_array().unwrap().len() > 3);
    // The static sections stay.
    for h in ["Space-time view", "Time per state", "Timeline"] {
        assert!(html.contains(h), "{h}");
    }

    // A small trace: a finer level would add nothing, so there is none.
    let small = report(
        &Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../examples/ring.paje"),
        &dir.path().join("ring.html"),
    );
    let e = embedded(&small);
    assert_eq!(e.levels.len(), 1);
    // (With the player's frames of the whole run.)
    assert!(e.bytes < 250_000, "{} bytes", e.bytes);
}

fn example() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../examples/ring.paje")
}

fn url(path: &Path) -> String {
    format!("file://{}", path.canonicalize().unwrap().display())
}

/// Opens the report at `path` and waits for its first frame.
async fn open(c: &Client, path: &Path) {
    open_ready(c, &url(path), "the first frame").await;
    js(
        c,
        "document.getElementById('app').scrollIntoView(); return true",
    )
    .await;
    assert_eq!(js(c, "return window.trama.offline").await, json!(true));
}

/// Nothing fetched, no policy violated, no script error.
async fn quiet(c: &Client) {
    let page = js(
        c,
        "return [performance.getEntriesByType('resource').map((e) => e.name),
                 document.body.dataset.csp || null, document.body.dataset.jserror || null]",
    )
    .await;
    assert_eq!(page, json!([[], null, null]), "requests, CSP, errors");
}

/// Hovers rank-1 at `t`, or a little further right when an arrow passes
/// there, until the tooltip names the state `value`: where.
async fn hover_state(c: &Client, t: f64, value: &str) -> (f64, f64) {
    let (x, y) = at(c, t, "rank-1").await;
    for dx in [0.0, 12.0, 24.0, -12.0, 36.0, -24.0] {
        move_to(c, x + dx, y).await;
        // The tooltip of this point: placed beside it.
        until(
            c,
            &format!(
                "const t = document.getElementById('tooltip');
                 return !t.hidden && Math.abs(parseFloat(t.style.left) - 14 - {}) < 1.5",
                x + dx
            ),
            "a tooltip",
        )
        .await;
        let tip = js(c, "return document.getElementById('tooltip').textContent").await;
        let tip = tip.as_str().unwrap();
        if tip.contains(value) && tip.contains("state") {
            return (x + dx, y);
        }
        assert!(
            tip.contains("link"),
            "hovering rank-1 in {value} shows {tip}"
        );
    }
    panic!("rank-1 in {value} is under arrows everywhere");
}

const DRAWN: &str = "const s = (document.body.dataset.window || '').split(',').map(Number);
     const w = window.trama.window(); return s[0] === w[0] && s[1] === w[1]";

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_offline_report_zooms_hovers_and_fetches_nothing() {
    let Some(d) = driver() else { return };
    let dir = tempfile::tempdir().unwrap();
    let html = dir.path().join("ring.html");
    report(&example(), &html);
    let trace = trama_open::load(
        &trama_open::Source::Path(example()),
        &trama_open::LoadOptions::default(),
    )
    .unwrap();
    let (value, t) = a_state_of(&trace, "rank-1");
    let c = browser(&d).await;
    open(&c, &html).await;
    quiet(&c).await;
    let ink = inked(&c).await;
    assert!(ink > 0.05, "{:.1} % inked", 100.0 * ink);

    // Hover: the summary names the state there, and says it is a summary.
    let (x, y) = hover_state(&c, t, &value).await;
    let text = js(&c, "return document.getElementById('tooltip').textContent").await;
    assert!(text.as_str().unwrap().contains("summary"), "{text}");

    // Wheel: the window shrinks around the pointer and is drawn again.
    let (a0, a1) = window(&c).await;
    wheel(&c, x, y, -120).await;
    let (b0, b1) = window(&c).await;
    assert!(b1 - b0 < a1 - a0, "zoomed: [{a0}, {a1}] → [{b0}, {b1}]");
    until(&c, DRAWN, "the zoomed window").await;
    assert!(inked(&c).await > 0.05);
    let (x, y) = hover_state(&c, t, &value).await;

    // Click pins it.
    click(&c, x, y).await;
    let details = webdriver::details(&c, "the details panel").await;
    assert!(details.as_str().unwrap().contains(&value), "{details}");

    // Search: a container, then a value's next state, from the summary.
    let input = c.find(Locator::Id("search")).await.unwrap();
    input.send_keys("rank-3\n").await.unwrap();
    until(
        &c,
        "return document.getElementById('found').textContent.includes('rank-3')",
        "a container found",
    )
    .await;
    input.clear().await.unwrap();
    input.send_keys(&format!("{value}\n")).await.unwrap();
    until(
        &c,
        "return document.getElementById('found').textContent.includes(' at ')",
        "a state found",
    )
    .await;

    // Statistics: those of the whole run, said to be.
    click_id(&c, "stats-button").await;
    until(
        &c,
        "return document.body.dataset.stats === 'whole'",
        "the statistics",
    )
    .await;
    let panel = js(&c, "return document.getElementById('stats').textContent").await;
    assert!(panel.as_str().unwrap().contains("whole run"), "{panel}");
    assert!(panel.as_str().unwrap().contains("rank-1"), "{panel}");

    quiet(&c).await;
    c.close().await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn zooming_in_reads_finer_levels_and_memory_stays_flat() {
    let Some(d) = driver() else { return };
    let dir = tempfile::tempdir().unwrap();
    let html = dir.path().join("busy.html");
    report(&busy_trace(dir.path()), &html);
    let c = browser(&d).await;
    open(&c, &html).await;
    let levels = js(&c, "return window.trama.levels()")
        .await
        .as_u64()
        .unwrap();
    assert!(levels >= 2);
    assert_eq!(js(&c, "return window.trama.level()").await, json!(0));
    // The pointer where the whole run's timeline has the most drawn (its
    // rows on screen depend on the page's height).
    let r = js(
        &c,
        "const cv = document.getElementById('timeline'), r = cv.getBoundingClientRect();
         const d = cv.getContext('2d').getImageData(0, 30, cv.width, cv.height - 30).data;
         const ink = new Array(cv.width).fill(0);
         for (let i = 0; i < d.length; i += 4) if (d[i] < 240 || d[i+1] < 240 || d[i+2] < 240) ink[(i / 4) % cv.width]++;
         const x = ink.indexOf(Math.max(...ink));
         return [r.left + (x + 0.5) * r.width / cv.width, r.top + 60]",
    )
    .await;
    let (x, y) = (r[0].as_f64().unwrap(), r[1].as_f64().unwrap());
    let mut deepest = 0;
    for _ in 0..30 {
        wheel(&c, x, y, -120).await;
        until(&c, DRAWN, "a zoomed window").await;
        deepest = deepest.max(
            js(&c, "return window.trama.level()")
                .await
                .as_u64()
                .unwrap(),
        );
    }
    assert_eq!(deepest, levels - 1, "the finest level is reached");
    assert!(inked(&c).await > 0.01, "drawn when zoomed in");
    // Back out: the coarsest level again, a few replies and tiles held.
    js(&c, "document.getElementById('fit').click(); return true").await;
    until(&c, DRAWN, "the whole run").await;
    assert_eq!(js(&c, "return window.trama.level()").await, json!(0));
    let held = js(
        &c,
        "return [window.trama.held(), window.trama.tiles(), window.trama.tileBytes()]",
    )
    .await;
    assert!(held[0].as_u64().unwrap() <= 4, "{held}");
    assert!(held[1].as_u64().unwrap() <= 48, "{held}");
    assert!(held[2].as_f64().unwrap() <= 48e6, "{held}");
    quiet(&c).await;
    c.close().await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_offline_report_plays_the_frames_it_holds() {
    let Some(d) = driver() else { return };
    let dir = tempfile::tempdir().unwrap();
    let html = dir.path().join("ring.html");
    report(&example(), &html);
    let mut lo = trama_open::LoadOptions::default();
    lo.keep_extras = true;
    let trace = trama_open::load(&trama_open::Source::Path(example()), &lo).unwrap();
    let size = trama_analysis::guess_size_field(&trace);
    let stage = trama_analysis::Stage::new(&trace, None, size.as_deref());
    let flights = trama_analysis::Flights::new(&trace, &stage, &trama_analysis::Messages::all());
    let m = &trace.model;
    let c = browser(&d).await;
    open(&c, &html).await;
    press(&c, "player-button").await;
    until(
        &c,
        "return window.trama.frame() != null",
        "the player's first frame",
    )
    .await;
    let mut compared = 0;
    let (t0, t1) = (trace.start_time(), trace.end_time());
    for k in 0..10 {
        let t = t0 + (t1 - t0) * (k as f64 + 0.37) / 10.0;
        js(&c, &format!("window.trama.player().seek({t}); return true")).await;
        until(
            &c,
            &format!("const f = window.trama.frame(); return f.t <= {t} + 1e-9 && {t} < f.t + f.dt + 1e-9"),
            "the frame holding the instant",
        )
        .await;
        let f = js(&c, "return window.trama.frame()").await;
        let (ft, fdt) = (f["t"].as_f64().unwrap(), f["dt"].as_f64().unwrap());
        let want = trama_analysis::frame(&trace, &stage, &flights, ft, fdt, None);
        for p in f["processes"].as_array().unwrap() {
            let name = p["name"].as_str().unwrap();
            let i = stage.processes.iter().position(|x| x.name == name).unwrap();
            let value = want.states[i]
                .value
                .map(|v| m.label(m.values[v as usize].name));
            assert_eq!(
                p["value"].as_str().map(String::from),
                value,
                "{name} at {ft}"
            );
            compared += 1;
        }
        let cells = f["cells"].as_array().unwrap().len();
        assert_eq!(cells, want.cells.len(), "cells at {ft}");
    }
    assert!(compared >= 40, "{compared}");
    // The node/arc view has its frames too.
    set(&c, "p-view", "nodes").await;
    until(
        &c,
        "const f = window.trama.frame(); return f.nodes != null && f.nodes.nodes.length === 4",
        "the node view",
    )
    .await;
    c.close().await.unwrap();
}

/// `trama report A B -o diff.html` (two generated runs, B with a delay
/// injected into its last rank at iteration 1): the page opens from the
/// file, shows both timelines, coupled, and the difference lane marks the
/// other ranks' longer barrier where A's iteration 1 ends.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_report_of_two_runs_opens_from_the_file_with_its_lane() {
    let Some(d) = driver() else { return };
    let dir = tempfile::tempdir().unwrap();
    let (a, b, html) = (
        dir.path().join("a.paje"),
        dir.path().join("b.paje"),
        dir.path().join("diff.html"),
    );
    let delay = 0.5;
    std::fs::write(&a, trama_testkit::runs::bsp_run(4, 3, 0.0)).unwrap();
    std::fs::write(&b, trama_testkit::runs::bsp_run(4, 3, delay)).unwrap();
    report_of(&[&a, &b], &html);
    let c = browser(&d).await;
    open_compare(&c, &url(&html)).await;
    // Each frame is the offline timeline, drawn.
    for run in ["a", "b"] {
        let t = format!("window.compare.frame('{run}').trama");
        until(
            &c,
            &format!("return {t}.ready() && {t}.offline === true"),
            "a run's timeline",
        )
        .await;
    }
    let names = js(&c, "return [window.compare.frame('a').trama.meta().name, window.compare.frame('b').trama.meta().name]").await;
    assert!(
        names[0].as_str().unwrap().ends_with("a.paje")
            && names[1].as_str().unwrap().ends_with("b.paje"),
        "{names}"
    );
    let it1_end = 2.0 * (1.0 + 0.1 * 3.0 + 0.01);
    js(
        &c,
        &format!(
            "window.compare.setWindow('b', 2.0, {}); return true",
            it1_end + 1.0
        ),
    )
    .await;
    let w = js(&c, "return window.compare.windows()").await;
    assert_eq!(w[0], w[1], "starts aligned: one window");
    let marks = lane_marks(&c, "rank-0", "MPI_Barrier").await;
    let first = marks.first().expect("a mark");
    assert_eq!(first.2, 1, "{marks:?}");
    assert!(
        (first.0 - it1_end).abs() < 0.02 && (first.1 - it1_end - delay).abs() < 0.02,
        "{marks:?}"
    );
    let panel = js(&c, "return document.getElementById('diff').textContent").await;
    assert!(panel.as_str().unwrap().contains("MPI_Barrier"), "{panel}");
    let csp = js(
        &c,
        "return [document.body.dataset.csp || null, document.body.dataset.jserror || null]",
    )
    .await;
    assert_eq!(csp, json!([null, null]));
    c.close().await.unwrap();
}
