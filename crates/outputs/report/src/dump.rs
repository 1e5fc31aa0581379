//! `trama dump` and `trama check` on an opened trace: the dump in
//! PajeNG's order once the whole trace is read, as entities complete
//! (streamed), or only the check of the simulation; the summary of a
//! valid trace.

use std::io::Write;

use trama_dump::{dump_trace, DumpOptions, StreamDump};
use trama_open::{LoadOptions, Opened, KEY_FILTER_BYTES};

use crate::Error;

/// What `trama dump` is asked to do.
#[derive(Clone, Debug, Default)]
pub struct DumpSettings {
    /// The dump's options.
    pub options: DumpOptions,
    /// Simulate only, write nothing (`pj_dump -q`).
    pub quiet: bool,
    /// Write entities as they complete, in completion order.
    pub stream: bool,
}

impl DumpSettings {
    /// The window of times the dump keeps, when it keeps one.
    pub fn window(&self) -> Option<(f64, f64)> {
        let o = &self.options;
        (o.start.is_some() || o.end.is_some()).then(|| {
            (
                o.start.unwrap_or(f64::NEG_INFINITY),
                o.end.unwrap_or(f64::INFINITY),
            )
        })
    }
}

/// Dumps `opened`, read with `load`, to `out` as `s` says; `read` is
/// told, once the trace is read, the warnings of reading it.
pub fn dump(
    opened: &mut Opened,
    mut load: LoadOptions,
    s: &DumpSettings,
    out: &mut (dyn Write + Send),
    read: &mut dyn FnMut(&[String]),
) -> Result<(), Error> {
    let o = &s.options;
    if s.quiet || s.stream {
        // Memory that does not grow with the links: used link keys in a
        // filter, confirmed by reading the input again.
        load.key_filter = Some(KEY_FILTER_BYTES);
    }
    if s.quiet {
        let done = opened.count(&load)?;
        read(&done.warnings);
        return Ok(());
    }
    if s.stream {
        let done = opened.simulate_into(StreamDump::new(out, o), &load)?;
        read(&done.warnings);
        done.sink.finish()?;
        return Ok(());
    }
    let t0 = std::time::Instant::now();
    let trace = opened.load(&load)?;
    read(&trace.warnings);
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
    Ok(())
}

/// Checks `opened`, read with `load`, and writes the summary of a valid
/// trace to `out` ([`crate::check_summary`]); `read` is told, once the
/// trace is read, the warnings of reading it and those on the trace as a
/// whole ([`crate::check_warnings`]).
pub fn check(
    opened: &mut Opened,
    mut load: LoadOptions,
    out: &mut dyn Write,
    read: &mut dyn FnMut(&[String]),
) -> Result<(), Error> {
    load.warn_open_states = true;
    load.key_filter = Some(KEY_FILTER_BYTES);
    let done = opened.count(&load)?;
    read(&done.warnings);
    read(&crate::check_warnings(&done));
    crate::check_summary(opened.name(), &done, out)
}
