//! `trama dump` and `trama check` (`trama_report::dump`, `check`).

use std::io::Write;
use std::process::ExitCode;

use trama_report::DumpSettings;

use crate::run::{open, warn, Bar};
use crate::ReadArgs;

/// A progress bar over the reading of `opened`, ended when it is read
/// (then its warnings are printed).
pub fn reading(opened: &trama_open::Opened, args: &ReadArgs) -> impl FnMut(&[String]) {
    let mut bar = Some(Bar::start(opened, !args.no_progress));
    let name = opened.name().to_string();
    move |w| {
        bar.take();
        warn(&name, w);
    }
}

pub fn dump(
    args: &ReadArgs,
    s: &DumpSettings,
    out: &mut (dyn Write + Send),
) -> anyhow::Result<ExitCode> {
    let mut opened = open(args)?;
    let load = args.load_options(s.options.user_defined, s.window());
    let mut read = reading(&opened, args);
    trama_report::dump(&mut opened, load, s, out, &mut read)?;
    Ok(ExitCode::SUCCESS)
}

pub fn check(args: &ReadArgs) -> anyhow::Result<ExitCode> {
    let mut opened = open(args)?;
    let mut read = reading(&opened, args);
    let load = args.load_options(false, None);
    crate::run::write_output(std::path::Path::new("-"), &[], |o| {
        trama_report::check(&mut opened, load, o, &mut read)?;
        Ok(ExitCode::SUCCESS)
    })
}
