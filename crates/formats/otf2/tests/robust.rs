//! Damaged archives never panic: every file of an archive (both byte
//! orders) cut at many places, with bytes changed, inserted or removed,
//! and arbitrary bytes in place of each file. A damaged file gives an
//! error naming a file of the archive and, for damage, a byte offset
//! inside that file. `TRAMA_ROBUST_ROUNDS=N` changes the number of
//! mutations per file.

mod common;

use std::collections::BTreeMap;

use common::{sample, write, CHUNK};
use proptest::prelude::*;
use trama_otf2::{read_paje, Archive, Error, ReadError};

/// An archive's files by their name in [`Archive::from_memory`].
type Files = BTreeMap<String, Vec<u8>>;

fn files(big: bool) -> (Vec<u8>, Files) {
    let dir = tempfile::tempdir().unwrap();
    let anchor = write(dir.path(), &sample(40), big, CHUNK);
    let mut f = Files::new();
    f.insert(
        "def".into(),
        std::fs::read(dir.path().join("traces.def")).unwrap(),
    );
    for e in std::fs::read_dir(dir.path().join("traces")).unwrap() {
        let e = e.unwrap();
        f.insert(
            e.file_name().to_string_lossy().into_owned(),
            std::fs::read(e.path()).unwrap(),
        );
    }
    (std::fs::read(anchor).unwrap(), f)
}

/// Reads the archive whole; the error, if any, checked to name one of
/// its files and an offset inside it.
fn read(anchor: &[u8], files: &Files) -> Result<u64, String> {
    let len = |name: &str| {
        if name == "anchor" {
            Some(anchor.len())
        } else {
            files.get(name).map(Vec::len)
        }
    };
    let check = |e: Error| -> String {
        let file = e.file().to_string();
        match (e.offset(), len(&file)) {
            (Some(at), Some(n)) => {
                assert!(at <= n as u64, "{e}: offset past the {n} bytes of {file}")
            }
            (Some(_), None) => panic!("{e}: names no file of the archive"),
            // A missing file, named as the archive names it.
            (None, _) => assert!(
                file == "anchor" || file == "def" || file.ends_with(".evt"),
                "{e}"
            ),
        }
        e.to_string()
    };
    let a =
        Archive::from_memory("anchor", anchor, |name| files.get(name).cloned()).map_err(check)?;
    let mut n = 0u64;
    read_paje(&a, None, |ev| -> Result<(), ()> {
        assert_eq!(ev.word_count(), ev.def().field_count());
        n += 1;
        Ok(())
    })
    .map_err(|e| match e {
        ReadError::Archive(e) => check(e),
        ReadError::Handler(()) => unreachable!(),
    })?;
    Ok(n)
}

// A deterministic generator (xorshift).
use trama_gen::XorShift64 as Rng;

fn rounds() -> usize {
    std::env::var("TRAMA_ROBUST_ROUNDS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(150)
}

#[test]
fn mutated_archives_give_errors_not_panics() {
    for big in [false, true] {
        let (anchor, files) = files(big);
        let whole = read(&anchor, &files).expect("the archive reads");
        assert!(whole > 400, "{whole} events");
        let mut rng = Rng(0x9e37_79b9_7f4a_7c15 ^ big as u64);
        let names: Vec<String> = std::iter::once("anchor".to_string())
            .chain(files.keys().cloned())
            .collect();
        let (mut failed, mut total) = (0, 0);
        for name in &names {
            let original = if name == "anchor" {
                anchor.clone()
            } else {
                files[name].clone()
            };
            for round in 0..rounds() {
                let mut data = original.clone();
                match round % 4 {
                    // Cut: everywhere in the first bytes (headers), then
                    // anywhere.
                    0 => data.truncate(if round < 100 {
                        round.min(data.len())
                    } else {
                        rng.below(data.len())
                    }),
                    1 => {
                        for _ in 0..1 + rng.below(3) {
                            let at = rng.below(data.len());
                            if let Some(b) = data.get_mut(at) {
                                *b = rng.next() as u8;
                            }
                        }
                    }
                    2 => {
                        let at = rng.below(data.len() + 1);
                        data.insert(at, rng.next() as u8);
                    }
                    _ => {
                        if !data.is_empty() {
                            let at = rng.below(data.len());
                            data.remove(at);
                        }
                    }
                }
                let r = if name == "anchor" {
                    read(&data, &files)
                } else {
                    let mut f = files.clone();
                    f.insert(name.clone(), data);
                    read(&anchor, &f)
                };
                total += 1;
                failed += r.is_err() as usize;
            }
        }
        // Most damage is found (a changed time or identifier may not be).
        assert!(failed * 3 > total, "{failed} of {total} mutations failed");
    }
}

#[test]
fn a_file_missing_or_empty_is_named() {
    let (anchor, files) = files(false);
    let mut f = files.clone();
    f.remove("def");
    let e = read(&anchor, &f).unwrap_err();
    assert!(e.starts_with("def: ") && e.contains("missing"), "{e}");
    let mut f = files.clone();
    f.remove("5.evt");
    let e = read(&anchor, &f).unwrap_err();
    assert!(
        e.starts_with("5.evt: ") && e.contains("location 5") && e.contains("missing"),
        "{e}"
    );
    let mut f = files.clone();
    f.insert("5.evt".into(), Vec::new());
    assert!(read(&anchor, &f).unwrap() > 0);
    let e = read(&anchor[..20], &files).unwrap_err();
    assert!(e.starts_with("anchor: byte "), "{e}");
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(200))]

    #[test]
    fn arbitrary_bytes_in_place_of_a_file(
        which in 0usize..4,
        bytes in proptest::collection::vec(any::<u8>(), 0..600),
        header in any::<bool>(),
    ) {
        let (anchor, mut files) = files(false);
        // With a chunk header, the bytes get past the first check.
        let mut data = if header { vec![3, 0x42, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0] } else { Vec::new() };
        data.extend(bytes);
        let _ = match which {
            0 => read(&data, &files),
            1 => { files.insert("def".into(), data); read(&anchor, &files) }
            2 => { files.insert("5.evt".into(), data); read(&anchor, &files) }
            _ => { files.insert("5.def".into(), data); read(&anchor, &files) }
        };
    }
}
