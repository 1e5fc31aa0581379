//! The node/arc view in a real browser (headless Chromium over WebDriver),
//! on a generated OpenTS trace: it is the view shown first (ranks hold no
//! states); at several frames each node's indicators equal the frame model's
//! task counts and the arcs drawn equal its pair totals, for every arc
//! kind; a dragged node moves and keeps its place across frames and
//! reloads; a click selects the node panel A describes; panel B sums the
//! nodes and C names the run; an arc's tooltip lists every kind between the
//! pair.
//!
//! Without chromedriver the test is skipped with a note, unless
//! `TRAMA_REQUIRE_BROWSER=1` (set by `.ci/run`), which makes it fail.

use trama_testkit::webdriver;

use std::collections::BTreeMap;

use fantoccini::Client;
use serde_json::{json, Value};
use trama_analysis::{node_frame, pair_totals, ArcKind, NodeLinks, NodeStage};
use trama_open::{LoadOptions, Source};
use trama_viewer::{start, ViewerOptions};
use webdriver::{browser, click, drag, driver, js, move_to, press, set, until};

async fn nodes(c: &Client) -> Value {
    js(c, "return window.trama.frame().nodes").await
}

/// A number as the panel writes it (`1.23k`).
fn panel_number(s: &str) -> f64 {
    let s = s.trim_end_matches(" s");
    let (body, mult) = match s.chars().last() {
        Some('k') => (&s[..s.len() - 1], 1e3),
        Some('M') => (&s[..s.len() - 1], 1e6),
        Some('G') => (&s[..s.len() - 1], 1e9),
        _ => (s, 1.0),
    };
    body.parse::<f64>().unwrap() * mult
}

fn row<'a>(panel: &'a Value, label: &str) -> &'a str {
    panel
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r[0] == label && r[1].is_string())
        .unwrap_or_else(|| panic!("no row {label} in {panel}"))[1]
        .as_str()
        .unwrap()
}

/// Frames: indicators and arcs as the frame model gives them.
async fn frames_follow_the_model(
    c: &Client,
    trace: &trama_sim::Trace,
    stage: &NodeStage,
    links: &NodeLinks,
    (t0, t1): (f64, f64),
) {
    let var = |name: &str| stage.variables.iter().position(|v| v == name).unwrap();
    let mut checked = (0, 0);
    for kind in ["all", "e", "m", "s", "d"] {
        set(c, "p-arcs", kind).await;
        let arcs = ArcKind::parse(kind).unwrap();
        for k in 0..6 {
            let t = t0 + (t1 - t0) * (k as f64 + 0.3) / 6.0;
            js(c, &format!("window.trama.player().seek({t}); return true")).await;
            until(
                c,
                &format!("const n = window.trama.frame().nodes; return n != null && Math.abs(n.t - {t}) < 1e-9 && n.arcs === {}", json!(kind)),
                "the frame",
            )
            .await;
            let n = nodes(c).await;
            let dt = n["dt"].as_f64().unwrap();
            let want = node_frame(trace, stage, links, t, dt);
            for (i, nd) in n["nodes"].as_array().unwrap().iter().enumerate() {
                assert_eq!(nd["name"], stage.nodes[i].name);
                for ind in nd["indicators"].as_array().unwrap() {
                    let label = ind[0].as_str().unwrap();
                    let v = want.nodes[i].variables[var(&format!("tasks_{label}"))].unwrap_or(0.0);
                    assert_eq!(ind[1].as_f64().unwrap(), v, "{label} of {i} at {t}");
                    checked.0 += 1;
                }
            }
            let drawn: BTreeMap<(String, String), f64> = n["drawn"]
                .as_array()
                .unwrap()
                .iter()
                .map(|a| {
                    let key = (
                        a["from"].as_str().unwrap().to_string(),
                        a["to"].as_str().unwrap().to_string(),
                    );
                    (key, a["value"].as_f64().unwrap())
                })
                .collect();
            let expected: BTreeMap<(String, String), f64> = pair_totals(&want, &arcs)
                .into_iter()
                .filter(|(a, b, _)| a != b)
                .map(|(a, b, x)| {
                    let name = |i: u32| stage.nodes[i as usize].name.clone();
                    ((name(a), name(b)), x)
                })
                .collect();
            assert_eq!(drawn, expected, "arcs {kind} at {t}");
            checked.1 += drawn.len();
        }
    }
    assert!(checked.0 > 100 && checked.1 > 20, "checked {checked:?}");
}

/// An arc's tooltip: every kind of link between the pair.
async fn arc_tooltip_lists_every_link(
    c: &Client,
    trace: &trama_sim::Trace,
    stage: &NodeStage,
    links: &NodeLinks,
    (t0, t1): (f64, f64),
) {
    set(c, "p-arcs", "all").await;
    let mut shown = false;
    for k in 0..40 {
        let t = t0 + (t1 - t0) * k as f64 / 40.0;
        js(c, &format!("window.trama.player().seek({t}); return true")).await;
        until(c, &format!("const n = window.trama.frame().nodes; return n != null && Math.abs(n.t - {t}) < 1e-9"), "the frame").await;
        let at = js(c, "const e = document.querySelector('#p-nodes .arc-info rect'); if (!e) return null; const r = e.getBoundingClientRect(); const g = e.parentNode; return [r.left + r.width / 2, r.top + r.height / 2, +g.dataset.from, +g.dataset.to]").await;
        if at.is_null() {
            continue;
        }
        move_to(c, at[0].as_f64().unwrap(), at[1].as_f64().unwrap()).await;
        until(
            c,
            "return !document.getElementById('p-tip').hidden",
            "the arc's tooltip",
        )
        .await;
        let tip = js(c, "return document.getElementById('p-tip').textContent").await;
        let tip = tip.as_str().unwrap();
        let want = node_frame(
            trace,
            stage,
            links,
            t,
            nodes(c).await["dt"].as_f64().unwrap(),
        );
        let (a, b) = (
            at[2].as_u64().unwrap() as u32,
            at[3].as_u64().unwrap() as u32,
        );
        for arc in want
            .arcs
            .iter()
            .filter(|x| (x.from, x.to) == (a, b) || (x.from, x.to) == (b, a))
        {
            let line = format!("{} {}:", arc.ty, arc.value);
            assert!(tip.contains(&line), "{line} in the tooltip {tip}");
        }
        shown = true;
        break;
    }
    assert!(shown, "a frame with an arc");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_node_view_draws_the_frame_model_and_keeps_dragged_nodes() {
    let Some(d) = driver() else { return };
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("fib.xml");
    let mut g = trama_gen::opents::OpentsGenOptions::default();
    (g.ranks, g.slices) = (6, 120);
    let mut file = std::fs::File::create(&path).unwrap();
    trama_gen::opents::write_opents(3, &g, &mut file).unwrap();
    drop(file);
    let mut lo = LoadOptions::default();
    lo.keep_extras = true;
    let trace = trama_open::load(&Source::Path(path.clone()), &lo).unwrap();
    let stage = NodeStage::new(&trace, None, None, true).unwrap();
    let links = NodeLinks::new(&trace, &stage);
    let (t0, t1) = (trace.start_time(), trace.end_time());
    let mut opts = ViewerOptions::default();
    opts.port = Some(0);
    opts.name = "fib.xml".into();
    opts.run_info = trama_open::open(&trama_open::Source::Path(path.clone()))
        .unwrap()
        .run_info()
        .to_vec();
    let served = trama_open::load(&Source::Path(path.clone()), &lo).unwrap();
    let server = start(served, &opts).unwrap();
    let trace = &trace;
    let c = browser(&d).await;
    c.goto(&format!("{}#player", server.url)).await.unwrap();
    until(
        &c,
        "const f = window.trama.frame(); return f != null && f.nodes != null",
        "the node view",
    )
    .await;
    assert_eq!(js(&c, "return window.trama.frame().view").await, "nodes");

    let var = |name: &str| stage.variables.iter().position(|v| v == name).unwrap();
    frames_follow_the_model(&c, trace, &stage, &links, (t0, t1)).await;
    arc_tooltip_lists_every_link(&c, trace, &stage, &links, (t0, t1)).await;

    // A click on a node selects it: panel A is its, B the sum, C the run.
    let place = |n: &Value, i: usize| {
        (
            n["nodes"][i]["x"].as_f64().unwrap(),
            n["nodes"][i]["y"].as_f64().unwrap(),
        )
    };
    let n = nodes(&c).await;
    let (x, y) = place(&n, 2);
    click(&c, x, y).await;
    until(
        &c,
        &format!(
            "return window.trama.frame().nodes.selected === {}",
            json!(stage.nodes[2].name)
        ),
        "the selection",
    )
    .await;
    let n = nodes(&c).await;
    let f = node_frame(
        trace,
        &stage,
        &links,
        n["t"].as_f64().unwrap(),
        n["dt"].as_f64().unwrap(),
    );
    let started = f.nodes[2].variables[var("tasks_started")].unwrap_or(0.0);
    let a = panel_number(row(&n["panels"]["A"], "started"));
    assert!(
        (a - started).abs() <= 1e-3 * started.max(1.0),
        "A: {a} vs {started}"
    );
    let sum: f64 = f
        .nodes
        .iter()
        .filter_map(|x| x.variables[var("tasks_started")])
        .sum();
    let b = panel_number(row(&n["panels"]["B"], "started"));
    assert!((b - sum).abs() <= 1e-3 * sum.max(1.0), "B: {b} vs {sum}");
    assert_eq!(row(&n["panels"]["C"], "command"), "fib 40");
    assert_eq!(row(&n["panels"]["C"], "nodes"), "6 (rank)");

    // A dragged node moves, and keeps its place at the next frame and
    // after a reload.
    let (x0, y0) = place(&n, 0);
    let box_ = js(&c, "const r = document.getElementById('p-nodes').getBoundingClientRect(); return [r.left, r.top, r.width, r.height]").await;
    let (bx, by, bw, bh) = (
        box_[0].as_f64().unwrap(),
        box_[1].as_f64().unwrap(),
        box_[2].as_f64().unwrap(),
        box_[3].as_f64().unwrap(),
    );
    let (x1, y1) = (bx + bw * 0.5, by + bh * 0.55);
    drag(&c, (x0, y0), (x1, y1)).await;
    let moved = nodes(&c).await;
    let (mx, my) = place(&moved, 0);
    assert!(
        (mx - x1).abs() < 3.0 && (my - y1).abs() < 3.0,
        "dropped at ({x1}, {y1}), drawn at ({mx}, {my})"
    );
    let kept = moved["nodes"][0]["place"].clone();
    assert_eq!(moved["selected"], n["selected"], "a drag does not select");
    js(&c, "window.trama.player().stepBy(1); return true").await;
    until(
        &c,
        &format!("return window.trama.frame().nodes.t > {}", n["t"]),
        "the next frame",
    )
    .await;
    assert_eq!(
        nodes(&c).await["nodes"][0]["place"],
        kept,
        "kept at the next frame"
    );
    c.refresh().await.unwrap();
    until(
        &c,
        "return document.body.dataset.state === 'ready'",
        "the page again",
    )
    .await;
    if js(&c, "return document.getElementById('player').hidden").await == json!(true) {
        press(&c, "player-button").await;
    }
    until(
        &c,
        "const f = window.trama.frame(); return f != null && f.nodes != null",
        "the node view again",
    )
    .await;
    assert_eq!(
        nodes(&c).await["nodes"][0]["place"],
        kept,
        "kept after a reload"
    );
    // The other style inscribes sectors.
    set(&c, "p-sbars", "1").await;
    until(&c, "return window.trama.frame().nodes.style === 1 && document.querySelector('#p-nodes path.ind-rim') != null", "sectors").await;
    c.close().await.unwrap();
    server.stop();
}
