//! The critical path, its profile and imbalance on runs built by hand.

use super::*;
use crate::model::Pattern;
use crate::test_runs::{
    allreduce, barrier, chain, close, late_sender, ping_pong, three_ranks, Build, RECV, SEND,
};

/// The path as (process, region name or "-", start, end).
fn segments(b: &Build) -> Vec<(ProcId, String, f64, f64)> {
    let path = critical_path(&b.run, &b.waits);
    tiles(&b.run, &path);
    path.iter()
        .map(|s| {
            let r = s
                .region
                .map_or("-".to_string(), |r| b.run.regions[r as usize].clone());
            (s.proc, r, s.start, s.end)
        })
        .collect()
}

/// Asserts that `path` tiles the run: consecutive segments, from its
/// start to its end.
fn tiles(run: &Run, path: &[PathSegment]) {
    assert_eq!(path.first().map(|s| s.start), Some(run.start));
    assert_eq!(path.last().map(|s| s.end), Some(run.end));
    for w in path.windows(2) {
        assert_eq!(w[0].end, w[1].start, "{path:?}");
    }
    let total: f64 = path.iter().map(|s| s.end - s.start).sum();
    let length = run.end - run.start;
    assert!((total - length).abs() <= 1e-9 * length.max(1.0), "{total}");
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

/// Regression: the path leaves a late sender's receive at the send's
/// enter, and the receive's rest (not the send) holds the hand-off.
#[test]
fn critical_path_late_sender_moves_to_the_sender() {
    let b = late_sender();
    expect(
        segments(&b),
        &[(0, "compute", 0.0, 3.0), (1, "MPI_Recv", 3.0, 3.6)],
    );
}

/// Regression: without its wait state the path stays on the receiver.
#[test]
fn critical_path_without_wait_states_stays_on_the_last_process() {
    let mut b = late_sender();
    b.waits.clear();
    expect(
        segments(&b),
        &[(1, "compute", 0.0, 1.0), (1, "MPI_Recv", 1.0, 3.6)],
    );
}

/// Regression: a ping-pong's path alternates between the two processes
/// at each send's enter.
#[test]
fn critical_path_ping_pong_chain() {
    let b = ping_pong();
    expect(
        segments(&b),
        &[
            (0, "compute", 0.0, 1.0),
            (1, "MPI_Recv", 1.0, 1.2),
            (1, "compute", 1.2, 2.2),
            (0, "MPI_Recv", 2.2, 2.4),
            (0, "compute", 2.4, 3.0),
        ],
    );
}

/// Regression: the path follows a chain of late senders back to its
/// origin.
#[test]
fn critical_path_chain_of_late_senders() {
    expect(
        segments(&chain()),
        &[
            (0, "compute", 0.0, 4.0),
            (1, "MPI_Recv", 4.0, 4.2),
            (2, "MPI_Recv", 4.2, 4.4),
        ],
    );
}

/// Regression: a barrier hands the path over to its last participant at
/// its enter; the path starts on the lowest of the processes ending last.
#[test]
fn critical_path_barrier_with_staggered_entries() {
    expect(
        segments(&barrier()),
        &[(2, "compute", 0.0, 3.0), (0, "MPI_Barrier", 3.0, 3.1)],
    );
}

/// Regression: an all-reduce hands over to the last to enter; the path
/// stays on P1 through the first one, where P1 did not wait.
#[test]
fn critical_path_allreduce() {
    expect(
        segments(&allreduce()),
        &[
            (1, "compute", 0.0, 2.0),
            (1, "MPI_Allreduce", 2.0, 2.1),
            (1, "compute", 2.1, 3.6),
            (0, "MPI_Allreduce", 3.6, 3.7),
        ],
    );
}

/// Regression: time outside any activity is on the path as `None`.
#[test]
fn critical_path_time_outside_activities_is_none() {
    let mut b = Build::new(2, 3.0);
    b.run.start = -1.0;
    b.act(0, "compute", 1.0, 2.0);
    b.act(1, "compute", 0.0, 0.5);
    expect(
        segments(&b),
        &[
            (0, "-", -1.0, 1.0),
            (0, "compute", 1.0, 2.0),
            (0, "-", 2.0, 3.0),
        ],
    );
}

/// Regression: hand-offs at one instant that point at each other are
/// each taken once: the walk ends and still tiles the run.
#[test]
fn critical_path_coinciding_handoffs_end() {
    let mut b = Build::new(2, 2.0);
    let r0 = b.call(0, "MPI_Recv", RECV, 0.0, 2.0);
    let r1 = b.call(1, "MPI_Recv", RECV, 0.0, 2.0);
    b.wait(Pattern::LateSender, r0, 1, 0.0, 1.0);
    b.wait(Pattern::LateSender, r1, 0, 0.0, 1.0);
    let got = segments(&b);
    assert!(got.len() <= 3, "{got:?}");
}

/// Regression: a long ping-pong is walked without recursion, every hop
/// taken, and its path tiles the run.
#[test]
fn critical_path_long_ping_pong() {
    let rounds = 50_000;
    let mut b = Build::new(2, 2.0 * rounds as f64 + 1.0);
    // P0 sends at 2k and receives until 2k + 2; P1 receives until 2k + 1
    // then computes and sends at 2k + 1.5.
    let mut sends = (Vec::new(), Vec::new());
    let mut recvs = (Vec::new(), Vec::new());
    for k in 0..rounds {
        let t = 2.0 * k as f64;
        b.act(0, "compute", t, t + 0.5);
        sends.0.push(b.call(0, "MPI_Send", SEND, t + 0.5, t + 0.6));
        recvs.0.push(b.call(0, "MPI_Recv", RECV, t + 0.6, t + 2.0));
    }
    b.act(0, "compute", 2.0 * rounds as f64, 2.0 * rounds as f64 + 1.0);
    for k in 0..rounds {
        let t = 2.0 * k as f64;
        recvs.1.push(b.call(1, "MPI_Recv", RECV, t, t + 0.7));
        b.act(1, "compute", t + 0.7, t + 1.5);
        sends.1.push(b.call(1, "MPI_Send", SEND, t + 1.5, t + 1.6));
    }
    for k in 0..rounds {
        b.message(sends.0[k], recvs.1[k]);
        b.message(sends.1[k], recvs.0[k]);
        let t = 2.0 * k as f64;
        b.wait(Pattern::LateSender, recvs.1[k], 0, t, 0.5);
        b.wait(Pattern::LateSender, recvs.0[k], 1, t + 0.6, 0.9);
    }
    let path = critical_path(&b.run, &b.waits);
    tiles(&b.run, &path);
    // Per round: P0 compute, P1 receive, P1 compute, P0 receive.
    assert_eq!(path.len(), 4 * rounds + 1);
    let profile = path_profile(&b.run, &b.waits, &path);
    let compute = b.run.regions.iter().position(|r| r == "compute").unwrap() as RegionId;
    let c = profile.iter().find(|r| r.region == Some(compute)).unwrap();
    let want = rounds as f64 * 1.3 + 1.0;
    assert!((c.seconds - want).abs() < 1e-9 * want, "{}", c.seconds);
}

/// Regression: the profile gives each region's time on the path, adding
/// up to the run's length, and its imbalance against the mean time per
/// process without waiting (worked by hand for the late sender).
#[test]
fn path_profile_and_imbalance_late_sender() {
    let b = late_sender();
    let path = critical_path(&b.run, &b.waits);
    let profile = path_profile(&b.run, &b.waits, &path);
    let name = |r: &PathRegion| b.run.regions[r.region.unwrap() as usize].clone();
    assert_eq!(profile.len(), 2);
    // compute: 3 s on the path; P0 3 s, P1 1 s: mean 2, imbalance 1.
    assert_eq!(name(&profile[0]), "compute");
    assert!(close(profile[0].seconds, 3.0));
    assert!(close(profile[0].mean, 2.0));
    assert!(close(profile[0].imbalance, 1.0));
    // MPI_Recv: 0.6 s on the path; P1's 2.6 s less 2 s waiting over two
    // processes: mean 0.3, imbalance 0.3.
    assert_eq!(name(&profile[1]), "MPI_Recv");
    assert!(close(profile[1].seconds, 0.6));
    assert!(close(profile[1].mean, 0.3));
    assert!(close(profile[1].imbalance, 0.3));
    let total: f64 = profile.iter().map(|r| r.seconds).sum();
    assert!(close(total, 3.6));

    let procs = path_processes(&b.run, &b.waits, &path);
    assert_eq!(procs.len(), 2);
    assert!(close(procs[0].seconds, 3.0) && close(procs[0].share, 3.0 / 3.6));
    assert!(close(procs[0].imbalance, 1.0));
    assert!(close(procs[1].seconds, 0.6) && close(procs[1].share, 0.6 / 3.6));
    assert!(close(procs[1].imbalance, 0.3));
}

/// Regression: a region balanced across processes has no imbalance even
/// on the path, and the imbalance of a region is shared among the
/// processes by their time on the path in it.
#[test]
fn path_imbalance_is_zero_for_balanced_regions() {
    let b = allreduce();
    let path = critical_path(&b.run, &b.waits);
    let profile = path_profile(&b.run, &b.waits, &path);
    let get = |n: &str| {
        let r = b.run.regions.iter().position(|x| x == n).unwrap() as RegionId;
        *profile.iter().find(|x| x.region == Some(r)).unwrap()
    };
    // compute: 3.5 s on the path (P1), P0 1.5 s, P1 3.5 s: mean 2.5.
    let c = get("compute");
    assert!(close(c.seconds, 3.5) && close(c.mean, 2.5) && close(c.imbalance, 1.0));
    // MPI_Allreduce: 0.2 s on the path; P0 2.2 s less 2 s waiting, P1
    // 0.2 s: mean 0.2, no imbalance.
    let a = get("MPI_Allreduce");
    assert!(close(a.seconds, 0.2) && close(a.mean, 0.2) && close(a.imbalance, 0.0));
    let procs = path_processes(&b.run, &b.waits, &path);
    assert!(close(procs[0].seconds, 0.1) && close(procs[0].imbalance, 0.0));
    assert!(close(procs[1].seconds, 3.6) && close(procs[1].imbalance, 1.0));
}

/// Regression: time outside activities is a region of the profile
/// (`None`), its mean the time each process spent outside activities.
#[test]
fn path_profile_counts_time_outside_activities() {
    let mut b = Build::new(2, 4.0);
    b.act(0, "compute", 1.0, 2.0);
    b.act(1, "compute", 0.0, 4.0);
    let path = critical_path(&b.run, &b.waits);
    let profile = path_profile(&b.run, &b.waits, &path);
    // P0's last activity ends at 2, P1's at 4: the path is P1's compute.
    assert_eq!(profile.len(), 1);
    assert!(close(profile[0].seconds, 4.0) && close(profile[0].mean, 2.5));
    let mut b2 = Build::new(2, 4.0);
    b2.act(0, "compute", 1.0, 2.0);
    let path = critical_path(&b2.run, &b2.waits);
    let profile = path_profile(&b2.run, &b2.waits, &path);
    let none = profile.iter().find(|r| r.region.is_none()).unwrap();
    // 3 s outside on P0, 4 s on P1: mean 3.5, imbalance 0.
    assert!(close(none.seconds, 3.0) && close(none.mean, 3.5) && close(none.imbalance, 0.0));
}

/// Regression: the three ranks of the command line's test, worked by
/// hand there: the path, its profile and each rank's part.
#[test]
fn critical_path_three_ranks() {
    let b = three_ranks();
    expect(
        segments(&b),
        &[
            (0, "compute", 0.0, 4.0),
            (1, "MPI_Recv", 4.0, 4.2),
            (2, "MPI_Recv", 4.2, 4.4),
            (2, "compute", 4.4, 5.4),
            (1, "MPI_Recv", 5.4, 5.6),
        ],
    );
    let path = critical_path(&b.run, &b.waits);
    let profile = path_profile(&b.run, &b.waits, &path);
    assert!(close(profile[0].seconds, 5.0) && close(profile[1].seconds, 0.6));
    let compute = 5.0 - 9.4 / 3.0;
    assert!(close(profile[0].imbalance, compute) && close(profile[1].imbalance, 0.4));
    let procs = path_processes(&b.run, &b.waits, &path);
    let want = [
        (4.0, compute * 4.0 / 5.0),
        (0.4, 0.4 * 0.4 / 0.6),
        (1.2, compute / 5.0 + 0.4 * 0.2 / 0.6),
    ];
    for (p, (secs, imbalance)) in procs.iter().zip(want) {
        assert!(
            close(p.seconds, secs) && close(p.imbalance, imbalance),
            "{procs:?}"
        );
        assert!(close(p.share, secs / 5.6));
    }
}

/// Regression: the path does not follow an Early Scan wait (Scalasca 2.6
/// makes no synchronization point of a prefix operation): P1's scan,
/// where it waited 1 s for P0, is on the path whole, and P0's longer
/// computation is not.
#[test]
fn critical_path_early_scan_is_not_followed() {
    let scan = crate::model::CallKind::Collective(crate::model::CollectiveKind::Scan);
    let mut b = Build::new(2, 3.0);
    b.act(0, "compute", 0.0, 2.0);
    let s0 = b.call(0, "MPI_Scan", scan, 2.0, 2.5);
    b.act(1, "compute", 0.0, 1.0);
    let s1 = b.call(1, "MPI_Scan", scan, 1.0, 2.6);
    b.act(1, "compute", 2.6, 3.0);
    b.collective(crate::model::CollectiveKind::Scan, &[s0, s1]);
    b.wait(Pattern::EarlyScan, s1, 0, 1.0, 1.0);
    expect(
        segments(&b),
        &[
            (1, "compute", 0.0, 1.0),
            (1, "MPI_Scan", 1.0, 2.6),
            (1, "compute", 2.6, 3.0),
        ],
    );
    // Nor do the delay costs explain it.
    assert!(crate::delay_costs(&b.run, &b.waits).is_empty());
}
