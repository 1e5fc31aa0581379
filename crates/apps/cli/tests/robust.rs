//! Damaged inputs never crash, hang or cost a file: real samples and the
//! PajeNG conformance traces, mutated (lines deleted, repeated, swapped or
//! moved, fields replaced by hostile values, bytes overwritten, files cut),
//! go through `check`, `dump -o`, `convert` and `merge`. Each run exits 0 or
//! 1, within a generous bound, without a panic; an output that existed
//! before is either replaced by a complete one (exit 0) or left untouched
//! (exit 1), and no temporary file is left beside it.

mod common;

use common::files;

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// What an output holds before a run: it must survive any failed run.
const PRECIOUS: &[u8] = b"precious: written before the run\n";

/// A run that takes longer than this is a hang.
const HANG: Duration = Duration::from_secs(120);

// xorshift64*: the same mutants on every run.
use trama_gen::XorShift as Rng;
use trama_testkit::http;

/// Values that break naive parsers.
const HOSTILE: [&str; 10] = [
    "",
    "-1",
    "1e309",
    "nan",
    "\"",
    "0x10",
    "99999999999999999999",
    "-0.000001",
    "\u{feff}7",
    "é\u{0}",
];

/// One mutant of `input` (text lines or raw bytes), and what was done.
fn mutate(input: &[u8], rng: &mut Rng) -> (Vec<u8>, String) {
    let mut lines: Vec<Vec<u8>> = input.split(|&b| b == b'\n').map(<[u8]>::to_vec).collect();
    let n = lines.len();
    let (i, j) = (rng.below(n), rng.below(n));
    let what = match rng.below(8) {
        0 => {
            lines.remove(i);
            format!("line {} deleted", i + 1)
        }
        1 => {
            let l = lines[i].clone();
            lines.insert(i, l);
            format!("line {} repeated", i + 1)
        }
        2 => {
            lines.swap(i, j);
            format!("lines {} and {} swapped", i + 1, j + 1)
        }
        3 => {
            let l = lines.remove(i);
            lines.insert(j.min(lines.len()), l);
            format!("line {} moved to {}", i + 1, j + 1)
        }
        4 => {
            let mut fields: Vec<&[u8]> = lines[i].split(|&b| b == b' ' || b == b'\t').collect();
            let f = rng.below(fields.len());
            let v = HOSTILE[rng.below(HOSTILE.len())];
            fields[f] = v.as_bytes();
            lines[i] = fields.join(&b' ');
            format!("line {} field {} = {v:?}", i + 1, f + 1)
        }
        5 => {
            let mut v = input.to_vec();
            let at = rng.below(v.len());
            v.truncate(at);
            return (v, format!("cut at byte {at}"));
        }
        6 => {
            let mut v = input.to_vec();
            let at = rng.below(v.len());
            let b = rng.next() as u8;
            if let Some(x) = v.get_mut(at) {
                *x = b;
            }
            return (v, format!("byte {at} = {b:#04x}"));
        }
        _ => {
            let mut v = input.to_vec();
            let at = rng.below(v.len());
            let len = 1 + rng.below(16).min(v.len().saturating_sub(at));
            let end = (at + len).min(v.len());
            v[at..end].fill(0);
            return (v, format!("bytes {at}..{end} zeroed"));
        }
    };
    (lines.join(&b'\n'), what)
}

/// Runs trama with `args`: its exit code and standard error, or a
/// failure when it hangs or is killed by a signal.
fn run(args: &[&str]) -> Result<(i32, String), String> {
    let mut child = Command::new(env!("CARGO_BIN_EXE_trama"))
        .args(args)
        .arg("--no-progress")
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .expect("run trama");
    let mut stderr = child.stderr.take().unwrap();
    let reader = std::thread::spawn(move || {
        let mut s = String::new();
        std::io::Read::read_to_string(&mut stderr, &mut s).ok();
        s
    });
    let start = Instant::now();
    let status = loop {
        if let Some(s) = child.try_wait().unwrap() {
            break s;
        }
        if start.elapsed() > HANG {
            child.kill().ok();
            child.wait().ok();
            return Err(format!("still running after {HANG:?}"));
        }
        std::thread::sleep(Duration::from_millis(5));
    };
    let err = reader.join().unwrap();
    match status.code() {
        Some(c @ (0 | 1)) if !err.contains("panicked") => Ok((c, err)),
        Some(c) => Err(format!("exit {c}: {err}")),
        None => Err(format!("killed by a signal ({status:?}): {err}")),
    }
}

fn s(p: &Path) -> &str {
    p.to_str().unwrap()
}

/// Runs `args` (whose output is `out`, made precious first) and checks the
/// rules: exit 0 or 1 without a panic or hang; after exit 1 the output is
/// untouched, after exit 0 `complete` accepts it; nothing else left in the
/// output's folder. The exit code, or a description of what went wrong.
fn guarded(args: &[&str], out: &Path, complete: impl Fn(&[u8]) -> bool) -> Result<i32, String> {
    std::fs::write(out, PRECIOUS).unwrap();
    let dir = out.parent().unwrap();
    let before = files(dir);
    let (code, err) = run(args)?;
    let now = std::fs::read(out).map_err(|e| format!("output gone: {e}"))?;
    if code == 1 && now != PRECIOUS {
        return Err(format!("failed and changed its output: {err}"));
    }
    if code == 0 && !complete(&now) {
        return Err("succeeded with an incomplete output".into());
    }
    if files(dir) != before {
        return Err(format!("left {:?} (had {before:?})", files(dir)));
    }
    Ok(code)
}

/// Puts one mutant through check, dump -o, and convert (to `.ptb` from
/// text, to text from `.ptb`); failures are pushed to `failures`. Whether
/// `check` accepts the mutant.
fn try_trace(
    mutant: &Path,
    ext: &str,
    what: &str,
    work: &Path,
    failures: &mut Vec<String>,
) -> bool {
    let name = format!("{} ({what})", mutant.display());
    let checked = match run(&["check", s(mutant)]) {
        Ok((c, _)) => c == 0,
        Err(e) => {
            failures.push(format!("{name}: check: {e}"));
            return false;
        }
    };
    // dump -o: a complete output is what dump prints to standard output.
    let csv = work.join("out.csv");
    let full = Command::new(env!("CARGO_BIN_EXE_trama"))
        .args(["dump", s(mutant)])
        .output()
        .unwrap();
    let dumped = guarded(&["dump", s(mutant), "-o", s(&csv)], &csv, |b| {
        b == full.stdout
    });
    match dumped {
        Ok(c) if (c == 0) != checked => {
            failures.push(format!("{name}: check says {checked}, dump exits {c}"))
        }
        Ok(_) => {}
        Err(e) => failures.push(format!("{name}: dump -o: {e}")),
    }
    // A conversion keeps every event, even of a trace the simulation
    // rejects (with a warning): complete means the same verdict as its
    // input's.
    let to = if ext == "ptb" { "out.paje" } else { "out.ptb" };
    let conv = work.join(to);
    let same_verdict =
        |_: &[u8]| matches!(run(&["check", s(&conv)]), Ok((c, _)) if (c == 0) == checked);
    if let Err(e) = guarded(&["convert", s(mutant), s(&conv)], &conv, same_verdict) {
        failures.push(format!("{name}: convert: {e}"));
    }
    checked
}

/// The Pajé traces to mutate: every conformance trace and the real
/// samples.
fn traces(shared: &Path) -> Vec<PathBuf> {
    let conf = shared.join("conformance/pajeng");
    let mut v: Vec<PathBuf> = std::fs::read_dir(&conf)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "trace"))
        .collect();
    v.sort();
    let real = shared.join("samples/paje-real");
    for rel in common::REAL_ACCEPTED {
        v.push(real.join(rel));
    }
    v
}

/// A temporary directory and its empty subdirectory `out`, where the runs
/// write.
fn temp_with_out() -> (tempfile::TempDir, PathBuf) {
    let tmp = tempfile::tempdir().unwrap();
    let work = tmp.path().join("out");
    std::fs::create_dir(&work).unwrap();
    (tmp, work)
}

#[test]
fn mutated_text_traces_never_crash_hang_or_cost_a_file() {
    let Some(shared) = common::shared_dir() else {
        return;
    };
    let (tmp, work) = temp_with_out();
    let mut rng = Rng(0x7a3a_5eed);
    let (mut failures, mut tried, mut accepted) = (Vec::new(), 0, 0);
    for trace in traces(&shared) {
        let text = std::fs::read(&trace).unwrap();
        for k in 0..4 {
            let (bytes, what) = mutate(&text, &mut rng);
            let mutant = tmp.path().join(format!(
                "{}.{k}.paje",
                trace.file_stem().unwrap().to_string_lossy()
            ));
            std::fs::write(&mutant, &bytes).unwrap();
            tried += 1;
            accepted += usize::from(try_trace(&mutant, "paje", &what, &work, &mut failures));
        }
    }
    common::assert_none_failed(&failures, &format!("{tried} mutated traces"));
    // Both verdicts occur: the mutations neither all break nor all spare.
    assert!(
        accepted > 0 && accepted < tried,
        "{accepted} of {tried} accepted"
    );
}

#[test]
fn mutated_binary_traces_never_crash_hang_or_cost_a_file() {
    let Some(shared) = common::shared_dir() else {
        return;
    };
    let (tmp, work) = temp_with_out();
    let mut rng = Rng(0xb1_0a7);
    let (mut failures, mut tried, mut accepted) = (Vec::new(), 0, 0);
    let real = shared.join("samples/paje-real");
    for rel in common::REAL_ACCEPTED {
        let ptb = tmp.path().join("valid.ptb");
        let made = run(&["convert", s(&real.join(rel)), s(&ptb)]);
        assert!(matches!(made, Ok((0, _))), "{rel}: {made:?}");
        let bin = std::fs::read(&ptb).unwrap();
        for k in 0..12 {
            // Bytes, not lines: a binary file has few newlines.
            let (bytes, what) = loop {
                let (b, w) = mutate(&bin, &mut rng);
                if w.starts_with("byte") || w.starts_with("cut") {
                    break (b, w);
                }
            };
            let mutant = tmp.path().join(format!("m{k}.ptb"));
            std::fs::write(&mutant, &bytes).unwrap();
            tried += 1;
            accepted += usize::from(try_trace(&mutant, "ptb", &what, &work, &mut failures));
        }
    }
    common::assert_none_failed(&failures, &format!("{tried} mutated .ptb files"));
    assert!(accepted < tried, "{accepted} of {tried} accepted");
}

fn data(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data/integration")
        .join(name)
}

#[test]
fn mutated_merge_sources_never_crash_hang_or_cost_a_file() {
    let (tmp, work) = temp_with_out();
    let plan = tmp.path().join("plan.toml");
    std::fs::write(
        &plan,
        format!(
            "hierarchy = [\"cluster\", \"host\", \"process\"]\n[top]\ncluster = \"paple\"\n\
             [branches]\ncpu = \"host\"\n\
             [[source]]\nname = \"mpi\"\nkind = \"clog2\"\nlevels = {{ rank = \"process\" }}\n\
             machinefile = \"{}\"\n\
             [[source]]\nname = \"os\"\nkind = \"sched\"\nhost = \"paple01\"\n\
             levels = {{ thread = \"process\" }}\n\
             [[source]]\nname = \"ganglia\"\nkind = \"ganglia\"\n",
            s(&data("mpd.hosts"))
        ),
    )
    .unwrap();
    let originals = [
        (
            "mpi",
            "clog2",
            std::fs::read(data("pingpong.clog2")).unwrap(),
        ),
        (
            "os",
            "txt",
            std::fs::read(data("ftrace-paple01.txt")).unwrap(),
        ),
        (
            "ganglia",
            "log",
            std::fs::read(data("ganglia.log")).unwrap(),
        ),
    ];
    let mut rng = Rng(0x3e_26e);
    let (mut failures, mut tried, mut merged) = (Vec::new(), 0, 0);
    for k in 0..36 {
        // One source damaged, the others intact.
        let damaged = k % originals.len();
        let mut args = vec!["merge".to_string(), "--plan".into(), s(&plan).into()];
        let mut what = String::new();
        for (i, (name, ext, bytes)) in originals.iter().enumerate() {
            let file = tmp.path().join(format!("{name}.{ext}"));
            if i == damaged {
                let (b, w) = mutate(bytes, &mut rng);
                std::fs::write(&file, b).unwrap();
                what = format!("{name}: {w}");
            } else {
                std::fs::write(&file, bytes).unwrap();
            }
            args.push(format!("{name}={}", s(&file)));
        }
        for ext in ["paje", "ptb"] {
            let out = work.join(format!("merged.{ext}"));
            let mut a: Vec<&str> = args.iter().map(String::as_str).collect();
            a.extend(["-o", s(&out)]);
            let valid = |_: &[u8]| matches!(run(&["check", s(&out)]), Ok((0, _)));
            tried += 1;
            match guarded(&a, &out, valid) {
                Ok(c) => merged += usize::from(c == 0),
                Err(e) => failures.push(format!("{what} → .{ext}: {e}")),
            }
        }
    }
    common::assert_none_failed(&failures, &format!("{tried} merges of damaged sources"));
    assert!(merged > 0, "no merge succeeded");
}

/// Runs trama with `args` and its standard output into `stdout`: the exit
/// code and standard error.
fn run_into(args: &[&str], stdout: Stdio) -> (Option<i32>, String) {
    let o = Command::new(env!("CARGO_BIN_EXE_trama"))
        .args(args)
        .stdin(Stdio::null())
        .stdout(stdout)
        .stderr(Stdio::piped())
        .output()
        .expect("run trama");
    (
        o.status.code(),
        String::from_utf8_lossy(&o.stderr).into_owned(),
    )
}

/// A trace whose every output is megabytes long: writers fail in the
/// middle of the simulation, not only at their last flush.
fn large_trace(dir: &Path) -> PathBuf {
    let trace = dir.join("large.paje");
    let mut o = trama_gen::GenOptions::default();
    o.events = 200_000;
    o.destroy_containers = false;
    std::fs::write(&trace, trama_gen::generate(7, &o)).unwrap();
    trace
}

/// A plan merging the example trace as one source.
fn example_plan(dir: &Path) -> (PathBuf, String) {
    let plan = dir.join("plan.toml");
    std::fs::write(
        &plan,
        "hierarchy = [\"site\", \"node\", \"rank\"]\nhost_level = \"node\"\n[top]\nsite = \"lab\"\n\
         [[source]]\nname = \"a\"\nkind = \"paje\"\nlevels = { Node = \"node\", Rank = \"rank\" }\n",
    )
    .unwrap();
    let example = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../examples/ring.paje");
    (plan, format!("a={}", example.display()))
}

/// Every command that writes, each writing `out` (an output named for
/// its format by `out(ext)`), reading `trace` (`ptb` for `info`).
fn writing_commands(
    trace: &Path,
    ptb: &Path,
    plan: &(PathBuf, String),
    out: impl Fn(&str) -> PathBuf,
) -> Vec<(Vec<String>, PathBuf)> {
    let t = s(trace).to_string();
    let merge = ["merge", "--plan", s(&plan.0), &plan.1];
    let cases: Vec<(&[&str], &str, &str)> = vec![
        (&["export", "perfetto"], "perfetto-trace", "t"),
        (&["export", "chrome-json"], "json", "t"),
        (&["dump"], "csv", "t"),
        (&["dump", "--stream"], "csv", "t"),
        (&["dump", "--stream", "-j", "1"], "csv", "t"),
        (&["convert", "--to", "ptb"], "ptb", "t"),
        (&["convert", "--to", "rastro"], "rst", "t"),
        (&["convert", "--to", "paje"], "paje", "p"),
        (&["stats", "slices", "--slices", "5000"], "txt", "t"),
        (&["render", "space-time"], "svg", "t"),
        (&["report"], "html", "t"),
        (&merge, "paje", ""),
    ];
    cases
        .into_iter()
        .map(|(cmd, ext, input)| {
            let o = out(ext);
            let mut args: Vec<String> = cmd.iter().map(|a| a.to_string()).collect();
            match input {
                "t" => args.push(t.clone()),
                "p" => args.push(s(ptb).to_string()),
                _ => {}
            }
            args.extend(["-o".into(), s(&o).into(), "--no-progress".into()]);
            (args, o)
        })
        .collect()
}

/// Regression: on a full device (`/dev/full`) `export perfetto`, `export
/// chrome-json` and `dump --stream` exited 0 having written nothing, their
/// write error taken for a closed pipe. Every command that writes fails,
/// exit 1, naming its output and the reason; standard output alike.
#[test]
fn a_write_error_is_an_error_naming_the_output() {
    if !Path::new("/dev/full").exists() {
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    let trace = large_trace(tmp.path());
    let ptb = tmp.path().join("large.ptb");
    assert!(matches!(run(&["convert", s(&trace), s(&ptb)]), Ok((0, _))));
    let plan = example_plan(tmp.path());
    // The device under a name that tells the format.
    let full = |ext: &str| {
        let link = tmp.path().join(format!("full.{ext}"));
        if !link.exists() {
            std::os::unix::fs::symlink("/dev/full", &link).unwrap();
        }
        link
    };
    let mut failures = Vec::new();
    for (args, out) in writing_commands(&trace, &ptb, &plan, full) {
        let a: Vec<&str> = args.iter().map(String::as_str).collect();
        let (code, err) = run_into(&a, Stdio::null());
        let named = format!("writing {}: No space left on device", out.display());
        if code != Some(1) || !err.contains(&named) {
            failures.push(format!("{args:?}: exit {code:?}: {err}"));
        }
    }
    // Standard output on the device.
    let t = s(&trace);
    for args in [
        &["dump", t][..],
        &["dump", "--stream", t],
        &["check", t],
        &["stats", "slices", "--slices", "5000", t],
        &["export", "chrome-json", t, "-o", "-"],
        &["convert", t, "-", "--to", "ptb"],
        &["info", "--frames", s(&ptb)],
    ] {
        let dev = std::fs::OpenOptions::new()
            .write(true)
            .open("/dev/full")
            .unwrap();
        let (code, err) = run_into(args, Stdio::from(dev));
        if code != Some(1) || !err.contains("writing standard output: No space left on device") {
            failures.push(format!("{args:?} > /dev/full: exit {code:?}: {err}"));
        }
    }
    common::assert_none_failed(&failures, "writes to /dev/full");
}

/// A small tmpfs mounted on a folder, unmounted when dropped.
struct SmallDisk(PathBuf);

impl SmallDisk {
    /// Mounts one of `bytes` on `dir`; `None` where mounting is not
    /// allowed (not root, no mount command).
    fn mount(dir: &Path, bytes: usize) -> Option<SmallDisk> {
        std::fs::create_dir_all(dir).unwrap();
        let size = format!("size={bytes}");
        let ok = Command::new("mount")
            .args(["-t", "tmpfs", "-o", &size, "tmpfs", s(dir)])
            .stderr(Stdio::null())
            .status()
            .is_ok_and(|st| st.success());
        ok.then(|| SmallDisk(dir.to_path_buf()))
    }
}

impl Drop for SmallDisk {
    fn drop(&mut self) {
        let _ = Command::new("umount").arg(&self.0).status();
    }
}

/// Regression: a full disk made `export perfetto`, `export chrome-json`
/// and `dump --stream` exit 0 with nothing written. On a small tmpfs
/// (where this test may mount one) every command that writes fails,
/// naming its output, leaves the output as it was and no temporary file.
#[test]
fn a_full_disk_is_an_error_that_costs_no_file() {
    let tmp = tempfile::tempdir().unwrap();
    let Some(disk) = SmallDisk::mount(&tmp.path().join("disk"), 64 << 10) else {
        eprintln!("no tmpfs can be mounted here: the full disk is not tried");
        return;
    };
    let trace = large_trace(tmp.path());
    let ptb = tmp.path().join("large.ptb");
    assert!(matches!(run(&["convert", s(&trace), s(&ptb)]), Ok((0, _))));
    let plan = example_plan(tmp.path());
    let on_disk = |ext: &str| disk.0.join(format!("out.{ext}"));
    let mut failures = Vec::new();
    let mut cases = writing_commands(&trace, &ptb, &plan, on_disk);
    // The merge's text (of the example) fits: /dev/full tries it.
    cases.retain(|(args, _)| args[0] != "merge");
    let parquet = disk.0.join("tables");
    cases.push((
        [
            "export",
            "parquet",
            s(&trace),
            "-o",
            s(&parquet),
            "--no-progress",
        ]
        .map(String::from)
        .to_vec(),
        parquet.clone(),
    ));
    for (args, out) in cases {
        let a: Vec<&str> = args.iter().map(String::as_str).collect();
        let is_dir = args[1] == "parquet";
        if !is_dir {
            std::fs::write(&out, PRECIOUS).unwrap();
        }
        let before = files(&disk.0);
        let (code, err) = run_into(&a, Stdio::null());
        let named = format!("writing {}", out.display());
        if code != Some(1) || !err.contains(&named) || !err.contains("No space left on device") {
            failures.push(format!("{args:?}: exit {code:?}: {err}"));
        }
        if !is_dir && std::fs::read(&out).unwrap() != PRECIOUS {
            failures.push(format!("{args:?}: its output changed"));
        }
        if files(&disk.0) != before {
            failures.push(format!("{args:?}: left {:?}", files(&disk.0)));
        }
        if !is_dir {
            std::fs::remove_file(&out).unwrap();
        }
    }
    common::assert_none_failed(&failures, "writes to a full disk");
}

/// The example trace with `n` more state changes at its end, before its
/// containers are destroyed.
fn long_example(n: usize) -> Vec<u8> {
    let example = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../examples/ring.paje");
    let text = std::fs::read_to_string(example).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    let end = lines.iter().position(|l| l.starts_with("7 ")).unwrap();
    let mut out = lines[..end].join("\n");
    for i in 0..n {
        let value = ["comp", "send", "recv"][i % 3];
        out.push_str(&format!("\n10 2.244289 S r{} {value}", i % 4));
    }
    for l in &lines[end..] {
        out.push('\n');
        out.push_str(l);
    }
    out.push('\n');
    out.into_bytes()
}

/// Regression: SIGTERM and SIGHUP (from `kill`, `timeout`, systemd, a
/// closed terminal) left the temporary output of every command (Ctrl-C
/// did not). Each command reads half a long trace from a FIFO, its
/// temporary output made, and gets the signal: it exits with 128 + the
/// signal's number, the output as it was and no temporary beside it.
#[test]
fn a_terminated_command_leaves_no_temporary_output() {
    let tmp = tempfile::tempdir().unwrap();
    let Some(fifo) = common::fifo_in(tmp.path(), "termination case") else {
        return;
    };
    let text = long_example(200_000);
    let out_dir = tmp.path().join("out");
    std::fs::create_dir(&out_dir).unwrap();
    let (plan, _) = example_plan(tmp.path());
    let source = format!("a={}", s(&fifo));
    let f = s(&fifo);
    let cases: [(&[&str], &str); 8] = [
        (&["export", "perfetto", f], "t.perfetto-trace"),
        (&["export", "chrome-json", f], "t.json"),
        (&["export", "parquet", f], "tables"),
        (&["dump", f], "t.csv"),
        (&["dump", "--stream", f], "t.csv"),
        (&["convert", f, "--to", "ptb"], "t.ptb"),
        (&["convert", f, "--to", "rastro"], "t.rst"),
        (&["merge", "--plan", s(&plan), &source], "t.paje"),
    ];
    let mut failures = Vec::new();
    for (signal, code) in [("TERM", 143), ("HUP", 129)] {
        for (args, name) in cases {
            let out = out_dir.join(name);
            let dir = name == "tables";
            if !dir {
                std::fs::write(&out, PRECIOUS).unwrap();
            }
            let before = files(&out_dir);
            let mut child = Command::new(env!("CARGO_BIN_EXE_trama"))
                .args(args)
                .args(["-o", s(&out), "--no-progress"])
                .stdout(Stdio::null())
                .stderr(Stdio::piped())
                .spawn()
                .unwrap();
            // Half the trace, then the writer waits with the FIFO open.
            let mut writer = std::fs::OpenOptions::new().write(true).open(&fifo).unwrap();
            let _ = std::io::Write::write_all(&mut writer, &text[..text.len() / 2]);
            let temporary = || files(&out_dir).iter().any(|f| f.contains(".trama-"));
            let start = Instant::now();
            while !temporary() && start.elapsed() < Duration::from_secs(30) {
                std::thread::sleep(Duration::from_millis(20));
            }
            let what = format!("SIG{signal} to {args:?}");
            let made = temporary();
            let killed = Command::new("kill")
                .args([&format!("-{signal}"), &child.id().to_string()])
                .status()
                .unwrap();
            let status = child.wait().unwrap();
            drop(writer);
            let mut err = String::new();
            let _ = std::io::Read::read_to_string(child.stderr.as_mut().unwrap(), &mut err);
            if !made || !killed.success() || status.code() != Some(code) {
                failures.push(format!(
                    "{what}: temporary made {made}, exit {:?}: {err}",
                    status.code()
                ));
            }
            if files(&out_dir) != before {
                failures.push(format!("{what}: left {:?}", files(&out_dir)));
            }
            if !dir && std::fs::read(&out).unwrap() != PRECIOUS {
                failures.push(format!("{what}: its output changed"));
            }
        }
    }
    common::assert_none_failed(&failures, "terminated commands");
}

/// Runs one command of [`every_command`] and says what went wrong: an
/// exit other than 0 or 1, a panic, a hang, a signal (a stack overflow
/// aborts), or an exit 1 without a message.
fn one_command(args: &[&str], takes_progress_flag: bool) -> Result<i32, String> {
    let (code, err) = if takes_progress_flag {
        run(args)?
    } else {
        let out = Command::new(env!("CARGO_BIN_EXE_trama"))
            .args(args)
            .output()
            .unwrap();
        let err = String::from_utf8_lossy(&out.stderr).into_owned();
        match out.status.code() {
            Some(c @ (0 | 1)) if !err.contains("panicked") => (c, err),
            c => return Err(format!("exit {c:?}: {err}")),
        }
    };
    if code == 1 && !err.contains("error") {
        return Err(format!("exit 1 without an error message: {err}"));
    }
    Ok(code)
}

/// Runs every command that reads a trace on `trace` (and on its `.ptb`),
/// writing into `work`; a description of each failure, and the exit code
/// of each command (by its arguments).
fn every_command(trace: &Path, work: &Path) -> (Vec<String>, Vec<(String, i32)>) {
    let (mut failures, mut codes) = (Vec::new(), Vec::new());
    let t = s(trace);
    let out = |name: &str| work.join(name).to_str().unwrap().to_string();
    let (ptb, svg, html) = (out("deep.ptb"), out("out.svg"), out("out.html"));
    let mut runs: Vec<(Vec<String>, bool)> = Vec::new();
    let mut add = |args: &[&str], flag: bool| {
        runs.push((args.iter().map(|a| a.to_string()).collect(), flag));
    };
    add(&["check", t], true);
    add(&["dump", t, "-o", &out("out.csv")], true);
    add(&["dump", "--stream", t, "-o", &out("stream.csv")], true);
    add(&["convert", t, &ptb], true);
    add(&["info", &ptb], false);
    add(&["check", &ptb], true);
    add(&["dump", &ptb, "-o", &out("ptb.csv")], true);
    add(&["convert", &ptb, &out("back.paje")], true);
    add(&["convert", t, &out("out.rst")], true);
    add(
        &["convert", "--strings", "plain", t, &out("plain.rst")],
        true,
    );
    add(&["dump", &out("plain.rst"), "-o", &out("rst.csv")], true);
    for a in [
        "states", "comm", "order", "wait", "slices", "kiviat", "graph",
    ] {
        add(&["stats", a, t], true);
    }
    add(&["stats", "states", &ptb], true);
    for v in [
        "space-time",
        "traffic-matrix",
        "wait-matrix",
        "graph",
        "kiviat",
        "mapping",
        "process",
    ] {
        add(&["render", v, t, "-o", &svg], true);
    }
    add(&["render", "space-time", &ptb, "-o", &svg], true);
    add(&["report", t, "-o", &html], true);
    add(&["export", "perfetto", t, "-o", &out("out.pftrace")], true);
    add(&["export", "chrome-json", t, "-o", &out("out.json")], true);
    add(&["export", "parquet", t, "-o", &out("parquet")], true);
    for (args, flag) in &runs {
        let a: Vec<&str> = args.iter().map(String::as_str).collect();
        match one_command(&a, *flag) {
            Ok(c) => codes.push((args.join(" "), c)),
            Err(e) => failures.push(format!("trama {}: {e}", args.join(" "))),
        }
    }
    // The text and its .ptb read the same.
    let (a, b) = (std::fs::read(out("out.csv")), std::fs::read(out("ptb.csv")));
    if !matches!((&a, &b), (Ok(a), Ok(b)) if a == b) {
        failures.push("dump of the trace and of its .ptb differ".into());
    }
    (failures, codes)
}

/// Starts `trama view` on `trace`, asks for its meta and the whole run's
/// timeline, and stops it: what went wrong, if anything.
fn view_serves(trace: &Path) -> Result<(), String> {
    use std::io::{BufRead, BufReader};
    let mut child = Command::new(env!("CARGO_BIN_EXE_trama"))
        .args([
            "view",
            "--no-open",
            "--no-progress",
            "--port",
            "0",
            s(trace),
        ])
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut lines = BufReader::new(child.stdout.take().unwrap()).lines();
    let line = lines.next();
    // Keep reading what it prints (a closed pipe would stop it).
    std::thread::spawn(move || for _ in lines {});
    let url = match line {
        Some(Ok(l)) => l.split_whitespace().last().unwrap_or("").to_string(),
        _ => {
            let status = child.wait().unwrap();
            return Err(format!("never served ({status:?})"));
        }
    };
    let (addr, path) = http::url_parts(&url).unwrap_or(("", ""));
    let get = |what: &str| -> Result<String, String> {
        let r =
            http::get(addr, &format!("{path}{what}"), addr).map_err(|e| format!("{what}: {e}"))?;
        let r = String::from_utf8_lossy(&r).into_owned();
        match r.lines().next() {
            Some(status) if status.contains(" 200 ") => Ok(r),
            status => Err(format!("{what}: {status:?}")),
        }
    };
    let deadline = Instant::now() + HANG;
    let result = (|| {
        while !get("api/progress")?.contains("\"ready\"") {
            if Instant::now() > deadline {
                return Err("never ready".to_string());
            }
            std::thread::sleep(Duration::from_millis(50));
        }
        get("api/meta")?;
        get("api/timeline?start=0&end=3&width=800")?;
        get("api/stats?start=0&end=3")?;
        Ok(())
    })();
    let alive = child.try_wait().unwrap().is_none();
    child.kill().ok();
    child.wait().ok();
    match (result, alive) {
        (Ok(()), true) => Ok(()),
        (Ok(()), false) => Err("the server stopped".into()),
        (Err(e), _) => Err(e),
    }
}

/// Regression: a trace whose containers (and container types) nest a
/// million levels deep aborted every command with a stack overflow. Every
/// command exits 0 or 1 with a message, the server keeps serving, and
/// those that can read such a trace do.
#[test]
fn deep_container_nesting_never_overflows_the_stack() {
    let tmp = tempfile::tempdir().unwrap();
    let trace = tmp.path().join("deep.paje");
    let mut file = std::fs::File::create(&trace).unwrap();
    trama_gen::deep::nested_containers(1_000_000, &mut file).unwrap();
    drop(file);
    let (mut failures, codes) = every_command(&trace, tmp.path());
    // All but two read it: a .rst with interned strings addresses 65,536
    // of them, and the Parquet table of containers refuses paths that
    // long; both say so.
    for (args, code) in &codes {
        let refused = args.contains("out.rst") || args.contains("parquet");
        if *code != i32::from(refused) {
            failures.push(format!("trama {args} exited {code} on a valid trace"));
        }
    }
    if let Err(e) = view_serves(&trace) {
        failures.push(format!("trama view: {e}"));
    }
    // A merge source names containers by their whole path: it refuses
    // a deep nesting, saying so (on a trace of 5,000 levels, since a plan
    // maps every container type to a level of its own).
    let levels = 5000;
    let trace = tmp.path().join("merged-deep.paje");
    let mut file = std::fs::File::create(&trace).unwrap();
    trama_gen::deep::nested_containers(levels, &mut file).unwrap();
    drop(file);
    let plan = tmp.path().join("plan.toml");
    let names: Vec<String> = (0..levels).map(|i| format!("\"L{i}\"")).collect();
    let map: Vec<String> = (0..levels).map(|i| format!("T{i} = \"L{i}\"")).collect();
    std::fs::write(
        &plan,
        format!(
            "hierarchy = [{}]\nhost_level = \"L0\"\n[top]\n[[source]]\nname = \"d\"\n\
             kind = \"paje\"\nsynchronized = true\nlevels = {{ {} }}\n",
            names.join(", "),
            map.join(", ")
        ),
    )
    .unwrap();
    let merged = tmp.path().join("merged.paje");
    let src = format!("d={}", s(&trace));
    match run(&["merge", "--plan", s(&plan), &src, "-o", s(&merged)]) {
        Ok((1, err)) if err.contains("levels deep") => {}
        other => failures.push(format!("merge: {:.400}", format!("{other:?}"))),
    }
    common::assert_none_failed(&failures, "commands on a million nested containers");
}

/// A million states pushed one on the other: every command reads the
/// trace and exits 0 or 1 (see also the exports' and the level of
/// detail's tests of deep state nesting).
#[test]
fn deep_state_nesting_never_crashes() {
    let tmp = tempfile::tempdir().unwrap();
    let trace = tmp.path().join("deep.paje");
    let mut file = std::fs::File::create(&trace).unwrap();
    trama_gen::deep::nested_states(1_000_000, &mut file).unwrap();
    drop(file);
    let (mut failures, codes) = every_command(&trace, tmp.path());
    for (args, _) in codes.iter().filter(|(_, code)| *code != 0) {
        failures.push(format!("trama {args} failed on a valid trace"));
    }
    if let Err(e) = view_serves(&trace) {
        failures.push(format!("trama view: {e}"));
    }
    common::assert_none_failed(&failures, "commands on a million nested states");
}
