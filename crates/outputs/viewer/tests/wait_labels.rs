//! The statistics panel's wait matrix on a run of many processes, in a
//! real browser (headless Chromium over WebDriver): labels that fit, full
//! names on hover, the matrix in sight and scrolling in its own box.
//!
//! Without chromedriver the tests are skipped with a note, unless
//! `TRAMA_REQUIRE_BROWSER=1` (set by `.ci/run`), which makes them fail.

mod common;

use common::{load, mpi_run, serve};
use trama_testkit::webdriver;
use webdriver::{browser, click_id, driver, js, no_script_error, open_ready, until};

/// The page on a generated 64-process run in `dir`, 1600 × 900, with the
/// statistics panel's wait matrix drawn.
async fn open_matrix(
    d: &webdriver::Driver,
    dir: &std::path::Path,
) -> (fantoccini::Client, trama_viewer::Running) {
    let path = mpi_run(dir, 64);
    let server = serve(load(&path), "waits.paje");
    let c = browser(d).await;
    c.set_window_size(1600, 900).await.unwrap();
    open_ready(&c, &server.url, "the first frame").await;
    click_id(&c, "stats-button").await;
    until(&c, "return window.trama.waits() != null", "the wait matrix").await;
    (c, server)
}

/// regression: on 64 processes the matrix sat thousands of pixels down the
/// panel, under a bar per container, with columns 4 px wide and labels
/// drawn over each other. Now the bars fold, names lose what they share,
/// columns keep room with every n-th label when too narrow for all, the
/// matrix scrolls in its box and a label names its process on hover.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn wait_matrix_is_readable_at_64_processes() {
    let Some(d) = driver() else { return };
    let dir = tempfile::tempdir().unwrap();
    let (c, server) = open_matrix(&d, dir.path()).await;
    let w = js(&c, "return window.trama.waits()").await;
    let rows = w["rows"].as_array().unwrap();
    assert_eq!(rows.len(), 64, "{w}");
    // Names without the prefix they share; columns wide enough, and only
    // as many labels as fit (one per 12 px at least).
    assert_eq!(w["prefix"], "rank-");
    let cell = w["cell"].as_f64().unwrap();
    let step = w["labelStep"].as_f64().unwrap();
    assert!(cell >= 9.0, "{cell} px columns");
    assert!(
        cell * step >= 12.0,
        "a label every {step} columns of {cell} px"
    );
    // The matrix within the panel's first screen, scrolling in its box.
    let place = js(
        &c,
        "const m = document.getElementById('wait-matrix').getBoundingClientRect(); \
         const p = document.getElementById('stats').getBoundingClientRect(); \
         const b = document.querySelector('#waits .wait-scroll'); \
         return [m.top - p.top, b.scrollHeight > b.clientHeight, b.clientHeight]",
    )
    .await;
    assert!(place[0].as_f64().unwrap() < 700.0, "{place}");
    assert_eq!(place[1], true, "{place}");
    // Hovering a column's label names its process in full.
    let hover = js(
        &c,
        "const w = window.trama.waits(); const cv = document.getElementById('wait-matrix'); \
         const r = cv.getBoundingClientRect(); \
         const x = r.left + w.origin[0] + 3 * w.cell + w.cell / 2, y = r.top + w.origin[1] - 10; \
         cv.dispatchEvent(new MouseEvent('mousemove', {clientX: x, clientY: y, bubbles: true})); \
         return [cv.title, w.columns[3]]",
    )
    .await;
    let col = hover[1].as_str().unwrap();
    assert!(col.starts_with("rank-"), "{hover}");
    assert_eq!(hover[0].as_str().unwrap(), format!("waited for: {col}"));
    no_script_error(&c).await;
    c.close().await.unwrap();
    server.stop();
}

/// regression: the matrix's column labels were drawn at the top of the
/// canvas and scrolled away with the rows. Scrolled down, they stay at the
/// box's top, over the rows, and hovering them still names a column.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn wait_matrix_column_labels_stay_in_sight() {
    let Some(d) = driver() else { return };
    let dir = tempfile::tempdir().unwrap();
    let (c, server) = open_matrix(&d, dir.path()).await;
    js(
        &c,
        "const b = document.querySelector('#waits .wait-scroll'); b.scrollTop = 300; return true",
    )
    .await;
    // The band of labels at the box's top: mostly white (text on the
    // panel's background), not cells; a hover there names a column.
    let script = "const b = document.querySelector('#waits .wait-scroll'); \
         const w = window.trama.waits(); const cv = document.getElementById('wait-matrix'); \
         const ctx = cv.getContext('2d'); const top = b.scrollTop; \
         const x0 = w.origin[0], width = Math.min(cv.width - x0, 20 * w.cell), h = w.origin[1] - 2; \
         const px = ctx.getImageData(x0, top, width, h).data; let white = 0; \
         for (let i = 0; i < px.length; i += 4) if (px[i] === 255 && px[i+1] === 255 && px[i+2] === 255) white++; \
         const r = cv.getBoundingClientRect(); \
         cv.dispatchEvent(new MouseEvent('mousemove', {clientX: r.left + x0 + 3 * w.cell + w.cell / 2, \
           clientY: r.top + top + w.origin[1] - 10, bubbles: true})); \
         return [top, white / (px.length / 4), cv.title, w.columns[3]]";
    until(
        &c,
        &format!("const g = (() => {{ {script} }})(); return g[1] > 0.6"),
        "the labels drawn at the scrolled top",
    )
    .await;
    let got = js(&c, script).await;
    assert!(got[0].as_f64().unwrap() > 100.0, "scrolled: {got}");
    assert!(got[1].as_f64().unwrap() > 0.6, "labels, not cells: {got}");
    assert_eq!(
        got[2].as_str().unwrap(),
        format!("waited for: {}", got[3].as_str().unwrap())
    );
    no_script_error(&c).await;
    c.close().await.unwrap();
    server.stop();
}
