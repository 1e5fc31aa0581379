//! The writer: Pajé definitions and events to the timeless libRastro layout.

use std::collections::HashMap;
use std::io::{self, Write};

pub use trama_events::StringMode;
use trama_events::{Event, EventDef, EventKind, Field, FieldType};

use super::{field_code, field_type_code, kind_id, DEFINITION_EVENT, STRING_EVENT};
use crate::rst::{EncodeError, Encoder, Layout, Stamp, EVENT_STOP};

/// Which definitions and value order are written (see the module docs).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum Flavor {
    /// The trace's own definitions; every field is kept.
    #[default]
    Trace,
    /// Poti's definitions and conventions, as `paje2rst` writes them.
    Poti,
}

/// Options of [`RastroPajeWriter`].
#[derive(Clone, Debug)]
#[non_exhaustive]
pub struct WriterOptions {
    /// Strings inside each event ([`StringMode::Plain`], the default:
    /// `paje2rst` with `STRING_REFERENCE=OFF`) or once each, as type-888
    /// events, that events refer to by `u16` indexes
    /// ([`StringMode::Interned`], `paje2rst`'s default; at most 65536
    /// distinct strings).
    pub strings: StringMode,
    /// Definitions and value order.
    pub flavor: Flavor,
    /// The two ids of the libRastro header event (`paje2rst`: 0 and 0).
    pub ids: (u64, u64),
    /// The host name of the libRastro header event (`paje2rst`: the
    /// machine it ran on).
    pub host: Vec<u8>,
}

impl Default for WriterOptions {
    fn default() -> WriterOptions {
        WriterOptions {
            strings: StringMode::Plain,
            flavor: Flavor::default(),
            ids: (0, 0),
            host: Vec::new(),
        }
    }
}

impl WriterOptions {
    /// Options with the given string mode and flavor, ids 0/0, empty host.
    pub fn new(strings: StringMode, flavor: Flavor) -> WriterOptions {
        WriterOptions {
            strings,
            flavor,
            ..WriterOptions::default()
        }
    }
}

/// Why a trace could not be written.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum WriteError {
    /// Writing failed.
    #[error("writing the rastro file: {0}")]
    Io(#[from] io::Error),
    /// A 65537th distinct string in [`StringMode::Interned`].
    #[error("line {line}: more than 65536 distinct strings, which 16-bit string references cannot address; write this trace with plain strings (`--strings plain`, StringMode::Plain)")]
    TooManyStrings {
        /// Line (or record) of the event that needed it.
        line: u64,
    },
    /// A value cannot be encoded (a string containing NUL).
    #[error("line {line}: {error}")]
    Encode {
        /// Line (or record) of the event.
        line: u64,
        /// What is wrong.
        error: EncodeError,
    },
}

/// One argument of a Poti event function.
#[derive(Clone, Copy, Debug)]
struct PotiArg {
    field: Field,
    ty: FieldType,
    /// Poti puts quotes around it.
    quoted: bool,
}

const fn arg(field: Field, ty: FieldType, quoted: bool) -> PotiArg {
    PotiArg { field, ty, quoted }
}

/// The arguments of Poti's function for each kind, in order (the order of
/// its 999 definition).
fn poti_args(kind: EventKind) -> Option<&'static [PotiArg]> {
    use Field::*;
    use FieldType::{Color as C, Date as D, Double as F, String as S};
    const TIME: PotiArg = arg(Time, D, false);
    const ALIAS: PotiArg = arg(Alias, S, false);
    const TYPE: PotiArg = arg(Type, S, false);
    const NAME: PotiArg = arg(Name, S, true);
    const COLOR: PotiArg = arg(Color, C, true);
    const CONT: PotiArg = arg(Container, S, false);
    const VALUE: PotiArg = arg(Value, S, false);
    const KEY: PotiArg = arg(Key, S, false);
    const START_TYPE: PotiArg = arg(StartContainerType, S, false);
    const END_TYPE: PotiArg = arg(EndContainerType, S, false);
    const PLAIN_NAME: PotiArg = arg(Name, S, false);
    const NUMBER: PotiArg = arg(Value, F, false);
    const START: PotiArg = arg(StartContainer, S, false);
    const END: PotiArg = arg(EndContainer, S, false);
    Some(match kind {
        EventKind::DefineContainerType
        | EventKind::DefineEventType
        | EventKind::DefineStateType => &[ALIAS, TYPE, NAME],
        EventKind::DefineVariableType | EventKind::DefineEntityValue => &[ALIAS, TYPE, NAME, COLOR],
        EventKind::DefineLinkType => &[ALIAS, TYPE, START_TYPE, END_TYPE, NAME],
        EventKind::CreateContainer => &[TIME, ALIAS, TYPE, CONT, NAME],
        EventKind::DestroyContainer => &[TIME, TYPE, PLAIN_NAME],
        EventKind::NewEvent | EventKind::SetState | EventKind::PushState => {
            &[TIME, CONT, TYPE, VALUE]
        }
        EventKind::PopState => &[TIME, CONT, TYPE],
        EventKind::ResetState => &[TIME, TYPE, CONT],
        EventKind::SetVariable | EventKind::AddVariable | EventKind::SubVariable => {
            &[TIME, CONT, TYPE, NUMBER]
        }
        EventKind::StartLink => &[TIME, CONT, TYPE, START, VALUE, KEY],
        EventKind::EndLink => &[TIME, CONT, TYPE, END, VALUE, KEY],
        EventKind::TraceFile => return None,
    })
}

/// Where a stored value comes from.
#[derive(Clone, Copy, Debug)]
struct Source {
    /// Word of the event; `None`: the definition lacks the field.
    slot: Option<usize>,
    /// Poti quoting applies.
    quoted: bool,
}

/// How the events of one definition are written.
#[derive(Debug)]
struct Plan {
    kind: EventKind,
    /// The values of its 999 event.
    list: Vec<u32>,
    f64s: Vec<Source>,
    strs: Vec<Source>,
    /// Poti's word rules (quotes) and reference order (last string first).
    poti: bool,
}

fn is_variable(kind: EventKind) -> bool {
    matches!(
        kind,
        EventKind::SetVariable | EventKind::AddVariable | EventKind::SubVariable
    )
}

fn plan(def: &EventDef, flavor: Flavor) -> Plan {
    let kind = def.kind();
    let mut list = vec![kind_id(kind) as u32];
    let mut f64s = Vec::new();
    let mut strs = Vec::new();
    if let (Flavor::Poti, Some(args)) = (flavor, poti_args(kind)) {
        for a in args {
            list.push(field_code(a.field));
            list.push(field_type_code(a.ty));
            let src = Source {
                slot: def.slot(a.field),
                quoted: a.quoted,
            };
            match a.ty {
                FieldType::Date | FieldType::Double => f64s.push(src),
                _ => strs.push(src),
            }
        }
        return Plan {
            kind,
            list,
            f64s,
            strs,
            poti: true,
        };
    }
    for (i, &(field, ty)) in def.fields().iter().enumerate().skip(1) {
        let src = Source {
            slot: Some(i),
            quoted: false,
        };
        let numeric = field == Field::Time || (field == Field::Value && is_variable(kind));
        let stored = if numeric {
            f64s.push(src);
            match ty {
                FieldType::Float | FieldType::Double | FieldType::Date => ty,
                _ if field == Field::Time => FieldType::Date,
                _ => FieldType::Double,
            }
        } else {
            strs.push(src);
            match ty {
                FieldType::String | FieldType::Color | FieldType::Hex => ty,
                _ => FieldType::String,
            }
        };
        list.push(field_code(field));
        list.push(field_type_code(stored));
    }
    Plan {
        kind,
        list,
        f64s,
        strs,
        poti: false,
    }
}

const TIMELESS: Stamp = Stamp::Timeless { time_set: false };

/// Writes a Pajé trace in the timeless libRastro layout (the binary Pajé
/// format of 2015).
///
/// Feed it in file order: [`definition`](Self::definition) where the trace
/// declares a definition, [`event`](Self::event) for each event (a
/// definition never announced is written just before its first event),
/// then [`finish`](Self::finish).
///
/// ```
/// use trama_events::{Event, EventDef, EventKind, Field, FieldType, Span};
/// use trama_rastro::paje::{read_rastro_paje, RastroPajeWriter, ReadOptions, WriterOptions};
///
/// let mut def = EventDef::new(EventKind::DefineContainerType, b"1", 1);
/// def.add_field(Field::Name, FieldType::String).unwrap();
/// def.add_field(Field::Type, FieldType::String).unwrap();
/// let text = b"1 Proc 0";
/// let words = [Span { start: 0, end: 1 }, Span { start: 2, end: 6 }, Span { start: 7, end: 8 }];
/// let mut w = RastroPajeWriter::new(Vec::new(), WriterOptions::default()).unwrap();
/// w.definition(&def).unwrap();
/// w.event(&Event::new(&def, 5, text, &words)).unwrap();
/// let bytes = w.finish().unwrap();
///
/// let mut seen = Vec::new();
/// read_rastro_paje(&bytes, &ReadOptions::default(), |ev| -> Result<(), ()> {
///     seen.push(ev.contents());
///     Ok(())
/// })
/// .unwrap();
/// assert_eq!(seen, ["0 Proc 0"]);
/// ```
#[derive(Debug)]
pub struct RastroPajeWriter<W: Write> {
    enc: Encoder<W>,
    strings_mode: StringMode,
    flavor: Flavor,
    by_id: HashMap<Box<[u8]>, usize>,
    plans: Vec<Plan>,
    /// The plan whose 999 is in effect for each event id.
    active: [Option<usize>; 19],
    strings: HashMap<Box<[u8]>, u16>,
    scratch: Vec<u8>,
    ranges: Vec<(usize, usize)>,
    refs: Vec<u16>,
    events: u64,
    definitions: u64,
}

fn encode_err(line: u64) -> impl FnOnce(EncodeError) -> WriteError {
    move |error| match error {
        EncodeError::Io(e) => WriteError::Io(e),
        error => WriteError::Encode { line, error },
    }
}

impl<W: Write> RastroPajeWriter<W> {
    /// A writer to `out`; writes the libRastro header event at once.
    pub fn new(out: W, opts: WriterOptions) -> Result<RastroPajeWriter<W>, WriteError> {
        let mut enc = Encoder::new(out, Layout::Timeless);
        let (id1, id2) = opts.ids;
        enc.init_event(Stamp::Timeless { time_set: true }, id1, id2, &opts.host)
            .map_err(encode_err(0))?;
        Ok(RastroPajeWriter {
            enc,
            strings_mode: opts.strings,
            flavor: opts.flavor,
            by_id: HashMap::new(),
            plans: Vec::new(),
            active: [None; 19],
            strings: HashMap::new(),
            scratch: Vec::new(),
            ranges: Vec::new(),
            refs: Vec::new(),
            events: 0,
            definitions: 0,
        })
    }

    /// Pajé events written so far.
    pub fn events(&self) -> u64 {
        self.events
    }

    /// Definitions (999 events) written so far.
    pub fn definitions(&self) -> u64 {
        self.definitions
    }

    /// Distinct strings (888 events) written so far.
    pub fn strings(&self) -> usize {
        self.strings.len()
    }

    /// Bytes produced so far.
    pub fn bytes(&self) -> u64 {
        self.enc.bytes()
    }

    /// Announces a definition at its place in the trace: its 999 event is
    /// written now. A definition already announced (same identifier) is
    /// ignored.
    pub fn definition(&mut self, def: &EventDef) -> Result<(), WriteError> {
        self.register(def).map(|_| ())
    }

    fn register(&mut self, def: &EventDef) -> Result<usize, WriteError> {
        if let Some(&i) = self.by_id.get(def.id()) {
            return Ok(i);
        }
        let i = self.plans.len();
        self.plans.push(plan(def, self.flavor));
        self.by_id.insert(def.id().into(), i);
        self.write_definition(i, def.line())?;
        Ok(i)
    }

    fn write_definition(&mut self, i: usize, line: u64) -> Result<(), WriteError> {
        let p = &self.plans[i];
        let mut w = self.enc.begin(DEFINITION_EVENT, TIMELESS);
        for &v in &p.list {
            w.u32(v);
        }
        w.finish().map_err(encode_err(line))?;
        self.active[kind_id(p.kind) as usize] = Some(i);
        self.definitions += 1;
        Ok(())
    }

    /// Writes one event (and its definition first when needed).
    pub fn event(&mut self, ev: &Event<'_>) -> Result<(), WriteError> {
        let line = ev.line();
        let i = self.register(ev.def())?;
        let id = kind_id(ev.kind());
        match self.active[id as usize] {
            Some(a) if a == i => {}
            Some(a) if self.plans[a].list == self.plans[i].list => {
                self.active[id as usize] = Some(i);
            }
            _ => self.write_definition(i, line)?,
        }
        let RastroPajeWriter {
            enc,
            strings_mode,
            plans,
            strings,
            scratch,
            ranges,
            refs,
            ..
        } = self;
        let p = &plans[i];
        scratch.clear();
        ranges.clear();
        for src in &p.strs {
            let start = scratch.len();
            let word = src.slot.map(|s| ev.word(s)).unwrap_or(b"");
            if p.poti {
                poti_word(word, src.quoted && src.slot.is_some(), scratch);
            } else {
                scratch.extend_from_slice(word);
            }
            ranges.push((start, scratch.len()));
        }
        let interned = *strings_mode == StringMode::Interned;
        if interned {
            refs.clear();
            refs.resize(ranges.len(), 0);
            for k in 0..ranges.len() {
                // paje2rst creates the references of one event last first.
                let k = if p.poti { ranges.len() - 1 - k } else { k };
                let (a, b) = ranges[k];
                refs[k] = intern(enc, strings, &scratch[a..b], line)?;
            }
        }
        let mut w = enc.begin(id, TIMELESS);
        for src in &p.f64s {
            w.f64(src.slot.map(|s| trama_num::atof(ev.word(s))).unwrap_or(0.0));
        }
        if interned {
            for &r in refs.iter() {
                w.u16(r);
            }
        } else {
            for &(a, b) in ranges.iter() {
                w.str(&scratch[a..b]);
            }
        }
        w.finish().map_err(encode_err(line))?;
        self.events += 1;
        Ok(())
    }

    /// Writes the libRastro end event, flushes, and returns the output.
    pub fn finish(mut self) -> Result<W, WriteError> {
        self.enc
            .event(EVENT_STOP, TIMELESS, &[])
            .map_err(encode_err(0))?;
        Ok(self.enc.finish()?)
    }
}

/// `paje2rst`'s word rules: a word starting with a quote loses all its
/// quotes; Poti then quotes names and colors.
fn poti_word(word: &[u8], quote: bool, out: &mut Vec<u8>) {
    if quote {
        out.push(b'"');
    }
    if word.first() == Some(&b'"') {
        out.extend(word.iter().filter(|&&c| c != b'"'));
    } else {
        out.extend_from_slice(word);
    }
    if quote {
        out.push(b'"');
    }
}

fn intern<W: Write>(
    enc: &mut Encoder<W>,
    strings: &mut HashMap<Box<[u8]>, u16>,
    s: &[u8],
    line: u64,
) -> Result<u16, WriteError> {
    if let Some(&i) = strings.get(s) {
        return Ok(i);
    }
    let Ok(i) = u16::try_from(strings.len()) else {
        return Err(WriteError::TooManyStrings { line });
    };
    let mut w = enc.begin(STRING_EVENT, TIMELESS);
    w.str(s);
    w.finish().map_err(encode_err(line))?;
    strings.insert(s.into(), i);
    Ok(i)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn poti_words() {
        let mut out = Vec::new();
        poti_word(b"HOST", true, &mut out);
        poti_word(b"\"Tremblay\"", true, &mut out);
        poti_word(b"\"a\"b\"", false, &mut out);
        poti_word(b"a\"b", false, &mut out);
        assert_eq!(out, b"\"HOST\"\"Tremblay\"aba\"b");
    }

    #[test]
    fn poti_definitions_are_the_ones_of_paje2rst() {
        let mut def = EventDef::new(EventKind::SetVariable, b"8", 1);
        for f in [Field::Time, Field::Type, Field::Container, Field::Value] {
            let ty = match f {
                Field::Time => FieldType::Date,
                Field::Value => FieldType::Double,
                _ => FieldType::String,
            };
            def.add_field(f, ty).unwrap();
        }
        let p = plan(&def, Flavor::Poti);
        assert_eq!(p.list, [13, 1, 5, 4, 0, 3, 0, 9, 2]);
        assert_eq!(p.f64s.len(), 2);
        assert_eq!(p.strs[0].slot, Some(3));
        let p = plan(&def, Flavor::Trace);
        assert_eq!(p.list, [13, 1, 5, 3, 0, 4, 0, 9, 2]);
    }
}
