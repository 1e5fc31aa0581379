//! What the simulation hands over: final entities ([`Entity`]) to a
//! [`Sink`], and [`CountingSink`], the sink that only counts them.

use crate::intern::StrId;
use crate::model::{ContainerId, ListId, Model, TypeKind, ValueId};

/// A final entity, as handed to a [`Sink`].
#[derive(Clone, Debug)]
pub struct Entity<'a> {
    /// Start time (the time of an event).
    pub start: f64,
    /// End time (equal to `start` for events; -1 when never set).
    pub end: f64,
    /// Value of a state, event or link.
    pub value: ValueId,
    /// Value of a variable.
    pub number: f64,
    /// Nesting level of a state.
    pub level: u32,
    /// User-defined fields as (name, value) pairs laid flat: `[name0,
    /// value0, name1, value1, …]` (empty unless [`SimOptions::keep_extras`]).
    pub extras: &'a [StrId],
    /// Key of a link.
    pub key: &'a [u8],
    /// Start container of a link.
    pub from: Option<ContainerId>,
    /// End container of a link.
    pub to: Option<ContainerId>,
}

/// An entity the simulation holds at a [`Sink::tick`], not yet handed to
/// [`Sink::entity`]: a state on its stack (its end not known yet: -1), the
/// last entity of a list (final when the next one comes), or a link one
/// end of which has not come (the unknown end's container is `None`, its
/// time -1).
#[derive(Clone, Copy, Debug)]
pub struct OpenEntity<'a> {
    /// Its list.
    pub list: ListId,
    /// Start time (-1 for a link whose start has not come).
    pub start: f64,
    /// End time (-1 when not known).
    pub end: f64,
    /// Value of a state or link.
    pub value: ValueId,
    /// Value of a variable (its latest, for a list's last entity).
    pub number: f64,
    /// Nesting level of a state.
    pub level: u32,
    /// Start container of a link, when its start came.
    pub from: Option<ContainerId>,
    /// End container of a link, when its end came.
    pub to: Option<ContainerId>,
    /// User-defined fields, as in [`Entity::extras`].
    pub extras: &'a [StrId],
}

/// Receives what the simulator produces, as soon as it is final.
pub trait Sink {
    /// Entity number `idx` (creation order within its list) of `list` is final.
    fn entity(&mut self, model: &Model, list: ListId, idx: u32, entity: &Entity<'_>);
    /// State number `idx` of `list` begins: it was pushed (or set) at
    /// `start` with `value` at nesting level `level`. It is handed to
    /// [`Sink::entity`] with the same `idx` once final. Called in the
    /// order of the trace's events, after every entity of `list` that the
    /// push made final, so a sink can write states as they open and close
    /// (a slice's begin, then its end) without keeping them. Not called
    /// for the states a pop resumes without imbrication
    /// ([`SimOptions::no_imbrication`](crate::SimOptions::no_imbrication)).
    fn state_begins(
        &mut self,
        model: &Model,
        list: ListId,
        idx: u32,
        start: f64,
        value: ValueId,
        level: u32,
    ) {
        let _ = (model, list, idx, start, value, level);
    }
    /// A container has been destroyed (its end time is final).
    fn container(&mut self, model: &Model, id: ContainerId) {
        let _ = (model, id);
    }
    /// A new entity list was created.
    fn list(&mut self, model: &Model, list: ListId) {
        let _ = (model, list);
    }
    /// True when the sink cannot take more (e.g. its output is closed): a
    /// simulation may then stop early.
    fn stopped(&self) -> bool {
        false
    }
    /// Why the sink [stopped](Sink::stopped): the error it met (a copy:
    /// its kind and message), asked once when it first says it stopped. A
    /// closed pipe (`ErrorKind::BrokenPipe`) or `None`, the default, ends
    /// the simulation as for a closed output; any other error (a full
    /// disk) makes it fail with that error.
    fn stop_error(&self) -> Option<std::io::Error> {
        None
    }
    /// Whether the sink keeps the handles of user-defined values
    /// ([`Entity::extras`]) once [`Sink::entity`] has returned. One that
    /// does not (it writes or counts them at once) lets the simulation
    /// forget them, so memory does not grow with distinct values. Asked
    /// once, when the simulation starts.
    fn keeps_strings(&self) -> bool {
        true
    }
    /// A new link (line `line`) of `list` has key `key`, which the filter
    /// of [`LinkKeys::Filter`] has seen: a completed link may have used it
    /// (or this is a false positive). The simulation goes on as for a new
    /// key. Return true when the sink takes care of it (confirms it by
    /// simulating the input again with [`LinkKeys::Confirm`]); false, the
    /// default, makes it a warning.
    fn possibly_reused_key(&mut self, model: &Model, list: ListId, key: &[u8], line: u64) -> bool {
        let _ = (model, list, key, line);
        false
    }
    /// The time after which the sink wants a [`Sink::tick`] (default:
    /// never). Asked when the simulation starts and after each tick.
    fn next_tick(&self) -> f64 {
        f64::INFINITY
    }
    /// The simulation is about to apply an event later than
    /// [`Sink::next_tick`], at `time`: everything up to that event is
    /// applied, and `open` gives what it holds open (states on their
    /// stacks, links missing an end). A sink that shows the trace as it
    /// goes (a streaming player) cuts its frames here.
    fn tick(&mut self, model: &Model, time: f64, open: &mut dyn Iterator<Item = OpenEntity<'_>>) {
        let _ = (model, time, open);
    }
}

/// Counts entities per kind and discards them: a [`Sink`] of the
/// simulator and a [`ReplaySink`](crate::replay::ReplaySink) of a replay.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct CountingSink {
    /// States.
    pub states: u64,
    /// Events.
    pub events: u64,
    /// Variable values.
    pub variables: u64,
    /// Links.
    pub links: u64,
}

impl CountingSink {
    /// Counts one entity of a list of nature `kind`.
    #[inline]
    pub fn count(&mut self, kind: TypeKind) {
        match kind {
            TypeKind::State => self.states += 1,
            TypeKind::Event => self.events += 1,
            TypeKind::Variable => self.variables += 1,
            TypeKind::Link => self.links += 1,
            TypeKind::Container => {}
        }
    }

    /// Adds another count (of another part of the trace).
    pub fn add(&mut self, o: &CountingSink) {
        self.states += o.states;
        self.events += o.events;
        self.variables += o.variables;
        self.links += o.links;
    }
}

impl Sink for CountingSink {
    fn entity(&mut self, model: &Model, list: ListId, _idx: u32, _e: &Entity<'_>) {
        self.count(model.list(list).kind);
    }

    fn keeps_strings(&self) -> bool {
        false
    }
}
