//! `trama export`: a trace simulated into one of `trama-export`'s writers,
//! written through `trama_open::Output`.

use std::io::{IsTerminal, Write};
use std::path::Path;
use std::process::ExitCode;

use anyhow::{bail, Context};
use trama_export::chrome::ChromeWriter;
use trama_export::perfetto::PerfettoWriter;
use trama_export::ExportOptions;
use trama_open::KEY_FILTER_BYTES;

use crate::run::{open, warn, write_output, Bar};
use crate::{ExportFormat, ReadArgs};

/// Exports the input of `args` to `output` (`-`: standard output) in `format`.
pub fn export(args: &ReadArgs, format: ExportFormat, output: &Path) -> anyhow::Result<ExitCode> {
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
    let what = match format {
        ExportFormat::Perfetto => "writing the Perfetto trace",
        ExportFormat::ChromeJson => "writing the JSON trace",
    };
    write_output(output, &inputs, |w: &mut (dyn Write + Send)| {
        let bar = Bar::start(&opened, !args.no_progress);
        match format {
            ExportFormat::Perfetto => {
                let done = opened.simulate_into(PerfettoWriter::new(w, &opts), &load)?;
                drop(bar);
                warn(opened.name(), &done.warnings);
                done.sink.finish().context(what)?;
            }
            ExportFormat::ChromeJson => {
                let done = opened.simulate_into(ChromeWriter::new(w, &opts), &load)?;
                drop(bar);
                warn(opened.name(), &done.warnings);
                done.sink.finish().context(what)?;
            }
        }
        Ok(ExitCode::SUCCESS)
    })
}
