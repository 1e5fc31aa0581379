//! Decoding: [`Decoder`], [`visit`], [`detect_layout`] and the errors.

use std::fmt;

use super::{
    Clock, Layout, RstEvent, Stamp, TypeCode, Value, EVENT_INIT, LAST_CONTINUATION_WORD,
    LAST_FIRST_WORD, NIBBLES_CONTINUATION_WORD, NIBBLES_FIRST_WORD, TIME_SET_BIT,
};

/// What is wrong with a libRastro buffer.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum RstErrorKind {
    /// The buffer ends inside an event.
    Truncated {
        /// The part that is cut, e.g. `"u64 value"`.
        what: &'static str,
        /// Bytes it needs.
        needed: usize,
        /// Bytes left in the buffer.
        available: usize,
    },
    /// A header nibble is not a type code (8..=15).
    UnknownTypeCode {
        /// The nibble.
        code: u8,
        /// Its position among the event's values (0-based).
        index: usize,
    },
    /// A string has no terminating NUL before the end of the buffer.
    UnterminatedString,
    /// The first event is not the libRastro header event (type 16383).
    NotRastro {
        /// The type found.
        found: u16,
    },
    /// The header event does not hold two `u64` and a string.
    BadInitEvent {
        /// The value letters found.
        signature: String,
    },
    /// A timed clock with a resolution of 0 ticks per second.
    ZeroResolution,
}

impl fmt::Display for RstErrorKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            RstErrorKind::Truncated {
                what,
                needed,
                available,
            } => write!(
                f,
                "truncated event: the {what} needs {needed} bytes, {available} left"
            ),
            RstErrorKind::UnknownTypeCode { code, index } => write!(
                f,
                "unknown value type code {code} for value {index} (libRastro codes are 1..=7)"
            ),
            RstErrorKind::UnterminatedString => {
                f.write_str("string without a terminating NUL before the end of the data")
            }
            RstErrorKind::NotRastro { found } => write!(
                f,
                "not a libRastro trace: the first event has type {found}, expected {EVENT_INIT}"
            ),
            RstErrorKind::BadInitEvent { signature } => write!(
                f,
                "the libRastro header event holds '{signature}', expected two u64 and a string ('lls')"
            ),
            RstErrorKind::ZeroResolution => f.write_str("clock resolution of 0 ticks per second"),
        }
    }
}

/// A decoding error: where (byte offset, and the event it belongs to) and what.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("byte {offset}: {kind} (rastro event {event} starting at byte {event_offset})")]
pub struct RstError {
    /// Byte offset of the problem.
    pub offset: usize,
    /// Byte offset of the event's first header word.
    pub event_offset: usize,
    /// 1-based number of the event.
    pub event: u64,
    /// What is wrong.
    pub kind: RstErrorKind,
}

/// Walks a libRastro buffer event by event. Values borrow the buffer and are
/// kept in a list reused from one event to the next.
#[derive(Debug)]
pub struct Decoder<'a> {
    data: &'a [u8],
    pos: usize,
    layout: Layout,
    number: u64,
    clock: Option<Clock>,
    values: Vec<Value<'a>>,
    codes: Vec<TypeCode>,
    done: bool,
}

#[inline]
fn align4(p: usize) -> usize {
    (p + 3) & !3
}

struct Cursor<'a> {
    data: &'a [u8],
    pos: usize,
    event_offset: usize,
    event: u64,
}

impl<'a> Cursor<'a> {
    fn err(&self, offset: usize, kind: RstErrorKind) -> RstError {
        RstError {
            offset,
            event_offset: self.event_offset,
            event: self.event,
            kind,
        }
    }

    #[inline]
    fn take<const N: usize>(&mut self, what: &'static str) -> Result<[u8; N], RstError> {
        let bytes = self
            .data
            .get(self.pos..)
            .and_then(|rest| rest.get(..N))
            .and_then(|b| <[u8; N]>::try_from(b).ok());
        match bytes {
            Some(b) => {
                self.pos += N;
                Ok(b)
            }
            None => Err(self.err(
                self.pos,
                RstErrorKind::Truncated {
                    what,
                    needed: N,
                    available: self.data.len().saturating_sub(self.pos),
                },
            )),
        }
    }

    #[inline]
    fn u32(&mut self, what: &'static str) -> Result<u32, RstError> {
        self.take::<4>(what).map(u32::from_le_bytes)
    }

    #[inline]
    fn u64(&mut self, what: &'static str) -> Result<u64, RstError> {
        self.take::<8>(what).map(u64::from_le_bytes)
    }

    fn string(&mut self) -> Result<&'a [u8], RstError> {
        let start = self.pos;
        let rest = self.data.get(start..).unwrap_or(&[]);
        let Some(nul) = find_nul(rest) else {
            return Err(self.err(start, RstErrorKind::UnterminatedString));
        };
        let s = &rest[..nul];
        let after = start + nul + 1;
        let padded = align4(after);
        if padded > self.data.len() {
            return Err(self.err(
                after,
                RstErrorKind::Truncated {
                    what: "padding after a string",
                    needed: padded - after,
                    available: self.data.len() - after,
                },
            ));
        }
        self.pos = padded;
        Ok(s)
    }
}

/// Position of the first NUL: strings are short, so a plain scan of the
/// first bytes beats setting up a vectorized search.
#[inline]
fn find_nul(s: &[u8]) -> Option<usize> {
    const SHORT: usize = 32;
    match s.iter().take(SHORT).position(|&b| b == 0) {
        Some(i) => Some(i),
        None if s.len() > SHORT => memchr::memchr(0, &s[SHORT..]).map(|i| i + SHORT),
        None => None,
    }
}

impl<'a> Decoder<'a> {
    /// A decoder of `data` in a known layout.
    pub fn new(data: &'a [u8], layout: Layout) -> Decoder<'a> {
        Decoder {
            data,
            pos: 0,
            layout,
            number: 0,
            clock: None,
            values: Vec::new(),
            codes: Vec::new(),
            done: false,
        }
    }

    /// A decoder of `data` in the layout found by [`detect_layout`].
    pub fn detect(data: &'a [u8]) -> Result<Decoder<'a>, RstError> {
        Ok(Decoder::new(data, detect_layout(data)?))
    }

    /// The layout being decoded.
    pub fn layout(&self) -> Layout {
        self.layout
    }

    /// Offset of the next event.
    pub fn position(&self) -> usize {
        self.pos
    }

    /// Events decoded so far.
    pub fn events(&self) -> u64 {
        self.number
    }

    /// The next event, `Ok(None)` at the end of the data. After an error the
    /// decoder stops (every later call returns `Ok(None)`).
    pub fn next_event(&mut self) -> Result<Option<RstEvent<'_, 'a>>, RstError> {
        if self.done || self.pos >= self.data.len() {
            self.done = true;
            return Ok(None);
        }
        let offset = self.pos;
        match self.decode_one() {
            Ok((type_id, stamp, end)) => {
                self.pos = end;
                Ok(Some(RstEvent {
                    offset,
                    len: end - offset,
                    number: self.number,
                    type_id,
                    stamp,
                    clock: self.clock,
                    values: &self.values,
                }))
            }
            Err(e) => {
                self.done = true;
                Err(e)
            }
        }
    }

    fn decode_one(&mut self) -> Result<(u16, Stamp, usize), RstError> {
        self.number += 1;
        self.values.clear();
        self.codes.clear();
        let mut c = Cursor {
            data: self.data,
            pos: self.pos,
            event_offset: self.pos,
            event: self.number,
        };
        let first = c.u32("event header")?;
        let type_id = (first >> 18) as u16;
        let time_set = first & TIME_SET_BIT != 0;
        let stamp = match self.layout {
            Layout::Timeless => Stamp::Timeless { time_set },
            Layout::Timed => {
                let set = if time_set {
                    let seconds = c.u64("clock seconds")?;
                    let resolution = c.u64("clock resolution")?;
                    let clock = Clock {
                        seconds,
                        resolution,
                    };
                    self.clock = Some(clock);
                    Some(clock)
                } else {
                    None
                };
                let ticks = c.u64("time stamp")?;
                Stamp::Timed {
                    time_set: set,
                    ticks,
                }
            }
        };
        // Type nibbles, most significant first, over as many words as needed.
        let mut word = first;
        let mut word_offset = c.event_offset;
        let mut nibbles = NIBBLES_FIRST_WORD;
        let mut last_bit = LAST_FIRST_WORD;
        loop {
            for i in 0..nibbles {
                let n = ((word >> (4 * (nibbles - 1 - i))) & 0xf) as u8;
                if n == 0 {
                    break;
                }
                match TypeCode::from_nibble(n) {
                    Some(code) => self.codes.push(code),
                    None => {
                        return Err(c.err(
                            word_offset,
                            RstErrorKind::UnknownTypeCode {
                                code: n,
                                index: self.codes.len(),
                            },
                        ))
                    }
                }
            }
            if word & last_bit != 0 {
                break;
            }
            word_offset = c.pos;
            word = c.u32("continuation header word")?;
            nibbles = NIBBLES_CONTINUATION_WORD;
            last_bit = LAST_CONTINUATION_WORD;
        }
        for &code in &self.codes {
            let v = match code {
                TypeCode::String => Value::Str(c.string()?),
                TypeCode::F64 => Value::F64(f64::from_le_bytes(c.take::<8>("f64 value")?)),
                TypeCode::F32 => Value::F32(f32::from_le_bytes(c.take::<4>("f32 value")?)),
                TypeCode::U64 => Value::U64(c.u64("u64 value")?),
                TypeCode::U16 => Value::U16(u16::from_le_bytes(c.take::<2>("u16 value")?)),
                TypeCode::U8 => Value::U8(c.take::<1>("u8 value")?[0]),
                TypeCode::U32 => Value::U32(c.u32("u32 value")?),
            };
            self.values.push(v);
        }
        let end = align4(c.pos);
        if end > self.data.len() {
            return Err(c.err(
                c.pos,
                RstErrorKind::Truncated {
                    what: "padding at the end of the event",
                    needed: end - c.pos,
                    available: self.data.len() - c.pos,
                },
            ));
        }
        Ok((type_id, stamp, end))
    }
}

/// Why [`visit`] stopped.
#[derive(Debug, thiserror::Error)]
pub enum VisitError<E> {
    /// The data is not valid libRastro.
    #[error(transparent)]
    Rst(#[from] RstError),
    /// The callback returned an error.
    #[error("{0}")]
    Visitor(E),
}

/// Calls `f` with every event of `data` in the given layout (or the one
/// [`detect_layout`] finds), in file order. Returns the number of events.
pub fn visit<E>(
    data: &[u8],
    layout: Option<Layout>,
    mut f: impl FnMut(&RstEvent<'_, '_>) -> Result<(), E>,
) -> Result<u64, VisitError<E>> {
    let layout = match layout {
        Some(l) => l,
        None => detect_layout(data)?,
    };
    let mut d = Decoder::new(data, layout);
    while let Some(ev) = d.next_event()? {
        f(&ev).map_err(VisitError::Visitor)?;
    }
    Ok(d.events())
}

/// An error at the start of the buffer, in its first event.
fn at_first_event(kind: RstErrorKind) -> RstError {
    RstError {
        offset: 0,
        event_offset: 0,
        event: 1,
        kind,
    }
}

/// The error of a buffer too short for the header of its first event:
/// `available` bytes.
fn no_first_event(available: usize) -> RstError {
    at_first_event(RstErrorKind::Truncated {
        what: "event header",
        needed: 4,
        available,
    })
}

/// Events decoded by [`detect_layout`] after the header event.
const PROBE_EVENTS: usize = 64;

fn probe(data: &[u8], layout: Layout) -> Result<(), RstError> {
    let mut d = Decoder::new(data, layout);
    {
        let Some(ev) = d.next_event()? else {
            return Err(no_first_event(0));
        };
        let bad = |kind| RstError {
            offset: ev.offset,
            event_offset: ev.offset,
            event: ev.number,
            kind,
        };
        if ev.type_id != EVENT_INIT {
            return Err(bad(RstErrorKind::NotRastro { found: ev.type_id }));
        }
        if ev.init_info().is_none() {
            return Err(bad(RstErrorKind::BadInitEvent {
                signature: ev.signature(),
            }));
        }
        if let Stamp::Timed { time_set, .. } = ev.stamp {
            if time_set.is_some_and(|c| c.resolution == 0) {
                return Err(bad(RstErrorKind::ZeroResolution));
            }
        }
    }
    for _ in 0..PROBE_EVENTS {
        if d.next_event()?.is_none() {
            break;
        }
    }
    Ok(())
}

/// Finds the layout of a libRastro buffer by decoding its header event and
/// the events after it both ways: the timed layout needs `RST_TIME_SET` on
/// the header event and a non-zero resolution. When both layouts decode,
/// the timed one wins; when neither does, the error of the attempt that
/// got further is returned.
pub fn detect_layout(data: &[u8]) -> Result<Layout, RstError> {
    let head = data
        .get(..4)
        .and_then(|b| <[u8; 4]>::try_from(b).ok())
        .map(u32::from_le_bytes);
    let Some(head) = head else {
        return Err(no_first_event(data.len()));
    };
    let type_id = (head >> 18) as u16;
    if type_id != EVENT_INIT {
        return Err(at_first_event(RstErrorKind::NotRastro { found: type_id }));
    }
    let timed = if head & TIME_SET_BIT != 0 {
        probe(data, Layout::Timed)
    } else {
        Err(at_first_event(RstErrorKind::Truncated {
            what: "clock of the header event",
            needed: 16,
            available: 0,
        }))
    };
    let timed_err = match timed {
        Ok(()) => return Ok(Layout::Timed),
        Err(e) => e,
    };
    match probe(data, Layout::Timeless) {
        Ok(()) => Ok(Layout::Timeless),
        Err(e) => Err(if progress(&timed_err) > progress(&e) {
            timed_err
        } else {
            e
        }),
    }
}

/// How far a failed attempt got: later events first, then errors about
/// what was decoded (rather than missing bytes), then the offset.
fn progress(e: &RstError) -> (u64, bool, usize) {
    let decoded = !matches!(e.kind, RstErrorKind::Truncated { .. });
    (e.event, decoded, e.offset)
}
