//! Akypuera's converter (`aky_converter`), reproduced on the mapping
//! engine: its header, its merge of the rank files, its times and keys.

use std::collections::{HashMap, HashSet, VecDeque};
use std::path::PathBuf;
use std::sync::Arc;

use super::engine::{Decoded, Engine};
use super::mapping::Mapping;
use super::{read_file, RstOptions, RstSource};
use crate::reading::Stepwise;
use trama_records::{
    destroy_variable_state_defs, event_def, link_def, type_defs, Dialect, PajeWriter, WriterOptions,
};
use trama_records::{Nanos, Path, Record, Source, SourceError, What};

/// The Pajé header `aky_converter` writes (Akypuera of 2017-2018 with
/// Poti): Poti's 18 definitions, with aliases and the container before
/// the type in `PajeCreateContainer`, then Akypuera's two declared
/// events: a push state with a `Mark` (the send mark of MPI calls) and a
/// start link with the message `Size` and `Mark`.
pub const AKY_HEADER: &str = concat!(
    type_defs!(),
    event_def!(
        PajeCreateContainer 6: Time date, Alias string, Container string, Type string, Name string
    ),
    destroy_variable_state_defs!(),
    event_def!(PajePopState 13: Time date, Container string, Type string),
    event_def!(PajeResetState 14: Time date, Container string, Type string),
    link_def!(PajeStartLink 15: StartContainer),
    link_def!(PajeEndLink 16: EndContainer),
    event_def!(PajeNewEvent 17: Time date, Container string, Type string, Value string),
    event_def!(
        PajePushState 18: Time date, Container string, Type string, Value string, Mark string
    ),
    link_def!(PajeStartLink 19: StartContainer, Size string, Mark string),
);

/// The dialect to write an Akypuera conversion with: [`AKY_HEADER`].
/// Write with [`akypuera_options`]: Akypuera never declares values.
pub fn akypuera_dialect() -> Dialect {
    Dialect::from_header(AKY_HEADER).expect("Akypuera's header is valid")
}

/// The writer options of an Akypuera conversion: times from the earliest
/// rank's start with 9 decimals, and no value declared (as `aky_converter`).
pub fn akypuera_options() -> WriterOptions {
    let mut options = WriterOptions::default();
    options.declare_values = false;
    options
}

/// Converts a set of Akypuera rank files to Pajé exactly as
/// `aky_converter` does (header, order, times, keys), into `out`; returns
/// `out` and the number of records written.
pub fn akypuera_convert<W: std::io::Write>(
    files: &[PathBuf],
    out: W,
) -> Result<(W, u64), SourceError> {
    let mut src = akypuera_source(files)?;
    let name = src.name().to_string();
    let werr = |e: trama_records::WriteError| SourceError::file(&name, e.to_string());
    let mut w = PajeWriter::new(out, akypuera_dialect(), akypuera_options()).map_err(werr)?;
    while let Some(r) = src.next_record()? {
        w.write(&r).map_err(werr)?;
    }
    let n = w.records();
    Ok((w.finish().map_err(werr)?, n))
}

/// One [`RstSource`] per Akypuera rank file, read with the shipped
/// Akypuera mapping ([`Mapping::akypuera`]): exact times of the ranks'
/// own clocks, keys that pair sends and receives across the files. This
/// is what the merge takes; [`akypuera_source`] is `aky_converter`'s own
/// output.
pub fn akypuera_sources(files: &[PathBuf]) -> Result<Vec<RstSource>, SourceError> {
    super::open_all(files, &RstOptions::new(Mapping::akypuera()))
}

/// Akypuera's conversion of a set of rank files, as one source: the
/// records `aky_converter` writes, in its order (see the
/// [module](super) documentation, "Akypuera's converter").
pub fn akypuera_source(files: &[PathBuf]) -> Result<AkypueraSource, SourceError> {
    let mapping = Arc::new(Mapping::akypuera());
    let mut engines = Vec::with_capacity(files.len());
    for f in files {
        let (name, data) = read_file(f)?;
        engines.push(Engine::open(name, data, mapping.clone())?);
    }
    AkypueraSource::new(engines)
}

/// The records of `aky_converter` over a set of rank files (built by
/// [`akypuera_source`]).
pub struct AkypueraSource {
    name: String,
    engines: Vec<Engine>,
    current: Vec<Option<Decoded>>,
    /// libRastro's heap of files by their current event's time.
    heap: Vec<usize>,
    origin: Option<f64>,
    out: VecDeque<Record>,
    keys: HashMap<String, String>,
    counter: u64,
    created: HashSet<Path>,
    top: Option<Path>,
    last: Option<Nanos>,
    error: Option<SourceError>,
    done: bool,
}

impl AkypueraSource {
    fn new(mut engines: Vec<Engine>) -> Result<AkypueraSource, SourceError> {
        let name = match engines.as_slice() {
            [] => "(no Akypuera files)".to_string(),
            [one] => one.name().to_string(),
            [first, .., last] => format!("{} .. {}", first.name(), last.name()),
        };
        let mut out = VecDeque::new();
        if let Some(e) = engines.first() {
            for d in e.mapping().declarations() {
                out.push_back(Record {
                    time: 0,
                    what: What::Declare(d.clone()),
                });
            }
        }
        let mut src = AkypueraSource {
            name,
            current: Vec::with_capacity(engines.len()),
            heap: Vec::with_capacity(engines.len()),
            engines: Vec::new(),
            origin: None,
            out,
            keys: HashMap::new(),
            counter: 0,
            created: HashSet::new(),
            top: None,
            last: None,
            error: None,
            done: false,
        };
        // Like rst_open_file: the first event of each file enters the heap.
        for (i, e) in engines.iter_mut().enumerate() {
            let first = e.next_event()?;
            let has = first.is_some();
            src.current.push(first);
            if has {
                src.heap.push(i);
                src.bottom_up(src.heap.len());
            }
        }
        src.engines = engines;
        Ok(src)
    }

    fn time_of(&self, slot: usize) -> f64 {
        let file = self.heap[slot - 1];
        self.current[file]
            .as_ref()
            .expect("files in the heap have an event")
            .seconds_f64()
    }

    /// libRastro's `smallest_first`: swaps a parent and its child when
    /// the parent is later (positions are 1-based, as there).
    fn smallest_first(&mut self, parent: usize, child: usize) {
        if self.time_of(parent) > self.time_of(child) {
            self.heap.swap(parent - 1, child - 1);
        }
    }

    fn bottom_up(&mut self, child: usize) {
        let parent = child / 2;
        if parent == 0 {
            return;
        }
        self.smallest_first(parent, child);
        self.bottom_up(parent);
    }

    fn top_down(&mut self, parent: usize) {
        let n = self.heap.len();
        let (c1, c2) = (parent * 2, parent * 2 + 1);
        if parent > n || c1 > n {
            return;
        }
        if c2 > n {
            self.smallest_first(parent, c1);
        } else if self.time_of(c1) < self.time_of(c2) {
            self.smallest_first(parent, c1);
            self.top_down(c1);
        } else {
            self.smallest_first(parent, c2);
            self.top_down(c2);
        }
    }

    /// Takes the earliest event as `rst_decode_event` does: the heap's
    /// root leaves, the last file takes its place and sinks, and the
    /// root's file comes back with its next event.
    fn pop(&mut self) -> Option<(usize, Decoded)> {
        let file = *self.heap.first()?;
        let ev = self.current[file].take().expect("heap files have an event");
        let last = self.heap.pop().expect("non-empty");
        if !self.heap.is_empty() {
            self.heap[0] = last;
        }
        self.top_down(1);
        match self.engines[file].next_event() {
            Ok(Some(next)) => {
                self.current[file] = Some(next);
                self.heap.push(file);
                self.bottom_up(self.heap.len());
            }
            Ok(None) => {}
            Err(e) => self.error = Some(e),
        }
        Some((file, ev))
    }

    fn convert(&mut self, file: usize, ev: Decoded) -> Result<(), SourceError> {
        let seconds = ev.seconds_f64();
        let origin = *self.origin.get_or_insert(seconds);
        // aky_converter prints `%.9f` of a difference of doubles: round
        // that difference to the nanosecond the same way (ties to even).
        let time = ((seconds - origin) * 1e9).round_ties_even() as Nanos;
        self.last = Some(time);
        let mut links = ev.links.iter().peekable();
        for (i, mut rec) in ev.records.into_iter().enumerate() {
            rec.time = time;
            let link = match links.peek() {
                Some(l) if l.record == i => links.next(),
                _ => None,
            };
            match &mut rec.what {
                What::Create { container } => {
                    for k in 1..container.len() {
                        let prefix: Path = container[..k].into();
                        if self.created.insert(prefix.clone()) {
                            self.top.get_or_insert_with(|| prefix.clone());
                            self.out.push_back(Record {
                                time,
                                what: What::Create { container: prefix },
                            });
                        }
                    }
                    self.created.insert(container.clone());
                }
                What::StartLink { key, extra, .. } => {
                    let l = link.expect("link ends are listed");
                    let new = format!("{}_{}_{}", l.src, l.dst, self.counter);
                    self.counter += 1;
                    let old = std::mem::replace(key, new.as_str().into());
                    self.keys.insert(old.into(), new);
                    // Size and Mark went through 6-byte buffers: 5 characters.
                    for (n, v) in extra.iter_mut() {
                        if n == "Size" || n == "Mark" {
                            *v = v.chars().take(5).collect();
                        }
                    }
                }
                What::EndLink { key, .. } => {
                    let l = link.expect("link ends are listed");
                    let Some(new) = self.keys.remove(key.as_str()) else {
                        return Err(SourceError::byte(
                            self.engines[file].name(),
                            ev.offset,
                            format!(
                                "a receive at {} from {} comes before its send in time order \
                                 (aky_converter stops here too: are the traces synchronized?)",
                                l.dst, l.src
                            ),
                        ));
                    };
                    *key = new.into();
                }
                _ => {}
            }
            self.out.push_back(rec);
        }
        Ok(())
    }
}

impl Source for AkypueraSource {
    fn name(&self) -> &str {
        &self.name
    }

    fn next_record(&mut self) -> Result<Option<Record>, SourceError> {
        self.next_queued()
    }

    fn extra_fields(&self) -> Vec<trama_records::ExtraField> {
        self.engines
            .first()
            .map(|e| e.mapping().extra_fields().to_vec())
            .unwrap_or_default()
    }
}

impl Stepwise for AkypueraSource {
    fn queue(&mut self) -> &mut VecDeque<Record> {
        &mut self.out
    }

    /// Converts the earliest event of the files; at their end, destroys
    /// the top container.
    fn step(&mut self) -> Result<bool, SourceError> {
        if let Some(e) = self.error.take() {
            self.done = true;
            return Err(e);
        }
        if self.done {
            return Ok(false);
        }
        match self.pop() {
            Some((file, ev)) => self.convert(file, ev)?,
            None => {
                self.done = true;
                if let (Some(top), Some(time)) = (self.top.clone(), self.last) {
                    self.out.push_back(Record {
                        time,
                        what: What::Destroy { container: top },
                    });
                }
            }
        }
        Ok(true)
    }
}
