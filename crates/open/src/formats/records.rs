//! The sources of `trama merge` (libRastro, CLOG-2, Ganglia, PCP, sched,
//! OpenTS) read as traces: the source's records are written as Pajé text
//! (`trama_sources::PajeWriter`, which declares types, containers and
//! values on first use, times from the first record) on a thread of its
//! own, and the text is read through a pipe. So `trama view run.xml` shows
//! an OpenTS file as any trace, in bounded memory.

use std::io::Write;

use trama_paje::QuoteMode;
use trama_sources::{Dialect, PajeWriter, Source, SourceError, WriterOptions};

use crate::formats::text::TextReader;
use crate::input::{Progress, ProgressUnit};
use crate::pipe::TextPipe;
use crate::Error;

/// A reader of the Pajé text that `source`'s records make; `notes` are
/// said with the reader's warnings.
pub(crate) fn open(source: Box<dyn Source>, notes: Vec<String>) -> Result<TextReader, Error> {
    let name = source.name().to_string();
    let pipe = TextPipe::spawn("trama-records-text", move |w| write_source(source, w))
        .map_err(|e| crate::input::io_error(&name, e))?;
    let progress = Progress {
        total: None,
        done: Default::default(),
        unit: ProgressUnit::Events,
    };
    let mut reader = TextReader::from_reader(Box::new(pipe), progress, QuoteMode::Strip);
    reader.notes = notes;
    Ok(reader)
}

/// Writes every record of `source` as Pajé text into `out`.
pub(crate) fn write_source(mut source: Box<dyn Source>, out: impl Write) -> Result<(), String> {
    let name = source.name().to_string();
    // The extra fields of a kind make one definition.
    let mut by_kind: Vec<(
        trama_events::EventKind,
        Vec<(String, trama_events::FieldType)>,
    )> = Vec::new();
    for x in source.extra_fields() {
        let ty = trama_events::FieldType::from_name(x.field_type.as_bytes())
            .ok_or_else(|| format!("{name}: unknown field type '{}'", x.field_type))?;
        match by_kind.iter_mut().find(|(k, _)| *k == x.kind) {
            Some((_, fields)) => fields.push((x.name, ty)),
            None => by_kind.push((x.kind, vec![(x.name, ty)])),
        }
    }
    let mut dialect = Dialect::standard();
    for (kind, fields) in &by_kind {
        let fields: Vec<(&str, trama_events::FieldType)> =
            fields.iter().map(|(n, t)| (n.as_str(), *t)).collect();
        dialect = dialect.with_extras(*kind, &fields);
    }
    let out = std::io::BufWriter::with_capacity(64 << 10, out);
    let closed = |e: &trama_sources::WriteError| matches!(e, trama_sources::WriteError::Io(io) if crate::pipe::is_closed(io));
    let mut writer =
        PajeWriter::new(out, dialect, WriterOptions::default()).map_err(|e| e.to_string())?;
    let mut first = true;
    let mut records = 0u64;
    while let Some(rec) = source.next_record().map_err(|e| e.to_string())? {
        if first {
            writer.set_origin(rec.time);
            first = false;
        }
        records += 1;
        match writer.write(&rec) {
            Ok(()) => {}
            Err(e) if closed(&e) => return Ok(()),
            // Where the record came from, and which it is.
            Err(e) => {
                let message = format!("{e} (record {records} of the source)");
                return Err(SourceError::at(name, source.position(), message).to_string());
            }
        }
    }
    match writer.finish() {
        Ok(mut w) => match w.flush() {
            Err(e) if !crate::pipe::is_closed(&e) => Err(e.to_string()),
            _ => Ok(()),
        },
        Err(e) if closed(&e) => Ok(()),
        Err(e) => Err(format!("{name}: {e}")),
    }
}
