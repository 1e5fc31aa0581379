//! The entity events of a replay (states, events, variables, links), with
//! the engine's semantics.

use trama_events::EventKind;

use super::run::emit;
use super::{
    key_hash, Bail, ListState, Live, Replay, ReplayEvent, ReplaySink, ReplayTables, NONE, R,
};
use crate::engine::variable_step;
use crate::model::TypeKind;

/// What an event or a state begun names: handles of its container, type
/// and value, its time and its extra fields (interned strings).
#[derive(Clone, Copy, Debug)]
pub struct Valued<'a> {
    /// The container's handle.
    pub container: u32,
    /// The type's handle.
    pub ty: u32,
    /// The value's handle.
    pub value: u32,
    /// The time.
    pub time: f64,
    /// The extra fields.
    pub extras: &'a [u32],
}

impl Valued<'_> {
    /// A `PajeNewEvent`.
    const EVENT: u8 = 0;
    /// A `PajePushState`.
    const PUSH: u8 = 1;
    /// A `PajeSetState`.
    const SET: u8 = 2;
}

impl<S: ReplaySink> Replay<S> {
    /// An entity event (states, events, variables, links).
    #[inline]
    pub fn entity(&mut self, t: &ReplayTables, ev: &ReplayEvent<'_>) -> R {
        let (c, ty, time) = (ev.container, ev.ty, ev.time);
        match ev.kind {
            EventKind::NewEvent | EventKind::SetState | EventKind::PushState => {
                let e = Valued {
                    container: c,
                    ty,
                    value: ev.value,
                    time,
                    extras: ev.extras,
                };
                match ev.kind {
                    EventKind::NewEvent => self.new_event(t, e),
                    EventKind::SetState => self.set_state(t, e),
                    _ => self.push_state(t, e),
                }
            }
            EventKind::PopState => self.pop_state(t, c, ty, time),
            EventKind::ResetState => self.reset_state(t, c, ty, time),
            EventKind::SetVariable | EventKind::AddVariable | EventKind::SubVariable => {
                self.variable_event(t, ev.kind, c, ty, time, ev.number, ev.extras)
            }
            EventKind::StartLink | EventKind::EndLink => self.link_event(
                t,
                ev.kind == EventKind::StartLink,
                c,
                ty,
                ev.value,
                ev.other,
                time,
                ev.key,
                ev.pair,
                ev.extras,
            ),
            _ => Err(Bail("not an entity event")),
        }
    }

    /// The list an event of nature `kind` on (`c`, `ty`) goes to, made on
    /// first use; `None` when the container is destroyed (the event is
    /// ignored). Sets the time of the last event.
    #[inline(always)]
    fn list_of(
        &mut self,
        t: &ReplayTables,
        c: u32,
        ty: u32,
        kind: TypeKind,
        time: f64,
    ) -> R<Option<usize>> {
        self.state.last_time = time;
        let (hc, hty, hkind, hl) = self.hint;
        if c == hc && ty == hty && kind == hkind {
            return Ok(Some(hl as usize));
        }
        let Some(cs) = self.state.containers.get(c as usize) else {
            return Err(Bail("handle out of range"));
        };
        if !cs.alive {
            self.check_type(t, c, ty, kind)?;
            return Ok(None);
        }
        let l = match cs.lists.iter().find(|(x, _)| *x == ty) {
            Some(&(_, l)) if self.state.lists[l as usize].kind == kind => l as usize,
            Some(_) => return Err(Bail("type does not fit the event or the container")),
            None => self.new_list(t, c, ty, kind)?,
        };
        self.hint = (c, ty, kind, l as u32);
        Ok(Some(l))
    }

    /// The value of a state, event or link event belongs to its type.
    #[inline(always)]
    fn check_value(&self, t: &ReplayTables, ty: u32, value: u32) -> R {
        if value >= self.state.values || t.value_ty.get(value as usize) != Some(&ty) {
            return Err(Bail("value out of range"));
        }
        Ok(())
    }

    /// `PajeNewEvent`.
    #[inline(always)]
    pub fn new_event(&mut self, t: &ReplayTables, e: Valued<'_>) -> R {
        self.valued(t, e, Valued::EVENT)
    }

    /// `PajePushState`.
    #[inline(always)]
    pub fn push_state(&mut self, t: &ReplayTables, e: Valued<'_>) -> R {
        self.valued(t, e, Valued::PUSH)
    }

    /// `PajeSetState`.
    #[inline(always)]
    pub fn set_state(&mut self, t: &ReplayTables, e: Valued<'_>) -> R {
        self.valued(t, e, Valued::SET)
    }

    /// An event (`how` = [`Valued::EVENT`]), or a state pushed on its stack,
    /// emptied first when `how` = [`Valued::SET`] (`PajeSetState`; the new
    /// state is then at level 0).
    #[inline(always)]
    fn valued(&mut self, t: &ReplayTables, e: Valued<'_>, how: u8) -> R {
        let (c, ty, value, time) = (e.container, e.ty, e.value, e.time);
        self.check_value(t, ty, value)?;
        let kind = if how == Valued::EVENT {
            TypeKind::Event
        } else {
            TypeKind::State
        };
        let Some(l) = self.list_of(t, c, ty, kind, time)? else {
            return Ok(());
        };
        self.check_order(l, time)?;
        if how == Valued::SET {
            self.reset(l, time);
        }
        let extras = self.state.put_extras(e.extras);
        if how == Valued::EVENT {
            self.append(l, Live::new(time, time, value, extras));
        } else {
            let level = self.state.lists[l].stack.last().map_or(0, |x| x.level + 1);
            let e = Live::new(time, -1.0, value, extras);
            self.push(l, Live { level, ..e });
        }
        self.state.containers[c as usize].end = time;
        Ok(())
    }

    /// `PajePopState`.
    #[inline(always)]
    pub fn pop_state(&mut self, t: &ReplayTables, c: u32, ty: u32, time: f64) -> R {
        self.end_states(t, c, ty, time, false)
    }

    /// `PajeResetState`.
    #[inline(always)]
    pub fn reset_state(&mut self, t: &ReplayTables, c: u32, ty: u32, time: f64) -> R {
        self.end_states(t, c, ty, time, true)
    }

    /// The top state of its stack ended, or every state when `all`
    /// (`PajeResetState`).
    #[inline(always)]
    fn end_states(&mut self, t: &ReplayTables, c: u32, ty: u32, time: f64, all: bool) -> R {
        let Some(l) = self.list_of(t, c, ty, TypeKind::State, time)? else {
            return Ok(());
        };
        self.check_order(l, time)?;
        if all {
            self.reset(l, time);
        } else {
            self.pop(l, time)?;
        }
        self.state.containers[c as usize].end = time;
        Ok(())
    }

    /// `PajeSetVariable`, `PajeAddVariable` or `PajeSubVariable` (`kind`).
    #[inline(always)]
    #[allow(clippy::too_many_arguments)]
    pub fn variable_event(
        &mut self,
        t: &ReplayTables,
        kind: EventKind,
        c: u32,
        ty: u32,
        time: f64,
        number: f64,
        extras: &[u32],
    ) -> R {
        let Some(l) = self.list_of(t, c, ty, TypeKind::Variable, time)? else {
            return Ok(());
        };
        self.variable(l, kind, time, number, extras)?;
        self.state.containers[c as usize].end = time;
        Ok(())
    }

    /// `PajeStartLink` (`start`) or `PajeEndLink`.
    #[inline(always)]
    #[allow(clippy::too_many_arguments)]
    pub fn link_event(
        &mut self,
        t: &ReplayTables,
        start: bool,
        c: u32,
        ty: u32,
        value: u32,
        other: u32,
        time: f64,
        key: &[u8],
        pair: Option<u64>,
        extras: &[u32],
    ) -> R {
        let o = other as usize;
        let want = if start {
            t.type_start.get(ty as usize)
        } else {
            t.type_end.get(ty as usize)
        };
        if o >= self.state.containers.len() || t.cont_ty.get(o) != want {
            return Err(Bail("link end of the wrong type"));
        }
        self.check_value(t, ty, value)?;
        let Some(l) = self.list_of(t, c, ty, TypeKind::Link, time)? else {
            return Ok(());
        };
        let pair = match pair {
            Some(back) => match self.state.lists[l].links.checked_sub(back) {
                Some(n) if back > 0 => Some(n),
                _ => return Err(Bail("link end pairs with no pending link")),
            },
            None if self.key_index => self.find_by_key(l, key),
            None => None,
        };
        match pair {
            Some(n) => self.link_second(l, n, start, value, other, time, extras)?,
            None => self.link_first(l, key, start, value, other, time, extras),
        }
        self.state.containers[c as usize].end = time;
        Ok(())
    }

    #[inline(always)]
    fn check_order(&self, l: usize, time: f64) -> R {
        if let Some(last) = self.state.lists[l].last() {
            if last.start > time || (last.end != -1.0 && last.end > time) {
                return Err(Bail("not in time order"));
            }
        }
        Ok(())
    }

    /// Numbers `e` as list `l`'s next entity, whose previous tail is final
    /// (handed to the sink); the list, for `e` to be put in.
    #[inline(always)]
    fn next_in(&mut self, l: usize, e: &mut Live) -> &mut ListState {
        // The previous tail is handed to the sink where it lies: copied
        // out right after a field of it changed, it would be read back
        // from a half-forwarded store.
        let st = &self.state;
        let ls = &st.lists[l];
        e.idx = ls.next_idx;
        if let Some(prev) = &ls.tail {
            emit(&mut self.sink, st, ls.id, ls.kind, prev);
        }
        let ls = &mut self.state.lists[l];
        ls.next_idx += 1;
        ls
    }

    /// Appends an unstacked entity: it becomes the tail; the previous tail
    /// is final.
    #[inline(always)]
    fn append(&mut self, l: usize, mut e: Live) {
        let ls = self.next_in(l, &mut e);
        ls.tail = Some(e);
    }

    /// Pushes a state: the previous tail is final.
    #[inline(always)]
    fn push(&mut self, l: usize, mut e: Live) {
        let ls = self.next_in(l, &mut e);
        ls.tail = None;
        ls.stack.push(e);
    }

    /// Ends every stacked state: all final but the list's last one.
    fn reset(&mut self, l: usize, time: f64) {
        let st = &mut self.state;
        let ls = &mut st.lists[l];
        if ls.stack.is_empty() {
            return;
        }
        let (id, kind) = (ls.id, ls.kind);
        let mut stack = std::mem::take(&mut ls.stack);
        if ls.tail.is_none() {
            // The top stays, as the list's last entity: its end is set
            // where it lands.
            ls.tail = stack.pop();
            if let Some(t) = &mut ls.tail {
                t.end = time;
            }
        }
        for e in &mut stack {
            e.end = time;
            emit(&mut self.sink, st, id, kind, e);
        }
        stack.clear();
        st.lists[l].stack = stack;
    }

    #[inline(always)]
    fn pop(&mut self, l: usize, time: f64) -> R {
        let st = &mut self.state;
        let ls = &mut st.lists[l];
        let Some(mut e) = ls.stack.pop() else {
            return Err(Bail("pop of an empty stack"));
        };
        if ls.tail.is_none() {
            // The popped state is the list's last: not final yet (its end
            // is set where it lands).
            ls.tail.insert(e).end = time;
        } else {
            e.end = time;
            let (id, kind) = (ls.id, ls.kind);
            emit(&mut self.sink, st, id, kind, &e);
        }
        Ok(())
    }

    #[inline(always)]
    fn variable(&mut self, l: usize, kind: EventKind, time: f64, v: f64, extras: &[u32]) -> R {
        let ls = &mut self.state.lists[l];
        let has_last = ls.next_idx > 0;
        if kind != EventKind::SetVariable && !has_last {
            return Err(Bail("variable changed before it was set"));
        }
        if let Some(last) = &ls.tail {
            if last.start > time || (last.end != -1.0 && last.end > time) {
                return Err(Bail("not in time order"));
            }
        }
        let last = ls
            .tail
            .as_mut()
            .map(|e| (e.start, &mut e.end, &mut e.number));
        let Some(number) = variable_step(kind, time, v, last) else {
            return Ok(());
        };
        let extras = self.state.put_extras(extras);
        self.append(
            l,
            Live {
                number,
                ..Live::new(time, -1.0, NONE, extras)
            },
        );
        Ok(())
    }

    /// The number of the link pending in list `l` under `key`.
    fn find_by_key(&self, l: usize, key: &[u8]) -> Option<u64> {
        let st = &self.state;
        let ls = &st.lists[l];
        let h = key_hash(key);
        let mut buf = [0u8; 16];
        ls.by_key
            .find(h, |&(kh, n)| {
                kh == h
                    && ls
                        .pending
                        .get(n)
                        .is_some_and(|p| st.key(p.key, &mut buf) == key)
            })
            .map(|&(_, n)| n)
    }

    /// A link's first end: it is pending until its other end comes.
    #[inline(always)]
    #[allow(clippy::too_many_arguments)]
    fn link_first(
        &mut self,
        l: usize,
        key: &[u8],
        is_start: bool,
        value: u32,
        other: u32,
        time: f64,
        extras: &[u32],
    ) {
        let st = &mut self.state;
        let n = st.lists[l].links;
        st.lists[l].links += 1;
        let h = key_hash(key);
        self.first_ends
            .push(h ^ (st.lists[l].id as u64).wrapping_mul(0x9e37_79b9_7f4a_7c15));
        let key = st.make_key(key);
        let extras = st.put_extras(extras);
        let p = Live {
            start: if is_start { time } else { -1.0 },
            end: if is_start { -1.0 } else { time },
            value,
            from: if is_start { other } else { NONE },
            to: if is_start { NONE } else { other },
            key,
            extras,
            ..Live::default()
        };
        st.insert_pending(l, n, p);
        if self.key_index {
            st.lists[l].by_key.insert_unique(h, (h, n), |(h, _)| *h);
        }
    }

    /// A link's second end, completing pending link `n`.
    #[inline(always)]
    #[allow(clippy::too_many_arguments)]
    fn link_second(
        &mut self,
        l: usize,
        n: u64,
        is_start: bool,
        value: u32,
        other: u32,
        time: f64,
        extras: &[u32],
    ) -> R {
        let st = &mut self.state;
        let ls = &mut st.lists[l];
        let Some(mut p) = ls.pending.remove(n) else {
            return Err(Bail("link end pairs with no pending link"));
        };
        if self.key_index {
            let mut buf = [0u8; 16];
            let h = key_hash(st.key(p.key, &mut buf));
            if let Ok(e) = st.lists[l].by_key.find_entry(h, |&(_, x)| x == n) {
                e.remove();
            }
        }
        if is_start {
            p.start = time;
            p.from = other;
        } else {
            p.end = time;
            p.to = other;
        }
        if !extras.is_empty() {
            let mut x = st.extras_of(&p).to_vec();
            x.extend_from_slice(extras);
            p.extras = st.put_extras(&x);
        }
        if p.value != value {
            return Err(Bail("link ends with different values"));
        }
        self.check_order(l, time)?;
        self.append(l, p);
        Ok(())
    }
}
