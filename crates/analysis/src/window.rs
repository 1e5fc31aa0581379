//! Time windows.

use serde::Serialize;
use trama_sim::Trace;

/// A closed time interval `[start, end]`.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct Window {
    /// Start.
    pub start: f64,
    /// End (at least `start`).
    pub end: f64,
}

impl Window {
    /// The whole trace: from its start to its end.
    pub fn of(trace: &Trace) -> Window {
        Window {
            start: trace.start_time(),
            end: trace.end_time().max(trace.start_time()),
        }
    }

    /// `[start, end]`, or the trace's bounds where a side is `None`.
    pub fn new(trace: &Trace, start: Option<f64>, end: Option<f64>) -> Window {
        let all = Window::of(trace);
        let start = start.unwrap_or(all.start);
        Window {
            start,
            end: end.unwrap_or(all.end).max(start),
        }
    }

    /// Its length.
    pub fn len(&self) -> f64 {
        self.end - self.start
    }

    /// True when it has no length.
    pub fn is_empty(&self) -> bool {
        self.len() <= 0.0
    }

    /// The length of `[a, b]` inside the window (0 when outside). An entity
    /// still open (`b` < 0, never ended) counts up to the window's end.
    #[inline]
    pub fn clip(&self, a: f64, b: f64) -> f64 {
        let b = if b < a { self.end } else { b };
        (b.min(self.end) - a.max(self.start)).max(0.0)
    }

    /// Does `[a, b]` overlap the window (touching counts)?
    #[inline]
    pub fn overlaps(&self, a: f64, b: f64) -> bool {
        let b = if b < a { self.end } else { b };
        b >= self.start && a <= self.end
    }
}
