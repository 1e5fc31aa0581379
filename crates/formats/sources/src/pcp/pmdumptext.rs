//! `pmdumptext` (see the [module](super) documentation): its headers
//! (`-m`, `-M`, `-u`, `-N`, `-i`) and data lines.

use super::convert::{is_metric_char, split_fields, Converter, Value};
use super::PcpColumn;
use trama_records::SourceError;

/// `[ n] spec` of `pmdumptext -M`: (n, spec).
pub(super) fn is_full_name_line(line: &str) -> Option<(usize, &str)> {
    let rest = line.strip_prefix('[')?;
    let close = rest.find(']')?;
    let n: usize = rest[..close].trim().parse().ok()?;
    let spec = rest[close + 1..].strip_prefix(' ')?;
    Some((n, spec))
}

/// A pmdumptext spec `[source:|source/]metric["inst"]`.
fn parse_spec(spec: &str) -> Result<PcpColumn, String> {
    let spec = spec.trim();
    let (head, instance) = match spec.find("[\"") {
        Some(i) => {
            let inst = spec[i + 2..]
                .strip_suffix("\"]")
                .ok_or_else(|| format!("`{spec}`: instance without closing `\"]`"))?;
            (&spec[..i], Some(inst.to_string()))
        }
        None => (spec, None),
    };
    let (source, metric) = match head.rfind([':', '/']) {
        Some(i) => (Some((&head[..i], head.as_bytes()[i])), &head[i + 1..]),
        None => (None, head),
    };
    if metric.is_empty() || !metric.chars().all(is_metric_char) {
        return Err(format!("`{spec}` is not a metric name"));
    }
    Ok(PcpColumn {
        metric: metric.to_string(),
        instance,
        unit: None,
        // A host source ends with `:`; an archive (`/`) names no host.
        host: source.and_then(|(s, sep)| (sep == b':').then(|| s.to_string())),
    })
}

/// Converts the data lines of `pmdumptext` output, under its headers.
pub(super) fn read_pmdumptext(conv: &mut Converter<'_>, text: &str) -> Result<(), SourceError> {
    let mut delim = '\t';
    let mut cols: Vec<PcpColumn> = Vec::new();
    let mut full: Vec<PcpColumn> = Vec::new();
    for (i, raw) in text.split('\n').enumerate() {
        let ln = i as u64 + 1;
        let line = raw.strip_suffix('\r').unwrap_or(raw);
        if line.trim().is_empty() {
            conv.stats.skipped_lines += 1;
            continue;
        }
        if let Some((n, spec)) = is_full_name_line(line) {
            if n != full.len() + 1 {
                full.clear();
                if n != 1 {
                    return Err(conv.err(ln, format!("column list entry [{n}] out of order")));
                }
            }
            full.push(parse_spec(spec).map_err(|m| conv.err(ln, m))?);
            cols = full.clone();
            conv.stats.columns = cols.clone();
            conv.stats.skipped_lines += 1;
            continue;
        }
        let first_word = line
            .trim_start()
            .split(|c: char| !c.is_alphanumeric())
            .next()
            .unwrap_or("");
        if matches!(
            first_word,
            "Metric" | "Source" | "Inst" | "Normal" | "Units" | "Column"
        ) {
            // Header lines of the interactive layout: readable only when the
            // full names were listed first (-X); `Column` numbers them.
            if first_word == "Column" || !full.is_empty() {
                conv.stats.skipped_lines += 1;
                continue;
            }
            return Err(conv.err(
                ln,
                format!("`{first_word}` header: the interactive layout (pmdumptext -i) truncates names and cannot be read without -X"),
            ));
        }
        if let Some(rest) = line.strip_prefix("Time") {
            if let Some(d) = rest.chars().next() {
                delim = d;
                let fields = split_fields(rest, d).map_err(|m| conv.err(ln, m))?;
                let mut c = Vec::new();
                for f in &fields[1..] {
                    c.push(parse_spec(f.text).map_err(|m| conv.err(ln, m))?);
                }
                cols = c;
                conv.stats.columns = cols.clone();
                conv.stats.skipped_lines += 1;
                continue;
            }
        }
        let fields = split_fields(line, delim).map_err(|m| conv.err(ln, m))?;
        let f0 = fields[0].text.trim();
        if f0 == "none" || f0 == conv.opts.unavailable || f0.is_empty() {
            // Units (-u), normalisation (-N) or column-number (-M) lines.
            conv.stats.skipped_lines += 1;
            continue;
        }
        if cols.is_empty() {
            let shown: String = line.chars().take(60).collect();
            return Err(conv.err(
                ln,
                format!(
                    "data line `{shown}` before any metric names: pmdumptext needs -m, -H or -M"
                ),
            ));
        }
        let lead = match fields.len().checked_sub(cols.len()) {
            Some(1) => 1,
            Some(2) => 2,
            _ => {
                return Err(conv.err(
                    ln,
                    format!(
                        "{} fields for {} columns (expected the time, optionally after an offset, then one value per column)",
                        fields.len(),
                        cols.len()
                    ),
                ))
            }
        };
        if lead == 2 && fields[0].text.trim().parse::<f64>().is_err() {
            return Err(conv.err(ln, format!("offset `{}` is not a number", fields[0].text)));
        }
        let time = conv.time(fields[lead - 1].text.trim(), ln)?;
        conv.stats.rows += 1;
        for (col, f) in cols.iter().zip(&fields[lead..]) {
            let host = conv.host(col.host.as_deref(), ln)?;
            let t = f.text.trim();
            let v = if f.quoted {
                Value::Text(f.text)
            } else if t.is_empty() || t == conv.opts.unavailable {
                Value::Missing
            } else {
                Value::Number(t)
            };
            let ty = conv.type_name(&col.metric, col.instance.as_deref());
            conv.value(time, &host, col.instance.as_deref(), &ty, v, ln)?;
        }
    }
    if cols.is_empty() {
        return Err(SourceError::file(
            conv.name,
            "no pmdumptext metric names (-m, -H or -M)",
        ));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn specs() {
        let c = parse_spec("gonzo:disk.dev.read[\"sda\"]").unwrap();
        assert_eq!(
            (c.host.as_deref(), c.metric.as_str(), c.instance.as_deref()),
            (Some("gonzo"), "disk.dev.read", Some("sda"))
        );
        let c = parse_spec("/var/log/pcp/a/20240101/kernel.all.load[\"1 minute\"]").unwrap();
        assert_eq!((c.host, c.instance.as_deref()), (None, Some("1 minute")));
        let c = parse_spec("mem.util.free").unwrap();
        assert_eq!((c.host, c.instance), (None, None));
        assert!(parse_spec("mem.util.free[\"x").is_err());
    }
}
