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
    coded_frame(kind, 0, payload.len() as u32, payload)
}

/// A frame of `codec` whose header says `raw` bytes decompressed, with a
/// correct checksum (of the header's first 12 bytes and the payload).
fn coded_frame(kind: u8, codec: u8, raw: u32, payload: &[u8]) -> Vec<u8> {
    let mut f = vec![kind, codec, 0, 0];
    f.extend_from_slice(&(payload.len() as u32).to_le_bytes());
    f.extend_from_slice(&raw.to_le_bytes());
    f.extend_from_slice(&common::frame_crc(&f, payload).to_le_bytes());
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

/// The largest allocation asked for on this thread since the last
/// [`largest_allocation`]: the allocator of this test binary notes it.
mod allocations {
    use std::alloc::{GlobalAlloc, Layout, System};
    use std::cell::Cell;

    thread_local! {
        static LARGEST: Cell<usize> = const { Cell::new(0) };
    }

    struct Noting;

    fn note(size: usize) {
        let _ = LARGEST.try_with(|l| l.set(l.get().max(size)));
    }

    // SAFETY: every call goes to the system allocator unchanged.
    unsafe impl GlobalAlloc for Noting {
        unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
            note(layout.size());
            unsafe { System.alloc(layout) }
        }
        unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
            unsafe { System.dealloc(ptr, layout) }
        }
        unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
            note(new_size);
            unsafe { System.realloc(ptr, layout, new_size) }
        }
    }

    #[global_allocator]
    static ALLOCATOR: Noting = Noting;

    /// The largest allocation since the last call, which starts anew.
    pub fn largest_allocation() -> usize {
        LARGEST.with(|l| l.replace(0))
    }
}

use allocations::largest_allocation;

/// Regression: a frame header's bytes were not covered by its checksum
/// (a reserved byte changed went unnoticed, a changed length was seen
/// only once the payload was decompressed into room of that length).
#[test]
fn ptb_frame_headers_are_checksummed() {
    let valid = || {
        let mut v = header();
        v.extend(frame(3, &[0, 0, 0, 0, 0]));
        v.extend(trailer(16));
        v
    };
    open(valid()).expect("valid file");
    // The codec, the reserved bytes and the decompressed length.
    for byte in [1, 2, 3, 8, 9, 10, 11] {
        for bit in [0x01, 0x40, 0x80] {
            let mut v = valid();
            v[16 + byte] ^= bit;
            let e = open(v)
                .err()
                .unwrap_or_else(|| panic!("byte {byte} ^ {bit:#x} passed"));
            assert_eq!(e.offset, 16, "{e}");
            assert!(e.what.contains("checksum"), "byte {byte} ^ {bit:#x}: {e}");
        }
    }
    // Version 4, whose checksums cover payloads only, is still read;
    // older ones are refused, saying which versions are read.
    let mut v = valid();
    v[8] = 4;
    let crc = common::crc32(&[0, 0, 0, 0, 0]);
    v[16 + 12..16 + 16].copy_from_slice(&crc.to_le_bytes());
    open(v.clone()).expect("a version 4 file");
    v[8] = 3;
    let e = open(v).err().unwrap();
    assert_eq!(e.offset, 8);
    assert!(
        e.what.contains("version 3") && e.what.contains("4 to"),
        "{e}"
    );
}

/// Regression: room for a frame's decompressed length was reserved
/// before the length was checked (a crafted header asked for 4 GiB). It
/// is checked against the stored bytes and against the length the zstd
/// frames declare, and a file that lies is refused without allocating.
#[test]
fn ptb_decompressed_lengths_are_checked_before_allocating() {
    let footer = [0u8, 0, 0, 0, 0];
    let z = zstd::bulk::compress(&footer, 3).unwrap();
    let mut v = header();
    v.extend(coded_frame(3, 1, footer.len() as u32, &z));
    v.extend(trailer(16));
    open(v).expect("a valid compressed footer");
    for (raw, what) in [
        (u32::MAX, "more than zstd gives"),
        (1 << 30, "more than zstd gives"),
        (100, "zstd frames 5"),
        (4, "zstd frames 5"),
    ] {
        let mut v = header();
        v.extend(coded_frame(3, 1, raw, &z));
        v.extend(trailer(16));
        largest_allocation();
        let e = open(v)
            .err()
            .unwrap_or_else(|| panic!("{raw} bytes passed"));
        let largest = largest_allocation();
        assert!(largest < 1 << 20, "{raw}: {largest} bytes allocated");
        assert_eq!(e.offset, 16, "{e}");
        assert!(e.what.contains(what), "{raw}: want {what}: {e}");
    }
}

/// Regression: a summary frame is added after the footer of a file
/// written (the trailer written again after it) and read back; a second
/// one is refused and the file left as it was; bytes there that are not a
/// summary frame are skipped: the file opens, with no summary.
#[test]
fn a_summary_frame_is_added_once_and_read_back() {
    let mut v = header();
    v.extend(frame(3, &[0, 0, 0, 0, 0]));
    v.extend(trailer(16));
    let size = v.len() as u64;
    let path = std::env::temp_dir().join(format!("trama-summary-{}.ptb", std::process::id()));
    std::fs::write(&path, &v).unwrap();
    let mut file = std::fs::OpenOptions::new()
        .read(true)
        .write(true)
        .open(&path)
        .unwrap();
    trama_ptb::add_summary(&mut file, b"what a viewer reads").unwrap();
    let with = std::fs::read(&path).unwrap();
    assert!(trama_ptb::add_summary(&mut file, b"again").is_err());
    assert_eq!(std::fs::read(&path).unwrap(), with, "left as it was");
    std::fs::remove_file(&path).unwrap();
    let f = open(with.clone()).unwrap();
    assert_eq!(f.summary(), Some((b"what a viewer reads".to_vec(), size)));
    let frames = f.frames().unwrap();
    assert_eq!(frames.len(), 1);
    assert_eq!(frames[0].kind, trama_ptb::FrameKind::Summary);
    // Its payload damaged: no summary, the file still opens.
    let mut damaged = with;
    let at = damaged.len() - 20;
    damaged[at] ^= 1;
    assert_eq!(open(damaged).unwrap().summary(), None);
    // Bytes that are not a frame between the footer and the trailer.
    let mut odd = header();
    odd.extend(frame(3, &[0, 0, 0, 0, 0]));
    odd.extend(b"odd bytes, not a frame");
    odd.extend(trailer(16));
    let f = open(odd).unwrap();
    assert_eq!(f.summary(), None);
    assert!(f.frames().unwrap().is_empty());
}
