//! LEB128 integers and zigzag signed mapping.

/// Appends `v` as LEB128.
#[inline]
pub(crate) fn put(out: &mut Vec<u8>, v: u64) {
    if v < 0x80 {
        out.push(v as u8);
        return;
    }
    if v < 1 << 56 {
        // Up to eight bytes, built in a register and stored at once (the
        // slack past the varint is cut off again).
        let mut word = 0u64;
        let mut shift = 0;
        let mut v = v;
        while v >= 0x80 {
            word |= (v & 0x7f | 0x80) << shift;
            shift += 8;
            v >>= 7;
        }
        word |= v << shift;
        let len = out.len() + shift / 8 + 1;
        out.extend_from_slice(&word.to_le_bytes());
        out.truncate(len);
        return;
    }
    put_long(out, v);
}

#[inline(never)]
fn put_long(out: &mut Vec<u8>, mut v: u64) {
    while v >= 0x80 {
        out.push(v as u8 | 0x80);
        v >>= 7;
    }
    out.push(v as u8);
}

/// Maps a signed integer to an unsigned one (0, -1, 1, -2 … → 0, 1, 2, 3 …).
#[inline]
pub(crate) fn zigzag(v: i64) -> u64 {
    ((v << 1) ^ (v >> 63)) as u64
}

/// Inverse of [`zigzag`].
#[inline]
pub(crate) fn unzigzag(v: u64) -> i64 {
    (v >> 1) as i64 ^ -((v & 1) as i64)
}

/// Appends a length-prefixed byte string.
#[inline]
pub(crate) fn put_bytes(out: &mut Vec<u8>, b: &[u8]) {
    put(out, b.len() as u64);
    out.extend_from_slice(b);
}

/// A cursor over one column. Reading past the end or a malformed varint
/// gives `None`; the caller turns it into an error with an offset.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Cursor<'a> {
    data: &'a [u8],
    pos: usize,
}

impl<'a> Cursor<'a> {
    pub fn new(data: &'a [u8]) -> Cursor<'a> {
        Cursor { data, pos: 0 }
    }

    #[inline]
    pub fn pos(&self) -> usize {
        self.pos
    }

    /// The column's bytes.
    #[inline]
    pub fn data(&self) -> &'a [u8] {
        self.data
    }

    /// Bytes left.
    #[inline]
    pub fn remaining(&self) -> usize {
        self.data.len().saturating_sub(self.pos)
    }

    #[inline]
    pub fn at_end(&self) -> bool {
        self.pos >= self.data.len()
    }

    #[inline(always)]
    pub fn varint(&mut self) -> Option<u64> {
        // Most values fit in one byte.
        if let Some(&b) = self.data.get(self.pos) {
            if b < 0x80 {
                self.pos += 1;
                return Some(b as u64);
            }
        }
        // With ten bytes ahead, no bound check is needed byte by byte.
        if let Some(w) = self.data.get(self.pos..self.pos + 10) {
            let mut v = 0u64;
            for (i, &b) in w.iter().enumerate() {
                v |= ((b & 0x7f) as u64) << (7 * i);
                if b < 0x80 {
                    if i == 9 && b > 1 {
                        return None;
                    }
                    self.pos += i + 1;
                    return Some(v);
                }
            }
            return None;
        }
        self.varint_slow()
    }

    #[inline(never)]
    fn varint_slow(&mut self) -> Option<u64> {
        let mut v = 0u64;
        let mut shift = 0;
        loop {
            let b = *self.data.get(self.pos)?;
            self.pos += 1;
            if shift == 63 && b > 1 {
                return None;
            }
            v |= ((b & 0x7f) as u64) << shift;
            if b < 0x80 {
                return Some(v);
            }
            shift += 7;
            if shift > 63 {
                return None;
            }
        }
    }

    #[inline(always)]
    pub fn u32(&mut self) -> Option<u32> {
        u32::try_from(self.varint()?).ok()
    }

    #[inline]
    pub fn byte(&mut self) -> Option<u8> {
        let b = *self.data.get(self.pos)?;
        self.pos += 1;
        Some(b)
    }

    #[inline]
    pub fn take(&mut self, n: usize) -> Option<&'a [u8]> {
        let end = self.pos.checked_add(n)?;
        let s = self.data.get(self.pos..end)?;
        self.pos = end;
        Some(s)
    }

    #[inline]
    pub fn bytes(&mut self) -> Option<&'a [u8]> {
        let n = usize::try_from(self.varint()?).ok()?;
        self.take(n)
    }

    #[inline]
    pub fn f64(&mut self) -> Option<f64> {
        let b = self.take(8)?;
        Some(f64::from_le_bytes(b.try_into().ok()?))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ends_are_counted_as_one_by_one() {
        let mut data = Vec::new();
        let mut x = 0x9e37_79b9_u32;
        for n in 0..100 {
            let plain = data.iter().filter(|&&b: &&u8| b < 0x80).count();
            assert_eq!(count_ends(&data), plain, "{n} bytes");
            x ^= x << 13;
            x ^= x >> 17;
            x ^= x << 5;
            data.push(x as u8);
        }
    }

    #[test]
    fn varints_round_trip() {
        let values = [0u64, 1, 127, 128, 300, 1 << 35, u64::MAX];
        let mut buf = Vec::new();
        for v in values {
            put(&mut buf, v);
        }
        let mut c = Cursor::new(&buf);
        for v in values {
            assert_eq!(c.varint(), Some(v));
        }
        assert!(c.at_end());
        assert_eq!(c.varint(), None);
        // Eleven continuation bytes never make a u64.
        let mut c = Cursor::new(&[0xff; 11]);
        assert_eq!(c.varint(), None);
    }

    #[test]
    fn the_register_path_writes_the_bytes_of_the_plain_one() {
        let mut buf = vec![9u8; 3];
        for i in 0..64 {
            for v in [1u64 << i, (1u64 << i) - 1, (1u64 << i) + 1, (1u64 << i) * 3] {
                let (mut a, mut b) = (buf.clone(), buf.clone());
                put(&mut a, v);
                put_long(&mut b, v);
                assert_eq!(a, b, "{v}");
                buf.push(v as u8);
            }
        }
    }

    #[test]
    fn the_branchless_path_reads_what_the_other_does() {
        let mut buf = Vec::new();
        let values: Vec<u64> = (0..64)
            .map(|i| (1u64 << i).wrapping_sub(1))
            .chain([0, 1, 127, 128, 16383, 16384, u64::MAX])
            .collect();
        for &v in &values {
            put(&mut buf, v);
        }
        let (mut pos, mut bad, mut b) = (0, false, Cursor::new(&buf));
        for &v in &values {
            assert_eq!(read_wide(&buf, &mut pos, &mut bad), v);
            assert_eq!(b.varint(), Some(v));
        }
        assert_eq!(pos, buf.len());
        assert!(!bad);
        // Past the end: zeros.
        assert_eq!(read_small(&buf, &mut pos, &mut bad), 0);
        assert_eq!(pos, buf.len() + 1);
        // A value too large for 32 bits, and a varint that never ends.
        let mut big = Vec::new();
        put(&mut big, 1 << 40);
        let (mut pos, mut bad) = (0, false);
        read_small(&big, &mut pos, &mut bad);
        assert!(bad);
        let (mut pos, mut bad) = (0, false);
        read_wide(&[0xff; 12], &mut pos, &mut bad);
        assert!(bad);
        // Fixed widths.
        for values in [vec![0u32, 7, 255], vec![1, 256, 65535], vec![3, 1 << 20]] {
            let mut col = Vec::new();
            put_fixed(&mut col, &values);
            let w = col[0] as usize;
            let mut f = Fixed::with_width(&col[1..], w);
            let mut pos = 1;
            for &v in &values {
                assert_eq!(read_fixed(&col, &mut pos, w), v);
                assert_eq!(f.next(), Some(v));
            }
            assert_eq!(pos, col.len());
            assert!(f.exact());
            assert_eq!(f.next(), None);
        }
    }

    #[test]
    fn zigzag_round_trip() {
        for v in [0i64, -1, 1, -2, i64::MAX, i64::MIN, 123456789] {
            assert_eq!(unzigzag(zigzag(v)), v);
        }
        assert_eq!(zigzag(-1), 1);
        assert_eq!(zigzag(1), 2);
    }
}

/// Appends a column of fixed-width integers: a width byte (1, 2 or 4,
/// the fewest bytes that hold the largest value), then every value in
/// that many bytes, little-endian.
pub(crate) fn put_fixed(out: &mut Vec<u8>, values: &[u32]) {
    put_fixed_parts(out, std::iter::once(values));
}

/// Like [`put_fixed`], for the values of several slices one after the other.
pub(crate) fn put_fixed_parts<'a>(
    out: &mut Vec<u8>,
    parts: impl Iterator<Item = &'a [u32]> + Clone,
) {
    let max = parts
        .clone()
        .flat_map(|p| p.iter().copied())
        .max()
        .unwrap_or(0);
    let w: u8 = if max < 1 << 8 {
        1
    } else if max < 1 << 16 {
        2
    } else {
        4
    };
    out.push(w);
    for values in parts {
        match w {
            1 => out.extend(values.iter().map(|&v| v as u8)),
            2 => out.extend(values.iter().flat_map(|&v| (v as u16).to_le_bytes())),
            _ => out.extend(values.iter().flat_map(|&v| v.to_le_bytes())),
        }
    }
}

/// A column written by [`put_fixed`], read without failing (past its end
/// it reads zeros; [`Fixed::exact`] tells whether it was read exactly).
#[derive(Clone, Copy, Debug)]
pub(crate) struct Fixed<'a> {
    data: &'a [u8],
    width: usize,
    pos: usize,
}

impl<'a> Fixed<'a> {
    /// Values of `width` bytes (1, 2 or 4), without a width byte.
    pub fn with_width(data: &'a [u8], width: usize) -> Fixed<'a> {
        Fixed {
            data,
            width,
            pos: 0,
        }
    }

    /// The next value (0 past the end).
    #[inline(always)]
    pub fn get(&mut self) -> u32 {
        let p = self.pos;
        self.pos += self.width;
        match self.width {
            1 => self.data.get(p).map_or(0, |&b| b as u32),
            2 => self
                .data
                .get(p..p + 2)
                .map_or(0, |b| u16::from_le_bytes([b[0], b[1]]) as u32),
            _ => self
                .data
                .get(p..p + 4)
                .map_or(0, |b| u32::from_le_bytes([b[0], b[1], b[2], b[3]])),
        }
    }

    /// The next value, `None` past the end.
    pub fn next(&mut self) -> Option<u32> {
        (self.pos < self.data.len()).then(|| self.get())
    }

    /// True when the column was read exactly to its end.
    pub fn exact(&self) -> bool {
        self.pos == self.data.len()
    }
}

/// How many varints end in `data`: its bytes below 0x80, counted eight at
/// a time.
pub(crate) fn count_ends(data: &[u8]) -> usize {
    let (words, rest) = data.as_chunks::<8>();
    let high: usize = words
        .iter()
        .map(|w| (u64::from_le_bytes(*w) & 0x8080_8080_8080_8080).count_ones() as usize)
        .sum();
    let high = high + rest.iter().filter(|&&b| b >= 0x80).count();
    data.len() - high
}

/// The byte at `i` of a payload (0 past its end).
#[inline(always)]
fn byte_at(p: &[u8], i: usize) -> u8 {
    p.get(i).copied().unwrap_or(0)
}

/// Reads a fixed-width value (see [`put_fixed`]) at `*pos` of a payload,
/// 0 past its end.
#[inline(always)]
pub(crate) fn read_fixed(p: &[u8], pos: &mut usize, width: usize) -> u32 {
    let i = *pos;
    *pos += width;
    match width {
        1 => byte_at(p, i) as u32,
        2 => p
            .get(i..i + 2)
            .map_or(0, |b| u16::from_le_bytes([b[0], b[1]]) as u32),
        _ => p
            .get(i..i + 4)
            .map_or(0, |b| u32::from_le_bytes([b[0], b[1], b[2], b[3]])),
    }
}

/// [`read_wide`] for values most often under 128: one byte tested first.
#[inline(always)]
pub(crate) fn read_wide_short(p: &[u8], pos: &mut usize, bad: &mut bool) -> u64 {
    let b = byte_at(p, *pos);
    if b < 0x80 {
        *pos += 1;
        return b as u64;
    }
    read_wide(p, pos, bad)
}

/// Reads a varint at `*pos` of a payload; values that do not fit 32 bits
/// set `bad`.
#[inline(always)]
pub(crate) fn read_small(p: &[u8], pos: &mut usize, bad: &mut bool) -> u32 {
    let b = byte_at(p, *pos);
    if b < 0x80 {
        *pos += 1;
        return b as u32;
    }
    let v = read_wide(p, pos, bad);
    if v > u32::MAX as u64 {
        *bad = true;
    }
    v as u32
}

/// Reads a varint of any length at `*pos` of a payload, without a branch
/// on its length when eight bytes are left; an unending one sets `bad`.
#[inline(always)]
pub(crate) fn read_wide(p: &[u8], pos: &mut usize, bad: &mut bool) -> u64 {
    let i = *pos;
    if let Some(b) = p.get(i..i + 8) {
        let w = u64::from_le_bytes(b.try_into().expect("8 bytes"));
        let stops = !w & 0x8080_8080_8080_8080;
        if stops & 0x8080_8080 != 0 {
            // Up to four bytes (28 bits), the common case.
            let bits = stops.trailing_zeros() + 1;
            let x = w & ((1u64 << bits) - 1);
            *pos += (bits / 8) as usize;
            return (x & 0x7f) | (x >> 1 & 0x3f80) | (x >> 2 & 0x1f_c000) | (x >> 3 & 0xfe0_0000);
        }
    }
    read_wide_slow(p, pos, bad)
}

#[inline(never)]
fn read_wide_slow(p: &[u8], pos: &mut usize, bad: &mut bool) -> u64 {
    let mut v = 0u64;
    for shift in (0..64).step_by(7) {
        let b = byte_at(p, *pos);
        *pos += 1;
        if shift == 63 && b > 1 {
            break;
        }
        v |= ((b & 0x7f) as u64) << shift;
        if b < 0x80 {
            return v;
        }
    }
    *bad = true;
    v
}

/// Reads a length-prefixed byte string at `*pos` of a payload (cut short
/// at its end).
#[inline(always)]
pub(crate) fn read_bytes<'a>(p: &'a [u8], pos: &mut usize, bad: &mut bool) -> &'a [u8] {
    let n = read_small(p, pos, bad) as usize;
    let start = (*pos).min(p.len());
    let end = start.saturating_add(n).min(p.len());
    *pos = (*pos).saturating_add(n);
    &p[start..end]
}
