//! Wait-time matrix on a small trace with hand-computed expectations.
#![allow(clippy::result_large_err)]

use trama_analysis::{wait_matrix, Messages, Window};
use trama_sim::Trace;

mod common;

/// The definitions of the traces below: container, state and link types,
/// containers, states pushed and popped, links.
fn defs() -> String {
    common::states_and_links()
}

/// Three processes, a state type and a link type.
pub fn text() -> String {
    defs()
        + "\
0 P 0 Proc
1 S P State
2 L 0 P P Msg
3 0 p1 P 0 proc1
3 0 p2 P 0 proc2
3 0 p3 P 0 proc3
6 0.5 L 0 p2 m k1
4 1 S p1 MPI_Recv
6 1 L 0 p3 m k2
4 1 S p2 Wait
4 1.5 S p2 MPI_Recv
5 2 S p2
7 2 L 0 p1 m k1
7 2.5 L 0 p1 m k2
5 3 S p1
5 3 S p2
4 4 S p1 Wait
5 5 S p1
4 6 S p3 Compute
"
}

fn trace() -> Trace {
    common::simulate(&text(), false)
}

fn close(a: &[f64], b: &[f64]) {
    assert_eq!(a.len(), b.len(), "{a:?} vs {b:?}");
    for (x, y) in a.iter().zip(b) {
        assert!((x - y).abs() < 1e-9, "{a:?} vs {b:?}");
    }
}

#[test]
fn waits_go_to_the_last_sender_or_unattributed() {
    let t = trace();
    let w = wait_matrix(&t, Window::of(&t), &Messages::all(), &[]);
    assert_eq!(w.senders, ["proc3", "unattributed"]);
    let names: Vec<&str> = w.rows.iter().map(|r| r.container.as_str()).collect();
    assert_eq!(names, ["proc1", "proc2"]);
    let p1 = &w.rows[0];
    close(&p1.seconds, &[2.0, 1.0]);
    close(&[p1.time, p1.waiting, p1.waiting_share], &[6.0, 3.0, 0.5]);
    close(&p1.share_of_time, &[2.0 / 6.0, 1.0 / 6.0]);
    close(&p1.share_of_waiting, &[2.0 / 3.0, 1.0 / 3.0]);
    // Nested waits count once (the outer one, 2 s).
    let p2 = &w.rows[1];
    close(&p2.seconds, &[0.0, 2.0]);
}

#[test]
fn a_window_cuts_waits_and_patterns_choose_them() {
    let t = trace();
    let w = wait_matrix(&t, Window::new(&t, Some(2.5), None), &Messages::all(), &[]);
    let p1 = &w.rows[0];
    close(&p1.seconds, &[0.5, 1.0]);
    close(&[p1.time], &[3.5]);
    // Only MPI_Recv waits: p2's inner one is no longer nested in a wait.
    let w = wait_matrix(
        &t,
        Window::of(&t),
        &Messages::all(),
        &["MPI_RECV".to_string()],
    );
    assert_eq!(w.patterns, ["mpi_recv"]);
    close(&w.rows[0].seconds, &[2.0, 0.0]);
    close(&w.rows[1].seconds, &[0.0, 0.5]);
    // A wait of no length counts nothing.
    let w = wait_matrix(
        &t,
        Window::of(&t),
        &Messages::all(),
        &["compute".to_string()],
    );
    assert!(w.rows.is_empty() || w.rows.iter().all(|r| r.waiting == 0.0));
}

/// Processes with the given state values pushed at 0 and popped at 1.
fn with_values(values: &[&str]) -> Trace {
    let mut s = common::defs(&[
        "PajeDefineContainerType",
        "PajeDefineStateType",
        "PajeCreateContainer",
        "PajePushState",
        "PajePopState",
    ]) + "0 P 0 Proc\n1 S P State\n";
    for (i, v) in values.iter().enumerate() {
        s += &format!("2 0 p{i} P 0 proc{i}\n3 0 S p{i} {v}\n4 1 S p{i}\n");
    }
    common::simulate(&s, false)
}

#[test]
fn default_waits_fit_simgrid_and_mpi_and_say_what_they_counted() {
    let t = with_values(&[
        "receive",
        "MPI_Recv",
        "MPI_Irecv",
        "MPI_Waitall",
        "MPI_Barrier",
        "MPI_Ibarrier",
        "action_bcast",
        "MPI_Ireduce_scatter",
        "execute",
        "send",
    ]);
    let w = wait_matrix(&t, Window::of(&t), &Messages::all(), &[]);
    assert_eq!(
        w.waiting_states,
        [
            "receive",
            "MPI_Recv",
            "MPI_Waitall",
            "MPI_Barrier",
            "action_bcast"
        ]
    );
    let waited: Vec<&str> = w.rows.iter().map(|r| r.container.as_str()).collect();
    assert_eq!(waited, ["proc0", "proc1", "proc3", "proc4", "proc6"]);
    assert_eq!(
        w.note(),
        "states counted as waiting: receive, MPI_Recv, MPI_Waitall, MPI_Barrier, action_bcast"
    );
}

#[test]
fn no_matching_wait_is_said() {
    let t = with_values(&["execute", "send"]);
    let w = wait_matrix(&t, Window::of(&t), &Messages::all(), &[]);
    assert!(w.rows.is_empty() && w.waiting_states.is_empty());
    assert!(
        w.note()
            .starts_with("no state matched the waiting patterns (receive, recv, wait,"),
        "{}",
        w.note()
    );
    // Patterns given are plain substrings: `MPI_Irecv` counts when asked.
    let t = with_values(&["MPI_Irecv"]);
    let w = wait_matrix(&t, Window::of(&t), &Messages::all(), &["irecv".into()]);
    assert_eq!(w.waiting_states, ["MPI_Irecv"]);
}

/// proc1 waits in two state types, as an OTF2 archive's rank does (a
/// region and the MPI collective inside it): nested across types (1..3
/// and 1.2..2.8, a message from proc3 ending at 2), overlapping across
/// types (4..6 and 5..7), one after the other (8..9, a message from proc2
/// ending at 8.5, then 9..10).
fn two_state_types() -> Trace {
    common::simulate(
        &(defs()
            + "\
0 P 0 Proc
1 R P Region
1 C P Collective
2 L 0 P P Msg
3 0 p1 P 0 proc1
3 0 p2 P 0 proc2
3 0 p3 P 0 proc3
4 1 R p1 MPI_Allreduce
4 1.2 C p1 ALLREDUCE
6 1.5 L 0 p3 m k1
7 2 L 0 p1 m k1
5 2.8 C p1
5 3 R p1
4 4 R p1 MPI_Recv
4 5 C p1 MPI_Wait
5 6 R p1
5 7 C p1
4 8 R p1 MPI_Recv
6 8.2 L 0 p2 m k2
7 8.5 L 0 p1 m k2
5 9 R p1
4 9 C p1 MPI_Recv
5 10 C p1
"),
        false,
    )
}

/// Regression: a wait was counted once per state type (an MPI collective
/// and its region both counted). A wait is counted once, overlapping
/// waits count their union, waits one after the other stay apart; and the
/// same comes out of the window read part by part.
#[test]
fn stats_wait_counts_an_mpi_collective_once() {
    let t = two_state_types();
    let all = Window::of(&t);
    let w = wait_matrix(&t, all, &Messages::all(), &[]);
    assert_eq!(w.senders, ["proc2", "proc3", "unattributed"]);
    let p1 = &w.rows[0];
    assert_eq!(p1.container, "proc1");
    // 1..3 to proc3, 8..9 to proc2, 4..7 and 9..10 to nobody.
    close(&p1.seconds, &[1.0, 2.0, 4.0]);
    close(&[p1.waiting], &[7.0]);
    for cuts in [&[2.5, 5.5, 9.0][..], &[1.1, 4.5, 6.5, 8.7], &[3.0, 9.5]] {
        let mut parts = trama_analysis::WindowParts::new(&t, all, &Messages::all());
        let mut start = all.start;
        for (i, &end) in cuts.iter().chain([all.end].iter()).enumerate() {
            let last = i == cuts.len();
            parts.add(&t, &trama_analysis::Part { start, end, last });
            start = end;
        }
        let (_, _, by_parts) = parts.finish(&t);
        assert_eq!(by_parts.senders, w.senders, "cut at {cuts:?}");
        close(&by_parts.rows[0].seconds, &p1.seconds);
    }
}
