//! `trama report`: one self-contained HTML file with a summary and every view.

use std::path::Path;
use std::process::ExitCode;

use crate::run::load_trace;
use crate::ReadArgs;

pub fn report(args: &ReadArgs, output: &Path, level: Option<String>) -> anyhow::Result<ExitCode> {
    let trace = load_trace(args, true, None)?; // the fields the wait states read
    let name = trama_open::Source::from_arg(args.file.as_deref()).display_name();
    let mut html = Vec::new();
    for note in trama_report::html_report(&trace, &name, level.as_deref(), &mut html)? {
        eprintln!("trama: note: {note}");
    }
    let inputs: Vec<_> = args.path().into_iter().collect();
    crate::run::write_output(output, &inputs, |w| Ok(w.write_all(&html)?))?;
    std::mem::forget(trace);
    Ok(ExitCode::SUCCESS)
}
