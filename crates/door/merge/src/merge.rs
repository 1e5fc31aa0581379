//! The streaming k-way merge by synchronized time.
//!
//! Each source is a *lane*. A record pulled from a lane has its paths
//! unified, its time moved by the source's origin and corrected by the
//! clock of its host; it then waits in the lane's small heap until no
//! later record of the lane can come before it: the lane's records are
//! in time order in the source's clock, and every host's correction is
//! increasing, so a record is safe once its corrected time is at most
//! the lowest correction, over the hosts the lane has met, of the lane's
//! last source time. The merge then always writes the earliest head over
//! all lanes (ties: the lane given first, then the lane's own order), so
//! memory is bounded by the number of lanes and, in each lane, by the
//! records of a span as long as the spread of the hosts' corrections,
//! not by the trace's length.

use std::cmp::Reverse;
use std::collections::{BinaryHeap, HashMap};
use std::io::Write;
use std::sync::Arc;

use trama_records::{Decl, Location, Nanos, PajeWriter, Record, Source, What};

use crate::unify::Mapper;
use crate::MergeError;

/// A clock correction: a time read on a host → the reference clock's time.
/// Must be non-decreasing.
pub type Correct = Arc<dyn Fn(Nanos) -> Nanos + Send + Sync>;

/// One source to merge, with its unification.
pub struct Input {
    /// The records.
    pub source: Box<dyn Source>,
    /// How its paths map into the unified hierarchy.
    pub mapper: Mapper,
    /// The namespace of its link keys (the plan entry's name): inputs of
    /// one group (the files of one plan entry) pair their links with each
    /// other, other groups never.
    pub group: String,
    /// Its times are already on the reference clock: no host correction.
    pub synchronized: bool,
    /// Nanoseconds added to its times before clock correction.
    pub origin: Nanos,
}

/// Where the merged trace's time 0 is.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[non_exhaustive]
pub enum Origin {
    /// At the earliest record (the default).
    #[default]
    Earliest,
    /// At this corrected time.
    At(Nanos),
}

/// Options of [`merge`].
#[derive(Clone, Default)]
#[non_exhaustive]
pub struct MergeOptions {
    /// Clock corrections per (unified) host name; other hosts keep their times.
    pub corrections: HashMap<String, Correct>,
    /// Where time 0 is.
    pub origin: Origin,
    /// Prefix link keys with their group when there are several groups.
    pub separate_groups: bool,
}

/// What a merge did.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct MergeStats {
    /// Records read per input, in input order.
    pub records: Vec<u64>,
    /// Records written.
    pub written: u64,
    /// The most records one lane held waiting for its clock skew.
    pub max_pending: usize,
    /// The corrected time of the first and last records written.
    pub span: Option<(Nanos, Nanos)>,
    /// Per input, in input order: its name and the corrected time of its
    /// first and last records written (declarations aside).
    pub spans: Vec<(String, Option<(Nanos, Nanos)>)>,
}

impl MergeStats {
    /// Warnings on the sources' time spans: each source (of several)
    /// whose span overlaps no other source's, as a clock or origin gone
    /// wrong would make it (a dump of 2014 merged with an export of 1970
    /// gives a trace of 1.4 billion seconds, mostly empty).
    pub fn span_warnings(&self) -> Vec<String> {
        let spans: Vec<(&str, (Nanos, Nanos))> = self
            .spans
            .iter()
            .filter_map(|(n, s)| s.map(|s| (n.as_str(), s)))
            .collect();
        if spans.len() < 2 {
            return Vec::new();
        }
        let secs = |t: Nanos| trama_records::TimeText(t, 6).to_string();
        let mut out = Vec::new();
        for (i, (name, (a, b))) in spans.iter().enumerate() {
            let overlaps = spans
                .iter()
                .enumerate()
                .any(|(j, (_, (c, d)))| j != i && *a <= *d && *c <= *b);
            if !overlaps {
                out.push(format!(
                    "{name}: its records span {} .. {} s, a time no other source covers; its clock or origin may be wrong (the merged trace spans {} s)",
                    secs(*a),
                    secs(*b),
                    self.span.map_or_else(String::new, |(x, y)| secs(y - x)),
                ));
            }
        }
        out
    }
}

struct Pending {
    time: Nanos,
    seq: u64,
    record: Record,
    /// The record's number in its source, and where it comes from.
    origin: (u64, Option<Location>),
}

impl PartialEq for Pending {
    fn eq(&self, o: &Self) -> bool {
        (self.time, self.seq) == (o.time, o.seq)
    }
}
impl Eq for Pending {}
impl PartialOrd for Pending {
    fn partial_cmp(&self, o: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(o))
    }
}
impl Ord for Pending {
    fn cmp(&self, o: &Self) -> std::cmp::Ordering {
        (self.time, self.seq).cmp(&(o.time, o.seq))
    }
}

struct Lane {
    input: Input,
    pending: BinaryHeap<Reverse<Pending>>,
    seq: u64,
    done: bool,
    /// The last record's time in the source's clock.
    last_source: Nanos,
    records: u64,
    key_prefix: Option<String>,
    /// Corrected times of its first and last records written.
    span: Option<(Nanos, Nanos)>,
}

impl Lane {
    /// No later record of the lane can have a corrected time below this:
    /// its source time is at least the last one, its origin at least the
    /// lane's lowest, and corrections are increasing.
    fn frontier(&self, corrections: &[Correct]) -> Nanos {
        let raw = self
            .last_source
            .saturating_add(self.input.mapper.lowest_origin(self.input.origin));
        let mut f = raw;
        for c in corrections {
            f = f.min(c(raw));
        }
        f
    }

    /// Makes the lane's head ready (or the lane exhausted); declarations
    /// met on the way are written at once.
    fn advance<W: Write>(
        &mut self,
        opts: &MergeOptions,
        all: &[Correct],
        out: &mut PajeWriter<W>,
    ) -> Result<Option<(Nanos, u64)>, MergeError> {
        loop {
            if let Some(Reverse(top)) = self.pending.peek() {
                if self.done || top.time <= self.frontier(all) {
                    return Ok(Some((top.time, top.seq)));
                }
            } else if self.done {
                return Ok(None);
            }
            let Some(mut rec) = self.input.source.next_record()? else {
                self.done = true;
                continue;
            };
            self.records += 1;
            if let What::Declare(d) = &rec.what {
                if let Some(d) = self.unify_decl(d)? {
                    out.write(&Record {
                        time: 0,
                        what: What::Declare(d),
                    })?;
                }
                continue;
            }
            if rec.time < self.last_source {
                return Err(MergeError::Order {
                    input: self.input.source.name().to_string(),
                    message: format!(
                        "record {} goes back in time ({} ns before the previous one)",
                        self.records,
                        self.last_source - rec.time
                    ),
                });
            }
            self.last_source = rec.time;
            let (host, origin) = self.unify_record(&mut rec)?;
            let raw = rec.time.saturating_add(origin.unwrap_or(self.input.origin));
            let correct = match &host {
                Some(h) if !self.input.synchronized => opts.corrections.get(h).cloned(),
                _ => None,
            };
            let time = match &correct {
                Some(c) => c(raw),
                None => raw,
            };
            rec.time = time;
            self.seq += 1;
            self.pending.push(Reverse(Pending {
                time,
                seq: self.seq,
                record: rec,
                origin: (self.records, self.input.source.position()),
            }));
        }
    }

    fn unify_decl(&mut self, d: &Decl) -> Result<Option<Decl>, MergeError> {
        let m = &self.input.mapper;
        Ok(match d {
            // The plan's hierarchy defines the container types.
            Decl::ContainerType { .. } => None,
            Decl::EntityType {
                kind,
                name,
                container,
                color,
            } if container == trama_records::ROOT_TYPE => Some(d.clone()),
            Decl::EntityType {
                kind,
                name,
                container,
                color,
            } => m.level_of(container)?.map(|l| Decl::EntityType {
                kind: *kind,
                name: name.clone(),
                container: l.to_string(),
                color: color.clone(),
            }),
            Decl::LinkType {
                name,
                container,
                start,
                end,
            } => {
                let container = match container {
                    Some(c) => m.level_of(c)?.map(str::to_string),
                    None => None,
                };
                match (m.level_of(start)?, m.level_of(end)?) {
                    (Some(s), Some(e)) => Some(Decl::LinkType {
                        name: name.clone(),
                        container,
                        start: s.to_string(),
                        end: e.to_string(),
                    }),
                    _ => None,
                }
            }
            Decl::Value { .. } => Some(d.clone()),
        })
    }

    /// Rewrites the record's paths and link key; returns its host and the
    /// origin of its rank, if the plan gives one.
    fn unify_record(
        &mut self,
        rec: &mut Record,
    ) -> Result<(Option<String>, Option<Nanos>), MergeError> {
        if let What::StartLink { container, key, .. } | What::EndLink { container, key, .. } =
            &mut rec.what
        {
            if let Some(c) = container {
                *container = self.input.mapper.unify_holder(c)?;
            }
            if let Some(p) = &self.key_prefix {
                key.insert_str(0, p);
            }
        }
        let Some(subject) = rec.what.subject_mut() else {
            return Ok((None, None));
        };
        // The root container (an entity type declared in it) stays the root.
        if subject.is_empty() {
            return Ok((None, None));
        }
        let u = self.input.mapper.unify(subject)?;
        *subject = u.path;
        Ok((u.host, u.origin))
    }
}

/// Merges `inputs` into `out` by corrected time; `levels` are the plan's
/// levels with their parents ([`Plan::levels`](crate::Plan::levels)), declared first. `progress` is called
/// now and then with the number of records written so far.
pub fn merge<W: Write>(
    inputs: Vec<Input>,
    levels: &[(String, Option<String>)],
    opts: &MergeOptions,
    out: &mut PajeWriter<W>,
    progress: &mut dyn FnMut(u64),
) -> Result<MergeStats, MergeError> {
    let groups: std::collections::BTreeSet<&str> =
        inputs.iter().map(|i| i.group.as_str()).collect();
    let separate = opts.separate_groups && groups.len() > 1;
    // The hierarchy's container types, top first, so the type tree does
    // not depend on which source speaks first.
    for (level, parent) in levels {
        out.write(&Record {
            time: 0,
            what: What::Declare(Decl::ContainerType {
                name: level.clone(),
                parent: parent.clone(),
            }),
        })?;
    }
    let mut lanes: Vec<Lane> = inputs
        .into_iter()
        .map(|input| Lane {
            key_prefix: separate.then(|| format!("{}:", input.group)),
            input,
            pending: BinaryHeap::new(),
            seq: 0,
            done: false,
            last_source: Nanos::MIN,
            records: 0,
            span: None,
        })
        .collect();
    let all: Vec<Correct> = opts.corrections.values().cloned().collect();
    let mut heads: BinaryHeap<Reverse<(Nanos, usize, u64)>> = BinaryHeap::new();
    for (i, lane) in lanes.iter_mut().enumerate() {
        if let Some((t, s)) = lane.advance(opts, &all, out)? {
            heads.push(Reverse((t, i, s)));
        }
    }
    let mut stats = MergeStats::default();
    let mut origin_set = false;
    while let Some(Reverse((t, i, _))) = heads.pop() {
        let lane = &mut lanes[i];
        stats.max_pending = stats.max_pending.max(lane.pending.len());
        let Reverse(p) = lane.pending.pop().expect("a head is pending");
        if !origin_set {
            out.set_origin(match opts.origin {
                Origin::Earliest => t,
                Origin::At(o) => o,
            });
            origin_set = true;
        }
        if let Some((_, last)) = stats.span {
            if t < last {
                return Err(MergeError::Order {
                    input: lane.input.source.name().to_string(),
                    message: format!(
                        "a host met late has a clock {} ns behind what was already written; \
                         the merge cannot keep time order",
                        last - t
                    ),
                });
            }
        }
        stats.span = Some((stats.span.map_or(t, |s| s.0), t));
        if !matches!(p.record.what, What::Declare(_)) {
            lane.span = Some((lane.span.map_or(t, |s| s.0), t));
        }
        out.write(&p.record).map_err(|e| MergeError::Record {
            input: lane.input.source.name().to_string(),
            record: p.origin.0,
            position: p.origin.1,
            error: e,
        })?;
        stats.written += 1;
        if stats.written % 65536 == 0 {
            progress(stats.written);
        }
        if let Some((t, s)) = lane.advance(opts, &all, out)? {
            heads.push(Reverse((t, i, s)));
        }
    }
    progress(stats.written);
    stats.records = lanes.iter().map(|l| l.records).collect();
    stats.spans = lanes
        .iter()
        .map(|l| (l.input.source.name().to_string(), l.span))
        .collect();
    Ok(stats)
}
