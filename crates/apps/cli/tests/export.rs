//! `trama export`: the command line around `trama-export` (whose output is
//! checked against `trama dump` in `crates/outputs/export/tests`): files written
//! whole or not at all, standard output, refused options, the help.

mod common;

use std::path::{Path, PathBuf};

use common::trama;

fn example() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../examples/ring.paje")
}

fn s(p: &Path) -> &str {
    p.to_str().unwrap()
}

#[test]
fn both_formats_to_a_file_and_to_standard_output() {
    let tmp = tempfile::tempdir().unwrap();
    let ex = example();
    for (format, name) in [
        ("perfetto", "ring.perfetto-trace"),
        ("chrome-json", "ring.json"),
    ] {
        let out = tmp.path().join(name);
        let o = trama(&["export", format, s(&ex), "-o", s(&out)]);
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        let file = std::fs::read(&out).unwrap();
        let o = trama(&["export", format, s(&ex), "-o", "-"]);
        assert!(o.status.success());
        assert_eq!(o.stdout, file, "{format}: standard output and file differ");
        // Nothing beside the output (its temporary file was renamed).
        assert_eq!(std::fs::read_dir(tmp.path()).unwrap().count(), 1);
        std::fs::remove_file(&out).unwrap();
        if format == "chrome-json" {
            let v: serde_json::Value = serde_json::from_slice(&file).unwrap();
            let events = v["traceEvents"].as_array().unwrap();
            let count = |ph: &str| events.iter().filter(|e| e["ph"] == ph).count();
            assert!(count("B") > 0 && count("B") == count("E"));
            assert_eq!(count("s"), count("f"));
        } else {
            // A Trace: packets (field 1, length-delimited).
            assert_eq!(file[0], 0x0a);
        }
    }
}

#[test]
fn a_rejected_trace_writes_nothing() {
    let tmp = tempfile::tempdir().unwrap();
    let bad = tmp.path().join("bad.paje");
    let mut text = std::fs::read_to_string(example()).unwrap();
    text.push_str("12 99 S nowhere\n");
    std::fs::write(&bad, text).unwrap();
    let out = tmp.path().join("out.perfetto-trace");
    std::fs::write(&out, b"before").unwrap();
    let o = trama(&["export", "perfetto", s(&bad), "-o", s(&out)]);
    assert!(!o.status.success());
    assert!(String::from_utf8_lossy(&o.stderr).contains("bad.paje"));
    assert_eq!(std::fs::read(&out).unwrap(), b"before");
    assert_eq!(std::fs::read_dir(tmp.path()).unwrap().count(), 2);
}

#[test]
fn refused_outputs_and_options() {
    let tmp = tempfile::tempdir().unwrap();
    let input = tmp.path().join("ring.paje");
    std::fs::copy(example(), &input).unwrap();
    let before = std::fs::read(&input).unwrap();
    let o = trama(&["export", "chrome-json", s(&input), "-o", s(&input)]);
    assert!(!o.status.success(), "writing onto the input");
    assert_eq!(std::fs::read(&input).unwrap(), before);
    let o = trama(&[
        "export",
        "perfetto",
        "-i",
        s(&input),
        "-o",
        s(&tmp.path().join("x")),
    ]);
    assert!(!o.status.success());
    assert!(String::from_utf8_lossy(&o.stderr).contains("-i"));
    assert!(!tmp.path().join("x").exists());
    let o = trama(&["export", "parquet-or-else", s(&input), "-o", "-"]);
    assert!(!o.status.success());
}

#[test]
fn help_names_the_formats() {
    let o = trama(&["export", "--help"]);
    let help = String::from_utf8_lossy(&o.stdout);
    for word in ["perfetto", "chrome-json", "convert"] {
        assert!(help.contains(word), "{word} not in:\n{help}");
    }
}
