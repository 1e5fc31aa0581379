//! Simple std-only throughput benchmark: `cargo bench -p trama-num`.
//!
//! Compares the crate's functions against glibc (through `libc`) and
//! Rust's std on trace-like inputs (time stamps with nine decimals).

use std::ffi::{c_char, CString};
use std::hint::black_box;
use std::time::Instant;

fn timestamps(n: usize) -> Vec<String> {
    // Deterministic LCG so runs are comparable.
    let mut x: u64 = 0x9e37_79b9_7f4a_7c15;
    (0..n)
        .map(|_| {
            x = x
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            let secs = (x >> 40) % 1000;
            let nanos = (x >> 8) % 1_000_000_000;
            format!("{secs}.{nanos:09}")
        })
        .collect()
}

fn bench<F: FnMut() -> u64>(name: &str, calls: usize, mut f: F) {
    let _ = f(); // warm up
    const REPS: usize = 100;
    let t = Instant::now();
    let mut r = 0;
    for _ in 0..REPS {
        r += f();
    }
    let ns = t.elapsed().as_nanos() as f64 / (calls * REPS) as f64;
    println!("{name:<40} {ns:8.2} ns/call  ({r})");
}

/// Benchmarks `print` on every value (passed through [`black_box`]); it
/// returns the length it wrote.
fn bench_values(name: &str, vals: &[f64], mut print: impl FnMut(f64) -> u64) {
    bench(name, vals.len(), || {
        vals.iter().map(|&v| print(black_box(v))).sum()
    });
}

fn main() {
    let strs = timestamps(2_000);
    let cstrs: Vec<CString> = strs
        .iter()
        .map(|s| CString::new(s.as_str()).unwrap())
        .collect();
    let vals: Vec<f64> = strs.iter().map(|s| s.parse().unwrap()).collect();
    let n = strs.len();

    bench("baseline: sum of bytes", n, || {
        strs.iter()
            .map(|s| {
                black_box(s.as_bytes())
                    .iter()
                    .map(|&b| b as u64)
                    .sum::<u64>()
            })
            .sum()
    });
    bench("trama_num::atof", n, || {
        strs.iter()
            .map(|s| trama_num::atof(black_box(s.as_bytes())).to_bits() & 1)
            .sum()
    });
    bench("trama_num::strtof", n, || {
        strs.iter()
            .map(|s| trama_num::strtof(black_box(s.as_bytes())).to_bits() as u64 & 1)
            .sum()
    });
    bench("str::parse::<f64>", n, || {
        strs.iter()
            .map(|s| black_box(s.as_str()).parse::<f64>().unwrap().to_bits() & 1)
            .sum()
    });
    bench("libc::strtod", n, || {
        cstrs
            .iter()
            .map(|s| {
                // SAFETY: valid NUL-terminated strings.
                let v = unsafe { libc::strtod(black_box(s.as_ptr()), std::ptr::null_mut()) };
                v.to_bits() & 1
            })
            .sum()
    });

    let mut out = Vec::with_capacity(64);
    let mut buf = [0u8; 64];
    for prec in [6usize, 9] {
        bench_values(&format!("trama_num::write_fixed prec {prec}"), &vals, |v| {
            out.clear();
            trama_num::write_fixed(&mut out, v, prec);
            out.len() as u64
        });
        bench_values(&format!("libc::snprintf %.*f prec {prec}"), &vals, |v| {
            // SAFETY: buffer and format are valid; snprintf bounds writes.
            let r = unsafe {
                libc::snprintf(
                    buf.as_mut_ptr() as *mut c_char,
                    buf.len(),
                    c"%.*f".as_ptr(),
                    prec as libc::c_int,
                    v,
                )
            };
            r as u64
        });
    }
    bench_values("trama_num::write_general", &vals, |v| {
        out.clear();
        trama_num::write_general(&mut out, v);
        out.len() as u64
    });
    bench_values("libc::snprintf %g", &vals, |v| {
        // SAFETY: buffer and format are valid; snprintf bounds writes.
        let r = unsafe {
            libc::snprintf(
                buf.as_mut_ptr() as *mut c_char,
                buf.len(),
                c"%g".as_ptr(),
                v,
            )
        };
        r as u64
    });
}
