//! The one door for traces: open any trace trama reads, whatever its
//! format, and read, simulate or load it.
//!
//! ```text
//! Source (path, "-", FIFO, reader) ──▶ open: once, first bytes ──▶ Format::sniff
//!    ──▶ the format's TraceReader (Pajé text, .ptb, the proposal's .rst,
//!        Paraver and any merge source as Pajé text) ──▶ Opened
//! Opened ──▶ simulate_into(sink) | load (columnar Trace; a .ptb replays its
//!            blocks in parallel and reads only those a window needs)
//!        ──▶ count (trama check) | write_text | into_source (a merge source)
//! ```
//!
//! Formats are told from content, never from names ([`Format::sniff`]);
//! formats trama recognises without reading them (OTF2) are named
//! in the error. An input is opened once: a FIFO, `<(…)` or standard input
//! is read once, a regular file is memory-mapped or read from the handle
//! that sniffed it. Errors ([`Error`]) name the input and the line (with
//! its words), or the byte offset of a binary file, or the line of the
//! original text of a `.ptb` event.
//!
//! [`kinds`] is the registry of the source kinds `trama merge` reads, and
//! any trace trama reads serves as a merge source ([`Opened::into_source`]).
#![deny(missing_docs)]
// Errors end a reading: their size never weighs on the hot path.
#![allow(clippy::result_large_err)]

pub mod cache;
mod error;
mod flags;
mod follow;
mod format;
mod formats;
mod input;
mod keys;
pub mod kinds;
mod lines;
pub mod output;
mod pipe;
mod reader;
mod reading;
mod reorder;
mod simulate;
mod sort;
mod windows;

use std::fs::File;
use std::io::{Read, Write};

pub use error::{chain, Error};
pub use flags::ReadFlags;
pub use follow::{Follow, Pending};
pub use format::{Format, HEAD};
pub use input::{Progress, ProgressUnit};
pub use output::{Output, OutputError};
pub use pipe::TextPipe;
pub use reader::{Failure, Item, ReadStats, Stop, TraceReader};
pub use reading::{
    cached, open_reading, ByBlocks, Needs, Reading, BLOCKS_FROM_BYTES, BLOCKS_FROM_EVENTS,
};
pub use simulate::Simulated;
pub use trama_input::Source;
pub use trama_paje::QuoteMode;
pub use trama_sim::KEY_FILTER_BYTES;
pub use windows::{PtbWindows, Windowed};

/// Seconds written with a number of decimals, exactly.
pub use trama_records::TimeText;
/// Ganglia's collector (`trama collect ganglia`) and its log, read back as
/// a merge source.
pub use trama_sources::ganglia;
/// Akypuera's converter of libRastro MPI traces to Pajé, reproduced byte
/// for byte (`trama akypuera`).
pub use trama_sources::rst::akypuera_convert;

/// How to read and simulate a trace.
#[derive(Clone, Debug)]
#[non_exhaustive]
pub struct LoadOptions {
    /// Threads to use: 0 = one per core; 1 = everything on the caller's thread.
    pub threads: usize,
    /// Reject the old field names of Pajé 1.x. Default true.
    pub strict: bool,
    /// How quoted words of text are read. Default [`QuoteMode::Keep`].
    pub quotes: QuoteMode,
    /// Stop the simulation at this time: containers alive then are destroyed then.
    pub stop_at: Option<f64>,
    /// Drop links that never got their other end (with a warning) instead of failing.
    pub ignore_incomplete_links: bool,
    /// A pushed state ends the state it covers, which resumes as a new
    /// entity when the pushed one is popped.
    pub no_imbrication: bool,
    /// Keep the values of user-defined fields.
    pub keep_extras: bool,
    /// Only what overlaps this window is needed ([`Opened::load`] of a
    /// `.ptb` reads only the blocks it needs).
    pub window: Option<(f64, f64)>,
    /// Warn of states pushed and never popped, one warning per state type
    /// (the parallel replay of a `.ptb` does not count them yet).
    pub warn_open_states: bool,
    /// Let real traces' problems pass with warnings naming their lines
    /// instead of failing (see [`trama_sim::SimOptions::lenient`]).
    pub lenient: bool,
    /// Reorder a trace that is nearly in time order: events are held until
    /// the input is more than this many seconds past them, then passed on
    /// in time order (text traces; an event older than the window is an
    /// error).
    pub sort_window: Option<f64>,
    /// Sort the whole trace by time (text traces in any order, such as
    /// StarPU's raw traces): events are held to the end of the input, then
    /// passed on in time order, as with a sort window longer than the
    /// trace (which it replaces). Held events past
    /// [`LoadOptions::sort_memory`] bytes go to temporary files of the
    /// system's temporary folder, removed as soon as made.
    pub sort: bool,
    /// Bytes of events [`LoadOptions::sort`] holds in memory before it
    /// writes them, sorted, to a temporary file. Default 1 GiB.
    pub sort_memory: usize,
    /// Remember the link keys already used in a filter of this many bytes
    /// ([`KEY_FILTER_BYTES`] is a sensible size) instead of keeping each of
    /// them, so that a simulation's memory does not grow with the links. A
    /// reuse is still an error, found exactly: a key the filter has seen is
    /// confirmed by reading the input again, or, when it cannot be read
    /// again (a stream), given as a warning that the key was possibly
    /// reused. Default `None`: every key is kept.
    pub key_filter: Option<usize>,
    /// The input is still being written (a pipe, a file followed): text is
    /// read line by line as it comes rather than in large chunks.
    pub live: bool,
    /// The consumer takes entity events by handles (the simulation does,
    /// without a sort window): readers that can (OTF2) hand them so, which
    /// spares the resolver its lookups.
    pub(crate) handles: bool,
}

impl Default for LoadOptions {
    fn default() -> Self {
        LoadOptions {
            threads: 0,
            strict: true,
            quotes: QuoteMode::Keep,
            stop_at: None,
            ignore_incomplete_links: false,
            no_imbrication: false,
            keep_extras: false,
            window: None,
            warn_open_states: false,
            lenient: false,
            sort_window: None,
            sort: false,
            sort_memory: 1 << 30,
            key_filter: None,
            live: false,
            handles: false,
        }
    }
}

impl LoadOptions {
    /// Whether events are reordered (a sort window or the whole trace
    /// sorted): they are then handed over as words, never by handles.
    pub(crate) fn reorders(&self) -> bool {
        self.sort || self.sort_window.is_some()
    }
}

/// Threads for `threads` (0: one per core).
pub fn cores(threads: usize) -> usize {
    match threads {
        0 => std::thread::available_parallelism().map_or(1, |n| n.get()),
        n => n,
    }
}

/// A trace opened once, its format known.
pub struct Opened {
    name: String,
    format: Format,
    reader: formats::Reader,
    /// Another handle on a regular file, to read a line again for a
    /// message, or the whole input to confirm a link key possibly reused.
    again: Option<File>,
    /// The path of a regular file (a source kind finds the files that go
    /// with it by it).
    path: Option<std::path::PathBuf>,
    /// What its head tells of the run (see [`Opened::run_info`]).
    run_info: Vec<(String, String)>,
}

/// Opens `source` (a path, `-` for standard input) and tells its format.
pub fn open(source: &Source) -> Result<Opened, Error> {
    opened(input::open(source)?)
}

/// Opens a trace from any reader (decompressing it when needed); `name`
/// names it in messages.
pub fn open_reader(
    name: impl Into<String>,
    reader: impl Read + Send + 'static,
) -> Result<Opened, Error> {
    opened(input::open_reader(name.into(), reader)?)
}

pub(crate) fn opened(mut head: input::Head) -> Result<Opened, Error> {
    let name = head.name.clone();
    let format = head.format;
    let again = head.again.take();
    let path = head.path.clone();
    let run_info = run_info(format, &head.bytes);
    let reader = formats::reader_for(head)?;
    Ok(Opened {
        name,
        format,
        reader,
        again,
        path,
        run_info,
    })
}

/// What the first bytes `head` of a trace in `format` tell of its run
/// (an OpenTS trace's header: its command, start time and ranks).
pub(crate) fn run_info(format: Format, head: &[u8]) -> Vec<(String, String)> {
    use trama_sources::opents::{OpentsOptions, OpentsSource};
    if format != Format::Opents {
        return Vec::new();
    }
    let reader = std::io::Cursor::new(head.to_vec());
    let Ok(src) = OpentsSource::from_reader("", reader, &OpentsOptions::default()) else {
        return Vec::new();
    };
    let h = src.header();
    let mut out = Vec::new();
    if let Some(c) = &h.cmd {
        out.push(("command".to_string(), c.clone()));
    }
    if let Some(t) = &h.time {
        out.push(("start time".to_string(), t.clone()));
    }
    if let Some(r) = h.ranks {
        out.push(("ranks".to_string(), r.to_string()));
    }
    out
}

/// Opens `source` and loads it into the columnar store (see [`Opened::load`]).
pub fn load(source: &Source, opts: &LoadOptions) -> Result<trama_sim::Trace, Error> {
    open(source)?.load(opts)
}

/// Opens `source` and simulates it into `sink` (see [`Opened::simulate_into`]).
pub fn simulate_into<S: trama_sim::Sink + Send>(
    source: &Source,
    sink: S,
    opts: &LoadOptions,
) -> Result<Simulated<S>, Error> {
    open(source)?.simulate_into(sink, opts)
}

impl Opened {
    /// The input's name in messages: its path, or `<stdin>`.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// Its format.
    pub fn format(&self) -> Format {
        self.format
    }

    /// What its head tells of the run, as (label, value): an OpenTS
    /// trace's command, start time and ranks; empty for other formats.
    pub fn run_info(&self) -> &[(String, String)] {
        &self.run_info
    }

    /// The progress of reading it, when it can be followed.
    pub fn progress(&self) -> Option<Progress> {
        formats::each_reader!(&self.reader, r => r.progress())
    }

    /// The `.ptb` file, when it is one.
    pub fn ptb(&self) -> Option<&trama_ptb::PtbFile> {
        formats::each_reader!(&self.reader, r => r.ptb())
    }

    /// Whether it is binary (its lines are those of the text it was made from).
    pub fn binary(&self) -> bool {
        formats::each_reader!(&self.reader, r => r.binary())
    }

    /// How its variable values are read (see [`TraceReader::precision`]).
    pub fn precision(&self) -> trama_num::Precision {
        formats::each_reader!(&self.reader, r => r.precision())
    }

    /// The quote mode its text (from [`Opened::write_text`]) reads back in.
    pub fn text_quotes(&self) -> QuoteMode {
        formats::each_reader!(&self.reader, r => r.text_quotes())
    }

    /// Hands every event to `each`, in trace order (see [`TraceReader::read`]).
    pub fn read<F>(&mut self, opts: &LoadOptions, mut each: F) -> Result<ReadStats, Error>
    where
        F: FnMut(Item<'_>) -> Result<(), Stop>,
    {
        self.check_sort_window(opts)?;
        formats::each_reader!(&mut self.reader, r => r.read_sorted(opts, &mut each))
            .map_err(|f| self.failure(f))
    }

    /// A sort window (or `--sort`) reorders events given by their words:
    /// not those of a `.ptb`, which keeps the order of the text it was
    /// made from.
    fn check_sort_window(&self, opts: &LoadOptions) -> Result<(), Error> {
        if opts.reorders() && self.ptb().is_some() {
            return Err(Error::Options(format!(
                "{}: a sort window or --sort reorders the events of a text trace; a .ptb keeps the order of the text it was made from (convert that text with the sort window or --sort)",
                self.name
            )));
        }
        Ok(())
    }

    /// Writes it as Pajé text. A failure to write is [`Error::Producer`]
    /// (or [`Error::Stopped`] for a closed pipe).
    pub fn write_text(&mut self, out: &mut dyn Write) -> Result<(), Error> {
        formats::each_reader!(&mut self.reader, r => r.write_text(out)).map_err(|f| match f {
            Failure::Stop(Stop::Other(e)) => match e.downcast::<std::io::Error>() {
                Ok(io) if io.kind() == std::io::ErrorKind::BrokenPipe => Error::Stopped(*io),
                Ok(io) => Error::Output(*io),
                Err(e) => Error::Producer {
                    name: self.name.clone(),
                    message: e.to_string(),
                },
            },
            f => self.failure(f),
        })
    }

    /// The trace as a source of `trama merge`: Pajé text is read by the
    /// Pajé source; other formats are written as Pajé text on a thread of
    /// their own, read through a pipe.
    pub fn into_source(mut self) -> Result<Box<dyn trama_records::Source>, Error> {
        let name = self.name.clone();
        if let Some(input) = formats::each_reader!(&mut self.reader, r => r.take_text()) {
            return Ok(Box::new(trama_sources::trace::TraceSource::from_reader(
                name,
                input,
                &trama_sources::trace::TraceOptions::default(),
            )?));
        }
        let pipe = TextPipe::spawn("trama-text", move |w| {
            let mut w = std::io::BufWriter::with_capacity(64 << 10, w);
            let written = self
                .write_text(&mut w)
                .and_then(|()| w.flush().map_err(Error::Output));
            match written {
                Ok(()) | Err(Error::Stopped(_)) => Ok(()),
                Err(Error::Output(e)) if pipe::is_closed(&e) => Ok(()),
                Err(e) => Err(e.to_string()),
            }
        })
        .map_err(|e| input::io_error(&name, e))?;
        Ok(Box::new(trama_sources::trace::TraceSource::from_reader(
            name,
            pipe,
            &trama_sources::trace::TraceOptions::default(),
        )?))
    }
}
