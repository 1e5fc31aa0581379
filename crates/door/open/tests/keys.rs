//! Link keys in a filter of fixed size (`LoadOptions::key_filter`): a
//! reuse in a file is the exact simulation's error (its suspects confirmed
//! by reading the file again), in a stream a warning; a valid trace is
//! never rejected, however small the filter.

use std::path::Path;

use trama_dump::{DumpOptions, StreamDump};
use trama_open::{LoadOptions, Source, KEY_FILTER_BYTES};
use trama_sim::CountingSink;

fn header(link_types: &[&str]) -> String {
    let mut text = trama_gen::link_event_defs();
    text.push_str("0 P 0 P\n");
    for t in link_types {
        text.push_str(&format!("1 {t} 0 P P {t}\n"));
    }
    text.push_str("2 0 p1 P 0 p1\n2 0 p2 P 0 p2\n");
    text
}

/// `n` links of unique keys in each link type of `types` (so each key is
/// used once per type: legal, as keys are per type and container).
fn links(text: &mut String, types: &[&str], from: usize, n: usize) {
    for i in from..from + n {
        for t in types {
            text.push_str(&format!("3 {i} {t} 0 p1 v k{i}\n4 {i}.5 {t} 0 p2 v k{i}\n"));
        }
    }
}

/// Key `k{key}` of `L` used again at time `at`; returns the line.
fn reuse(text: &mut String, key: usize, at: usize) -> u64 {
    let line = text.lines().count() as u64 + 1;
    text.push_str(&format!(
        "3 {at} L 0 p1 v k{key}\n4 {at}.5 L 0 p2 v k{key}\n"
    ));
    line
}

fn options(threads: usize, key_filter: Option<usize>) -> LoadOptions {
    let mut o = LoadOptions::default();
    o.threads = threads;
    o.key_filter = key_filter;
    o
}

fn write(dir: &Path, name: &str, text: &str) -> Source {
    let path = dir.join(name);
    std::fs::write(&path, text).unwrap();
    Source::Path(path)
}

/// The simulation's verdict: its link count and warnings, or its error.
fn check(source: &Source, opts: &LoadOptions) -> Result<(u64, Vec<String>), String> {
    trama_open::simulate_into(source, CountingSink::default(), opts)
        .map(|done| (done.sink.links, done.warnings))
        .map_err(|e| e.to_string())
}

/// The streamed dump, or the error.
fn streamed(source: &Source, opts: &LoadOptions) -> Result<Vec<u8>, String> {
    let mut out = Vec::new();
    let done = trama_open::simulate_into(
        source,
        StreamDump::new(&mut out, &DumpOptions::default()),
        opts,
    )
    .map_err(|e| e.to_string())?;
    done.sink.finish().unwrap();
    Ok(out)
}

#[test]
fn a_reused_key_in_a_file_is_the_exact_error_whatever_the_filter() {
    let tmp = tempfile::tempdir().unwrap();
    let mut text = header(&["L"]);
    links(&mut text, &["L"], 0, 300);
    let line = reuse(&mut text, 7, 300);
    let source = write(tmp.path(), "reused.paje", &text);
    for threads in [1, 2] {
        let exact = check(&source, &options(threads, None)).unwrap_err();
        assert!(
            exact.contains(&format!(":{line}: link key 'k7'")),
            "{exact}"
        );
        // Kept exactly (the default size, for 300 keys), taken in after 56
        // keys, and in a filter of one block from the start.
        for filter in [KEY_FILTER_BYTES, 4096, 64] {
            let got = check(&source, &options(threads, Some(filter)));
            assert_eq!(
                got,
                Err(exact.clone()),
                "{threads} thread(s), {filter} bytes"
            );
            let got = streamed(&source, &options(threads, Some(filter)));
            assert_eq!(got, Err(exact.clone()), "streamed");
        }
    }
}

#[test]
fn an_early_reuse_is_found_while_a_tiny_filter_suspects_the_rest() {
    // A filter of 64 bytes keeps at most 16 suspects before confirming
    // them: the reuse is found long before the end, at its line.
    let tmp = tempfile::tempdir().unwrap();
    let mut text = header(&["L"]);
    links(&mut text, &["L"], 0, 50);
    reuse(&mut text, 3, 50);
    links(&mut text, &["L"], 51, 2000);
    let source = write(tmp.path(), "early.paje", &text);
    for threads in [1, 2] {
        let exact = check(&source, &options(threads, None)).unwrap_err();
        let got = check(&source, &options(threads, Some(64)));
        assert_eq!(got, Err(exact), "{threads} thread(s)");
    }
}

#[test]
fn a_reused_key_in_a_stream_is_a_warning_with_its_line() {
    let mut text = header(&["L"]);
    links(&mut text, &["L"], 0, 300);
    let line = reuse(&mut text, 7, 300);
    let opened = trama_open::open_reader("piped", std::io::Cursor::new(text.into_bytes()));
    let done = opened
        .unwrap()
        .simulate_into(CountingSink::default(), &options(2, Some(4096)))
        .expect("a stream cannot be read again: the reuse is only suspected");
    assert_eq!(done.sink.links, 301);
    let warning =
        format!("link key 'k7' of type 'L' in container '0' possibly reused (line {line})");
    assert!(
        done.warnings.iter().any(|w| w.starts_with(&warning)),
        "{:?}",
        done.warnings
    );
}

#[test]
fn a_tiny_filter_never_rejects_a_valid_trace() {
    // Every key is used once in each of two link types: after a few
    // dozen links a one-block filter takes nearly every new key for a
    // used one, and the reading again cannot clear the second type's keys
    // by their occurrences alone (each occurred in the first type), so
    // they are simulated again.
    let tmp = tempfile::tempdir().unwrap();
    let mut text = header(&["L", "M"]);
    links(&mut text, &["L", "M"], 0, 1500);
    let source = write(tmp.path(), "valid.paje", &text);
    for threads in [1, 2] {
        let exact = check(&source, &options(threads, None)).unwrap();
        assert_eq!(exact, (3000, Vec::new()));
        let filtered = check(&source, &options(threads, Some(64)));
        assert_eq!(filtered, Ok(exact), "{threads} thread(s)");
        let want = streamed(&source, &options(threads, None)).unwrap();
        let got = streamed(&source, &options(threads, Some(64))).unwrap();
        assert!(got == want, "the streamed dump differs with the filter");
    }
}
