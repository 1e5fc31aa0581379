//! Model frames: the events that build the model (type and value
//! definitions, container creations and destructions, `PajeTraceFile`), the
//! values created by their first use and the streams (definition,
//! container, type) of entity events, in trace order. A reader loads them
//! all first and resolves them into the whole model; events frames only
//! mark where each record takes effect.

use trama_events::{Event, EventDef, Span};
use trama_sim::replay::{ModelBuilder, ModelEffect, ReplayTables};
use trama_sim::{Model, SimError, TypeId};

use crate::format::{REC_EVENT, REC_STREAM, REC_VALUE};
use crate::state::Counts;
use crate::varint::Cursor;

/// One record of a model frame.
#[derive(Clone, Copy, Debug)]
pub(crate) struct MRec {
    /// [`REC_EVENT`] or [`REC_VALUE`].
    pub tag: u8,
    /// Event records: index of the definition.
    pub def: u32,
    /// Value and stream records: the type.
    pub ty: u32,
    /// Stream records: the container.
    pub container: u32,
    pub line: u64,
    /// First span in [`Records::spans`]: the event's words (identifier
    /// first), or the value's name.
    pub words: u32,
}

/// Every model record of a file, words in one arena.
#[derive(Default)]
pub(crate) struct Records {
    pub recs: Vec<MRec>,
    pub arena: Vec<u8>,
    pub spans: Vec<Span>,
}

impl Records {
    fn push_word(&mut self, w: &[u8]) {
        let start = self.arena.len() as u32;
        self.arena.extend_from_slice(w);
        self.spans.push(Span {
            start,
            end: self.arena.len() as u32,
        });
    }

    /// Reads the records of one model frame; `None` when malformed.
    pub fn load(&mut self, payload: &[u8], defs: &[EventDef]) -> Option<()> {
        let mut c = Cursor::new(payload);
        let first = c.varint()?;
        let count = c.varint()?;
        if first != self.recs.len() as u64 || count > payload.len() as u64 {
            return None;
        }
        for _ in 0..count {
            let tag = c.byte()?;
            let words = self.spans.len() as u32;
            // (definition, type, container, line): what each kind has.
            let (def, ty, container, line) = match tag {
                REC_EVENT => {
                    let def = c.u32()?;
                    let line = c.varint()?;
                    let nwords = c.varint()?;
                    let d = defs.get(def as usize)?;
                    if crate::format::is_entity(d.kind()) || nwords + 1 != d.field_count() as u64 {
                        return None;
                    }
                    self.push_word(d.id());
                    for _ in 0..nwords {
                        let w = c.bytes()?;
                        self.push_word(w);
                    }
                    (def, 0, 0, line)
                }
                REC_VALUE => {
                    let ty = c.u32()?;
                    let line = c.varint()?;
                    let name = c.bytes()?;
                    self.push_word(name);
                    (0, ty, 0, line)
                }
                REC_STREAM => {
                    let def = c.u32()?;
                    let container = c.u32()?;
                    let ty = c.u32()?;
                    let line = c.varint()?;
                    let d = defs.get(def as usize)?;
                    if !crate::format::is_entity(d.kind()) {
                        return None;
                    }
                    (def, ty, container, line)
                }
                _ => return None,
            };
            self.recs.push(MRec {
                tag,
                def,
                ty,
                container,
                line,
                words,
            });
            if self.arena.len() > u32::MAX as usize / 2 {
                return None;
            }
        }
        c.at_end().then_some(())
    }

    /// The event of an event record.
    pub fn event<'a>(&'a self, r: &MRec, defs: &'a [EventDef]) -> Event<'a> {
        let def = &defs[r.def as usize];
        let w = r.words as usize;
        Event::new(
            def,
            r.line,
            &self.arena,
            &self.spans[w..w + def.field_count()],
        )
    }

    /// The name of a value record.
    pub fn name(&self, r: &MRec) -> &[u8] {
        let s = self.spans[r.words as usize];
        &self.arena[s.start as usize..s.end as usize]
    }
}

/// What a model record does to a simulation.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) enum Effect {
    Type,
    DefinedValue,
    Container {
        id: u32,
        time: f64,
    },
    Destroy {
        container: u32,
        time: f64,
    },
    Time(f64),
    /// A value created by its first use (the event at the same place).
    FirstValue {
        id: u32,
    },
    /// A stream used for the first time (by the event at the same place).
    Stream,
}

/// A stream: the entity events of one definition on one list.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Stream {
    pub def: u32,
    pub container: u32,
    pub ty: u32,
    /// The model record declaring it.
    pub record: u64,
    /// Its list (container and type), numbered from 0 in order of first
    /// declaration.
    pub list: u32,
}

/// The whole model, resolved from the records.
pub(crate) struct Prepass {
    pub model: Model,
    pub effects: Vec<Effect>,
    /// What the model holds before each record (and after the last).
    pub counts: Vec<Counts>,
    /// Per container: the record destroying it (by its own destruction or
    /// its parent's) and the time; `u64::MAX` when never.
    pub dead: Vec<(u64, f64)>,
    /// Every stream, in declaration order.
    pub streams: Vec<Stream>,
    /// The lists of the streams.
    pub stream_lists: u32,
    pub tables: ReplayTables,
    /// The streams with the way their events are decoded, for the replay
    /// (filled by it).
    pub hot: Vec<HotStream>,
}

/// A stream and the decoding path of its definition side by side: what
/// the replay looks up for every event, in one place.
#[derive(Clone, Copy, Debug)]
pub(crate) struct HotStream {
    pub stream: Stream,
    pub op: crate::read::Op,
    pub kind: trama_events::EventKind,
    pub fast: crate::read::Fast,
}

/// Why the model could not be built.
pub(crate) enum PrepassError {
    /// A record the trace's rules reject (the reference simulation reports
    /// it, or an earlier error).
    Trace(Box<SimError>),
    /// A record no writer makes (a value declared twice): the file is damaged.
    Format(String),
    /// A stream whose events the simulation rejects (a type that does not
    /// fit its container or its events): the reference simulation says why.
    Stream(String),
}

/// Resolves every record into the model.
pub(crate) fn prepass(
    records: &Records,
    defs: &[EventDef],
    keep_extras: bool,
) -> Result<Prepass, PrepassError> {
    let mut mb = ModelBuilder::new(keep_extras);
    let mut effects = Vec::with_capacity(records.recs.len());
    let mut counts = Vec::with_capacity(records.recs.len() + 1);
    let mut dead: Vec<(u64, f64)> = vec![(u64::MAX, 0.0)];
    let mut streams = Vec::new();
    let mut lists: hashbrown::HashMap<(u32, u32), u32> = hashbrown::HashMap::new();
    let count = |m: &Model| Counts {
        types: m.types.len() as u32,
        values: m.values.len() as u32,
        containers: m.containers.len() as u32,
    };
    for (i, r) in records.recs.iter().enumerate() {
        counts.push(count(mb.model()));
        let effect = if r.tag == REC_STREAM {
            let m = mb.model();
            let want = expected_kind(defs[r.def as usize].kind());
            let fits = match (
                m.containers.get(r.container as usize),
                m.types.get(r.ty as usize),
            ) {
                (Some(c), Some(t)) => t.kind == want && t.parent == Some(c.ty),
                _ => false,
            };
            if !fits {
                return Err(PrepassError::Stream(format!(
                    "stream of line {}: type {} does not fit container {} or the event",
                    r.line, r.ty, r.container
                )));
            }
            let n = lists.len() as u32;
            let list = *lists.entry((r.container, r.ty)).or_insert(n);
            streams.push(Stream {
                def: r.def,
                container: r.container,
                ty: r.ty,
                record: i as u64,
                list,
            });
            Effect::Stream
        } else if r.tag == REC_VALUE {
            let name = records.name(r);
            let ty = TypeId(r.ty);
            let kind_ok = mb.model().types.get(r.ty as usize).is_some_and(|t| {
                matches!(
                    t.kind,
                    trama_sim::TypeKind::State
                        | trama_sim::TypeKind::Event
                        | trama_sim::TypeKind::Link
                )
            });
            if !kind_ok || mb.model().value_by_ident(ty, name).is_some() {
                return Err(PrepassError::Format(format!(
                    "model record {i}: a value of type {} created twice or for a type without values",
                    r.ty
                )));
            }
            let v = mb
                .new_value(ty, name, r.line)
                .map_err(|e| PrepassError::Trace(Box::new(e)))?;
            Effect::FirstValue { id: v.0 }
        } else {
            let ev = records.event(r, defs);
            let e = mb
                .event(&ev)
                .map_err(|e| PrepassError::Trace(Box::new(e)))?;
            match e {
                ModelEffect::Type(_) => Effect::Type,
                ModelEffect::Value(_) => Effect::DefinedValue,
                ModelEffect::Container { id, time } => {
                    dead.push((u64::MAX, 0.0));
                    Effect::Container { id: id.0, time }
                }
                ModelEffect::Destroy { container, time } => {
                    kill(mb.model(), &mut dead, container.0, i as u64, time);
                    Effect::Destroy {
                        container: container.0,
                        time,
                    }
                }
                ModelEffect::Time(t) => Effect::Time(t),
            }
        };
        effects.push(effect);
    }
    counts.push(count(mb.model()));
    let model = mb.into_model();
    let tables = ReplayTables::new(&model);
    Ok(Prepass {
        model,
        effects,
        counts,
        dead,
        streams,
        stream_lists: lists.len() as u32,
        tables,
        hot: Vec::new(),
    })
}

/// The nature of the type an entity event refers to.
pub(crate) fn expected_kind(kind: trama_events::EventKind) -> trama_sim::TypeKind {
    use trama_events::EventKind as E;
    use trama_sim::TypeKind as T;
    match kind {
        E::NewEvent => T::Event,
        E::SetState | E::PushState | E::PopState | E::ResetState => T::State,
        E::SetVariable | E::AddVariable | E::SubVariable => T::Variable,
        _ => T::Link,
    }
}

/// Marks `c` and its alive children destroyed by record `rec`.
fn kill(m: &Model, dead: &mut [(u64, f64)], c: u32, rec: u64, time: f64) {
    let mut todo = vec![c];
    while let Some(c) = todo.pop() {
        match dead.get_mut(c as usize) {
            Some(d) if d.0 == u64::MAX => *d = (rec, time),
            _ => continue,
        }
        todo.extend(m.containers[c as usize].children.iter().map(|ch| ch.0));
    }
}
