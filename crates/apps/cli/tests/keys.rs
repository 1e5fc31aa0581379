//! A reused link key under `dump --stream`, `dump -q` and `check`, whose
//! memory does not grow with the links: from a file (plain, compressed or
//! `.ptb`) the same error as the in-memory dump, nothing written; from a
//! pipe a warning that the key was possibly reused, and success.

mod common;

use std::io::Write;
use std::path::Path;
use std::process::{Command, Output};

use common::{trama, write_in};

/// More links than the keys the 16 MiB filter keeps exactly (229,376).
const LINKS: usize = 240_000;

/// Links of unique keys, then key `k7` used again (completed, so that
/// only the reuse is wrong); the line of the reuse.
fn reused() -> (String, u64) {
    let mut text = trama_gen::link_event_defs();
    text.push_str("0 P 0 P\n1 L 0 P P L\n2 0 p1 P 0 p1\n2 0 p2 P 0 p2\n");
    for i in 0..LINKS {
        text.push_str(&format!("3 {i} L 0 p1 v k{i}\n4 {i}.5 L 0 p2 v k{i}\n"));
    }
    let line = text.lines().count() as u64 + 1;
    text.push_str(&format!("3 {LINKS} L 0 p1 v k7\n4 {LINKS}.5 L 0 p2 v k7\n"));
    (text, line)
}

fn piped(args: &[&str], input: &[u8]) -> Output {
    let mut trama = Command::new(env!("CARGO_BIN_EXE_trama"));
    let (out, written) = trama_testkit::piped::run(trama.args(args), input.to_vec());
    written.unwrap();
    out
}

fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

/// `trama dump` (in memory) and the bounded-memory commands on `path`
/// fail alike, and an output file is not written.
fn fails_as_in_memory(path: &Path, dir: &Path) {
    let p = path.to_str().unwrap();
    let exact = trama(&["dump", p]);
    assert_eq!(exact.status.code(), Some(1), "{}", stderr(&exact));
    assert!(
        stderr(&exact).contains("link key 'k7'"),
        "{}",
        stderr(&exact)
    );
    let out = dir.join("out.csv");
    let o = out.to_str().unwrap();
    for args in [
        &["dump", "--stream", p, "-o", o][..],
        &["dump", "--stream", "-j", "1", p, "-o", o],
        &["dump", "-q", p],
        &["check", p],
    ] {
        let got = trama(args);
        assert_eq!(got.status.code(), Some(1), "{args:?}");
        assert_eq!(stderr(&got), stderr(&exact), "{args:?}");
        assert!(!out.exists(), "{args:?} wrote its output");
    }
}

#[test]
fn a_reused_key_in_a_file_fails_as_in_memory_with_bounded_memory() {
    let dir = tempfile::tempdir().unwrap();
    let (text, line) = reused();
    let path = write_in(dir.path(), "reused.paje", &text);
    fails_as_in_memory(&path, dir.path());
    let exact = stderr(&trama(&["dump", path.to_str().unwrap()]));
    assert!(exact.contains(&format!(":{line}: ")), "{exact}");
}

#[test]
fn a_reused_key_in_a_compressed_file_fails_as_in_memory() {
    let dir = tempfile::tempdir().unwrap();
    let (text, _) = reused();
    let mut enc = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    enc.write_all(text.as_bytes()).unwrap();
    let path = write_in(dir.path(), "reused.paje.gz", enc.finish().unwrap());
    fails_as_in_memory(&path, dir.path());
}

#[test]
fn a_reused_key_in_a_ptb_fails_as_in_memory() {
    let dir = tempfile::tempdir().unwrap();
    let (text, _) = reused();
    let paje = write_in(dir.path(), "reused.paje", &text);
    let ptb = dir.path().join("reused.ptb");
    let conv = trama(&["convert", paje.to_str().unwrap(), ptb.to_str().unwrap()]);
    assert!(conv.status.success(), "{}", stderr(&conv));
    fails_as_in_memory(&ptb, dir.path());
}

#[test]
fn a_reused_key_from_a_pipe_is_a_warning_and_succeeds() {
    let (text, line) = reused();
    let warning = format!(
        "trama: warning: <stdin>: link key 'k7' of type 'L' in container '0' possibly reused (line {line})"
    );
    let out = piped(&["dump", "--stream"], text.as_bytes());
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(stderr(&out).starts_with(&warning), "{}", stderr(&out));
    let links = String::from_utf8_lossy(&out.stdout)
        .lines()
        .filter(|l| l.starts_with("Link, ") && l.ends_with(", k7"))
        .count();
    assert_eq!(links, 2, "both links of key k7 are dumped");
    let out = piped(&["check"], text.as_bytes());
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(stderr(&out).starts_with(&warning), "{}", stderr(&out));
    // In memory the reuse is an error, from a pipe too.
    let out = piped(&["dump"], text.as_bytes());
    assert_eq!(out.status.code(), Some(1));
}
