//! Fuzz target: OTF2 archives in memory (`trama_otf2::Archive::from_memory`)
//! read whole and mapped to Pajé. The input is an archive's files, each a
//! little-endian `u16` length and its bytes (the last one takes the rest):
//! the global definitions, then location 0's events and local
//! definitions, then location 1's (other locations' files are empty). With the first byte's bit 0 set, the
//! anchor comes first; otherwise a valid anchor (little endian, chunks of
//! 256 KiB) is used. Checks: no panic; an error names a file of the
//! archive and an offset inside it; every Pajé event has as many words as
//! its definition.
#![no_main]

use libfuzzer_sys::fuzz_target;
use trama_otf2::{read_paje, Archive, ReadError};

/// An anchor: little endian, OTF2 3.0.2, chunks of 256 KiB (events) and
/// 4 MiB (definitions), POSIX, uncompressed.
fn anchor() -> Vec<u8> {
    let mut a = vec![3, 0x42];
    a.extend_from_slice(b"OTF2\0");
    a.extend_from_slice(&[3, 2, 3, 0, 2]);
    a.extend_from_slice(&(256u64 << 10).to_le_bytes());
    a.extend_from_slice(&(4u64 << 20).to_le_bytes());
    a.extend_from_slice(&[1, 1]);
    a.extend_from_slice(&2u64.to_le_bytes());
    a.extend_from_slice(&0u64.to_le_bytes());
    a.extend_from_slice(&[0, 0, 0]);
    a.extend_from_slice(&[0; 4 + 8 + 4 + 4]);
    a.push(2);
    a
}

fn parts(mut data: &[u8], n: usize) -> Vec<&[u8]> {
    let mut out = Vec::new();
    for i in 0..n {
        if i + 1 == n || data.len() < 2 {
            out.push(data);
            data = &[];
            continue;
        }
        let len = (u16::from_le_bytes([data[0], data[1]]) as usize).min(data.len() - 2);
        out.push(&data[2..2 + len]);
        data = &data[2 + len..];
    }
    out
}

fuzz_target!(|data: &[u8]| {
    let Some((&flags, rest)) = data.split_first() else {
        return;
    };
    let (anchor, files) = if flags & 1 == 1 {
        let p = parts(rest, 6);
        (p[0].to_vec(), p[1..].to_vec())
    } else {
        (anchor(), parts(rest, 5))
    };
    let names = ["def", "0.evt", "0.def", "1.evt", "1.def"];
    // Other locations' files are empty.
    let file = |name: &str| match names.iter().position(|n| *n == name) {
        Some(i) => files.get(i).filter(|f| !f.is_empty()).map(|f| f.to_vec()),
        None => Some(Vec::new()),
    };
    let len = |name: &str| {
        if name == "anchor" {
            Some(anchor.len())
        } else {
            names
                .iter()
                .position(|n| *n == name)
                .map(|i| files.get(i).map_or(0, |f| f.len()))
        }
    };
    let check = |e: trama_otf2::Error| {
        if let Some(at) = e.offset() {
            let n = len(e.file()).unwrap_or_else(|| panic!("{e}: names no file"));
            assert!(at <= n as u64, "{e}: offset past {n} bytes");
        }
    };
    let archive = match Archive::from_memory("anchor", &anchor, file) {
        Ok(a) => a,
        Err(e) => return check(e),
    };
    let r = read_paje(&archive, None, |ev| -> Result<(), ()> {
        assert_eq!(ev.word_count(), ev.def().field_count());
        for i in 0..ev.word_count() {
            let _ = ev.word(i);
        }
        Ok(())
    });
    if let Err(ReadError::Archive(e)) = r {
        check(e);
    }
});
