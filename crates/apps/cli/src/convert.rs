//! `trama convert`: flags to `trama-convert`'s options, and the output file.

use std::path::Path;
use std::process::ExitCode;

use anyhow::anyhow;
use trama_convert::{ConvertOptions, Target};

use crate::run::{open, warn, Bar};
use crate::ReadArgs;

/// Converts the input of `args` into `output` (`-` for standard output),
/// in the format `to`, or the output's extension's when `to` is `None`.
pub fn convert(
    args: &ReadArgs,
    output: &Path,
    to: Option<Target>,
    mut opts: ConvertOptions,
) -> anyhow::Result<ExitCode> {
    opts.to = to.map_or_else(|| target(output), Ok)?;
    let opened = open(args)?;
    let inputs: Vec<&Path> = args.path().into_iter().collect();
    let read = args.load_options(false, None);
    write(opened, &inputs, &read, output, opts, !args.no_progress)?.commit()?;
    Ok(ExitCode::SUCCESS)
}

fn target(output: &Path) -> anyhow::Result<Target> {
    Target::of_path(output).ok_or_else(|| {
        anyhow!(
            "cannot tell the output format from '{}': name it .ptb, .rst or .paje, or use --to",
            output.display()
        )
    })
}

/// Converts `opened` (read with `read`) into `output` in the format
/// `opts.to`, with a progress bar when `progress`; never onto one of
/// `inputs` (see [`trama_convert::convert_file`]). The output is put in
/// place by committing what this returns.
pub fn write(
    opened: trama_open::Opened,
    inputs: &[&Path],
    read: &trama_open::LoadOptions,
    output: &Path,
    opts: ConvertOptions,
    progress: bool,
) -> anyhow::Result<trama_open::Output> {
    let name = opened.name().to_string();
    let bar = Bar::start(&opened, progress);
    let converted = trama_convert::convert_file(opened, read, opts, output, inputs, false);
    drop(bar);
    let (file, warnings) = converted.map_err(|e| match e {
        // Kept as it is: a closed standard output ends quietly.
        trama_convert::Error::Output(e) => anyhow::Error::from(e),
        e => e.into(),
    })?;
    warn(&name, &warnings);
    Ok(file)
}
