//! A UTF-8 byte order mark at the start of a text is an encoding mark,
//! not a word: editors on some systems write one. It is dropped before the
//! text is lexed, so the first line reads as it does without it.

use std::io::{self, Read};

/// The UTF-8 encoding of U+FEFF.
const BOM: [u8; 3] = [0xEF, 0xBB, 0xBF];

/// A reader that drops a UTF-8 byte order mark at the start of `inner`.
pub(crate) struct SkipBom<R> {
    inner: R,
    /// The first bytes read, when they are not a mark, still to be handed out.
    head: [u8; 3],
    head_len: usize,
    head_at: usize,
    checked: bool,
}

impl<R: Read> SkipBom<R> {
    pub(crate) fn new(inner: R) -> SkipBom<R> {
        SkipBom {
            inner,
            head: [0; 3],
            head_len: 0,
            head_at: 0,
            checked: false,
        }
    }

    /// Reads the first three bytes (fewer at the end of the input) and
    /// keeps them unless they are the mark.
    fn check(&mut self) -> io::Result<()> {
        while self.head_len < 3 {
            match self.inner.read(&mut self.head[self.head_len..]) {
                Ok(0) => break,
                Ok(n) => self.head_len += n,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                Err(e) => return Err(e),
            }
        }
        if self.head[..self.head_len] == BOM {
            self.head_len = 0;
        }
        self.checked = true;
        Ok(())
    }
}

impl<R: Read> Read for SkipBom<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        if !self.checked {
            self.check()?;
        }
        if self.head_at < self.head_len {
            let n = (self.head_len - self.head_at).min(buf.len());
            buf[..n].copy_from_slice(&self.head[self.head_at..self.head_at + n]);
            self.head_at += n;
            return Ok(n);
        }
        self.inner.read(buf)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn through(input: &[u8]) -> Vec<u8> {
        let mut out = Vec::new();
        SkipBom::new(input).read_to_end(&mut out).unwrap();
        out
    }

    #[test]
    fn a_leading_mark_is_dropped_and_nothing_else() {
        assert_eq!(through(b"\xEF\xBB\xBF%EventDef"), b"%EventDef");
        assert_eq!(through(b"%EventDef"), b"%EventDef");
        assert_eq!(through(b"\xEF\xBB"), b"\xEF\xBB");
        assert_eq!(through(b""), b"");
        assert_eq!(through(b"ab"), b"ab");
        // Only at the start.
        assert_eq!(through(b"a\xEF\xBB\xBF"), b"a\xEF\xBB\xBF");
        assert_eq!(
            through(b"\xEF\xBB\xBF\xEF\xBB\xBFx"),
            b"\xEF\xBB\xBFx",
            "one mark is dropped, a second one is text"
        );
    }
}
