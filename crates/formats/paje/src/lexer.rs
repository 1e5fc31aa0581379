//! Splitting text into lines and words, exactly as PajeNG does.
//!
//! Rules (per line; a line ends at `\n`):
//! - words are separated by C `isspace` bytes (space, `\t`, `\v`, `\f`, `\r`);
//! - `#` outside a quoted word starts a comment that runs to the end of the
//!   line, even in the middle of a word (`abc#x` is the word `abc`);
//! - a word that *starts* with `"` is quoted: it runs to the next `"` and may
//!   contain spaces and `#`; an unterminated quoted word runs to the end of
//!   the line. A `"` inside an unquoted word (`a"b`) is an ordinary byte;
//! - in [`QuoteMode::Keep`] (PajeNG HEAD) the quotes stay part of the word
//!   and a quoted word goes on until the next space (`"a b"c` is one word);
//!   in [`QuoteMode::Strip`] (PajeNG 1.3.10) the quotes are removed and the
//!   byte after the closing quote starts a new word.

use trama_events::Span;

/// How quoted words are read.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum QuoteMode {
    /// Quotes are part of the value (PajeNG HEAD): `"MPI State"` stays quoted.
    #[default]
    Keep,
    /// Quotes are syntax and are removed (PajeNG 1.3.10): `MPI State`.
    Strip,
}

const SPACE: u8 = 1;
const QUOTE: u8 = 2;
const HASH: u8 = 3;
const NEWLINE: u8 = 4;
const OTHER: u8 = 0;

static CLASS: [u8; 256] = {
    let mut t = [OTHER; 256];
    t[b' ' as usize] = SPACE;
    t[b'\t' as usize] = SPACE;
    t[0x0b] = SPACE;
    t[0x0c] = SPACE;
    t[b'\r' as usize] = SPACE;
    t[b'"' as usize] = QUOTE;
    t[b'#' as usize] = HASH;
    t[b'\n' as usize] = NEWLINE;
    t
};

/// One non-empty line found by [`lex_chunk`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LineRec {
    /// Line index relative to the start of the chunk (0-based).
    pub rel: u32,
    /// Index of the first word in the word list.
    pub first: u32,
    /// Number of words.
    pub count: u32,
}

/// What [`lex_chunk`] finds in a chunk of text. Kept from chunk to chunk,
/// so that its buffers are reused.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Lexed {
    /// Every word, as a span of the chunk.
    pub words: Vec<Span>,
    /// The non-empty lines (blank and comment-only lines are skipped).
    pub lines: Vec<LineRec>,
    /// Offset of the first NUL byte, if any, so that the reader can reject
    /// binary input with a clear message.
    pub nul: Option<u32>,
    /// Number of lines in the chunk, counting a final line without `\n`.
    pub line_count: u32,
}

/// Splits `buf` (complete lines; the last one may lack its `\n`) into words
/// and lines, into `out` (whatever it held is replaced).
pub fn lex_chunk(buf: &[u8], mode: QuoteMode, out: &mut Lexed) {
    out.words.clear();
    out.lines.clear();
    out.nul = memchr::memchr(0, buf).map(|p| p as u32);
    let n = buf.len();
    let mut i = 0usize;
    let mut rel: u32 = 0;
    while i < n {
        let first = out.words.len() as u32;
        i = lex_line(buf, i, mode, &mut out.words);
        let count = out.words.len() as u32 - first;
        if count > 0 {
            out.lines.push(LineRec { rel, first, count });
        }
        rel += 1;
    }
    out.line_count = rel;
}

/// Lexes the line starting at `start`; returns the offset just after its
/// `\n` (or `buf.len()`). Also used by the SIMD lexer for lines with quotes,
/// comments or NUL bytes.
#[inline]
pub(crate) fn lex_line(buf: &[u8], start: usize, mode: QuoteMode, words: &mut Vec<Span>) -> usize {
    let n = buf.len();
    let mut i = start;
    loop {
        // Skip separators.
        while i < n && CLASS[buf[i] as usize] == SPACE {
            i += 1;
        }
        if i >= n {
            return n;
        }
        match CLASS[buf[i] as usize] {
            NEWLINE => return i + 1,
            HASH => {
                return match memchr::memchr(b'\n', &buf[i..]) {
                    Some(p) => i + p + 1,
                    None => n,
                };
            }
            QUOTE => {
                let open = i;
                i += 1;
                // Find the closing quote or the end of the line.
                let rest = &buf[i..];
                match memchr::memchr2(b'"', b'\n', rest) {
                    Some(p) if rest[p] == b'"' => {
                        let close = i + p;
                        match mode {
                            QuoteMode::Strip => {
                                words.push(span(open + 1, close));
                                i = close + 1;
                            }
                            QuoteMode::Keep => {
                                // The word goes on after the closing quote
                                // until a separator, a comment or the end.
                                // Further quotes are ordinary bytes there.
                                let mut j = close + 1;
                                while j < n && matches!(CLASS[buf[j] as usize], OTHER | QUOTE) {
                                    j += 1;
                                }
                                words.push(span(open, j));
                                i = j;
                            }
                        }
                    }
                    Some(p) => {
                        // Unterminated: the word runs to the end of the line.
                        let nl = i + p;
                        let from = if mode == QuoteMode::Strip {
                            open + 1
                        } else {
                            open
                        };
                        words.push(span(from, nl));
                        return nl + 1;
                    }
                    None => {
                        let from = if mode == QuoteMode::Strip {
                            open + 1
                        } else {
                            open
                        };
                        words.push(span(from, n));
                        return n;
                    }
                }
            }
            _ => {
                let s = i;
                // Unquoted word: quotes are ordinary bytes here.
                while i < n && matches!(CLASS[buf[i] as usize], OTHER | QUOTE) {
                    i += 1;
                }
                words.push(span(s, i));
            }
        }
    }
}

#[inline]
fn span(a: usize, b: usize) -> Span {
    Span {
        start: a as u32,
        end: b as u32,
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    /// The words of each non-empty line, as strings (shared with the SIMD lexer's tests).
    pub(crate) fn line_words(s: &str, out: &Lexed) -> Vec<Vec<String>> {
        out.lines
            .iter()
            .map(|l| {
                out.words[l.first as usize..(l.first + l.count) as usize]
                    .iter()
                    .map(|w| s[w.start as usize..w.end as usize].to_string())
                    .collect()
            })
            .collect()
    }

    /// Texts, a quote mode and the words of each non-empty line: what every
    /// lexer must find (the SIMD lexer's tests go through them too).
    pub(crate) const EXAMPLES: &[(&str, QuoteMode, &[&[&str]])] = &[
        // Separators, CRLF, blank lines.
        (
            "1\tP  0\r\n\n  \n2 0.5 p1 P 0",
            QuoteMode::Keep,
            &[&["1", "P", "0"], &["2", "0.5", "p1", "P", "0"]],
        ),
        (
            "1\tP  0\r\n\n  \n\r\n\x0b\x0c\n2 0.5\x0bp1\x0cP\t0\r\n\n\n",
            QuoteMode::Keep,
            &[&["1", "P", "0"], &["2", "0.5", "p1", "P", "0"]],
        ),
        (
            "12 0.123456789 S p12 s3 tag42\n14 0.123461234 L 0 msg p3 k1234\n8 0.123470000 VP p7 42.5\n",
            QuoteMode::Keep,
            &[
                &["12", "0.123456789", "S", "p12", "s3", "tag42"],
                &["14", "0.123461234", "L", "0", "msg", "p3", "k1234"],
                &["8", "0.123470000", "VP", "p7", "42.5"],
            ],
        ),
        // Comments anywhere outside quotes.
        (
            "   # indented\n1 a#b c\n2 \"u#v\" x # tail\n",
            QuoteMode::Keep,
            &[&["1", "a"], &["2", "\"u#v\"", "x"]],
        ),
        (
            "2 \"u#v\" x # tail\n",
            QuoteMode::Strip,
            &[&["2", "u#v", "x"]],
        ),
        (
            "   # indented\n1 a#b c\n#\n##\nx#\n#x\nword # comment \"with quote\n",
            QuoteMode::Keep,
            &[&["1", "a"], &["x"], &["word"]],
        ),
        // Quotes kept or stripped, text after a closing quote.
        (
            "2 0 a\"b \"Proc Type\" 0\n1 \"\" 0\n",
            QuoteMode::Keep,
            &[&["2", "0", "a\"b", "\"Proc Type\"", "0"], &["1", "\"\"", "0"]],
        ),
        (
            "2 0 a\"b \"Proc Type\" 0\n1 \"\" 0\n",
            QuoteMode::Strip,
            &[&["2", "0", "a\"b", "Proc Type", "0"], &["1", "", "0"]],
        ),
        ("\"a b\"c d", QuoteMode::Keep, &[&["\"a b\"c", "d"]]),
        ("\"a b\"c d", QuoteMode::Strip, &[&["a b", "c", "d"]]),
        (
            "2 0 a\"b \"Proc Type\" 0\n1 \"\" 0\n\"a b\"c d\n2 \"u#v\" x # tail\n",
            QuoteMode::Keep,
            &[
                &["2", "0", "a\"b", "\"Proc Type\"", "0"],
                &["1", "\"\"", "0"],
                &["\"a b\"c", "d"],
                &["2", "\"u#v\"", "x"],
            ],
        ),
        (
            "2 0 a\"b \"Proc Type\" 0\n1 \"\" 0\n\"a b\"c d\n2 \"u#v\" x # tail\n",
            QuoteMode::Strip,
            &[
                &["2", "0", "a\"b", "Proc Type", "0"],
                &["1", "", "0"],
                &["a b", "c", "d"],
                &["2", "u#v", "x"],
            ],
        ),
        // Unterminated quotes run to the end of the line, with and without
        // a final newline.
        (
            "2 0 \"abc P 0\n2 1 d P 0\n3 \"open to the end",
            QuoteMode::Keep,
            &[
                &["2", "0", "\"abc P 0"],
                &["2", "1", "d", "P", "0"],
                &["3", "\"open to the end"],
            ],
        ),
        (
            "2 0 \"abc P 0\n2 1 d P 0\n3 \"open to the end",
            QuoteMode::Strip,
            &[
                &["2", "0", "abc P 0"],
                &["2", "1", "d", "P", "0"],
                &["3", "open to the end"],
            ],
        ),
    ];

    #[test]
    fn examples() {
        for (text, mode, want) in EXAMPLES {
            let mut out = Lexed::default();
            lex_chunk(text.as_bytes(), *mode, &mut out);
            assert_eq!(line_words(text, &out), *want, "{mode:?} {text:?}");
        }
    }

    #[test]
    fn line_numbers_count_every_line() {
        let mut out = Lexed::default();
        lex_chunk(b"a\n\n# c\nb\nc", QuoteMode::Keep, &mut out);
        assert_eq!(out.line_count, 5);
        assert_eq!(
            out.lines.iter().map(|l| l.rel).collect::<Vec<_>>(),
            vec![0, 3, 4]
        );
        assert_eq!(out.nul, None);
        lex_chunk(b"a\0b\n", QuoteMode::Keep, &mut out);
        assert_eq!(out.nul, Some(1));
    }
}
