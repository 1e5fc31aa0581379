//! The why analysis against runs whose answers are known independently of
//! trama, and against Scalasca 2.6, the reference of its definitions.
//!
//! - `tests/mpi_runs.py` writes MPI runs (8 ranks: a late sender, messages
//!   received in the wrong order, a late receiver (MPI_Ssend, and a
//!   standard MPI_Send in rendezvous), a buffered MPI_Send, an
//!   MPI_Allreduce, an MPI_Barrier, an MPI_Bcast whose root is late, an
//!   MPI_Reduce whose root is early, an MPI_Scan, per iteration;
//!   and a 3-rank token ring) as OTF2 archives, as Pajé text and as
//!   Paraver traces, and the
//!   answers, computed from the times it chose with Scalasca's definitions
//!   (stated in the script), in `expected.json`. Every trace must give
//!   those answers, within a nanosecond.
//! - [`SCALASCA`]: what Scalasca 2.6's `scout.mpi` found in the archives
//!   the script writes with its default arguments (CI cannot build
//!   Scalasca: its numbers are written here as facts). The script's
//!   answers must equal them.
//! - [`SCALASCA_DELAYS`]: the delay costs Scalasca finds in the same
//!   archives, which the analysis must find too.
//! - Invariants on every shared sample with processes and messages, and on
//!   the generated runs: the critical path's segments tile the run, every
//!   wait lies inside its call, a process waits at most its time in MPI
//!   calls.
//! - The shared Score-P ping-pong (pipit's): 8 messages each way, its late
//!   senders as `otf2-print`'s records give them, and Scalasca's late
//!   senders and late receivers ([`PIPIT_SCALASCA`]).
//!
//! The runs are written with Debian's python3-otf2 (and read back with
//! `otf2-print`): without them the tests that need them print a note and
//! pass, unless `TRAMA_REQUIRE_OTF2=1`.

mod common;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::Value;
use trama_open::{LoadOptions, Source};
use trama_testkit::shared;
use trama_why::{
    critical_path, delay_costs, path_profile, wait_states, Run, RunOptions, WaitState,
};

use common::{generate, rank_of};

/// Differences below this are equal (seconds).
const EPS: f64 = 1e-9;

/// The generator's arguments the [`SCALASCA`] table was made with.
const DEFAULT_ARGS: [&str; 6] = ["--ranks", "8", "--iterations", "2", "--seed", "1"];

/// Values given by Scalasca 2.6 `scout.mpi` (default options: no timestamp
/// correction) on the archives `mpi_runs.py OUT --ranks 8 --iterations 2
/// --seed 1` writes, read from its `scout.cubex`: per run, per pattern
/// (trama's name; Scalasca's metric in the comment) and rank, the seconds
/// summed over the call paths. Cube's values are inclusive along its
/// metric tree: Scalasca's Late Sender includes its child Late Sender,
/// wrong order, which trama reports apart (an instance has one pattern), so
/// trama's `late_sender` is Scalasca's `mpi_latesender` minus
/// `mpi_latesender_wo`. The critical-path profile per region follows as
/// pattern `critical_path:REGION`, rank `u32::MAX` standing for all ranks.
#[rustfmt::skip]
const SCALASCA: &[(&str, &str, u32, f64)] = &[
    ("chain", "late_sender", 0, 0.002580000), // mpi_latesender - mpi_latesender_wo
    ("chain", "late_sender", 1, 0.001335000), // mpi_latesender - mpi_latesender_wo
    ("chain", "late_sender", 2, 0.001597000), // mpi_latesender - mpi_latesender_wo
    ("chain", "critical_path:MPI_Init", u32::MAX, 0.000500000), // critical_path
    ("chain", "critical_path:MPI_Recv", u32::MAX, 0.000048000), // critical_path
    ("chain", "critical_path:MPI_Send", u32::MAX, 0.000005000), // critical_path
    ("chain", "critical_path:compute", u32::MAX, 0.004145000), // critical_path
    ("waits", "late_sender", 1, 0.000270000), // mpi_latesender - mpi_latesender_wo
    ("waits", "late_sender", 3, 0.000343000), // mpi_latesender - mpi_latesender_wo
    ("waits", "late_sender", 5, 0.000342000), // mpi_latesender - mpi_latesender_wo
    ("waits", "late_sender", 7, 0.000507000), // mpi_latesender - mpi_latesender_wo
    ("waits", "late_sender_wrong_order", 1, 0.000663000), // mpi_latesender_wo
    ("waits", "late_sender_wrong_order", 3, 0.000488000), // mpi_latesender_wo
    ("waits", "late_sender_wrong_order", 5, 0.000611000), // mpi_latesender_wo
    ("waits", "late_sender_wrong_order", 7, 0.000358000), // mpi_latesender_wo
    ("waits", "late_receiver", 1, 0.000502000), // mpi_latereceiver
    ("waits", "late_receiver", 3, 0.000807000), // mpi_latereceiver
    ("waits", "late_receiver", 5, 0.000818000), // mpi_latereceiver
    ("waits", "late_receiver", 7, 0.000836000), // mpi_latereceiver
    ("waits", "wait_nxn", 0, 0.000372000), // mpi_wait_nxn
    ("waits", "wait_nxn", 1, 0.000395000), // mpi_wait_nxn
    ("waits", "wait_nxn", 2, 0.000396000), // mpi_wait_nxn
    ("waits", "wait_nxn", 3, 0.000202000), // mpi_wait_nxn
    ("waits", "wait_nxn", 4, 0.000399000), // mpi_wait_nxn
    ("waits", "wait_nxn", 5, 0.000571000), // mpi_wait_nxn
    ("waits", "wait_nxn", 6, 0.000189000), // mpi_wait_nxn
    ("waits", "wait_nxn", 7, 0.000438000), // mpi_wait_nxn
    ("waits", "nxn_completion", 0, 0.000015000), // mpi_nxn_completion
    ("waits", "nxn_completion", 1, 0.000018000), // mpi_nxn_completion
    ("waits", "nxn_completion", 2, 0.000017000), // mpi_nxn_completion
    ("waits", "nxn_completion", 3, 0.000016000), // mpi_nxn_completion
    ("waits", "nxn_completion", 5, 0.000019000), // mpi_nxn_completion
    ("waits", "nxn_completion", 6, 0.000009000), // mpi_nxn_completion
    ("waits", "nxn_completion", 7, 0.000021000), // mpi_nxn_completion
    ("waits", "wait_barrier", 0, 0.000572000), // mpi_barrier_wait
    ("waits", "wait_barrier", 1, 0.000610000), // mpi_barrier_wait
    ("waits", "wait_barrier", 2, 0.000624000), // mpi_barrier_wait
    ("waits", "wait_barrier", 3, 0.000050000), // mpi_barrier_wait
    ("waits", "wait_barrier", 4, 0.000485000), // mpi_barrier_wait
    ("waits", "wait_barrier", 5, 0.000893000), // mpi_barrier_wait
    ("waits", "wait_barrier", 6, 0.000404000), // mpi_barrier_wait
    ("waits", "wait_barrier", 7, 0.000041000), // mpi_barrier_wait
    ("waits", "barrier_completion", 0, 0.000016000), // mpi_barrier_completion
    ("waits", "barrier_completion", 1, 0.000012000), // mpi_barrier_completion
    ("waits", "barrier_completion", 2, 0.000026000), // mpi_barrier_completion
    ("waits", "barrier_completion", 3, 0.000018000), // mpi_barrier_completion
    ("waits", "barrier_completion", 4, 0.000015000), // mpi_barrier_completion
    ("waits", "barrier_completion", 5, 0.000012000), // mpi_barrier_completion
    ("waits", "barrier_completion", 6, 0.000025000), // mpi_barrier_completion
    ("waits", "barrier_completion", 7, 0.000014000), // mpi_barrier_completion
    ("waits", "early_reduce", 0, 0.000733000), // mpi_earlyreduce
    ("waits", "early_reduce", 5, 0.000855000), // mpi_earlyreduce
    ("waits", "early_scan", 1, 0.000364000), // mpi_earlyscan
    ("waits", "early_scan", 2, 0.000138000), // mpi_earlyscan
    ("waits", "early_scan", 3, 0.000661000), // mpi_earlyscan
    ("waits", "early_scan", 4, 0.000471000), // mpi_earlyscan
    ("waits", "early_scan", 5, 0.000284000), // mpi_earlyscan
    ("waits", "early_scan", 6, 0.000481000), // mpi_earlyscan
    ("waits", "early_scan", 7, 0.000204000), // mpi_earlyscan
    ("waits", "late_broadcast", 0, 0.000238000), // mpi_latebroadcast
    ("waits", "late_broadcast", 1, 0.000792000), // mpi_latebroadcast
    ("waits", "late_broadcast", 2, 0.000932000), // mpi_latebroadcast
    ("waits", "late_broadcast", 3, 0.001103000), // mpi_latebroadcast
    ("waits", "late_broadcast", 4, 0.000180000), // mpi_latebroadcast
    ("waits", "late_broadcast", 5, 0.001019000), // mpi_latebroadcast
    ("waits", "late_broadcast", 6, 0.001233000), // mpi_latebroadcast
    ("waits", "late_broadcast", 7, 0.000802000), // mpi_latebroadcast
    ("waits", "critical_path:MPI_Allreduce", u32::MAX, 0.000065000), // critical_path
    ("waits", "critical_path:MPI_Barrier", u32::MAX, 0.000068000), // critical_path
    ("waits", "critical_path:MPI_Bcast", u32::MAX, 0.000061000), // critical_path
    ("waits", "critical_path:MPI_Init", u32::MAX, 0.000500000), // critical_path
    ("waits", "critical_path:MPI_Recv", u32::MAX, 0.000072000), // critical_path
    ("waits", "critical_path:MPI_Reduce", u32::MAX, 0.000040000), // critical_path
    ("waits", "critical_path:MPI_Scan", u32::MAX, 0.000178000), // critical_path
    ("waits", "critical_path:MPI_Send", u32::MAX, 0.000030000), // critical_path
    ("waits", "critical_path:compute", u32::MAX, 0.017065000), // critical_path
];

/// The numbers of Late Sender (apart from wrong order), Late Sender, wrong
/// order, and Late Receiver instances Scalasca 2.6 counts on the same
/// archives (its metrics in the comments), per run and rank.
#[rustfmt::skip]
const SCALASCA_COUNTS: &[(&str, &str, u32, u64)] = &[
    ("chain", "late_sender", 0, 2), // mpi_cls_count - mpi_clswo_count
    ("chain", "late_sender", 1, 2), // mpi_cls_count - mpi_clswo_count
    ("chain", "late_sender", 2, 2), // mpi_cls_count - mpi_clswo_count
    ("waits", "late_sender", 1, 2), // mpi_cls_count - mpi_clswo_count
    ("waits", "late_sender", 3, 2), // mpi_cls_count - mpi_clswo_count
    ("waits", "late_sender", 5, 2), // mpi_cls_count - mpi_clswo_count
    ("waits", "late_sender", 7, 2), // mpi_cls_count - mpi_clswo_count
    ("waits", "late_sender_wrong_order", 1, 2), // mpi_clswo_count
    ("waits", "late_sender_wrong_order", 3, 2), // mpi_clswo_count
    ("waits", "late_sender_wrong_order", 5, 2), // mpi_clswo_count
    ("waits", "late_sender_wrong_order", 7, 2), // mpi_clswo_count
    ("waits", "late_receiver", 1, 4), // mpi_clr_count
    ("waits", "late_receiver", 3, 4), // mpi_clr_count
    ("waits", "late_receiver", 5, 4), // mpi_clr_count
    ("waits", "late_receiver", 7, 4), // mpi_clr_count
];

/// The delay costs Scalasca 2.6 `scout.mpi` finds in the same archives as
/// [`SCALASCA`]: per run, causing rank and region (the call path's last
/// region), the short-term costs (the sum of its metrics `delay_latesender`,
/// `delay_latereceiver`, `delay_barrier`, `delay_n2n`, `delay_12n`,
/// `delay_n21`) and the long-term ones (the same metrics' `_longterm`
/// siblings), seconds. Scalasca has no delay costs for Early Scan nor for
/// the waiting at MPI_Finalize.
#[rustfmt::skip]
const SCALASCA_DELAYS: &[(&str, u32, &str, f64, f64)] = &[
    ("chain", 0, "MPI_Recv", 4.8075278015395825e-06, 7.897849149064854e-06),
    ("chain", 0, "compute", 0.00021100000000000003, 0.0009549711549318016),
    ("chain", 1, "MPI_Recv", 1.611426040744001e-05, 4.641093950055316e-05),
    ("chain", 1, "compute", 0.00044499999999999987, 0.0015690386916808133),
    ("chain", 2, "MPI_Recv", 1.693108083621625e-05, 3.0362481650308154e-05),
    ("chain", 2, "compute", 0.0009721948867922143, 0.0012372711272500493),
    ("waits", 0, "MPI_Barrier", 2.8999999999996043e-05, 0.0),
    ("waits", 0, "MPI_Bcast", 1.6084656084658143e-07, 0.0),
    ("waits", 0, "MPI_Recv", 5.999999999999495e-06, 0.0),
    ("waits", 0, "MPI_Send", 9.792367683140367e-06, 0.0),
    ("waits", 0, "compute", 0.0036297653042745423, 0.0),
    ("waits", 1, "MPI_Bcast", 1.1015027322403243e-05, 0.0),
    ("waits", 1, "compute", 0.0007219849726775961, 0.0),
    ("waits", 2, "MPI_Barrier", 9.244562998948873e-06, 0.0),
    ("waits", 2, "MPI_Bcast", 7.444766818699365e-06, 0.0),
    ("waits", 2, "MPI_Recv", 1.832142857142753e-05, 0.0),
    ("waits", 2, "MPI_Scan", 9.836958836603962e-05, 0.0),
    ("waits", 2, "MPI_Send", 1.0182045791091937e-05, 0.0),
    ("waits", 2, "compute", 0.0029823906535726124, 0.0),
    ("waits", 3, "MPI_Allreduce", 2.2000000000002053e-05, 0.0),
    ("waits", 3, "compute", 0.0014889999999999947, 0.0),
    ("waits", 4, "MPI_Barrier", 5.7999999999999025e-05, 5.543178336322051e-06),
    ("waits", 4, "MPI_Recv", 6.00000000000123e-06, 0.0),
    ("waits", 4, "MPI_Send", 9.771778821074406e-06, 0.0),
    ("waits", 4, "compute", 0.005718228221178922, 0.0010364630475902018),
    ("waits", 6, "MPI_Barrier", 3.6570771001151034e-06, 0.0),
    ("waits", 6, "MPI_Bcast", 7.836593785961907e-07, 0.0),
    ("waits", 6, "MPI_Recv", 2.077272727272718e-05, 0.0),
    ("waits", 6, "MPI_Send", 1.0232765910591361e-05, 0.0),
    ("waits", 6, "compute", 0.002990875979774106, 0.0),
    ("waits", 7, "MPI_Allreduce", 3.699999999999884e-05, 0.0),
    ("waits", 7, "compute", 0.0021309999999999957, 0.0),
];

/// The run of the trace at `path`, read with its user-defined fields
/// (the roots of collectives).
fn run_of(path: &Path) -> Result<Run, String> {
    let mut opts = LoadOptions::default();
    opts.keep_extras = true;
    let trace = trama_open::load(&Source::Path(path.into()), &opts).map_err(|e| e.to_string())?;
    Run::from_trace(&trace, &RunOptions::default()).map_err(|e| e.to_string())
}

/// What the analysis found in a run, keyed as `expected.json` keys it.
#[derive(Debug, Default)]
struct Found {
    /// Per (pattern, rank): seconds, instances.
    waits: BTreeMap<(String, u32), (f64, u64)>,
    /// Per region: seconds on the critical path.
    path: BTreeMap<String, f64>,
    /// Per (region, rank): seconds on the critical path.
    path_by_rank: BTreeMap<(String, u32), f64>,
}

/// The region name of a path segment (`(none)` outside any state), the
/// computation of a Paraver trace (Extrae's `Running`) named as the
/// generator names it (`compute`).
fn region_name(run: &Run, region: Option<u32>) -> String {
    match region.map(|r| run.regions[r as usize].as_str()) {
        None => "(none)".to_string(),
        Some("Running") => "compute".to_string(),
        Some(name) => name.to_string(),
    }
}

fn analyse(run: &Run) -> (Vec<WaitState>, Found) {
    let waits = wait_states(run);
    let path = critical_path(run, &waits);
    let mut found = Found::default();
    for w in &waits {
        let call = &run.calls[w.call as usize];
        let rank = rank_of(&run.processes[call.proc as usize].name);
        let e = found
            .waits
            .entry((w.pattern.name().to_string(), rank))
            .or_default();
        e.0 += w.duration;
        e.1 += 1;
    }
    for s in &path {
        let region = region_name(run, s.region);
        let rank = rank_of(&run.processes[s.proc as usize].name);
        *found.path.entry(region.clone()).or_default() += s.end - s.start;
        *found.path_by_rank.entry((region, rank)).or_default() += s.end - s.start;
    }
    (waits, found)
}

fn f(v: &Value) -> f64 {
    v.as_f64().unwrap()
}

/// Compares two maps of seconds key by key (a missing key is 0).
fn same_seconds<K: Ord + Clone + std::fmt::Debug>(
    what: &str,
    got: &BTreeMap<K, f64>,
    want: &BTreeMap<K, f64>,
) {
    let keys: std::collections::BTreeSet<&K> = got.keys().chain(want.keys()).collect();
    let mut wrong = Vec::new();
    for k in keys {
        let (g, w) = (
            got.get(k).copied().unwrap_or(0.0),
            want.get(k).copied().unwrap_or(0.0),
        );
        if (g - w).abs() > EPS {
            wrong.push(format!("{k:?}: found {g}, expected {w}"));
        }
    }
    assert!(
        wrong.is_empty(),
        "{what}:\n{}\nfound {got:#?}\nexpected {want:#?}",
        wrong.join("\n")
    );
}

/// Checks what the analysis finds in the trace `path` of the run `name`
/// against its `expected` answers.
fn check_run(name: &str, path: &Path, expected: &Value) {
    let what = format!("{name} ({})", path.display());
    let run = run_of(path).unwrap_or_else(|e| panic!("{what}: {e}"));
    assert_eq!(
        run.processes.len() as u64,
        expected["ranks"].as_u64().unwrap(),
        "{what}: processes"
    );
    assert_eq!(
        run.messages.len() as u64,
        expected["messages"].as_u64().unwrap(),
        "{what}: messages"
    );
    assert!(
        (run.start - f(&expected["start"])).abs() <= EPS,
        "{what}: start"
    );
    assert!((run.end - f(&expected["end"])).abs() <= EPS, "{what}: end");
    let (waits, found) = analyse(&run);
    invariants(&what, &run, &waits);

    let mut want_waits = BTreeMap::new();
    let mut want_counts = BTreeMap::new();
    for w in expected["wait_states"].as_array().unwrap() {
        let key = (
            w["pattern"].as_str().unwrap().to_string(),
            w["rank"].as_u64().unwrap() as u32,
        );
        want_waits.insert(key.clone(), f(&w["seconds"]));
        want_counts.insert(key, w["count"].as_u64().unwrap());
    }
    let got_waits = found.waits.iter().map(|(k, v)| (k.clone(), v.0)).collect();
    same_seconds(&format!("{what}: wait states"), &got_waits, &want_waits);
    let got_counts: BTreeMap<_, _> = found.waits.iter().map(|(k, v)| (k.clone(), v.1)).collect();
    assert_eq!(got_counts, want_counts, "{what}: wait-state instances");

    let want_path = expected["critical_path"]
        .as_object()
        .unwrap()
        .iter()
        .map(|(k, v)| (k.clone(), f(v)))
        .collect();
    same_seconds(&format!("{what}: critical path"), &found.path, &want_path);
    let want_by_rank = expected["critical_path_by_rank"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| {
            (
                (
                    e["region"].as_str().unwrap().to_string(),
                    e["rank"].as_u64().unwrap() as u32,
                ),
                f(&e["seconds"]),
            )
        })
        .collect();
    same_seconds(
        &format!("{what}: critical path per rank"),
        &found.path_by_rank,
        &want_by_rank,
    );
}

/// regression: the wait states and the critical path of runs whose
/// answers are known, read from OTF2 (Score-P's records), from Pajé
/// (SimGrid SMPI's states and links) and from Paraver (Extrae's MPI events,
/// states and communications), are those answers, the same for all.
#[test]
fn why_finds_the_known_answers_of_generated_runs() {
    check_generated(&DEFAULT_ARGS);
}

/// Checks every run the generator writes with `args`, in both formats,
/// against its answers.
fn check_generated(args: &[&str]) {
    let Some((dir, expected)) = generate(args) else {
        return;
    };
    for (name, run) in expected["runs"].as_object().unwrap() {
        for format in ["otf2", "paje", "paraver"] {
            let path = dir.path().join(run[format].as_str().unwrap());
            check_run(name, &path, run);
        }
    }
}

/// Regression: the critical-path imbalance took Early Scan's waiting out
/// of the regions' mean time, where Scalasca 2.6 keeps it (it makes no
/// synchronization point of a prefix operation, and counts as waiting only
/// what its critical path follows). The imbalance per region is the
/// generator's, computed with Scalasca's definition.
#[test]
fn critical_path_imbalance_keeps_early_scan_waiting() {
    for args in [
        &DEFAULT_ARGS[..],
        &["--ranks", "6", "--iterations", "3", "--seed", "7"],
    ] {
        let Some((dir, expected)) = generate(args) else {
            return;
        };
        for (name, run) in expected["runs"].as_object().unwrap() {
            let want: BTreeMap<String, f64> = run["critical_path_imbalance"]
                .as_object()
                .unwrap()
                .iter()
                .map(|(k, v)| (k.clone(), f(v)))
                .collect();
            for format in ["otf2", "paje"] {
                let path = dir.path().join(run[format].as_str().unwrap());
                let what = format!("{args:?} {name} ({format})");
                let r = run_of(&path).unwrap_or_else(|e| panic!("{what}: {e}"));
                let waits = wait_states(&r);
                let cp = critical_path(&r, &waits);
                let got: BTreeMap<String, f64> = path_profile(&r, &waits, &cp)
                    .iter()
                    .map(|x| (region_name(&r, x.region), x.imbalance))
                    .collect();
                same_seconds(&format!("{what}: imbalance"), &got, &want);
            }
        }
    }
}

/// regression: other sizes, iterations and seeds give answers as known
/// (the script's parameters reach every pattern).
#[test]
fn why_finds_the_known_answers_of_other_generated_runs() {
    check_generated(&["--ranks", "4", "--iterations", "3", "--seed", "7"]);
}

/// The generator's answers for its default arguments are Scalasca 2.6's:
/// per run, pattern and rank the seconds, and the critical-path profile
/// per region (Scalasca's path leaves out MPI_Finalize, which trama's
/// covers, so that it tiles the run: `scalasca_critical_path`).
#[test]
fn generated_answers_are_scalasca_s() {
    let Some((_dir, expected)) = generate(&DEFAULT_ARGS) else {
        return;
    };
    let mut want: BTreeMap<(String, String, u32), f64> = BTreeMap::new();
    for &(run, pattern, rank, seconds) in SCALASCA {
        want.insert((run.to_string(), pattern.to_string(), rank), seconds);
    }
    let mut got = BTreeMap::new();
    for (name, run) in expected["runs"].as_object().unwrap() {
        for w in run["wait_states"].as_array().unwrap() {
            let key = (
                name.clone(),
                w["pattern"].as_str().unwrap().to_string(),
                w["rank"].as_u64().unwrap() as u32,
            );
            got.insert(key, f(&w["seconds"]));
        }
        for (region, seconds) in run["scalasca_critical_path"].as_object().unwrap() {
            let key = (name.clone(), format!("critical_path:{region}"), u32::MAX);
            got.insert(key, f(seconds));
        }
    }
    same_seconds("the script's answers against Scalasca's", &got, &want);
    let mut got_counts = BTreeMap::new();
    for (name, run) in expected["runs"].as_object().unwrap() {
        for w in run["wait_states"].as_array().unwrap() {
            let pattern = w["pattern"].as_str().unwrap();
            if ["late_sender", "late_sender_wrong_order", "late_receiver"].contains(&pattern) {
                let key = (name.as_str(), pattern, w["rank"].as_u64().unwrap() as u32);
                got_counts.insert(key, w["count"].as_u64().unwrap());
            }
        }
    }
    let want_counts: BTreeMap<_, _> = SCALASCA_COUNTS
        .iter()
        .map(|&(run, pattern, rank, n)| ((run, pattern, rank), n))
        .collect();
    assert_eq!(got_counts, want_counts, "instances against Scalasca's");
}

/// Checks the invariants of the analysis of `run`: the critical path's
/// segments are in time order and tile the run, every wait lies inside its
/// call, and per process the waits add up to at most its time in MPI calls.
fn invariants(what: &str, run: &Run, waits: &[WaitState]) {
    let path = critical_path(run, waits);
    assert!(!path.is_empty(), "{what}: no critical path");
    let mut at = run.start;
    for s in &path {
        assert!(
            (s.start - at).abs() <= EPS && s.end >= s.start,
            "{what}: critical path segment {s:?} after {at}"
        );
        at = s.end;
    }
    assert!(
        (at - run.end).abs() <= EPS,
        "{what}: critical path ends at {at}, run at {}",
        run.end
    );
    let length: f64 = path.iter().map(|s| s.end - s.start).sum();
    assert!(
        (length - (run.end - run.start)).abs() <= EPS * path.len().max(1) as f64,
        "{what}: critical path of {length} s, run of {} s",
        run.end - run.start
    );
    let mut waited = vec![0.0; run.processes.len()];
    for w in waits {
        let call = &run.calls[w.call as usize];
        assert!(
            w.duration > 0.0
                && w.start >= call.enter - EPS
                && w.start + w.duration <= call.exit + EPS,
            "{what}: wait {w:?} outside its call {call:?}"
        );
        waited[call.proc as usize] += w.duration;
    }
    let mut in_mpi = vec![0.0; run.processes.len()];
    for c in &run.calls {
        in_mpi[c.proc as usize] += c.exit - c.enter;
    }
    for (p, (w, m)) in waited.iter().zip(&in_mpi).enumerate() {
        assert!(
            *w <= m + EPS,
            "{what}: process {} waits {w} s in {m} s of MPI calls",
            run.processes[p].name
        );
    }
}

/// Every file of the shared samples, and every Akypuera run of them
/// converted to Pajé (into `tmp`).
fn sample_traces(samples: &Path, tmp: &Path) -> Vec<PathBuf> {
    let mut files = Vec::new();
    let mut dirs = vec![samples.to_path_buf()];
    while let Some(d) = dirs.pop() {
        let mut entries: Vec<_> = std::fs::read_dir(&d)
            .unwrap()
            .map(|e| e.unwrap().path())
            .collect();
        entries.sort();
        let ranks: Vec<PathBuf> = entries
            .iter()
            .filter(|p| p.extension().is_some_and(|e| e == "rst"))
            .filter(|p| {
                p.file_name()
                    .unwrap()
                    .to_string_lossy()
                    .starts_with("rastro-")
            })
            .cloned()
            .collect();
        if d.components().any(|c| c.as_os_str() == "akypuera") && !ranks.is_empty() {
            let out = tmp.join(format!("{}.paje", d.file_name().unwrap().to_string_lossy()));
            let (text, _) = trama_open::akypuera_convert(&ranks, Vec::new()).unwrap();
            std::fs::write(&out, text).unwrap();
            files.push(out);
        }
        for p in entries {
            if p.is_dir() {
                dirs.push(p);
            } else {
                files.push(p);
            }
        }
    }
    files
}

/// regression: on every shared sample trama reads that has processes and
/// messages (OTF2, SimGrid, Akypuera, Paraver, …), the critical path tiles
/// the run, every wait lies inside its call and no process waits longer
/// than it spends in MPI calls.
#[test]
fn why_invariants_hold_on_the_samples() {
    let Some(dir) = shared::find("samples", "the why analysis of the samples") else {
        return;
    };
    let tmp = tempfile::tempdir().unwrap();
    let mut checked = Vec::new();
    for path in sample_traces(&dir.join("samples"), tmp.path()) {
        // Files trama does not read as a trace (parts of an archive,
        // expected outputs, logs) are not runs.
        let Ok(run) = run_of(&path) else { continue };
        if run.processes.is_empty() || run.messages.is_empty() {
            continue;
        }
        let waits = wait_states(&run);
        invariants(&path.display().to_string(), &run, &waits);
        checked.push(path);
    }
    let names: Vec<String> = checked.iter().map(|p| p.display().to_string()).collect();
    for must in ["pipit-ping-pong/traces.otf2", "ring.paje", "small.paje"] {
        assert!(
            names.iter().any(|n| n.ends_with(must)),
            "{must} not among the runs checked: {names:#?}"
        );
    }
}

/// regression: the invariants hold on the generated runs of several seeds
/// (both formats).
#[test]
fn why_invariants_hold_on_generated_runs() {
    for seed in ["2", "3"] {
        let Some((dir, expected)) = generate(&["--seed", seed]) else {
            return;
        };
        for run in expected["runs"].as_object().unwrap().values() {
            for format in ["otf2", "paje"] {
                let path = dir.path().join(run[format].as_str().unwrap());
                let run = run_of(&path).unwrap();
                let waits = wait_states(&run);
                invariants(&path.display().to_string(), &run, &waits);
            }
        }
    }
}

/// The late senders of pipit's ping-pong as `otf2-print` gives its
/// records: per receive, the rank and the waiting, min(Enter of the send,
/// Leave of the receive) - Enter of the receive when positive (seconds),
/// the k-th receive of a rank matching the k-th send to it.
fn printed_late_senders(anchor: &Path) -> Vec<(u32, f64)> {
    let text = String::from_utf8(
        Command::new("otf2-print")
            .arg("-G")
            .arg(anchor)
            .output()
            .unwrap()
            .stdout,
    )
    .unwrap();
    let ticks: f64 = text
        .lines()
        .find_map(|l| {
            let at = l.find("Ticks per Seconds: ")? + "Ticks per Seconds: ".len();
            l[at..].split(',').next()?.trim().parse().ok()
        })
        .expect("the clock's resolution");
    // Per location, its MPI_Send and MPI_Recv calls (enter, leave), in order.
    let mut open: BTreeMap<u64, (String, u64)> = BTreeMap::new();
    let mut sends: BTreeMap<u64, Vec<(u64, u64)>> = BTreeMap::new();
    let mut recvs: BTreeMap<u64, Vec<(u64, u64)>> = BTreeMap::new();
    for (e, region) in trama_gen::otf2::print_regions(anchor) {
        if region != "MPI_Send" && region != "MPI_Recv" {
            continue;
        }
        if e.name == "ENTER" {
            open.insert(e.location, (region, e.time));
        } else if let Some((r, t)) = open.remove(&e.location) {
            let calls = if r == "MPI_Send" {
                &mut sends
            } else {
                &mut recvs
            };
            calls.entry(e.location).or_default().push((t, e.time));
        }
    }
    // Two ranks: location 0 sends to 1 and 1 to 0.
    let mut out = Vec::new();
    for (recv_loc, send_loc) in [(1u64, 0u64), (0, 1)] {
        for (recv, send) in recvs[&recv_loc].iter().zip(&sends[&send_loc]) {
            let wait = send.0.min(recv.1) as i64 - recv.0 as i64;
            if wait > 0 {
                out.push((recv_loc as u32, wait as f64 / ticks));
            }
        }
    }
    out.sort_by(|a, b| a.partial_cmp(b).unwrap());
    out
}

/// What Scalasca 2.6 `scout.mpi` finds in pipit's ping-pong (the shared
/// sample `otf2/pipit-ping-pong`), per rank: Late Sender seconds and
/// instances (`mpi_latesender`, `mpi_cls_count`), Late Receiver seconds and
/// instances (`mpi_latereceiver`, `mpi_clr_count`: its MPI_Send calls are
/// standard sends lasting until the receive started).
const PIPIT_SCALASCA: [(u32, f64, u64, f64, u64); 2] = [
    (0, 1.1835640010671167e-05, 2, 6.027346687730584e-04, 6),
    (1, 3.3287558549338625e-05, 2, 1.782552960402639e-05, 6),
];

/// regression: pipit's Score-P ping-pong has its 8 messages each way, the
/// late senders its records give, and Scalasca's late senders and late
/// receivers.
#[test]
fn why_reads_pipit_s_ping_pong() {
    let Some(dir) = shared::find("samples/otf2/pipit-ping-pong", "pipit's ping-pong") else {
        return;
    };
    let anchor = dir.join("samples/otf2/pipit-ping-pong/traces.otf2");
    let run = run_of(&anchor).unwrap();
    assert_eq!(run.processes.len(), 2);
    let ranks: Vec<u32> = run.processes.iter().map(|p| rank_of(&p.name)).collect();
    for (from, to) in [(0, 1), (1, 0)] {
        let n = run
            .messages
            .iter()
            .filter(|m| ranks[m.sender as usize] == from && ranks[m.receiver as usize] == to)
            .count();
        assert_eq!(n, 8, "messages from rank {from} to rank {to}");
    }
    let waits = wait_states(&run);
    invariants("pipit's ping-pong", &run, &waits);
    for (rank, ls, ls_n, lr, lr_n) in PIPIT_SCALASCA {
        for (pattern, seconds, n) in [
            (trama_why::Pattern::LateSender, ls, ls_n),
            (trama_why::Pattern::LateReceiver, lr, lr_n),
        ] {
            let found: Vec<f64> = waits
                .iter()
                .filter(|w| w.pattern == pattern)
                .filter(|w| ranks[run.calls[w.call as usize].proc as usize] == rank)
                .map(|w| w.duration)
                .collect();
            let sum: f64 = found.iter().sum();
            assert!(
                found.len() as u64 == n && (sum - seconds).abs() <= EPS,
                "{pattern:?} on rank {rank}: {found:?}, Scalasca: {n} instances, {seconds} s"
            );
        }
    }
    if !trama_gen::otf2::tools() {
        return;
    }
    let mut got: Vec<(u32, f64)> = waits
        .iter()
        .filter(|w| w.pattern == trama_why::Pattern::LateSender)
        .map(|w| {
            let call = &run.calls[w.call as usize];
            (ranks[call.proc as usize], w.duration)
        })
        .collect();
    got.sort_by(|a, b| a.partial_cmp(b).unwrap());
    let want = printed_late_senders(&anchor);
    assert!(!want.is_empty(), "the ping-pong has late senders");
    assert_eq!(
        got.len(),
        want.len(),
        "late senders: {got:?}, expected {want:?}"
    );
    for (g, w) in got.iter().zip(&want) {
        assert!(
            g.0 == w.0 && (g.1 - w.1).abs() <= EPS,
            "late senders: {got:?}, expected {want:?}"
        );
    }
}

/// regression: the delay costs of the generated runs (read from OTF2 and
/// from Pajé) are Scalasca's: per causing rank and region, short-term and
/// long-term.
#[test]
fn why_delay_costs_are_scalasca_s() {
    let Some((dir, expected)) = generate(&DEFAULT_ARGS) else {
        return;
    };
    for (name, run) in expected["runs"].as_object().unwrap() {
        let mut want = BTreeMap::new();
        for &(r, rank, region, short, long) in SCALASCA_DELAYS {
            if r == name {
                want.insert((region.to_string(), rank, "short"), short);
                want.insert((region.to_string(), rank, "long"), long);
            }
        }
        for format in ["otf2", "paje"] {
            let path = dir.path().join(run[format].as_str().unwrap());
            let run = run_of(&path).unwrap();
            let waits = wait_states(&run);
            let mut got = BTreeMap::new();
            for d in delay_costs(&run, &waits) {
                let region = run.regions[d.region as usize].clone();
                let rank = rank_of(&run.processes[d.causing as usize].name);
                *got.entry((region.clone(), rank, "short")).or_default() += d.short_term;
                *got.entry((region, rank, "long")).or_default() += d.long_term;
            }
            same_seconds(&format!("{name} ({format}): delay costs"), &got, &want);
        }
    }
}

/// The late senders `otf2-print`'s records of pipit's ping-pong give, with
/// Scalasca's definition, are Scalasca's ([`PIPIT_SCALASCA`]): the two
/// oracles of [`why_reads_pipit_s_ping_pong`] agree.
#[test]
fn pipit_s_printed_late_senders_are_scalasca_s() {
    let Some(dir) = shared::find("samples/otf2/pipit-ping-pong", "pipit's ping-pong") else {
        return;
    };
    if !trama_gen::otf2::tools() {
        return;
    }
    let printed = printed_late_senders(&dir.join("samples/otf2/pipit-ping-pong/traces.otf2"));
    for (rank, seconds, n, _, _) in PIPIT_SCALASCA {
        let mine: Vec<f64> = printed
            .iter()
            .filter(|p| p.0 == rank)
            .map(|p| p.1)
            .collect();
        let sum: f64 = mine.iter().sum();
        assert!(
            mine.len() as u64 == n && (sum - seconds).abs() <= EPS,
            "rank {rank}: {mine:?}, Scalasca: {n} instances, {seconds} s"
        );
    }
}
