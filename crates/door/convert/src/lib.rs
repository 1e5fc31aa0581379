//! Conversion of any trace trama reads to Pajé text, trama's binary format
//! (`.ptb`) or the original proposal's binary Pajé in libRastro files
//! (`.rst`).
//!
//! ```text
//! text, .rst, a merge source ─ events (and chunks of text) ─▶ ptb::Writer ─▶ .ptb
//!                            └ events ─▶ RastroPajeWriter ─▶ .rst
//! .ptb ─ its text, on a thread, through a pipe ─▶ the text converter ─▶ .ptb | .rst
//! anything but text ─ write_text ─▶ Pajé text
//! ```
//!
//! A `.ptb` converts to another `.ptb` (other string mode, level or block
//! size) or to `.rst` through the text it came from, read in the quote mode
//! it was made with, so the result is exactly what its original text gives.
//! Text → `.ptb` checks every reference (types, containers, values) as it
//! goes; entity semantics are checked when the file is read, and
//! [`Converted::rejected`] says where the simulation rejects the trace.
//! With [`LoadOptions::lenient`], events on unknown containers are left
//! out, each a warning (the other problems a lenient simulation lets pass
//! are kept in the file: reading it with the same option lets them pass);
//! with [`LoadOptions::sort_window`], the file holds the events in time
//! order.
#![deny(missing_docs)]
#![allow(clippy::result_large_err)]

use std::io::{self, Write};

use trama_open::{Format, Item, LoadOptions, Opened, Stop};
use trama_ptb::{SourceStats, WriteError, WriteOptions, Writer};
use trama_sim::SimErrorKind;

/// The class of the events a lenient conversion leaves out (as the lenient
/// simulation ignores them).
const UNKNOWN_IGNORED: &str = "events on unknown containers ignored";

pub use trama_events::StringMode;

mod file;
pub mod summary;
pub use file::convert_file;

/// Output formats.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum Target {
    /// trama's binary format (.ptb).
    Ptb,
    /// Pajé text.
    Paje,
    /// The original binary proposal's format: Pajé events in a libRastro file (.rst).
    Rastro,
}

impl Target {
    /// The format an output's name asks for: `.ptb`, `.rst`, or
    /// `.paje`/`.trace`/`.txt` for text.
    pub fn of_path(path: &std::path::Path) -> Option<Target> {
        match path.extension()?.to_str()? {
            "ptb" => Some(Target::Ptb),
            "paje" | "trace" | "txt" => Some(Target::Paje),
            "rst" => Some(Target::Rastro),
            _ => None,
        }
    }
}

/// How to convert.
#[derive(Clone, Debug)]
#[non_exhaustive]
pub struct ConvertOptions {
    /// The output format.
    pub to: Target,
    /// How strings are stored in a binary file.
    pub strings: StringMode,
    /// zstd level of each `.ptb` block; `None` stores blocks uncompressed.
    pub zstd_level: Option<i32>,
    /// Events per `.ptb` block.
    pub block_events: usize,
    /// The output's name in messages.
    pub output_name: String,
    /// A `.ptb` file ([`convert_file`]) of at least this many events
    /// carries the summary a viewer reads of the whole trace ([`summary`]);
    /// `None`: never. By default, from the size a viewer reads by blocks.
    pub summary_from: Option<u64>,
}

impl Default for ConvertOptions {
    fn default() -> Self {
        let w = WriteOptions::default();
        ConvertOptions {
            to: Target::Ptb,
            strings: w.strings,
            zstd_level: w.zstd_level,
            block_events: w.block_events,
            output_name: "the output".into(),
            summary_from: Some(trama_open::BLOCKS_FROM_EVENTS),
        }
    }
}

/// What a conversion tells.
#[derive(Clone, Debug, Default)]
#[non_exhaustive]
pub struct Converted {
    /// The line where the simulation rejects the trace (0: at its end), if
    /// it does: the output keeps every event, and reading it reports the
    /// same error.
    pub rejected: Option<u64>,
    /// Remarks of the reader about accepted but suspicious input.
    pub warnings: Vec<String>,
    /// For a `.ptb`: events, blocks and keyframes written.
    pub written: Option<trama_ptb::Written>,
}

/// Why a conversion failed.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// The input could not be read (or simulated, for a check).
    #[error(transparent)]
    Read(#[from] trama_open::Error),
    /// The output could not be written.
    #[error("writing {output}")]
    Write {
        /// The output's name.
        output: String,
        /// The cause.
        #[source]
        source: io::Error,
    },
    /// The output could not be made or put in place.
    #[error(transparent)]
    Output(#[from] trama_open::OutputError),
    /// A binary trace was to be written to a terminal.
    #[error("not writing a binary trace to a terminal: redirect the output or name a file")]
    Terminal,
    /// The simulation rejects the trace, which was to be valid
    /// ([`convert_file`]).
    #[error("{name}: the simulation rejects it {at}")]
    Rejected {
        /// The input.
        name: String,
        /// Where: `at line N`, or `at its end`.
        at: String,
    },
    /// The input is already in the format asked for.
    #[error("{name} is already {what}")]
    Same {
        /// The input.
        name: String,
        /// What it is, and what to do.
        what: &'static str,
    },
}

impl Error {
    /// Whether the output was closed (a broken pipe): not worth a message.
    pub fn is_output_closed(&self) -> bool {
        match self {
            Error::Read(e) => e.is_output_closed(),
            Error::Write { source, .. } => source.kind() == io::ErrorKind::BrokenPipe,
            Error::Output(e) => e.is_closed_pipe(),
            Error::Same { .. } | Error::Terminal | Error::Rejected { .. } => false,
        }
    }
}

fn write_error(opts: &ConvertOptions, source: io::Error) -> Error {
    Error::Write {
        output: opts.output_name.clone(),
        source,
    }
}

/// Converts `input` (read with `read`) into `out`. A `.ptb` keeps the
/// input's rule for variable values ([`Opened::precision`]).
pub fn convert<W: Write + Send + 'static>(
    input: Opened,
    read: &LoadOptions,
    opts: &ConvertOptions,
    out: W,
) -> Result<Converted, Error> {
    let precision = input.precision();
    convert_with(input, read, opts, out, precision)
}

/// [`convert`], the variable values of a `.ptb` output read by
/// `precision` (that of the input, or of the file whose text it is).
fn convert_with<W: Write + Send + 'static>(
    mut input: Opened,
    read: &LoadOptions,
    opts: &ConvertOptions,
    out: W,
    precision: trama_num::Precision,
) -> Result<Converted, Error> {
    let text = matches!(input.format(), Format::PajeText | Format::UnknownText);
    match opts.to {
        Target::Paje if text => Err(Error::Same {
            name: input.name().to_string(),
            what: "Pajé text; use --to ptb to make a binary trace",
        }),
        Target::Rastro if input.format() == Format::RastroPaje => Err(Error::Same {
            name: input.name().to_string(),
            what: "a libRastro file",
        }),
        Target::Paje => {
            let mut out = out;
            match input.write_text(&mut out) {
                Err(trama_open::Error::Output(e)) => return Err(write_error(opts, e)),
                r => r?,
            }
            out.flush().map_err(|e| write_error(opts, e))?;
            Ok(Converted::default())
        }
        Target::Ptb | Target::Rastro if input.ptb().is_some() => {
            through_text(input, read, opts, out)
        }
        Target::Ptb => to_ptb(&mut input, read, opts, out, precision),
        Target::Rastro => to_rastro(&mut input, read, opts, out),
    }
}

/// The failure of a writer, carried through the reader as its consumer's
/// stop: the error itself waits in `failed`.
#[derive(Debug, thiserror::Error)]
#[error("the writer failed")]
struct WriterFailed;

/// Keeps the writer's error `e` in `failed` and stops the reading.
fn stop(failed: &mut Option<Error>, e: Error) -> Stop {
    *failed = Some(e);
    Stop::Other(Box::new(WriterFailed))
}

/// Any reader of words to a `.ptb` file (text keeps its chunks whole).
fn to_ptb<W: Write + Send + 'static>(
    input: &mut Opened,
    read: &LoadOptions,
    opts: &ConvertOptions,
    out: W,
    precision: trama_num::Precision,
) -> Result<Converted, Error> {
    let mut wopts = WriteOptions::default();
    wopts.precision = precision;
    wopts.strings = opts.strings;
    wopts.zstd_level = opts.zstd_level;
    wopts.block_events = opts.block_events;
    // Words read with quotes stripped (by the options, or because the
    // input's text is made that way: other formats) are written back
    // quoted.
    wopts.quotes_stripped = read.quotes == trama_open::QuoteMode::Strip
        || input.text_quotes() == trama_open::QuoteMode::Strip;
    let mut writer = Writer::new(out, wopts).map_err(|e| write_error(opts, e))?;
    // The writer encodes on a thread of its own: the reader gets the other
    // cores (on two, it lexes on the caller's thread, which beats sharing
    // them among five busy threads).
    let mut read = read.clone();
    read.threads = trama_open::cores(read.threads).saturating_sub(1).max(1);
    let name = input.name().to_string();
    let mut failed = None;
    let mut tolerated = trama_sim::Tolerated::default();
    let lenient = read.lenient;
    let stats = input.read(&read, |item| match item {
        Item::Chunk { buffer, len } => {
            writer.text(buffer, len);
            Ok(())
        }
        Item::Event(ev) => writer.event(&ev).or_else(|e| {
            if let WriteError::Trace(e) = &e {
                if let (true, SimErrorKind::UnknownContainer { token, .. }) = (lenient, &e.kind) {
                    // Nothing of the event was kept: the file goes on without it.
                    tolerated.note(UNKNOWN_IGNORED, ev.line(), || {
                        format!("{} on unknown container '{token}' ignored", ev.kind())
                    });
                    return Ok(());
                }
            }
            let e = match e {
                WriteError::Trace(e) => Error::Read(trama_open::Error::Sim {
                    name: name.clone(),
                    line: e.line,
                    binary: false,
                    kind: e.kind,
                    contents: e.contents,
                }),
                WriteError::Io(e) => write_error(opts, e),
            };
            Err(stop(&mut failed, e))
        }),
        Item::Handles(_) => unreachable!("a .ptb is converted through its text"),
    });
    let mut stats = match stats {
        Ok(s) => s,
        Err(e) => return Err(failed.take().unwrap_or(Error::Read(e))),
    };
    stats.warnings.splice(0..0, tolerated.warnings());
    let (mut out, written) = writer
        .finish(&stats.definitions, SourceStats { lines: stats.lines })
        .map_err(|e| write_error(opts, e))?;
    out.flush().map_err(|e| write_error(opts, e))?;
    if std::env::var_os("TRAMA_TIMINGS").is_some() {
        eprintln!(
            "trama: timings: {} events in {} blocks, {} keyframes",
            written.events, written.blocks, written.keyframes
        );
    }
    Ok(Converted {
        rejected: written.invalid_at,
        warnings: stats.warnings,
        written: Some(written),
    })
}

/// Any reader of words to the proposal's libRastro format.
fn to_rastro<W: Write + Send + 'static>(
    input: &mut Opened,
    read: &LoadOptions,
    opts: &ConvertOptions,
    out: W,
) -> Result<Converted, Error> {
    use trama_rastro::paje::{Flavor, WriterOptions};
    let strings = opts.strings;
    let rastro_error = |e: trama_rastro::paje::WriteError| write_error(opts, io::Error::other(e));
    let mut w =
        trama_rastro::RastroPajeWriter::new(out, WriterOptions::new(strings, Flavor::Trace))
            .map_err(rastro_error)?;
    let mut failed = None;
    let stats = input.read(read, |item| {
        let Item::Event(ev) = item else {
            return Ok(());
        };
        w.event(&ev).map_err(|e| stop(&mut failed, rastro_error(e)))
    });
    let stats = match stats {
        Ok(s) => s,
        Err(e) => return Err(failed.take().unwrap_or(Error::Read(e))),
    };
    let mut out = w.finish().map_err(rastro_error)?;
    out.flush().map_err(|e| write_error(opts, e))?;
    Ok(Converted {
        warnings: stats.warnings,
        ..Converted::default()
    })
}

/// A `.ptb` file to a binary format: its events go on as the text they came
/// from, through a pipe between a thread writing that text and the text
/// converter, so the result is exactly that of converting the original text
/// (read with the quote mode the file was made with).
fn through_text<W: Write + Send + 'static>(
    mut input: Opened,
    read: &LoadOptions,
    opts: &ConvertOptions,
    out: W,
) -> Result<Converted, Error> {
    let name = input.name().to_string();
    // The text's numbers are read as the file read them.
    let precision = input.precision();
    let mut text_read = read.clone();
    text_read.quotes = input.text_quotes();
    // The text holds the canonical field names, whatever the original
    // used; strict reading keeps user-defined fields as they are.
    text_read.strict = true;
    let produced = std::sync::Arc::new(std::sync::Mutex::new(None));
    let slot = produced.clone();
    let pipe = trama_open::TextPipe::spawn("trama-ptb-text", move |w| {
        let mut w = io::BufWriter::with_capacity(1 << 20, w);
        let r = input.write_text(&mut w);
        let r = r.and_then(|()| w.flush().map_err(trama_open::Error::Output));
        match r {
            Ok(()) => Ok(()),
            Err(e) => {
                let closed = e.is_output_closed()
                    || matches!(&e, trama_open::Error::Output(io) if io.kind() == io::ErrorKind::BrokenPipe);
                if !closed {
                    *slot.lock().unwrap_or_else(|p| p.into_inner()) = Some(e);
                }
                Ok(())
            }
        }
    })
    .map_err(|e| write_error(opts, e))?;
    let text = trama_open::open_reader(name, pipe)?;
    let consumed = convert_with(text, &text_read, opts, out, precision);
    // A damaged file cuts the text short: that is the cause, whatever the
    // converter made of the rest.
    if let Some(e) = produced.lock().unwrap_or_else(|p| p.into_inner()).take() {
        return Err(Error::Read(e));
    }
    consumed
}
