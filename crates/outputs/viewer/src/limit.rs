//! The work in flight: requests that read entities (a window replayed from
//! a `.ptb`, statistics, a frame, a search) run off the server's threads,
//! at most [`Limits::work`] at a time; at most [`Limits::queued`] more
//! wait for a turn, and any request beyond those is answered at once with
//! 503 and `Retry-After`. What the server holds for requests is then
//! bounded by the number of turns (each reads at most
//! [`crate::ViewerOptions::max_blocks`] blocks), whatever the clients do.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::Duration;

use tokio::sync::Semaphore;

use crate::reply::Error;

/// How much the server takes on at once (see the module's documentation).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct Limits {
    /// Requests computed at once (default 2, the cores of a small machine:
    /// more would share them and hold more memory, not answer sooner).
    pub work: usize,
    /// Requests waiting for a turn beyond those (default 64); the next
    /// ones get 503 with `Retry-After: 1`.
    pub queued: usize,
    /// Connections open at once (default 1,024); the next ones wait in
    /// the system's queue of connections until one closes.
    pub connections: usize,
    /// How long a connection may take to send a request's line and headers
    /// (default 10 s), and stay idle between requests; then it is closed.
    pub header_timeout: Duration,
}

impl Default for Limits {
    fn default() -> Limits {
        Limits {
            work: 2,
            queued: 64,
            connections: 1024,
            header_timeout: Duration::from_secs(10),
        }
    }
}

/// The turns of [`Limits::work`] and the count of requests holding or
/// awaiting one.
pub(crate) struct Work {
    turns: Arc<Semaphore>,
    /// Requests running or waiting.
    pending: AtomicUsize,
    /// At most this many may be pending.
    most: usize,
}

/// Takes back a pending request's place when dropped (its future
/// cancelled by a closed connection included).
struct Pending<'a>(&'a AtomicUsize);

impl Drop for Pending<'_> {
    fn drop(&mut self) {
        self.0.fetch_sub(1, Ordering::AcqRel);
    }
}

impl Work {
    /// The turns of `limits`.
    pub(crate) fn new(limits: &Limits) -> Work {
        let work = limits.work.max(1);
        Work {
            turns: Arc::new(Semaphore::new(work)),
            pending: AtomicUsize::new(0),
            most: work + limits.queued,
        }
    }

    /// Runs `work` on a blocking thread once a turn is free; a 503 reply
    /// when too many requests are already pending, a 500 if `work`
    /// panicked.
    pub(crate) async fn run<T: Send + 'static>(
        &self,
        work: impl FnOnce() -> T + Send + 'static,
    ) -> Result<T, Error> {
        if self.pending.fetch_add(1, Ordering::AcqRel) >= self.most {
            self.pending.fetch_sub(1, Ordering::AcqRel);
            return Err(busy());
        }
        let _pending = Pending(&self.pending);
        let Ok(turn) = self.turns.clone().acquire_owned().await else {
            return Err(busy());
        };
        let done = tokio::task::spawn_blocking(move || {
            let _turn = turn;
            work()
        })
        .await;
        done.map_err(|e| Error::internal(e.to_string()))
    }

    /// What `work` computes, run as [`Work::run`] does; its error is a
    /// 500 reply.
    pub(crate) async fn compute<T: Send + 'static>(
        &self,
        work: impl FnOnce() -> Result<T, String> + Send + 'static,
    ) -> Result<T, Error> {
        self.run(work).await?.map_err(Error::internal)
    }
}

/// 503 with `Retry-After: 1`: the server is busy with other requests.
fn busy() -> Error {
    Error::later("the server is busy with other requests: ask again in a second")
}
