//! Writes a realistic OpenTS XML trace to a file:
//!
//! ```text
//! cargo run --release -p trama-gen --example gen_opents -- \
//!     [--ranks N] [--slices N | --size 2G] [--seed S] [--force] -o FILE
//! ```
//!
//! The trace is written to `FILE.tmp` (never one already there), then renamed; an existing `FILE` is
//! kept unless `--force`. Progress goes to stderr every 256 MB.

use std::io::{self, BufWriter, Write};
use std::path::PathBuf;
use std::process::exit;
use std::time::Instant;

use trama_gen::opents::{slices_for_size, write_opents_counted, OpentsGenOptions};

const USAGE: &str =
    "usage: gen_opents [--ranks N] [--slices N | --size BYTES[K|M|G]] [--seed S] [--force] -o FILE";

fn fail(msg: &str) -> ! {
    eprintln!("gen_opents: {msg}\n{USAGE}");
    exit(2)
}

/// `2G`, `500M`, `64K`, `1000`: bytes (powers of 1024).
fn size(s: &str) -> Option<u64> {
    let (num, mult) = match s.as_bytes().last()? {
        b'K' | b'k' => (&s[..s.len() - 1], 1u64 << 10),
        b'M' | b'm' => (&s[..s.len() - 1], 1 << 20),
        b'G' | b'g' => (&s[..s.len() - 1], 1 << 30),
        _ => (s, 1),
    };
    let v: f64 = num.parse().ok()?;
    (v.is_finite() && v > 0.0).then_some((v * mult as f64) as u64)
}

/// Passes writes on, telling stderr every `step` bytes.
struct Progress<W> {
    inner: W,
    done: u64,
    next: u64,
    step: u64,
    total: Option<u64>,
    start: Instant,
}

impl<W: Write> Write for Progress<W> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        let n = self.inner.write(buf)?;
        self.done += n as u64;
        if self.done >= self.next {
            self.next += self.step;
            let mb = self.done as f64 / 1048576.0;
            let rate = mb / self.start.elapsed().as_secs_f64().max(1e-9);
            match self.total {
                Some(t) => eprintln!(
                    "gen_opents: {mb:.0} MB of about {:.0} MB ({rate:.0} MB/s)",
                    t as f64 / 1048576.0
                ),
                None => eprintln!("gen_opents: {mb:.0} MB ({rate:.0} MB/s)"),
            }
        }
        Ok(n)
    }

    fn flush(&mut self) -> io::Result<()> {
        self.inner.flush()
    }
}

fn main() {
    let mut opts = OpentsGenOptions::default();
    let (mut seed, mut out, mut force, mut want) = (1u64, None::<PathBuf>, false, None::<u64>);
    let mut slices_given = false;
    let mut args = std::env::args().skip(1);
    while let Some(a) = args.next() {
        let mut value = |name: &str| {
            args.next()
                .unwrap_or_else(|| fail(&format!("{name} needs a value")))
        };
        match a.as_str() {
            "--ranks" => {
                opts.ranks = value("--ranks")
                    .parse()
                    .ok()
                    .filter(|n| *n > 0)
                    .unwrap_or_else(|| fail("--ranks: not a positive number"))
            }
            "--slices" => {
                opts.slices = value("--slices")
                    .parse()
                    .unwrap_or_else(|_| fail("--slices: not a number"));
                slices_given = true;
            }
            "--size" => {
                want = Some(size(&value("--size")).unwrap_or_else(|| fail("--size: not a size")))
            }
            "--seed" => {
                seed = value("--seed")
                    .parse()
                    .unwrap_or_else(|_| fail("--seed: not a number"))
            }
            "-o" | "--output" => out = Some(PathBuf::from(value("-o"))),
            "--force" => force = true,
            "-h" | "--help" => {
                println!("{USAGE}");
                return;
            }
            other => fail(&format!("unknown argument {other}")),
        }
    }
    let out = out.unwrap_or_else(|| fail("no output file (-o FILE)"));
    if slices_given && want.is_some() {
        fail("--slices and --size are exclusive");
    }
    if out.exists() && !force {
        eprintln!(
            "gen_opents: {} exists (--force to overwrite)",
            out.display()
        );
        exit(1);
    }
    if let Some(bytes) = want {
        opts.slices = slices_for_size(seed, &opts, bytes);
    }
    // A file of that name that this run did not make is never truncated.
    let (file, tmp) = trama_gen::output::create_beside(&out).unwrap_or_else(|e| {
        eprintln!(
            "gen_opents: cannot create {}.tmp: {e} (a file of that name is left as it is)",
            out.display()
        );
        exit(1)
    });
    let start = Instant::now();
    let mut w = Progress {
        inner: BufWriter::with_capacity(1 << 20, file),
        done: 0,
        next: 256 << 20,
        step: 256 << 20,
        total: want,
        start,
    };
    let result = write_opents_counted(seed, &opts, &mut w).and_then(|s| {
        w.flush()?;
        let file = w.inner.into_inner().map_err(|e| e.into_error())?;
        file.sync_all()?;
        Ok(s)
    });
    let stats = match result {
        Ok(s) => s,
        Err(e) => {
            let _ = std::fs::remove_file(&tmp);
            eprintln!("gen_opents: writing {}: {e}", tmp.display());
            exit(1)
        }
    };
    if let Err(e) = std::fs::rename(&tmp, &out) {
        eprintln!(
            "gen_opents: renaming {} to {}: {e}",
            tmp.display(),
            out.display()
        );
        exit(1)
    }
    let secs = start.elapsed().as_secs_f64();
    eprintln!(
        "gen_opents: {}: {} bytes, {} slices of {} ranks, {} migrations, {} message details, in {secs:.1} s ({:.0} MB/s)",
        out.display(),
        stats.bytes,
        stats.slices,
        opts.ranks,
        stats.migrations,
        stats.messages,
        stats.bytes as f64 / 1048576.0 / secs.max(1e-9)
    );
}
