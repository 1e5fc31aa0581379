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

use anyhow::{bail, Context};
use clap::Args;
use trama_export::chrome::ChromeWriter;
use trama_export::perfetto::PerfettoWriter;
use trama_export::ExportOptions;
use trama_open::KEY_FILTER_BYTES;
use trama_parquet::{OutputDir, ParquetOptions, ParquetSink, Table};

use crate::run::{open, warn, write_output, Bar};
use crate::ReadArgs;

/// The formats of `trama export`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum ExportFormat {
    /// Perfetto's TrackEvent protobuf (.perfetto-trace).
    Perfetto,
    /// Chrome's trace-event JSON (.json).
    ChromeJson,
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
    if args.no_imbrication {
        bail!("export does not take -i (--no-imbrication): without imbrication a pushed state ends the one it covers, which a slice cannot show");
    }
    if output.as_os_str() == "-"
        && format == ExportFormat::Perfetto
        && std::io::stdout().is_terminal()
    {
        bail!("not writing a binary trace to a terminal: redirect the output or name a file");
    }
    let mut opened = open(args)?;
    let mut opts = ExportOptions::default();
    opts.name = Path::new(opened.name()).file_name().map_or_else(
        || opened.name().to_string(),
        |n| n.to_string_lossy().into_owned(),
    );
    let mut load = args.load_options(false, None);
    // Memory that does not grow with the links (as `dump --stream`).
    load.key_filter = Some(KEY_FILTER_BYTES);
    let inputs: Vec<&Path> = args.path().into_iter().collect();
    write_output(output, &inputs, |w: &mut (dyn Write + Send)| {
        let bar = Bar::start(&opened, !args.no_progress);
        match format {
            ExportFormat::Perfetto => {
                let done = opened.simulate_into(PerfettoWriter::new(w, &opts), &load)?;
                drop(bar);
                warn(opened.name(), &done.warnings);
                done.sink.finish()?;
            }
            _ => {
                let done = opened.simulate_into(ChromeWriter::new(w, &opts), &load)?;
                drop(bar);
                warn(opened.name(), &done.warnings);
                done.sink.finish()?;
            }
        }
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
    let out = OutputDir::create(&a.output)?;
    let mut opened = open(&a.read)?;
    let bar = Bar::start(&opened, !a.read.no_progress);
    let mut load = a.read.load_options(false, None);
    // Memory that does not grow with the links, as with dump --stream.
    load.key_filter = Some(KEY_FILTER_BYTES);
    let sink = ParquetSink::new(out.path(), &opts)?;
    let done = opened.simulate_into(sink, &load).map_err(|e| match e {
        // The tables' failure: the file it names is in the output.
        trama_open::Error::Output(e) => {
            anyhow::Error::from(e).context(format!("writing {}", a.output.display()))
        }
        e => e.into(),
    })?;
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
