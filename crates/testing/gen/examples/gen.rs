//! Prints a generated trace: `cargo run -p trama-gen --example gen -- SEED [plain|varied|mutate] [EVENTS]`.

use std::io::Write;

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let seed: u64 = args.get(1).and_then(|s| s.parse().ok()).unwrap_or(1);
    let mode = args.get(2).map(String::as_str).unwrap_or("default");
    let events: Option<usize> = args.get(3).and_then(|s| s.parse().ok());
    let mut o = match mode {
        "plain" | "mutate-plain" => trama_gen::GenOptions::plain(),
        "varied" => trama_gen::GenOptions::varied(seed, 500),
        "noroot" => {
            let mut o = trama_gen::GenOptions::plain();
            o.root_entities = false;
            o
        }
        "oldnames" => {
            let mut o = trama_gen::GenOptions::plain();
            o.old_field_names = true;
            o
        }
        "local" => {
            let mut o = trama_gen::GenOptions::plain();
            o.global_clock = false;
            o
        }
        _ => trama_gen::GenOptions::default(),
    };
    if let Some(n) = events {
        o.events = n;
    }
    let mut text = trama_gen::generate(seed, &o).into_bytes();
    if mode.starts_with("mutate") {
        text = trama_gen::mutate(seed, &text);
    }
    std::io::stdout().write_all(&text).expect("stdout");
}
