//! The Pajé event kinds and fields a trace is written with, and the
//! `%EventDef` definitions planned for them.

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) enum K {
    DefCt,
    DefVt,
    DefSt,
    DefEt,
    DefLt,
    DefEv,
    Create,
    Destroy,
    Set,
    Push,
    Pop,
    Reset,
    NewEv,
    SetV,
    AddV,
    SubV,
    StartL,
    EndL,
}

pub(crate) const KINDS: [K; 18] = [
    K::DefCt,
    K::DefVt,
    K::DefSt,
    K::DefEt,
    K::DefLt,
    K::DefEv,
    K::Create,
    K::Destroy,
    K::Set,
    K::Push,
    K::Pop,
    K::Reset,
    K::NewEv,
    K::SetV,
    K::AddV,
    K::SubV,
    K::StartL,
    K::EndL,
];

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum F {
    Time,
    Name,
    Type,
    Container,
    StartContainerType,
    EndContainerType,
    StartContainer,
    EndContainer,
    Value,
    Key,
    Alias,
    Color,
}

impl K {
    pub(crate) fn name(self) -> &'static str {
        match self {
            K::DefCt => "PajeDefineContainerType",
            K::DefVt => "PajeDefineVariableType",
            K::DefSt => "PajeDefineStateType",
            K::DefEt => "PajeDefineEventType",
            K::DefLt => "PajeDefineLinkType",
            K::DefEv => "PajeDefineEntityValue",
            K::Create => "PajeCreateContainer",
            K::Destroy => "PajeDestroyContainer",
            K::Set => "PajeSetState",
            K::Push => "PajePushState",
            K::Pop => "PajePopState",
            K::Reset => "PajeResetState",
            K::NewEv => "PajeNewEvent",
            K::SetV => "PajeSetVariable",
            K::AddV => "PajeAddVariable",
            K::SubV => "PajeSubVariable",
            K::StartL => "PajeStartLink",
            K::EndL => "PajeEndLink",
        }
    }

    pub(crate) fn obligatory(self) -> &'static [F] {
        use F::*;
        match self {
            K::DefCt | K::DefVt | K::DefSt | K::DefEt | K::DefEv => &[Name, Type],
            K::DefLt => &[Name, Type, StartContainerType, EndContainerType],
            K::Create => &[Time, Name, Type, Container],
            K::Destroy => &[Time, Name, Type],
            K::Set | K::Push | K::NewEv | K::SetV | K::AddV | K::SubV => {
                &[Time, Type, Container, Value]
            }
            K::Pop | K::Reset => &[Time, Type, Container],
            K::StartL => &[Time, Type, Container, Value, StartContainer, Key],
            K::EndL => &[Time, Type, Container, Value, EndContainer, Key],
        }
    }

    pub(crate) fn takes_alias(self) -> bool {
        matches!(
            self,
            K::DefCt | K::DefVt | K::DefSt | K::DefEt | K::DefLt | K::DefEv | K::Create
        )
    }

    pub(crate) fn takes_color(self) -> bool {
        matches!(self, K::DefVt | K::DefEv | K::DefSt)
    }

    pub(crate) fn takes_extras(self) -> bool {
        matches!(
            self,
            K::Create | K::Set | K::Push | K::NewEv | K::SetV | K::StartL | K::EndL
        )
    }
}

impl F {
    pub(crate) fn name(self) -> &'static str {
        match self {
            F::Time => "Time",
            F::Name => "Name",
            F::Type => "Type",
            F::Container => "Container",
            F::StartContainerType => "StartContainerType",
            F::EndContainerType => "EndContainerType",
            F::StartContainer => "StartContainer",
            F::EndContainer => "EndContainer",
            F::Value => "Value",
            F::Key => "Key",
            F::Alias => "Alias",
            F::Color => "Color",
        }
    }

    /// The Pajé 1.x name, when the field had another one.
    pub(crate) fn old_name(self, kind: K) -> Option<&'static str> {
        match self {
            F::Type => Some(
                if kind.name().starts_with("PajeDefine") || kind == K::Create {
                    "ContainerType"
                } else {
                    "EntityType"
                },
            ),
            F::StartContainerType => Some("SourceContainerType"),
            F::EndContainerType => Some("DestContainerType"),
            F::StartContainer => Some("SourceContainer"),
            F::EndContainer => Some("DestContainer"),
            _ => None,
        }
    }

    pub(crate) fn ty(self, kind: K) -> &'static str {
        match self {
            F::Time => "date",
            F::Color => "color",
            F::Value if matches!(kind, K::SetV | K::AddV | K::SubV) => "double",
            _ => "string",
        }
    }
}

#[derive(Clone, Debug)]
pub(crate) enum Slot {
    Std(F),
    Extra(usize),
}

#[derive(Clone, Debug)]
pub(crate) struct Def {
    pub(crate) id: String,
    pub(crate) kind: K,
    /// Field lines of the `%EventDef` block: (written name, type).
    pub(crate) header: Vec<(String, &'static str)>,
    pub(crate) slots: Vec<Slot>,
    pub(crate) written: bool,
}

pub(crate) const EXTRA_NAMES: [&str; 6] = ["Tag", "Size", "Mark", "Rank", "Note", "Cpu"];
