//! A small OTF2 writer for tests, in either byte order: archives with
//! values the library's writers seldom make (big endian, large
//! identifiers, long records, several chunks), and damage of any kind.
#![allow(dead_code)]

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// The smallest chunk size the library accepts.
pub const CHUNK: usize = 256 << 10;

/// Encodes values in one byte order.
#[derive(Clone, Default)]
pub struct Enc {
    pub big: bool,
    pub buf: Vec<u8>,
}

impl Enc {
    pub fn new(big: bool) -> Enc {
        Enc {
            big,
            buf: Vec::new(),
        }
    }
    pub fn u8(&mut self, v: u8) -> &mut Self {
        self.buf.push(v);
        self
    }
    /// A value at full width: its bytes little-endian (`le`) or big-endian
    /// (`be`), as the byte order says.
    fn fixed<const N: usize>(&mut self, le: [u8; N], be: [u8; N]) -> &mut Self {
        self.buf.extend_from_slice(if self.big { &be } else { &le });
        self
    }
    pub fn full(&mut self, v: u64) -> &mut Self {
        self.fixed(v.to_le_bytes(), v.to_be_bytes())
    }
    pub fn full32(&mut self, v: u32) -> &mut Self {
        self.fixed(v.to_le_bytes(), v.to_be_bytes())
    }
    /// A compressed integer of at most `width` bytes.
    fn compressed(&mut self, v: u64, width: usize) -> &mut Self {
        let max = if width == 8 {
            u64::MAX
        } else {
            u32::MAX as u64
        };
        if v == 0 || v == max {
            self.buf.push(v as u8);
            return self;
        }
        let n = (8 - v.leading_zeros() as usize / 8).min(width);
        self.buf.push(n as u8);
        let le = v.to_le_bytes();
        if self.big {
            self.buf.extend(le[..n].iter().rev());
        } else {
            self.buf.extend_from_slice(&le[..n]);
        }
        self
    }
    pub fn u32c(&mut self, v: u32) -> &mut Self {
        self.compressed(v as u64, 4)
    }
    pub fn u64c(&mut self, v: u64) -> &mut Self {
        self.compressed(v, 8)
    }
    /// A compressed signed integer: negative values at full width.
    pub fn i64c(&mut self, v: i64) -> &mut Self {
        if v < 0 {
            self.buf.push(8);
            self.fixed(v.to_le_bytes(), v.to_be_bytes())
        } else {
            self.compressed(v as u64, 8)
        }
    }
    pub fn string(&mut self, s: &str) -> &mut Self {
        self.buf.extend_from_slice(s.as_bytes());
        self.buf.push(0);
        self
    }
    /// A record: its type, its length (one byte, or 0xff and eight), its
    /// body.
    pub fn record(&mut self, id: u8, body: impl FnOnce(&mut Enc)) -> &mut Self {
        let mut e = Enc::new(self.big);
        body(&mut e);
        self.buf.push(id);
        if e.buf.len() < 255 {
            self.buf.push(e.buf.len() as u8);
        } else {
            self.buf.push(0xff);
            self.full(e.buf.len() as u64);
        }
        self.buf.extend_from_slice(&e.buf);
        self
    }
}

fn header(big: bool, first: u64) -> Vec<u8> {
    let mut e = Enc::new(big);
    e.u8(3)
        .u8(if big { 0x23 } else { 0x42 })
        .full(first)
        .full(0);
    e.buf
}

/// Lays `records` (whole records, each with its time) out in chunks of
/// `chunk` bytes: a header and a timestamp open each chunk, a record never
/// crosses a chunk's end, `0x00` pads, `0x02` ends the file.
pub fn chunked(big: bool, chunk: usize, records: &[(Option<u64>, Vec<u8>)]) -> Vec<u8> {
    let mut out = header(big, 1);
    let mut start = 0;
    let mut time: Option<u64> = None;
    for (k, (t, r)) in records.iter().enumerate() {
        let stamp = |t: u64| {
            let mut e = Enc::new(big);
            e.u8(5).full(t);
            e.buf
        };
        let mut need = r.len() + 1;
        if t.is_some() && *t != time {
            need += 9;
        }
        if out.len() + need >= start + chunk {
            out.resize(start + chunk, 0);
            start = out.len();
            out.extend(header(big, k as u64 + 1));
            // One timestamp opens the chunk: the library reads at most
            // one before each record.
            if let Some(now) = t.or(time) {
                out.extend(stamp(now));
                time = Some(now);
            }
        }
        if let Some(t) = *t {
            if Some(t) != time {
                out.extend(stamp(t));
                time = Some(t);
            }
        }
        out.extend_from_slice(r);
    }
    out.push(2);
    out
}

/// An event of the test archives.
#[derive(Clone, Debug)]
pub enum Ev {
    Enter(u32),
    Leave(u32),
    Send {
        to: u32,
        comm: u32,
        tag: u32,
        len: u64,
    },
    Recv {
        from: u32,
        comm: u32,
        tag: u32,
        len: u64,
    },
    /// Metric `m`'s values: (type, bits).
    Metric(u32, Vec<(u8, u64)>),
    /// A record of another type (skipped by readers that do not know it).
    Unknown(u8, Vec<u8>),
}

impl Ev {
    pub fn encode(&self, big: bool) -> Vec<u8> {
        let mut e = Enc::new(big);
        match self {
            Ev::Enter(r) => {
                e.u8(12).u32c(*r);
            }
            Ev::Leave(r) => {
                e.u8(13).u32c(*r);
            }
            Ev::Send { to, comm, tag, len }
            | Ev::Recv {
                from: to,
                comm,
                tag,
                len,
            } => {
                let id = if matches!(self, Ev::Send { .. }) {
                    14
                } else {
                    18
                };
                e.record(id, |b| {
                    b.u32c(*to).u32c(*comm).u32c(*tag).u64c(*len);
                });
            }
            Ev::Metric(m, values) => {
                e.record(31, |b| {
                    b.u32c(*m).u8(values.len() as u8);
                    for &(t, v) in values {
                        b.u8(t).u64c(v);
                    }
                });
            }
            Ev::Unknown(id, body) => {
                e.record(*id, |b| b.buf.extend_from_slice(body));
            }
        }
        e.buf
    }
}

/// A location's events and their times.
pub type Events = Vec<(u64, Ev)>;

/// The content of a test archive.
#[derive(Clone, Debug, Default)]
pub struct Content {
    pub resolution: u64,
    pub offset: u64,
    pub strings: BTreeMap<u32, String>,
    /// (id, name, class, parent)
    pub nodes: Vec<(u32, u32, u32, u32)>,
    /// (id, name, parent node)
    pub groups: Vec<(u32, u32, u32)>,
    /// (id, name, group, events)
    pub locations: Vec<(u64, u32, u32, Events)>,
    /// (id, name)
    pub regions: Vec<(u32, u32)>,
    /// Groups of communicators: (id, name, type, paradigm, members)
    pub comm_groups: Vec<(u32, u32, u8, u8, Vec<u64>)>,
    /// (id, name, group)
    pub comms: Vec<(u32, u32, u32)>,
    /// (id, name, unit, value type)
    pub metric_members: Vec<(u32, u32, u32, u8)>,
    /// (id, members)
    pub metric_classes: Vec<(u32, Vec<u32>)>,
}

/// Writes `c` as the archive `dir/traces.otf2` in the byte order `big`,
/// event chunks of `chunk` bytes; its anchor.
pub fn write(dir: &Path, c: &Content, big: bool, chunk: usize) -> PathBuf {
    std::fs::create_dir_all(dir.join("traces")).unwrap();
    let mut d: Vec<(Option<u64>, Vec<u8>)> = Vec::new();
    let mut rec = |id: u8, f: &dyn Fn(&mut Enc)| {
        let mut e = Enc::new(big);
        e.record(id, f);
        d.push((None, e.buf));
    };
    rec(5, &|e| {
        e.u64c(c.resolution).u64c(c.offset).u64c(0).u64c(u64::MAX);
    });
    for (id, s) in &c.strings {
        rec(10, &|e| {
            e.u32c(*id).string(s);
        });
    }
    for &(id, name, class, parent) in &c.nodes {
        rec(12, &|e| {
            e.u32c(id).u32c(name).u32c(class).u32c(parent);
        });
    }
    for &(id, name, parent) in &c.groups {
        rec(13, &|e| {
            e.u32c(id).u32c(name).u8(1).u32c(parent).u32c(u32::MAX);
        });
    }
    for (id, name, group, events) in &c.locations {
        rec(14, &|e| {
            e.u64c(*id)
                .u32c(*name)
                .u8(1)
                .u64c(events.len() as u64)
                .u32c(*group);
        });
    }
    for &(id, name) in &c.regions {
        rec(15, &|e| {
            e.u32c(id).u32c(name).u32c(0).u8(0).u32c(u32::MAX);
            e.u32c(0).u32c(0).u32c(name).u8(1).u8(1).u32c(0);
        });
    }
    for (id, name, ty, paradigm, members) in &c.comm_groups {
        rec(18, &|e| {
            e.u32c(*id).u32c(*name).u8(0).u32c(members.len() as u32);
            for &m in members {
                e.u64c(m);
            }
            e.u8(*ty).u8(*paradigm).u32c(0);
        });
    }
    for &(id, name, group) in &c.comms {
        rec(22, &|e| {
            e.u32c(id).u32c(name).u32c(group).u32c(u32::MAX).u32c(0);
        });
    }
    for &(id, name, unit, ty) in &c.metric_members {
        rec(19, &|e| {
            e.u32c(id)
                .u32c(name)
                .u32c(0)
                .u8(0)
                .u8(0x11)
                .u8(ty)
                .u8(1)
                .i64c(0)
                .u32c(unit);
        });
    }
    for (id, members) in &c.metric_classes {
        rec(20, &|e| {
            e.u32c(*id).u8(members.len() as u8);
            for &m in members {
                e.u32c(m);
            }
            e.u8(0).u8(0);
        });
    }
    let mut a = Enc::new(big);
    a.u8(3).u8(if big { 0x23 } else { 0x42 });
    a.string("OTF2").u8(3).u8(2).u8(3).u8(0).u8(2);
    a.full(chunk as u64).full(4 << 20).u8(1).u8(1);
    a.full(c.locations.len() as u64).full(d.len() as u64);
    a.string("").string("trama tests").string("");
    a.full32(0).full(42).full32(0).full32(0).u8(2);
    std::fs::write(dir.join("traces.otf2"), &a.buf).unwrap();

    std::fs::write(dir.join("traces.def"), chunked(big, 4 << 20, &d)).unwrap();
    for (id, _, _, events) in &c.locations {
        let recs: Vec<_> = events
            .iter()
            .map(|(t, ev)| (Some(*t), ev.encode(big)))
            .collect();
        let path = dir.join(format!("traces/{id}.evt"));
        std::fs::write(path, chunked(big, chunk, &recs)).unwrap();
    }
    dir.join("traces.otf2")
}

/// A two-process archive: regions nested on each location, messages both
/// ways, metrics of three value types (with a record of more than 255
/// bytes), records of unknown types, identifiers past one byte.
pub fn sample(pairs: u64) -> Content {
    let mut c = Content {
        resolution: 1_000_000_000,
        offset: 5_000_000_000,
        ..Content::default()
    };
    let names = [
        "",
        "machine",
        "node",
        "host A",
        "rank 0",
        "rank 1",
        "main",
        "work",
        "MPI_Send",
        "MPI_Recv",
        "world",
        "locations",
        "ranks",
        "counter",
        "temperature",
        "delta",
        "thread",
    ];
    for (i, n) in names.iter().enumerate() {
        c.strings.insert(i as u32, n.to_string());
    }
    c.nodes.push((7, 3, 2, u32::MAX));
    c.groups.push((0, 4, 7));
    c.groups.push((1, 5, 7));
    // Region identifiers past one byte, and past two.
    c.regions = vec![(300, 6), (70_000, 7), (1, 8), (2, 9)];
    c.comm_groups.push((0, 11, 4, 4, vec![1 << 33, 5]));
    c.comm_groups.push((1, 12, 5, 4, vec![0, 1]));
    c.comms.push((3, 10, 1));
    c.metric_members = vec![(0, 13, 0, 4), (1, 14, 0, 10), (2, 15, 0, 8)];
    c.metric_classes.push((9, vec![0, 1, 2]));
    // 26 members: a record longer than 255 bytes.
    let mut many = vec![2u32; 26];
    many[0] = 0;
    c.metric_classes.push((10, many));
    let base = c.offset + (1u64 << 33);
    let mut a = vec![(base, Ev::Enter(300))];
    let mut b = vec![(base + 1, Ev::Enter(300))];
    for i in 0..pairs {
        let t = base + 100 * (i + 1);
        a.push((t, Ev::Enter(70_000)));
        a.push((t + 10, Ev::Enter(1)));
        a.push((
            t + 11,
            Ev::Send {
                to: 1,
                comm: 3,
                tag: u32::MAX,
                len: 1 << 40,
            },
        ));
        a.push((t + 12, Ev::Leave(1)));
        a.push((
            t + 20,
            Ev::Metric(
                9,
                vec![
                    (4, i),
                    (10, (i as f64 + 0.25).to_bits()),
                    (8, (-(i as i64) - 3) as u64),
                ],
            ),
        ));
        a.push((t + 20, Ev::Unknown(200, vec![1, 2, 3])));
        a.push((t + 30, Ev::Leave(70_000)));
        b.push((t + 15, Ev::Enter(2)));
        b.push((
            t + 16,
            Ev::Recv {
                from: 0,
                comm: 3,
                tag: u32::MAX,
                len: 1 << 40,
            },
        ));
        b.push((t + 17, Ev::Leave(2)));
        if i % 100 == 0 {
            let mut v = vec![(4, u64::MAX)];
            v.extend((0..25).map(|k| (8, (-(k as i64)) as u64)));
            b.push((t + 18, Ev::Metric(10, v)));
        }
    }
    let end = base + 100 * (pairs + 2);
    a.push((end, Ev::Leave(300)));
    b.push((end + 1, Ev::Leave(300)));
    c.locations.push((1 << 33, 16, 0, a));
    c.locations.push((5, 16, 1, b));
    c
}

/// Each location's events as trama reads them: (name, location, time).
pub fn by_location(anchor: &Path) -> BTreeMap<u64, Vec<trama_gen::otf2::Printed>> {
    let a = trama_otf2::Archive::open(anchor).unwrap();
    let mut out = BTreeMap::new();
    for (i, l) in a.definitions().locations.iter().enumerate() {
        let mut r = a.events(i).unwrap();
        let mut v = Vec::new();
        while let Some(e) = r.next_event().unwrap() {
            v.push(trama_gen::otf2::Printed {
                name: trama_otf2::records::event_name(e.record)
                    .unwrap_or("UNKNOWN")
                    .to_string(),
                location: l.id,
                time: e.time,
            });
        }
        out.insert(l.id, v);
    }
    out
}

/// Checks that trama reads each location's records as `otf2-print` shows
/// them (same types, same timestamps, same order), and the merged order's
/// times; the number of events.
pub fn same_as_otf2_print(anchor: &Path) -> usize {
    let printed = trama_gen::otf2::print_events(anchor);
    let mut ours = by_location(anchor);
    ours.retain(|_, v| !v.is_empty());
    let mut theirs: BTreeMap<u64, Vec<trama_gen::otf2::Printed>> = BTreeMap::new();
    for e in &printed {
        theirs.entry(e.location).or_default().push(e.clone());
    }
    assert_eq!(
        ours.keys().collect::<Vec<_>>(),
        theirs.keys().collect::<Vec<_>>(),
        "locations with events"
    );
    let mut n = 0;
    for (loc, want) in &theirs {
        let got = &ours[loc];
        assert_eq!(got.len(), want.len(), "location {loc}: events");
        for (k, (g, w)) in got.iter().zip(want).enumerate() {
            assert_eq!(g, w, "location {loc}, event {k}");
        }
        n += got.len();
    }
    let a = trama_otf2::Archive::open(anchor).unwrap();
    let mut m = a.merged().unwrap();
    let mut times = Vec::new();
    while let Some((_, e)) = m.next_event().unwrap() {
        times.push(e.time);
    }
    let printed: Vec<u64> = printed.iter().map(|e| e.time).collect();
    assert_eq!(times, printed, "merged times");
    n
}
