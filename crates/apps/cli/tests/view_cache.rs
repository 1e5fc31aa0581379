//! `trama view --blocks`: a text trace is converted to `.ptb` in the cache
//! once per version of the input, then read by blocks.

mod common;

use std::io::{BufRead, BufReader, Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use trama_testkit::http;

/// Runs `trama view ARGS`, waits until the trace is ready, reads its
/// meta, stops it; returns the meta and what it said on standard error.
fn view(args: &[&str]) -> (serde_json::Value, String) {
    let mut child = Command::new(env!("CARGO_BIN_EXE_trama"))
        .args(["view", "--no-open", "--port", "0"])
        .args(args)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut lines = BufReader::new(child.stdout.take().unwrap()).lines();
    let url = lines
        .next()
        .unwrap()
        .unwrap()
        .split_whitespace()
        .last()
        .unwrap()
        .to_string();
    let (addr, path) = http::url_parts(&url).unwrap();
    let get = |what: &str| {
        let r = http::get_text(addr, &format!("{path}{what}"), addr).unwrap();
        r.split_once("\r\n\r\n").unwrap().1.to_string()
    };
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(60);
    while !get("api/progress").contains("\"ready\"") {
        assert!(std::time::Instant::now() < deadline, "never ready");
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    let meta = serde_json::from_str(&get("api/meta")).unwrap();
    child.kill().unwrap();
    let mut err = String::new();
    child
        .stderr
        .take()
        .unwrap()
        .read_to_string(&mut err)
        .unwrap();
    child.wait().unwrap();
    (meta, err)
}

/// The example trace, a copy of it in `dir` and a cache folder in `dir`
/// (not made).
fn copied_example(dir: &Path) -> (PathBuf, PathBuf, PathBuf) {
    let example = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../examples/ring.paje");
    let input = dir.join("ring.paje");
    std::fs::copy(&example, &input).unwrap();
    (example, input, dir.join("cache"))
}

/// The arguments of `trama view` reading `input` by blocks through the
/// cache `cache`.
fn by_blocks<'a>(cache: &'a Path, input: &'a Path) -> [&'a str; 4] {
    [
        "--blocks",
        "--cache",
        cache.to_str().unwrap(),
        input.to_str().unwrap(),
    ]
}

#[test]
fn a_text_trace_is_converted_once_per_version() {
    let tmp = tempfile::tempdir().unwrap();
    let (example, input, cache) = copied_example(tmp.path());
    let args = by_blocks(&cache, &input);
    let (whole, _) = view(&["--whole", input.to_str().unwrap()]);
    let (first, err) = view(&args);
    assert!(err.contains("converting"), "{err}");
    let made = common::files(&cache);
    assert_eq!(made.len(), 2, "{made:?}");
    assert!(made[0].starts_with("ring.paje-") && made[0].ends_with(".ptb"));
    // And the summary its first reading gathered, to start at once next time.
    assert_eq!(made[1], made[0].replace(".ptb", ".view"));
    // Read by blocks, the trace shows what it shows whole.
    for k in ["rows", "counts", "start", "end", "host_order"] {
        assert_eq!(first[k], whole[k], "{k}");
    }
    // Again: read from the cache, not converted.
    let (_, err) = view(&args);
    assert!(!err.contains("converting"), "{err}");
    assert_eq!(common::files(&cache), made);
    // A changed input is converted again, under another name.
    let mut f = std::fs::OpenOptions::new()
        .append(true)
        .open(&input)
        .unwrap();
    writeln!(f, "# one more line").unwrap();
    drop(f);
    let (_, err) = view(&args);
    assert!(err.contains("converting"), "{err}");
    assert_eq!(common::files(&cache).len(), 4);
    assert_eq!(
        std::fs::read(&example).unwrap(),
        std::fs::read(&input).unwrap()[..std::fs::read(&example).unwrap().len()]
    );
}

#[test]
fn a_cache_that_cannot_be_made_is_named() {
    let tmp = tempfile::tempdir().unwrap();
    let file = tmp.path().join("not-a-dir");
    std::fs::write(&file, "x").unwrap();
    let example = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../examples/ring.paje");
    let out = Command::new(env!("CARGO_BIN_EXE_trama"))
        .args(["view", "--no-open", "--port", "0", "--blocks", "--cache"])
        .arg(file.join("sub"))
        .arg(&example)
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(
        err.contains("cannot make the cache directory") && err.contains("--cache"),
        "{err}"
    );
    assert_eq!(std::fs::read(&file).unwrap(), b"x");
}

#[test]
fn a_file_in_the_way_of_a_cache_entry_is_left_alone() {
    let tmp = tempfile::tempdir().unwrap();
    let (_, input, cache) = copied_example(tmp.path());
    let args = by_blocks(&cache, &input);
    view(&args);
    // The converted trace replaced by a file of the user's.
    let entry = common::files(&cache)
        .into_iter()
        .find(|e| e.ends_with(".ptb"))
        .unwrap();
    let entry = cache.join(entry);
    std::fs::write(&entry, "mine").unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_trama"))
        .args(["view", "--no-open", "--port", "0"])
        .args(args)
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(err.contains("in the way"), "{err}");
    assert_eq!(std::fs::read(&entry).unwrap(), b"mine");
}
