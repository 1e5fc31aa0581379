//! A [`Trace`] from the pieces of a parallel replay: each replay keeps the
//! entities it finalized in per-list buffers ([`ColumnSink`]); the buffers
//! of every replay are then placed, list by list in parallel, at their
//! creation index.

use rayon::prelude::*;

use crate::intern::StrId;
use crate::model::{ContainerId, ListId, ListInfo, Model, TypeId, TypeKind, ValueId};
use crate::replay::{Final, NewList, ReplaySink};
use crate::store::{Columns, Trace};

/// The entities of one list finalized by one replay, in finalization order.
#[derive(Clone, Debug, Default)]
struct ListOut {
    idx: Vec<u32>,
    start: Vec<f64>,
    end: Vec<f64>,
    value: Vec<u32>,
    level: Vec<u32>,
    number: Vec<f64>,
    from: Vec<u32>,
    to: Vec<u32>,
    key: Vec<(u32, u32)>,
    key_bytes: Vec<u8>,
    /// Per entity: range in `extras_pool` (only when extras are kept).
    extras: Vec<(u32, u32)>,
    extras_pool: Vec<u32>,
}

/// Keeps the entities a replay finalizes, per list, to make a [`Trace`]
/// with [`assemble_trace`].
#[derive(Clone, Debug, Default)]
pub struct ColumnSink {
    keep_extras: bool,
    lists: Vec<ListOut>,
}

impl ColumnSink {
    /// A sink; `keep_extras` keeps user-defined fields.
    pub fn new(keep_extras: bool) -> ColumnSink {
        ColumnSink {
            keep_extras,
            lists: Vec::new(),
        }
    }

    /// Entities kept.
    pub fn len(&self) -> usize {
        self.lists.iter().map(|l| l.idx.len()).sum()
    }

    /// True when no entity was kept.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

impl ReplaySink for ColumnSink {
    #[inline]
    fn entity(&mut self, f: &Final<'_>) {
        let l = f.list as usize;
        if l >= self.lists.len() {
            self.lists.resize_with(l + 1, ListOut::default);
        }
        let (o, e) = (&mut self.lists[l], f.e);
        o.idx.push(e.idx);
        o.start.push(e.start);
        o.end.push(e.end);
        match f.kind {
            TypeKind::State => {
                o.value.push(e.value);
                o.level.push(e.level);
            }
            TypeKind::Event => o.value.push(e.value),
            TypeKind::Variable => o.number.push(e.number),
            TypeKind::Link => {
                o.value.push(e.value);
                o.from.push(e.from);
                o.to.push(e.to);
                let mut buf = [0u8; 16];
                let k = f.state.key(e.key, &mut buf);
                o.key.push((o.key_bytes.len() as u32, k.len() as u32));
                o.key_bytes.extend_from_slice(k);
            }
            TypeKind::Container => {}
        }
        if self.keep_extras {
            let x = f.state.extras_of(e);
            o.extras.push((o.extras_pool.len() as u32, x.len() as u32));
            o.extras_pool.extend_from_slice(x);
        }
    }
}

/// What [`assemble_trace`] needs besides the entities.
pub struct TraceParts {
    /// Types, values and containers (lists are added from `lists`).
    pub model: Model,
    /// Every list, in handle order.
    pub lists: Vec<NewList>,
    /// The end time of every container (its destruction).
    pub ends: Vec<(u32, f64)>,
    /// Warnings of the simulation, in trace order.
    pub warnings: Vec<String>,
}

/// Builds the trace from the entities of every replay; `extra` maps the
/// codes of user-defined fields to strings of the model.
pub fn assemble_trace(
    parts: TraceParts,
    sinks: Vec<ColumnSink>,
    mut extra: impl FnMut(u32, &mut crate::Interner) -> StrId,
) -> Trace {
    let TraceParts {
        mut model,
        lists,
        ends,
        warnings,
    } = parts;
    // A partial replay (a window) may not know every list: lists get
    // handles in the order of theirs, without holes.
    for l in &lists {
        let id = ListId(model.lists.len() as u32);
        model.lists.push(ListInfo {
            container: ContainerId(l.container),
            ty: TypeId(l.ty),
            kind: l.kind,
        });
        if let Some(c) = model.containers.get_mut(l.container as usize) {
            c.lists.push((TypeId(l.ty), id));
        }
    }
    for &(c, t) in &ends {
        if let Some(c) = model.containers.get_mut(c as usize) {
            c.end = t;
        }
    }
    crate::engine::sort_children(&mut model);
    // Codes of user-defined fields → strings, once each.
    let mut memo = hashbrown::HashMap::<u32, StrId>::new();
    let mut sinks = sinks;
    for s in &mut sinks {
        for o in &mut s.lists {
            for code in &mut o.extras_pool {
                let id = *memo
                    .entry(*code)
                    .or_insert_with(|| extra(*code, &mut model.strings));
                *code = id.0;
            }
        }
    }
    let nlists = model.lists.len();
    let built: Vec<(Columns, Vec<u8>, Vec<StrId>)> = lists
        .par_iter()
        .map(|l| {
            let outs: Vec<&ListOut> = sinks
                .iter()
                .filter_map(|s| s.lists.get(l.id as usize))
                .collect();
            place(l.kind, &outs)
        })
        .collect();
    let mut trace = Trace {
        model,
        lists: Vec::with_capacity(nlists),
        key_bytes: Vec::new(),
        extras_pool: Vec::new(),
        warnings,
    };
    for (mut cols, keys, extras) in built {
        let kb = trace.key_bytes.len() as u64;
        for k in &mut cols.key {
            k.0 += kb;
        }
        trace.key_bytes.extend_from_slice(&keys);
        let eb = trace.extras_pool.len() as u32;
        for x in &mut cols.extras {
            if x.1 > 0 {
                x.0 += eb;
            }
        }
        trace.extras_pool.extend_from_slice(&extras);
        trace.lists.push(cols);
    }
    trace
}

/// The columns of one list from the pieces of every replay, in creation
/// order (entities a partial replay did not see leave no hole).
fn place(kind: TypeKind, outs: &[&ListOut]) -> (Columns, Vec<u8>, Vec<StrId>) {
    let n: usize = outs.iter().map(|o| o.idx.len()).sum();
    // (creation index, piece, position in the piece), in creation order.
    let mut order: Vec<(u32, u32, u32)> = Vec::with_capacity(n);
    let dense = outs.iter().all(|o| o.idx.iter().all(|&i| (i as usize) < n));
    if dense {
        order.resize(n, (u32::MAX, 0, 0));
        for (p, o) in outs.iter().enumerate() {
            for (k, &i) in o.idx.iter().enumerate() {
                order[i as usize] = (i, p as u32, k as u32);
            }
        }
        if order.iter().any(|o| o.0 == u32::MAX) {
            // Not a permutation after all: fall back to sorting.
            order.clear();
        }
    }
    if order.is_empty() && n > 0 {
        for (p, o) in outs.iter().enumerate() {
            for (k, &i) in o.idx.iter().enumerate() {
                order.push((i, p as u32, k as u32));
            }
        }
        order.sort_unstable();
    }
    let mut c = Columns::default();
    let get = |v: fn(&ListOut) -> &Vec<f64>| -> Vec<f64> {
        order
            .iter()
            .map(|&(_, p, k)| v(outs[p as usize])[k as usize])
            .collect()
    };
    let get32 = |v: fn(&ListOut) -> &Vec<u32>| -> Vec<u32> {
        order
            .iter()
            .map(|&(_, p, k)| v(outs[p as usize])[k as usize])
            .collect()
    };
    c.start = get(|o| &o.start);
    c.end = get(|o| &o.end);
    let mut keys = Vec::new();
    match kind {
        TypeKind::State => {
            c.value = get32(|o| &o.value).into_iter().map(ValueId).collect();
            c.level = get32(|o| &o.level);
        }
        TypeKind::Event => c.value = get32(|o| &o.value).into_iter().map(ValueId).collect(),
        TypeKind::Variable => c.number = get(|o| &o.number),
        TypeKind::Link => {
            c.value = get32(|o| &o.value).into_iter().map(ValueId).collect();
            c.from = get32(|o| &o.from);
            c.to = get32(|o| &o.to);
            c.key = order
                .iter()
                .map(|&(_, p, k)| {
                    let o = outs[p as usize];
                    let (off, len) = o.key[k as usize];
                    let at = keys.len() as u64;
                    keys.extend_from_slice(&o.key_bytes[off as usize..(off + len) as usize]);
                    (at, len)
                })
                .collect();
        }
        TypeKind::Container => {}
    }
    let mut extras = Vec::new();
    let any_extras = outs
        .iter()
        .any(|o| o.extras.iter().any(|&(_, len)| len > 0));
    if any_extras {
        c.extras = order
            .iter()
            .map(|&(_, p, k)| {
                let o = outs[p as usize];
                let (off, len) = o.extras[k as usize];
                if len == 0 {
                    return (0, 0);
                }
                let at = extras.len() as u32;
                extras.extend(
                    o.extras_pool[off as usize..(off + len) as usize]
                        .iter()
                        .map(|&s| StrId(s)),
                );
                (at, len)
            })
            .collect();
    }
    (c, keys, extras)
}
