//! `trama timesync`: measure clock pairs into a timesync file, serve time
//! requests, or correct one time with a timesync file.

use std::io::Write;
use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Duration;

use anyhow::{bail, Context};
use clap::Args;
use trama_timesync::{
    measure, serve, write_block, Exchange, ServerOptions, SyncTable, TimeUnit, DEFAULT_PORT,
};

/// Options of `trama timesync`.
#[derive(Args, Debug)]
pub struct TimesyncArgs {
    /// Correct a time instead of measuring: `--correct FILE HOST TIME`
    /// prints TIME, read on HOST's clock, in the reference's clock, in the
    /// file's unit with as many decimals as TIME has (floored).
    #[arg(long, value_name = "FILE", conflicts_with_all = ["serve", "output", "append"])]
    correct: Option<PathBuf>,
    /// Unit of the times of FILE and of TIME with --correct: us, ns, ms or s.
    #[arg(long, value_name = "UNIT", default_value = "us", value_parser = parse_unit)]
    unit: TimeUnit,
    /// Answer time requests over TCP until killed (run it on every host to measure).
    #[arg(long, conflicts_with_all = ["output", "append"])]
    serve: bool,
    /// With --serve: the address to listen on (default: every interface, --port).
    #[arg(long, value_name = "ADDR:PORT", requires = "serve")]
    listen: Option<String>,
    /// The servers' port (for hosts given without one).
    #[arg(long, value_name = "P", default_value_t = DEFAULT_PORT)]
    port: u16,
    /// Exchanges with each host; the one with the lowest round trip is kept.
    #[arg(long, value_name = "N", default_value_t = 16)]
    samples: usize,
    /// This host's name in the file, the reference (default: the host name).
    #[arg(long, value_name = "NAME")]
    reference: Option<String>,
    /// Seconds to wait for a host's connection or reply.
    #[arg(long, value_name = "SECONDS", default_value_t = 5.0)]
    timeout: f64,
    /// The timesync file to write: one block of pairs, in microseconds.
    #[arg(short = 'o', long, value_name = "FILE")]
    output: Option<PathBuf>,
    /// Add the block to FILE (the block after the run); without it FILE
    /// must not exist yet or be empty.
    #[arg(long, requires = "output")]
    append: bool,
    /// Hosts to measure, each NAME, NAME:PORT or NAME=ADDRESS[:PORT] (NAME
    /// goes into the file); with --correct: HOST TIME.
    #[arg(value_name = "HOST", allow_negative_numbers = true)]
    args: Vec<String>,
}

fn parse_unit(s: &str) -> Result<TimeUnit, String> {
    s.parse()
}

/// Runs `trama timesync`.
pub fn timesync(a: TimesyncArgs) -> anyhow::Result<ExitCode> {
    if let Some(file) = &a.correct {
        return correct(file, a.unit, &a.args);
    }
    if a.serve {
        if !a.args.is_empty() {
            bail!("--serve takes no hosts (got `{}`)", a.args.join(" "));
        }
        let addr = a
            .listen
            .clone()
            .unwrap_or_else(|| format!("0.0.0.0:{}", a.port));
        let listener =
            TcpListener::bind(&addr).with_context(|| format!("cannot listen on {addr}"))?;
        let local = listener.local_addr()?;
        let mut err = std::io::stderr();
        writeln!(err, "trama timesync: serving time on {local}")?;
        err.flush()?;
        serve(listener, ServerOptions::default()).context("serving time requests")?;
        return Ok(ExitCode::SUCCESS);
    }
    measure_hosts(&a)
}

fn correct(file: &Path, unit: TimeUnit, args: &[String]) -> anyhow::Result<ExitCode> {
    let [host, time] = args else {
        bail!(
            "--correct FILE takes HOST TIME (got {} arguments)",
            args.len()
        );
    };
    let table = SyncTable::read(file, unit)?;
    let t = unit
        .parse_ns(time)
        .map_err(|m| anyhow::anyhow!("TIME `{time}`: {m}"))?;
    let Some(c) = table.correction(host) else {
        bail!(
            "host `{host}` is not in {} (reference {}; hosts: {})",
            file.display(),
            table.reference(),
            table.hosts().collect::<Vec<_>>().join(", ")
        );
    };
    let decimals = time.split_once('.').map_or(0, |(_, f)| f.len());
    println!("{}", unit.format(c.apply(t), decimals));
    Ok(ExitCode::SUCCESS)
}

/// `NAME`, `NAME:PORT` or `NAME=ADDRESS[:PORT]` → (name, address, port).
fn host_spec(spec: &str, port: u16) -> anyhow::Result<(String, String, u16)> {
    let (name, addr) = match spec.split_once('=') {
        Some((n, a)) => (Some(n), a),
        None => (None, spec),
    };
    let split_port = |s: &str| -> anyhow::Result<(String, u16)> {
        if let Some(rest) = s.strip_prefix('[') {
            // [v6]:port or [v6]
            let Some((ip, tail)) = rest.split_once(']') else {
                bail!("host `{spec}`: `[` without `]`");
            };
            return match tail.strip_prefix(':') {
                Some(p) => Ok((
                    ip.to_string(),
                    p.parse()
                        .with_context(|| format!("host `{spec}`: port `{p}`"))?,
                )),
                None if tail.is_empty() => Ok((ip.to_string(), port)),
                None => bail!("host `{spec}`: `{tail}` after `]`"),
            };
        }
        match s.rsplit_once(':') {
            // One colon: name:port. More: a bare IPv6 address.
            Some((h, p)) if !h.contains(':') => Ok((
                h.to_string(),
                p.parse()
                    .with_context(|| format!("host `{spec}`: port `{p}`"))?,
            )),
            _ => Ok((s.to_string(), port)),
        }
    };
    let (address, port) = split_port(addr)?;
    if address.is_empty() {
        bail!("host `{spec}`: no address");
    }
    let name = name.map_or_else(|| address.clone(), str::to_string);
    Ok((name, address, port))
}

fn local_host_name() -> Option<String> {
    std::fs::read_to_string("/proc/sys/kernel/hostname")
        .ok()
        .or_else(|| std::env::var("HOSTNAME").ok())
        .map(|s| s.trim().to_string())
        .filter(|s| !s.is_empty())
}

fn measure_hosts(a: &TimesyncArgs) -> anyhow::Result<ExitCode> {
    let Some(output) = &a.output else {
        bail!("give -o FILE to measure hosts (or --serve, or --correct FILE HOST TIME)");
    };
    if a.args.is_empty() {
        bail!("no hosts to measure");
    }
    if a.samples == 0 {
        bail!("--samples must be at least 1");
    }
    if !(a.timeout.is_finite() && a.timeout > 0.0) {
        bail!("--timeout must be a positive number of seconds");
    }
    let reference = match &a.reference {
        Some(r) => r.clone(),
        None => local_host_name().context("cannot tell this host's name: give --reference NAME")?,
    };
    let old = match std::fs::read_to_string(output) {
        Ok(s) => s,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => String::new(),
        Err(e) => return Err(e).with_context(|| format!("cannot read {}", output.display())),
    };
    if !a.append && !old.trim().is_empty() {
        bail!(
            "{} already holds pairs: give --append to add the block after the run",
            output.display()
        );
    }
    let timeout = Duration::from_secs_f64(a.timeout);
    let mut results: Vec<(String, Exchange)> = Vec::new();
    for spec in &a.args {
        let (name, address, port) = host_spec(spec, a.port)?;
        let e = measure((address.as_str(), port), a.samples, timeout)
            .with_context(|| format!("measuring {name} ({address}:{port})"))?;
        results.push((name, e));
    }
    let mut block = Vec::new();
    write_block(&mut block, &reference, &results, a.samples)?;
    let mut text = if a.append { old } else { String::new() };
    if !text.is_empty() && !text.ends_with('\n') {
        text.push('\n');
    }
    text.push_str(std::str::from_utf8(&block).expect("the block is text"));
    // The file must stay a valid timesync file.
    let table = SyncTable::parse(&text, &output.display().to_string(), TimeUnit::Microseconds)
        .context("the new block does not fit the file")?;
    crate::run::write_output(output, &[], |w| Ok(w.write_all(text.as_bytes())?))?;
    let ms = |ns: i64| ns as f64 / 1e6;
    for (name, e) in &results {
        println!(
            "{name}: clock {:+.3} ms from {reference}'s, round trip {:.3} ms",
            ms(e.offset()),
            ms(e.round_trip())
        );
    }
    println!(
        "{}: {} block(s){}",
        output.display(),
        table.blocks(),
        if table.blocks() == 2 {
            ", offsets and drifts"
        } else {
            ", offsets only until the block after the run is added (--append)"
        }
    );
    Ok(ExitCode::SUCCESS)
}

#[cfg(test)]
mod tests {
    use super::host_spec;

    #[test]
    fn host_specs() {
        let s = |x: &str| host_spec(x, 7).unwrap();
        assert_eq!(s("node1"), ("node1".into(), "node1".into(), 7));
        assert_eq!(s("node1:99"), ("node1".into(), "node1".into(), 99));
        assert_eq!(s("n=127.0.0.1:99"), ("n".into(), "127.0.0.1".into(), 99));
        assert_eq!(s("n=::1"), ("n".into(), "::1".into(), 7));
        assert_eq!(s("[::1]:5"), ("::1".into(), "::1".into(), 5));
        assert!(host_spec("n:port", 7).is_err());
        assert!(host_spec("n=", 7).is_err());
    }
}
