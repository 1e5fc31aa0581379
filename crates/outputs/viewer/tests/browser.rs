//! The page in a real browser: Debian's Chromium, headless, driven over
//! WebDriver (chromedriver on loopback). Zoom, hover, pin, pan, collapse
//! and a screenshot, checked against what the trace holds.
//!
//! Without chromedriver the tests are skipped with a note, unless
//! `TRAMA_REQUIRE_BROWSER=1` (set by `.ci/run`), which makes them fail.

mod common;

use trama_testkit::webdriver;

use std::path::Path;

use common::{load, longest_link};

use fantoccini::Locator;
use serde_json::{json, Value};
use trama_sim::Trace;
use trama_viewer::{start, Running, ViewerOptions};
use webdriver::{
    a_state_of, browser, click, click_id, driver, inked, js, move_to, open_ready, until, wheel,
    window,
};

fn example() -> std::path::PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../examples/ring.paje")
}

/// Served under the example's name.
fn serve(trace: Trace) -> Running {
    common::serve(trace, "ring.paje")
}

/// The longest link of the trace: its ends' names and its middle time.
fn a_link(trace: &Trace) -> (String, String, f64) {
    let (a, b, t0, t1) = longest_link(trace);
    (a, b, (t0 + t1) / 2.0)
}

/// Hover on an arrow: the tooltip names the link and its two ends.
async fn link_tooltip(c: &fantoccini::Client, trace: &Trace) {
    let (from, to, mid) = a_link(trace);
    let lx = js(c, &format!("return window.trama.x({mid})"))
        .await
        .as_f64()
        .unwrap();
    let ya = js(c, &format!("return window.trama.y('{from}')"))
        .await
        .as_f64()
        .unwrap();
    let yb = js(c, &format!("return window.trama.y('{to}')"))
        .await
        .as_f64()
        .unwrap();
    move_to(c, lx, (ya + yb) / 2.0).await;
    until(
        c,
        "const t = document.getElementById('tooltip'); return !t.hidden && t.textContent.includes('link')",
        "the link's tooltip",
    )
    .await;
    let tip = js(c, "return document.getElementById('tooltip').textContent").await;
    assert!(
        tip.as_str().unwrap().contains(&format!("{from} → {to}")),
        "{tip}"
    );
}

/// The pin is in the URL: reopening it shows the same details.
async fn reopened_pin_shows(c: &fantoccini::Client, details: &Value) {
    let pinned_url = js(c, "return location.href").await;
    let pinned_url = pinned_url.as_str().unwrap().to_string();
    assert!(pinned_url.contains("&pin="), "{pinned_url}");
    c.goto("about:blank").await.unwrap();
    open_ready(c, &pinned_url, "the reopened view").await;
    let again = webdriver::details(c, "the reopened pin").await;
    assert_eq!(&again, details, "the reopened pin");
}

/// Search: a container under the collapsed node is shown again; a
/// value's next state is framed, and Enter again goes further in time.
/// Then the window's statistics and the seed's order.
async fn search_statistics_and_order(c: &fantoccini::Client, value: &str) {
    let input = c.find(Locator::Id("search")).await.unwrap();
    input.send_keys("rank-0\n").await.unwrap();
    until(
        c,
        "return window.trama.y('rank-0') !== null",
        "rank-0 shown by the search",
    )
    .await;
    input.clear().await.unwrap();
    input.send_keys(&format!("{value}\n")).await.unwrap();
    until(
        c,
        "return document.getElementById('found').textContent.includes(' at ')",
        "a state found",
    )
    .await;
    let first = js(c, "return document.getElementById('found').textContent").await;
    assert!(first.as_str().unwrap().contains(value), "{first}");
    input.send_keys("\n").await.unwrap();
    until(
        c,
        &format!("return document.getElementById('found').textContent !== {first}"),
        "the next one",
    )
    .await;

    // Statistics of the window: shown, and recomputed when zooming.
    click_id(c, "stats-button").await;
    let (w0, w1) = window(c).await;
    let stats_of_window = "const s = (document.body.dataset.stats || '').split(',').map(Number);
         const w = window.trama.window(); return s[0] === w[0] && s[1] === w[1]";
    until(c, stats_of_window, "the window's statistics").await;
    let panel = js(c, "return document.getElementById('stats').textContent").await;
    assert!(
        panel.as_str().unwrap().contains("Time per state"),
        "{panel}"
    );
    assert!(panel.as_str().unwrap().contains("rank-"), "{panel}");
    click_id(c, "zoomin").await;
    let (z0, z1) = window(c).await;
    assert!(z1 - z0 < w1 - w0);
    until(c, stats_of_window, "the zoomed window's statistics").await;

    // The seed's order: hosts by traffic, each followed by its processes.
    assert_eq!(
        js(c, "return document.getElementById('order').hidden").await,
        json!(false)
    );
    js(
        c,
        "const o = document.getElementById('order'); o.value = 'hosts';
         o.dispatchEvent(new Event('change')); return true",
    )
    .await;
    let labels = js(
        c,
        "return ['node-0', 'node-1', 'rank-0', 'rank-3'].map((l) => window.trama.y(l) !== null)",
    )
    .await;
    assert_eq!(
        labels,
        json!([true, true, true, true]),
        "every host and process shown"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_page_zooms_hovers_pins_pans_and_collapses() {
    let Some(d) = driver() else { return };
    let trace = load(&example());
    let (value, t) = a_state_of(&trace, "rank-1");
    let server = serve(load(&example()));
    let c = browser(&d).await;
    open_ready(&c, &server.url, "the first frame").await;
    assert_eq!(
        js(&c, "return document.body.dataset.csp || null").await,
        Value::Null
    );

    // The canvas is drawn: many pixels are not white.
    let inked = inked(&c).await;
    assert!(inked > 0.05, "{:.1} % of the timeline inked", 100.0 * inked);

    link_tooltip(&c, &trace).await;

    // Hover: the tooltip names the state the trace has there.
    let x = js(&c, &format!("return window.trama.x({t})"))
        .await
        .as_f64()
        .unwrap();
    let y = js(&c, "return window.trama.y('rank-1')")
        .await
        .as_f64()
        .unwrap();
    move_to(&c, x, y).await;
    until(
        &c,
        &format!(
            "const t = document.getElementById('tooltip'); return !t.hidden && t.textContent.includes({})",
            json!(value)
        ),
        "the state's tooltip",
    )
    .await;
    let tip = js(&c, "return document.getElementById('tooltip').textContent").await;
    assert!(
        tip.as_str().unwrap().contains(&value),
        "tooltip {tip} at the state {value}"
    );

    // Click: the details panel pins it.
    click(&c, x, y).await;
    let details = webdriver::details(&c, "the details panel").await;
    assert!(details.as_str().unwrap().contains(&value), "{details}");
    assert!(details.as_str().unwrap().contains("rank-1"), "{details}");

    reopened_pin_shows(&c, &details).await;

    // Wheel: the window shrinks around the pointer, and rows are redrawn.
    let (a0, a1) = window(&c).await;
    wheel(&c, x, y, -120).await;
    let (b0, b1) = window(&c).await;
    assert!(b1 - b0 < a1 - a0, "zoomed: [{a0}, {a1}] → [{b0}, {b1}]");
    assert!(b0 <= t && t <= b1, "the pointer's time stays in the window");
    until(
        &c,
        "const s = (document.body.dataset.window || '').split(',').map(Number);
         const w = window.trama.window(); return s[0] === w[0] && s[1] === w[1]",
        "the zoomed window's rows",
    )
    .await;

    // Keys pan: the window moves right, its length kept; the reply held
    // (padded by a screen on each side) draws it without a new request.
    let asked = js(&c, "return window.trama.requests()").await;
    let body = c.find(Locator::Css("body")).await.unwrap();
    body.send_keys("d").await.unwrap();
    let (c0, c1) = window(&c).await;
    assert!(c0 > b0 && ((c1 - c0) - (b1 - b0)).abs() < 1e-9 * (b1 - b0).max(1.0));
    let drawn = "const s = (document.body.dataset.window || '').split(',').map(Number);
         const w = window.trama.window(); return s[0] === w[0] && s[1] === w[1]";
    until(&c, drawn, "the panned window").await;
    assert_eq!(
        js(&c, "return window.trama.requests()").await,
        asked,
        "a small pan asks for nothing"
    );
    // Zooming far out and back in again: a few replies held, no more.
    for key in ["ssssssssss", "wwwwwwwwww"] {
        for k in key.chars() {
            body.send_keys(&k.to_string()).await.unwrap();
            until(&c, drawn, "a zoomed window").await;
        }
    }
    let held = js(&c, "return window.trama.held()").await;
    assert!(held.as_u64().unwrap() <= 4, "{held} replies held");
    let (d0, d1) = window(&c).await;
    assert!(((d1 - d0) / (c1 - c0) - 1.0).abs() < 1e-9, "zoomed back");

    // Collapse: a click on node-0's label hides its processes.
    let rows = js(&c, "return document.body.dataset.rows").await;
    let ly = js(&c, "return window.trama.labelY('node-0')")
        .await
        .as_f64()
        .unwrap();
    let lx = js(
        &c,
        "return document.getElementById('labels').getBoundingClientRect().left + 20",
    )
    .await
    .as_f64()
    .unwrap();
    click(&c, lx, ly).await;
    let after = js(&c, "return document.body.dataset.rows").await;
    let (n0, n1): (u32, u32) = (
        rows.as_str().unwrap().parse().unwrap(),
        after.as_str().unwrap().parse().unwrap(),
    );
    assert!(n1 < n0, "rows {n0} → {n1}");
    assert_eq!(js(&c, "return window.trama.y('rank-0')").await, Value::Null);

    search_statistics_and_order(&c, &value).await;

    // A screenshot that is not blank.
    let png = c.screenshot().await.unwrap();
    assert!(
        png.starts_with(b"\x89PNG") && png.len() > 10_000,
        "{} bytes",
        png.len()
    );

    c.close().await.unwrap();
    server.stop();
}

/// regression: a legend of many values starts folded to one line, unfolds
/// with its button, and keeps the entries whose names hold what is typed
/// in its filter.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_long_legend_folds_and_filters() {
    let Some(d) = driver() else { return };
    let dir = tempfile::tempdir().unwrap();
    let mut text = trama_gen::event_defs(
        "PajeDefineContainerType 0; PajeDefineStateType 1; PajeCreateContainer 2; \
         PajeDestroyContainer 3; PajeSetState 4",
    );
    text.push_str("0 P 0 Process\n1 S P State\n2 0 p P 0 proc\n");
    for v in 0..30 {
        text.push_str(&format!("4 {v} S p value-{v}\n"));
    }
    text.push_str("3 30 P p\n");
    let path = dir.path().join("many.paje");
    std::fs::write(&path, text).unwrap();
    let server = serve(load(&path));
    let c = browser(&d).await;
    open_ready(&c, &server.url, "the first frame").await;
    let heights =
        "const l = document.getElementById('legend'); return [l.clientHeight, l.scrollHeight]";
    let folded = js(&c, heights).await;
    let (shown, whole) = (folded[0].as_f64().unwrap(), folded[1].as_f64().unwrap());
    assert!(shown < 30.0 && whole > 2.0 * shown, "folded: {folded}");
    let label = js(
        &c,
        "return document.getElementById('legend-fold').textContent",
    )
    .await;
    assert_eq!(label, "all 30 ▾");
    click_id(&c, "legend-fold").await;
    let open = js(&c, heights).await;
    assert_eq!(open[0], open[1], "unfolded: {open}");
    let visible = "return [...document.querySelectorAll('#legend .item')].filter((i) => !i.hidden).map((i) => i.textContent)";
    assert_eq!(js(&c, visible).await.as_array().unwrap().len(), 30);
    js(
        &c,
        "const f = document.getElementById('legend-filter'); f.value = 'VALUE-1'; \
         f.dispatchEvent(new Event('input')); return true",
    )
    .await;
    let kept: Vec<String> = serde_json::from_value(js(&c, visible).await).unwrap();
    let want: Vec<String> = (0..30)
        .map(|v| format!("value-{v}"))
        .filter(|n| n.contains("value-1"))
        .collect();
    assert_eq!(kept, want);
    // The timeline took the height the legend gave back or took.
    let fits =
        "const m = document.getElementById('main'), t = document.getElementById('timeline'); \
                return Math.abs(m.clientHeight - t.height) <= 1";
    assert_eq!(js(&c, fits).await, Value::Bool(true));
    webdriver::no_script_error(&c).await;
    server.stop();
}

/// The pixels of the timeline canvas within `[x0, x1) × [y0, y1)` (client
/// coordinates) whose colour is within `tol` (summed over channels) of
/// `rgb`.
async fn pixels_near(
    c: &fantoccini::Client,
    (x0, x1, y0, y1): (f64, f64, f64, f64),
    rgb: [u8; 3],
    tol: u32,
) -> u64 {
    let script = format!(
        "const cv = document.getElementById('timeline'), r = cv.getBoundingClientRect(); \
         const x0 = Math.round({x0} - r.left), x1 = Math.round({x1} - r.left); \
         const y0 = Math.round({y0} - r.top), y1 = Math.round({y1} - r.top); \
         const d = cv.getContext('2d').getImageData(x0, y0, x1 - x0, y1 - y0).data; \
         const want = {rgb:?}; let n = 0; \
         for (let i = 0; i < d.length; i += 4) {{ \
           if (Math.abs(d[i] - want[0]) + Math.abs(d[i + 1] - want[1]) + Math.abs(d[i + 2] - want[2]) < {tol}) n++; }} \
         return n"
    );
    js(c, &script).await.as_u64().unwrap()
}

/// regression: the timeline drew states as bars of colour only. A state's
/// name is drawn inside its bar where it fits (white on a dark bar), and
/// no text is drawn in a bar too narrow for a few characters.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_states_name_is_drawn_inside_its_bar_where_it_fits() {
    let Some(d) = driver() else { return };
    let dir = tempfile::tempdir().unwrap();
    let mut text = trama_gen::event_defs(
        "PajeDefineContainerType 0; PajeDefineStateType 1; PajeCreateContainer 2; \
         PajeDestroyContainer 3; PajeSetState 4; \
         PajeDefineEntityValue 5 Alias Type Name Color:color",
    );
    text.push_str("0 P 0 Process\n1 S P State\n");
    text.push_str("5 w S wide_state_name \"0 0 0.5\"\n5 n S narrow_state_name \"0 0 0.5\"\n");
    text.push_str("5 r S rest \"0.5 0 0\"\n2 0 p P 0 p\n");
    text.push_str("4 0 S p w\n4 80 S p n\n4 80.3 S p r\n3 100 P p\n");
    let path = dir.path().join("names.paje");
    std::fs::write(&path, text).unwrap();
    let server = serve(load(&path));
    let c = browser(&d).await;
    open_ready(&c, &format!("{}#t0=0&t1=100", server.url), "the window").await;
    let x = |t: f64| {
        let c = &c;
        async move {
            js(c, &format!("return window.trama.x({t})"))
                .await
                .as_f64()
                .unwrap()
        }
    };
    let y = js(&c, "return window.trama.y('p')").await.as_f64().unwrap();
    let (w0, w1, n0, n1) = (x(0.0).await, x(80.0).await, x(80.0).await, x(80.3).await);
    assert!(n1 - n0 < 8.0 && w1 - w0 > 400.0, "{w0} {w1} {n0} {n1}");
    let white = [255, 255, 255];
    // The wide bar: white text inside its box (the bar is dark blue).
    let inside = pixels_near(&c, (w0 + 1.0, w1 - 1.0, y - 7.0, y + 7.0), white, 300).await;
    assert!(inside > 30, "{inside} white pixels in the wide bar");
    // The bar itself is drawn around its name.
    let bar = pixels_near(&c, (w0 + 1.0, w1 - 1.0, y - 7.0, y + 7.0), [0, 0, 128], 60).await;
    assert!(bar as f64 > (w1 - w0) * 8.0, "{bar} bar pixels");
    // The narrow bar (a few pixels): no text.
    let narrow = pixels_near(&c, (n0 + 1.0, n1 - 1.0, y - 7.0, y + 7.0), white, 300).await;
    assert_eq!(narrow, 0, "text drawn in a bar {} px wide", n1 - n0);
    // The name is drawn, cut with an ellipsis, in a bar narrower than it.
    c.goto(&format!("{}#t0=79.5&t1=80.6", server.url))
        .await
        .unwrap();
    c.refresh().await.unwrap();
    until(
        &c,
        "return document.body.dataset.state === 'ready'",
        "zoomed",
    )
    .await;
    let (n0, n1) = (x(80.0).await, x(80.3).await);
    let y = js(&c, "return window.trama.y('p')").await.as_f64().unwrap();
    assert!(n1 - n0 > 200.0, "{n0} {n1}");
    let zoomed = pixels_near(&c, (n0 + 1.0, n1 - 1.0, y - 7.0, y + 7.0), white, 300).await;
    assert!(
        zoomed > 30,
        "{zoomed} white pixels in the zoomed narrow bar"
    );
    webdriver::no_script_error(&c).await;
    server.stop();
}

/// The CIELAB colour of `rgb(r, g, b)` as the page's style gives it, in a
/// script: `lab(css)`.
const LAB_JS: &str = "const lab = (css) => { \
    const [r, g, b] = css.match(/\\d+/g).map(Number).map((c) => { c /= 255; \
      return c <= 0.04045 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4; }); \
    const X = (0.4124 * r + 0.3576 * g + 0.1805 * b) / 0.95047, Y = 0.2126 * r + 0.7152 * g + 0.0722 * b, \
      Z = (0.0193 * r + 0.1192 * g + 0.9505 * b) / 1.08883; \
    const f = (t) => (t > 216 / 24389 ? Math.cbrt(t) : (24389 / 27 * t + 16) / 116); \
    return [116 * f(Y) - 16, 500 * (f(X) - f(Y)), 200 * (f(Y) - f(Z))]; };";

/// regression: the values of a trace took one of 20 colours by a hash of
/// their name, so that the 79 regions of the APEX sample had 19 colours
/// and regions drawn side by side shared one. On that sample, the values
/// drawn in the window (the legend's entries not greyed) are at least
/// 10 ΔE*ab apart, and the legend lists them first.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn values_drawn_together_have_distinct_colours() {
    let Some(d) = driver() else { return };
    let Some(shared) = trama_testkit::shared::find("samples/otf2", "OTF2 samples") else {
        return;
    };
    let trace = load(&shared.join("samples/otf2/apex-phylanx/APEX.otf2"));
    let server = serve(trace);
    let c = browser(&d).await;
    open_ready(&c, &server.url, "the first frame").await;
    let script = format!(
        "{LAB_JS} \
         const items = [...document.querySelectorAll('#legend .item')]; \
         const first = items.findIndex((i) => i.classList.contains('absent')); \
         const shown = first < 0 ? items : items.slice(0, first); \
         const labs = shown.map((i) => lab(i.querySelector('i').style.background)); \
         let min = Infinity, pair = null; \
         labs.forEach((a, i) => labs.slice(i + 1).forEach((b, j) => {{ \
           const d = Math.hypot(a[0] - b[0], a[1] - b[1], a[2] - b[2]); \
           if (d < min) {{ min = d; pair = [shown[i].textContent, shown[i + 1 + j].textContent]; }} }})); \
         const after = items.slice(shown.length).every((i) => i.classList.contains('absent')); \
         return [shown.length, min, pair, after]"
    );
    let got = js(&c, &script).await;
    assert!(got[0].as_u64().unwrap() > 30, "{got}");
    assert!(got[1].as_f64().unwrap() >= 10.0, "{got}");
    assert_eq!(got[3], Value::Bool(true), "{got}");
    webdriver::no_script_error(&c).await;
    server.stop();
}

/// The colour `[r, g, b]` of the timeline canvas at client coordinates
/// (x, y).
async fn pixel(c: &fantoccini::Client, x: f64, y: f64) -> Vec<u8> {
    let script = format!(
        "const cv = document.getElementById('timeline'), r = cv.getBoundingClientRect(); \
         return [...cv.getContext('2d').getImageData(Math.round({x} - r.left), Math.round({y} - r.top), 1, 1).data.slice(0, 3)]"
    );
    serde_json::from_value(js(c, &script).await).unwrap()
}

/// regression: nested states were drawn only inside one another, each
/// level thinner, the third 4 pixels high. Drawn as sub-rows, each level
/// of a row takes a row's height of its own below the level above; the
/// page's toggle switches between both, and a call-stack trace (OTF2)
/// opens with sub-rows.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn nested_states_are_drawn_as_sub_rows() {
    let Some(d) = driver() else { return };
    let dir = tempfile::tempdir().unwrap();
    let mut text = trama_gen::event_defs(
        "PajeDefineContainerType 0; PajeDefineStateType 1; PajeCreateContainer 2; \
         PajeDestroyContainer 3; PajePushState 4; PajePopState 5; PajeSetState 6; \
         PajeDefineEntityValue 7 Alias Type Name Color:color",
    );
    text.push_str("0 P 0 Process\n1 S P State\n");
    text.push_str("7 a S A \"1 0 0\"\n7 b S B \"0 1 0\"\n7 c S C \"0 0 1\"\n");
    text.push_str("2 0 p1 P 0 p1\n2 0 p2 P 0 p2\n");
    text.push_str("4 0 S p1 a\n4 10 S p1 b\n4 20 S p1 c\n5 30 S p1\n5 40 S p1\n5 90 S p1\n");
    text.push_str("6 0 S p2 a\n3 100 P p1\n3 100 P p2\n");
    let path = dir.path().join("nested.paje");
    std::fs::write(&path, text).unwrap();
    let server = serve(load(&path));
    let c = browser(&d).await;
    open_ready(&c, &format!("{}#t0=0&t1=100", server.url), "the window").await;
    let ys = "return [window.trama.y('p1'), window.trama.y('p2'), window.trama.x(25), \
              document.getElementById('depth').hidden, document.getElementById('depth').value]";
    // A Pajé trace: inside one another, the toggle shown.
    let got = js(&c, ys).await;
    let (y1, y2, x) = (
        got[0].as_f64().unwrap(),
        got[1].as_f64().unwrap(),
        got[2].as_f64().unwrap(),
    );
    assert_eq!(
        (got[3].clone(), got[4].clone()),
        (json!(false), json!("nested")),
        "{got}"
    );
    assert_eq!(y2 - y1, 18.0, "{got}");
    assert_eq!(pixel(&c, x, y1).await, [0, 0, 255], "C inside B inside A");
    // Sub-rows: p1 takes three rows, A, B and C one under the other.
    js(
        &c,
        "const s = document.getElementById('depth'); s.value = 'rows'; \
         s.dispatchEvent(new Event('change')); return true",
    )
    .await;
    until(
        &c,
        "return window.trama.y('p2') - window.trama.y('p1') === 54",
        "sub-rows",
    )
    .await;
    let y1 = js(&c, "return window.trama.y('p1')")
        .await
        .as_f64()
        .unwrap();
    assert_eq!(pixel(&c, x, y1).await, [255, 0, 0], "A");
    assert_eq!(pixel(&c, x, y1 + 18.0).await, [0, 255, 0], "B");
    assert_eq!(pixel(&c, x, y1 + 36.0).await, [0, 0, 255], "C");
    let x5 = js(&c, "return window.trama.x(5)").await.as_f64().unwrap();
    assert_ne!(
        pixel(&c, x5, y1 + 18.0).await,
        [0, 255, 0],
        "no B before 10"
    );
    // The label of p2 is beside its row.
    let label = js(
        &c,
        "return window.trama.labelY('p2') - window.trama.labelY('p1')",
    )
    .await;
    assert_eq!(label.as_f64(), Some(54.0), "{label}");
    webdriver::no_script_error(&c).await;
    server.stop();
    // An OTF2 trace with nested regions opens with sub-rows.
    let Some(shared) = trama_testkit::shared::find("samples/otf2", "OTF2 samples") else {
        return;
    };
    let mut opts = ViewerOptions::default();
    opts.port = Some(0);
    opts.name = "traces.otf2".into();
    let score_p = load(&shared.join("samples/otf2/pipit-ping-pong/traces.otf2"));
    let server = start(score_p, &opts).unwrap();
    open_ready(&c, &server.url, "the Score-P trace").await;
    let got = js(
        &c,
        "const s = document.getElementById('depth'); return [s.hidden, s.value]",
    )
    .await;
    assert_eq!(got, json!([false, "rows"]));
    webdriver::no_script_error(&c).await;
    server.stop();
}
