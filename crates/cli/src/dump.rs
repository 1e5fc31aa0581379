//! `trama dump` and `trama check`.

use std::io::Write;
use std::process::ExitCode;

use trama_dump::{dump_trace, DumpOptions, StreamDump};
use trama_open::KEY_FILTER_BYTES;

use crate::run::{open, warn, Bar};
use crate::ReadArgs;

/// What `trama dump` was asked to do.
pub struct DumpSettings {
    pub options: DumpOptions,
    pub quiet: bool,
    pub stream: bool,
}

pub fn dump(
    args: &ReadArgs,
    s: &DumpSettings,
    out: &mut (dyn Write + Send),
) -> anyhow::Result<ExitCode> {
    let o = &s.options;
    let keep_extras = o.user_defined;
    let window = (o.start.is_some() || o.end.is_some()).then(|| {
        (
            o.start.unwrap_or(f64::NEG_INFINITY),
            o.end.unwrap_or(f64::INFINITY),
        )
    });
    let mut opened = open(args)?;
    let bar = Bar::start(&opened, !args.no_progress);
    let mut load = args.load_options(keep_extras, window);
    if s.quiet || s.stream {
        // Memory that does not grow with the links: used link keys in a
        // filter, confirmed by reading the input again.
        load.key_filter = Some(KEY_FILTER_BYTES);
    }
    if s.quiet {
        let done = opened.count(&load)?;
        warn(opened.name(), &done.warnings);
        return Ok(ExitCode::SUCCESS);
    }
    if s.stream {
        let done = opened.simulate_into(StreamDump::new(out, o), &load)?;
        drop(bar);
        warn(opened.name(), &done.warnings);
        done.sink.finish()?;
        return Ok(ExitCode::SUCCESS);
    }
    let t0 = std::time::Instant::now();
    let trace = opened.load(&load)?;
    drop(bar);
    warn(opened.name(), &trace.warnings);
    let t1 = std::time::Instant::now();
    dump_trace(&trace, o, out)?;
    if std::env::var_os("TRAMA_TIMINGS").is_some() {
        eprintln!(
            "trama: timings: read+simulate {:.3} s, format+write {:.3} s, {} entities",
            (t1 - t0).as_secs_f64(),
            t1.elapsed().as_secs_f64(),
            trace.entity_count()
        );
    }
    // Freeing millions of columns takes time and changes nothing.
    std::mem::forget(trace);
    Ok(ExitCode::SUCCESS)
}

pub fn check(args: &ReadArgs) -> anyhow::Result<ExitCode> {
    let mut opened = open(args)?;
    let bar = Bar::start(&opened, !args.no_progress);
    let mut opts = args.load_options(false, None);
    opts.warn_open_states = true;
    opts.key_filter = Some(KEY_FILTER_BYTES);
    let done = opened.count(&opts)?;
    drop(bar);
    warn(opened.name(), &done.warnings);
    warn(opened.name(), &trama_report::check_warnings(&done));
    crate::run::write_output(std::path::Path::new("-"), &[], |o| {
        trama_report::check_summary(opened.name(), &done, o)?;
        Ok(ExitCode::SUCCESS)
    })
}
