//! A source read ahead on a thread of its own: its records are handed
//! over in batches, each with where in the input it came from, so that
//! the reading of the input and the use of its records (declarations,
//! simulation) run at once, and an error names the same place as when
//! the source is read in place.

use std::sync::mpsc::{sync_channel, Receiver};
use std::thread::JoinHandle;

use crate::record::{ExtraField, Location, Record, Source, SourceError};

/// Records per batch.
const BATCH: usize = 1024;

/// Batches read ahead at most.
const AHEAD: usize = 4;

type Batch = Vec<(Record, Option<Location>)>;

/// A [`Source`] whose records are read by another thread (see the
/// module documentation). Dropping it stops that thread.
pub struct Prefetched {
    name: String,
    extras: Vec<ExtraField>,
    rx: Option<Receiver<Result<Batch, SourceError>>>,
    batch: std::vec::IntoIter<(Record, Option<Location>)>,
    position: Option<Location>,
    thread: Option<JoinHandle<()>>,
}

impl Prefetched {
    /// Starts reading `source` on a thread named `thread`.
    pub fn spawn(mut source: Box<dyn Source>, thread: &str) -> std::io::Result<Prefetched> {
        let name = source.name().to_string();
        let extras = source.extra_fields();
        let (tx, rx) = sync_channel::<Result<Batch, SourceError>>(AHEAD);
        let thread = std::thread::Builder::new()
            .name(thread.into())
            .spawn(move || {
                let mut batch = Vec::with_capacity(BATCH);
                loop {
                    match source.next_record() {
                        Ok(Some(r)) => {
                            batch.push((r, source.position()));
                            if batch.len() < BATCH {
                                continue;
                            }
                            let full = std::mem::replace(&mut batch, Vec::with_capacity(BATCH));
                            if tx.send(Ok(full)).is_err() {
                                return;
                            }
                        }
                        Ok(None) => {
                            let _ = tx.send(Ok(batch));
                            return;
                        }
                        Err(e) => {
                            // The records before the error first.
                            if !batch.is_empty() && tx.send(Ok(batch)).is_err() {
                                return;
                            }
                            let _ = tx.send(Err(e));
                            return;
                        }
                    }
                }
            })?;
        Ok(Prefetched {
            name,
            extras,
            rx: Some(rx),
            batch: Vec::new().into_iter(),
            position: None,
            thread: Some(thread),
        })
    }
}

impl Source for Prefetched {
    fn name(&self) -> &str {
        &self.name
    }

    fn next_record(&mut self) -> Result<Option<Record>, SourceError> {
        loop {
            if let Some((r, at)) = self.batch.next() {
                self.position = at;
                return Ok(Some(r));
            }
            let Some(rx) = &self.rx else {
                return Ok(None);
            };
            match rx.recv() {
                Ok(Ok(batch)) => self.batch = batch.into_iter(),
                Ok(Err(e)) => {
                    self.rx = None;
                    return Err(e);
                }
                // The reader is done (its last batch was sent), or panicked.
                Err(_) => {
                    self.rx = None;
                    if let Some(Err(panic)) = self.thread.take().map(JoinHandle::join) {
                        std::panic::resume_unwind(panic);
                    }
                    return Ok(None);
                }
            }
        }
    }

    fn extra_fields(&self) -> Vec<ExtraField> {
        self.extras.clone()
    }

    fn position(&self) -> Option<Location> {
        self.position
    }
}

impl Drop for Prefetched {
    fn drop(&mut self) {
        // Closing the channel stops a reader blocked on a full one.
        self.rx.take();
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}
