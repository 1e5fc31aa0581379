//! `trama stats`: analyses of a trace as a table, CSV or JSON.

use std::ffi::OsString;
use std::io::Write;
use std::process::ExitCode;

use anyhow::{anyhow, bail};
use trama_analysis::TimeWindow;
use trama_report::{Analysis, Format, StatsOptions};

use crate::run::load_trace;
use crate::ReadArgs;

/// The analysis and the trace of `trama stats A B`: `ANALYSIS FILE`, or
/// `FILE ANALYSIS` (the order of earlier versions); a single word is an
/// analysis (of standard input) unless a file of that name exists.
pub fn analysis_and_file(
    first: Option<OsString>,
    second: Option<OsString>,
) -> anyhow::Result<(Analysis, Option<OsString>)> {
    let parse = |s: &OsString| s.to_str().and_then(Analysis::from_name);
    Ok(match (first, second) {
        (None, _) => (Analysis::States, None),
        (Some(a), None) => match parse(&a) {
            Some(x) if !std::path::Path::new(&a).exists() => (x, None),
            _ => (Analysis::States, Some(a)),
        },
        (Some(a), Some(b)) => match (parse(&a), parse(&b)) {
            (Some(x), _) => (x, Some(b)),
            (None, Some(x)) => (x, Some(a)),
            (None, None) => bail!(
                "trama stats ANALYSIS FILE: neither '{}' nor '{}' is an analysis (states, comm, order, wait, kiviat, slices, graph)",
                a.to_string_lossy(),
                b.to_string_lossy()
            ),
        },
    })
}

/// What `trama stats` was asked to do.
pub struct StatsSettings {
    pub window: Option<String>,
    pub level: Option<String>,
    pub size_field: Option<String>,
    pub waiting: Vec<String>,
    pub slices: usize,
    pub slice_length: Option<f64>,
    pub instants: usize,
    pub at: Option<String>,
    pub format: Format,
    pub analysis: Analysis,
}

pub fn stats(args: &ReadArgs, s: &StatsSettings, out: &mut dyn Write) -> anyhow::Result<ExitCode> {
    let window = TimeWindow::parse_opt(s.window.as_deref())?;
    let analysis = s.analysis;
    if analysis.needs_level() && s.level.is_none() {
        bail!("this analysis needs --level: the container type of the hosts (e.g. --level Host)");
    }
    let trace = load_trace(args, s.size_field.is_some(), window.bounds())?;
    let mut opts = StatsOptions::default();
    opts.level = s.level.clone();
    opts.size_field = s.size_field.clone();
    opts.waiting = s.waiting.clone();
    opts.slices = s.slices;
    opts.slice_length = s.slice_length;
    opts.instants = s.instants;
    opts.format = s.format;
    if let (Analysis::Kiviat, Some(list)) = (analysis, &s.at) {
        let at = list.split(',').map(|t| {
            t.trim()
                .parse::<f64>()
                .map_err(|_| anyhow!("--at: '{t}' is not a number"))
        });
        opts.at = Some(at.collect::<anyhow::Result<Vec<f64>>>()?);
    }
    let w = window.resolve(&trace);
    trama_report::stats(&trace, analysis, w, &opts, out).map_err(|e| match e {
        // The errors themselves, as main looks for an io::Error in the
        // chain (a broken pipe ends the output quietly).
        trama_report::Error::Io(e) => anyhow::Error::from(e),
        trama_report::Error::Json(e) => anyhow::Error::from(e),
        e => anyhow::Error::from(e),
    })?;
    // Freeing millions of columns takes time and changes nothing.
    std::mem::forget(trace);
    Ok(ExitCode::SUCCESS)
}
