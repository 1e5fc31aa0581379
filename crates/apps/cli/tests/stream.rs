//! `trama view --stream`: a trace played as it is read, from standard input
//! (to its end) and from a file still being written (`--follow`: lines
//! appended while playing are picked up).

use std::io::{BufRead, BufReader, Write};
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::Value;
use trama_testkit::http;

fn example() -> String {
    let p = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../examples/ring.paje");
    std::fs::read_to_string(p).unwrap()
}

/// Starts `trama view --stream ARGS`; its URL.
fn start(args: &[&str], stdin: Stdio) -> (Child, String) {
    let mut child = Command::new(env!("CARGO_BIN_EXE_trama"))
        .args(["view", "--stream", "--no-open", "--port", "0"])
        .args(args)
        .stdin(stdin)
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut lines = BufReader::new(child.stdout.take().unwrap()).lines();
    let url = lines.next().unwrap().unwrap();
    let url = url.split_whitespace().last().unwrap().to_string();
    // Keep reading what it prints (a closed pipe would stop it).
    std::thread::spawn(move || for _ in lines {});
    (child, url)
}

fn get(url: &str, what: &str) -> Value {
    let (addr, path) = http::url_parts(url).unwrap();
    let once = || http::get_text(addr, &format!("{path}{what}"), addr);
    // The server may still be starting.
    let mut tries = 0;
    let r = loop {
        match once() {
            Ok(r) => break r,
            Err(e) if tries < 50 => {
                tries += 1;
                let _ = e;
                std::thread::sleep(Duration::from_millis(50));
            }
            Err(e) => panic!("{e}"),
        }
    };
    serde_json::from_str(r.split_once("\r\n\r\n").unwrap().1).unwrap()
}

/// Reads frames until `enough` says so (or fails after 30 s); the frames
/// and the last reply.
fn frames_until(url: &str, enough: impl Fn(&[Value], &Value) -> bool) -> (Vec<Value>, Value) {
    let deadline = Instant::now() + Duration::from_secs(30);
    let mut after = -1i64;
    let mut all = Vec::new();
    loop {
        let r = get(url, &format!("api/stream?after={after}&version=0"));
        for f in r["frames"].as_array().unwrap() {
            after = f["k"].as_i64().unwrap();
            all.push(f.clone());
        }
        if enough(&all, &r) {
            return (all, r);
        }
        assert!(Instant::now() < deadline, "timed out; last reply {r}");
        std::thread::sleep(Duration::from_millis(30));
    }
}

/// The time of a Pajé line, when it has one (the ring example's entity
/// lines carry it second).
fn time_of(line: &str) -> Option<f64> {
    if line.starts_with('%') {
        return None;
    }
    line.split_whitespace().nth(1)?.parse().ok()
}

#[test]
fn standard_input_is_played_to_its_end() {
    let text = example();
    let (mut child, url) = start(&["--rate", "0.1", "--play-speed", "1", "-"], Stdio::piped());
    let mut stdin = child.stdin.take().unwrap();
    stdin.write_all(text.as_bytes()).unwrap();
    drop(stdin);
    let last = text.lines().filter_map(time_of).fold(0.0, f64::max);
    let (frames, _) = frames_until(&url, |f, r| {
        r["done"] == Value::Bool(true)
            && r["frames"].as_array().unwrap().is_empty()
            && !f.is_empty()
    });
    let end = frames.last().unwrap()["t"].as_f64().unwrap() + 0.1;
    assert!(end >= last, "frames to {end}, the trace to {last}");
    assert!(
        frames
            .iter()
            .any(|f| !f["cells"].as_array().unwrap().is_empty()),
        "messages shown"
    );
    child.kill().unwrap();
    child.wait().unwrap();
}

#[test]
fn a_followed_file_is_played_as_it_grows() {
    let text = example();
    let lines: Vec<&str> = text.lines().collect();
    // The first part: up to the middle of the run.
    let last = lines.iter().filter_map(|l| time_of(l)).fold(0.0, f64::max);
    let cut = lines
        .iter()
        .position(|l| time_of(l).is_some_and(|t| t > last / 2.0))
        .unwrap();
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("growing.paje");
    std::fs::write(&path, lines[..cut].join("\n") + "\n").unwrap();
    let (mut child, url) = start(
        &[
            "--follow",
            "--rate",
            "0.05",
            "--play-speed",
            "1",
            path.to_str().unwrap(),
        ],
        Stdio::null(),
    );
    // The first part is played, and the stream waits for more.
    // (Frames of 0.05 s from the first event, about 0.)
    let part = time_of(lines[cut - 1]).unwrap();
    let (first, reply) = frames_until(&url, |_, r| {
        r["newest"].as_f64().unwrap_or(-1.0) >= (part / 0.05).floor() - 2.0
    });
    assert_eq!(reply["done"], Value::Bool(false), "following: not done");
    // Lines appended while playing are picked up.
    let mut f = std::fs::OpenOptions::new()
        .append(true)
        .open(&path)
        .unwrap();
    f.write_all((lines[cut..].join("\n") + "\n").as_bytes())
        .unwrap();
    drop(f);
    let (later, _) = frames_until(&url, |_, r| r["time"].as_f64().unwrap_or(0.0) >= last * 0.9);
    let shown = first
        .iter()
        .chain(&later)
        .map(|f| f["t"].as_f64().unwrap())
        .fold(0.0, f64::max);
    assert!(
        shown > last / 2.0 + 0.05,
        "frames after the appended lines: up to {shown}"
    );
    child.kill().unwrap();
    child.wait().unwrap();
}

#[test]
fn a_followed_opents_trace_cut_inside_an_element_is_played_as_it_grows() {
    let mut g = trama_gen::opents::OpentsGenOptions::default();
    (g.ranks, g.slices) = (4, 200);
    let mut xml = Vec::new();
    trama_gen::opents::write_opents(5, &g, &mut xml).unwrap();
    // Cut well past the head the format is sniffed from, inside a tag.
    let mut cut = xml.len() * 2 / 5;
    while xml[cut - 1] != b'<' {
        cut += 1;
    }
    cut += 3;
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("fib.xml");
    std::fs::write(&path, &xml[..cut]).unwrap();
    let (mut child, url) = start(
        &[
            "--follow",
            "--rate",
            "0.04",
            "--play-speed",
            "1",
            path.to_str().unwrap(),
        ],
        Stdio::null(),
    );
    // The slices written are played; the stream waits inside the element.
    frames_until(&url, |f, _| f.len() > 40);
    std::thread::sleep(Duration::from_millis(300));
    let reply = get(&url, "api/stream?after=1000000&version=1");
    assert_eq!(reply["done"], Value::Bool(false), "following: {reply}");
    assert!(reply["error"].is_null(), "{reply}");
    // The rest, appended, is played to the last slice, with its ranks.
    let mut f = std::fs::OpenOptions::new()
        .append(true)
        .open(&path)
        .unwrap();
    f.write_all(&xml[cut..]).unwrap();
    drop(f);
    // (Times count from the first slice; the last ones wait for an event
    // past their end, as at any live edge.)
    let (later, _) = frames_until(&url, |_, r| {
        r["time"].as_f64().unwrap_or(0.0) >= 180.0 * 0.04
    });
    let last = later.last().expect("frames after the append");
    assert_eq!(
        last["nodes"]["nodes"].as_array().unwrap().len(),
        4,
        "{last}"
    );
    child.kill().unwrap();
    child.wait().unwrap();
}

/// Regression: a followed file truncated and written again was read on
/// from the old byte offset, in the middle of a line of the new content,
/// with a bogus error; a file replaced (another file renamed onto its
/// path) was followed no more, silently. Both stop the stream with an
/// error that says what happened.
#[test]
fn a_followed_file_truncated_or_replaced_stops_saying_so() {
    let text = example();
    let lines: Vec<&str> = text.lines().collect();
    let half = lines.len() / 2;
    let first = lines[..half].join("\n") + "\n";
    let part = lines[..half]
        .iter()
        .filter_map(|l| time_of(l))
        .fold(0.0, f64::max);
    // Another trace: the same, a comment line first.
    let other = format!("# written again\n{text}");
    for (how, said) in [("truncated", "was truncated"), ("replaced", "was replaced")] {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("growing.paje");
        std::fs::write(&path, &first).unwrap();
        let (mut child, url) = start(
            &["--follow", "--rate", "0.05", path.to_str().unwrap()],
            Stdio::null(),
        );
        // The first part read, the follower waits at the end of the file.
        frames_until(&url, |_, r| r["time"].as_f64().unwrap_or(0.0) >= part);
        std::thread::sleep(Duration::from_millis(300));
        if how == "truncated" {
            std::fs::write(&path, &other).unwrap();
        } else {
            let new = dir.path().join("new.paje");
            std::fs::write(&new, &other).unwrap();
            std::fs::rename(&new, &path).unwrap();
        }
        let (_, reply) = frames_until(&url, |_, r| !r["error"].is_null());
        let error = reply["error"].as_str().unwrap_or_default();
        assert!(error.contains(said), "{how}: {reply}");
        child.kill().unwrap();
        child.wait().unwrap();
    }
}
