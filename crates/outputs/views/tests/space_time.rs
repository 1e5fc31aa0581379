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

/// The number in the first attribute `name` of `s` (`name="…"`).
fn attr(s: &str, name: &str) -> f64 {
    s.split(&format!("{name}=\""))
        .nth(1)
        .unwrap()
        .split('"')
        .next()
        .unwrap()
        .parse()
        .unwrap()
}

#[test]
fn ring_example_matches_its_golden_svg() {
    let example = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../examples/ring.paje");
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
    let marks: usize = svg
        .split("<path class=\"v")
        .skip(1)
        .map(|p| p.split('"').nth(2).unwrap().matches('h').count())
        .sum();
    assert!(marks > 100, "{marks} marks");
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

const DEFS: &str = "%EventDef PajeDefineContainerType 0\n% Alias string\n% Type string\n% Name string\n%EndEventDef\n\
%EventDef PajeDefineStateType 1\n% Alias string\n% Type string\n% Name string\n%EndEventDef\n\
%EventDef PajeCreateContainer 2\n% Time date\n% Alias string\n% Type string\n% Container string\n% Name string\n%EndEventDef\n\
%EventDef PajeSetState 3\n% Time date\n% Type string\n% Container string\n% Value string\n%EndEventDef\n\
%EventDef PajePushState 4\n% Time date\n% Type string\n% Container string\n% Value string\n%EndEventDef\n\
%EventDef PajePopState 5\n% Time date\n% Type string\n% Container string\n%EndEventDef\n\
%EventDef PajeDefineLinkType 6\n% Alias string\n% Type string\n% StartContainerType string\n% EndContainerType string\n% Name string\n%EndEventDef\n\
%EventDef PajeStartLink 7\n% Time date\n% Type string\n% Container string\n% StartContainer string\n% Value string\n% Key string\n%EndEventDef\n\
%EventDef PajeEndLink 8\n% Time date\n% Type string\n% Container string\n% EndContainer string\n% Value string\n% Key string\n%EndEventDef\n\
%EventDef PajeDefineEntityValue 9\n% Alias string\n% Type string\n% Name string\n% Color color\n%EndEventDef\n\
0 P 0 Proc\n1 S P State\n6 L 0 P P Msg\n";

/// The rectangles (x, y, width, height) of the state paths of a class
/// (its first path: the outermost level it is drawn at).
fn rects(svg: &str, class: &str) -> Vec<(f64, f64, f64, f64)> {
    rects_nth(svg, class, 0)
}

/// The rectangles of the `n`th path of a class (one per nesting level):
/// runs along a line (`M x,y`, `m dx,dy`, `h w`) as wide as the stroke.
fn rects_nth(svg: &str, class: &str, n: usize) -> Vec<(f64, f64, f64, f64)> {
    let path = svg
        .split(&format!("<path class=\"{class}\" d=\""))
        .nth(n + 1)
        .unwrap_or_else(|| panic!("no path {n} of {class}"));
    let d = path.split('"').next().unwrap();
    let h: f64 = attr(path, "stroke-width");
    let mut out = Vec::new();
    let (mut x, mut y) = (0.0, 0.0);
    let mut rest = d;
    while let Some(c) = rest.chars().next() {
        let end = rest[1..]
            .find(['M', 'm', 'h'])
            .map_or(rest.len(), |i| i + 1);
        let arg = &rest[1..end];
        match c {
            'M' | 'm' => {
                let (a, b) = arg.split_once(',').unwrap();
                let (a, b): (f64, f64) = (a.parse().unwrap(), b.parse().unwrap());
                if c == 'M' {
                    (x, y) = (a, b);
                } else {
                    (x, y) = (x + a, y + b);
                }
            }
            _ => {
                let w: f64 = arg.parse().unwrap();
                out.push((x, y - h / 2.0, w, h));
                x += w;
            }
        }
        rest = &rest[end..];
    }
    out
}

fn class_of(t: &Trace, name: &str) -> String {
    let m = &t.model;
    let v = m
        .values
        .iter()
        .position(|v| m.str(v.name) == name.as_bytes())
        .unwrap();
    format!("v{v}")
}

#[test]
fn nested_states_are_drawn_inside_and_over_their_parent() {
    // As in the smpi-replay trace: computing (the first value, so the
    // lower id) nested in action_reduce.
    let t = simulate(&format!(
        "{DEFS}2 0 p1 P 0 p1\n4 0 S p1 computing\n5 1 S p1\n4 1 S p1 action_reduce\n\
         4 2 S p1 computing\n5 4 S p1\n5 10 S p1\n"
    ));
    let svg = render(&t, &SpaceTimeOptions::default());
    let (outer, inner) = (class_of(&t, "action_reduce"), class_of(&t, "computing"));
    let (o, i) = (rects(&svg, &outer)[0], rects_nth(&svg, &inner, 1)[0]);
    // Drawn after (over) its parent, strictly inside it vertically.
    let at = |class: &str, n: usize| {
        svg.match_indices(&format!("class=\"{class}\" d="))
            .nth(n)
            .unwrap()
            .0
    };
    assert!(at(&outer, 0) < at(&inner, 1));
    assert!(i.1 > o.1 && i.1 + i.3 < o.1 + o.3, "{o:?} {i:?}");
    assert!(i.0 > o.0 && i.0 + i.2 < o.0 + o.2, "{o:?} {i:?}");
}

#[test]
fn dense_links_become_a_strip_and_sparse_ones_stay_arrows() {
    let mut text = format!("{DEFS}2 0 p1 P 0 p1\n2 0 p2 P 0 p2\n3 0 S p1 run\n3 0 S p2 run\n");
    for k in 0..2000 {
        let t = 1.0 + k as f64 * 0.0005;
        text.push_str(&format!(
            "7 {t} L 0 p1 m k{k}\n8 {} L 0 p2 m k{k}\n",
            t + 0.1
        ));
    }
    text.push_str("7 8 L 0 p2 m lone\n8 9 L 0 p1 m lone\n3 10 S p1 run\n");
    let svg = render(&simulate(&text), &SpaceTimeOptions::default());
    let arrows = svg
        .split("marker-end=\"url(#arrow)\">")
        .nth(1)
        .expect("the lone arrow")
        .split("</g>")
        .next()
        .unwrap();
    assert_eq!(arrows.matches("<path").count(), 1, "{arrows}");
    assert!(svg.contains("2001 links: 1 drawn as arrows where few begin, 2000 as the grey strip"));
    assert!(svg.contains("stroke=\"rgb("), "a density strip");
    // Fewer links than the limit: every one an arrow.
    let mut o = SpaceTimeOptions::default();
    o.max_links = 5000;
    let svg = render(&simulate(&text), &o);
    assert!(!svg.contains("stroke=\"rgb("));
    assert!(svg.contains(">2001 links.<"));
}

#[test]
fn rows_with_nothing_in_the_window_are_hidden_and_counted() {
    let t = simulate(&format!(
        "{DEFS}2 0 p1 P 0 p1\n2 0 p2 P 0 p2\n2 0 p3 P 0 p3\n3 0 S p1 a\n3 6 S p2 b\n3 10 S p1 a\n"
    ));
    let svg = render(&t, &SpaceTimeOptions::default());
    assert!(svg.contains(">p1<") && svg.contains(">p2<") && !svg.contains(">p3<"));
    assert!(
        svg.contains(">1 row with nothing in the window is hidden.<"),
        "{svg}"
    );
    let mut o = SpaceTimeOptions::default();
    o.window = Some((1.0, 5.0));
    let svg = render(&t, &o);
    assert!(svg.contains(">p1<") && !svg.contains(">p2<"));
    assert!(svg.contains(">2 rows with nothing in the window are hidden.<"));
}

#[test]
fn a_trace_at_one_instant_gets_an_axis_and_a_note() {
    let t = simulate(&format!("{DEFS}2 0 p1 P 0 p1\n3 0 S p1 a\n"));
    let svg = render(&t, &SpaceTimeOptions::default());
    assert!(svg.contains("Space-time view, t = 0<"));
    assert!(svg.contains(">Every entity is at t = 0: the window spans no time"));
    for tick in [">-0.4<", ">0.0<", ">0.4<"] {
        assert!(svg.contains(tick), "axis tick {tick}");
    }
    // The state is drawn in the middle of the plot.
    let r = rects(&svg, &class_of(&t, "a"))[0];
    let axis: Vec<f64> = svg
        .split("<path d=\"M")
        .filter_map(|p| p.split_once(",").map(|x| x.0.parse::<f64>()))
        .filter_map(Result::ok)
        .collect();
    assert!(!axis.is_empty());
    assert!(r.0 > 600.0 && r.0 < 1300.0, "{r:?}");
}

#[test]
fn the_legend_shows_every_value_once_with_its_swatch_inside_the_picture() {
    // 23 values, two of them under one name with the trace's colour given
    // to one (two values, two colours, two entries told apart).
    let mut text =
        format!("{DEFS}9 c S compute \"0 0 1\"\n2 0 p1 P 0 p1\n3 0 S p1 c\n3 1 S p1 compute\n");
    for i in 0..21 {
        text.push_str(&format!("3 {} S p1 a-rather-long-value-name-{i}\n", 2 + i));
    }
    text.push_str("3 30 S p1 c\n");
    let t = simulate(&text);
    let mut o = SpaceTimeOptions::default();
    o.width = 700;
    let svg = render(&t, &o);
    assert_eq!(svg.matches(">compute</text>").count(), 1);
    assert_eq!(svg.matches(">compute (c)</text>").count(), 1);
    for i in 0..21 {
        assert_eq!(
            svg.matches(&format!(">a-rather-long-value-name-{i}</text>"))
                .count(),
            1,
            "value {i}"
        );
    }
    assert_eq!(svg.matches("<rect x=").count(), 23, "one swatch per entry");
    let height: f64 = attr(&svg, "height");
    for part in svg.split("<rect x=\"").skip(1) {
        let x: f64 = part.split('"').next().unwrap().parse().unwrap();
        let y: f64 = attr(part, "y");
        let label = part
            .split("</text>")
            .next()
            .unwrap()
            .rsplit('>')
            .next()
            .unwrap();
        assert!(
            x + 18.0 + 6.8 * label.chars().count() as f64 <= 700.0,
            "{label} cut at {x}"
        );
        assert!(y + 12.0 < height, "{label} below the picture");
    }
    // Both "compute" values are drawn in the trace's colour.
    let c = class_of(&t, "compute");
    assert!(svg.contains(&format!(".{c}{{stroke:#0000ff}}")), "{svg}");
}

/// The legend's entries of `svg`: (label, colour).
fn legend_entries(svg: &str) -> Vec<(String, String)> {
    svg.split("<rect ")
        .skip(1)
        .filter(|r| r.contains("stroke=\"#666\""))
        .map(|r| {
            let fill = r
                .split("fill=\"")
                .nth(1)
                .unwrap()
                .split('"')
                .next()
                .unwrap();
            let label = r
                .split("fill=\"#333\">")
                .nth(1)
                .unwrap()
                .split('<')
                .next()
                .unwrap();
            (label.to_string(), fill.to_string())
        })
        .collect()
}

/// Regression: two values of one name in a state type ("compute" defined
/// twice, and once more by a state that names it) got one legend entry and
/// two colours. Each value has a colour of its own, the same in every
/// picture and in the viewer (`value_colors`), and a legend entry that
/// tells it apart.
#[test]
fn two_values_with_one_name_get_two_colours_and_two_legend_entries() {
    let text = "%EventDef PajeDefineContainerType 0\n% Alias string\n% Type string\n% Name string\n%EndEventDef\n\
         %EventDef PajeDefineStateType 1\n% Alias string\n% Type string\n% Name string\n%EndEventDef\n\
         %EventDef PajeCreateContainer 2\n% Time date\n% Alias string\n% Type string\n% Container string\n% Name string\n%EndEventDef\n\
         %EventDef PajeSetState 3\n% Time date\n% Type string\n% Container string\n% Value string\n%EndEventDef\n\
         %EventDef PajeDefineEntityValue 4\n% Alias string\n% Type string\n% Name string\n% Color color\n%EndEventDef\n\
         0 P 0 Proc\n1 S P State\n4 c1 S compute \"1 0 0\"\n4 c2 S compute \"0 0 1\"\n\
         2 0 p1 P 0 p1\n2 0 p2 P 0 p2\n2 0 p3 P 0 p3\n\
         3 0 S p1 c1\n3 0 S p2 c2\n3 0 S p3 compute\n3 10 S p1 c2\n";
    let t = simulate(text);
    let mut o = SpaceTimeOptions::default();
    o.width = 800;
    let svg = render(&t, &o);
    let mut legend = legend_entries(&svg);
    legend.sort();
    let colors = trama_views::value_colors(&t.model);
    let labels = t.model.value_labels();
    let mut expected: Vec<(String, String)> = labels.into_iter().zip(colors.clone()).collect();
    expected.sort();
    assert_eq!(legend, expected, "{svg}");
    assert_eq!(legend.len(), 3);
    assert!(legend.contains(&("compute (c1)".to_string(), "#ff0000".to_string())));
    assert!(legend.contains(&("compute (c2)".to_string(), "#0000ff".to_string())));
    let third = &legend.iter().find(|e| e.0 == "compute").unwrap().1;
    assert!(third != "#ff0000" && third != "#0000ff", "{third}");
    // The states are drawn in their legend's colours.
    for (_, c) in &legend {
        assert!(svg.contains(&format!("{{stroke:{c}}}")), "{c}: {svg}");
    }
}

/// regression: values took a colour of a 20-entry palette by the hash of
/// their name alone, so that a trace's 79 regions got 19 colours. The
/// values of one kind now get distinct colours, stable for a name, and
/// a trace's own colours are kept.
#[test]
fn many_values_of_one_kind_get_distinct_colours() {
    let mut text = trama_gen::event_defs(
        "PajeDefineContainerType 0; PajeDefineStateType 1; PajeCreateContainer 2; \
         PajeSetState 4; PajeDefineEntityValue 5 Alias Type Name Color:color",
    );
    text.push_str("0 P 0 Proc\n1 S P State\n1 T P Other\n2 0 p P 0 p\n");
    text.push_str("5 red S painted \"1 0 0\"\n");
    for v in 0..100 {
        text.push_str(&format!("4 {v} S p region-{v}\n4 {v} T p region-{v}\n"));
    }
    let t = simulate(&text);
    let m = &t.model;
    let colors = trama_views::value_colors(m);
    let mut by_name = std::collections::HashMap::new();
    for (v, c) in m.values.iter().zip(&colors) {
        let name = m.label(v.name);
        // One name, one colour, in both types.
        assert_eq!(
            by_name.entry(name.clone()).or_insert(c.clone()),
            c,
            "{name}"
        );
    }
    assert_eq!(by_name["painted"], "#ff0000");
    let mut distinct: Vec<&String> = by_name.values().collect();
    distinct.sort();
    distinct.dedup();
    assert_eq!(distinct.len(), 101, "{by_name:?}");
    // Stable: the same trace gives the same colours.
    assert_eq!(trama_views::value_colors(&simulate(&text).model), colors);
}
