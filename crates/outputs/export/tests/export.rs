//! The exports read back and compared with what `trama dump` reports of
//! the same trace: the PajeNG conformance cases and the real samples of
//! `../shared` (Pajé from SimGrid and StarPU, OTF2, Paraver).
//!
//! Perfetto: a small protobuf decoder (below) rebuilds each track's slices
//! (name, category, start, end, depth from the begins and ends in file
//! order, which must be in time order and nested on each track), instants,
//! flows and counters; the output decodes with `protoc --decode_raw`
//! (Debian's `protobuf-compiler`; without it a note, unless
//! `TRAMA_REQUIRE_PROTOC=1`, set by `.ci/run`). Chrome JSON: parsed with
//! serde_json, its events counted per kind.
//!
//! Without the shared folder the tests print a note and pass, unless
//! `TRAMA_REQUIRE_SHARED=1`.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::process::Command;

use trama_dump::{dump_trace, DumpOptions};
use trama_export::chrome::ChromeWriter;
use trama_export::perfetto::PerfettoWriter;
use trama_export::ExportOptions;
use trama_open::{LoadOptions, Source};

// ---------------------------------------------------------------- protobuf

#[derive(Clone, Copy, Debug)]
enum Val<'a> {
    Varint(u64),
    I64(u64),
    Len(&'a [u8]),
    I32,
}

fn varint(b: &[u8], i: &mut usize) -> Result<u64, String> {
    let mut v = 0u64;
    for shift in (0..70).step_by(7) {
        let Some(&x) = b.get(*i) else {
            return Err("varint cut".into());
        };
        *i += 1;
        v |= u64::from(x & 0x7f) << shift;
        if x < 0x80 {
            return Ok(v);
        }
    }
    Err("varint too long".into())
}

fn fields(b: &[u8]) -> Result<Vec<(u32, Val<'_>)>, String> {
    let mut out = Vec::new();
    let mut i = 0;
    while i < b.len() {
        let key = varint(b, &mut i)?;
        let (field, wire) = ((key >> 3) as u32, key & 7);
        let v = match wire {
            0 => Val::Varint(varint(b, &mut i)?),
            1 => {
                let s = b.get(i..i + 8).ok_or("fixed64 cut")?;
                i += 8;
                Val::I64(u64::from_le_bytes(s.try_into().unwrap()))
            }
            2 => {
                let n = varint(b, &mut i)? as usize;
                let s = b.get(i..i + n).ok_or("length-delimited field cut")?;
                i += n;
                Val::Len(s)
            }
            5 => {
                let s = b.get(i..i + 4).ok_or("fixed32 cut")?;
                i += 4;
                {
                    let _ = s;
                    Val::I32
                }
            }
            w => return Err(format!("wire type {w}")),
        };
        out.push((field, v));
    }
    Ok(out)
}

fn uint(f: &[(u32, Val)], n: u32) -> Option<u64> {
    f.iter().rev().find_map(|(k, v)| match v {
        Val::Varint(x) if *k == n => Some(*x),
        _ => None,
    })
}

fn fixed(f: &[(u32, Val)], n: u32) -> Option<u64> {
    f.iter().find_map(|(k, v)| match v {
        Val::I64(x) if *k == n => Some(*x),
        _ => None,
    })
}

fn len<'a>(f: &[(u32, Val<'a>)], n: u32) -> Option<&'a [u8]> {
    f.iter().rev().find_map(|(k, v)| match v {
        Val::Len(x) if *k == n => Some(*x),
        _ => None,
    })
}

fn text(b: &[u8]) -> String {
    String::from_utf8(b.to_vec()).expect("UTF-8 names")
}

#[derive(Debug, Default)]
struct Track {
    name: String,
    parent: Option<u64>,
    counter: bool,
    group: bool,
}

#[derive(Debug)]
struct Slice {
    track: u64,
    name: String,
    cat: String,
    start: i64,
    end: i64,
    depth: usize,
}

#[derive(Debug)]
struct Instant {
    track: u64,
    name: String,
    cat: String,
    ts: i64,
    flow_start: Option<u64>,
    flow_end: Option<u64>,
}

/// What a Perfetto trace holds, rebuilt as its reader would.
#[derive(Debug, Default)]
struct Perfetto {
    tracks: HashMap<u64, Track>,
    slices: Vec<Slice>,
    instants: Vec<Instant>,
    counters: Vec<(u64, i64, f64)>,
    /// The sequences packets are on.
    sequences: usize,
}

impl Perfetto {
    /// The name of the container (parent) of a track.
    fn holder(&self, track: u64) -> String {
        let t = &self.tracks[&track];
        t.parent
            .map(|p| self.tracks[&p].name.clone())
            .unwrap_or_default()
    }
}

/// Decodes a trace, checking what Perfetto requires: the first sequence's
/// first packet clears the incremental state, names are interned on it
/// only (other sequences name events in full), interned names defined
/// before use, tracks declared before use, each sequence's timestamps in
/// order (never decreasing), and on each track slice begins and ends in
/// time order and nested.
fn decode(b: &[u8]) -> Result<Perfetto, String> {
    let mut p = Perfetto::default();
    let mut names: HashMap<u64, String> = HashMap::new();
    let mut cats: HashMap<u64, String> = HashMap::new();
    let mut open: HashMap<u64, Vec<(String, String, i64)>> = HashMap::new();
    let mut last: HashMap<u64, i64> = HashMap::new();
    let mut sequences: HashMap<u64, i64> = HashMap::new();
    let mut first = true;
    for (n, v) in fields(b)? {
        let (1, Val::Len(pkt)) = (n, v) else {
            return Err(format!("field {n} in Trace"));
        };
        let f = fields(pkt)?;
        let seq = uint(&f, 10).ok_or("packet without a sequence id")?;
        let main = seq == trama_export::perfetto::SEQUENCE_ID;
        if seq < trama_export::perfetto::SEQUENCE_ID {
            return Err(format!("sequence id {seq}"));
        }
        let flags = uint(&f, 13).unwrap_or(0);
        if first && (!main || flags & 1 == 0) {
            return Err("first packet does not clear the incremental state".into());
        }
        first = false;
        if let Some(ts) = uint(&f, 8) {
            let ts = ts as i64;
            if let Some(&l) = sequences.get(&seq).filter(|&&l| l > ts) {
                return Err(format!("sequence {seq:#x}: timestamp {ts} after {l}"));
            }
            sequences.insert(seq, ts);
        }
        if !main && len(&f, 12).is_some() {
            return Err(format!("interned data on sequence {seq:#x}"));
        }
        if let Some(i) = len(&f, 12) {
            for (k, v) in fields(i)? {
                let Val::Len(e) = v else { continue };
                let e = fields(e)?;
                let iid = uint(&e, 1).ok_or("iid")?;
                let name = text(len(&e, 2).ok_or("interned name")?);
                match k {
                    1 => cats.insert(iid, name),
                    2 => names.insert(iid, name),
                    _ => return Err(format!("interned field {k}")),
                };
            }
        }
        if let Some(d) = len(&f, 60) {
            let d = fields(d)?;
            let uuid = uint(&d, 1).ok_or("track without uuid")?;
            let parent = uint(&d, 5);
            if let Some(q) = parent {
                if !p.tracks.contains_key(&q) {
                    return Err(format!("track {uuid:x} declared before its parent"));
                }
            }
            let t = Track {
                name: text(len(&d, 2).ok_or("track without name")?),
                parent,
                counter: len(&d, 8).is_some(),
                group: uint(&d, 11) == Some(3),
            };
            if p.tracks.insert(uuid, t).is_some() {
                return Err(format!("track {uuid:x} declared twice"));
            }
        }
        if let Some(e) = len(&f, 11) {
            let ts = uint(&f, 8).ok_or("track event without timestamp")? as i64;
            let e = fields(e)?;
            if (uint(&e, 10).is_some() || uint(&e, 3).is_some()) && (!main || flags & 2 == 0) {
                return Err("interned names without SEQ_NEEDS_INCREMENTAL_STATE".into());
            }
            let track = uint(&e, 11).ok_or("event without track")?;
            let Some(t) = p.tracks.get(&track) else {
                return Err(format!("event on undeclared track {track:x}"));
            };
            let name = || -> Result<String, String> {
                if let Some(name) = len(&e, 23) {
                    return Ok(text(name));
                }
                let iid = uint(&e, 10).ok_or("event without name")?;
                names
                    .get(&iid)
                    .cloned()
                    .ok_or_else(|| format!("name iid {iid} not interned"))
            };
            let cat = || -> Result<String, String> {
                if let Some(cat) = len(&e, 22) {
                    return Ok(text(cat));
                }
                let iid = uint(&e, 3).ok_or("event without category")?;
                cats.get(&iid)
                    .cloned()
                    .ok_or_else(|| format!("category iid {iid} not interned"))
            };
            match uint(&e, 9) {
                Some(1) | Some(2) => {
                    if t.counter {
                        return Err("slice on a counter track".into());
                    }
                    if last.get(&track).is_some_and(|&l| l > ts) {
                        return Err(format!(
                            "track '{}': slice event at {ts} after {}",
                            t.name, last[&track]
                        ));
                    }
                    last.insert(track, ts);
                    let stack = open.entry(track).or_default();
                    if uint(&e, 9) == Some(1) {
                        stack.push((name()?, cat()?, ts));
                    } else {
                        let (name, cat, start) = stack
                            .pop()
                            .ok_or_else(|| format!("track '{}': end with no slice open", t.name))?;
                        p.slices.push(Slice {
                            track,
                            name,
                            cat,
                            start,
                            end: ts,
                            depth: stack.len(),
                        });
                    }
                }
                Some(3) => p.instants.push(Instant {
                    track,
                    name: name()?,
                    cat: cat()?,
                    ts,
                    flow_start: fixed(&e, 47),
                    flow_end: fixed(&e, 48),
                }),
                Some(4) => {
                    if !t.counter {
                        return Err("counter value on a track that is not a counter".into());
                    }
                    let v = fixed(&e, 44).ok_or("counter without double_counter_value")?;
                    p.counters.push((track, ts, f64::from_bits(v)));
                }
                k => return Err(format!("event type {k:?}")),
            }
        }
    }
    if let Some((t, s)) = open.iter().find(|(_, s)| !s.is_empty()) {
        return Err(format!("{} slices left open on track {t:x}", s.len()));
    }
    p.sequences = sequences.len();
    Ok(p)
}

// ---------------------------------------------------------------- expected

fn unquote(s: &str) -> String {
    s.strip_prefix('"')
        .and_then(|x| x.strip_suffix('"'))
        .unwrap_or(s)
        .to_string()
}

/// A time printed with 9 decimals, in nanoseconds.
fn ns(s: &str) -> i64 {
    let (neg, s) = s.strip_prefix('-').map_or((false, s), |x| (true, x));
    let (i, f) = s.split_once('.').expect("9 decimals");
    assert_eq!(f.len(), 9, "{s}");
    let v = i.parse::<i64>().unwrap() * 1_000_000_000 + f.parse::<i64>().unwrap();
    if neg {
        -v
    } else {
        v
    }
}

/// What is compared: names, then times in nanoseconds.
type Row = (Vec<String>, Vec<i64>);

#[derive(Debug, Default)]
struct Expected {
    containers: Vec<String>,
    states: Vec<Row>,
    events: Vec<Row>,
    variables: Vec<Row>,
    links: Vec<Row>,
}

/// What `trama dump` (9 decimals) reports of `path`.
fn expected(path: &Path, opts: &LoadOptions) -> Option<Expected> {
    let trace = trama_open::load(&Source::Path(path.to_path_buf()), opts).ok()?;
    let mut d = DumpOptions::default();
    d.precision = 9;
    let mut out = Vec::new();
    dump_trace(&trace, &d, &mut out).unwrap();
    let m = &trace.model;
    let names = |ids: Vec<trama_sim::StrId>| -> std::collections::HashSet<String> {
        ids.into_iter()
            .map(|i| String::from_utf8_lossy(m.str(i)).into_owned())
            .collect()
    };
    let containers = names(m.containers.iter().map(|c| c.name).collect());
    let types = names(m.types.iter().map(|t| t.name).collect());
    let values = names(m.values.iter().map(|v| v.name).collect());
    let mut x = Expected::default();
    for line in String::from_utf8_lossy(&out).lines() {
        // Names may hold ", ": each is the shortest run of words that is
        // a name of its kind.
        let mut f: Vec<&str> = line.split(", ").collect();
        let kind = f.remove(0);
        let mut words = f.into_iter();
        let name = |set: &std::collections::HashSet<String>,
                    words: &mut std::vec::IntoIter<&str>| {
            let mut n = words.next().unwrap_or_default().to_string();
            while !set.contains(&n) {
                let Some(w) = words.next() else {
                    panic!("{}: no name in {line}", path.display())
                };
                n = format!("{n}, {w}");
            }
            unquote(&n)
        };
        if kind == "Container" {
            name(&containers, &mut words);
            name(&types, &mut words);
            let rest: Vec<&str> = words.collect();
            x.containers.push(unquote(&rest[3..].join(", ")));
            continue;
        }
        let c = name(&containers, &mut words);
        let t = name(&types, &mut words);
        let mut num = || words.next().unwrap().to_string();
        match kind {
            "State" => {
                let (a, b, _, l) = (num(), num(), num(), num());
                let v = unquote(&words.collect::<Vec<_>>().join(", "));
                // A state ending before its start (PajeNG's -a, a trace
                // whose end time is 0) ends at a time the writer chooses.
                let (a, b) = (ns(&a), ns(&b));
                x.states
                    .push((vec![c, t, l, v], vec![a, if b < a { ANY } else { b }]));
            }
            "Event" => {
                let a = num();
                let v = unquote(&words.collect::<Vec<_>>().join(", "));
                x.events.push((vec![c, t, v], vec![ns(&a)]));
            }
            "Variable" => {
                let (a, _, _, v) = (num(), num(), num(), num());
                x.variables.push((vec![c, t, v], vec![ns(&a)]));
            }
            "Link" => {
                let (a, b, _) = (num(), num(), num());
                let v = name(&values, &mut words);
                let from = name(&containers, &mut words);
                let to = name(&containers, &mut words);
                x.links.push((vec![t, v, from, to], vec![ns(&a), ns(&b)]));
            }
            _ => panic!("{}: {line}", path.display()),
        }
    }
    Some(x)
}

/// A time not compared.
const ANY: i64 = i64::MIN;

/// Compares rows sorted, times within a nanosecond (the dump prints the
/// exact decimal of each time, the export rounds it times 1e9).
fn same(what: &str, mut got: Vec<Row>, mut want: Vec<Row>) -> Result<(), String> {
    if got.len() != want.len() {
        return Err(format!(
            "{what}: {} exported, {} dumped",
            got.len(),
            want.len()
        ));
    }
    got.sort();
    want.sort();
    for (g, w) in got.iter().zip(&want) {
        if g.0 != w.0
            || g.1
                .iter()
                .zip(&w.1)
                .any(|(&a, &b)| b != ANY && (a - b).abs() > 1)
        {
            return Err(format!("{what}: exported {g:?}, dumped {w:?}"));
        }
    }
    Ok(())
}

fn compare(p: &Perfetto, x: &Expected) -> Result<(), String> {
    let states = p
        .slices
        .iter()
        .map(|s| {
            if s.cat != p.tracks[&s.track].name {
                return Err(format!(
                    "slice '{}' of category '{}' on track '{}'",
                    s.name, s.cat, p.tracks[&s.track].name
                ));
            }
            Ok((
                vec![
                    p.holder(s.track),
                    s.cat.clone(),
                    format!("{:.9}", s.depth as f64),
                    s.name.clone(),
                ],
                vec![s.start, s.end],
            ))
        })
        .collect::<Result<Vec<_>, String>>()?;
    same("states", states, x.states.clone())?;
    let plain = p
        .instants
        .iter()
        .filter(|i| i.flow_start.is_none() && i.flow_end.is_none());
    let events = plain
        .map(|i| {
            (
                vec![p.holder(i.track), i.cat.clone(), i.name.clone()],
                vec![i.ts],
            )
        })
        .collect();
    same("events", events, x.events.clone())?;
    let variables = p
        .counters
        .iter()
        .map(|&(t, ts, v)| {
            (
                vec![p.holder(t), p.tracks[&t].name.clone(), format!("{v:.9}")],
                vec![ts],
            )
        })
        .collect();
    same("variables", variables, x.variables.clone())?;
    let mut ends: HashMap<u64, &Instant> = HashMap::new();
    for i in &p.instants {
        if let Some(id) = i.flow_end {
            if ends.insert(id, i).is_some() {
                return Err(format!("flow {id} ends twice"));
            }
        }
    }
    let mut links = Vec::new();
    for a in p.instants.iter().filter(|i| i.flow_start.is_some()) {
        let id = a.flow_start.unwrap();
        let b = ends
            .remove(&id)
            .ok_or_else(|| format!("flow {id} never ends"))?;
        if (&a.name, &a.cat) != (&b.name, &b.cat) || p.tracks[&a.track].name != a.cat {
            return Err(format!(
                "flow {id}: ends differ or not on their type's track"
            ));
        }
        links.push((
            vec![
                a.cat.clone(),
                a.name.clone(),
                p.holder(a.track),
                p.holder(b.track),
            ],
            vec![a.ts, b.ts],
        ));
    }
    if !ends.is_empty() {
        return Err(format!("{} flows end without a start", ends.len()));
    }
    same("links", links, x.links.clone())?;
    // Every container is a track (names "0" aside: the root's, and the
    // track of what it holds).
    let mut got: Vec<String> = p
        .tracks
        .values()
        .filter(|t| t.group && t.name != "0")
        .map(|t| t.name.clone())
        .collect();
    let mut want = x.containers.clone();
    got.sort();
    want.sort();
    want.retain(|c| c != "0");
    if got != want {
        return Err(format!("container tracks {got:?}, containers {want:?}"));
    }
    Ok(())
}

// ---------------------------------------------------------------- running

fn export_perfetto(path: &Path, opts: &LoadOptions) -> Vec<u8> {
    let mut o = ExportOptions::default();
    o.name = "0".into();
    let done = trama_open::simulate_into(
        &Source::Path(path.into()),
        PerfettoWriter::new(Vec::new(), &o),
        opts,
    )
    .unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    done.sink.finish().unwrap()
}

fn export_chrome(path: &Path, opts: &LoadOptions) -> Vec<u8> {
    let o = ExportOptions::default();
    let done = trama_open::simulate_into(
        &Source::Path(path.into()),
        ChromeWriter::new(Vec::new(), &o),
        opts,
    )
    .unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    done.sink.finish().unwrap()
}

/// The traces checked: every conformance trace PajeNG accepts (read with
/// the default options), the real samples.
fn traces() -> Option<Vec<PathBuf>> {
    let shared = trama_testkit::shared::find("conformance/pajeng/MANIFEST.tsv", "export tests")?;
    let dir = shared.join("conformance/pajeng");
    let manifest = std::fs::read_to_string(dir.join("MANIFEST.tsv")).unwrap();
    let mut v: Vec<PathBuf> = Vec::new();
    for l in manifest.lines().skip(1) {
        let f: Vec<&str> = l.split('\t').collect();
        if f.len() >= 5 && f[3] == "0" && !l.contains("undefined-behaviour") {
            let p = dir.join(f[1]);
            if !v.contains(&p) {
                v.push(p);
            }
        }
    }
    let s = shared.join("samples");
    for rel in [
        "paje-real/simgrid/s4u-trace-platform.paje",
        "paje-real/simgrid/s4u-trace-process-migration.paje",
        "paje-real/simgrid/smpi-replay.paje",
        "paje-real/simgrid/pajengr-simgrid-3.20.90-masterworkers.trace",
        "paje-real/starpu/starvz-lu_test-header-only-paje.trace",
        "otf2/apex-phylanx/APEX.otf2",
        "paraver/folding-bt.B/bt.B.models.prv",
        "paraver/profet-test1/test1.prv",
    ] {
        v.push(s.join(rel));
    }
    Some(v)
}

#[test]
fn perfetto_matches_the_dump() {
    let Some(traces) = traces() else { return };
    let opts = LoadOptions::default();
    let (mut checked, mut failures) = (0, Vec::new());
    for path in &traces {
        let Some(x) = expected(path, &opts) else {
            // Conformance cases whose verdict needs pj_dump's options are
            // skipped; the real samples must read.
            assert!(
                !path.to_string_lossy().contains("samples"),
                "{} does not read",
                path.display()
            );
            continue;
        };
        let bytes = export_perfetto(path, &opts);
        match decode(&bytes).and_then(|p| compare(&p, &x)) {
            Ok(()) => checked += 1,
            Err(e) => failures.push(format!("{}: {e}", path.display())),
        }
    }
    assert!(
        failures.is_empty(),
        "{} failed:\n{}",
        failures.len(),
        failures.join("\n")
    );
    assert!(checked >= 40, "only {checked} traces checked");
}

/// Checks the Chrome JSON of `path` against its dump `x`: it parses, has
/// as many events of each kind, on each thread (pid, tid) and counter
/// (pid, name) its events are in time order, and every "E" closes a "B"
/// at or before it.
fn check_chrome(path: &Path, x: &Expected, opts: &LoadOptions) -> Result<(), String> {
    let bytes = export_chrome(path, opts);
    let v: serde_json::Value =
        serde_json::from_slice(&bytes).map_err(|e| format!("not JSON: {e}"))?;
    let mut count: HashMap<String, usize> = HashMap::new();
    let mut stacks: HashMap<(u64, u64), (Vec<f64>, f64)> = HashMap::new();
    let mut sequences: HashMap<String, f64> = HashMap::new();
    for e in v["traceEvents"].as_array().ok_or("no traceEvents")? {
        let ph = e["ph"].as_str().ok_or("event without ph")?.to_string();
        let at = (
            e["pid"].as_u64().ok_or("no pid")?,
            e["tid"].as_u64().unwrap_or(0),
        );
        if let Some(ts) = e["ts"].as_f64() {
            let seq = match ph.as_str() {
                "C" => format!("{} {}", at.0, e["name"]),
                _ => format!("{at:?}"),
            };
            let last = sequences.entry(seq).or_insert(f64::NEG_INFINITY);
            if ts < *last {
                return Err(format!("{e} after {last} on its thread"));
            }
            *last = ts;
        }
        if ph == "B" || ph == "E" {
            let ts = e["ts"].as_f64().ok_or("no ts")?;
            let (stack, last) = stacks.entry(at).or_insert((Vec::new(), f64::NEG_INFINITY));
            if ts < *last {
                return Err(format!("thread {at:?}: {e} after {last}"));
            }
            *last = ts;
            if ph == "B" {
                stack.push(ts);
            } else if stack.pop().is_none() {
                return Err(format!("E without its B: {e}"));
            }
        }
        *count.entry(ph).or_default() += 1;
    }
    if stacks.values().any(|s| !s.0.is_empty()) {
        return Err("B left open".into());
    }
    let n = |k: &str| count.get(k).copied().unwrap_or(0);
    let want = [
        ("B", x.states.len()),
        ("E", x.states.len()),
        ("i", x.events.len()),
        ("C", x.variables.len()),
        ("s", x.links.len()),
        ("f", x.links.len()),
        ("X", 2 * x.links.len()),
    ];
    for (k, w) in want {
        if n(k) != w {
            return Err(format!("{} \"{k}\" events, {w} expected", n(k)));
        }
    }
    Ok(())
}

#[test]
fn chrome_json_counts() {
    let Some(traces) = traces() else { return };
    let opts = LoadOptions::default();
    let mut failures = Vec::new();
    for path in &traces {
        let Some(x) = expected(path, &opts) else {
            continue;
        };
        if let Err(e) = check_chrome(path, &x, &opts) {
            failures.push(format!("{}: {e}", path.display()));
        }
    }
    assert!(
        failures.is_empty(),
        "{} failed:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

/// Whether `protoc` is installed; otherwise a note, or a failure with
/// `TRAMA_REQUIRE_PROTOC=1`.
fn protoc() -> bool {
    if Command::new("protoc")
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success())
    {
        return true;
    }
    assert!(
        std::env::var("TRAMA_REQUIRE_PROTOC").as_deref() != Ok("1"),
        "protoc not installed but TRAMA_REQUIRE_PROTOC=1 (apt-get install protobuf-compiler)"
    );
    eprintln!("NOTE: protoc not installed: the protoc --decode_raw test SKIPPED (apt-get install protobuf-compiler; TRAMA_REQUIRE_PROTOC=1 makes this a failure)");
    false
}

#[test]
fn protoc_decodes_it() {
    if !protoc() {
        return;
    }
    let ring = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../examples/ring.paje");
    let mut inputs = vec![ring];
    if let Some(t) = traces() {
        inputs.extend(
            t.into_iter()
                .filter(|p| p.ends_with("smpi-replay.paje") || p.ends_with("APEX.otf2")),
        );
    }
    for path in inputs {
        let bytes = export_perfetto(&path, &LoadOptions::default());
        let mut protoc = Command::new("protoc");
        let (out, _) = trama_testkit::piped::run(protoc.arg("--decode_raw"), bytes);
        assert!(
            out.status.success(),
            "{}: {}",
            path.display(),
            String::from_utf8_lossy(&out.stderr)
        );
        let text = String::from_utf8_lossy(&out.stdout);
        // Packets (field 1) holding track descriptors (60) and track events (11).
        assert!(text.starts_with("1 {"), "{}", path.display());
        assert!(
            text.contains("60 {") && text.contains("11 {"),
            "{}",
            path.display()
        );
    }
}

/// A crafted trace: nested states that start and end together, a state
/// at the root, an event, a variable, a link: begins, ends and depths.
#[test]
fn nesting_at_equal_times() {
    let dir = std::env::temp_dir().join(format!("trama-export-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("nest.paje");
    std::fs::write(&path, nest()).unwrap();
    let bytes = export_perfetto(&path, &LoadOptions::default());
    let p = decode(&bytes).unwrap();
    let x = expected(&path, &LoadOptions::default()).unwrap();
    compare(&p, &x).unwrap();
    let mut got: Vec<(String, i64, i64, usize)> = p
        .slices
        .iter()
        .map(|s| (s.name.clone(), s.start, s.end, s.depth))
        .collect();
    got.sort();
    let want = [
        ("a", 1_000_000_000, 3_000_000_000, 0),
        ("b", 1_000_000_000, 3_000_000_000, 1),
        ("c", 1_000_000_000, 1_000_000_000, 2),
        ("d", 2_000_000_000, 3_000_000_000, 2),
        ("r", 0, 4_000_000_000, 0),
    ];
    let want: Vec<(String, i64, i64, usize)> = want
        .iter()
        .map(|&(n, a, b, d)| (n.to_string(), a, b, d))
        .collect();
    assert_eq!(got, want);
    assert_eq!(p.counters.len(), 2);
    assert_eq!(p.instants.len(), 3);
    std::fs::remove_dir_all(&dir).unwrap();
}

/// A trace that nests states, ends them at equal times and has an event,
/// a variable and a link.
fn nest() -> String {
    let mut text = trama_gen::event_defs(
        "PajeDefineContainerType 1; PajeDefineStateType 3; PajeDefineEventType 4; \
         PajeDefineVariableType 5; PajeDefineLinkType 6; PajeCreateContainer 7; \
         PajeDestroyContainer 8 Time:date Name Type; PajeSetState 10; PajePushState 11; \
         PajePopState 12; PajeNewEvent 13; PajeSetVariable 14; \
         PajeStartLink 15 Time:date Type Container Value StartContainer Key; \
         PajeEndLink 16 Time:date Type Container Value EndContainer Key",
    );
    text.push_str(
        r#"1 P 0 Process
3 S P State
3 RS 0 RootState
4 E P Event
5 V P Var
6 L 0 P P Link
7 0 p1 P 0 "proc 1"
7 0 p2 P 0 proc2
10 0 RS 0 r
11 1 S p1 a
11 1 S p1 b
11 1 S p1 c
12 1 S p1
11 2 S p1 d
13 2.5 E p2 tick
14 1 V p2 1.5
14 2 V p2 2.5
15 1 L 0 msg p1 k1
16 2 L 0 msg p2 k1
12 3 S p1
12 3 S p1
12 3 S p1
8 4 p1 P
8 4 p2 P
"#,
    );
    text
}

/// Random valid traces (`trama-gen`: nested states pushed, popped and set,
/// events, variables, links completed end-first, containers destroyed
/// with states open) read back equal to their dump; their JSON alike.
#[test]
fn random_traces_match_the_dump() {
    let dir = std::env::temp_dir().join(format!("trama-export-random-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let opts = LoadOptions::default();
    let mut failures = Vec::new();
    for seed in 0..60 {
        let path = dir.join(format!("{seed}.paje"));
        std::fs::write(
            &path,
            trama_gen::generate(seed, &trama_gen::GenOptions::varied(seed, 600)),
        )
        .unwrap();
        let x = expected(&path, &opts).unwrap_or_else(|| panic!("seed {seed} does not read"));
        let bytes = export_perfetto(&path, &opts);
        if let Err(e) = decode(&bytes).and_then(|p| compare(&p, &x)) {
            failures.push(format!("seed {seed}: {e}"));
        }
        if let Err(e) = check_chrome(&path, &x, &opts) {
            failures.push(format!("seed {seed} (JSON): {e}"));
        }
    }
    // Kept for a look when something failed.
    assert!(
        failures.is_empty(),
        "{} failed (traces in {}):\n{}",
        failures.len(),
        dir.display(),
        failures.join("\n")
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

/// Regression: an OTF2 archive's metric values reached the Perfetto
/// counters through PajeNG's float32 rule. The counters of an archive
/// written by the OTF2 library (64-bit counters near 1.3e14, negative
/// 64-bit integers, doubles) hold the archive's values exactly.
#[test]
fn otf2_metric_values_keep_precision_in_perfetto() {
    if !trama_gen::otf2::tools() {
        return;
    }
    let dir = std::env::temp_dir().join(format!("trama-export-otf2-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let anchor = trama_gen::otf2::write_case("counters", &dir);
    let p = decode(&export_perfetto(&anchor, &LoadOptions::default())).unwrap();
    for (ty, want) in trama_gen::otf2::counters_values() {
        let mut got: Vec<(i64, f64)> = p
            .counters
            .iter()
            .filter(|(t, _, _)| p.tracks[t].name == ty)
            .map(|&(_, ts, v)| (ts, v))
            .collect();
        got.sort_by_key(|x| x.0);
        let got: Vec<u64> = got.iter().map(|x| x.1.to_bits()).collect();
        let want: Vec<u64> = want.iter().map(|v| v.to_bits()).collect();
        assert_eq!(got, want, "{ty}");
    }
}

/// Writes the trace `write` makes in `dir` as `name`; its path.
fn generated(
    dir: &Path,
    name: &str,
    write: impl FnOnce(&mut std::fs::File) -> std::io::Result<()>,
) -> PathBuf {
    let path = dir.join(name);
    let mut f = std::fs::File::create(&path).unwrap();
    write(&mut f).unwrap();
    path
}

/// Regression: states nested a hundred thousand levels deep made the
/// exports quadratic (each end looked for its state through the stack).
/// Every level comes out, at its depth, with its times.
#[test]
fn deep_state_nesting_exports_every_level() {
    let dir = tempfile_dir("deep");
    let path = generated(&dir, "deep.paje", |f| {
        trama_gen::deep::nested_states(100_000, f)
    });
    let opts = LoadOptions::default();
    let x = expected(&path, &opts).expect("the trace reads");
    assert_eq!(x.states.len(), 100_000);
    let p = decode(&export_perfetto(&path, &opts)).unwrap();
    assert_eq!(p.slices.iter().map(|s| s.depth).max(), Some(99_999));
    compare(&p, &x).unwrap();
    check_chrome(&path, &x, &opts).unwrap();
    std::fs::remove_dir_all(&dir).unwrap();
}

/// A fresh folder for a test's traces.
fn tempfile_dir(what: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("trama-export-{what}-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// Regression: packets were written in the order the simulation hands
/// entities over (ends, events, counter values and links late), so a
/// sequence went back in time hundreds of thousands of times on a large
/// trace. Each Perfetto sequence and each JSON thread (and counter) is in
/// time order: on random traces with nested states and links, and on one
/// whose link and states stay open longer than the writers hold packets
/// (what comes too late for the first sequence goes to another).
#[test]
fn perfetto_and_chrome_json_are_written_in_time_order() {
    let dir = tempfile_dir("order");
    let opts = LoadOptions::default();
    let mut failures = Vec::new();
    for seed in 0..20 {
        let mut g = trama_gen::GenOptions::varied(seed, 3000);
        g.max_state_depth = g.max_state_depth.max(4);
        g.links = true;
        g.events = g.events.max(1000);
        let path = generated(&dir, &format!("{seed}.paje"), |f| {
            std::io::Write::write_all(f, trama_gen::generate(seed, &g).as_bytes())
        });
        let x = expected(&path, &opts).unwrap_or_else(|| panic!("seed {seed} does not read"));
        assert!(!x.links.is_empty(), "seed {seed}: no link");
        if let Err(e) = decode(&export_perfetto(&path, &opts)).and_then(|p| compare(&p, &x)) {
            failures.push(format!("seed {seed}: {e}"));
        }
        if let Err(e) = check_chrome(&path, &x, &opts) {
            failures.push(format!("seed {seed} (JSON): {e}"));
        }
    }
    let late = generated(&dir, "late.paje", |f| {
        trama_gen::deep::nested_states(200_000, f)
    });
    let x = expected(&late, &opts).expect("the trace reads");
    match decode(&export_perfetto(&late, &opts)).and_then(|p| compare(&p, &x).map(|_| p)) {
        Ok(p) if p.sequences > 1 => {}
        Ok(_) => failures.push("late: one sequence, for packets late or not".into()),
        Err(e) => failures.push(format!("late: {e}")),
    }
    if let Err(e) = check_chrome(&late, &x, &opts) {
        failures.push(format!("late (JSON): {e}"));
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    std::fs::remove_dir_all(&dir).unwrap();
}
