//! Words quoted in error messages: a message never echoes a megabyte-long
//! token, whichever reader found it.

use std::borrow::Cow;

/// Longest word shown whole in a message.
pub const LONGEST_WORD: usize = 100;

/// `text` with every word (between spaces or newlines) longer than
/// [`LONGEST_WORD`] bytes cut to its first 60 bytes, its length said:
/// `xxxx… (121000 bytes)`.
pub fn shorten(text: &str) -> Cow<'_, str> {
    if !text.split([' ', '\n']).any(|w| w.len() > LONGEST_WORD) {
        return Cow::Borrowed(text);
    }
    let mut out = String::new();
    for (i, line) in text.split('\n').enumerate() {
        if i > 0 {
            out.push('\n');
        }
        for (j, w) in line.split(' ').enumerate() {
            if j > 0 {
                out.push(' ');
            }
            if w.len() > LONGEST_WORD {
                let mut cut = 60;
                while !w.is_char_boundary(cut) {
                    cut -= 1;
                }
                out.push_str(&format!("{}… ({} bytes)", &w[..cut], w.len()));
            } else {
                out.push_str(w);
            }
        }
    }
    Cow::Owned(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn long_words_are_cut_and_short_ones_kept() {
        let token = "é".repeat(1 << 19);
        let text = format!("line 3: '{token}' is not a number\n  | 1 2");
        let m = shorten(&text);
        assert!(m.len() < 200, "{} bytes", m.len());
        assert!(
            m.contains("… (1048578 bytes) is not a number\n  | 1 2"),
            "{m}"
        );
        assert!(matches!(shorten("short words stay"), Cow::Borrowed(_)));
    }
}
