//! `api/timeline` in its two encodings (`TRTL`, and `encoding=compact`:
//! `TRTC`, the page's default) decodes, by the page's own decoder
//! (`assets/decode.js`, run by Node), to the same summary: the same
//! window, columns, spans, counts, variables and links, the compact form
//! only leaving out the rows with nothing in the window. Without Node the
//! test prints a note and passes; `TRAMA_REQUIRE_NODE=1` makes it fail.

mod common;

use std::path::{Path, PathBuf};
use std::process::Command;

use trama_testkit::http::{self, status_and_body, url_parts};

/// Node on the PATH, or `None` with a note (a failure under
/// `TRAMA_REQUIRE_NODE=1`).
fn node() -> Option<PathBuf> {
    let found = std::env::var_os("PATH").and_then(|p| {
        std::env::split_paths(&p)
            .flat_map(|d| [d.join("node"), d.join("nodejs")])
            .find(|f| f.is_file())
    });
    if found.is_none() {
        let required = std::env::var_os("TRAMA_REQUIRE_NODE").is_some_and(|v| v == "1");
        assert!(!required, "TRAMA_REQUIRE_NODE=1 but node is not installed");
        eprintln!(
            "note: the encodings' comparison skipped: node is not installed (Debian: nodejs)"
        );
    }
    found
}

/// Decodes each pair of files `N.trtl`, `N.trtc` of `dir` with the page's
/// decoder and compares them, empty rows left out of both.
const COMPARE: &str = r#"
import { readFileSync, readdirSync } from "node:fs";
import { decodeSummary } from "DECODE";
const dir = process.argv[1];
const plain = (o) => JSON.stringify(o, (k, v) =>
  v instanceof Map ? [...v].filter(([, r]) => r.bands.length || r.events.length || r.vars.length || r.sent.length || r.received.length)
  : ArrayBuffer.isView(v) ? Array.from(v) : v);
const read = (f) => { const b = readFileSync(`${dir}/${f}`); return b.buffer.slice(b.byteOffset, b.byteOffset + b.length); };
let n = 0, spans = 0;
for (const f of readdirSync(dir).filter((f) => f.endsWith(".trtl")).sort()) {
  const a = decodeSummary(read(f)), b = decodeSummary(read(f.replace(".trtl", ".trtc")));
  const [x, y] = [plain(a), plain(b)];
  if (x !== y) {
    let i = 0;
    while (x[i] === y[i]) i++;
    console.error(`${f} differs at ${i}:\n${x.slice(i - 200, i + 200)}\n${y.slice(i - 200, i + 200)}`);
    process.exit(1);
  }
  for (const r of a.rows.values()) for (const band of r.bands) for (const l of band.levels) spans += l.length / 4;
  n++;
}
console.log(`${n} ${spans}`);
"#;

/// `path` of the server at `url` (with its token); status and body.
fn get(url: &str, path: &str) -> (u16, Vec<u8>) {
    let (addr, base) = url_parts(url).unwrap();
    status_and_body(&http::get(addr, &format!("{base}{path}"), addr).unwrap())
}

#[test]
fn compact_replies_decode_to_the_same_summary() {
    let Some(node) = node() else { return };
    let Some(shared) = trama_testkit::shared::find("samples/otf2", "the encodings' comparison")
    else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let mut pairs = 0;
    let mut compact_bytes = 0;
    let mut plain_bytes = 0;
    for rel in [
        "otf2/pipit-ping-pong/traces.otf2",
        "paje-real/simgrid/pajengr-simgrid-3.20.90-masterworkers.trace",
    ] {
        let r = common::serve(common::load(&shared.join("samples").join(rel)), rel);
        let (_, meta) = get(&r.url, "api/meta");
        let meta: serde_json::Value = serde_json::from_slice(&meta).unwrap();
        let (t0, t1) = (
            meta["start"].as_f64().unwrap(),
            meta["end"].as_f64().unwrap(),
        );
        let rows = meta["rows"].as_array().unwrap().len();
        let d = t1 - t0;
        // The whole run, zoomed-in windows, a window beyond the run, a
        // subset of rows.
        for (k, (a, b, w, list)) in [
            (t0, t1, 5760, format!("0-{}", rows - 1)),
            (t0 + d * 0.3, t0 + d * 0.4, 1920, format!("0-{}", rows - 1)),
            (t0 + d * 0.5, t0 + d * 0.501, 700, "0,2".into()),
            (t1, t1 + d, 100, "1".into()),
        ]
        .into_iter()
        .enumerate()
        {
            let q = format!("api/timeline?start={a}&end={b}&width={w}&rows={list}");
            let (s1, trtl) = get(&r.url, &q);
            let (s2, trtc) = get(&r.url, &format!("{q}&encoding=compact"));
            assert_eq!((s1, s2), (200, 200), "{rel}: {q}");
            assert_eq!(&trtl[..4], b"TRTL");
            assert_eq!(&trtc[..4], b"TRTC");
            plain_bytes += trtl.len();
            compact_bytes += trtc.len();
            let name = format!("{pairs:02}-{k}");
            std::fs::write(dir.path().join(format!("{name}.trtl")), &trtl).unwrap();
            std::fs::write(dir.path().join(format!("{name}.trtc")), &trtc).unwrap();
        }
        pairs += 4;
        let (status, body) = get(&r.url, "api/timeline?start=0&end=1&width=8&encoding=zip");
        assert_eq!(status, 400, "{}", String::from_utf8_lossy(&body));
    }
    assert!(
        compact_bytes < plain_bytes,
        "compact {compact_bytes} B, plain {plain_bytes} B"
    );
    let decode = Path::new(env!("CARGO_MANIFEST_DIR")).join("assets/decode.js");
    let script = COMPARE.replace("DECODE", &format!("file://{}", decode.display()));
    let out = Command::new(node)
        .args(["--input-type=module", "-e", &script])
        .arg(dir.path())
        .output()
        .unwrap();
    let said = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{said}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let counts: Vec<usize> = said
        .split_whitespace()
        .map(|x| x.parse().unwrap())
        .collect();
    assert_eq!(counts[0], pairs, "every pair compared");
    assert!(counts[1] > 50, "{} spans compared", counts[1]);
}
