//! The replay itself: its state, what it gathers for the caller, and the
//! model events (types, values, containers created and destroyed).

use smallvec::SmallVec;

use super::{
    Bail, ContainerState, Final, ListState, Live, ReplaySink, ReplayState, ReplayTables, R,
};
use crate::engine::end_at_destruction;
use crate::model::{ContainerId, TypeKind};

/// A list created during a replay.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct NewList {
    /// Its handle.
    pub id: u32,
    /// Its container.
    pub container: u32,
    /// Its type.
    pub ty: u32,
    /// The nature of its type.
    pub kind: TypeKind,
}

/// Replays entity events from a [`ReplayState`]; see the module docs.
pub struct Replay<S> {
    /// The current state.
    pub state: ReplayState,
    /// Where final entities go.
    pub sink: S,
    /// Drop links that never got their other end, with a warning (pj_dump
    /// `-z`), instead of giving up.
    ignore_incomplete_links: bool,
    /// Hashes of every link's first end (list and key).
    pub first_ends: Vec<u64>,
    /// Lists created by this replay.
    pub new_lists: Vec<NewList>,
    /// Containers destroyed by this replay, with the time.
    pub destroyed: Vec<(u32, f64)>,
    /// Warnings (links dropped with `-z`).
    pub warnings: Vec<String>,
    /// Pair link ends by key (else a second end comes with its number).
    pub(super) key_index: bool,
    /// The last list an event went to: container, type, nature, list
    /// (`u32::MAX` for none). Events come in runs on one list (a binary
    /// trace stores them so): the next one most often goes there too, and
    /// is then known alive without a look-up. Cleared when a container is
    /// destroyed.
    pub(super) hint: (u32, u32, TypeKind, u32),
}

const NO_HINT: (u32, u32, TypeKind, u32) = (u32::MAX, u32::MAX, TypeKind::Container, u32::MAX);

#[inline]
pub(super) fn emit<S: ReplaySink>(
    sink: &mut S,
    state: &ReplayState,
    list: u32,
    kind: TypeKind,
    e: &Live,
) {
    sink.entity(&Final {
        list,
        kind,
        e,
        state,
    });
}

impl<S: ReplaySink> Replay<S> {
    /// A replay going on from `state`.
    pub fn new(state: ReplayState, sink: S) -> Replay<S> {
        Replay {
            state,
            sink,
            ignore_incomplete_links: false,
            first_ends: Vec::new(),
            new_lists: Vec::new(),
            destroyed: Vec::new(),
            warnings: Vec::new(),
            key_index: false,
            hint: NO_HINT,
        }
    }

    /// Pairs link ends by their keys, as the engine does (for events read
    /// from text). The state must not hold pending links yet.
    pub fn with_key_index(mut self) -> Replay<S> {
        self.key_index = true;
        self
    }

    /// With `yes`, drops links that never got their other end, with a
    /// warning (pj_dump `-z`), instead of giving up.
    pub fn ignoring_incomplete_links(mut self, yes: bool) -> Replay<S> {
        self.ignore_incomplete_links = yes;
        self
    }

    /// A model record with no effect on entities (a stream's declaration).
    pub fn model_record(&mut self) {
        self.state.model_cursor += 1;
    }

    /// A type definition (`PajeDefine*Type`).
    pub fn new_type(&mut self) {
        let st = &mut self.state;
        st.model_cursor += 1;
        st.types += 1;
        st.last_time = 0.0;
    }

    /// A new value: defined by `PajeDefineEntityValue` (an event, which
    /// sets the time to 0) or created by its first use (not an event).
    pub fn new_value(&mut self, defined: bool) {
        let st = &mut self.state;
        st.model_cursor += 1;
        st.values += 1;
        if defined {
            st.last_time = 0.0;
        }
    }

    /// `PajeCreateContainer` of container `id` (the next handle).
    pub fn new_container(&mut self, id: u32, time: f64) -> R {
        let st = &mut self.state;
        st.model_cursor += 1;
        st.last_time = time;
        if id as usize != st.containers.len() {
            return Err(Bail("container handles out of sequence"));
        }
        st.containers.push(ContainerState {
            alive: true,
            end: -1.0,
            lists: SmallVec::new(),
        });
        Ok(())
    }

    /// Sets the time of the last event to `time`, an event of container
    /// `c` (whose last event it is, when alive): after events replayed
    /// out of trace order, the times as trace order leaves them.
    pub fn set_last_time(&mut self, c: u32, time: f64) {
        self.state.last_time = time;
        if let Some(cs) = self.state.containers.get_mut(c as usize) {
            if cs.alive {
                cs.end = time;
            }
        }
    }

    /// An event whose only effect is the time (`PajeTraceFile`).
    pub fn time_event(&mut self, time: f64) {
        self.state.model_cursor += 1;
        self.state.last_time = time;
    }

    /// `PajeDestroyContainer`.
    pub fn destroy_event(&mut self, t: &ReplayTables, c: u32, time: f64) -> R {
        let st = &mut self.state;
        st.model_cursor += 1;
        st.last_time = time;
        let Some(cs) = st.containers.get(c as usize) else {
            return Err(Bail("destroyed container not created"));
        };
        if time < cs.end {
            return Err(Bail("container destroyed before its last event"));
        }
        if !cs.alive {
            return Ok(());
        }
        self.destroy(t, c, time)
    }

    /// Ends the trace at `time` (by default the time of the last event):
    /// every container still alive is destroyed.
    pub fn finish(&mut self, t: &ReplayTables, time: Option<f64>) -> R {
        let time = time.unwrap_or(self.state.last_time);
        self.recursive_destroy(t, ContainerId::ROOT.0, time)
    }

    /// Destroys, at `time`, every container of the subtree of `c` still
    /// alive, parents before children (depth first; iterative, for trees
    /// of any depth).
    fn recursive_destroy(&mut self, t: &ReplayTables, c: u32, time: f64) -> R {
        let mut todo = vec![c];
        while let Some(c) = todo.pop() {
            if self.state.containers[c as usize].alive {
                self.destroy(t, c, time)?;
            }
            todo.extend(self.known_children(t, c).iter().rev());
        }
        Ok(())
    }

    /// The children of `c` this replay has met (the tables may know more).
    fn known_children<'t>(&self, t: &'t ReplayTables, c: u32) -> &'t [u32] {
        let n = self.state.containers.len() as u32;
        let children = t.children.get(c as usize).map_or(&[][..], Vec::as_slice);
        let met = children.iter().position(|&ch| ch >= n);
        &children[..met.unwrap_or(children.len())]
    }

    /// Destroys `c` at `time`, and with it its children still alive,
    /// theirs, and so on (depth first, parents first; iterative).
    fn destroy(&mut self, t: &ReplayTables, c: u32, time: f64) -> R {
        let mut todo = vec![c];
        while let Some(c) = todo.pop() {
            self.destroy_one(t, c, time)?;
            let containers = &self.state.containers;
            let alive = self.known_children(t, c).iter().rev();
            todo.extend(alive.filter(|&&ch| containers[ch as usize].alive));
        }
        Ok(())
    }

    /// Destroys `c` alone: its entities end and are handed over.
    fn destroy_one(&mut self, t: &ReplayTables, c: u32, time: f64) -> R {
        self.hint = NO_HINT;
        let st = &mut self.state;
        let cs = &mut st.containers[c as usize];
        cs.alive = false;
        cs.end = time;
        self.destroyed.push((c, time));
        let lists = cs.lists.clone();
        // Finish the last entity of every list.
        for &(_, li) in &lists {
            let ls = &mut st.lists[li as usize];
            let kind = ls.kind;
            let last = match &mut ls.tail {
                Some(t) => Some(t),
                None => ls.stack.last_mut(),
            };
            if let Some(last) = last {
                end_at_destruction(kind, &mut last.start, &mut last.end, time);
            }
        }
        for &(_, li) in &lists {
            let ls = &mut st.lists[li as usize];
            if ls.pending.is_empty() {
                continue;
            }
            if !self.ignore_incomplete_links {
                return Err(Bail("incomplete links"));
            }
            let n = ls.pending.len();
            self.warnings.push(format!(
                "{n} incomplete link(s) of type '{}' in container '{}' ignored (-z)",
                t.type_name.get(ls.ty as usize).map_or("", |s| s),
                t.cont_name.get(c as usize).map_or("", |s| s),
            ));
            ls.pending.clear();
            ls.by_key.clear();
        }
        // Close stacked states and hand over everything not final.
        for &(_, li) in &lists {
            let ls = &mut st.lists[li as usize];
            let (id, kind) = (ls.id, ls.kind);
            let mut stack = std::mem::take(&mut ls.stack);
            let tail = ls.tail.take();
            for e in &mut stack {
                e.end = time;
            }
            for e in stack.iter().chain(&tail) {
                emit(&mut self.sink, st, id, kind, e);
            }
        }
        Ok(())
    }

    /// Checks a new list's type against its container and the event, and
    /// creates it.
    #[cold]
    pub(super) fn new_list(
        &mut self,
        t: &ReplayTables,
        c: u32,
        ty: u32,
        kind: TypeKind,
    ) -> R<usize> {
        let st = &mut self.state;
        if ty >= st.types
            || t.type_kind.get(ty as usize) != Some(&kind)
            || t.type_parent.get(ty as usize) != t.cont_ty.get(c as usize)
        {
            return Err(Bail("type does not fit the event or the container"));
        }
        let l = st.lists.len();
        let id = st.list_count;
        st.list_count += 1;
        st.lists.push(ListState::new(id, c, ty, kind));
        st.containers[c as usize].lists.push((ty, l as u32));
        self.new_lists.push(NewList {
            id,
            container: c,
            ty,
            kind,
        });
        Ok(l)
    }

    /// The checks of an event on a destroyed container (no list is made).
    #[cold]
    pub(super) fn check_type(&self, t: &ReplayTables, c: u32, ty: u32, kind: TypeKind) -> R {
        let (c, ty) = (c as usize, ty as usize);
        if ty >= self.state.types as usize
            || t.type_kind.get(ty) != Some(&kind)
            || t.type_parent.get(ty) != t.cont_ty.get(c)
        {
            return Err(Bail("type does not fit the event or the container"));
        }
        Ok(())
    }
}
