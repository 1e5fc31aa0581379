//! `trama stats`: analyses of a trace as a table, CSV or JSON.

use std::io::Write;
use std::process::ExitCode;

use anyhow::{anyhow, bail};
use trama_analysis::{time_per_state, StateStats, Window};

use crate::run::load_trace;
use crate::ReadArgs;

/// Output formats.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum Format {
    /// Aligned columns for people.
    Table,
    /// Comma-separated values with a header line.
    Csv,
    /// One JSON document.
    Json,
}

/// Analyses.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum Analysis {
    /// Time per state: per container, state type and value.
    States,
}

/// What `trama stats` was asked to do.
pub struct StatsSettings {
    pub window: Option<String>,
    pub level: Option<String>,
    pub format: Format,
    pub analysis: Analysis,
}

/// Parses `T1:T2`, either side may be empty.
pub fn parse_window(s: &str) -> anyhow::Result<(Option<f64>, Option<f64>)> {
    let (a, b) = s
        .split_once(':')
        .ok_or_else(|| anyhow!("--window must be START:END (either may be empty), not '{s}'"))?;
    let num = |x: &str| -> anyhow::Result<Option<f64>> {
        if x.trim().is_empty() {
            return Ok(None);
        }
        x.trim()
            .parse::<f64>()
            .map(Some)
            .map_err(|_| anyhow!("--window: '{x}' is not a number"))
    };
    let (a, b) = (num(a)?, num(b)?);
    if let (Some(a), Some(b)) = (a, b) {
        if b < a {
            bail!("--window: the end {b} is before the start {a}");
        }
    }
    Ok((a, b))
}

pub fn stats(args: &ReadArgs, s: &StatsSettings, out: &mut dyn Write) -> anyhow::Result<ExitCode> {
    let (start, end) = match &s.window {
        Some(w) => parse_window(w)?,
        None => (None, None),
    };
    let window = (start.is_some() || end.is_some()).then(|| {
        (
            start.unwrap_or(f64::NEG_INFINITY),
            end.unwrap_or(f64::INFINITY),
        )
    });
    let trace = load_trace(args, false, window)?;
    let w = Window::new(&trace, start, end);
    match s.analysis {
        Analysis::States => {
            let stats = time_per_state(&trace, w, s.level.as_deref()).ok_or_else(|| {
                anyhow!(
                    "--level: no container type is called '{}'",
                    s.level.as_deref().unwrap_or_default()
                )
            })?;
            write_states(&stats, s.format, out)?;
        }
    }
    // Freeing millions of columns takes time and changes nothing.
    std::mem::forget(trace);
    Ok(ExitCode::SUCCESS)
}

fn csv_field(s: &str) -> String {
    if s.contains([',', '"', '\n', '\r']) {
        format!("\"{}\"", s.replace('"', "\"\""))
    } else {
        s.to_string()
    }
}

fn write_states(s: &StateStats, format: Format, out: &mut dyn Write) -> anyhow::Result<()> {
    match format {
        Format::Json => {
            serde_json::to_writer_pretty(&mut *out, s)?;
            writeln!(out)?;
        }
        Format::Csv => {
            writeln!(
                out,
                "container,container_type,containers,state_type,value,count,total,exclusive,inclusive,mean,max,share"
            )?;
            for r in &s.rows {
                writeln!(
                    out,
                    "{},{},{},{},{},{},{},{},{},{},{},{}",
                    csv_field(&r.container),
                    csv_field(&r.container_type),
                    r.containers,
                    csv_field(&r.state_type),
                    csv_field(&r.value),
                    r.count,
                    r.total,
                    r.exclusive,
                    r.inclusive,
                    r.mean,
                    r.max,
                    r.share
                )?;
            }
        }
        Format::Table => {
            writeln!(
                out,
                "Time per state over [{}, {}]{}",
                s.window.start,
                s.window.end,
                s.level
                    .as_ref()
                    .map(|l| format!(", rolled up to {l}"))
                    .unwrap_or_default()
            )?;
            let head = [
                "container",
                "state",
                "value",
                "count",
                "total",
                "exclusive",
                "inclusive",
                "mean",
                "max",
                "share",
            ];
            let mut lines: Vec<Vec<String>> = vec![head.iter().map(|h| h.to_string()).collect()];
            for r in &s.rows {
                lines.push(vec![
                    r.container.clone(),
                    r.state_type.clone(),
                    r.value.clone(),
                    r.count.to_string(),
                    format!("{:.6}", r.total),
                    format!("{:.6}", r.exclusive),
                    format!("{:.6}", r.inclusive),
                    format!("{:.6}", r.mean),
                    format!("{:.6}", r.max),
                    format!("{:.1}%", 100.0 * r.share),
                ]);
            }
            table(out, &lines, 3)?;
            writeln!(out)?;
            writeln!(out, "Load imbalance (exclusive time across containers)")?;
            let mut lines: Vec<Vec<String>> = vec![[
                "state",
                "value",
                "containers",
                "mean",
                "max",
                "max/mean-1",
                "stddev",
            ]
            .iter()
            .map(|h| h.to_string())
            .collect()];
            for i in &s.imbalance {
                lines.push(vec![
                    i.state_type.clone(),
                    i.value.clone(),
                    i.containers.to_string(),
                    format!("{:.6}", i.mean),
                    format!("{:.6}", i.max),
                    format!("{:.3}", i.imbalance),
                    format!("{:.6}", i.stddev),
                ]);
            }
            table(out, &lines, 2)?;
        }
    }
    Ok(())
}

/// Writes aligned columns: the first `left` columns left-aligned, the
/// others right-aligned.
fn table(out: &mut dyn Write, lines: &[Vec<String>], left: usize) -> std::io::Result<()> {
    let n = lines.first().map_or(0, |l| l.len());
    let width: Vec<usize> = (0..n)
        .map(|i| {
            lines
                .iter()
                .map(|l| l[i].chars().count())
                .max()
                .unwrap_or(0)
        })
        .collect();
    for l in lines {
        let mut s = String::new();
        for (i, cell) in l.iter().enumerate() {
            if i > 0 {
                s.push_str("  ");
            }
            let pad = width[i] - cell.chars().count();
            if i < left {
                s.push_str(cell);
                if i + 1 < n {
                    s.extend(std::iter::repeat_n(' ', pad));
                }
            } else {
                s.extend(std::iter::repeat_n(' ', pad));
                s.push_str(cell);
            }
        }
        writeln!(out, "{}", s.trim_end())?;
    }
    Ok(())
}
