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
    correct_time, local_host_name, measure_block, serve, Host, ServerOptions, SyncTable, TimeUnit,
    DEFAULT_PORT,
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

/// A unit of time (`us`, `ns`, `ms`, `s`).
pub fn parse_unit(s: &str) -> Result<TimeUnit, String> {
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
    let name = file.display().to_string();
    println!("{}", correct_time(&table, &name, host, time, unit)?);
    Ok(ExitCode::SUCCESS)
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
    let hosts: Vec<Host> =
        (a.args.iter().map(|h| Host::parse(h, a.port))).collect::<Result<_, _>>()?;
    let timeout = Duration::from_secs_f64(a.timeout);
    let name = output.display().to_string();
    let m = measure_block(old, a.append, &name, &reference, &hosts, a.samples, timeout)?;
    crate::run::write_output(output, &[], |w| Ok(w.write_all(m.text.as_bytes())?))?;
    let ms = |ns: i64| ns as f64 / 1e6;
    for (name, e) in &m.results {
        println!(
            "{name}: clock {:+.3} ms from {reference}'s, round trip {:.3} ms",
            ms(e.offset()),
            ms(e.round_trip())
        );
    }
    let blocks = m.table.blocks();
    let drifts = if blocks == 2 {
        ", offsets and drifts"
    } else {
        ", offsets only until the block after the run is added (--append)"
    };
    println!("{name}: {blocks} block(s){drifts}");
    Ok(ExitCode::SUCCESS)
}
