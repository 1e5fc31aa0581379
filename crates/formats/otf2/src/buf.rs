//! Decoding the primitive values of OTF2 buffers.
//!
//! Every OTF2 file is a buffer of records written in the byte order of
//! the machine that wrote it, named by the second byte of each chunk
//! header (`0x42` little endian, `0x23` big endian). Values are either
//! *full* (`uint8_t`, `uint16_t`, timestamps, `double`: their natural
//! width) or *compressed* (32- and 64-bit integers, signed or not): a
//! length byte `n` followed by the `n` low-order bytes of the value in the
//! buffer's byte order; `n == 0` is the value 0 and `n == 0xff` the value
//! with every bit set (the "undefined" reference). Negative signed values
//! are written at full width. Strings end with a NUL byte.

use crate::error::Bad;

/// The endianness byte of a little-endian buffer.
pub const LITTLE_ENDIAN: u8 = 0x42;
/// The endianness byte of a big-endian buffer.
pub const BIG_ENDIAN: u8 = 0x23;

/// A reading position in `data`, bounded by `end` (the end of the chunk
/// or record being read).
#[derive(Clone, Copy, Debug)]
pub(crate) struct Cursor<'a> {
    pub data: &'a [u8],
    pub pos: usize,
    pub end: usize,
    pub big: bool,
}

impl<'a> Cursor<'a> {
    pub fn new(data: &'a [u8], pos: usize, end: usize, big: bool) -> Cursor<'a> {
        Cursor {
            data,
            pos,
            end: end.min(data.len()),
            big,
        }
    }

    /// The same position, bounded by `end` instead.
    pub fn until(&self, end: usize) -> Cursor<'a> {
        Cursor::new(self.data, self.pos, end, self.big)
    }

    #[inline]
    pub fn remaining(&self) -> usize {
        self.end.saturating_sub(self.pos)
    }

    #[inline]
    fn take(&mut self, n: usize, what: &str) -> Result<&'a [u8], Bad> {
        if self.remaining() < n {
            return Err(Bad::new(
                self.pos,
                format!(
                    "{what} needs {n} bytes, {} are left in its {}",
                    self.remaining(),
                    if self.end == self.data.len() {
                        "file"
                    } else {
                        "chunk or record"
                    }
                ),
            ));
        }
        let s = &self.data[self.pos..self.pos + n];
        self.pos += n;
        Ok(s)
    }

    #[inline]
    pub fn u8(&mut self) -> Result<u8, Bad> {
        if self.pos < self.end {
            let b = self.data[self.pos];
            self.pos += 1;
            Ok(b)
        } else {
            Err(self.take(1, "a byte").unwrap_err())
        }
    }

    /// A full 64-bit value (timestamps).
    #[inline]
    pub fn u64_full(&mut self) -> Result<u64, Bad> {
        let b: [u8; 8] = self.take(8, "a 64-bit value")?.try_into().expect("8 bytes");
        Ok(if self.big {
            u64::from_be_bytes(b)
        } else {
            u64::from_le_bytes(b)
        })
    }

    /// A full 32-bit value.
    pub fn u32_full(&mut self) -> Result<u32, Bad> {
        let b: [u8; 4] = self.take(4, "a 32-bit value")?.try_into().expect("4 bytes");
        Ok(if self.big {
            u32::from_be_bytes(b)
        } else {
            u32::from_le_bytes(b)
        })
    }

    /// A `double`.
    pub fn f64(&mut self) -> Result<f64, Bad> {
        Ok(f64::from_bits(self.u64_full()?))
    }

    /// A compressed integer of at most `width` bytes.
    #[inline]
    fn compressed(&mut self, width: usize) -> Result<u64, Bad> {
        let at = self.pos;
        let n = self.u8()?;
        match n {
            0 => return Ok(0),
            0xff => {
                return Ok(if width == 8 {
                    u64::MAX
                } else {
                    u32::MAX as u64
                })
            }
            _ => {}
        }
        let n = n as usize;
        if n > width {
            return Err(Bad::new(
                at,
                format!(
                    "a compressed {}-bit integer cannot have {n} bytes",
                    width * 8
                ),
            ));
        }
        let bytes = self.take(n, "a compressed integer")?;
        let mut v = 0u64;
        if self.big {
            for &b in bytes {
                v = (v << 8) | b as u64;
            }
        } else {
            for &b in bytes.iter().rev() {
                v = (v << 8) | b as u64;
            }
        }
        Ok(v)
    }

    /// A compressed `uint32_t` (references to most definitions).
    #[inline]
    pub fn u32c(&mut self) -> Result<u32, Bad> {
        Ok(self.compressed(4)? as u32)
    }

    /// A compressed `uint64_t`.
    #[inline]
    pub fn u64c(&mut self) -> Result<u64, Bad> {
        self.compressed(8)
    }

    /// A compressed `int64_t`.
    pub fn i64c(&mut self) -> Result<i64, Bad> {
        Ok(self.compressed(8)? as i64)
    }

    /// A NUL-terminated string, without its NUL.
    pub fn string(&mut self) -> Result<&'a [u8], Bad> {
        let rest = &self.data[self.pos.min(self.end)..self.end];
        match rest.iter().position(|&b| b == 0) {
            Some(n) => {
                let s = &rest[..n];
                self.pos += n + 1;
                Ok(s)
            }
            None => Err(Bad::new(self.pos, "a string has no terminating NUL byte")),
        }
    }

    /// A record's length (one byte, or `0xff` and a full 64-bit length):
    /// the end of the record's data, checked to lie within the bounds.
    #[inline]
    pub fn record_end(&mut self) -> Result<usize, Bad> {
        let at = self.pos;
        let n = self.u8()?;
        let len = if n == 0xff {
            self.u64_full()?
        } else {
            n as u64
        };
        if len > self.remaining() as u64 {
            return Err(Bad::new(
                at,
                format!(
                    "a record of {len} bytes does not fit in the {} bytes left in its chunk",
                    self.remaining()
                ),
            ));
        }
        Ok(self.pos + len as usize)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn compressed_integers_both_ways() {
        let le = [0u8, 0xff, 2, 0x34, 0x12, 9];
        let mut c = Cursor::new(&le, 0, le.len(), false);
        assert_eq!(c.u32c().unwrap(), 0);
        assert_eq!(c.u32c().unwrap(), u32::MAX);
        assert_eq!(c.u64c().unwrap(), 0x1234);
        let e = c.u32c().unwrap_err();
        assert_eq!(e.at, 5);
        let be = [2u8, 0x12, 0x34, 0xff];
        let mut c = Cursor::new(&be, 0, be.len(), true);
        assert_eq!(c.u32c().unwrap(), 0x1234);
        assert_eq!(c.u64c().unwrap(), u64::MAX);
        let neg = (-5i64).to_le_bytes();
        let mut v = vec![8u8];
        v.extend_from_slice(&neg);
        assert_eq!(Cursor::new(&v, 0, v.len(), false).i64c().unwrap(), -5);
    }

    #[test]
    fn records_and_strings_stay_in_bounds() {
        let d = [3u8, b'a', 0, 7, 200];
        let mut c = Cursor::new(&d, 0, d.len(), false);
        assert_eq!(c.record_end().unwrap(), 4);
        assert_eq!(c.string().unwrap(), b"a");
        assert!(c.u64_full().is_err());
        let mut c = Cursor::new(&d, 3, d.len(), false);
        c.pos = 4;
        let e = c.record_end().unwrap_err();
        assert_eq!(e.at, 4);
        let mut c = Cursor::new(b"abc", 0, 3, false);
        assert!(c.string().is_err());
    }
}
