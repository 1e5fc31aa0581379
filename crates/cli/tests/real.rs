//! Defaults that fit the real traces of `../shared/samples` (SimGrid,
//! StarPU): what a person reads there is right without options.

mod common;

use common::{shared_dir, trama};

fn out(args: &[&str]) -> String {
    let o = trama(args);
    assert!(
        o.status.success(),
        "{args:?}: {}",
        String::from_utf8_lossy(&o.stderr)
    );
    String::from_utf8(o.stdout).unwrap()
}

/// SimGrid quotes its names (`"master-1"`, kept by PajeNG as part of the
/// name): tables and pictures show them without quotes, and options take
/// either spelling.
#[test]
fn names_are_shown_and_taken_without_their_quotes() {
    let Some(shared) = shared_dir() else { return };
    let trace = shared.join("samples/paje-real/simgrid/pajengr-simgrid-3.20.90-masterworkers.trace");
    let t = trace.to_str().unwrap();
    let dump = out(&["dump", t]);
    assert!(dump.contains("\"master-1\""), "the dump keeps the bytes");
    for format in ["table", "csv", "json"] {
        let s = out(&["stats", "states", t, "--format", format]);
        assert!(s.contains("master-1"), "{format}");
        // In JSON the name is a string: its quotes would be escaped.
        let quoted = if format == "json" { "\\\"master" } else { "\"master" };
        assert!(!s.contains(quoted), "{format}: {s}");
    }
    let tmp = tempfile::tempdir().unwrap();
    for name in ["master-1", "\"master-1\""] {
        let svg = tmp.path().join("p.svg");
        out(&["render", "process", t, "--process", name, "-o", svg.to_str().unwrap()]);
        let text = std::fs::read_to_string(&svg).unwrap();
        assert!(text.contains("master-1") && !text.contains("&quot;master"), "{name}");
    }
}
