//! A small protobuf encoder: what the Perfetto writer needs and no more
//! (varints, 64-bit fields, length-delimited fields and nested messages,
//! written straight into a byte vector).

/// Wire type of varints (`uint64`, `int64`, `bool`, enums).
const VARINT: u8 = 0;
/// Wire type of 64-bit fields (`fixed64`, `double`).
const I64: u8 = 1;
/// Wire type of length-delimited fields (strings, bytes, messages).
const LEN: u8 = 2;

/// Protobuf bytes being written.
#[derive(Clone, Debug, Default)]
pub struct Encoder {
    /// The bytes written so far.
    pub buf: Vec<u8>,
}

/// Appends `v` as a base-128 varint.
#[inline]
pub fn put_varint(buf: &mut Vec<u8>, mut v: u64) {
    while v >= 0x80 {
        buf.push((v as u8) | 0x80);
        v >>= 7;
    }
    buf.push(v as u8);
}

impl Encoder {
    #[inline]
    fn tag(&mut self, field: u32, wire: u8) {
        put_varint(&mut self.buf, (u64::from(field) << 3) | u64::from(wire));
    }

    /// A varint field (`uint32`, `uint64`, enums).
    #[inline]
    pub fn uint(&mut self, field: u32, v: u64) {
        self.tag(field, VARINT);
        put_varint(&mut self.buf, v);
    }

    /// An `int64`/`int32` field (two's complement: a negative number takes ten bytes).
    #[inline]
    pub fn int(&mut self, field: u32, v: i64) {
        self.uint(field, v as u64);
    }

    /// A `double` field.
    #[inline]
    pub fn double(&mut self, field: u32, v: f64) {
        self.tag(field, I64);
        self.buf.extend_from_slice(&v.to_le_bytes());
    }

    /// A `fixed64` field.
    #[inline]
    pub fn fixed64(&mut self, field: u32, v: u64) {
        self.tag(field, I64);
        self.buf.extend_from_slice(&v.to_le_bytes());
    }

    /// A `bytes` or `string` field.
    #[inline]
    pub fn bytes(&mut self, field: u32, b: &[u8]) {
        self.tag(field, LEN);
        put_varint(&mut self.buf, b.len() as u64);
        self.buf.extend_from_slice(b);
    }

    /// A nested message whose fields `body` writes. Its length is put in
    /// front once known (a message under 128 bytes, most of them, moves
    /// nothing).
    #[inline]
    pub fn message(&mut self, field: u32, body: impl FnOnce(&mut Encoder)) {
        self.tag(field, LEN);
        let at = self.buf.len();
        self.buf.push(0);
        body(self);
        let len = self.buf.len() - at - 1;
        if len < 0x80 {
            self.buf[at] = len as u8;
        } else {
            let mut v = Vec::with_capacity(10);
            put_varint(&mut v, len as u64);
            self.buf.splice(at..at + 1, v);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn varints() {
        for (v, bytes) in [
            (0u64, &[0u8][..]),
            (1, &[1]),
            (127, &[0x7f]),
            (128, &[0x80, 1]),
            (300, &[0xac, 2]),
            (
                u64::MAX,
                &[0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 1],
            ),
        ] {
            let mut b = Vec::new();
            put_varint(&mut b, v);
            assert_eq!(b, bytes, "{v}");
        }
    }

    #[test]
    fn nested_lengths() {
        for n in [0usize, 1, 127, 128, 300, 20000] {
            let mut e = Encoder::default();
            e.message(2, |m| m.bytes(1, &vec![b'x'; n]));
            // field 2 LEN, outer length, field 1 LEN, inner length, bytes
            let mut inner = vec![0x0a];
            put_varint(&mut inner, n as u64);
            inner.extend(std::iter::repeat_n(b'x', n));
            let mut want = vec![0x12];
            put_varint(&mut want, inner.len() as u64);
            want.extend(inner);
            assert_eq!(e.buf, want, "{n}");
        }
    }

    #[test]
    fn fields() {
        let mut e = Encoder::default();
        e.uint(1, 150);
        e.int(2, -1);
        e.double(3, 1.5);
        e.fixed64(4, 7);
        assert_eq!(&e.buf[..3], &[0x08, 0x96, 0x01]);
        assert_eq!(e.buf[3], 0x10);
        assert_eq!(e.buf.len(), 3 + 11 + 9 + 9);
        assert_eq!(e.buf[14], 0x19);
        assert_eq!(&e.buf[15..23], &1.5f64.to_le_bytes());
        assert_eq!(e.buf[23], 0x21);
    }
}
