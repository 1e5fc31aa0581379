//! Decodes a `.ptb` file and counts its records: the reader's throughput
//! without simulation. `cargo run --release -p trama-ptb --example ptb_decode FILE [THREADS]`;
//! with `--columns` instead of THREADS, how many frames use each layout and
//! codec, and the weight of each column.
fn main() {
    let mut args = std::env::args().skip(1);
    let path = args
        .next()
        .expect("usage: ptb_decode FILE [THREADS | --columns]");
    let next = args.next();
    if next.as_deref() == Some("--columns") {
        let file = trama_ptb::PtbFile::open(std::path::Path::new(&path))
            .expect("open")
            .expect("valid file");
        println!(
            "layouts {:?}, codecs {:?}",
            file.frame_layouts().expect("valid frames"),
            file.frame_codecs()
        );
        println!("{:<8} {:>12} {:>12}", "column", "raw", "zstd-1");
        for (name, raw, z) in file.column_sizes(1).expect("valid frames") {
            println!("{name:<8} {raw:>12} {z:>12}");
        }
        return;
    }
    let threads: usize = next.map_or(1, |t| t.parse().expect("threads"));
    let t0 = std::time::Instant::now();
    let file = trama_ptb::PtbFile::open(std::path::Path::new(&path))
        .expect("open")
        .expect("valid file");
    let mut opts = trama_ptb::ReadOptions::default();
    opts.threads = threads;
    let (mut text, mut handles) = (0u64, 0u64);
    file.read(&opts, |r| -> Result<(), ()> {
        match r {
            trama_ptb::Decoded::Text(_) => text += 1,
            trama_ptb::Decoded::Handles(_) => handles += 1,
        }
        Ok(())
    })
    .expect("read");
    eprintln!(
        "{text} text records, {handles} handle records in {:.3} s",
        t0.elapsed().as_secs_f64()
    );
}
