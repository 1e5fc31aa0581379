//! OTF2 archives of known content for tests, written by Debian's
//! `python3-otf2` (`otf2/write_archive.py` in this crate, and the small
//! archives of `otf2/write_case.py`, one point of the mapping each), and
//! what Debian's `otf2-print` (package `otf2-tools`) says of an archive.
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

/// Runs the writer script `name` of this crate's `otf2/` folder with
/// `args`, which writes an archive into `dir`; its anchor.
fn run_script(name: &str, args: &[&std::ffi::OsStr], dir: &Path) -> PathBuf {
    let out = Command::new(PYTHON)
        .arg(
            Path::new(env!("CARGO_MANIFEST_DIR"))
                .join("otf2")
                .join(name),
        )
        .args(args)
        .output()
        .expect("running python3");
    assert!(
        out.status.success(),
        "{name} failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    dir.join("traces.otf2")
}

/// Writes the archive of known content (see the script's documentation)
/// with `iterations` iterations into `dir`; its anchor.
pub fn write_archive(dir: &Path, iterations: u32) -> PathBuf {
    let n = iterations.to_string();
    run_script("write_archive.py", &[dir.as_os_str(), n.as_ref()], dir)
}

/// Writes the small archive `case` of `otf2/write_case.py` (`counters`,
/// `collectives`, `leaves`, `end`: its documentation gives their content)
/// into `dir`; its anchor.
pub fn write_case(case: &str, dir: &Path) -> PathBuf {
    run_script("write_case.py", &[case.as_ref(), dir.as_os_str()], dir)
}

/// What `otf2-print -G` says of the clock of the archive `anchor`: ticks
/// per second, global offset and length.
pub fn print_clock(anchor: &Path) -> (u64, u64, u64) {
    let text = otf2_print(&["-G"], anchor);
    let line = text
        .lines()
        .find(|l| l.starts_with("CLOCK_PROPERTIES"))
        .expect("a CLOCK_PROPERTIES line");
    let field = |name: &str| -> u64 {
        let at = line.find(name).expect("a clock field") + name.len();
        line[at..]
            .trim_start()
            .split(|c: char| !c.is_ascii_digit())
            .next()
            .and_then(|n| n.parse().ok())
            .expect("a number")
    };
    (
        field("Ticks per Seconds:"),
        field("Global Offset:"),
        field("Length:"),
    )
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

/// The names `otf2-print -G` gives the locations of the archive
/// `anchor`, by location.
pub fn print_location_names(anchor: &Path) -> std::collections::BTreeMap<u64, String> {
    otf2_print(&["-G"], anchor)
        .lines()
        .filter_map(|l| {
            let rest = l.strip_prefix("LOCATION ")?;
            let (id, rest) = rest.trim_start().split_once(' ')?;
            let name = rest.trim_start().strip_prefix("Name: \"")?;
            Some((id.parse().ok()?, name[..name.find("\" <")?].to_string()))
        })
        .collect()
}

/// What `otf2-print ARGS anchor` prints.
fn otf2_print(args: &[&str], anchor: &Path) -> String {
    let out = Command::new("otf2-print")
        .args(args)
        .arg(anchor)
        .output()
        .expect("running otf2-print");
    assert!(
        out.status.success(),
        "otf2-print {args:?} {} failed: {}",
        anchor.display(),
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// The events `otf2-print` prints of the archive `anchor`, in its order.
pub fn print_events(anchor: &Path) -> Vec<Printed> {
    parse_print(&otf2_print(&[], anchor))
}

/// The `ENTER` and `LEAVE` events `otf2-print` prints of the archive
/// `anchor`, in its order, each with the name of the region it names.
pub fn print_regions(anchor: &Path) -> Vec<(Printed, String)> {
    let text = otf2_print(&[], anchor);
    let regions = text.lines().filter_map(|l| {
        let name = l.split_whitespace().next()?;
        if name != "ENTER" && name != "LEAVE" {
            return None;
        }
        let at = l.find("Region: \"")? + "Region: \"".len();
        let end = l.rfind("\" <")?;
        Some(l.get(at..end)?.to_string())
    });
    parse_print(&text)
        .into_iter()
        .filter(|e| e.name == "ENTER" || e.name == "LEAVE")
        .zip(regions)
        .collect()
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

/// The values the `counters` case of `otf2/write_case.py` writes, per
/// variable (named as trama names a metric member: its name and unit), in
/// time order, computed as the script computes them.
pub fn counters_values() -> Vec<(&'static str, Vec<f64>)> {
    let mut energy: Vec<f64> = (0..300u64)
        .map(|k| (127_896_927_659_027 + 1001 * k) as f64)
        .collect();
    // 2^53 + 1: the nearest double, 2^53.
    energy.push(9_007_199_254_740_993u64 as f64);
    let offset = (0..300i64)
        .map(|k| (-131_000_000_000_000 - 7 * k) as f64)
        .collect();
    let power = (0..300)
        .map(|k| 250.123456789 + k as f64 / 1024.0)
        .collect();
    vec![
        ("energy_count [J]", energy),
        ("offset [ns]", offset),
        ("power [W]", power),
    ]
}
