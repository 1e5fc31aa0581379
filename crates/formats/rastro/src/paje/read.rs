//! The reader: libRastro events to [`trama_events::Event`] views.

use std::io::Write as _;

use trama_events::{Event, EventDef, EventKind, Field, Span};

use super::{
    class_of, field_from_code, field_type_from_code, kind_from_id, Class, DEFINITION_EVENT,
    STRING_EVENT,
};
use crate::rst::{
    detect_layout, Decoder, Layout, RstError, RstEvent, Value, EVENT_INIT, EVENT_STOP,
};

/// Options of [`read_rastro_paje`].
#[derive(Clone, Debug, Default)]
#[non_exhaustive]
pub struct ReadOptions {
    /// The libRastro layout; `None` (the default) detects it.
    pub layout: Option<Layout>,
    /// Read the two strings of PajeAddVariable events the other way round
    /// (variable type first, then container), as the `paje2rst` of 2014
    /// wrote them while its definition says Container then Type. `None`
    /// (the default): only in timed-layout files whose AddVariable
    /// definition is Poti's (`[14, 1,5, 4,0, 3,0, 9,2]`), which is what
    /// the 2014 tools wrote; files of 2015 have the order of their
    /// definition.
    pub swapped_add_variable: Option<bool>,
}

/// What a finished read saw.
#[derive(Clone, Debug)]
pub struct Stats {
    /// The libRastro layout of the file.
    pub layout: Layout,
    /// libRastro events in the file (header, definitions, strings included).
    pub rastro_events: u64,
    /// Pajé events handed to the handler.
    pub events: u64,
    /// Type-888 strings.
    pub strings: u64,
    /// Pajé events that carried string references.
    pub referencing_events: u64,
    /// Every definition (type 999), in file order.
    pub definitions: Vec<EventDef>,
    /// The two ids of the libRastro header event.
    pub ids: (u64, u64),
    /// The host name of the libRastro header event.
    pub host: Vec<u8>,
    /// Bytes of the file.
    pub bytes: u64,
}

/// What is wrong with the Pajé content of a libRastro file.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum FormatError {
    /// The first event is not the libRastro header (16383).
    #[error(
        "the file does not start with the libRastro header event (16383) but with type {found}"
    )]
    NoHeader {
        /// The type of the first event.
        found: u16,
    },
    /// A 999 event does not hold u32 values only, or none.
    #[error("an event definition (999) must hold u32 values only, found '{signature}'")]
    DefinitionValues {
        /// The value letters.
        signature: String,
    },
    /// A 999 event has an event id and an odd number of codes.
    #[error("an event definition (999) holds the event id and (field, type) pairs: {count} values is not 1 + 2n")]
    DefinitionPairs {
        /// Values found.
        count: usize,
    },
    /// A 999 event defines an id that is not a Pajé event kind.
    #[error("unknown Pajé event id {id} in an event definition (ids are 0..=18)")]
    UnknownEventId {
        /// The id.
        id: u32,
    },
    /// A field code that is not a Pajé field.
    #[error("unknown field code {code} in the definition of {kind} (codes are 1..=16)")]
    UnknownField {
        /// The kind being defined.
        kind: EventKind,
        /// The code.
        code: u32,
    },
    /// A field type code that is not a Pajé field type.
    #[error(
        "unknown type code {code} for field {field} in the definition of {kind} (codes are 0..=6)"
    )]
    UnknownFieldType {
        /// The kind being defined.
        kind: EventKind,
        /// The field.
        field: Field,
        /// The code.
        code: u32,
    },
    /// A standard field appears twice in a definition.
    #[error("field {field} appears twice in the definition of {kind}")]
    DuplicateField {
        /// The kind being defined.
        kind: EventKind,
        /// The field.
        field: Field,
    },
    /// A definition lacks obligatory fields.
    #[error(
        "the definition of {kind} lacks the obligatory field(s) {}",
        names(missing)
    )]
    MissingFields {
        /// The kind being defined.
        kind: EventKind,
        /// The fields it lacks.
        missing: Vec<Field>,
    },
    /// A 888 event does not hold exactly one string.
    #[error("a string event (888) must hold exactly one string, found '{signature}'")]
    StringValues {
        /// The value letters.
        signature: String,
    },
    /// An event type no 999 defined before it.
    #[error("event type {type_id} has not been defined by an event definition (999) before it")]
    Undefined {
        /// The rastro type.
        type_id: u16,
    },
    /// The values of an event do not match its definition.
    #[error("{kind} (defined at rastro event {def_event}) expects {expected}, found '{found}'")]
    Values {
        /// The kind.
        kind: EventKind,
        /// Rastro event number of the definition in effect.
        def_event: u64,
        /// What the definition expects, e.g. `2 f64, 2 strings or u16 string references`.
        expected: String,
        /// The value letters found.
        found: String,
    },
    /// A string reference beyond the strings read so far.
    #[error("string reference {index} but only {count} strings (888) precede this event")]
    StringRef {
        /// The index.
        index: u16,
        /// Strings defined so far.
        count: usize,
    },
    /// The text of one event does not fit in 4 GiB.
    #[error("the event's text does not fit in 4 GiB")]
    TooLarge,
}

fn names(fields: &[Field]) -> String {
    fields
        .iter()
        .map(|f| f.name())
        .collect::<Vec<_>>()
        .join(", ")
}

/// An error while reading: invalid libRastro data, invalid Pajé content
/// (with the rastro event number and byte offset), or the handler's error.
#[derive(Debug, thiserror::Error)]
pub enum Error<E> {
    /// The bytes are not valid libRastro.
    #[error(transparent)]
    Rst(#[from] RstError),
    /// The Pajé content is invalid.
    #[error("rastro event {event} (byte {offset}): {error}")]
    Format {
        /// 1-based rastro event number.
        event: u64,
        /// Byte offset of the event.
        offset: usize,
        /// What is wrong.
        error: FormatError,
    },
    /// The handler rejected an event.
    #[error("{0}")]
    Handler(E),
}

impl<E> Error<E> {
    /// Byte offset of the problem, when the data is at fault.
    pub fn offset(&self) -> Option<usize> {
        match self {
            Error::Rst(e) => Some(e.offset),
            Error::Format { offset, .. } => Some(*offset),
            Error::Handler(_) => None,
        }
    }

    /// Rastro event number of the problem, when the data is at fault.
    pub fn event(&self) -> Option<u64> {
        match self {
            Error::Rst(e) => Some(e.event),
            Error::Format { event, .. } => Some(*event),
            Error::Handler(_) => None,
        }
    }
}

/// A definition and how its values are found in an event.
struct Def {
    def: EventDef,
    /// Class of each field after the event id.
    classes: Vec<Class>,
    /// For the k-th string field, the position of its string in the event.
    str_order: Vec<usize>,
    n_f64: usize,
    n_u32: usize,
    n_str: usize,
}

impl Def {
    fn expected(&self) -> String {
        let mut parts = Vec::new();
        if self.n_f64 > 0 {
            parts.push(format!("{} f64 (d)", self.n_f64));
        }
        if self.n_u32 > 0 {
            parts.push(format!("{} u32 (i)", self.n_u32));
        }
        if self.n_str > 0 {
            parts.push(format!(
                "{} strings (s) or as many u16 string references (w)",
                self.n_str
            ));
        }
        if parts.is_empty() {
            "no values".to_string()
        } else {
            parts.join(", ")
        }
    }
}

fn format_err<E>(ev: &RstEvent<'_, '_>, error: FormatError) -> Error<E> {
    Error::Format {
        event: ev.number,
        offset: ev.offset,
        error,
    }
}

/// Poti's definition of PajeAddVariable.
const POTI_ADD_VARIABLE: [u32; 9] = [14, 1, 5, 4, 0, 3, 0, 9, 2];

fn definition(ev: &RstEvent<'_, '_>, swap_add: Option<bool>) -> Result<Def, FormatError> {
    let mut codes = Vec::with_capacity(ev.values.len());
    for v in ev.values {
        match v {
            Value::U32(c) => codes.push(*c),
            _ => {
                return Err(FormatError::DefinitionValues {
                    signature: ev.signature(),
                })
            }
        }
    }
    if codes.len() % 2 != 1 {
        if codes.is_empty() {
            return Err(FormatError::DefinitionValues {
                signature: ev.signature(),
            });
        }
        return Err(FormatError::DefinitionPairs { count: codes.len() });
    }
    let id = codes[0];
    let kind = kind_from_id(id).ok_or(FormatError::UnknownEventId { id })?;
    let mut def = EventDef::new(kind, id.to_string().as_bytes(), ev.number);
    let mut classes = Vec::with_capacity(codes.len() / 2);
    let (mut n_f64, mut n_u32, mut n_str) = (0, 0, 0);
    let mut extras = 0;
    for pair in codes[1..].chunks_exact(2) {
        let field = match field_from_code(pair[0]) {
            Some(Field::Event) | None => {
                return Err(FormatError::UnknownField {
                    kind,
                    code: pair[0],
                })
            }
            Some(f) => f,
        };
        let ty = field_type_from_code(pair[1]).ok_or(FormatError::UnknownFieldType {
            kind,
            field,
            code: pair[1],
        })?;
        if field == Field::Extra {
            extras += 1;
            def.add_extra(&format!("Extra{extras}"), ty);
        } else {
            def.add_field(field, ty)
                .map_err(|_| FormatError::DuplicateField { kind, field })?;
        }
        let class = class_of(ty);
        match class {
            Class::F64 => n_f64 += 1,
            Class::U32 => n_u32 += 1,
            Class::Str => n_str += 1,
        }
        classes.push(class);
    }
    let missing = def.missing_fields();
    if !missing.is_empty() {
        return Err(FormatError::MissingFields { kind, missing });
    }
    let mut str_order: Vec<usize> = (0..n_str).collect();
    let swap = match swap_add {
        Some(on) => on && kind == EventKind::AddVariable,
        None => codes == POTI_ADD_VARIABLE && ev.stamp.layout() == Layout::Timed,
    };
    if swap {
        let string_fields: Vec<Field> = def.fields()[1..]
            .iter()
            .zip(&classes)
            .filter(|(_, c)| **c == Class::Str)
            .map(|((f, _), _)| *f)
            .collect();
        let at = |f| string_fields.iter().position(|x| *x == f);
        if let (Some(c), Some(t)) = (at(Field::Container), at(Field::Type)) {
            str_order.swap(c, t);
        }
    }
    Ok(Def {
        def,
        classes,
        str_order,
        n_f64,
        n_u32,
        n_str,
    })
}

/// Appends the shortest text that `strtod` reads back as `v` (e.g.
/// `0.171358`, `98095000.0`, `6e-5`).
fn push_f64(buf: &mut Vec<u8>, v: f64) {
    buf.extend_from_slice(zmij::Buffer::new().format(v).as_bytes());
}

/// Reusable buffers of one event.
#[derive(Default)]
struct Scratch<'a> {
    f64s: Vec<f64>,
    u32s: Vec<u32>,
    strs: Vec<&'a [u8]>,
    refs: Vec<u16>,
    text: Vec<u8>,
    words: Vec<Span>,
}

/// Reads a binary Pajé trace (libRastro, timed or timeless layout, strings
/// inline or referenced) and calls `handler` with every Pajé event, in
/// file order. Definitions, strings and the libRastro header and end events
/// are consumed here. Stops at the first error.
pub fn read_rastro_paje<E, F>(
    data: &[u8],
    opts: &ReadOptions,
    mut handler: F,
) -> Result<Stats, Error<E>>
where
    F: FnMut(Event<'_>) -> Result<(), E>,
{
    let layout = match opts.layout {
        Some(l) => l,
        None => detect_layout(data)?,
    };
    let mut dec = Decoder::new(data, layout);
    let mut defs: Vec<Def> = Vec::new();
    let mut active: [Option<usize>; 19] = [None; 19];
    let mut strings: Vec<&[u8]> = Vec::new();
    let mut s = Scratch::default();
    let mut stats = Stats {
        layout,
        rastro_events: 0,
        events: 0,
        strings: 0,
        referencing_events: 0,
        definitions: Vec::new(),
        ids: (0, 0),
        host: Vec::new(),
        bytes: data.len() as u64,
    };
    while let Some(ev) = dec.next_event()? {
        stats.rastro_events = ev.number;
        if ev.number == 1 {
            if ev.type_id != EVENT_INIT {
                return Err(format_err(&ev, FormatError::NoHeader { found: ev.type_id }));
            }
            if let Some((a, b, host)) = ev.init_info() {
                stats.ids = (a, b);
                stats.host = host.to_vec();
            }
            continue;
        }
        match ev.type_id {
            EVENT_INIT | EVENT_STOP => {}
            DEFINITION_EVENT => {
                let mut d =
                    definition(&ev, opts.swapped_add_variable).map_err(|e| format_err(&ev, e))?;
                // Definitions are numbered in declaration order, as the text
                // reader numbers them.
                d.def.set_index(defs.len() as u32);
                let id = super::kind_id(d.def.kind()) as usize;
                active[id] = Some(defs.len());
                defs.push(d);
            }
            STRING_EVENT => match *ev.values {
                [Value::Str(text)] => {
                    strings.push(text);
                    stats.strings += 1;
                }
                _ => {
                    return Err(format_err(
                        &ev,
                        FormatError::StringValues {
                            signature: ev.signature(),
                        },
                    ))
                }
            },
            t => {
                let Some(d) = active.get(t as usize).copied().flatten().map(|i| &defs[i]) else {
                    return Err(format_err(&ev, FormatError::Undefined { type_id: t }));
                };
                let refs = event_words(&ev, d, &strings, &mut s)?;
                stats.events += 1;
                stats.referencing_events += refs as u64;
                handler(Event::new(&d.def, ev.number, &s.text, &s.words))
                    .map_err(Error::Handler)?;
            }
        }
    }
    stats.definitions = defs.into_iter().map(|d| d.def).collect();
    Ok(stats)
}

/// Fills `s.text` and `s.words` with the words of a Pajé event; returns
/// whether it used string references.
fn event_words<'a, E>(
    ev: &RstEvent<'_, 'a>,
    d: &Def,
    strings: &[&'a [u8]],
    s: &mut Scratch<'a>,
) -> Result<bool, Error<E>> {
    s.f64s.clear();
    s.u32s.clear();
    s.strs.clear();
    s.refs.clear();
    let mut other = false;
    for v in ev.values {
        match *v {
            Value::F64(x) => s.f64s.push(x),
            Value::U32(x) => s.u32s.push(x),
            Value::Str(x) => s.strs.push(x),
            Value::U16(x) => s.refs.push(x),
            Value::F32(_) | Value::U64(_) | Value::U8(_) => other = true,
        }
    }
    let refs = !s.refs.is_empty();
    let strings_ok = if refs {
        s.strs.is_empty() && s.refs.len() == d.n_str
    } else {
        s.strs.len() == d.n_str
    };
    if other || !strings_ok || s.f64s.len() != d.n_f64 || s.u32s.len() != d.n_u32 {
        return Err(format_err(
            ev,
            FormatError::Values {
                kind: d.def.kind(),
                def_event: d.def.line(),
                expected: d.expected(),
                found: ev.signature(),
            },
        ));
    }
    s.text.clear();
    s.words.clear();
    let (mut fi, mut ui, mut si) = (0, 0, 0);
    let mut start = 0usize;
    s.text.extend_from_slice(d.def.id());
    let push_word = |text: &Vec<u8>, words: &mut Vec<Span>, start: &mut usize| {
        let end = text.len();
        let span = match (u32::try_from(*start), u32::try_from(end)) {
            (Ok(a), Ok(b)) => Span { start: a, end: b },
            _ => return Err(format_err(ev, FormatError::TooLarge)),
        };
        words.push(span);
        *start = end;
        Ok(())
    };
    push_word(&s.text, &mut s.words, &mut start)?;
    for class in &d.classes {
        match class {
            Class::F64 => {
                push_f64(&mut s.text, s.f64s[fi]);
                fi += 1;
            }
            Class::U32 => {
                let _ = write!(s.text, "{}", s.u32s[ui] as i32);
                ui += 1;
            }
            Class::Str => {
                let k = d.str_order[si];
                let text = if refs {
                    let index = s.refs[k];
                    match strings.get(index as usize) {
                        Some(t) => *t,
                        None => {
                            return Err(format_err(
                                ev,
                                FormatError::StringRef {
                                    index,
                                    count: strings.len(),
                                },
                            ))
                        }
                    }
                } else {
                    s.strs[k]
                };
                s.text.extend_from_slice(text);
                si += 1;
            }
        }
        push_word(&s.text, &mut s.words, &mut start)?;
    }
    Ok(refs)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_print_so_that_strtod_reads_them_back() {
        for v in [
            0.0,
            -0.0,
            4.485137,
            98095000.0,
            6e-05,
            1e-7,
            0.1 + 0.2,
            1e300,
            -2.5e-300,
            f64::MIN_POSITIVE,
            5e-324,
            123456789012345680.0,
            f64::INFINITY,
        ] {
            let mut b = Vec::new();
            push_f64(&mut b, v);
            let back = trama_num::atof(&b);
            assert_eq!(
                back.to_bits(),
                v.to_bits(),
                "{v} -> {}",
                String::from_utf8_lossy(&b)
            );
        }
        let mut b = Vec::new();
        push_f64(&mut b, 0.171358);
        assert_eq!(b, b"0.171358");
    }
}
