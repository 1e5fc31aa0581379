//! A buffered reader that tells the line of an XML event.

use std::collections::VecDeque;
use std::io::{self, BufRead, Read};

/// A buffered reader that counts the lines of what it hands out, keeping
/// the positions of the newlines of the current XML event only.
pub(super) struct LineReader<R> {
    inner: R,
    buf: Box<[u8]>,
    pos: usize,
    filled: usize,
    consumed: u64,
    /// Newlines before `newlines`' first one.
    lines_before: u64,
    /// Positions of the newlines consumed since the current event's start.
    newlines: VecDeque<u64>,
}

impl<R: Read> LineReader<R> {
    pub(super) fn new(inner: R) -> LineReader<R> {
        LineReader {
            inner,
            buf: vec![0; 64 * 1024].into_boxed_slice(),
            pos: 0,
            filled: 0,
            consumed: 0,
            lines_before: 0,
            newlines: VecDeque::new(),
        }
    }

    /// Forgets the newlines before `pos` (the start of the next event).
    pub(super) fn mark(&mut self, pos: u64) {
        while self.newlines.front().is_some_and(|&p| p < pos) {
            self.newlines.pop_front();
            self.lines_before += 1;
        }
    }

    /// The line (1-based) of byte `pos`, at or after the last mark.
    pub(super) fn line_of(&self, pos: u64) -> u64 {
        1 + self.lines_before + self.newlines.iter().take_while(|&&p| p < pos).count() as u64
    }
}

impl<R: Read> Read for LineReader<R> {
    fn read(&mut self, out: &mut [u8]) -> io::Result<usize> {
        let avail = self.fill_buf()?;
        let n = avail.len().min(out.len());
        out[..n].copy_from_slice(&avail[..n]);
        self.consume(n);
        Ok(n)
    }
}

impl<R: Read> BufRead for LineReader<R> {
    fn fill_buf(&mut self) -> io::Result<&[u8]> {
        if self.pos == self.filled {
            self.pos = 0;
            self.filled = loop {
                match self.inner.read(&mut self.buf) {
                    Ok(n) => break n,
                    Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                    Err(e) => return Err(e),
                }
            };
        }
        Ok(&self.buf[self.pos..self.filled])
    }

    fn consume(&mut self, amt: usize) {
        let amt = amt.min(self.filled - self.pos);
        let base = self.consumed;
        for i in memchr::memchr_iter(b'\n', &self.buf[self.pos..self.pos + amt]) {
            self.newlines.push_back(base + i as u64);
        }
        self.pos += amt;
        self.consumed += amt as u64;
    }
}
