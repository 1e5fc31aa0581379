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

/// `ticks` of `clock` from the clock's offset: whether before it, the
/// distance in nanoseconds (picoseconds for clocks finer than a
/// nanosecond), rounded, and the number of decimals that unit takes (9 or
/// 12).
#[inline]
pub(crate) fn nanos(clock: &Clock, ticks: u64) -> (bool, u64, usize) {
    let (neg, d) = if ticks >= clock.offset {
        (false, ticks - clock.offset)
    } else {
        (true, clock.offset - ticks)
    };
    let res = clock.resolution.max(1);
    if res <= 1_000_000_000 && 1_000_000_000 % res == 0 {
        // The usual clocks (ns, µs, ms ticks): exact, without division.
        if let Some(n) = d.checked_mul(1_000_000_000 / res) {
            return (neg, n, 9);
        }
    }
    let (digits, unit) = if res <= 1_000_000_000 {
        (9, 1_000_000_000u128)
    } else {
        (12, 1_000_000_000_000u128)
    };
    let n = (d as u128 * unit + res as u128 / 2) / res as u128;
    (neg, n.min(u64::MAX as u128) as u64, digits)
}

/// Writes `ticks` of `clock` as seconds from the clock's offset: nine
/// decimals (twelve for clocks finer than a nanosecond), rounded.
#[inline]
pub(crate) fn write_time(out: &mut Vec<u8>, clock: &Clock, ticks: u64) {
    let (neg, n, digits) = nanos(clock, ticks);
    let unit = if digits == 9 {
        1_000_000_000
    } else {
        1_000_000_000_000
    };
    if neg && n > 0 {
        out.push(b'-');
    }
    write_u64(out, n / unit);
    out.push(b'.');
    let frac = n % unit;
    let mut tmp = [b'0'; 12];
    let mut v = frac;
    for i in (0..digits).rev() {
        tmp[i] = b'0' + (v % 10) as u8;
        v /= 10;
    }
    out.extend_from_slice(&tmp[..digits]);
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

    /// Adds a time.
    #[inline]
    pub fn time(&mut self, clock: &Clock, ticks: u64) {
        let s = self.buf.len();
        write_time(&mut self.buf, clock, ticks);
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
