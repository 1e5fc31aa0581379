//! The header of an OpenTS trace: the root element's attributes.

/// The header of a trace (the root element's attributes).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct TraceHeader {
    /// `ranks`: the number of ranks, if given.
    pub ranks: Option<u32>,
    /// `cmd`: the program's command line, if given.
    pub cmd: Option<String>,
    /// `time`: when the program started, as written (`27.04.2006 15:58`).
    pub time: Option<String>,
}

impl TraceHeader {
    /// The start `time` (`DD.MM.YYYY HH:MM[:SS]`) as seconds since the Unix
    /// epoch, reading it as UTC (the file does not say its time zone);
    /// `None` when absent or in another form.
    pub fn start_unix_seconds(&self) -> Option<i64> {
        let t = self.time.as_deref()?.trim();
        let (date, clock) = t.split_once(' ')?;
        let d: Vec<&str> = date.split('.').collect();
        let c: Vec<&str> = clock.trim().split(':').collect();
        if d.len() != 3 || !(2..=3).contains(&c.len()) {
            return None;
        }
        let num = |s: &str| -> Option<i64> {
            (!s.is_empty() && s.bytes().all(|b| b.is_ascii_digit()))
                .then(|| s.parse().ok())
                .flatten()
        };
        let (day, month, year) = (num(d[0])?, num(d[1])?, num(d[2])?);
        let (h, m) = (num(c[0])?, num(c[1])?);
        let s = if c.len() == 3 { num(c[2])? } else { 0 };
        if !(1..=12).contains(&month) || !(1..=31).contains(&day) || h > 23 || m > 59 || s > 60 {
            return None;
        }
        // Days from the civil date (proleptic Gregorian).
        let y = if month <= 2 { year - 1 } else { year };
        let era = y.div_euclid(400);
        let yoe = y - era * 400;
        let mp = (month + 9) % 12;
        let doy = (153 * mp + 2) / 5 + day - 1;
        let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
        let days = era * 146_097 + doe - 719_468;
        Some(days * 86_400 + h * 3_600 + m * 60 + s)
    }
}
