//! Encoding: [`Encoder`] and [`EventWriter`].

use std::io::{self, Write};

use super::{
    Layout, RstEvent, Stamp, TypeCode, Value, EVENT_INIT, LAST_CONTINUATION_WORD, LAST_FIRST_WORD,
    MAX_TYPE, NIBBLES_CONTINUATION_WORD, NIBBLES_FIRST_WORD, TIME_SET_BIT,
};

/// Why an event could not be written.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum EncodeError {
    /// Writing failed.
    #[error("{0}")]
    Io(#[from] io::Error),
    /// Event types have 14 bits.
    #[error("event type {0} does not fit in 14 bits (at most 16383)")]
    TypeOutOfRange(u32),
    /// A timed stamp given to a timeless encoder or the reverse.
    #[error("a {stamp} time stamp cannot be written in the {layout} layout")]
    StampLayout {
        /// Layout of the stamp.
        stamp: &'static str,
        /// Layout of the encoder.
        layout: &'static str,
    },
    /// Strings are NUL-terminated: they cannot contain NUL.
    #[error("value {index} of the event is a string containing a NUL byte")]
    NulInString {
        /// Position of the value in the event.
        index: usize,
    },
}

/// Bytes kept before handing them to the output.
const FLUSH_AT: usize = 64 * 1024;

/// Writes libRastro events to any [`Write`]. Output is buffered inside;
/// call [`Encoder::finish`] (or [`Encoder::flush`]) at the end.
#[derive(Debug)]
pub struct Encoder<W: Write> {
    out: W,
    layout: Layout,
    buf: Vec<u8>,
    codes: Vec<TypeCode>,
    payload: Vec<u8>,
    written: u64,
}

impl<W: Write> Encoder<W> {
    /// An encoder of the given layout.
    pub fn new(out: W, layout: Layout) -> Encoder<W> {
        Encoder {
            out,
            layout,
            buf: Vec::with_capacity(FLUSH_AT + 4096),
            codes: Vec::new(),
            payload: Vec::new(),
            written: 0,
        }
    }

    /// The layout written.
    pub fn layout(&self) -> Layout {
        self.layout
    }

    /// Bytes produced so far (buffered ones included).
    pub fn bytes(&self) -> u64 {
        self.written
    }

    /// Starts an event; add its values with the [`EventWriter`] and end it
    /// with [`EventWriter::finish`].
    pub fn begin(&mut self, type_id: u16, stamp: Stamp) -> EventWriter<'_, W> {
        self.codes.clear();
        self.payload.clear();
        EventWriter {
            enc: self,
            type_id,
            stamp,
            error: None,
        }
    }

    /// Writes the libRastro header event ([`EVENT_INIT`], as `rst_init`
    /// does): the two identifiers and the host name (read back by
    /// [`RstEvent::init_info`]).
    pub fn init_event(
        &mut self,
        stamp: Stamp,
        id1: u64,
        id2: u64,
        host: &[u8],
    ) -> Result<(), EncodeError> {
        let mut w = self.begin(EVENT_INIT, stamp);
        w.u64(id1).u64(id2).str(host);
        w.finish()
    }

    /// Writes one event with the given values, in that order.
    pub fn event(
        &mut self,
        type_id: u16,
        stamp: Stamp,
        values: &[Value<'_>],
    ) -> Result<(), EncodeError> {
        let mut w = self.begin(type_id, stamp);
        for v in values {
            w.value(*v);
        }
        w.finish()
    }

    /// Writes a decoded event again (same type, stamp and values).
    pub fn copy(&mut self, ev: &RstEvent<'_, '_>) -> Result<(), EncodeError> {
        self.event(ev.type_id, ev.stamp, ev.values)
    }

    /// Hands the buffered bytes to the output and flushes it.
    pub fn flush(&mut self) -> io::Result<()> {
        self.out.write_all(&self.buf)?;
        self.buf.clear();
        self.out.flush()
    }

    /// Flushes and returns the output.
    pub fn finish(mut self) -> io::Result<W> {
        self.flush()?;
        Ok(self.out)
    }

    fn end_event(&mut self, type_id: u16, stamp: Stamp) -> Result<(), EncodeError> {
        if type_id > MAX_TYPE {
            return Err(EncodeError::TypeOutOfRange(type_id as u32));
        }
        if stamp.layout() != self.layout {
            return Err(EncodeError::StampLayout {
                stamp: stamp.layout().name(),
                layout: self.layout.name(),
            });
        }
        let start = self.buf.len();
        let codes = &self.codes;
        let nibble = |i: usize| codes[i] as u32;
        // First header word.
        let n_first = codes.len().min(NIBBLES_FIRST_WORD);
        let mut bits = 0u32;
        for i in 0..n_first {
            bits |= nibble(i) << (4 * (NIBBLES_FIRST_WORD - 1 - i));
        }
        let mut first = (type_id as u32) << 18 | bits;
        if stamp.time_set() {
            first |= TIME_SET_BIT;
        }
        if codes.len() <= NIBBLES_FIRST_WORD {
            first |= LAST_FIRST_WORD;
        }
        self.buf.extend_from_slice(&first.to_le_bytes());
        if let Stamp::Timed { time_set, ticks } = stamp {
            if let Some(c) = time_set {
                self.buf.extend_from_slice(&c.seconds.to_le_bytes());
                self.buf.extend_from_slice(&c.resolution.to_le_bytes());
            }
            self.buf.extend_from_slice(&ticks.to_le_bytes());
        }
        // Continuation words.
        let mut i = n_first;
        while i < codes.len() {
            let n = (codes.len() - i).min(NIBBLES_CONTINUATION_WORD);
            let mut w = 0u32;
            for k in 0..n {
                w |= nibble(i + k) << (4 * (NIBBLES_CONTINUATION_WORD - 1 - k));
            }
            i += n;
            if i == codes.len() {
                w |= LAST_CONTINUATION_WORD;
            }
            self.buf.extend_from_slice(&w.to_le_bytes());
        }
        self.buf.extend_from_slice(&self.payload);
        let padded = self.buf.len() + (4 - (self.buf.len() - start) % 4) % 4;
        self.buf.resize(padded, 0);
        self.written += (self.buf.len() - start) as u64;
        if self.buf.len() >= FLUSH_AT {
            self.out.write_all(&self.buf)?;
            self.buf.clear();
        }
        Ok(())
    }
}

/// Adds the values of one event (see [`Encoder::begin`]). The values are
/// written in the order they are added. A string containing NUL is
/// reported by [`EventWriter::finish`].
#[derive(Debug)]
pub struct EventWriter<'e, W: Write> {
    enc: &'e mut Encoder<W>,
    type_id: u16,
    stamp: Stamp,
    error: Option<usize>,
}

impl<W: Write> EventWriter<'_, W> {
    /// Adds a string (its NUL and padding are added here).
    pub fn str(&mut self, s: &[u8]) -> &mut Self {
        if self.error.is_none() && memchr::memchr(0, s).is_some() {
            self.error = Some(self.enc.codes.len());
        }
        self.enc.codes.push(TypeCode::String);
        // The payload starts 4-aligned: pad relative to its own start.
        let p = &mut self.enc.payload;
        p.extend_from_slice(s);
        p.push(0);
        let padded = p.len() + (4 - p.len() % 4) % 4;
        p.resize(padded, 0);
        self
    }

    /// Adds an `f64`.
    pub fn f64(&mut self, v: f64) -> &mut Self {
        self.raw(TypeCode::F64, &v.to_le_bytes())
    }

    /// Adds an `f32`.
    pub fn f32(&mut self, v: f32) -> &mut Self {
        self.raw(TypeCode::F32, &v.to_le_bytes())
    }

    /// Adds a `u64`.
    pub fn u64(&mut self, v: u64) -> &mut Self {
        self.raw(TypeCode::U64, &v.to_le_bytes())
    }

    /// Adds a `u32`.
    pub fn u32(&mut self, v: u32) -> &mut Self {
        self.raw(TypeCode::U32, &v.to_le_bytes())
    }

    /// Adds a `u16`.
    pub fn u16(&mut self, v: u16) -> &mut Self {
        self.raw(TypeCode::U16, &v.to_le_bytes())
    }

    /// Adds a `u8`.
    pub fn u8(&mut self, v: u8) -> &mut Self {
        self.raw(TypeCode::U8, &[v])
    }

    /// Adds any value.
    pub fn value(&mut self, v: Value<'_>) -> &mut Self {
        match v {
            Value::Str(s) => self.str(s),
            Value::F64(x) => self.f64(x),
            Value::F32(x) => self.f32(x),
            Value::U64(x) => self.u64(x),
            Value::U32(x) => self.u32(x),
            Value::U16(x) => self.u16(x),
            Value::U8(x) => self.u8(x),
        }
    }

    fn raw(&mut self, code: TypeCode, bytes: &[u8]) -> &mut Self {
        self.enc.codes.push(code);
        self.enc.payload.extend_from_slice(bytes);
        self
    }

    /// Writes the event.
    pub fn finish(self) -> Result<(), EncodeError> {
        if let Some(index) = self.error {
            return Err(EncodeError::NulInString { index });
        }
        self.enc.end_event(self.type_id, self.stamp)
    }
}
