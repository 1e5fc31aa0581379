//! What the three layouts share: the conversion of values into records
//! (hosts, instances, types, string changes) and the splitting of
//! delimited lines into fields.

use std::collections::HashMap;

use super::time::parse_time;
use super::{InstanceMapping, PcpOptions, PcpStats};
use trama_records::{path, Nanos, Path, Record, SourceError, VarOp, What};

/// The records and statistics of one input, built value by value.
pub(super) struct Converter<'a> {
    pub(super) name: &'a str,
    pub(super) opts: &'a PcpOptions,
    pub(super) records: Vec<Record>,
    pub(super) stats: PcpStats,
    hosts: HashMap<String, Path>,
    instances: HashMap<String, HashMap<String, Path>>,
    last_string: HashMap<(Path, String), String>,
}

impl<'a> Converter<'a> {
    pub(super) fn new(name: &'a str, opts: &'a PcpOptions) -> Self {
        Converter {
            name,
            opts,
            records: Vec::new(),
            stats: PcpStats::default(),
            hosts: HashMap::new(),
            instances: HashMap::new(),
            last_string: HashMap::new(),
        }
    }

    pub(super) fn err(&self, line: u64, msg: impl Into<String>) -> SourceError {
        SourceError::line(self.name, line, msg)
    }

    /// The host for a value: the row's or column's, else the option's.
    pub(super) fn host(&self, own: Option<&str>, line: u64) -> Result<String, SourceError> {
        match own.filter(|h| !h.is_empty()).or(self.opts.host.as_deref()) {
            Some(h) => Ok(h.to_string()),
            None => Err(self.err(
                line,
                "the input names no host (no Host column, source or label): give one in the options",
            )),
        }
    }

    /// The entity type name of `metric` with instance `inst`.
    pub(super) fn type_name(&self, metric: &str, inst: Option<&str>) -> String {
        match (inst, self.opts.instances) {
            (Some(i), InstanceMapping::InName) => format!("{metric}[{i}]"),
            _ => metric.to_string(),
        }
    }

    /// The container of values of `host` with instance `inst`.
    fn container(&mut self, host: &str, inst: Option<&str>) -> Path {
        if let (Some(i), InstanceMapping::Container) = (inst, self.opts.instances) {
            if let Some(p) = self.instances.get(host).and_then(|m| m.get(i)) {
                return p.clone();
            }
            let p = path(&[("host", host), ("instance", i)]);
            self.instances
                .entry(host.to_string())
                .or_default()
                .insert(i.to_string(), p.clone());
            return p;
        }
        if let Some(p) = self.hosts.get(host) {
            return p.clone();
        }
        let p = path(&[("host", host)]);
        self.hosts.insert(host.to_string(), p.clone());
        p
    }

    /// One value of type `ty` (instance `inst`) on `host` at `time`.
    pub(super) fn value(
        &mut self,
        time: Nanos,
        host: &str,
        inst: Option<&str>,
        ty: &str,
        value: Value<'_>,
        line: u64,
    ) -> Result<(), SourceError> {
        match value {
            Value::Missing => self.stats.missing += 1,
            Value::Text(s) => {
                self.stats.strings += 1;
                let container = self.container(host, inst);
                let ty = ty.to_string();
                let key = (container.clone(), ty.clone());
                if self.last_string.get(&key).map(String::as_str) != Some(s) {
                    self.last_string.insert(key, s.to_string());
                    self.stats.string_changes += 1;
                    self.records.push(Record {
                        time,
                        what: What::SetState {
                            container,
                            ty: ty.into(),
                            value: s.to_string().into(),
                            extra: Vec::new(),
                        },
                    });
                }
            }
            Value::Number(tok) => {
                let v: f64 = tok.trim().parse().map_err(|_| {
                    self.err(line, format!("value `{tok}` of {ty} is not a number"))
                })?;
                if !v.is_finite() {
                    self.stats.non_finite += 1;
                    return Ok(());
                }
                self.stats.values += 1;
                let container = self.container(host, inst);
                let ty = ty.to_string();
                self.records.push(Record {
                    time,
                    what: What::Variable {
                        container,
                        ty: ty.into(),
                        op: VarOp::Set,
                        value: v,
                    },
                });
            }
        }
        Ok(())
    }

    /// A printed time to UTC nanoseconds.
    pub(super) fn time(&self, text: &str, line: u64) -> Result<Nanos, SourceError> {
        parse_time(text, self.opts.year, self.opts.utc_offset)
            .map_err(|m| self.err(line, format!("time `{text}`: {m}")))
    }
}

/// One value of a row or record.
pub(super) enum Value<'t> {
    Missing,
    Text(&'t str),
    Number(&'t str),
}

/// One field of a delimited line: its text (quotes removed) and whether it
/// was quoted.
pub(super) struct Field<'t> {
    pub(super) text: &'t str,
    pub(super) quoted: bool,
}

/// Splits a pmrep/pmdumptext line: fields separated by `delim`; a field
/// starting with `"` runs to the next `"`, which must end the field (these
/// tools never escape quotes). Returns the 0-based rank of a bad field.
pub(super) fn split_fields(line: &str, delim: char) -> Result<Vec<Field<'_>>, String> {
    let mut out = Vec::new();
    let mut rest = line;
    loop {
        if let Some(after) = rest.strip_prefix('"') {
            let Some(end) = after.find('"') else {
                return Err(format!(
                    "field {} has no closing quote: `{rest}`",
                    out.len() + 1
                ));
            };
            out.push(Field {
                text: &after[..end],
                quoted: true,
            });
            let tail = &after[end + 1..];
            if tail.is_empty() {
                return Ok(out);
            }
            match tail.strip_prefix(delim) {
                Some(t) => rest = t,
                None => {
                    return Err(format!(
                        "field {} has text after its closing quote: `{tail}`",
                        out.len()
                    ))
                }
            }
        } else {
            match rest.find(delim) {
                Some(i) => {
                    out.push(Field {
                        text: &rest[..i],
                        quoted: false,
                    });
                    rest = &rest[i + delim.len_utf8()..];
                }
                None => {
                    out.push(Field {
                        text: rest,
                        quoted: false,
                    });
                    return Ok(out);
                }
            }
        }
    }
}

/// A character of a metric name (PMNS components and their dots).
pub(super) fn is_metric_char(c: char) -> bool {
    c.is_ascii_alphanumeric() || c == '_' || c == '.'
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fields() {
        let f = split_fields("a,\"b,c\",,\"\"", ',').unwrap();
        let t: Vec<(&str, bool)> = f.iter().map(|f| (f.text, f.quoted)).collect();
        assert_eq!(
            t,
            vec![("a", false), ("b,c", true), ("", false), ("", true)]
        );
        assert!(split_fields("\"ab", ',').is_err());
        assert!(split_fields("\"a\"b,c", ',').is_err());
    }
}
