//! libRastro binary traces (`.rst`), independent of what the events mean.
//!
//! A libRastro file is a sequence of *events*. Every event has a 14-bit
//! type and a list of typed values; some layouts also give it a time stamp.
//! All integers are little-endian; every event starts at a multiple of 4
//! bytes from the start of the file.
//!
//! # Header words
//!
//! An event starts with one or more `u32` header words:
//!
//! ```text
//! first word      bits 31..18  event type (0..=16383)
//!                 bit  17      last header word
//!                 bit  16      RST_TIME_SET
//!                 bits 15..0   4 type nibbles, the first value in bits 15..12
//! continuation    bits 31..30  unused (0)
//!                 bit  29      last header word
//!                 bit  28      unused (0)
//!                 bits 27..0   7 type nibbles, the first in bits 27..24
//! ```
//!
//! The "last header word" flag is libRastro's `RST_LAST` (the value 2)
//! shifted above the nibbles: `2 << 16` in the first word and `2 << 28`
//! (bit 29) in continuation words. Nibbles are read from the most
//! significant one down; a zero nibble ends the values of its word
//! (writers only leave zeros after the last value of the last word).
//! Nibble codes ([`TypeCode`]):
//!
//! | code | letter | value |
//! |---|---|---|
//! | 1 | `s` | string: bytes, a NUL, then zero bytes up to a multiple of 4 |
//! | 2 | `d` | `f64` |
//! | 3 | `f` | `f32` |
//! | 4 | `l` | `u64` |
//! | 5 | `w` | `u16` |
//! | 6 | `c` | `u8` |
//! | 7 | `i` | `u32` |
//!
//! A writer packs as many nibbles as fit in the first word and continues
//! with as many continuation words as needed; an event of four values or
//! fewer has a single header word. An event without values has the header
//! `type << 18 | 0x20000`.
//!
//! # Values
//!
//! The values follow the header words, in nibble order, packed without
//! padding (an `f64` may sit at an offset that is not a multiple of 8); a
//! string is followed by a NUL and zero bytes up to the next multiple of 4
//! (counted from the start of the file); the event ends with zero bytes up
//! to the next multiple of 4. The functions libRastro generates
//! (`rst_event_<letters>`) always order the values by type — all `d`, then
//! `l`, `f`, `i`, `w`, `c`, `s` — whatever the order of their arguments;
//! the decoder does not rely on that order, the encoder writes the values
//! in the order it is given.
//!
//! # The two layouts
//!
//! **Timed** ([`Layout::Timed`], libRastro as released, e.g. Akypuera's MPI
//! traces and the 2014 binary Pajé files):
//!
//! ```text
//! first header word
//! [u64 seconds, u64 resolution]      only when RST_TIME_SET is set
//! u64 ticks                          every event
//! continuation header words
//! values, padding
//! ```
//!
//! `seconds` is the wall-clock second the writer took as its reference
//! (`t0`) and `resolution` the ticks per second (10⁹ with
//! `clock_gettime`, 10⁶ with `gettimeofday`). Every event carries the ticks
//! elapsed since `t0`; the writer sets `RST_TIME_SET` on its first event and
//! again (with a new `t0`) on the first event more than an hour after `t0`.
//! The time of an event is `seconds + ticks / resolution` with the last
//! `(seconds, resolution)` seen ([`Clock`]).
//!
//! **Timeless** ([`Layout::Timeless`], the libRastro of 2015 used by the
//! binary Pajé tools): the first event still has `RST_TIME_SET` set, but
//! no seconds, resolution or ticks are written anywhere: header words are
//! followed directly by the values.
//!
//! Both layouts start with the event `16383` ([`EVENT_INIT`]) holding two
//! `u64` identifiers and the writer's host name (`l l s`), and end with the
//! value-less event `16382` ([`EVENT_STOP`]). A file does not say which
//! layout it uses: [`detect_layout`] tries both on the first events.
//!
//! Example: the first event of a 2015 file, `16383` with ids 0/0 and the
//! host `vm`, is the 24 bytes
//! `10 44 ff ff | 00×8 | 00×8 | 76 6d 00 00` (header `0xffff4410`: type
//! 16383, last word, `RST_TIME_SET`, nibbles `4 4 1 0`).
//!
//! # API
//!
//! [`Decoder`] walks a byte buffer and lends each [`RstEvent`] (its values
//! borrow the buffer; the decoder's value list is reused, so decoding does
//! not allocate per event). [`visit`] is the same as a callback.
//! [`Encoder`] writes events to any [`std::io::Write`] and reproduces files
//! written by libRastro byte for byte. Errors ([`RstError`]) carry the byte
//! offset of the problem; no input makes the decoder panic.

mod decode;
mod encode;

pub use decode::{detect_layout, visit, Decoder, RstError, RstErrorKind, VisitError};
pub use encode::{EncodeError, Encoder, EventWriter};

/// Type of the first event of every file: ids and host name.
pub const EVENT_INIT: u16 = 16383;
/// Type of the last event of every file (no values).
pub const EVENT_STOP: u16 = 16382;
/// Largest event type (14 bits).
pub const MAX_TYPE: u16 = 0x3fff;

/// `RST_TIME_SET`: bit 16 of the first header word.
pub const TIME_SET_BIT: u32 = 0x1_0000;
/// "Last header word" in the first header word (bit 17).
pub const LAST_FIRST_WORD: u32 = 2 << 16;
/// "Last header word" in a continuation header word (bit 29).
pub const LAST_CONTINUATION_WORD: u32 = 2 << 28;
/// Type nibbles in the first header word.
pub const NIBBLES_FIRST_WORD: usize = 4;
/// Type nibbles in each continuation header word.
pub const NIBBLES_CONTINUATION_WORD: usize = 7;

/// How events carry time (see the module documentation).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Layout {
    /// Seconds and resolution on `RST_TIME_SET` events, ticks on every event.
    Timed,
    /// No time information at all (libRastro of 2015).
    Timeless,
}

impl Layout {
    /// A short name: `timed` or `timeless`.
    pub fn name(self) -> &'static str {
        match self {
            Layout::Timed => "timed",
            Layout::Timeless => "timeless",
        }
    }
}

/// The type of a value, as coded in a header nibble.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[repr(u8)]
pub enum TypeCode {
    /// `s`: NUL-terminated string, padded to 4 bytes.
    String = 1,
    /// `d`: `f64`.
    F64 = 2,
    /// `f`: `f32`.
    F32 = 3,
    /// `l`: `u64`.
    U64 = 4,
    /// `w`: `u16`.
    U16 = 5,
    /// `c`: `u8`.
    U8 = 6,
    /// `i`: `u32`.
    U32 = 7,
}

impl TypeCode {
    /// The code of a nibble, `None` for 0 (no value) and 8..=15.
    #[inline]
    pub fn from_nibble(n: u8) -> Option<TypeCode> {
        Some(match n {
            1 => TypeCode::String,
            2 => TypeCode::F64,
            3 => TypeCode::F32,
            4 => TypeCode::U64,
            5 => TypeCode::U16,
            6 => TypeCode::U8,
            7 => TypeCode::U32,
            _ => return None,
        })
    }

    /// libRastro's letter for the type (`s d f l w c i`).
    pub fn letter(self) -> char {
        match self {
            TypeCode::String => 's',
            TypeCode::F64 => 'd',
            TypeCode::F32 => 'f',
            TypeCode::U64 => 'l',
            TypeCode::U16 => 'w',
            TypeCode::U8 => 'c',
            TypeCode::U32 => 'i',
        }
    }

    /// Position in the order libRastro's generated functions write values
    /// (`d l f i w c s`), from 0.
    pub fn canonical_rank(self) -> u8 {
        match self {
            TypeCode::F64 => 0,
            TypeCode::U64 => 1,
            TypeCode::F32 => 2,
            TypeCode::U32 => 3,
            TypeCode::U16 => 4,
            TypeCode::U8 => 5,
            TypeCode::String => 6,
        }
    }
}

/// One value of an event. Strings borrow the decoded buffer and exclude
/// the terminating NUL.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Value<'a> {
    /// `s`
    Str(&'a [u8]),
    /// `d`
    F64(f64),
    /// `f`
    F32(f32),
    /// `l`
    U64(u64),
    /// `w`
    U16(u16),
    /// `c`
    U8(u8),
    /// `i`
    U32(u32),
}

impl<'a> Value<'a> {
    /// The type code of the value.
    pub fn code(&self) -> TypeCode {
        match self {
            Value::Str(_) => TypeCode::String,
            Value::F64(_) => TypeCode::F64,
            Value::F32(_) => TypeCode::F32,
            Value::U64(_) => TypeCode::U64,
            Value::U16(_) => TypeCode::U16,
            Value::U8(_) => TypeCode::U8,
            Value::U32(_) => TypeCode::U32,
        }
    }

    /// The string, if this is one.
    pub fn as_str(&self) -> Option<&'a [u8]> {
        match *self {
            Value::Str(s) => Some(s),
            _ => None,
        }
    }

    /// The `u32`, if this is one.
    pub fn as_u32(&self) -> Option<u32> {
        match *self {
            Value::U32(v) => Some(v),
            _ => None,
        }
    }

    /// The `u64`, if this is one.
    pub fn as_u64(&self) -> Option<u64> {
        match *self {
            Value::U64(v) => Some(v),
            _ => None,
        }
    }

    /// The `u16`, if this is one.
    pub fn as_u16(&self) -> Option<u16> {
        match *self {
            Value::U16(v) => Some(v),
            _ => None,
        }
    }

    /// The `f64`, if this is one.
    pub fn as_f64(&self) -> Option<f64> {
        match *self {
            Value::F64(v) => Some(v),
            _ => None,
        }
    }
}

/// The payload of an `RST_TIME_SET` event of the timed layout.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Clock {
    /// Reference wall-clock second (`t0`).
    pub seconds: u64,
    /// Ticks per second.
    pub resolution: u64,
}

impl Clock {
    /// `seconds + ticks / resolution` (`None` when the resolution is 0).
    pub fn time(&self, ticks: u64) -> Option<f64> {
        if self.resolution == 0 {
            return None;
        }
        let whole = ticks / self.resolution;
        let frac = ticks % self.resolution;
        Some((self.seconds as f64 + whole as f64) + frac as f64 / self.resolution as f64)
    }
}

/// The time information of one event, as stored.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Stamp {
    /// Timeless layout: only the `RST_TIME_SET` bit, without payload.
    Timeless {
        /// Bit 16 of the first header word.
        time_set: bool,
    },
    /// Timed layout.
    Timed {
        /// `Some` when the event sets the clock (`RST_TIME_SET`).
        time_set: Option<Clock>,
        /// Ticks since the clock's reference second.
        ticks: u64,
    },
}

impl Stamp {
    /// Is `RST_TIME_SET` set?
    pub fn time_set(&self) -> bool {
        match *self {
            Stamp::Timeless { time_set } => time_set,
            Stamp::Timed { time_set, .. } => time_set.is_some(),
        }
    }

    /// The layout this stamp belongs to.
    pub fn layout(&self) -> Layout {
        match self {
            Stamp::Timeless { .. } => Layout::Timeless,
            Stamp::Timed { .. } => Layout::Timed,
        }
    }
}

/// One decoded event, lent by a [`Decoder`]: `'e` is the decoder's borrow,
/// `'a` the data's.
#[derive(Clone, Copy, Debug)]
pub struct RstEvent<'e, 'a> {
    /// Byte offset of the first header word.
    pub offset: usize,
    /// Bytes taken by the event, padding included.
    pub len: usize,
    /// 1-based position of the event in the file.
    pub number: u64,
    /// Event type (14 bits).
    pub type_id: u16,
    /// Time information as stored.
    pub stamp: Stamp,
    /// The clock in effect (timed layout, after this event's `RST_TIME_SET`).
    pub clock: Option<Clock>,
    /// The values, in file order.
    pub values: &'e [Value<'a>],
}

impl<'e, 'a> RstEvent<'e, 'a> {
    /// Time of the event in seconds (timed layout with a clock).
    pub fn time(&self) -> Option<f64> {
        match self.stamp {
            Stamp::Timed { ticks, .. } => self.clock.and_then(|c| c.time(ticks)),
            Stamp::Timeless { .. } => None,
        }
    }

    /// Number of values of one type.
    pub fn count(&self, code: TypeCode) -> usize {
        self.values.iter().filter(|v| v.code() == code).count()
    }

    /// The strings, in order.
    pub fn strings(&self) -> impl Iterator<Item = &'a [u8]> + 'e {
        self.values.iter().filter_map(|v| v.as_str())
    }

    /// The `u32` values, in order.
    pub fn u32s(&self) -> impl Iterator<Item = u32> + 'e {
        self.values.iter().filter_map(|v| v.as_u32())
    }

    /// The `u64` values, in order.
    pub fn u64s(&self) -> impl Iterator<Item = u64> + 'e {
        self.values.iter().filter_map(|v| v.as_u64())
    }

    /// The `u16` values, in order.
    pub fn u16s(&self) -> impl Iterator<Item = u16> + 'e {
        self.values.iter().filter_map(|v| v.as_u16())
    }

    /// The `f64` values, in order.
    pub fn f64s(&self) -> impl Iterator<Item = f64> + 'e {
        self.values.iter().filter_map(|v| v.as_f64())
    }

    /// The type letters of the values, e.g. `"lls"` for the first event.
    pub fn signature(&self) -> String {
        self.values.iter().map(|v| v.code().letter()).collect()
    }

    /// For an [`EVENT_INIT`] event with the usual `l l s` values: the two
    /// identifiers and the host name.
    pub fn init_info(&self) -> Option<(u64, u64, &'a [u8])> {
        if self.type_id != EVENT_INIT {
            return None;
        }
        match *self.values {
            [Value::U64(a), Value::U64(b), Value::Str(h)] => Some((a, b, h)),
            _ => None,
        }
    }
}
