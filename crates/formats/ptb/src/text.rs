//! Back to Pajé text.

use std::io::{self, Write};

use trama_events::{EventKind, Field};

use crate::decimal;
use crate::format::{role, Role};
use crate::read::{Decoded, DecodedHandles, PtbFile, ReadError, ReadOptions};

/// Identifiers of the things handles designate, in creation order.
struct Names {
    types: Vec<Vec<u8>>,
    containers: Vec<Vec<u8>>,
    values: Vec<Vec<u8>>,
}

fn ident<'a>(name: &'a [u8], alias: &'a [u8]) -> &'a [u8] {
    if alias.is_empty() {
        name
    } else {
        alias
    }
}

/// Writes `file` as Pajé text: the definitions, then one line per event.
/// Reading the text back (with the quote mode the binary was made with)
/// gives the same events.
pub fn write_text<W: Write>(
    file: &PtbFile,
    opts: &ReadOptions,
    out: &mut W,
) -> Result<(), ReadError<io::Error>> {
    let stripped = file.quotes_stripped();
    // Definitions and events go back to their lines (blank lines stand for
    // comments and spacing), so line numbers in messages stay those of the
    // original text and a second conversion gives the same binary file.
    let defs = file.definitions();
    let last_line = file.text_lines();
    let mut next_def = 0;
    let mut line = Vec::with_capacity(256);
    let mut cur = 1u64;
    // Writes the definitions and blank lines before line `upto`.
    let place = |out: &mut W,
                 line: &mut Vec<u8>,
                 upto: u64,
                 cur: &mut u64,
                 next_def: &mut usize|
     -> io::Result<()> {
        while *next_def < defs.len() && defs[*next_def].line() < upto {
            let d = &defs[*next_def];
            pad(out, line, cur, d.line())?;
            let mut head = d.to_header();
            let mut n = d.field_count() as u64 + 1;
            let next = defs
                .get(*next_def + 1)
                .map_or(upto, |nd| nd.line().min(upto))
                .min(last_line + 1);
            if d.line() + n > next {
                // A definition left open at the end of the text (accepted
                // with a warning) stays open.
                head.truncate(head.len() - "%EndEventDef\n".len());
                n -= 1;
            }
            line.extend_from_slice(head.as_bytes());
            *cur += n;
            *next_def += 1;
        }
        pad(out, line, cur, upto)
    };
    let mut names = Names {
        types: vec![b"0".to_vec()],
        containers: vec![b"0".to_vec()],
        values: Vec::new(),
    };
    file.read(opts, |rec| {
        line.clear();
        let at = match &rec {
            Decoded::Text(ev) => ev.line(),
            Decoded::Handles(h) => h.event.line,
        };
        place(out, &mut line, at, &mut cur, &mut next_def)?;
        cur += 1;
        match rec {
            Decoded::Text(ev) => {
                for i in 0..ev.word_count() {
                    if i > 0 {
                        line.push(b' ');
                    }
                    word(&mut line, ev.word(i), stripped);
                }
                let name = ev.get(Field::Name);
                let alias = ev.get(Field::Alias);
                match ev.kind() {
                    EventKind::DefineContainerType
                    | EventKind::DefineStateType
                    | EventKind::DefineEventType
                    | EventKind::DefineVariableType
                    | EventKind::DefineLinkType => names.types.push(ident(name, alias).to_vec()),
                    EventKind::CreateContainer => {
                        names.containers.push(ident(name, alias).to_vec())
                    }
                    EventKind::DefineEntityValue => names.values.push(ident(name, alias).to_vec()),
                    _ => {}
                }
            }
            Decoded::Handles(h) => handle_line(&mut line, &h, &mut names, stripped)?,
        }
        line.push(b'\n');
        out.write_all(&line)
    })?;
    line.clear();
    let end = file.text_lines().saturating_add(1);
    place(out, &mut line, end, &mut cur, &mut next_def).map_err(ReadError::Handler)?;
    out.write_all(&line).map_err(ReadError::Handler)?;
    out.flush().map_err(ReadError::Handler)
}

/// Blank lines up to (not including) line `to`, after `line`; long runs
/// of them go to `out` as they are made, so memory stays bounded whatever
/// line numbers a file gives.
fn pad<W: Write>(out: &mut W, line: &mut Vec<u8>, cur: &mut u64, to: u64) -> io::Result<()> {
    const CHUNK: usize = 1 << 16;
    while *cur < to {
        let n = (to - *cur).min(CHUNK as u64) as usize;
        line.resize(line.len() + n, b'\n');
        *cur += n as u64;
        if line.len() >= CHUNK {
            out.write_all(line)?;
            line.clear();
        }
    }
    Ok(())
}

fn handle_line(
    line: &mut Vec<u8>,
    h: &DecodedHandles<'_>,
    names: &mut Names,
    stripped: bool,
) -> io::Result<()> {
    let def = h.event.def;
    let kind = def.kind();
    let raw = h.raw;
    let invalid = |what: &str, i: u32| {
        io::Error::new(
            io::ErrorKind::InvalidData,
            format!("line {}: no {what} with handle {i}", raw.line),
        )
    };
    let name_of = |v: &Vec<Vec<u8>>, i: u32, what: &str| -> io::Result<Vec<u8>> {
        v.get(i as usize).cloned().ok_or_else(|| invalid(what, i))
    };
    line.extend_from_slice(def.id());
    for (i, &(field, _)) in def.fields().iter().enumerate().skip(1) {
        line.push(b' ');
        let s = h.words[i];
        let w = &h.arena[s.start as usize..s.end as usize];
        match role(kind, field, true) {
            Role::Time if raw.ts != crate::format::TIME_TEXT => {
                decimal::write(line, raw.tm, raw.ts)
            }
            // Names are written as any word is: a name with a space, read
            // with quotes stripped, gets its quotes back.
            Role::Container => word(
                line,
                &name_of(&names.containers, raw.c, "container")?,
                stripped,
            ),
            Role::Type => word(line, &name_of(&names.types, raw.ty, "type")?, stripped),
            Role::Other => word(
                line,
                &name_of(&names.containers, raw.other, "container")?,
                stripped,
            ),
            Role::Value if raw.value == u32::MAX => {
                names.values.push(w.to_vec());
                word(line, w, stripped);
            }
            Role::Value => word(line, &name_of(&names.values, raw.value, "value")?, stripped),
            Role::Number if raw.ns != crate::format::TIME_TEXT => {
                decimal::write(line, raw.nm, raw.ns)
            }
            // A link's second end stores no key: the reader gives its first end's.
            Role::Key => word(line, h.event.key, stripped),
            _ => word(line, w, stripped),
        }
    }
    Ok(())
}

/// Writes one word so that the text reader reads it back unchanged.
fn word(out: &mut Vec<u8>, w: &[u8], stripped: bool) {
    let special = w.is_empty() || w.iter().any(|&b| matches!(b, b' ' | b'\t' | b'#'));
    if stripped && special {
        out.push(b'"');
        out.extend_from_slice(w);
        out.push(b'"');
    } else if w.is_empty() {
        out.extend_from_slice(b"\"\"");
    } else {
        out.extend_from_slice(w);
    }
}
