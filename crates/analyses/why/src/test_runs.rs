//! Runs built by hand for the unit tests: a small builder of [`Run`]s and
//! their [`WaitState`]s.

use crate::model::{
    Activity, Call, CallId, CallKind, Collective, CollectiveKind, Message, Pattern, ProcId,
    Process, RegionId, Run, WaitState,
};

/// A run under construction. Calls must be added per process in time
/// order, processes in order (as [`Run::calls`] keeps them).
pub(crate) struct Build {
    pub run: Run,
    pub waits: Vec<WaitState>,
}

/// A blocking send.
pub(crate) const SEND: CallKind = CallKind::Send { synchronous: false };
/// A receive.
pub(crate) const RECV: CallKind = CallKind::Receive;

impl Build {
    /// A run of `procs` processes (`P0`, `P1`…) over `[0, end]`.
    pub(crate) fn new(procs: usize, end: f64) -> Build {
        let processes = (0..procs)
            .map(|i| Process {
                container: trama_sim::ContainerId::ROOT,
                name: format!("P{i}"),
            })
            .collect();
        Build {
            run: Run {
                start: 0.0,
                end,
                processes,
                activities: vec![Vec::new(); procs],
                ..Run::default()
            },
            waits: Vec::new(),
        }
    }

    /// The region called `name` (added when new).
    pub(crate) fn region(&mut self, name: &str) -> RegionId {
        match self.run.regions.iter().position(|r| r == name) {
            Some(i) => i as RegionId,
            None => {
                self.run.regions.push(name.to_string());
                (self.run.regions.len() - 1) as RegionId
            }
        }
    }

    /// An activity of `p` in `name` over `[start, end]`.
    pub(crate) fn act(&mut self, p: ProcId, name: &str, start: f64, end: f64) -> &mut Build {
        let region = self.region(name);
        let acts = &mut self.run.activities[p as usize];
        let at = acts.partition_point(|a| a.start <= start);
        acts.insert(at, Activity { start, end, region });
        self
    }

    /// An MPI call of `p` (and its activity).
    pub(crate) fn call(
        &mut self,
        p: ProcId,
        name: &str,
        kind: CallKind,
        enter: f64,
        exit: f64,
    ) -> CallId {
        self.act(p, name, enter, exit);
        let region = self.region(name);
        if let Some(last) = self.run.calls.last() {
            assert!((last.proc, last.enter) <= (p, enter), "calls out of order");
        }
        self.run.calls.push(Call {
            proc: p,
            region,
            kind,
            enter,
            exit,
        });
        (self.run.calls.len() - 1) as CallId
    }

    /// A message from the send call `s` to the receive call `r`.
    pub(crate) fn message(&mut self, s: CallId, r: CallId) {
        let (a, b) = (self.run.calls[s as usize], self.run.calls[r as usize]);
        self.run.messages.push(Message {
            sender: a.proc,
            receiver: b.proc,
            sent: a.enter,
            received: b.exit,
            send_call: Some(s),
            recv_call: Some(r),
        });
    }

    /// A collective operation of the calls `calls`.
    pub(crate) fn collective(&mut self, kind: CollectiveKind, calls: &[CallId]) {
        let region = self.run.calls[calls[0] as usize].region;
        self.run.collectives.push(Collective {
            kind,
            region,
            communicator: None,
            root: None,
            calls: calls.to_vec(),
        });
    }

    /// A wait state in call `call`, waiting for `waited_for`.
    pub(crate) fn wait(
        &mut self,
        pattern: Pattern,
        call: CallId,
        waited_for: ProcId,
        start: f64,
        duration: f64,
    ) {
        self.waits.push(WaitState {
            pattern,
            call,
            waited_for: Some(waited_for),
            start,
            duration,
        });
    }
}

/// Asserts that two numbers agree within rounding.
pub(crate) fn close(a: f64, b: f64) -> bool {
    (a - b).abs() < 1e-9
}

/// P0 computes 3 s then sends; P1 computes 1 s then waits 2 s in its
/// receive, which ends at 3.6.
pub(crate) fn late_sender() -> Build {
    let mut b = Build::new(2, 3.6);
    b.act(0, "compute", 0.0, 3.0);
    let s = b.call(0, "MPI_Send", SEND, 3.0, 3.5);
    b.act(1, "compute", 0.0, 1.0);
    let r = b.call(1, "MPI_Recv", RECV, 1.0, 3.6);
    b.message(s, r);
    b.wait(Pattern::LateSender, r, 0, 1.0, 2.0);
    b
}

/// A chain of late senders: A computes 4 s and sends to B, which waits
/// from 1 to 4 and sends to C at 4.2, which waits from 2 to 4.2.
pub(crate) fn chain() -> Build {
    let mut b = Build::new(3, 4.4);
    b.act(0, "compute", 0.0, 4.0);
    let sa = b.call(0, "MPI_Send", SEND, 4.0, 4.1);
    b.act(1, "compute", 0.0, 1.0);
    let rb = b.call(1, "MPI_Recv", RECV, 1.0, 4.2);
    let sb = b.call(1, "MPI_Send", SEND, 4.2, 4.3);
    b.act(2, "compute", 0.0, 2.0);
    let rc = b.call(2, "MPI_Recv", RECV, 2.0, 4.4);
    b.message(sa, rb);
    b.message(sb, rc);
    b.wait(Pattern::LateSender, rb, 0, 1.0, 3.0);
    b.wait(Pattern::LateSender, rc, 1, 2.0, 2.2);
    b
}

/// A barrier entered at 1, 2 and 3 by P0, P1 and P2, left by all at 3.1.
pub(crate) fn barrier() -> Build {
    let mut b = Build::new(3, 3.1);
    let mut calls = Vec::new();
    for p in 0..3 {
        let t = 1.0 + p as f64;
        b.act(p, "compute", 0.0, t);
        calls.push(b.call(
            p,
            "MPI_Barrier",
            crate::model::CallKind::Collective(CollectiveKind::Barrier),
            t,
            3.1,
        ));
    }
    b.collective(CollectiveKind::Barrier, &calls);
    b.wait(Pattern::WaitBarrier, calls[0], 2, 1.0, 2.0);
    b.wait(Pattern::WaitBarrier, calls[1], 2, 2.0, 1.0);
    b
}

/// Two all-reduces: P1 arrives last at both (2 and 3.6), P0 at 1 and 2.6.
pub(crate) fn allreduce() -> Build {
    let nxn = crate::model::CallKind::Collective(CollectiveKind::NxN);
    let mut b = Build::new(2, 3.7);
    b.act(0, "compute", 0.0, 1.0);
    let a0 = b.call(0, "MPI_Allreduce", nxn, 1.0, 2.1);
    b.act(0, "compute", 2.1, 2.6);
    let c0 = b.call(0, "MPI_Allreduce", nxn, 2.6, 3.7);
    b.act(1, "compute", 0.0, 2.0);
    let a1 = b.call(1, "MPI_Allreduce", nxn, 2.0, 2.1);
    b.act(1, "compute", 2.1, 3.6);
    let c1 = b.call(1, "MPI_Allreduce", nxn, 3.6, 3.7);
    b.collective(CollectiveKind::NxN, &[a0, a1]);
    b.collective(CollectiveKind::NxN, &[c0, c1]);
    b.wait(Pattern::WaitNxn, a0, 1, 1.0, 1.0);
    b.wait(Pattern::WaitNxn, c0, 1, 2.6, 1.0);
    b
}

/// A ping-pong: P0 computes 1 s and sends to P1, which waits from 0 to 1,
/// computes from 1.2 to 2.2 and sends back to P0, which waits from 1.1 to
/// 2.2 and computes from 2.4 to 3.
pub(crate) fn ping_pong() -> Build {
    let mut b = Build::new(2, 3.0);
    b.act(0, "compute", 0.0, 1.0);
    let s0 = b.call(0, "MPI_Send", SEND, 1.0, 1.1);
    let r0 = b.call(0, "MPI_Recv", RECV, 1.1, 2.4);
    b.act(0, "compute", 2.4, 3.0);
    let r1 = b.call(1, "MPI_Recv", RECV, 0.0, 1.2);
    b.act(1, "compute", 1.2, 2.2);
    let s1 = b.call(1, "MPI_Send", SEND, 2.2, 2.3);
    b.message(s0, r1);
    b.message(s1, r0);
    b.wait(Pattern::LateSender, r1, 0, 0.0, 1.0);
    b.wait(Pattern::LateSender, r0, 1, 1.1, 1.1);
    b
}

/// Three ranks: a chain of late senders (rank0 → rank1 → rank2) and a
/// late sender back (rank2 → rank1), the run of the command line's test
/// (`crates/apps/cli/tests/stats_path.rs`).
pub(crate) fn three_ranks() -> Build {
    let mut b = Build::new(3, 5.6);
    b.act(0, "compute", 0.0, 4.0);
    let s0 = b.call(0, "MPI_Send", SEND, 4.0, 4.1);
    b.act(0, "compute", 4.1, 5.0);
    b.act(1, "compute", 0.0, 1.0);
    let r1 = b.call(1, "MPI_Recv", RECV, 1.0, 4.2);
    let s1 = b.call(1, "MPI_Send", SEND, 4.2, 4.3);
    b.act(1, "compute", 4.3, 4.8);
    let r1b = b.call(1, "MPI_Recv", RECV, 4.8, 5.6);
    b.act(2, "compute", 0.0, 2.0);
    let r2 = b.call(2, "MPI_Recv", RECV, 2.0, 4.4);
    b.act(2, "compute", 4.4, 5.4);
    let s2 = b.call(2, "MPI_Send", SEND, 5.4, 5.5);
    b.message(s0, r1);
    b.message(s1, r2);
    b.message(s2, r1b);
    b.wait(Pattern::LateSender, r1, 0, 1.0, 3.0);
    b.wait(Pattern::LateSender, r2, 1, 2.0, 2.2);
    b.wait(Pattern::LateSender, r1b, 2, 4.8, 0.6);
    b
}
