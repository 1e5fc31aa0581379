//! The events of a file in trace order, for the reference simulation
//! ([`PtbFile::read`]): frames decoded on several threads, handed over in
//! order, entity events with their link keys restored.

use hashbrown::HashMap;
use trama_events::{Event, Field, Span};
use trama_sim::{ContainerId, HandleEvent, TypeId, ValueId, ValueRef};

use super::decode::{Block, Rec};
use super::{bad, FormatError, PtbFile, ReadError};
use crate::format::*;

/// Options of [`PtbFile::read`].
#[derive(Clone, Debug)]
#[non_exhaustive]
pub struct ReadOptions {
    /// Threads decoding frames, besides the caller's, which hands events
    /// to the handler; 0 decodes on the caller's thread.
    pub threads: usize,
    /// When set, the events of each frame are added to it once handed to
    /// the handler (out of [`PtbFile::events`]), for a progress bar.
    pub progress: Option<std::sync::Arc<std::sync::atomic::AtomicU64>>,
}

/// Adds the events of frame `f` to the progress counter, if any.
#[inline]
fn advance(opts: &ReadOptions, f: &Frame) {
    if let Some(p) = &opts.progress {
        p.fetch_add(f.count, std::sync::atomic::Ordering::Relaxed);
    }
}

impl Default for ReadOptions {
    fn default() -> ReadOptions {
        ReadOptions {
            threads: std::thread::available_parallelism().map_or(1, |n| n.get()),
            progress: None,
        }
    }
}

/// An event of a binary trace: given as text (resolved again by the
/// simulator) or by handles.
pub enum Decoded<'a> {
    /// An event stored as its words.
    Text(Event<'a>),
    /// An entity event stored with handles.
    Handles(DecodedHandles<'a>),
}

/// An entity event stored with handles.
pub struct DecodedHandles<'a> {
    /// The event, ready for [`trama_sim::Resolver::resolve_handles`].
    pub event: HandleEvent<'a>,
    pub(crate) raw: &'a Rec,
    pub(crate) words: &'a [Span],
    pub(crate) arena: &'a [u8],
}

/// The keys of the links pending while reading in order, by list
/// (container, type) and number, and the links numbered per list.
#[derive(Default)]
struct PendingKeys {
    keys: HashMap<(u32, u32, u64), Box<[u8]>>,
    links: HashMap<(u32, u32), u64>,
    /// The key of the last second end delivered.
    current: Box<[u8]>,
}

impl PtbFile {
    /// Hands every event to `handler`, in trace order. Frames are decoded
    /// on `opts.threads` threads.
    pub fn read<E>(
        &self,
        opts: &ReadOptions,
        mut handler: impl FnMut(Decoded<'_>) -> Result<(), E>,
    ) -> Result<(), ReadError<E>> {
        let blocks = self.events_frames();
        let workers = opts.threads.min(blocks.len());
        let mut cursor = 0u64;
        let mut keys = PendingKeys::default();
        if workers == 0 {
            let mut block = Block::default();
            for f in &blocks {
                self.decode(f, &mut block, &mut cursor)?;
                self.deliver(f, &block, &mut keys, &mut handler)?;
                advance(opts, f);
            }
            return self.check_records_used(cursor).map_err(ReadError::from);
        }
        // Each worker decodes every `workers`-th frame, taking the model
        // record it starts at from its header; the sequence is checked here.
        std::thread::scope(|scope| {
            let mut rxs = Vec::new();
            let mut recycle = Vec::new();
            for w in 0..workers {
                let (tx, rx) = crossbeam_channel::bounded::<Result<Block, FormatError>>(2);
                let (rtx, rrx) = crossbeam_channel::bounded::<Block>(3);
                rxs.push(rx);
                recycle.push(rtx);
                let blocks = &blocks;
                std::thread::Builder::new()
                    .name(format!("trama-ptb-{w}"))
                    .spawn_scoped(scope, move || {
                        for f in blocks.iter().skip(w).step_by(workers) {
                            let mut block = rrx.try_recv().unwrap_or_default();
                            let mut at = u64::MAX;
                            let r = self.decode(f, &mut block, &mut at).map(|_| block);
                            let failed = r.is_err();
                            if tx.send(r).is_err() || failed {
                                return;
                            }
                        }
                    })
                    .expect("cannot start a decoding thread");
            }
            for (i, f) in blocks.iter().enumerate() {
                let w = i % workers;
                let block = match rxs[w].recv() {
                    Ok(r) => r?,
                    Err(_) => return Err(bad(f.offset, "decoding thread stopped").into()),
                };
                if block.first_model != cursor {
                    return Err(bad(f.offset, "events frame: model records out of sequence").into());
                }
                cursor = block.model_end;
                let r = self.deliver(f, &block, &mut keys, &mut handler);
                advance(opts, f);
                let _ = recycle[w].try_send(block);
                if let Err(e) = r {
                    // Dropping the receivers stops the workers.
                    drop(rxs);
                    return Err(e);
                }
            }
            self.check_records_used(cursor).map_err(ReadError::from)
        })
    }

    fn check_records_used(&self, used: u64) -> Result<(), FormatError> {
        if used != self.records.recs.len() as u64 {
            let off = self
                .frames
                .iter()
                .rfind(|f| f.kind == KIND_MODEL)
                .map_or(0, |f| f.offset);
            return Err(bad(
                off,
                format!(
                    "{} model records, but the events use {used}",
                    self.records.recs.len()
                ),
            ));
        }
        Ok(())
    }

    fn deliver<E>(
        &self,
        f: &Frame,
        block: &Block,
        keys: &mut PendingKeys,
        handler: &mut impl FnMut(Decoded<'_>) -> Result<(), E>,
    ) -> Result<(), ReadError<E>> {
        let mut extras: [&[u8]; 32] = [&[]; 32];
        for rec in &block.recs {
            if let Some(r) = rec.model {
                let m = &self.records.recs[r as usize];
                let ev = self.records.event(m, &self.defs);
                handler(Decoded::Text(ev)).map_err(ReadError::Handler)?;
                continue;
            }
            let def = &self.defs[rec.def as usize];
            let n = def.field_count();
            let words = &block.spans[rec.words as usize..rec.words as usize + n];
            if !rec.handles {
                let ev = Event::new(def, rec.line, &block.arena, words);
                handler(Decoded::Text(ev)).map_err(ReadError::Handler)?;
                continue;
            }
            let word = |i: usize| {
                let s = words[i];
                &block.arena[s.start as usize..s.end as usize]
            };
            let mut nx = 0;
            for &slot in def.extra_slots() {
                extras[nx] = word(slot as usize);
                nx += 1;
            }
            let value = if rec.value == u32::MAX {
                ValueRef::New(self.records.name(&self.records.recs[rec.vrec as usize]))
            } else {
                ValueRef::Id(ValueId(rec.value))
            };
            let key: &[u8] = match def.slot(Field::Key) {
                Some(_) if rec.link > 0 => {
                    let n = keys.links.get(&(rec.c, rec.ty)).copied().unwrap_or(0);
                    keys.current = n
                        .checked_sub(rec.link)
                        .and_then(|n| keys.keys.remove(&(rec.c, rec.ty, n)))
                        .ok_or_else(|| {
                            bad(
                                f.offset,
                                format!(
                                    "events frame: line {}: no pending link {} back",
                                    rec.line, rec.link
                                ),
                            )
                        })?;
                    &keys.current
                }
                Some(i) => {
                    let n = keys.links.entry((rec.c, rec.ty)).or_insert(0);
                    keys.keys.insert((rec.c, rec.ty, *n), word(i).into());
                    *n += 1;
                    word(i)
                }
                None => &[],
            };
            let event = HandleEvent {
                def,
                kind: def.kind(),
                line: rec.line,
                time: rec.time,
                container: ContainerId(rec.c),
                ty: TypeId(rec.ty),
                value,
                other: ContainerId(rec.other),
                number: rec.number,
                key,
                extras: &extras[..nx],
            };
            handler(Decoded::Handles(DecodedHandles {
                event,
                raw: rec,
                words,
                arena: &block.arena,
            }))
            .map_err(ReadError::Handler)?;
        }
        Ok(())
    }
}
