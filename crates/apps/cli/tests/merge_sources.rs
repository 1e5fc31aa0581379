//! `trama merge` of Pajé sources: PajeNG's own traces, and sources whose
//! time spans do not meet.

use std::path::Path;

mod common;

use common::{trama, write_in};

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

fn s(p: &Path) -> &str {
    p.to_str().unwrap()
}

#[test]
fn merge_paje_accepts_pajeng_ms_trace_with_types_in_the_root() {
    let Some(shared) = common::shared_dir() else {
        return;
    };
    let ms = shared.join("conformance/pajeng/ms.trace");
    let dir = tempfile::tempdir().unwrap();
    let plan = write_in(
        dir.path(),
        "plan.toml",
        "hierarchy = [\"platform\", \"HOST\"]\nhost_level = \"HOST\"\nbranches = { LINK = \"platform\" }\n\
         [top]\nplatform = \"p\"\n[[source]]\nname = \"ms\"\nkind = \"paje\"\nsynchronized = true\n",
    );
    let out_path = dir.path().join("merged.paje");
    let arg = format!("ms={}", ms.display());
    let out = trama(&["merge", "--plan", s(&plan), &arg, "-o", s(&out_path)]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    // The events of the type declared in the root (msmark) are there, as
    // in the source, and so are its variables.
    let count = |file: &Path, kind: &str| {
        let d = trama(&["dump", s(file)]);
        assert!(d.status.success(), "{}", text(&d.stderr));
        text(&d.stdout)
            .lines()
            .filter(|l| l.starts_with(kind))
            .count()
    };
    assert_eq!(count(&out_path, "Event,"), count(&ms, "Event,"));
    assert_eq!(count(&out_path, "Event,"), 2);
    assert_eq!(count(&out_path, "Variable,"), count(&ms, "Variable,"));
}

#[test]
fn merge_warns_of_sources_whose_spans_do_not_overlap() {
    let example = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../examples/ring.paje");
    let dir = tempfile::tempdir().unwrap();
    let plan = |origin: &str| {
        write_in(
            dir.path(),
            "plan.toml",
            format!(
                "hierarchy = [\"site\", \"node\", \"rank\"]\nhost_level = \"node\"\n\
                 [top]\nsite = \"lab\"\n\
                 [[source]]\nname = \"a\"\nkind = \"paje\"\nlevels = {{ Node = \"node\", Rank = \"rank\" }}\n\
                 [[source]]\nname = \"b\"\nkind = \"paje\"\nlevels = {{ Node = \"node\", Rank = \"rank\" }}\n\
                 origin = \"{origin}\"\n\
                 [source.map.node]\n\"node-0\" = \"node-2\"\n\"node-1\" = \"node-3\"\n"
            ),
        )
    };
    let a = format!("a={}", example.display());
    let b = format!("b={}", example.display());
    let out_path = dir.path().join("merged.paje");
    let p = plan("1000000");
    let out = trama(&["merge", "--plan", s(&p), &a, &b, "-o", s(&out_path)]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let err = text(&out.stderr);
    assert!(
        err.contains("trama merge: warning: ") && err.contains("a time no other source covers"),
        "{err}"
    );
    assert_eq!(
        err.matches("a time no other source covers").count(),
        2,
        "{err}"
    );
    // Overlapping sources: no warning.
    let p = plan("0.5");
    let out = trama(&["merge", "--plan", s(&p), &a, &b, "-o", s(&out_path)]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert!(
        !text(&out.stderr).contains("warning"),
        "{}",
        text(&out.stderr)
    );
}

/// Regression: `merge -o -` wrote the text of an invalid trace to standard
/// output, then said "so it was not written". To a file nothing is
/// written; to standard output the message says what it received.
#[test]
fn merge_to_standard_output_says_what_an_invalid_trace_left_there() {
    let example = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../examples/ring.paje");
    let dir = tempfile::tempdir().unwrap();
    // The example with two pops of an empty stack after its first pop
    // (line 124): the source reads, the merged trace is rejected.
    let original = std::fs::read_to_string(&example).unwrap();
    let mut lines: Vec<&str> = original.lines().collect();
    assert!(lines[123].starts_with("12 0.334465 S r0"), "{}", lines[123]);
    lines.splice(124..124, ["12 0.3345 S r0", "12 0.3345 S r0"]);
    let bad = write_in(dir.path(), "bad.paje", lines.join("\n") + "\n");
    let plan = write_in(
        dir.path(),
        "plan.toml",
        "hierarchy = [\"site\", \"node\", \"rank\"]\nhost_level = \"node\"\n[top]\nsite = \"lab\"\n\
         [[source]]\nname = \"a\"\nkind = \"paje\"\nlevels = { Node = \"node\", Rank = \"rank\" }\n",
    );
    let source = format!("a={}", bad.display());
    let file = dir.path().join("merged.paje");
    let out = trama(&["merge", "--plan", s(&plan), &source, "-o", s(&file)]);
    assert_eq!(out.status.code(), Some(1));
    let err = text(&out.stderr);
    assert!(err.contains("not valid, so it was not written"), "{err}");
    assert!(err.contains("whose state stack is empty"), "{err}");
    assert!(!file.exists());

    let out = trama(&["merge", "--plan", s(&plan), &source, "-o", "-"]);
    assert_eq!(out.status.code(), Some(1));
    let err = text(&out.stderr);
    // What it received is there, and the message says so.
    assert!(text(&out.stdout).contains("%EventDef"), "{err}");
    assert!(!err.contains("not written"), "{err}");
    assert!(
        err.contains("standard output received its text as it was checked, up to the error")
            && err.contains("cannot be taken back"),
        "{err}"
    );
}
