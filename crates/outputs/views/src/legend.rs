//! Legends and notes below a picture: entries deduplicated, each with its
//! swatch, wrapped into as many lines as they need, nothing cut.

use std::fmt::Write as _;

use crate::svg::esc;

/// Average advance of a character at font size 11 (DejaVu Sans is about
/// 0.6 em; a little more so that no text overruns).
pub(crate) const CHAR_W: f64 = 6.8;
/// Height of a line of legend or note.
pub(crate) const LINE_H: f64 = 18.0;

/// How an entry is marked.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Swatch {
    /// A filled square (states).
    Fill(String),
    /// A short line (variables).
    Line(String),
}

/// A legend: entries in order, the first of each (label, swatch) kept.
#[derive(Debug, Default)]
pub(crate) struct Legend {
    entries: Vec<(String, Swatch)>,
}

impl Legend {
    /// Adds an entry unless one with the same label and swatch is there.
    pub(crate) fn add(&mut self, label: String, swatch: Swatch) {
        if !self
            .entries
            .iter()
            .any(|(l, s)| *l == label && *s == swatch)
        {
            self.entries.push((label, swatch));
        }
    }

    /// Number of entries.
    #[cfg(test)]
    pub(crate) fn len(&self) -> usize {
        self.entries.len()
    }

    /// Lays the entries out from `x0` to `right`, lines `LINE_H` apart from
    /// the baseline `y`; returns the SVG and the number of lines.
    pub(crate) fn layout(&self, x0: f64, right: f64, y: f64) -> (String, usize) {
        let mut o = String::new();
        if self.entries.is_empty() {
            return (o, 0);
        }
        let mut lines = 1;
        let mut x = x0;
        let avail = (right - x0).max(40.0);
        for (label, swatch) in &self.entries {
            // A label longer than a line is cut with an ellipsis.
            let max_chars = ((avail - 26.0) / CHAR_W).max(4.0) as usize;
            let label = cut(label, max_chars);
            let w = 22.0 + CHAR_W * label.chars().count() as f64 + 8.0;
            if x > x0 && x + w > right {
                lines += 1;
                x = x0;
            }
            let ly = y + (lines - 1) as f64 * LINE_H;
            match swatch {
                Swatch::Fill(c) => {
                    let _ = write!(
                        o,
                        "<rect x=\"{x:.1}\" y=\"{:.1}\" width=\"12\" height=\"10\" fill=\"{c}\" stroke=\"#666\" stroke-width=\"0.5\"/>",
                        ly - 9.0
                    );
                }
                Swatch::Line(c) => {
                    let _ = write!(
                        o,
                        "<path d=\"M{x:.1},{:.1}h14\" stroke=\"{c}\" stroke-width=\"2\"/>",
                        ly - 4.0
                    );
                }
            }
            let _ = write!(
                o,
                "<text x=\"{:.1}\" y=\"{ly:.1}\" fill=\"#333\">{}</text>",
                x + 18.0,
                esc(&label)
            );
            x += w;
        }
        (o, lines)
    }
}

/// `s` cut to at most `n` characters in its middle, an ellipsis marking
/// the cut: names that differ by their end (`worker-…-63`, `worker-…-64`)
/// stay apart.
pub(crate) fn cut_middle(s: &str, n: usize) -> String {
    let len = s.chars().count();
    if len <= n {
        return s.to_string();
    }
    let tail = n.saturating_sub(1) / 2;
    let head = n.saturating_sub(1) - tail;
    let mut o: String = s.chars().take(head).collect();
    o.push('…');
    o.extend(s.chars().skip(len - tail));
    o
}

/// `s` cut to at most `n` characters, an ellipsis marking the cut.
pub(crate) fn cut(s: &str, n: usize) -> String {
    if s.chars().count() <= n {
        return s.to_string();
    }
    let mut o: String = s.chars().take(n.saturating_sub(1)).collect();
    o.push('…');
    o
}

/// Words of `text` wrapped into lines of at most `width` pixels.
pub(crate) fn wrap(text: &str, width: f64) -> Vec<String> {
    let max = ((width / CHAR_W) as usize).max(10);
    let mut lines: Vec<String> = Vec::new();
    let mut cur = String::new();
    for word in text.split(' ') {
        if !cur.is_empty() && cur.chars().count() + 1 + word.chars().count() > max {
            lines.push(std::mem::take(&mut cur));
        }
        if !cur.is_empty() {
            cur.push(' ');
        }
        cur.push_str(word);
    }
    if !cur.is_empty() {
        lines.push(cur);
    }
    lines
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn entries_are_deduplicated_by_label_and_colour() {
        let mut l = Legend::default();
        l.add("compute".into(), Swatch::Fill("#111".into()));
        l.add("compute".into(), Swatch::Fill("#111".into()));
        l.add("compute".into(), Swatch::Fill("#222".into()));
        assert_eq!(l.len(), 2);
    }

    #[test]
    fn a_long_legend_wraps_and_keeps_every_entry() {
        let mut l = Legend::default();
        for i in 0..22 {
            l.add(format!("value-number-{i}"), Swatch::Fill("#123456".into()));
        }
        let (svg, lines) = l.layout(10.0, 400.0, 100.0);
        assert!(lines > 1);
        assert_eq!(svg.matches("<rect").count(), 22);
        for i in 0..22 {
            assert!(svg.contains(&format!(">value-number-{i}<")));
        }
        // No entry starts past the right edge.
        for part in svg.split("<rect x=\"").skip(1) {
            let x: f64 = part.split('"').next().unwrap().parse().unwrap();
            let label = part.split('>').nth(2).unwrap().split('<').next().unwrap();
            assert!(x + 22.0 + CHAR_W * label.chars().count() as f64 <= 400.0 + 8.0);
        }
    }

    #[test]
    fn notes_wrap_by_words() {
        let lines = wrap("one two three four five six", 10.0 * CHAR_W);
        assert_eq!(lines, vec!["one two", "three four", "five six"]);
    }
}
