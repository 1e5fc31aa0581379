//! `trama diff A B`: two runs' profiles side by side and their difference.

use std::ffi::OsString;
use std::path::PathBuf;
use std::process::ExitCode;

use clap::Args;
use trama_report::{DiffBy, DiffOptions, Format, Groups};

use crate::run::load_trace;
use crate::ReadArgs;

/// Arguments of `trama diff`.
#[derive(Args, Debug)]
pub struct DiffArgs {
    #[command(flatten)]
    read: ReadArgs,
    /// The second run (B), read with the same options as the first (A).
    #[arg(value_name = "B")]
    other: OsString,
    /// Rows per state value (the default) or per container and value.
    #[arg(long, value_name = "WHAT", value_parser = crate::choices(&DiffBy::ALL), default_value = "value")]
    by: DiffBy,
    /// With --by container: containers compared as groups, `all` (every
    /// container as one) or a FILE of `CONTAINER GROUP` lines, so that runs
    /// of different process counts compare.
    #[arg(long, value_name = "all|FILE")]
    group: Option<String>,
    /// Also compare iteration by iteration (the n-th state of VALUE on every container; `auto`: a value found repeated).
    #[arg(long, value_name = "VALUE")]
    iteration: Option<String>,
    /// Roll containers up to this type first (e.g. the hosts).
    #[arg(long, value_name = "NAME")]
    level: Option<String>,
    /// The link types that are messages (wait states, critical path).
    #[arg(long, value_name = "NAME")]
    link_type: Vec<String>,
    /// Exit with status 1 when the run's length (or --value's time) grew by over PERCENT.
    #[arg(long, value_name = "PERCENT")]
    fail_over: Option<f64>,
    /// With --fail-over: the state value whose time is guarded.
    #[arg(long, value_name = "VALUE", requires = "fail_over")]
    value: Option<String>,
    /// Output format.
    #[arg(long, value_parser = crate::choices(&Format::ALL), default_value = "table")]
    format: Format,
    /// Write to FILE instead of standard output.
    #[arg(short = 'o', long, value_name = "FILE")]
    output: Option<PathBuf>,
}

/// Runs `trama diff`.
pub fn diff(a: &DiffArgs) -> anyhow::Result<ExitCode> {
    let mut other = a.read.clone();
    other.file = Some(a.other.clone());
    let mut opts = DiffOptions::default();
    (opts.by, opts.level, opts.link_types) = (a.by, a.level.clone(), a.link_type.clone());
    opts.iteration = a.iteration.clone();
    opts.groups = a.group.as_deref().map(Groups::from_arg).transpose()?;
    let ta = load_trace(&a.read, true, None)?;
    let tb = load_trace(&other, true, None)?;
    let d = trama_report::diff(&ta, &tb, &opts);
    let output = a.output.as_deref().unwrap_or(std::path::Path::new("-"));
    let inputs: Vec<_> = a.read.path().into_iter().chain(other.path()).collect();
    crate::run::write_output(output, &inputs, |w| {
        trama_report::write_diff(&d, a.format, w)?;
        Ok(ExitCode::SUCCESS)
    })?;
    match a.fail_over.map(|limit| d.over(limit, a.value.as_deref())) {
        Some(Some(Ok(why))) => {
            eprintln!("trama: {why}");
            Ok(ExitCode::from(1))
        }
        Some(Some(Err(e))) => Err(e.into()),
        _ => Ok(ExitCode::SUCCESS),
    }
}
