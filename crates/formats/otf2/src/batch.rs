//! The merged events in batches, filled on a thread of their own when the
//! reading may use several: decoding and merging the locations' files
//! then overlaps mapping the events and simulating them. A batch carries
//! what mapping an event needs from its reader (a metric's values, the
//! end of a collective operation, read ahead), since the reader has moved
//! on by then.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::mpsc::{sync_channel, Receiver, SyncSender};

use crate::archive::Merged;
use crate::error::Error;
use crate::events::{Event, Kind, MetricValue};

/// Events per batch.
const EVENTS: usize = 8192;

/// An event of a batch: its location and what it says; `aux` indexes the
/// batch's metric values (a metric) or collective ends (a collective's
/// begin).
#[derive(Clone, Copy, Debug)]
pub(crate) struct Rec {
    pub loc: u32,
    pub aux: u32,
    pub ev: Event,
}

/// Merged events, in time order.
#[derive(Default)]
pub(crate) struct Batch {
    pub recs: Vec<Rec>,
    pub metrics: Vec<MetricValue>,
    pub ends: Vec<Option<Kind>>,
}

impl Batch {
    /// The values of the metric event `r`.
    pub fn metric_values(&self, r: &Rec) -> &[MetricValue] {
        let Kind::Metric { count, .. } = r.ev.kind else {
            return &[];
        };
        let from = r.aux as usize;
        self.metrics.get(from..from + count as usize).unwrap_or(&[])
    }

    /// The end of the collective operation the event `r` begins.
    pub fn collective_end(&self, r: &Rec) -> Option<Kind> {
        self.ends.get(r.aux as usize).copied().flatten()
    }
}

/// Fills `b` with the next events of `m` (empty at the end).
pub(crate) fn fill(
    m: &mut Merged<'_>,
    b: &mut Batch,
    progress: Option<&AtomicU64>,
) -> Result<(), Error> {
    b.recs.clear();
    b.metrics.clear();
    b.ends.clear();
    while b.recs.len() < EVENTS {
        let Some((loc, ev)) = m.next_event()? else {
            break;
        };
        let aux = match ev.kind {
            Kind::Metric { .. } => {
                let at = b.metrics.len();
                b.metrics.extend_from_slice(m.reader(loc).metric_values());
                at
            }
            Kind::CollectiveBegin => {
                b.ends.push(m.reader(loc).collective_end()?);
                b.ends.len() - 1
            }
            _ => 0,
        };
        b.recs.push(Rec {
            loc: loc as u32,
            aux: aux as u32,
            ev,
        });
    }
    if let Some(p) = progress {
        let done: usize = m.readers().iter().map(|r| r.position()).sum();
        p.store(done as u64, Ordering::Relaxed);
    }
    Ok(())
}

/// Runs `map` on the batches of `m`: filled on this thread with one
/// thread, else on a scoped thread of their own (two batches in flight).
/// `map` returns whether to go on.
pub(crate) fn run<E>(
    m: &mut Merged<'_>,
    threaded: bool,
    progress: Option<&AtomicU64>,
    mut map: impl FnMut(&Batch) -> Result<bool, E>,
) -> Result<(), Stopped<E>> {
    if !threaded {
        let mut b = Batch::default();
        loop {
            fill(m, &mut b, progress).map_err(Stopped::Archive)?;
            if b.recs.is_empty() || !map(&b).map_err(Stopped::Map)? {
                return Ok(());
            }
        }
    }
    std::thread::scope(|s| {
        let (full_tx, full_rx): (SyncSender<Result<Batch, Error>>, Receiver<_>) = sync_channel(1);
        let (empty_tx, empty_rx) = sync_channel::<Batch>(2);
        empty_tx.send(Batch::default()).expect("room");
        empty_tx.send(Batch::default()).expect("room");
        let producer = std::thread::Builder::new()
            .name("trama-otf2-read".into())
            .spawn_scoped(s, move || {
                while let Ok(mut b) = empty_rx.recv() {
                    let r = fill(m, &mut b, progress);
                    let end = matches!(&r, Ok(()) if b.recs.is_empty()) || r.is_err();
                    if full_tx.send(r.map(|()| b)).is_err() || end {
                        return;
                    }
                }
            })
            .expect("spawning a thread");
        let mut result = Ok(());
        while let Ok(r) = full_rx.recv() {
            match r {
                Err(e) => {
                    result = Err(Stopped::Archive(e));
                    break;
                }
                Ok(b) if b.recs.is_empty() => break,
                Ok(b) => match map(&b) {
                    Ok(true) => {
                        if empty_tx.send(b).is_err() {
                            break;
                        }
                    }
                    Ok(false) => break,
                    Err(e) => {
                        result = Err(Stopped::Map(e));
                        break;
                    }
                },
            }
        }
        // The producer stops at its next send or receive.
        drop(empty_tx);
        drop(full_rx);
        let _ = producer.join();
        result
    })
}

/// Why [`run`] stopped early.
pub(crate) enum Stopped<E> {
    Archive(Error),
    Map(E),
}
