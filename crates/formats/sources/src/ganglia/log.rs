//! The text log (`unixtime metric host value` a line, see the
//! [module](super) documentation): reading it, and the writing of its
//! times and quoted values that the collector needs.

use trama_num::SecondsSyntax;

use super::{decode, quote, Sample, Scan, NS};
use trama_records::{Nanos, SourceError};

/// Parses Unix seconds with up to nine decimals into nanoseconds.
fn parse_seconds(tok: &str) -> Option<Nanos> {
    trama_num::parse_seconds(tok.as_bytes(), SecondsSyntax::PLAIN).ok()
}

/// Unix seconds as the log writes them: exact, without trailing zeros.
pub(super) fn format_seconds(t: Nanos) -> String {
    let (s, f) = (t.div_euclid(NS), t.rem_euclid(NS));
    if f == 0 {
        s.to_string()
    } else {
        let frac = format!("{f:09}");
        format!("{s}.{}", frac.trim_end_matches('0'))
    }
}

/// Splits off the next blank-separated token: (token, rest).
fn token(s: &str) -> Option<(&str, &str)> {
    let s = s.trim_start_matches([' ', '\t']);
    if s.is_empty() {
        return None;
    }
    let end = s.find([' ', '\t']).unwrap_or(s.len());
    Some((&s[..end], &s[end..]))
}

/// Parses a quoted string value; `s` starts with `"`.
fn unquote(s: &str) -> Result<String, String> {
    let mut out = String::new();
    let mut chars = s[1..].chars();
    loop {
        match chars.next() {
            None => return Err(format!("unterminated quoted value {}", quote(s))),
            Some('"') => break,
            Some('\\') => match chars.next() {
                Some('"') => out.push('"'),
                Some('\\') => out.push('\\'),
                Some('n') => out.push('\n'),
                Some('t') => out.push('\t'),
                Some(c) => return Err(format!("unknown escape `\\{c}` in {}", quote(s))),
                None => return Err(format!("unterminated quoted value {}", quote(s))),
            },
            Some(c) => out.push(c),
        }
    }
    let rest = chars.as_str();
    if !rest.trim_matches([' ', '\t']).is_empty() {
        return Err(format!("unexpected {} after the quoted value", quote(rest)));
    }
    Ok(out)
}

/// Appends a string value to a log line, quoted, with its escapes.
pub(super) fn quote_value(out: &mut String, text: &str) {
    out.push('"');
    for c in text.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\t' => out.push_str("\\t"),
            c => out.push(c),
        }
    }
    out.push('"');
}

/// Reads the samples of a text log, in file order.
pub(super) fn read_text_log(
    name: &str,
    bytes: &[u8],
    each: &mut dyn FnMut(&Sample<'_>),
) -> Result<Scan, SourceError> {
    let mut scan = Scan::default();
    let bytes = bytes.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(bytes);
    for (i, raw) in bytes.split(|&b| b == b'\n').enumerate() {
        let lineno = i as u64 + 1;
        let raw = raw.strip_suffix(b"\r").unwrap_or(raw);
        let line = decode(raw);
        let l = line.trim_matches([' ', '\t']);
        if l.is_empty() || l.starts_with('#') {
            continue;
        }
        let err = |m: String| SourceError::line(name, lineno, m);
        let (t, rest) = token(l).expect("line is not blank");
        let time = parse_seconds(t).ok_or_else(|| {
            err(format!(
                "time {} is not Unix seconds (digits, at most nine decimals)",
                quote(t)
            ))
        })?;
        let (metric, rest) =
            token(rest).ok_or_else(|| err(format!("line {} has no metric", quote(l))))?;
        let (host, rest) =
            token(rest).ok_or_else(|| err(format!("line {} has no host", quote(l))))?;
        let v = rest.trim_matches([' ', '\t']);
        if v.is_empty() {
            return Err(err(format!("line {} has no value", quote(l))));
        }
        let text;
        let (value, number) = if v.starts_with('"') {
            text = unquote(v).map_err(err)?;
            (text.as_str(), None)
        } else {
            if v.contains([' ', '\t']) {
                return Err(err(format!(
                    "value {} has blanks: a string value must be quoted",
                    quote(v)
                )));
            }
            let n: f64 = v.parse().map_err(|_| {
                err(format!(
                    "value {} is neither a number nor a quoted string",
                    quote(v)
                ))
            })?;
            (v, Some(n))
        };
        scan.samples += 1;
        each(&Sample {
            cluster: None,
            host,
            ip: None,
            metric,
            time,
            value,
            number,
            units: None,
        });
    }
    Ok(scan)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn seconds_round_trip() {
        assert_eq!(parse_seconds("1096944667"), Some(1_096_944_667 * NS));
        assert_eq!(parse_seconds("1.5"), Some(NS + NS / 2));
        assert_eq!(parse_seconds("2.000000001"), Some(2 * NS + 1));
        assert_eq!(parse_seconds("2.0000000001"), None);
        assert_eq!(parse_seconds("-1"), None);
        assert_eq!(parse_seconds("1e3"), None);
        assert_eq!(parse_seconds(".5"), None);
        assert_eq!(parse_seconds("99999999999999999999"), None);
        for t in [0, NS, 1_096_944_667 * NS, 3 * NS + 250_000_000, 7] {
            assert_eq!(parse_seconds(&format_seconds(t)), Some(t), "{t}");
        }
        assert_eq!(format_seconds(3 * NS + 250_000_000), "3.25");
    }

    #[test]
    fn quoting_round_trips() {
        for s in ["Darwin", "a \"b\" \\ c", "tab\there\nnl", ""] {
            let mut q = String::new();
            quote_value(&mut q, s);
            assert_eq!(unquote(&q).unwrap(), s);
        }
        assert!(unquote("\"abc").is_err());
        assert!(unquote("\"abc\" x").is_err());
        assert!(unquote("\"a\\qb\"").is_err());
    }
}
