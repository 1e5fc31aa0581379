use super::*;
use trama_paje::{read_paje, ReadOptions};

/// Event definitions: 0 container type, 1 state type, 2 link type, 3
/// create container, 4 push state (with fields Communicator and Root), 5
/// pop state, 6 start link, 7 end link, 8 destroy container; then the
/// types and the host `h`.
fn header() -> String {
    trama_gen::event_defs(
        "PajeDefineContainerType 0; PajeDefineStateType 1; PajeDefineLinkType 2; \
         PajeCreateContainer 3; \
         PajePushState 4 Time:date Type Container Value Communicator Root; \
         PajePopState 5; PajeStartLink 6; PajeEndLink 7; PajeDestroyContainer 8",
    ) + TYPES
}

/// The types and the host, after the definitions of [`header`].
const TYPES: &str = "\
0 H 0 Host
0 P H Process
1 S P State
1 C P \"MPI collective\"
2 L 0 P P Link
3 0 h H 0 h
";

/// The trace of `body` (events after [`header`] and processes `p0`…
/// `p{n-1}` on host `h`), user-defined fields kept.
#[allow(clippy::result_large_err)]
fn trace(n: usize, body: &str) -> Trace {
    let mut text = header();
    for p in 0..n {
        text.push_str(&format!("3 0 p{p} P h p{p}\n"));
    }
    text.push_str(body);
    trama_testkit::traces::simulated(true, |sim| {
        read_paje(text.as_bytes(), &ReadOptions::default(), |ev| {
            sim.event(&ev)
        })
        .ok()
    })
    .expect("a valid trace")
}

fn run_of(n: usize, body: &str) -> Run {
    Run::from_trace(&trace(n, body), &RunOptions::default()).expect("a run")
}

/// The name of each activity's region, with its interval.
fn activities(run: &Run, p: usize) -> Vec<(String, f64, f64)> {
    run.activities[p]
        .iter()
        .map(|a| (run.regions[a.region as usize].clone(), a.start, a.end))
        .collect()
}

#[test]
fn mpi_names_are_classified_by_kind() {
    use CollectiveKind as K;
    let cases = [
        ("MPI_Send", Some(CallKind::Send { synchronous: false })),
        ("PMPI_Rsend", Some(CallKind::Send { synchronous: false })),
        ("mpi_ssend", Some(CallKind::Send { synchronous: true })),
        ("action_recv", Some(CallKind::Receive)),
        ("MPI_Waitall", Some(CallKind::Receive)),
        ("MPI_Sendrecv_replace", Some(CallKind::Receive)),
        ("smpi_barrier", Some(CallKind::Collective(K::Barrier))),
        ("action_allReduce", Some(CallKind::Collective(K::NxN))),
        (
            "MPI_Reduce_scatter_block",
            Some(CallKind::Collective(K::NxN)),
        ),
        ("MPI_Scatterv", Some(CallKind::Collective(K::OneToN))),
        ("action_reduce", Some(CallKind::Collective(K::NToOne))),
        ("MPI_Exscan", Some(CallKind::Collective(K::Scan))),
        ("MPI_Irecv", Some(CallKind::Other)),
        ("MPI_Init", Some(CallKind::Other)),
        ("action_compute", None),
        ("computing", None),
        ("send", None),
        ("main", None),
    ];
    for (name, want) in cases {
        assert_eq!(call_kind(name), want, "{name}");
    }
}

#[test]
fn a_nested_state_hides_its_parent() {
    let run = run_of(
        1,
        "4 1 S p0 main x x\n4 2 S p0 MPI_Recv x x\n5 3 S p0\n5 5 S p0\n8 6 P p0\n",
    );
    assert_eq!(
        activities(&run, 0),
        [
            ("main".to_string(), 1.0, 2.0),
            ("MPI_Recv".to_string(), 2.0, 3.0),
            ("main".to_string(), 3.0, 5.0),
        ]
    );
    assert_eq!(run.calls.len(), 1);
    assert_eq!(run.calls[0].kind, CallKind::Receive);
    assert_eq!((run.calls[0].enter, run.calls[0].exit), (2.0, 3.0));
}

#[test]
fn links_between_processes_are_messages_with_their_calls() {
    // p0 sends inside MPI_Send (1..2); p1 receives in MPI_Recv (0.5..3);
    // a second link starts outside any call of p0.
    let run = run_of(
        2,
        "4 0.5 S p1 MPI_Recv x x\n4 1 S p0 MPI_Send x x\n6 1.5 L 0 p0 m k1\n\
         5 2 S p0\n7 3 L 0 p1 m k1\n5 3 S p1\n6 4 L 0 p0 m k2\n7 4.5 L 0 p1 m k2\n",
    );
    assert_eq!(run.processes.len(), 2);
    assert_eq!(run.messages.len(), 2);
    let m = run.messages[0];
    assert_eq!((m.sender, m.receiver, m.sent, m.received), (0, 1, 1.5, 3.0));
    let send = run.calls[m.send_call.unwrap() as usize];
    let recv = run.calls[m.recv_call.unwrap() as usize];
    assert_eq!((send.proc, send.enter), (0, 1.0));
    assert_eq!((recv.proc, recv.enter), (1, 0.5));
    assert_eq!(
        (run.messages[1].send_call, run.messages[1].recv_call),
        (None, None)
    );
}

#[test]
fn collectives_match_by_name_and_order_without_communicators() {
    let run = run_of(
        2,
        "4 1 S p0 MPI_Barrier x x\n5 2 S p0\n4 1.5 S p1 MPI_Barrier x x\n5 2 S p1\n\
         4 3 S p0 MPI_Barrier x x\n5 4 S p0\n4 3.5 S p1 MPI_Barrier x x\n5 4 S p1\n",
    );
    assert_eq!(run.collectives.len(), 2);
    for (i, c) in run.collectives.iter().enumerate() {
        assert_eq!(c.kind, CollectiveKind::Barrier);
        let enters: Vec<f64> = c
            .calls
            .iter()
            .map(|&k| run.calls[k as usize].enter)
            .collect();
        assert_eq!(enters, [1.0 + 2.0 * i as f64, 1.5 + 2.0 * i as f64]);
    }
}

#[test]
fn an_otf2_collective_state_gives_communicator_and_root() {
    // Region states MPI_Bcast hold "MPI collective" states BCAST with
    // communicator and root rank 1; only the region is a call.
    let run = run_of(
        2,
        "4 1 S p0 MPI_Bcast x x\n4 1 C p0 BCAST world 1\n5 2 C p0\n5 2 S p0\n\
         4 1.5 S p1 MPI_Bcast x x\n4 1.5 C p1 BCAST world 1\n5 2 C p1\n5 2 S p1\n",
    );
    assert_eq!(run.calls.len(), 2);
    assert_eq!(run.collectives.len(), 1);
    let c = &run.collectives[0];
    assert_eq!(c.communicator.as_deref(), Some("world"));
    assert_eq!(c.root, Some(1));
    assert_eq!(c.calls.len(), 2);
}

#[test]
fn a_trace_without_processes_is_refused_clearly() {
    let err = Run::from_trace(
        &trace(1, "4 1 S p0 compute x x\n5 2 S p0\n"),
        &RunOptions::default(),
    )
    .unwrap_err();
    assert!(err.to_string().contains("no process"), "{err}");
}
