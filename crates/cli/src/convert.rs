//! `trama convert`: between Pajé text and binary formats.

use std::fs::File;
use std::io::{BufWriter, IsTerminal, Read, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::{anyhow, bail, Context};
use trama_events::StringMode;
use trama_paje::{read_paje, read_paje_chunked, Item, ReadError};
use trama_ptb::{SourceStats, WriteError, WriteOptions, Writer};

use crate::run::{open_any, reader_options, Opened, Progress};
use crate::ReadArgs;

/// Output formats of `trama convert`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum Target {
    /// trama's binary format (.ptb).
    Ptb,
    /// Pajé text.
    Paje,
    /// The original binary proposal's format: Pajé events in a libRastro file (.rst).
    Rastro,
}

/// What `trama convert` was asked to do.
pub struct ConvertSettings {
    pub output: PathBuf,
    pub to: Option<Target>,
    /// How strings are stored (in a `.ptb` or `.rst` output).
    pub strings: StringMode,
    pub zstd_level: Option<i32>,
    pub block_events: usize,
}

fn target_of(path: &Path) -> Option<Target> {
    match path.extension()?.to_str()? {
        "ptb" => Some(Target::Ptb),
        "paje" | "trace" | "txt" => Some(Target::Paje),
        "rst" => Some(Target::Rastro),
        _ => None,
    }
}

/// Removes a partial output unless it was completed.
struct Partial<'a> {
    /// `None` for standard output.
    path: Option<&'a Path>,
    done: bool,
}

impl Drop for Partial<'_> {
    fn drop(&mut self) {
        if let (false, Some(path)) = (self.done, self.path) {
            let _ = std::fs::remove_file(path);
        }
    }
}

fn text_error(e: ReadError<anyhow::Error>, name: &str) -> anyhow::Error {
    match e {
        ReadError::Handler(e) => e,
        ReadError::Syntax {
            line,
            error,
            contents,
        } => anyhow!("{name}:{line}: {error}\n  | {contents}"),
        ReadError::Io(e) => anyhow!(e).context(format!("reading {name}")),
    }
}

fn rastro_error(e: trama_rastro::paje::Error<anyhow::Error>, name: &str) -> anyhow::Error {
    match e {
        trama_rastro::paje::Error::Handler(e) => e,
        trama_rastro::paje::Error::Rst(e) => anyhow!("{name}: {e}"),
        trama_rastro::paje::Error::Format {
            event,
            offset,
            error,
        } => anyhow!("{name}: rastro event {event} (byte {offset}): {error}"),
    }
}

type Defs = (Vec<trama_events::EventDef>, u64);

/// Where the output goes, as messages name it.
fn out_name(s: &ConvertSettings) -> String {
    if is_stdout(&s.output) {
        "standard output".into()
    } else {
        s.output.display().to_string()
    }
}

fn is_stdout(path: &Path) -> bool {
    path.as_os_str() == "-"
}

/// Says that the simulation rejects the trace just written, if it does (at
/// `line`, 0 for its end).
fn warn_rejected(s: &ConvertSettings, name: &str, rejected: Option<u64>) {
    let Some(line) = rejected else { return };
    let at = if line == 0 {
        "at its end".to_string()
    } else {
        format!("at line {line}")
    };
    eprintln!(
        "trama: warning: {name}: the simulation rejects this trace {at} (`trama check` tells why); {} keeps every event, and reading it reports the same error",
        out_name(s)
    );
}

/// Writes a `.ptb` file from the events (and chunks of text they lie in)
/// `feed` hands over, checking their references on the way; `feed` returns
/// the definitions and the line count. Returns the line where the
/// simulation rejects the trace, if it does (see [`warn_rejected`]).
fn to_ptb<W: Write + Send + 'static>(
    args: &ReadArgs,
    s: &ConvertSettings,
    out: W,
    name: &str,
    feed: impl FnOnce(&mut dyn FnMut(Item<'_>) -> anyhow::Result<()>) -> anyhow::Result<Defs>,
) -> anyhow::Result<Option<u64>> {
    let mut wopts = WriteOptions::default();
    wopts.strings = s.strings;
    wopts.zstd_level = s.zstd_level;
    wopts.block_events = s.block_events;
    wopts.quotes_stripped = args.strip_quotes;
    let mut writer = Writer::new(out, wopts).context("writing the binary trace")?;
    let (defs, lines) = feed(&mut |item| match item {
        Item::Chunk { buffer, len } => {
            writer.text(buffer, len);
            Ok(())
        }
        Item::Event(ev) => writer.event(&ev).map_err(|e| match e {
            WriteError::Trace(e) => anyhow!("{name}:{}: {}\n  | {}", e.line, e.kind, e.contents),
            WriteError::Io(e) => anyhow!(e).context(format!("writing {}", out_name(s))),
        }),
    })?;
    let (mut out, written) = writer
        .finish(&defs, SourceStats { lines })
        .with_context(|| format!("writing {}", out_name(s)))?;
    out.flush()?;
    if std::env::var_os("TRAMA_TIMINGS").is_some() {
        eprintln!(
            "trama: timings: {} events in {} blocks, {} keyframes",
            written.events, written.blocks, written.keyframes
        );
    }
    Ok(written.invalid_at)
}

/// Pajé text (from `input`) to a `.ptb` file.
fn text_to_ptb<W: Write + Send + 'static>(
    args: &ReadArgs,
    s: &ConvertSettings,
    out: W,
    name: &str,
    input: impl Read + Send,
    progress: Progress,
) -> anyhow::Result<Option<u64>> {
    let mut ropts = reader_options(args);
    // The writer encodes on a thread of its own: the reader gets the
    // other cores (on two, it lexes on the caller's thread, which
    // beats sharing them among five busy threads).
    let cores = match args.threads {
        0 => std::thread::available_parallelism().map_or(1, |n| n.get()),
        n => n,
    };
    ropts.threads = cores.saturating_sub(1).max(1);
    to_ptb(args, s, out, name, |event| {
        let stats = read_paje_chunked(input, &ropts, event).map_err(|e| text_error(e, name))?;
        drop(progress);
        for w in &stats.warnings {
            eprintln!("trama: warning: {name}: {w}");
        }
        Ok((stats.definitions, stats.lines))
    })
}

/// Pajé text (from `input`) to the original proposal's libRastro format.
fn text_to_rastro<W: Write>(
    args: &ReadArgs,
    s: &ConvertSettings,
    out: W,
    name: &str,
    input: impl Read + Send,
    progress: Progress,
) -> anyhow::Result<()> {
    let wopts =
        trama_rastro::paje::WriterOptions::new(s.strings, trama_rastro::paje::Flavor::Trace);
    let mut w = trama_rastro::RastroPajeWriter::new(out, wopts)
        .map_err(|e| anyhow!("writing {}: {e}", out_name(s)))?;
    let stats = read_paje(input, &reader_options(args), |ev| {
        w.event(&ev)
            .map_err(|e| anyhow!("writing {}: {e}", out_name(s)))
    })
    .map_err(|e| text_error(e, name))?;
    drop(progress);
    for warning in &stats.warnings {
        eprintln!("trama: warning: {name}: {warning}");
    }
    let mut out = w
        .finish()
        .map_err(|e| anyhow!("writing {}: {e}", out_name(s)))?;
    out.flush()?;
    Ok(())
}

/// Options to read `file` with, and a progress bar over its events.
fn ptb_read_options(
    args: &ReadArgs,
    file: &trama_ptb::PtbFile,
    name: &str,
) -> (trama_ptb::ReadOptions, Progress) {
    let mut o = trama_ptb::ReadOptions::default();
    if args.threads != 0 {
        o.threads = args.threads;
    }
    let counter = std::sync::Arc::new(std::sync::atomic::AtomicU64::new(0));
    o.progress = Some(counter.clone());
    let progress = Progress::events(name, file.events(), counter, !args.no_progress);
    (o, progress)
}

/// A `.ptb` file to a binary format (`.ptb` with other options, or
/// `.rst`): its events go on as the text they came from, through a pipe
/// between a thread writing that text and the text converter, so the
/// result is exactly that of converting the original text (read with the
/// quote mode the file was made with).
fn binary_to_binary<W: Write + Send + 'static>(
    args: &ReadArgs,
    s: &ConvertSettings,
    out: W,
    name: &str,
    file: trama_ptb::PtbFile,
    to: Target,
) -> anyhow::Result<()> {
    let mut text_args = args.clone();
    text_args.strip_quotes = file.quotes_stripped();
    // The text holds the canonical field names, whatever the original
    // used; strict reading keeps user-defined fields as they are.
    text_args.no_strict = false;
    let (ropts, progress) = ptb_read_options(args, &file, name);
    let (rx, tx) = std::io::pipe().context("making a pipe")?;
    let producer = std::thread::Builder::new()
        .name("trama-ptb-text".into())
        .spawn(move || {
            let mut w = std::io::BufWriter::with_capacity(1 << 20, tx);
            trama_ptb::write_text(&file, &ropts, &mut w)
        })
        .context("starting a thread")?;
    // The consumer drops its end of the pipe when it returns: a producer
    // still writing then stops on a broken pipe.
    let consumed = match to {
        Target::Rastro => text_to_rastro(&text_args, s, out, name, rx, progress).map(|()| None),
        _ => text_to_ptb(&text_args, s, out, name, rx, progress),
    };
    let produced = match producer.join() {
        Ok(r) => r,
        Err(p) => std::panic::resume_unwind(p),
    };
    match produced {
        // A damaged file cuts the text short: that is the cause, whatever
        // the converter made of the rest.
        Err(trama_ptb::ReadError::Format(f)) => Err(anyhow!("{name}: {f}")),
        Err(trama_ptb::ReadError::Handler(e)) => {
            consumed?;
            Err(anyhow!(e).context("passing the events on as text"))
        }
        Ok(()) => {
            warn_rejected(s, name, consumed?);
            Ok(())
        }
    }
}

pub fn convert(args: &ReadArgs, s: &ConvertSettings) -> anyhow::Result<ExitCode> {
    let to = match s.to.or_else(|| target_of(&s.output)) {
        Some(t) => t,
        None => bail!(
            "cannot tell the output format from '{}': name it .ptb, .rst or .paje, or use --to",
            s.output.display()
        ),
    };
    let stdout = is_stdout(&s.output);
    if stdout && to != Target::Paje && std::io::stdout().is_terminal() {
        bail!("not writing a binary trace to a terminal: redirect the output or name a file");
    }
    let opened = open_any(args)?;
    let name = trama_input::Source::from_arg(args.file.as_deref()).display_name();
    let out: Box<dyn Write + Send> = if stdout {
        Box::new(BufWriter::with_capacity(1 << 20, std::io::stdout()))
    } else {
        let f = File::create(&s.output)
            .map_err(|e| anyhow!("cannot create {}: {e}", s.output.display()))?;
        Box::new(BufWriter::with_capacity(1 << 20, f))
    };
    let mut partial = Partial {
        path: (!stdout).then_some(s.output.as_path()),
        done: false,
    };
    match (opened, to) {
        (Opened::Text(input), Target::Ptb) => {
            let progress = Progress::start(&input, !args.no_progress);
            warn_rejected(s, &name, text_to_ptb(args, s, out, &name, input, progress)?);
        }
        (Opened::Text(input), Target::Rastro) => {
            let progress = Progress::start(&input, !args.no_progress);
            text_to_rastro(args, s, out, &name, input, progress)?;
        }
        (Opened::Rastro(data), Target::Ptb) => {
            let rejected = to_ptb(args, s, out, &name, |event| {
                let ropts = trama_rastro::paje::ReadOptions::default();
                let st = trama_rastro::read_rastro_paje(&data, &ropts, |ev| event(Item::Event(ev)))
                    .map_err(|e| rastro_error(e, &name))?;
                Ok((st.definitions, st.rastro_events))
            })?;
            warn_rejected(s, &name, rejected);
        }
        (Opened::Rastro(data), Target::Paje) => {
            let mut out = out;
            let mut seen = std::collections::HashSet::new();
            let mut line = Vec::new();
            let ropts = trama_rastro::paje::ReadOptions::default();
            trama_rastro::read_rastro_paje(&data, &ropts, |ev| {
                line.clear();
                if seen.insert(ev.def().id().to_vec()) {
                    line.extend_from_slice(ev.def().to_header().as_bytes());
                }
                for i in 0..ev.word_count() {
                    if i > 0 {
                        line.push(b' ');
                    }
                    line.extend_from_slice(ev.word(i));
                }
                line.push(b'\n');
                out.write_all(&line).map_err(anyhow::Error::from)
            })
            .map_err(|e| rastro_error(e, &name))?;
            out.flush()?;
        }
        (Opened::Binary(file), Target::Ptb | Target::Rastro) => {
            binary_to_binary(args, s, out, &name, file, to)?;
        }
        (Opened::Rastro(_), Target::Rastro) => {
            bail!("{name} is already a libRastro file")
        }
        (Opened::Binary(file), Target::Paje) => {
            let mut out = out;
            let (o, progress) = ptb_read_options(args, &file, &name);
            let written = trama_ptb::write_text(&file, &o, &mut out);
            drop(progress);
            written.map_err(|e| match e {
                trama_ptb::ReadError::Format(f) => anyhow!("{name}: {f}"),
                trama_ptb::ReadError::Handler(e) => {
                    anyhow!(e).context(format!("writing {}", out_name(s)))
                }
            })?;
        }
        (Opened::Text(_), Target::Paje) => {
            bail!("{name} is already Pajé text; use --to ptb to make a binary trace")
        }
    }
    partial.done = true;
    Ok(ExitCode::SUCCESS)
}
