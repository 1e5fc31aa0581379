//! The Python package, built and tested as a user installs it: maturin
//! builds its wheel (with the profile of this test, in the workspace's
//! target folder, so that only PyO3 and the bindings are compiled again),
//! pip installs it into a folder of the test, and pytest runs
//! `tests/py` against the `trama` command line and the shared samples.
//!
//! The Python is `$TRAMA_PYTHON` (else `python3`); it needs `maturin`,
//! `pyarrow` and `pytest`. Without them the test prints a note and passes,
//! unless `TRAMA_REQUIRE_PYTHON=1` (set by `.ci/run`, which installs them
//! in its virtual environment).

use std::path::{Path, PathBuf};
use std::process::Command;

/// The Python that has maturin, pyarrow and pytest, or `None` (with a
/// note) outside CI.
fn python() -> Option<String> {
    let required = std::env::var_os("TRAMA_REQUIRE_PYTHON").is_some_and(|v| v == "1");
    let py = match std::env::var("TRAMA_PYTHON") {
        Ok(p) if !p.is_empty() => p,
        _ => "python3".into(),
    };
    let ok = Command::new(&py)
        .args(["-c", "import maturin, pyarrow, pytest"])
        .output()
        .is_ok_and(|o| o.status.success());
    if ok {
        return Some(py);
    }
    assert!(
        !required,
        "TRAMA_REQUIRE_PYTHON=1 but {py} lacks maturin, pyarrow or pytest"
    );
    eprintln!(
        "NOTE: {py} lacks maturin, pyarrow or pytest: the Python package's tests SKIPPED \
         (.ci/run installs them; TRAMA_REQUIRE_PYTHON=1 makes them mandatory)"
    );
    None
}

/// The target folder and the profile this test was built with (its
/// executable is `TARGET/PROFILE_DIR/deps/python-…`).
fn target_and_profile() -> (PathBuf, String) {
    let exe = std::env::current_exe().expect("the test's path");
    let profile_dir = exe
        .parent()
        .and_then(Path::parent)
        .expect("a profile folder");
    let target = profile_dir.parent().expect("a target folder").to_path_buf();
    let name = profile_dir.file_name().unwrap().to_string_lossy();
    let profile = match name.as_ref() {
        "debug" => "dev".to_string(),
        p => p.to_string(),
    };
    (target, profile)
}

/// When the workspace's sources last changed: the newest modification of
/// `Cargo.lock` and of the files below each crate's `src` and manifest.
fn newest_source(root: &Path) -> std::time::SystemTime {
    let mut newest = std::time::UNIX_EPOCH;
    let mut dirs = vec![];
    let mut files = vec![root.join("Cargo.lock")];
    let groups = std::fs::read_dir(root.join("crates")).expect("crates/");
    for krate in groups
        .flatten()
        .flat_map(|g| std::fs::read_dir(g.path()).into_iter().flatten().flatten())
    {
        dirs.push(krate.path().join("src"));
        files.push(krate.path().join("Cargo.toml"));
    }
    while let Some(d) = dirs.pop() {
        for e in std::fs::read_dir(&d).into_iter().flatten().flatten() {
            match e.file_type() {
                Ok(t) if t.is_dir() => dirs.push(e.path()),
                _ => files.push(e.path()),
            }
        }
    }
    for f in files {
        if let Ok(t) = std::fs::metadata(&f).and_then(|m| m.modified()) {
            newest = newest.max(t);
        }
    }
    newest
}

/// Runs `cmd`, failing with its output when it fails.
fn check(cmd: &mut Command, what: &str) {
    let out = cmd.output().unwrap_or_else(|e| panic!("{what}: {e}"));
    assert!(
        out.status.success(),
        "{what} failed:\n{}\n{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
}

#[test]
fn python_package_passes_its_tests() {
    let Some(py) = python() else { return };
    let Some(shared) = trama_testkit::shared::find(
        "samples/otf2/pipit-ping-pong/traces.otf2",
        "the Python package's tests",
    ) else {
        return;
    };
    let here = Path::new(env!("CARGO_MANIFEST_DIR"));
    let root = here.join("../../..");
    let (target, profile) = target_and_profile();
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    // The command line the tests compare with, built as this test was:
    // the workspace's build made it when it is newer than every source
    // (`cargo test --workspace`), else it is built now.
    let exe = target
        .join(if profile == "dev" { "debug" } else { &profile })
        .join("trama");
    let built = std::fs::metadata(&exe).and_then(|m| m.modified()).ok();
    if built.is_none_or(|b| b < newest_source(&root)) {
        check(
            Command::new(&cargo)
                .args(["build", "-q", "-p", "trama", "--bin", "trama", "--profile"])
                .arg(&profile)
                .arg("--manifest-path")
                .arg(root.join("Cargo.toml"))
                .env("CARGO_TARGET_DIR", &target),
            "cargo build -p trama",
        );
    }
    let tmp = Path::new(env!("CARGO_TARGET_TMPDIR")).join("python");
    let _ = std::fs::remove_dir_all(&tmp);
    let (wheels, site) = (tmp.join("wheels"), tmp.join("site"));
    check(
        Command::new(&py)
            .args(["-m", "maturin", "build", "--quiet", "--profile"])
            .arg(&profile)
            .arg("-m")
            .arg(here.join("Cargo.toml"))
            .arg("-o")
            .arg(&wheels)
            .arg("-i")
            .arg(&py)
            .env("CARGO_TARGET_DIR", &target)
            .env("CARGO", &cargo),
        "maturin build",
    );
    let wheel = std::fs::read_dir(&wheels)
        .expect("the wheels' folder")
        .map(|e| e.unwrap().path())
        .find(|p| p.extension().is_some_and(|x| x == "whl"))
        .expect("a wheel");
    check(
        Command::new(&py)
            .args(["-m", "pip", "install", "-q", "--no-deps", "--target"])
            .arg(&site)
            .arg(&wheel),
        "pip install",
    );
    let out = Command::new(&py)
        .args(["-m", "pytest", "-q", "-p", "no:cacheprovider", "-r", "s"])
        .arg(here.join("tests/py"))
        .env("PYTHONPATH", &site)
        .env("TRAMA_BIN", &exe)
        .env("TRAMA_SHARED", &shared)
        .current_dir(&tmp)
        .output()
        .expect("run pytest");
    let text = String::from_utf8_lossy(&out.stdout);
    eprintln!("{text}{}", String::from_utf8_lossy(&out.stderr));
    assert!(out.status.success(), "pytest failed:\n{text}");
}
