//! Crafted and damaged files: every one gives a `FormatError` (with the
//! byte offset of the part at fault), never a panic.

mod common;

use trama_ptb::{FormatError, PtbFile, ReadOptions, MAGIC, VERSION};

fn open(bytes: Vec<u8>) -> Result<PtbFile, FormatError> {
    PtbFile::from_vec(bytes)
}

fn trailer(footer_offset: u64) -> Vec<u8> {
    let mut t = footer_offset.to_le_bytes().to_vec();
    t.extend_from_slice(&[0x89, b'P', b'T', b'B', b'E', b'N', b'D', 0x0a]);
    t
}

fn header() -> Vec<u8> {
    let mut h = MAGIC.to_vec();
    h.extend_from_slice(&VERSION.to_le_bytes());
    h.extend_from_slice(&[1, 0, 0, 0, 0, 0]);
    h
}

/// A frame with a correct checksum.
fn frame(kind: u8, payload: &[u8]) -> Vec<u8> {
    let mut f = vec![kind, 0, 0, 0];
    f.extend_from_slice(&(payload.len() as u32).to_le_bytes());
    f.extend_from_slice(&(payload.len() as u32).to_le_bytes());
    f.extend_from_slice(&common::crc32(payload).to_le_bytes());
    f.extend_from_slice(payload);
    f
}

#[test]
fn foreign_and_truncated_files() {
    let e = open(b"%EventDef PajeDefineContainerType 0\n".to_vec())
        .err()
        .unwrap();
    assert_eq!(e.offset, 0);
    assert!(e.what.contains("magic"), "{e}");
    let e = open(header()).err().unwrap();
    assert!(e.what.contains("truncated"), "{e}");
    let mut v = header();
    v[8] = 9;
    v.extend(trailer(16));
    let e = open(v).err().unwrap();
    assert_eq!(e.offset, 8);
    assert!(e.what.contains("version 9"), "{e}");
}

#[test]
fn footer_offsets_out_of_range() {
    for off in [0, 3, 16, 17, 1 << 40, u64::MAX] {
        let mut v = header();
        v.extend(trailer(off));
        let e = open(v).err().unwrap();
        assert!(
            e.what.contains("out of range") || e.what.contains("kind"),
            "{off}: {e}"
        );
    }
}

#[test]
fn minimal_valid_file_and_bad_footers() {
    // No definition, no frame, 0 lines, 0 events, no container end.
    let mut v = header();
    v.extend(frame(3, &[0, 0, 0, 0, 0]));
    v.extend(trailer(16));
    let f = open(v).expect("valid empty file");
    assert_eq!(f.events(), 0);
    let mut n = 0;
    f.read(&ReadOptions::default(), |_| -> Result<(), ()> {
        n += 1;
        Ok(())
    })
    .unwrap();
    assert_eq!(n, 0);

    for (payload, what) in [
        (vec![0u8, 0, 0], "truncated"),
        (vec![0, 0, 0, 0, 0, 7], "trailing"),
        (vec![0, 0, 0, 0, 200, 1], "container"),
        (vec![1, 42, 0], "definition"),
        (
            vec![0, 1, 2, 200, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0],
            "index",
        ),
    ] {
        let mut v = header();
        v.extend(frame(3, &payload));
        v.extend(trailer(16));
        let e = open(v).err().unwrap();
        assert_eq!(e.offset, 16, "{e}");
        assert!(e.what.contains(what), "want {what}: {e}");
    }
}

#[test]
fn a_checksum_mismatch_names_the_frame() {
    let mut v = header();
    let mut f = frame(3, &[0, 0, 0, 0, 0]);
    f[12] ^= 1;
    v.extend(f);
    v.extend(trailer(16));
    let e = open(v).err().unwrap();
    assert_eq!(e.offset, 16);
    assert!(e.what.contains("checksum"), "{e}");
}
