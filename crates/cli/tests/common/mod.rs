//! Shared by the integration tests: the shared material, running trama,
//! the PajeNG conformance manifest.
#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// The shared folder beside the repository (or `$TRAMA_SHARED`). Without
/// it the tests print a note and pass, unless `TRAMA_REQUIRE_SHARED=1`
/// (set by `.ci/run`), which makes absence a failure.
pub fn shared_dir() -> Option<PathBuf> {
    let dir = match std::env::var_os("TRAMA_SHARED") {
        Some(d) => PathBuf::from(d),
        None => Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared"),
    };
    if dir.join("conformance/pajeng/MANIFEST.tsv").is_file() {
        return Some(dir);
    }
    if std::env::var("TRAMA_REQUIRE_SHARED").as_deref() == Ok("1") {
        panic!(
            "shared test material not found at {} (TRAMA_REQUIRE_SHARED=1)",
            dir.display()
        );
    }
    eprintln!(
        "NOTE: shared test material not found at {}: conformance cases SKIPPED",
        dir.display()
    );
    None
}

/// The traces of `samples/paje-real` (in the shared folder) that PajeNG
/// accepts: each has its pj_dump output in `expected-pj_dump`, as
/// `<name>.pj_dump.csv` and, with quotes stripped, `<name>.pj_dump-1.3.10.csv`.
pub const REAL_ACCEPTED: [&str; 5] = [
    "simgrid/s4u-trace-platform.paje",
    "simgrid/s4u-trace-process-migration.paje",
    "simgrid/smpi-replay.paje",
    "simgrid/pajengr-simgrid-3.20.90-masterworkers.trace",
    "starpu/starvz-lu_test-header-only-paje.trace",
];

/// Runs trama with `args`.
pub fn trama(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_trama"))
        .args(args)
        .output()
        .expect("run trama")
}

/// One line of the conformance manifest.
pub struct Case {
    pub name: String,
    pub trace: String,
    pub args: Vec<String>,
    pub rc_head: String,
    pub rc_1310: String,
    pub note: String,
}

/// The cases of the conformance manifest in `dir`.
pub fn cases(dir: &Path) -> Vec<Case> {
    let text = std::fs::read_to_string(dir.join("MANIFEST.tsv")).expect("manifest");
    text.lines()
        .skip(1)
        .filter(|l| !l.is_empty())
        .map(|l| {
            let f: Vec<&str> = l.split('\t').collect();
            Case {
                name: f[0].to_string(),
                trace: f[1].to_string(),
                args: f[2].split_whitespace().map(String::from).collect(),
                rc_head: f[3].to_string(),
                rc_1310: f[4].to_string(),
                note: f.get(5).unwrap_or(&"").to_string(),
            }
        })
        .collect()
}
