//! The `trama` command line: inputs (file, stdin, gzip, zstd), outputs,
//! options and exit codes, on the bundled example.

mod common;

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

use common::write_in;

fn example() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../examples/ring.paje")
}

fn trama() -> Command {
    Command::new(env!("CARGO_BIN_EXE_trama"))
}

/// Runs `cmd`, which must succeed; its output.
fn run_ok(cmd: &mut Command) -> Output {
    let out = cmd.output().expect("run trama");
    assert!(
        out.status.success(),
        "{cmd:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    out
}

/// The standard output of a successful `trama ARGS`.
fn stdout_of(args: &[&str]) -> Vec<u8> {
    run_ok(trama().args(args)).stdout
}

/// The number of links in the example's dump.
fn example_links() -> u64 {
    dump_of(&example(), &[])
        .split(|&b| b == b'\n')
        .filter(|l| l.starts_with(b"Link,"))
        .count() as u64
}

fn dump_of(path: &Path, extra: &[&str]) -> Vec<u8> {
    run_ok(trama().arg("dump").args(extra).arg(path)).stdout
}

#[test]
fn example_dump_has_every_kind_of_line() {
    let out = String::from_utf8(dump_of(&example(), &[])).unwrap();
    for kind in ["Container, ", "State, ", "Event, ", "Variable, ", "Link, "] {
        assert!(out.lines().any(|l| l.starts_with(kind)), "no {kind} line");
    }
    // PajeNG's order: the root first, then its links (type L sorts before N).
    let first: Vec<&str> = out.lines().take(2).collect();
    assert!(first[0].starts_with("Container, 0, 0, 0, "));
    assert!(first[1].starts_with("Link, 0, Message, "));
}

#[test]
fn compressed_and_standard_input_give_the_same_dump() {
    let reference = dump_of(&example(), &[]);
    let text = std::fs::read(example()).unwrap();
    let dir = tempfile::tempdir().unwrap();

    let gz = dir.path().join("ring.paje.gz");
    let mut enc = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    enc.write_all(&text).unwrap();
    std::fs::write(&gz, enc.finish().unwrap()).unwrap();
    assert_eq!(dump_of(&gz, &[]), reference);

    // Content decides, not the name.
    let zst = dir.path().join("ring.bin");
    std::fs::write(&zst, zstd::encode_all(&text[..], 3).unwrap()).unwrap();
    assert_eq!(dump_of(&zst, &[]), reference);

    for arg in [None, Some("-")] {
        let mut cmd = trama();
        cmd.arg("dump");
        cmd.args(arg);
        let mut child = cmd
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .spawn()
            .unwrap();
        child.stdin.take().unwrap().write_all(&text).unwrap();
        let out = child.wait_with_output().unwrap();
        assert!(out.status.success());
        assert_eq!(out.stdout, reference);
    }
}

#[test]
fn output_file_threads_and_streaming_agree() {
    let reference = dump_of(&example(), &[]);
    let dir = tempfile::tempdir().unwrap();
    let o = dir.path().join("out.csv");
    let st = trama()
        .args(["dump", "-j", "1", "-o"])
        .arg(&o)
        .arg(example())
        .status()
        .unwrap();
    assert!(st.success());
    assert_eq!(std::fs::read(&o).unwrap(), reference);

    let mut streamed: Vec<Vec<u8>> = dump_of(&example(), &["--stream"])
        .split(|&b| b == b'\n')
        .map(|l| l.to_vec())
        .collect();
    let mut sorted: Vec<Vec<u8>> = reference
        .split(|&b| b == b'\n')
        .map(|l| l.to_vec())
        .collect();
    streamed.sort();
    sorted.sort();
    assert_eq!(streamed, sorted);
}

#[test]
fn header_flag_and_help_do_not_collide() {
    let out = String::from_utf8(dump_of(&example(), &["-h", "-u"])).unwrap();
    assert!(out.starts_with("Container, Parent, Type, Start, End, Duration, Name\n"));
    assert!(out.contains(
        "Link, Container, Type, Start, End, Duration, Value, StartContainer, EndContainer, Size\n"
    ));
    let help = stdout_of(&["dump", "--help"]);
    let text = String::from_utf8_lossy(&help);
    assert!(
        text.contains("--stream") && text.contains("--strip-quotes"),
        "{text}"
    );
}

#[test]
fn errors_exit_1_with_file_and_line_and_no_output() {
    let dir = tempfile::tempdir().unwrap();
    let mut text = std::fs::read_to_string(example()).unwrap();
    text.push_str("12 9.0 S r9\n");
    let bad = write_in(dir.path(), "bad.paje", &text);
    let out = trama().arg("dump").arg(&bad).output().unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert!(out.stdout.is_empty());
    let err = String::from_utf8_lossy(&out.stderr);
    let line = text.lines().count();
    assert!(
        err.contains(&format!("bad.paje:{line}:")) && err.contains("'r9'"),
        "{err}"
    );

    let missing = trama()
        .args(["dump", "/nonexistent/trace.paje"])
        .output()
        .unwrap();
    assert_eq!(missing.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&missing.stderr).contains("/nonexistent/trace.paje"));
}

/// A trace whose dump is far larger than a pipe buffer.
fn big_trace(dir: &Path) -> PathBuf {
    let mut t = String::from(
        "%EventDef PajeDefineContainerType 0\n% Alias string\n% Type string\n% Name string\n%EndEventDef\n\
         %EventDef PajeDefineStateType 1\n% Alias string\n% Type string\n% Name string\n%EndEventDef\n\
         %EventDef PajeCreateContainer 2\n% Time date\n% Alias string\n% Type string\n% Container string\n% Name string\n%EndEventDef\n\
         %EventDef PajeSetState 3\n% Time date\n% Type string\n% Container string\n% Value string\n%EndEventDef\n\
         0 P 0 Proc\n1 S P State\n2 0 p P 0 p\n",
    );
    for i in 0..100_000 {
        t.push_str(&format!(
            "3 {i} S p {}\n",
            if i % 2 == 0 { "run" } else { "wait" }
        ));
    }
    write_in(dir, "big.paje", t)
}

#[test]
fn a_closed_pipe_ends_quietly() {
    let dir = tempfile::tempdir().unwrap();
    let big = big_trace(dir.path());
    for stream in [false, true] {
        let mut cmd = trama();
        cmd.arg("dump");
        if stream {
            cmd.arg("--stream");
        }
        let mut child = cmd
            .arg(&big)
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        // Read a little, then close our end long before the dump is done.
        let mut stdout = child.stdout.take().unwrap();
        let mut some = [0u8; 1000];
        std::io::Read::read_exact(&mut stdout, &mut some).unwrap();
        drop(stdout);
        let out = child.wait_with_output().unwrap();
        assert!(out.status.success(), "{:?}", out.status);
        assert!(
            out.stderr.is_empty(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
}

#[test]
fn check_and_quiet_validate_without_dumping() {
    let out = run_ok(trama().args(["dump", "-q"]).arg(example()));
    assert!(out.stdout.is_empty());
    let out = run_ok(trama().arg("check").arg(example()));
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains("72 states, 6 events, 26 variable values, 24 links"),
        "{text}"
    );
}

/// With -z a list may lose every entity (its only link never completed):
/// the dump must still work, with any number of threads.
#[test]
fn ignored_incomplete_links_can_empty_a_list() {
    let dir = tempfile::tempdir().unwrap();
    let path = write_in(
        dir.path(),
        "z.paje",
        "%EventDef PajeDefineContainerType 0\n% Alias string\n% Type string\n% Name string\n%EndEventDef\n\
         %EventDef PajeDefineLinkType 1\n% Alias string\n% Type string\n% StartContainerType string\n\
         % EndContainerType string\n% Name string\n%EndEventDef\n\
         %EventDef PajeCreateContainer 2\n% Time date\n% Alias string\n% Type string\n% Container string\n\
         % Name string\n%EndEventDef\n\
         %EventDef PajeStartLink 3\n% Time date\n% Type string\n% Container string\n% StartContainer string\n\
         % Value string\n% Key string\n%EndEventDef\n\
         0 P 0 P\n1 L 0 P P L\n2 0 p1 P 0 p1\n3 1 L 0 p1 v k1\n",
    );
    let want = "Container, 0, 0, 0, 1, 1, 0\nContainer, 0, P, 0, 1, 1, p1\n";
    for threads in ["1", "3"] {
        let out = run_ok(trama().args(["dump", "-z", "-j", threads]).arg(&path));
        assert_eq!(String::from_utf8_lossy(&out.stdout), want);
        assert!(String::from_utf8_lossy(&out.stderr).contains("1 incomplete link(s)"));
    }
}

/// `trama stats states` in its three formats: the JSON and CSV forms are
/// stable (documented in trama-analysis) and agree with each other.
#[test]
fn stats_states_formats_agree() {
    let rows = csv_rows(
        "states",
        "container,container_type,containers,state_type,value,count,total,exclusive,inclusive,mean,max,share",
    );
    assert!(!rows.is_empty());
    let json = stats_of(&["--format", "json"]);
    assert!(json.trim_start().starts_with('{') && json.trim_end().ends_with('}'));
    // As many rows in the JSON as in the CSV, each with every field.
    assert_eq!(json.matches("\"exclusive\":").count(), rows.len());
    assert_eq!(json.matches("\"container_type\":").count(), rows.len());
    assert!(json.contains("\"imbalance\": ["));
    // Exclusive never exceeds total; shares are fractions.
    for r in &rows {
        let f: Vec<&str> = r.rsplitn(8, ',').collect();
        let (share, total, excl): (f64, f64, f64) = (
            f[0].parse().unwrap(),
            f[5].parse().unwrap(),
            f[4].parse().unwrap(),
        );
        assert!(
            excl <= total + 1e-9 && (0.0..=1.0 + 1e-9).contains(&share),
            "{r}"
        );
    }
    let table = stats_of(&["states", "--window", "1:2"]);
    assert!(table.starts_with("Time per state over [1, 2]"), "{table}");
    assert!(table.contains("Load imbalance"));
    // Bad arguments are named.
    for (args, what) in [
        (&["--window", "5"][..], "START:END"),
        (&["--window", "3:1"][..], "before"),
        (&["--level", "Nope"][..], "Nope"),
    ] {
        stats_fails(args, what);
    }
}

/// `trama stats comm` and `order`: CSV headers, JSON documents, and the
/// sums agree with the number of links.
#[test]
fn stats_comm_and_order() {
    let links = example_links();
    let rows = csv_rows("comm", "from,to,count,bytes,rate");
    let sum: u64 = rows
        .iter()
        .map(|l| l.split(',').nth(2).unwrap().parse::<u64>().unwrap())
        .sum();
    assert_eq!(sum, links);
    let json = stats_of(&["comm", "--format", "json"]);
    assert!(json.contains("\"pairs\": [") && json.contains("\"containers\": ["));
    // Without --level the hosts' type is chosen from the trace, and said.
    assert!(stats_of(&["order"]).contains("containers of type Node (chosen from the trace"));
}

/// `trama stats wait`: each waiting container's shares of its waiting add
/// up to 1 (no cell of the ring example is under the 0.1 % cut). The ring
/// has no wait state (every receive starts after its send): its waits are
/// those of its receives, attributed to the last message.
#[test]
fn stats_wait_shares_add_up() {
    let csv = stats_of(&["wait", "--last-message", "--format", "csv"]);
    let mut lines = csv.lines();
    assert_eq!(
        lines.next(),
        Some("container,sender,seconds,share_of_time,share_of_waiting")
    );
    let rows: Vec<String> = lines.map(String::from).collect();
    let mut sums: std::collections::BTreeMap<String, f64> = Default::default();
    for l in &rows {
        let f: Vec<&str> = l.split(',').collect();
        *sums.entry(f[0].to_string()).or_default() += f[4].parse::<f64>().unwrap();
    }
    assert_eq!(sums.len(), 4, "{rows:?}");
    for (c, s) in sums {
        assert!((s - 1.0).abs() < 1e-9, "{c}: {s}");
    }
}

/// `trama stats slices` and `kiviat`: messages sent over all slices are the
/// trace's links; the last instant's shares add up to 1.
#[test]
fn stats_slices_and_kiviat() {
    let links = example_links();
    let csv = stats_of(&["slices", "--slices", "7", "--format", "csv"]);
    let mut lines = csv.lines();
    let head: Vec<&str> = lines.next().unwrap().split(',').collect();
    assert_eq!(&head[..3], ["slice", "start", "container"]);
    let sent = head.iter().position(|h| *h == "sent").unwrap();
    let mut total = 0;
    for l in lines {
        let f: Vec<&str> = l.split(',').collect();
        assert!(f[0].parse::<usize>().unwrap() < 7);
        total += f[sent].parse::<u64>().unwrap();
    }
    assert_eq!(total, links);
    let csv = stats_of(&["kiviat", "--level", "Node", "--format", "csv"]);
    let last = csv.lines().last().unwrap();
    let sum: f64 = last
        .split(',')
        .skip(1)
        .map(|v| v.parse::<f64>().unwrap())
        .sum();
    assert!((sum - 1.0).abs() < 1e-9, "{csv}");
    assert_eq!(csv.lines().count(), 11, "header and 10 instants");
}

/// `trama stats graph`: the ring example's four processes form a cycle.
#[test]
fn stats_graph_of_the_ring() {
    let text = stats_of(&["graph", "--format", "csv"]);
    let nodes = text.lines().filter(|l| l.starts_with("node,")).count();
    let edges: Vec<&str> = text.lines().filter(|l| l.starts_with("edge,")).collect();
    assert_eq!((nodes, edges.len()), (4, 4), "{text}");
    for n in text.lines().filter(|l| l.starts_with("node,")) {
        let f: Vec<f64> = n
            .split(',')
            .skip(2)
            .take(2)
            .map(|v| v.parse().unwrap())
            .collect();
        assert!(f.iter().all(|v| (0.0..=1.0).contains(v)), "{n}");
    }
}

/// `trama render` draws every view of the example as SVG (and PNG), and
/// `trama report` puts them in one self-contained HTML file.
#[test]
fn render_views_and_report() {
    let dir = tempfile::tempdir().unwrap();
    for (view, extra) in [
        ("space-time", &[][..]),
        ("traffic-matrix", &[][..]),
        ("wait-matrix", &["--min", "0", "--max", "0.5"][..]),
        ("graph", &[][..]),
        ("kiviat", &["--level", "Node"][..]),
        ("mapping", &["--level", "Node"][..]),
        ("mapping", &["--level", "Node", "--at", "0.33"][..]),
        ("process", &["--process", "rank-1"][..]),
    ] {
        let out = dir.path().join(format!("{view}.svg"));
        run_ok(&mut render(view, &out, extra));
        let svg = std::fs::read_to_string(&out).unwrap();
        assert!(
            svg.starts_with("<svg") && svg.trim_end().ends_with("</svg>"),
            "{view}"
        );
    }
    let png = dir.path().join("st.png");
    run_ok(&mut render("space-time", &png, &[]));
    assert_eq!(&std::fs::read(&png).unwrap()[1..4], b"PNG");
    let bad = render("space-time", Path::new("x.gif"), &[])
        .output()
        .unwrap();
    assert_eq!(bad.status.code(), Some(1));

    let html = dir.path().join("r.html");
    run_ok(trama().arg("report").arg(example()).arg("-o").arg(&html));
    let text = std::fs::read_to_string(&html).unwrap();
    assert_eq!(text.matches("<svg").count(), 7);
    for h in [
        "Space-time view",
        "Who waited for whom",
        "Time per state",
        "Compute",
    ] {
        assert!(text.contains(h), "{h}");
    }
    // Nothing to fetch: scripts are inline, no external resource, and the
    // page's policy forbids fetching.
    assert!(!text.contains("src=") && !text.contains("<link"));
    assert!(text
        .split("http://www.w3.org/2000/svg")
        .all(|part| !part.contains("http://") && !part.contains("https://")));
    assert!(text.contains("content=\"default-src 'none'"));
    assert!(text.contains("id=\"trama-tiles\""));
}

/// `trama render VIEW` of the example into `out`, with `extra` arguments.
fn render(view: &str, out: &Path, extra: &[&str]) -> Command {
    let mut cmd = trama();
    cmd.args(["render", view])
        .arg(example())
        .arg("-o")
        .arg(out)
        .args(extra);
    cmd
}

/// `trama stats` on the example with `args`.
fn stats_cmd(args: &[&str]) -> Command {
    let mut cmd = trama();
    cmd.arg("stats").arg(example()).args(args);
    cmd
}

/// `trama stats` on the example with `args` fails (exit code 1), saying
/// `what`.
fn stats_fails(args: &[&str], what: &str) {
    let out = stats_cmd(args).output().unwrap();
    assert_eq!(out.status.code(), Some(1), "{args:?}");
    assert!(
        String::from_utf8_lossy(&out.stderr).contains(what),
        "{args:?}"
    );
}

/// The rows of `trama stats ANALYSIS --format csv` on the example, after
/// its header, which must be `header`.
fn csv_rows(analysis: &str, header: &str) -> Vec<String> {
    let csv = stats_of(&[analysis, "--format", "csv"]);
    let mut lines = csv.lines();
    assert_eq!(lines.next(), Some(header), "{analysis}");
    lines.map(String::from).collect()
}

/// `trama stats` on the example with `args`; its standard output.
fn stats_of(args: &[&str]) -> String {
    String::from_utf8(run_ok(&mut stats_cmd(args)).stdout).unwrap()
}

/// A process substitution and a named FIFO are read once, as they come:
/// they give the file's dump (they used to be rejected, or to wait for a
/// second writer, when the path was opened again after looking at it).
#[test]
fn process_substitution_and_fifo_are_read_once() {
    let want = dump_of(&example(), &[]);
    let bin = env!("CARGO_BIN_EXE_trama");
    let script = format!("'{bin}' dump <(cat '{}')", example().display());
    if let Ok(out) = Command::new("bash").arg("-c").arg(&script).output() {
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        assert!(out.stdout == want, "<(…) dumps differently");
    }
    let tmp = tempfile::tempdir().unwrap();
    let Some(fifo) = common::fifo_in(tmp.path(), "FIFO case") else {
        return;
    };
    for args in [&["dump"][..], &["check"], &["convert", "--to", "ptb"]] {
        let writer = {
            let fifo = fifo.clone();
            std::thread::spawn(move || std::fs::write(fifo, std::fs::read(example()).unwrap()))
        };
        let mut cmd = trama();
        cmd.args(args).arg(&fifo);
        let ptb = tmp.path().join("fifo.ptb");
        if args[0] == "convert" {
            cmd.arg(&ptb);
        }
        let out = cmd.output().expect("run trama");
        writer.join().unwrap().unwrap();
        assert!(
            out.status.success(),
            "{args:?}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        match args[0] {
            "dump" => assert!(out.stdout == want, "a FIFO dumps differently"),
            "convert" => assert!(dump_of(&ptb, &[]) == want, "a FIFO converts differently"),
            _ => assert!(String::from_utf8_lossy(&out.stdout).contains("valid Pajé trace")),
        }
    }
}

/// Every subcommand takes its input as `trama VERB [KIND] FILE`; `stats`
/// also takes the earlier `FILE ANALYSIS` order, with the same output.
#[test]
fn stats_takes_the_analysis_before_or_after_the_file() {
    let run = stdout_of;
    let ex = example();
    let file = ex.to_str().unwrap();
    for analysis in ["states", "comm", "wait", "graph"] {
        let before = run(&["stats", analysis, file, "--format", "csv"]);
        let after = run(&["stats", file, analysis, "--format", "csv"]);
        assert!(!before.is_empty());
        assert!(before == after, "{analysis}: the two orders differ");
    }
    assert!(run(&["stats", file]) == run(&["stats", "states", file]));
    let out = trama().args(["stats", "nothing", file]).output().unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("is an analysis"));
}

/// `trama view` of a trace it cannot read says why and exits 1 (it does
/// not serve a page with nothing to show).
#[test]
fn view_of_a_bad_trace_exits_with_its_error() {
    let tmp = tempfile::tempdir().unwrap();
    let bad = tmp.path().join("bad.paje");
    std::fs::write(
        &bad,
        "%EventDef PajeDefineContainerType 0\n% Alias string\n%EndEventDef\n0 X\n",
    )
    .unwrap();
    let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_trama"))
        .args(["view", bad.to_str().unwrap(), "--no-open", "--port", "0"])
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(60);
    let status = loop {
        if let Some(s) = child.try_wait().unwrap() {
            break s;
        }
        if std::time::Instant::now() > deadline {
            child.kill().ok();
            panic!("trama view kept running on a bad trace");
        }
        std::thread::sleep(std::time::Duration::from_millis(20));
    };
    let out = child.wait_with_output().unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(status.code(), Some(1), "{err}");
    assert!(err.contains("bad.paje") && err.contains("error"), "{err}");
}
