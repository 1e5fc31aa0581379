//! Shared by the viewer's integration tests: a trace loaded with its
//! user-defined fields, and served on a free port.
#![allow(dead_code)]

use std::path::Path;

use trama_open::{LoadOptions, Source};
use trama_sim::Trace;
use trama_viewer::{start, Running, ViewerOptions};

/// The trace at `path`, with its user-defined fields.
pub fn load(path: &Path) -> Trace {
    let mut o = LoadOptions::default();
    o.keep_extras = true;
    trama_open::load(&Source::Path(path.into()), &o).unwrap()
}

/// `trace` served on a free port, named `name`.
pub fn serve(trace: Trace, name: &str) -> Running {
    let mut opts = ViewerOptions::default();
    opts.port = Some(0);
    opts.name = name.into();
    start(trace, &opts).unwrap()
}

/// The offline report of `trace` (named `name`) written in `dir` as a page
/// with the report's content policy: its `file://` URL.
pub fn offline_page(trace: &Trace, name: &str, dir: &Path) -> String {
    let o = trama_viewer::offline(trace, name, &trama_viewer::OfflineOptions::default());
    let html = dir.join("report.html");
    std::fs::write(
        &html,
        format!(
            "<!doctype html><html><head><meta charset=\"utf-8\"><meta http-equiv=\"Content-Security-Policy\" content=\"{}\">{}</head><body>{}</body></html>",
            trama_viewer::offline::POLICY,
            o.style,
            o.body
        ),
    )
    .unwrap();
    format!("file://{}", html.canonicalize().unwrap().display())
}

/// An MPI run of `ranks` ranks with wait states of every pattern (Pajé, as
/// SMPI writes it), from the why analysis's generator, written in `dir`.
pub fn mpi_run(dir: &Path, ranks: usize) -> std::path::PathBuf {
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../analyses/why/tests/mpi_runs.py");
    let out = std::process::Command::new("/usr/bin/python3")
        .arg(&script)
        .arg(dir)
        .args([
            "--no-otf2",
            "--ranks",
            &ranks.to_string(),
            "--iterations",
            "1",
        ])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    dir.join("waits.paje")
}

/// The longest link of the trace: its ends' names, start and end.
pub fn longest_link(trace: &Trace) -> (String, String, f64, f64) {
    let m = &trace.model;
    let mut best: Option<(String, String, f64, f64)> = None;
    for (l, info) in m.lists.iter().enumerate() {
        if info.kind != trama_sim::TypeKind::Link {
            continue;
        }
        let cols = &trace.lists[l];
        for i in 0..cols.len() {
            if best
                .as_ref()
                .is_none_or(|b| cols.end[i] - cols.start[i] > b.3 - b.2)
            {
                let name = |c: u32| m.label(m.container(trama_sim::ContainerId(c)).name);
                best = Some((
                    name(cols.from[i]),
                    name(cols.to[i]),
                    cols.start[i],
                    cols.end[i],
                ));
            }
        }
    }
    best.expect("the example has links")
}
