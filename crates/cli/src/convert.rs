//! `trama convert`: flags to `trama-convert`'s options, and the output file.

use std::io::IsTerminal;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::{anyhow, bail};
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
    if let Some(to) = to {
        opts.to = to;
    } else {
        opts.to = target(output)?;
    }
    let opened = open(args)?;
    let inputs: Vec<PathBuf> = args.path().into_iter().map(Path::to_path_buf).collect();
    write(
        opened,
        &inputs,
        &args.load_options(false, None),
        output,
        opts,
        !args.no_progress,
        false,
    )?
    .commit()?;
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
/// `inputs`. With `valid`, a trace the simulation rejects is an error
/// and nothing is written (else a warning). The output is put in place
/// by committing what this returns.
pub fn write(
    opened: trama_open::Opened,
    inputs: &[PathBuf],
    read: &trama_open::LoadOptions,
    output: &Path,
    mut opts: ConvertOptions,
    progress: bool,
    valid: bool,
) -> anyhow::Result<trama_open::Output> {
    let stdout = output.as_os_str() == "-";
    if stdout && opts.to != Target::Paje && std::io::stdout().is_terminal() {
        bail!("not writing a binary trace to a terminal: redirect the output or name a file");
    }
    opts.output_name = if stdout {
        "standard output".into()
    } else {
        output.display().to_string()
    };
    let name = opened.name().to_string();
    let inputs: Vec<&Path> = inputs.iter().map(PathBuf::as_path).collect();
    let (file, out) = trama_open::Output::create(output, &inputs)?;
    let bar = Bar::start(&opened, progress);
    let converted = trama_convert::convert(opened, read, &opts, out);
    drop(bar);
    let converted = crate::run::written(&file, converted.map_err(anyhow::Error::from))?;
    warn(&name, &converted.warnings);
    if let Some(line) = converted.rejected {
        let at = if line == 0 {
            "at its end".to_string()
        } else {
            format!("at line {line}")
        };
        if valid {
            bail!("{name}: the simulation rejects it {at}");
        }
        if read.lenient {
            eprintln!(
                "trama: warning: {name}: the simulation lets this trace pass only with --lenient (from {at}); {} keeps those events: read it with --lenient",
                opts.output_name
            );
        } else {
            eprintln!(
                "trama: warning: {name}: the simulation rejects this trace {at} (`trama check` tells why); {} keeps every event, and reading it reports the same error",
                opts.output_name
            );
        }
    }
    Ok(file)
}
