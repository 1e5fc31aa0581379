//! `trama convert`: between Pajé text and binary formats.

use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::{anyhow, bail, Context};
use trama_paje::{read_paje, ReadError};
use trama_ptb::{SourceStats, StringMode, WriteOptions, Writer};
use trama_sim::{Batch, Resolver};

use crate::run::{open_any, reader_options, Opened, Progress};
use crate::ReadArgs;

/// Output formats of `trama convert`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum Target {
    /// trama's binary format (.ptb).
    Ptb,
    /// Pajé text.
    Paje,
}

/// What `trama convert` was asked to do.
pub struct ConvertSettings {
    pub output: PathBuf,
    pub to: Option<Target>,
    pub strings: StringMode,
    pub zstd_level: Option<i32>,
    pub block_events: usize,
}

fn target_of(path: &Path) -> Option<Target> {
    match path.extension()?.to_str()? {
        "ptb" => Some(Target::Ptb),
        "paje" | "trace" | "txt" => Some(Target::Paje),
        _ => None,
    }
}

/// Removes a partial output unless it was completed.
struct Partial<'a> {
    path: &'a Path,
    done: bool,
}

impl Drop for Partial<'_> {
    fn drop(&mut self) {
        if !self.done {
            let _ = std::fs::remove_file(self.path);
        }
    }
}

pub fn convert(args: &ReadArgs, s: &ConvertSettings) -> anyhow::Result<ExitCode> {
    let to = match s.to.or_else(|| target_of(&s.output)) {
        Some(t) => t,
        None => bail!(
            "cannot tell the output format from '{}': name it .ptb or .paje, or use --to",
            s.output.display()
        ),
    };
    let opened = open_any(args)?;
    let name = trama_input::Source::from_arg(args.file.as_deref()).display_name();
    let out_file = File::create(&s.output)
        .map_err(|e| anyhow!("cannot create {}: {e}", s.output.display()))?;
    let mut partial = Partial {
        path: &s.output,
        done: false,
    };
    let out = BufWriter::with_capacity(1 << 20, out_file);
    match (opened, to) {
        (Opened::Text(input), Target::Ptb) => {
            let progress = Progress::start(&input, !args.no_progress);
            let mut wopts = WriteOptions::default();
            wopts.strings = s.strings;
            wopts.zstd_level = s.zstd_level;
            wopts.block_events = s.block_events;
            wopts.quotes_stripped = args.strip_quotes;
            let mut writer = Writer::new(out, wopts).context("writing the binary trace")?;
            let mut resolver = Resolver::new(false);
            let mut batch = Batch::default();
            let read = read_paje(input, &reader_options(args), |ev| {
                batch.clear();
                resolver
                    .resolve(&ev, &mut batch)
                    .map_err(|e| anyhow!("{name}:{}: {}\n  | {}", e.line, e.kind, e.contents))?;
                let handles = resolver.entity_handles(&batch, 0);
                writer
                    .event(&ev, handles)
                    .with_context(|| format!("writing {}", s.output.display()))
            });
            drop(progress);
            let stats = match read {
                Ok(stats) => stats,
                Err(ReadError::Handler(e)) => return Err(e),
                Err(ReadError::Syntax {
                    line,
                    error,
                    contents,
                }) => bail!("{name}:{line}: {error}\n  | {contents}"),
                Err(ReadError::Io(e)) => return Err(anyhow!(e).context(format!("reading {name}"))),
            };
            for w in &stats.warnings {
                eprintln!("trama: warning: {name}: {w}");
            }
            let source = SourceStats { lines: stats.lines };
            let mut out = writer
                .finish(&stats.definitions, source)
                .with_context(|| format!("writing {}", s.output.display()))?;
            out.flush()?;
        }
        (Opened::Binary(file), Target::Paje) => {
            let mut out = out;
            let mut o = trama_ptb::ReadOptions::default();
            if args.threads != 0 {
                o.threads = args.threads;
            }
            trama_ptb::write_text(&file, &o, &mut out).map_err(|e| match e {
                trama_ptb::ReadError::Format(f) => anyhow!("{name}: {f}"),
                trama_ptb::ReadError::Handler(e) => {
                    anyhow!(e).context(format!("writing {}", s.output.display()))
                }
            })?;
        }
        (Opened::Text(_), Target::Paje) => {
            bail!("{name} is already Pajé text; use --to ptb to make a binary trace")
        }
        (Opened::Binary(_), Target::Ptb) => {
            bail!(
                "{name} is already a binary trace; convert it to text first to change its options"
            )
        }
    }
    partial.done = true;
    Ok(ExitCode::SUCCESS)
}
