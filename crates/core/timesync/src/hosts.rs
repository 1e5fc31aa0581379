//! A measurement session as `trama timesync HOST... -o FILE` runs it: the
//! hosts named on the command line (`NAME`, `NAME:PORT` or
//! `NAME=ADDRESS[:PORT]`), each measured in turn ([`measure`]), and their
//! block added to the text of a `timesync` file, which must stay valid.

use std::time::Duration;

use crate::{measure, write_block, Exchange, SyncError, SyncTable, TimeUnit};

/// Why a measurement session failed.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum SessionError {
    /// A host is not written `NAME`, `NAME:PORT` or `NAME=ADDRESS[:PORT]`.
    #[error("host `{spec}`: {what}")]
    Host {
        /// The host as given.
        spec: String,
        /// What is wrong.
        what: String,
    },
    /// A host could not be measured.
    #[error("measuring {name} ({address}:{port})")]
    Measure {
        /// The host's name.
        name: String,
        /// Its address.
        address: String,
        /// Its port.
        port: u16,
        /// Why.
        #[source]
        source: std::io::Error,
    },
    /// The file holds pairs already and the block was not to be appended.
    #[error("{0} already holds pairs: give --append to add the block after the run")]
    Holds(String),
    /// A time to correct is not one.
    #[error("TIME `{time}`: {what}")]
    Time {
        /// The time as given.
        time: String,
        /// What is wrong.
        what: String,
    },
    /// A host to correct a time of is not in the file.
    #[error("host `{host}` is not in {file} (reference {reference}; hosts: {hosts})")]
    NoHost {
        /// The host.
        host: String,
        /// The file.
        file: String,
        /// Its reference host.
        reference: String,
        /// Its hosts, comma-separated.
        hosts: String,
    },
    /// A name cannot be written in the file (see [`write_block`]).
    #[error(transparent)]
    Name(std::io::Error),
    /// The file with the new block is not a valid `timesync` file.
    #[error("the new block does not fit the file")]
    Fit(#[source] SyncError),
}

/// A host to measure: its name in the file, its address and port.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Host {
    /// Its name in the file.
    pub name: String,
    /// The address to reach it at.
    pub address: String,
    /// The port of its server.
    pub port: u16,
}

impl Host {
    /// `NAME`, `NAME:PORT` or `NAME=ADDRESS[:PORT]` (an IPv6 address bare
    /// or in brackets), `port` when none is given.
    pub fn parse(spec: &str, port: u16) -> Result<Host, SessionError> {
        let bad = |what: String| SessionError::Host {
            spec: spec.to_string(),
            what,
        };
        let (name, addr) = match spec.split_once('=') {
            Some((n, a)) => (Some(n), a),
            None => (None, spec),
        };
        let number = |p: &str| {
            p.parse::<u16>()
                .map_err(|e| bad(format!("port `{p}`: {e}")))
        };
        let (address, port) = if let Some(rest) = addr.strip_prefix('[') {
            // [v6]:port or [v6]
            let Some((ip, tail)) = rest.split_once(']') else {
                return Err(bad("`[` without `]`".into()));
            };
            match tail.strip_prefix(':') {
                Some(p) => (ip.to_string(), number(p)?),
                None if tail.is_empty() => (ip.to_string(), port),
                None => return Err(bad(format!("`{tail}` after `]`"))),
            }
        } else {
            match addr.rsplit_once(':') {
                // One colon: name:port. More: a bare IPv6 address.
                Some((h, p)) if !h.contains(':') => (h.to_string(), number(p)?),
                _ => (addr.to_string(), port),
            }
        };
        if address.is_empty() {
            return Err(bad("no address".into()));
        }
        let name = name.map_or_else(|| address.clone(), str::to_string);
        Ok(Host {
            name,
            address,
            port,
        })
    }
}

/// This host's name, from the kernel or `$HOSTNAME`.
pub fn local_host_name() -> Option<String> {
    std::fs::read_to_string("/proc/sys/kernel/hostname")
        .ok()
        .or_else(|| std::env::var("HOSTNAME").ok())
        .map(|s| s.trim().to_string())
        .filter(|s| !s.is_empty())
}

/// A block measured and added to a `timesync` file's text.
pub struct Measured {
    /// The file's new text.
    pub text: String,
    /// The file read back.
    pub table: SyncTable,
    /// Each host's exchange kept.
    pub results: Vec<(String, Exchange)>,
}

/// Measures `hosts` against this host, `reference` (`samples` exchanges
/// each, the one of lowest round trip kept), and adds their block to
/// `old`, the text of the file `file` (with `append`; else `old` must hold
/// no pair).
pub fn measure_block(
    old: String,
    append: bool,
    file: &str,
    reference: &str,
    hosts: &[Host],
    samples: usize,
    timeout: Duration,
) -> Result<Measured, SessionError> {
    if !append && !old.trim().is_empty() {
        return Err(SessionError::Holds(file.to_string()));
    }
    let mut results: Vec<(String, Exchange)> = Vec::new();
    for h in hosts {
        let e = measure((h.address.as_str(), h.port), samples, timeout).map_err(|source| {
            SessionError::Measure {
                name: h.name.clone(),
                address: h.address.clone(),
                port: h.port,
                source,
            }
        })?;
        results.push((h.name.clone(), e));
    }
    let mut block = Vec::new();
    write_block(&mut block, reference, &results, samples).map_err(SessionError::Name)?;
    let mut text = if append { old } else { String::new() };
    if !text.is_empty() && !text.ends_with('\n') {
        text.push('\n');
    }
    text.push_str(std::str::from_utf8(&block).expect("the block is text"));
    // The file must stay a valid timesync file.
    let table = SyncTable::parse(&text, file, TimeUnit::Microseconds).map_err(SessionError::Fit)?;
    Ok(Measured {
        text,
        table,
        results,
    })
}

/// `time`, read in `unit` on `host`'s clock, in the reference's clock of
/// `table` (read from `file`), with as many decimals as `time` has
/// (floored).
pub fn correct_time(
    table: &SyncTable,
    file: &str,
    host: &str,
    time: &str,
    unit: TimeUnit,
) -> Result<String, SessionError> {
    let t = unit.parse_ns(time).map_err(|what| SessionError::Time {
        time: time.to_string(),
        what,
    })?;
    let Some(c) = table.correction(host) else {
        return Err(SessionError::NoHost {
            host: host.to_string(),
            file: file.to_string(),
            reference: table.reference().to_string(),
            hosts: table.hosts().collect::<Vec<_>>().join(", "),
        });
    };
    let decimals = time.split_once('.').map_or(0, |(_, f)| f.len());
    Ok(unit.format(c.apply(t), decimals))
}

#[cfg(test)]
mod tests {
    use super::Host;

    #[test]
    fn host_specs() {
        let s = |x: &str| {
            let h = Host::parse(x, 7).unwrap();
            (h.name, h.address, h.port)
        };
        assert_eq!(s("node1"), ("node1".into(), "node1".into(), 7));
        assert_eq!(s("node1:99"), ("node1".into(), "node1".into(), 99));
        assert_eq!(s("n=127.0.0.1:99"), ("n".into(), "127.0.0.1".into(), 99));
        assert_eq!(s("n=::1"), ("n".into(), "::1".into(), 7));
        assert_eq!(s("[::1]:5"), ("::1".into(), "::1".into(), 5));
        assert!(Host::parse("n:port", 7).is_err());
        assert!(Host::parse("n=", 7).is_err());
    }
}
