//! Pajé traces stored as libRastro events: the binary format of Poti's
//! `paje2rst` and of the 2015 rastro reader of PajeNG (Herbstrith/poti,
//! Herbstrith/pajeng).
//!
//! # Events
//!
//! Every Pajé record is one libRastro event (see [`crate::rst`] for the
//! byte layout); files written in 2014 use the timed layout, those of 2015
//! the timeless one, and the Pajé content is the same in both (the
//! libRastro time stamps are not Pajé times and are ignored).
//!
//! | rastro type | values | meaning |
//! |---|---|---|
//! | 16383 | `l l s` | libRastro header: two ids and a host name |
//! | 999 | `i…` | event definition: `[event id, (field, field type)*]` |
//! | 888 | `s` | one string for references (see below) |
//! | 0..=18 | typed values | a Pajé event of that [`event id`](kind_id) |
//! | 16382 | — | libRastro end |
//!
//! The event id of a definition is the Pajé event kind itself (PajeNG's
//! `PajeEventId`), so a file has at most one layout per kind at a time; a
//! later 999 of the same id replaces the earlier one for the events that
//! follow it. The codes (PajeNG's `PajeEnum.h`):
//!
//! | id | kind | | code | field | | code | field type |
//! |---|---|---|---|---|---|---|---|
//! | 0 | DefineContainerType | | 1 | Time | | 0 | string |
//! | 1 | DefineEventType | | 2 | Name | | 1 | float |
//! | 2 | DefineStateType | | 3 | Type | | 2 | double |
//! | 3 | DefineVariableType | | 4 | Container | | 3 | int |
//! | 4 | DefineLinkType | | 5 | StartContainerType | | 4 | hex |
//! | 5 | DefineEntityValue | | 6 | EndContainerType | | 5 | date |
//! | 6 | CreateContainer | | 7 | StartContainer | | 6 | color |
//! | 7 | DestroyContainer | | 8 | EndContainer | | | |
//! | 8 | NewEvent | | 9 | Value | | | |
//! | 9 | SetState | | 10 | Key | | | |
//! | 10 | PushState | | 11 | Alias | | | |
//! | 11 | PopState | | 12 | Color | | | |
//! | 12 | ResetState | | 13 | Line | | | |
//! | 13 | SetVariable | | 14 | File | | | |
//! | 14 | AddVariable | | 15 | Filename | | | |
//! | 15 | SubVariable | | 16 | user-defined (no name) | | | |
//! | 16 | StartLink | | | | | | |
//! | 17 | EndLink | | | | | | |
//! | 18 | TraceFile | | | | | | |
//!
//! (Field code 0 is the event id itself and never appears in a definition.)
//! For example `999 [0, 11,0, 3,0, 2,0]` defines PajeDefineContainerType
//! with Alias, Type and Name, all strings.
//!
//! A Pajé event holds its fields grouped by value type, as libRastro's
//! generated functions write them (`d` first, then `i`, `w`, `s`); within
//! a group the fields keep the order of the definition:
//!
//! | field types | value |
//! |---|---|
//! | date, double, float | `d` (f64) |
//! | int | `i` (u32, read as a C `int`) |
//! | string, color, hex | `s`, or `w` with string references |
//!
//! So the SetVariable definition `[13, 1,5, 4,0, 3,0, 9,2]` (Time date,
//! Container, Type, Value double) gives events `d d s s`: Time, Value,
//! Container, Type.
//!
//! # String references
//!
//! In the *referencing* mode every distinct string is written once, as a
//! type-888 event holding that string, before the first event using it; its
//! index is its rank among the 888 events of the file, from 0. Pajé events
//! then carry `u16` indexes (`w`) in place of their strings, so at most
//! 65536 distinct strings fit in a file. The reader accepts either form for
//! each event (strings inline, or all of them as references).
//!
//! # Reading
//!
//! [`read_rastro_paje`] hands the simulator the same [`trama_events::Event`]
//! views the text reader produces: the words are the text form of each
//! field (strings as stored, `f64` in the shortest form that reads back to
//! the same value, ints in decimal), so numbers go through the simulator's
//! parsers exactly as text does. [`trama_events::Event::line`] is the
//! 1-based number of the libRastro event. [`is_rastro`] recognizes the
//! format from its first bytes.
//!
//! The `paje2rst` of 2014 (timed layout) wrote the two strings of
//! PajeAddVariable as (Type, Container) although its definition says
//! (Container, Type); SetVariable and SubVariable follow their definition.
//! The reader swaps them back for timed files with Poti's AddVariable
//! definition (see [`ReadOptions::swapped_add_variable`]); the 2015 files
//! follow their definition.
//!
//! # Writing
//!
//! [`RastroPajeWriter`] writes the timeless layout in either string mode
//! ([`StringMode`]), with one of two [`Flavor`]s:
//!
//! * [`Flavor::Trace`] keeps each definition of the trace (field order,
//!   user-defined fields) and every value. Times and variable values are
//!   stored as `f64` (`strtod` of the text, as PajeNG reads them); every
//!   other field is stored as its string, and its declared type becomes
//!   `string` when it was a number type. The names of user-defined fields
//!   are not part of the format; the reader calls them `Extra1`, `Extra2`, ….
//!   A definition is written (again) before the first event that uses it
//!   while another definition of the same kind was in effect.
//! * [`Flavor::Poti`] writes what `paje2rst` writes: Poti's own definition
//!   of each kind (its field order and field set: user-defined fields and
//!   the Color of PajeDefineEventType are dropped), one 999 per definition
//!   of the trace, the values of each event in the order of Poti's
//!   functions, quotes removed from words that start with `"` and added
//!   around the Name (and Color) of definition events and the Name of
//!   PajeCreateContainer, and, with string references, the 888 events in
//!   the order `paje2rst` creates them (the strings of one event from the
//!   last to the first, as C evaluates function arguments). The output for
//!   Poti-generated traces is byte-identical to `paje2rst`'s.
//!   PajeResetState is written as its 999 declares it (Type, then
//!   Container); PajeTraceFile, which Poti lacks, is written as in
//!   [`Flavor::Trace`].

mod read;
mod write;

pub use read::{read_rastro_paje, Error, FormatError, ReadOptions, Stats};
pub use write::{Flavor, RastroPajeWriter, StringMode, WriteError, WriterOptions};

use trama_events::{EventKind, Field, FieldType};

/// Rastro type of event definitions.
pub const DEFINITION_EVENT: u16 = 999;
/// Rastro type of referenced strings.
pub const STRING_EVENT: u16 = 888;

/// PajeNG's `PajeEventId` order: the kind of each event id (the inverse
/// of [`kind_id`]).
pub const KINDS_BY_ID: [EventKind; 19] = {
    let mut by_id = [EventKind::TraceFile; 19];
    let mut i = 0;
    while i < EventKind::ALL.len() {
        let kind = EventKind::ALL[i];
        by_id[kind_id(kind) as usize] = kind;
        i += 1;
    }
    by_id
};

/// The event id (PajeNG's `PajeEventId`) of a kind.
pub const fn kind_id(kind: EventKind) -> u16 {
    match kind {
        EventKind::DefineContainerType => 0,
        EventKind::DefineEventType => 1,
        EventKind::DefineStateType => 2,
        EventKind::DefineVariableType => 3,
        EventKind::DefineLinkType => 4,
        EventKind::DefineEntityValue => 5,
        EventKind::CreateContainer => 6,
        EventKind::DestroyContainer => 7,
        EventKind::NewEvent => 8,
        EventKind::SetState => 9,
        EventKind::PushState => 10,
        EventKind::PopState => 11,
        EventKind::ResetState => 12,
        EventKind::SetVariable => 13,
        EventKind::AddVariable => 14,
        EventKind::SubVariable => 15,
        EventKind::StartLink => 16,
        EventKind::EndLink => 17,
        EventKind::TraceFile => 18,
    }
}

/// The kind of an event id.
pub fn kind_from_id(id: u32) -> Option<EventKind> {
    KINDS_BY_ID.get(id as usize).copied()
}

/// The code of a field (PajeNG's `PajeField`); [`Field::Extra`] is 16.
pub fn field_code(field: Field) -> u32 {
    match field {
        Field::Event => 0,
        Field::Time => 1,
        Field::Name => 2,
        Field::Type => 3,
        Field::Container => 4,
        Field::StartContainerType => 5,
        Field::EndContainerType => 6,
        Field::StartContainer => 7,
        Field::EndContainer => 8,
        Field::Value => 9,
        Field::Key => 10,
        Field::Alias => 11,
        Field::Color => 12,
        Field::Line => 13,
        Field::File => 14,
        Field::Filename => 15,
        Field::Extra => 16,
    }
}

/// The field of a code.
pub fn field_from_code(code: u32) -> Option<Field> {
    Some(match code {
        0 => Field::Event,
        1 => Field::Time,
        2 => Field::Name,
        3 => Field::Type,
        4 => Field::Container,
        5 => Field::StartContainerType,
        6 => Field::EndContainerType,
        7 => Field::StartContainer,
        8 => Field::EndContainer,
        9 => Field::Value,
        10 => Field::Key,
        11 => Field::Alias,
        12 => Field::Color,
        13 => Field::Line,
        14 => Field::File,
        15 => Field::Filename,
        16 => Field::Extra,
        _ => return None,
    })
}

/// The code of a field type (PajeNG's `PajeFieldType`).
pub fn field_type_code(ty: FieldType) -> u32 {
    match ty {
        FieldType::String => 0,
        FieldType::Float => 1,
        FieldType::Double => 2,
        FieldType::Int => 3,
        FieldType::Hex => 4,
        FieldType::Date => 5,
        FieldType::Color => 6,
    }
}

/// The field type of a code.
pub fn field_type_from_code(code: u32) -> Option<FieldType> {
    Some(match code {
        0 => FieldType::String,
        1 => FieldType::Float,
        2 => FieldType::Double,
        3 => FieldType::Int,
        4 => FieldType::Hex,
        5 => FieldType::Date,
        6 => FieldType::Color,
        _ => return None,
    })
}

/// How a field's value is stored in an event.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Class {
    /// `d`
    F64,
    /// `i`
    U32,
    /// `s` or a `w` reference
    Str,
}

pub(crate) fn class_of(ty: FieldType) -> Class {
    match ty {
        FieldType::Date | FieldType::Double | FieldType::Float => Class::F64,
        FieldType::Int => Class::U32,
        FieldType::String | FieldType::Color | FieldType::Hex => Class::Str,
    }
}

/// Does `prefix` (the first bytes of a file, at least 4) start like a
/// libRastro trace? True when the first `u32` (little-endian) has the type
/// of the libRastro header event, 16383.
pub fn is_rastro(prefix: &[u8]) -> bool {
    match prefix.get(..4) {
        Some(b) => u32::from_le_bytes([b[0], b[1], b[2], b[3]]) >> 18 == 16383,
        None => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn enumerations_round_trip() {
        for (i, k) in KINDS_BY_ID.iter().enumerate() {
            assert_eq!(kind_id(*k) as usize, i);
            assert_eq!(kind_from_id(i as u32), Some(*k));
        }
        assert_eq!(kind_from_id(19), None);
        for c in 0..=16 {
            assert_eq!(field_code(field_from_code(c).unwrap()), c);
        }
        assert_eq!(field_from_code(17), None);
        for c in 0..=6 {
            assert_eq!(field_type_code(field_type_from_code(c).unwrap()), c);
        }
        assert_eq!(field_type_from_code(7), None);
    }

    #[test]
    fn detection_by_prefix() {
        assert!(is_rastro(&[0x10, 0x44, 0xff, 0xff, 0, 0]));
        assert!(!is_rastro(b"%EventDef"));
        assert!(!is_rastro(&[0xff, 0xff]));
        assert!(!is_rastro(&[0, 0, 0xfc, 0x7f]));
    }
}
