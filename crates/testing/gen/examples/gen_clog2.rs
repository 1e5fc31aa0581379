//! Writes a CLOG-2 log of ranks in a ring (a state, a send to the next
//! rank, the matching receives), to measure its reading:
//!
//! ```text
//! cargo run --release -p trama-gen --example gen_clog2 -- RANKS ITERATIONS FILE
//! ```
//!
//! The log is written to `FILE.tmp` (never one already there), then
//! renamed; an existing `FILE` is refused and kept.

use std::io::Write;
use std::path::Path;
use std::process::exit;

use trama_gen::clog2::Clog2Writer;

const SEND: i32 = -101;
const RECV: i32 = -102;

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let (Some(ranks), Some(iterations), Some(file)) = (
        args.get(1).and_then(|s| s.parse::<i32>().ok()),
        args.get(2).and_then(|s| s.parse::<i32>().ok()),
        args.get(3),
    ) else {
        eprintln!("usage: gen_clog2 RANKS ITERATIONS FILE");
        exit(2)
    };
    let mut c = Clog2Writer::new(false, ranks.max(1) as u32);
    c.block_size = 64 << 10;
    c.user_solo_events = 0;
    c.statedef(0.0, 300, 600, 601, "gray", "compute");
    c.statedef(0.0, 20, 40, 41, "blue", "MPI_Send");
    c.statedef(0.0, 19, 38, 39, "red", "MPI_Recv");
    c.worlds(0.0);
    let mut t = 1.0;
    let mut tick = || {
        t += 1e-6;
        t
    };
    for i in 0..iterations {
        let tag = i % 100;
        for r in 0..ranks {
            let next = (r + 1) % ranks;
            c.bare(tick(), r, 600);
            c.bare(tick(), r, 601);
            c.bare(tick(), r, 40);
            c.msg(tick(), 0, r, SEND, next, tag, 1024);
            c.bare(tick(), r, 41);
        }
        for r in 0..ranks {
            let next = (r + 1) % ranks;
            c.bare(tick(), next, 38);
            c.msg(tick(), 0, next, RECV, r, tag, 1024);
            c.bare(tick(), next, 39);
        }
    }
    c.end_time = tick() + 1.0;
    let out = Path::new(file);
    if out.exists() {
        eprintln!("gen_clog2: {file} exists: remove it first");
        exit(1)
    }
    let (mut f, tmp) = trama_gen::output::create_beside(out).unwrap_or_else(|e| {
        eprintln!(
            "gen_clog2: cannot create {file}.tmp: {e} (a file of that name is left as it is)"
        );
        exit(1)
    });
    let written = f.write_all(&c.finish()).and_then(|_| f.sync_all());
    if let Err(e) = written.and_then(|_| std::fs::rename(&tmp, out)) {
        let _ = std::fs::remove_file(&tmp);
        eprintln!("gen_clog2: {file}: {e}");
        exit(1)
    }
}
