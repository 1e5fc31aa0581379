//! `pmrep -o csv` (see the [module](super) documentation): the header's
//! column names and the rows.

use std::collections::HashMap;

use super::convert::{is_metric_char, split_fields, Converter, Value};
use super::PcpColumn;
use trama_records::SourceError;

/// A pmrep column name: `metric`, `metric[inst]`, `metric-inst`, each with
/// an optional `(unit)`; `None` for a label column (`{...}`).
fn parse_pmrep_column(name: &str) -> Result<Option<PcpColumn>, String> {
    if name.starts_with('{') {
        return Ok(None);
    }
    let split = name
        .find(|c: char| !is_metric_char(c))
        .unwrap_or(name.len());
    let (metric, rest) = name.split_at(split);
    if metric.is_empty() || metric.starts_with('.') || metric.ends_with('.') {
        return Err(format!("column `{name}` does not start with a metric name"));
    }
    let col = |instance: Option<&str>, unit: Option<&str>| PcpColumn {
        metric: metric.to_string(),
        instance: instance.map(str::to_string),
        unit: unit.map(str::to_string),
        host: None,
    };
    if rest.is_empty() {
        return Ok(Some(col(None, None)));
    }
    if let Some(inst) = rest.strip_prefix('-') {
        return Ok(Some(col(Some(inst), None)));
    }
    if let Some(r) = rest.strip_prefix('[') {
        if let Some(body) = r.strip_suffix(')') {
            if let Some(i) = body.rfind("](") {
                return Ok(Some(col(Some(&body[..i]), Some(&body[i + 2..]))));
            }
        }
        if let Some(inst) = r.strip_suffix(']') {
            return Ok(Some(col(Some(inst), None)));
        }
        return Err(format!("column `{name}`: instance without closing `]`"));
    }
    if let Some(unit) = rest.strip_prefix('(').and_then(|r| r.strip_suffix(')')) {
        return Ok(Some(col(None, Some(unit))));
    }
    Err(format!(
        "column `{name}`: unexpected `{rest}` after the metric name"
    ))
}

/// Names repeated bare metric columns (`--no-inst-info`) `#1`, `#2`...
fn number_unnamed(cols: &mut [Option<PcpColumn>]) {
    let mut counts: HashMap<String, usize> = HashMap::new();
    for c in cols.iter().flatten() {
        if c.instance.is_none() {
            *counts.entry(c.metric.clone()).or_default() += 1;
        }
    }
    let mut seen: HashMap<String, usize> = HashMap::new();
    for c in cols.iter_mut().flatten() {
        if c.instance.is_none() && counts[&c.metric] > 1 {
            let k = seen.entry(c.metric.clone()).or_default();
            *k += 1;
            c.instance = Some(format!("#{k}"));
        }
    }
}

struct CsvHeader {
    delim: char,
    extended: bool,
    cols: Vec<Option<PcpColumn>>,
    /// The entity type name of each column.
    tys: Vec<String>,
}

fn pmrep_header(line: &str) -> Option<(char, bool)> {
    if let Some(rest) = line.strip_prefix("Host") {
        let d = rest.chars().next()?;
        if rest[d.len_utf8()..].starts_with(&format!("Interval{d}Time")) {
            return Some((d, true));
        }
        return None;
    }
    let rest = line.strip_prefix("Time")?;
    match rest.chars().next() {
        None => Some((',', false)),
        Some(d) if rest[d.len_utf8()..].starts_with('"') || rest.len() == d.len_utf8() => {
            Some((d, false))
        }
        Some(_) => None,
    }
}

/// Converts the rows of `pmrep -o csv` output, under its headers.
pub(super) fn read_pmrep(conv: &mut Converter<'_>, text: &str) -> Result<(), SourceError> {
    let mut header: Option<CsvHeader> = None;
    for (i, raw) in text.split('\n').enumerate() {
        let ln = i as u64 + 1;
        let line = raw.strip_suffix('\r').unwrap_or(raw);
        if line.is_empty() || (header.is_none() && line.starts_with('#')) {
            conv.stats.skipped_lines += 1;
            continue;
        }
        if let Some((delim, extended)) = pmrep_header(line) {
            let fields = split_fields(line, delim).map_err(|m| conv.err(ln, m))?;
            let skip = if extended { 3 } else { 1 };
            let mut cols = Vec::new();
            for f in &fields[skip..] {
                cols.push(parse_pmrep_column(f.text).map_err(|m| conv.err(ln, m))?);
            }
            number_unnamed(&mut cols);
            conv.stats.columns = cols.iter().flatten().cloned().collect();
            conv.stats.skipped_lines += 1;
            let tys = cols
                .iter()
                .map(|c| {
                    c.as_ref().map_or(String::new(), |c| {
                        conv.type_name(&c.metric, c.instance.as_deref())
                    })
                })
                .collect();
            header = Some(CsvHeader {
                delim,
                extended,
                cols,
                tys,
            });
            continue;
        }
        let Some(h) = header.as_ref() else {
            let shown: String = line.chars().take(60).collect();
            return Err(conv.err(
                ln,
                format!("expected the pmrep CSV header (`Time,\"metric\",...`; pmrep -H writes none), found `{shown}`"),
            ));
        };
        let fields = split_fields(line, h.delim).map_err(|m| conv.err(ln, m))?;
        let lead = if h.extended { 3 } else { 1 };
        if fields.len() != lead + h.cols.len() {
            return Err(conv.err(
                ln,
                format!(
                    "{} fields where the header has {}",
                    fields.len(),
                    lead + h.cols.len()
                ),
            ));
        }
        let row_host = if h.extended {
            Some(fields[0].text)
        } else {
            None
        };
        let time = conv.time(fields[lead - 1].text, ln)?;
        let host = conv.host(row_host, ln)?;
        conv.stats.rows += 1;
        for ((col, ty), f) in h.cols.iter().zip(&h.tys).zip(&fields[lead..]) {
            let Some(col) = col else {
                conv.stats.label_cells += 1;
                continue;
            };
            let v = if f.quoted {
                Value::Text(f.text)
            } else if f.text.is_empty() {
                Value::Missing
            } else {
                Value::Number(f.text)
            };
            conv.value(time, &host, col.instance.as_deref(), ty, v, ln)?;
        }
    }
    if header.is_none() {
        return Err(SourceError::file(conv.name, "no pmrep CSV header line"));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn columns() {
        let c = parse_pmrep_column("disk.dev.read[sda](count)")
            .unwrap()
            .unwrap();
        assert_eq!(
            (c.metric.as_str(), c.instance.as_deref(), c.unit.as_deref()),
            ("disk.dev.read", Some("sda"), Some("count"))
        );
        let c = parse_pmrep_column("kernel.all.load-1 minute")
            .unwrap()
            .unwrap();
        assert_eq!(c.instance.as_deref(), Some("1 minute"));
        let c = parse_pmrep_column("proc.psinfo.cmd[001 (sh) x]")
            .unwrap()
            .unwrap();
        assert_eq!(c.instance.as_deref(), Some("001 (sh) x"));
        let c = parse_pmrep_column("mem.util.free(Kbyte)").unwrap().unwrap();
        assert_eq!((c.instance, c.unit.as_deref()), (None, Some("Kbyte")));
        assert!(parse_pmrep_column("{\"a\":1}").unwrap().is_none());
        assert!(parse_pmrep_column("mem.util.free]").is_err());
        assert!(parse_pmrep_column("[x]").is_err());
    }
}
