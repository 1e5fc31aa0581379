//! What the Chrome and Perfetto writers share as simulation sinks: states
//! as slices begun when pushed and ended in nesting order, events as
//! instants, variables as counters, links as flows numbered in order, a
//! count of what was written, and the first write error, after which
//! nothing more is written and the simulation is told to stop.
//!
//! A writer implements [`Slices`] (where each thing goes and how it is
//! written in its format); [`slice_sink!`] makes it a `Sink`.

use std::io;

use trama_sim::{ContainerId, Entity, ListId, Model, TypeId, TypeKind, ValueId};

use crate::{Nesting, Written};

/// The part of a writer's state that [`Slices`] keeps: the open states per
/// list, the state ends to write, the counts, the last flow's number.
#[derive(Debug, Default)]
pub(crate) struct Slicing {
    pub(crate) nesting: Nesting,
    ends: Vec<f64>,
    pub(crate) written: Written,
    next_flow: u64,
}

/// A link as a flow: its ends, its type, its number.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Flow {
    pub(crate) from: ContainerId,
    pub(crate) to: ContainerId,
    pub(crate) ty: TypeId,
    pub(crate) id: u64,
}

/// A writer of slices, instants, counters and flows in one format.
pub(crate) trait Slices {
    /// Where the slices of a list go (a track, a thread).
    type At: Copy;
    /// The first write error, after which nothing more is written.
    fn error(&self) -> Option<&io::Error>;
    /// The shared state.
    fn slicing(&mut self) -> &mut Slicing;
    /// Where the slices of `list` go (made when first asked).
    fn at(&mut self, m: &Model, list: ListId) -> Self::At;
    /// A slice of `value` (of the state type `ty`) begins at `t`.
    fn begin(&mut self, m: &Model, at: Self::At, t: f64, value: ValueId, ty: TypeId);
    /// The innermost open slice at `at` ends at `t`.
    fn end(&mut self, at: Self::At, t: f64);
    /// An instant of `value` (of the event type `ty`) on `list` at `t`.
    fn instant(&mut self, m: &Model, list: ListId, t: f64, value: ValueId, ty: TypeId);
    /// The variable `list` takes `number` at `t`.
    fn variable(&mut self, m: &Model, list: ListId, t: f64, number: f64);
    /// The link `e`, its flow `l`.
    fn link(&mut self, m: &Model, e: &Entity<'_>, l: Flow);
    /// The container `id` was destroyed.
    fn container(&mut self, m: &Model, id: ContainerId) {
        let _ = (m, id);
    }
}

/// A copy of the first write error, for `Sink::stop_error`.
pub(crate) fn stop_error<S: Slices>(s: &S) -> Option<io::Error> {
    let e = s.error()?;
    Some(io::Error::new(e.kind(), e.to_string()))
}

/// `Sink::state_begins`: the slice begins as the state is pushed.
pub(crate) fn state_begins<S: Slices>(
    s: &mut S,
    m: &Model,
    list: ListId,
    idx: u32,
    start: f64,
    value: ValueId,
) {
    if s.error().is_some() {
        return;
    }
    let at = s.at(m, list);
    let start = s.slicing().nesting.begin(list, idx, start);
    let ty = m.list(list).ty;
    s.begin(m, at, start, value, ty);
}

/// `Sink::entity`: a state's slice ends (or is written whole when its
/// beginning was not seen), an event, a variable's value, a link.
pub(crate) fn entity<S: Slices>(s: &mut S, m: &Model, list: ListId, idx: u32, e: &Entity<'_>) {
    if s.error().is_some() {
        return;
    }
    let info = m.list(list);
    let (kind, ty, c) = (info.kind, info.ty, info.container);
    match kind {
        TypeKind::State => {
            let at = s.at(m, list);
            let sl = s.slicing();
            let mut ends = std::mem::take(&mut sl.ends);
            if !sl.nesting.end(list, idx, e.end, &mut ends) {
                // Not seen beginning: written whole.
                let (start, end) = sl.nesting.whole(list, e.start, e.end);
                s.begin(m, at, start, e.value, ty);
                ends.push(end);
            }
            for &t in &ends {
                s.end(at, t);
            }
            ends.clear();
            let sl = s.slicing();
            sl.ends = ends;
            sl.written.states += 1;
        }
        TypeKind::Event => {
            s.instant(m, list, e.start, e.value, ty);
            s.slicing().written.events += 1;
        }
        TypeKind::Variable => {
            s.variable(m, list, e.start, e.number);
            s.slicing().written.variables += 1;
        }
        TypeKind::Link => {
            let from = e.from.unwrap_or(c);
            let to = e.to.unwrap_or(c);
            let sl = s.slicing();
            sl.next_flow += 1;
            let id = sl.next_flow;
            s.link(m, e, Flow { from, to, ty, id });
            s.slicing().written.links += 1;
        }
        TypeKind::Container => {}
    }
}

/// `Sink::container`.
pub(crate) fn container<S: Slices>(s: &mut S, m: &Model, id: ContainerId) {
    if s.error().is_none() {
        Slices::container(s, m, id);
    }
}

/// Implements `trama_sim::Sink` for the writer `$w<W>` through its
/// [`Slices`].
macro_rules! slice_sink {
    ($w:ident) => {
        impl<W: std::io::Write> trama_sim::Sink for $w<W> {
            fn keeps_strings(&self) -> bool {
                false
            }

            fn stopped(&self) -> bool {
                crate::slices::Slices::error(self).is_some()
            }

            fn stop_error(&self) -> Option<std::io::Error> {
                crate::slices::stop_error(self)
            }

            fn state_begins(
                &mut self,
                m: &trama_sim::Model,
                list: trama_sim::ListId,
                idx: u32,
                start: f64,
                value: trama_sim::ValueId,
                _level: u32,
            ) {
                crate::slices::state_begins(self, m, list, idx, start, value)
            }

            fn entity(
                &mut self,
                m: &trama_sim::Model,
                list: trama_sim::ListId,
                idx: u32,
                e: &trama_sim::Entity<'_>,
            ) {
                crate::slices::entity(self, m, list, idx, e)
            }

            fn container(&mut self, m: &trama_sim::Model, id: trama_sim::ContainerId) {
                crate::slices::container(self, m, id)
            }
        }
    };
}
pub(crate) use slice_sink;
