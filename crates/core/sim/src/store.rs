//! The in-memory trace store: one set of columns per entity list.
//!
//! Entities of one type in one container are kept in *stored order*: the
//! order in which the simulator created them (for links: the order in which
//! they were completed), which is what PajeNG's dump prints. Each list is a
//! set of parallel columns (`start`, `end`, `value`, …), so a window query is
//! a binary search on `start` plus a scan, and the memory per state is about
//! 24 bytes.

use crate::intern::StrId;
use crate::model::{ContainerId, ListId, Model, TypeId, TypeKind, ValueId};
use crate::sim::{Entity, Sink};

/// Columns of one entity list. Only the columns of the list's kind are filled.
#[derive(Clone, Debug, Default)]
pub struct Columns {
    /// Start times (event times for events).
    pub start: Vec<f64>,
    /// End times (for events, equal to start).
    pub end: Vec<f64>,
    /// Values of states, events and links.
    pub value: Vec<ValueId>,
    /// Values of variables.
    pub number: Vec<f64>,
    /// Nesting levels of states.
    pub level: Vec<u32>,
    /// Start container of links (`u32::MAX` when unknown).
    pub from: Vec<u32>,
    /// End container of links (`u32::MAX` when unknown).
    pub to: Vec<u32>,
    /// Keys of links: (offset, length) in [`Trace::key_bytes`].
    pub key: Vec<(u64, u32)>,
    /// Ranges into [`Trace::extras_pool`]; empty when no entity has extras.
    pub extras: Vec<(u32, u32)>,
}

impl Columns {
    /// Number of entities.
    pub fn len(&self) -> usize {
        self.start.len()
    }

    /// True when empty.
    pub fn is_empty(&self) -> bool {
        self.start.is_empty()
    }
}

/// One entity read back from the store.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct EntityRef<'a> {
    /// Start (or event) time.
    pub start: f64,
    /// End time.
    pub end: f64,
    /// Value of a state, event or link.
    pub value: Option<ValueId>,
    /// Value of a variable.
    pub number: f64,
    /// State nesting level.
    pub level: u32,
    /// Link key.
    pub key: &'a [u8],
    /// Link start container.
    pub from: Option<ContainerId>,
    /// Link end container.
    pub to: Option<ContainerId>,
    /// User-defined fields, as flat (name, value) pairs.
    pub extras: &'a [StrId],
}

/// A whole simulated trace in memory: the model plus every entity.
#[derive(Clone, Debug, Default)]
pub struct Trace {
    /// Types, containers, values and strings.
    pub model: Model,
    /// Entity columns, indexed by [`ListId`].
    pub lists: Vec<Columns>,
    /// Bytes of all link keys, one after the other.
    pub key_bytes: Vec<u8>,
    /// User-defined field values of all entities.
    pub extras_pool: Vec<StrId>,
    /// Warnings of the simulation.
    pub warnings: Vec<String>,
}

/// A [`Sink`] that fills a [`Trace`].
#[derive(Debug, Default)]
pub struct TraceBuilder {
    lists: Vec<Columns>,
    key_bytes: Vec<u8>,
    extras_pool: Vec<StrId>,
}

impl TraceBuilder {
    /// Assembles the trace once the simulation is finished.
    pub fn into_trace(mut self, model: Model, warnings: Vec<String>) -> Trace {
        // Lists whose entities were all dropped (e.g. incomplete links with
        // -z) have no columns yet.
        if self.lists.len() < model.lists.len() {
            self.lists.resize_with(model.lists.len(), Columns::default);
        }
        Trace {
            model,
            lists: self.lists,
            key_bytes: self.key_bytes,
            extras_pool: self.extras_pool,
            warnings,
        }
    }
}

#[inline]
fn put<T: Copy>(v: &mut Vec<T>, idx: usize, x: T, fill: T) {
    if idx == v.len() {
        v.push(x);
    } else {
        if idx > v.len() {
            v.resize(idx + 1, fill);
        }
        v[idx] = x;
    }
}

impl TraceBuilder {
    /// Stores entity `idx` of `list` (of nature `kind`).
    fn store(&mut self, kind: TypeKind, list: ListId, idx: u32, e: &Entity<'_>) {
        if list.index() >= self.lists.len() {
            self.lists.resize_with(list.index() + 1, Columns::default);
        }
        let cols = &mut self.lists[list.index()];
        let i = idx as usize;
        put(&mut cols.start, i, e.start, -1.0);
        put(&mut cols.end, i, e.end, -1.0);
        match kind {
            TypeKind::State => {
                put(&mut cols.value, i, e.value, ValueId(0));
                put(&mut cols.level, i, e.level, 0);
            }
            TypeKind::Event => put(&mut cols.value, i, e.value, ValueId(0)),
            TypeKind::Variable => put(&mut cols.number, i, e.number, 0.0),
            TypeKind::Link => {
                put(&mut cols.value, i, e.value, ValueId(0));
                let k = (self.key_bytes.len() as u64, e.key.len() as u32);
                self.key_bytes.extend_from_slice(e.key);
                put(&mut cols.key, i, k, (0, 0));
                put(
                    &mut cols.from,
                    i,
                    e.from.map_or(u32::MAX, |c| c.0),
                    u32::MAX,
                );
                put(&mut cols.to, i, e.to.map_or(u32::MAX, |c| c.0), u32::MAX);
            }
            TypeKind::Container => {}
        }
        if !e.extras.is_empty() || !cols.extras.is_empty() {
            let range = if e.extras.is_empty() {
                (0, 0)
            } else {
                let s = self.extras_pool.len() as u32;
                self.extras_pool.extend_from_slice(e.extras);
                (s, e.extras.len() as u32)
            };
            put(&mut cols.extras, i, range, (0, 0));
        }
    }
}

impl Sink for TraceBuilder {
    fn list(&mut self, _model: &Model, list: ListId) {
        if list.index() >= self.lists.len() {
            self.lists.resize_with(list.index() + 1, Columns::default);
        }
    }

    fn entity(&mut self, model: &Model, list: ListId, idx: u32, e: &Entity<'_>) {
        self.store(model.list(list).kind, list, idx, e);
    }
}

/// One final entity on its way to the store thread.
#[derive(Clone, Copy, Debug)]
struct Rec {
    start: f64,
    end: f64,
    number: f64,
    list: ListId,
    idx: u32,
    value: ValueId,
    level: u32,
    from: u32,
    to: u32,
    key: (u32, u32),
    extras: (u32, u32),
    kind: TypeKind,
}

#[derive(Debug, Default)]
struct RecBatch {
    recs: Vec<Rec>,
    keys: Vec<u8>,
    extras: Vec<StrId>,
}

const REC_BATCH: usize = 8192;

/// A [`TraceBuilder`] working on a thread of its own: the simulation hands
/// it entities in batches and goes on, so filling the columns overlaps with
/// simulating. [`ParallelTraceBuilder::into_trace`] waits for it.
#[derive(Debug)]
pub struct ParallelTraceBuilder {
    /// Used when no thread could be started.
    inline: Option<TraceBuilder>,
    batch: RecBatch,
    tx: Option<std::sync::mpsc::SyncSender<RecBatch>>,
    free: std::sync::mpsc::Receiver<RecBatch>,
    handle: Option<std::thread::JoinHandle<TraceBuilder>>,
}

impl Default for ParallelTraceBuilder {
    fn default() -> Self {
        Self::new()
    }
}

impl ParallelTraceBuilder {
    /// Starts the store thread.
    pub fn new() -> ParallelTraceBuilder {
        let (tx, rx) = std::sync::mpsc::sync_channel::<RecBatch>(8);
        let (free_tx, free_rx) = std::sync::mpsc::sync_channel::<RecBatch>(8);
        let store = move || {
            let mut b = TraceBuilder::default();
            for mut batch in rx {
                for r in &batch.recs {
                    let key = &batch.keys[r.key.0 as usize..(r.key.0 + r.key.1) as usize];
                    let extras =
                        &batch.extras[r.extras.0 as usize..(r.extras.0 + r.extras.1) as usize];
                    let e = Entity {
                        start: r.start,
                        end: r.end,
                        value: r.value,
                        number: r.number,
                        level: r.level,
                        extras,
                        key,
                        from: (r.from != u32::MAX).then_some(ContainerId(r.from)),
                        to: (r.to != u32::MAX).then_some(ContainerId(r.to)),
                    };
                    b.store(r.kind, r.list, r.idx, &e);
                }
                batch.recs.clear();
                batch.keys.clear();
                batch.extras.clear();
                let _ = free_tx.try_send(batch);
            }
            b
        };
        let handle = std::thread::Builder::new()
            .name("trama-store".into())
            .spawn(store)
            .ok();
        ParallelTraceBuilder {
            inline: handle.is_none().then(TraceBuilder::default),
            batch: RecBatch::default(),
            tx: Some(tx),
            free: free_rx,
            handle,
        }
    }

    fn flush(&mut self) {
        let next = self.free.try_recv().unwrap_or_default();
        let batch = std::mem::replace(&mut self.batch, next);
        if let Some(tx) = &self.tx {
            // The store thread only stops when we drop the sender.
            let _ = tx.send(batch);
        }
    }

    /// Waits for the store thread and assembles the trace.
    pub fn into_trace(mut self, model: Model, warnings: Vec<String>) -> Trace {
        self.flush();
        drop(self.tx.take());
        let builder = match self.handle.take().map(|h| h.join()) {
            Some(Ok(b)) => b,
            Some(Err(panic)) => std::panic::resume_unwind(panic),
            None => self.inline.take().unwrap_or_default(),
        };
        builder.into_trace(model, warnings)
    }
}

impl Sink for ParallelTraceBuilder {
    fn entity(&mut self, model: &Model, list: ListId, idx: u32, e: &Entity<'_>) {
        if let Some(b) = &mut self.inline {
            b.store(model.list(list).kind, list, idx, e);
            return;
        }
        let b = &mut self.batch;
        let key = (b.keys.len() as u32, e.key.len() as u32);
        b.keys.extend_from_slice(e.key);
        let extras = (b.extras.len() as u32, e.extras.len() as u32);
        b.extras.extend_from_slice(e.extras);
        b.recs.push(Rec {
            start: e.start,
            end: e.end,
            number: e.number,
            list,
            idx,
            value: e.value,
            level: e.level,
            from: e.from.map_or(u32::MAX, |c| c.0),
            to: e.to.map_or(u32::MAX, |c| c.0),
            key,
            extras,
            kind: model.list(list).kind,
        });
        if b.recs.len() >= REC_BATCH {
            self.flush();
        }
    }
}

impl Trace {
    /// The columns of a list.
    pub fn columns(&self, list: ListId) -> &Columns {
        &self.lists[list.index()]
    }

    /// Entity `i` of a list.
    pub fn entity(&self, list: ListId, i: usize) -> EntityRef<'_> {
        let c = &self.lists[list.index()];
        let kind = self.model.list(list).kind;
        let extras = match c.extras.get(i) {
            Some(&(s, n)) => &self.extras_pool[s as usize..(s + n) as usize],
            None => &[],
        };
        let cont = |v: &Vec<u32>| {
            v.get(i)
                .and_then(|&x| (x != u32::MAX).then_some(ContainerId(x)))
        };
        EntityRef {
            start: c.start[i],
            end: c.end[i],
            value: match kind {
                TypeKind::State | TypeKind::Event | TypeKind::Link => c.value.get(i).copied(),
                _ => None,
            },
            number: c.number.get(i).copied().unwrap_or(0.0),
            level: c.level.get(i).copied().unwrap_or(0),
            key: c.key.get(i).map_or(&[][..], |&(o, n)| {
                &self.key_bytes[o as usize..o as usize + n as usize]
            }),
            from: cont(&c.from),
            to: cont(&c.to),
            extras,
        }
    }

    /// Indexes of the entities of a list that overlap `[start, end]`
    /// (an entity overlaps when it does not end before `start` nor begin
    /// after `end`).
    pub fn window(&self, list: ListId, start: f64, end: f64) -> impl Iterator<Item = usize> + '_ {
        let c = &self.lists[list.index()];
        (0..c.len()).filter(move |&i| !(c.end[i] < start || c.start[i] > end))
    }

    /// The lists of a container, in byte order of their type identifier.
    pub fn lists_of(&self, container: ContainerId) -> Vec<(TypeId, ListId)> {
        let m = &self.model;
        let mut v = m.container(container).lists.clone();
        v.sort_by(|a, b| m.str(m.ty(a.0).ident()).cmp(m.str(m.ty(b.0).ident())));
        v
    }

    /// Total number of entities.
    pub fn entity_count(&self) -> usize {
        self.lists.iter().map(|c| c.len()).sum()
    }

    /// Start of the trace (the root's creation, 0).
    pub fn start_time(&self) -> f64 {
        self.model.container(ContainerId::ROOT).start
    }

    /// End of the trace (the root's end).
    pub fn end_time(&self) -> f64 {
        self.model.container(ContainerId::ROOT).end
    }
}
