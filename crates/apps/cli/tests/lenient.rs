//! Real-world Pajé inputs that a strict reader rejects: StarPU's raw trace
//! (containers used before they are created: `--lenient`), traces nearly in
//! time order (`--sort-window`), lines with more fields than their
//! definition (used without them, as PajeNG does) and a UTF-8 byte order
//! mark (dropped).

mod common;

use std::path::{Path, PathBuf};
use std::process::Output;

use common::{cases, shared_dir, trama, write_in};

fn example() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../examples/ring.paje")
}

fn s(p: &Path) -> &str {
    p.to_str().unwrap()
}

fn err(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// Runs trama, which must succeed; its standard output.
fn ok(args: &[&str]) -> Vec<u8> {
    let o = trama(args);
    assert!(o.status.success(), "{args:?}: {}", err(&o));
    o.stdout
}

/// `a` and `b` hold the same lines, in any order (a streamed dump is in
/// completion order).
#[track_caller]
fn assert_same_lines(a: &[u8], b: &[u8]) {
    let mut a: Vec<&[u8]> = a.split(|&c| c == b'\n').collect();
    let mut b: Vec<&[u8]> = b.split(|&c| c == b'\n').collect();
    a.sort();
    b.sort();
    assert_eq!(a, b);
}

fn starpu(shared: &Path) -> PathBuf {
    shared.join("samples/paje-real/starpu/pajengr-starpu.buggy.trace")
}

/// StarPU's raw trace sets variables of its memory managers and workers at
/// time 0 and creates them at 42.98 s (line 401 on): PajeNG rejects it at
/// line 377, and so does trama, saying what would read it.
#[test]
fn starpu_raw_trace_is_rejected_with_a_message_suggesting_the_flags() {
    let Some(shared) = shared_dir() else { return };
    let t = starpu(&shared);
    for cmd in ["dump", "check"] {
        let o = trama(&[cmd, s(&t)]);
        let e = err(&o);
        assert_eq!(o.status.code(), Some(1), "{cmd}: {e}");
        assert!(o.stdout.is_empty(), "{cmd}");
        assert!(e.contains(":377: unknown container 'mm0'"), "{e}");
        assert!(
            e.contains("--lenient") && e.contains("--sort-window"),
            "{e}"
        );
    }
}

/// Its unknown containers are set at an earlier time than they are
/// created: no reordering reads it, only --lenient does.
#[test]
fn starpu_raw_trace_is_not_read_by_a_sort_window_alone() {
    let Some(shared) = shared_dir() else { return };
    let o = trama(&["check", "--sort-window", "1000", s(&starpu(&shared))]);
    assert_eq!(o.status.code(), Some(1));
    assert!(
        err(&o).contains(":377: unknown container 'mm0'"),
        "{}",
        err(&o)
    );
}

#[test]
fn starpu_raw_trace_reads_with_lenient_as_without_its_23_early_variables() {
    let Some(shared) = shared_dir() else { return };
    let t = starpu(&shared);
    let o = trama(&["check", "--lenient", s(&t)]);
    assert!(o.status.success(), "{}", err(&o));
    let summary = String::from_utf8_lossy(&o.stdout);
    for line in [
        "6518 lines, 185655 bytes, 6407 events",
        "containers  47 (root included)",
        "entities    5527 (3564 states, 40 events, 1923 variable values, 0 links)",
        "time span   0 .. 62.3293",
    ] {
        assert!(summary.contains(line), "{line:?} in {summary}");
    }
    // What was let pass makes it no valid trace.
    assert!(!summary.contains("valid Pajé trace"), "{summary}");
    assert!(summary.contains("read with --lenient"), "{summary}");
    let e = err(&o);
    assert!(
        e.contains("pajengr-starpu.buggy.trace: line 377: PajeSetVariable on unknown container 'mm0' ignored (--lenient)"),
        "{e}"
    );
    assert!(
        e.contains("23 events on unknown containers ignored in all"),
        "{e}"
    );
    assert_eq!(e.lines().count(), 6, "the first 5 and the count: {e}");

    // The lenient dump is the dump of the trace without those lines.
    let text = std::fs::read_to_string(&t).unwrap();
    let kept: Vec<&str> = text
        .lines()
        .enumerate()
        .filter(|(i, _)| !(376..399).contains(i))
        .map(|(_, l)| l)
        .collect();
    let tmp = tempfile::tempdir().unwrap();
    let fixed = write_in(tmp.path(), "fixed.trace", kept.join("\n") + "\n");
    let want = ok(&["dump", s(&fixed)]);
    assert!(!want.is_empty());
    for threads in ["1", "2"] {
        assert_eq!(ok(&["dump", "--lenient", "-j", threads, s(&t)]), want);
    }
    // And a .ptb made with --lenient holds the same.
    let ptb = tmp.path().join("starpu.ptb");
    let conv = trama(&["convert", "--lenient", "--no-progress", s(&t), s(&ptb)]);
    assert!(conv.status.success(), "{}", err(&conv));
    assert!(err(&conv).contains("23 events on unknown containers ignored in all"));
    assert_eq!(ok(&["dump", s(&ptb)]), want);
}

/// Every trace PajeNG accepts dumps the same with --lenient, without a warning.
#[test]
fn lenient_changes_nothing_on_valid_traces() {
    let Some(shared) = shared_dir() else { return };
    let dir = shared.join("conformance/pajeng");
    let mut checked = 0;
    for case in cases(&dir) {
        if case.rc_head != "0" || case.note.contains("undefined-behaviour") {
            continue;
        }
        let path = dir.join(&case.trace);
        let mut args: Vec<&str> = vec!["dump"];
        args.extend(case.args.iter().map(String::as_str));
        args.push(s(&path));
        let want = trama(&args);
        if !want.status.success() {
            continue;
        }
        args.insert(1, "--lenient");
        let got = trama(&args);
        assert!(got.status.success(), "{}: {}", case.name, err(&got));
        assert_eq!(got.stdout, want.stdout, "{}", case.name);
        assert_eq!(err(&got), err(&want), "{}", case.name);
        checked += 1;
    }
    assert!(checked > 30, "{checked} cases");
}

/// `10 0.066192 S r0 comp extra`: PajeNG complains on its standard output
/// and uses the line; trama warns on stderr, naming the line and the
/// fields ignored, and dumps what PajeNG dumps.
#[test]
fn extra_fields_are_ignored_with_a_warning_naming_the_line() {
    let text = std::fs::read_to_string(example()).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines[116], "10 0.066192 S r0 comp");
    assert_eq!(lines[120], "11 0.311446 S r0 send");
    let mut extra: Vec<String> = lines.iter().map(|l| l.to_string()).collect();
    extra[116].push_str(" extra");
    extra[120].push_str(" extra more");
    let tmp = tempfile::tempdir().unwrap();
    let path = write_in(tmp.path(), "extra.paje", extra.join("\n") + "\n");
    let o = trama(&["dump", s(&path)]);
    assert!(o.status.success(), "{}", err(&o));
    assert_eq!(o.stdout, ok(&["dump", s(&example())]));
    let e = err(&o);
    assert!(
        e.contains("extra.paje: line 117: PajeSetState (id '10', defined at line 48) has 5 fields (Event Time Type Container Value), found 6; the extra field(s) 'extra' are ignored"),
        "{e}"
    );
    assert!(e.contains("line 121:") && e.contains("'extra more'"), "{e}");
    // PajeNG (when installed) dumps the same entities.
    let Ok(pj) = std::process::Command::new("pj_dump").arg(&path).output() else {
        return;
    };
    assert!(pj.status.success());
    assert_eq!(
        common::dumped(&pj.stdout),
        ok(&["dump", "--strip-quotes", s(&path)]),
        "pj_dump and trama differ"
    );
}

#[test]
fn a_byte_order_mark_is_accepted_and_reads_as_the_file_without_it() {
    let tmp = tempfile::tempdir().unwrap();
    let mut marked = b"\xEF\xBB\xBF".to_vec();
    marked.extend(std::fs::read(example()).unwrap());
    let path = write_in(tmp.path(), "bom.paje", &marked);
    let want = ok(&["dump", s(&example())]);
    for threads in ["1", "2"] {
        let o = trama(&["dump", "-j", threads, s(&path)]);
        assert!(o.status.success(), "{}", err(&o));
        assert_eq!(o.stdout, want);
        assert_eq!(err(&o), "");
    }
    let ptb = tmp.path().join("bom.ptb");
    ok(&["convert", "--no-progress", s(&path), s(&ptb)]);
    assert_eq!(ok(&["dump", s(&ptb)]), want);
}

/// The example with some event lines moved `by` lines further on (each
/// past later times only, so that a stable sort by time gives the example
/// back), and the window that puts it in order.
fn shuffled(by: usize) -> (String, f64) {
    let text = std::fs::read_to_string(example()).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    let time = |l: &str| l.split(' ').nth(1).and_then(|w| w.parse::<f64>().ok());
    let first = lines
        .iter()
        .position(|l| !l.starts_with(['%', '#']) && time(l).is_some())
        .unwrap();
    let (head, body) = lines.split_at(first);
    let times: Vec<f64> = body.iter().map(|l| time(l).expect("timed")).collect();
    let mut order: Vec<usize> = (0..body.len()).collect();
    let mut needed: f64 = 0.0;
    let mut i = 0;
    let mut moved = 0;
    while i + by < body.len() {
        // Moved past later times only: after the last of its time.
        if times[i] < times[i + 1] && i % 7 == 3 {
            order[i..=i + by].rotate_left(1);
            needed = needed.max(times[i + by] - times[i]);
            moved += 1;
            i += by + 1;
        } else {
            i += 1;
        }
    }
    assert!(moved > 5, "{moved} lines moved");
    let mut out: Vec<&str> = head.to_vec();
    out.extend(order.iter().map(|&k| body[k]));
    (out.join("\n") + "\n", needed)
}

#[test]
fn sort_window_reorders_a_shuffled_trace_to_the_dump_of_the_sorted_one() {
    let (text, needed) = shuffled(4);
    let tmp = tempfile::tempdir().unwrap();
    let path = write_in(tmp.path(), "shuffled.paje", &text);
    assert_ne!(text, std::fs::read_to_string(example()).unwrap());
    let want = ok(&["dump", s(&example())]);
    let window = format!("{needed}");
    for threads in ["1", "2"] {
        let o = trama(&["dump", "--sort-window", &window, "-j", threads, s(&path)]);
        assert!(o.status.success(), "{}", err(&o));
        assert_eq!(o.stdout, want, "-j {threads}");
    }
    // The streamed dump and a .ptb converted through the window agree.
    let streamed = ok(&["dump", "--stream", "--sort-window", &window, s(&path)]);
    assert_same_lines(&streamed, &want);
    let ptb = tmp.path().join("sorted.ptb");
    ok(&[
        "convert",
        "--no-progress",
        "--sort-window",
        &window,
        s(&path),
        s(&ptb),
    ]);
    assert_eq!(ok(&["dump", s(&ptb)]), want);
    // A .ptb is in the order of its text: no window applies to it.
    let o = trama(&["dump", "--sort-window", "1", s(&ptb)]);
    assert_eq!(o.status.code(), Some(1));
    assert!(err(&o).contains("a .ptb keeps the order"), "{}", err(&o));
}

#[test]
fn an_event_beyond_the_sort_window_is_an_error_naming_its_line() {
    let (text, needed) = shuffled(4);
    let tmp = tempfile::tempdir().unwrap();
    let path = write_in(tmp.path(), "shuffled.paje", &text);
    let out = tmp.path().join("out.csv");
    let small = format!("{}", needed / 100.0);
    let o = trama(&["dump", "--sort-window", &small, s(&path), "-o", s(&out)]);
    assert_eq!(o.status.code(), Some(1));
    let e = err(&o);
    let line: usize = e
        .split("shuffled.paje:")
        .nth(1)
        .and_then(|r| r.split(':').next())
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("no line in {e}"));
    let words = text.lines().nth(line - 1).unwrap();
    assert!(e.contains(&format!("  | {words}")), "{e}");
    assert!(e.contains("by more than the sort window"), "{e}");
    // The window it suggests reads the trace.
    let suggested = e
        .split("--sort-window ")
        .nth(1)
        .and_then(|r| r.split(' ').next())
        .unwrap();
    ok(&["check", "--sort-window", suggested, s(&path)]);
    assert!(
        !out.exists(),
        "nothing is written when the trace is rejected"
    );
    let bad = trama(&["check", "--sort-window", "-1", s(&path)]);
    assert_eq!(bad.status.code(), Some(2), "{}", err(&bad));
}

/// The example's definitions and containers, then `blocks` blocks of ten
/// state changes a second apart, each followed by one `b + 1` seconds
/// late (block `b`): every window the error names is too short further
/// on. With the same events sorted by time (stably), as a second text.
fn later_and_later(blocks: usize) -> (String, String) {
    let text = std::fs::read_to_string(example()).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    let head = lines.iter().position(|l| l.starts_with("13 ")).unwrap();
    let values = ["comp", "send", "recv"];
    let mut events: Vec<(f64, String)> = Vec::new();
    for b in 0..blocks {
        let base = 100.0 * b as f64;
        for k in 1..=10 {
            let t = base + k as f64;
            events.push((t, format!("10 {t} S r{} {}", k % 4, values[(b + k) % 3])));
        }
        let t = base + 10.0 - (b + 1) as f64;
        events.push((t, format!("10 {t} S r{} {}", b % 4, values[b % 3])));
    }
    let write = |events: &[(f64, String)]| {
        let mut out = lines[..head].join("\n");
        for (_, l) in events {
            out.push('\n');
            out.push_str(l);
        }
        out + "\n"
    };
    let unsorted = write(&events);
    events.sort_by(|a, b| a.0.total_cmp(&b.0));
    (unsorted, write(&events))
}

/// Regression: a raw StarPU trace needed seven tries of `--sort-window`,
/// each suggesting the window of its first late event only. The errors
/// suggest `--sort`, which reads such a trace at once, in memory or
/// spilled to sorted runs on disk, as a window longer than the trace does.
#[test]
fn sort_reads_a_trace_whose_every_suggested_window_is_too_short() {
    let (text, sorted) = later_and_later(3000);
    let tmp = tempfile::tempdir().unwrap();
    let path = write_in(tmp.path(), "late.paje", &text);
    let in_order = write_in(tmp.path(), "sorted.paje", &sorted);
    let want = ok(&["dump", s(&in_order)]);
    // Without a flag, and with each window suggested: an error saying
    // --sort.
    let o = trama(&["check", s(&path)]);
    assert_eq!(o.status.code(), Some(1));
    assert!(err(&o).contains("--sort one in any order"), "{}", err(&o));
    let mut window = "0".to_string();
    for _ in 0..3 {
        let o = trama(&["check", "--sort-window", &window, s(&path)]);
        assert_eq!(o.status.code(), Some(1), "window {window}");
        let e = err(&o);
        assert!(e.contains("--sort sorts the whole trace"), "{e}");
        let next = e
            .split("--sort-window ")
            .nth(1)
            .and_then(|r| r.split(' ').next())
            .unwrap()
            .to_string();
        assert!(next.parse::<f64>().unwrap() > window.parse().unwrap());
        window = next;
    }
    // One flag reads it: in memory, spilled to runs (more than are merged
    // at once), with one thread or two, as a window longer than the trace.
    assert_eq!(ok(&["dump", "--sort-window", "1e9", s(&path)]), want);
    for args in [
        &["dump", "--sort"][..],
        &["dump", "--sort", "-j", "1"],
        &["dump", "--sort", "--sort-memory", "65536"],
        &["dump", "--sort", "--sort-memory", "65536", "-j", "1"],
    ] {
        let mut a = args.to_vec();
        a.push(s(&path));
        assert_eq!(ok(&a), want, "{args:?}");
    }
    // Streamed and converted alike.
    let streamed = ok(&[
        "dump",
        "--stream",
        "--sort",
        "--sort-memory",
        "65536",
        s(&path),
    ]);
    assert_same_lines(&streamed, &want);
    let ptb = tmp.path().join("late.ptb");
    ok(&[
        "convert",
        "--no-progress",
        "--sort",
        "--sort-memory",
        "65536",
        s(&path),
        s(&ptb),
    ]);
    assert_eq!(ok(&["dump", s(&ptb)]), want);
    // Nothing left in the temporary folder's listing: the runs are
    // removed as soon as made.
    let temp = tmp.path().join("temp");
    std::fs::create_dir(&temp).unwrap();
    let o = std::process::Command::new(env!("CARGO_BIN_EXE_trama"))
        .args(["check", "--sort", "--sort-memory", "65536", s(&path)])
        .env("TMPDIR", &temp)
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", err(&o));
    assert_eq!(std::fs::read_dir(&temp).unwrap().count(), 0);
    // The raw StarPU sample reads with --sort (and --lenient) as with a
    // window longer than the trace.
    if let Some(shared) = shared_dir() {
        let t = starpu(&shared);
        let long = ok(&["dump", "--lenient", "--sort-window", "1e9", s(&t)]);
        for memory in ["1073741824", "65536"] {
            let got = ok(&[
                "dump",
                "--lenient",
                "--sort",
                "--sort-memory",
                memory,
                s(&t),
            ]);
            assert_eq!(got, long, "--sort-memory {memory}");
        }
    }
}
