//! A time window cut into pixel columns, and which columns an entity
//! touches.

/// A time window `[t0, t1]` cut into `width` pixel columns of equal
/// duration. Column `c` covers `[c, c + 1)` in pixel units, the last one
/// `[width - 1, width]` (closed, so that an entity at exactly `t1` is
/// shown).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Grid {
    /// Start of the window.
    pub t0: f64,
    /// End of the window (always after `t0`).
    pub t1: f64,
    /// Number of pixel columns (at least 1).
    pub width: u32,
    /// True when the window asked for spans no time (every entity at one
    /// instant, or an empty trace) and was widened to half a second on
    /// each side of that instant.
    pub widened: bool,
}

impl Grid {
    /// The window `[t0, t1]` at `width` columns. A window of no duration
    /// (or reversed, or not finite) becomes `[t0 - 0.5, t0 + 0.5]`, with
    /// [`Grid::widened`] set; a width of 0 becomes 1.
    pub fn new(t0: f64, t1: f64, width: u32) -> Grid {
        let width = width.max(1);
        if t0.is_finite() && t1.is_finite() && t1 > t0 {
            return Grid {
                t0,
                t1,
                width,
                widened: false,
            };
        }
        let c = if t0.is_finite() { t0 } else { 0.0 };
        Grid {
            t0: c - 0.5,
            t1: c + 0.5,
            width,
            widened: true,
        }
    }

    /// Duration of one column.
    pub fn column_time(&self) -> f64 {
        (self.t1 - self.t0) / self.width as f64
    }

    /// Position of `t` in pixel units (0 at `t0`, `width` at `t1`).
    #[inline]
    pub fn x(&self, t: f64) -> f64 {
        (t - self.t0) / (self.t1 - self.t0) * self.width as f64
    }

    /// The start of column `c` in time.
    pub fn time_of(&self, c: u32) -> f64 {
        self.t0 + c as f64 * self.column_time()
    }

    /// The column of the instant `t`, if it is in the window.
    #[inline]
    pub fn column(&self, t: f64) -> Option<u32> {
        self.columns(t, t).map(|c| c.0)
    }

    /// The columns `first..=last` that the entity `[a, b]` touches, if
    /// any. An entity touches column `c` when it covers some of its time,
    /// or when it lasts no time and lies in it; so an entity that ends
    /// exactly where a column begins does not touch that column (and one
    /// that ends at `t0` is not in the window), but one at `t1` is in the
    /// last column. `b < a` (not finished) counts as lasting past `t1`.
    #[inline]
    pub fn columns(&self, a: f64, b: f64) -> Option<(u32, u32)> {
        let w = self.width as f64;
        let xa = self.x(a);
        let xb = if b < a { f64::INFINITY } else { self.x(b) };
        // NaN (a time that is not a number) is in no column.
        if xa.is_nan() || xb.is_nan() || xa > w || xb < 0.0 {
            return None;
        }
        let first = if xa == w { w - 1.0 } else { xa.floor() };
        let last = (xb.ceil() - 1.0).max(first);
        if last < 0.0 {
            return None;
        }
        let first = first.max(0.0) as u32;
        let last = last.min(w - 1.0) as u32;
        Some((first, last))
    }

    /// How much of column `c` (in pixel units, 0 to 1) the entity `[a, b]`
    /// covers.
    #[inline]
    pub fn cover(&self, a: f64, b: f64, c: u32) -> f64 {
        let xa = self.x(a);
        let xb = if b < a { f64::INFINITY } else { self.x(b) };
        let c = c as f64;
        (xb.min(c + 1.0) - xa.max(c)).max(0.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn columns_follow_the_half_open_rule() {
        let g = Grid::new(0.0, 10.0, 10);
        assert_eq!(g.columns(0.0, 1.0), Some((0, 0)));
        assert_eq!(g.columns(0.5, 1.5), Some((0, 1)));
        assert_eq!(g.columns(1.0, 1.0), Some((1, 1)));
        assert_eq!(g.columns(10.0, 10.0), Some((9, 9)));
        assert_eq!(g.columns(-5.0, 0.0), None);
        assert_eq!(g.columns(-5.0, 0.1), Some((0, 0)));
        assert_eq!(g.columns(10.1, 12.0), None);
        assert_eq!(g.columns(3.0, -1.0), Some((3, 9)));
        assert_eq!(g.cover(0.5, 1.5, 0), 0.5);
        assert_eq!(g.cover(0.5, 1.5, 1), 0.5);
        assert_eq!(g.cover(0.5, 1.5, 2), 0.0);
    }

    #[test]
    fn a_window_of_no_duration_is_widened_around_its_instant() {
        let g = Grid::new(0.0, 0.0, 100);
        assert!(g.widened);
        assert_eq!((g.t0, g.t1), (-0.5, 0.5));
        assert_eq!(g.column(0.0), Some(50));
        let g = Grid::new(f64::NAN, 1.0, 0);
        assert!(g.widened && g.width == 1);
        assert!(!Grid::new(1.0, 2.0, 4).widened);
    }
}
