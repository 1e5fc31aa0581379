//! Walking the records of a chunked buffer file.
//!
//! Definition and event files are sequences of chunks of the size the
//! anchor gives (the last one may be shorter). A chunk starts with a
//! header: the byte `0x03`, the endianness byte, and (in chunked buffers)
//! the numbers of the chunk's first and last event (full 64-bit). Records
//! follow, each starting with its type byte; the byte `0x00` ends the
//! chunk (the rest of it is padding), `0x02` ends the file (`0x01`, the
//! end of a buffer, too). Type bytes 3 to 9 are the buffer's own: 5 is a
//! timestamp (a full 64-bit value that holds for the records after it) and
//! 6 an attribute list (with a record length, for the next record).

use crate::buf::{Cursor, BIG_ENDIAN, LITTLE_ENDIAN};
use crate::error::Bad;

/// The type byte that ends a chunk.
pub const END_OF_CHUNK: u8 = 0;
/// The type byte that ends a buffer.
pub const END_OF_BUFFER: u8 = 1;
/// The type byte that ends a file.
pub const END_OF_FILE: u8 = 2;
/// The type byte of a chunk header.
pub const CHUNK_HEADER: u8 = 3;
/// The type byte of a timestamp.
pub const TIMESTAMP: u8 = 5;
/// The type byte of an attribute list.
pub const ATTRIBUTE_LIST: u8 = 6;

/// Size of the header of a chunk of a chunked buffer.
const HEADER: usize = 18;

/// A position in a chunked file.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Chunks<'a> {
    /// Where the records of the current chunk are read.
    pub cur: Cursor<'a>,
    size: usize,
    chunked: bool,
    start: usize,
    done: bool,
}

impl<'a> Chunks<'a> {
    /// Starts reading `data`, made of chunks of `size` bytes; `chunked`
    /// says whether chunk headers hold event numbers (definition files of
    /// old versions do not: see [`Chunks::open_definitions`]).
    pub fn open(data: &'a [u8], size: usize, chunked: bool) -> Result<Chunks<'a>, Bad> {
        let mut c = Chunks {
            cur: Cursor::new(data, 0, 0, false),
            size: size.max(HEADER + 1),
            chunked,
            start: 0,
            done: data.is_empty(),
        };
        if !c.done {
            c.header()?;
        }
        Ok(c)
    }

    /// Starts reading a definition file: chunked as event files since
    /// OTF2 1.2 (the header's event numbers start at 1), one unchunked
    /// buffer before.
    pub fn open_definitions(data: &'a [u8], size: usize) -> Result<Chunks<'a>, Bad> {
        let chunked = data.len() >= HEADER && matches!(data.get(2), Some(0 | 1));
        if chunked {
            Chunks::open(data, size, true)
        } else {
            Chunks::open(data, data.len().max(HEADER + 1), false)
        }
    }

    fn header(&mut self) -> Result<(), Bad> {
        let data = self.cur.data;
        let end = if self.chunked {
            (self.start + self.size).min(data.len())
        } else {
            data.len()
        };
        let mut c = Cursor::new(data, self.start, end, false);
        let b = c.u8()?;
        if b != CHUNK_HEADER {
            return Err(Bad::new(
                self.start,
                format!("a chunk starts with byte {b:#04x}, not with a chunk header (0x03)"),
            ));
        }
        c.big = match c.u8()? {
            LITTLE_ENDIAN => false,
            BIG_ENDIAN => true,
            b => {
                return Err(Bad::new(
                    self.start + 1,
                    format!("unknown endianness byte {b:#04x} in a chunk header"),
                ))
            }
        };
        if self.chunked {
            c.u64_full()?;
            c.u64_full()?;
        }
        self.cur = c;
        Ok(())
    }

    /// Moves to the next chunk, or to the end.
    fn next_chunk(&mut self) -> Result<(), Bad> {
        if !self.chunked {
            self.done = true;
            return Ok(());
        }
        self.start += self.size;
        if self.start >= self.cur.data.len() {
            self.done = true;
            return Ok(());
        }
        self.header()
    }

    /// The type byte of the next record, across chunk ends; `None` at the
    /// end of the file.
    #[inline]
    pub fn next_type(&mut self) -> Result<Option<u8>, Bad> {
        loop {
            if self.done {
                return Ok(None);
            }
            if self.cur.pos >= self.cur.end {
                self.next_chunk()?;
                continue;
            }
            let b = self.cur.data[self.cur.pos];
            self.cur.pos += 1;
            match b {
                END_OF_CHUNK => self.next_chunk()?,
                END_OF_BUFFER | END_OF_FILE => {
                    self.done = true;
                    return Ok(None);
                }
                _ => return Ok(Some(b)),
            }
        }
    }

    /// The next record of a definitions file: its type and a cursor over
    /// its attributes (the reading goes on after it); `None` at the end of
    /// the file. A type below 5 is an error: no definition record has it.
    pub fn next_definition(&mut self) -> Result<Option<(u8, Cursor<'a>)>, Bad> {
        let Some(id) = self.next_type()? else {
            return Ok(None);
        };
        let at = self.cur.pos - 1;
        if id < 5 {
            return Err(Bad::new(
                at,
                format!("byte {id:#04x} where a definition record should start"),
            ));
        }
        let end = self.cur.record_end()?;
        let c = self.cur.until(end);
        self.cur.pos = end;
        Ok(Some((id, c)))
    }

    /// How far the reading is, in bytes of the file.
    pub fn position(&self) -> usize {
        if self.done {
            self.cur.data.len()
        } else {
            self.cur.pos
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn chunk(big: bool, body: &[u8], size: usize) -> Vec<u8> {
        let mut v = vec![3, if big { BIG_ENDIAN } else { LITTLE_ENDIAN }];
        v.extend_from_slice(&[0; 16]);
        v.extend_from_slice(body);
        if size > 0 {
            v.resize(size, 0);
        }
        v
    }

    #[test]
    fn records_across_chunks() {
        let mut data = chunk(false, &[7, 8], 32);
        data.extend(chunk(false, &[9, END_OF_FILE, 1], 0));
        let mut c = Chunks::open(&data, 32, true).unwrap();
        let mut got = Vec::new();
        while let Some(t) = c.next_type().unwrap() {
            got.push(t);
        }
        assert_eq!(got, [7, 8, 9]);
        assert_eq!(c.position(), data.len());
    }

    #[test]
    fn a_bad_header_names_its_offset() {
        let mut data = chunk(false, &[7], 32);
        data.extend(chunk(false, &[9], 0));
        data[33] = 0x11;
        let mut c = Chunks::open(&data, 32, true).unwrap();
        assert_eq!(c.next_type().unwrap(), Some(7));
        let e = c.next_type().unwrap_err();
        assert_eq!(e.at, 33);
    }

    #[test]
    fn unchunked_definitions() {
        let data = [3, LITTLE_ENDIAN, 10, 2, 0, 0, END_OF_FILE];
        let mut c = Chunks::open_definitions(&data, 1 << 20).unwrap();
        assert_eq!(c.next_type().unwrap(), Some(10));
    }
}
