//! The model alone: the events that define types and values and create and
//! destroy containers, resolved and checked as the simulator does, without
//! simulating entities. Binary readers build a trace's whole model this way
//! before replaying its blocks; binary writers resolve every event with it.

use trama_events::{Event, EventKind};

use crate::engine::apply_model;
use crate::error::{SimError, SimErrorKind};
use crate::model::{ContainerId, Model, TypeId, ValueId};
use crate::op::{Batch, Op};
use crate::resolve::{EntityHandles, Resolver};

/// What a model event did.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum ModelEffect {
    /// A type was defined (time 0).
    Type(TypeId),
    /// A value was defined by `PajeDefineEntityValue` (time 0).
    Value(ValueId),
    /// A container was created.
    Container {
        /// Its handle.
        id: ContainerId,
        /// The time of the event.
        time: f64,
    },
    /// A container is to be destroyed (the simulation checks and does it).
    Destroy {
        /// The container.
        container: ContainerId,
        /// The time of the event.
        time: f64,
    },
    /// An event whose only effect is its time (`PajeTraceFile`).
    Time(f64),
}

impl ModelEffect {
    /// The time the event sets as the time of the last event.
    pub fn time(&self) -> f64 {
        match *self {
            ModelEffect::Type(_) | ModelEffect::Value(_) => 0.0,
            ModelEffect::Container { time, .. }
            | ModelEffect::Destroy { time, .. }
            | ModelEffect::Time(time) => time,
        }
    }
}

/// Resolves events into a [`Model`]; see the module documentation.
#[derive(Debug)]
pub struct ModelBuilder {
    resolver: Resolver,
    model: Model,
    batch: Batch,
}

impl Default for ModelBuilder {
    fn default() -> Self {
        ModelBuilder::new(false)
    }
}

/// True for the events of entities (states, events, variables, links).
pub fn is_entity_kind(kind: EventKind) -> bool {
    matches!(
        kind,
        EventKind::NewEvent
            | EventKind::SetState
            | EventKind::PushState
            | EventKind::PopState
            | EventKind::ResetState
            | EventKind::SetVariable
            | EventKind::AddVariable
            | EventKind::SubVariable
            | EventKind::StartLink
            | EventKind::EndLink
    )
}

impl ModelBuilder {
    /// A model with only the root type and container; `keep_extras` keeps
    /// the user-defined fields of containers.
    pub fn new(keep_extras: bool) -> ModelBuilder {
        ModelBuilder {
            resolver: Resolver::new(keep_extras),
            model: Model::default(),
            batch: Batch::default(),
        }
    }

    /// The model built so far.
    pub fn model(&self) -> &Model {
        &self.model
    }

    /// The finished model.
    pub fn into_model(self) -> Model {
        self.model
    }

    /// Applies a model event (any event but those of entities).
    pub fn event(&mut self, ev: &Event<'_>) -> Result<ModelEffect, SimError> {
        let r = self.model_event(ev);
        // The next event starts with an empty batch.
        self.batch.clear();
        r
    }

    fn model_event(&mut self, ev: &Event<'_>) -> Result<ModelEffect, SimError> {
        if is_entity_kind(ev.kind()) {
            return Err(SimError {
                line: ev.line(),
                kind: SimErrorKind::BadHandle {
                    what: "model event kind",
                    index: ev.kind() as u32,
                },
                contents: ev.contents(),
            });
        }
        self.batch.clear();
        self.resolver.resolve(ev, &mut self.batch)?;
        let mut effect = None;
        for op in &self.batch.ops {
            apply_model(&mut self.model, op, &self.batch);
            effect = match *op {
                Op::NewType { .. } => {
                    Some(ModelEffect::Type(TypeId(self.model.types.len() as u32 - 1)))
                }
                Op::NewValue { .. } => Some(ModelEffect::Value(ValueId(
                    self.model.values.len() as u32 - 1,
                ))),
                Op::NewContainer { time, .. } => Some(ModelEffect::Container {
                    id: ContainerId(self.model.containers.len() as u32 - 1),
                    time,
                }),
                Op::Destroy { time, c, .. } => Some(ModelEffect::Destroy { container: c, time }),
                Op::Time { time } => Some(ModelEffect::Time(time)),
                _ => effect,
            };
        }
        effect.ok_or_else(|| SimError {
            line: ev.line(),
            kind: SimErrorKind::Internal,
            contents: ev.contents(),
        })
    }

    /// Resolves an entity event: its handles, and the value it created if
    /// it is the first use of its value (added to the model).
    pub fn entity(&mut self, ev: &Event<'_>) -> Result<EntityHandles, Box<SimError>> {
        if !is_entity_kind(ev.kind()) {
            return Err(Box::new(SimError {
                line: ev.line(),
                kind: SimErrorKind::BadHandle {
                    what: "entity event kind",
                    index: ev.kind() as u32,
                },
                contents: ev.contents(),
            }));
        }
        let h = self.resolver.entity_refs(ev, &mut self.batch)?;
        if h.new_value {
            for op in &self.batch.ops {
                apply_model(&mut self.model, op, &self.batch);
            }
            self.batch.clear();
        }
        Ok(h)
    }

    /// Creates the value `name` of type `ty`, as its first use by an event
    /// does. Fails when the type cannot have values or the value exists.
    pub fn new_value(&mut self, ty: TypeId, name: &[u8], line: u64) -> Result<ValueId, SimError> {
        let before = self.resolver.value_count();
        self.batch.clear();
        let v = self
            .resolver
            .declare_value(ty, name, &mut self.batch)
            .map_err(|mut e| {
                e.line = line;
                e
            })?;
        if v.0 != before {
            return Err(SimError {
                line,
                kind: SimErrorKind::BadHandle {
                    what: "value (declared again)",
                    index: v.0,
                },
                contents: String::new(),
            });
        }
        for op in &self.batch.ops {
            apply_model(&mut self.model, op, &self.batch);
        }
        self.batch.clear();
        Ok(v)
    }

    /// Number of values so far.
    pub fn value_count(&self) -> u32 {
        self.resolver.value_count()
    }
}
