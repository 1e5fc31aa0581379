//! Wait states of real runs (shared samples): what each gives, and the
//! invariants every run keeps — no wait lies outside its call, and a
//! process never waits longer than it spends in MPI calls.

use std::path::{Path, PathBuf};

use trama_open::{LoadOptions, Source};
use trama_why::{wait_states, CallKind, Pattern, Run, RunOptions, WaitState};

/// The shared samples folder, when there.
fn samples() -> Option<PathBuf> {
    trama_testkit::shared::find("samples/otf2/pipit-ping-pong/traces.otf2", "real runs")
        .map(|d| d.join("samples"))
}

/// The run of the trace at `path` (user-defined fields kept) and its waits.
fn run_of(path: &Path) -> (Run, Vec<WaitState>) {
    let mut o = LoadOptions::default();
    o.keep_extras = true;
    let trace = trama_open::load(&Source::Path(path.to_path_buf()), &o).expect("loads");
    let run = Run::from_trace(&trace, &RunOptions::default()).expect("a run");
    let waits = wait_states(&run);
    (run, waits)
}

/// The invariants: each wait inside its call; per process, the waits add
/// up to no more than the time in MPI calls (calls do not nest in these
/// runs).
#[track_caller]
fn check_invariants(run: &Run, waits: &[WaitState]) {
    let eps = 1e-9;
    let mut waited = vec![0.0; run.processes.len()];
    for w in waits {
        let c = &run.calls[w.call as usize];
        assert!(w.duration > 0.0, "{w:?}");
        assert!(
            w.start >= c.enter - eps && w.start + w.duration <= c.exit + eps,
            "{w:?} outside its call {c:?}"
        );
        waited[c.proc as usize] += w.duration;
    }
    let mut in_mpi = vec![0.0; run.processes.len()];
    for c in &run.calls {
        in_mpi[c.proc as usize] += c.exit - c.enter;
    }
    for (p, (w, m)) in waited.iter().zip(&in_mpi).enumerate() {
        assert!(w <= &(m + eps), "process {p} waits {w} s in {m} s of MPI");
    }
}

fn count(waits: &[WaitState], p: Pattern) -> usize {
    waits.iter().filter(|w| w.pattern == p).count()
}

#[test]
fn the_otf2_ping_pong_has_its_late_senders() {
    let Some(s) = samples() else { return };
    let (run, waits) = run_of(&s.join("otf2/pipit-ping-pong/traces.otf2"));
    assert_eq!(run.processes.len(), 2);
    assert_eq!(run.messages.len(), 16);
    // Every message joins a send and a receive.
    for m in &run.messages {
        let s = run.calls[m.send_call.expect("a send call") as usize];
        let r = run.calls[m.recv_call.expect("a receive call") as usize];
        assert!(matches!(s.kind, CallKind::Send { .. }), "{s:?}");
        assert_eq!(r.kind, CallKind::Receive);
    }
    // A late sender is a receive entered before its send: recompute them.
    let mut want = 0;
    for m in &run.messages {
        let s = run.calls[m.send_call.unwrap() as usize];
        let r = run.calls[m.recv_call.unwrap() as usize];
        if s.enter > r.enter {
            want += 1;
        }
    }
    assert!(want > 0);
    let late = count(&waits, Pattern::LateSender) + count(&waits, Pattern::LateSenderWrongOrder);
    assert_eq!(late, want);
    check_invariants(&run, &waits);
}

#[test]
fn the_smpi_replay_s_collectives_match_but_have_no_root() {
    let Some(s) = samples() else { return };
    let (run, waits) = run_of(&s.join("paje-real/simgrid/smpi-replay.paje"));
    assert_eq!(run.processes.len(), 3);
    // bcast twice and reduce once on each rank, matched by order.
    assert_eq!(run.collectives.len(), 3);
    assert!(run.collectives.iter().all(|c| c.calls.len() == 3));
    assert!(run.collectives.iter().all(|c| c.root.is_none()));
    assert_eq!(count(&waits, Pattern::EarlyReduce), 0);
    assert_eq!(count(&waits, Pattern::LateBroadcast), 0);
    check_invariants(&run, &waits);
}

#[test]
fn akypuera_runs_keep_the_invariants() {
    let Some(s) = samples() else { return };
    for name in ["collective", "ring", "small", "smpi_bug"] {
        let (run, waits) = run_of(&s.join(format!("librastro-rst/akypuera/{name}/rastro-0-0.rst")));
        assert!(run.processes.len() > 1, "{name}");
        check_invariants(&run, &waits);
    }
}

/// An OTF2 archive written by the OTF2 library (`write_case.py
/// collectives`): four ranks enter MPI_Allreduce at base + 10 R µs and
/// all leave at base + 300 µs, three times; rank 0 receives from rank 1
/// 50 µs before rank 1 sends. The all-reduces match by communicator.
#[test]
fn an_otf2_archive_s_allreduce_and_late_sender_by_hand() {
    if !trama_gen::otf2::tools() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let anchor = trama_gen::otf2::write_case("collectives", dir.path());
    let (run, waits) = run_of(&anchor);
    assert_eq!(run.processes.len(), 4);
    assert_eq!(run.collectives.len(), 3);
    for c in &run.collectives {
        assert_eq!(c.communicator.as_deref(), Some("MPI_COMM_WORLD"));
        assert_eq!(c.calls.len(), 4);
    }
    let per_rank = |p: Pattern| {
        let mut s = [0.0; 4];
        for w in waits.iter().filter(|w| w.pattern == p) {
            s[run.calls[w.call as usize].proc as usize] += w.duration;
        }
        s.map(|x: f64| (x * 1e6).round())
    };
    assert_eq!(per_rank(Pattern::WaitNxn), [90.0, 60.0, 30.0, 0.0]);
    assert_eq!(per_rank(Pattern::NxnCompletion), [0.0; 4]);
    assert_eq!(per_rank(Pattern::LateSender), [150.0, 0.0, 0.0, 0.0]);
    assert_eq!(waits.len(), 9 + 3);
    check_invariants(&run, &waits);
}
