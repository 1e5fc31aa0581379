//! The space-time view: a golden SVG (regenerate with `TRAMA_BLESS=1`),
//! well-formed SVG whatever the input, and a size bounded by the picture.
#![allow(clippy::result_large_err)]

use std::path::Path;

use common::simulate;
use trama_sim::Trace;
use trama_views::{space_time, svg_to_png, SpaceTimeOptions};

mod common;

fn render(t: &Trace, opts: &SpaceTimeOptions) -> String {
    let mut out = Vec::new();
    space_time(t, opts, &mut out).unwrap();
    let svg = String::from_utf8(out).unwrap();
    roxmltree::Document::parse(&svg).unwrap_or_else(|e| panic!("not well-formed SVG: {e}"));
    svg
}

fn data(name: &str) -> std::path::PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data")
        .join(name)
}

#[test]
fn ring_example_matches_its_golden_svg() {
    let example = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples/ring.paje");
    let text = std::fs::read_to_string(example).unwrap();
    let t = simulate(&text);
    let mut o = SpaceTimeOptions::default();
    o.width = 1200;
    let svg = render(&t, &o);
    trama_gen::golden::check(data("results/ring.space-time.svg"), &svg);
    // What it must show: every container, the legend's values, arrows.
    for name in ["node-0", "rank-3", "Compute", "MPI_Send", "24 links"] {
        assert!(svg.contains(name), "{name} missing");
    }
    assert_eq!(svg.matches("marker-end").count(), 1);
    // A node's variable has a row of its own, labelled, below its ranks.
    let at = |label: &str| svg.find(&format!(">{label}</text>")).unwrap();
    assert!(at("rank-1") < at("Memory") && at("Memory") < at("node-1"));
    assert_eq!(svg.matches(">Memory</text>").count(), 2);
    assert!(svg.matches("<path d=\"M").count() >= 24);
    // It rasterizes.
    let png = svg_to_png(svg.as_bytes()).unwrap();
    assert_eq!(&png[1..4], b"PNG");
}

#[test]
fn many_tiny_states_stay_one_mark_per_pixel() {
    let mut text = String::from(
        "%EventDef PajeDefineContainerType 0\n% Alias string\n% Type string\n% Name string\n%EndEventDef\n\
         %EventDef PajeDefineStateType 1\n% Alias string\n% Type string\n% Name string\n%EndEventDef\n\
         %EventDef PajeCreateContainer 2\n% Time date\n% Alias string\n% Type string\n% Container string\n\
         % Name string\n%EndEventDef\n\
         %EventDef PajeSetState 3\n% Time date\n% Type string\n% Container string\n% Value string\n%EndEventDef\n\
         0 P 0 Proc\n1 S P State\n2 0 p1 P 0 p1\n2 0 p2 P 0 p2\n",
    );
    // 40,000 states alternating between two values on each of two rows.
    for i in 0..20_000 {
        let t = i as f64 * 0.001;
        text.push_str(&format!(
            "3 {t} S p1 v{}\n3 {t} S p2 v{}\n",
            i % 2,
            (i / 3) % 2
        ));
    }
    let t = simulate(&text);
    let mut o = SpaceTimeOptions::default();
    o.width = 400;
    let svg = render(&t, &o);
    let marks = svg.matches('z').count();
    assert!(marks <= 2 * 400, "{marks} marks for 2 rows of 400 px");
    assert!(svg.len() < 64 * 1024, "{} bytes", svg.len());
    // A window shows only its part, with its own axis.
    o.window = Some((5.0, 5.1));
    let svg = render(&t, &o);
    assert!(
        svg.contains(">5.00<") || svg.contains(">5.0<"),
        "axis labels of the window"
    );
}

#[test]
fn every_value_of_a_variable_gets_its_step() {
    // Values 1, 5, 2, 4, 3 one second apart: five levels, each drawn once.
    let mut text = String::from(
        "%EventDef PajeDefineContainerType 0\n% Alias string\n% Type string\n% Name string\n%EndEventDef\n\
         %EventDef PajeDefineVariableType 1\n% Alias string\n% Type string\n% Name string\n% Color color\n%EndEventDef\n\
         %EventDef PajeCreateContainer 6\n% Time date\n% Alias string\n% Type string\n% Container string\n% Name string\n%EndEventDef\n\
         %EventDef PajeSetVariable 8\n% Time date\n% Container string\n% Type string\n% Value double\n%EndEventDef\n\
         0 H 0 Host\n1 V H load \"1 0 0\"\n6 0 h H 0 h\n",
    );
    for (t, v) in [1, 5, 2, 4, 3].iter().enumerate() {
        text.push_str(&format!("8 {t} h V {v}\n"));
    }
    text.push_str("8 5 h V 3\n");
    let svg = render(&simulate(&text), &SpaceTimeOptions::default());
    let d = svg
        .split("<path d=\"")
        .skip(1)
        .find(|p| p.split('>').next().unwrap().contains("fill=\"none\""))
        .map(|p| p.split('"').next().unwrap())
        .expect("a step plot");
    // One vertical move per change of value: 1→5→2→4→3 (relative moves).
    assert_eq!(d.matches('v').count(), 4, "{d}");
    let y0: i64 = d[1..]
        .split(',')
        .nth(1)
        .unwrap()
        .split('h')
        .next()
        .unwrap()
        .parse()
        .unwrap();
    let mut y = y0;
    let mut ys = Vec::new();
    for part in d.split('v').skip(1) {
        y += part.split('h').next().unwrap().parse::<i64>().unwrap();
        ys.push(y);
    }
    // 5 is the top (smallest y), then 2 low, 4 high, 3 between; 1 lowest.
    assert!(
        ys[0] < ys[2] && ys[2] < ys[3] && ys[3] < ys[1] && ys[1] < y0,
        "{ys:?} {y0}"
    );
    // The legend names the variable with its range in the window.
    assert!(svg.contains(">load 1–5</text>"), "{svg}");
}
