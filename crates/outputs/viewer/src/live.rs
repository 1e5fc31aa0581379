//! What the page and the simulation of a stream share (`trama view
//! --stream`, see [`crate::stream`]): the frames cut and not yet read, the
//! stage, and the stream's end.

use std::collections::VecDeque;
use std::sync::{Arc, Condvar, Mutex};

use serde::Serialize;

/// What the page and the simulation share.
#[derive(Default)]
pub(crate) struct Live {
    inner: Mutex<LiveInner>,
    changed: Condvar,
}

#[derive(Default)]
struct LiveInner {
    /// Frames cut and not yet dropped, as JSON, by number.
    frames: VecDeque<(u64, Arc<String>)>,
    /// The number of the next frame to cut.
    next: u64,
    /// The page has read the frames before this one.
    read: u64,
    /// The stage and values, as JSON, and their version.
    stage: Arc<String>,
    version: u64,
    /// The simulation's end: `Some(Ok)` at the input's end, else why it
    /// failed.
    done: Option<Result<(), String>>,
    /// The time of the last event read.
    time: f64,
    /// The frames' length.
    dt: f64,
}

/// The reply of `api/stream`.
#[derive(Serialize)]
pub(crate) struct StreamReply {
    /// The stage's version; `stage` is given when the page's is older.
    version: u64,
    #[serde(skip_serializing_if = "Option::is_none")]
    stage: Option<serde_json::Value>,
    /// Frames after the one asked for, in order.
    frames: Vec<serde_json::Value>,
    /// The newest frame cut.
    newest: Option<u64>,
    /// The frames' length.
    dt: f64,
    /// The time of the last event read.
    time: f64,
    /// Whether the input has ended (then `error` says if it failed).
    done: bool,
    error: Option<String>,
}

impl Live {
    /// Frames after `after` (at most 32); with `last`, only the newest,
    /// the ones before it dropped.
    pub(crate) fn read(&self, after: Option<u64>, last: bool, version: u64) -> StreamReply {
        let mut g = self.inner.lock().unwrap_or_else(|e| e.into_inner());
        let mut frames = Vec::new();
        if last {
            if let Some((k, f)) = g.frames.back().cloned() {
                g.frames.clear();
                g.read = k + 1;
                frames.push(f);
            }
        } else {
            let from = after.map_or(0, |a| a + 1);
            // Frames before `from` are read: drop them.
            while g.frames.front().is_some_and(|f| f.0 < from) {
                g.frames.pop_front();
            }
            g.read = g.read.max(from);
            let mut read = g.read;
            for (k, f) in g.frames.iter().take(32) {
                frames.push(f.clone());
                read = read.max(*k + 1);
            }
            g.read = read;
        }
        self.changed.notify_all();
        let parse = |s: &str| serde_json::from_str(s).unwrap_or(serde_json::Value::Null);
        StreamReply {
            version: g.version,
            stage: (version != g.version).then(|| parse(&g.stage)),
            frames: frames.iter().map(|f| parse(f)).collect(),
            newest: g.next.checked_sub(1),
            dt: g.dt,
            time: g.time,
            done: g.done.is_some(),
            error: g.done.clone().and_then(|d| d.err()),
        }
    }

    /// Adds frame `k`, after waiting until the page is at most `ahead`
    /// frames behind.
    pub(crate) fn push(&self, k: u64, json: String, ahead: usize) {
        let mut g = self.inner.lock().unwrap_or_else(|e| e.into_inner());
        while k >= g.read + ahead as u64 {
            g = self.changed.wait(g).unwrap_or_else(|e| e.into_inner());
        }
        g.frames.push_back((k, Arc::new(json)));
        g.next = k + 1;
    }

    pub(crate) fn set_stage(&self, json: String) {
        let mut g = self.inner.lock().unwrap_or_else(|e| e.into_inner());
        g.stage = Arc::new(json);
        g.version += 1;
    }

    pub(crate) fn set_time(&self, t: f64) {
        let mut g = self.inner.lock().unwrap_or_else(|e| e.into_inner());
        g.time = t;
    }

    /// Sets the frames' length.
    pub(crate) fn set_dt(&self, dt: f64) {
        let mut g = self.inner.lock().unwrap_or_else(|e| e.into_inner());
        g.dt = dt;
    }

    /// The input has ended: `Ok`, or why it failed.
    pub(crate) fn end(&self, result: Result<(), String>) {
        let mut g = self.inner.lock().unwrap_or_else(|e| e.into_inner());
        g.done = Some(result);
        self.changed.notify_all();
    }

    /// The stream failed (unless it has ended already): the page says why.
    pub(crate) fn fail(&self, why: String) {
        let mut g = self.inner.lock().unwrap_or_else(|e| e.into_inner());
        if g.done.is_none() {
            g.done = Some(Err(why));
        }
        self.changed.notify_all();
    }
}
