//! `trama info`: what a binary trace (.ptb) holds (`trama_report::ptb_info`).

use std::io::Write;
use std::process::ExitCode;

use anyhow::bail;
use trama_open::Format;
use trama_report::InfoOptions;

use crate::run::open;
use crate::ReadArgs;

/// Writes the description of the trace `args` names to `out`.
pub fn info(args: &ReadArgs, opts: &InfoOptions, out: &mut dyn Write) -> anyhow::Result<ExitCode> {
    let opened = open(args)?;
    let name = opened.name().to_string();
    let Some(file) = opened.ptb() else {
        match opened.format() {
            Format::PajeText | Format::UnknownText => bail!(
                "{name} is Pajé text: `trama info` describes binary traces; `trama check {name}` \
                 summarizes it, `trama convert {name} OUT.ptb` makes a binary trace of it"
            ),
            f => bail!(
                "{name} is {}: `trama info` describes .ptb files; `trama check {name}` summarizes it",
                f.describe()
            ),
        }
    };
    trama_report::ptb_info(file, &name, opts, out)?;
    Ok(ExitCode::SUCCESS)
}
