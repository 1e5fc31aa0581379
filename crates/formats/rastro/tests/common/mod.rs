//! Helpers shared by the integration tests: the shared sample folder,
//! simulating and dumping text and binary traces.
#![allow(dead_code)]

use std::path::{Path, PathBuf};

use trama_dump::{dump_trace, DumpOptions};
use trama_events::Event;
use trama_paje::read_paje;
use trama_rastro::paje::{read_rastro_paje, ReadOptions};
use trama_sim::{SimOptions, Simulator, TraceBuilder};

/// `<workspace>/../shared`, when its `samples` folder exists. Without it the
/// caller skips (prints a note), unless `TRAMA_REQUIRE_SHARED=1`.
pub fn shared() -> Option<PathBuf> {
    let dir = match std::env::var_os("TRAMA_SHARED") {
        Some(d) => PathBuf::from(d),
        None => Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/../../../../shared")).to_path_buf(),
    };
    if dir.join("samples").is_dir() {
        return Some(dir);
    }
    if std::env::var("TRAMA_REQUIRE_SHARED").as_deref() == Ok("1") {
        panic!(
            "shared test material not found at {} (TRAMA_REQUIRE_SHARED=1)",
            dir.display()
        );
    }
    println!("SKIPPED: ../shared/samples not found");
    None
}

pub fn read(path: &Path) -> Vec<u8> {
    std::fs::read(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// Simulates events given by `feed` and dumps the trace as pj_dump does.
pub fn simulate(
    feed: impl FnOnce(&mut dyn FnMut(Event<'_>) -> Result<(), String>) -> Result<(), String>,
) -> Result<Vec<u8>, String> {
    let mut sim = Simulator::new(TraceBuilder::default(), SimOptions::default());
    feed(&mut |ev| sim.event(&ev).map_err(|e| e.to_string()))?;
    let (model, sink, warnings) = sim.finish().map_err(|e| e.to_string())?;
    let trace = sink.into_trace(model, warnings);
    let mut out = Vec::new();
    dump_trace(&trace, &DumpOptions::default(), &mut out).map_err(|e| e.to_string())?;
    Ok(out)
}

/// pj_dump output of a text trace.
pub fn dump_text(text: &[u8]) -> Result<Vec<u8>, String> {
    dump_text_with(text, &trama_paje::ReadOptions::default())
}

/// pj_dump output of a text trace read with the given options.
pub fn dump_text_with(text: &[u8], opts: &trama_paje::ReadOptions) -> Result<Vec<u8>, String> {
    simulate(|h| {
        read_paje(text, opts, h)
            .map(|_| ())
            .map_err(|e| e.to_string())
    })
}

/// pj_dump output of a binary trace.
pub fn dump_rastro(data: &[u8]) -> Result<Vec<u8>, String> {
    simulate(|h| {
        read_rastro_paje(data, &ReadOptions::default(), h)
            .map(|_| ())
            .map_err(|e| e.to_string())
    })
}

pub fn without_quotes(b: &[u8]) -> Vec<u8> {
    b.iter().copied().filter(|&c| c != b'"').collect()
}

/// First differing line of two texts, for messages.
pub fn first_difference(a: &[u8], b: &[u8]) -> String {
    let la: Vec<&[u8]> = a.split(|&c| c == b'\n').collect();
    let lb: Vec<&[u8]> = b.split(|&c| c == b'\n').collect();
    for i in 0..la.len().max(lb.len()) {
        let x = la.get(i).copied().unwrap_or(b"<none>");
        let y = lb.get(i).copied().unwrap_or(b"<none>");
        if x != y {
            return format!(
                "line {}: {:?} vs {:?}",
                i + 1,
                String::from_utf8_lossy(x),
                String::from_utf8_lossy(y)
            );
        }
    }
    "no difference".into()
}
