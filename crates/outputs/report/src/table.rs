//! Aligned columns and CSV fields.

use std::io::{self, Write};

/// A CSV field: quoted (with doubled quotes) when it holds a comma, a
/// quote or a line break.
pub(crate) fn csv_field(s: &str) -> String {
    if s.contains([',', '"', '\n', '\r']) {
        format!("\"{}\"", s.replace('"', "\"\""))
    } else {
        s.to_string()
    }
}

/// One column of [`columns`]: its name and its cell in a row.
pub(crate) type Column<T> = (&'static str, fn(&T) -> String);

/// The lines of a table of `rows`: the columns' names, then a line per
/// row with its cell in each column.
pub(crate) fn columns<T>(rows: &[T], cols: &[Column<T>]) -> Vec<Vec<String>> {
    let names = cols.iter().map(|c| c.0.to_string()).collect();
    let cells = rows.iter().map(|r| cols.iter().map(|c| (c.1)(r)).collect());
    std::iter::once(names).chain(cells).collect()
}

/// Writes `rows` as CSV: the columns' names, then a line per row with its
/// cell in each column (as it is: text goes through [`csv_field`]).
pub(crate) fn csv<T>(out: &mut dyn Write, rows: &[T], cols: &[Column<T>]) -> io::Result<()> {
    for line in columns(rows, cols) {
        writeln!(out, "{}", line.join(","))?;
    }
    Ok(())
}

/// A number in CSV: at most nine decimals (a nanosecond, for times), so
/// sums print as `0.021`, not `0.020999999999999464`; integers without a
/// fraction.
pub(crate) fn num(x: f64) -> String {
    if !x.is_finite() {
        return x.to_string();
    }
    let s = format!("{x:.9}");
    let s = s.trim_end_matches('0').trim_end_matches('.');
    if s == "-0" {
        "0".into()
    } else {
        s.into()
    }
}

/// Seconds in a table: six decimals.
pub(crate) fn secs(x: f64) -> String {
    format!("{x:.6}")
}

/// Writes aligned columns: the first `left` columns left-aligned, the
/// others right-aligned.
pub(crate) fn table(out: &mut dyn Write, lines: &[Vec<String>], left: usize) -> io::Result<()> {
    let n = lines.first().map_or(0, |l| l.len());
    let width: Vec<usize> = (0..n)
        .map(|i| {
            lines
                .iter()
                .map(|l| l[i].chars().count())
                .max()
                .unwrap_or(0)
        })
        .collect();
    for l in lines {
        let mut s = String::new();
        for (i, cell) in l.iter().enumerate() {
            if i > 0 {
                s.push_str("  ");
            }
            let pad = width[i] - cell.chars().count();
            if i < left {
                s.push_str(cell);
                if i + 1 < n {
                    s.extend(std::iter::repeat_n(' ', pad));
                }
            } else {
                s.extend(std::iter::repeat_n(' ', pad));
                s.push_str(cell);
            }
        }
        writeln!(out, "{}", s.trim_end())?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn csv_fields_are_quoted_only_when_needed() {
        assert_eq!(csv_field("rank-1"), "rank-1");
        assert_eq!(csv_field("a,b"), "\"a,b\"");
        assert_eq!(csv_field("say \"hi\""), "\"say \"\"hi\"\"\"");
        assert_eq!(csv_field("two\nlines"), "\"two\nlines\"");
    }

    #[test]
    fn tables_align_left_then_right() {
        let rows = [("a", 100), ("long name", 2)];
        let lines = columns(
            &rows,
            &[("name", |r| r.0.to_string()), ("n", |r| r.1.to_string())],
        );
        let mut out = Vec::new();
        table(&mut out, &lines, 1).unwrap();
        assert_eq!(
            String::from_utf8(out).unwrap(),
            "name         n\na          100\nlong name    2\n"
        );
    }
}
