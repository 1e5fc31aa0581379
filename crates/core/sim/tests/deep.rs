//! Deep state stacks: a push, pop or reset costs the same whatever the
//! depth (entities are found by bisection, a reset ends the stack in one
//! pass), and the entities come out as PajeNG makes them.

use trama_sim::{ListId, SimOptions, Simulator, TraceBuilder};

const DEPTH: usize = 50_000;

fn header() -> String {
    let mut t = String::new();
    for (id, name, fields) in [
        (
            0,
            "PajeDefineContainerType",
            "Alias string\n% Type string\n% Name string",
        ),
        (
            1,
            "PajeDefineStateType",
            "Alias string\n% Type string\n% Name string",
        ),
        (
            2,
            "PajeCreateContainer",
            "Time date\n% Alias string\n% Type string\n% Container string\n% Name string",
        ),
        (
            3,
            "PajePushState",
            "Time date\n% Type string\n% Container string\n% Value string",
        ),
        (
            4,
            "PajePopState",
            "Time date\n% Type string\n% Container string",
        ),
        (
            5,
            "PajeResetState",
            "Time date\n% Type string\n% Container string",
        ),
    ] {
        t.push_str(&format!(
            "%EventDef {name} {id}\n% {fields}\n%EndEventDef\n"
        ));
    }
    t.push_str("0 P 0 P\n1 S P S\n2 0 p1 P 0 p1\n2 0 p2 P 0 p2\n");
    t
}

#[test]
fn deep_stacks_pop_and_reset_as_pajeng_does() {
    let mut text = header();
    for i in 0..DEPTH {
        text.push_str(&format!("3 {i} S p1 a\n3 {i} S p2 b\n"));
    }
    for i in 0..DEPTH {
        text.push_str(&format!("4 {} S p1\n", DEPTH + i));
    }
    text.push_str(&format!("5 {} S p2\n", 2 * DEPTH));
    let mut sim = Simulator::new(TraceBuilder::default(), SimOptions::default());
    trama_paje::read_paje(text.as_bytes(), &trama_paje::ReadOptions::default(), |ev| {
        sim.event(&ev).map_err(|e| e.to_string())
    })
    .unwrap();
    let (model, sink, _) = sim.finish().unwrap();
    let trace = sink.into_trace(model, Vec::new());
    assert_eq!(trace.entity_count(), 2 * DEPTH);
    for (l, info) in trace.model.lists.iter().enumerate() {
        let cols = &trace.lists[l];
        assert_eq!(cols.len(), DEPTH);
        let popped = trace
            .model
            .label(trace.model.container(info.container).name)
            == "p1";
        for i in (0..DEPTH).step_by(997).chain([DEPTH - 1]) {
            let e = trace.entity(ListId(l as u32), i);
            assert_eq!(e.start, i as f64);
            assert_eq!(cols.level[i] as usize, i, "state {i}: its depth");
            // Popped from the top: state i ends at the (DEPTH - 1 - i)th pop.
            let end = if popped {
                (2 * DEPTH - 1 - i) as f64
            } else {
                (2 * DEPTH) as f64
            };
            assert_eq!(e.end, end, "state {i} of list {l}");
        }
    }
}

/// A trace that leaves a million links open says how many and shows the
/// first ten by key, not all of them.
#[test]
fn a_million_open_links_give_a_short_message() {
    // The link events without the link's end.
    let mut text = trama_gen::event_defs(
        "PajeDefineContainerType 0; PajeDefineLinkType 1; PajeCreateContainer 2; PajeStartLink 3",
    );
    text.push_str("0 P 0 P\n1 L 0 P P L\n2 0 p1 P 0 p1\n");
    let n = 1_000_000;
    for i in 0..n {
        text.push_str(&format!("3 {i} L 0 p1 v k{i}\n"));
    }
    let mut sim = Simulator::new(trama_sim::CountingSink::default(), SimOptions::default());
    trama_paje::read_paje(text.as_bytes(), &trama_paje::ReadOptions::default(), |ev| {
        sim.event(&ev).map_err(|e| e.to_string())
    })
    .unwrap();
    let Err(e) = sim.finish() else {
        panic!("open links accepted")
    };
    let m = e.to_string();
    assert!(m.contains(&format!("{n} incomplete link(s)")), "{m}");
    assert!(m.contains(&format!("… and {} more", n - 10)), "{m}");
    assert_eq!(
        m.lines()
            .filter(|l| l.trim_start().starts_with("Link, "))
            .count(),
        10
    );
    // The first by key, in order: k0, k1, k10, k100...
    let keys: Vec<&str> = m
        .lines()
        .filter_map(|l| l.rsplit(", ").next())
        .skip(1)
        .take(3)
        .collect();
    assert_eq!(keys, ["k0", "k1", "k10"], "{m}");
}
