//! What `trama merge` writes: only traces trama accepts, and only the runs
//! it is given.

mod common;

use std::path::{Path, PathBuf};

use common::trama;

fn data(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data/integration")
        .join(name)
}

fn s(p: &Path) -> &str {
    p.to_str().unwrap()
}

/// A merge that exits 0 writes a trace `trama check` accepts: damaged
/// CLOG-2 logs (4 bytes zeroed here and there) are refused, without an
/// output, or merged into a valid trace.
#[test]
fn a_merge_that_succeeds_writes_a_valid_trace() {
    let tmp = tempfile::tempdir().unwrap();
    let plan = tmp.path().join("plan.toml");
    std::fs::write(
        &plan,
        format!(
            "hierarchy = [\"cluster\", \"host\", \"process\"]\n[top]\ncluster = \"paple\"\n\
             [[source]]\nname = \"mpi\"\nkind = \"clog2\"\nlevels = {{ rank = \"process\" }}\n\
             machinefile = \"{}\"\n",
            s(&data("mpd.hosts"))
        ),
    )
    .unwrap();
    let log = std::fs::read(data("pingpong.clog2")).unwrap();
    let bad = tmp.path().join("bad.clog2");
    let arg = format!("mpi={}", s(&bad));
    let (mut merged, mut refused) = (0, 0);
    for at in (1600..log.len() - 4).step_by(64) {
        let mut v = log.clone();
        v[at..at + 4].fill(0);
        std::fs::write(&bad, &v).unwrap();
        for ext in ["paje", "ptb"] {
            let out = tmp.path().join(format!("out.{ext}"));
            let o = trama(&["merge", "--plan", s(&plan), &arg, "-o", s(&out)]);
            if o.status.success() {
                merged += 1;
                let c = trama(&["check", s(&out)]);
                assert!(
                    c.status.success(),
                    "byte {at}, {ext}: merged, then rejected: {}",
                    String::from_utf8_lossy(&c.stderr)
                );
                std::fs::remove_file(&out).unwrap();
            } else {
                refused += 1;
                assert_eq!(o.status.code(), Some(1), "byte {at}");
                assert!(
                    !out.exists(),
                    "byte {at}, {ext}: a refused merge left its output"
                );
            }
        }
    }
    assert!(
        merged > 0 && refused > 0,
        "{merged} merged, {refused} refused"
    );
}

/// The files named on the command line for a plan entry replace those the
/// plan lists for it: two runs are never mixed.
#[test]
fn files_given_for_an_entry_replace_the_plans() {
    let tmp = tempfile::tempdir().unwrap();
    let plan = tmp.path().join("plan.toml");
    std::fs::write(
        &plan,
        format!(
            "hierarchy = [\"host\", \"process\"]\n[branches]\ncpu = \"host\"\n\
             [[source]]\nname = \"os\"\nkind = \"sched\"\nhost = \"paple01\"\n\
             levels = {{ thread = \"process\" }}\nfiles = [\"{}\"]\n",
            s(&data("ftrace-paple01.txt"))
        ),
    )
    .unwrap();
    let out = tmp.path().join("out.paje");
    let merge = |extra: &[&str]| {
        let mut args = vec!["merge", "--plan", s(&plan), "-o", s(&out)];
        args.extend(extra);
        let o = trama(&args);
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        String::from_utf8_lossy(&o.stderr).into_owned()
    };
    assert!(merge(&[]).contains("from 1 source "), "the plan's file");
    let other = format!("os={}", s(&data("ftrace-paple03.txt")));
    assert!(
        merge(&[&other]).contains("from 1 source "),
        "replaced, not added"
    );
    let again = format!("os={}", s(&data("ftrace-paple01.txt")));
    assert!(
        merge(&[&other, &again]).contains("from 2 sources "),
        "both given"
    );
}
