//! One state per container: at an instant, and the dominant one over a
//! window.
#![allow(clippy::result_large_err)]

mod common;

use trama_analysis::{dominant_states, find_value, states_at, ContainerState, Window};
use trama_sim::Trace;

/// p1: A [0,4] with B [1,3] pushed on it, then A [5,6]; p2: C [0,1], then
/// B [1,6].
fn trace() -> Trace {
    let body = "\
3 0 S p1 A
3 0 S p2 C
3 1 S p1 B
4 1 S p2
3 1 S p2 B
4 3 S p1
4 4 S p1
3 5 S p1 A
4 6 S p1
4 6 S p2
";
    common::simulate(&format!("{}{body}", common::state_header()), false)
}

fn state(t: &Trace, value: &str) -> ContainerState {
    ContainerState {
        value: value.to_string(),
        id: Some(find_value(&t.model, "State", value).expect("a value of the model")),
    }
}

#[test]
fn the_state_at_an_instant_is_the_top_of_the_stack() {
    let t = trace();
    let at = states_at(&t, 2.0);
    assert_eq!(at.len(), 2);
    assert_eq!(at["proc1"], state(&t, "B"));
    assert_eq!(at["proc2"], state(&t, "B"));
    // A state ends where the next one starts.
    assert_eq!(states_at(&t, 1.0)["proc2"], state(&t, "B"));
    assert_eq!(states_at(&t, 3.5)["proc1"], state(&t, "A"));
    // Between two states, none.
    let at = states_at(&t, 4.5);
    assert!(!at.contains_key("proc1"), "{at:?}");
}

#[test]
fn the_dominant_state_has_the_most_exclusive_time() {
    let t = trace();
    let d = dominant_states(&t, Window::of(&t));
    // p1: A 3 s exclusive, B 2 s; p2: B 5 s, C 1 s.
    assert_eq!(d["proc1"], state(&t, "A"));
    assert_eq!(d["proc2"], state(&t, "B"));
    // Over [1, 3], p1 was in B all along.
    let d = dominant_states(&t, Window::new(&t, Some(1.0), Some(3.0)));
    assert_eq!(d["proc1"], state(&t, "B"));
    // Containers without states are left out.
    assert!(!d.contains_key("host1"), "{d:?}");
}

#[test]
fn values_are_found_by_state_type_and_name() {
    let t = trace();
    assert!(find_value(&t.model, "State", "A").is_some());
    assert_ne!(
        find_value(&t.model, "State", "A"),
        find_value(&t.model, "State", "B")
    );
    assert_eq!(find_value(&t.model, "Nope", "A"), None);
    assert_eq!(find_value(&t.model, "State", "Nope"), None);
}
