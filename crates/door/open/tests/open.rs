//! Opening traces through the one door: formats told from content, inputs
//! read once (FIFOs, pipes), merge sources read as traces, formats trama
//! does not read named in the error.

use std::path::{Path, PathBuf};

use trama_open::{kinds, Format, LoadOptions, Source};

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../..")
}

use trama_testkit::shared;

/// `samples` in the shared folder beside the repository, when present.
fn samples() -> Option<PathBuf> {
    shared::find("samples", "their cases").map(|d| d.join("samples"))
}

fn format_of(path: &Path) -> Format {
    match trama_open::open(&Source::Path(path.into())) {
        Ok(o) => o.format(),
        Err(trama_open::Error::Unsupported { format, .. }) => format,
        Err(e) => panic!("{}: {e}", path.display()),
    }
}

#[test]
fn merge_kinds_are_told_from_content() {
    let data = repo().join("crates/apps/cli/tests/data/integration");
    for (file, kind) in [
        ("pingpong.clog2", "clog2"),
        ("ftrace-paple01.txt", "sched"),
        ("ganglia.log", "ganglia"),
        ("pcp-paple01.csv", "pcp"),
    ] {
        assert_eq!(kinds::detect(&data.join(file)).unwrap(), kind, "{file}");
    }
    let opents = repo().join("crates/formats/sources/tests/data/opents/small.xml");
    assert_eq!(kinds::detect(&opents).unwrap(), "opents");
    assert_eq!(
        kinds::detect(&repo().join("examples/ring.paje")).unwrap(),
        "paje"
    );
    let Some(s) = samples() else { return };
    for (file, kind) in [
        ("librastro-rst/akypuera/ring/rastro-0-0.rst", "rst"),
        (
            "paje-binary-rastro/committed-2014/rastro-5-5-ms.rst",
            "paje",
        ),
        ("mpe-clog/clog2/cpilog.clog2", "clog2"),
        ("ganglia/gmond-3.3.8-cassandra.xml", "ganglia"),
        ("ganglia/gmetad-3.7.1-pretty-printed.xml", "ganglia"),
        ("pcp/expected/dyninsts.pmrep-csv.unit-info.csv", "pcp"),
        ("pcp/expected/ok-foo.pmdumplog-z-a.txt", "pcp"),
        ("ftrace/tracecompass-trace-android-sched.txt", "sched"),
        ("trace-cmd/trappy-raw_trace.txt", "sched"),
        ("paje-real/simgrid/smpi-replay.paje", "paje"),
    ] {
        assert_eq!(kinds::detect(&s.join(file)).unwrap(), kind, "{file}");
    }
    let e = kinds::detect(&s.join("mpe-clog/clog-v1/fpilog.clog")).unwrap_err();
    assert!(e.to_string().contains("fpilog.clog"), "{e}");
}

#[test]
fn formats_trama_does_not_read_are_named() {
    let Some(s) = samples() else { return };
    for (file, format, words) in [
        (
            "otf2/apex-phylanx/APEX/1.evt",
            Format::Otf2Part,
            "the archive's anchor",
        ),
        (
            "mpe-clog/clog-v1/fpilog.clog",
            Format::UnknownBinary,
            "NUL byte at byte",
        ),
    ] {
        let path = s.join(file);
        assert_eq!(format_of(&path), format, "{file}");
        let e = trama_open::load(&Source::Path(path.clone()), &LoadOptions::default())
            .err()
            .unwrap_or_else(|| panic!("{file} loaded"))
            .to_string();
        assert!(
            e.starts_with(&path.display().to_string()) && e.contains(words),
            "{file}: {e}"
        );
    }
}

/// An OTF2 anchor is read with the files beside it; read from a stream,
/// the error says why it needs its path.
#[test]
fn an_otf2_anchor_is_read_from_its_path() {
    let Some(s) = samples() else { return };
    let path = s.join("otf2/apex-phylanx/APEX.otf2");
    assert_eq!(format_of(&path), Format::Otf2);
    let trace = trama_open::load(&Source::Path(path.clone()), &LoadOptions::default()).unwrap();
    assert_eq!(trace.entity_count(), 8062);
    let data = std::fs::read(&path).unwrap();
    let e = trama_open::open_reader("anchor", std::io::Cursor::new(data))
        .err()
        .expect("an anchor without its path")
        .to_string();
    assert!(
        e.starts_with("anchor: ") && e.contains("give its path"),
        "{e}"
    );
}

/// The same trace read from a file, a FIFO and a reader gives the same
/// store; the FIFO is opened once (reopening it would wait forever for a
/// second writer).
#[test]
fn a_fifo_and_a_reader_are_read_once() {
    let ring = repo().join("examples/ring.paje");
    let text = std::fs::read(&ring).unwrap();
    let opts = LoadOptions::default();
    let want = trama_open::load(&Source::Path(ring.clone()), &opts).unwrap();
    let tmp = tempfile::tempdir().unwrap();
    let fifo = tmp.path().join("fifo");
    let made = std::process::Command::new("mkfifo").arg(&fifo).status();
    if made.is_ok_and(|s| s.success()) {
        let writer = {
            let (fifo, text) = (fifo.clone(), text.clone());
            std::thread::spawn(move || std::fs::write(fifo, text).unwrap())
        };
        let got = trama_open::load(&Source::Path(fifo.clone()), &opts).unwrap();
        writer.join().unwrap();
        assert_eq!(got.entity_count(), want.entity_count());
        assert_eq!(got.model.containers.len(), want.model.containers.len());
    }
    let mut opened = trama_open::open_reader("memory", std::io::Cursor::new(text)).unwrap();
    assert_eq!(opened.format(), Format::PajeText);
    let got = opened.load(&opts).unwrap();
    assert_eq!(got.entity_count(), want.entity_count());
    // A stream is read once: a second reading says so.
    let Err(e) = opened.load(&opts) else {
        panic!("a stream read twice")
    };
    let source = std::error::Error::source(&e).map(|s| s.to_string());
    assert!(source.is_some_and(|s| s.contains("already read")), "{e}");
}

/// Sources of a merge open as traces: their records become Pajé.
#[test]
fn merge_sources_open_as_traces() {
    let opents = repo().join("crates/formats/sources/tests/data/opents/small.xml");
    let data = repo().join("crates/apps/cli/tests/data/integration");
    for (path, format) in [
        (opents, Format::Opents),
        (data.join("ftrace-paple01.txt"), Format::Sched),
        (data.join("ganglia.log"), Format::Ganglia),
        (data.join("pcp-paple01.csv"), Format::Pcp),
        (data.join("pingpong.clog2"), Format::Clog2),
    ] {
        let mut opened = trama_open::open(&Source::Path(path.clone())).unwrap();
        assert_eq!(opened.format(), format, "{}", path.display());
        let trace = opened
            .load(&LoadOptions::default())
            .unwrap_or_else(|e| panic!("{e}"));
        assert!(trace.entity_count() > 0, "{}: empty", path.display());
        assert!(trace.model.containers.len() > 1, "{}", path.display());
    }
}

/// Any trace serves as a merge source, binary or not.
#[test]
fn traces_serve_as_merge_sources() {
    let ring = repo().join("examples/ring.paje");
    let mut source = trama_open::open(&Source::Path(ring))
        .unwrap()
        .into_source()
        .unwrap();
    let mut n = 0;
    while source.next_record().unwrap().is_some() {
        n += 1;
    }
    assert!(n > 100, "{n} records");
}

/// An Akypuera rank file opens as the run of its rank files, as `trama
/// akypuera` converts them, and says so.
#[test]
fn an_akypuera_rank_file_opens_as_its_run() {
    let Some(s) = samples() else { return };
    let dir = s.join("librastro-rst/akypuera/ring");
    let mut ranks: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "rst"))
        .collect();
    ranks.sort();
    assert!(ranks.len() > 1);
    let (text, _) = trama_sources::rst::akypuera_convert(&ranks, Vec::new()).unwrap();
    let opts = LoadOptions::default();
    let want = trama_open::open_reader("text", std::io::Cursor::new(text))
        .unwrap()
        .load(&opts)
        .unwrap();
    let mut opened = trama_open::open(&Source::Path(ranks[1].clone())).unwrap();
    assert_eq!(opened.format(), Format::Rastro);
    let got = opened.load(&opts).unwrap();
    assert_eq!(got.entity_count(), want.entity_count());
    assert_eq!(got.model.containers.len(), want.model.containers.len());
    assert!(
        got.warnings
            .iter()
            .any(|w| w.contains("Akypuera") && w.contains(&ranks.len().to_string())),
        "{:?}",
        got.warnings
    );
}

/// The events of a trace read through `read` with `opts`: each as its
/// line and words; and whether any text chunk came with them.
fn events_of(opened: &mut trama_open::Opened, opts: &LoadOptions) -> (Vec<(u64, String)>, bool) {
    let (mut events, mut chunks) = (Vec::new(), false);
    opened
        .read(opts, |item| {
            match item {
                trama_open::Item::Event(ev) => {
                    let words: Vec<String> = (0..ev.word_count())
                        .map(|i| String::from_utf8_lossy(ev.word(i)).into_owned())
                        .collect();
                    events.push((ev.line(), words.join("\u{1f}")));
                }
                trama_open::Item::Chunk { .. } => chunks = true,
                trama_open::Item::Handles(_) => panic!("no handles asked for"),
            }
            Ok(())
        })
        .unwrap_or_else(|e| panic!("{e}"));
    (events, chunks)
}

/// Regression: a merge source read as a trace hands its events straight
/// from its records (no Pajé text written and read again in between), the
/// same events on the same lines as the Pajé text it converts to.
#[test]
fn merge_sources_hand_their_events_without_text() {
    let opents = repo().join("crates/formats/sources/tests/data/opents/small.xml");
    let data = repo().join("crates/apps/cli/tests/data/integration");
    for path in [
        opents,
        data.join("ftrace-paple01.txt"),
        data.join("ganglia.log"),
        data.join("pcp-paple01.csv"),
        data.join("pingpong.clog2"),
    ] {
        for threads in [1, 2] {
            let mut opts = LoadOptions::default();
            opts.threads = threads;
            let mut direct = trama_open::open(&Source::Path(path.clone())).unwrap();
            let (events, chunks) = events_of(&mut direct, &opts);
            assert!(!chunks, "{}: read through text", path.display());
            let mut text = Vec::new();
            trama_open::open(&Source::Path(path.clone()))
                .unwrap()
                .write_text(&mut text)
                .unwrap();
            let mut reread = trama_open::open_reader("text", std::io::Cursor::new(text)).unwrap();
            opts.quotes = trama_open::QuoteMode::Strip;
            let (expected, _) = events_of(&mut reread, &opts);
            assert!(events.len() > 10, "{}", path.display());
            assert_eq!(events, expected, "{}", path.display());
        }
    }
}
