use super::*;
use crate::model::{Call, Message, Process};
use trama_sim::ContainerId;

/// A run of `n` processes with `calls` (process, kind, enter, exit), sorted
/// as given (tests give them by process then enter).
fn run(n: u32, calls: &[(ProcId, CallKind, f64, f64)]) -> Run {
    Run {
        start: 0.0,
        end: 100.0,
        processes: (0..n)
            .map(|p| Process {
                container: ContainerId(p + 1),
                name: format!("p{p}"),
            })
            .collect(),
        regions: vec!["MPI_Call".into()],
        activities: vec![Vec::new(); n as usize],
        calls: calls
            .iter()
            .map(|&(proc, kind, enter, exit)| Call {
                proc,
                region: 0,
                kind,
                enter,
                exit,
            })
            .collect(),
        messages: Vec::new(),
        collectives: Vec::new(),
    }
}

fn msg(
    sender: ProcId,
    receiver: ProcId,
    sent: f64,
    received: f64,
    s: CallId,
    r: CallId,
) -> Message {
    Message {
        sender,
        receiver,
        sent,
        received,
        send_call: Some(s),
        recv_call: Some(r),
    }
}

const SEND: CallKind = CallKind::Send { synchronous: false };
const SSEND: CallKind = CallKind::Send { synchronous: true };
const RECV: CallKind = CallKind::Receive;

fn coll(kind: CollectiveKind, root: Option<ProcId>, calls: &[CallId]) -> Collective {
    Collective {
        kind,
        region: 0,
        communicator: None,
        root,
        calls: calls.to_vec(),
    }
}

/// (pattern, call, waited for, start, duration) of each wait.
fn found(r: &Run) -> Vec<(Pattern, CallId, Option<ProcId>, f64, f64)> {
    wait_states(r)
        .iter()
        .map(|w| (w.pattern, w.call, w.waited_for, w.start, w.duration))
        .collect()
}

#[test]
fn a_receive_entered_before_the_send_is_a_late_sender() {
    // p1 enters its receive at 1, p0 its send at 3: 2 s of late sender.
    let mut r = run(2, &[(0, SEND, 3.0, 3.5), (1, RECV, 1.0, 4.0)]);
    r.messages = vec![msg(0, 1, 3.2, 3.9, 0, 1)];
    assert_eq!(found(&r), vec![(Pattern::LateSender, 1, Some(0), 1.0, 2.0)]);
}

#[test]
fn a_send_entered_first_leaves_no_late_sender() {
    let mut r = run(2, &[(0, SEND, 1.0, 1.5), (1, RECV, 2.0, 2.5)]);
    r.messages = vec![msg(0, 1, 1.2, 2.1, 0, 1)];
    assert_eq!(found(&r), vec![]);
}

#[test]
fn a_late_sender_is_bounded_by_its_receive() {
    // The send is entered after the receive returned (clock skew): the
    // waiting is the whole receive, no more.
    let mut r = run(2, &[(0, SEND, 5.0, 5.5), (1, RECV, 1.0, 4.0)]);
    r.messages = vec![msg(0, 1, 5.2, 3.9, 0, 1)];
    assert_eq!(found(&r), vec![(Pattern::LateSender, 1, Some(0), 1.0, 3.0)]);
}

#[test]
fn a_waitall_counts_its_latest_sender_once() {
    // p2 waits from 1 for two messages: p0's send entered at 2, p1's at 4.
    let mut r = run(
        3,
        &[
            (0, SEND, 2.0, 2.1),
            (1, SEND, 4.0, 4.1),
            (2, RECV, 1.0, 5.0),
        ],
    );
    r.messages = vec![msg(0, 2, 2.0, 4.5, 0, 2), msg(1, 2, 4.0, 4.6, 1, 2)];
    assert_eq!(found(&r), vec![(Pattern::LateSender, 2, Some(1), 1.0, 3.0)]);
}

#[test]
fn messages_received_in_the_wrong_order_make_late_sender_wrong_order() {
    // p2 receives first from p1 (sent late, at 5), then from p0 (sent at
    // 2, before): the first receive's waiting is a wrong-order one.
    let mut r = run(
        3,
        &[
            (0, SEND, 2.0, 2.1),
            (1, SEND, 5.0, 5.1),
            (2, RECV, 1.0, 5.5),
            (2, RECV, 6.0, 6.5),
        ],
    );
    r.messages = vec![msg(0, 2, 2.0, 6.2, 0, 3), msg(1, 2, 5.0, 5.4, 1, 2)];
    assert_eq!(
        found(&r),
        vec![(Pattern::LateSenderWrongOrder, 2, Some(1), 1.0, 4.0)]
    );
    // Received in the order sent: a plain late sender.
    r.messages = vec![msg(1, 2, 5.0, 5.4, 1, 2), msg(0, 2, 5.2, 6.2, 0, 3)];
    r.calls[0] = Call {
        enter: 5.1,
        exit: 5.3,
        ..r.calls[0]
    };
    assert_eq!(found(&r), vec![(Pattern::LateSender, 2, Some(1), 1.0, 4.0)]);
}

#[test]
fn a_send_that_lasts_until_the_receive_starts_is_a_late_receiver() {
    // p0's synchronous send from 1 returns at 3.5, p1 receives from 3.
    let mut r = run(2, &[(0, SSEND, 1.0, 3.5), (1, RECV, 3.0, 3.6)]);
    r.messages = vec![msg(0, 1, 1.0, 3.4, 0, 1)];
    assert_eq!(
        found(&r),
        vec![(Pattern::LateReceiver, 0, Some(1), 1.0, 2.0)]
    );
    // A send that returned before the receive started did not wait for it.
    r.calls[0].exit = 2.0;
    r.calls[0].kind = SEND;
    assert_eq!(found(&r), vec![]);
}

#[test]
fn a_barrier_gives_each_its_wait_and_completion() {
    // Enter at 1, 2, 4; leave at 4.5, 5, 6: waits 3, 2, 0; the first
    // leaves at 4.5: completions 0, 0.5, 1.5.
    let mut r = run(
        3,
        &[
            (0, CallKind::Collective(CollectiveKind::Barrier), 1.0, 4.5),
            (1, CallKind::Collective(CollectiveKind::Barrier), 2.0, 5.0),
            (2, CallKind::Collective(CollectiveKind::Barrier), 4.0, 6.0),
        ],
    );
    r.collectives = vec![coll(CollectiveKind::Barrier, None, &[0, 1, 2])];
    assert_eq!(
        found(&r),
        vec![
            (Pattern::WaitBarrier, 0, Some(2), 1.0, 3.0),
            (Pattern::WaitBarrier, 1, Some(2), 2.0, 2.0),
            (Pattern::BarrierCompletion, 1, None, 4.5, 0.5),
            (Pattern::BarrierCompletion, 2, None, 4.5, 1.5),
        ]
    );
    // The same calls as an all-reduce: the N×N patterns.
    r.collectives[0].kind = CollectiveKind::NxN;
    let p: Vec<Pattern> = found(&r).iter().map(|w| w.0).collect();
    assert_eq!(
        p,
        [
            Pattern::WaitNxn,
            Pattern::WaitNxn,
            Pattern::NxnCompletion,
            Pattern::NxnCompletion
        ]
    );
}

#[test]
fn early_reduce_waits_for_the_latest_non_root() {
    // Root p0 enters at 1; p1 at 2, p2 at 3: the root waits 2 s for p2.
    let k = CallKind::Collective(CollectiveKind::NToOne);
    let mut r = run(3, &[(0, k, 1.0, 3.5), (1, k, 2.0, 2.1), (2, k, 3.0, 3.1)]);
    r.collectives = vec![coll(CollectiveKind::NToOne, Some(0), &[0, 1, 2])];
    assert_eq!(
        found(&r),
        vec![(Pattern::EarlyReduce, 0, Some(2), 1.0, 2.0)]
    );
    // Without a root, nothing is detected.
    r.collectives[0].root = None;
    assert_eq!(found(&r), vec![]);
}

#[test]
fn late_broadcast_waits_for_the_root() {
    // Root p1 enters at 3; p0 at 1 (waits 2), p2 at 4 (no wait).
    let k = CallKind::Collective(CollectiveKind::OneToN);
    let mut r = run(3, &[(0, k, 1.0, 3.2), (1, k, 3.0, 3.1), (2, k, 4.0, 4.1)]);
    r.collectives = vec![coll(CollectiveKind::OneToN, Some(1), &[0, 1, 2])];
    assert_eq!(
        found(&r),
        vec![(Pattern::LateBroadcast, 0, Some(1), 1.0, 2.0)]
    );
}

#[test]
fn early_scan_waits_for_those_before() {
    // p0 enters at 3, p1 at 1 (waits 2 for p0), p2 at 2 (waits 1 for p0),
    // p3 at 5 (nobody before is later).
    let k = CallKind::Collective(CollectiveKind::Scan);
    let mut r = run(
        4,
        &[
            (0, k, 3.0, 3.1),
            (1, k, 1.0, 3.2),
            (2, k, 2.0, 3.3),
            (3, k, 5.0, 5.1),
        ],
    );
    r.collectives = vec![coll(CollectiveKind::Scan, None, &[0, 1, 2, 3])];
    assert_eq!(
        found(&r),
        vec![
            (Pattern::EarlyScan, 1, Some(0), 1.0, 2.0),
            (Pattern::EarlyScan, 2, Some(0), 2.0, 1.0),
        ]
    );
}
