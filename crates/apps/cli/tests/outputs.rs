//! Every file trama writes appears whole or not at all, and trama never
//! writes onto its input nor removes a file it did not create.

mod common;

use common::files;

use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

fn example() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../examples/ring.paje")
}

fn trama(args: &[&std::ffi::OsStr]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_trama"))
        .args(args)
        .arg("--no-progress")
        .output()
        .expect("run trama")
}

fn run(args: &[&str]) -> Output {
    let args: Vec<&std::ffi::OsStr> = args.iter().map(std::ffi::OsStr::new).collect();
    trama(&args)
}

fn s(p: &Path) -> &str {
    p.to_str().unwrap()
}

fn err(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// A copy of the example in `dir`, and its bytes.
fn example_in(dir: &Path) -> (PathBuf, Vec<u8>) {
    let text = dir.join("in.paje");
    std::fs::copy(example(), &text).unwrap();
    let bytes = std::fs::read(&text).unwrap();
    (text, bytes)
}

#[test]
fn converting_a_file_onto_itself_keeps_it() {
    let tmp = tempfile::tempdir().unwrap();
    let (text, before) = example_in(tmp.path());
    let out = run(&["convert", s(&text), s(&text)]);
    assert_eq!(out.status.code(), Some(1), "{}", err(&out));
    assert_eq!(std::fs::read(&text).unwrap(), before, "the input changed");
    let ptb = tmp.path().join("x.ptb");
    assert!(run(&["convert", s(&text), s(&ptb)]).status.success());
    let bin = std::fs::read(&ptb).unwrap();
    // Same file by another name: a link.
    let link = tmp.path().join("link.ptb");
    std::os::unix::fs::symlink(&ptb, &link).unwrap();
    for target in [&ptb, &link] {
        let out = run(&["convert", "--level", "3", s(&ptb), s(target)]);
        assert_eq!(out.status.code(), Some(1), "{}", err(&out));
        assert!(err(&out).contains("is the input"), "{}", err(&out));
        assert_eq!(std::fs::read(&ptb).unwrap(), bin, "the .ptb changed");
    }
    assert_eq!(files(tmp.path()), ["in.paje", "link.ptb", "x.ptb"]);
}

#[test]
fn dumping_onto_the_input_is_refused() {
    let tmp = tempfile::tempdir().unwrap();
    let (text, before) = example_in(tmp.path());
    for cmd in [&["dump"][..], &["stats", "states"]] {
        let mut args = cmd.to_vec();
        args.extend([s(&text), "-o", s(&text)]);
        let out = run(&args);
        assert_eq!(out.status.code(), Some(1), "{cmd:?}: {}", err(&out));
        assert!(err(&out).contains("is the input"), "{}", err(&out));
        assert_eq!(
            std::fs::read(&text).unwrap(),
            before,
            "{cmd:?} changed its input"
        );
    }
}

#[test]
fn a_rejected_input_leaves_an_existing_output_untouched() {
    let tmp = tempfile::tempdir().unwrap();
    let bad = tmp.path().join("bad.paje");
    let mut text = std::fs::read(example()).unwrap();
    // An event of no definition: every reader rejects it at its line.
    text.extend_from_slice(b"999 2.5 S rank-0 x\n");
    std::fs::write(&bad, &text).unwrap();
    for (cmd, name) in [
        ("dump", "existing.csv"),
        ("convert", "existing.ptb"),
        ("convert", "existing.rst"),
        ("stats", "existing.txt"),
        ("render", "existing.svg"),
        ("report", "existing.html"),
    ] {
        let out_path = tmp.path().join(name);
        std::fs::write(&out_path, b"precious").unwrap();
        let out = match cmd {
            "convert" => run(&[cmd, s(&bad), s(&out_path)]),
            "render" => run(&[cmd, "space-time", s(&bad), "-o", s(&out_path)]),
            _ => run(&[cmd, s(&bad), "-o", s(&out_path)]),
        };
        assert_eq!(out.status.code(), Some(1), "{cmd}: {}", err(&out));
        assert_eq!(
            std::fs::read(&out_path).unwrap(),
            b"precious",
            "{cmd} touched {name}"
        );
    }
    let mut want = vec!["bad.paje".to_string()];
    want.extend(
        [
            "existing.csv",
            "existing.html",
            "existing.ptb",
            "existing.rst",
            "existing.svg",
            "existing.txt",
        ]
        .map(String::from),
    );
    assert_eq!(files(tmp.path()), want, "a temporary file was left");
}

#[test]
fn a_linked_output_replaces_its_file_and_keeps_the_link() {
    let tmp = tempfile::tempdir().unwrap();
    let real = tmp.path().join("real.csv");
    std::fs::write(&real, b"old").unwrap();
    let link = tmp.path().join("link.csv");
    std::os::unix::fs::symlink(&real, &link).unwrap();
    let out = run(&["dump", s(&example()), "-o", s(&link)]);
    assert!(out.status.success(), "{}", err(&out));
    assert!(std::fs::symlink_metadata(&link)
        .unwrap()
        .file_type()
        .is_symlink());
    let dumped = std::fs::read(&real).unwrap();
    assert!(
        dumped.starts_with(b"Container, 0, 0, 0, "),
        "the link's file is not the dump"
    );
    // A device is written in place, never replaced.
    let out = run(&["dump", s(&example()), "-o", "/dev/null"]);
    assert!(out.status.success(), "{}", err(&out));
    use std::os::unix::fs::FileTypeExt;
    assert!(std::fs::metadata("/dev/null")
        .unwrap()
        .file_type()
        .is_char_device());
}

/// Ctrl-C while an output is being written leaves no partial file: the
/// input is a FIFO fed half a trace, then trama is interrupted.
#[test]
fn an_interrupted_command_leaves_no_partial_output() {
    let tmp = tempfile::tempdir().unwrap();
    let Some(fifo) = common::fifo_in(tmp.path(), "interruption case") else {
        return;
    };
    // More than the first bytes trama reads to tell the format.
    let mut o = trama_gen::GenOptions::default();
    o.events = 20_000;
    let text = trama_gen::generate(7, &o).into_bytes();
    assert!(text.len() > 200_000);
    for (args, out_name) in [
        (vec!["convert", "FIFO", "OUT"], "out.ptb"),
        (vec!["convert", "FIFO", "OUT"], "out.rst"),
        (vec!["dump", "FIFO", "-o", "OUT"], "out.csv"),
    ] {
        let out_path = tmp.path().join(out_name);
        let args: Vec<&str> = args
            .iter()
            .map(|a| match *a {
                "FIFO" => s(&fifo),
                "OUT" => s(&out_path),
                a => a,
            })
            .collect();
        let mut child = Command::new(env!("CARGO_BIN_EXE_trama"))
            .args(&args)
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        // Half the trace, then the writer waits with the FIFO open.
        let mut writer = std::fs::OpenOptions::new().write(true).open(&fifo).unwrap();
        std::io::Write::write_all(&mut writer, &text[..text.len() / 2]).unwrap();
        let temp = || files(tmp.path()).into_iter().any(|f| f.ends_with(".tmp"));
        let start = std::time::Instant::now();
        while !temp() && start.elapsed().as_secs() < 30 {
            std::thread::sleep(std::time::Duration::from_millis(20));
        }
        assert!(temp(), "{args:?}: no temporary output while writing");
        let killed = Command::new("kill")
            .args(["-INT", &child.id().to_string()])
            .status()
            .unwrap();
        assert!(killed.success());
        let status = child.wait().unwrap();
        drop(writer);
        assert_eq!(status.code(), Some(130), "{args:?}");
        assert_eq!(files(tmp.path()), ["fifo"], "{args:?}: a file was left");
    }
}

/// A reader that goes away (`| head -1`) ends every command quietly, with
/// exit 0, streamed or not, whatever it was writing.
#[test]
fn a_closed_pipe_ends_quietly() {
    let tmp = tempfile::tempdir().unwrap();
    let trace = tmp.path().join("big.paje");
    let mut o = trama_gen::GenOptions::default();
    o.events = 40_000;
    o.destroy_containers = false;
    std::fs::write(&trace, trama_gen::generate(11, &o)).unwrap();
    for args in [
        &["dump", "--stream"][..],
        &["dump", "--stream", "-j", "1"],
        &["dump"],
        &["convert", "--to", "rastro"],
        &["stats", "slices", "--slices", "2000"],
        &["stats", "slices", "--slices", "2000", "--format", "json"],
    ] {
        let mut cmd = Command::new(env!("CARGO_BIN_EXE_trama"));
        cmd.args(args).arg(&trace);
        if args[0] == "convert" {
            cmd.arg("-");
        }
        let mut child = cmd
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let mut first = [0u8; 16];
        if std::io::Read::read_exact(child.stdout.as_mut().unwrap(), &mut first).is_err() {
            let out = child.wait_with_output().unwrap();
            panic!("{args:?}: no output: {}", err(&out));
        }
        drop(child.stdout.take());
        let out = child.wait_with_output().unwrap();
        assert_eq!(out.status.code(), Some(0), "{args:?}: {}", err(&out));
        assert!(out.stderr.is_empty(), "{args:?}: {}", err(&out));
    }
}
