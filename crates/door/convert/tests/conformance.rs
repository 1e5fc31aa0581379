//! PajeNG conformance in process, through the library that opens traces:
//! every case of `../shared/conformance/pajeng` read as text, as `.ptb` and
//! as the proposal's `.rst` (both made by `trama-convert`), in both quote
//! modes, on 1 and 4 threads, loaded into the store and streamed, must give
//! PajeNG's verdict and, when accepted, its exact output (the streamed
//! lines in any order).
//!
//! The cases are read from the shared folder beside the repository (or from
//! `$TRAMA_SHARED`). Without it the test prints a note and passes, unless
//! `TRAMA_REQUIRE_SHARED=1` (set by `.ci/run`).

use std::path::{Path, PathBuf};

use trama_convert::{convert, ConvertOptions, Target};
use trama_dump::{dump_trace, DumpOptions, StreamDump};
use trama_open::{LoadOptions, QuoteMode, Source};

use trama_testkit::shared;

fn shared_dir() -> Option<PathBuf> {
    shared::find("conformance/pajeng/MANIFEST.tsv", "conformance cases")
}

/// The options a case's pj_dump arguments ask for.
fn options(args: &[&str], quotes: QuoteMode) -> (LoadOptions, DumpOptions) {
    let mut load = LoadOptions::default();
    let mut dump = DumpOptions::default();
    load.quotes = quotes;
    dump.legacy_event_header = quotes == QuoteMode::Strip;
    let mut it = args.iter();
    let num = |v: Option<&&str>| v.expect("a value").parse::<f64>().expect("a number");
    while let Some(a) = it.next() {
        match *a {
            "-a" => load.stop_at = Some(num(it.next())),
            "-i" => load.no_imbrication = true,
            "-l" => dump.precision = num(it.next()) as usize,
            "-n" => load.strict = false,
            "-s" => dump.start = Some(num(it.next())),
            "-e" => dump.end = Some(num(it.next())),
            "-u" => {
                dump.user_defined = true;
                load.keep_extras = true;
            }
            "-h" => dump.header = true,
            "-z" => load.ignore_incomplete_links = true,
            other => panic!("unknown pj_dump argument {other}"),
        }
    }
    if dump.start.is_some() || dump.end.is_some() {
        load.window = Some((
            dump.start.unwrap_or(f64::NEG_INFINITY),
            dump.end.unwrap_or(f64::INFINITY),
        ));
    }
    (load, dump)
}

/// The trace at `path` dumped in memory, or the error's message.
fn dump(path: &Path, load: &LoadOptions, dump: &DumpOptions) -> Result<Vec<u8>, String> {
    let trace = trama_open::load(&Source::Path(path.into()), load).map_err(|e| e.to_string())?;
    let mut out = Vec::new();
    dump_trace(&trace, dump, &mut out).map_err(|e| e.to_string())?;
    Ok(out)
}

/// The trace at `path` streamed, its lines sorted, or the error's message.
fn stream(path: &Path, load: &LoadOptions, dump: &DumpOptions) -> Result<Vec<Vec<u8>>, String> {
    let mut out = Vec::new();
    let done = trama_open::simulate_into(
        &Source::Path(path.into()),
        StreamDump::new(&mut out, dump),
        load,
    )
    .map_err(|e| e.to_string())?;
    done.sink.finish().map_err(|e| e.to_string())?;
    Ok(sorted(&out))
}

/// The lines of a dump but those of its -h header.
fn without_header(b: &[u8]) -> Vec<&[u8]> {
    b.split(|&c| c == b'\n')
        .filter(|l| !l.windows(18).any(|w| w == b", Container, Type,"))
        .collect()
}

fn sorted(b: &[u8]) -> Vec<Vec<u8>> {
    let mut v: Vec<Vec<u8>> = b
        .split(|&c| c == b'\n')
        .filter(|l| !l.is_empty())
        .map(<[u8]>::to_vec)
        .collect();
    v.sort();
    v
}

/// `text` converted to `to` at `out` (read with `load`'s quote mode).
fn converted(text: &Path, load: &LoadOptions, to: Target, out: &Path) -> Result<(), String> {
    let opened = trama_open::open(&Source::Path(text.into())).map_err(|e| e.to_string())?;
    let mut opts = ConvertOptions::default();
    opts.to = to;
    let file = std::fs::File::create(out).unwrap();
    convert(opened, load, &opts, std::io::BufWriter::new(file))
        .map(|_| ())
        .map_err(|e| e.to_string())
}

#[test]
fn every_case_through_the_library_in_every_format() {
    let Some(shared) = shared_dir() else { return };
    let dir = shared.join("conformance/pajeng");
    let tmp = tempfile::tempdir().unwrap();
    let manifest = std::fs::read_to_string(dir.join("MANIFEST.tsv")).unwrap();
    let mut failures = Vec::new();
    let mut checked = 0;
    for row in manifest.lines().skip(1).filter(|l| !l.is_empty()) {
        let f: Vec<&str> = row.split('\t').collect();
        let (name, trace, args) = (f[0], dir.join(f[1]), f[2]);
        if f.get(5)
            .is_some_and(|n| n.contains("undefined-behaviour-in-pajeng"))
        {
            continue;
        }
        let args: Vec<&str> = args.split_whitespace().collect();
        for (mode, rc, quotes) in [
            ("head", f[3], QuoteMode::Keep),
            ("v1310", f[4], QuoteMode::Strip),
        ] {
            let expected = std::fs::read(dir.join(format!("{name}.{mode}.out"))).unwrap();
            let (load, dump_opts) = options(&args, quotes);
            let mut inputs = vec![("text", trace.clone())];
            for (what, to, ext) in [("ptb", Target::Ptb, "ptb"), ("rst", Target::Rastro, "rst")] {
                let out = tmp.path().join(format!("{name}-{mode}.{ext}"));
                match converted(&trace, &load, to, &out) {
                    Ok(()) => inputs.push((what, out)),
                    // Only a trace PajeNG rejects may fail to convert.
                    Err(e) if rc == "0" => failures.push(format!("{name} [{mode}] → {what}: {e}")),
                    Err(_) => {}
                }
            }
            for (what, path) in &inputs {
                for threads in [1, 4] {
                    let mut load = load.clone();
                    load.threads = threads;
                    let case = format!("{name} [{mode}, {what}, {threads} threads]");
                    checked += 1;
                    let got = dump(path, &load, &dump_opts);
                    let streamed = stream(path, &load, &dump_opts);
                    match (rc, got, streamed) {
                        ("0", Ok(got), Ok(lines)) => {
                            // The proposal's format keeps no names of
                            // user-defined fields: the -h header names
                            // them Extra1, Extra2...
                            let names_kept = !(*what == "rst" && dump_opts.header);
                            if names_kept && got != expected
                                || !names_kept && without_header(&got) != without_header(&expected)
                            {
                                failures.push(format!("{case}: dump differs from PajeNG's"));
                            }
                            if !dump_opts.header && lines != sorted(&expected) {
                                failures.push(format!("{case}: streamed lines differ"));
                            }
                        }
                        ("0", got, streamed) => failures.push(format!(
                            "{case}: rejected but PajeNG accepts: {:?} / {:?}",
                            got.err(),
                            streamed.err()
                        )),
                        (_, Ok(_), _) => failures.push(format!("{case}: PajeNG rejects it")),
                        (_, Err(e), _) => {
                            if !e.contains(&path.display().to_string()) {
                                failures.push(format!("{case}: the error does not name it: {e}"));
                            }
                        }
                    }
                }
            }
        }
    }
    assert!(checked > 500, "only {checked} readings");
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// A `.ptb` read from a pipe (into memory) gives what it gives memory-mapped.
#[test]
fn a_binary_trace_from_a_reader() {
    let ring = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../examples/ring.paje");
    let tmp = tempfile::tempdir().unwrap();
    let ptb = tmp.path().join("ring.ptb");
    converted(&ring, &LoadOptions::default(), Target::Ptb, &ptb).unwrap();
    let opts = LoadOptions::default();
    let dump_opts = DumpOptions::default();
    let mapped = dump(&ptb, &opts, &dump_opts).unwrap();
    let bytes = std::fs::read(&ptb).unwrap();
    let mut opened = trama_open::open_reader("pipe", std::io::Cursor::new(bytes)).unwrap();
    assert_eq!(opened.format(), trama_open::Format::Ptb);
    assert!(opened.ptb().is_some());
    let mut piped = Vec::new();
    dump_trace(&opened.load(&opts).unwrap(), &dump_opts, &mut piped).unwrap();
    assert!(mapped == piped, "a .ptb from a reader dumps differently");
    assert_eq!(mapped, dump(&ring, &opts, &dump_opts).unwrap());
}
