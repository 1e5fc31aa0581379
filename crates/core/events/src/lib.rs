//! The Pajé event model shared by every trace reader and by the simulator.
//!
//! A Pajé trace is a sequence of *events*. Each event line starts with an
//! event identifier that refers to an *event definition*, declared in the
//! trace itself:
//!
//! ```text
//! %EventDef PajeSetState 10
//! %  Time date
//! %  Container string
//! %  Type string
//! %  Value string
//! %EndEventDef
//! 10 0.5 p1 S Running
//! ```
//!
//! An [`EventDef`] records which [`Field`] sits at which position of the
//! line, so that readers can hand the simulator an [`Event`]: a borrowed view
//! that answers "what is the `Container` of this event?" without copying.
//! The first position of every definition is the event identifier itself
//! (field [`Field::Event`]), exactly as PajeNG counts fields.
//!
//! Field names unknown to the format (for example `Tag` or `Size`) are kept as
//! user-defined *extra* fields ([`Field::Extra`]) with their names, so that a
//! dump can show them.
#![deny(missing_docs)]

mod message;

pub use message::{shorten, LONGEST_WORD};

use std::fmt;

/// How a trace writer stores strings (every binary format has both
/// modes; each picks its own default).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum StringMode {
    /// Every field as its text, in every event.
    Plain,
    /// Each distinct string stored once and referred to (a `.ptb` file
    /// also refers to types, containers and values by handle; a libRastro
    /// file holds at most 65536 distinct strings).
    Interned,
}

/// Declares [`EventKind`], [`EventKind::ALL`] and [`EventKind::name`]
/// from one list of the kinds with their `%EventDef` names.
macro_rules! event_kinds {
    ($($kind:ident => $name:literal,)*) => {
        /// The 19 kinds of Pajé events (format 1.3.1 as read by PajeNG).
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
        #[repr(u8)]
        pub enum EventKind {
            $(
                #[doc = concat!("`", $name, "`")]
                $kind,
            )*
        }

        impl EventKind {
            /// Every kind, in declaration order.
            pub const ALL: [EventKind; 19] = [$(EventKind::$kind),*];

            /// The name used in `%EventDef` lines, e.g. `PajeSetState`.
            pub fn name(self) -> &'static str {
                match self {
                    $(EventKind::$kind => $name,)*
                }
            }
        }
    };
}

event_kinds! {
    DefineContainerType => "PajeDefineContainerType",
    DefineVariableType => "PajeDefineVariableType",
    DefineStateType => "PajeDefineStateType",
    DefineEventType => "PajeDefineEventType",
    DefineLinkType => "PajeDefineLinkType",
    DefineEntityValue => "PajeDefineEntityValue",
    CreateContainer => "PajeCreateContainer",
    DestroyContainer => "PajeDestroyContainer",
    SetState => "PajeSetState",
    PushState => "PajePushState",
    PopState => "PajePopState",
    ResetState => "PajeResetState",
    NewEvent => "PajeNewEvent",
    SetVariable => "PajeSetVariable",
    AddVariable => "PajeAddVariable",
    SubVariable => "PajeSubVariable",
    StartLink => "PajeStartLink",
    EndLink => "PajeEndLink",
    TraceFile => "PajeTraceFile",
}

impl EventKind {
    /// Looks a kind up by its `%EventDef` name.
    pub fn from_name(name: &[u8]) -> Option<EventKind> {
        EventKind::ALL
            .iter()
            .copied()
            .find(|k| k.name().as_bytes() == name)
    }

    /// Fields a definition of this kind must declare (besides [`Field::Event`]).
    pub fn obligatory_fields(self) -> &'static [Field] {
        use Field::*;
        match self {
            EventKind::DefineContainerType
            | EventKind::DefineEventType
            | EventKind::DefineStateType
            | EventKind::DefineVariableType
            | EventKind::DefineEntityValue => &[Name, Type],
            EventKind::DefineLinkType => &[Name, Type, StartContainerType, EndContainerType],
            EventKind::CreateContainer => &[Time, Name, Type, Container],
            EventKind::DestroyContainer => &[Time, Name, Type],
            EventKind::NewEvent
            | EventKind::SetState
            | EventKind::PushState
            | EventKind::SetVariable
            | EventKind::AddVariable
            | EventKind::SubVariable => &[Time, Type, Container, Value],
            EventKind::PopState | EventKind::ResetState => &[Time, Type, Container],
            EventKind::StartLink => &[Time, Type, Container, Value, StartContainer, Key],
            EventKind::EndLink => &[Time, Type, Container, Value, EndContainer, Key],
            EventKind::TraceFile => &[Container, Type, Filename],
        }
    }

    /// True for the six definition events that carry no time stamp.
    pub fn is_definition(self) -> bool {
        (self as u8) <= EventKind::DefineEntityValue as u8
    }
}

impl fmt::Display for EventKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// The fields a Pajé event can carry.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[repr(u8)]
pub enum Field {
    /// The event identifier (always the first word of a line).
    Event,
    /// `Time`
    Time,
    /// `Name`
    Name,
    /// `Type`
    Type,
    /// `Container`
    Container,
    /// `StartContainerType`
    StartContainerType,
    /// `EndContainerType`
    EndContainerType,
    /// `StartContainer`
    StartContainer,
    /// `EndContainer`
    EndContainer,
    /// `Value`
    Value,
    /// `Key`
    Key,
    /// `Alias`
    Alias,
    /// `Color`
    Color,
    /// `Line`
    Line,
    /// `File`
    File,
    /// `Filename`
    Filename,
    /// A user-defined field (any other name), kept with its name.
    Extra,
}

/// Number of distinct [`Field`] values.
pub const FIELD_COUNT: usize = 17;

impl Field {
    /// Every field except [`Field::Extra`], in declaration order.
    pub const KNOWN: [Field; 16] = [
        Field::Event,
        Field::Time,
        Field::Name,
        Field::Type,
        Field::Container,
        Field::StartContainerType,
        Field::EndContainerType,
        Field::StartContainer,
        Field::EndContainer,
        Field::Value,
        Field::Key,
        Field::Alias,
        Field::Color,
        Field::Line,
        Field::File,
        Field::Filename,
    ];

    /// The canonical name of the field.
    pub fn name(self) -> &'static str {
        match self {
            Field::Event => "Event",
            Field::Time => "Time",
            Field::Name => "Name",
            Field::Type => "Type",
            Field::Container => "Container",
            Field::StartContainerType => "StartContainerType",
            Field::EndContainerType => "EndContainerType",
            Field::StartContainer => "StartContainer",
            Field::EndContainer => "EndContainer",
            Field::Value => "Value",
            Field::Key => "Key",
            Field::Alias => "Alias",
            Field::Color => "Color",
            Field::Line => "Line",
            Field::File => "File",
            Field::Filename => "Filename",
            Field::Extra => "Extra",
        }
    }

    /// Maps a field name of a definition to a field. Unknown names give
    /// `None` (they become user-defined fields). With `strict == false` the
    /// old names of Pajé 1.x are accepted too: `ContainerType` and
    /// `EntityType` (= `Type`), `SourceContainerType`, `DestContainerType`,
    /// `SourceContainer` and `DestContainer`.
    pub fn from_name(name: &[u8], strict: bool) -> Option<Field> {
        if let Some(f) = Field::KNOWN.iter().find(|f| f.name().as_bytes() == name) {
            return Some(*f);
        }
        if strict {
            return None;
        }
        match name {
            b"ContainerType" | b"EntityType" => Some(Field::Type),
            b"SourceContainerType" => Some(Field::StartContainerType),
            b"DestContainerType" => Some(Field::EndContainerType),
            b"SourceContainer" => Some(Field::StartContainer),
            b"DestContainer" => Some(Field::EndContainer),
            _ => None,
        }
    }

    /// Is this one of the old (Pajé 1.x) field names accepted only with `--no-strict`?
    pub fn is_old_name(name: &[u8]) -> bool {
        Field::from_name(name, true).is_none() && Field::from_name(name, false).is_some()
    }
}

impl fmt::Display for Field {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// The declared type of a field. The type is only declarative in Pajé: the
/// values stay text and are interpreted by the field's role.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum FieldType {
    /// `string`
    String,
    /// `float`
    Float,
    /// `double`
    Double,
    /// `int`
    Int,
    /// `hex`
    Hex,
    /// `date`
    Date,
    /// `color`
    Color,
}

impl FieldType {
    /// The name used in definitions.
    pub fn name(self) -> &'static str {
        match self {
            FieldType::String => "string",
            FieldType::Float => "float",
            FieldType::Double => "double",
            FieldType::Int => "int",
            FieldType::Hex => "hex",
            FieldType::Date => "date",
            FieldType::Color => "color",
        }
    }

    /// Parses a type name.
    pub fn from_name(name: &[u8]) -> Option<FieldType> {
        Some(match name {
            b"string" => FieldType::String,
            b"float" => FieldType::Float,
            b"double" => FieldType::Double,
            b"int" => FieldType::Int,
            b"hex" => FieldType::Hex,
            b"date" => FieldType::Date,
            b"color" => FieldType::Color,
            _ => return None,
        })
    }
}

/// Why a field could not be added to a definition.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum DefError {
    /// The same standard field appears twice.
    #[error("field '{0}' is already defined in this event definition")]
    DuplicateField(Field),
}

/// The definition of one event identifier: its kind and its field layout.
#[derive(Clone, Debug)]
pub struct EventDef {
    kind: EventKind,
    id: Box<[u8]>,
    line: u64,
    index: u32,
    fields: Vec<(Field, FieldType)>,
    extra_names: Vec<Box<str>>,
    extra_slots: Vec<u16>,
    slots: [u16; FIELD_COUNT],
}

const NO_SLOT: u16 = u16::MAX;

impl EventDef {
    /// Starts a definition of `kind` with identifier `id`, declared at `line`.
    /// The event identifier itself is field 0.
    pub fn new(kind: EventKind, id: &[u8], line: u64) -> EventDef {
        let mut slots = [NO_SLOT; FIELD_COUNT];
        slots[Field::Event as usize] = 0;
        EventDef {
            kind,
            id: id.into(),
            line,
            index: 0,
            fields: vec![(Field::Event, FieldType::Int)],
            extra_names: Vec::new(),
            extra_slots: Vec::new(),
            slots,
        }
    }

    /// Adds a standard field.
    pub fn add_field(&mut self, field: Field, ty: FieldType) -> Result<(), DefError> {
        debug_assert!(field != Field::Extra);
        if self.slots[field as usize] != NO_SLOT {
            return Err(DefError::DuplicateField(field));
        }
        self.slots[field as usize] = self.fields.len() as u16;
        self.fields.push((field, ty));
        Ok(())
    }

    /// Adds a user-defined field called `name`.
    pub fn add_extra(&mut self, name: &str, ty: FieldType) {
        self.extra_slots.push(self.fields.len() as u16);
        self.extra_names.push(name.into());
        self.fields.push((Field::Extra, ty));
    }

    /// Sets the position of this definition among all definitions of its
    /// trace (readers number definitions in declaration order from 0).
    pub fn set_index(&mut self, index: u32) {
        self.index = index;
    }

    /// Position of this definition among the definitions of its trace.
    #[inline]
    pub fn index(&self) -> u32 {
        self.index
    }

    /// The kind of event.
    pub fn kind(&self) -> EventKind {
        self.kind
    }

    /// The identifier used on event lines.
    pub fn id(&self) -> &[u8] {
        &self.id
    }

    /// Line (or record) where the definition starts.
    pub fn line(&self) -> u64 {
        self.line
    }

    /// Number of fields, the event identifier included.
    pub fn field_count(&self) -> usize {
        self.fields.len()
    }

    /// The fields in order, the event identifier first.
    pub fn fields(&self) -> &[(Field, FieldType)] {
        &self.fields
    }

    /// Position of a standard field on the line, if declared.
    #[inline]
    pub fn slot(&self, field: Field) -> Option<usize> {
        let s = self.slots[field as usize];
        (s != NO_SLOT).then_some(s as usize)
    }

    /// Names of the user-defined fields, in order.
    pub fn extra_names(&self) -> &[Box<str>] {
        &self.extra_names
    }

    /// Positions of the user-defined fields, in order.
    pub fn extra_slots(&self) -> &[u16] {
        &self.extra_slots
    }

    /// Obligatory fields this definition lacks (empty when valid).
    pub fn missing_fields(&self) -> Vec<Field> {
        self.kind
            .obligatory_fields()
            .iter()
            .copied()
            .filter(|f| self.slot(*f).is_none())
            .collect()
    }

    /// Renders the definition as it would appear in a trace header.
    pub fn to_header(&self) -> String {
        let mut s = format!(
            "%EventDef {} {}\n",
            self.kind.name(),
            String::from_utf8_lossy(&self.id)
        );
        let mut extra = 0;
        for (f, t) in &self.fields[1..] {
            let name = if *f == Field::Extra {
                extra += 1;
                &*self.extra_names[extra - 1]
            } else {
                f.name()
            };
            s.push_str(&format!("%\t{}\t{}\n", name, t.name()));
        }
        s.push_str("%EndEventDef\n");
        s
    }
}

/// A byte range `[start, end)` inside a reader's buffer.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Span {
    /// First byte.
    pub start: u32,
    /// One past the last byte.
    pub end: u32,
}

/// One event, borrowed from the reader's buffers: the definition it follows,
/// where it comes from, and its words.
#[derive(Clone, Copy)]
pub struct Event<'a> {
    def: &'a EventDef,
    line: u64,
    buf: &'a [u8],
    words: &'a [Span],
}

impl<'a> Event<'a> {
    /// Builds a view. `words` index into `buf`; `words[0]` is the event
    /// identifier. The caller guarantees `words.len() == def.field_count()`.
    #[inline]
    pub fn new(def: &'a EventDef, line: u64, buf: &'a [u8], words: &'a [Span]) -> Event<'a> {
        debug_assert_eq!(words.len(), def.field_count());
        Event {
            def,
            line,
            buf,
            words,
        }
    }

    /// The event kind.
    #[inline]
    pub fn kind(&self) -> EventKind {
        self.def.kind
    }

    /// The definition this event follows.
    #[inline]
    pub fn def(&self) -> &'a EventDef {
        self.def
    }

    /// Line number in the text file (or record number in a binary file).
    #[inline]
    pub fn line(&self) -> u64 {
        self.line
    }

    /// The `i`-th word.
    #[inline]
    pub fn word(&self, i: usize) -> &'a [u8] {
        let s = self.words[i];
        &self.buf[s.start as usize..s.end as usize]
    }

    /// Number of words (= fields, identifier included).
    #[inline]
    pub fn word_count(&self) -> usize {
        self.words.len()
    }

    /// The buffer the words are in, and their spans in it (to copy an
    /// event at once).
    #[inline]
    pub fn spans(&self) -> (&'a [u8], &'a [Span]) {
        (self.buf, self.words)
    }

    /// The value of a standard field, or an empty slice when the definition
    /// does not declare it (PajeNG's behaviour).
    #[inline]
    pub fn get(&self, field: Field) -> &'a [u8] {
        match self.def.slot(field) {
            Some(i) => self.word(i),
            None => &[],
        }
    }

    /// Does the definition declare `field`?
    #[inline]
    pub fn has(&self, field: Field) -> bool {
        self.def.slot(field).is_some()
    }

    /// Values of the user-defined fields, in definition order.
    pub fn extras(&self) -> impl ExactSizeIterator<Item = &'a [u8]> + '_ {
        self.def
            .extra_slots
            .iter()
            .map(move |&s| self.word(s as usize))
    }

    /// The line as PajeNG shows it in messages: words joined by one space.
    pub fn contents(&self) -> String {
        let mut s = String::new();
        for i in 0..self.words.len() {
            if i > 0 {
                s.push(' ');
            }
            s.push_str(&String::from_utf8_lossy(self.word(i)));
        }
        s
    }
}

impl fmt::Debug for Event<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "Event({} line {}: {})",
            self.kind(),
            self.line,
            self.contents()
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kinds_round_trip_by_name() {
        for k in EventKind::ALL {
            assert_eq!(EventKind::from_name(k.name().as_bytes()), Some(k));
        }
        assert_eq!(EventKind::from_name(b"PajeFooBar"), None);
        assert!(EventKind::DefineEntityValue.is_definition());
        assert!(!EventKind::CreateContainer.is_definition());
    }

    #[test]
    fn old_names_only_without_strict() {
        assert_eq!(Field::from_name(b"ContainerType", true), None);
        assert_eq!(Field::from_name(b"ContainerType", false), Some(Field::Type));
        assert_eq!(
            Field::from_name(b"DestContainer", false),
            Some(Field::EndContainer)
        );
        assert_eq!(Field::from_name(b"Tag", false), None);
        assert!(Field::is_old_name(b"SourceContainer"));
        assert!(!Field::is_old_name(b"Container"));
    }

    #[test]
    fn definition_layout_and_validation() {
        let mut d = EventDef::new(EventKind::PushState, b"11", 3);
        d.add_field(Field::Time, FieldType::Date).unwrap();
        d.add_field(Field::Container, FieldType::String).unwrap();
        d.add_extra("Tag", FieldType::String);
        assert_eq!(
            d.add_field(Field::Time, FieldType::Date),
            Err(DefError::DuplicateField(Field::Time))
        );
        assert_eq!(d.missing_fields(), vec![Field::Type, Field::Value]);
        d.add_field(Field::Type, FieldType::String).unwrap();
        d.add_field(Field::Value, FieldType::String).unwrap();
        assert!(d.missing_fields().is_empty());
        assert_eq!(d.field_count(), 6);
        assert_eq!(d.slot(Field::Container), Some(2));
        assert_eq!(d.extra_slots(), &[3]);

        let buf = b"11 1.5 p1 tagA S run";
        let words = [
            Span { start: 0, end: 2 },
            Span { start: 3, end: 6 },
            Span { start: 7, end: 9 },
            Span { start: 10, end: 14 },
            Span { start: 15, end: 16 },
            Span { start: 17, end: 20 },
        ];
        let ev = Event::new(&d, 7, buf, &words);
        assert_eq!(ev.get(Field::Time), b"1.5");
        assert_eq!(ev.get(Field::Value), b"run");
        assert_eq!(ev.get(Field::Key), b"");
        assert_eq!(ev.extras().collect::<Vec<_>>(), vec![&b"tagA"[..]]);
        assert_eq!(ev.contents(), "11 1.5 p1 tagA S run");
        assert!(d.to_header().contains("%\tTag\tstring\n"));
    }
}
