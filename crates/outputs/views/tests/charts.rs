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

/// Regression: the mapping beyond 16 hosts. 64 hosts of one process each:
/// the hosts' names shortened to what tells them apart, none overlapping
/// another, those left out counted, every host's name in its tooltip.
#[test]
fn mapping_of_64_hosts_names_them_without_overlap() {
    let hosts: Vec<(String, Vec<trama_views::Mapped>)> = (0..64)
        .map(|i| {
            let p = (
                format!("Master thread (MPI Rank {i})"),
                "#d0302f".to_string(),
                "compute".to_string(),
            );
            (format!("MPI Rank {i}"), vec![p])
        })
        .collect();
    let mut out = Vec::new();
    trama_views::mapping_chart("m", None, &hosts, 800, &mut out).unwrap();
    let s = parse(&out);
    let bold: Vec<(f64, f64, String)> = s
        .split("<text ")
        .filter(|t| t.contains("font-weight=\"bold\""))
        .map(|t| {
            let num = |k: &str| {
                t.split(k)
                    .nth(1)
                    .unwrap()
                    .split('"')
                    .next()
                    .unwrap()
                    .parse::<f64>()
                    .unwrap()
            };
            let text = t
                .split('>')
                .nth(1)
                .unwrap()
                .split('<')
                .next()
                .unwrap()
                .to_string();
            (num("x=\""), num("y=\""), text)
        })
        .filter(|(_, _, t)| t != "m")
        .collect();
    let hidden: usize = s
        .split("names left out")
        .next()
        .and_then(|t| t.rsplit(" · ").next())
        .and_then(|t| t.rsplit('>').next())
        .and_then(|t| t.trim().parse().ok())
        .unwrap_or(0);
    assert_eq!(
        bold.len() + hidden,
        64,
        "{} labelled, {hidden} left out",
        bold.len()
    );
    assert!(bold.len() >= 32, "{} labelled", bold.len());
    for (_, _, t) in &bold {
        assert!(t.parse::<u32>().is_ok(), "short name {t}");
    }
    assert!(s.contains("hosts: MPI Rank …"));
    // No two labels overlap (6.6 pixels a character, 12 high).
    for (i, a) in bold.iter().enumerate() {
        for b in &bold[i + 1..] {
            let (wa, wb) = (6.6 * a.2.len() as f64, 6.6 * b.2.len() as f64);
            assert!(
                (a.0 - b.0).abs() >= (wa + wb) / 2.0 || (a.1 - b.1).abs() >= 12.0,
                "{a:?} over {b:?}"
            );
        }
    }
    for i in 0..64 {
        assert!(s.contains(&format!("<title>MPI Rank {i}</title>")));
    }
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
