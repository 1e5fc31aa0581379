//! OTF2 archives of known content for tests, written by Debian's
//! `python3-otf2` (`otf2/write_archive.py` in this crate), and what
//! Debian's `otf2-print` (package `otf2-tools`) says of an archive.
//!
//! Without the tools, [`tools`] prints a note and tests skip, unless
//! `TRAMA_REQUIRE_OTF2=1` (set by `.ci/run`), which makes their absence a
//! failure.

use std::path::{Path, PathBuf};
use std::process::Command;

/// The variable that makes the tools mandatory.
pub const REQUIRE_VAR: &str = "TRAMA_REQUIRE_OTF2";

/// The Python that imports `otf2` (Debian installs it for the system's
/// Python only).
const PYTHON: &str = "/usr/bin/python3";

/// Whether `otf2-print` and `python3-otf2` are installed. Otherwise a note
/// on standard error, or a panic with `TRAMA_REQUIRE_OTF2=1`.
#[track_caller]
pub fn tools() -> bool {
    let print = Command::new("otf2-print")
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success());
    let python = Command::new(PYTHON)
        .args(["-c", "import otf2"])
        .output()
        .is_ok_and(|o| o.status.success());
    if print && python {
        return true;
    }
    let missing = match (print, python) {
        (false, false) => "otf2-print and python3-otf2",
        (false, true) => "otf2-print",
        _ => "python3-otf2",
    };
    assert!(
        std::env::var(REQUIRE_VAR).as_deref() != Ok("1"),
        "{missing} not installed but {REQUIRE_VAR}=1 (apt-get install otf2-tools python3-otf2)"
    );
    eprintln!(
        "NOTE: {missing} not installed: OTF2 tests against the OTF2 library SKIPPED \
         (apt-get install otf2-tools python3-otf2; set {REQUIRE_VAR}=1 to make this a failure)"
    );
    false
}

/// The writer script.
pub fn script() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("otf2/write_archive.py")
}

/// Writes the archive of known content (see the script's documentation)
/// with `iterations` iterations into `dir`; its anchor.
pub fn write_archive(dir: &Path, iterations: u32) -> PathBuf {
    let out = Command::new(PYTHON)
        .arg(script())
        .arg(dir)
        .arg(iterations.to_string())
        .output()
        .expect("running python3");
    assert!(
        out.status.success(),
        "write_archive.py failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    dir.join("traces.otf2")
}

/// An event as `otf2-print` shows it.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct Printed {
    /// The record's name (`ENTER`, `MPI_SEND`, …).
    pub name: String,
    /// The location.
    pub location: u64,
    /// The timestamp (ticks).
    pub time: u64,
}

/// The events `otf2-print` prints of the archive `anchor`, in its order.
pub fn print_events(anchor: &Path) -> Vec<Printed> {
    let out = Command::new("otf2-print")
        .arg(anchor)
        .output()
        .expect("running otf2-print");
    assert!(
        out.status.success(),
        "otf2-print {} failed: {}",
        anchor.display(),
        String::from_utf8_lossy(&out.stderr)
    );
    parse_print(&String::from_utf8_lossy(&out.stdout))
}

/// The events of `otf2-print`'s output `text`.
pub fn parse_print(text: &str) -> Vec<Printed> {
    let mut events = Vec::new();
    for line in text.lines() {
        if line.starts_with([' ', '=', '-']) {
            continue;
        }
        let mut w = line.split_whitespace();
        let (Some(name), Some(loc), Some(time)) = (w.next(), w.next(), w.next()) else {
            continue;
        };
        let (Ok(location), Ok(time)) = (loc.parse(), time.parse()) else {
            continue;
        };
        if !name
            .bytes()
            .all(|b| b.is_ascii_uppercase() || b.is_ascii_digit() || b == b'_')
        {
            continue;
        }
        events.push(Printed {
            name: name.to_string(),
            location,
            time,
        });
    }
    events
}
