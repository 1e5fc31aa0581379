//! Fuzz target: the binary reader (`.ptb`), both ways of simulating what it
//! decodes (the reference engine fed in order, and the parallel replay from
//! keyframes, whole and for a window), then its conversion back to text.
//! Frame checksums are recomputed first, so that mutations reach the
//! decoders instead of all stopping at the CRC check (which the reader's
//! tests cover). The replay vouches only for traces the engine accepts:
//! when it succeeds, the engine must not reject the trace, and both must
//! count the same.
#![no_main]

use libfuzzer_sys::fuzz_target;
use trama_ptb::{write_text, PtbFile, ReadError, ReadOptions, Decoded, ReplayOptions, Replayed};
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
        // Version 5 covers the header's first 12 bytes too; 4, the payload.
        let mut crc = crc32fast::Hasher::new();
        if v.get(8..10).is_some_and(|x| u16::from_le_bytes([x[0], x[1]]) >= 5) {
            crc.update(&v[p..p + 12]);
        }
        crc.update(&v[p + 16..end]);
        v[p + 12..p + 16].copy_from_slice(&crc.finalize().to_le_bytes());
        p = end;
    }
}

fuzz_target!(|data: &[u8]| {
    let mut v = data.to_vec();
    fix_checksums(&mut v);
    let Ok(file) = PtbFile::from_vec(v) else {
        return;
    };
    // What `trama info` reads: the index and the frame headers.
    if let Ok(frames) = file.frames() {
        let stored: u64 = frames.iter().map(|f| f.stored).sum();
        assert!(stored <= file.len(), "frames larger than the file");
    }
    let mut opts = ReadOptions::default();
    opts.threads = (data.len() % 3) & 1;
    let mut sim = Simulator::new(CountingSink::default(), SimOptions::default());
    let r = file.read(&opts, |rec| match rec {
        Decoded::Text(ev) => sim.event(&ev),
        Decoded::Handles(h) => sim.event_handles(&h.event),
    });
    // `None`: the file is damaged (the reference path is stricter about
    // parts no simulation uses); `Some(Err)`: the engine rejects the trace.
    let reference = match r {
        Ok(()) => Some(sim.finish().map(|(_, c, _)| c)),
        Err(ReadError::Handler(e)) => Some(Err(e)),
        Err(ReadError::Format(_)) => None,
    };
    let mut ro = ReplayOptions::default();
    ro.threads = 1 + data.len() % 2;
    if let Ok((Replayed::Done(c), _)) = file.replay_counts(&ro) {
        match reference {
            Some(Ok(want)) => assert_eq!(want, c.counts),
            Some(Err(e)) => panic!("the replay accepted a trace the engine rejects: {e}"),
            None => {}
        }
    }
    // A window, bounds from the input's length.
    let t = (data.len() % 97) as f64 / 10.0;
    ro.window = Some((t, t + 1.0));
    let _ = file.replay_trace(&ro);
    // The text has as many lines as the file says (blank ones stand for
    // comments); a damaged count can ask for petabytes of them, which the
    // writer streams in bounded memory, but not in a fuzzer's time.
    if file.text_lines() <= 1 << 20 {
        let _ = write_text(&file, &opts, &mut std::io::sink());
    }
});
