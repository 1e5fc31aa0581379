//! `trama convert`: flags to `trama-convert`'s options, and the output file.

use std::fs::File;
use std::io::{BufWriter, IsTerminal, Write};
use std::path::{Path, PathBuf};
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
/// in the format `opts.to`, or the output's extension's when `to` is `None`.
pub fn convert(
    args: &ReadArgs,
    output: &PathBuf,
    to: Option<Target>,
    mut opts: ConvertOptions,
) -> anyhow::Result<ExitCode> {
    opts.to = match to.or_else(|| Target::of_path(output)) {
        Some(t) => t,
        None => bail!(
            "cannot tell the output format from '{}': name it .ptb, .rst or .paje, or use --to",
            output.display()
        ),
    };
    let stdout = output.as_os_str() == "-";
    if stdout && opts.to != Target::Paje && std::io::stdout().is_terminal() {
        bail!("not writing a binary trace to a terminal: redirect the output or name a file");
    }
    opts.output_name = if stdout {
        "standard output".into()
    } else {
        output.display().to_string()
    };
    let opened = open(args)?;
    let name = opened.name().to_string();
    let out: Box<dyn Write + Send> = if stdout {
        Box::new(BufWriter::with_capacity(1 << 20, std::io::stdout()))
    } else {
        let f =
            File::create(output).map_err(|e| anyhow!("cannot create {}: {e}", output.display()))?;
        Box::new(BufWriter::with_capacity(1 << 20, f))
    };
    let mut partial = Partial {
        path: (!stdout).then_some(output.as_path()),
        done: false,
    };
    let bar = Bar::start(&opened, !args.no_progress);
    let converted = trama_convert::convert(opened, &args.load_options(false, None), &opts, out)?;
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
    Ok(ExitCode::SUCCESS)
}
