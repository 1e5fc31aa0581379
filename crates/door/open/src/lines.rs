//! A line of a text trace read again for a message.
//!
//! The engine finds some errors after the text of their line was passed on
//! (it keeps handles, not words). For a regular file, the handle opened
//! with the input is cloned at opening, and the line is read again through
//! it by position (decompressing when needed); nothing is reopened by name.
//! Streams cannot be read again: their messages give the line number only.

use std::fs::File;
use std::io::{self, BufRead, Read};

/// Reads `file` from offset 0 without moving the shared offset of the
/// handles it was cloned from.
pub(crate) struct FromStart {
    file: File,
    pos: u64,
}

impl FromStart {
    /// `file` read from its start.
    pub(crate) fn new(file: File) -> FromStart {
        FromStart { file, pos: 0 }
    }
}

impl Read for FromStart {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let n = read_at(&self.file, buf, self.pos)?;
        self.pos += n as u64;
        Ok(n)
    }
}

#[cfg(unix)]
fn read_at(file: &File, buf: &mut [u8], pos: u64) -> io::Result<usize> {
    std::os::unix::fs::FileExt::read_at(file, buf, pos)
}

#[cfg(windows)]
fn read_at(file: &File, buf: &mut [u8], pos: u64) -> io::Result<usize> {
    std::os::windows::fs::FileExt::seek_read(file, buf, pos)
}

/// The text of line `n` (1-based) of `file`, trimmed.
pub(crate) fn line_of(file: File, n: u64) -> Option<String> {
    let mut input = trama_input::Input::from_reader(String::new(), FromStart::new(file)).ok()?;
    let mut buf = Vec::new();
    for _ in 0..n {
        buf.clear();
        if input.read_until(b'\n', &mut buf).ok()? == 0 {
            return None;
        }
    }
    let text = String::from_utf8_lossy(&buf);
    Some(text.trim_end_matches(['\n', '\r']).trim().to_string())
}
