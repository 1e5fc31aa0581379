//! A conversion into a file that appears whole or not at all
//! ([`trama_open::Output`]), never onto one of the inputs.

use std::io::IsTerminal;
use std::path::Path;

use trama_open::{LoadOptions, Opened, Output};

use crate::{convert, ConvertOptions, Error, Target};

/// Converts `opened` (read with `read`) into `output` (`-`: standard
/// output) in the format `opts.to`; never onto one of `inputs`. With
/// `valid`, a trace the simulation rejects is an error ([`Error::Rejected`])
/// and nothing is written; else a warning says what the output holds. A
/// `.ptb` written to a file carries the summary a viewer reads when it is
/// large enough ([`ConvertOptions::summary_from`]).
/// Gives the output, put in place by committing it, and the warnings of
/// reading the input.
pub fn convert_file(
    opened: Opened,
    read: &LoadOptions,
    mut opts: ConvertOptions,
    output: &Path,
    inputs: &[&Path],
    valid: bool,
) -> Result<(Output, Vec<String>), Error> {
    let stdout = output.as_os_str() == "-";
    if stdout && opts.to != Target::Paje && std::io::stdout().is_terminal() {
        return Err(Error::Terminal);
    }
    opts.output_name = if stdout {
        "standard output".into()
    } else {
        output.display().to_string()
    };
    let name = opened.name().to_string();
    let (file, out) = Output::create(output, inputs)?;
    let converted = convert(opened, read, &opts, out);
    // A failure of the output is the cause of whatever the writing made of it.
    if let Some(e) = file.failure() {
        return Err(e.into());
    }
    let mut converted = converted?;
    let events = converted.written.map_or(0, |w| w.events);
    if let (Some(from), Some(path), None) = (opts.summary_from, file.written(), converted.rejected)
    {
        if opts.to == Target::Ptb && events >= from {
            crate::summary::add(path).map_err(|source| Error::Write {
                output: opts.output_name.clone(),
                source,
            })?;
        }
    }
    if let Some(line) = converted.rejected {
        let at = if line == 0 {
            "at its end".to_string()
        } else {
            format!("at line {line}")
        };
        if valid {
            return Err(Error::Rejected { name, at });
        }
        let out = &opts.output_name;
        converted.warnings.push(if read.lenient {
            format!("the simulation lets this trace pass only with --lenient (from {at}); {out} keeps those events: read it with --lenient")
        } else {
            format!("the simulation rejects this trace {at} (`trama check` tells why); {out} keeps every event, and reading it reports the same error")
        });
    }
    Ok((file, converted.warnings))
}
