//! Who waited for whom, from the wait states ([`trama_why::who_waited`]),
//! against the generated MPI runs of `tests/mpi_runs.py`, whose every
//! wait-state instance (the rank waiting, the rank waited for, its start
//! and length) the generator computes from the times it chose: the matrix
//! must be those instances summed per (waiting rank, rank waited for),
//! cut to the window, on the OTF2 archive and on the Pajé trace alike.

mod common;

use std::collections::BTreeMap;
use std::path::Path;

use serde_json::Value;
use trama_analysis::{Messages, WaitMatrix, WaitMethod, Window, UNATTRIBUTED};
use trama_open::{LoadOptions, Source};
use trama_why::{who_waited, RunOptions};

use common::{generate, rank_of};

/// Differences below this are equal (seconds).
const EPS: f64 = 1e-9;

/// A column of the matrix: a rank, or `None` for [`UNATTRIBUTED`].
type Cells = BTreeMap<(u32, Option<u32>), f64>;

/// The trace at `path`, with its user-defined fields (collectives' roots).
fn load(path: &Path) -> trama_sim::Trace {
    let mut o = LoadOptions::default();
    o.keep_extras = true;
    trama_open::load(&Source::Path(path.into()), &o).expect("loads")
}

/// The matrix of the trace at `path` over `window`.
fn matrix(path: &Path, window: Option<Window>) -> WaitMatrix {
    let trace = load(path);
    let w = window.unwrap_or(Window {
        start: trace.start_time(),
        end: trace.end_time(),
    });
    let msgs = Messages::select(&trace, &[]).unwrap();
    who_waited(&trace, w, &msgs, &[], &RunOptions::default())
}

/// The non-zero cells of `m`, by rank.
fn cells(m: &WaitMatrix) -> Cells {
    let mut out = Cells::new();
    for r in &m.rows {
        for (j, s) in m.senders.iter().enumerate() {
            if r.seconds[j] > 0.0 {
                let col = (s != UNATTRIBUTED).then(|| rank_of(s));
                *out.entry((rank_of(&r.container), col)).or_default() += r.seconds[j];
            }
        }
    }
    out
}

/// The generator's instances of `run` summed per (rank, rank waited for),
/// each cut to `[a, b]`.
fn expected_cells(run: &Value, a: f64, b: f64) -> Cells {
    let mut out = Cells::new();
    for w in run["wait_instances"].as_array().unwrap() {
        let start = w["start"].as_f64().unwrap();
        let end = start + w["seconds"].as_f64().unwrap();
        let d = end.min(b) - start.max(a);
        if d > 0.0 {
            let waited = w["waited_for"].as_u64().map(|q| q as u32);
            let rank = w["rank"].as_u64().unwrap() as u32;
            *out.entry((rank, waited)).or_default() += d;
        }
    }
    out
}

#[track_caller]
fn same(what: &str, got: &Cells, want: &Cells) {
    let keys: std::collections::BTreeSet<_> = got.keys().chain(want.keys()).collect();
    for k in keys {
        let (g, w) = (got.get(k).copied(), want.get(k).copied());
        assert!(
            (g.unwrap_or(0.0) - w.unwrap_or(0.0)).abs() < EPS,
            "{what}: cell {k:?}: got {g:?}, want {w:?}"
        );
    }
}

/// Regression: `stats wait` attributed each waiting state to the sender
/// of the last message received during it (a collective's waiting to no
/// one); it is now the wait states': who waited, for whom, how long, each
/// wait counted once (on OTF2, the `MPI_Allreduce` region and the
/// `MPI collective` state inside it are one wait).
#[test]
fn stats_wait_is_computed_from_the_wait_states() {
    for args in [
        &["--ranks", "8", "--iterations", "2", "--seed", "1"][..],
        &["--ranks", "6", "--iterations", "3", "--seed", "7"][..],
    ] {
        let Some((dir, expected)) = generate(args) else {
            return;
        };
        let run = &expected["runs"]["waits"];
        let end = run["end"].as_f64().unwrap();
        for key in ["otf2", "paje"] {
            let path = dir.path().join(run[key].as_str().unwrap());
            let what = format!("{args:?} {key}");
            let m = matrix(&path, None);
            assert_eq!(m.method, WaitMethod::WaitStates, "{what}");
            let got = cells(&m);
            same(&what, &got, &expected_cells(run, 0.0, end));
            // A row never adds up to more than the process's time in MPI.
            let mpi = run["mpi_seconds"].as_array().unwrap();
            for r in &m.rows {
                let in_mpi = mpi[rank_of(&r.container) as usize].as_f64().unwrap();
                assert!(
                    r.waiting <= in_mpi + EPS,
                    "{what}: {r:?} in {in_mpi} s of MPI"
                );
                let sum: f64 = r.seconds.iter().sum();
                assert!((sum - r.waiting).abs() < EPS, "{what}: {r:?}");
            }
            // A window cuts the instances.
            let (a, b) = (end * 0.3, end * 0.55);
            let m = matrix(&path, Some(Window { start: a, end: b }));
            same(
                &format!("{what} in [{a}, {b}]"),
                &cells(&m),
                &expected_cells(run, a, b),
            );
        }
    }
}

/// A trace without MPI calls (the example ring's `MPI_Send` and
/// `MPI_Recv` renamed SimGrid's way, `send` and `receive`) keeps the
/// matrix of waiting states attributed to the last message, and says so;
/// with its MPI names, the wait states make it.
#[test]
fn stats_wait_without_mpi_calls_attributes_to_the_last_message() {
    let text = std::fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../examples/ring.paje"),
    )
    .unwrap();
    let dir = tempfile::tempdir().unwrap();
    let simgrid = dir.path().join("ring.paje");
    std::fs::write(
        &simgrid,
        text.replace("MPI_Send", "send")
            .replace("MPI_Recv", "receive"),
    )
    .unwrap();
    let trace = load(&simgrid);
    let w = Window {
        start: trace.start_time(),
        end: trace.end_time(),
    };
    let msgs = Messages::select(&trace, &[]).unwrap();
    let m = who_waited(&trace, w, &msgs, &[], &RunOptions::default());
    assert_eq!(m.method, WaitMethod::LastMessage);
    assert!(!m.rows.is_empty());
    assert_eq!(m, trama_analysis::wait_matrix(&trace, w, &msgs, &[]));
    let mpi = dir.path().join("mpi.paje");
    std::fs::write(&mpi, text).unwrap();
    assert_eq!(matrix(&mpi, None).method, WaitMethod::WaitStates);
}
