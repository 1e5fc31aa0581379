//! `pmdumplog -a` (see the [module](super) documentation): the label,
//! the records and their value lines.

use super::convert::{Converter, Value};
use super::time::{parse_ctime, parse_tod, NS_PER_DAY};
use trama_records::{Nanos, SourceError};

/// `HH:MM:SS.frac N metrics` → (time of day in ns, N).
pub(super) fn parse_record_head(line: &str) -> Option<(i64, u64)> {
    let mut it = line.split(' ');
    let t = parse_tod(it.next()?).ok()?;
    let n: u64 = it.next()?.parse().ok()?;
    match (it.next()?, it.next()) {
        ("metrics" | "metric", None) => Some((t, n)),
        _ => None,
    }
}

/// `inst [id or "name"] value V` → (instance name, value text).
fn parse_inst_value(s: &str) -> Option<(String, &str)> {
    let r = s.strip_prefix("inst [")?;
    let (id, r) = r.split_once(" or ")?;
    let (name, r) = if let Some(q) = r.strip_prefix('"') {
        let end = q.find("\"]")?;
        (q[..end].to_string(), &q[end + 2..])
    } else {
        let end = r.find(']')?;
        (id.to_string(), &r[end + 1..])
    };
    let v = r.strip_prefix(" value ")?;
    Some((name, v))
}

/// Converts the records of `pmdumplog -a` output.
pub(super) fn read_pmdumplog(conv: &mut Converter<'_>, text: &str) -> Result<(), SourceError> {
    let mut host: Option<String> = None;
    let mut day: Option<i64> = None; // days since the epoch of the current record
    let mut last_tod: i64 = -1;
    let mut time: Option<Nanos> = None; // the current record's time
    let mut metric: Option<String> = None; // the metric awaiting instance lines
    let offset_ns = conv.opts.utc_offset as i64 * 1_000_000_000;
    for (i, raw) in text.split('\n').enumerate() {
        let ln = i as u64 + 1;
        let line = raw.strip_suffix('\r').unwrap_or(raw);
        if let Some(h) = line.strip_prefix("Performance metrics from host ") {
            host = Some(h.trim().to_string());
        }
        if let Some(c) = line.trim_start().strip_prefix("commencing ") {
            let (d, tod, _) = parse_ctime(c.trim(), None)
                .map_err(|m| conv.err(ln, format!("commencing `{c}`: {m}")))?;
            day = Some(d);
            last_tod = tod;
            conv.stats.skipped_lines += 1;
            continue;
        }
        if let Some((tod, _n)) = parse_record_head(line) {
            let Some(d) = day.as_mut() else {
                return Err(conv.err(
                    ln,
                    "a record before the `commencing` line: its date is unknown",
                ));
            };
            if tod < last_tod {
                *d += 1;
            }
            last_tod = tod;
            time = Some(*d * NS_PER_DAY + tod - offset_ns);
            metric = None;
            conv.stats.rows += 1;
            continue;
        }
        if line.ends_with(" <mark>") && parse_tod(line.split(' ').next().unwrap_or("")).is_ok() {
            conv.stats.marks += 1;
            time = None;
            continue;
        }
        let Some(t) = time else {
            conv.stats.skipped_lines += 1;
            continue;
        };
        if !line.starts_with("    ") {
            // A blank line or `[N bytes]`: the record is over.
            time = None;
            conv.stats.skipped_lines += 1;
            continue;
        }
        let body = line.trim_start();
        if let Some(r) = body.strip_prefix("inst [") {
            let Some(m) = metric.clone() else {
                return Err(conv.err(
                    ln,
                    format!("instance line `{body}` without its metric line"),
                ));
            };
            let Some((inst, v)) = parse_inst_value(body) else {
                return Err(conv.err(ln, format!("cannot read instance value `inst [{r}`")));
            };
            let h = conv.host(host.as_deref(), ln)?;
            dumplog_value(conv, t, &h, &m, Some(&inst), v, ln)?;
            continue;
        }
        // `pmid (name): ...`
        let Some(open) = body.find(" (") else {
            return Err(conv.err(ln, format!("cannot read value line `{body}`")));
        };
        let Some(close) = body[open..].find("):").map(|c| c + open) else {
            return Err(conv.err(ln, format!("cannot read value line `{body}`")));
        };
        let name = body[open + 2..close].to_string();
        let rest = body[close + 2..].trim_start();
        let h = conv.host(host.as_deref(), ln)?;
        if rest.is_empty() {
            metric = Some(name);
        } else if let Some(v) = rest.strip_prefix("value ") {
            metric = None;
            dumplog_value(conv, t, &h, &name, None, v, ln)?;
        } else if rest.starts_with("inst [") {
            metric = None;
            let Some((inst, v)) = parse_inst_value(rest) else {
                return Err(conv.err(ln, format!("cannot read instance value `{rest}`")));
            };
            dumplog_value(conv, t, &h, &name, Some(&inst), v, ln)?;
        } else {
            metric = None;
            conv.stats.unsupported += 1;
        }
    }
    if day.is_none() {
        return Err(SourceError::file(
            conv.name,
            "no `commencing` line: not pmdumplog -a output with a label",
        ));
    }
    Ok(())
}

fn dumplog_value(
    conv: &mut Converter<'_>,
    t: Nanos,
    host: &str,
    metric: &str,
    inst: Option<&str>,
    v: &str,
    ln: u64,
) -> Result<(), SourceError> {
    let v = v.trim();
    if let Some(s) = v.strip_prefix('"').and_then(|s| s.strip_suffix('"')) {
        let ty = conv.type_name(metric, inst);
        return conv.value(t, host, inst, &ty, Value::Text(s), ln);
    }
    if v.parse::<f64>().is_ok() {
        let ty = conv.type_name(metric, inst);
        return conv.value(t, host, inst, &ty, Value::Number(v), ln);
    }
    conv.stats.unsupported += 1;
    Ok(())
}
