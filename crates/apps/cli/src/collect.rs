//! `trama collect`: collectors that record a source while a program runs.

use std::io::{self, Write};
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use anyhow::{bail, Context};
use clap::{Args, Subcommand};
use trama_open::ganglia::{self, CollectEvent, CollectOptions, GangliaOptions};

#[derive(Args, Debug)]
pub struct CollectArgs {
    #[command(subcommand)]
    source: CollectSource,
}

#[derive(Subcommand, Debug)]
enum CollectSource {
    /// Poll a Ganglia gmond and append its samples to a text log.
    ///
    /// At each interval, connects to the gmond (which writes its whole XML
    /// state to any TCP client, then closes), keeps the chosen hosts and
    /// metrics, and appends the samples that are new since the previous
    /// poll to FILE, one line each: `unixtime metric host value` (string
    /// metrics quoted, written only when their text changes). The sample
    /// time is the gmond's LOCALTIME minus the metric's TN (its age). FILE
    /// is read back by every command that reads Ganglia sources.
    ///
    /// Runs until Ctrl-C (or --count polls): the poll under way is
    /// completed and written; every poll is flushed and synced to disk, so
    /// nothing already collected is lost. A second Ctrl-C quits at once.
    /// A failed poll prints a warning and is retried at the next interval;
    /// only a failure of the very first poll is an error.
    #[command(verbatim_doc_comment)]
    Ganglia(GangliaArgs),
}

#[derive(Args, Debug)]
struct GangliaArgs {
    /// The gmond to poll (port 8649 when none is given).
    #[arg(long, value_name = "HOST:PORT")]
    gmond: String,
    /// Seconds between polls (decimals allowed).
    #[arg(long, value_name = "S", default_value_t = 15.0)]
    interval: f64,
    /// Keep only these hosts (names or IP addresses, comma-separated; a
    /// trailing * matches a prefix).
    #[arg(long, value_name = "H1,H2", value_delimiter = ',')]
    hosts: Vec<String>,
    /// Keep only these metrics (comma-separated; a trailing * matches a
    /// prefix, e.g. cpu_*).
    #[arg(long, value_name = "M1,M2", value_delimiter = ',')]
    metrics: Vec<String>,
    /// Stop after N polls.
    #[arg(long, value_name = "N")]
    count: Option<u64>,
    /// Seconds one poll may take: to connect and to receive the whole dump.
    #[arg(long, value_name = "S", default_value_t = 10.0)]
    timeout: f64,
    /// Largest answer of one poll, in bytes (a peer that sends more is cut
    /// off, and the poll fails).
    #[arg(long, value_name = "BYTES", default_value_t = ganglia::MAX_ANSWER)]
    max_answer: u64,
    /// The log to append to (created if needed).
    #[arg(short = 'o', long, value_name = "FILE")]
    output: PathBuf,
    /// Print only warnings and the summary, not one line per poll.
    #[arg(short = 'q', long)]
    quiet: bool,
}

/// Set by Ctrl-C.
static STOP: AtomicBool = AtomicBool::new(false);

fn seconds(what: &str, s: f64) -> anyhow::Result<Duration> {
    if !(s.is_finite() && s > 0.0) {
        bail!("{what} must be a positive number of seconds, not {s}");
    }
    Duration::try_from_secs_f64(s).with_context(|| format!("{what} {s} is out of range"))
}

pub fn collect(a: CollectArgs) -> anyhow::Result<ExitCode> {
    match a.source {
        CollectSource::Ganglia(g) => collect_ganglia(g),
    }
}

fn collect_ganglia(a: GangliaArgs) -> anyhow::Result<ExitCode> {
    let mut opts = CollectOptions::new(a.gmond.clone(), seconds("--interval", a.interval)?);
    opts.count = a.count;
    opts.timeout = seconds("--timeout", a.timeout)?;
    opts.max_answer = a.max_answer;
    let trim = |v: Vec<String>| -> Vec<String> {
        v.into_iter()
            .map(|s| s.trim().to_string())
            .filter(|s| !s.is_empty())
            .collect()
    };
    opts.filter = GangliaOptions::new(trim(a.hosts), trim(a.metrics));

    let mut file = trama_open::output::open_log(&a.output)
        .with_context(|| format!("cannot open {}", a.output.display()))?;

    ctrlc::set_handler(|| {
        if STOP.swap(true, Ordering::SeqCst) {
            eprintln!("trama: interrupted again: quitting now");
            std::process::exit(130);
        }
        eprintln!("trama: stopping after the current poll (Ctrl-C again to quit now)");
    })
    .context("cannot catch Ctrl-C")?;

    let quiet = a.quiet;
    let mut stderr = io::stderr();
    let stats = ganglia::collect(&opts, &STOP, &mut file, &mut |e| match e {
        CollectEvent::Round {
            round,
            hosts,
            lines,
        } => {
            if !quiet {
                let _ = writeln!(stderr, "poll {round}: {hosts} hosts, {lines} new samples");
            }
        }
        CollectEvent::Warning { round, message } => {
            let _ = writeln!(stderr, "trama: warning: poll {round}: {message}");
        }
        other => {
            let _ = writeln!(stderr, "trama: {other:?}");
        }
    })
    .with_context(|| format!("collecting into {}", a.output.display()))?;
    file.sync_all()?;
    let _ = writeln!(
        stderr,
        "{} polls ({} failed), {} lines appended to {}; {} repeated and {} unchanged samples skipped, {} left out by the filters{}",
        stats.rounds,
        stats.failed,
        stats.lines,
        a.output.display(),
        stats.repeats,
        stats.unchanged,
        stats.filtered,
        if stats.unloggable > 0 {
            format!(", {} with blanks in a name not logged", stats.unloggable)
        } else {
            String::new()
        }
    );
    Ok(ExitCode::SUCCESS)
}
