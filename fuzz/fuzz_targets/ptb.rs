//! Fuzz target: the binary reader (`.ptb`) and the simulation of what it
//! decodes, then its conversion back to text. Frame checksums are
//! recomputed first, so that mutations reach the decoder instead of all
//! stopping at the CRC check (which the reader's tests cover).
#![no_main]

use libfuzzer_sys::fuzz_target;
use trama_ptb::{write_text, PtbFile, ReadOptions, Record};
use trama_sim::{CountingSink, SimOptions, Simulator};

/// Walks the frames from the header on and rewrites each frame's CRC.
fn fix_checksums(v: &mut [u8]) {
    let mut p = 16usize;
    while p + 16 <= v.len() {
        let stored = u32::from_le_bytes(v[p + 4..p + 8].try_into().unwrap()) as usize;
        let Some(end) = (p + 16).checked_add(stored) else { return };
        if end > v.len() {
            return;
        }
        let crc = crc32fast::hash(&v[p + 16..end]);
        v[p + 12..p + 16].copy_from_slice(&crc.to_le_bytes());
        p = end;
    }
}

fuzz_target!(|data: &[u8]| {
    let mut v = data.to_vec();
    fix_checksums(&mut v);
    let Ok(file) = PtbFile::from_vec(v) else {
        return;
    };
    let mut opts = ReadOptions::default();
    opts.threads = (data.len() % 3) & 1;
    let mut sim = Simulator::new(CountingSink::default(), SimOptions::default());
    let r = file.read(&opts, |rec| match rec {
        Record::Text(ev) => sim.event(&ev),
        Record::Handles(h) => sim.event_handles(&h.event),
        Record::Value { ty, name } => sim.declare_value(ty, name),
    });
    if r.is_ok() {
        let _ = sim.finish();
    }
    // A window from the keyframes, bounds from the input's length.
    let t = (data.len() % 97) as f64 / 10.0;
    let mut sopts = SimOptions::default();
    sopts.ignore_incomplete_links = true;
    let mut sim = Simulator::new(CountingSink::default(), sopts);
    let r = file.read_window(&opts, t, t + 1.0, |rec| match rec {
        Record::Text(ev) => sim.event(&ev),
        Record::Handles(h) => sim.event_handles(&h.event),
        Record::Value { ty, name } => sim.declare_value(ty, name),
    });
    if r.is_ok() {
        let _ = sim.finish();
    }
    let _ = write_text(&file, &opts, &mut std::io::sink());
});
