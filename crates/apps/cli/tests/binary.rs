//! The binary format (`.ptb`): every path that reads text must read the
//! binary conversion the same way.
//!
//! - the PajeNG conformance cases: `trama dump x.ptb` prints what
//!   `trama dump x.paje` prints (PajeNG's expected output), in both string
//!   modes and both quote modes; rejected traces stay rejected;
//! - text → binary → text → binary gives the same binary file;
//! - traces written by real tools (SimGrid, StarPU) dump as PajeNG dumps
//!   their text, and those it rejects fail to convert with the text's error;
//! - random traces (`trama-gen`): same dumps, 1 and N threads, round trip;
//! - damaged files give an error naming a byte offset, never a panic.

mod common;

use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

use common::{assert_none_failed, cases, real_accepted, shared_dir, trama, write_in};

use trama_gen::{generate, GenOptions};

fn s(p: &Path) -> &str {
    p.to_str().expect("utf-8 path")
}

/// A generated trace of 3000 events (`seed`) written to `t.paje` in `dir`
/// and converted to `t.ptb` beside it, in blocks of 500 events; returns the
/// binary's path.
fn small_ptb(dir: &Path, seed: u64) -> PathBuf {
    let mut o = GenOptions::plain();
    o.events = 3000;
    let path = write_in(dir, "t.paje", generate(seed, &o));
    let bin = dir.join("t.ptb");
    let out = trama(&["convert", "--block-events", "500", s(&path), s(&bin)]);
    assert!(out.status.success(), "{}", err(&out));
    bin
}

/// A varied generated trace (`seed`, at most `events` events, current field
/// names) written to `<name>.paje` in `dir`; its path.
fn varied_trace(dir: &Path, name: &str, seed: u64, events: usize) -> PathBuf {
    let mut o = GenOptions::varied(seed, events);
    o.old_field_names = false;
    write_in(dir, &format!("{name}.paje"), generate(seed, &o))
}

/// The reading options of generated trace `seed`: quotes stripped on one
/// trace in three (names with spaces must get their quotes back in the
/// text made from the binary).
fn quotes_for(seed: u64) -> &'static [&'static str] {
    if seed.is_multiple_of(3) {
        &["--strip-quotes"]
    } else {
        &[]
    }
}

/// `trama ARGS FILE` on the text and on the binary, which must exit alike
/// (`what` names the case in messages); both outputs.
fn on_both(args: &[&str], text: &Path, bin: &Path, what: &str) -> (Output, Output) {
    let run = |file: &Path| trama(&[args, &[s(file)]].concat());
    let (t, b) = (run(text), run(bin));
    assert_eq!(t.status.code(), b.status.code(), "{what}: {}", err(&b));
    (t, b)
}

fn err(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// Converts `text` to a binary file and back; checks the second binary is
/// identical to the first. Returns the binary's path, or the conversion's
/// output when it failed.
fn round_trip(
    text: &Path,
    dir: &Path,
    tag: &str,
    read_opts: &[&str],
    strings: &str,
) -> Result<PathBuf, Output> {
    let bin = dir.join(format!("{tag}.ptb"));
    let back = dir.join(format!("{tag}.back.paje"));
    let bin2 = dir.join(format!("{tag}.2.ptb"));
    let mut args = vec!["convert", "--no-progress", "--strings", strings];
    args.extend(read_opts);
    let mut a = args.clone();
    a.extend([s(text), s(&bin)]);
    let out = trama(&a);
    if !out.status.success() {
        return Err(out);
    }
    let out = trama(&["convert", s(&bin), s(&back)]);
    assert!(out.status.success(), "{tag}: binary → text: {}", err(&out));
    let mut a = args.clone();
    a.extend([s(&back), s(&bin2)]);
    let out = trama(&a);
    assert!(
        out.status.success(),
        "{tag}: text → binary again: {}",
        err(&out)
    );
    let (b1, b2) = (std::fs::read(&bin).unwrap(), std::fs::read(&bin2).unwrap());
    assert!(
        b1 == b2,
        "{tag}: text → binary → text → binary changed the binary file"
    );
    Ok(bin)
}

#[test]
fn conformance_cases_read_the_same_from_binary() {
    let Some(shared) = shared_dir() else { return };
    let dir = shared.join("conformance/pajeng");
    let tmp = tempfile::tempdir().unwrap();
    let mut failures = Vec::new();
    let mut checked = 0;
    for case in cases(&dir) {
        if case.note.contains("undefined-behaviour-in-pajeng") {
            continue;
        }
        let trace = dir.join(&case.trace);
        for (mode, rc, quotes) in [
            ("head", &case.rc_head, None),
            ("v1310", &case.rc_1310, Some("--strip-quotes")),
        ] {
            let expected = std::fs::read(dir.join(format!("{}.{mode}.out", case.name))).unwrap();
            let mut read_opts: Vec<&str> = quotes.into_iter().collect();
            if case.args.iter().any(|a| a == "-n") {
                read_opts.push("-n");
            }
            for strings in ["interned", "plain"] {
                let tag = format!("{}-{mode}-{strings}", case.name);
                let what = format!("{} [{mode}, --strings {strings}]", case.name);
                checked += 1;
                let bin = match round_trip(&trace, tmp.path(), &tag, &read_opts, strings) {
                    Ok(bin) => bin,
                    Err(out) => {
                        // Only a trace PajeNG rejects may fail to convert.
                        if rc == "0" || out.status.code() != Some(1) {
                            failures.push(format!("{what}: conversion failed: {}", err(&out)));
                        }
                        continue;
                    }
                };
                for threads in ["1", "3"] {
                    let mut args = vec!["dump", "--no-progress", "-j", threads];
                    args.extend(case.args.iter().map(|a| a.as_str()).filter(|a| *a != "-n"));
                    args.extend(quotes);
                    args.push(s(&bin));
                    let out = trama(&args);
                    if rc == "0" {
                        if out.stdout != expected || !out.status.success() {
                            failures.push(format!(
                                "{what} -j {threads}: dump differs from PajeNG's\n{}--- got\n{}",
                                err(&out),
                                String::from_utf8_lossy(&out.stdout)
                            ));
                        }
                    } else if out.status.code() != Some(1) || !out.stdout.is_empty() {
                        failures.push(format!(
                            "{what} -j {threads}: PajeNG rejects, the binary dump gives {:?}",
                            out.status.code()
                        ));
                    }
                }
            }
        }
    }
    assert_none_failed(&failures, &format!("{checked} conversions failed"));
}

/// Traces written by real tools (SimGrid, StarPU) read the same from
/// their binary conversion as PajeNG reads the text, in both string and
/// quote modes; the traces PajeNG rejects fail to convert with the text's
/// error (file, line, token), leaving no output file.
#[test]
fn real_traces_read_the_same_from_binary() {
    let Some(shared) = shared_dir() else { return };
    let dir = shared.join("samples/paje-real");
    let tmp = tempfile::tempdir().unwrap();
    for real in real_accepted(&shared) {
        let (base, suffix, quotes) = (real.base, real.suffix, real.quotes);
        let read_opts: Vec<&str> = quotes.into_iter().collect();
        for strings in ["interned", "plain"] {
            let tag = format!("{base}-{suffix}-{strings}");
            let bin = round_trip(&real.path, tmp.path(), &tag, &read_opts, strings)
                .unwrap_or_else(|out| panic!("{tag}: conversion failed: {}", err(&out)));
            for threads in ["1", "3"] {
                let mut args = vec!["dump", "--no-progress", "-j", threads];
                args.extend(quotes);
                args.push(s(&bin));
                let out = trama(&args);
                assert!(out.status.success(), "{tag}: {}", err(&out));
                assert!(
                    out.stdout == real.expected,
                    "{tag} -j {threads}: the binary's dump differs from PajeNG's"
                );
            }
        }
    }
    for (rel, opts, located, token) in [
        (
            "starpu/pajengr-starpu.buggy.trace",
            &[][..],
            ":377:",
            "'mm0'",
        ),
        ("paje-2005/JavaTest.trace", &[][..], ":5:", "--no-strict"),
        ("paje-2005/JavaTest.trace", &["-n"][..], ":45:", "Name"),
    ] {
        let path = dir.join(rel);
        let bin = tmp.path().join("rejected.ptb");
        let mut args = vec!["convert", "--no-progress"];
        args.extend(opts);
        args.extend([s(&path), s(&bin)]);
        let conv = trama(&args);
        let mut args = vec!["dump"];
        args.extend(opts);
        args.push(s(&path));
        let text = trama(&args);
        assert_eq!(conv.status.code(), Some(1), "{rel}: {}", err(&conv));
        let e = err(&conv);
        assert!(e.contains(located) && e.contains(token), "{rel}: {e}");
        assert_eq!(
            e,
            err(&text),
            "{rel}: the conversion's error is not the text's"
        );
        assert!(!bin.exists(), "{rel}: a failed conversion leaves no output");
    }
}

#[test]
fn engine_errors_in_a_binary_name_the_original_line() {
    let Some(shared) = shared_dir() else { return };
    let dir = shared.join("conformance/pajeng");
    let tmp = tempfile::tempdir().unwrap();
    // Errors of entity semantics come out when the binary is read.
    for (case, line) in [
        ("not_time_ordered", "115"),
        ("pop_empty", "114"),
        ("key_reuse", "117"),
    ] {
        let bin = round_trip(
            &dir.join(format!("{case}.trace")),
            tmp.path(),
            case,
            &[],
            "interned",
        )
        .unwrap_or_else(|o| panic!("{case}: {}", err(&o)));
        let out = trama(&["check", s(&bin)]);
        let e = err(&out);
        assert_eq!(out.status.code(), Some(1), "{case}");
        assert!(
            e.contains(&format!("line {line} of the original text")),
            "{case}: {e}"
        );
    }
}

#[test]
fn generated_traces_read_the_same_from_binary() {
    let tmp = tempfile::tempdir().unwrap();
    let mut compared = 0;
    for seed in 0..60u64 {
        let path = varied_trace(tmp.path(), &format!("g{seed}"), seed, 400);
        let strings = if seed % 2 == 0 { "interned" } else { "plain" };
        let quotes = quotes_for(seed);
        let text_dump = trama(&[&["dump", "-u"], quotes, &[s(&path)]].concat());
        let bin = match round_trip(&path, tmp.path(), &format!("g{seed}"), quotes, strings) {
            Ok(b) => b,
            Err(out) => {
                assert!(!text_dump.status.success(), "seed {seed}: {}", err(&out));
                continue;
            }
        };
        for threads in ["1", "4"] {
            let bin_dump = trama(&["dump", "-u", "-j", threads, s(&bin)]);
            assert_eq!(
                bin_dump.status.success(),
                text_dump.status.success(),
                "seed {seed}: verdicts differ: {}",
                err(&bin_dump)
            );
            assert!(
                bin_dump.stdout == text_dump.stdout,
                "seed {seed} -j {threads}: dumps differ"
            );
            // `check` counts the same.
            // (The warnings of states pushed and never popped come from
            // the text's simulation; the parallel replay of a .ptb does not
            // count them yet.)
            let summary = |o: Output| -> Vec<String> {
                String::from_utf8_lossy(&o.stdout)
                    .lines()
                    .skip(2)
                    .take_while(|l| !l.starts_with("  warnings"))
                    .map(String::from)
                    .collect()
            };
            let check = ["check", "-j", threads];
            let (ct, cb) = on_both(&check, &path, &bin, &format!("seed {seed}"));
            assert_eq!(
                summary(ct),
                summary(cb),
                "seed {seed}: check summaries differ"
            );
            compared += 1;
        }
    }
    assert!(compared > 60, "only {compared} comparisons");
}

#[test]
fn damaged_files_give_an_offset_and_never_panic() {
    let tmp = tempfile::tempdir().unwrap();
    let bin = small_ptb(tmp.path(), 7);
    let good = std::fs::read(&bin).unwrap();
    let bad = tmp.path().join("bad.ptb");
    let mut n_offsets = 0;
    // Flipped bytes all over the file, truncations at many lengths.
    let mut variants: Vec<Vec<u8>> = Vec::new();
    for i in (0..good.len()).step_by(good.len() / 97 + 1) {
        let mut v = good.clone();
        v[i] ^= 0x5a;
        variants.push(v);
    }
    for len in (0..good.len()).step_by(good.len() / 31 + 1) {
        variants.push(good[..len].to_vec());
    }
    for v in &variants {
        std::fs::write(&bad, v).unwrap();
        let out = trama(&["dump", s(&bad)]);
        let e = err(&out);
        assert!(
            out.status.code() == Some(1) || out.status.success(),
            "crash ({:?}): {e}",
            out.status
        );
        if !out.status.success() {
            assert!(e.starts_with("trama: error: "), "{e}");
            if e.contains("byte ") {
                n_offsets += 1;
            }
        }
    }
    assert!(
        n_offsets > variants.len() / 2,
        "{n_offsets} of {}",
        variants.len()
    );
    // A checksum catches a flipped byte inside a frame.
    let mut v = good.clone();
    let mid = good.len() / 2;
    v[mid] ^= 1;
    std::fs::write(&bad, &v).unwrap();
    let e = err(&trama(&["check", s(&bad)]));
    assert!(e.contains("byte ") && e.contains("checksum"), "{e}");
    // Truncated: the end marker is missing.
    std::fs::write(&bad, &good[..good.len() - 3]).unwrap();
    let e = err(&trama(&["check", s(&bad)]));
    assert!(e.contains("truncated"), "{e}");
}

#[test]
fn binary_on_standard_input_and_detection_by_content() {
    let tmp = tempfile::tempdir().unwrap();
    let text = generate(3, &GenOptions::plain());
    let path = write_in(tmp.path(), "t.paje", &text);
    // A misleading name: detection goes by content.
    let bin = tmp.path().join("t.paje.bin");
    let out = trama(&["convert", "--to", "ptb", s(&path), s(&bin)]);
    assert!(out.status.success(), "{}", err(&out));
    let from_file = trama(&["dump", s(&bin)]);
    let mut child = Command::new(env!("CARGO_BIN_EXE_trama"))
        .args(["dump", "-"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let data = std::fs::read(&bin).unwrap();
    {
        use std::io::Write;
        child.stdin.take().unwrap().write_all(&data).unwrap();
    }
    let from_stdin = child.wait_with_output().unwrap();
    assert!(from_stdin.status.success());
    assert_eq!(from_stdin.stdout, from_file.stdout);
    assert_eq!(from_file.stdout, trama(&["dump", s(&path)]).stdout);
    // No output format: a clear error, nothing created.
    let out = trama(&["convert", s(&path), s(&tmp.path().join("x.unknown"))]);
    assert_eq!(out.status.code(), Some(1));
    assert!(err(&out).contains("--to"), "{}", err(&out));
}

#[test]
fn rastro_files_read_the_same_through_every_conversion() {
    let Some(shared) = shared_dir() else { return };
    let dir = shared.join("samples/paje-binary-rastro");
    let tmp = tempfile::tempdir().unwrap();
    let files = [
        "committed-2014/rastro-5-5-ms.rst",
        "committed-2014/rastro-5-5-categories.rst",
        "generated-2015/ms.strref.rst",
        "generated-2015/ms.inline.rst",
        "generated-2015/categories.strref.rst",
        "generated-2015/categories.inline.rst",
    ];
    for f in files {
        let rst = dir.join(f);
        let direct = trama(&["dump", s(&rst)]);
        assert!(direct.status.success(), "{f}: {}", err(&direct));
        assert!(!direct.stdout.is_empty());
        for ext in ["ptb", "paje"] {
            let out = tmp.path().join(format!("x.{ext}"));
            let c = trama(&["convert", s(&rst), s(&out)]);
            assert!(c.status.success(), "{f} → {ext}: {}", err(&c));
            let d = trama(&["dump", s(&out)]);
            assert!(d.stdout == direct.stdout, "{f} → {ext}: dump differs");
        }
    }
    // Text → libRastro (both string modes) → same dump as the text.
    let text = shared.join("conformance/pajeng/ms.trace");
    if text.is_file() {
        let want = trama(&["dump", s(&text)]).stdout;
        for strings in ["plain", "interned"] {
            let out = tmp.path().join(format!("ms.{strings}.rst"));
            let c = trama(&["convert", "--strings", strings, s(&text), s(&out)]);
            assert!(c.status.success(), "{}", err(&c));
            assert!(
                trama(&["dump", s(&out)]).stdout == want,
                "ms → rst {strings}"
            );
        }
    }
}

/// `dump -s/-e` on a binary reads from the keyframe before the window and
/// stops once nothing open can overlap it: the output must still be the
/// text's, byte for byte.
#[test]
fn windows_of_a_binary_dump_like_the_text() {
    let tmp = tempfile::tempdir().unwrap();
    let mut compared = 0;
    for seed in 0..40u64 {
        let path = varied_trace(tmp.path(), &format!("w{seed}"), seed + 1000, 600);
        let bin = tmp.path().join(format!("w{seed}.ptb"));
        // Small blocks: many keyframes and early stops.
        let strings = if seed % 3 == 0 { "plain" } else { "interned" };
        let c = trama(&[
            "convert",
            "--block-events",
            "17",
            "--strings",
            strings,
            s(&path),
            s(&bin),
        ]);
        if !c.status.success() {
            continue;
        }
        let full = trama(&["dump", s(&path)]);
        if !full.status.success() {
            continue;
        }
        // Windows from the trace's own times.
        let times: Vec<f64> = String::from_utf8_lossy(&full.stdout)
            .lines()
            .filter_map(|l| l.split(", ").nth(3).and_then(|t| t.parse().ok()))
            .collect();
        if times.is_empty() {
            continue;
        }
        let pick = |k: u64| times[(k as usize * 7919) % times.len()];
        for k in 0..4u64 {
            let (a, b) = (pick(seed * 4 + k), pick(seed * 4 + k + 1));
            let (a, b) = (a.min(b), a.max(b));
            let (sa, sb) = (format!("{a}"), format!("{b}"));
            let windows: [Vec<&str>; 3] =
                [vec!["-s", &sa, "-e", &sb], vec!["-s", &sa], vec!["-e", &sb]];
            for w in &windows {
                for extra in [&[][..], &["-u"][..], &["--stream"][..]] {
                    let mut args = vec!["dump"];
                    args.extend(w.iter().copied());
                    args.extend(extra.iter().copied());
                    let (t, b) = on_both(&args, &path, &bin, &format!("seed {seed} {args:?}"));
                    if extra == ["--stream"] {
                        let mut x: Vec<&[u8]> = t.stdout.split(|&c| c == b'\n').collect();
                        let mut y: Vec<&[u8]> = b.stdout.split(|&c| c == b'\n').collect();
                        x.sort();
                        y.sort();
                        assert!(x == y, "seed {seed} {args:?}: streamed lines differ");
                    } else {
                        assert!(
                            t.stdout == b.stdout,
                            "seed {seed} {args:?}: window dumps differ\n--- text\n{}--- binary\n{}",
                            String::from_utf8_lossy(&t.stdout),
                            String::from_utf8_lossy(&b.stdout)
                        );
                    }
                    compared += 1;
                }
            }
        }
    }
    assert!(compared > 200, "only {compared} windows compared");
}

/// `trama info` describes a binary file from its index: the frames tile the
/// file in order, the events frames hold every event (at most the block
/// size each) in line order, each keyframe precedes the block it names,
/// and the summary's sizes add up to the file's.
#[test]
fn info_describes_the_index_of_a_binary_file() {
    let tmp = tempfile::tempdir().unwrap();
    let bin = small_ptb(tmp.path(), 11);
    let file_len = std::fs::metadata(&bin).unwrap().len();

    let out = trama(&["info", "--frames", s(&bin)]);
    assert!(out.status.success(), "{}", err(&out));
    let text = String::from_utf8(out.stdout).unwrap();
    // The events `check` reads are the events the index counts.
    let check = String::from_utf8(trama(&["check", s(&bin)]).stdout).unwrap();
    let events: u64 = check
        .lines()
        .find_map(|l| l.trim().strip_prefix("input"))
        .and_then(|l| l.split(", ").find_map(|p| p.strip_suffix(" events")))
        .expect("check's input line")
        .parse()
        .unwrap();
    assert!(
        text.contains(&format!(": {events} events,")),
        "summary: {text}"
    );

    // The frame table.
    let rows: Vec<Vec<&str>> = text
        .lines()
        .skip_while(|l| !l.trim_start().starts_with("frame"))
        .skip(1)
        .map(|l| l.split_whitespace().collect())
        .collect();
    assert!(!rows.is_empty(), "no frame table: {text}");
    let num = |v: &str| -> u64 { v.parse().unwrap() };
    let (mut end, mut in_blocks, mut blocks, mut next_line) = (16u64, 0u64, 0u64, 0u64);
    let mut keyframes = Vec::new();
    for r in &rows {
        let (kind, offset, bytes) = (r[1], num(r[2]), num(r[3]));
        assert!(offset >= end, "frames overlap or go back: {r:?}");
        end = offset + bytes;
        match kind {
            "events" => {
                // The codec's name may be two words ("zstd+raw times").
                let n = r.len();
                let (count, first) = (num(r[n - 4]), num(r[n - 3]));
                let (lo, hi): (f64, f64) = (r[n - 2].parse().unwrap(), r[n - 1].parse().unwrap());
                assert!(count > 0 && count <= 500, "{r:?}");
                assert!(first > next_line, "blocks out of line order: {r:?}");
                assert!(lo <= hi, "{r:?}");
                next_line = first;
                in_blocks += count;
                blocks += 1;
            }
            "keyframe" => keyframes.push(num(r[r.len() - 3])),
            "strings" | "model" => {}
            k => panic!("unknown frame kind {k}"),
        }
    }
    assert!(end < file_len, "the frames run past the footer");
    assert_eq!(in_blocks, events);
    // Blocks may end early around model records, never by more than a few.
    assert!(
        (events.div_ceil(500)..events.div_ceil(500) + 4).contains(&blocks),
        "{blocks} blocks for {events} events"
    );
    assert!(!keyframes.is_empty(), "no keyframe in {blocks} blocks");
    for k in &keyframes {
        assert!(*k > 0 && *k < blocks, "keyframe before block {k}");
    }
    assert!(text.contains(&format!(
        "blocks      {blocks} events frames (the largest holds 500 events), {} keyframes",
        keyframes.len()
    )));
    // The parts of the summary make up the whole file.
    let parts: u64 = text
        .lines()
        .skip_while(|l| !l.trim_start().starts_with("size"))
        .skip(1)
        .take_while(|l| l.starts_with("    "))
        .map(|l| {
            let w: Vec<&str> = l.split_whitespace().collect();
            let at = w.iter().position(|x| *x == "%").unwrap();
            num(w[at - 2])
        })
        .sum();
    assert_eq!(parts, file_len, "{text}");

    // Weighing the columns decompresses every block: LINES holds one
    // varint per event.
    let out = trama(&["info", "--columns", s(&bin)]);
    assert!(out.status.success(), "{}", err(&out));
    let cols = String::from_utf8(out.stdout).unwrap();
    let lines_col = cols
        .lines()
        .find(|l| l.starts_with("LINES"))
        .expect("LINES row");
    assert!(num(lines_col.split_whitespace().nth(1).unwrap()) >= events);

    // Text and damaged files are refused with a reason.
    let out = trama(&["info", s(&tmp.path().join("t.paje"))]);
    assert_eq!(out.status.code(), Some(1));
    assert!(err(&out).contains("trama convert"), "{}", err(&out));
    let good = std::fs::read(&bin).unwrap();
    let bad = tmp.path().join("bad.ptb");
    std::fs::write(&bad, &good[..good.len() - 40]).unwrap();
    let out = trama(&["info", s(&bad)]);
    assert_eq!(out.status.code(), Some(1));
    assert!(err(&out).contains("byte"), "{}", err(&out));
    // An events frame's header claiming more bytes than its place holds
    // (no checksum covers a header, and opening a file reads no events
    // frame) is named by its offset.
    let second = num(rows.iter().find(|r| r[1] == "events").unwrap()[2]);
    let mut v = good.clone();
    let at = second as usize + 4;
    v[at..at + 4].copy_from_slice(&u32::MAX.to_le_bytes());
    std::fs::write(&bad, &v).unwrap();
    let out = trama(&["info", s(&bad)]);
    assert_eq!(out.status.code(), Some(1));
    let e = err(&out);
    assert!(
        e.contains(&format!("byte {second}")) && e.contains("runs into the next"),
        "{e}"
    );
}

/// `.ptb` → `.ptb` (other string mode, level, block size) and `.ptb` →
/// `.rst` give exactly the files the original text gives, whatever quote
/// mode the text was read with; "-" writes standard output.
#[test]
fn binary_converts_to_binary_as_its_text_does() {
    let tmp = tempfile::tempdir().unwrap();
    let targets: [(&str, &[&str]); 4] = [
        ("a.ptb", &[]),
        ("b.ptb", &["--strings", "plain", "--level", "0"]),
        ("c.ptb", &["--level", "9", "--block-events", "100"]),
        ("d.rst", &["--strings", "plain"]),
    ];
    let mut compared = 0;
    for seed in 0..12u64 {
        let path = varied_trace(tmp.path(), &format!("g{seed}"), seed, 400);
        let quotes = quotes_for(seed);
        let convert = |input: &Path, opts: &[&str], out: &Path| -> Option<Vec<u8>> {
            let mut a = vec!["convert", "--no-progress"];
            a.extend(opts);
            a.extend([s(input), s(out)]);
            let r = trama(&a);
            r.status.success().then(|| std::fs::read(out).unwrap())
        };
        let from_text: Vec<Option<Vec<u8>>> = targets
            .iter()
            .map(|(name, opts)| {
                let opts = [quotes, opts].concat();
                convert(&path, &opts, &tmp.path().join(format!("t-{name}")))
            })
            .collect();
        for (src, _) in &targets[..3] {
            let src = tmp.path().join(format!("t-{src}"));
            if !src.is_file() {
                continue;
            }
            for ((name, opts), want) in targets.iter().zip(&from_text) {
                let out = tmp.path().join(format!("b-{name}"));
                let _ = std::fs::remove_file(&out);
                let got = convert(&src, opts, &out);
                assert!(
                    got == *want,
                    "seed {seed}: {} → {name} is not what the text gives",
                    src.display()
                );
                compared += 1;
            }
        }
        // Standard output.
        if let Some(a) = &from_text[0] {
            let mut args = vec!["convert", "--no-progress", "--to", "ptb"];
            args.extend(quotes);
            args.extend([s(&path), "-"]);
            let out = trama(&args);
            assert!(out.status.success(), "{}", err(&out));
            assert!(out.stdout == *a, "seed {seed}: .ptb on standard output");
            let file = tmp.path().join("back.paje");
            let src = tmp.path().join("t-a.ptb");
            let out = trama(&["convert", "--to", "paje", s(&src), "-"]);
            assert!(out.status.success(), "{}", err(&out));
            assert!(convert(&src, &[], &file).is_some());
            assert!(
                out.stdout == std::fs::read(&file).unwrap(),
                "seed {seed}: text on standard output"
            );
        }
    }
    assert!(compared > 60, "only {compared} comparisons");
}

/// A damaged `.ptb` converted to another binary either gives exactly what
/// the intact file gives (the damage lies in a part the conversion does not
/// need, such as a keyframe) or fails with the offset of the damage,
/// leaving no output and warning of nothing else.
#[test]
fn damaged_binary_converts_to_nothing_or_to_the_same() {
    let tmp = tempfile::tempdir().unwrap();
    let bin = small_ptb(tmp.path(), 7);
    let good = std::fs::read(&bin).unwrap();
    let bad = tmp.path().join("bad.ptb");
    let mut failed = 0;
    for name in ["x.ptb", "x.rst"] {
        let target = tmp.path().join(name);
        let args = ["convert", "--strings", "plain", s(&bad), s(&target)];
        std::fs::write(&bad, &good).unwrap();
        let out = trama(&args);
        assert!(out.status.success(), "{}", err(&out));
        let want = std::fs::read(&target).unwrap();
        for at in (0..good.len()).step_by(good.len() / 41 + 1) {
            let mut v = good.clone();
            v[at] ^= 0x21;
            std::fs::write(&bad, &v).unwrap();
            std::fs::remove_file(&target).unwrap_or_default();
            let out = trama(&args);
            let e = err(&out);
            if out.status.success() {
                let got = std::fs::read(&target).unwrap();
                assert!(got == want, "{name}, byte {at} flipped: a different file");
                continue;
            }
            failed += 1;
            assert_eq!(out.status.code(), Some(1), "{name}, byte {at}: {e}");
            assert!(
                e.starts_with("trama: error: ") && e.contains("byte "),
                "{name}, byte {at}: {e}"
            );
            assert!(!e.contains("warning"), "{name}, byte {at}: {e}");
            assert!(!target.exists(), "{name}, byte {at}: output left behind");
        }
    }
    assert!(failed > 40, "only {failed} damaged files failed");
}

/// What the text reader warns about reaches the user whatever the output
/// format.
#[test]
fn text_warnings_reach_every_conversion() {
    let tmp = tempfile::tempdir().unwrap();
    let path = write_in(
        tmp.path(),
        "open.paje",
        "%EventDef PajeDefineContainerType 0\n% Alias string\n% Type string\n% Name string\n",
    );
    for name in ["x.ptb", "x.rst"] {
        let out = trama(&["convert", s(&path), s(&tmp.path().join(name))]);
        assert!(out.status.success(), "{name}: {}", err(&out));
        assert!(
            err(&out).contains("warning") && err(&out).contains("not closed by %EndEventDef"),
            "{name}: {}",
            err(&out)
        );
    }
}
