//! The opened input and its reader stack.
//!
//! Layers, from the bottom up:
//!
//! 1. [`RawReader`]: the file or standard input, replaying the few bytes read
//!    ahead for detection, counting bytes for progress and naming the input
//!    in its errors;
//! 2. a [`BufReader`] of [`BUFFER_SIZE`] bytes;
//! 3. for compressed inputs, [`Tracked`] (counts bytes handed to the decoder,
//!    for error offsets), the decoder, and another [`BufReader`] of
//!    [`BUFFER_SIZE`] bytes over the decompressed bytes.

use std::fmt;
use std::fs::File;
use std::io::{self, BufRead, BufReader, Read};
use std::path::Path;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

use flate2::bufread::MultiGzDecoder;

use crate::compression::MAGIC_LEN;
use crate::{Compression, InputError, Source};

/// Size of each buffer of the reader stack (1 MiB).
pub const BUFFER_SIZE: usize = 1 << 20;

/// Largest zstd window accepted, as a power of two (what `zstd --long=31`
/// may produce on 64-bit hosts).
const ZSTD_WINDOW_LOG_MAX: u32 = if cfg!(target_pointer_width = "64") {
    31
} else {
    30
};

/// An opened input.
///
/// Reads the (decompressed) bytes through [`Read`] or [`BufRead`]; knows its
/// name, its compression and, for regular files, its size on disk.
///
/// Errors returned while reading are [`io::Error`]s whose message starts with
/// the input name and whose inner error is an [`InputError`].
pub struct Input {
    ctx: Ctx,
    len_hint: Option<u64>,
    counter: Arc<AtomicU64>,
    inner: Inner,
}

/// What the error wrapping needs, kept apart from `inner` so that both can be
/// borrowed at once.
struct Ctx {
    name: Arc<str>,
    compression: Compression,
    /// Compressed bytes handed to the decoder so far (compressed inputs only).
    decoded_from: Arc<AtomicU64>,
}

enum Inner {
    Plain(BufReader<RawReader>),
    // Boxed: decoder state is large, and the plain case should not pay for it.
    Gzip(Box<BufReader<MultiGzDecoder<Tracked>>>),
    Zstd(Box<BufReader<zstd::stream::read::Decoder<'static, Tracked>>>),
}

impl Input {
    /// Opens a source, detecting its compression from its first bytes.
    ///
    /// For standard input this blocks until the first bytes (or end of
    /// input) arrive.
    pub fn open(source: &Source) -> Result<Input, InputError> {
        match source {
            Source::Stdin => Input::build(
                Arc::from(source.display_name()),
                Box::new(io::stdin()),
                None,
            ),
            Source::Path(path) => {
                let (file, len_hint) = open_file(path)?;
                Input::build(Arc::from(source.display_name()), Box::new(file), len_hint)
            }
        }
    }

    /// Reads a file already opened (from its current offset), detecting its
    /// compression from its first bytes. `name` is used in messages; for a
    /// regular file, [`Input::len_hint`] is its size.
    pub fn from_file(name: impl Into<String>, file: File) -> Result<Input, InputError> {
        let name: Arc<str> = Arc::from(name.into());
        let meta = file.metadata().map_err(|source| InputError::Read {
            name: name.to_string(),
            source,
        })?;
        let len_hint = meta.is_file().then_some(meta.len());
        Input::build(name, Box::new(file), len_hint)
    }

    /// Wraps an arbitrary reader (e.g. in-memory data or a socket), detecting
    /// its compression from its first bytes. `name` is used in messages;
    /// [`Input::len_hint`] is `None`.
    pub fn from_reader<R: Read + Send + 'static>(
        name: impl Into<String>,
        reader: R,
    ) -> Result<Input, InputError> {
        Input::build(Arc::from(name.into()), Box::new(reader), None)
    }

    fn build(
        name: Arc<str>,
        inner: Box<dyn Read + Send>,
        len_hint: Option<u64>,
    ) -> Result<Input, InputError> {
        let counter = Arc::new(AtomicU64::new(0));
        let mut raw = RawReader {
            inner,
            prefix: [0; MAGIC_LEN],
            prefix_pos: 0,
            prefix_len: 0,
            counter: Arc::clone(&counter),
            name: Arc::clone(&name),
        };
        raw.peek().map_err(|source| InputError::Read {
            name: name.to_string(),
            source,
        })?;
        let compression = Compression::from_magic(&raw.prefix[..raw.prefix_len]);
        let decoded_from = Arc::new(AtomicU64::new(0));
        let buffered = BufReader::with_capacity(BUFFER_SIZE, raw);
        let tracked = |inner| Tracked {
            inner,
            consumed: Arc::clone(&decoded_from),
        };
        let inner = match compression {
            Compression::None => Inner::Plain(buffered),
            Compression::Gzip => Inner::Gzip(Box::new(BufReader::with_capacity(
                BUFFER_SIZE,
                MultiGzDecoder::new(tracked(buffered)),
            ))),
            Compression::Zstd => {
                let decoder_error = |source| InputError::Decoder {
                    name: name.to_string(),
                    compression,
                    source,
                };
                let mut decoder = zstd::stream::read::Decoder::with_buffer(tracked(buffered))
                    .map_err(decoder_error)?;
                decoder
                    .window_log_max(ZSTD_WINDOW_LOG_MAX)
                    .map_err(decoder_error)?;
                Inner::Zstd(Box::new(BufReader::with_capacity(BUFFER_SIZE, decoder)))
            }
        };
        Ok(Input {
            ctx: Ctx {
                name,
                compression,
                decoded_from,
            },
            len_hint,
            counter,
            inner,
        })
    }

    /// The input name: the path, or `<stdin>`.
    pub fn name(&self) -> &str {
        &self.ctx.name
    }

    /// The compression detected.
    pub fn compression(&self) -> Compression {
        self.ctx.compression
    }

    /// The size of the file on disk (the compressed size for a compressed
    /// file), when known: `None` for standard input, pipes and other
    /// non-regular files.
    pub fn len_hint(&self) -> Option<u64> {
        self.len_hint
    }

    /// Bytes read so far from the underlying file or standard input (compressed
    /// bytes for a compressed input), for progress reporting against
    /// [`Input::len_hint`].
    ///
    /// The counter is shared: clone it into a progress thread and load it
    /// there. It runs ahead of the bytes returned by at most the buffer sizes
    /// ([`BUFFER_SIZE`]), and reaches the file size once the input has been
    /// read to its end.
    pub fn progress_counter(&self) -> Arc<AtomicU64> {
        Arc::clone(&self.counter)
    }

    /// The number of bytes read so far, as [`Input::progress_counter`] would
    /// report it.
    pub fn bytes_read(&self) -> u64 {
        self.counter.load(Ordering::Relaxed)
    }
}

impl fmt::Debug for Input {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Input")
            .field("name", &self.ctx.name)
            .field("compression", &self.ctx.compression)
            .field("len_hint", &self.len_hint)
            .field("bytes_read", &self.bytes_read())
            .finish_non_exhaustive()
    }
}

/// Reads of at least this many bytes skip an empty buffer.
const DIRECT_READ: usize = 64 << 10;

/// Reads into `buf` from `r`; straight from the reader under it when
/// nothing is buffered and `buf` is large (a chunk of text), which saves
/// copying every byte through the buffer.
#[inline]
fn read_direct<R: Read>(r: &mut BufReader<R>, buf: &mut [u8]) -> io::Result<usize> {
    if r.buffer().is_empty() && buf.len() >= DIRECT_READ {
        r.get_mut().read(buf)
    } else {
        r.read(buf)
    }
}

impl Read for Input {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        match &mut self.inner {
            Inner::Plain(r) => read_direct(r, buf),
            Inner::Gzip(r) => read_direct(r, buf),
            Inner::Zstd(r) => read_direct(r, buf),
        }
        .map_err(|e| self.ctx.wrap(e))
    }
}

impl BufRead for Input {
    fn fill_buf(&mut self) -> io::Result<&[u8]> {
        let ctx = &self.ctx;
        match &mut self.inner {
            Inner::Plain(r) => r.fill_buf(),
            Inner::Gzip(r) => r.fill_buf(),
            Inner::Zstd(r) => r.fill_buf(),
        }
        .map_err(|e| ctx.wrap(e))
    }

    fn consume(&mut self, amt: usize) {
        match &mut self.inner {
            Inner::Plain(r) => r.consume(amt),
            Inner::Gzip(r) => r.consume(amt),
            Inner::Zstd(r) => r.consume(amt),
        }
    }
}

impl Ctx {
    /// Gives an error from the reader stack the input name and, for
    /// decoders, the offset. Errors already wrapped (from [`RawReader`]) and
    /// interruptions pass through.
    fn wrap(&self, e: io::Error) -> io::Error {
        if e.kind() == io::ErrorKind::Interrupted
            || e.get_ref().is_some_and(|inner| inner.is::<InputError>())
        {
            return e;
        }
        let name = self.name.to_string();
        let err = match self.compression {
            Compression::None => InputError::Read { name, source: e },
            compression => InputError::Corrupt {
                name,
                compression,
                offset: Some(self.decoded_from.load(Ordering::Relaxed)),
                source: e,
            },
        };
        err.into()
    }
}

/// Opens a path for reading, mapping failures to [`InputError`]s that name
/// it (a directory is refused). Returns the file and, for a regular file,
/// its size.
pub fn open_file(path: &Path) -> Result<(File, Option<u64>), InputError> {
    let file = match File::open(path) {
        Ok(f) => f,
        Err(e) => {
            return Err(match e.kind() {
                io::ErrorKind::NotFound => InputError::NotFound { path: path.into() },
                // Windows refuses to open directories with "access denied".
                _ if path.is_dir() => InputError::IsADirectory { path: path.into() },
                io::ErrorKind::PermissionDenied => {
                    InputError::PermissionDenied { path: path.into() }
                }
                _ => InputError::Open {
                    path: path.into(),
                    source: e,
                },
            });
        }
    };
    let meta = file.metadata().map_err(|source| InputError::Open {
        path: path.into(),
        source,
    })?;
    if meta.is_dir() {
        return Err(InputError::IsADirectory { path: path.into() });
    }
    Ok((file, meta.is_file().then_some(meta.len())))
}

/// The bottom of the stack: the file or stdin, preceded by the bytes already
/// read for detection.
struct RawReader {
    inner: Box<dyn Read + Send>,
    prefix: [u8; MAGIC_LEN],
    prefix_pos: usize,
    prefix_len: usize,
    counter: Arc<AtomicU64>,
    name: Arc<str>,
}

impl RawReader {
    /// Reads up to [`MAGIC_LEN`] bytes into the prefix (fewer only at end of
    /// input). Errors are not wrapped.
    fn peek(&mut self) -> io::Result<()> {
        while self.prefix_len < MAGIC_LEN {
            match self.inner.read(&mut self.prefix[self.prefix_len..]) {
                Ok(0) => break,
                Ok(n) => {
                    self.prefix_len += n;
                    self.counter.fetch_add(n as u64, Ordering::Relaxed);
                }
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) => return Err(e),
            }
        }
        Ok(())
    }
}

impl Read for RawReader {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        if self.prefix_pos < self.prefix_len {
            let n = buf.len().min(self.prefix_len - self.prefix_pos);
            buf[..n].copy_from_slice(&self.prefix[self.prefix_pos..self.prefix_pos + n]);
            self.prefix_pos += n;
            return Ok(n);
        }
        match self.inner.read(buf) {
            Ok(n) => {
                self.counter.fetch_add(n as u64, Ordering::Relaxed);
                Ok(n)
            }
            Err(e) if e.kind() == io::ErrorKind::Interrupted => Err(e),
            Err(source) => Err(InputError::Read {
                name: self.name.to_string(),
                source,
            }
            .into()),
        }
    }
}

/// The buffered raw bytes as the decoder sees them, counting what it consumes
/// so that decoding errors can give an offset.
struct Tracked {
    inner: BufReader<RawReader>,
    consumed: Arc<AtomicU64>,
}

impl Read for Tracked {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let n = self.inner.read(buf)?;
        self.consumed.fetch_add(n as u64, Ordering::Relaxed);
        Ok(n)
    }
}

impl BufRead for Tracked {
    fn fill_buf(&mut self) -> io::Result<&[u8]> {
        self.inner.fill_buf()
    }

    fn consume(&mut self, amt: usize) {
        self.inner.consume(amt);
        self.consumed.fetch_add(amt as u64, Ordering::Relaxed);
    }
}
