//! `trama export`: a trace in another tool's format, streamed from the
//! simulation.
//!
//! `perfetto` and `chrome-json`: one of `trama-export`'s writers, written
//! through `trama_open::Output` (a file, or standard output). `parquet`:
//! the tables of `trama-parquet`, into a directory that appears whole or
//! not at all.

use std::io::{IsTerminal, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::bail;
use clap::Args;
use trama_parquet::ParquetOptions;
use trama_report::Export;

use crate::run::{open, write_output};
use crate::ReadArgs;

/// The formats of `trama export`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum ExportFormat {
    /// Perfetto's TrackEvent protobuf (.perfetto-trace).
    Perfetto,
    /// Chrome's trace-event JSON (.json).
    ChromeJson,
    /// Parquet tables in a directory (containers, states, events, links,
    /// variables, types, wait_states, critical_path), partitioned by entity
    /// type: docs/parquet.md.
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
    /// Output: a file for perfetto and chrome-json ("-" for standard output,
    /// not a terminal for a binary format); a directory for parquet, written
    /// beside it and renamed into place at the end (it must be absent, empty,
    /// or an earlier export, which is replaced whole).
    #[arg(short = 'o', long, value_name = "OUT")]
    pub output: PathBuf,
    /// parquet: rows per row group (a row group is written when full).
    #[arg(long, value_name = "N", default_value_t = 1 << 20)]
    pub row_group_rows: usize,
    /// parquet: bytes of values per row group before encoding (a row group
    /// is written when it reaches this size or --row-group-rows).
    #[arg(long, value_name = "BYTES", default_value_t = 128 << 20)]
    pub row_group_bytes: usize,
    /// parquet: leave out wait_states and critical_path, whose analysis
    /// holds the run's states and links: memory is then bounded.
    #[arg(long)]
    pub no_why: bool,
}

/// Runs `trama export`.
pub fn export(a: &ExportArgs) -> anyhow::Result<ExitCode> {
    match a.format {
        ExportFormat::Parquet => parquet(a),
        f => to_file(&a.read, f, &a.output),
    }
}

/// Exports the input of `args` to `output` (`-`: standard output) in `format`.
fn to_file(args: &ReadArgs, format: ExportFormat, output: &Path) -> anyhow::Result<ExitCode> {
    let to_terminal = output.as_os_str() == "-" && std::io::stdout().is_terminal();
    if !args.no_imbrication && format == ExportFormat::Perfetto && to_terminal {
        bail!("not writing a binary trace to a terminal: redirect the output or name a file");
    }
    let format = match format {
        ExportFormat::Perfetto => Export::Perfetto,
        _ => Export::ChromeJson,
    };
    let mut opened = open(args)?;
    let load = args.load_options(false, None);
    let inputs: Vec<&Path> = args.path().into_iter().collect();
    write_output(output, &inputs, |w: &mut (dyn Write + Send)| {
        let mut read = crate::dump::reading(&opened, args);
        trama_report::export(&mut opened, load, format, w, &mut read)?;
        Ok(ExitCode::SUCCESS)
    })
}

fn parquet(a: &ExportArgs) -> anyhow::Result<ExitCode> {
    if a.row_group_rows == 0 || a.row_group_bytes == 0 {
        anyhow::bail!("--row-group-rows and --row-group-bytes must be positive");
    }
    let mut opts = ParquetOptions::default();
    opts.row_group_rows = a.row_group_rows;
    opts.row_group_bytes = a.row_group_bytes;
    opts.why = !a.no_why;
    let mut opened = open(&a.read)?;
    let mut read = crate::dump::reading(&opened, &a.read);
    let load = a.read.load_options(false, None);
    let written = trama_report::export_parquet(&mut opened, load, &opts, &a.output, &mut read)?;
    eprintln!("trama: {}: {written}", a.output.display());
    Ok(ExitCode::SUCCESS)
}
