//! The server's rules: the token, the assets only, GET and HEAD only, the
//! Host header, the security headers, and the summary it sends.

use std::io::{Read, Write};
use std::net::TcpStream;
use std::path::Path;

use trama_open::{LoadOptions, Source};
use trama_testkit::http::{self, status_and_body};
use trama_viewer::{start, Running, ViewerOptions};

fn example() -> trama_sim::Trace {
    let ring = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../examples/ring.paje");
    trama_open::load(&Source::Path(ring), &LoadOptions::default()).unwrap()
}

fn serve() -> Running {
    let mut opts = ViewerOptions::default();
    opts.port = Some(0);
    opts.name = "ring.paje".into();
    start(example(), &opts).unwrap()
}

/// A reply: status, headers (lowercase names), body.
struct Reply {
    status: u16,
    headers: Vec<(String, String)>,
    body: String,
}

impl Reply {
    fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|h| h.0 == name)
            .map(|h| h.1.as_str())
    }
}

/// Sends `method path` with `host` as the Host header.
fn request(r: &Running, method: &str, path: &str, host: &str) -> Reply {
    raw(
        r,
        format!("{method} {path} HTTP/1.1\r\nHost: {host}\r\nConnection: close\r\n\r\n").as_bytes(),
    )
}

/// Sends `bytes` as they are; the reply.
fn raw(r: &Running, bytes: &[u8]) -> Reply {
    let mut s = TcpStream::connect(r.addr).unwrap();
    s.set_read_timeout(Some(std::time::Duration::from_secs(20)))
        .unwrap();
    s.write_all(bytes).unwrap();
    let mut raw = Vec::new();
    let _ = s.read_to_end(&mut raw);
    let raw = String::from_utf8_lossy(&raw).into_owned();
    let (head, body) = raw.split_once("\r\n\r\n").unwrap();
    let mut lines = head.lines();
    let status = lines
        .next()
        .unwrap()
        .split(' ')
        .nth(1)
        .unwrap()
        .parse()
        .unwrap();
    let headers = lines
        .filter_map(|l| l.split_once(": "))
        .map(|(k, v)| (k.to_ascii_lowercase(), v.to_string()))
        .collect();
    Reply {
        status,
        headers,
        body: body.to_string(),
    }
}

/// The URL's path: `/TOKEN/`.
fn base(r: &Running) -> String {
    let after = r.url.split_once("//").unwrap().1;
    after[after.find('/').unwrap()..].to_string()
}

fn host(r: &Running) -> String {
    r.addr.to_string()
}

#[test]
fn the_token_is_random_and_required() {
    let (a, b) = (serve(), serve());
    let (ta, tb) = (base(&a), base(&b));
    assert_ne!(ta, tb);
    assert_eq!(ta.len(), 1 + 32 + 1, "{ta}: 128 bits in hexadecimal");
    assert_eq!(request(&a, "GET", &ta, &host(&a)).status, 200);
    for path in ["/", "/index.html", "/api/meta", &format!("{tb}api/meta")] {
        let reply = request(&a, "GET", path, &host(&a));
        assert_eq!(reply.status, 404, "{path}");
    }
    a.stop();
    b.stop();
}

#[test]
fn only_the_embedded_assets_are_served() {
    let r = serve();
    let t = base(&r);
    for (file, kind) in [
        ("", "text/html"),
        ("app.js", "text/javascript"),
        ("decode.js", "text/javascript"),
        ("source.js", "text/javascript"),
        ("tile.js", "text/javascript"),
        ("offline.js", "text/javascript"),
        ("app.css", "text/css"),
    ] {
        let reply = request(&r, "GET", &format!("{t}{file}"), &host(&r));
        assert_eq!(reply.status, 200, "{file}");
        assert!(reply.header("content-type").unwrap().starts_with(kind));
    }
    for path in [
        "../../../../etc/passwd",
        "..%2f..%2fCargo.toml",
        "%2e%2e/%2e%2e/Cargo.toml",
        "assets/app.js",
        "src/lib.rs",
        "Cargo.toml",
    ] {
        let reply = request(&r, "GET", &format!("{t}{path}"), &host(&r));
        assert_eq!(reply.status, 404, "{path}: {}", reply.body);
        assert!(!reply.body.contains("[package]"), "{path}");
    }
    r.stop();
}

#[test]
fn only_get_and_head_with_a_local_host_header() {
    let r = serve();
    let t = base(&r);
    for m in ["POST", "PUT", "DELETE", "OPTIONS", "PATCH"] {
        let reply = request(&r, m, &t, &host(&r));
        assert_eq!(reply.status, 405, "{m}");
        assert!(reply.header("access-control-allow-origin").is_none());
    }
    assert_eq!(request(&r, "HEAD", &t, &host(&r)).status, 200);
    let port = r.addr.port();
    assert_eq!(
        request(&r, "GET", &t, &format!("localhost:{port}")).status,
        200
    );
    for bad in [
        format!("attacker.example:{port}"),
        format!("127.0.0.1.attacker.example:{port}"),
        format!("127.0.0.1:{}", port.wrapping_add(1)),
    ] {
        assert_eq!(request(&r, "GET", &t, &bad).status, 403, "{bad}");
    }
    r.stop();
}

#[test]
fn every_reply_carries_the_security_headers() {
    let r = serve();
    let t = base(&r);
    for (m, path, h) in [
        ("GET", t.clone(), host(&r)),
        ("GET", format!("{t}api/meta"), host(&r)),
        ("GET", "/nothing".to_string(), host(&r)),
        ("POST", t.clone(), host(&r)),
        ("GET", t.clone(), "attacker.example".to_string()),
    ] {
        let reply = request(&r, m, &path, &h);
        assert_eq!(
            reply.header("content-security-policy"),
            Some("default-src 'self'; frame-ancestors 'none'"),
            "{m} {path} ({})",
            reply.status
        );
        assert_eq!(reply.header("referrer-policy"), Some("no-referrer"));
        assert!(reply.header("access-control-allow-origin").is_none());
    }
    // The page loads nothing inline (the policy forbids it).
    let page = request(&r, "GET", &t, &host(&r)).body;
    assert!(
        !page.contains("<script>") && !page.contains("style="),
        "{page}"
    );
    r.stop();
}

/// Regression: a second Host header naming another site, and a request
/// line holding a URL of another site, were served; hyper's own replies to
/// a request line or head too long carried none of the security headers;
/// API replies could be framed and cached; bound to every address, the
/// URL printed was one a browser cannot open.
#[test]
fn http_details_of_the_view_server() {
    let r = serve();
    let (t, h) = (base(&r), host(&r));
    let two_hosts = raw(
        &r,
        format!(
            "GET {t}api/meta HTTP/1.1\r\nHost: {h}\r\nHost: evil.com\r\nConnection: close\r\n\r\n"
        )
        .as_bytes(),
    );
    assert_eq!(two_hosts.status, 400, "{}", two_hosts.body);
    let absolute = raw(
        &r,
        format!(
            "GET http://evil.com{t}api/meta HTTP/1.1\r\nHost: {h}\r\nConnection: close\r\n\r\n"
        )
        .as_bytes(),
    );
    assert_eq!(absolute.status, 400, "{}", absolute.body);
    let long_line = raw(
        &r,
        format!(
            "GET {t}api/search?q={} HTTP/1.1\r\nHost: {h}\r\n\r\n",
            "a".repeat(70_000)
        )
        .as_bytes(),
    );
    let many = (0..150)
        .map(|i| format!("X-{i}: {i}\r\n"))
        .collect::<String>();
    let many_headers = raw(
        &r,
        format!("GET {t} HTTP/1.1\r\nHost: {h}\r\n{many}\r\n").as_bytes(),
    );
    let large = format!("X-Large: {}\r\n", "b".repeat(8000)).repeat(60);
    let large_head = raw(
        &r,
        format!("GET {t} HTTP/1.1\r\nHost: {h}\r\n{large}\r\n").as_bytes(),
    );
    for (reply, status) in [(&long_line, 414), (&many_headers, 431), (&large_head, 431)] {
        assert_eq!(reply.status, status, "{}", reply.body);
        assert_eq!(
            reply.header("content-security-policy"),
            Some("default-src 'self'; frame-ancestors 'none'")
        );
        assert_eq!(reply.header("x-content-type-options"), Some("nosniff"));
        assert_eq!(reply.header("referrer-policy"), Some("no-referrer"));
    }
    let api = request(&r, "GET", &format!("{t}api/meta"), &h);
    assert_eq!(api.status, 200);
    assert_eq!(api.header("cache-control"), Some("no-store"));
    assert_eq!(api.header("x-frame-options"), Some("DENY"));
    r.stop();
    // Bound to every address: the URL printed opens here, and the others
    // are this machine's addresses.
    let mut opts = ViewerOptions::default();
    opts.port = Some(0);
    opts.address = "0.0.0.0".parse().unwrap();
    let any = start(example(), &opts).unwrap();
    assert!(any.url.starts_with("http://127.0.0.1:"), "{}", any.url);
    assert!(
        any.others.iter().all(|u| !u.contains("0.0.0.0")),
        "{:?}",
        any.others
    );
    let t = base(&any);
    let reply = request(
        &any,
        "GET",
        &format!("{t}api/meta"),
        &format!("127.0.0.1:{}", any.addr.port()),
    );
    assert_eq!(reply.status, 200);
    any.stop();
}

#[test]
fn the_summary_matches_the_trace() {
    let trace = example();
    let r = serve();
    let reply = request(&r, "GET", &format!("{}api/meta", base(&r)), &host(&r));
    assert_eq!(reply.status, 200);
    let v: serde_json::Value = serde_json::from_str(&reply.body).unwrap();
    assert_eq!(v["name"], "ring.paje");
    let containers = v["containers"].as_array().unwrap();
    assert_eq!(containers.len(), trace.model.containers.len());
    let names: Vec<&str> = containers
        .iter()
        .map(|c| c["name"].as_str().unwrap())
        .collect();
    assert!(names.contains(&"rank-3"), "{names:?}");
    let states: usize = trace
        .lists
        .iter()
        .zip(&trace.model.lists)
        .filter(|(_, l)| l.kind == trama_sim::TypeKind::State)
        .map(|(c, _)| c.len())
        .sum();
    assert_eq!(v["counts"]["states"], states);
    assert!(v["end"].as_f64().unwrap() > v["start"].as_f64().unwrap());
    // The seed's order: the Node hosts, each followed by its ranks.
    assert_eq!(v["host_level"], "Node");
    let rows = v["rows"].as_array().unwrap();
    let order: Vec<&str> = v["host_order"]
        .as_array()
        .unwrap()
        .iter()
        .map(|i| {
            rows[i.as_u64().unwrap() as usize]["label"]
                .as_str()
                .unwrap()
        })
        .filter(|l| l.starts_with("node") || l.starts_with("rank"))
        .collect();
    assert_eq!(order.len(), 6, "{order:?}");
    assert!(
        order[0].starts_with("node") && order[1].starts_with("rank"),
        "{order:?}"
    );
    r.stop();
}

#[test]
fn a_window_is_a_binary_summary_and_bad_parameters_get_400() {
    let r = serve();
    let t = base(&r);
    let h = host(&r);
    let raw = |path: &str| status_and_body(&http::get(r.addr, path, &h).unwrap());
    let (status, body) = raw(&format!("{t}api/timeline?start=0&end=2.3&width=640"));
    assert_eq!(status, 200);
    assert_eq!(&body[..4], b"TRTL");
    let u32at = |o: usize| u32::from_le_bytes(body[o..o + 4].try_into().unwrap());
    let f64at = |o: usize| f64::from_le_bytes(body[o..o + 8].try_into().unwrap());
    assert_eq!(u32at(4), 1, "version");
    assert_eq!((f64at(8), f64at(16), u32at(24)), (0.0, 2.3, 640));
    let meta = request(&r, "GET", &format!("{t}api/meta"), &h).body;
    let v: serde_json::Value = serde_json::from_str(&meta).unwrap();
    let rows = v["rows"].as_array().unwrap().len();
    assert_eq!(u32at(32) as usize, rows, "every row by default");
    let (_, some) = raw(&format!(
        "{t}api/timeline?start=0&end=2.3&width=640&rows=1-2"
    ));
    assert_eq!(u32::from_le_bytes(some[32..36].try_into().unwrap()), 2);
    for q in [
        "start=0&end=1",
        "start=a&end=1&width=10",
        "start=1&end=0&width=10",
        "start=0&end=1&width=0",
        "start=0&end=1&width=99999999",
        "start=0&end=1&width=-3",
        "start=0&end=1&width=10&rows=999",
        "start=0&end=NaN&width=10",
    ] {
        let (status, body) = raw(&format!("{t}api/timeline?{q}"));
        assert_eq!(status, 400, "{q}: {}", String::from_utf8_lossy(&body));
        assert!(!body.is_empty(), "{q}: a reason");
    }
    for q in ["row=99&t=1", "row=x&t=1", "row=0", "row=-1&t=1"] {
        let (status, _) = raw(&format!("{t}api/entity?{q}"));
        assert_eq!(status, 400, "{q}");
    }
    r.stop();
}

/// Sends `GET path` with `extra` header lines; the reply's head (lower
/// case) and body as bytes.
fn get_bytes(r: &Running, path: &str, extra: &str) -> (String, Vec<u8>) {
    let h = host(r);
    let mut s = TcpStream::connect(r.addr).unwrap();
    s.set_read_timeout(Some(std::time::Duration::from_secs(20)))
        .unwrap();
    let req = format!("GET {path} HTTP/1.1\r\nHost: {h}\r\n{extra}Connection: close\r\n\r\n");
    s.write_all(req.as_bytes()).unwrap();
    let mut raw = Vec::new();
    let _ = s.read_to_end(&mut raw);
    let at = raw.windows(4).position(|w| w == b"\r\n\r\n").unwrap();
    let head = String::from_utf8_lossy(&raw[..at]).to_ascii_lowercase();
    let mut body = raw[at + 4..].to_vec();
    if head.contains("transfer-encoding: chunked") {
        body = dechunk(&body);
    }
    (head, body)
}

/// The bytes of a chunked body.
fn dechunk(mut b: &[u8]) -> Vec<u8> {
    let mut out = Vec::new();
    loop {
        let eol = b.windows(2).position(|w| w == b"\r\n").unwrap();
        let size =
            usize::from_str_radix(std::str::from_utf8(&b[..eol]).unwrap().trim(), 16).unwrap();
        if size == 0 {
            return out;
        }
        out.extend_from_slice(&b[eol + 2..eol + 2 + size]);
        b = &b[eol + 4 + size..];
    }
}

/// regression: API replies cross a remote link compressed: a window's
/// summary comes compressed with zstd when the client accepts it, else
/// gzip, smaller, and decodes to the same bytes; without either (or with
/// `q=0`) as it is; small replies as they are.
#[test]
fn api_replies_are_compressed_for_clients_that_accept_it() {
    use std::io::Read as _;
    let r = serve();
    let t = base(&r);
    let path = format!("{t}api/timeline?start=0&end=2.3&width=1920");
    let (head, plain) = get_bytes(&r, &path, "");
    assert!(!head.contains("content-encoding"), "{head}");
    assert!(head.contains("vary: accept-encoding"), "{head}");
    assert!(plain.len() > 1024, "{} bytes", plain.len());
    let (head, zipped) = get_bytes(&r, &path, "Accept-Encoding: gzip, deflate\r\n");
    assert!(head.contains("content-encoding: gzip"), "{head}");
    assert!(head.contains("cache-control: no-store"), "{head}");
    assert!(
        zipped.len() < plain.len(),
        "{} of {}",
        zipped.len(),
        plain.len()
    );
    let mut unzipped = Vec::new();
    flate2::read::GzDecoder::new(&zipped[..])
        .read_to_end(&mut unzipped)
        .unwrap();
    assert_eq!(unzipped, plain);
    // zstd when the client takes it (as browsers do).
    let (head, packed) = get_bytes(&r, &path, "Accept-Encoding: gzip, deflate, br, zstd\r\n");
    assert!(head.contains("content-encoding: zstd"), "{head}");
    assert!(
        packed.len() < plain.len(),
        "{} of {}",
        packed.len(),
        plain.len()
    );
    assert_eq!(zstd::decode_all(&packed[..]).unwrap(), plain);
    let (head, refused) = get_bytes(&r, &path, "Accept-Encoding: gzip;q=0\r\n");
    assert!(!head.contains("content-encoding"), "{head}");
    assert_eq!(refused, plain);
    let (head, _) = get_bytes(&r, &format!("{t}api/progress"), "Accept-Encoding: gzip\r\n");
    assert!(!head.contains("content-encoding"), "a small reply: {head}");
    r.stop();
}

/// 8 clients × 200 random window queries on a generated trace: every one
/// answered. The latencies are printed (`--nocapture`), not asserted.
#[test]
fn many_clients_asking_random_windows_are_all_answered() {
    let text = trama_gen::generate(7, &trama_gen::GenOptions::varied(7, 200_000));
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("big.paje");
    std::fs::write(&path, text).unwrap();
    let trace = trama_open::load(&Source::Path(path), &LoadOptions::default()).unwrap();
    let (t0, t1) = (trace.start_time(), trace.end_time());
    let mut opts = ViewerOptions::default();
    opts.port = Some(0);
    let r = start(trace, &opts).unwrap();
    let meta = request(&r, "GET", &format!("{}api/meta", base(&r)), &host(&r)).body;
    let rows = serde_json::from_str::<serde_json::Value>(&meta).unwrap()["rows"]
        .as_array()
        .unwrap()
        .len();
    let clients: Vec<_> = (0..8u64)
        .map(|c| {
            let (t, h, addr) = (base(&r), host(&r), r.addr);
            std::thread::spawn(move || {
                let mut seed = 0x9e37_79b9_7f4a_7c15u64 ^ c;
                let mut rnd = || {
                    seed ^= seed << 13;
                    seed ^= seed >> 7;
                    seed ^= seed << 17;
                    (seed >> 11) as f64 / (1u64 << 53) as f64
                };
                let mut times = Vec::new();
                for _ in 0..200 {
                    let a = t0 + (t1 - t0) * rnd();
                    let len = (t1 - t0) * rnd().powi(4) + 1e-6;
                    let first = (rnd() * rows as f64) as usize;
                    let q = format!(
                        "{t}api/timeline?start={a}&end={}&width=1920&rows={first}-{}",
                        a + len,
                        (first + 40).min(rows - 1)
                    );
                    let start = std::time::Instant::now();
                    let b = http::get(addr, &q, &h).unwrap();
                    times.push(start.elapsed().as_secs_f64());
                    assert!(
                        b.starts_with(b"HTTP/1.1 200"),
                        "{q}: {}",
                        String::from_utf8_lossy(&b[..b.len().min(200)])
                    );
                }
                times
            })
        })
        .collect();
    let mut all: Vec<f64> = clients
        .into_iter()
        .flat_map(|c| c.join().unwrap())
        .collect();
    all.sort_by(f64::total_cmp);
    assert_eq!(all.len(), 1600);
    eprintln!(
        "1600 window queries, 8 clients: median {:.1} ms, 95th percentile {:.1} ms",
        1e3 * all[800],
        1e3 * all[1520]
    );
    r.stop();
}

/// A platform's topology (SimGrid's links that all last 0 s) is not drawn
/// as messages, and the summary says so.
#[test]
fn topology_links_are_left_out_and_said() {
    let Some(shared) = trama_testkit::shared::find("samples/paje-real", "real traces") else {
        return;
    };
    let mw = shared.join("samples/paje-real/simgrid/pajengr-simgrid-3.20.90-masterworkers.trace");
    let trace = trama_open::load(&Source::Path(mw), &LoadOptions::default()).unwrap();
    let (t0, t1) = (trace.start_time(), trace.end_time());
    let mut opts = ViewerOptions::default();
    opts.port = Some(0);
    let r = start(trace, &opts).unwrap();
    let meta = request(&r, "GET", &format!("{}api/meta", base(&r)), &host(&r)).body;
    let v: serde_json::Value = serde_json::from_str(&meta).unwrap();
    assert_eq!(v["counts"]["links"], 46);
    // The platform's link containers hold nothing: their rows are not
    // shown, and the notes say so; the hosts above the processes stay.
    let rows = v["rows"].as_array().unwrap();
    let label = |i: &serde_json::Value| rows[i.as_u64().unwrap() as usize]["label"].clone();
    let idle: Vec<serde_json::Value> = v["idle"].as_array().unwrap().iter().map(label).collect();
    assert!(idle.len() >= 10 && idle.len() < rows.len(), "{idle:?}");
    for shown in ["Tremblay", "master-1", "worker-2"] {
        assert!(
            !idle.contains(&serde_json::json!(shown)),
            "{shown}: {idle:?}"
        );
    }
    assert!(idle.contains(&serde_json::json!("7")), "{idle:?}");
    let notes = v["notes"].as_array().unwrap();
    assert!(
        notes
            .iter()
            .any(|n| n.as_str().unwrap().contains("nothing over the whole run")),
        "{notes:?}"
    );
    assert!(
        notes
            .iter()
            .any(|n| n.as_str().unwrap().contains("all last 0 s")),
        "{notes:?}"
    );
    let path = format!(
        "{}api/timeline?start={}&end={}&width=800",
        base(&r),
        t0 - 0.1,
        t1
    );
    let b = http::get(r.addr, &path, &host(&r)).unwrap();
    let body = &b[b.windows(4).position(|w| w == b"\r\n\r\n").unwrap() + 4..];
    // The links' totals follow the rows; find them from the end: the last
    // u32 is the number of links given one by one, before it three f64.
    let n_each = u32::from_le_bytes(body[body.len() - 4..].try_into().unwrap());
    let total = f64::from_le_bytes(body[body.len() - 28..body.len() - 20].try_into().unwrap());
    assert_eq!((n_each, total), (0, 0.0));
    r.stop();
}

/// The server answers while the trace is read: progress, 503 with
/// Retry-After, then the trace; a failed read is a 500 with its reason.
#[test]
fn the_server_answers_while_the_trace_loads() {
    use std::sync::atomic::{AtomicU64, Ordering};
    use std::sync::{mpsc, Arc};
    use trama_viewer::{start_loading, Loading};
    let (go, wait) = mpsc::channel::<()>();
    let done = Arc::new(AtomicU64::new(0));
    let loading = Loading {
        done: done.clone(),
        total: Some(1000),
        unit: "bytes",
    };
    let mut opts = ViewerOptions::default();
    opts.port = Some(0);
    let r = start_loading(
        move || {
            wait.recv().unwrap();
            Ok(trama_viewer::Input::Whole(example()))
        },
        Some(loading),
        &opts,
    )
    .unwrap();
    let (t, h) = (base(&r), host(&r));
    done.store(420, Ordering::Relaxed);
    let p = request(&r, "GET", &format!("{t}api/progress"), &h);
    let v: serde_json::Value = serde_json::from_str(&p.body).unwrap();
    assert_eq!(
        (v["state"].as_str(), v["done"].as_u64(), v["total"].as_u64()),
        (Some("loading"), Some(420), Some(1000))
    );
    let m = request(&r, "GET", &format!("{t}api/meta"), &h);
    assert_eq!(m.status, 503);
    assert_eq!(m.header("retry-after"), Some("1"));
    // The page itself is served meanwhile.
    assert_eq!(request(&r, "GET", &t, &h).status, 200);
    go.send(()).unwrap();
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(20);
    while request(&r, "GET", &format!("{t}api/meta"), &h).status != 200 {
        assert!(std::time::Instant::now() < deadline, "never loaded");
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    r.stop();

    let f = start_loading(|| Err("ring.paje:3: no such event".into()), None, &opts).unwrap();
    let (t, h) = (base(&f), host(&f));
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(20);
    loop {
        let p = request(&f, "GET", &format!("{t}api/progress"), &h);
        let v: serde_json::Value = serde_json::from_str(&p.body).unwrap();
        if v["state"] == "failed" {
            assert_eq!(v["error"], "ring.paje:3: no such event");
            break;
        }
        assert!(std::time::Instant::now() < deadline, "never failed");
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    let m = request(
        &f,
        "GET",
        &format!("{t}api/timeline?start=0&end=1&width=9"),
        &h,
    );
    assert_eq!(m.status, 500);
    assert!(m.body.contains("no such event"), "{}", m.body);
    f.stop();
}
