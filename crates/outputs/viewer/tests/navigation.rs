//! Navigation in the page, in a real browser (headless Chromium over
//! WebDriver) on the ring example: the overview strip's box follows the
//! window and moves it (served and offline from `file://`), a click on a
//! message arrow jumps to its other end, a click on the time axis sets the
//! origin the times count from, the rows' filter, order and pins, and the
//! help overlay.
//!
//! Without chromedriver the tests are skipped with a note, unless
//! `TRAMA_REQUIRE_BROWSER=1`.

mod common;

use std::path::{Path, PathBuf};

use common::{load, longest_link, serve};
use fantoccini::{Client, Locator};
use serde_json::{json, Value};
use trama_testkit::webdriver;
use webdriver::{browser, click, drag, driver, js, open_ready, until, window};

fn example() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../examples/ring.paje")
}

/// The overview's box, in client pixels: left and right edges, and the
/// strip's middle height.
async fn the_box(c: &Client) -> (f64, f64, f64) {
    let b = js(
        c,
        "const cv = document.getElementById('overview-canvas'); const r = cv.getBoundingClientRect();
         const [a, b] = cv.dataset.box.split(',').map(Number);
         return [r.left + a, r.left + b, r.top + r.height / 2]",
    )
    .await;
    let f = |k: usize| b[k].as_f64().unwrap();
    (f(0), f(1), f(2))
}

/// The window drawn (the page's reply for it on screen).
const DRAWN: &str = "const s = (document.body.dataset.window || '').split(',').map(Number);
     const w = window.trama.window(); return s[0] === w[0] && s[1] === w[1]";

/// The box follows zooms, a drag of it moves the window by as much of the
/// run, a click beside it centres the window there.
async fn overview_box_moves(c: &Client, run: (f64, f64)) {
    until(
        c,
        "return document.getElementById('overview-canvas').dataset.loaded === '1'",
        "the overview",
    )
    .await;
    // The strip is painted: many of its pixels are not white.
    let inked = js(
        c,
        "const cv = document.getElementById('overview-canvas');
         const d = cv.getContext('2d').getImageData(0, 0, cv.width, cv.height).data;
         let n = 0; for (let i = 0; i < d.length; i += 4) if (d[i] < 200 || d[i+1] < 200 || d[i+2] < 200) n++;
         return n / (d.length / 4)",
    )
    .await;
    assert!(inked.as_f64().unwrap() > 0.2, "overview inked {inked}");
    let (a0, a1, y) = the_box(c).await;
    let body = c.find(Locator::Css("body")).await.unwrap();
    for _ in 0..6 {
        body.send_keys("w").await.unwrap();
    }
    until(c, DRAWN, "the zoomed window").await;
    let (b0, b1, _) = the_box(c).await;
    assert!(
        b1 - b0 < 0.5 * (a1 - a0),
        "the box shrinks with the window: [{a0}, {a1}] → [{b0}, {b1}]"
    );
    // A drag of the box by 120 pixels: the window moves by as much of the
    // run, its length kept, and the box with it.
    let strip = js(
        c,
        "return document.getElementById('overview-canvas').getBoundingClientRect().width",
    )
    .await
    .as_f64()
    .unwrap();
    let (w0, w1) = window(c).await;
    let mid = (b0 + b1) / 2.0;
    drag(c, (mid, y), (mid + 120.0, y)).await;
    let (v0, v1) = window(c).await;
    let moved = (v0 - w0) / (run.1 - run.0) * strip;
    assert!(
        (moved - 120.0).abs() < 3.0,
        "the window moved {moved} px of the strip"
    );
    assert!(((v1 - v0) - (w1 - w0)).abs() < 1e-9 * (w1 - w0).max(1.0));
    let (c0, _, _) = the_box(c).await;
    assert!((c0 - b0 - 120.0).abs() < 3.0, "the box moved: {b0} → {c0}");
    // A click near the strip's start centres the window there.
    let left = js(
        c,
        "return document.getElementById('overview-canvas').getBoundingClientRect().left",
    )
    .await
    .as_f64()
    .unwrap();
    click(c, left + 10.0, y).await;
    let (u0, u1) = window(c).await;
    let t = run.0 + 10.0 / strip * (run.1 - run.0);
    assert!(
        ((u0 + u1) / 2.0 - t).abs() < 2.0 * (run.1 - run.0) / strip,
        "centred at {t}: [{u0}, {u1}]"
    );
}

/// regression: the overview strip shows the whole run, with the window as
/// a box that follows zooms and moves the window when dragged or clicked;
/// the offline report (from file://) has the same strip.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_overview_box_follows_and_moves_the_window() {
    let Some(d) = driver() else { return };
    let trace = load(&example());
    let run = (trace.start_time(), trace.end_time());
    let server = serve(load(&example()), "ring.paje");
    let c = browser(&d).await;
    open_ready(&c, &server.url, "the first frame").await;
    overview_box_moves(&c, run).await;
    webdriver::no_script_error(&c).await;
    server.stop();

    let dir = tempfile::tempdir().unwrap();
    let url = common::offline_page(&trace, "ring.paje", dir.path());
    open_ready(&c, &url, "the offline page").await;
    assert_eq!(js(&c, "return window.trama.offline").await, json!(true));
    overview_box_moves(&c, run).await;
    webdriver::no_script_error(&c).await;
    assert_eq!(
        js(&c, "return document.body.dataset.csp || null").await,
        Value::Null
    );
    c.close().await.unwrap();
}

/// regression: a click on a message arrow near one end picks it, and the
/// view jumps so that the window holds its other end.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_click_on_an_arrow_jumps_to_its_other_end() {
    let Some(d) = driver() else { return };
    let trace = load(&example());
    let (from, to, start, end) = longest_link(&trace);
    let len = end - start;
    let server = serve(load(&example()), "ring.paje");
    let c = browser(&d).await;
    // A window holding the link's start, not its end.
    let (t0, t1) = (start - 0.2 * len, start + 0.5 * len);
    let url = format!("{}#t0={t0}&t1={t1}", server.url);
    open_ready(&c, &url, "the first frame").await;
    until(&c, DRAWN, "the window").await;
    let (w0, w1) = window(&c).await;
    assert!(w0 <= start && end > w1, "the end is off screen first");
    let point = |script: String| {
        let c = c.clone();
        async move { js(&c, &script).await.as_f64().unwrap() }
    };
    let xs = point(format!("return window.trama.x({start})")).await;
    let xe = point(format!("return window.trama.x({end})")).await;
    let ys = point(format!("return window.trama.y({})", json!(from))).await;
    let ye = point(format!("return window.trama.y({})", json!(to))).await;
    // A point on the arrow, a fifth of the way from its start.
    let u = 0.2;
    click(&c, xs + u * (xe - xs), ys + u * (ye - ys)).await;
    until(
        &c,
        "return window.trama.picked() !== null",
        "the picked arrow",
    )
    .await;
    let picked = js(&c, "return window.trama.picked()").await;
    assert!(
        (picked["start"].as_f64().unwrap() - start).abs() < 1e-9,
        "{picked}"
    );
    assert!(
        (picked["end"].as_f64().unwrap() - end).abs() < 1e-9,
        "{picked}"
    );
    let (v0, v1) = window(&c).await;
    assert!(v0 <= end && end <= v1, "the end {end} in [{v0}, {v1}]");
    assert!(((v1 - v0) - (w1 - w0)).abs() < 1e-9 * (w1 - w0).max(1.0));
    // Its other end is on screen, its row shown.
    assert!(js(&c, &format!("return window.trama.y({})", json!(to)))
        .await
        .is_number());
    webdriver::no_script_error(&c).await;
    c.close().await.unwrap();
    server.stop();
}

/// regression: a click on the time axis sets the origin: the URL keeps
/// it, pinned details count from it, its button clears it.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_click_on_the_axis_sets_the_time_origin() {
    let Some(d) = driver() else { return };
    let trace = load(&example());
    let (_, t) = webdriver::a_state_of(&trace, "rank-1");
    let server = serve(load(&example()), "ring.paje");
    let c = browser(&d).await;
    open_ready(&c, &server.url, "the first frame").await;
    let (x, y) = webdriver::at(&c, t, "rank-1").await;
    let top = js(
        &c,
        "return document.getElementById('timeline').getBoundingClientRect().top",
    )
    .await
    .as_f64()
    .unwrap();
    click(&c, x, top + 10.0).await;
    until(&c, "return window.trama.origin() !== null", "the origin").await;
    let origin = js(&c, "return window.trama.origin()")
        .await
        .as_f64()
        .unwrap();
    let (w0, w1) = window(&c).await;
    assert!(
        (origin - t).abs() < 2.0 * (w1 - w0) / 1000.0,
        "{origin} ≠ {t}"
    );
    let hash = js(&c, "return location.hash").await;
    let kept: f64 = hash
        .as_str()
        .unwrap()
        .split("origin=")
        .nth(1)
        .and_then(|v| v.split('&').next())
        .and_then(|v| v.parse().ok())
        .unwrap_or_else(|| panic!("no origin in {hash}"));
    assert!((kept - origin).abs() < 1e-12, "{hash}");
    assert_eq!(
        js(&c, "return document.getElementById('origin').hidden").await,
        json!(false)
    );
    // A state pinned just after the origin: its times count from it.
    click(&c, x + 30.0, y).await;
    let details = webdriver::details(&c, "the details panel").await;
    let text = details.as_str().unwrap();
    assert!(text.contains("times from the origin"), "{text}");
    assert!(text.contains('+') || text.contains('−'), "{text}");
    // Cleared: the hash and the header forget it.
    webdriver::click_id(&c, "origin-clear").await;
    assert_eq!(js(&c, "return window.trama.origin()").await, Value::Null);
    let hash = js(&c, "return location.hash").await;
    assert!(!hash.as_str().unwrap().contains("origin="), "{hash}");

    webdriver::no_script_error(&c).await;
    c.close().await.unwrap();
    server.stop();
}

/// regression: `?` opens the help overlay listing the keys; `?` again or
/// Esc closes it.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_help_overlay_opens_with_a_question_mark() {
    let Some(d) = driver() else { return };
    let server = serve(load(&example()), "ring.paje");
    let c = browser(&d).await;
    open_ready(&c, &server.url, "the first frame").await;
    let shown = "return !document.getElementById('help').hidden";
    assert_eq!(js(&c, shown).await, json!(false));
    let body = c.find(Locator::Css("body")).await.unwrap();
    body.send_keys("?").await.unwrap();
    assert_eq!(js(&c, shown).await, json!(true));
    let text = js(&c, "return document.getElementById('help').textContent").await;
    for what in ["Keys and gestures", "zoom in", "click the time axis", "?"] {
        assert!(text.as_str().unwrap().contains(what), "{what}: {text}");
    }
    body.send_keys("\u{E00C}").await.unwrap();
    assert_eq!(js(&c, shown).await, json!(false));
    webdriver::click_id(&c, "help-button").await;
    assert_eq!(js(&c, shown).await, json!(true));
    webdriver::no_script_error(&c).await;
    c.close().await.unwrap();
    server.stop();
}

/// regression: the rows' filter keeps the rows whose names match, the
/// order by name puts node-1 before rank-0, a shift-click on a label pins
/// its row to the top.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn rows_filtered_sorted_by_name_and_pinned() {
    let Some(d) = driver() else { return };
    let server = serve(load(&example()), "ring.paje");
    let c = browser(&d).await;
    open_ready(&c, &server.url, "the first frame").await;
    let y = |label: &'static str| {
        let c = c.clone();
        async move {
            js(&c, &format!("return window.trama.y('{label}')"))
                .await
                .as_f64()
        }
    };
    // As listed: the container tree.
    assert!(y("rank-0").await.unwrap() < y("node-1").await.unwrap());
    webdriver::set(&c, "row-sort", "name").await;
    assert!(y("node-1").await.unwrap() < y("rank-0").await.unwrap());
    assert!(y("rank-2").await.unwrap() < y("rank-3").await.unwrap());
    // rank-3 pinned: first, above node-0.
    let ly = js(&c, "return window.trama.labelY('rank-3')")
        .await
        .as_f64()
        .unwrap();
    js(
        &c,
        &format!(
            "const l = document.getElementById('labels'); const r = l.getBoundingClientRect();
             l.dispatchEvent(new MouseEvent('click', {{bubbles: true, shiftKey: true, clientX: r.left + 20, clientY: {ly}}}));
             return true"
        ),
    )
    .await;
    assert!(y("rank-3").await.unwrap() < y("node-0").await.unwrap());
    // The filter keeps rank-1 and the pinned rank-3.
    js(
        &c,
        "const f = document.getElementById('row-filter'); f.value = 'rank-1'; \
         f.dispatchEvent(new Event('input')); return true",
    )
    .await;
    assert!(y("rank-1").await.is_some() && y("rank-3").await.is_some());
    assert_eq!(y("rank-0").await, None);
    assert_eq!(y("node-0").await, None);
    webdriver::no_script_error(&c).await;
    c.close().await.unwrap();
    server.stop();
}

/// regression: only the window and the time origin were kept in the URL;
/// a reloaded or shared link lost the picked message, the rows' filter,
/// order and pins, and the selection. Loaded with all of them, the page
/// applies each, and its URL keeps them.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_shared_url_restores_link_rows_and_selection() {
    let Some(d) = driver() else { return };
    let trace = load(&example());
    let (from, to, start, end) = longest_link(&trace);
    let server = serve(load(&example()), "ring.paje");
    let c = browser(&d).await;
    open_ready(&c, &server.url, "the first frame").await;
    // The link's rows and value, rank-3's container, from the page's meta.
    let ids = js(
        &c,
        &format!(
            "const m = window.trama.meta(); const row = (l) => m.rows.findIndex((r) => r.label === l && r.variable == null);
             const v = m.values.find((v) => m.types[v.type].kind === 'link');
             return [row({}), row({}), v.id, m.rows[row('rank-3')].container, m.rows[row('rank-0')].container]",
            json!(from),
            json!(to)
        ),
    )
    .await;
    let id = |k: usize| ids[k].as_u64().unwrap();
    let (t0, t1) = (start - (end - start), end + (end - start));
    let (s0, s1) = (start, end);
    let hash = format!(
        "#t0={t0}&t1={t1}&link={},{},{start},{end},{}&filter=rank&pins={}&sort=name&select={s0},{s1},0,1",
        id(0),
        id(1),
        id(2),
        id(3)
    );
    c.goto("about:blank").await.unwrap();
    open_ready(&c, &format!("{}{hash}", server.url), "the shared view").await;
    until(&c, DRAWN, "the window").await;
    // The message picked, its details shown.
    let picked = js(&c, "return window.trama.picked()").await;
    assert_eq!(
        (picked["from"].as_u64(), picked["to"].as_u64()),
        (Some(id(0)), Some(id(1))),
        "{picked}"
    );
    assert_eq!(picked["start"].as_f64(), Some(start), "{picked}");
    let details = webdriver::details(&c, "the link's details").await;
    assert!(details.as_str().unwrap().contains('→'), "{details}");
    // The rows: filtered on "rank", rank-3 pinned first, the rest by name.
    assert_eq!(
        js(&c, "return window.trama.shownLabels()").await,
        json!(["rank-3", "rank-0", "rank-1", "rank-2"])
    );
    assert_eq!(
        js(&c, "return [document.getElementById('row-filter').value, document.getElementById('row-sort').value]").await,
        json!(["rank", "name"])
    );
    // The selection: its times, the first two rows shown.
    until(
        &c,
        "const s = window.trama.selection(); return s != null && s.ready",
        "the selection",
    )
    .await;
    let sel = js(&c, "return window.trama.selection()").await;
    assert_eq!(
        (sel["t0"].as_f64(), sel["t1"].as_f64()),
        (Some(s0), Some(s1))
    );
    let mut got: Vec<u64> = sel["containers"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_u64().unwrap())
        .collect();
    got.sort();
    let mut want = vec![id(3), id(4)];
    want.sort();
    assert_eq!(got, want, "{sel}");
    // The URL still says all of it.
    let kept = js(&c, "return location.hash").await;
    let kept = kept.as_str().unwrap();
    for part in [
        format!("link={},{}", id(0), id(1)),
        "filter=rank".into(),
        format!("pins={}", id(3)),
        "sort=name".into(),
        format!("select={s0},{s1},0,1"),
    ] {
        assert!(kept.contains(&part), "{part} in {kept}");
    }
    webdriver::no_script_error(&c).await;
    c.close().await.unwrap();
    server.stop();
}
