//! The summary of a valid trace (`trama check`): its input, types,
//! containers, entities and time span.

use std::io::Write;

use trama_open::{Format, Simulated};
use trama_sim::{CountingSink, TypeKind};

use crate::Error;

/// Warnings on the trace as a whole that the simulation does not give:
/// a trace with no timed event (an empty file, or definitions only).
pub fn check_warnings(done: &Simulated<CountingSink>) -> Vec<String> {
    let root = done.model.container(trama_sim::ContainerId::ROOT);
    let mut w = Vec::new();
    if root.end < root.start {
        w.push(if done.stats.bytes == 0 {
            "the file is empty: no definition, no event".to_string()
        } else {
            "the trace holds no timed event (definitions only): it has no time span".to_string()
        });
    }
    w
}

/// Writes the summary of `done`, the counted trace `name`, to `o`; its
/// warnings (the simulation's and [`check_warnings`]) end it, the first
/// ten in full.
pub fn check_summary(
    name: &str,
    done: &Simulated<CountingSink>,
    o: &mut dyn Write,
) -> Result<(), Error> {
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
    let let_pass = done
        .warnings
        .iter()
        .filter(|w| w.contains(trama_sim::LENIENT_MARK))
        .count();
    if let_pass == 0 {
        writeln!(o, "{name}: valid Pajé trace")?;
    } else {
        writeln!(
            o,
            "{name}: Pajé trace read with --lenient: not valid as it is (what was let pass is in the warnings)"
        )?;
    }
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
            "  input       {}, {} bytes{}, {} events, {} event definitions (from {} lines or records)",
            match f {
                Format::Ptb => "binary (.ptb)",
                Format::RastroPaje => "libRastro binary Pajé (.rst)",
                other => other.describe(),
            },
            st.bytes,
            // Sources read as records are counted as the Pajé text they
            // are written to, not as their file.
            match f {
                Format::Rastro
                | Format::Clog2
                | Format::Ganglia
                | Format::Pcp
                | Format::Sched
                | Format::Opents
                | Format::Paraver => " of Pajé text",
                _ => "",
            },
            st.events,
            st.definitions.len(),
            st.lines,
        )?,
    }
    for (i, note) in st.notes.iter().enumerate() {
        let label = if i == 0 { "records" } else { "" };
        writeln!(o, "  {label:<11} {note}")?;
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
    if root.end < root.start {
        writeln!(o, "  time span   none (no timed event)")?;
    } else {
        let mut span = Vec::new();
        trama_num::write_general(&mut span, root.start);
        span.extend_from_slice(b" .. ");
        trama_num::write_general(&mut span, root.end);
        writeln!(o, "  time span   {}", String::from_utf8_lossy(&span))?;
    }
    let all: Vec<String> = done
        .warnings
        .iter()
        .cloned()
        .chain(check_warnings(done))
        .collect();
    if !all.is_empty() {
        writeln!(o, "  warnings    {}", all.len())?;
        for w in all.iter().take(10) {
            writeln!(o, "    {w}")?;
        }
        if all.len() > 10 {
            writeln!(o, "    ({} more on standard error)", all.len() - 10)?;
        }
    }
    Ok(())
}
