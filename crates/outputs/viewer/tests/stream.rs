//! A streamed trace's frames (`trama view --stream`) equal the frames of the
//! same trace held whole, cut at the same instants: each process's state
//! and shares exactly; each message either in its cell, or, when its end had
//! not come when the frame was cut, counted as pending for its sender.

use std::collections::HashMap;

use serde_json::Value;
use trama_open::{LoadOptions, Source};
use trama_testkit::http;
use trama_viewer::{start_stream, Running, StreamOptions, ViewerOptions};

fn get(r: &Running, path: &str) -> Value {
    let after = r.url.split_once("//").unwrap().1;
    let base = &after[after.find('/').unwrap()..];
    let raw = http::get_text(r.addr, &format!("{base}{path}"), &r.addr.to_string()).unwrap();
    let (head, body) = raw.split_once("\r\n\r\n").unwrap();
    assert!(head.starts_with("HTTP/1.1 200"), "{head}\n{body}");
    serde_json::from_str(body).unwrap()
}

/// Every frame the stream of `server` gives until it is done, and the
/// last stage it sent.
fn stream_frames(server: &Running) -> (Vec<Value>, Value) {
    let mut frames = Vec::new();
    let mut stage = Value::Null;
    let mut after = -1i64;
    loop {
        let r = get(server, &format!("api/stream?after={after}&version=0"));
        if !r["stage"].is_null() {
            stage = r["stage"].clone();
        }
        let got = r["frames"].as_array().unwrap().clone();
        if let Some(f) = got.last() {
            after = f["k"].as_i64().unwrap();
        }
        let empty = got.is_empty();
        frames.extend(got);
        if empty && r["done"] == Value::Bool(true) {
            assert!(r["error"].is_null(), "{}", r["error"]);
            break;
        }
        if empty {
            std::thread::sleep(std::time::Duration::from_millis(20));
        }
    }
    (frames, stage)
}

/// The node/arc view of frame `f` (at `t`, `dt` long): variables and
/// shares exact, arcs those complete when the frame was cut; `unique`
/// tells the names that name one container.
fn node_view_agrees(
    trace: &trama_sim::Trace,
    (nstage, nlinks): (&trama_analysis::NodeStage, &trama_analysis::NodeLinks),
    stage: &Value,
    f: &Value,
    (t, dt): (f64, f64),
    unique: &dyn Fn(&str) -> bool,
    checked: &mut (usize, usize, usize, usize, usize),
) {
    let wn = trama_analysis::node_frame(trace, nstage, nlinks, t, dt);
    let sn = &stage["nodes"]["stage"];
    let snodes: Vec<&str> = sn["nodes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|n| n["name"].as_str().unwrap())
        .collect();
    let svars: Vec<&str> = sn["variables"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_str().unwrap())
        .collect();
    let fnodes = &f["nodes"];
    for (i, nd) in nstage.nodes.iter().enumerate() {
        if !unique(&nd.name) {
            continue;
        }
        let j = snodes.iter().position(|n| *n == nd.name).unwrap();
        let got = &fnodes["nodes"][j];
        for (v, x) in wn.nodes[i].variables.iter().enumerate() {
            let k = svars
                .iter()
                .position(|n| *n == nstage.variables[v])
                .unwrap();
            let g = got["variables"][k].as_f64();
            // Sums over a node's containers, in another order.
            let close = match (g, x) {
                (Some(a), Some(b)) => (a - b).abs() <= 1e-9 * b.abs().max(1.0),
                (a, b) => a == *b,
            };
            let what = &nstage.variables[v];
            assert!(close, "{} {what} at {}: {g:?} vs {x:?}", nd.name, f["k"]);
            checked.3 += x.is_some() as usize;
        }
        let shares = got["shares"].as_array().unwrap();
        assert_eq!(
            shares.len(),
            wn.nodes[i].shares.len(),
            "{} at {}",
            nd.name,
            f["k"]
        );
        for (a, b) in shares.iter().zip(&wn.nodes[i].shares) {
            assert!((a[1].as_f64().unwrap() - b.1).abs() < 1e-9);
        }
    }
    let name = |i: u64| nstage.nodes[i as usize].name.clone();
    let key = |a: &Value| {
        (
            snodes[a["from"].as_u64().unwrap() as usize].to_string(),
            snodes[a["to"].as_u64().unwrap() as usize].to_string(),
            a["type"].as_str().unwrap().to_string(),
            a["value"].as_str().unwrap().to_string(),
        )
    };
    let whole_arcs: HashMap<_, u32> = wn
        .arcs
        .iter()
        .map(|a| {
            let k = (
                name(a.from as u64),
                name(a.to as u64),
                a.ty.clone(),
                a.value.clone(),
            );
            (k, a.links)
        })
        .collect();
    let mut all = 0;
    for a in fnodes["arcs"].as_array().unwrap() {
        let n = a["links"].as_u64().unwrap() as u32;
        all += n;
        assert!(n <= whole_arcs.get(&key(a)).copied().unwrap_or(0), "{a}");
        checked.4 += 1;
    }
    if f["pending"].as_array().unwrap().is_empty() {
        assert_eq!(
            all,
            whole_arcs.values().sum::<u32>(),
            "arcs at frame {}",
            f["k"]
        );
    }
}

/// Per host (by index in `stage`), the messages it sends off-host that
/// start up to `until`.
fn off_host_messages(trace: &trama_sim::Trace, stage: &Value, until: f64) -> HashMap<usize, u64> {
    let m = &trace.model;
    let pid: Vec<u64> = stage["processes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["id"].as_u64().unwrap())
        .collect();
    // (Hosts by index: names may repeat.)
    let host: HashMap<u64, usize> = stage["hosts"]
        .as_array()
        .unwrap()
        .iter()
        .enumerate()
        .flat_map(|(k, h)| {
            let ps = h["processes"].as_array().unwrap();
            let pid = &pid;
            ps.iter()
                .map(move |p| (pid[p.as_u64().unwrap() as usize], k))
        })
        .collect();
    let mut off: HashMap<usize, u64> = HashMap::new();
    for (l, info) in m.lists.iter().enumerate() {
        if info.kind != trama_sim::TypeKind::Link {
            continue;
        }
        for i in 0..trace.lists[l].len() {
            let e = trace.entity(trama_sim::ListId(l as u32), i);
            let (Some(a), Some(b)) = (e.from, e.to) else {
                continue;
            };
            if let (Some(ha), Some(hb)) = (host.get(&(a.0 as u64)), host.get(&(b.0 as u64))) {
                if ha != hb && e.start <= until {
                    *off.entry(*ha).or_default() += 1;
                }
            }
        }
    }
    off
}

/// Messages of frame `f`: in their cell, or pending at their sender, as
/// many from each process as in the whole trace's frame `w`.
fn messages_agree(
    wstage: &trama_analysis::Stage,
    w: &trama_analysis::Frame,
    sprocs: &[String],
    f: &Value,
    unique: &dyn Fn(&str) -> bool,
    checked: &mut (usize, usize, usize, usize, usize),
) {
    let mut whole_from: HashMap<String, u64> = HashMap::new();
    let mut whole_cells: HashMap<(String, String), u64> = HashMap::new();
    for c in &w.cells {
        let (a, b) = (
            &wstage.processes[c.from as usize].name,
            &wstage.processes[c.to as usize].name,
        );
        *whole_from.entry(a.clone()).or_default() += c.count as u64;
        whole_cells.insert((a.clone(), b.clone()), c.count as u64);
    }
    let mut stream_from: HashMap<String, u64> = HashMap::new();
    for c in f["cells"].as_array().unwrap() {
        let a = sprocs[c["from"].as_u64().unwrap() as usize].clone();
        let b = sprocs[c["to"].as_u64().unwrap() as usize].clone();
        let n = c["count"].as_u64().unwrap();
        if unique(&a) && unique(&b) {
            assert!(n <= whole_cells.get(&(a.clone(), b)).copied().unwrap_or(0));
            checked.1 += 1;
        }
        *stream_from.entry(a).or_default() += n;
    }
    for p in f["pending"].as_array().unwrap() {
        let a = sprocs[p[0].as_u64().unwrap() as usize].clone();
        *stream_from.entry(a).or_default() += p[1].as_u64().unwrap();
        checked.2 += 1;
    }
    for (a, n) in &whole_from {
        if unique(a) {
            assert_eq!(
                stream_from.get(a).copied().unwrap_or(0),
                *n,
                "messages from {a} at frame {}",
                f["k"]
            );
        }
    }
}

#[test]
fn streamed_frames_equal_the_frames_of_the_whole_trace() {
    let dir = tempfile::tempdir().unwrap();
    let mut checked = (0, 0, 0, 0, 0);
    for seed in [2u64, 5, 9] {
        // A stream is cut in time order: one clock for the whole trace, as
        // tracers and `trama merge` write.
        let mut g = trama_gen::GenOptions::varied(seed, 20_000);
        g.links = true;
        g.global_clock = true;
        g.trailing_definitions = false;
        let path = dir.path().join(format!("g{seed}.paje"));
        std::fs::write(&path, trama_gen::generate(seed, &g)).unwrap();
        let mut lo = LoadOptions::default();
        lo.keep_extras = true;
        let trace = trama_open::load(&Source::Path(path.clone()), &lo).unwrap();
        let (t0, t1) = (trace.start_time(), trace.end_time());
        let nstage = trama_analysis::NodeStage::new(&trace, None, None, false).unwrap();
        let nlinks = trama_analysis::NodeLinks::new(&trace, &nstage);
        let mut v = ViewerOptions::default();
        v.port = Some(0);
        let mut s = StreamOptions::default();
        s.dt = (t1 - t0) / 37.0;
        // Few frames ahead: the simulation waits for the reader.
        s.ahead = 4;
        s.node_level = nstage.level.clone();
        let dt = s.dt;
        let (server, sink) = start_stream(&v, s).unwrap();
        let source = Source::Path(path.clone());
        let lo2 = lo.clone();
        let sim = std::thread::spawn(move || {
            let sim = trama_open::simulate_into(&source, sink, &lo2).unwrap();
            sim.sink.end(&sim.model, Ok(()));
        });
        let (frames, stage) = stream_frames(&server);
        sim.join().unwrap();
        // Frames are numbered from 0 without a gap and cover the run.
        for (i, f) in frames.iter().enumerate() {
            assert_eq!(f["k"].as_u64().unwrap(), i as u64);
        }
        assert!(frames.last().unwrap()["t"].as_f64().unwrap() + dt >= t1 - 1e-9);
        // The whole trace's frames at the same instants.
        let wstage = trama_analysis::Stage::new(&trace, None, None);
        let msgs = trama_analysis::Messages::all();
        let flights = trama_analysis::Flights::new(&trace, &wstage, &msgs);
        let m = &trace.model;
        let mut names: HashMap<String, usize> = HashMap::new();
        for c in &m.containers {
            *names.entry(m.label(c.name)).or_default() += 1;
        }
        let unique = |n: &str| names.get(n) == Some(&1);
        let sprocs: Vec<String> = stage["processes"]
            .as_array()
            .unwrap()
            .iter()
            .map(|p| p["name"].as_str().unwrap().to_string())
            .collect();
        let svalue = |v: &Value| {
            v.as_u64().map(|v| {
                stage["values"][v as usize]["name"]
                    .as_str()
                    .unwrap()
                    .to_string()
            })
        };
        for f in &frames {
            let t = f["t"].as_f64().unwrap();
            let w = trama_analysis::frame(&trace, &wstage, &flights, t, dt, None);
            // The Kiviat radii: the off-host messages started up to the
            // frame's end and received by the cut; at the last frame, all
            // of them (hosts as the stream's final stage has them).
            // (Containers by id: the same in both, made in the same order.)
            let off = off_host_messages(&trace, &stage, t + dt);
            let all: u64 = off.values().sum();

            let sent = f["sent"].as_u64().unwrap();
            if f["k"] == frames.last().unwrap()["k"] {
                assert_eq!(sent, all, "the last frame counts every message");
                for (j, h) in stage["hosts"].as_array().unwrap().iter().enumerate() {
                    let want = off.get(&j).copied().unwrap_or(0);
                    let got = f["kiviat"][j].as_f64().unwrap();
                    assert!((got - want as f64 / all.max(1) as f64).abs() < 1e-12, "{h}");
                }
                checked.2 += sent as usize;
            }
            // States.
            for (i, p) in wstage.processes.iter().enumerate() {
                if !unique(&p.name) {
                    continue;
                }
                let j = sprocs.iter().position(|n| *n == p.name).unwrap();
                let sf = &f["states"][j];
                let want = w.states[i]
                    .value
                    .map(|v| m.label(m.values[v as usize].name));
                assert_eq!(
                    svalue(&sf["value"]),
                    want,
                    "{} at frame {}: stream {sf}, whole {:?}",
                    p.name,
                    f["k"],
                    w.states[i]
                );
                // A process the stage did not have yet: nothing to show.
                let none = Vec::new();
                let shares = sf["shares"].as_array().unwrap_or(&none);
                assert_eq!(shares.len(), w.states[i].shares.len(), "{}", p.name);
                for (a, b) in shares.iter().zip(&w.states[i].shares) {
                    assert!(
                        (a[1].as_f64().unwrap_or(f64::NAN) - b.1).abs() < 1e-9,
                        "{} at frame {}: stream {sf}, whole {:?}",
                        p.name,
                        f["k"],
                        w.states[i]
                    );
                }
                checked.0 += 1;
            }
            messages_agree(&wstage, &w, &sprocs, f, &unique, &mut checked);
            node_view_agrees(
                &trace,
                (&nstage, &nlinks),
                &stage,
                f,
                (t, dt),
                &unique,
                &mut checked,
            );
        }
        server.stop();
    }
    assert!(
        checked.0 > 100 && checked.1 > 20 && checked.3 > 100 && checked.4 > 20,
        "compared: {checked:?}"
    );
}
