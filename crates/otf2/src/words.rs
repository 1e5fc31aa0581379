//! The words of one Pajé event, built in a reused buffer, and the
//! formatting of times and numbers into it.

use trama_events::Span;

use crate::defs::Clock;

/// The words of the event being built.
#[derive(Default)]
pub(crate) struct Words {
    pub buf: Vec<u8>,
    pub spans: Vec<Span>,
}

/// Writes `v` in decimal.
#[inline]
pub(crate) fn write_u64(out: &mut Vec<u8>, mut v: u64) {
    let mut tmp = [0u8; 20];
    let mut i = tmp.len();
    loop {
        i -= 1;
        tmp[i] = b'0' + (v % 10) as u8;
        v /= 10;
        if v == 0 {
            break;
        }
    }
    out.extend_from_slice(&tmp[i..]);
}

/// Writes `ticks` of `clock` as seconds from the clock's offset: nine
/// decimals (twelve for clocks finer than a nanosecond), rounded.
#[inline]
pub(crate) fn write_time(out: &mut Vec<u8>, clock: &Clock, ticks: u64) {
    let (neg, d) = if ticks >= clock.offset {
        (false, ticks - clock.offset)
    } else {
        (true, clock.offset - ticks)
    };
    let res = clock.resolution.max(1);
    let (digits, unit) = if res <= 1_000_000_000 {
        (9, 1_000_000_000u128)
    } else {
        (12, 1_000_000_000_000u128)
    };
    let secs = d / res;
    let rem = (d % res) as u128;
    let mut frac = (rem * unit + res as u128 / 2) / res as u128;
    let mut secs = secs;
    if frac >= unit {
        frac -= unit;
        secs += 1;
    }
    if neg && (secs > 0 || frac > 0) {
        out.push(b'-');
    }
    write_u64(out, secs);
    out.push(b'.');
    let start = out.len();
    write_u64(out, frac as u64);
    let written = out.len() - start;
    if written < digits {
        let pad = digits - written;
        out.splice(start..start, std::iter::repeat_n(b'0', pad));
    }
}

impl Words {
    /// Starts an event whose identifier is `id`.
    #[inline]
    pub fn start(&mut self, id: &[u8]) {
        self.buf.clear();
        self.spans.clear();
        self.push(id);
    }

    #[inline]
    fn close(&mut self, start: usize) {
        self.spans.push(Span {
            start: start as u32,
            end: self.buf.len() as u32,
        });
    }

    /// Adds a word.
    #[inline]
    pub fn push(&mut self, w: &[u8]) {
        let s = self.buf.len();
        self.buf.extend_from_slice(w);
        self.close(s);
    }

    /// Adds a number.
    #[inline]
    pub fn number(&mut self, v: u64) {
        let s = self.buf.len();
        write_u64(&mut self.buf, v);
        self.close(s);
    }

    /// Adds a time.
    #[inline]
    pub fn time(&mut self, clock: &Clock, ticks: u64) {
        let s = self.buf.len();
        write_time(&mut self.buf, clock, ticks);
        self.close(s);
    }

    /// Adds a word written by `f`.
    #[inline]
    pub fn with(&mut self, f: impl FnOnce(&mut Vec<u8>)) {
        let s = self.buf.len();
        f(&mut self.buf);
        self.close(s);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn time(res: u64, offset: u64, t: u64) -> String {
        let mut v = Vec::new();
        let c = Clock {
            resolution: res,
            offset,
            length: 0,
        };
        write_time(&mut v, &c, t);
        String::from_utf8(v).unwrap()
    }

    #[test]
    fn times() {
        assert_eq!(time(1_000_000_000, 0, 20_344_000), "0.020344000");
        assert_eq!(time(1_000_000, 100, 1_500_100), "1.500000000");
        assert_eq!(time(3, 0, 2), "0.666666667");
        assert_eq!(time(1000, 10, 5), "-0.005000000");
        assert_eq!(time(2_400_000_000, 0, 1), "0.000000000417");
        assert_eq!(time(1_000_000_000, 0, u64::MAX), "18446744073.709551615");
        let mut v = Vec::new();
        write_u64(&mut v, 0);
        write_u64(&mut v, u64::MAX);
        assert_eq!(v, b"018446744073709551615");
    }
}
