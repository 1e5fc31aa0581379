//! The MPI machine file, which places ranks on hosts in file order.
//!
//! Accepted line forms (one host per line):
//!
//! - `host` — one slot;
//! - `host:n` — `n` slots (MPICH / Hydra);
//! - `host slots=n` — `n` slots (Open MPI); `max_slots=m` may follow and is
//!   ignored; `cpu=n` is read like `slots=n` (LAM / MPICH-1);
//! - `#` starts a comment to the end of the line; blank lines are skipped.
//!
//! A host with `n` slots takes the next `n` ranks. A host named on several
//! lines gets the slots of each line in turn. (IPv6 addresses, which hold
//! colons, are not supported in the `host:n` form.)

use std::path::Path;

use trama_records::SourceError;

/// Reads a machine file: the host of each slot in order, i.e. the host of
/// rank `i` for the first `len()` ranks (see [`rank_hosts`] for more ranks).
pub fn read_machine_file(path: impl AsRef<Path>) -> Result<Vec<String>, SourceError> {
    let path = path.as_ref();
    let name = path.display().to_string();
    let bytes =
        std::fs::read(path).map_err(|e| SourceError::file(&name, format!("cannot read: {e}")))?;
    let text = trama_input::utf8_text(bytes)
        .map_err(|e| SourceError::line(&name, e.line, e.to_string()))?;
    parse_machine_file(&text, &name)
}

/// Parses the text of a machine file (named `name` in messages); as
/// [`read_machine_file`].
pub fn parse_machine_file(text: &str, name: &str) -> Result<Vec<String>, SourceError> {
    let mut slots = Vec::new();
    for (i, raw) in text.lines().enumerate() {
        let line_no = i as u64 + 1;
        let line = raw.split('#').next().unwrap_or("").trim();
        if line.is_empty() {
            continue;
        }
        let mut tokens = line.split_whitespace();
        let spec = tokens.next().unwrap_or_default();
        let err = |msg: String| SourceError::line(name, line_no, msg);
        let (host, mut count) = match spec.rsplit_once(':') {
            Some((h, n)) => (
                h,
                Some(positive(n).ok_or_else(|| {
                    err(format!(
                        "`{spec}`: the slot count `{n}` is not a positive integer"
                    ))
                })?),
            ),
            None => (spec, None),
        };
        if host.is_empty() {
            return Err(err(format!("`{spec}`: no host name")));
        }
        for t in tokens {
            let (key, value) = t
                .split_once('=')
                .ok_or_else(|| err(format!("unexpected `{t}` (expected `slots=n`)")))?;
            match key {
                "slots" | "cpu" => {
                    if count.is_some() {
                        return Err(err(format!("`{t}`: a second slot count for `{host}`")));
                    }
                    count = Some(positive(value).ok_or_else(|| {
                        err(format!(
                            "`{t}`: the slot count `{value}` is not a positive integer"
                        ))
                    })?);
                }
                "max_slots" | "max-slots" => {}
                _ => return Err(err(format!("unknown host option `{t}`"))),
            }
        }
        for _ in 0..count.unwrap_or(1) {
            slots.push(host.to_string());
        }
    }
    Ok(slots)
}

fn positive(s: &str) -> Option<usize> {
    s.parse::<usize>()
        .ok()
        .filter(|n| (1..=1_000_000).contains(n))
}

/// The host of each of `nranks` ranks given the slots of a machine file
/// (from [`read_machine_file`]): rank `i` runs on `machines[i % len]`, i.e.
/// when there are more ranks than slots the placement starts again from the
/// first line, as MPICH's `mpiexec` (Hydra) does. Empty when `machines` is.
pub fn rank_hosts(machines: &[String], nranks: usize) -> Vec<String> {
    if machines.is_empty() {
        return Vec::new();
    }
    (0..nranks)
        .map(|i| machines[i % machines.len()].clone())
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn forms_and_comments() {
        let text = "# cluster\nnode1\nnode2:2 # two\n\nnode3 slots=3 max_slots=4\n  node1  \n";
        let m = parse_machine_file(text, "m").unwrap();
        assert_eq!(
            m,
            ["node1", "node2", "node2", "node3", "node3", "node3", "node1"]
        );
    }

    #[test]
    fn errors_name_the_line_and_token() {
        let e = parse_machine_file("a\nb:x\n", "m").unwrap_err();
        assert_eq!(
            e.to_string(),
            "m:2: `b:x`: the slot count `x` is not a positive integer"
        );
        let e = parse_machine_file("a slots=0\n", "m").unwrap_err();
        assert!(e.to_string().starts_with("m:1: `slots=0`"), "{e}");
        let e = parse_machine_file("a:2 slots=2\n", "m").unwrap_err();
        assert!(e.to_string().contains("second slot count"), "{e}");
        let e = parse_machine_file("a foo\n", "m").unwrap_err();
        assert!(e.to_string().contains("`foo`"), "{e}");
    }

    #[test]
    fn round_robin_beyond_the_slots() {
        let m: Vec<String> = ["a", "a", "b"].iter().map(|s| s.to_string()).collect();
        assert_eq!(rank_hosts(&m, 5), ["a", "a", "b", "a", "a"]);
        assert_eq!(rank_hosts(&m, 2), ["a", "a"]);
        assert!(rank_hosts(&[], 3).is_empty());
    }
}
