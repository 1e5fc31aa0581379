//! A `.ptb` read by blocks shows what the same trace held whole shows:
//! the summary, windows zoomed in (replayed from their blocks) and out
//! (from the summary gathered slice by slice), the entity under a point,
//! search and statistics.

use std::collections::BTreeMap;
use std::io::{Read, Write};
use std::net::TcpStream;
use std::path::{Path, PathBuf};

use serde_json::Value;
use trama_open::{LoadOptions, Source};
use trama_testkit::http::{self, status_and_body};
use trama_viewer::{start_loading, Input, Running, ViewerOptions};

/// A generated trace written as `.ptb` in small blocks (many blocks and
/// keyframes).
fn ptb(dir: &Path, seed: u64, events: usize) -> PathBuf {
    let text = trama_gen::generate(seed, &trama_gen::GenOptions::varied(seed, events));
    let paje = dir.join("t.paje");
    std::fs::write(&paje, text).unwrap();
    let out = dir.join("t.ptb");
    let opened = trama_open::open(&Source::Path(paje)).unwrap();
    let mut opts = trama_convert::ConvertOptions::default();
    opts.block_events = 1024;
    let file = std::fs::File::create(&out).unwrap();
    trama_convert::convert(opened, &LoadOptions::default(), &opts, file).unwrap();
    out
}

fn serve(input: Input, max_blocks: usize) -> Running {
    let mut opts = ViewerOptions::default();
    opts.max_blocks = max_blocks;
    opts.port = Some(0);
    opts.name = "t.ptb".into();
    let r = start_loading(move || Ok(input), None, &opts).unwrap();
    for _ in 0..600 {
        let (status, body) = get(&r, "api/progress");
        assert_eq!(status, 200);
        if body.starts_with(b"{") && String::from_utf8_lossy(&body).contains("\"ready\"") {
            return r;
        }
        assert!(!String::from_utf8_lossy(&body).contains("\"failed\""));
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    panic!("not ready");
}

/// `GET /TOKEN/path`: status and body.
fn get(r: &Running, path: &str) -> (u16, Vec<u8>) {
    let after = r.url.split_once("//").unwrap().1;
    let token = &after[after.find('/').unwrap()..];
    let host = r.addr.to_string();
    status_and_body(&http::get(r.addr, &format!("{token}{path}"), &host).unwrap())
}

fn json(r: &Running, path: &str) -> Value {
    let (status, body) = get(r, path);
    assert_eq!(status, 200, "{path}: {}", String::from_utf8_lossy(&body));
    serde_json::from_slice(&body).unwrap()
}

/// A timeline reply, decoded: per row, per state type, per level, the
/// value of each column; events, variable and density per column; links.
#[derive(Debug, Default, PartialEq)]
struct Decoded {
    states: BTreeMap<(u32, u32, u32, u32), (u32, u32)>,
    events: BTreeMap<(u32, u32), u32>,
    variable: BTreeMap<(u32, u32), (u64, u64, u64)>,
    density: BTreeMap<(u32, u32, bool), u32>,
    links: Vec<(u32, u32, u64, u64, u32)>,
    totals: (u64, u64, u64),
}

/// The first differences of two maps, for a short message.
fn differ<K: Ord + std::fmt::Debug, V: PartialEq + std::fmt::Debug>(
    a: &BTreeMap<K, V>,
    b: &BTreeMap<K, V>,
) -> Vec<String> {
    let mut out = Vec::new();
    for (k, v) in a {
        if b.get(k) != Some(v) {
            out.push(format!("{k:?}: {v:?} / {:?}", b.get(k)));
        }
    }
    for (k, v) in b {
        if !a.contains_key(k) {
            out.push(format!("{k:?}: None / {v:?}"));
        }
    }
    out.truncate(8);
    out
}

/// Asserts `a == b`, naming the first differences.
fn assert_same(a: &Decoded, b: &Decoded, what: &str) {
    let d = [
        differ(&a.states, &b.states),
        differ(&a.events, &b.events),
        differ(&a.variable, &b.variable),
        differ(&a.density, &b.density),
    ];
    assert!(
        d.iter().all(Vec::is_empty) && a.links == b.links && a.totals == b.totals,
        "{what}: states {:?}, events {:?}, variable {:?}, density {:?}, links {} / {}, totals {:?} / {:?}",
        d[0],
        d[1],
        d[2],
        d[3],
        a.links.len(),
        b.links.len(),
        a.totals,
        b.totals
    );
}

fn decode(b: &[u8]) -> Decoded {
    assert_eq!(&b[..4], b"TRTL");
    let mut d = Decoded::default();
    let f = |at: &mut usize| {
        let x = f64::from_le_bytes(b[*at..*at + 8].try_into().unwrap());
        *at += 8;
        x
    };
    let u = |at: &mut usize| {
        let x = u32::from_le_bytes(b[*at..*at + 4].try_into().unwrap());
        *at += 4;
        x
    };
    // Magic, version, t0, t1.
    let mut at = 24;
    let (_width, _widened, nrows) = (u(&mut at), u(&mut at), u(&mut at));
    for _ in 0..nrows {
        let row = u(&mut at);
        for _ in 0..u(&mut at) {
            let ty = u(&mut at);
            for level in 0..u(&mut at) {
                for _ in 0..u(&mut at) {
                    let (x0, x1, v, c) = (u(&mut at), u(&mut at), u(&mut at), u(&mut at));
                    for x in x0..x1 {
                        d.states.insert((row, ty, level, x), (v, c));
                    }
                }
            }
        }
        for _ in 0..u(&mut at) {
            let (x, c) = (u(&mut at), u(&mut at));
            d.events.insert((row, x), c);
        }
        for _ in 0..u(&mut at) {
            let (x0, x1) = (u(&mut at), u(&mut at));
            let v = (
                f(&mut at).to_bits(),
                f(&mut at).to_bits(),
                f(&mut at).to_bits(),
            );
            for x in x0..x1 {
                d.variable.insert((row, x), v);
            }
        }
        for sent in [true, false] {
            for _ in 0..u(&mut at) {
                let (x, c) = (u(&mut at), u(&mut at));
                d.density.insert((row, x, sent), c);
            }
        }
    }
    d.totals = (f(&mut at) as u64, f(&mut at) as u64, f(&mut at) as u64);
    for _ in 0..u(&mut at) {
        let (from, to) = (u(&mut at), u(&mut at));
        let (s, e) = (f(&mut at).to_bits(), f(&mut at).to_bits());
        d.links.push((from, to, s, e, u(&mut at)));
    }
    d.links.sort();
    assert_eq!(at, b.len());
    d
}

#[test]
fn reading_by_blocks_shows_what_the_whole_trace_shows() {
    let dir = tempfile::tempdir().unwrap();
    let path = ptb(dir.path(), 5, 300_000);
    let trace = trama_open::load(&Source::Path(path.clone()), &LoadOptions::default()).unwrap();
    let whole = serve(Input::Whole(trace), 0);
    let file = trama_ptb::PtbFile::open_lazy(&path).unwrap().unwrap();
    assert!(file.blocks() > 20, "{} blocks", file.blocks());
    // Every window replayed (this trace's blocks overlap in time).
    let saved = dir.path().join("t.view");
    let blocks = serve(by_blocks(&path, Some(saved.clone())), 1000);
    assert!(saved.exists(), "the first pass's summary is saved");

    // The summary: the same rows, counts, span, order.
    let (mw, mb) = (json(&whole, "api/meta"), json(&blocks, "api/meta"));
    for k in [
        "start",
        "end",
        "rows",
        "containers",
        "counts",
        "host_order",
        "values",
        "notes",
    ] {
        assert_eq!(mw[k], mb[k], "meta.{k}");
    }
    same_stage_matrix(&whole, &blocks);
    let (t0, t1) = (mw["start"].as_f64().unwrap(), mw["end"].as_f64().unwrap());
    let rows = mw["rows"].as_array().unwrap().len();
    assert!(rows > 3);

    zoomed_in_windows_agree(&whole, &blocks, (t0, t1));
    zoomed_out_summary_agrees(&whole, &blocks, (t0, t1));
    points_search_and_stats_agree(&whole, &blocks, &mw, (t0, t1), rows);

    // Replaying at most 2 blocks a request: wide windows' statistics are
    // added up slice by slice, equal to the whole trace's.
    // This one reads the summary saved by the first (and does not write it).
    let stamp = std::fs::metadata(&saved).unwrap().modified().unwrap();
    std::thread::sleep(std::time::Duration::from_millis(20));
    let narrow = serve(by_blocks(&path, Some(saved.clone())), 2);
    assert_eq!(mb, json(&narrow, "api/meta"));
    assert_eq!(
        std::fs::metadata(&saved).unwrap().modified().unwrap(),
        stamp
    );
    let q = format!("api/timeline?start={t0}&end={t1}&width=1000");
    assert_eq!(get(&blocks, &q), get(&narrow, &q));
    for (a, b) in [(t0, t1), (t0 + (t1 - t0) * 0.3, t0 + (t1 - t0) * 0.8)] {
        let q = format!("api/stats?start={a}&end={b}");
        let (w, n) = (json(&whole, &q), json(&narrow, &q));
        assert!(w["states"]["rows"].as_array().unwrap().len() > 10, "{w}");
        trama_gen::json::assert_close(&w, &n, &q);
    }
    // Zoomed in beyond what it replays: answered from the summary.
    let q = format!(
        "api/timeline?start={t0}&end={}&width=800",
        t0 + (t1 - t0) / 5.0
    );
    let (status, body) = get(&narrow, &q);
    assert_eq!(status, 200);
    assert!(!decode(&body).states.is_empty());
    // A damaged summary is not used: the trace is read again.
    let mut bytes = std::fs::read(&saved).unwrap();
    let n = bytes.len();
    bytes.truncate(n / 2);
    std::fs::write(&saved, &bytes).unwrap();
    let again = serve(by_blocks(&path, Some(saved.clone())), 1000);
    assert_eq!(mb, json(&again, "api/meta"));
    assert_eq!(
        std::fs::read(&saved).unwrap().len(),
        n,
        "saved again, whole"
    );
    // A file there that is not a saved summary is read past and left alone.
    let foreign = dir.path().join("notes.view");
    std::fs::write(&foreign, "my notes").unwrap();
    let other = serve(by_blocks(&path, Some(foreign.clone())), 1000);
    assert_eq!(mb, json(&other, "api/meta"));
    assert_eq!(std::fs::read(&foreign).unwrap(), b"my notes");
    other.stop();
    whole.stop();
    blocks.stop();
    narrow.stop();
    again.stop();
}

/// The player's whole-run matrix: the same messages per pair (by
/// blocks counted by the pass, without rates).
fn same_stage_matrix(whole: &Running, blocks: &Running) {
    let (sw, sb) = (json(whole, "api/stage"), json(blocks, "api/stage"));
    let cells = |s: &serde_json::Value| -> std::collections::BTreeMap<(String, String), u64> {
        let p = s["processes"].as_array().unwrap();
        let name = |c: &serde_json::Value, k: &str| {
            p[c[k].as_u64().unwrap() as usize]["name"]
                .as_str()
                .unwrap()
                .to_string()
        };
        s["whole"]
            .as_array()
            .unwrap()
            .iter()
            .map(|c| {
                (
                    (name(c, "from"), name(c, "to")),
                    c["count"].as_u64().unwrap(),
                )
            })
            .collect()
    };
    let (cw, cb) = (cells(&sw), cells(&sb));
    assert!(cw.len() > 10, "{} pairs", cw.len());
    assert_eq!(cw, cb, "the whole run's matrix");
}

/// Zoomed in: windows replayed from their blocks, equal column for column.
fn zoomed_in_windows_agree(whole: &Running, blocks: &Running, (t0, t1): (f64, f64)) {
    let mut compared = 0;
    for k in 0..12 {
        let a = t0 + (t1 - t0) * (k as f64 / 12.0);
        let len = (t1 - t0) / [40.0, 200.0, 3000.0][k % 3];
        let q = format!("api/timeline?start={a}&end={}&width=800", a + len);
        let (w, b) = (get(whole, &q), get(blocks, &q));
        assert_eq!((w.0, b.0), (200, 200), "{q}");
        let (dw, db) = (decode(&w.1), decode(&b.1));
        compared += dw.states.len();
        assert_same(&dw, &db, &q);
    }
    assert!(compared > 1000, "{compared} columns with states compared");
}

/// Zoomed out: from the summary gathered slice by slice.
fn zoomed_out_summary_agrees(whole: &Running, blocks: &Running, (t0, t1): (f64, f64)) {
    let q = format!("api/timeline?start={t0}&end={t1}&width=1000");
    let (dw, db) = (decode(&get(whole, &q).1), decode(&get(blocks, &q).1));
    let sum = |m: &BTreeMap<(u32, u32), u32>| m.values().map(|c| *c as u64).sum::<u64>();
    assert_eq!(sum(&dw.events), sum(&db.events), "every event, once");
    assert_eq!(dw.totals, db.totals, "links");
    assert_eq!(
        dw.density.values().map(|c| *c as u64).sum::<u64>(),
        db.density.values().map(|c| *c as u64).sum::<u64>()
    );
    let same = dw
        .states
        .iter()
        .filter(|(k, v)| db.states.get(k) == Some(v))
        .count();
    assert!(dw.states.len() > 1000);
    assert!(
        same * 100 >= dw.states.len() * 99,
        "{same} of {} columns agree",
        dw.states.len()
    );
}

/// The entity under points, search and window statistics.
fn points_search_and_stats_agree(
    whole: &Running,
    blocks: &Running,
    mw: &Value,
    (t0, t1): (f64, f64),
    rows: usize,
) {
    for k in 1..40 {
        let t = t0 + (t1 - t0) * (k as f64 / 40.0);
        let q = format!(
            "api/entity?row={}&t={t}&px={}",
            k % rows,
            (t1 - t0) / 5000.0
        );
        assert_eq!(json(whole, &q), json(blocks, &q), "{q}");
    }
    let value = mw["values"][0]["name"].as_str().unwrap().to_string();
    let mut after = t0 - 1.0;
    for n in 0..5 {
        let q = format!("api/search?q={}&after={after}", value.replace(' ', "%20"));
        let (w, b) = (json(whole, &q), json(blocks, &q));
        assert_eq!(w, b, "{q}");
        if w["next"].is_null() {
            assert!(n > 0, "{q}: {w}");
            break;
        }
        after = w["next"]["start"].as_f64().unwrap();
    }
    let q = format!("api/stats?start={t0}&end={}", t0 + (t1 - t0) / 30.0);
    assert_eq!(json(whole, &q), json(blocks, &q), "{q}");
}

/// Regression: every request replayed its window at once on threads of
/// its own, so 200 clients asking windows of a 10M-event `.ptb` took the
/// server from 166 MB to 4.76 GB; and a connection that sent half a
/// request stayed open forever. Now a few requests are computed at a time,
/// a few wait, the next get 503 with `Retry-After`, and a head not sent in
/// time closes its connection.
#[test]
fn view_server_bounds_the_work_in_flight_and_closes_half_open_connections() {
    let dir = tempfile::tempdir().unwrap();
    let path = ptb(dir.path(), 9, 200_000);
    let mut opts = ViewerOptions::default();
    opts.max_blocks = 1000;
    opts.port = Some(0);
    opts.limits.work = 1;
    opts.limits.queued = 2;
    opts.limits.header_timeout = std::time::Duration::from_millis(300);
    let input = by_blocks(&path, None);
    let r = start_loading(move || Ok(input), None, &opts).unwrap();
    while !String::from_utf8_lossy(&get(&r, "api/progress").1).contains("\"ready\"") {
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    let meta = json(&r, "api/meta");
    let (t0, t1) = (
        meta["start"].as_f64().unwrap(),
        meta["end"].as_f64().unwrap(),
    );
    let after = r.url.split_once("//").unwrap().1;
    let token = after[after.find('/').unwrap()..].to_string();
    // 40 clients at once, each a window of its own (none held).
    let n = 40;
    let go = std::sync::Arc::new(std::sync::Barrier::new(n));
    let clients: Vec<_> = (0..n)
        .map(|i| {
            let (go, token, addr) = (go.clone(), token.clone(), r.addr);
            std::thread::spawn(move || {
                let a = t0 + (t1 - t0) * i as f64 / n as f64;
                let b = a + (t1 - t0) / 8.0;
                go.wait();
                let path = format!("{token}api/timeline?start={a}&end={b}&width=1920");
                let raw = http::get(addr, &path, &addr.to_string()).unwrap();
                String::from_utf8_lossy(&raw[..raw.len().min(400)]).into_owned()
            })
        })
        .collect();
    let replies: Vec<String> = clients.into_iter().map(|c| c.join().unwrap()).collect();
    let ok = replies
        .iter()
        .filter(|r| r.starts_with("HTTP/1.1 200"))
        .count();
    let shed: Vec<&String> = replies
        .iter()
        .filter(|r| r.starts_with("HTTP/1.1 503"))
        .collect();
    assert_eq!(ok + shed.len(), n, "{replies:#?}");
    assert!(
        ok >= 3,
        "the one computed and the two waiting are answered: {ok}"
    );
    assert!(!shed.is_empty(), "the others are shed: {replies:#?}");
    for s in shed {
        assert!(s.to_ascii_lowercase().contains("retry-after: 1\r\n"), "{s}");
    }
    // Once they are done, the server answers again.
    assert_eq!(
        get(&r, &format!("api/timeline?start={t0}&end={t1}&width=100")).0,
        200
    );
    // Half a request line, then nothing: closed after the timeout.
    let mut s = TcpStream::connect(r.addr).unwrap();
    s.set_read_timeout(Some(std::time::Duration::from_secs(10)))
        .unwrap();
    write!(s, "GET {token}api/me").unwrap();
    let begun = std::time::Instant::now();
    let mut buf = [0u8; 64];
    let closed = match s.read(&mut buf) {
        Ok(_) => true,
        Err(e) => e.kind() == std::io::ErrorKind::ConnectionReset,
    };
    assert!(
        closed && begun.elapsed() < std::time::Duration::from_secs(9),
        "the half-open connection is still open after {:?}",
        begun.elapsed()
    );
}

/// The `.ptb` at `path` read by blocks, its summary saved at `summary`.
fn by_blocks(path: &std::path::Path, summary: Option<std::path::PathBuf>) -> Input {
    let file = trama_open::PtbWindows::open(path).unwrap();
    Input::Blocks(trama_open::ByBlocks::new(Box::new(file), 0, summary))
}

/// A generated trace (`seed`) converted by `convert_file` into `name`:
/// with the summary a viewer reads (its summary frame), or without (as a
/// file made before there was one).
fn ptb_file(dir: &Path, name: &str, seed: u64, summary: bool) -> PathBuf {
    let text = trama_gen::generate(seed, &trama_gen::GenOptions::varied(seed, 100_000));
    let paje = dir.join(format!("{seed}.paje"));
    std::fs::write(&paje, text).unwrap();
    let out = dir.join(name);
    let opened = trama_open::open(&Source::Path(paje.clone())).unwrap();
    let mut opts = trama_convert::ConvertOptions::default();
    opts.block_events = 1024;
    opts.summary_from = summary.then_some(0);
    let (file, _) =
        trama_convert::convert_file(opened, &LoadOptions::default(), opts, &out, &[&paje], true)
            .unwrap();
    file.commit().unwrap();
    out
}

/// Whether the `.ptb` at `path` has a summary frame: as its reader finds
/// it, and in its list of frames.
fn has_summary(path: &Path) -> (bool, bool) {
    let file = trama_ptb::PtbFile::open_lazy(path).unwrap().unwrap();
    let listed = file
        .frames()
        .unwrap()
        .iter()
        .any(|f| f.kind == trama_ptb::FrameKind::Summary);
    (file.summary().is_some(), listed)
}

/// The replies a page's first view asks for: meta, the whole run's window,
/// the player's stage.
fn first_view(r: &Running) -> Vec<(u16, Vec<u8>)> {
    let m = json(r, "api/meta");
    let (t0, t1) = (m["start"].as_f64().unwrap(), m["end"].as_f64().unwrap());
    let rows = m["rows"].as_array().unwrap().len();
    [
        "api/meta".to_string(),
        format!(
            "api/timeline?start={t0}&end={t1}&width=5760&rows=0-{}",
            rows - 1
        ),
        format!("api/timeline?start={t0}&end={t1}&width=700&encoding=compact"),
        "api/stage".to_string(),
    ]
    .iter()
    .map(|q| get(r, q))
    .collect()
}

/// Regression: a first view of a large `.ptb` read every block to gather
/// the whole trace's summary; a converted file carries it (its summary
/// frame), and the first window read from it is the one gathered, byte
/// for byte; nothing is gathered, so nothing is saved in the cache.
#[test]
fn the_first_window_from_the_summary_frame_is_the_gathered_one() {
    let dir = tempfile::tempdir().unwrap();
    let with = ptb_file(dir.path(), "with.ptb", 5, true);
    assert_eq!(has_summary(&with), (true, true));
    let saved = dir.path().join("with.view");
    let from_frame = serve(by_blocks(&with, Some(saved.clone())), 1000);
    assert!(!saved.exists(), "the summary came from the file");
    // Gathered from the same blocks, in a file without the frame.
    let without = ptb_file(dir.path(), "without.ptb", 5, false);
    let gathered = serve(by_blocks(&without, None), 1000);
    let first = first_view(&from_frame);
    assert_eq!(first[1].0, 200);
    assert!(first[1].1.len() > 1000);
    assert!(first == first_view(&gathered), "same replies as gathered");
    for r in [from_frame, gathered] {
        r.stop();
    }
}

/// Regression: a `.ptb` made before there was a summary frame is viewed by
/// blocks as before: its summary gathered, and saved in the cache.
#[test]
fn a_ptb_without_the_summary_frame_is_still_viewed() {
    let dir = tempfile::tempdir().unwrap();
    let without = ptb_file(dir.path(), "without.ptb", 5, false);
    assert_eq!(has_summary(&without), (false, false));
    let saved = dir.path().join("without.view");
    let r = serve(by_blocks(&without, Some(saved.clone())), 1000);
    assert!(saved.exists(), "gathered and saved");
    let m = json(&r, "api/meta");
    assert!(m["rows"].as_array().unwrap().len() > 3);
    r.stop();
}

/// Regression: a summary frame that is damaged (its checksum fails), not
/// a summary, or the summary of another trace, is ignored: the trace is
/// read again (and its summary saved in the cache), never a panic.
#[test]
fn a_damaged_or_foreign_summary_frame_is_ignored() {
    let dir = tempfile::tempdir().unwrap();
    let with = ptb_file(dir.path(), "with.ptb", 5, true);
    let without = ptb_file(dir.path(), "without.ptb", 5, false);
    let reference = serve(by_blocks(&without, None), 1000);
    let expected = first_view(&reference);
    reference.stop();
    let bytes = std::fs::read(&with).unwrap();
    let at = trama_ptb::PtbFile::open_lazy(&with)
        .unwrap()
        .unwrap()
        .frames()
        .unwrap()
        .last()
        .unwrap()
        .offset as usize;
    // A byte of the frame's payload changed.
    let mut damaged = bytes.clone();
    damaged[at + 40] ^= 0x55;
    // Frames that check but hold what is not this trace's summary: words,
    // the summary of another trace, and this one's cut short.
    let plain = std::fs::read(&without).unwrap();
    let summary_of = |path: &Path| {
        trama_ptb::PtbFile::open_lazy(path)
            .unwrap()
            .unwrap()
            .summary()
            .unwrap()
    };
    let other = ptb_file(dir.path(), "other.ptb", 6, true);
    let (foreign, size) = summary_of(&other);
    let mut short = summary_of(&with).0;
    short.truncate(short.len() - 9);
    let mut variants = vec![("damaged", damaged)];
    for (what, payload) in [
        ("words", b"not a summary".to_vec()),
        ("foreign", foreign),
        ("short", short),
    ] {
        let path = dir.path().join(format!("{what}.ptb"));
        std::fs::write(&path, &plain).unwrap();
        let mut f = std::fs::OpenOptions::new()
            .read(true)
            .write(true)
            .open(&path)
            .unwrap();
        trama_ptb::add_summary(&mut f, &payload).unwrap();
        variants.push((what, std::fs::read(&path).unwrap()));
    }
    assert_ne!(plain.len() as u64, size, "the foreign one's size differs");
    for (what, bytes) in variants {
        let path = dir.path().join(format!("{what}.ptb"));
        std::fs::write(&path, &bytes).unwrap();
        let saved = dir.path().join(format!("{what}.view"));
        let r = serve(by_blocks(&path, Some(saved.clone())), 1000);
        assert!(saved.exists(), "{what}: the trace read again");
        assert!(first_view(&r) == expected, "{what}");
        r.stop();
    }
}
