//! The sort window: a bounded reorder buffer for traces that are nearly in
//! time order (`LoadOptions::sort_window`).
//!
//! Every event with a time is held until the input is more than the window
//! past it (the latest time read, minus the event's, exceeds the window),
//! then passed on in time order; events of equal times keep their order in
//! the file. Events without a time (definitions) are passed on at once,
//! ahead of the events held, in file order among themselves: a definition
//! holds for every event after it. An event older than one already passed
//! on cannot be put in order: it is an error naming its line, the window,
//! and the window that would have done. Memory is bounded by the events of
//! one window.

use std::cmp::Ordering;
use std::collections::VecDeque;

use trama_events::{Event, EventDef, Field, Span};
use trama_sim::{SimError, SimErrorKind};

use crate::reader::{Failure, Item, ReadStats, Stop, TraceReader};
use crate::LoadOptions;

/// Reads every item of `reader` into `each`, through the sort window of
/// `opts` when there is one.
pub(crate) fn read_sorted<R, F>(
    reader: &mut R,
    opts: &LoadOptions,
    mut each: F,
) -> Result<ReadStats, Failure>
where
    R: TraceReader,
    F: FnMut(Item<'_>) -> Result<(), Stop>,
{
    if opts.sort {
        return crate::sort::read_all_sorted(reader, opts, each);
    }
    let Some(window) = opts.sort_window else {
        return reader.read(opts, each);
    };
    let mut sorted = Reorder::new(window);
    let stats = reader.read(opts, |item| sorted.item(item, &mut each))?;
    sorted.finish(&mut each).map_err(Failure::Stop)?;
    Ok(stats)
}

/// An event held back: its words copied, with its definition's index.
#[derive(Default)]
pub(crate) struct Held {
    pub(crate) time: f64,
    pub(crate) line: u64,
    pub(crate) def: u32,
    pub(crate) bytes: Vec<u8>,
    pub(crate) spans: Vec<Span>,
}

impl Held {
    /// Copies the words of `ev`, at `time`, into `self` (its storage
    /// reused); its definition is `def`.
    pub(crate) fn copy(&mut self, ev: &Event<'_>, time: f64, def: u32) {
        let (buf, spans) = ev.spans();
        let lo = spans.iter().map(|s| s.start).min().unwrap_or(0);
        let hi = spans.iter().map(|s| s.end).max().unwrap_or(0).max(lo);
        self.bytes.clear();
        self.bytes.extend_from_slice(&buf[lo as usize..hi as usize]);
        self.spans.clear();
        self.spans.extend(spans.iter().map(|s| Span {
            start: s.start - lo,
            end: s.end - lo,
        }));
        self.time = time;
        self.line = ev.line();
        self.def = def;
    }

    /// Hands it on to `each` as an event of `defs`.
    pub(crate) fn pass<F>(&self, defs: &Defs, each: &mut F) -> Result<(), Stop>
    where
        F: FnMut(Item<'_>) -> Result<(), Stop>,
    {
        let def = defs.0[self.def as usize]
            .as_ref()
            .expect("the definition of a held event is kept");
        each(Item::Event(Event::new(
            def,
            self.line,
            &self.bytes,
            &self.spans,
        )))
    }
}

/// The definitions of the events held, by index.
#[derive(Default)]
pub(crate) struct Defs(Vec<Option<EventDef>>);

impl Defs {
    /// Keeps the definition of `ev`; its index.
    pub(crate) fn keep(&mut self, ev: &Event<'_>) -> u32 {
        let def = ev.def();
        let d = def.index() as usize;
        if self.0.len() <= d {
            self.0.resize(d + 1, None);
        }
        if self.0[d].is_none() {
            self.0[d] = Some(def.clone());
        }
        d as u32
    }
}

/// An event with a time, and its time; or the item to pass on at once
/// (not an event, or an event without a time, such as a definition).
pub(crate) fn timed(item: Item<'_>) -> Result<(Event<'_>, f64), Item<'_>> {
    let Item::Event(ev) = item else {
        return Err(item);
    };
    match ev.def().slot(Field::Time) {
        Some(slot) => {
            let time = trama_num::atof(ev.word(slot));
            Ok((ev, time))
        }
        None => Err(Item::Event(ev)),
    }
}

/// The reorder buffer; see the module documentation.
pub(crate) struct Reorder {
    window: f64,
    defs: Defs,
    /// The events held, in time order (equal times in file order): a
    /// nearly ordered input mostly appends.
    held: VecDeque<Held>,
    /// Storage of events passed on, for the next ones.
    spare: Vec<Held>,
    latest: f64,
    /// Time and line of the last event passed on.
    passed: Option<(f64, u64)>,
}

impl Reorder {
    pub(crate) fn new(window: f64) -> Reorder {
        Reorder {
            window,
            defs: Defs::default(),
            held: VecDeque::new(),
            spare: Vec::new(),
            latest: f64::NEG_INFINITY,
            passed: None,
        }
    }

    /// Takes the next item of the reader; passes on to `each` what is due.
    pub(crate) fn item<F>(&mut self, item: Item<'_>, each: &mut F) -> Result<(), Stop>
    where
        F: FnMut(Item<'_>) -> Result<(), Stop>,
    {
        let (ev, time) = match timed(item) {
            Ok(timed) => timed,
            Err(item) => return each(item),
        };
        if let Some((passed, passed_line)) = self.passed {
            if time < passed {
                return Err(self.too_old(&ev, time, passed, passed_line));
            }
        }
        self.hold(&ev, time);
        if time > self.latest {
            self.latest = time;
            self.release(each, false)?;
        }
        Ok(())
    }

    /// Passes on every event still held, at the end of the input.
    pub(crate) fn finish<F>(&mut self, each: &mut F) -> Result<(), Stop>
    where
        F: FnMut(Item<'_>) -> Result<(), Stop>,
    {
        self.release(each, true)
    }

    fn hold(&mut self, ev: &Event<'_>, time: f64) {
        let d = self.defs.keep(ev);
        let mut h = self.spare.pop().unwrap_or_default();
        h.copy(ev, time, d);
        let later = |x: &Held| x.time.total_cmp(&time) == Ordering::Greater;
        match self.held.back() {
            Some(last) if later(last) => {
                // After every event of a time up to its own.
                let at = self.held.partition_point(|x| !later(x));
                self.held.insert(at, h);
            }
            _ => self.held.push_back(h),
        }
    }

    /// Passes on the events the input is more than the window past (all
    /// of them with `all`).
    fn release<F>(&mut self, each: &mut F, all: bool) -> Result<(), Stop>
    where
        F: FnMut(Item<'_>) -> Result<(), Stop>,
    {
        while let Some(first) = self.held.front() {
            if !all && self.latest - first.time <= self.window {
                break;
            }
            let h = self.held.pop_front().expect("a first event");
            self.passed = Some((h.time, h.line));
            let r = h.pass(&self.defs, each);
            if self.spare.len() < 64 {
                self.spare.push(h);
            }
            r?;
        }
        Ok(())
    }

    fn too_old(&self, ev: &Event<'_>, time: f64, passed: f64, passed_line: u64) -> Stop {
        Stop::Sim(Box::new(SimError {
            line: ev.line(),
            kind: SimErrorKind::BeyondSortWindow {
                time: seconds(time),
                passed: seconds(passed),
                passed_line,
                window: seconds(self.window),
                needed: seconds(self.latest - time),
            },
            contents: ev.contents(),
        }))
    }
}

/// Seconds as they are read (the shortest decimal that reads back).
fn seconds(t: f64) -> String {
    format!("{t}")
}

#[cfg(test)]
mod tests {
    use super::*;
    use trama_events::{EventKind, FieldType};

    fn def() -> EventDef {
        let mut d = EventDef::new(EventKind::NewEvent, b"9", 1);
        for f in [Field::Time, Field::Type, Field::Container, Field::Value] {
            d.add_field(f, FieldType::String).unwrap();
        }
        d
    }

    /// Feeds `times` (one event each, line = position + 2) through a
    /// window; returns the lines in the order passed on, or the error.
    fn order(times: &[&str], window: f64) -> Result<Vec<u64>, String> {
        let def = def();
        let mut r = Reorder::new(window);
        let mut out = Vec::new();
        let mut each = |item: Item<'_>| {
            if let Item::Event(ev) = item {
                out.push(ev.line());
            }
            Ok(())
        };
        for (i, t) in times.iter().enumerate() {
            let text = format!("9 {t} E c v");
            let mut spans = Vec::new();
            let mut at = 0u32;
            for w in text.split(' ') {
                spans.push(Span {
                    start: at,
                    end: at + w.len() as u32,
                });
                at += w.len() as u32 + 1;
            }
            let ev = Event::new(&def, i as u64 + 2, text.as_bytes(), &spans);
            r.item(Item::Event(ev), &mut each).map_err(|e| match e {
                Stop::Sim(e) => e.to_string(),
                _ => "other".into(),
            })?;
        }
        r.finish(&mut each).map_err(|_| "finish".to_string())?;
        Ok(out)
    }

    #[test]
    fn events_come_out_in_time_order_equal_times_in_file_order() {
        let got = order(&["1", "3", "2", "2", "5", "4", "6"], 2.0).unwrap();
        assert_eq!(got, [2, 4, 5, 3, 7, 6, 8]);
    }

    #[test]
    fn an_event_older_than_the_window_is_an_error_saying_what_would_do() {
        let e = order(&["1", "2", "10", "20", "3"], 5.0).unwrap_err();
        assert!(
            e.starts_with("line 6: time 3 is before 10, the time of line 4"),
            "{e}"
        );
        assert!(
            e.contains("window of 5 s") && e.contains("--sort-window 17"),
            "{e}"
        );
        // The window it names does.
        assert_eq!(
            order(&["1", "2", "10", "20", "3"], 17.0).unwrap(),
            [2, 3, 6, 4, 5]
        );
    }

    #[test]
    fn a_zero_window_reorders_only_what_it_holds() {
        assert_eq!(order(&["1", "1", "2"], 0.0).unwrap(), [2, 3, 4]);
        // The latest event is held until a later one comes.
        assert_eq!(order(&["1", "2", "1.5"], 0.0).unwrap(), [2, 4, 3]);
        assert!(order(&["1", "2", "3", "1.5"], 0.0).is_err());
    }
}
