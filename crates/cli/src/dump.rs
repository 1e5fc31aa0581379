//! `trama dump` and `trama check`.

use std::io::Write;
use std::process::ExitCode;

use anyhow::Context;
use trama_dump::{dump_trace, DumpOptions, StreamDump};
use trama_open::Format;
use trama_sim::TypeKind;

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
    let load = args.load_options(keep_extras, window);
    if s.quiet {
        let done = opened.count(&load)?;
        warn(opened.name(), &done.warnings);
        return Ok(ExitCode::SUCCESS);
    }
    if s.stream {
        let done = opened.simulate_into(StreamDump::new(out, o), &load)?;
        drop(bar);
        warn(opened.name(), &done.warnings);
        done.sink.finish().context("writing the dump")?;
        return Ok(ExitCode::SUCCESS);
    }
    let t0 = std::time::Instant::now();
    let trace = opened.load(&load)?;
    drop(bar);
    warn(opened.name(), &trace.warnings);
    let t1 = std::time::Instant::now();
    dump_trace(&trace, o, out).context("writing the dump")?;
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
    let done = opened.count(&args.load_options(false, None))?;
    drop(bar);
    warn(opened.name(), &done.warnings);
    let m = &done.model;
    let c = &done.sink;
    let mut types = [0usize; 5];
    for t in &m.types[1..] {
        types[match t.kind {
            TypeKind::Container => 0,
            TypeKind::State => 1,
            TypeKind::Event => 2,
            TypeKind::Variable => 3,
            TypeKind::Link => 4,
        }] += 1;
    }
    let root = m.container(trama_sim::ContainerId::ROOT);
    let mut o = std::io::stdout().lock();
    writeln!(o, "{}: valid Pajé trace", opened.name())?;
    let st = &done.stats;
    match done.format {
        Format::PajeText | Format::UnknownText => writeln!(
            o,
            "  input       {} lines, {} bytes, {} events, {} event definitions",
            st.lines,
            st.bytes,
            st.events,
            st.definitions.len()
        )?,
        f => writeln!(
            o,
            "  input       {}, {} bytes, {} events, {} event definitions (from {} lines or records)",
            match f {
                Format::Ptb => "binary (.ptb)",
                Format::RastroPaje => "libRastro binary Pajé (.rst)",
                other => other.describe(),
            },
            st.bytes,
            st.events,
            st.definitions.len(),
            st.lines,
        )?,
    }
    writeln!(
        o,
        "  types       {} ({} container, {} state, {} event, {} variable, {} link)",
        m.types.len() - 1,
        types[0],
        types[1],
        types[2],
        types[3],
        types[4]
    )?;
    writeln!(o, "  containers  {} (root included)", m.containers.len())?;
    writeln!(
        o,
        "  entities    {} ({} states, {} events, {} variable values, {} links)",
        c.states + c.events + c.variables + c.links,
        c.states,
        c.events,
        c.variables,
        c.links
    )?;
    let mut span = Vec::new();
    trama_num::write_general(&mut span, root.start);
    span.extend_from_slice(b" .. ");
    trama_num::write_general(&mut span, root.end);
    writeln!(o, "  time span   {}", String::from_utf8_lossy(&span))?;
    if !done.warnings.is_empty() {
        writeln!(o, "  warnings    {}", done.warnings.len())?;
    }
    Ok(ExitCode::SUCCESS)
}
