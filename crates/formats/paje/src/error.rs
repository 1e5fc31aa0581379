//! Errors of the text reader.

use std::fmt;

use trama_events::{EventKind, Field};

/// What is wrong with a line of a Pajé text trace.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum SyntaxError {
    /// A `%` line outside a definition is not `%EventDef NAME ID`.
    #[error("expected '%EventDef <event name> <event id>'")]
    BadEventDefStart,
    /// The event identifier was defined before.
    #[error("event id '{id}' is already defined (at line {previous_line})")]
    Redefinition {
        /// The identifier.
        id: String,
        /// Where it was first defined.
        previous_line: u64,
    },
    /// The event name is not one of the 19 Pajé events.
    #[error("unknown event name '{name}'; expected one of PajeDefineContainerType, PajeDefineVariableType, PajeDefineStateType, PajeDefineEventType, PajeDefineLinkType, PajeDefineEntityValue, PajeCreateContainer, PajeDestroyContainer, PajeSetState, PajePushState, PajePopState, PajeResetState, PajeNewEvent, PajeSetVariable, PajeAddVariable, PajeSubVariable, PajeStartLink, PajeEndLink, PajeTraceFile")]
    UnknownEventName {
        /// The name found.
        name: String,
    },
    /// A `%` line inside a definition has no field name.
    #[error("missing field name in event definition; expected '% <field name> <field type>' or '%EndEventDef'")]
    MissingFieldName,
    /// A field line has no type.
    #[error("missing type for field '{field}'; expected one of string, float, double, int, hex, date, color")]
    MissingFieldType {
        /// The field name.
        field: String,
    },
    /// The type of a field is not a Pajé type.
    #[error("unknown type '{ty}' for field '{field}'; expected one of string, float, double, int, hex, date, color")]
    UnknownFieldType {
        /// The field name.
        field: String,
        /// The type found.
        ty: String,
    },
    /// A standard field is declared twice.
    #[error("field '{field}' is declared twice in the definition of {kind} '{id}'")]
    DuplicateField {
        /// The field.
        field: Field,
        /// The event kind being defined.
        kind: EventKind,
        /// Its identifier.
        id: String,
    },
    /// `%EndEventDef` closes a definition that lacks obligatory fields.
    #[error("{}", invalid_definition(kind, id, *def_line, missing, old_names))]
    InvalidDefinition {
        /// The event kind being defined.
        kind: EventKind,
        /// Its identifier.
        id: String,
        /// Where the definition starts.
        def_line: u64,
        /// Obligatory fields that are absent.
        missing: Vec<Field>,
        /// Old field names (Pajé 1.x) present, accepted only with `--no-strict`.
        old_names: Vec<String>,
    },
    /// An event line uses an identifier no `%EventDef` declared.
    #[error("event id '{id}' has not been defined by any %EventDef before this line")]
    UnknownEventId {
        /// The identifier.
        id: String,
    },
    /// The number of fields differs from the definition.
    #[error("{kind} (id '{id}', defined at line {def_line}) expects {expected} fields ({layout}), found {found}")]
    FieldCount {
        /// The event kind.
        kind: EventKind,
        /// Its identifier.
        id: String,
        /// Where it is defined.
        def_line: u64,
        /// Fields expected, identifier included.
        expected: usize,
        /// Fields found, identifier included.
        found: usize,
        /// The expected layout, e.g. `Event Time Container Type Value`.
        layout: String,
    },
    /// More words on a line than any Pajé reader accepts.
    #[error(
        "line has {found} fields; Pajé event lines carry at most {max} fields (PajeNG's limit)"
    )]
    TooManyFields {
        /// Words found.
        found: usize,
        /// The limit.
        max: usize,
    },
    /// A NUL byte: the input is not text.
    #[error("NUL byte in the input: this is not a text Pajé trace (a binary or compressed file?)")]
    NulByte,
}

fn invalid_definition(
    kind: &EventKind,
    id: &str,
    def_line: u64,
    missing: &[Field],
    old_names: &[String],
) -> String {
    let names: Vec<&str> = missing.iter().map(|f| f.name()).collect();
    let mut s = format!(
        "the definition of {kind} '{id}' (line {def_line}) lacks the obligatory field(s) {}; {kind} needs {}",
        names.join(", "),
        kind.obligatory_fields()
            .iter()
            .map(|f| f.name())
            .collect::<Vec<_>>()
            .join(", ")
    );
    if !old_names.is_empty() {
        s.push_str(&format!(
            " (it uses the old field name(s) {}: pass --no-strict / -n to accept them)",
            old_names.join(", ")
        ));
    }
    s
}

/// An error while reading a trace: I/O, syntax (with the line and its
/// contents), or an error returned by the event handler.
#[derive(Debug, thiserror::Error)]
pub enum ReadError<E> {
    /// Reading the input failed.
    #[error("{0}")]
    Io(#[from] std::io::Error),
    /// A line is not valid Pajé.
    #[error("line {line}: {error}{}", ShowContents(contents))]
    Syntax {
        /// 1-based line number.
        line: u64,
        /// What is wrong.
        error: SyntaxError,
        /// The words of the offending line.
        contents: String,
    },
    /// The handler rejected an event.
    #[error("{0}")]
    Handler(E),
}

struct ShowContents<'a>(&'a str);

impl fmt::Display for ShowContents<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.0.is_empty() {
            Ok(())
        } else {
            write!(f, "\n  | {}", self.0)
        }
    }
}

impl<E> ReadError<E> {
    /// The line the error refers to, when there is one.
    pub fn line(&self) -> Option<u64> {
        match self {
            ReadError::Syntax { line, .. } => Some(*line),
            _ => None,
        }
    }
}
