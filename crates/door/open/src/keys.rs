//! Link keys possibly reused: confirming, by reading the input again, what
//! the filter of a simulation in bounded memory suspects.
//!
//! With [`LoadOptions::key_filter`] the simulation remembers the link keys
//! already used in a filter of fixed size ([`LinkKeys::Filter`]). A new
//! link whose key the filter has seen is a *suspect*: perhaps a reuse,
//! perhaps a false positive. When the input can be read again (a regular
//! file, compressed or not, or a `.ptb`), suspects are kept, at most
//! [`KeyWatch::cap`] of them, and confirmed in two steps:
//!
//! 1. the events up to the last suspect are read again, without
//!    simulating them: a link whose key did not occur twice before it (a
//!    start and an end, in any list) cannot reuse it. This clears every
//!    false positive of a trace whose keys are unique, for the cost of
//!    reading;
//! 2. what remains is simulated again up to its last line, remembering
//!    exactly those keys ([`LinkKeys::Confirm`]): every reuse is among the
//!    suspects, so the first error is the one the exact simulation gives
//!    (the same line and message).
//!
//! Suspects are confirmed when the simulation ends, or as soon as there
//! are `cap` of them (then forgotten), so memory stays bounded. A stream
//! cannot be read again, nor can events reordered (a sort window,
//! [`LoadOptions::sort`]) be read again in their order up to a line: a
//! suspect then becomes a warning (in the simulator).

use std::collections::HashMap;
use std::fs::File;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

use trama_events::{EventKind, Field};
use trama_sim::{CountingSink, KeySuspects, LinkKeys, ListId, SimError, Simulator};

use crate::formats::each_reader;
use crate::reader::{Failure, Item, Stop, TraceReader};
use crate::{Error, LoadOptions, Opened};

/// How to read an input again.
pub(crate) struct Again {
    name: String,
    file: File,
    path: Option<PathBuf>,
    opts: LoadOptions,
    precision: trama_num::Precision,
}

impl Again {
    /// The input of `opened` read again with `opts`, when it can be: not
    /// when its events are reordered (a sort window, `--sort`), whose
    /// order reading up to a line does not give.
    pub(crate) fn of(opened: &Opened, opts: &LoadOptions) -> Option<Again> {
        if opts.reorders() {
            return None;
        }
        let file = opened.again.as_ref()?.try_clone().ok()?;
        Some(Again {
            name: opened.name.clone(),
            file,
            path: opened.path.clone(),
            opts: opts.clone(),
            precision: opened.precision(),
        })
    }

    fn open(&self) -> Result<Opened, Error> {
        crate::opened(crate::input::reopen(
            &self.name,
            &self.file,
            self.path.clone(),
        )?)
    }
}

/// A link key the filter had seen.
struct Suspect {
    list: ListId,
    key: Box<[u8]>,
    line: u64,
}

/// What confirming found.
pub(crate) enum Found {
    /// The simulation's error at the first reuse.
    Reuse(SimError),
    /// Reading the input again failed.
    Input(Error),
}

/// The suspects of one simulation, and what confirming them found.
pub(crate) struct KeyWatch {
    again: Option<Again>,
    suspects: Vec<Suspect>,
    /// Suspects kept before they are confirmed at once.
    cap: usize,
    found: Option<Found>,
    /// Set when something was found: the simulation should stop.
    halted: Arc<AtomicBool>,
    /// Suspects confirmed so far, and the time it took (`TRAMA_TIMINGS`).
    confirmed: usize,
    seconds: f64,
}

impl KeyWatch {
    /// Suspects of a simulation with a filter of `bytes`, confirmed by
    /// reading `again` when there is one.
    pub(crate) fn new(again: Option<Again>, bytes: usize, halted: Arc<AtomicBool>) -> KeyWatch {
        KeyWatch {
            again,
            suspects: Vec::new(),
            cap: Self::cap(bytes),
            found: None,
            halted,
            confirmed: 0,
            seconds: 0.0,
        }
    }

    /// Suspects kept for a filter of `bytes`: one per KiB of filter,
    /// between 16 and 16,384 (about 1 MiB with their keys).
    pub(crate) fn cap(bytes: usize) -> usize {
        (bytes / 1024).clamp(16, 16384)
    }

    /// Takes suspect `key` of `list` at `line`; false when the input cannot
    /// be read again (the simulator then gives a warning).
    pub(crate) fn suspect(&mut self, list: ListId, key: &[u8], line: u64) -> bool {
        if self.again.is_none() {
            return false;
        }
        if self.found.is_some() {
            return true;
        }
        self.suspects.push(Suspect {
            list,
            key: key.into(),
            line,
        });
        if self.suspects.len() >= self.cap {
            self.confirm();
        }
        true
    }

    /// Confirms the suspects kept, if any, and forgets them.
    pub(crate) fn confirm(&mut self) {
        if self.suspects.is_empty() || self.found.is_some() {
            return;
        }
        let Some(again) = &self.again else {
            return;
        };
        let t0 = std::time::Instant::now();
        let suspects = std::mem::take(&mut self.suspects);
        self.confirmed += suspects.len();
        match confirm(again, suspects) {
            Ok(None) => {}
            Ok(Some(e)) => self.found = Some(Found::Reuse(e)),
            Err(e) => self.found = Some(Found::Input(e)),
        }
        if self.found.is_some() {
            self.halted.store(true, Ordering::Relaxed);
        }
        self.seconds += t0.elapsed().as_secs_f64();
    }

    /// What confirming found, taken.
    pub(crate) fn take_found(&mut self) -> Option<Found> {
        self.found.take()
    }

    /// A line for `TRAMA_TIMINGS`, when suspects were confirmed.
    pub(crate) fn timings(&self) -> Option<String> {
        (self.confirmed > 0).then(|| {
            format!(
                "{} link key(s) suspected by the filter, confirmed by reading again in {:.3} s",
                self.confirmed, self.seconds
            )
        })
    }
}

/// The line of an item, for the events that have one.
fn line_of(item: &Item<'_>) -> Option<u64> {
    match item {
        Item::Chunk { .. } => None,
        Item::Event(ev) => Some(ev.line()),
        Item::Handles(h) => Some(h.line),
    }
}

/// The key of a link event.
fn key_of<'a>(item: &Item<'a>) -> Option<&'a [u8]> {
    let is_link = |k: EventKind| matches!(k, EventKind::StartLink | EventKind::EndLink);
    match item {
        Item::Event(ev) if is_link(ev.kind()) => Some(ev.get(Field::Key)),
        Item::Handles(h) if is_link(h.kind) => Some(h.key),
        _ => None,
    }
}

/// The first error of the exact simulation, if one of `suspects` is a
/// reuse; `None` if all are false positives.
fn confirm(again: &Again, mut suspects: Vec<Suspect>) -> Result<Option<SimError>, Error> {
    // Step 1: the first two lines where each suspect key occurs.
    let upto = suspects.iter().map(|s| s.line).max().unwrap_or(0);
    let mut seen: HashMap<Box<[u8]>, [u64; 2]> = suspects
        .iter()
        .map(|s| (s.key.clone(), [u64::MAX; 2]))
        .collect();
    read_upto(again, upto, |item| {
        if let (Some(line), Some(key)) = (line_of(item), key_of(item)) {
            if let Some(at) = seen.get_mut(key) {
                if at[0] == u64::MAX {
                    at[0] = line;
                } else if at[1] == u64::MAX {
                    at[1] = line;
                }
            }
        }
        Ok(())
    })?;
    // A reuse needs a start and an end of the key before it.
    suspects.retain(|s| seen[&s.key][1] < s.line);
    if suspects.is_empty() {
        return Ok(None);
    }
    // Step 2: the exact simulation, for these keys only.
    let upto = suspects.iter().map(|s| s.line).max().unwrap_or(0);
    let mut keys = KeySuspects::default();
    for s in &suspects {
        keys.insert(s.list, &s.key);
    }
    let mut sopts = crate::simulate::sim_options(&again.opts, again.precision);
    sopts.link_keys = LinkKeys::Confirm(Arc::new(keys));
    let mut sim = Simulator::new(CountingSink::default(), sopts);
    let mut found = None;
    read_upto(again, upto, |item| {
        match item {
            Item::Chunk { .. } => Ok(()),
            Item::Event(ev) => sim.event(ev),
            Item::Handles(h) => sim.event_handles(h),
        }
        .map_err(|e| {
            found = Some(e);
            Stop::OutputClosed
        })
    })?;
    Ok(found)
}

/// Reads the input again, handing `each` the items up to line `upto`.
fn read_upto<F>(again: &Again, upto: u64, mut each: F) -> Result<(), Error>
where
    F: FnMut(&Item<'_>) -> Result<(), Stop>,
{
    let mut opened = again.open()?;
    let read = each_reader!(&mut opened.reader, r => r.read(&again.opts, |item| {
        if line_of(&item).is_some_and(|l| l > upto) {
            return Err(Stop::OutputClosed);
        }
        each(&item)
    }));
    match read {
        Ok(_) | Err(Failure::Stop(Stop::OutputClosed)) => Ok(()),
        Err(f) => Err(opened.failure(f)),
    }
}
