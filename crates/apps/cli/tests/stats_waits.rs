//! `trama stats waits`: Scalasca's wait states of a small Pajé run whose
//! answers are worked out by hand, in the three formats.

mod common;

use common::{trama, trama_out, write_in};

/// Three ranks. rank1 enters MPI_Recv at 1, rank0 enters the matching
/// MPI_Send at 2: a late sender of 1 s on rank1. Then a barrier entered
/// at 3, 4.5 and 5 and left at 5.2, 5.3 and 5.5: rank0 waits 2 s and
/// rank1 0.5 s for rank2; the first leaves at 5.2, so rank1 completes in
/// 0.1 s and rank2 in 0.3 s.
const BODY: &str = "\
0 R 0 Rank
1 S R State
2 L 0 R R Link
3 0 rank0 R 0 rank0
3 0 rank1 R 0 rank1
3 0 rank2 R 0 rank2
4 0 S rank0 compute
4 1 S rank1 MPI_Recv
4 2 S rank0 MPI_Send
6 2.1 L 0 rank0 m k1
5 2.5 S rank0
7 2.5 L 0 rank1 m k1
5 2.6 S rank1
4 3 S rank0 MPI_Barrier
4 4.5 S rank1 MPI_Barrier
4 5 S rank2 MPI_Barrier
5 5.2 S rank0
5 5.3 S rank1
5 5.5 S rank2
5 6 S rank0
";

/// The run: the usual definitions of events 0 to 7, then [`BODY`].
fn run() -> String {
    trama_gen::event_defs(
        "PajeDefineContainerType 0; PajeDefineStateType 1; PajeDefineLinkType 2; \
         PajeCreateContainer 3; PajePushState 4; PajePopState 5; PajeStartLink 6; PajeEndLink 7",
    ) + BODY
}

fn run_file(dir: &tempfile::TempDir) -> String {
    write_in(dir.path(), "run.paje", run())
        .to_str()
        .unwrap()
        .to_string()
}

#[test]
fn stats_waits_csv_gives_seconds_per_pattern_and_container() {
    let dir = tempfile::tempdir().unwrap();
    let f = run_file(&dir);
    let out = trama_out(&["stats", "waits", &f, "--format", "csv"]);
    assert_eq!(
        out,
        "pattern,container,seconds,instances\n\
         late_sender,rank1,1,1\n\
         wait_barrier,rank0,2,1\n\
         wait_barrier,rank1,0.5,1\n\
         barrier_completion,rank1,0.1,1\n\
         barrier_completion,rank2,0.3,1\n"
    );
}

#[test]
fn stats_waits_by_region_groups_the_calls() {
    let dir = tempfile::tempdir().unwrap();
    let f = run_file(&dir);
    let out = trama_out(&["stats", "waits", &f, "--format", "csv", "--by", "region"]);
    assert_eq!(
        out,
        "pattern,region,seconds,instances\n\
         late_sender,MPI_Recv,1,1\n\
         wait_barrier,MPI_Barrier,2.5,2\n\
         barrier_completion,MPI_Barrier,0.4,2\n"
    );
}

#[test]
fn stats_waits_instances_lists_the_most_severe() {
    let dir = tempfile::tempdir().unwrap();
    let f = run_file(&dir);
    let out = trama_out(&["stats", "waits", &f, "--format", "csv", "--instances", "2"]);
    assert_eq!(
        out,
        "pattern,container,waited_for,region,start,duration\n\
         wait_barrier,rank0,rank2,MPI_Barrier,3,2\n\
         late_sender,rank1,rank0,MPI_Recv,1,1\n"
    );
}

#[test]
fn stats_waits_json_and_table_say_the_same() {
    let dir = tempfile::tempdir().unwrap();
    let f = run_file(&dir);
    let out = trama_out(&["stats", "waits", &f, "--format", "json", "--instances", "1"]);
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["by"], "container");
    let rows = v["rows"].as_array().unwrap();
    assert_eq!(rows.len(), 5);
    assert_eq!(rows[0]["pattern"], "late_sender");
    assert_eq!(rows[0]["container"], "rank1");
    assert_eq!(rows[0]["seconds"], 1.0);
    assert_eq!(rows[0]["instances"], 1);
    let top = &v["instances"][0];
    assert_eq!(
        (&top["pattern"], &top["container"], &top["waited_for"]),
        (&"wait_barrier".into(), &"rank0".into(), &"rank2".into())
    );
    assert_eq!(
        (&top["start"], &top["duration"]),
        (&3.0.into(), &2.0.into())
    );

    let table = trama_out(&["stats", "waits", &f]);
    let lines: Vec<Vec<&str>> = table
        .lines()
        .map(|l| l.split_whitespace().collect())
        .collect();
    for want in [
        ["late_sender", "rank1", "1.000000", "1"],
        ["wait_barrier", "rank0", "2.000000", "1"],
        ["barrier_completion", "rank2", "0.300000", "1"],
    ] {
        assert!(
            lines.iter().any(|l| l[..] == want[..]),
            "{want:?} in\n{table}"
        );
    }
}

#[test]
fn stats_waits_without_mpi_calls_is_a_clear_error() {
    let dir = tempfile::tempdir().unwrap();
    let text = run().replace("MPI_", "do_");
    let f = write_in(dir.path(), "none.paje", text);
    let o = trama(&["stats", "waits", f.to_str().unwrap()]);
    assert!(!o.status.success());
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains("MPI call"), "{err}");
}

/// Regression: a run without waits says 0 s, not -0 s.
#[test]
fn stats_waits_table_of_no_wait_says_zero_seconds() {
    let dir = tempfile::tempdir().unwrap();
    let run = run();
    let head = &run[..run.find("4 0 S rank0 compute").unwrap()];
    let text = format!("{head}4 0 S rank0 MPI_Init\n5 1 S rank0\n");
    let f = write_in(dir.path(), "calm.paje", text);
    let out = trama_out(&["stats", "waits", f.to_str().unwrap()]);
    let first = out.lines().next().unwrap();
    assert!(first.ends_with(": 0 instances, 0.000000 s"), "{first}");
}

/// Regression: a window of a `.ptb` is read from the keyframes before it
/// on, which lose the fields (a reduction's root) and the other ends of
/// MPI calls begun before them. The wait states, the wait matrix and the
/// critical path of a window of a generated OTF2 run then differed
/// between the archive and its `.ptb` (early_reduce went missing). They
/// read the whole run and count what lies in the window.
#[test]
fn wait_states_of_a_window_of_a_ptb_equal_those_of_its_archive() {
    if !trama_gen::otf2::tools() {
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    let (runs, otf2) = common::mpi_runs(tmp.path(), "8", "300", "1", true);
    assert!(otf2, "the OTF2 archives were not written");
    let archive = runs.join("waits/traces.otf2");
    let ptb = tmp.path().join("waits.ptb");
    let (a, p) = (archive.to_str().unwrap(), ptb.to_str().unwrap());
    // Small blocks: a window starts many keyframes in.
    let o = trama(&["convert", a, "-o", p, "--block-events", "256"]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let whole = trama_out(&["stats", "waits", a, "--format", "csv"]);
    assert!(whole.contains("early_reduce"), "{whole}");
    for analysis in ["waits", "wait", "critical-path"] {
        for window in ["0.1:", "0.2:1.5", ":0.9"] {
            let args = |f: &str| {
                let mut v = vec!["stats", analysis, "--window", window, "--format", "csv"];
                v.push(if f == "a" { a } else { p });
                trama_out(&v)
            };
            let (from_archive, from_ptb) = (args("a"), args("p"));
            assert!(from_archive.lines().count() > 1, "{analysis} {window}");
            assert_eq!(from_archive, from_ptb, "{analysis} --window {window}");
        }
    }
}
