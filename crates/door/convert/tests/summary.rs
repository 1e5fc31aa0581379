//! The summary a viewer reads of the whole trace, carried by a `.ptb` a
//! conversion writes (its summary frame): what readers that do not look
//! for it (dump, check, replay) read stays the same.

use std::path::{Path, PathBuf};

use trama_convert::ConvertOptions;
use trama_dump::{dump_trace, DumpOptions};
use trama_open::{LoadOptions, Source};

/// A trace of a few blocks, as Pajé text in `dir`.
fn text(dir: &Path) -> PathBuf {
    let lines = [
        "%EventDef PajeDefineContainerType 0",
        "% Alias string",
        "% Type string",
        "% Name string",
        "%EndEventDef",
        "%EventDef PajeDefineStateType 1",
        "% Alias string",
        "% Type string",
        "% Name string",
        "%EndEventDef",
        "%EventDef PajeCreateContainer 2",
        "% Time date",
        "% Alias string",
        "% Type string",
        "% Container string",
        "% Name string",
        "%EndEventDef",
        "%EventDef PajeSetState 3",
        "% Time date",
        "% Type string",
        "% Container string",
        "% Value string",
        "%EndEventDef",
        "0 P 0 Process",
        "1 S P State",
        "2 0 p1 P 0 p1",
        "2 0 p2 P 0 p2",
    ];
    let mut t: String = lines.iter().map(|l| format!("{l}\n")).collect();
    for i in 0..5000 {
        let v = ["run", "wait", "send"][i % 3];
        t.push_str(&format!(
            "3 {}.{:03} S p{} {v}\n",
            i / 10,
            i % 1000,
            1 + i % 2
        ));
    }
    let path = dir.join("t.paje");
    std::fs::write(&path, t).unwrap();
    path
}

/// `text` converted by `convert_file` into `name`, with its summary from
/// `summary_from` events.
fn converted(text: &Path, name: &str, summary_from: Option<u64>) -> PathBuf {
    let out = text.with_file_name(name);
    let opened = trama_open::open(&Source::Path(text.into())).unwrap();
    let mut opts = ConvertOptions::default();
    opts.block_events = 256;
    opts.summary_from = summary_from;
    let (file, _) =
        trama_convert::convert_file(opened, &LoadOptions::default(), opts, &out, &[text], true)
            .unwrap();
    file.commit().unwrap();
    out
}

fn dump(path: &Path, threads: usize) -> Vec<u8> {
    let mut load = LoadOptions::default();
    load.threads = threads;
    let trace = trama_open::load(&Source::Path(path.into()), &load).unwrap();
    let mut out = Vec::new();
    dump_trace(&trace, &DumpOptions::default(), &mut out).unwrap();
    out
}

/// Regression: a converted `.ptb` did not carry the whole trace's summary,
/// which a viewer then gathered from every block; it does now (a frame
/// after the footer) when asked or large enough, and a small one does not.
#[test]
fn a_converted_ptb_carries_the_summary_frame() {
    let dir = tempfile::tempdir().unwrap();
    let text = text(dir.path());
    let with = converted(&text, "with.ptb", Some(0));
    let by_default = converted(&text, "default.ptb", ConvertOptions::default().summary_from);
    let file = trama_ptb::PtbFile::open(&with).unwrap().unwrap();
    let (payload, size) = file.summary().expect("a summary frame");
    assert_eq!(payload[..4], *b"TRVS");
    let plain = std::fs::read(&by_default).unwrap();
    assert_eq!(size, plain.len() as u64, "the file without it");
    let frames = file.frames().unwrap();
    assert_eq!(frames.last().unwrap().kind, trama_ptb::FrameKind::Summary);
    // What the frame holds is what a pass over the blocks gathers.
    let windows = trama_open::PtbWindows::open(&with).unwrap();
    let gathered = trama_convert::summary::gather(&windows, None).unwrap();
    assert_eq!(
        payload,
        trama_lod::saved::encode(&gathered, size, file.events())
    );
    let small = trama_ptb::PtbFile::open(&by_default).unwrap().unwrap();
    assert!(small.summary().is_none(), "5,000 events: no summary");
    assert_eq!(frames.len(), small.frames().unwrap().len() + 1);
}

/// Regression: readers that do not look for the summary frame skip it:
/// the dump of a file with it is the dump of the file without, byte for
/// byte (loaded, replayed in parallel, and as text).
#[test]
fn the_summary_frame_is_skipped_by_dump_and_check() {
    let dir = tempfile::tempdir().unwrap();
    let text = text(dir.path());
    let with = converted(&text, "with.ptb", Some(0));
    let without = converted(&text, "without.ptb", None);
    assert!(std::fs::metadata(&with).unwrap().len() > std::fs::metadata(&without).unwrap().len());
    for threads in [1, 4] {
        let d = dump(&with, threads);
        assert!(d.len() > 100_000);
        assert_eq!(d, dump(&without, threads), "{threads} threads");
    }
    let as_text = |p: &Path| {
        let mut out = Vec::new();
        let mut opened = trama_open::open(&Source::Path(p.into())).unwrap();
        opened.write_text(&mut out).unwrap();
        out
    };
    let t = as_text(&with);
    assert!(t.len() > 50_000, "{} bytes", t.len());
    assert!(t == as_text(&without), "the same text");
}
