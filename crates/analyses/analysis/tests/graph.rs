//! Communication graph and its layout.

mod common;

use trama_analysis::{graph, Messages, Window};

#[test]
fn edges_are_undirected_and_weighted() {
    let t = common::simulate(&common::links(), false);
    let g = graph(&t, Window::of(&t), &Messages::all(), 100);
    let names: Vec<&str> = g.nodes.iter().map(|n| n.name.as_str()).collect();
    assert_eq!(names, ["proc1", "proc2", "proc3"]);
    let e: Vec<(usize, usize, u64)> = g.edges.iter().map(|e| (e.a, e.b, e.messages)).collect();
    // p1–p2: k3; p1–p3: k1, k2 and k4 (the other way).
    assert_eq!(e, [(0, 1, 1), (0, 2, 3)]);
    assert_eq!(g.nodes[0].messages, 4);
    for n in &g.nodes {
        assert!(
            (0.0..=1.0).contains(&n.x) && (0.0..=1.0).contains(&n.y),
            "{n:?}"
        );
    }
    // Deterministic.
    assert_eq!(g, graph(&t, Window::of(&t), &Messages::all(), 100));
}

/// Two groups of four processes talking a lot inside and once across end
/// up apart: every inside distance is below every across distance.
#[test]
fn the_layout_separates_clusters() {
    let mut text = common::defs(&[
        "PajeDefineContainerType",
        "PajeDefineLinkType",
        "PajeCreateContainer",
        "PajeStartLink",
        "PajeEndLink",
    ]) + "0 P 0 P\n1 L 0 P P L\n";
    for i in 0..8 {
        text.push_str(&format!("2 0 p{i} P 0 p{i}\n"));
    }
    let mut key = 0;
    let mut t = 1.0;
    let mut link = |text: &mut String, a: usize, b: usize| {
        text.push_str(&format!(
            "3 {t} L 0 p{a} m k{key}\n4 {t} L 0 p{b} m k{key}\n"
        ));
        key += 1;
        t += 1.0;
    };
    for group in [0, 4] {
        for a in group..group + 4 {
            for b in group..group + 4 {
                if a < b {
                    for _ in 0..5 {
                        link(&mut text, a, b);
                    }
                }
            }
        }
    }
    link(&mut text, 0, 4);
    let tr = common::simulate(&text, false);
    let g = graph(&tr, Window::of(&tr), &Messages::all(), 300);
    assert_eq!(g.nodes.len(), 8);
    let d = |i: usize, j: usize| {
        let (a, b) = (&g.nodes[i], &g.nodes[j]);
        ((a.x - b.x).powi(2) + (a.y - b.y).powi(2)).sqrt()
    };
    let group = |i: usize| g.nodes[i].name[1..].parse::<usize>().unwrap() / 4;
    let (mut inside, mut across) = (0.0f64, f64::MAX);
    for i in 0..8 {
        for j in (i + 1)..8 {
            if group(i) == group(j) {
                inside = inside.max(d(i, j));
            } else {
                across = across.min(d(i, j));
            }
        }
    }
    assert!(inside < across, "inside {inside} across {across}");
}
