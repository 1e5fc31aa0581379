//! The synchronization points that join processes, as the critical path
//! and the delay costs use them.
//!
//! A *synchronization point* between two processes is a message between
//! them (in either direction: the send call on one side, the receive call
//! on the other) or a collective operation instance in which both take
//! part (each one's call). Only points with a call on both sides count.
//!
//! The *hand-off* of a wait state is the moment the process waited for
//! entered its side of the synchronization point: the enter of its call
//! (the send of a late sender, the receive of a late receiver, the last
//! participant's call of a collective). When the trace gives no such call
//! the hand-off is the end of the waiting, `start + duration`, which the
//! patterns define as that same moment. Completion patterns
//! ([`Pattern::BarrierCompletion`], [`Pattern::NxnCompletion`]) wait for
//! no one and have no hand-off. Early Scan has none either: Scalasca 2.6
//! makes no synchronization point of a prefix operation (its critical
//! path does not follow the waiting there, and its delay analysis neither
//! explains it nor counts it as waiting), and so neither does this
//! analysis (`synchronizes`).

use crate::model::{CallId, Pattern, ProcId, Run, WaitState};

/// Does the pattern wait for another process to enter (rather than for
/// an operation to complete)?
pub(crate) fn waits_for_entry(p: Pattern) -> bool {
    !matches!(p, Pattern::BarrierCompletion | Pattern::NxnCompletion)
}

/// Is a wait state of the pattern a synchronization point, one with a
/// hand-off: a wait for another process to enter, but Early Scan's?
pub(crate) fn synchronizes(p: Pattern) -> bool {
    waits_for_entry(p) && p != Pattern::EarlyScan
}

/// Where a wait state hands over to the process it waited for.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct Handoff {
    /// The process waited for.
    pub proc: ProcId,
    /// Its call at the synchronization point, when known.
    pub call: Option<CallId>,
    /// When it entered its side (within the waiting call).
    pub time: f64,
}

/// The links of each call to the others: the messages it sends or
/// receives and the collective it belongs to (compressed rows: the
/// messages of call `c` are `msg_ids[msg_start[c]..msg_start[c + 1]]`).
pub(crate) struct SyncIndex {
    msg_start: Vec<u32>,
    msg_ids: Vec<u32>,
    collective: Vec<Option<u32>>,
    /// Each collective's participants and their calls, sorted by process.
    members: Vec<Vec<(ProcId, CallId)>>,
}

impl SyncIndex {
    /// The index of `run`.
    pub(crate) fn new(run: &Run) -> SyncIndex {
        let n = run.calls.len();
        let mut count = vec![0u32; n + 1];
        let ends = |m: &crate::model::Message| [m.send_call, m.recv_call];
        for m in &run.messages {
            for c in ends(m).into_iter().flatten() {
                if (c as usize) < n {
                    count[c as usize + 1] += 1;
                }
            }
        }
        for i in 0..n {
            count[i + 1] += count[i];
        }
        let mut fill = count.clone();
        let mut msg_ids = vec![0u32; count[n] as usize];
        for (i, m) in run.messages.iter().enumerate() {
            for c in ends(m).into_iter().flatten() {
                if (c as usize) < n {
                    msg_ids[fill[c as usize] as usize] = i as u32;
                    fill[c as usize] += 1;
                }
            }
        }
        let mut collective = vec![None; n];
        let mut members = Vec::with_capacity(run.collectives.len());
        for (k, col) in run.collectives.iter().enumerate() {
            let mut procs = Vec::with_capacity(col.calls.len());
            for &c in &col.calls {
                if let Some(call) = run.calls.get(c as usize) {
                    collective[c as usize] = Some(k as u32);
                    procs.push((call.proc, c));
                }
            }
            procs.sort_unstable();
            members.push(procs);
        }
        SyncIndex {
            msg_start: count,
            msg_ids,
            collective,
            members,
        }
    }

    /// The calls on process `q` that share a synchronization point with
    /// call `c`.
    fn partners<'a>(
        &'a self,
        run: &'a Run,
        c: CallId,
        q: ProcId,
    ) -> impl Iterator<Item = CallId> + 'a {
        let (a, b) = (self.msg_start[c as usize], self.msg_start[c as usize + 1]);
        let calls = &run.calls;
        let by_message = self.msg_ids[a as usize..b as usize]
            .iter()
            .map(move |&m| &run.messages[m as usize])
            .filter_map(move |m| {
                if m.recv_call == Some(c) && m.sender == q {
                    m.send_call
                } else if m.send_call == Some(c) && m.receiver == q {
                    m.recv_call
                } else {
                    None
                }
            });
        let by_collective = self.collective[c as usize].and_then(move |k| {
            let m = &self.members[k as usize];
            let i = m.partition_point(|&(p, _)| p < q);
            m.get(i).filter(|&&(p, _)| p == q).map(|&(_, x)| x)
        });
        by_message
            .chain(by_collective)
            .filter(move |&x| (x as usize) < calls.len())
    }

    /// Where `wait` hands over to the process it waited for (see the
    /// module's documentation); `None` for a completion pattern, Early
    /// Scan, a wait of no length or for no other process.
    pub(crate) fn handoff(&self, run: &Run, wait: &WaitState) -> Option<Handoff> {
        let q = wait.waited_for?;
        let call = run.calls.get(wait.call as usize)?;
        if !synchronizes(wait.pattern) || q == call.proc || wait.duration.is_nan() {
            return None;
        }
        if wait.duration <= 0.0 {
            return None;
        }
        let end = wait.start + wait.duration;
        // The partner whose enter is nearest the end of the waiting.
        let partner = self.partners(run, wait.call, q).min_by(|&x, &y| {
            let dx = (run.calls[x as usize].enter - end).abs();
            let dy = (run.calls[y as usize].enter - end).abs();
            dx.total_cmp(&dy)
        });
        let time = match partner {
            Some(x) => run.calls[x as usize].enter,
            None => end,
        };
        // Within the waiting call, after the waiting started.
        let time = time.min(call.exit).max(wait.start);
        Some(Handoff {
            proc: q,
            call: partner,
            time,
        })
    }

    /// The collective instance (an index into [`Run::collectives`]) call
    /// `c` belongs to, if any.
    pub(crate) fn collective_of(&self, c: CallId) -> Option<usize> {
        self.collective
            .get(c as usize)
            .copied()
            .flatten()
            .map(|k| k as usize)
    }

    /// The participants of collective `k` (an index into
    /// [`Run::collectives`]) and their calls, by process.
    pub(crate) fn members_of(&self, k: usize) -> &[(ProcId, CallId)] {
        self.members.get(k).map_or(&[][..], Vec::as_slice)
    }
}
