//! The wait-state patterns found in a run, with Scalasca 2.6's definitions.
//!
//! Every instance of each [`Pattern`] is a [`WaitState`]: the call in
//! which a process waited, the process it waited for, when the waiting
//! started and how long it lasted. `enter`/`exit` are a call's times, `S`
//! the send call of a message and `R` its receive call; a time written
//! `min(x, exit)` keeps the waiting inside the waiting call.
//!
//! | pattern | who waits | for whom | severity |
//! |---|---|---|---|
//! | `late_sender` | a receive (`MPI_Recv`, `MPI_Wait*`, `MPI_Sendrecv`, `MPI_Probe`) `R` | the sender | `min(S.enter, R.exit) − R.enter` when positive, from `R.enter`; a call completing several messages (`MPI_Waitall`) counts once, for its latest sender; without a send call, the message's start stands for `S.enter` |
//! | `late_sender_wrong_order` | a late sender instance | the sender | the same, when a message received later by the same process (in a later call) was sent before the late message: messages received in the wrong order; only the last 100 late-sender instances of a process are candidates |
//! | `late_receiver` | a blocking send `S` (`MPI_Send`, `MPI_Ssend`, …) | the receiver | `R.enter − S.enter` when `S.exit > R.enter` (the send lasted until the receive started), from `S.enter` |
//! | `wait_barrier`, `wait_nxn` | each participant of a barrier, of an N×N operation (`MPI_Allreduce`, …) | the last to enter | `min(latest enter, exit) − enter` when positive, from `enter` |
//! | `barrier_completion`, `nxn_completion` | each participant | — | `exit − max(earliest exit, min(latest enter, exit))` when positive, up to `exit` |
//! | `early_reduce` | the root of an N-to-one operation (`MPI_Reduce`, `MPI_Gather(v)`) | the last non-root to enter | `min(latest non-root enter, exit) − enter` when positive, from `enter` |
//! | `late_broadcast` | each non-root participant of a one-to-N operation (`MPI_Bcast`, `MPI_Scatter(v)`) | the root | `min(root's enter, exit) − enter` when positive, from `enter` |
//! | `early_scan` | each participant of `MPI_Scan`/`MPI_Exscan` | the last to enter among it and those before it (in process order) | `min(latest enter of those, exit) − enter` when positive, from `enter` |
//!
//! Late Sender and Late Sender / Wrong Order are exclusive here: an
//! instance is one or the other. Scalasca's Late Sender metric includes
//! its wrong-order part: it is the sum of the two.
//!
//! Where it departs from Scalasca:
//!
//! - Scalasca measures a late receiver from the enter of the receive's
//!   request (the `MPI_Irecv`); a message here knows only the call it
//!   ends in (the `MPI_Wait`), whose enter is used. A send completed by
//!   `MPI_Wait` (an `MPI_Isend`'s) is not a blocking send here and has no
//!   late receiver.
//! - Scalasca leaves out collective participants that send or receive no
//!   data (its byte counts); here every participant sends and receives.
//! - Without a known root (traces without a `Root` field), Late Broadcast
//!   and Early Reduce are not detected.

use std::collections::VecDeque;

use crate::model::{CallId, CallKind, Collective, CollectiveKind, Pattern, ProcId, Run, WaitState};

/// Late-sender instances of a process kept as wrong-order candidates
/// (Scalasca's buffer size).
const WRONG_ORDER_CANDIDATES: usize = 100;

/// Every wait state of `run`, in order of their call.
pub fn wait_states(run: &Run) -> Vec<WaitState> {
    let mut out = late_senders(run);
    late_receivers(run, &mut out);
    for c in &run.collectives {
        collective(run, c, &mut out);
    }
    out.sort_by(|a, b| {
        a.call
            .cmp(&b.call)
            .then(a.start.total_cmp(&b.start))
            .then(a.pattern.cmp(&b.pattern))
    });
    out
}

/// A wait of `duration` in `call` from `start`, if positive.
fn wait(
    out: &mut Vec<WaitState>,
    pattern: Pattern,
    call: CallId,
    waited_for: Option<ProcId>,
    start: f64,
    duration: f64,
) {
    if duration > 0.0 {
        out.push(WaitState {
            pattern,
            call,
            waited_for,
            start,
            duration,
        });
    }
}

/// The late senders, each marked wrong-order or not.
fn late_senders(run: &Run) -> Vec<WaitState> {
    // Each receive call's latest sender: (message, idle).
    let mut worst: Vec<Option<(usize, f64)>> = vec![None; run.calls.len()];
    for (i, m) in run.messages.iter().enumerate() {
        let Some(r) = m.recv_call else { continue };
        let call = &run.calls[r as usize];
        if call.kind != CallKind::Receive {
            continue;
        }
        let send_enter = m.send_call.map_or(m.sent, |s| run.calls[s as usize].enter);
        let idle = send_enter.min(call.exit) - call.enter;
        if idle > 0.0 && worst[r as usize].is_none_or(|(_, w)| idle > w) {
            worst[r as usize] = Some((i, idle));
        }
    }
    // Messages by receiver, in order of arrival.
    let mut arrivals: Vec<usize> = (0..run.messages.len()).collect();
    arrivals.sort_by(|&a, &b| {
        let (x, y) = (&run.messages[a], &run.messages[b]);
        x.receiver
            .cmp(&y.receiver)
            .then(x.received.total_cmp(&y.received))
    });
    let mut out = Vec::new();
    let mut wrong = Vec::new();
    // Candidates: (index in `out`, send time of its message).
    let mut candidates: VecDeque<(usize, f64)> = VecDeque::new();
    let mut k = 0;
    while k < arrivals.len() {
        let m = &run.messages[arrivals[k]];
        if k > 0 && run.messages[arrivals[k - 1]].receiver != m.receiver {
            candidates.clear();
        }
        // The arrivals in the same call are checked together.
        let mut end = k + 1;
        while m.recv_call.is_some()
            && end < arrivals.len()
            && run.messages[arrivals[end]].recv_call == m.recv_call
        {
            end += 1;
        }
        for &a in &arrivals[k..end] {
            let sent = run.messages[a].sent;
            candidates.retain(|&(w, late)| {
                if late > sent {
                    wrong[w] = true;
                }
                late <= sent
            });
        }
        if let Some(r) = m.recv_call {
            if let Some((msg, idle)) = worst[r as usize] {
                let late = &run.messages[msg];
                let call = &run.calls[r as usize];
                if candidates.len() == WRONG_ORDER_CANDIDATES {
                    candidates.pop_front();
                }
                candidates.push_back((out.len(), late.sent));
                wrong.push(false);
                wait(
                    &mut out,
                    Pattern::LateSender,
                    r,
                    Some(late.sender),
                    call.enter,
                    idle,
                );
                worst[r as usize] = None;
            }
        }
        k = end;
    }
    for (w, wrong) in out.iter_mut().zip(wrong) {
        if wrong {
            w.pattern = Pattern::LateSenderWrongOrder;
        }
    }
    out
}

/// The late receivers: blocking sends that lasted until the receive
/// started.
fn late_receivers(run: &Run, out: &mut Vec<WaitState>) {
    for m in &run.messages {
        let (Some(s), Some(r)) = (m.send_call, m.recv_call) else {
            continue;
        };
        let (send, recv) = (&run.calls[s as usize], &run.calls[r as usize]);
        if !matches!(send.kind, CallKind::Send { .. }) || send.exit <= recv.enter {
            continue;
        }
        let idle = recv.enter - send.enter;
        wait(
            out,
            Pattern::LateReceiver,
            s,
            Some(m.receiver),
            send.enter,
            idle,
        );
    }
}

/// The wait states of one collective instance.
fn collective(run: &Run, c: &Collective, out: &mut Vec<WaitState>) {
    let call = |k: CallId| &run.calls[k as usize];
    // The last to enter among `calls`, and when.
    let latest = |calls: &mut dyn Iterator<Item = &CallId>| {
        calls
            .map(|&k| (call(k).enter, call(k).proc))
            .max_by(|a, b| a.0.total_cmp(&b.0))
    };
    match c.kind {
        CollectiveKind::Barrier | CollectiveKind::NxN => {
            let (wait_p, compl_p) = if c.kind == CollectiveKind::Barrier {
                (Pattern::WaitBarrier, Pattern::BarrierCompletion)
            } else {
                (Pattern::WaitNxn, Pattern::NxnCompletion)
            };
            let Some((last, who)) = latest(&mut c.calls.iter()) else {
                return;
            };
            let earliest_exit = c
                .calls
                .iter()
                .map(|&k| call(k).exit)
                .fold(f64::INFINITY, f64::min);
            for &k in &c.calls {
                let x = call(k);
                let latest_begin = last.min(x.exit);
                let earliest_end = earliest_exit.max(latest_begin);
                wait(out, wait_p, k, Some(who), x.enter, latest_begin - x.enter);
                wait(out, compl_p, k, None, earliest_end, x.exit - earliest_end);
            }
        }
        CollectiveKind::NToOne => {
            let Some(root) = c.root else { return };
            let Some(&r) = c.calls.iter().find(|&&k| call(k).proc == root) else {
                return;
            };
            let mut others = c.calls.iter().filter(|&&k| call(k).proc != root);
            let Some((last, who)) = latest(&mut others) else {
                return;
            };
            let x = call(r);
            let idle = last.min(x.exit) - x.enter;
            wait(out, Pattern::EarlyReduce, r, Some(who), x.enter, idle);
        }
        CollectiveKind::OneToN => {
            let Some(root) = c.root else { return };
            let Some(&r) = c.calls.iter().find(|&&k| call(k).proc == root) else {
                return;
            };
            let root_enter = call(r).enter;
            for &k in c.calls.iter().filter(|&&k| k != r) {
                let x = call(k);
                let idle = root_enter.min(x.exit) - x.enter;
                wait(out, Pattern::LateBroadcast, k, Some(root), x.enter, idle);
            }
        }
        CollectiveKind::Scan => {
            // Participants in process order; the latest enter so far.
            let mut order = c.calls.clone();
            order.sort_by_key(|&k| call(k).proc);
            let mut last: Option<(f64, ProcId)> = None;
            for k in order {
                let x = call(k);
                if last.is_none_or(|(t, _)| x.enter > t) {
                    last = Some((x.enter, x.proc));
                }
                if let Some((t, who)) = last {
                    let idle = t.min(x.exit) - x.enter;
                    wait(out, Pattern::EarlyScan, k, Some(who), x.enter, idle);
                }
            }
        }
    }
}

#[cfg(test)]
mod tests;
