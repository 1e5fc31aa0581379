//! The XML dumps of gmond and gmetad (see the [module](super)
//! documentation for the elements read and how sample times are found).

use quick_xml::events::{BytesStart, Event};
use quick_xml::Reader;

use super::{decode, quote, Sample, Scan, NS};
use trama_records::SourceError;

fn line_at(bytes: &[u8], pos: u64) -> u64 {
    let end = (pos as usize).min(bytes.len());
    memchr::memchr_iter(b'\n', &bytes[..end]).count() as u64 + 1
}

/// An open element of the document being read.
enum Open {
    Root,
    Grid {
        localtime: Option<i64>,
    },
    Cluster {
        name: String,
        localtime: Option<i64>,
    },
    Host(HostCtx),
    Other,
}

struct HostCtx {
    name: String,
    ip: Option<String>,
    reported: Option<i64>,
    tn: Option<i64>,
}

/// The attributes named in `wanted`, decoded, in that order.
fn attributes<const N: usize>(
    e: &BytesStart<'_>,
    wanted: [&str; N],
) -> Result<[Option<String>; N], String> {
    let mut out: [Option<String>; N] = std::array::from_fn(|_| None);
    for a in e.attributes() {
        let a = a.map_err(|err| format!("bad attribute: {err}"))?;
        if let Some(i) = wanted.iter().position(|w| w.as_bytes() == a.key.as_ref()) {
            let raw = decode(&a.value);
            let v = quick_xml::escape::unescape(&raw)
                .map_err(|err| format!("attribute {}={}: {err}", wanted[i], quote(&raw)))?;
            out[i] = Some(v.into_owned());
        }
    }
    Ok(out)
}

fn seconds_attr(elem: &str, attr: &str, v: &Option<String>) -> Result<Option<i64>, String> {
    match v {
        None => Ok(None),
        Some(s) => s.trim().parse::<i64>().map(Some).map_err(|_| {
            format!(
                "{elem} {attr}={} is not a whole number of seconds",
                quote(s)
            )
        }),
    }
}

/// Reads the element `<METRIC>` `e` of the host on top of `stack` (the
/// elements open around it), gives its sample to `each`; `at` makes an
/// error at its line.
fn metric(
    e: &BytesStart<'_>,
    stack: &[Open],
    host: &HostCtx,
    at: impl Fn(String) -> SourceError,
    each: &mut dyn FnMut(&Sample<'_>),
) -> Result<(), SourceError> {
    let [n, val, ty, units, tn] =
        attributes(e, ["NAME", "VAL", "TYPE", "UNITS", "TN"]).map_err(&at)?;
    let metric = n.ok_or_else(|| at("METRIC without NAME".into()))?;
    let val = val.ok_or_else(|| at(format!("METRIC {} without VAL", quote(&metric))))?;
    let ty = ty.ok_or_else(|| at(format!("METRIC {} without TYPE", quote(&metric))))?;
    let tn = seconds_attr("METRIC", "TN", &tn).map_err(&at)?.unwrap_or(0);
    let number = match ty.as_str() {
        "string" => None,
        "int8" | "uint8" | "int16" | "uint16" | "int32" | "uint32" | "float" | "double"
        | "timestamp" => Some(val.trim().parse::<f64>().map_err(|_| {
            at(format!(
                "METRIC {} of TYPE {ty} has the value {}, not a number",
                quote(&metric),
                quote(&val)
            ))
        })?),
        _ => {
            return Err(at(format!(
                "METRIC {} has the unknown TYPE {}",
                quote(&metric),
                quote(&ty)
            )))
        }
    };
    let reference = stack
        .iter()
        .find_map(|o| match o {
            Open::Grid { localtime } | Open::Cluster { localtime, .. } => *localtime,
            _ => None,
        })
        .or_else(|| host.reported.map(|r| r + host.tn.unwrap_or(0)))
        .ok_or_else(|| {
            at(format!(
                "no time for METRIC {}: no LOCALTIME above it and no REPORTED on its HOST",
                quote(&metric)
            ))
        })?;
    let time = (reference - tn)
        .checked_mul(NS)
        .ok_or_else(|| at(format!("time {reference} - {tn} out of range")))?;
    let cluster = stack.iter().rev().find_map(|o| match o {
        Open::Cluster { name, .. } => Some(name.as_str()),
        _ => None,
    });
    let units = units.as_deref().map(str::trim).filter(|u| !u.is_empty());
    each(&Sample {
        cluster,
        host: &host.name,
        ip: host.ip.as_deref(),
        metric: &metric,
        time,
        value: if number.is_some() { val.trim() } else { &val },
        number,
        units,
    });
    Ok(())
}

/// Reads the samples of XML dumps (one document or several), in file order.
pub(super) fn read_xml(
    name: &str,
    bytes: &[u8],
    each: &mut dyn FnMut(&Sample<'_>),
) -> Result<Scan, SourceError> {
    let mut reader = Reader::from_reader(bytes);
    reader.config_mut().trim_text(true);
    let mut scan = Scan::default();
    let mut stack: Vec<Open> = Vec::new();
    loop {
        let ev = reader.read_event();
        // Errors about an element name the line of its closing `>`.
        let pos = reader.buffer_position().saturating_sub(1);
        let at = |m: String| SourceError::line(name, line_at(bytes, pos), m);
        let ev = match ev {
            Ok(ev) => ev,
            Err(e) => {
                return Err(SourceError::line(
                    name,
                    line_at(bytes, reader.error_position()),
                    format!("malformed XML: {e}"),
                ))
            }
        };
        let (e, empty) = match ev {
            Event::Start(e) => (e, false),
            Event::Empty(e) => (e, true),
            Event::End(_) => {
                stack.pop();
                continue;
            }
            Event::Text(t) => {
                let raw = decode(&t);
                if raw.trim().is_empty() {
                    continue;
                }
                return Err(at(format!("unexpected text {}", quote(raw.trim()))));
            }
            Event::CData(_) | Event::GeneralRef(_) => {
                return Err(at("unexpected text content".into()));
            }
            Event::Eof => break,
            // Declarations, the DTD, comments, processing instructions.
            _ => continue,
        };
        let tag = decode(e.name().as_ref()).into_owned();
        let open = match (stack.last(), tag.as_str()) {
            (None, "GANGLIA_XML") => {
                scan.documents += 1;
                Open::Root
            }
            (None, _) => {
                return Err(at(format!("<{tag}> outside a GANGLIA_XML document")));
            }
            (Some(_), "GANGLIA_XML") => {
                return Err(at("GANGLIA_XML inside GANGLIA_XML".into()));
            }
            (_, "GRID") => {
                let [lt] = attributes(&e, ["LOCALTIME"]).map_err(at)?;
                Open::Grid {
                    localtime: seconds_attr("GRID", "LOCALTIME", &lt).map_err(at)?,
                }
            }
            (_, "CLUSTER") => {
                let [n, lt] = attributes(&e, ["NAME", "LOCALTIME"]).map_err(at)?;
                Open::Cluster {
                    name: n.ok_or_else(|| at("CLUSTER without NAME".into()))?,
                    localtime: seconds_attr("CLUSTER", "LOCALTIME", &lt).map_err(at)?,
                }
            }
            (_, "HOST") => {
                let [n, ip, rep, tn] =
                    attributes(&e, ["NAME", "IP", "REPORTED", "TN"]).map_err(at)?;
                Open::Host(HostCtx {
                    name: n.ok_or_else(|| at("HOST without NAME".into()))?,
                    ip,
                    reported: seconds_attr("HOST", "REPORTED", &rep).map_err(at)?,
                    tn: seconds_attr("HOST", "TN", &tn).map_err(at)?,
                })
            }
            (Some(Open::Host(host)), "METRIC") => {
                scan.samples += 1;
                metric(&e, &stack, host, at, each)?;
                Open::Other
            }
            (_, "METRIC") => return Err(at("METRIC outside a HOST".into())),
            (_, "METRICS") => {
                scan.summaries += 1;
                Open::Other
            }
            _ => Open::Other,
        };
        if !empty {
            stack.push(open);
        }
    }
    if !stack.is_empty() {
        return Err(SourceError::line(
            name,
            line_at(bytes, bytes.len() as u64),
            "the file ends inside a GANGLIA_XML document (a dump cut short?)",
        ));
    }
    if scan.documents == 0 {
        return Err(SourceError::file(name, "no GANGLIA_XML document"));
    }
    Ok(scan)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn latin1_attributes() {
        let xml = b"<GANGLIA_XML><CLUSTER NAME=\"caf\xE9\" LOCALTIME=\"10\"><HOST NAME=\"h\" IP=\"i\" REPORTED=\"10\">\
<METRIC NAME=\"m\" VAL=\"a&amp;b\" TYPE=\"string\"/></HOST></CLUSTER></GANGLIA_XML>";
        let mut got = Vec::new();
        read_xml("x", xml, &mut |s| {
            got.push((s.cluster.unwrap().to_string(), s.value.to_string()))
        })
        .unwrap();
        assert_eq!(got, vec![("café".to_string(), "a&b".to_string())]);
    }
}
