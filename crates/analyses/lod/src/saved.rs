//! What the first pass over a trace read by blocks gathers
//! ([`crate::gather::Gathered`]), saved in the cache so that the next view
//! of the same file starts without reading it again. The same bytes are a
//! `.ptb`'s summary frame (written with the file, see the `.ptb` format):
//! there, the size is that of the file without the frame.
//!
//! # Format
//! A file is the magic `TRVS`, a version (`u32` = 1), the `.ptb`'s size and
//! event count (`u64` each: a file saved for another version of the trace
//! is not used), then a zstd frame holding, little-endian, with no padding
//! (`u8`, `u32`, `u64`, `f64`; a list is its `u32` length then its items):
//!
//! - the lists of the reference model: `(container u32, type u32, kind u8)`
//!   (kind 0 container, 1 state, 2 event, 3 variable, 4 link), in list-id
//!   order; the rest of the model comes from the `.ptb` itself;
//! - the summary of the whole trace: its grid (`t0 f64, t1 f64, width u32,
//!   widened u8`), then per row of the reference model's rows: its state
//!   bands (`list u32`, then per level its spans `x0 u32, x1 u32, value
//!   u32, count u32, mixed u8`), events (`x u32, count u32`), variable spans
//!   (`x0 u32, x1 u32, min f64, max f64, last f64`), links leaving and
//!   arriving (`x u32, count u32` each) and its link count (`u64`); then
//!   the links: `total, dense, unplaced` (`u64`) and those given one by one
//!   (`list u32, index u32, from u32, to u32, start f64, end f64, value
//!   u32`);
//! - the link tally per type (`links u64, lasting u8`), messages per pair
//!   (`type u32, from u32, to u32, count u64`), the containers with states
//!   (`u32`), the entity counts (`containers, states, events, variables,
//!   links` as `u64`), the time span (`f64, f64`), and the stretches (`t0 f64,
//!   t1 f64`, then the ids of the values their states and events take).
//!
//! Anything that does not read back whole and consistent with the `.ptb`
//! (a foreign or damaged file) is ignored: the trace is read again.

use std::collections::{HashMap, HashSet};
use std::path::Path;

use trama_sim::{ContainerId, ListId, ListInfo, Trace, TypeId, TypeKind, ValueId};

use crate::gather::{Counts, Gathered, Stretch};
use crate::{
    ColumnCount, Grid, LinkItem, Links, RowSummary, StateBand, StateSpan, Summary, VarSpan,
};

const MAGIC: &[u8; 4] = b"TRVS";
const VERSION: u32 = 1;

/// Bytes being written.
#[derive(Default)]
struct Out(Vec<u8>);

impl Out {
    fn u8(&mut self, x: u8) {
        self.0.push(x);
    }
    fn u32(&mut self, x: u32) {
        self.0.extend_from_slice(&x.to_le_bytes());
    }
    fn u64(&mut self, x: u64) {
        self.0.extend_from_slice(&x.to_le_bytes());
    }
    fn f64(&mut self, x: f64) {
        self.0.extend_from_slice(&x.to_le_bytes());
    }
    fn len(&mut self, n: usize) {
        self.u32(n as u32);
    }
    fn counts(&mut self, c: &[ColumnCount]) {
        self.len(c.len());
        for x in c {
            self.u32(x.x);
            self.u32(x.count);
        }
    }
}

/// Bytes being read from a stream; `None` past its end or on an error.
struct In<R>(R);

/// At most this many items in a list (a damaged length is refused before
/// it allocates).
const MAX_ITEMS: usize = 1 << 28;

impl<R: std::io::Read> In<R> {
    fn take<const N: usize>(&mut self) -> Option<[u8; N]> {
        let mut b = [0u8; N];
        self.0.read_exact(&mut b).ok()?;
        Some(b)
    }
    fn u8(&mut self) -> Option<u8> {
        Some(self.take::<1>()?[0])
    }
    fn u32(&mut self) -> Option<u32> {
        Some(u32::from_le_bytes(self.take()?))
    }
    fn u64(&mut self) -> Option<u64> {
        Some(u64::from_le_bytes(self.take()?))
    }
    fn f64(&mut self) -> Option<f64> {
        Some(f64::from_le_bytes(self.take()?))
    }
    /// A list's length.
    fn len(&mut self) -> Option<usize> {
        let n = self.u32()? as usize;
        (n <= MAX_ITEMS).then_some(n)
    }
    fn counts(&mut self) -> Option<Vec<ColumnCount>> {
        let n = self.len()?;
        let mut v = Vec::with_capacity(n.min(1 << 16));
        for _ in 0..n {
            v.push(ColumnCount {
                x: self.u32()?,
                count: self.u32()?,
            });
        }
        Some(v)
    }
    /// Whether the stream has ended.
    fn at_end(&mut self) -> bool {
        let mut b = [0u8; 1];
        matches!(self.0.read(&mut b), Ok(0))
    }
}

fn kind_code(k: TypeKind) -> u8 {
    match k {
        TypeKind::Container => 0,
        TypeKind::State => 1,
        TypeKind::Event => 2,
        TypeKind::Variable => 3,
        TypeKind::Link => 4,
    }
}

fn kind_of(code: u8) -> Option<TypeKind> {
    Some(match code {
        0 => TypeKind::Container,
        1 => TypeKind::State,
        2 => TypeKind::Event,
        3 => TypeKind::Variable,
        4 => TypeKind::Link,
        _ => return None,
    })
}

/// The bytes of `g`, for a `.ptb` of `size` bytes and `events` events.
pub fn encode(g: &Gathered, size: u64, events: u64) -> Vec<u8> {
    let mut o = Out::default();
    let m = &g.reference.model;
    o.len(m.lists.len());
    for l in &m.lists {
        o.u32(l.container.0);
        o.u32(l.ty.0);
        o.u8(kind_code(l.kind));
    }
    let s = &g.base;
    o.f64(s.grid.t0);
    o.f64(s.grid.t1);
    o.u32(s.grid.width);
    o.u8(u8::from(s.grid.widened));
    o.len(s.rows.len());
    for r in &s.rows {
        o.len(r.states.len());
        for b in &r.states {
            o.u32(b.list.0);
            o.len(b.levels.len());
            for level in &b.levels {
                o.len(level.len());
                for x in level {
                    o.u32(x.x0);
                    o.u32(x.x1);
                    o.u32(x.value.0);
                    o.u32(x.count);
                    o.u8(u8::from(x.mixed));
                }
            }
        }
        o.counts(&r.events);
        o.len(r.variable.len());
        for v in &r.variable {
            o.u32(v.x0);
            o.u32(v.x1);
            o.f64(v.min);
            o.f64(v.max);
            o.f64(v.last);
        }
        o.counts(&r.sent);
        o.counts(&r.received);
        o.u64(r.links);
    }
    let l = &s.links;
    o.u64(l.total);
    o.u64(l.dense);
    o.u64(l.unplaced);
    o.len(l.each.len());
    for k in &l.each {
        o.u32(k.list.0);
        o.u32(k.index);
        o.u32(k.from);
        o.u32(k.to);
        o.f64(k.start);
        o.f64(k.end);
        o.u32(k.value.0);
    }
    o.len(g.tally.len());
    for t in &g.tally {
        o.u64(t.0);
        o.u8(u8::from(t.1));
    }
    let mut pairs: Vec<_> = g.pairs.iter().collect();
    pairs.sort_by_key(|p| (p.0 .0 .0, p.0 .1 .0, p.0 .2 .0));
    o.len(pairs.len());
    for ((t, a, b), n) in pairs {
        o.u32(t.0);
        o.u32(a.0);
        o.u32(b.0);
        o.u64(*n);
    }
    let mut with: Vec<u32> = g.with_states.iter().map(|c| c.0).collect();
    with.sort_unstable();
    o.len(with.len());
    with.into_iter().for_each(|c| o.u32(c));
    let c = &g.counts;
    for n in [c.containers, c.states, c.events, c.variables, c.links] {
        o.u64(n as u64);
    }
    o.f64(g.span.0);
    o.f64(g.span.1);
    o.len(g.stretches.len());
    for sl in &g.stretches {
        o.f64(sl.t0);
        o.f64(sl.t1);
        let ids: Vec<u32> = (0..sl.values.len() as u32)
            .filter(|v| sl.values[*v as usize])
            .collect();
        o.len(ids.len());
        ids.into_iter().for_each(|v| o.u32(v));
    }
    let body = zstd::bulk::compress(&o.0, 3).unwrap_or_default();
    let mut file = Vec::with_capacity(body.len() + 24);
    file.extend_from_slice(MAGIC);
    file.extend_from_slice(&VERSION.to_le_bytes());
    file.extend_from_slice(&size.to_le_bytes());
    file.extend_from_slice(&events.to_le_bytes());
    file.extend_from_slice(&body);
    file
}

/// What `bytes` saved for a `.ptb` of `size` bytes and `events` events,
/// with `model` (the model of any window of it); `None` when they are not
/// that, whole and consistent.
pub fn decode(bytes: &[u8], size: u64, events: u64, model: Trace) -> Option<Gathered> {
    let head = bytes.get(..24)?;
    if &head[..4] != MAGIC
        || head[4..8] != VERSION.to_le_bytes()
        || head[8..16] != size.to_le_bytes()
        || head[16..24] != events.to_le_bytes()
    {
        return None;
    }
    let mut i = In(std::io::BufReader::with_capacity(
        1 << 16,
        zstd::stream::Decoder::new(&bytes[24..]).ok()?,
    ));
    let mut reference = model;
    let nc = reference.model.containers.len() as u32;
    let nt = reference.model.types.len() as u32;
    let nv = reference.model.values.len() as u32;
    reference.model.lists.clear();
    for c in &mut reference.model.containers {
        c.lists.clear();
    }
    read_lists(&mut i, &mut reference.model, nc, nt)?;
    let nl = reference.model.lists.len() as u32;
    reference.lists = vec![Default::default(); nl as usize];
    let rows = crate::rows(&reference, None);
    let grid = Grid {
        t0: i.f64()?,
        t1: i.f64()?,
        width: i.u32()?,
        widened: i.u8()? != 0,
    };
    if i.len()? != rows.len() {
        return None;
    }
    let mut out_rows = Vec::with_capacity(rows.len());
    for row in &rows {
        out_rows.push(read_row(&mut i, *row, nl, nv)?);
    }
    let links = read_links(&mut i, rows.len(), nv)?;
    let tally = (0..i.len()?)
        .map(|_| Some((i.u64()?, i.u8()? != 0)))
        .collect::<Option<Vec<_>>>()?;
    let mut pairs = HashMap::new();
    for _ in 0..i.len()? {
        let (t, a, b, n) = (i.u32()?, i.u32()?, i.u32()?, i.u64()?);
        if t >= nt || a >= nc || b >= nc {
            return None;
        }
        pairs.insert((TypeId(t), ContainerId(a), ContainerId(b)), n);
    }
    let mut with_states = HashSet::new();
    for _ in 0..i.len()? {
        let c = i.u32()?;
        if c >= nc {
            return None;
        }
        with_states.insert(ContainerId(c));
    }
    let mut n = || Some(i.u64()? as usize);
    let counts = Counts {
        containers: n()?,
        states: n()?,
        events: n()?,
        variables: n()?,
        links: n()?,
    };
    let span = (i.f64()?, i.f64()?);
    let mut stretches = Vec::new();
    for _ in 0..i.len()? {
        let (t0, t1) = (i.f64()?, i.f64()?);
        let mut values = vec![false; nv as usize];
        for _ in 0..i.len()? {
            *values.get_mut(i.u32()? as usize)? = true;
        }
        stretches.push(Stretch { t0, t1, values });
    }
    if !i.at_end() {
        return None;
    }
    Some(Gathered {
        reference,
        rows,
        base: Summary {
            grid,
            rows: out_rows,
            links,
        },
        tally,
        pairs,
        with_states,
        counts,
        span,
        stretches,
    })
}

/// Reads the lists of the saved model into `model` (whose lists are
/// empty), `nc` containers and `nt` types in it.
fn read_lists<R: std::io::Read>(
    i: &mut In<R>,
    model: &mut trama_sim::Model,
    nc: u32,
    nt: u32,
) -> Option<()> {
    for id in 0..i.len()? {
        let (container, ty, kind) = (i.u32()?, i.u32()?, kind_of(i.u8()?)?);
        if container >= nc || ty >= nt {
            return None;
        }
        model.lists.push(ListInfo {
            container: ContainerId(container),
            ty: TypeId(ty),
            kind,
        });
        model.containers[container as usize]
            .lists
            .push((TypeId(ty), ListId(id as u32)));
    }
    Some(())
}

/// Reads the summary of `row` (`nl` lists and `nv` values in the model).
fn read_row<R: std::io::Read>(
    i: &mut In<R>,
    row: crate::Row,
    nl: u32,
    nv: u32,
) -> Option<RowSummary> {
    let value = |v: u32| (v < nv).then_some(ValueId(v));
    let mut r = RowSummary::empty(row);
    for _ in 0..i.len()? {
        let list = i.u32()?;
        if list >= nl {
            return None;
        }
        let mut levels = Vec::new();
        for _ in 0..i.len()? {
            let n = i.len()?;
            let mut level = Vec::with_capacity(n.min(1 << 16));
            for _ in 0..n {
                level.push(StateSpan {
                    x0: i.u32()?,
                    x1: i.u32()?,
                    value: value(i.u32()?)?,
                    count: i.u32()?,
                    mixed: i.u8()? != 0,
                });
            }
            levels.push(level);
        }
        r.states.push(StateBand {
            list: ListId(list),
            levels,
        });
    }
    r.events = i.counts()?;
    for _ in 0..i.len()? {
        r.variable.push(VarSpan {
            x0: i.u32()?,
            x1: i.u32()?,
            min: i.f64()?,
            max: i.f64()?,
            last: i.f64()?,
        });
    }
    r.sent = i.counts()?;
    r.received = i.counts()?;
    r.links = i.u64()?;
    Some(r)
}

/// Reads the links of the summary (between `nrows` rows, `nv` values in
/// the model).
fn read_links<R: std::io::Read>(i: &mut In<R>, nrows: usize, nv: u32) -> Option<Links> {
    let value = |v: u32| (v < nv).then_some(ValueId(v));
    let mut links = Links {
        total: i.u64()?,
        dense: i.u64()?,
        unplaced: i.u64()?,
        each: Vec::new(),
    };
    for _ in 0..i.len()? {
        let k = LinkItem {
            list: ListId(i.u32()?),
            index: i.u32()?,
            from: i.u32()?,
            to: i.u32()?,
            start: i.f64()?,
            end: i.f64()?,
            value: value(i.u32()?)?,
        };
        if k.from as usize >= nrows || k.to as usize >= nrows {
            return None;
        }
        links.each.push(k);
    }
    Some(links)
}

/// Writes `bytes` to `path` whole or not at all (a temporary file made
/// beside it, never one that exists, then renamed); a file at `path` that
/// is not a saved summary is left alone. A failure only costs the next
/// view a new first pass.
pub fn write(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    use std::io::{Read, Write};
    if let Ok(mut f) = std::fs::File::open(path) {
        let mut head = [0u8; 4];
        if f.read_exact(&mut head).is_err() || &head != MAGIC {
            return Err(std::io::Error::new(
                std::io::ErrorKind::AlreadyExists,
                format!("{} is not a saved summary: left alone", path.display()),
            ));
        }
    }
    let name = path
        .file_name()
        .map_or("summary".into(), |n| n.to_string_lossy().into_owned());
    let temp = path.with_file_name(format!(".{name}.{}.tmp", std::process::id()));
    let mut file = std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .open(&temp)?;
    file.write_all(bytes)
        .and_then(|()| file.sync_all())
        .and_then(|()| std::fs::rename(&temp, path))
        .inspect_err(|_| {
            let _ = std::fs::remove_file(&temp);
        })
}
