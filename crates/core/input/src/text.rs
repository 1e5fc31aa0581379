//! Small text files read whole (a timesync file, a machine file, a plan):
//! bytes that are not UTF-8 are an error naming their line.

/// A text that is not UTF-8: where its first invalid byte is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
#[error("not UTF-8: byte {byte:#04x} at offset {offset} is no character of a UTF-8 text")]
pub struct NotUtf8 {
    /// The line of the byte (1-based).
    pub line: u64,
    /// Its offset in the text.
    pub offset: u64,
    /// The byte.
    pub byte: u8,
}

/// `bytes` as a string, or where they stop being UTF-8 (a sequence cut at
/// the end included).
pub fn utf8_text(bytes: Vec<u8>) -> Result<String, NotUtf8> {
    String::from_utf8(bytes).map_err(|e| {
        let bytes = e.as_bytes();
        let at = e.utf8_error().valid_up_to();
        NotUtf8 {
            line: 1 + bytes[..at].iter().filter(|&&b| b == b'\n').count() as u64,
            offset: at as u64,
            byte: bytes[at],
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_first_invalid_byte_is_named_by_its_line() {
        assert_eq!(utf8_text(b"a\nb\xc3\xa9\n".to_vec()).unwrap(), "a\nbé\n");
        let e = utf8_text(b"a\nb\n\nc \xff d\n".to_vec()).unwrap_err();
        assert_eq!(
            e,
            NotUtf8 {
                line: 4,
                offset: 7,
                byte: 0xff
            }
        );
        assert!(e.to_string().contains("byte 0xff at offset 7"), "{e}");
        // A sequence cut at the end.
        assert_eq!(utf8_text(b"x\n\xc3".to_vec()).unwrap_err().line, 2);
    }
}
