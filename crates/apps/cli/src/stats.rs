//! `trama stats`: analyses of a trace as a table, CSV or JSON.

use std::ffi::OsString;
use std::io::Write;
use std::process::ExitCode;

use clap::Args;
use trama_analysis::TimeWindow;
use trama_report::{Analysis, StatsOptions};

use crate::run::load_trace;
use crate::ReadArgs;
use std::path::PathBuf;

/// Arguments of `trama stats`.
#[derive(Args, Debug)]
pub struct StatsArgs {
    /// Which analysis: states (the default), comm, order, wait, kiviat,
    /// slices, graph, waits, critical-path or delays. `trama stats ANALYSIS
    /// FILE`; `trama stats FILE ANALYSIS` works too.
    #[arg(value_name = "ANALYSIS")]
    pub analysis: Option<OsString>,
    #[command(flatten)]
    pub read: ReadArgs,
    /// Time window START:END (either side may be empty): only what overlaps it counts.
    #[arg(long, value_name = "T1:T2", allow_hyphen_values = true)]
    pub window: Option<String>,
    /// Roll rows up to the containers of this type (its name or alias);
    /// for order and kiviat, the type of the hosts (default: chosen from
    /// the trace, the type above the processes, said on standard error).
    #[arg(long, value_name = "NAME")]
    pub level: Option<String>,
    /// comm: the user-defined link field holding the message size in bytes.
    #[arg(long, value_name = "FIELD")]
    pub size_field: Option<String>,
    /// wait: a state whose value contains PATTERN (any case) is a wait;
    /// repeat for several (default: receive, recv, wait, barrier, bcast,
    /// reduce, gather, scatter, alltoall, probe, ssend, but not the
    /// non-blocking MPI_I… calls). The output names the states counted.
    #[arg(long, value_name = "PATTERN")]
    pub waiting: Vec<String>,
    /// wait: each waiting state to the sender of the last message received
    /// during it, also on MPI runs (--waiting implies it).
    #[arg(long)]
    pub last_message: bool,
    /// slices: number of equal time slices.
    #[arg(long, value_name = "N", default_value_t = 25)]
    pub slices: usize,
    /// slices: length of a slice instead of their number (e.g. 0.04 for 1/25 s).
    #[arg(long, value_name = "SECONDS", conflicts_with = "slices")]
    pub slice_length: Option<f64>,
    /// kiviat: number of equally spaced instants.
    #[arg(long, value_name = "N", default_value_t = 10)]
    pub instants: usize,
    /// kiviat: the instants, comma-separated (instead of --instants).
    #[arg(
        long,
        value_name = "T,T,...",
        conflicts_with = "instants",
        allow_hyphen_values = true
    )]
    pub at: Option<String>,
    /// waits: also list the N most severe instances (CSV: instead of rows).
    #[arg(long, value_name = "N", default_value_t = 0)]
    pub instances: usize,
    /// waits: rows per pattern and waiting container (the default) or per
    /// pattern and region; critical-path: rows per region (the default) or
    /// per container (each process's time on the path, share and imbalance).
    #[arg(long, value_name = "WHAT", value_parser = crate::choices(&trama_report::By::ALL))]
    pub by: Option<trama_report::By>,
    /// comm, order, wait, kiviat, slices, graph: the link types that are
    /// messages (name or alias; repeat for several). By default every link
    /// type but those whose links all last 0 s (a platform's topology).
    #[arg(long, value_name = "NAME")]
    pub link_type: Vec<String>,
    /// Output format.
    #[arg(long, value_parser = crate::choices(&trama_report::Format::ALL), default_value = "table")]
    pub format: trama_report::Format,
    /// Write to FILE instead of standard output.
    #[arg(short = 'o', long, value_name = "FILE")]
    pub output: Option<PathBuf>,
}

/// Runs `trama stats`.
pub fn stats(mut a: StatsArgs) -> anyhow::Result<ExitCode> {
    let (analysis, file) =
        Analysis::and_file(a.analysis.take(), a.read.file.take()).map_err(anyhow::Error::msg)?;
    a.read.file = file;
    let output = a.output.as_deref().unwrap_or(std::path::Path::new("-"));
    let inputs: Vec<_> = a.read.path().into_iter().collect();
    crate::run::write_output(output, &inputs, |w| write(&a, analysis, w))
}

fn write(s: &StatsArgs, analysis: Analysis, out: &mut dyn Write) -> anyhow::Result<ExitCode> {
    let window = TimeWindow::parse_opt(s.window.as_deref())?;
    let extras = s.size_field.is_some() || analysis.reads_fields();
    let trace = load_trace(&s.read, extras, window.to_read(analysis.reads_whole_run()))?;
    let mut opts = StatsOptions::default();
    (opts.level, opts.size_field, opts.format) = (s.level.clone(), s.size_field.clone(), s.format);
    (opts.waiting, opts.wait_last_message) = (s.waiting.clone(), s.last_message);
    (opts.slices, opts.slice_length, opts.instants) = (s.slices, s.slice_length, s.instants);
    (opts.waits_instances, opts.by, opts.link_types) = (s.instances, s.by, s.link_type.clone());
    if let (Analysis::Kiviat, Some(list)) = (analysis, &s.at) {
        opts.at = Some(Analysis::instants(list)?);
    }
    let w = window.resolve(&trace);
    // A failure of the output is the output's (see `run::write_output`).
    let notes = trama_report::stats(&trace, analysis, w, &opts, out)?;
    // A table says it itself.
    let table = opts.format == trama_report::Format::Table;
    for note in notes.lines.iter().filter(|_| !table) {
        eprintln!("trama: note: {note}");
    }
    // Freeing millions of columns takes time and changes nothing.
    std::mem::forget(trace);
    Ok(ExitCode::SUCCESS)
}
