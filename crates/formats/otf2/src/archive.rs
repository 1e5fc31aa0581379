//! An archive opened from its anchor file: the anchor, the global
//! definitions, each location's local definitions and event file.
//!
//! The files of an archive whose anchor is `dir/NAME.otf2` are
//! `dir/NAME.def` (global definitions) and, for each location `L`,
//! `dir/NAME/L.evt` (its events) and `dir/NAME/L.def` (its local
//! definitions, possibly absent). Event files are memory-mapped: reading
//! keeps a position per location, never the events.

use std::fs::File;
use std::path::{Path, PathBuf};

use crate::anchor::{Anchor, COMPRESSION_NONE, SUBSTRATE_POSIX, SUBSTRATE_SION};
use crate::defs::{read_global, Definitions};
use crate::error::Error;
use crate::events::{Event, EventReader};
use crate::local::{read_local, LocalDefinitions};

/// A file's bytes: memory-mapped, in memory, or empty.
enum Bytes {
    Map(memmap2::Mmap),
    Owned(Vec<u8>),
    Empty,
}

impl std::ops::Deref for Bytes {
    type Target = [u8];
    fn deref(&self) -> &[u8] {
        match self {
            Bytes::Map(m) => m,
            Bytes::Owned(v) => v,
            Bytes::Empty => &[],
        }
    }
}

fn io(file: &Path, e: std::io::Error) -> Error {
    Error::Io {
        file: file.display().to_string(),
        source: e,
    }
}

/// Maps `path`; `None` when it does not exist.
fn map(path: &Path) -> Result<Option<Bytes>, Error> {
    let f = match File::open(path) {
        Ok(f) => f,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(io(path, e)),
    };
    let len = f.metadata().map_err(|e| io(path, e))?.len();
    if len == 0 {
        return Ok(Some(Bytes::Empty));
    }
    // SAFETY: the file is only read; an archive changed while it is read
    // gives wrong values, which the decoder bounds-checks like damage.
    let m = unsafe { memmap2::Mmap::map(&f) }.map_err(|e| io(path, e))?;
    #[cfg(unix)]
    let _ = m.advise(memmap2::Advice::Sequential);
    Ok(Some(Bytes::Map(m)))
}

/// A file of an archive other than its anchor.
enum Part {
    GlobalDefinitions,
    /// A location's file: its identifier and the file's suffix.
    Local(u64, &'static str),
}

/// A location's files.
struct LocationFiles {
    events_name: String,
    events: Bytes,
    local: LocalDefinitions,
}

/// An OTF2 archive.
pub struct Archive {
    anchor_name: String,
    anchor: Anchor,
    defs: Definitions,
    locations: Vec<LocationFiles>,
}

/// `dir/NAME` for an anchor `dir/NAME.otf2`.
fn base(anchor: &Path) -> PathBuf {
    let name = anchor.file_name().map(|n| n.to_string_lossy().into_owned());
    let name = name.unwrap_or_default();
    let stem = name
        .strip_suffix(".otf2")
        .unwrap_or_else(|| anchor.file_stem().and_then(|s| s.to_str()).unwrap_or(&name));
    anchor.with_file_name(stem)
}

fn with_suffix(base: &Path, suffix: &str) -> PathBuf {
    let mut s = base.as_os_str().to_owned();
    s.push(suffix);
    PathBuf::from(s)
}

impl Archive {
    /// Opens the archive whose anchor file is `anchor`.
    pub fn open(anchor: &Path) -> Result<Archive, Error> {
        let data = std::fs::read(anchor).map_err(|e| io(anchor, e))?;
        Archive::open_with(anchor, &data)
    }

    /// Opens the archive whose anchor file is `anchor`, its contents
    /// already read into `data`.
    pub fn open_with(anchor: &Path, data: &[u8]) -> Result<Archive, Error> {
        let base = base(anchor);
        let defs_path = with_suffix(&base, ".def");
        let defs_name = defs_path.display().to_string();
        Archive::build(anchor.display().to_string(), data, |what| match what {
            Part::GlobalDefinitions => Ok((defs_name.clone(), map(&defs_path)?)),
            Part::Local(id, suffix) => {
                let path = with_suffix(&base.join(id.to_string()), suffix);
                Ok((path.display().to_string(), map(&path)?))
            }
        })
    }

    /// An archive in memory: its anchor (`anchor_name` in messages), and
    /// `file(name)` the other files by their name in the archive
    /// (`NAME.def` as `"def"`, a location's `L.evt` and `L.def` as
    /// `"L.evt"` and `"L.def"`), `None` for a file that is absent.
    pub fn from_memory(
        anchor_name: &str,
        anchor: &[u8],
        mut file: impl FnMut(&str) -> Option<Vec<u8>>,
    ) -> Result<Archive, Error> {
        let bytes = |v: Vec<u8>| {
            if v.is_empty() {
                Bytes::Empty
            } else {
                Bytes::Owned(v)
            }
        };
        Archive::build(anchor_name.to_string(), anchor, |what| {
            let name = match what {
                Part::GlobalDefinitions => "def".to_string(),
                Part::Local(id, suffix) => format!("{id}{suffix}"),
            };
            let data = file(&name).map(bytes);
            Ok((name, data))
        })
    }

    fn build(
        anchor_name: String,
        data: &[u8],
        mut load: impl FnMut(Part) -> Result<(String, Option<Bytes>), Error>,
    ) -> Result<Archive, Error> {
        let a = Anchor::parse(data).map_err(|b| b.in_file(&anchor_name))?;
        if a.substrate == SUBSTRATE_SION {
            return Err(Error::Unsupported {
                file: anchor_name,
                what: "the archive packs its locations in SION containers; trama reads archives of one file per location (POSIX substrate)".into(),
            });
        }
        if a.substrate != SUBSTRATE_POSIX {
            return Err(Error::Unsupported {
                file: anchor_name,
                what: format!(
                    "the archive's file substrate {} is not one file per location (POSIX)",
                    a.substrate
                ),
            });
        }
        if a.compression != COMPRESSION_NONE {
            return Err(Error::Unsupported {
                file: anchor_name,
                what: "the archive's files are compressed (zlib); trama reads uncompressed archives (otf2-print can read it, Score-P writes uncompressed archives by default)".into(),
            });
        }
        let (defs_name, defs_data) = load(Part::GlobalDefinitions)?;
        let defs_data = defs_data.ok_or_else(|| Error::Io {
            file: defs_name.clone(),
            source: std::io::Error::new(
                std::io::ErrorKind::NotFound,
                "the archive's global definitions (NAME.def beside the anchor NAME.otf2) are missing",
            ),
        })?;
        let defs = read_global(&defs_data, a.chunk_size_defs as usize)
            .map_err(|b| b.in_file(&defs_name))?;
        let mut locations = Vec::with_capacity(defs.locations.len());
        for l in &defs.locations {
            let local = match load(Part::Local(l.id, ".def"))? {
                (name, Some(data)) => {
                    read_local(&data, a.chunk_size_defs as usize).map_err(|b| b.in_file(&name))?
                }
                (_, None) => LocalDefinitions::default(),
            };
            let (events_name, events) = match load(Part::Local(l.id, ".evt"))? {
                (name, Some(data)) => (name, data),
                (name, None) if l.events == 0 => (name, Bytes::Empty),
                (name, None) => {
                    return Err(Error::Io {
                        file: name,
                        source: std::io::Error::new(
                            std::io::ErrorKind::NotFound,
                            format!(
                            "the events of location {} ({} events by its definition) are missing",
                            l.id, l.events
                        ),
                        ),
                    })
                }
            };
            locations.push(LocationFiles {
                events_name,
                events,
                local,
            });
        }
        Ok(Archive {
            anchor_name,
            anchor: a,
            defs,
            locations,
        })
    }

    /// The anchor file's name in messages.
    pub fn name(&self) -> &str {
        &self.anchor_name
    }

    /// What the anchor says.
    pub fn anchor(&self) -> &Anchor {
        &self.anchor
    }

    /// The global definitions.
    pub fn definitions(&self) -> &Definitions {
        &self.defs
    }

    /// The local definitions of the `i`-th location (in definition order).
    pub fn local_definitions(&self, i: usize) -> &LocalDefinitions {
        &self.locations[i].local
    }

    /// Bytes of the event files.
    pub fn event_bytes(&self) -> u64 {
        self.locations.iter().map(|l| l.events.len() as u64).sum()
    }

    /// The events of the `i`-th location (in definition order).
    pub fn events(&self, i: usize) -> Result<EventReader<'_>, Error> {
        let l = &self.locations[i];
        let map = match &l.events {
            Bytes::Map(m) => Some(m),
            _ => None,
        };
        EventReader::new(
            &l.events_name,
            &l.events,
            map,
            self.anchor.chunk_size_events as usize,
            &l.local,
        )
    }

    /// The events of every location, merged in time order.
    pub fn merged(&self) -> Result<Merged<'_>, Error> {
        let readers = (0..self.locations.len())
            .map(|i| self.events(i))
            .collect::<Result<Vec<_>, _>>()?;
        Merged::new(readers)
    }
}

/// The events of several locations in time order (equal times: the
/// location defined first first), merged by a tournament tree: each node
/// keeps the loser of its match, so a reader's next event plays one match
/// per level on its way up.
pub struct Merged<'a> {
    readers: Vec<EventReader<'a>>,
    /// Each reader's head as a key ordered as the merge orders events:
    /// time, then readers at their end last, then the reader's index.
    keys: Vec<u128>,
    /// `losers[0]` is the winner; `losers[n]` the loser at node `n` of
    /// a tree whose leaves are `width..2 * width`.
    losers: Vec<u32>,
    width: usize,
    /// The reader whose event was handed out last: it moves on at the
    /// next call (until then, its metric values and look-ahead are that
    /// event's).
    last: Option<usize>,
    heads: Vec<Option<Event>>,
}

fn key(e: Option<&Event>, i: usize) -> u128 {
    match e {
        Some(e) => ((e.time as u128) << 33) | i as u128,
        None => (u128::from(u64::MAX) << 33) | (1 << 32) | i as u128,
    }
}

impl<'a> Merged<'a> {
    fn new(mut readers: Vec<EventReader<'a>>) -> Result<Merged<'a>, Error> {
        let mut heads = Vec::with_capacity(readers.len());
        for r in readers.iter_mut() {
            heads.push(r.next_event()?);
        }
        let width = readers.len().next_power_of_two().max(1);
        let mut keys: Vec<u128> = (0..width)
            .map(|i| key(heads.get(i).and_then(|h| h.as_ref()), i))
            .collect();
        // Leaves past the readers never win.
        for k in keys.iter_mut().skip(readers.len()) {
            *k = u128::MAX;
        }
        // Winners of each node, bottom up; losers kept.
        let mut winners = vec![0u32; 2 * width];
        let mut losers = vec![0u32; width];
        for i in 0..width {
            winners[width + i] = i as u32;
        }
        for n in (1..width).rev() {
            let (a, b) = (winners[2 * n], winners[2 * n + 1]);
            let (w, l) = if keys[a as usize] <= keys[b as usize] {
                (a, b)
            } else {
                (b, a)
            };
            winners[n] = w;
            losers[n] = l;
        }
        losers[0] = if width > 1 { winners[1] } else { 0 };
        keys.truncate(width);
        Ok(Merged {
            readers,
            keys,
            losers,
            width,
            last: None,
            heads,
        })
    }

    /// The next event and the index of its location.
    #[inline]
    pub fn next_event(&mut self) -> Result<Option<(usize, Event)>, Error> {
        if let Some(i) = self.last.take() {
            let e = self.readers[i].next_event()?;
            self.heads[i] = e;
            self.keys[i] = key(e.as_ref(), i);
            // Replay the winner's matches from its leaf to the root.
            let mut winner = i as u32;
            let mut n = (self.width + i) / 2;
            while n > 0 {
                let l = self.losers[n];
                if self.keys[l as usize] < self.keys[winner as usize] {
                    self.losers[n] = winner;
                    winner = l;
                }
                n /= 2;
            }
            self.losers[0] = winner;
        }
        let i = self.losers[0] as usize;
        match self.heads.get(i).copied().flatten() {
            Some(e) => {
                self.last = Some(i);
                Ok(Some((i, e)))
            }
            None => Ok(None),
        }
    }

    /// The reader of the `i`-th location.
    pub fn reader(&self, i: usize) -> &EventReader<'a> {
        &self.readers[i]
    }

    /// Every location's reader.
    pub fn readers(&self) -> &[EventReader<'a>] {
        &self.readers
    }
}
