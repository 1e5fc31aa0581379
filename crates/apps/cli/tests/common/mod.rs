//! Shared by the integration tests: the shared material, running trama,
//! the PajeNG conformance manifest.
#![allow(dead_code)]

use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// The shared folder beside the repository (or `$TRAMA_SHARED`), when it
/// holds the conformance cases; see [`trama_testkit::shared::find`].
pub fn shared_dir() -> Option<PathBuf> {
    trama_testkit::shared::find("conformance/pajeng/MANIFEST.tsv", "conformance cases")
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

/// A trace of [`REAL_ACCEPTED`] read in one quote mode, with what pj_dump
/// prints of it.
pub struct Real {
    /// Its name in `samples/paje-real`.
    pub rel: &'static str,
    /// Its file name.
    pub base: &'static str,
    pub path: PathBuf,
    /// `--strip-quotes` when read as PajeNG 1.3.10 reads it.
    pub quotes: Option<&'static str>,
    /// The end of the name of the expected output's file.
    pub suffix: &'static str,
    pub expected: Vec<u8>,
}

/// Each trace of [`REAL_ACCEPTED`] in both quote modes (`shared` is the
/// shared folder).
pub fn real_accepted(shared: &Path) -> impl Iterator<Item = Real> {
    let dir = shared.join("samples/paje-real");
    REAL_ACCEPTED.into_iter().flat_map(move |rel| {
        let base = Path::new(rel).file_name().unwrap().to_str().unwrap();
        let path = dir.join(rel);
        let exp = dir.join("expected-pj_dump");
        [
            (None, "pj_dump.csv"),
            (Some("--strip-quotes"), "pj_dump-1.3.10.csv"),
        ]
        .map(|(quotes, suffix)| Real {
            rel,
            base,
            path: path.clone(),
            quotes,
            suffix,
            expected: std::fs::read(exp.join(format!("{base}.{suffix}"))).unwrap(),
        })
    })
}

/// Writes `contents` to `name` in `dir`; the file's path.
pub fn write_in(dir: &Path, name: &str, contents: impl AsRef<[u8]>) -> PathBuf {
    let path = dir.join(name);
    std::fs::write(&path, contents).unwrap();
    path
}

/// Runs trama with `args`.
pub fn trama(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_trama"))
        .args(args)
        .output()
        .expect("run trama")
}

/// Runs trama with `args`, which must succeed; its standard output.
#[track_caller]
pub fn trama_out(args: &[&str]) -> String {
    let o = trama(args);
    assert!(
        o.status.success(),
        "{args:?}: {}",
        String::from_utf8_lossy(&o.stderr)
    );
    String::from_utf8(o.stdout).unwrap()
}

/// A FIFO made as `dir/fifo`; `None`, after a note that `what` is
/// skipped, where `mkfifo` is unavailable.
pub fn fifo_in(dir: &Path, what: &str) -> Option<PathBuf> {
    let fifo = dir.join("fifo");
    if !Command::new("mkfifo")
        .arg(&fifo)
        .status()
        .is_ok_and(|s| s.success())
    {
        eprintln!("NOTE: mkfifo unavailable: {what} SKIPPED");
        return None;
    }
    Some(fifo)
}

/// Fails listing `failures` under "N of `what`:" when there are any.
#[track_caller]
pub fn assert_none_failed(failures: &[String], what: &str) {
    assert!(
        failures.is_empty(),
        "{} of {what}:\n{}",
        failures.len(),
        failures.join("\n")
    );
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

/// The lines of entities in pj_dump's standard output (without the
/// complaints it prints there).
pub fn dumped(stdout: &[u8]) -> Vec<u8> {
    stdout
        .split_inclusive(|&b| b == b'\n')
        .filter(|l| {
            [
                &b"Container, "[..],
                b"State, ",
                b"Variable, ",
                b"Event, ",
                b"Link, ",
            ]
            .iter()
            .any(|k| l.starts_with(k))
        })
        .flatten()
        .copied()
        .collect()
}

/// The names of the files in `dir`, sorted.
pub fn files(dir: &Path) -> Vec<String> {
    let mut v: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    v.sort();
    v
}

/// The Python that imports duckdb, pyarrow and polars, or `None` (with a
/// note) outside CI.
pub fn duckdb_python() -> Option<String> {
    let required = std::env::var_os("TRAMA_REQUIRE_DUCKDB").is_some_and(|v| v == "1");
    let candidates: Vec<String> = match std::env::var("TRAMA_PYTHON") {
        Ok(p) if !p.is_empty() => vec![p],
        _ => vec!["python3".into()],
    };
    for p in candidates {
        let ok = Command::new(&p)
            .args(["-c", "import duckdb, pyarrow, polars"])
            .output()
            .is_ok_and(|o| o.status.success());
        if ok {
            return Some(p);
        }
    }
    assert!(
        !required,
        "TRAMA_REQUIRE_DUCKDB=1 but no Python with duckdb, pyarrow and polars ($TRAMA_PYTHON or python3)"
    );
    eprintln!(
        "note: Python's duckdb, pyarrow and polars not found ($TRAMA_PYTHON or python3): \
         Parquet tests skipped (.ci/run installs them; TRAMA_REQUIRE_DUCKDB=1 makes them mandatory)"
    );
    None
}

pub fn docs_sql() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../docs/sql")
}

/// Runs `script` (Python, with docs/sql on its path so that it can import
/// `duckdb_run`) with `arg`; its standard output as JSON.
pub fn run_python(py: &str, script: &str, arg: &str) -> Value {
    let out = Command::new(py)
        .args(["-c", script, arg])
        .env("PYTHONPATH", docs_sql())
        .output()
        .expect("run python");
    assert!(
        out.status.success(),
        "python failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).expect("JSON from python")
}

/// The MPI runs of `crates/analyses/why/tests/mpi_runs.py` (`--ranks`,
/// `--iterations`, `--seed`) written in a folder of `dir`: Pajé text, and
/// with `otf2` the OTF2 archives too when `python3` or the system's
/// Python has Debian's `otf2` module. The folder, and whether the
/// archives were written.
pub fn mpi_runs(
    dir: &Path,
    ranks: &str,
    iterations: &str,
    seed: &str,
    otf2: bool,
) -> (PathBuf, bool) {
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../analyses/why/tests/mpi_runs.py");
    let out = dir.join(format!("runs-{ranks}-{iterations}-{seed}"));
    let with_otf2 = ["python3", "/usr/bin/python3"].into_iter().find(|py| {
        otf2 && (Command::new(py).args(["-c", "import otf2"]).output())
            .is_ok_and(|o| o.status.success())
    });
    let mut cmd = Command::new(with_otf2.unwrap_or("python3"));
    cmd.arg(&script).arg(&out);
    cmd.args(["--ranks", ranks, "--iterations", iterations, "--seed", seed]);
    if with_otf2.is_none() {
        cmd.arg("--no-otf2");
    }
    let o = cmd.output().expect("run python3");
    assert!(
        o.status.success(),
        "mpi_runs.py: {}",
        String::from_utf8_lossy(&o.stderr)
    );
    (out, with_otf2.is_some())
}
