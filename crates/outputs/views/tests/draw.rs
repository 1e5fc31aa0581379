//! Every view of a trace through `draw`, and the views of analysis results.

mod common;

use trama_analysis::{order, states_at, wait_matrix, Messages, Window};
use trama_views::{draw, draw_mapping, draw_wait_matrix, View, ViewError, ViewOptions};

const VIEWS: [View; 7] = [
    View::SpaceTime,
    View::TrafficMatrix,
    View::WaitMatrix,
    View::Graph,
    View::Kiviat,
    View::Mapping,
    View::Process,
];

fn svg(out: Vec<u8>) -> String {
    let s = String::from_utf8(out).unwrap();
    roxmltree::Document::parse(&s).unwrap_or_else(|e| panic!("not well-formed: {e}"));
    s
}

#[test]
fn every_view_draws_with_a_level() {
    let t = common::ring();
    let mut o = ViewOptions::default();
    o.level = Some("Node".into());
    for view in VIEWS {
        let mut out = Vec::new();
        draw(&t, view, Window::of(&t), &o, &mut out).unwrap_or_else(|e| panic!("{view:?}: {e}"));
        svg(out);
    }
}

#[test]
fn views_say_what_they_miss() {
    let t = common::ring();
    let w = Window::of(&t);
    let err = |view: View, o: &ViewOptions| {
        draw(&t, view, w, o, &mut Vec::new())
            .unwrap_err()
            .to_string()
    };
    let mut o = ViewOptions::default();
    assert_eq!(
        err(View::Kiviat, &o),
        "kiviat needs --level: the container type of the hosts"
    );
    assert_eq!(
        err(View::Mapping, &o),
        "mapping needs --level: the container type of the hosts"
    );
    o.process = Some("nobody".into());
    assert_eq!(
        err(View::Process, &o),
        "--process: no container called 'nobody' has states or waits"
    );
    o.level = Some("Nope".into());
    assert_eq!(
        err(View::TrafficMatrix, &o),
        "--level: no container type is called 'Nope'"
    );
    o.order = Some("Nope".into());
    assert!(matches!(
        draw(&t, View::Graph, w, &o, &mut Vec::new()),
        Err(ViewError::UnknownOrder(l)) if l == "Nope"
    ));
}

/// The processes of the mapping are coloured by the states given, and
/// named by them.
#[test]
fn the_mapping_shows_the_states_given() {
    let t = common::ring();
    let w = Window::of(&t);
    let o = order(&t, w, &Messages::all(), "Node").unwrap();
    let mut out = Vec::new();
    draw_mapping(
        &t,
        &o,
        &states_at(&t, 0.33),
        &ViewOptions::default(),
        &mut out,
    )
    .unwrap();
    let at = svg(out);
    let mut out = Vec::new();
    draw_mapping(
        &t,
        &o,
        &Default::default(),
        &ViewOptions::default(),
        &mut out,
    )
    .unwrap();
    let none = svg(out);
    assert!(at.contains("Compute") && !none.contains("Compute"));
    assert!(none.contains("no state"));
    let mut out = Vec::new();
    draw_wait_matrix(
        &wait_matrix(&t, w, &Messages::all(), &[]),
        &ViewOptions::default(),
        &mut out,
    )
    .unwrap();
    assert!(svg(out).contains("rank-1"));
}
