//! How a trace is read by a consumer that can read it by windows (the
//! viewer): held whole, read by blocks, or converted once into the cache
//! and read by blocks from then on. Decided from what was opened (its
//! format, its size, a `.ptb`'s events and string mode) and what the
//! consumer needs ([`Needs`]); the input is opened once.
//!
//! - A regular `.ptb` file with interned strings is read by blocks when
//!   asked ([`Needs::blocks`]) or when it holds more than
//!   [`BLOCKS_FROM_EVENTS`] events: mapped without reading it, its
//!   summary saved in the cache beside where its conversion would go.
//! - A regular text file is converted into the cache when asked or when
//!   larger than [`BLOCKS_FROM_BYTES`] ([`Reading::Convert`]).
//! - Anything else is held whole, and so is every trace when the consumer
//!   asks for it ([`Needs::whole`]) or when the reading options change the
//!   simulation (a replay by blocks simulates the trace as written).

use std::path::{Path, PathBuf};
use std::sync::atomic::AtomicU64;
use std::sync::Arc;

use crate::input::{self, Body};
use crate::windows::{PtbWindows, Windowed};
use crate::{cache, Error, Format, LoadOptions, Opened, Progress, ProgressUnit, Source};

/// Beyond this many events, a `.ptb` is read by blocks.
pub const BLOCKS_FROM_EVENTS: u64 = 2_000_000;

/// Beyond this many bytes, a text trace file is converted and read by
/// blocks.
pub const BLOCKS_FROM_BYTES: u64 = 64 << 20;

/// What the consumer of a trace needs of its reading.
#[derive(Clone, Debug, Default)]
#[non_exhaustive]
pub struct Needs {
    /// Hold the whole trace in memory, however large.
    pub whole: bool,
    /// Read the trace by blocks however small (text converted first).
    pub blocks: bool,
    /// The cache directory (default: [`cache::directory`]'s).
    pub cache: Option<PathBuf>,
}

/// A trace read by blocks.
pub struct ByBlocks {
    /// The trace.
    pub trace: Box<dyn Windowed>,
    /// Where the summary of a first pass over it is saved (and read back
    /// the next time), when there is a cache to keep it in.
    pub summary: Option<PathBuf>,
    /// Blocks read by the first pass so far (of [`ByBlocks::total`]).
    pub done: Arc<AtomicU64>,
    /// Its blocks of events.
    pub total: u64,
}

impl ByBlocks {
    /// `trace`, its summary saved at `summary`.
    pub fn new(trace: Box<dyn Windowed>, total: u64, summary: Option<PathBuf>) -> ByBlocks {
        ByBlocks {
            trace,
            summary,
            done: Arc::default(),
            total,
        }
    }
}

/// How a trace will be read.
pub enum Reading {
    /// Read and held whole.
    Whole(Opened),
    /// Read by blocks.
    Blocks(ByBlocks),
    /// Converted to the `.ptb` `entry` of the cache first (unless a
    /// conversion is there already), then read by blocks.
    Convert {
        /// The trace.
        opened: Opened,
        /// Its entry in the cache.
        entry: PathBuf,
    },
}

impl Reading {
    /// How far reading it is, when that can be followed.
    pub fn progress(&self) -> Option<Progress> {
        match self {
            Reading::Whole(o) | Reading::Convert { opened: o, .. } => o.progress(),
            Reading::Blocks(b) => Some(Progress {
                total: Some(b.total),
                done: b.done.clone(),
                unit: ProgressUnit::Blocks,
            }),
        }
    }
}

/// Opens `source` and decides how to read it, for a consumer that needs
/// `needs` and reads with `load`; with the notes to give the user.
pub fn open_reading(
    source: &Source,
    load: &LoadOptions,
    needs: &Needs,
) -> Result<(Reading, Vec<String>), Error> {
    let mut notes = Vec::new();
    let path = blockable(source, load, needs, &mut notes);
    let head = input::open(source)?;
    if let (Some(path), Format::Ptb, Body::File(file)) = (&path, head.format, &head.body) {
        // Mapped without reading it: only its index is read here.
        if let Ok(Ok(f)) = trama_ptb::PtbFile::from_file_lazy(file) {
            if f.interned() && (needs.blocks || f.events() > BLOCKS_FROM_EVENTS) {
                let total = f.blocks() as u64;
                let summary = summary(needs, path, &mut notes);
                let trace = Box::new(PtbWindows::new(f));
                return Ok((Reading::Blocks(ByBlocks::new(trace, total, summary)), notes));
            }
        }
    }
    let opened = crate::opened(head)?;
    let text = matches!(opened.format(), Format::PajeText | Format::UnknownText);
    let Some(path) = path.filter(|_| text) else {
        return Ok((Reading::Whole(opened), notes));
    };
    let big = std::fs::metadata(&path).is_ok_and(|m| m.len() > BLOCKS_FROM_BYTES);
    if !(needs.blocks || big) {
        return Ok((Reading::Whole(opened), notes));
    }
    let dir = cache::directory(needs.cache.as_deref())?;
    cache::make(
        &dir,
        " (choose another with --cache DIR, or view the trace with --whole)",
    )?;
    let entry = cache::entry(&dir, &path)?;
    Ok((Reading::Convert { opened, entry }, notes))
}

/// The regular file `source` names, when it may be read by blocks: no
/// reading option that changes the simulation, no [`Needs::whole`].
fn blockable(
    source: &Source,
    load: &LoadOptions,
    needs: &Needs,
    notes: &mut Vec<String>,
) -> Option<PathBuf> {
    let changes_simulation = load.no_imbrication
        || load.stop_at.is_some()
        || load.reorders()
        || load.lenient
        || !load.strict
        || load.quotes == crate::QuoteMode::Strip;
    let Source::Path(path) = source else {
        return None;
    };
    if !std::fs::metadata(path).is_ok_and(|m| m.is_file()) || needs.whole {
        return None;
    }
    if changes_simulation {
        if needs.blocks {
            notes.push("reading the whole trace: the reading options given change the simulation, which blocks replay as written".into());
        }
        return None;
    }
    Some(path.clone())
}

/// Where the summary of the trace at `path` is saved in the cache (`None`,
/// with a note, when there is no cache directory to write it in).
fn summary(needs: &Needs, path: &Path, notes: &mut Vec<String>) -> Option<PathBuf> {
    let made = cache::directory(needs.cache.as_deref()).and_then(|dir| {
        cache::make(&dir, "")?;
        cache::entry(&dir, path)
    });
    match made {
        Ok(entry) => Some(entry.with_extension("view")),
        Err(e) => {
            notes.push(format!("{}: the trace's summary will be gathered again next time (--cache DIR chooses where to keep it)", crate::error::chain(&e)));
            None
        }
    }
}

/// The conversion already in the cache at `entry`, to read by blocks;
/// `None` when there is none (or a damaged one, to replace). A file there
/// that is not a trace trama converted is an error: it is left alone.
pub fn cached(entry: &Path) -> Result<Option<PtbWindows>, Error> {
    if let Ok(w) = PtbWindows::open(entry) {
        return Ok(Some(w));
    }
    if let Ok(mut f) = std::fs::File::open(entry) {
        use std::io::Read;
        let mut head = [0u8; 8];
        if f.read_exact(&mut head).is_err() || !trama_ptb::is_ptb(&head) {
            return Err(Error::Options(format!(
                "{} is in the way of the cache's entry and is not a trace trama converted: move it, or choose another cache with --cache DIR",
                entry.display()
            )));
        }
    }
    Ok(None)
}
