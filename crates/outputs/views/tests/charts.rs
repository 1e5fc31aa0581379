//! Charts: well-formed SVG, seed 002's gradient rules, labels present.

use trama_views::{heatmap, kiviat_chart, process_graph, Heatmap};

fn parse(svg: &[u8]) -> String {
    let s = String::from_utf8(svg.to_vec()).unwrap();
    roxmltree::Document::parse(&s).unwrap_or_else(|e| panic!("not well-formed: {e}"));
    s
}

#[test]
fn heatmap_follows_min_and_max() {
    let mut h = Heatmap::default();
    h.title = "t".into();
    h.rows = vec!["a".into(), "b & c".into()];
    h.cols = vec!["x".into(), "y".into()];
    h.values = vec![vec![0.5, 5.0], vec![2.0, 3.0]];
    h.min = Some(1.0);
    h.max = Some(4.0);
    let mut out = Vec::new();
    heatmap(&h, &mut out).unwrap();
    let s = parse(&out);
    // 0.5 < min: black; 5 > max: white; the others on the gradient.
    let fills: Vec<&str> = s
        .split("fill=\"")
        .skip(1)
        .map(|x| &x[..7])
        .filter(|f| f.starts_with('#'))
        .collect();
    assert!(
        fills.contains(&"#000000") && fills.contains(&"#ffffff"),
        "{fills:?}"
    );
    assert!(s.contains("b &amp; c"));
}

#[test]
fn graph_and_kiviat_draw_every_node_and_host() {
    let nodes = vec![("p0".to_string(), 0.0, 0.0), ("p1".to_string(), 1.0, 1.0)];
    let mut out = Vec::new();
    process_graph("g", None, &nodes, &[(0, 1, 7)], 400, &mut out).unwrap();
    let s = parse(&out);
    assert_eq!(s.matches("<circle").count(), 2);
    assert_eq!(s.matches("<line").count(), 1);
    let hosts = vec!["h1".to_string(), "h2".to_string(), "h3".to_string()];
    let mut out = Vec::new();
    kiviat_chart(
        "k",
        None,
        &hosts,
        &[1.0, 2.0],
        &[vec![0.5, 0.5, 0.0], vec![0.2, 0.3, 0.5]],
        400,
        &mut out,
    )
    .unwrap();
    let s = parse(&out);
    for h in &hosts {
        assert!(s.contains(h.as_str()));
    }
    assert_eq!(s.matches("<path d=\"M").count(), 2);
}

/// Golden SVGs of every chart on small inputs (regenerate with
/// `TRAMA_BLESS=1`).
#[test]
fn charts_match_their_golden_svgs() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/results");
    let check = |name: &str, svg: Vec<u8>| {
        parse(&svg);
        trama_gen::golden::check(dir.join(name), &svg);
    };
    let mut h = Heatmap::default();
    h.title = "Messages".into();
    h.rows = vec!["p0".into(), "p1".into()];
    h.cols = h.rows.clone();
    h.values = vec![vec![0.0, 3.0], vec![1.0, 0.0]];
    let mut out = Vec::new();
    heatmap(&h, &mut out).unwrap();
    check("heatmap.svg", out);
    let nodes = vec![("p0".to_string(), 0.0, 0.5), ("p1".to_string(), 1.0, 0.5)];
    let mut out = Vec::new();
    process_graph("Graph", None, &nodes, &[(0, 1, 4)], 300, &mut out).unwrap();
    check("graph.svg", out);
    let hosts = vec!["h1".to_string(), "h2".to_string(), "h3".to_string()];
    let mut out = Vec::new();
    kiviat_chart(
        "Kiviat",
        None,
        &hosts,
        &[1.0],
        &[vec![0.5, 0.25, 0.25]],
        300,
        &mut out,
    )
    .unwrap();
    check("kiviat.svg", out);
    let mapped = vec![(
        "h1".to_string(),
        vec![(
            "p0".to_string(),
            "#4e79a7".to_string(),
            "Compute".to_string(),
        )],
    )];
    let mut out = Vec::new();
    trama_views::mapping_chart("Mapping", None, &mapped, 300, &mut out).unwrap();
    check("mapping.svg", out);
    let mut out = Vec::new();
    trama_views::process_detail(
        "p0",
        &[("p1".to_string(), 0.5)],
        &[
            ("Compute".to_string(), "#4e79a7".to_string(), 3.0),
            ("Wait".to_string(), "#e15759".to_string(), 1.0),
        ],
        &mut out,
    )
    .unwrap();
    check("process.svg", out);
}
