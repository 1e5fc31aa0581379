//! `api/selection`: the statistics of an area of the timeline (a window
//! and some containers) are `trama stats states`' rows of those
//! containers over the window, and their messages.

mod common;

use std::path::Path;

use serde_json::Value;
use trama_analysis::{comm_matrix, time_per_state, Messages, Window};
use trama_testkit::http;

fn ring() -> std::path::PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../examples/ring.paje")
}

/// `GET path` on `r`: status and body.
fn get(r: &trama_viewer::Running, what: &str) -> (u16, String) {
    let (addr, base) = http::url_parts(&r.url).unwrap();
    let reply = http::get(addr, &format!("{base}{what}"), addr).unwrap();
    let (status, body) = http::status_and_body(&reply);
    (status, String::from_utf8(body).unwrap())
}

/// `a` and `b` alike, numbers within a relative 1e-12 (JSON's numbers
/// are read back to the nearest double or the next).
fn alike(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Number(x), Value::Number(y)) => {
            let (x, y) = (x.as_f64().unwrap(), y.as_f64().unwrap());
            (x - y).abs() <= 1e-12 * x.abs().max(y.abs()).max(1.0)
        }
        (Value::Array(x), Value::Array(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|(x, y)| alike(x, y))
        }
        (Value::Object(x), Value::Object(y)) => {
            x.len() == y.len() && x.iter().all(|(k, v)| y.get(k).is_some_and(|w| alike(v, w)))
        }
        _ => a == b,
    }
}

/// regression: a selection's time per state is the window's rows of
/// `trama stats states` for the selected containers only (every field,
/// `min` included), its messages the pairs with a selected end; no
/// `containers` is every container; a bad id is a 400 that names it.
#[test]
fn selection_endpoint_keeps_the_selected_containers_rows() {
    let trace = common::load(&ring());
    let picked = ["rank-1", "rank-3"];
    let (start, end) = (0.4, 1.7);
    let w = Window { start, end };
    let cli = serde_json::to_value(time_per_state(&trace, w, None).unwrap()).unwrap();
    let msgs = Messages::select(&trace, &[]).unwrap();
    // The server reads messages' sizes from the field it guesses.
    let size = trama_analysis::guess_size_field(&trace);
    assert!(size.is_some());
    let comm = comm_matrix(&trace, w, &msgs, None, size.as_deref()).unwrap();
    let comm = serde_json::to_value(comm).unwrap();
    let r = common::serve(trace, "ring.paje");
    let meta: Value = serde_json::from_str(&get(&r, "api/meta").1).unwrap();
    let ids: Vec<String> = picked
        .iter()
        .map(|n| {
            let c = meta["containers"].as_array().unwrap().iter();
            let mut c = c.filter(|c| c["name"] == *n);
            c.next().unwrap()["id"].to_string()
        })
        .collect();
    let (status, body) = get(
        &r,
        &format!(
            "api/selection?start={start}&end={end}&containers={}",
            ids.join(",")
        ),
    );
    assert_eq!(status, 200, "{body}");
    let got: Value = serde_json::from_str(&body).unwrap();
    let rows = got["states"]["rows"].as_array().unwrap();
    let want: Vec<&Value> = cli["rows"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|r| picked.contains(&r["container"].as_str().unwrap()))
        .collect();
    assert!(!want.is_empty() && want.len() < cli["rows"].as_array().unwrap().len());
    let want = Value::Array(want.into_iter().cloned().collect());
    assert!(alike(&got["states"]["rows"], &want), "{rows:?}\n{want}");
    assert!(rows
        .iter()
        .all(|r| r["min"].as_f64().unwrap() <= r["max"].as_f64().unwrap()));
    // Messages: the pairs with a selected sender or receiver.
    let pairs = got["comm"]["pairs"].as_array().unwrap();
    let kept = |p: &&Value| {
        picked.contains(&p["from"].as_str().unwrap()) || picked.contains(&p["to"].as_str().unwrap())
    };
    let want_pairs: Vec<&Value> = comm["pairs"]
        .as_array()
        .unwrap()
        .iter()
        .filter(kept)
        .collect();
    assert!(!want_pairs.is_empty());
    let want_pairs = Value::Array(want_pairs.into_iter().cloned().collect());
    assert!(
        alike(&got["comm"]["pairs"], &want_pairs),
        "{pairs:?}\n{want_pairs}"
    );
    // No containers: every row.
    let (status, body) = get(&r, &format!("api/selection?start={start}&end={end}"));
    assert_eq!(status, 200);
    let all: Value = serde_json::from_str(&body).unwrap();
    assert!(alike(&all["states"]["rows"], &cli["rows"]));
    // Bad ids: 400, naming the offender.
    for bad in ["1,zz", "999999", "-1"] {
        let (status, body) = get(&r, &format!("api/selection?start=0&end=1&containers={bad}"));
        assert_eq!(status, 400, "{bad}: {body}");
        let token = bad.rsplit(',').next().unwrap();
        assert!(body.contains(token), "{bad}: {body}");
    }
    r.stop();
}
