//! A merge job written to its output by the library (`Job::write`): Pajé
//! text checked as it is written, `.ptb` through the converter, never
//! onto one of the job's inputs.

use std::path::{Path, PathBuf};

use trama_merge::{Job, JobError};

fn example() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../examples/ring.paje")
}

fn job(dir: &Path) -> Job {
    let plan = dir.join("plan.toml");
    std::fs::write(
        &plan,
        "hierarchy = [\"site\", \"node\", \"rank\"]\nhost_level = \"node\"\n\
         [top]\nsite = \"lab\"\n\
         [[source]]\nname = \"a\"\nkind = \"paje\"\nlevels = { Node = \"node\", Rank = \"rank\" }\n",
    )
    .unwrap();
    let mut job = Job::new(&plan).unwrap();
    job.add(&format!("a={}", example().display())).unwrap();
    job
}

fn count(path: &Path) -> trama_open::Simulated<trama_sim::CountingSink> {
    trama_open::open(&trama_open::Source::Path(path.to_path_buf()))
        .unwrap()
        .count(&trama_open::LoadOptions::default())
        .unwrap()
}

/// Regression: `trama merge -o x.ptb` piped the merged text into the
/// converter from the command line; the merge library's job now writes
/// both outputs itself, and they hold the same trace.
#[test]
fn merge_writes_through_the_merge_jobs_output() {
    let dir = tempfile::tempdir().unwrap();
    let text = dir.path().join("merged.paje");
    let binary = dir.path().join("merged.ptb");
    let a = job(dir.path()).write(&text, |_| {}, |_| {}).unwrap();
    let b = job(dir.path()).write(&binary, |_| {}, |_| {}).unwrap();
    assert_eq!(a.written, b.written);
    assert!(a.written > 0);
    let (t, p) = (count(&text), count(&binary));
    assert_eq!(t.sink.states, p.sink.states);
    assert_eq!(t.sink.links, p.sink.links);
    assert!(t.sink.states > 0);
    assert_eq!(&std::fs::read(&binary).unwrap()[1..4], b"PTB");
}

/// Regression: a merge onto one of its inputs was refused with "broken
/// pipe" (the merge, cut short, spoke first); the output is named now, and
/// the input left as it was.
#[test]
fn a_merge_never_writes_onto_its_inputs() {
    let dir = tempfile::tempdir().unwrap();
    let j = job(dir.path());
    let plan = dir.path().join("plan.toml");
    assert!(j.inputs().contains(&plan) && j.inputs().contains(&example()));
    let before = std::fs::read(&plan).unwrap();
    let e = j.write(&plan, |_| {}, |_| {}).unwrap_err();
    assert!(matches!(e, JobError::Output(_)), "{e}");
    assert_eq!(std::fs::read(&plan).unwrap(), before);
}
