//! `trama info`: what a binary trace (.ptb) holds (`trama_report::info`).

use std::io::Write;
use std::process::ExitCode;

use trama_open::Source;
use trama_report::InfoOptions;

/// Writes the description of the trace `source` to `out`.
pub fn info(source: &Source, opts: &InfoOptions, out: &mut dyn Write) -> anyhow::Result<ExitCode> {
    trama_report::info(&trama_open::open(source)?, opts, out)?;
    Ok(ExitCode::SUCCESS)
}
