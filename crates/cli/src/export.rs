//! `trama export`: a trace in another tool's format.
//!
//! `parquet`: the tables of `trama-parquet`, streamed from the simulation
//! into a directory that appears whole or not at all.

use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::Context;
use clap::Args;
use trama_open::KEY_FILTER_BYTES;
use trama_parquet::{OutputDir, ParquetOptions, ParquetSink, Table};

use crate::run::{open, warn, Bar};
use crate::ReadArgs;

/// The formats of `trama export`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum ExportFormat {
    /// Parquet tables in a directory (containers, states, events, links,
    /// variables, types), partitioned by entity type: docs/parquet.md.
    Parquet,
}

/// Arguments of `trama export`.
#[derive(Args, Debug)]
pub struct ExportArgs {
    /// The format to write.
    #[arg(value_enum, value_name = "FORMAT")]
    pub format: ExportFormat,
    #[command(flatten)]
    pub read: ReadArgs,
    /// Output directory. It is written beside it and renamed into place at
    /// the end; it must be absent, empty, or an earlier export (which is
    /// replaced whole).
    #[arg(short = 'o', long, value_name = "DIR")]
    pub output: PathBuf,
    /// parquet: rows per row group (a row group is written when full).
    #[arg(long, value_name = "N", default_value_t = 1 << 20)]
    pub row_group_rows: usize,
    /// parquet: bytes of values per row group before encoding (a row group
    /// is written when it reaches this size or --row-group-rows).
    #[arg(long, value_name = "BYTES", default_value_t = 128 << 20)]
    pub row_group_bytes: usize,
}

/// Runs `trama export`.
pub fn export(a: &ExportArgs) -> anyhow::Result<ExitCode> {
    match a.format {
        ExportFormat::Parquet => parquet(a),
    }
}

fn parquet(a: &ExportArgs) -> anyhow::Result<ExitCode> {
    if a.row_group_rows == 0 || a.row_group_bytes == 0 {
        anyhow::bail!("--row-group-rows and --row-group-bytes must be positive");
    }
    let mut opts = ParquetOptions::default();
    opts.row_group_rows = a.row_group_rows;
    opts.row_group_bytes = a.row_group_bytes;
    let out = OutputDir::create(&a.output)?;
    let mut opened = open(&a.read)?;
    let bar = Bar::start(&opened, !a.read.no_progress);
    let mut load = a.read.load_options(false, None);
    // Memory that does not grow with the links, as with dump --stream.
    load.key_filter = Some(KEY_FILTER_BYTES);
    let sink = ParquetSink::new(out.path(), &opts)?;
    let done = opened.simulate_into(sink, &load)?;
    drop(bar);
    warn(opened.name(), &done.warnings);
    let summary = done
        .sink
        .finish()
        .with_context(|| format!("writing {}", a.output.display()))?;
    out.commit()?;
    let counts: Vec<String> = Table::ALL
        .iter()
        .map(|t| format!("{} {}", summary.rows(*t), t.name()))
        .collect();
    eprintln!(
        "trama: {}: {} in {} files",
        a.output.display(),
        counts.join(", "),
        summary.files
    );
    Ok(ExitCode::SUCCESS)
}
