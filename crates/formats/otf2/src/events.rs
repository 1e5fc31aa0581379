//! A location's events (`<name>/<location>.evt`), decoded one by one.
//!
//! Records are read in the chunked layout of [`crate::chunks`]: a
//! timestamp record sets the time of the records after it, an attribute
//! list belongs to the next event (skipped by its length, counted), and an
//! event record is its type byte, its length (except the records of OTF2
//! 1.0 and 1.1 made of one compressed integer, [`is_singleton`]) and its
//! attributes. Only the attributes this reader maps are decoded; the rest
//! of a record (attributes of newer versions) is skipped by its length,
//! and records of other types are skipped whole and counted by type.
//! Identifiers of regions, communicators and metrics go through the
//! location's mapping tables, and times through its clock correction
//! ([`crate::local`]).

use crate::buf::Cursor;
use crate::chunks::{Chunks, ATTRIBUTE_LIST, TIMESTAMP};
use crate::error::{Bad, Error};
use crate::local::{mapping, ClockCorrection, LocalDefinitions};
use crate::records::{event as id, is_singleton};

/// What an event says, its references mapped to global definitions.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[allow(missing_docs)]
pub enum Kind {
    /// A region is entered.
    Enter { region: u32 },
    /// A region is left.
    Leave { region: u32 },
    /// A blocking send of `length` bytes to rank `receiver` of `comm`.
    MpiSend {
        receiver: u32,
        comm: u32,
        tag: u32,
        length: u64,
    },
    /// A non-blocking send.
    MpiIsend {
        receiver: u32,
        comm: u32,
        tag: u32,
        length: u64,
        request: u64,
    },
    /// A non-blocking send completes.
    MpiIsendComplete { request: u64 },
    /// A non-blocking receive is posted.
    MpiIrecvRequest { request: u64 },
    /// A blocking receive from rank `sender` of `comm` completes.
    MpiRecv {
        sender: u32,
        comm: u32,
        tag: u32,
        length: u64,
    },
    /// A non-blocking receive completes.
    MpiIrecv {
        sender: u32,
        comm: u32,
        tag: u32,
        length: u64,
        request: u64,
    },
    /// A collective operation begins.
    CollectiveBegin,
    /// A collective operation ends (`OTF2_CollectiveOp` `op`).
    CollectiveEnd {
        op: u8,
        comm: u32,
        root: u32,
        sent: u64,
        received: u64,
    },
    /// Metric values: `count` values, given by
    /// [`EventReader::metric_values`] until the reader moves on.
    Metric { metric: u32, count: u8 },
    /// A thread team is forked (`model` is its paradigm).
    ThreadFork { model: u8, threads: u32 },
    /// A thread team is joined.
    ThreadJoin { model: u8 },
    /// OpenMP fork (OTF2 1.0).
    OmpFork { threads: u32 },
    /// OpenMP join (OTF2 1.0).
    OmpJoin,
    /// This thread begins working in `team` (a communicator).
    ThreadTeamBegin { team: u32 },
    /// This thread ends working in `team`.
    ThreadTeamEnd { team: u32 },
    /// A thread is created in `contingent` (a communicator).
    ThreadCreate { contingent: u32, sequence: u64 },
    /// This thread begins.
    ThreadBegin { contingent: u32, sequence: u64 },
    /// A thread is waited for.
    ThreadWait { contingent: u32, sequence: u64 },
    /// This thread ends.
    ThreadEnd { contingent: u32, sequence: u64 },
    /// A record this reader does not map (counted by type).
    Other { id: u8 },
}

/// An event: its time (in ticks, corrected) and what it says.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Event {
    /// The time, in ticks of the clock.
    pub time: u64,
    /// The record's type byte.
    pub record: u8,
    /// What it says.
    pub kind: Kind,
}

/// A metric value: its `OTF2_Type` (4 `UINT64`, 8 `INT64`, 10 `DOUBLE`)
/// and its bits.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MetricValue {
    /// The type.
    pub type_id: u8,
    /// The value's 64 bits.
    pub bits: u64,
}

/// The decoding position in an event file.
#[derive(Clone, Copy, Debug)]
struct Decoder<'a> {
    chunks: Chunks<'a>,
    /// The time of the records read now (raw ticks).
    time: u64,
}

impl<'a> Decoder<'a> {
    /// The next event record: its raw time, type byte and contents.
    /// Attribute lists are skipped and counted in `attribute_lists`.
    #[inline]
    fn next(
        &mut self,
        metric: &mut Vec<MetricValue>,
        attribute_lists: &mut u64,
    ) -> Result<Option<(u64, u8, Kind)>, Bad> {
        loop {
            // The common records (timestamps, regions entered and left)
            // well inside the chunk, with fewer checks.
            let c = &mut self.chunks.cur;
            let (data, pos) = (c.data, c.pos);
            if pos + 10 <= c.end {
                let t = data[pos];
                if t == TIMESTAMP {
                    let b: [u8; 8] = data[pos + 1..pos + 9].try_into().expect("8 bytes");
                    self.time = if c.big {
                        u64::from_be_bytes(b)
                    } else {
                        u64::from_le_bytes(b)
                    };
                    c.pos = pos + 9;
                    continue;
                }
                if t == id::ENTER || t == id::LEAVE {
                    let n = data[pos + 1];
                    let four: [u8; 4] = data[pos + 2..pos + 6].try_into().expect("4 bytes");
                    let region = match n {
                        0 => Some(0),
                        0xff => Some(u32::MAX),
                        1..=4 => Some(if c.big {
                            u32::from_be_bytes(four) >> (8 * (4 - n as u32))
                        } else {
                            u32::from_le_bytes(four) & (u32::MAX >> (8 * (4 - n as u32)))
                        }),
                        _ => None,
                    };
                    if let Some(region) = region {
                        c.pos = pos + 2 + if n == 0xff { 0 } else { n as usize };
                        let kind = if t == id::ENTER {
                            Kind::Enter { region }
                        } else {
                            Kind::Leave { region }
                        };
                        return Ok(Some((self.time, t, kind)));
                    }
                }
            }
            let Some(t) = self.chunks.next_type()? else {
                return Ok(None);
            };
            let c = &mut self.chunks.cur;
            match t {
                TIMESTAMP => self.time = c.u64_full()?,
                ATTRIBUTE_LIST => {
                    c.pos = c.record_end()?;
                    *attribute_lists += 1;
                }
                0..=9 => {
                    return Err(Bad::new(
                        c.pos - 1,
                        format!("byte {t:#04x} where an event record should start"),
                    ))
                }
                _ if is_singleton(t) => {
                    let kind = match t {
                        id::ENTER => Kind::Enter { region: c.u32c()? },
                        id::LEAVE => Kind::Leave { region: c.u32c()? },
                        id::MPI_ISEND_COMPLETE => Kind::MpiIsendComplete { request: c.u64c()? },
                        id::MPI_IRECV_REQUEST => Kind::MpiIrecvRequest { request: c.u64c()? },
                        id::OMP_FORK => Kind::OmpFork { threads: c.u32c()? },
                        _ => {
                            c.u64c()?;
                            Kind::Other { id: t }
                        }
                    };
                    return Ok(Some((self.time, t, kind)));
                }
                _ => {
                    let end = c.record_end()?;
                    let mut r = c.until(end);
                    c.pos = end;
                    let kind = record(t, &mut r, metric)?;
                    return Ok(Some((self.time, t, kind)));
                }
            }
        }
    }
}

/// Decodes the attributes of event record `t` (with a length) in `r`.
fn record(t: u8, r: &mut Cursor<'_>, metric: &mut Vec<MetricValue>) -> Result<Kind, Bad> {
    Ok(match t {
        id::MPI_SEND | id::MPI_RECV => {
            let peer = r.u32c()?;
            let comm = r.u32c()?;
            let tag = r.u32c()?;
            let length = r.u64c()?;
            if t == id::MPI_SEND {
                Kind::MpiSend {
                    receiver: peer,
                    comm,
                    tag,
                    length,
                }
            } else {
                Kind::MpiRecv {
                    sender: peer,
                    comm,
                    tag,
                    length,
                }
            }
        }
        id::MPI_ISEND | id::MPI_IRECV => {
            let peer = r.u32c()?;
            let comm = r.u32c()?;
            let tag = r.u32c()?;
            let length = r.u64c()?;
            let request = r.u64c()?;
            if t == id::MPI_ISEND {
                Kind::MpiIsend {
                    receiver: peer,
                    comm,
                    tag,
                    length,
                    request,
                }
            } else {
                Kind::MpiIrecv {
                    sender: peer,
                    comm,
                    tag,
                    length,
                    request,
                }
            }
        }
        id::MPI_COLLECTIVE_BEGIN => Kind::CollectiveBegin,
        id::MPI_COLLECTIVE_END => Kind::CollectiveEnd {
            op: r.u8()?,
            comm: r.u32c()?,
            root: r.u32c()?,
            sent: r.u64c()?,
            received: r.u64c()?,
        },
        id::OMP_JOIN => Kind::OmpJoin,
        id::METRIC => {
            let m = r.u32c()?;
            let n = r.u8()?;
            // Array attributes are written member by member: each value's
            // type, then the value.
            metric.clear();
            for _ in 0..n {
                let type_id = r.u8()?;
                metric.push(MetricValue {
                    type_id,
                    bits: r.u64c()?,
                });
            }
            Kind::Metric {
                metric: m,
                count: n,
            }
        }
        id::THREAD_FORK => Kind::ThreadFork {
            model: r.u8()?,
            threads: r.u32c()?,
        },
        id::THREAD_JOIN => Kind::ThreadJoin { model: r.u8()? },
        id::THREAD_TEAM_BEGIN => Kind::ThreadTeamBegin { team: r.u32c()? },
        id::THREAD_TEAM_END => Kind::ThreadTeamEnd { team: r.u32c()? },
        id::THREAD_CREATE | id::THREAD_BEGIN | id::THREAD_WAIT | id::THREAD_END => {
            let contingent = r.u32c()?;
            let sequence = r.u64c()?;
            match t {
                id::THREAD_CREATE => Kind::ThreadCreate {
                    contingent,
                    sequence,
                },
                id::THREAD_BEGIN => Kind::ThreadBegin {
                    contingent,
                    sequence,
                },
                id::THREAD_WAIT => Kind::ThreadWait {
                    contingent,
                    sequence,
                },
                _ => Kind::ThreadEnd {
                    contingent,
                    sequence,
                },
            }
        }
        _ => Kind::Other { id: t },
    })
}

/// How many records [`EventReader::collective_end`] reads ahead: a
/// collective operation's end is among the next few records of its
/// location; a damaged file's begins without ends do not make reading
/// quadratic.
pub const LOOK_AHEAD: usize = 1 << 16;

/// Asks for the cache line at `data[at]` ahead of its use: the merge
/// visits each location's file in turn, which defeats the hardware's own
/// prefetching when there are many.
#[inline(always)]
fn prefetch(data: &[u8], at: usize) {
    #[cfg(target_arch = "x86_64")]
    if at < data.len() {
        // SAFETY: a prefetch only hints; the address is inside `data`.
        unsafe {
            std::arch::x86_64::_mm_prefetch(
                data.as_ptr().add(at).cast::<i8>(),
                std::arch::x86_64::_MM_HINT_T0,
            )
        }
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = (data, at);
}

/// The events of one location, in the order of its file.
pub struct EventReader<'a> {
    file: &'a str,
    decoder: Decoder<'a>,
    local: &'a LocalDefinitions,
    clock: ClockCorrection,
    metric: Vec<MetricValue>,
    /// Records read, by type byte.
    counts: Box<[u64; 256]>,
    attribute_lists: u64,
    /// The location has mapping tables.
    mapped: bool,
    /// The memory map of the file, whose pages read are given back.
    map: Option<&'a memmap2::Mmap>,
    /// Bytes of the file given back so far.
    released: usize,
}

/// Pages of an event file read are given back by stretches of this many
/// bytes (a multiple of every page size): a reading holds a few of each
/// location's, not the file.
const RELEASE: usize = 256 << 10;

impl<'a> EventReader<'a> {
    /// Reads the event file `data` (named `file` in errors), chunks of
    /// `chunk_size` bytes, with the location's local definitions.
    pub(crate) fn new(
        file: &'a str,
        data: &'a [u8],
        map: Option<&'a memmap2::Mmap>,
        chunk_size: usize,
        local: &'a LocalDefinitions,
    ) -> Result<EventReader<'a>, Error> {
        let chunks = Chunks::open(data, chunk_size, true).map_err(|b| b.in_file(file))?;
        Ok(EventReader {
            file,
            decoder: Decoder { chunks, time: 0 },
            local,
            clock: ClockCorrection::default(),
            metric: Vec::new(),
            counts: Box::new([0; 256]),
            attribute_lists: 0,
            mapped: local.maps.iter().any(Option::is_some),
            map,
            released: 0,
        })
    }

    /// The file's name.
    pub fn file(&self) -> &str {
        self.file
    }

    /// The next event, or `None` at the end of the file.
    #[inline]
    pub fn next_event(&mut self) -> Result<Option<Event>, Error> {
        let Some((raw, t, mut kind)) = self
            .decoder
            .next(&mut self.metric, &mut self.attribute_lists)
            .map_err(|b| b.in_file(self.file))?
        else {
            return Ok(None);
        };
        self.counts[t as usize] += 1;
        prefetch(
            self.decoder.chunks.cur.data,
            self.decoder.chunks.cur.pos + 256,
        );
        if self.map.is_some() && self.decoder.chunks.cur.pos >= self.released + 2 * RELEASE {
            self.release();
        }
        if self.mapped {
            self.map(&mut kind);
        }
        let time = if self.local.clock.is_empty() {
            raw
        } else {
            self.clock.correct(&self.local.clock, raw)
        };
        Ok(Some(Event {
            time,
            record: t,
            kind,
        }))
    }

    /// Gives back the pages of the file read, but the last stretch.
    #[cold]
    fn release(&mut self) {
        let Some(map) = self.map else { return };
        let upto = (self.decoder.chunks.cur.pos / RELEASE - 1) * RELEASE;
        if upto > self.released {
            // SAFETY: the map is a read-only mapping of a file: pages given
            // back are read again from the file if touched again (the
            // reader never goes back; a look-ahead only reads forward).
            #[cfg(unix)]
            let _ = unsafe {
                map.unchecked_advise_range(
                    memmap2::UncheckedAdvice::DontNeed,
                    self.released,
                    upto - self.released,
                )
            };
            self.released = upto;
        }
    }

    /// Maps the local identifiers of `kind` to global ones.
    #[inline]
    fn map(&self, kind: &mut Kind) {
        let l = self.local;
        let m = |kind: usize, v: &mut u32| {
            if let Some(map) = l.map(kind) {
                if *v != u32::MAX {
                    *v = map.map(*v as u64) as u32;
                }
            }
        };
        match kind {
            Kind::Enter { region } | Kind::Leave { region } => m(mapping::REGION, region),
            Kind::MpiSend { comm, .. }
            | Kind::MpiIsend { comm, .. }
            | Kind::MpiRecv { comm, .. }
            | Kind::MpiIrecv { comm, .. }
            | Kind::CollectiveEnd { comm, .. } => m(mapping::COMM, comm),
            Kind::Metric { metric, .. } => m(mapping::METRIC, metric),
            Kind::ThreadTeamBegin { team } | Kind::ThreadTeamEnd { team } => m(mapping::COMM, team),
            Kind::ThreadCreate { contingent, .. }
            | Kind::ThreadBegin { contingent, .. }
            | Kind::ThreadWait { contingent, .. }
            | Kind::ThreadEnd { contingent, .. } => m(mapping::COMM, contingent),
            _ => {}
        }
    }

    /// The values of the last metric event read.
    pub fn metric_values(&self) -> &[MetricValue] {
        &self.metric
    }

    /// The end of the collective operation the last event read began: the
    /// next `MpiCollectiveEnd` of this location at the same depth, read
    /// ahead without moving the reader (at most [`LOOK_AHEAD`] records).
    /// `None` when the file ends first.
    pub fn collective_end(&self) -> Result<Option<Kind>, Error> {
        let mut d = self.decoder;
        let mut scratch = Vec::new();
        let mut lists = 0;
        let mut depth = 0usize;
        let mut read = 0;
        while let Some((_, _, mut kind)) = d
            .next(&mut scratch, &mut lists)
            .map_err(|b| b.in_file(self.file))?
        {
            read += 1;
            if read > LOOK_AHEAD {
                break;
            }
            match kind {
                Kind::CollectiveBegin => depth += 1,
                Kind::CollectiveEnd { .. } if depth == 0 => {
                    if self.mapped {
                        self.map(&mut kind);
                    }
                    return Ok(Some(kind));
                }
                Kind::CollectiveEnd { .. } => depth -= 1,
                _ => {}
            }
        }
        Ok(None)
    }

    /// Records read so far, by type byte.
    pub fn counts(&self) -> &[u64; 256] {
        &self.counts
    }

    /// Attribute lists read so far.
    pub fn attribute_lists(&self) -> u64 {
        self.attribute_lists
    }

    /// Bytes of the file read so far.
    pub fn position(&self) -> usize {
        self.decoder.chunks.position()
    }
}
