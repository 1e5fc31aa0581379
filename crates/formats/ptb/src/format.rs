//! Constants and small pieces shared by the writer and the reader.

use trama_events::{EventDef, EventKind, Field, FieldType};

use crate::varint::{self, Cursor};

/// First eight bytes of every file.
pub const MAGIC: [u8; 8] = [0x89, b'P', b'T', b'B', 0x0d, 0x0a, 0x1a, 0x0a];
/// Last eight bytes of every file.
pub(crate) const END_MAGIC: [u8; 8] = [0x89, b'P', b'T', b'B', b'E', b'N', b'D', 0x0a];
/// The version this crate writes (and the newest it reads).
pub const VERSION: u16 = 5;
/// The oldest version this crate reads: version 4, whose frame checksums
/// cover the payload only.
pub const OLDEST_VERSION: u16 = 4;
pub(crate) const HEADER_LEN: usize = 16;
pub(crate) const FRAME_HEADER_LEN: usize = 16;
pub(crate) const TRAILER_LEN: usize = 16;

pub(crate) const FLAG_INTERNED: u16 = 1;
pub(crate) const FLAG_STRIPPED: u16 = 2;
/// Variable values are read exactly (`strtod`), not as `strtof` reads
/// Pajé text.
pub(crate) const FLAG_EXACT_VALUES: u16 = 4;

pub(crate) const KIND_STRINGS: u8 = 1;
pub(crate) const KIND_EVENTS: u8 = 2;
pub(crate) const KIND_FOOTER: u8 = 3;
pub(crate) const KIND_KEYFRAME: u8 = 4;
pub(crate) const KIND_MODEL: u8 = 5;
/// The summary a viewer reads of the whole trace, after the footer (see
/// the format's specification, "Summary frame").
pub(crate) const KIND_SUMMARY: u8 = 6;

pub(crate) const CODEC_NONE: u8 = 0;
pub(crate) const CODEC_ZSTD: u8 = 1;
/// A zstd frame (its length first) followed by the payload's tail stored
/// as is.
pub(crate) const CODEC_SPLIT: u8 = 2;

/// Number of columns of an events frame.
pub(crate) const NCOLS: usize = 9;
pub(crate) const ORDER: usize = 0;
pub(crate) const LINES: usize = 1;
pub(crate) const STREAMS: usize = 2;
pub(crate) const TIMES: usize = 3;
pub(crate) const NUMS: usize = 4;
pub(crate) const HANDLES: usize = 5;
pub(crate) const STRS: usize = 6;
pub(crate) const KEYS: usize = 7;
pub(crate) const LINKS: usize = 8;

/// The columns stored run by run, in the order of a run's lengths in the
/// frame header (`STREAMS` and `HANDLES` count values, the others bytes).
pub(crate) const RUN_COLS: [usize; 7] = [STREAMS, HANDLES, TIMES, NUMS, STRS, KEYS, LINKS];

/// The columns in the order they are stored in an events frame: `TIMES`
/// last, so that a writer may leave it uncompressed ([`CODEC_SPLIT`]).
pub(crate) const STORED_COLS: [usize; NCOLS] = [
    ORDER, LINES, STREAMS, NUMS, HANDLES, STRS, KEYS, LINKS, TIMES,
];

/// The names of the columns, for messages.
pub(crate) const COLUMN_NAMES: [&str; NCOLS] = [
    "ORDER", "LINES", "STREAMS", "TIMES", "NUMS", "HANDLES", "STRS", "KEYS", "LINKS",
];

/// Events frame flag: no model record takes effect in the frame, so its
/// runs can be simulated one after the other.
pub(crate) const FRAME_GROUPED: u64 = 1;
/// Events frame flag (grouped frames only): every event is timed, the
/// times of each run never decrease, and trace order is the merge of the
/// runs by time: `ORDER` holds only how ties between runs go (the tie
/// list, see `put_ties`).
pub(crate) const FRAME_MERGED: u64 = 2;

/// Scale byte of a time stored as text.
pub(crate) const TIME_TEXT: u8 = 255;
/// Low bits of a number stored as text.
pub(crate) const NUM_TEXT: u64 = 31;

pub(crate) const EXTRA_FIELD: u8 = 255;

const FIELD_TYPES: [FieldType; 7] = [
    FieldType::String,
    FieldType::Float,
    FieldType::Double,
    FieldType::Int,
    FieldType::Hex,
    FieldType::Date,
    FieldType::Color,
];

/// How an entity event's field is stored.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Role {
    Time,
    Container,
    Type,
    Value,
    Number,
    Other,
    Key,
    Str,
}

/// Is `kind` an entity event (stored in events frames; other events are
/// model records)?
pub(crate) fn is_entity(kind: EventKind) -> bool {
    trama_sim::replay::is_entity_kind(kind)
}

/// Most words of an event line, its identifier included (PajeNG's
/// `PAJE_MAX_FIELDS`): a text reader refuses longer lines, so no stored
/// entity event has more.
pub(crate) const MAX_WORDS: usize = 20;

/// Records of model frames.
pub(crate) const REC_EVENT: u8 = 0;
pub(crate) const REC_VALUE: u8 = 1;
pub(crate) const REC_STREAM: u8 = 2;

/// The code of a user-defined field's name in keyframes: odd numbers, from
/// the definition's index and the field's rank among its user fields.
#[inline]
pub(crate) fn name_code(def: u32, k: usize) -> u32 {
    ((def << 5 | k as u32) << 1) | 1
}

/// The code of a string of the table (a user-defined field's value).
#[inline]
pub(crate) fn string_code(id: u32) -> u32 {
    id << 1
}

/// The role of `field` in an event of `kind`, with handles or not.
pub(crate) fn role(kind: EventKind, field: Field, handles: bool) -> Role {
    if field == Field::Time {
        return Role::Time;
    }
    if !handles {
        return Role::Str;
    }
    let variable = matches!(
        kind,
        EventKind::SetVariable | EventKind::AddVariable | EventKind::SubVariable
    );
    let link = matches!(kind, EventKind::StartLink | EventKind::EndLink);
    match field {
        Field::Container => Role::Container,
        Field::Type => Role::Type,
        Field::Value if variable => Role::Number,
        Field::Value if !matches!(kind, EventKind::PopState | EventKind::ResetState) => Role::Value,
        Field::StartContainer if kind == EventKind::StartLink => Role::Other,
        Field::EndContainer if kind == EventKind::EndLink => Role::Other,
        Field::Key if link => Role::Key,
        _ => Role::Str,
    }
}

/// Appends the footer form of a definition.
pub(crate) fn put_def(out: &mut Vec<u8>, def: &EventDef) {
    out.push(def.kind() as u8);
    varint::put_bytes(out, def.id());
    varint::put(out, def.line());
    let fields = &def.fields()[1..];
    varint::put(out, fields.len() as u64);
    let mut extra = 0;
    for &(f, t) in fields {
        let ty = FIELD_TYPES.iter().position(|x| *x == t).unwrap_or(0) as u8;
        if f == Field::Extra {
            out.push(EXTRA_FIELD);
            out.push(ty);
            varint::put_bytes(out, def.extra_names()[extra].as_bytes());
            extra += 1;
        } else {
            out.push(f as u8);
            out.push(ty);
        }
    }
}

/// Reads a definition written by [`put_def`]; `None` when malformed.
pub(crate) fn get_def(c: &mut Cursor<'_>, index: u32) -> Option<EventDef> {
    let kind = *EventKind::ALL.get(c.byte()? as usize)?;
    let id = c.bytes()?;
    let line = c.varint()?;
    let mut def = EventDef::new(kind, id, line);
    def.set_index(index);
    let n = c.varint()?;
    if n > 64 {
        return None;
    }
    for _ in 0..n {
        let f = c.byte()?;
        let t = *FIELD_TYPES.get(c.byte()? as usize)?;
        if f == EXTRA_FIELD {
            let name = std::str::from_utf8(c.bytes()?).ok()?;
            def.add_extra(name, t);
        } else {
            let field = *Field::KNOWN.iter().find(|k| **k as u8 == f)?;
            if field == Field::Event {
                return None;
            }
            def.add_field(field, t).ok()?;
        }
    }
    Some(def)
}

/// One index entry.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Frame {
    pub kind: u8,
    pub offset: u64,
    pub count: u64,
    pub first: u64,
    pub t_min: f64,
    pub t_max: f64,
    /// Events frames: the earliest start of the entities open at its end.
    pub open_min: f64,
}
