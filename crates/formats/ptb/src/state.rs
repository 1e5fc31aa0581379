//! Keyframes: the simulation state before an events frame, in one
//! canonical form (so that the state a reader reaches at the end of a block
//! can be compared byte for byte with the next keyframe).

use trama_sim::replay::{ContainerState, ListState, Live, NewList, ReplayState, ReplayTables};
use trama_sim::TypeKind;

use crate::varint::{self, Cursor};

/// What the model holds before a model record: types, values, containers.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct Counts {
    pub types: u32,
    pub values: u32,
    pub containers: u32,
}

fn put_f64(out: &mut Vec<u8>, v: f64) {
    out.extend_from_slice(&v.to_le_bytes());
}

fn put_live(out: &mut Vec<u8>, st: &ReplayState, e: &Live) {
    varint::put(out, e.idx as u64);
    put_f64(out, e.start);
    put_f64(out, e.end);
    put_f64(out, e.number);
    varint::put(out, e.value.wrapping_add(1) as u64);
    varint::put(out, e.level as u64);
    varint::put(out, e.from.wrapping_add(1) as u64);
    varint::put(out, e.to.wrapping_add(1) as u64);
    let mut buf = [0u8; 16];
    varint::put_bytes(out, st.key(e.key, &mut buf));
    let x = st.extras_of(e);
    varint::put(out, x.len() as u64);
    for &c in x {
        varint::put(out, c as u64);
    }
}

/// Appends the canonical form of `st` (see the format's keyframe section).
pub(crate) fn encode(st: &ReplayState, out: &mut Vec<u8>) {
    varint::put(out, st.model_cursor);
    put_f64(out, st.last_time);
    varint::put(out, st.containers.len() as u64);
    varint::put(out, st.list_count as u64);
    let alive = st.containers.iter().filter(|c| c.alive).count();
    varint::put(out, alive as u64);
    let mut next = 0u64;
    for (i, c) in st.containers.iter().enumerate() {
        if c.alive {
            varint::put(out, i as u64 - next);
            next = i as u64 + 1;
            put_f64(out, c.end);
        }
    }
    let lists: Vec<&ListState> = st.live_lists().map(|(_, l)| l).collect();
    varint::put(out, lists.len() as u64);
    let mut next = 0u64;
    for l in lists {
        varint::put(out, l.id as u64 - next);
        next = l.id as u64 + 1;
        varint::put(out, l.container as u64);
        varint::put(out, l.ty as u64);
        varint::put(out, l.next_idx as u64);
        varint::put(out, l.stack.len() as u64);
        for e in &l.stack {
            put_live(out, st, e);
        }
        match &l.tail {
            Some(e) => {
                out.push(1);
                put_live(out, st, e);
            }
            None => out.push(0),
        }
        varint::put(out, l.links);
        varint::put(out, l.pending.len() as u64);
        let mut next = 0u64;
        for (n, e) in l.pending.sorted() {
            varint::put(out, n - next);
            next = n + 1;
            put_live(out, st, e);
        }
    }
}

fn get_live(c: &mut Cursor<'_>, st: &mut ReplayState) -> Option<Live> {
    let idx = c.u32()?;
    let start = c.f64()?;
    let end = c.f64()?;
    let number = c.f64()?;
    let value = c.u32()?.wrapping_sub(1);
    let level = c.u32()?;
    let from = c.u32()?.wrapping_sub(1);
    let to = c.u32()?.wrapping_sub(1);
    let key = st.make_key(c.bytes()?);
    let n = c.varint()?;
    if n > c.remaining() as u64 {
        return None;
    }
    let mut x = Vec::with_capacity(n as usize);
    for _ in 0..n {
        x.push(c.u32()?);
    }
    let extras = st.put_extras(&x);
    Some(Live {
        idx,
        start,
        end,
        number,
        value,
        level,
        from,
        to,
        key,
        extras,
    })
}

/// What a keyframe says, checked for structure (every index in range);
/// whether it is *true* is checked by comparing it with the state the
/// previous block ends in.
pub(crate) struct Restored {
    pub state: ReplayState,
    /// The lists it holds (those of alive containers).
    pub lists: Vec<NewList>,
}

/// Reads a state written by [`encode`]. `counts` gives what the model holds
/// before a model record, `dead` the time each container is destroyed at
/// (by its own or a parent's destruction) with the record doing it.
pub(crate) fn decode(
    bytes: &[u8],
    tables: &ReplayTables,
    counts: &[Counts],
    dead: &[(u64, f64)],
) -> Option<Restored> {
    let mut c = Cursor::new(bytes);
    let model_cursor = c.varint()?;
    let last_time = c.f64()?;
    let ncont = c.varint()?;
    let list_count = c.u32()?;
    let at = counts.get(usize::try_from(model_cursor).ok()?)?;
    if ncont != at.containers as u64 {
        return None;
    }
    let mut state = ReplayState::new();
    state.model_cursor = model_cursor;
    state.types = at.types;
    state.values = at.values;
    state.last_time = last_time;
    state.list_count = list_count;
    state.containers = (0..ncont as usize)
        .map(|i| {
            let end = match dead.get(i) {
                Some(&(rec, t)) if rec < model_cursor => t,
                _ => -1.0,
            };
            ContainerState {
                alive: false,
                end,
                lists: Default::default(),
            }
        })
        .collect();
    let nalive = c.varint()?;
    let mut next = 0u64;
    for _ in 0..nalive {
        let id = next.checked_add(c.varint()?)?;
        let cs = state.containers.get_mut(usize::try_from(id).ok()?)?;
        cs.alive = true;
        cs.end = c.f64()?;
        next = id + 1;
    }
    let nlists = c.varint()?;
    let mut lists = Vec::new();
    let mut next = 0u64;
    for _ in 0..nlists {
        let id = u32::try_from(next.checked_add(c.varint()?)?).ok()?;
        if id >= list_count {
            return None;
        }
        next = id as u64 + 1;
        let container = c.u32()?;
        let ty = c.u32()?;
        if ty >= at.types {
            return None;
        }
        let kind = tables.type_kind(ty)?;
        if kind == TypeKind::Container {
            return None;
        }
        let index = state.lists.len() as u32;
        let cs = state.containers.get_mut(container as usize)?;
        if !cs.alive || cs.lists.iter().any(|&(t, _)| t == ty) {
            return None;
        }
        cs.lists.push((ty, index));
        let mut l = ListState::new(id, container, ty, kind);
        l.next_idx = c.u32()?;
        let n = c.varint()?;
        for _ in 0..n {
            let e = get_live(&mut c, &mut state)?;
            l.stack.push(e);
        }
        l.tail = match c.byte()? {
            0 => None,
            1 => Some(get_live(&mut c, &mut state)?),
            _ => return None,
        };
        l.links = c.varint()?;
        let links = l.links;
        state.lists.push(l);
        let n = c.varint()?;
        let mut next = 0u64;
        for _ in 0..n {
            let number = next.checked_add(c.varint()?)?;
            if number >= links {
                return None;
            }
            next = number + 1;
            let e = get_live(&mut c, &mut state)?;
            state.insert_pending(index as usize, number, e);
        }
        lists.push(NewList {
            id,
            container,
            ty,
            kind,
        });
    }
    if !c.at_end() {
        return None;
    }
    Some(Restored { state, lists })
}
