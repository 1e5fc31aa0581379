//! What the tests share: the generated MPI runs of `tests/mpi_runs.py`.

use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::Value;

/// The generator script.
pub fn script() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/mpi_runs.py")
}

/// Runs the generator into a new temporary folder with `args`; the folder
/// and its `expected.json`. `None` (after a note) without the tools.
pub fn generate(args: &[&str]) -> Option<(tempfile::TempDir, Value)> {
    if !trama_gen::otf2::tools() {
        return None;
    }
    let dir = tempfile::tempdir().unwrap();
    let out = Command::new("/usr/bin/python3")
        .arg(script())
        .arg(dir.path())
        .args(args)
        .output()
        .expect("running python3");
    assert!(
        out.status.success(),
        "mpi_runs.py failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = std::fs::read_to_string(dir.path().join("expected.json")).unwrap();
    let expected = serde_json::from_str(&text).unwrap();
    Some((dir, expected))
}

/// A process's rank: the last number in its name (`rank-3`, `Master
/// thread (MPI Rank 3)`).
pub fn rank_of(name: &str) -> u32 {
    let digits: String = name
        .chars()
        .rev()
        .skip_while(|c| !c.is_ascii_digit())
        .take_while(|c| c.is_ascii_digit())
        .collect();
    let digits: String = digits.chars().rev().collect();
    digits
        .parse()
        .unwrap_or_else(|_| panic!("no rank in {name:?}"))
}
