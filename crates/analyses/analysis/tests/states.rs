//! Time per state on small traces with hand-computed expectations.
#![allow(clippy::result_large_err)]

mod common;

use trama_analysis::{time_per_state, StateRow, Window};
use trama_sim::Trace;

pub fn trace(body: &str) -> Trace {
    common::simulate(&format!("{}{body}", common::state_header()), false)
}

fn row<'a>(rows: &'a [StateRow], container: &str, value: &str) -> &'a StateRow {
    rows.iter()
        .find(|r| r.container == container && r.value == value)
        .unwrap_or_else(|| panic!("no row {container}/{value} in {rows:#?}"))
}

fn close(a: f64, b: f64) {
    assert!((a - b).abs() < 1e-9, "{a} != {b}");
}

/// p1: A [0,4] with B [1,3] pushed on it, then A [5,6].
const NESTED: &str = "\
3 0 S p1 A
3 1 S p1 B
4 3 S p1
4 4 S p1
3 5 S p1 A
4 6 S p1
";

#[test]
fn nested_states_exclusive_and_inclusive() {
    let t = trace(NESTED);
    let s = time_per_state(&t, Window::of(&t), None).unwrap();
    close(s.window.start, 0.0);
    close(s.window.end, 6.0);
    let a = row(&s.rows, "proc1", "A");
    assert_eq!(a.count, 2);
    close(a.total, 5.0);
    close(a.exclusive, 3.0);
    close(a.inclusive, 5.0);
    close(a.max, 4.0);
    close(a.mean, 2.5);
    close(a.share, 5.0 / 6.0);
    let b = row(&s.rows, "proc1", "B");
    assert_eq!(b.count, 1);
    close(b.exclusive, 2.0);
    close(b.share, 2.0 / 6.0);
    assert_eq!(b.containers, 1);
    assert_eq!(b.state_type, "State");
    assert_eq!(b.container_type, "Proc");
}

#[test]
fn a_window_cuts_states() {
    let t = trace(NESTED);
    let w = Window::new(&t, Some(1.5), Some(3.5));
    let s = time_per_state(&t, w, None).unwrap();
    let a = row(&s.rows, "proc1", "A");
    assert_eq!(a.count, 1, "A [5,6] is outside");
    close(a.total, 2.0);
    close(a.exclusive, 0.5);
    let b = row(&s.rows, "proc1", "B");
    close(b.total, 1.5);
    close(b.share, 1.5 / 2.0);
}

#[test]
fn recursion_counts_once_inclusive() {
    let t = trace("3 0 S p1 A\n3 1 S p1 A\n4 2 S p1\n4 3 S p1\n");
    let s = time_per_state(&t, Window::of(&t), None).unwrap();
    let a = row(&s.rows, "proc1", "A");
    assert_eq!(a.count, 2);
    close(a.total, 4.0);
    close(a.exclusive, 3.0);
    close(a.inclusive, 3.0);
}

#[test]
fn rolled_up_to_hosts_with_imbalance() {
    // p1: A 3 s; p2: A 1 s and B 1 s (sequential), end of trace at 3.
    let t = trace("3 0 S p1 A\n3 0 S p2 A\n4 1 S p2\n3 1 S p2 B\n4 2 S p2\n4 3 S p1\n");
    let s = time_per_state(&t, Window::of(&t), None).unwrap();
    let i = s.imbalance.iter().find(|i| i.value == "A").unwrap();
    assert_eq!(i.containers, 2);
    close(i.mean, 2.0);
    close(i.max, 3.0);
    close(i.imbalance, 0.5);
    close(i.stddev, 1.0);
    let ib = s.imbalance.iter().find(|i| i.value == "B").unwrap();
    // p1 has the state type but never B: it counts as 0.
    assert_eq!(ib.containers, 2);
    close(ib.mean, 0.5);
    close(ib.imbalance, 1.0);

    let h = time_per_state(&t, Window::of(&t), Some("Host")).unwrap();
    assert_eq!(h.level.as_deref(), Some("Host"));
    let a = row(&h.rows, "host1", "A");
    assert_eq!(a.containers, 2);
    assert_eq!(a.count, 2);
    close(a.total, 4.0);
    close(a.share, 4.0 / (3.0 * 2.0));
    assert!(h.rows.iter().all(|r| r.container == "host1"));
    assert!(time_per_state(&t, Window::of(&t), Some("Nope")).is_none());
}

#[test]
fn rows_follow_the_container_tree() {
    let t = trace("3 0 S p2 B\n3 0 S p1 A\n4 1 S p1\n4 1 S p2\n");
    let s = time_per_state(&t, Window::of(&t), None).unwrap();
    let order: Vec<&str> = s.rows.iter().map(|r| r.container.as_str()).collect();
    assert_eq!(order, ["proc1", "proc2"]);
}

/// regression: each row keeps its shortest state's in-window duration
/// (`min`), cut by the window as `max` is; the selection of some
/// containers keeps those containers' rows as they are.
#[test]
fn state_rows_keep_their_shortest_state() {
    let t = trace(NESTED);
    let s = time_per_state(&t, Window::of(&t), None).unwrap();
    close(row(&s.rows, "proc1", "A").min, 1.0);
    close(row(&s.rows, "proc1", "B").min, 2.0);
    // A [0,4] cut to [2.5,4] and A [5,6] cut to [5,5.5]: 0.5 s.
    let w = Window::new(&t, Some(2.5), Some(5.5));
    let s = time_per_state(&t, w, None).unwrap();
    let a = row(&s.rows, "proc1", "A");
    close(a.min, 0.5);
    close(a.max, 1.5);
    let msgs = trama_analysis::Messages::select(&t, &[]).unwrap();
    let only = trama_analysis::selection(&t, w, &msgs, None, Some(&[]));
    assert!(only.states.unwrap().rows.is_empty());
    let all = trama_analysis::selection(&t, w, &msgs, None, None);
    assert_eq!(all.states.unwrap().rows, s.rows);
}
