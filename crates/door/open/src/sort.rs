//! The whole trace sorted by time (`LoadOptions::sort`), for traces in
//! any order (StarPU's raw traces), where no sort window is long enough.
//!
//! Every event with a time is held and passed on once the input is over,
//! in time order (equal times in file order); events without a time
//! (definitions) are passed on at once, ahead of the events held. The
//! result is that of a sort window longer than the trace.
//!
//! The events held take up to [`LoadOptions::sort_memory`] bytes; past it
//! they are sorted and written out as a *run* to a temporary file, and at
//! the end the runs and the events still in memory are merged. At most
//! [`FAN_IN`] runs are open at a time: when there are that many, they are
//! first merged into one. The temporary files are made in the system's
//! temporary folder (`TMPDIR`) and removed from it as soon as made (only
//! their handles keep them): nothing is left behind, whatever ends the
//! process, and nothing is written beside the user's files.
//!
//! A run is a sequence of events in time order, each written as: time
//! (f64), line (u64), place in the file (u64), index of its definition
//! (u32), number of words (u32), bytes of the words (u32), each word's
//! start and end in those bytes (two u32), the bytes; all little-endian.

use std::cmp::Reverse;
use std::collections::BinaryHeap;
use std::fs::File;
use std::io::{self, BufReader, BufWriter, Read, Seek, Write};

use trama_events::Span;

use crate::reader::{Failure, Item, ReadStats, Stop, TraceReader};
use crate::reorder::{timed, Defs, Held};
use crate::LoadOptions;

/// Most runs merged at once (and so open at once).
pub(crate) const FAN_IN: usize = 64;

/// Bytes a held event takes besides its words and their spans.
const OVERHEAD: usize = std::mem::size_of::<Entry>() + 16;

/// Reads every item of `reader` into `each`, the timed events sorted by
/// time (see the module documentation).
pub(crate) fn read_all_sorted<R, F>(
    reader: &mut R,
    opts: &LoadOptions,
    mut each: F,
) -> Result<ReadStats, Failure>
where
    R: TraceReader,
    F: FnMut(Item<'_>) -> Result<(), Stop>,
{
    let mut sorter = Sorter {
        defs: Defs::default(),
        held: Vec::new(),
        bytes: 0,
        limit: opts.sort_memory,
        runs: Vec::new(),
        order: 0,
    };
    let stats = reader.read(opts, |item| sorter.item(item, &mut each))?;
    sorter.finish(&mut each).map_err(Failure::Stop)?;
    Ok(stats)
}

/// A held event and its place in the file.
#[derive(Default)]
struct Entry {
    order: u64,
    held: Held,
}

/// The events held, in memory and in runs.
struct Sorter {
    defs: Defs,
    /// In file order until sorted.
    held: Vec<Entry>,
    /// What `held` takes, roughly.
    bytes: usize,
    limit: usize,
    /// Sorted runs, each read from its start.
    runs: Vec<File>,
    order: u64,
}

impl Sorter {
    fn item<F>(&mut self, item: Item<'_>, each: &mut F) -> Result<(), Stop>
    where
        F: FnMut(Item<'_>) -> Result<(), Stop>,
    {
        let (ev, time) = match timed(item) {
            Ok(timed) => timed,
            Err(item) => return each(item),
        };
        let def = self.defs.keep(&ev);
        let mut e = Entry {
            order: self.order,
            held: Held::default(),
        };
        self.order += 1;
        e.held.copy(&ev, time, def);
        self.bytes += OVERHEAD + e.held.bytes.len() + 8 * e.held.spans.len();
        self.held.push(e);
        if self.bytes > self.limit {
            self.spill()?;
        }
        Ok(())
    }

    /// Sorts what is in memory by time (stable: equal times stay in file
    /// order).
    fn sort(&mut self) {
        self.held
            .sort_by(|a, b| a.held.time.total_cmp(&b.held.time));
    }

    /// Writes what is in memory as a run; merges the runs into one when
    /// there are [`FAN_IN`].
    fn spill(&mut self) -> Result<(), Stop> {
        self.sort();
        let held = std::mem::take(&mut self.held);
        let run = write_run(|w| held.iter().try_for_each(|e| write_entry(w, e)))?;
        self.runs.push(run);
        self.bytes = 0;
        if self.runs.len() >= FAN_IN {
            let runs = self.runs.drain(..).map(Run::file).collect();
            let merged = write_run(|w| merge(runs, |e| write_entry(w, e)))?;
            self.runs.push(merged);
        }
        Ok(())
    }

    /// Passes on every event held, in time order.
    fn finish<F>(&mut self, each: &mut F) -> Result<(), Stop>
    where
        F: FnMut(Item<'_>) -> Result<(), Stop>,
    {
        self.sort();
        let defs = std::mem::take(&mut self.defs);
        let mut runs: Vec<Run> = self.runs.drain(..).map(Run::file).collect();
        runs.push(Run::Memory(std::mem::take(&mut self.held).into_iter()));
        merge(runs, |e| e.held.pass(&defs, each))
    }
}

/// Where sorted events come from.
enum Run {
    Memory(std::vec::IntoIter<Entry>),
    File(BufReader<File>),
}

impl Run {
    fn file(f: File) -> Run {
        Run::File(BufReader::with_capacity(1 << 16, f))
    }

    fn next(&mut self) -> Result<Option<Entry>, Stop> {
        match self {
            Run::Memory(v) => Ok(v.next()),
            Run::File(r) => read_entry(r).map_err(run_error),
        }
    }
}

/// `t` as an unsigned integer of the same order (`f64::total_cmp`'s).
fn key(t: f64) -> u64 {
    let b = t.to_bits();
    if b >> 63 == 1 {
        !b
    } else {
        b | 1 << 63
    }
}

/// Hands the events of sorted `runs` to `out` in time order, equal times
/// in file order.
fn merge(mut runs: Vec<Run>, mut out: impl FnMut(&Entry) -> Result<(), Stop>) -> Result<(), Stop> {
    let mut heads: Vec<Option<Entry>> = Vec::with_capacity(runs.len());
    let mut heap = BinaryHeap::with_capacity(runs.len());
    for (i, run) in runs.iter_mut().enumerate() {
        let head = run.next()?;
        if let Some(e) = &head {
            heap.push(Reverse((key(e.held.time), e.order, i)));
        }
        heads.push(head);
    }
    while let Some(Reverse((_, _, i))) = heap.pop() {
        let e = heads[i].take().expect("a head in the heap");
        out(&e)?;
        if let Some(next) = runs[i].next()? {
            heap.push(Reverse((key(next.held.time), next.order, i)));
            heads[i] = Some(next);
        }
    }
    Ok(())
}

/// A new temporary file written by `write`, read again from its start.
fn write_run(
    write: impl FnOnce(&mut BufWriter<&mut File>) -> Result<(), Stop>,
) -> Result<File, Stop> {
    let mut file = tempfile::tempfile().map_err(run_error)?;
    let mut w = BufWriter::with_capacity(1 << 16, &mut file);
    write(&mut w)?;
    w.flush().map_err(run_error)?;
    drop(w);
    file.rewind().map_err(run_error)?;
    Ok(file)
}

fn write_entry(w: &mut impl Write, e: &Entry) -> Result<(), Stop> {
    let h = &e.held;
    let mut head = Vec::with_capacity(36 + 8 * h.spans.len());
    head.extend_from_slice(&h.time.to_le_bytes());
    head.extend_from_slice(&h.line.to_le_bytes());
    head.extend_from_slice(&e.order.to_le_bytes());
    head.extend_from_slice(&h.def.to_le_bytes());
    head.extend_from_slice(&(h.spans.len() as u32).to_le_bytes());
    head.extend_from_slice(&(h.bytes.len() as u32).to_le_bytes());
    for s in &h.spans {
        head.extend_from_slice(&s.start.to_le_bytes());
        head.extend_from_slice(&s.end.to_le_bytes());
    }
    w.write_all(&head)
        .and_then(|()| w.write_all(&h.bytes))
        .map_err(run_error)
}

/// The next event of a run, `None` at its end.
fn read_entry(r: &mut impl Read) -> io::Result<Option<Entry>> {
    let mut head = [0u8; 36];
    match r.read_exact(&mut head[..8]) {
        Err(e) if e.kind() == io::ErrorKind::UnexpectedEof => return Ok(None),
        other => other?,
    }
    r.read_exact(&mut head[8..])?;
    let u64_at = |i: usize| u64::from_le_bytes(head[i..i + 8].try_into().expect("8 bytes"));
    let u32_at = |i: usize| u32::from_le_bytes(head[i..i + 4].try_into().expect("4 bytes"));
    let mut e = Entry {
        order: u64_at(16),
        held: Held {
            time: f64::from_bits(u64_at(0)),
            line: u64_at(8),
            def: u32_at(24),
            ..Held::default()
        },
    };
    let (words, len) = (u32_at(28) as usize, u32_at(32) as usize);
    let mut spans = vec![0u8; 8 * words];
    r.read_exact(&mut spans)?;
    e.held.spans = spans
        .chunks_exact(8)
        .map(|c| Span {
            start: u32::from_le_bytes(c[..4].try_into().expect("4 bytes")),
            end: u32::from_le_bytes(c[4..].try_into().expect("4 bytes")),
        })
        .collect();
    e.held.bytes = vec![0u8; len];
    r.read_exact(&mut e.held.bytes)?;
    Ok(Some(e))
}

/// The failure of a run's temporary file.
fn run_error(e: io::Error) -> Stop {
    Stop::Other(Box::new(io::Error::new(
        e.kind(),
        format!(
            "--sort: the events sorted so far cannot be kept in a temporary file of {} ({e}); \
             TMPDIR names another folder, a larger --sort-memory keeps more in memory",
            std::env::temp_dir().display()
        ),
    )))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_order_times_as_total_cmp_does() {
        let times = [
            f64::NEG_INFINITY,
            -1e300,
            -1.5,
            -0.0,
            0.0,
            1e-300,
            2.5,
            f64::INFINITY,
        ];
        for w in times.windows(2) {
            assert!(key(w[0]) < key(w[1]), "{} {}", w[0], w[1]);
        }
    }

    #[test]
    fn an_entry_reads_back_as_written() {
        let e = Entry {
            order: 7,
            held: Held {
                time: 1.25,
                line: 42,
                def: 3,
                bytes: b"10 1.25 S p run".to_vec(),
                spans: vec![Span { start: 0, end: 2 }, Span { start: 3, end: 7 }],
            },
        };
        let mut buf = Vec::new();
        assert!(write_entry(&mut buf, &e).is_ok());
        let mut r = buf.as_slice();
        let back = read_entry(&mut r).unwrap().unwrap();
        assert_eq!((back.order, back.held.line, back.held.def), (7, 42, 3));
        assert_eq!(back.held.time, 1.25);
        assert_eq!(back.held.bytes, e.held.bytes);
        assert_eq!(back.held.spans, e.held.spans);
        assert!(read_entry(&mut r).unwrap().is_none());
    }
}
