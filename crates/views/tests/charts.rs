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
    process_graph("g", &nodes, &[(0, 1, 7)], 400, &mut out).unwrap();
    let s = parse(&out);
    assert_eq!(s.matches("<circle").count(), 2);
    assert_eq!(s.matches("<line").count(), 1);
    let hosts = vec!["h1".to_string(), "h2".to_string(), "h3".to_string()];
    let mut out = Vec::new();
    kiviat_chart(
        "k",
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
