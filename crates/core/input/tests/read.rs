//! End-to-end tests: real files, real compressors.

use std::fs;
use std::io::{self, BufRead, Read, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::Ordering;

use trama_input::{Compression, Input, InputError, Source};

/// Deterministic pseudo-random trace-like text of about `size` bytes.
fn text(size: usize, seed: u64) -> Vec<u8> {
    let mut state = seed.wrapping_mul(0x9e37_79b9_7f4a_7c15) | 1;
    let mut next = move || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state
    };
    const WORDS: [&str; 8] = [
        "PajeSetState",
        "PajePushState",
        "PajePopState",
        "PajeNewEvent",
        "MPI_Send",
        "MPI_Recv",
        "compute",
        "idle",
    ];
    let mut out = Vec::with_capacity(size + 128);
    let mut line = 0u64;
    while out.len() < size {
        let r = next();
        line += 1;
        writeln!(
            out,
            "{line} {}.{:06} {} rank{} \"{}\" {:x}",
            r % 1000,
            (r >> 10) % 1_000_000,
            WORDS[(r >> 40) as usize % WORDS.len()],
            (r >> 50) % 64,
            WORDS[(r >> 20) as usize % WORDS.len()],
            next() >> (r % 48),
        )
        .unwrap();
    }
    out
}

/// What makes a file's bytes from its text.
type Encoder = fn(&[u8]) -> Vec<u8>;

fn plain(data: &[u8]) -> Vec<u8> {
    data.to_vec()
}

fn gzip(data: &[u8]) -> Vec<u8> {
    let mut enc = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
    enc.write_all(data).unwrap();
    enc.finish().unwrap()
}

fn zstd(data: &[u8]) -> Vec<u8> {
    zstd::stream::encode_all(data, 3).unwrap()
}

fn write(dir: &Path, name: &str, bytes: &[u8]) -> PathBuf {
    let path = dir.join(name);
    fs::write(&path, bytes).unwrap();
    path
}

fn open(path: &Path) -> Input {
    Input::open(&Source::Path(path.to_owned())).unwrap()
}

fn read_all(input: &mut Input) -> io::Result<Vec<u8>> {
    let mut out = Vec::new();
    input.read_to_end(&mut out)?;
    Ok(out)
}

/// Opens `bytes` written to a file, checks detection and metadata, reads it
/// all and checks the content and the final progress count.
fn round_trip(name: &str, bytes: &[u8], compression: Compression, expected: &[u8]) {
    let dir = tempfile::tempdir().unwrap();
    let path = write(dir.path(), name, bytes);
    let mut input = open(&path);
    assert_eq!(input.compression(), compression);
    assert_eq!(input.name(), path.display().to_string());
    assert_eq!(input.len_hint(), Some(bytes.len() as u64));
    let counter = input.progress_counter();
    let got = read_all(&mut input).unwrap();
    assert_eq!(got.len(), expected.len());
    assert!(got == expected, "content differs");
    assert_eq!(counter.load(Ordering::Relaxed), bytes.len() as u64);
}

#[test]
fn single_streams() {
    let cases: [(&str, usize, u64, Encoder, Compression); 4] = [
        ("trace.paje", 4 << 20, 1, plain, Compression::None),
        // A plain file named .gz is still plain.
        ("trace.paje.gz", 10_000, 2, plain, Compression::None),
        ("trace", 4 << 20, 3, gzip, Compression::Gzip),
        ("trace.bin", 4 << 20, 4, zstd, Compression::Zstd),
    ];
    for (name, size, seed, encode, compression) in cases {
        let data = text(size, seed);
        round_trip(name, &encode(&data), compression, &data);
    }
}

#[test]
fn gzip_multi_member() {
    let parts: Vec<Vec<u8>> = (0..3)
        .map(|i| text((1 << 20) + i * 777, 10 + i as u64))
        .collect();
    let mut compressed = Vec::new();
    for p in &parts {
        compressed.extend(gzip(p));
    }
    // An empty member in the middle is legal too.
    compressed.extend(gzip(b""));
    compressed.extend(gzip(&parts[0]));
    let mut expected = parts.concat();
    expected.extend(&parts[0]);
    round_trip("multi.gz", &compressed, Compression::Gzip, &expected);
}

#[test]
fn zstd_multi_frame_with_skippable_frame() {
    let a = text(2 << 20, 5);
    let b = text(1 << 20, 6);
    let mut compressed = zstd(&a);
    // Skippable frame: magic 0x184D2A50 (little endian), length, payload.
    compressed.extend([0x50, 0x2a, 0x4d, 0x18, 3, 0, 0, 0, 1, 2, 3]);
    compressed.extend(zstd(&b));
    compressed.extend(zstd(&a[..1000]));
    let expected = [&a[..], &b[..], &a[..1000]].concat();
    round_trip("multi.zst", &compressed, Compression::Zstd, &expected);
}

#[test]
fn zstd_long_window() {
    // A window beyond the decoder's default limit (2^27), as `zstd --long=29`
    // produces; the streaming encoder does not know the size, so the frame
    // header declares the full window.
    let data = text(1 << 20, 7);
    let mut enc = zstd::stream::write::Encoder::new(Vec::new(), 3).unwrap();
    enc.long_distance_matching(true).unwrap();
    enc.window_log(29).unwrap();
    enc.write_all(&data).unwrap();
    let compressed = enc.finish().unwrap();
    round_trip("long.zst", &compressed, Compression::Zstd, &data);
}

#[test]
fn empty_file() {
    round_trip("empty", b"", Compression::None, b"");
}

#[test]
fn tiny_files() {
    for len in 1..=6 {
        let data = &b"%Event"[..len];
        round_trip("tiny", data, Compression::None, data);
    }
}

#[test]
fn truncated_gzip_names_the_file() {
    let compressed = gzip(&text(1 << 20, 8));
    let dir = tempfile::tempdir().unwrap();
    let path = write(dir.path(), "cut.gz", &compressed[..compressed.len() / 2]);
    let mut input = open(&path);
    assert_eq!(input.compression(), Compression::Gzip);
    let err = read_all(&mut input).unwrap_err();
    let msg = err.to_string();
    assert!(msg.contains(&path.display().to_string()), "{msg}");
    assert!(msg.contains("gzip"), "{msg}");
    assert_eq!(err.kind(), io::ErrorKind::UnexpectedEof, "{msg}");
    let inner = err.get_ref().unwrap().downcast_ref::<InputError>().unwrap();
    assert!(matches!(inner, InputError::Corrupt { .. }), "{inner:?}");
}

#[test]
fn gzip_magic_alone_is_an_error() {
    let dir = tempfile::tempdir().unwrap();
    let path = write(dir.path(), "magic-only", &[0x1f, 0x8b]);
    let mut input = open(&path);
    assert_eq!(input.compression(), Compression::Gzip);
    let msg = read_all(&mut input).unwrap_err().to_string();
    assert!(msg.contains("magic-only"), "{msg}");
}

#[test]
fn corrupt_gzip_gives_offset() {
    let mut compressed = gzip(&text(1 << 20, 9));
    let mid = compressed.len() / 2;
    for b in &mut compressed[mid..mid + 64] {
        *b ^= 0x5a;
    }
    let dir = tempfile::tempdir().unwrap();
    let path = write(dir.path(), "bad.gz", &compressed);
    let err = read_all(&mut open(&path)).unwrap_err();
    let msg = err.to_string();
    assert!(msg.contains("bad.gz"), "{msg}");
    assert!(
        msg.contains("corrupt gzip stream near compressed byte offset"),
        "{msg}"
    );
    assert_eq!(err.kind(), io::ErrorKind::InvalidData, "{msg}");
    match err.get_ref().unwrap().downcast_ref::<InputError>().unwrap() {
        InputError::Corrupt { offset, .. } => {
            let offset = offset.unwrap();
            assert!(offset <= compressed.len() as u64, "{offset}");
        }
        other => panic!("{other:?}"),
    }
}

#[test]
fn truncated_zstd_names_the_file() {
    let compressed = zstd(&text(1 << 20, 10));
    let dir = tempfile::tempdir().unwrap();
    let path = write(dir.path(), "cut.zst", &compressed[..compressed.len() - 10]);
    let err = read_all(&mut open(&path)).unwrap_err();
    let msg = err.to_string();
    assert!(msg.contains("cut.zst"), "{msg}");
    assert!(msg.contains("zstd"), "{msg}");
}

#[test]
fn missing_file_is_named() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("nope.paje");
    let err = Input::open(&Source::Path(path.clone())).unwrap_err();
    assert!(matches!(err, InputError::NotFound { .. }), "{err:?}");
    assert!(err.to_string().contains(&path.display().to_string()));
    assert!(err.to_string().contains("no such file"));
    assert_eq!(io::Error::from(err).kind(), io::ErrorKind::NotFound);
}

#[test]
fn directory_is_an_error() {
    let dir = tempfile::tempdir().unwrap();
    let err = Input::open(&Source::Path(dir.path().to_owned())).unwrap_err();
    assert!(matches!(err, InputError::IsADirectory { .. }), "{err:?}");
    let msg = err.to_string();
    assert!(msg.contains(&dir.path().display().to_string()), "{msg}");
    assert!(msg.contains("is a directory"), "{msg}");
}

/// Hands out at most `chunk` bytes per read, like a slow pipe.
struct Trickle<R> {
    inner: R,
    chunk: usize,
}

impl<R: Read> Read for Trickle<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let n = buf.len().min(self.chunk);
        self.inner.read(&mut buf[..n])
    }
}

#[test]
fn from_reader_with_short_reads() {
    let data = text(200_000, 11);
    for (compressed, compression) in [
        (zstd(&data), Compression::Zstd),
        (gzip(&data), Compression::Gzip),
        (data.clone(), Compression::None),
    ] {
        let reader = Trickle {
            inner: io::Cursor::new(compressed.clone()),
            chunk: 1,
        };
        let mut input = Input::from_reader("pipe", reader).unwrap();
        assert_eq!(input.compression(), compression);
        assert_eq!(input.name(), "pipe");
        assert_eq!(input.len_hint(), None);
        assert!(read_all(&mut input).unwrap() == data);
        assert_eq!(input.bytes_read(), compressed.len() as u64);
    }
}

/// Fails after some bytes.
struct Failing {
    left: usize,
}

impl Read for Failing {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        if self.left == 0 {
            return Err(io::Error::other("disk on fire"));
        }
        let n = buf.len().min(self.left);
        buf[..n].fill(b'x');
        self.left -= n;
        Ok(n)
    }
}

#[test]
fn read_errors_name_the_input() {
    let mut input = Input::from_reader("flaky.paje", Failing { left: 10 }).unwrap();
    let err = read_all(&mut input).unwrap_err();
    let msg = err.to_string();
    assert!(msg.contains("flaky.paje"), "{msg}");
    assert!(msg.contains("disk on fire"), "{msg}");

    let err = Input::from_reader("flaky.paje", Failing { left: 0 }).unwrap_err();
    assert!(matches!(err, InputError::Read { .. }), "{err:?}");
    assert!(err.to_string().contains("flaky.paje"));
}

#[test]
fn lines_through_bufread() {
    let data = text(300_000, 12);
    let dir = tempfile::tempdir().unwrap();
    let path = write(dir.path(), "lines.gz", &gzip(&data));
    let input = open(&path);
    let mut count = 0;
    for line in input.lines() {
        line.unwrap();
        count += 1;
    }
    assert_eq!(count, data.iter().filter(|&&b| b == b'\n').count());
}

#[test]
fn progress_from_another_thread() {
    fn assert_send<T: Send>() {}
    assert_send::<Input>();

    let data = text(3 << 20, 13);
    let compressed = zstd(&data);
    let dir = tempfile::tempdir().unwrap();
    let path = write(dir.path(), "p.zst", &compressed);
    let mut input = open(&path);
    let counter = input.progress_counter();
    let reader = std::thread::spawn(move || {
        let mut buf = vec![0; 64 * 1024];
        let mut total = 0;
        loop {
            match input.read(&mut buf).unwrap() {
                0 => return total,
                n => total += n,
            }
        }
    });
    let total = reader.join().unwrap();
    assert_eq!(total, data.len());
    assert_eq!(counter.load(Ordering::Relaxed), compressed.len() as u64);
}

/// Small reads (through the buffer) mixed with large ones (straight from
/// the reader under it once the buffer is empty) give the bytes in order,
/// for every compression.
#[test]
fn small_and_large_reads_mixed() {
    let data = text(3 << 20, 12);
    for (name, bytes, compression) in [
        ("t.paje", data.clone(), Compression::None),
        ("t.paje.gz", gzip(&data), Compression::Gzip),
        ("t.paje.zst", zstd(&data), Compression::Zstd),
    ] {
        let dir = tempfile::tempdir().unwrap();
        let mut input = open(&write(dir.path(), name, &bytes));
        assert_eq!(input.compression(), compression);
        let mut got = Vec::new();
        let sizes = [7usize, 200 << 10, 1, 64 << 10, 5000, 1 << 20, 3];
        let mut buf = vec![0u8; 1 << 20];
        for k in 0.. {
            let want = sizes[k % sizes.len()];
            let n = input.read(&mut buf[..want]).unwrap();
            if n == 0 {
                break;
            }
            got.extend_from_slice(&buf[..n]);
        }
        assert!(got == data, "{name}: content differs");
        assert_eq!(input.bytes_read(), bytes.len() as u64, "{name}");
    }
}
