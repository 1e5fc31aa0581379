//! A [`Trace`] from the pieces of a parallel replay: each replay keeps the
//! entities it finalized in per-list buffers ([`ColumnSink`]); the buffers
//! of every replay are then placed, list by list in parallel, at their
//! creation index.

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
    // As many threads as the replay had (one sink each).
    let threads = sinks.len().max(1);
    // Each list's pieces, taken out of the sinks.
    let mut pieces: Vec<Vec<ListOut>> = (0..lists.len()).map(|_| Vec::new()).collect();
    let at: hashbrown::HashMap<u32, usize> =
        lists.iter().enumerate().map(|(i, l)| (l.id, i)).collect();
    for s in sinks {
        for (id, o) in s.lists.into_iter().enumerate() {
            if let Some(&i) = at.get(&(id as u32)) {
                if !o.idx.is_empty() {
                    pieces[i].push(o);
                }
            }
        }
    }
    let built = place_all(pieces, &lists, threads);
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

/// A list's columns, key bytes and user-defined field strings.
type Placed = (Columns, Vec<u8>, Vec<StrId>);

/// The columns of every list from its pieces, on `threads` threads (the
/// caller's and scoped ones), each taking the largest list not taken yet.
fn place_all(pieces: Vec<Vec<ListOut>>, lists: &[NewList], threads: usize) -> Vec<Placed> {
    use std::sync::atomic::{AtomicUsize, Ordering};
    use std::sync::Mutex;
    let n = pieces.len();
    let mut order: Vec<usize> = (0..n).collect();
    let size = |i: usize| pieces[i].iter().map(|o| o.idx.len()).sum::<usize>();
    order.sort_by_key(|&i| std::cmp::Reverse(size(i)));
    let todo: Vec<Mutex<Vec<ListOut>>> = pieces.into_iter().map(Mutex::new).collect();
    let done: Vec<Mutex<Option<Placed>>> = (0..n).map(|_| Mutex::new(None)).collect();
    let next = AtomicUsize::new(0);
    let work = || loop {
        let k = next.fetch_add(1, Ordering::Relaxed);
        let Some(&i) = order.get(k) else { break };
        let outs = std::mem::take(&mut *todo[i].lock().unwrap_or_else(|e| e.into_inner()));
        let r = place(lists[i].kind, outs);
        *done[i].lock().unwrap_or_else(|e| e.into_inner()) = Some(r);
    };
    std::thread::scope(|scope| {
        for _ in 1..threads.min(n) {
            scope.spawn(work);
        }
        work();
    });
    done.into_iter()
        .map(|d| {
            d.into_inner()
                .unwrap_or_else(|e| e.into_inner())
                .expect("every list placed")
        })
        .collect()
}

/// A stretch of a piece whose creation indexes are consecutive: (first
/// index, piece, position in the piece, length).
type Stretch = (u32, usize, usize, usize);

/// When the pieces are made of few stretches of consecutive creation
/// indexes (all lists but those of nested states: each replay finalizes
/// the entities of its segments in creation order), these stretches in
/// creation order, tiling `0..n`; `None` otherwise.
fn stretches(outs: &[ListOut]) -> Option<Vec<Stretch>> {
    let n: usize = outs.iter().map(|o| o.idx.len()).sum();
    let mut v: Vec<Stretch> = Vec::new();
    for (p, o) in outs.iter().enumerate() {
        let mut start = 0;
        for k in 1..=o.idx.len() {
            if k == o.idx.len() || o.idx[k] != o.idx[k - 1].wrapping_add(1) {
                v.push((o.idx[start], p, start, k - start));
                if v.len() > n / 16 + 4 {
                    return None;
                }
                start = k;
            }
        }
    }
    v.sort_unstable_by_key(|s| s.0);
    let mut next = 0u64;
    for &(first, _, _, len) in &v {
        if first as u64 != next {
            return None;
        }
        next += len as u64;
    }
    Some(v)
}

/// The columns of one list from the stretches of its pieces, in creation
/// order: each column is copied stretch by stretch, after the vectors of
/// the piece that holds the first stretch alone, which are kept.
fn concat(
    kind: TypeKind,
    mut outs: Vec<ListOut>,
    order: &[Stretch],
) -> (Columns, Vec<u8>, Vec<StrId>) {
    let n: usize = order.iter().map(|s| s.3).sum();
    let (mut head, rest) = match order.first() {
        Some(&(_, p0, _, len0)) if len0 == outs[p0].idx.len() => {
            (std::mem::take(&mut outs[p0]), &order[1..])
        }
        _ => (ListOut::default(), order),
    };
    fn join<T: Copy>(
        mut v: Vec<T>,
        n: usize,
        outs: &[ListOut],
        rest: &[Stretch],
        col: fn(&ListOut) -> &[T],
    ) -> Vec<T> {
        v.reserve_exact(n - v.len());
        for &(_, p, at, len) in rest {
            v.extend_from_slice(&col(&outs[p])[at..at + len]);
        }
        v
    }
    let mut c = Columns {
        start: join(std::mem::take(&mut head.start), n, &outs, rest, |o| {
            &o.start
        }),
        end: join(std::mem::take(&mut head.end), n, &outs, rest, |o| &o.end),
        ..Columns::default()
    };
    let value = |v: Vec<u32>| -> Vec<ValueId> {
        join(v, n, &outs, rest, |o| &o.value)
            .into_iter()
            .map(ValueId)
            .collect()
    };
    let mut keys = Vec::new();
    match kind {
        TypeKind::State => {
            c.value = value(std::mem::take(&mut head.value));
            c.level = join(std::mem::take(&mut head.level), n, &outs, rest, |o| {
                &o.level
            });
        }
        TypeKind::Event => c.value = value(std::mem::take(&mut head.value)),
        TypeKind::Variable => {
            c.number = join(std::mem::take(&mut head.number), n, &outs, rest, |o| {
                &o.number
            })
        }
        TypeKind::Link => {
            c.value = value(std::mem::take(&mut head.value));
            c.from = join(std::mem::take(&mut head.from), n, &outs, rest, |o| &o.from);
            c.to = join(std::mem::take(&mut head.to), n, &outs, rest, |o| &o.to);
            // The pieces' key bytes one after the other, the head's first.
            keys = std::mem::take(&mut head.key_bytes);
            let mut base = vec![0u64; outs.len()];
            for (p, o) in outs.iter().enumerate() {
                base[p] = keys.len() as u64;
                keys.extend_from_slice(&o.key_bytes);
            }
            c.key = Vec::with_capacity(n);
            c.key
                .extend(head.key.iter().map(|&(off, len)| (off as u64, len)));
            for &(_, p, at, len) in rest {
                let b = base[p];
                c.key.extend(
                    outs[p].key[at..at + len]
                        .iter()
                        .map(|&(off, len)| (b + off as u64, len)),
                );
            }
        }
        TypeKind::Container => {}
    }
    let mut extras = Vec::new();
    let has = |o: &ListOut| o.extras.iter().any(|&(_, len)| len > 0);
    if has(&head) || outs.iter().any(has) {
        extras = head.extras_pool.iter().map(|&s| StrId(s)).collect();
        let mut base = vec![0u32; outs.len()];
        for (p, o) in outs.iter().enumerate() {
            base[p] = extras.len() as u32;
            extras.extend(o.extras_pool.iter().map(|&s| StrId(s)));
        }
        c.extras = Vec::with_capacity(n);
        c.extras.extend_from_slice(&head.extras);
        for &(_, p, at, len) in rest {
            let b = base[p];
            c.extras
                .extend(outs[p].extras[at..at + len].iter().map(|&(off, len)| {
                    if len == 0 {
                        (0, 0)
                    } else {
                        (b + off, len)
                    }
                }));
        }
    }
    (c, keys, extras)
}

/// The columns of one list from the pieces of every replay, in creation
/// order (entities a partial replay did not see leave no hole).
fn place(kind: TypeKind, outs: Vec<ListOut>) -> (Columns, Vec<u8>, Vec<StrId>) {
    match stretches(&outs) {
        Some(order) => concat(kind, outs, &order),
        None => gather(kind, &outs),
    }
}

/// [`place`] entity by entity, for any order.
fn gather(kind: TypeKind, outs: &[ListOut]) -> (Columns, Vec<u8>, Vec<StrId>) {
    let outs: Vec<&ListOut> = outs.iter().collect();
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

#[cfg(test)]
mod tests {
    use super::*;

    /// Pieces of `n` links: the creation indexes cut in stretches dealt
    /// to `npieces` pieces, or shuffled entity by entity.
    fn pieces(n: u32, npieces: usize, stretch: u32, shuffle: bool, seed: u64) -> Vec<ListOut> {
        let mut x = seed;
        let mut rnd = move |m: u64| {
            x = x
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            (x >> 33) % m
        };
        let mut outs = vec![ListOut::default(); npieces];
        let mut i = 0;
        while i < n {
            let p = rnd(npieces as u64) as usize;
            let len = (1 + rnd(stretch as u64) as u32).min(n - i);
            for k in i..i + len {
                let o = &mut outs[p];
                o.idx.push(k);
                o.start.push(k as f64);
                o.end.push(k as f64 + 0.5);
                o.value.push(k % 7);
                o.from.push(k % 3);
                o.to.push(k % 5);
                let key = format!("k{k}");
                o.key.push((o.key_bytes.len() as u32, key.len() as u32));
                o.key_bytes.extend_from_slice(key.as_bytes());
                let x = if k % 4 == 0 { vec![k, k + 1] } else { vec![] };
                o.extras.push((o.extras_pool.len() as u32, x.len() as u32));
                o.extras_pool.extend_from_slice(&x);
            }
            i += len;
        }
        if shuffle {
            for o in &mut outs {
                let len = o.idx.len();
                for a in (1..len).rev() {
                    let b = rnd(a as u64 + 1) as usize;
                    o.idx.swap(a, b);
                    o.start.swap(a, b);
                    o.end.swap(a, b);
                    o.value.swap(a, b);
                    o.from.swap(a, b);
                    o.to.swap(a, b);
                    o.key.swap(a, b);
                    o.extras.swap(a, b);
                }
            }
        }
        outs.retain(|o| !o.idx.is_empty());
        outs
    }

    /// Every column, keys and extras resolved, entity by entity.
    fn resolved(r: &(Columns, Vec<u8>, Vec<StrId>)) -> Vec<String> {
        let (c, keys, extras) = r;
        (0..c.len())
            .map(|k| {
                let (o, l) = c.key[k];
                let x = c
                    .extras
                    .get(k)
                    .map_or(&[][..], |&(o, l)| &extras[o as usize..(o + l) as usize]);
                format!(
                    "{} {} {:?} {} {} {:?} {:?}",
                    c.start[k],
                    c.end[k],
                    c.value[k],
                    c.from[k],
                    c.to[k],
                    &keys[o as usize..o as usize + l as usize],
                    x
                )
            })
            .collect()
    }

    #[test]
    fn stretches_are_placed_as_entity_by_entity() {
        assert_eq!(place(TypeKind::Link, Vec::new()).0.len(), 0);
        let (mut fast_paths, mut heads) = (0, 0);
        for seed in 0..40 {
            let (n, np, st) = (
                1 + seed as u32 * 37,
                1 + seed as usize % 4,
                1 + seed as u32 % 90,
            );
            let outs = pieces(n, np, st, false, seed);
            fast_paths += stretches(&outs).is_some() as u32;
            let fast = place(TypeKind::Link, outs.clone());
            let slow = gather(TypeKind::Link, &outs);
            assert_eq!(fast.0.len(), n as usize);
            assert_eq!(resolved(&fast), resolved(&slow), "seed {seed}");
            // In creation order.
            assert!(fast.0.start.windows(2).all(|w| w[0] < w[1]), "seed {seed}");
            // A first piece holding a prefix alone (kept in place), the
            // rest in stretches of other pieces, taken last first.
            let mut outs = pieces(n, np, st, false, seed);
            let cut = outs.iter().position(|o| o.idx[0] == 0).unwrap();
            let mut prefix = outs.remove(cut);
            let keep = prefix
                .idx
                .windows(2)
                .take_while(|w| w[1] == w[0] + 1)
                .count()
                + 1;
            let mut tail = ListOut::default();
            for (k, &i) in prefix.idx.iter().enumerate().skip(keep) {
                tail.idx.push(i);
                tail.start.push(prefix.start[k]);
                tail.end.push(prefix.end[k]);
                tail.value.push(prefix.value[k]);
                tail.from.push(prefix.from[k]);
                tail.to.push(prefix.to[k]);
                let (o, l) = prefix.key[k];
                tail.key.push((tail.key_bytes.len() as u32, l));
                let kb = prefix.key_bytes[o as usize..(o + l) as usize].to_vec();
                tail.key_bytes.extend_from_slice(&kb);
                let (o, l) = prefix.extras[k];
                tail.extras.push((tail.extras_pool.len() as u32, l));
                let x = prefix.extras_pool[o as usize..(o + l) as usize].to_vec();
                tail.extras_pool.extend_from_slice(&x);
            }
            for v in [
                &mut prefix.idx,
                &mut prefix.value,
                &mut prefix.from,
                &mut prefix.to,
            ] {
                v.truncate(keep);
            }
            prefix.start.truncate(keep);
            prefix.end.truncate(keep);
            prefix.key.truncate(keep);
            prefix.extras.truncate(keep);
            outs.reverse();
            outs.insert(0, prefix);
            if !tail.idx.is_empty() {
                outs.push(tail);
            }
            if let Some(order) = stretches(&outs) {
                assert_eq!((order[0].1, order[0].3), (0, keep), "seed {seed}");
                heads += 1;
            }
            assert_eq!(
                resolved(&place(TypeKind::Link, outs)),
                resolved(&slow),
                "seed {seed}"
            );
            // Shuffled pieces (nested states) are placed too.
            let outs = pieces(n, np, st, true, seed);
            let placed = place(TypeKind::Link, outs);
            assert_eq!(resolved(&placed), resolved(&slow), "seed {seed}");
        }
        assert!(fast_paths >= 20, "{fast_paths} stretched cases");
        assert!(heads >= 20, "{heads} cases with a head");
    }
}
