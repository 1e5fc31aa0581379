//! Communication matrix and ordering on a small trace of two hosts.
#![allow(clippy::result_large_err)]

use trama_analysis::{comm_matrix, order, Messages, Window};
use trama_sim::Trace;

mod common;

fn trace() -> Trace {
    common::simulate(&common::links(), true)
}

#[test]
fn matrix_of_processes_with_sizes_and_rates() {
    let t = trace();
    let m = comm_matrix(&t, Window::of(&t), &Messages::all(), None, Some("Size")).unwrap();
    assert_eq!(m.containers, ["proc1", "proc2", "proc3"]);
    let pair = |a: &str, b: &str| m.pairs.iter().find(|p| p.from == a && p.to == b).unwrap();
    let p13 = pair("proc1", "proc3");
    assert_eq!(p13.count, 2);
    assert_eq!(p13.bytes, Some(400.0));
    // 8·100/1 and 8·300/3 bits per second: mean 800.
    assert_eq!(p13.rate, Some(800.0));
    assert_eq!(pair("proc2", "proc1").count, 1);
    // The link given end first (k4) counts, its size "x" is not a number.
    let p31 = pair("proc3", "proc1");
    assert_eq!(p31.count, 1);
    assert_eq!(p31.rate, None);
    assert_eq!(m.without_size, 1);
    assert_eq!(m.pairs.len(), 3);
    // Counts only without a size field.
    let m = comm_matrix(&t, Window::of(&t), &Messages::all(), None, None).unwrap();
    assert!(m
        .pairs
        .iter()
        .all(|p| p.bytes.is_none() && p.rate.is_none()));
}

#[test]
fn matrix_of_hosts_and_a_window() {
    let t = trace();
    let m = comm_matrix(&t, Window::of(&t), &Messages::all(), Some("Host"), None).unwrap();
    let count = |a: &str, b: &str| {
        m.pairs
            .iter()
            .find(|p| p.from == a && p.to == b)
            .map_or(0, |p| p.count)
    };
    assert_eq!(count("host1", "host2"), 2);
    assert_eq!(count("host1", "host1"), 1);
    assert_eq!(count("host2", "host1"), 1);
    // [5.5, 7]: only k4 [6,6] overlaps.
    let w = Window::new(&t, Some(5.5), Some(7.0));
    let m = comm_matrix(&t, w, &Messages::all(), Some("Host"), None).unwrap();
    assert_eq!(m.pairs.len(), 1);
    assert_eq!(
        (m.pairs[0].from.as_str(), m.pairs[0].to.as_str()),
        ("host2", "host1")
    );
    assert!(comm_matrix(&t, Window::of(&t), &Messages::all(), Some("Nope"), None).is_none());
}

#[test]
fn hosts_and_processes_ordered_by_off_host_messages() {
    let t = trace();
    let o = order(&t, Window::of(&t), &Messages::all(), "Host").unwrap();
    let hosts: Vec<(&str, u64)> = o
        .hosts
        .iter()
        .map(|h| (h.host.as_str(), h.sent_off_host))
        .collect();
    assert_eq!(hosts, [("host1", 2), ("host2", 1)]);
    assert_eq!(
        o.hosts[0].processes,
        [("proc1".to_string(), 2), ("proc2".to_string(), 0)]
    );
    assert_eq!(o.hosts[1].processes, [("proc3".to_string(), 1)]);
    // Ties by name: in [3.5, 4.5] only k3 (inside host1) overlaps.
    let o = order(
        &t,
        Window::new(&t, Some(3.5), Some(4.5)),
        &Messages::all(),
        "Host",
    )
    .unwrap();
    let hosts: Vec<&str> = o.hosts.iter().map(|h| h.host.as_str()).collect();
    assert_eq!(hosts, ["host1", "host2"]);
    assert_eq!(o.hosts[0].processes[0].0, "proc1");
}
