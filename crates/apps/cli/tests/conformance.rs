//! PajeNG conformance: every case of `../shared/conformance/pajeng` (both
//! quote modes, 1 and N threads, in-memory and streaming) and the real traces
//! of `../shared/samples/paje-real` must give PajeNG's verdict and, when
//! accepted, its exact output.
//!
//! The cases are read from the shared folder beside the repository (or from
//! `$TRAMA_SHARED`). Without it the tests print a note and pass, unless
//! `TRAMA_REQUIRE_SHARED=1` (set by `.ci/run`), which makes absence a failure.

mod common;

use common::{assert_none_failed, cases, real_accepted, shared_dir, trama};

fn sorted_lines(b: &[u8]) -> Vec<&[u8]> {
    let mut v: Vec<&[u8]> = b.split(|&c| c == b'\n').collect();
    v.sort();
    v
}

#[test]
fn pajeng_conformance_cases() {
    let Some(shared) = shared_dir() else { return };
    let dir = shared.join("conformance/pajeng");
    let all = cases(&dir);
    assert!(
        all.len() >= 69,
        "expected at least 69 cases, found {}",
        all.len()
    );
    let mut failures = Vec::new();
    let mut checked = 0;
    for case in &all {
        if case.note.contains("undefined-behaviour-in-pajeng") {
            continue;
        }
        for (mode, rc, extra) in [
            ("head", &case.rc_head, None),
            ("v1310", &case.rc_1310, Some("--strip-quotes")),
        ] {
            let expected = std::fs::read(dir.join(format!("{}.{mode}.out", case.name))).unwrap();
            let trace = dir.join(&case.trace);
            for threads in ["1", "4"] {
                for stream in [false, true] {
                    let mut args: Vec<&str> = vec!["dump", "--no-progress", "-j", threads];
                    args.extend(extra);
                    if stream {
                        args.push("--stream");
                    }
                    args.extend(case.args.iter().map(|s| s.as_str()));
                    args.push(trace.to_str().unwrap());
                    let out = trama(&args);
                    checked += 1;
                    let what = format!(
                        "{} [{mode}, -j {threads}{}]",
                        case.name,
                        if stream { ", --stream" } else { "" }
                    );
                    if rc == "0" {
                        if !out.status.success() {
                            failures.push(format!(
                                "{what}: rejected but PajeNG accepts: {}",
                                String::from_utf8_lossy(&out.stderr)
                            ));
                        } else if stream && !case.args.iter().any(|a| a == "-h") {
                            if sorted_lines(&out.stdout) != sorted_lines(&expected) {
                                failures
                                    .push(format!("{what}: streamed lines differ from PajeNG's"));
                            }
                        } else if !stream && out.stdout != expected {
                            failures.push(format!(
                                "{what}: output differs\n--- expected\n{}--- got\n{}",
                                String::from_utf8_lossy(&expected),
                                String::from_utf8_lossy(&out.stdout)
                            ));
                        }
                    } else {
                        let err = String::from_utf8_lossy(&out.stderr);
                        if out.status.code() != Some(1) {
                            failures.push(format!(
                                "{what}: PajeNG rejects (rc {rc}); we exit with {:?}",
                                out.status.code()
                            ));
                        } else if !stream && !out.stdout.is_empty() {
                            failures.push(format!(
                                "{what}: partial dump on stdout for a rejected trace"
                            ));
                        } else if !err.contains(case.trace.as_str())
                            || !err.starts_with("trama: error: ")
                        {
                            failures.push(format!(
                                "{what}: error message does not name the file: {err}"
                            ));
                        }
                    }
                }
            }
        }
    }
    assert_none_failed(&failures, &format!("{checked} runs failed"));
}

#[test]
fn rejected_cases_name_the_line_and_token() {
    let Some(shared) = shared_dir() else { return };
    let dir = shared.join("conformance/pajeng");
    // (case, line, token that must appear in the message)
    let expect = [
        ("bad_start", "1", "EventDef"),
        ("by_name_when_alias", "112", "'Proc'"),
        ("container_by_name", "114", "'proc1'"),
        ("destroy_before_last", "115", "p1"),
        ("dup_field", "3", "'Name'"),
        ("dup_id", "5", "'1'"),
        ("incomplete_link", "", "k1"),
        ("key_reuse", "117", "'k1'"),
        ("link_value_mismatch", "116", "'w'"),
        ("many", "32", "20"),
        ("missing_obligatory", "5", "Container"),
        ("missing_type_in_def", "2", "'Name'"),
        ("not_time_ordered", "115", "1.000000"),
        ("oldnames", "4", "ContainerType"),
        ("pop_empty", "114", "PajePopState"),
        ("type_zero", "111", "'0'"),
        ("undefined_id", "5", "'7'"),
        ("unknown_event_name", "1", "'PajeFooBar'"),
        ("unterminated", "12", "\"abc P 0"),
        ("var_add_first", "114", "PajeAddVariable"),
        ("zero_name", "112", "'0'"),
    ];
    let mut failures = Vec::new();
    for (case, line, token) in expect {
        let path = dir.join(format!("{case}.trace"));
        let out = trama(&["dump", path.to_str().unwrap()]);
        let err = String::from_utf8_lossy(&out.stderr);
        let located = line.is_empty() || err.contains(&format!("{case}.trace:{line}:"));
        // The offending line is shown under the message.
        let shown = line.is_empty() || err.lines().any(|l| l.starts_with("  | ") && l.len() > 4);
        if out.status.code() != Some(1) || !located || !shown || !err.contains(token) {
            failures.push(format!("{case}: want line {line} and {token:?} in: {err}"));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn real_traces_from_real_tools() {
    let Some(shared) = shared_dir() else { return };
    let dir = shared.join("samples/paje-real");
    for real in real_accepted(&shared) {
        let (rel, suffix) = (real.rel, real.suffix);
        for threads in ["1", "2"] {
            let mut args = vec!["dump", "-j", threads];
            args.extend(real.quotes);
            args.push(real.path.to_str().unwrap());
            let out = trama(&args);
            assert!(
                out.status.success(),
                "{rel}: {}",
                String::from_utf8_lossy(&out.stderr)
            );
            assert!(
                out.stdout == real.expected,
                "{rel} ({suffix}, -j {threads}): output differs"
            );
        }
    }
    // Negative cases: PajeNG rejects them at these lines.
    let buggy = dir.join("starpu/pajengr-starpu.buggy.trace");
    let out = trama(&["dump", buggy.to_str().unwrap()]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1));
    assert!(out.stdout.is_empty());
    assert!(err.contains(":377:") && err.contains("'mm0'"), "{err}");

    let java = dir.join("paje-2005/JavaTest.trace");
    let out = trama(&["dump", java.to_str().unwrap()]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1));
    assert!(
        err.contains("JavaTest.trace:5:") && err.contains("--no-strict"),
        "{err}"
    );
    let out = trama(&["dump", "-n", java.to_str().unwrap()]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1));
    assert!(
        err.contains("JavaTest.trace:45:") && err.contains("Name"),
        "{err}"
    );
}

#[test]
fn check_summarizes_a_valid_trace_and_rejects_an_invalid_one() {
    let Some(shared) = shared_dir() else { return };
    let dir = shared.join("conformance/pajeng");
    let ok = trama(&["check", dir.join("example.trace").to_str().unwrap()]);
    assert!(ok.status.success());
    let text = String::from_utf8_lossy(&ok.stdout);
    assert!(text.contains("valid"), "{text}");
    assert!(text.contains("containers  5"), "{text}");
    assert!(
        text.contains("4 states, 1 events, 3 variable values, 2 links"),
        "{text}"
    );
    assert!(text.contains("time span   0 .. 4"), "{text}");
    let bad = trama(&["check", dir.join("pop_empty.trace").to_str().unwrap()]);
    assert_eq!(bad.status.code(), Some(1));
    assert!(bad.stdout.is_empty());
}
