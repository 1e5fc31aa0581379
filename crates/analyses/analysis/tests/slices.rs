//! Time slices and Kiviat series on the traces of the other tests.

mod common;

use trama_analysis::{kiviat, slices, Messages, Window};

/// A [0,4] with B [1,3] on it, then A [5,6].
fn nested() -> trama_sim::Trace {
    let body = "3 0 S p1 A\n3 1 S p1 B\n4 3 S p1\n4 4 S p1\n3 5 S p1 A\n4 6 S p1\n";
    common::simulate(&format!("{}{body}", common::state_header()), false)
}

#[test]
fn exclusive_time_per_slice() {
    let t = nested();
    let s = slices(&t, Window::of(&t), &Messages::all(), 3);
    assert_eq!(s.starts, [0.0, 2.0, 4.0]);
    assert_eq!(s.length, 2.0);
    assert_eq!(s.values, ["A", "B"]);
    let row = |k: usize| {
        s.rows
            .iter()
            .find(|r| r.slice == k && r.container == "proc1")
            .unwrap_or_else(|| panic!("slice {k}: {:#?}", s.rows))
    };
    assert_eq!(row(0).seconds, [1.0, 1.0]);
    assert_eq!(row(1).seconds, [1.0, 1.0]);
    assert_eq!(row(2).seconds, [1.0, 0.0]);
}

#[test]
fn messages_per_slice_and_kiviat() {
    let t = common::simulate(&common::links(), false);
    let s = slices(&t, Window::of(&t), &Messages::all(), 3);
    let get = |k: usize, c: &str| {
        s.rows
            .iter()
            .find(|r| r.slice == k && r.container == c)
            .map_or((0, 0), |r| (r.sent, r.received))
    };
    // Slices [0,2) [2,4) [4,6]: k1 1→2, k2 2→5, k3 3→4, k4 6→6.
    assert_eq!(get(0, "proc1"), (1, 0));
    assert_eq!(get(1, "proc1"), (1, 0));
    assert_eq!(get(1, "proc3"), (0, 1));
    assert_eq!(get(1, "proc2"), (1, 0));
    assert_eq!(get(2, "proc1"), (0, 2));
    assert_eq!(get(2, "proc3"), (1, 1));

    let w = Window::of(&t);
    assert_eq!(trama_analysis::instants(w, 3), [2.0, 4.0, 6.0]);
    assert_eq!(trama_analysis::slice_count(w, 2.5), 3);
    let k = kiviat(&t, w, &Messages::all(), "Host", &[6.0, 2.0, 4.0]).unwrap();
    assert_eq!(k.hosts, ["host1", "host2"]);
    assert_eq!(k.instants, [2.0, 4.0, 6.0]);
    assert_eq!(k.shares[0], [1.0, 0.0]);
    assert_eq!(k.shares[1], [1.0, 0.0]);
    assert_eq!(k.shares[2], [2.0 / 3.0, 1.0 / 3.0]);
    assert!(kiviat(&t, Window::of(&t), &Messages::all(), "Nope", &[1.0]).is_none());
}
