//! The `%EventDef` header state machine.

use hashbrown::HashMap;
use trama_events::{EventDef, EventKind, Field, FieldType};

use crate::error::SyntaxError;

/// All event definitions read so far, and the definition being read.
#[derive(Debug, Default)]
pub struct Definitions {
    defs: Vec<EventDef>,
    by_id: HashMap<Box<[u8]>, u32>,
    /// Fast table for identifiers of one or two bytes (index + 1, 0 = none).
    small: Vec<u32>,
    open: Option<u32>,
    strict: bool,
}

fn small_key(id: &[u8]) -> Option<usize> {
    match *id {
        [a] => Some(a as usize),
        [a, b] => Some(256 + ((a as usize) << 8 | b as usize)),
        _ => None,
    }
}

impl Definitions {
    /// An empty set of definitions. `strict == false` accepts old field names.
    pub fn new(strict: bool) -> Definitions {
        Definitions {
            defs: Vec::new(),
            by_id: HashMap::new(),
            small: vec![0; 256 + 65536],
            open: None,
            strict,
        }
    }

    /// The definition of an event identifier.
    #[inline]
    pub fn lookup(&self, id: &[u8]) -> Option<&EventDef> {
        let idx = match small_key(id) {
            Some(k) => self.small[k].checked_sub(1)?,
            None => *self.by_id.get(id)?,
        };
        Some(&self.defs[idx as usize])
    }

    /// Every definition, in the order they were declared.
    pub fn all(&self) -> &[EventDef] {
        &self.defs
    }

    /// The definition still open (no `%EndEventDef` seen), if any.
    pub fn open_definition(&self) -> Option<&EventDef> {
        self.open.map(|i| &self.defs[i as usize])
    }

    /// Handles one line whose first word starts with `%`.
    pub fn definition_line(&mut self, words: &[&[u8]], line: u64) -> Result<(), SyntaxError> {
        // The keyword is glued to the '%' or is the next word.
        let mut n = 1;
        let mut keyword = &words[0][1..];
        if keyword.is_empty() {
            match words.get(1) {
                Some(w) => keyword = w,
                None => return Err(SyntaxError::MissingFieldName),
            }
            n = 2;
        }
        match self.open {
            None => {
                if keyword != b"EventDef" || words.len() != n + 2 {
                    return Err(SyntaxError::BadEventDefStart);
                }
                let name = words[n];
                let id = words[n + 1];
                if let Some(prev) = self.lookup(id) {
                    return Err(SyntaxError::Redefinition {
                        id: lossy(id),
                        previous_line: prev.line(),
                    });
                }
                let kind = EventKind::from_name(name)
                    .ok_or_else(|| SyntaxError::UnknownEventName { name: lossy(name) })?;
                let idx = self.defs.len() as u32;
                let mut def = EventDef::new(kind, id, line);
                def.set_index(self.defs.len() as u32);
                self.defs.push(def);
                match small_key(id) {
                    Some(k) => self.small[k] = idx + 1,
                    None => {
                        self.by_id.insert(id.into(), idx);
                    }
                }
                self.open = Some(idx);
                Ok(())
            }
            Some(idx) => {
                let def = &mut self.defs[idx as usize];
                if keyword == b"EndEventDef" {
                    let missing = def.missing_fields();
                    if !missing.is_empty() {
                        let old_names = def
                            .extra_names()
                            .iter()
                            .filter(|n| Field::is_old_name(n.as_bytes()))
                            .map(|n| n.to_string())
                            .collect();
                        return Err(SyntaxError::InvalidDefinition {
                            kind: def.kind(),
                            id: lossy(def.id()),
                            def_line: def.line(),
                            missing,
                            old_names,
                        });
                    }
                    self.open = None;
                    return Ok(());
                }
                let field_name = keyword;
                let Some(type_word) = words.get(n) else {
                    return Err(SyntaxError::MissingFieldType {
                        field: lossy(field_name),
                    });
                };
                let ty = FieldType::from_name(type_word).ok_or_else(|| {
                    SyntaxError::UnknownFieldType {
                        field: lossy(field_name),
                        ty: lossy(type_word),
                    }
                })?;
                match Field::from_name(field_name, self.strict) {
                    Some(field) => {
                        def.add_field(field, ty)
                            .map_err(|_| SyntaxError::DuplicateField {
                                field,
                                kind: def.kind(),
                                id: lossy(def.id()),
                            })
                    }
                    None => {
                        def.add_extra(&lossy(field_name), ty);
                        Ok(())
                    }
                }
            }
        }
    }
}

pub(crate) fn lossy(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn feed(d: &mut Definitions, line: &str, n: u64) -> Result<(), SyntaxError> {
        let words: Vec<&[u8]> = line.split_whitespace().map(|w| w.as_bytes()).collect();
        d.definition_line(&words, n)
    }

    /// Feeds `lines`, numbered from 1, and checks that each is accepted.
    fn feed_all(d: &mut Definitions, lines: &[&str]) {
        for (n, line) in (1..).zip(lines) {
            feed(d, line, n).unwrap();
        }
    }

    #[test]
    fn definitions_with_spaced_percent_and_extras() {
        let mut d = Definitions::new(true);
        feed_all(
            &mut d,
            &[
                "% EventDef PajePushState ps",
                "%Time date",
                "% Container string",
                "% Type string",
                "% Value string",
                "% Tag string ignored",
                "% EndEventDef",
            ],
        );
        let def = d.lookup(b"ps").unwrap();
        assert_eq!(def.kind(), EventKind::PushState);
        assert_eq!(def.field_count(), 6);
        assert_eq!(&*def.extra_names()[0], "Tag");
        assert!(d.lookup(b"p").is_none());
    }

    #[test]
    fn errors() {
        let mut d = Definitions::new(true);
        // Fed in order: each line is accepted (`None`) or refused with the
        // error named.
        for (line, n, error) in [
            (
                "%EventDef PajeDefineContainerType 1 extra",
                1,
                Some("BadEventDefStart"),
            ),
            ("%EventDef PajeFooBar 1", 1, Some("UnknownEventName")),
            ("%EventDef PajeDefineContainerType 1", 1, None),
            ("% Name", 2, Some("MissingFieldType")),
            ("% Name strin", 2, Some("UnknownFieldType")),
            ("% Name string", 2, None),
            ("% Name string", 3, Some("DuplicateField")),
            ("% ContainerType string", 3, None),
        ] {
            let got = feed(&mut d, line, n).err().map(|e| format!("{e:?}"));
            let name = got.as_deref().map(|e| e.split([' ', '{']).next().unwrap());
            assert_eq!(name, error, "{line}: {got:?}");
        }
        match feed(&mut d, "%EndEventDef", 4) {
            Err(SyntaxError::InvalidDefinition {
                missing, old_names, ..
            }) => {
                assert_eq!(missing, vec![Field::Type]);
                assert_eq!(old_names, vec!["ContainerType".to_string()]);
            }
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn redefinition_and_old_names() {
        let mut d = Definitions::new(false);
        feed_all(
            &mut d,
            &[
                "%EventDef PajeDefineContainerType 1",
                "% ContainerType string",
                "% Name string",
                "%EndEventDef",
            ],
        );
        assert!(matches!(
            feed(&mut d, "%EventDef PajeDefineStateType 1", 5),
            Err(SyntaxError::Redefinition {
                previous_line: 1,
                ..
            })
        ));
    }
}
