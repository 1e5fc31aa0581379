//! Delay costs on runs built by hand, worked out with the formulas of the
//! module's documentation.

use super::*;
use crate::model::{CallKind, CollectiveKind, Pattern};
use crate::test_runs::{
    allreduce, barrier, chain, close, late_sender, ping_pong, three_ranks, Build, RECV, SEND,
};

/// The costs as (causing process, region name, short, long).
fn costs(b: &Build) -> Vec<(ProcId, String, f64, f64)> {
    delay_costs(&b.run, &b.waits)
        .into_iter()
        .map(|c| {
            let r = b.run.regions[c.region as usize].clone();
            (c.causing, r, c.short_term, c.long_term)
        })
        .collect()
}

fn expect(got: Vec<(ProcId, String, f64, f64)>, want: &[(ProcId, &str, f64, f64)]) {
    assert_eq!(got.len(), want.len(), "{got:?}");
    for (g, w) in got.iter().zip(want) {
        assert!(
            g.0 == w.0 && g.1 == w.1 && close(g.2, w.2) && close(g.3, w.3),
            "{got:?} != {want:?}"
        );
    }
}

/// Regression: a late sender's 2 s of waiting are the sender's 2 s of
/// computation beyond the receiver's (3 s against 1 s).
#[test]
fn delay_costs_late_sender_short_term() {
    expect(costs(&late_sender()), &[(0, "compute", 2.0, 0.0)]);
}

/// Regression: along a chain A → B → C, C's 2.2 s of waiting go to B's
/// receive (0.2 s of completion beyond C's) and to B's own wait (3 s),
/// σ = 2.2 / 3.2; what B's wait caused downstream (3 σ = 2.0625 s) is a
/// long-term cost of A's computation, whose 3 s excess over B explains
/// B's wait.
#[test]
fn delay_costs_chain_propagates_long_term() {
    let sigma = 2.2 / 3.2;
    let want = [
        (0, "compute", 3.0, 3.0 * sigma),
        (1, "MPI_Recv", 0.2 * sigma, 0.0),
    ];
    expect(costs(&chain()), &want);
    // All the waiting (3 + 2.2 s) is explained.
    let total: f64 = want.iter().map(|w| w.2 + w.3).sum();
    assert!(close(total, 5.2));
    // The order of the wait states given does not matter.
    let mut b = chain();
    b.waits.reverse();
    expect(costs(&b), &want);
}

/// Regression: the propagation goes the right way when a wait's
/// hand-off and the end of the wait it propagates from coincide (B
/// leaves its receive and enters its send at 4).
#[test]
fn delay_costs_coinciding_handoffs_propagate() {
    let mut b = Build::new(3, 4.3);
    b.act(0, "compute", 0.0, 4.0);
    let sa = b.call(0, "MPI_Send", SEND, 4.0, 4.1);
    b.act(1, "compute", 0.0, 1.0);
    let rb = b.call(1, "MPI_Recv", RECV, 1.0, 4.0);
    let sb = b.call(1, "MPI_Send", SEND, 4.0, 4.1);
    b.act(2, "compute", 0.0, 2.0);
    let rc = b.call(2, "MPI_Recv", RECV, 2.0, 4.2);
    b.message(sa, rb);
    b.message(sb, rc);
    // C's wait first in the list, B's second.
    b.wait(Pattern::LateSender, rc, 1, 2.0, 2.0);
    b.wait(Pattern::LateSender, rb, 0, 1.0, 3.0);
    // C's wait: B has no delay (compute 1 s against 2 s, receive all
    // waiting), W = 3: σ = 2/3, and B's wait carries 2 s downstream.
    expect(costs(&b), &[(0, "compute", 3.0, 2.0)]);
}

/// Regression: each waiter of a barrier is compared with the last to
/// enter: P2's 3 s of computation against P0's 1 s and P1's 2 s.
#[test]
fn delay_costs_barrier_staggered() {
    expect(costs(&barrier()), &[(2, "compute", 3.0, 0.0)]);
}

/// Regression: the synchronization interval starts at the previous
/// point joining the two processes (here a message the other way), at
/// the enter of its call, whose completion only is counted: the second
/// wait of a ping-pong compares P1's computation and receive completion
/// since its receive with nothing on P0 since its send.
#[test]
fn delay_costs_ping_pong_uses_the_previous_message() {
    // P1's wait (1 s): P0's compute 1 s. P0's wait (1.1 s): on P1 since
    // its receive's enter, the receive (1.2 s) pruned to its completion
    // (it left 0.1 s after P0's send did) and compute 1 s; on P0 since
    // its send's enter, the send pruned to nothing (it left before the
    // receive): D = 1.1, σ = 1.
    expect(
        costs(&ping_pong()),
        &[
            (0, "compute", 1.0, 0.0),
            (1, "compute", 1.0, 0.0),
            (1, "MPI_Recv", 0.1, 0.0),
        ],
    );
}

/// Regression: the synchronization interval of the second all-reduce
/// starts at the first: its wait goes to the computation after it alone,
/// not to the initialisation before it.
#[test]
fn delay_costs_allreduce_intervals() {
    let nxn = CallKind::Collective(CollectiveKind::NxN);
    let mut b = Build::new(2, 3.7);
    b.act(0, "init", 0.0, 1.0);
    let a0 = b.call(0, "MPI_Allreduce", nxn, 1.0, 2.1);
    b.act(0, "compute", 2.1, 2.6);
    let c0 = b.call(0, "MPI_Allreduce", nxn, 2.6, 3.7);
    b.act(1, "init", 0.0, 2.0);
    let a1 = b.call(1, "MPI_Allreduce", nxn, 2.0, 2.1);
    b.act(1, "compute", 2.1, 3.6);
    let c1 = b.call(1, "MPI_Allreduce", nxn, 3.6, 3.7);
    b.collective(CollectiveKind::NxN, &[a0, a1]);
    b.collective(CollectiveKind::NxN, &[c0, c1]);
    b.wait(Pattern::WaitNxn, a0, 1, 1.0, 1.0);
    b.wait(Pattern::WaitNxn, c0, 1, 2.6, 1.0);
    // Over the whole run the second wait would be split 0.5/0.5 between
    // init and compute.
    expect(
        costs(&b),
        &[(1, "init", 1.0, 0.0), (1, "compute", 1.0, 0.0)],
    );
    // The model's own all-reduce: compute both times.
    expect(costs(&allreduce()), &[(1, "compute", 2.0, 0.0)]);
}

/// Regression: completion patterns and waits of no length cost nothing;
/// a wait with nothing to explain it costs nothing.
#[test]
fn delay_costs_ignore_completion_and_unexplained_waits() {
    let mut b = barrier();
    let c = b.waits[0].call;
    b.waits.clear();
    b.wait(Pattern::BarrierCompletion, c, 2, 3.0, 0.1);
    b.wait(Pattern::WaitBarrier, c, 2, 1.0, 0.0);
    assert!(costs(&b).is_empty());
    // P0 is late by time outside any state, which no region is blamed
    // for: P1 computed longer than P0 (0.9 s against 0.5 s).
    let mut b = Build::new(2, 2.0);
    b.act(0, "compute", 0.0, 0.5);
    let s = b.call(0, "MPI_Send", SEND, 1.0, 1.5);
    b.act(1, "compute", 0.0, 0.9);
    let r = b.call(1, "MPI_Recv", RECV, 0.9, 2.0);
    b.message(s, r);
    b.wait(Pattern::LateSender, r, 0, 0.9, 0.1);
    assert!(costs(&b).is_empty());
}

/// Regression: a long chain of late senders is worked without recursion
/// and all its waiting is explained, back to the first process's work.
#[test]
fn delay_costs_long_chain() {
    let n = 2_000;
    let mut b = Build::new(n, n as f64 + 2.0);
    // P0 computes and works 1 s each and sends at 2; process k ≥ 1
    // computes 1 s, receives from 1 to k + 2 (its waiting ends when k − 1
    // sends, at k + 1) and sends at k + 2.
    let mut sends = Vec::new();
    let mut recvs = Vec::new();
    b.act(0, "compute", 0.0, 1.0);
    b.act(0, "work", 1.0, 2.0);
    sends.push(b.call(0, "MPI_Send", SEND, 2.0, 2.5));
    for k in 1..n as ProcId {
        let t = k as f64;
        b.act(k, "compute", 0.0, 1.0);
        recvs.push(b.call(k, "MPI_Recv", RECV, 1.0, t + 2.0));
        sends.push(b.call(k, "MPI_Send", SEND, t + 2.0, t + 2.5));
    }
    for k in 1..n {
        b.message(sends[k - 1], recvs[k - 1]);
        b.wait(
            Pattern::LateSender,
            recvs[k - 1],
            (k - 1) as ProcId,
            1.0,
            k as f64,
        );
    }
    let got = costs(&b);
    // Wait k (k s) of process k: the previous process's 1 s of receive
    // completion and its own k − 1 s of waiting: σ = 1, all explained.
    let total: f64 = b.waits.iter().map(|w| w.duration).sum();
    let all: f64 = got.iter().map(|c| c.2 + c.3).sum();
    assert!((all - total).abs() < 1e-6 * total, "{all} != {total}");
    let work = got.iter().find(|c| c.0 == 0 && c.1 == "work").unwrap();
    assert!(close(work.2, 1.0), "{work:?}");
    // Each receive but the last one's short-term cost: its 1 s.
    let recv_short: f64 = got.iter().filter(|c| c.1 == "MPI_Recv").map(|c| c.2).sum();
    assert!(close(recv_short, (n - 2) as f64), "{recv_short}");
}

/// Regression: the three ranks of the command line's test, worked by
/// hand there. rank2 → rank1's wait (0.6 s) compares rank2 since its
/// receive's enter (2.0: the receive pruned to its completion 0.1 s, it
/// left 0.1 s after rank1's send did, then compute 1 s) with rank1 since
/// its send's enter (4.2: the send pruned to nothing, compute 0.5 s):
/// compute 0.5 s and MPI_Recv 0.1 s, σ = 1.
#[test]
fn delay_costs_three_ranks() {
    expect(
        costs(&three_ranks()),
        &[
            (0, "compute", 3.0, 2.0625),
            (1, "MPI_Recv", 0.1375, 0.0),
            (2, "compute", 0.5, 0.0),
            (2, "MPI_Recv", 0.1, 0.0),
        ],
    );
}
