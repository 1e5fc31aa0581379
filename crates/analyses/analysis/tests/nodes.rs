//! Frames of the node/arc view agree with the analyses: each node's state
//! shares with `time_per_state` rolled up to the nodes' level, its arcs
//! with `comm_matrix` at that level, its variables with the last value set;
//! and an OpenTS trace gives its ranks, task counts and migrations.

mod common;

use std::collections::HashMap;

use trama_analysis::{
    comm_matrix, node_frame, pair_totals, time_per_state, ArcKind, Indicators, Messages, NodeLinks,
    NodeStage, Window,
};
use trama_sim::TypeKind;

#[test]
fn node_frames_agree_with_the_analyses() {
    let mut checked = [0usize; 3];
    for seed in 1u64..=8 {
        let text = trama_gen::generate(seed, &trama_gen::GenOptions::varied(seed, 40_000));
        let trace = common::simulate(&text, true);
        let msgs = Messages::select(&trace, &[]).unwrap();
        let run = Window::of(&trace);
        // Every container type as the nodes' level.
        let levels: Vec<String> = trace
            .model
            .types
            .iter()
            .filter(|t| t.kind == TypeKind::Container)
            .map(|t| trace.model.label(t.name))
            .collect();
        for level in levels {
            let stage = NodeStage::new(&trace, Some(&level), None, true).unwrap();
            assert_eq!(stage.level.as_deref(), Some(level.as_str()));
            let links = NodeLinks::new(&trace, &stage);
            let names: Vec<&str> = stage.nodes.iter().map(|n| n.name.as_str()).collect();
            let mut seen: HashMap<&str, usize> = HashMap::new();
            for n in &names {
                *seen.entry(n).or_default() += 1;
            }
            let unique = |n: &str| seen.get(n) == Some(&1);
            let value = |v: u32| trace.model.label(trace.model.values[v as usize].name);
            for k in 0..4 {
                let t = run.start + run.len() * (k as f64 + 0.41) / 4.0;
                let dt = run.len() / 30.0;
                let at = format!("seed {seed}, level {level}, t = {t}");
                let f = node_frame(&trace, &stage, &links, t, dt);
                assert_eq!(f.nodes.len(), stage.nodes.len());
                let w = Window {
                    start: t,
                    end: t + dt,
                };
                // State shares × holders × Δ = exclusive time per node.
                let mut want: HashMap<(String, String), f64> = HashMap::new();
                for r in time_per_state(&trace, w, Some(&level))
                    .iter()
                    .flat_map(|s| &s.rows)
                {
                    if r.exclusive > 1e-12 * dt && unique(&r.container) {
                        *want
                            .entry((r.container.clone(), r.value.clone()))
                            .or_default() += r.exclusive;
                    }
                }
                let mut got: HashMap<(String, String), f64> = HashMap::new();
                for (i, n) in f.nodes.iter().enumerate() {
                    if !unique(names[i]) {
                        continue;
                    }
                    for (v, s) in &n.shares {
                        if *s > 1e-12 {
                            *got.entry((names[i].to_string(), value(*v))).or_default() +=
                                s * n.holders as f64 * dt;
                        }
                    }
                }
                assert_eq!(got.len(), want.len(), "{at}: (node, value) with time");
                for (key, x) in &want {
                    let g = got.get(key).copied().unwrap_or(f64::NAN);
                    assert!(
                        (g - x).abs() < 1e-9 * dt.max(1.0),
                        "{at}: {key:?}: {g} vs {x}"
                    );
                    checked[0] += 1;
                }
                // Arcs: the messages overlapping the frame, per pair of
                // nodes (the frame is half-open: as a window a hair
                // narrower).
                let eps = 1e-9 * run.len();
                let inner = Window {
                    start: t + eps,
                    end: t + dt - eps,
                };
                let m = comm_matrix(&trace, inner, &msgs, Some(&level), None).unwrap();
                let want: HashMap<(String, String), u64> = m
                    .pairs
                    .iter()
                    .filter(|p| unique(&p.from) && unique(&p.to))
                    .map(|p| ((p.from.clone(), p.to.clone()), p.count))
                    .collect();
                let mut got: HashMap<(String, String), u64> = HashMap::new();
                for a in &f.arcs {
                    let (x, y) = (names[a.from as usize], names[a.to as usize]);
                    if unique(x) && unique(y) {
                        *got.entry((x.to_string(), y.to_string())).or_default() += a.links as u64;
                    }
                }
                assert_eq!(got, want, "{at}: arcs");
                checked[1] += got.len();
                // Variables: the last value set up to the frame's end, added
                // over the node's containers.
                let mut want: Vec<Vec<Option<f64>>> =
                    vec![vec![None; stage.variables.len()]; stage.nodes.len()];
                for (l, info) in trace.model.lists.iter().enumerate() {
                    if info.kind != TypeKind::Variable {
                        continue;
                    }
                    let Some(node) = stage.node_of(info.container) else {
                        continue;
                    };
                    let name = trace.model.label(trace.model.ty(info.ty).name);
                    let v = stage.variables.iter().position(|x| *x == name).unwrap();
                    let cols = &trace.lists[l];
                    let last = (0..cols.len())
                        .filter(|i| cols.start[*i] <= t + dt)
                        .max_by(|a, b| cols.start[*a].total_cmp(&cols.start[*b]).then(a.cmp(b)));
                    if let Some(i) = last {
                        let slot = &mut want[node as usize][v];
                        *slot = Some(slot.unwrap_or(0.0) + cols.number[i]);
                    }
                }
                for (i, n) in f.nodes.iter().enumerate() {
                    assert_eq!(n.variables, want[i], "{at}: variables of {}", names[i]);
                    for (v, x) in n.variables.iter().enumerate() {
                        if let Some(x) = x {
                            assert!(*x <= stage.maxima[v] + 1e-9, "{at}: above the maximum");
                            checked[2] += 1;
                        }
                    }
                }
            }
        }
    }
    assert!(
        checked.iter().all(|c| *c > 20),
        "too little was compared: {checked:?}"
    );
}

/// The hand-written OpenTS sample of the sources crate.
fn opents_sample() -> trama_sim::Trace {
    let path = trama_testkit::traces::opents_sample();
    let mut o = trama_open::LoadOptions::default();
    o.keep_extras = true;
    trama_open::load(&trama_open::Source::Path(path), &o).unwrap()
}

#[test]
fn an_opents_trace_gives_ranks_task_counts_and_migrations() {
    let trace = opents_sample();
    let stage = NodeStage::new(&trace, None, None, true).unwrap();
    let names: Vec<&str> = stage.nodes.iter().map(|n| n.name.as_str()).collect();
    assert_eq!(names, ["0", "1", "2"]);
    let Indicators::Variables { labels, variables } = &stage.indicators else {
        panic!("task counts expected: {:?}", stage.indicators);
    };
    // In the seed's order, whatever the order of the file.
    assert_eq!(labels, &["started", "exported", "imported", "active"]);
    let var = |name: &str| stage.variables.iter().position(|v| v == name).unwrap();
    assert_eq!(variables[0] as usize, var("tasks_started"));
    let links = NodeLinks::new(&trace, &stage);
    // Times count from the first slice's start: slice 0 is [0, 0.04].
    let f = node_frame(&trace, &stage, &links, 0.0, 0.04);
    let v = |n: usize, name: &str| f.nodes[n].variables[var(name)];
    assert_eq!(v(0, "tasks_started"), Some(16.0));
    assert_eq!(v(0, "tasks_exported"), Some(3.0));
    assert_eq!(v(0, "memory"), Some(512.0));
    assert_eq!(v(1, "tasks_imported"), Some(2.0));
    assert_eq!(v(1, "tasks_started"), None);
    let e = ArcKind::parse("e").unwrap();
    assert_eq!(pair_totals(&f, &e), [(0, 1, 2.0), (0, 2, 1.0)]);
    assert!(pair_totals(&f, &ArcKind::parse("i").unwrap()).is_empty());
    // The next slice's frame does not count them again.
    let next = node_frame(&trace, &stage, &links, 0.04, 0.029);
    assert!(pair_totals(&next, &e).is_empty());
    // Slice 3 ([0.069, 0.112457]): one task from rank 1 back to rank 0.
    let f = node_frame(&trace, &stage, &links, 0.07, 0.002);
    assert_eq!(pair_totals(&f, &e), [(1, 0, 1.0)]);
    assert_eq!(f.nodes[2].variables[var("tasks_active")], Some(1.0));
    let choices: Vec<String> = ArcKind::choices(&stage)
        .into_iter()
        .map(|a| a.key)
        .collect();
    assert_eq!(choices, ["all", "e", "i", "a"]);
    // A level that is not there is named with those that are.
    let err = NodeStage::new(&trace, Some("host"), None, false).unwrap_err();
    assert!(err.contains("\"host\"") && err.contains("rank"), "{err}");
}
