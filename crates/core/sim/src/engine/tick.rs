//! The engine's ticks: a sink that shows the trace as it goes (a
//! streaming player) asks for one at a time ([`Sink::next_tick`]); when an
//! operation passes it, the sink is shown what the engine still holds,
//! as [`OpenEntity`]s: stacked states, each list's last entity, and
//! pending links.

use super::{Engine, NONE};
use crate::model::{ContainerId, ListId, ValueId};
use crate::sink::{OpenEntity, Sink};

impl<S: Sink> Engine<S> {
    /// Gives the sink its tick when `time` passes the one it asked for.
    #[inline(always)]
    pub(super) fn at(&mut self, time: f64) {
        if time > self.next_tick {
            self.tick(time);
        }
    }

    #[cold]
    fn tick(&mut self, time: f64) {
        let (lists, slab) = (&self.lists, &self.slab);
        let opt = |c: u32| (c != NONE).then_some(ContainerId(c));
        let mut open = lists.iter().enumerate().flat_map(|(l, ll)| {
            // The live entities: stacked states and each list's last
            // entity (final only when the next one comes).
            let pending = ll.pending.values().map(move |slot| &slab[slot as usize]);
            ll.live.iter().chain(pending).map(move |e| OpenEntity {
                list: ListId(l as u32),
                start: e.start,
                end: e.end,
                value: ValueId(e.value),
                number: e.number,
                level: e.level,
                from: opt(e.from),
                to: opt(e.to),
                extras: e.extras(),
            })
        });
        self.sink.tick(&self.model, time, &mut open);
        self.next_tick = self.sink.next_tick();
    }
}
