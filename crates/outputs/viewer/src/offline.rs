//! The page of `trama view` for a file that opens with no server: the
//! explorable timeline of an offline report (`trama report`). The page's
//! script, style and markup are inlined, and what the server would answer
//! is embedded: `api/meta`, the statistics of the whole run (`api/stats`
//! over the run) and a summary of the timeline at several levels of
//! detail, of bounded size ([`BUDGET`] bytes in all, whatever the trace).
//! The page reads them instead of asking (`assets/offline.js`): it zooms,
//! pans and hovers down to the detail the summary holds, and fetches
//! nothing.
//!
//! # The summary: tiles
//! Level `k` cuts the run `[t0, t1]` into `2^k` tiles of equal duration
//! `d = (t1 − t0) / 2^k`; tile `i` covers `[t0 + i·d, t0 + (i+1)·d]` (the
//! last ends at `t1`). Each tile is what `api/timeline` answers for that
//! window at `columns` columns over every row, in the compact form of
//! `trama_lod::tile` (`TRTC`: the content of the `TRTL` reply of
//! `docs/view-api.md`, rows with nothing in the tile left out),
//! compressed with gzip (RFC 1952). Levels are added while the
//! whole stays within the budget, and until a level shows less than 5 %
//! more spans than the one before (its tiles already hold the entities one
//! by one: a finer level would add nothing); that last level is not kept.
//!
//! The tiles travel in one little-endian `TRTS` block, base64-encoded in
//! the text of `<script type="application/octet-stream" id="trama-tiles">`:
//!
//! ```text
//! "TRTS"        4 bytes
//! version       u32 = 1
//! t0, t1        f64, f64    the run the levels cut
//! columns       u32         columns of every tile
//! nlevels       u32
//! nlevels times, level k = 0 first: 2^k times: length u32   bytes of each tile
//! the tiles, level 0 first, each level's in time order (gzip of a TRTC tile)
//! ```
//!
//! and `<script type="application/json" id="trama-offline">` holds
//! `{"version": 1, "meta": …, "stats": …, "player": …, "why": …, "levels": N,
//! "columns": C}`:
//! `meta` is `api/meta`'s reply, `stats` `api/stats`' over the whole run
//! (`{"states", "comm", "wait"}`; when that is larger than a twentieth of
//! the budget, only the largest message pairs and waits are kept and
//! `"trimmed": true` says so; `null` if even that is too large).
//! `why` is what the why analyses found in the whole run ([`why_json`]):
//! `{"summary": …, "overlay": …}`, `api/why`'s reply and
//! `api/why/overlay`'s over the whole run at as many columns (4096 at
//! most, halved while it takes more than a tenth of the budget; `null`
//! when even 256 would), or `{"summary": {"available": false, "reason"}}`.

use std::fmt::Write as _;
use std::io::Write as _;
use std::sync::atomic::{AtomicUsize, Ordering};

use trama_lod::{Lod, Query, Row, Summary};
use trama_sim::{Trace, TypeId};

use crate::assets;
use trama_lod::tile::encode;

/// Most bytes the data of an offline page takes in its HTML (the tiles in
/// base64, the meta and the statistics), whatever the trace: 10 MB.
pub const BUDGET: usize = 10_000_000;

/// Columns of a tile.
pub const TILE_COLUMNS: u32 = 2048;

/// A level showing at most this share more spans than the one before it
/// adds nothing and ends the summary.
const NEW_DETAIL: f64 = 0.05;

/// Levels at most.
const MAX_LEVELS: u32 = 24;

/// The fewest columns of a tile: a trace whose whole run does not fit the
/// budget at this width gets no summary.
const MIN_COLUMNS: u32 = 64;

/// The page's content-security policy, for a `<meta>` of its `<head>`:
/// nothing is fetched, only the inline style and script run.
pub const POLICY: &str =
    "default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'";

/// How [`offline`] summarizes.
#[derive(Clone, Debug)]
#[non_exhaustive]
pub struct OfflineOptions {
    /// Most bytes of data (see [`BUDGET`]).
    pub budget: usize,
    /// Columns of a tile (fewer when the whole run does not fit).
    pub columns: u32,
    /// The values' colours (`#rrggbb`, by value id) instead of
    /// `trama_style::value_colors`' (a run compared with another shares
    /// its colours, `trama_style::shared_value_colors`).
    pub colors: Option<Vec<String>>,
}

impl Default for OfflineOptions {
    fn default() -> OfflineOptions {
        OfflineOptions {
            budget: BUDGET,
            columns: TILE_COLUMNS,
            colors: None,
        }
    }
}

/// The explorable timeline of a trace, for a page that opens offline.
#[derive(Clone, Debug)]
#[non_exhaustive]
pub struct Offline {
    /// The page's `<style>` element, for the `<head>` (after [`POLICY`]).
    pub style: String,
    /// The page's markup (an element `#app`, a tooltip and a details
    /// panel), its data and its script, for the `<body>`; empty when the
    /// trace's description alone would exceed the budget (`note` says so).
    pub body: String,
    /// Bytes of `body` that are data: at most the budget.
    pub embedded: usize,
    /// Levels of the summary.
    pub levels: u32,
    /// Columns of its tiles.
    pub columns: u32,
    /// Its tiles.
    pub tiles: usize,
    /// A sentence for the reader when the summary was left out, or when
    /// the budget stopped it before its tiles held the entities one by one.
    pub note: Option<String>,
}

/// JSON for the text of a `<script>`: `<` escaped, so that no `</script>`
/// ends it early.
fn script_json(v: &serde_json::Value) -> String {
    serde_json::to_string(v)
        .expect("JSON of JSON")
        .replace('<', "\\u003c")
}

/// What the why analyses found in `trace` (whose rows `meta` gives), as
/// the page embeds it (see the module's documentation): the overlay of
/// the whole run in at most `room` bytes.
fn why_json(trace: &Trace, meta: &crate::metadata::Meta, room: usize) -> String {
    let v = match crate::why_run::Analysis::new(trace, meta) {
        Err(reason) => {
            serde_json::json!({ "summary": { "available": false, "reason": reason } })
        }
        Ok(a) => {
            let (t0, t1) = (meta.start, meta.end.max(meta.start + 1e-9));
            let mut columns = 4096;
            let overlay = loop {
                let o = a.overlay((t0, t1), columns);
                if serde_json::to_string(&o).map_or(0, |s| s.len()) <= room {
                    break o;
                }
                if columns <= 256 {
                    break serde_json::Value::Null;
                }
                columns /= 2;
            };
            serde_json::json!({ "summary": a.summary(), "overlay": overlay })
        }
    };
    script_json(&v)
}

/// Base64 (RFC 4648, with padding).
fn base64(bytes: &[u8]) -> String {
    const A: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut out = String::with_capacity(base64_len(bytes.len()));
    for c in bytes.chunks(3) {
        let n = (u32::from(c[0]) << 16)
            | (u32::from(*c.get(1).unwrap_or(&0)) << 8)
            | u32::from(*c.get(2).unwrap_or(&0));
        for k in 0..4 {
            if k <= c.len() {
                out.push(A[(n >> (18 - 6 * k)) as usize & 63] as char);
            } else {
                out.push('=');
            }
        }
    }
    out
}

fn base64_len(n: usize) -> usize {
    n.div_ceil(3) * 4
}

fn gzip(bytes: &[u8]) -> Vec<u8> {
    let mut z = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    z.write_all(bytes).expect("writing to memory");
    z.finish().expect("writing to memory")
}

/// The spans, event columns and links of a tile: how much it shows. Spans
/// at its first column that continue the tile before are not counted
/// (`first`: the run's first tile).
fn detail(s: &Summary, first: bool) -> u64 {
    let mut n = s.links.each.len();
    for r in &s.rows {
        for band in &r.states {
            for level in &band.levels {
                n += level.iter().filter(|x| first || x.x0 > 0).count();
            }
        }
        n += r.variable.iter().filter(|v| first || v.x0 > 0).count();
        n += r.events.len() + r.sent.len() + r.received.len();
    }
    n as u64
}

/// What summarizing a level gave.
struct Level {
    tiles: Vec<Vec<u8>>,
    bytes: usize,
    detail: u64,
}

/// Level `k` of `[t0, t1]`, or `None` when its tiles would take more than
/// `room` bytes.
fn level(
    lod: &Lod<'_>,
    rows: &[Row],
    link_types: Option<&[TypeId]>,
    (t0, t1): (f64, f64),
    k: u32,
    columns: u32,
    room: usize,
) -> Option<Level> {
    let n = 1usize << k;
    let d = (t1 - t0) / n as f64;
    let asked: Vec<u32> = (0..rows.len() as u32).collect();
    let used = AtomicUsize::new(4 * n);
    let threads = std::thread::available_parallelism()
        .map_or(1, |p| p.get())
        .min(n);
    // Each thread makes a part of the level's tiles, in order.
    let work = |part: usize| {
        let mut out = Level {
            tiles: Vec::new(),
            bytes: 0,
            detail: 0,
        };
        for i in (part * n / threads)..((part + 1) * n / threads) {
            let mut q = Query::default();
            let end = if i + 1 == n {
                t1
            } else {
                t0 + d * (i + 1) as f64
            };
            q.window = Some((t0 + d * i as f64, end));
            q.width = columns;
            q.link_types = link_types.map(<[_]>::to_vec);
            let s = lod.summarize(rows, &q);
            let tile = gzip(&encode(lod.trace(), &s, &asked));
            if used.fetch_add(tile.len(), Ordering::Relaxed) + tile.len() > room {
                return None;
            }
            out.bytes += tile.len();
            out.detail += detail(&s, i == 0);
            out.tiles.push(tile);
        }
        Some(out)
    };
    let work = &work;
    let parts: Vec<Option<Level>> = std::thread::scope(|scope| {
        let handles: Vec<_> = (1..threads).map(|p| scope.spawn(move || work(p))).collect();
        let mut parts = vec![work(0)];
        parts.extend(handles.into_iter().map(|h| h.join().expect("a tile")));
        parts
    });
    let mut level = Level {
        tiles: Vec::with_capacity(n),
        bytes: 4 * n,
        detail: 0,
    };
    for part in parts {
        let part = part?;
        level.bytes += part.bytes;
        level.detail += part.detail;
        level.tiles.extend(part.tiles);
    }
    Some(level)
}

/// The statistics of the whole run as JSON of at most `room` bytes (see
/// the module's documentation), and whether they were trimmed.
fn stats(trace: &Trace, msgs: &trama_analysis::Messages, run: (f64, f64), room: usize) -> String {
    let s = crate::window_stats::trace_stats(trace, msgs, run.0, run.1, true);
    let mut v = serde_json::to_value(&s).expect("statistics as JSON");
    let text = script_json(&v);
    if text.len() <= room {
        return text;
    }
    // The largest message pairs and waits, as the page lists them.
    const KEEP: usize = 100;
    if let Some(pairs) = v.pointer_mut("/comm/pairs").and_then(|p| p.as_array_mut()) {
        let count = |p: &serde_json::Value| p["count"].as_f64().unwrap_or(0.0);
        pairs.sort_by(|a, b| count(b).total_cmp(&count(a)));
        pairs.truncate(KEEP);
    }
    if let Some(wait) = v.get_mut("wait") {
        let senders: Vec<serde_json::Value> =
            wait["senders"].as_array().cloned().unwrap_or_default();
        let mut waits: Vec<(String, usize, f64)> = Vec::new();
        for r in wait["rows"].as_array().into_iter().flatten() {
            let c = r["container"].as_str().unwrap_or_default();
            for (j, x) in r["seconds"].as_array().into_iter().flatten().enumerate() {
                let x = x.as_f64().unwrap_or(0.0);
                if x > 0.0 {
                    waits.push((c.to_string(), j, x));
                }
            }
        }
        waits.sort_by(|a, b| b.2.total_cmp(&a.2));
        waits.truncate(KEEP);
        let mut kept: Vec<usize> = waits.iter().map(|w| w.1).collect();
        kept.sort_unstable();
        kept.dedup();
        let mut rows: Vec<(String, Vec<f64>)> = Vec::new();
        for (c, j, x) in waits {
            let at = kept.binary_search(&j).expect("a kept sender");
            match rows.iter_mut().find(|r| r.0 == c) {
                Some(r) => r.1[at] = x,
                None => {
                    let mut seconds = vec![0.0; kept.len()];
                    seconds[at] = x;
                    rows.push((c, seconds));
                }
            }
        }
        wait["senders"] = kept.iter().map(|j| senders[*j].clone()).collect();
        wait["rows"] = rows
            .into_iter()
            .map(|(c, s)| serde_json::json!({"container": c, "seconds": s}))
            .collect();
    }
    if let Some(rows) = v.pointer_mut("/states/rows").and_then(|p| p.as_array_mut()) {
        rows.truncate(20 * KEEP);
    }
    if let Some(rows) = v
        .pointer_mut("/states/imbalance")
        .and_then(|p| p.as_array_mut())
    {
        rows.truncate(KEEP);
    }
    v["trimmed"] = true.into();
    let text = script_json(&v);
    if text.len() <= room {
        text
    } else {
        "null".into()
    }
}

/// The levels of detail of the timeline over `(t0, t1)`, coarsest first,
/// in `room` bytes of which `header` are taken: the levels, their columns
/// (from `columns`, halved while the coarsest does not fit), the bytes
/// used, and whether a finer level was left out for want of room.
fn levels_within(
    lod: &Lod<'_>,
    rows: &[Row],
    link_types: Option<&[TypeId]>,
    (t0, t1): (f64, f64),
    columns: u32,
    room: usize,
    header: usize,
) -> (Vec<Level>, u32, usize, bool) {
    let mut levels: Vec<Level> = Vec::new();
    let mut columns = columns.max(1);
    let mut used = header;
    let mut cut = false;
    while levels.len() < MAX_LEVELS as usize {
        let k = levels.len() as u32;
        // A finer level takes at least the bytes of the one before, or
        // adds nothing: when those bytes are not left, it is not made.
        if levels
            .last()
            .is_some_and(|l| l.bytes > room.saturating_sub(used))
        {
            cut = true;
            break;
        }
        let Some(l) = level(
            lod,
            rows,
            link_types,
            (t0, t1),
            k,
            columns,
            room.saturating_sub(used),
        ) else {
            if k == 0 && columns > MIN_COLUMNS {
                columns /= 2;
                continue;
            }
            cut = k > 0;
            break;
        };
        if let Some(last) = levels.last() {
            if l.detail as f64 <= last.detail as f64 * (1.0 + NEW_DETAIL) {
                break;
            }
        }
        used += l.bytes;
        levels.push(l);
    }
    (levels, columns, used, cut)
}

/// The block of tiles: its header (magic, version, span, columns, levels),
/// the size of each tile, then the tiles; `used` bytes in all.
fn tiles_block(levels: &[Level], (t0, t1): (f64, f64), columns: u32, used: usize) -> Vec<u8> {
    let mut block = Vec::with_capacity(used);
    block.extend_from_slice(b"TRTS");
    block.extend_from_slice(&1u32.to_le_bytes());
    block.extend_from_slice(&t0.to_le_bytes());
    block.extend_from_slice(&t1.to_le_bytes());
    block.extend_from_slice(&columns.to_le_bytes());
    block.extend_from_slice(&(levels.len() as u32).to_le_bytes());
    for l in levels {
        for t in &l.tiles {
            block.extend_from_slice(&(t.len() as u32).to_le_bytes());
        }
    }
    for l in levels {
        for t in &l.tiles {
            block.extend_from_slice(t);
        }
    }
    block
}

/// The explorable timeline of `trace` (called `name`), its summary within
/// `opts.budget` bytes.
pub fn offline(trace: &Trace, name: &str, opts: &OfflineOptions) -> Offline {
    let crate::prepare::Described {
        rows,
        mut meta,
        link_types,
        msgs,
        ordering,
    } = crate::prepare::describe(trace, name);
    for (v, c) in meta.values.iter_mut().zip(opts.colors.iter().flatten()) {
        v.color = c.clone();
    }
    // Rows with nothing over the whole run are not shown, as in `trama view`.
    let lod = trama_lod::Lod::new(trace);
    let whole = trama_lod::pyramid::Pyramid::new(
        &lod,
        (meta.start, meta.end),
        &rows,
        link_types.as_deref(),
    );
    crate::prepare::idle(&whole, trace, &mut meta);
    drop((whole, lod));
    let (mut t0, mut t1) = (meta.start, meta.end);
    if t1 <= t0 {
        // A run of no duration: a second around its instant, as windows are.
        t0 -= 0.5;
        t1 = t0 + 1.0;
    }
    let mut out = Offline {
        style: format!("<style>{}</style>", assets::style()),
        body: String::new(),
        embedded: 0,
        levels: 0,
        columns: opts.columns,
        tiles: 0,
        note: None,
    };
    let meta_json = script_json(&serde_json::to_value(&meta).expect("meta as JSON"));
    let budget = opts.budget;
    if meta_json.len() > budget / 2 {
        out.note = Some(format!(
            "the explorable timeline is left out: the description of the trace's {} rows alone \
             would take more than half of the {budget} bytes allowed",
            meta.rows.len()
        ));
        return out;
    }
    let stats_json = stats(
        trace,
        &msgs,
        (meta.start, meta.end.max(meta.start)),
        budget / 20,
    );
    // The player's frames of the whole run, in a fifth of the budget.
    let player = crate::frames::embedded(
        trace,
        ordering.as_ref(),
        &msgs,
        (meta.start, meta.end.max(meta.start)),
        budget / 5,
    )
    .unwrap_or_else(|| "null".into());
    let why = why_json(trace, &meta, budget / 10);
    let info = |levels: usize, columns: u32| {
        format!(
            "{{\"version\":1,\"meta\":{meta_json},\"stats\":{stats_json},\"player\":{player},\"why\":{why},\"levels\":{levels},\"columns\":{columns}}}"
        )
    };
    // Room for the tiles' block, in raw bytes (base64 takes 4 for 3).
    let room = (budget.saturating_sub(info(99, 99_999).len() + 16) / 4) * 3;
    let header = 4 + 4 + 16 + 4 + 4;
    let lod = Lod::new(trace);
    let (levels, columns, used, cut) = levels_within(
        &lod,
        &rows,
        link_types.as_deref(),
        (t0, t1),
        opts.columns,
        room,
        header,
    );
    if levels.is_empty() {
        out.note = Some(format!(
            "the explorable timeline is left out: the whole run at {MIN_COLUMNS} columns would \
             take more than the {budget} bytes allowed"
        ));
        return out;
    }
    let block = tiles_block(&levels, (t0, t1), columns, used);
    let tiles = base64(&block);
    let info = info(levels.len(), columns);
    out.embedded = info.len() + tiles.len();
    out.levels = levels.len() as u32;
    out.columns = columns;
    out.tiles = levels.iter().map(|l| l.tiles.len()).sum();
    if cut {
        out.note = Some(format!(
            "the summary stops at {} level{} of detail ({} columns over the run): a finer one \
             would exceed the {budget} bytes allowed; trama view shows every entity",
            levels.len(),
            if levels.len() == 1 { "" } else { "s" },
            (columns as usize) << (levels.len() - 1),
        ));
    }
    let _ = write!(
        out.body,
        "{markup}\n<script type=\"application/json\" id=\"trama-offline\">{info}</script>\n\
         <script type=\"application/octet-stream\" id=\"trama-tiles\">{tiles}</script>\n\
         <script type=\"module\">\n{script}</script>\n",
        markup = assets::markup(),
        script = assets::bundle(),
    );
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn base64_as_rfc_4648_says() {
        for (raw, text) in [
            ("", ""),
            ("f", "Zg=="),
            ("fo", "Zm8="),
            ("foo", "Zm9v"),
            ("foob", "Zm9vYg=="),
            ("fooba", "Zm9vYmE="),
            ("foobar", "Zm9vYmFy"),
        ] {
            assert_eq!(base64(raw.as_bytes()), text);
            assert_eq!(base64_len(raw.len()), text.len());
        }
    }

    fn trace() -> Trace {
        let mut o = trama_gen::GenOptions::plain();
        o.events = 40_000;
        o.max_containers = 8;
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("t.paje");
        std::fs::write(&path, trama_gen::generate(7, &o)).unwrap();
        trama_open::load(
            &trama_open::Source::Path(path),
            &trama_open::LoadOptions::default(),
        )
        .unwrap()
    }

    /// The data of `body`: the text of its two data scripts.
    fn data(body: &str) -> usize {
        ["trama-offline", "trama-tiles"]
            .iter()
            .map(|id| {
                let open = format!("id=\"{id}\">");
                let start = body.find(&open).unwrap() + open.len();
                body[start..].find("</script>").unwrap()
            })
            .sum()
    }

    #[test]
    fn the_summary_stays_within_its_budget_and_deepens_with_it() {
        let trace = trace();
        let (mut levels, mut whole) = (0, None);
        for budget in [30_000, 100_000, 400_000, BUDGET] {
            let o = OfflineOptions {
                budget,
                ..OfflineOptions::default()
            };
            let page = offline(&trace, "t.paje", &o);
            assert_eq!(page.embedded, data(&page.body));
            assert!(page.embedded <= budget, "{} > {budget}", page.embedded);
            assert!(page.levels >= levels, "{budget}: {} levels", page.levels);
            levels = page.levels;
            assert_eq!(page.tiles, (1 << page.levels) - 1);
            // Without a note, it stopped because a finer level added
            // nothing: a larger budget adds no level.
            if let Some(w) = whole {
                assert_eq!(page.levels, w);
            }
            if page.note.is_none() {
                whole = Some(page.levels);
            }
        }
        assert!(levels >= 3 && whole.is_some(), "{levels} levels");
        // A budget too small for the trace's description: no timeline, a
        // sentence saying why.
        let o = OfflineOptions {
            budget: 1_000,
            ..OfflineOptions::default()
        };
        let page = offline(&trace, "t.paje", &o);
        assert!(page.body.is_empty() && page.embedded == 0);
        assert!(page.note.unwrap().contains("left out"));
    }

    #[test]
    fn script_json_cannot_end_its_script() {
        let v = serde_json::json!({"name": "</script><script>alert(1)</script>"});
        let s = script_json(&v);
        assert!(!s.contains('<'));
        assert_eq!(serde_json::from_str::<serde_json::Value>(&s).unwrap(), v);
    }
}
