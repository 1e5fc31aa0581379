//! How the events of each definition are decoded: where each field is
//! stored ([`Slot`]) and, for entity events stored with handles, the
//! fixed path the replay follows ([`Fast`], [`Op`]).

use trama_events::{EventDef, EventKind, Field};

use crate::format::*;

/// Where each field of an entity event is stored, as a reader decodes it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Slot {
    Time,
    /// Container and type: given by the stream (interned mode).
    Container,
    Type,
    Other,
    Value,
    Number,
    Key,
    Str,
    /// The k-th user-defined field (stored in `STRS`).
    Extra(u8),
}

/// How a replay decodes the events of one definition: a handler per kind
/// when the layout has a fixed path ([`Fast`]), else field by field.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Op {
    Model,
    /// An entity definition of more words than a Pajé event line may
    /// hold: no event of it can come from a text, and one stored is an
    /// error.
    Wide,
    Generic,
    SetState,
    PushState,
    PopState,
    ResetState,
    NewEvent,
    Variable,
    Link,
}

/// How the events of one definition are stored.
#[derive(Clone, Debug)]
pub(crate) struct Plan {
    pub kind: EventKind,
    pub op: Op,
    /// Entity events stored with handles (interned mode).
    pub handles: bool,
    /// The fields after the identifier.
    pub slots: Vec<Slot>,
    /// The fixed decoding path of the replay, when the layout allows one.
    pub fast: Option<Fast>,
}

pub(crate) const NO: u8 = u8::MAX;

/// The fixed path an entity event of one definition (interned mode) is
/// decoded along: its time, its value and other end (`HANDLES`, in field
/// order), its number, its link, then its strings. Only for definitions
/// whose texts stored in `STRS` come in that order (a time or number
/// stored as text comes first).
#[derive(Clone, Copy, Debug)]
pub(crate) struct Fast {
    pub timed: bool,
    /// Handles to read, and where the value and the other end are among
    /// them ([`NO`]: absent).
    pub nh: u8,
    pub vi: u8,
    pub oi: u8,
    pub number: bool,
    pub key: bool,
    /// The other strings: 0 for a standard field, k+1 for the k-th
    /// user-defined one.
    pub nstrs: u8,
    pub strs: [u8; 24],
}

/// The path of definitions without one (their handler is the generic one).
pub(crate) const NO_FAST: Fast = Fast {
    timed: false,
    nh: 0,
    vi: NO,
    oi: NO,
    number: false,
    key: false,
    nstrs: 0,
    strs: [0; 24],
};

fn fast_plan(slots: &[Slot]) -> Option<Fast> {
    let mut f = NO_FAST;
    let mut strings = false;
    for &s in slots {
        match s {
            Slot::Time if strings || f.number || f.timed => return None,
            Slot::Time => f.timed = true,
            Slot::Number if strings || f.number => return None,
            Slot::Number => f.number = true,
            Slot::Container | Slot::Type => {}
            Slot::Value | Slot::Other => {
                let at = if s == Slot::Value {
                    &mut f.vi
                } else {
                    &mut f.oi
                };
                if *at != NO {
                    return None;
                }
                *at = f.nh;
                f.nh += 1;
            }
            Slot::Key if f.key => return None,
            Slot::Key => f.key = true,
            Slot::Str | Slot::Extra(_) => {
                strings = true;
                if f.nstrs as usize == f.strs.len() {
                    return None;
                }
                f.strs[f.nstrs as usize] = match s {
                    Slot::Extra(k) => k.checked_add(1)?,
                    _ => 0,
                };
                f.nstrs += 1;
            }
        }
    }
    Some(f)
}

/// Why an event of `def`, a definition of too many fields, is refused.
pub(crate) fn wide(def: &EventDef) -> String {
    format!(
        "an event of definition '{}', whose {} words exceed the {MAX_WORDS} of a Pajé event line",
        String::from_utf8_lossy(def.id()),
        def.field_count()
    )
}

/// How the events of definition `d` are decoded.
pub(super) fn plan(d: &EventDef, interned: bool) -> Plan {
    let kind = d.kind();
    let model = !is_entity(kind);
    let handles = interned && !model;
    let mut k = 0u8;
    let slots: Vec<Slot> = d.fields()[1..]
        .iter()
        .map(|&(f, _)| {
            if f == Field::Extra {
                k += 1;
                return if handles {
                    Slot::Extra(k - 1)
                } else {
                    Slot::Str
                };
            }
            match role(kind, f, handles) {
                Role::Time => Slot::Time,
                Role::Container => Slot::Container,
                Role::Type => Slot::Type,
                Role::Other => Slot::Other,
                Role::Value => Slot::Value,
                Role::Number => Slot::Number,
                Role::Key => Slot::Key,
                Role::Str => Slot::Str,
            }
        })
        .collect();
    let fast = if handles { fast_plan(&slots) } else { None };
    let op = match (model, fast) {
        (true, _) => Op::Model,
        (false, _) if d.field_count() > MAX_WORDS => Op::Wide,
        (false, None) => Op::Generic,
        (false, Some(f)) => {
            let value = f.vi != NO;
            match kind {
                EventKind::SetState if value => Op::SetState,
                EventKind::PushState if value => Op::PushState,
                EventKind::PopState => Op::PopState,
                EventKind::ResetState => Op::ResetState,
                EventKind::NewEvent if value => Op::NewEvent,
                EventKind::SetVariable | EventKind::AddVariable | EventKind::SubVariable
                    if f.number =>
                {
                    Op::Variable
                }
                EventKind::StartLink | EventKind::EndLink if value && f.oi != NO && f.key => {
                    Op::Link
                }
                _ => Op::Generic,
            }
        }
    };
    Plan {
        kind,
        op,
        handles,
        slots,
        fast,
    }
}
