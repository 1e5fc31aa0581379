//! Damaged inputs never make a reader (or the writer after it) panic: each
//! real and crafted input is mutated many times (bytes changed, inserted,
//! removed, the file cut) and read to its end; errors are fine, panics are
//! not.

mod common;

use std::io::Cursor;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::PathBuf;

use trama_records::{Dialect, PajeWriter, Source, SourceError, WriterOptions};

use trama_sources::{clog2, ganglia, opents, pcp, rst, sched, trace, OpenSource};

// Deterministic pseudo-random numbers (xorshift).
use trama_gen::XorShift64 as Rng;

const INTERESTING: &[u8] = b" \t\n0-9.:=<>/\"#%\xff\x00";

fn mutate(data: &[u8], rng: &mut Rng) -> Vec<u8> {
    let mut d = data.to_vec();
    for _ in 0..1 + rng.below(4) {
        if d.is_empty() {
            break;
        }
        let at = rng.below(d.len());
        match rng.below(5) {
            0 => d[at] = rng.next() as u8,
            1 => d[at] = INTERESTING[rng.below(INTERESTING.len())],
            2 => d.insert(at, INTERESTING[rng.below(INTERESTING.len())]),
            3 => {
                d.remove(at);
            }
            _ => d.truncate(at),
        }
    }
    d
}

/// Reads a whole source and writes its records; errors are expected.
fn drain(src: Result<Box<dyn Source>, SourceError>) {
    let Ok(mut src) = src else { return };
    let mut dialect = Dialect::standard();
    for x in src.extra_fields() {
        if let Some(t) = trama_events::FieldType::from_name(x.field_type.as_bytes()) {
            dialect = dialect.with_extras(x.kind, &[(x.name.as_str(), t)]);
        }
    }
    let mut w = PajeWriter::new(std::io::sink(), dialect, WriterOptions::default()).unwrap();
    while let Ok(Some(r)) = src.next_record() {
        if w.write(&r).is_err() {
            return;
        }
    }
}

type Open = dyn Fn(&str, Vec<u8>) -> Result<Box<dyn Source>, SourceError>;

fn text(d: &[u8]) -> String {
    String::from_utf8_lossy(d).into_owned()
}

/// Writes the bytes to a file for the readers that open paths.
fn via_file(name: &str, d: &[u8]) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("trama-robust-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let p = dir.join(name.replace('/', "_"));
    std::fs::write(&p, d).unwrap();
    p
}

/// A reader's result as a boxed source.
fn boxed<S: Source + 'static>(src: Result<S, SourceError>) -> Result<Box<dyn Source>, SourceError> {
    src.map(|s| Box::new(s) as Box<dyn Source>)
}

/// A reader of a kind that reads its whole input, given as it is or
/// (`as_text`) as text made valid UTF-8.
fn whole<S: OpenSource + Source + 'static>(opts: S::Options, as_text: bool) -> Box<Open>
where
    S::Options: 'static,
{
    Box::new(move |n: &str, d: Vec<u8>| {
        let d = if as_text { text(&d).into_bytes() } else { d };
        boxed(S::from_reader(n, d.as_slice(), &opts))
    })
}

fn readers() -> Vec<(&'static str, Box<Open>)> {
    let mut pcp_opts = pcp::PcpOptions::default();
    pcp_opts.host = Some("h".into());
    pcp_opts.year = Some(2020);
    vec![
        (
            "rst",
            whole::<rst::RstSource>(rst::RstOptions::default(), false),
        ),
        (
            "clog2",
            Box::new(|n: &str, d: Vec<u8>| {
                let p = via_file(n, &d);
                boxed(clog2::Clog2Source::open(
                    &p,
                    &clog2::Clog2Options::default(),
                ))
            }),
        ),
        (
            "ganglia",
            whole::<ganglia::GangliaSource>(ganglia::GangliaOptions::default(), false),
        ),
        ("pcp", whole::<pcp::PcpSource>(pcp_opts, true)),
        (
            "sched",
            whole::<sched::SchedSource>(sched::SchedOptions::new("h"), true),
        ),
        (
            "opents",
            Box::new(|n: &str, d: Vec<u8>| {
                let opts = opents::OpentsOptions::default();
                boxed(opents::OpentsSource::from_reader(n, Cursor::new(d), &opts))
            }),
        ),
        (
            "paje",
            Box::new(|n: &str, d: Vec<u8>| {
                let opts = trace::TraceOptions::default();
                boxed(trace::TraceSource::from_reader(n, Cursor::new(d), &opts))
            }),
        ),
    ]
}

/// The inputs of each reader: its crafted files, and real samples when
/// the shared folder is there.
fn inputs(kind: &str) -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = Vec::new();
    let own = common::data(kind);
    if let Ok(rd) = std::fs::read_dir(&own) {
        files.extend(rd.flatten().map(|e| e.path()).filter(|p| {
            let n = p.file_name().unwrap().to_string_lossy().to_string();
            !n.ends_with(".expected") && !n.ends_with(".toml") && n != "machines"
        }));
    }
    let shared = match kind {
        "rst" => Some("librastro-rst/akypuera/ring"),
        "clog2" => Some("mpe-clog/clog2"),
        "ganglia" => Some("ganglia"),
        "pcp" => Some("pcp/expected"),
        "sched" => Some("ftrace"),
        "paje" => Some("paje-real/simgrid"),
        _ => None,
    };
    if let Some(dir) = shared.and_then(common::samples) {
        let mut real: Vec<PathBuf> = std::fs::read_dir(dir)
            .unwrap()
            .flatten()
            .map(|e| e.path())
            .filter(|p| {
                p.is_file()
                    && !p.extension().is_some_and(|e| e == "tesh" || e == "out")
                    && !p.to_string_lossy().contains("expected.paje")
            })
            .collect();
        real.sort();
        files.extend(real.into_iter().take(3));
    }
    files.sort();
    files
}

#[test]
fn mutated_inputs_never_panic() {
    let rounds: usize = std::env::var("TRAMA_ROBUST_ROUNDS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(60);
    let mut checked = 0;
    for (kind, open) in readers() {
        let files = inputs(kind);
        assert!(
            !files.is_empty() || kind == "opents" || kind == "paje",
            "no input for {kind}"
        );
        if kind == "opents" && files.is_empty() {
            panic!("the crafted OpenTS file is missing");
        }
        for f in files {
            let data = std::fs::read(&f).unwrap();
            // Keep big files fast: mutate their first 64 KiB.
            let data = &data[..data.len().min(64 << 10)];
            let mut rng = Rng(0x9E37_79B9_7F4A_7C15 ^ data.len() as u64);
            for round in 0..rounds {
                let m = mutate(data, &mut rng);
                let name = format!("{kind}-{round}");
                let r = catch_unwind(AssertUnwindSafe(|| drain(open(&name, m.clone()))));
                if r.is_err() {
                    let keep = std::env::temp_dir().join(format!("trama-panic-{name}"));
                    std::fs::write(&keep, &m).unwrap();
                    panic!(
                        "{kind} reader panicked on mutation {round} of {} (input kept in {})",
                        f.display(),
                        keep.display()
                    );
                }
                checked += 1;
            }
        }
    }
    eprintln!("{checked} mutated inputs read without a panic");
    assert!(checked > 0);
}
