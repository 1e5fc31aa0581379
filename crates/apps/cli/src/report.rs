//! `trama report`: one self-contained HTML file with a summary and every view.

use std::process::ExitCode;

use crate::run::load_trace;

pub fn report(a: &crate::ReportArgs) -> anyhow::Result<ExitCode> {
    let trace = load_trace(&a.read, true, None)?; // the fields the wait states read
    let (name, mut html, mut b) = (a.read.source().display_name(), Vec::new(), a.read.clone());
    b.file = a.other.clone();
    let tb = b.file.is_some().then(|| load_trace(&b, true, None));
    let tb = tb.transpose()?;
    let other = tb.as_ref().map(|t| (t, b.source().display_name()));
    for note in trama_report::html_report(&trace, &name, other, a.level.as_deref(), &mut html)? {
        eprintln!("trama: note: {note}");
    }
    let inputs: Vec<_> = a.read.path().into_iter().chain(b.path()).collect();
    crate::run::write_output(&a.output, &inputs, |w| Ok(w.write_all(&html)?))?;
    std::mem::forget(trace);
    Ok(ExitCode::SUCCESS)
}
