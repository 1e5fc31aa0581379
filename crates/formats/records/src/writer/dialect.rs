//! [`Dialect`]: the `%EventDef` header a trace is written with, PajeNG's
//! reference one or any given as text.

use trama_events::{EventDef, EventKind, Field, FieldType};

/// The event definitions a trace is written with.
#[derive(Clone, Debug)]
pub struct Dialect {
    header: String,
    defs: Vec<EventDef>,
}

/// A `%EventDef` block as header text:
/// `event_def!(PajeSetVariable 8: Time date, Container string)`.
#[macro_export]
macro_rules! event_def {
    ($event:ident $id:literal: $($field:ident $ty:ident),* $(,)?) => {
        concat!(
            "%EventDef ", stringify!($event), " ", $id, "\n",
            $("%       ", stringify!($field), " ", stringify!($ty), "\n",)*
            "%EndEventDef\n"
        )
    };
}

/// The definitions that begin PajeNG's reference header and Akypuera's
/// alike: the types and values (ids 0 to 5).
#[macro_export]
macro_rules! type_defs {
    () => {
        concat!(
            $crate::event_def!(PajeDefineContainerType 0: Alias string, Type string, Name string),
            $crate::event_def!(
                PajeDefineVariableType 1: Alias string, Type string, Name string, Color color
            ),
            $crate::event_def!(PajeDefineStateType 2: Alias string, Type string, Name string),
            $crate::event_def!(PajeDefineEventType 3: Alias string, Type string, Name string),
            $crate::event_def!(
                PajeDefineLinkType 4: Alias string, Type string, StartContainerType string,
                EndContainerType string, Name string
            ),
            $crate::event_def!(
                PajeDefineEntityValue 5: Alias string, Type string, Name string, Color color
            ),
        )
    };
}

/// The definitions both headers have next but one, with the same ids:
/// destroying containers, variables, setting and pushing states (ids 7
/// to 12).
#[macro_export]
macro_rules! destroy_variable_state_defs {
    () => {
        concat!(
            $crate::event_def!(PajeDestroyContainer 7: Time date, Type string, Name string),
            $crate::event_def!(PajeSetVariable 8: Time date, Container string, Type string, Value double),
            $crate::event_def!(PajeAddVariable 9: Time date, Container string, Type string, Value double),
            $crate::event_def!(PajeSubVariable 10: Time date, Container string, Type string, Value double),
            $crate::event_def!(PajeSetState 11: Time date, Container string, Type string, Value string),
            $crate::event_def!(PajePushState 12: Time date, Container string, Type string, Value string),
        )
    };
}

/// A link's start or end with the fields of both headers, then `extra`
/// ones: `link_def!(PajeStartLink 16: StartContainer, Size double)`.
#[macro_export]
macro_rules! link_def {
    ($event:ident $id:literal: $end:ident $(, $field:ident $ty:ident)* $(,)?) => {
        $crate::event_def!(
            $event $id: Time date, Container string, Type string, $end string, Value string,
            Key string $(, $field $ty)*
        )
    };
}

/// PajeNG's reference header (the one of its test traces), with the push
/// state and start link variants that carry `Mark` and `Size`.
const STANDARD_HEADER: &str = concat!(
    type_defs!(),
    event_def!(
        PajeCreateContainer 6: Time date, Alias string, Type string, Container string, Name string
    ),
    destroy_variable_state_defs!(),
    event_def!(
        PajePushState 13: Time date, Container string, Type string, Value string, Mark string
    ),
    event_def!(PajePopState 14: Time date, Container string, Type string),
    event_def!(PajeResetState 15: Time date, Type string, Container string),
    link_def!(PajeStartLink 16: StartContainer),
    link_def!(PajeStartLink 17: StartContainer, Size double),
    link_def!(PajeStartLink 18: StartContainer, Size double, Mark string),
    link_def!(PajeEndLink 19: EndContainer),
    event_def!(PajeNewEvent 20: Time date, Container string, Type string, Value string),
);

/// An error of the header given to [`Dialect::from_header`].
#[derive(Debug, thiserror::Error)]
#[error("header line {line}: {message}")]
pub struct DialectError {
    /// The line of the header text (1-based).
    pub line: usize,
    /// What is wrong.
    pub message: String,
}

impl Dialect {
    /// PajeNG's reference header.
    pub fn standard() -> Dialect {
        Dialect::from_header(STANDARD_HEADER).expect("the standard header is valid")
    }

    /// Reads the `%EventDef` blocks of `header` (other lines are not
    /// allowed but blank lines and `#` comments). The header is written
    /// as given.
    pub fn from_header(header: &str) -> Result<Dialect, DialectError> {
        let mut defs: Vec<EventDef> = Vec::new();
        let mut open: Option<EventDef> = None;
        for (i, raw) in header.lines().enumerate() {
            let line = i + 1;
            let err = |message: String| DialectError { line, message };
            let text = raw.trim();
            if text.is_empty() || text.starts_with('#') {
                continue;
            }
            let Some(rest) = text.strip_prefix('%') else {
                return Err(err(format!("not a header line: '{text}'")));
            };
            let words: Vec<&str> = rest.split_whitespace().collect();
            match words.first().copied() {
                Some("EventDef") => {
                    if open.is_some() {
                        return Err(err("%EventDef inside a definition".into()));
                    }
                    let (Some(kind), Some(id)) = (words.get(1), words.get(2)) else {
                        return Err(err("%EventDef needs an event name and an id".into()));
                    };
                    let kind = EventKind::from_name(kind.as_bytes())
                        .ok_or_else(|| err(format!("unknown event '{kind}'")))?;
                    if defs.iter().any(|d| d.id() == id.as_bytes()) {
                        return Err(err(format!("event id '{id}' defined twice")));
                    }
                    open = Some(EventDef::new(kind, id.as_bytes(), line as u64));
                }
                Some("EndEventDef") => {
                    let mut def = open
                        .take()
                        .ok_or_else(|| err("%EndEventDef without %EventDef".into()))?;
                    let missing = def.missing_fields();
                    if !missing.is_empty() {
                        return Err(err(format!(
                            "{} {} lacks the field {}",
                            def.kind().name(),
                            String::from_utf8_lossy(def.id()),
                            missing[0].name()
                        )));
                    }
                    // Its place among the definitions, as a reader of the text gives it.
                    def.set_index(defs.len() as u32);
                    defs.push(def);
                }
                Some(name) => {
                    let def = open
                        .as_mut()
                        .ok_or_else(|| err(format!("field '{name}' outside a definition")))?;
                    let ty = words
                        .get(1)
                        .ok_or_else(|| err(format!("field '{name}' has no type")))?;
                    let ty = FieldType::from_name(ty.as_bytes())
                        .ok_or_else(|| err(format!("unknown field type '{ty}'")))?;
                    match Field::from_name(name.as_bytes(), true) {
                        Some(f) if f != Field::Extra && f != Field::Event => {
                            def.add_field(f, ty)
                                .map_err(|_| err(format!("field '{name}' twice")))?
                        }
                        _ => def.add_extra(name, ty),
                    }
                }
                None => return Err(err("empty '%' line".into())),
            }
        }
        if open.is_some() {
            return Err(DialectError {
                line: header.lines().count(),
                message: "header ends inside a definition".into(),
            });
        }
        let mut header = header.to_string();
        if !header.ends_with('\n') {
            header.push('\n');
        }
        Ok(Dialect { header, defs })
    }

    /// The definitions, in header order.
    pub fn defs(&self) -> &[EventDef] {
        &self.defs
    }

    /// The header text.
    pub fn header(&self) -> &str {
        &self.header
    }

    /// Adds a definition of `kind` carrying the standard fields of the
    /// reference header plus `extras` (`(name, field type)`), unless one
    /// with exactly those extras exists.
    pub fn with_extras(mut self, kind: EventKind, extras: &[(&str, FieldType)]) -> Dialect {
        let names: Vec<&str> = extras.iter().map(|e| e.0).collect();
        if self.find(kind, &names).is_none() {
            let line = self.header.bytes().filter(|b| *b == b'\n').count() as u64 + 1;
            self.add(kind, extras, line);
        }
        self
    }

    /// Adds a definition of `kind` with the standard fields and `extras`;
    /// its index.
    fn add(&mut self, kind: EventKind, extras: &[(&str, FieldType)], line: u64) -> usize {
        let base = Dialect::standard()
            .defs
            .into_iter()
            .find(|d| d.kind() == kind && d.extra_names().is_empty())
            .expect("every kind written has a plain definition");
        let mut id = self.defs.len();
        while self
            .defs
            .iter()
            .any(|d| d.id() == id.to_string().as_bytes())
        {
            id += 1;
        }
        let mut def = EventDef::new(kind, id.to_string().as_bytes(), line);
        def.set_index(self.defs.len() as u32);
        for (f, t) in &base.fields()[1..] {
            def.add_field(*f, *t).expect("distinct fields");
        }
        for (name, t) in extras {
            def.add_extra(name, *t);
        }
        self.header.push_str(&def.to_header());
        self.defs.push(def);
        self.defs.len() - 1
    }

    /// Adds a definition of `kind` whose extra fields are exactly `names`,
    /// when each is an extra field of another definition of `kind` (taking
    /// its type from the first such); its index, `None` when a name is
    /// unknown.
    pub(super) fn derive(&mut self, kind: EventKind, names: &[&str], line: u64) -> Option<usize> {
        let mut extras = Vec::with_capacity(names.len());
        for name in names {
            let ty = self
                .defs
                .iter()
                .filter(|d| d.kind() == kind)
                .find_map(|d| {
                    d.fields()
                        .iter()
                        .filter(|(f, _)| *f == Field::Extra)
                        .zip(d.extra_names())
                        .find(|(_, n)| &***n == *name)
                        .map(|((_, t), _)| *t)
                })?;
            extras.push((*name, ty));
        }
        Some(self.add(kind, &extras, line))
    }

    /// The definition of `kind` whose extra fields are exactly `extras`.
    pub(super) fn find(&self, kind: EventKind, extras: &[&str]) -> Option<usize> {
        self.defs.iter().position(|d| {
            d.kind() == kind
                && d.extra_names().len() == extras.len()
                && extras
                    .iter()
                    .all(|e| d.extra_names().iter().any(|n| &**n == *e))
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn header_errors_name_the_line() {
        let e = Dialect::from_header("%EventDef PajeNewEvent 1\n% Time date\n%EndEventDef\n")
            .unwrap_err();
        assert_eq!(e.line, 3);
        assert!(
            e.message.contains("Container") || e.message.contains("Type"),
            "{e}"
        );
        let e = Dialect::from_header("%EventDef PajeBogus 1\n").unwrap_err();
        assert!(e.message.contains("PajeBogus"));
    }

    #[test]
    fn standard_output_reads_back() {
        // The standard dialect's header is accepted by the reader's rules:
        // every definition has its obligatory fields.
        let d = Dialect::standard();
        assert_eq!(d.defs().len(), 21);
        assert!(d.defs().iter().all(|d| d.missing_fields().is_empty()));
    }
}
