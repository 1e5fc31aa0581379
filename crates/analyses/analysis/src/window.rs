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

/// A time window as asked for: either side may be open (`None`), to be
/// resolved against a trace's bounds ([`TimeWindow::resolve`]). Parses
/// from `START:END` (`--window T1:T2`), either side may be empty.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct TimeWindow {
    /// Start; `None`: the trace's start.
    pub start: Option<f64>,
    /// End; `None`: the trace's end.
    pub end: Option<f64>,
}

/// Why a `START:END` window does not parse.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum WindowError {
    /// No `:`.
    #[error("--window must be START:END (either may be empty), not '{0}'")]
    NoColon(String),
    /// A side that is neither empty nor a number.
    #[error("--window: '{0}' is not a number")]
    NotANumber(String),
    /// The end before the start.
    #[error("--window: the end {end} is before the start {start}")]
    EndBeforeStart {
        /// The start.
        start: f64,
        /// The end.
        end: f64,
    },
}

impl TimeWindow {
    /// `[start, end]`, either side open when `None`.
    pub fn new(start: Option<f64>, end: Option<f64>) -> TimeWindow {
        TimeWindow { start, end }
    }

    /// Parses an optional `START:END` (`None`: the whole trace).
    pub fn parse_opt(s: Option<&str>) -> Result<TimeWindow, WindowError> {
        s.map_or(Ok(TimeWindow::default()), str::parse)
    }

    /// What a trace loader reads: `None` for the whole trace, else the
    /// bounds with an open side infinite.
    pub fn bounds(&self) -> Option<(f64, f64)> {
        (self.start.is_some() || self.end.is_some()).then(|| {
            (
                self.start.unwrap_or(f64::NEG_INFINITY),
                self.end.unwrap_or(f64::INFINITY),
            )
        })
    }

    /// What a loader reads for an analysis: [`TimeWindow::bounds`], or
    /// `None` (the whole trace) when the analysis needs the whole run
    /// whatever its window (`whole_run`).
    pub fn to_read(&self, whole_run: bool) -> Option<(f64, f64)> {
        self.bounds().filter(|_| !whole_run)
    }

    /// The closed window over `trace`: open sides at its bounds.
    pub fn resolve(&self, trace: &Trace) -> Window {
        Window::new(trace, self.start, self.end)
    }
}

impl std::str::FromStr for TimeWindow {
    type Err = WindowError;

    fn from_str(s: &str) -> Result<TimeWindow, WindowError> {
        let (a, b) = s
            .split_once(':')
            .ok_or_else(|| WindowError::NoColon(s.to_string()))?;
        let num = |x: &str| -> Result<Option<f64>, WindowError> {
            if x.trim().is_empty() {
                return Ok(None);
            }
            x.trim()
                .parse::<f64>()
                .map(Some)
                .map_err(|_| WindowError::NotANumber(x.to_string()))
        };
        let (start, end) = (num(a)?, num(b)?);
        if let (Some(start), Some(end)) = (start, end) {
            if end < start {
                return Err(WindowError::EndBeforeStart { start, end });
            }
        }
        Ok(TimeWindow { start, end })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn windows_parse_with_either_side_open() {
        let w = |s: &str| s.parse::<TimeWindow>();
        assert_eq!(w("1:2"), Ok(TimeWindow::new(Some(1.0), Some(2.0))));
        assert_eq!(w(" :2.5"), Ok(TimeWindow::new(None, Some(2.5))));
        assert_eq!(w("-1:"), Ok(TimeWindow::new(Some(-1.0), None)));
        assert_eq!(w(":"), Ok(TimeWindow::default()));
        assert_eq!(TimeWindow::parse_opt(None), Ok(TimeWindow::default()));
    }

    #[test]
    fn bad_windows_are_named() {
        let e = |s: &str| s.parse::<TimeWindow>().unwrap_err().to_string();
        assert_eq!(
            e("5"),
            "--window must be START:END (either may be empty), not '5'"
        );
        assert_eq!(e("1:x "), "--window: 'x ' is not a number");
        assert_eq!(e("3:1"), "--window: the end 1 is before the start 3");
    }

    #[test]
    fn bounds_are_none_for_the_whole_trace_and_open_sides_infinite() {
        assert_eq!(TimeWindow::default().bounds(), None);
        assert_eq!(
            TimeWindow::new(Some(1.0), None).bounds(),
            Some((1.0, f64::INFINITY))
        );
        assert_eq!(
            TimeWindow::new(None, Some(2.0)).bounds(),
            Some((f64::NEG_INFINITY, 2.0))
        );
    }
}

/// One of the consecutive parts a window is cut into when its entities are
/// read part by part (windows of a trace replayed one after the other):
/// `[start, end)`, the last one `[start, end]`. An entity is counted in the
/// part holding the time it enters the window (its start, or the window's
/// start), and its time in each part it overlaps, so that parts add up to
/// the whole window exactly.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Part {
    /// Start.
    pub start: f64,
    /// End.
    pub end: f64,
    /// The window's last part (its end included).
    pub last: bool,
}

impl Part {
    /// The whole window as one part.
    pub fn whole(w: Window) -> Part {
        Part {
            start: w.start,
            end: w.end,
            last: true,
        }
    }

    /// Whether `t` falls in this part.
    pub(crate) fn holds(&self, t: f64) -> bool {
        t >= self.start && (t < self.end || (self.last && t <= self.end))
    }

    /// The part as a closed window.
    pub(crate) fn window(&self) -> Window {
        Window {
            start: self.start,
            end: self.end,
        }
    }
}
