//! The sources of `trama merge` (libRastro, CLOG-2, Ganglia, PCP, sched,
//! OpenTS) and Paraver read as traces: the source's records go through
//! the engine that declares types, containers and values on first use
//! (`trama_records::Declarer`, times from the first record), whose events
//! are handed to the consumer as they are made, by their words, in
//! bounded memory. The events are those of the Pajé text
//! `trama_records::PajeWriter` writes for the same records (their lines
//! are that text's), which is what [`TraceReader::write_text`] gives. So
//! `trama view run.xml` shows an OpenTS file as any trace.

use std::io::{self, Write};

use trama_events::{Event, EventDef};
use trama_paje::QuoteMode;
use trama_records::{
    Declarer, Dialect, EventOut, PajeWriter, Prefetched, Source, SourceError, Words, WriteError,
    WriterOptions,
};

use crate::input::{Progress, ProgressUnit};
use crate::reader::{Failure, Item, ReadStats, Stop, TraceReader};
use crate::{Error, LoadOptions};

/// A source's records read as a trace, once.
pub(crate) struct RecordsReader {
    source: Option<Box<dyn Source>>,
    /// Said with the reader's warnings (how the source was read).
    notes: Vec<String>,
    progress: Progress,
}

/// A reader of the events that `source`'s records make; `notes` are
/// said with the reader's warnings.
pub(crate) fn open(source: Box<dyn Source>, notes: Vec<String>) -> Result<RecordsReader, Error> {
    Ok(RecordsReader {
        source: Some(source),
        notes,
        progress: Progress {
            total: None,
            done: Default::default(),
            unit: ProgressUnit::Events,
        },
    })
}

impl RecordsReader {
    fn take(&mut self) -> Result<Box<dyn Source>, Failure> {
        self.source.take().ok_or_else(|| {
            Failure::Io(io::Error::other(
                "the input is a stream and was already read",
            ))
        })
    }
}

/// A failure of the source (it names the file and where), as a reading's.
fn source_failure(message: String) -> Failure {
    Failure::Io(io::Error::other(message))
}

/// The events of the engine handed to the consumer, each on the line it
/// has in the text.
struct ToItems<'f, F> {
    each: &'f mut F,
    /// Lines of the text so far.
    lines: u64,
    /// Bytes of the text so far.
    bytes: u64,
    events: u64,
    /// Why the consumer stopped.
    stop: Option<Stop>,
}

impl<F> EventOut for ToItems<'_, F>
where
    F: FnMut(Item<'_>) -> Result<(), Stop>,
{
    fn definition(&mut self, def: &EventDef) -> Result<(), WriteError> {
        let header = def.to_header();
        self.lines += header.bytes().filter(|b| *b == b'\n').count() as u64;
        self.bytes += header.len() as u64;
        Ok(())
    }

    #[inline]
    fn event(&mut self, def: &EventDef, words: &Words) -> Result<(), WriteError> {
        self.lines += 1;
        self.bytes += words.text_len() as u64;
        self.events += 1;
        let ev = Event::new(def, self.lines, words.buf(), words.spans());
        (self.each)(Item::Event(ev)).map_err(|s| {
            self.stop = Some(s);
            WriteError::Stopped
        })
    }

    fn lines(&self) -> u64 {
        self.lines
    }
}

impl TraceReader for RecordsReader {
    fn read<F>(&mut self, opts: &LoadOptions, mut each: F) -> Result<ReadStats, Failure>
    where
        F: FnMut(Item<'_>) -> Result<(), Stop>,
    {
        let mut source = self.take()?;
        if crate::cores(opts.threads) > 1 {
            // The input is read while its records are declared and simulated.
            let name = source.name().to_string();
            source = Box::new(
                Prefetched::spawn(source, "trama-records")
                    .map_err(|e| source_failure(format!("{name}: {e}")))?,
            );
        }
        let dialect = dialect_of(&*source).map_err(source_failure)?;
        let header = dialect.header();
        let out = ToItems {
            each: &mut each,
            lines: header.bytes().filter(|b| *b == b'\n').count() as u64,
            bytes: header.len() as u64,
            events: 0,
            stop: None,
        };
        let mut engine = Declarer::with_output(out, dialect, WriterOptions::default())
            .map_err(|e| source_failure(e.to_string()))?;
        let driven = drive(&mut *source, &mut engine, |e| {
            matches!(e, WriteError::Stopped)
        });
        let definitions = engine.definitions().to_vec();
        let out = engine.finish();
        if let Some(stop) = out.stop {
            return Err(Failure::Stop(stop));
        }
        driven.map_err(source_failure)?;
        Ok(ReadStats {
            lines: out.lines,
            bytes: out.bytes,
            events: out.events,
            definitions,
            warnings: self.notes.clone(),
            ..Default::default()
        })
    }

    /// The text `trama_records::PajeWriter` writes for the records.
    fn write_text(&mut self, out: &mut dyn Write) -> Result<(), Failure> {
        let mut source = self.take()?;
        let dialect = dialect_of(&*source).map_err(source_failure)?;
        let name = source.name().to_string();
        let output = |e: WriteError| match e {
            WriteError::Io(e) => Failure::Stop(Stop::Other(Box::new(e))),
            e => source_failure(format!("{name}: {e}")),
        };
        let out = io::BufWriter::with_capacity(64 << 10, out);
        let mut writer = PajeWriter::new(out, dialect, WriterOptions::default()).map_err(output)?;
        let stopped = drive(&mut *source, writer.engine(), |e| {
            matches!(e, WriteError::Io(_))
        })
        .map_err(source_failure)?;
        if let Some(e) = stopped {
            return Err(output(e));
        }
        let mut w = writer.finish().map_err(output)?;
        w.flush().map_err(|e| output(WriteError::Io(e)))
    }

    fn progress(&self) -> Option<Progress> {
        Some(self.progress.clone())
    }

    fn text_quotes(&self) -> QuoteMode {
        QuoteMode::Strip
    }
}

/// The header of a source's text: PajeNG's reference one, with a
/// definition for the extra fields of each kind its records carry.
fn dialect_of(source: &dyn Source) -> Result<Dialect, String> {
    let name = source.name();
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
    Ok(dialect)
}

/// Hands every record of `source` to `engine` (the first one's time is
/// the origin): `Ok(Some(error))` when `engine` failed with an error
/// `stops` accepts (its consumer went away), `Err` with the
/// message naming the file, where in it and which record when a record
/// could not be written or the source failed.
fn drive<O: EventOut>(
    source: &mut dyn Source,
    engine: &mut Declarer<O>,
    stops: impl Fn(&WriteError) -> bool,
) -> Result<Option<WriteError>, String> {
    let mut records = 0u64;
    while let Some(rec) = source.next_record().map_err(|e| e.to_string())? {
        records += 1;
        if records == 1 {
            engine.set_origin(rec.time);
        }
        match engine.write(&rec) {
            Ok(()) => {}
            Err(e) if stops(&e) => return Ok(Some(e)),
            // Where the record came from, and which it is.
            Err(e) => {
                let message = format!("{e} (record {records} of the source)");
                return Err(SourceError::at(source.name(), source.position(), message).to_string());
            }
        }
    }
    Ok(None)
}
