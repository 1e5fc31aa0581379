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

/// regression: on 64 processes the matrix sat thousands of pixels down the
/// panel, under a bar per container, with columns 4 px wide and labels
/// drawn over each other. Now the bars fold, names lose what they share,
/// columns keep room with every n-th label when too narrow for all, the
/// matrix scrolls in its box and a label names its process on hover.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn wait_matrix_is_readable_at_64_processes() {
    let Some(d) = driver() else { return };
    let dir = tempfile::tempdir().unwrap();
    let path = mpi_run(dir.path(), 64);
    let server = serve(load(&path), "waits.paje");
    let c = browser(&d).await;
    c.set_window_size(1600, 900).await.unwrap();
    open_ready(&c, &server.url, "the first frame").await;
    click_id(&c, "stats-button").await;
    until(&c, "return window.trama.waits() != null", "the wait matrix").await;
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
