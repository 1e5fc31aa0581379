//! The player of the animated views in a real browser (headless Chromium
//! over WebDriver): at known instants of the bundled example and of a
//! generated trace, each square is coloured by the state `trama dump`
//! reports there, each lit cell of the traffic matrix is a message in
//! flight then, and the Kiviat radii equal `trama stats kiviat`; play,
//! pause, step, seek, speed and the keyboard move the frame as they should;
//! the gradient's bounds turn cells white above and black below.
//!
//! Without chromedriver the tests are skipped with a note, unless
//! `TRAMA_REQUIRE_BROWSER=1` (set by `.ci/run`), which makes them fail.

mod common;

use common::{load, mpi_run, serve};
use trama_testkit::webdriver;

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::path::Path;

use fantoccini::Client;
use serde_json::{json, Value};
use trama_sim::Trace;
use webdriver::{browser, click, click_id, driver, js, no_script_error, open_ready, set, until};

/// What `trama dump` says of a trace: its state and link lines.
struct Dumped {
    /// (container, start, end, level, value).
    states: Vec<(String, f64, f64, u32, String)>,
    /// (from, to, start, end).
    links: Vec<(String, String, f64, f64)>,
    /// Container names that several containers have.
    ambiguous: BTreeSet<String>,
}

fn dumped(trace: &Trace) -> Dumped {
    let mut o = trama_dump::DumpOptions::default();
    o.precision = 9;
    let mut out = Vec::new();
    trama_dump::dump_trace(trace, &o, &mut out).unwrap();
    let text = String::from_utf8(out).unwrap();
    let mut d = Dumped {
        states: Vec::new(),
        links: Vec::new(),
        ambiguous: BTreeSet::new(),
    };
    let mut names: HashMap<String, usize> = HashMap::new();
    for line in text.lines() {
        // Names as people read them (the dump keeps PajeNG's quotes).
        let f: Vec<&str> = line.split(", ").map(|w| w.trim_matches('"')).collect();
        let num = |i: usize| f[i].parse::<f64>().unwrap();
        match f[0] {
            "Container" => *names.entry(f[6].to_string()).or_default() += 1,
            "State" => d
                .states
                .push((f[1].into(), num(3), num(4), num(6) as u32, f[7].into())),
            "Link" => d.links.push((f[7].into(), f[8].into(), num(3), num(4))),
            _ => {}
        }
    }
    d.ambiguous = names
        .into_iter()
        .filter(|(_, n)| *n > 1)
        .map(|(k, _)| k)
        .collect();
    d
}

/// Per container, the state on top of its stack at `t` in the dump.
fn tops(d: &Dumped, t: f64) -> BTreeMap<String, String> {
    let mut best: BTreeMap<String, (u32, String)> = BTreeMap::new();
    for (c, s, e, level, v) in &d.states {
        if *s <= t && t < *e && best.get(c).is_none_or(|b| *level >= b.0) {
            best.insert(c.clone(), (*level, v.clone()));
        }
    }
    best.into_iter().map(|(c, (_, v))| (c, v)).collect()
}

/// The pixel of canvas `id` at client coordinates `(x, y)`, as `#rrggbb`.
async fn pixel(c: &Client, id: &str, x: f64, y: f64) -> String {
    js(
        c,
        &format!(
            "const cv = document.getElementById('{id}'); const r = cv.getBoundingClientRect();
             const p = cv.getContext('2d').getImageData(Math.floor({x} - r.left), Math.floor({y} - r.top), 1, 1).data;
             return '#' + [p[0], p[1], p[2]].map((v) => v.toString(16).padStart(2, '0')).join('');"
        ),
    )
    .await
    .as_str()
    .unwrap()
    .to_string()
}

/// The pixel at `(x, y)` of canvas `id` once `want` holds of it, or as it is
/// after some seconds: a canvas is redrawn on the animation frame after
/// the state it shows has changed, so a read right after may see the
/// drawing before.
async fn pixel_once(c: &Client, id: &str, x: f64, y: f64, want: impl Fn(&str) -> bool) -> String {
    let mut got = pixel(c, id, x, y).await;
    for _ in 0..100 {
        if want(&got) {
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
        got = pixel(c, id, x, y).await;
    }
    got
}

async fn frame(c: &Client) -> Value {
    js(c, "return window.trama.frame()").await
}

/// Waits for the frame at `t`.
async fn frame_at(c: &Client, t: f64) -> Value {
    until(
        c,
        &format!("const f = window.trama.frame(); return f != null && Math.abs(f.t - {t}) < 1e-9"),
        &format!("the frame at {t}"),
    )
    .await;
    frame(c).await
}

async fn seek(c: &Client, t: f64) -> Value {
    js(c, &format!("window.trama.player().seek({t}); return true")).await;
    frame_at(c, t).await
}

/// At instants of the trace: squares against the dump's states (value and
/// pixel), lit cells against the dump's links, Kiviat radii against
/// `kiviat`. Returns (squares, cells, radii) compared.
async fn frames_agree(c: &Client, trace: &Trace) -> (usize, usize, usize) {
    let d = dumped(trace);
    let (t0, t1) = (trace.start_time(), trace.end_time());
    let msgs = trama_analysis::Messages::select(trace, &[]).unwrap();
    let level = trama_analysis::host_level(trace, &msgs).map(|l| l.name);
    let mut counted = (0, 0, 0);
    for k in 0..6 {
        let t = t0 + (t1 - t0) * (k as f64 + 0.43) / 6.0;
        // An instant: the state on top of each stack.
        set(c, "p-dt", "0").await;
        until(c, "return window.trama.frame().dt === 0", "instants").await;
        let f = seek(c, t).await;
        let want = tops(&d, t);
        for p in f["processes"].as_array().unwrap() {
            let name = p["name"].as_str().unwrap();
            if d.ambiguous.contains(name) {
                continue;
            }
            assert_eq!(
                p["value"].as_str(),
                want.get(name).map(|s| s.as_str()),
                "{name} at {t}"
            );
            if p["value"].is_null() {
                continue;
            }
            let at = js(c, &format!("return window.trama.squareAt({})", json!(name))).await;
            let (x, y) = (at[0].as_f64().unwrap(), at[1].as_f64().unwrap());
            assert_eq!(
                pixel(c, "p-procs", x, y).await,
                p["color"].as_str().unwrap(),
                "the square of {name} at {t}"
            );
            counted.0 += 1;
        }
        // An interval: the cells lit are the pairs with a message in flight.
        let dt = (t1 - t0) / 25.0;
        set(c, "p-dt", &dt.to_string()).await;
        until(
            c,
            &format!("const f = window.trama.frame(); return Math.abs(f.t - {t}) < 1e-9 && Math.abs(f.dt - {dt}) < 1e-12"),
            "the frame's new length",
        )
        .await;
        let f = frame(c).await;
        let mut flying: BTreeMap<(String, String), u64> = BTreeMap::new();
        for (a, b, s, e) in &d.links {
            if *s <= t + dt && *e >= t && !d.ambiguous.contains(a) && !d.ambiguous.contains(b) {
                *flying.entry((a.clone(), b.clone())).or_default() += 1;
            }
        }
        let mut lit: BTreeMap<(String, String), u64> = BTreeMap::new();
        for cell in f["cells"].as_array().unwrap() {
            let (a, b) = (cell["from"].as_str().unwrap(), cell["to"].as_str().unwrap());
            if d.ambiguous.contains(a) || d.ambiguous.contains(b) {
                continue;
            }
            lit.insert((a.into(), b.into()), cell["count"].as_u64().unwrap());
            // The cell on screen has the colour the frame says.
            let at = js(
                c,
                &format!("return window.trama.cellAt({}, {})", json!(a), json!(b)),
            )
            .await;
            let (x, y) = (at[0].as_f64().unwrap(), at[1].as_f64().unwrap());
            assert_eq!(
                pixel(c, "p-traffic", x, y).await,
                cell["color"].as_str().unwrap(),
                "the cell {a} → {b} at {t}"
            );
        }
        assert_eq!(lit, flying, "messages in flight in [{t}, {}]", t + dt);
        // The mapping: a process with a message in flight is sending.
        for cell in f["cells"].as_array().unwrap() {
            assert_eq!(f["activity"][cell["from"].as_str().unwrap()], "sending");
        }
        // The graph: the pairs of processes that have talked by the
        // frame's end.
        let procs: BTreeSet<&str> = f["processes"]
            .as_array()
            .unwrap()
            .iter()
            .map(|p| p["name"].as_str().unwrap())
            .collect();
        if d.ambiguous.is_empty() && !f["edges"].is_null() {
            let talked: BTreeSet<(String, String)> = d
                .links
                .iter()
                .filter(|(a, b, s, _)| {
                    *s <= t + dt
                        && a != b
                        && procs.contains(a.as_str())
                        && procs.contains(b.as_str())
                })
                .map(|(a, b, _, _)| {
                    if a < b {
                        (a.clone(), b.clone())
                    } else {
                        (b.clone(), a.clone())
                    }
                })
                .collect();
            assert_eq!(
                f["edges"].as_u64().unwrap() as usize,
                talked.len(),
                "graph edges at {}: {talked:?}",
                t + dt
            );
        }
        counted.1 += lit.len();
        // The Kiviat radii: the hosts' shares of the messages so far.
        if let Some(l) = &level {
            let kv = trama_analysis::kiviat(
                trace,
                trama_analysis::Window::of(trace),
                &msgs,
                l,
                &[t + dt],
            )
            .unwrap();
            let shown: HashMap<String, f64> = f["kiviat"]
                .as_array()
                .unwrap()
                .iter()
                .map(|h| (h[0].as_str().unwrap().to_string(), h[1].as_f64().unwrap()))
                .collect();
            for (h, share) in kv.hosts.iter().zip(&kv.shares[0]) {
                if d.ambiguous.contains(h) {
                    continue;
                }
                assert!((shown[h] - share).abs() < 1e-12, "host {h} at {}", t + dt);
                counted.2 += 1;
            }
        }
    }
    counted
}

/// Clicks "fit": the gradient spans `rate`, and the cell at `(x, y)` is
/// neither white nor black.
async fn fit(c: &Client, rate: f64, x: f64, y: f64) {
    click_id(c, "p-fit").await;
    until(
        c,
        &format!(
            "const g = window.trama.frame().gradient; return g[0] <= {rate} && g[1] >= {rate}"
        ),
        "the fit",
    )
    .await;
    let inside = |p: &str| p != "#ffffff" && p != "#000000";
    let colour = pixel_once(c, "p-traffic", x, y, inside).await;
    assert!(inside(&colour), "{colour}");
}

async fn open_player(c: &Client, url: &str) {
    open_ready(c, url, "the first frame").await;
    click_id(c, "player-button").await;
    until(
        c,
        "return window.trama.frame() != null",
        "the player's first frame",
    )
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_player_shows_the_states_messages_and_shares_of_each_instant() {
    let Some(d) = driver() else { return };
    let example = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../examples/ring.paje");
    let dir = tempfile::tempdir().unwrap();
    let generated = dir.path().join("generated.paje");
    let mut o = trama_gen::GenOptions::varied(3, 20_000);
    o.links = true;
    o.container_depth = o.container_depth.max(2);
    o.max_containers = o.max_containers.max(8);
    std::fs::write(&generated, trama_gen::generate(3, &o)).unwrap();
    let c = browser(&d).await;
    let mut total = (0, 0, 0);
    for path in [example.as_path(), generated.as_path()] {
        let server = serve(load(path), "trace");
        open_player(&c, &server.url).await;
        let n = frames_agree(&c, &load(path)).await;
        assert!(n.0 > 0 && n.2 > 0, "{}: compared {n:?}", path.display());
        total = (total.0 + n.0, total.1 + n.1, total.2 + n.2);
        server.stop();
    }
    assert!(total.1 > 0, "lit cells compared: {total:?}");
    no_script_error(&c).await;
    c.close().await.unwrap();
}

/// A frame with a message in flight, its rate in the gradient; the
/// gradient's bounds recolour it.
async fn recolours_a_cell_in_flight(c: &Client, (t0, t1): (f64, f64)) {
    let mut lit = None;
    for k in 0..200 {
        let f = seek(c, t0 + (t1 - t0) * k as f64 / 200.0).await;
        if let Some(cell) = f["cells"]
            .as_array()
            .unwrap()
            .iter()
            .find(|c| c["rate"].is_f64())
        {
            lit = Some(cell.clone());
            break;
        }
    }
    let cell = lit.expect("a frame with a message of known size");
    let (from, to) = (cell["from"].as_str().unwrap(), cell["to"].as_str().unwrap());
    let rate = cell["rate"].as_f64().unwrap();
    let at = js(
        c,
        &format!("return window.trama.cellAt({}, {})", json!(from), json!(to)),
    )
    .await;
    let (x, y) = (at[0].as_f64().unwrap(), at[1].as_f64().unwrap());
    // Fitted to this frame, the cell is inside the gradient.
    fit(c, rate, x, y).await;
    // Above the maximum: white; below the minimum: black.
    set(c, "p-min", &(rate / 100.0).to_string()).await;
    set(c, "p-max", &(rate / 2.0).to_string()).await;
    until(
        c,
        &format!("return window.trama.frame().gradient[1] === {}", rate / 2.0),
        "the new maximum",
    )
    .await;
    assert_eq!(
        pixel_once(c, "p-traffic", x, y, |p| p == "#ffffff").await,
        "#ffffff"
    );
    set(c, "p-max", &(rate * 100.0).to_string()).await;
    set(c, "p-min", &(rate * 2.0).to_string()).await;
    until(
        c,
        &format!("return window.trama.frame().gradient[0] === {}", rate * 2.0),
        "the new minimum",
    )
    .await;
    assert_eq!(
        pixel_once(c, "p-traffic", x, y, |p| p == "#000000").await,
        "#000000"
    );
    // Fit again: the gradient spans the frame's rates.
    fit(c, rate, x, y).await;
}

/// The timeline shows the frame: its cursor is drawn (a red line).
async fn cursor_on_timeline(c: &Client) {
    let f = frame(c).await;
    let cx = js(c, &format!("return window.trama.x({})", f["t"]))
        .await
        .as_f64()
        .unwrap();
    let ty = js(
        c,
        "return document.getElementById('timeline').getBoundingClientRect().top + 10",
    )
    .await
    .as_f64()
    .unwrap();
    // (A few pixels either side: the line is 2 pixels wide, at a rounded x.)
    until(
        c,
        &format!(
            "const cv = document.getElementById('timeline'); const r = cv.getBoundingClientRect();
             const d = cv.getContext('2d').getImageData(Math.floor({cx} - r.left) - 3, Math.floor({ty} - r.top), 8, 1).data;
             for (let i = 0; i < d.length; i += 4) if (d[i] === 0xd0 && d[i + 1] === 0x30 && d[i + 2] === 0x2f) return true;
             return false;"
        ),
        "the cursor on the timeline",
    )
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_player_plays_pauses_steps_seeks_and_recolours() {
    let Some(d) = driver() else { return };
    let example = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../examples/ring.paje");
    let trace = load(&example);
    let (t0, t1) = (trace.start_time(), trace.end_time());
    let server = serve(load(&example), "ring.paje");
    let c = browser(&d).await;
    open_player(&c, &server.url).await;
    let win = js(&c, "return window.trama.window()").await;
    let (w0, w1) = (win[0].as_f64().unwrap(), win[1].as_f64().unwrap());
    assert!(w0 <= t0 && w1 >= t1);

    // The speed and the rate set the step: rate × speed.
    set(&c, "p-rate", "0.05").await;
    set(&c, "p-speed", "0.04").await;
    let step = frame(&c).await["step"].as_f64().unwrap();
    assert!((step - 0.002).abs() < 1e-12, "step {step}");

    // First, next (button and key), previous, last.
    click_id(&c, "p-first").await;
    frame_at(&c, w0).await;
    click_id(&c, "p-next").await;
    frame_at(&c, w0 + step).await;
    js(&c, "document.body.dispatchEvent(new KeyboardEvent('keydown', {key: '.', bubbles: true})); return true").await;
    frame_at(&c, w0 + 2.0 * step).await;
    click_id(&c, "p-prev").await;
    frame_at(&c, w0 + step).await;
    set(&c, "p-dt", "0.01").await;
    click_id(&c, "p-last").await;
    frame_at(&c, w1 - 0.01).await;

    // Play from a point: the frame moves forward by steps; pause stops it.
    let from = t0 + (t1 - t0) * 0.3;
    seek(&c, from).await;
    click_id(&c, "p-play").await;
    until(
        &c,
        &format!("const f = window.trama.frame(); return f.playing && f.t > {from} + 3 * {step}"),
        "playing to move the frame",
    )
    .await;
    js(&c, "document.body.dispatchEvent(new KeyboardEvent('keydown', {key: ' ', bubbles: true})); return true").await;
    until(&c, "return !window.trama.frame().playing", "the pause").await;
    tokio::time::sleep(std::time::Duration::from_millis(300)).await;
    let a = frame(&c).await["t"].as_f64().unwrap();
    tokio::time::sleep(std::time::Duration::from_millis(300)).await;
    assert_eq!(frame(&c).await["t"].as_f64().unwrap(), a, "paused");
    let steps = (a - from) / step;
    assert!(
        (steps - steps.round()).abs() < 1e-6,
        "moved by whole steps: {steps}"
    );

    // Clicking the strip seeks there.
    let strip = js(&c, "const r = document.getElementById('p-strip').getBoundingClientRect(); return [r.left, r.width, r.top + r.height / 2]").await;
    let (left, width, y) = (
        strip[0].as_f64().unwrap(),
        strip[1].as_f64().unwrap(),
        strip[2].as_f64().unwrap(),
    );
    click(&c, left + width * 0.5, y).await;
    until(
        &c,
        &format!(
            "return Math.abs(window.trama.frame().t - {}) < {}",
            (w0 + w1) / 2.0,
            (w1 - w0) / width * 2.0
        ),
        "the seek by the strip",
    )
    .await;

    recolours_a_cell_in_flight(&c, (t0, t1)).await;

    cursor_on_timeline(&c).await;
    // p closes the player.
    js(&c, "document.body.dispatchEvent(new KeyboardEvent('keydown', {key: 'p', bubbles: true})); return true").await;
    until(
        &c,
        "return document.getElementById('player').hidden",
        "the player closed",
    )
    .await;
    no_script_error(&c).await;
    c.close().await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_wait_matrix_has_both_normalisations_and_details_per_process() {
    let Some(d) = driver() else { return };
    // An MPI run with wait states of every pattern (Pajé, as SMPI writes
    // it), from the why analysis's generator.
    let dir = tempfile::tempdir().unwrap();
    let example = mpi_run(dir.path(), 4);
    let trace = load(&example);
    let server = serve(load(&example), "waits.paje");
    let c = browser(&d).await;
    open_ready(&c, &server.url, "the first frame").await;
    click_id(&c, "stats-button").await;
    until(&c, "return window.trama.waits() != null", "the wait matrix").await;
    let win = js(&c, "return window.trama.window()").await;
    let w = trama_analysis::Window {
        start: win[0].as_f64().unwrap(),
        end: win[1].as_f64().unwrap(),
    };
    let msgs = trama_analysis::Messages::select(&trace, &[]).unwrap();
    // The example is an MPI run: its wait states make the matrix.
    let want = trama_why::who_waited(&trace, w, &msgs, &[], &Default::default());
    assert_eq!(want.method, trama_analysis::WaitMethod::WaitStates);
    assert!(!want.rows.is_empty(), "the example waits");
    for (mode, key) in [("time", "share_of_time"), ("waiting", "share_of_waiting")] {
        set(&c, "wait-mode", mode).await;
        until(
            &c,
            &format!("return window.trama.waits().mode === '{mode}'"),
            "the mode",
        )
        .await;
        let shown = js(&c, "return window.trama.waits()").await;
        let cols: Vec<&str> = shown["columns"]
            .as_array()
            .unwrap()
            .iter()
            .map(|c| c.as_str().unwrap())
            .collect();
        assert_eq!(
            cols.last() == Some(&"total"),
            mode == "time",
            "the total column: {cols:?}"
        );
        for r in &want.rows {
            let row = shown["rows"]
                .as_array()
                .unwrap()
                .iter()
                .find(|x| x["name"] == r.container)
                .unwrap();
            for (j, sender) in want.senders.iter().enumerate() {
                let v = serde_json::to_value(r).unwrap()[key][j].as_f64().unwrap();
                match cols.iter().position(|c| c == sender) {
                    Some(k) => assert!((row["cells"][k].as_f64().unwrap() - v).abs() < 1e-9),
                    // A column left out has nothing (cells under 0.1 % are 0).
                    None => assert_eq!(v, 0.0, "{} → {sender}", r.container),
                }
            }
            assert!((row["total"].as_f64().unwrap() - r.waiting_share).abs() < 1e-9);
        }
    }
    // A click on a row: that process's waits per partner and time per state.
    let r = &want.rows[0];
    js(
        &c,
        "document.getElementById('wait-matrix').scrollIntoView(); return true",
    )
    .await;
    let at = js(
        &c,
        &format!("return window.trama.waitRow({})", json!(r.container)),
    )
    .await;
    click(&c, at[0].as_f64().unwrap(), at[1].as_f64().unwrap()).await;
    until(
        &c,
        "const w = window.trama.waits(); return w.selected != null && w.pie != null",
        "the process's details",
    )
    .await;
    let shown = js(&c, "return window.trama.waits()").await;
    assert_eq!(shown["selected"], json!(r.container));
    let bars = shown["bars"].as_array().unwrap();
    assert_eq!(bars.len(), r.seconds.iter().filter(|x| **x > 0.0).count());
    for b in bars {
        let j = want
            .senders
            .iter()
            .position(|s| s == b[0].as_str().unwrap())
            .unwrap();
        assert!((b[1].as_f64().unwrap() - r.seconds[j]).abs() < 1e-9);
    }
    let states = trama_analysis::time_per_state(&trace, w, None).unwrap();
    let mine: Vec<_> = states
        .rows
        .iter()
        .filter(|s| s.container == r.container && s.exclusive > 0.0)
        .collect();
    let sum: f64 = mine.iter().map(|s| s.exclusive).sum();
    let pie = shown["pie"].as_array().unwrap();
    assert_eq!(pie.len(), mine.len());
    for p in pie {
        let s = mine
            .iter()
            .find(|s| s.value == p[0].as_str().unwrap())
            .unwrap();
        assert!((p[1].as_f64().unwrap() - s.exclusive / sum).abs() < 1e-9);
    }
    no_script_error(&c).await;
    c.close().await.unwrap();
}

/// The names a view says it labelled, as a set.
fn names(v: &Value) -> BTreeSet<String> {
    v.as_array()
        .unwrap_or_else(|| panic!("no names in {v}"))
        .iter()
        .map(|n| n.as_str().unwrap().to_string())
        .collect()
}

/// Regression: the player beyond 16 nodes. On 64 processes the graph
/// names every process, the mapping's circles lie inside its canvas, both
/// matrices are labelled (every k-th process), and the node/arc view names
/// every node and leaves its arcs' figures to the hover.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_player_beyond_16_nodes_names_every_process_and_fits_its_views() {
    let Some(d) = driver() else { return };
    let dir = tempfile::tempdir().unwrap();
    let path = mpi_run(dir.path(), 64);
    let trace = load(&path);
    let (t0, t1) = (trace.start_time(), trace.end_time());
    let server = serve(load(&path), "waits.paje");
    let c = browser(&d).await;
    open_player(&c, &server.url).await;
    let f = seek(&c, t0 + (t1 - t0) * 0.3).await;
    let all = f["processes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["name"].as_str().unwrap().to_string())
        .collect::<BTreeSet<_>>();
    assert_eq!(all.len(), 64);
    // The graph: every process named.
    assert_eq!(names(&f["graph"]["labels"]), all, "the graph's names");
    // The mapping: each circle inside the canvas drawn on.
    let m = &f["mapping"];
    let size = js(
        &c,
        "const c = document.getElementById('p-mapping'); return [c.width, c.height]",
    )
    .await;
    assert_eq!((&m["W"], &m["H"]), (&size[0], &size[1]));
    let (w, h) = (m["W"].as_f64().unwrap(), m["H"].as_f64().unwrap());
    for k in m["circles"].as_array().unwrap() {
        let (x, y, r) = (
            k["x"].as_f64().unwrap(),
            k["y"].as_f64().unwrap(),
            k["r"].as_f64().unwrap(),
        );
        assert!(
            r > 1.0 && x - r >= 0.0 && y - r >= 0.0 && x + r <= w && y + r <= h,
            "circle {k} in {w} × {h}"
        );
    }
    // The matrices: labelled, thinned to some of the processes.
    for which in ["frame", "whole"] {
        let shown = names(&f["matrices"][which]);
        assert!(
            shown.len() >= 4 && shown.is_subset(&all),
            "{which}: {shown:?}"
        );
    }
    // The node/arc view: every node named; arcs' figures on hover only.
    set(&c, "p-view", "nodes").await;
    let mut arcs = 0;
    for k in 0..20 {
        let t = t0 + (t1 - t0) * (k as f64 + 0.5) / 20.0;
        js(&c, &format!("window.trama.player().seek({t}); return true")).await;
        until(&c, &format!("const n = window.trama.frame().nodes; return n != null && Math.abs(n.t - {t}) < 1e-9"), "the node/arc frame").await;
        let n = js(&c, "return window.trama.frame().nodes").await;
        let nodes: BTreeSet<String> = n["nodes"]
            .as_array()
            .unwrap()
            .iter()
            .map(|x| x["name"].as_str().unwrap().to_string())
            .collect();
        assert!(nodes.len() > 16, "{} nodes", nodes.len());
        assert_eq!(names(&n["named"]), nodes, "the nodes' names");
        let drawn = n["drawn"].as_array().unwrap().len();
        let figures = js(
            &c,
            "return document.querySelectorAll('#p-nodes .arc-info').length",
        )
        .await;
        assert_eq!(figures, json!(0), "arcs' figures drawn at {t}");
        arcs += drawn;
    }
    assert!(arcs > 0, "no frame with arcs");
    no_script_error(&c).await;
    c.close().await.unwrap();
    server.stop();
}
