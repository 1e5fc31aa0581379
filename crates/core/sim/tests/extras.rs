//! User-defined values handed to a sink that does not keep them (a
//! streamed dump) are forgotten once their entity is final, so memory
//! does not grow with distinct values; the sink still receives each
//! entity's own values, those of entities alive for the whole trace
//! (stacked states, pending links) included.

use std::collections::HashMap;

use trama_sim::{Entity, ListId, Model, SimOptions, Simulator, Sink, TraceBuilder};

/// More distinct values than the scratch strings hold before forgetting.
const N: usize = 200_000;

fn trace() -> String {
    let mut text = String::new();
    for (id, name, fields) in [
        (0, "PajeDefineContainerType", "Alias string\n% Type string\n% Name string"),
        (1, "PajeDefineStateType", "Alias string\n% Type string\n% Name string"),
        (2, "PajeDefineLinkType", "Alias string\n% Type string\n% StartContainerType string\n% EndContainerType string\n% Name string"),
        (3, "PajeCreateContainer", "Time date\n% Alias string\n% Type string\n% Container string\n% Name string"),
        (4, "PajePushState", "Time date\n% Type string\n% Container string\n% Value string\n% Tag string"),
        (5, "PajePopState", "Time date\n% Type string\n% Container string"),
        (6, "PajeStartLink", "Time date\n% Type string\n% Container string\n% StartContainer string\n% Value string\n% Key string\n% Msg string"),
        (7, "PajeEndLink", "Time date\n% Type string\n% Container string\n% EndContainer string\n% Value string\n% Key string\n% Ack string"),
    ] {
        text.push_str(&format!("%EventDef {name} {id}\n% {fields}\n%EndEventDef\n"));
    }
    text.push_str("0 P 0 P\n1 S P S\n2 L 0 P P L\n3 0 p1 P 0 p1\n3 0 p2 P 0 p2\n");
    // Alive from the start to the end: a state at the bottom of the stack
    // and a pending link.
    text.push_str("4 0 S p1 a bottom\n6 0 L 0 p1 v long first-message\n");
    for i in 1..=N {
        text.push_str(&format!("4 {i} S p1 a tag-{i}\n5 {i}.5 S p1\n"));
        text.push_str(&format!(
            "6 {i} L 0 p1 v k{i} msg-{i}\n7 {i}.5 L 0 p2 v k{i} ack-{i}\n"
        ));
    }
    text.push_str(&format!("7 {} L 0 p2 v long last-ack\n", N + 1));
    text
}

/// Keeps the values of each entity as it comes, and does not keep handles.
#[derive(Default)]
struct Values(HashMap<(ListId, u32), Vec<Vec<u8>>>);

impl Sink for Values {
    fn entity(&mut self, model: &Model, list: ListId, idx: u32, e: &Entity<'_>) {
        let values = e.extras.iter().map(|&s| model.str(s).to_vec()).collect();
        self.0.insert((list, idx), values);
    }

    fn keeps_strings(&self) -> bool {
        false
    }
}

fn run<S: Sink>(sink: S) -> (Model, S) {
    let mut o = SimOptions::default();
    o.keep_extras = true;
    let mut sim = Simulator::new(sink, o);
    let text = trace();
    trama_paje::read_paje(text.as_bytes(), &trama_paje::ReadOptions::default(), |ev| {
        sim.event(&ev).map_err(|e| e.to_string())
    })
    .unwrap();
    let (model, sink, _) = sim.finish().unwrap();
    (model, sink)
}

#[test]
fn streamed_user_values_are_forgotten_yet_each_entity_gets_its_own() {
    let (model, stored) = run(TraceBuilder::default());
    let trace = stored.into_trace(model, Vec::new());
    let (model, values) = run(Values::default());
    // The trace's names and the fields' names only: no value was kept.
    assert!(model.strings.len() < 40, "{} strings", model.strings.len());
    assert_eq!(values.0.len(), trace.entity_count());
    for (l, _) in trace.model.lists.iter().enumerate() {
        let list = ListId(l as u32);
        for i in 0..trace.lists[l].len() {
            let want: Vec<Vec<u8>> = trace
                .entity(list, i)
                .extras
                .iter()
                .map(|&s| trace.model.str(s).to_vec())
                .collect();
            assert_eq!(values.0[&(list, i as u32)], want, "entity {i} of list {l}");
        }
    }
    // The entities alive throughout kept theirs.
    let bottom = &values.0[&(ListId(0), 0)];
    assert_eq!(bottom, &[b"Tag".to_vec(), b"bottom".to_vec()]);
    let first = &values.0[&(ListId(1), N as u32)];
    assert!(first.contains(&b"first-message".to_vec()), "{first:?}");
    assert!(first.contains(&b"last-ack".to_vec()), "{first:?}");
}
