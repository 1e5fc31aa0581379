//! `trama convert`: flags to `trama-convert`'s options, and the output file.

use std::fs::File;
use std::io::{BufWriter, IsTerminal, Write};
use std::path::Path;
use std::process::ExitCode;

use anyhow::{anyhow, bail};
use trama_convert::{ConvertOptions, Target};

use crate::run::{open, warn, Bar};
use crate::ReadArgs;

/// Removes a partial output unless it was completed.
struct Partial<'a> {
    /// `None` for standard output.
    path: Option<&'a Path>,
    done: bool,
}

impl Drop for Partial<'_> {
    fn drop(&mut self) {
        if let (false, Some(path)) = (self.done, self.path) {
            let _ = std::fs::remove_file(path);
        }
    }
}

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
    write(
        opened,
        &args.load_options(false, None),
        output,
        opts,
        !args.no_progress,
    )?;
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
/// `opts.to`, with a progress bar when `progress`.
pub fn write(
    opened: trama_open::Opened,
    read: &trama_open::LoadOptions,
    output: &Path,
    mut opts: ConvertOptions,
    progress: bool,
) -> anyhow::Result<()> {
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
    let out: Box<dyn Write + Send> = if stdout {
        Box::new(BufWriter::with_capacity(1 << 20, std::io::stdout()))
    } else {
        let f =
            File::create(output).map_err(|e| anyhow!("cannot create {}: {e}", output.display()))?;
        Box::new(BufWriter::with_capacity(1 << 20, f))
    };
    let mut partial = Partial {
        path: (!stdout).then_some(output),
        done: false,
    };
    let bar = Bar::start(&opened, progress);
    let converted = trama_convert::convert(opened, read, &opts, out)?;
    drop(bar);
    warn(&name, &converted.warnings);
    if let Some(line) = converted.rejected {
        let at = if line == 0 {
            "at its end".to_string()
        } else {
            format!("at line {line}")
        };
        eprintln!(
            "trama: warning: {name}: the simulation rejects this trace {at} (`trama check` tells why); {} keeps every event, and reading it reports the same error",
            opts.output_name
        );
    }
    partial.done = true;
    Ok(())
}
