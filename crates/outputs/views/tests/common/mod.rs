//! Shared by the tests: simulates a Pajé text into a trace store.

use trama_paje::{read_paje, ReadOptions};
use trama_sim::Trace;

/// Simulates `text` (a valid trace).
#[allow(clippy::result_large_err)]
pub fn simulate(text: &str) -> Trace {
    trama_testkit::traces::simulated(false, |sim| {
        read_paje(text.as_bytes(), &ReadOptions::default(), |ev| {
            sim.event(&ev)
        })
        .ok()
    })
    .expect("valid")
}

/// The ring example of the repository: 4 ranks on 2 nodes.
#[allow(dead_code)]
pub fn ring() -> Trace {
    let example =
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../examples/ring.paje");
    simulate(&std::fs::read_to_string(example).unwrap())
}

/// `#rrggbb` as bytes.
#[allow(dead_code)]
pub fn rgb(hex: &str) -> [u8; 3] {
    let v = |i: usize| u8::from_str_radix(&hex[i..i + 2], 16).unwrap();
    [v(1), v(3), v(5)]
}

/// The frames of an animated GIF as RGBA buffers (whole frames).
#[allow(dead_code)]
pub fn gif_frames(bytes: &[u8]) -> Vec<Vec<u8>> {
    let mut o = gif::DecodeOptions::new();
    o.set_color_output(gif::ColorOutput::RGBA);
    let mut d = o.read_info(bytes).unwrap();
    let mut out = Vec::new();
    while let Some(f) = d.read_next_frame().unwrap() {
        assert_eq!((f.left, f.top), (0, 0), "whole frames");
        out.push(f.buffer.to_vec());
    }
    out
}
