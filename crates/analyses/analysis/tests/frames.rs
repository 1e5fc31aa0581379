//! Frames of the animations agree with the analyses they animate: the
//! state on top of each stack (`states_at`), the exclusive time per value
//! (`time_per_state`), the messages overlapping the frame (`comm_matrix`)
//! and the Kiviat radii (`kiviat`).

mod common;

use std::collections::HashMap;

use trama_analysis::{
    comm_matrix, frame, host_level, kiviat, order, states_at, time_per_state, Flights, Messages,
    Stage, Window,
};

#[test]
fn frames_agree_with_the_analyses() {
    let mut checked = [0usize; 4];
    for seed in 1u64..=10 {
        let text = trama_gen::generate(seed, &trama_gen::GenOptions::varied(seed, 60_000));
        let trace = common::simulate(&text, true);
        let msgs = Messages::select(&trace, &[]).unwrap();
        let run = Window::of(&trace);
        let level = host_level(&trace, &msgs).map(|l| l.name);
        let ordering = level.as_deref().and_then(|l| order(&trace, run, &msgs, l));
        let size = trama_analysis::guess_size_field(&trace);
        let stage = Stage::new(&trace, ordering.as_ref(), size.as_deref());
        let flights = Flights::new(&trace, &stage, &msgs);
        let name = |p: u32| stage.processes[p as usize].name.clone();
        // The analyses compared with name containers: leave out names
        // that several containers have.
        let mut seen: HashMap<String, usize> = HashMap::new();
        for c in &trace.model.containers {
            *seen.entry(trace.model.label(c.name)).or_default() += 1;
        }
        let unique = |n: &str| seen.get(n) == Some(&1);
        let value =
            |v: Option<u32>| v.map(|v| trace.model.label(trace.model.values[v as usize].name));
        for k in 0..12 {
            let t = run.start + run.len() * (k as f64 + 0.37) / 12.0;
            let at = format!("seed {seed}, t = {t}");
            // An instant: the state on top of each stack.
            let f = frame(&trace, &stage, &flights, t, 0.0, Some(run.start));
            let tops = states_at(&trace, t);
            for (p, s) in f.states.iter().enumerate() {
                if !unique(&name(p as u32)) {
                    continue;
                }
                let want = tops.get(&name(p as u32)).map(|c| c.value.clone());
                assert_eq!(value(s.value), want, "{at}: process {}", name(p as u32));
                checked[0] += s.value.is_some() as usize;
            }
            // An interval: each value's share of exclusive time.
            let dt = run.len() / 40.0;
            let f = frame(&trace, &stage, &flights, t, dt, Some(run.start));
            let w = Window {
                start: t,
                end: t + dt,
            };
            let mut want: HashMap<(String, String), f64> = HashMap::new();
            for r in time_per_state(&trace, w, None).iter().flat_map(|s| &s.rows) {
                if r.exclusive > 1e-12 * dt && unique(&r.container) {
                    *want
                        .entry((r.container.clone(), r.value.clone()))
                        .or_default() += r.exclusive / dt;
                }
            }
            let mut got: HashMap<(String, String), f64> = HashMap::new();
            for (p, s) in f.states.iter().enumerate() {
                if !unique(&name(p as u32)) {
                    continue;
                }
                for (v, share) in &s.shares {
                    if *share > 1e-12 {
                        *got.entry((name(p as u32), value(Some(*v)).unwrap()))
                            .or_default() += share;
                    }
                }
                if let (Some(first), Some(max)) = (
                    s.shares.first(),
                    s.shares.iter().map(|x| x.1).max_by(|a, b| a.total_cmp(b)),
                ) {
                    assert_eq!(first.1, max, "{at}: the value shown has the largest share");
                }
            }
            assert_eq!(got.len(), want.len(), "{at}: values with time in the frame");
            for (k, v) in &want {
                let g = got.get(k).copied().unwrap_or(f64::NAN);
                assert!((g - v).abs() < 1e-9, "{at}: {k:?}: frame {g}, stats {v}");
                checked[1] += 1;
            }
            // The messages in flight: the communication matrix of the frame.
            let m = comm_matrix(&trace, w, &msgs, None, size.as_deref()).unwrap();
            let mut pairs: HashMap<(String, String), (u64, Option<f64>)> = HashMap::new();
            for p in &m.pairs {
                pairs.insert((p.from.clone(), p.to.clone()), (p.count, p.rate));
            }
            let all_unique = stage.processes.iter().all(|p| unique(&p.name));
            if flights.unplaced == 0 && all_unique {
                assert_eq!(f.cells.len(), pairs.len(), "{at}: lit cells");
            }
            for c in &f.cells {
                if !unique(&name(c.from)) || !unique(&name(c.to)) {
                    continue;
                }
                let (n, rate) = pairs[&(name(c.from), name(c.to))];
                assert_eq!(c.count as u64, n, "{at}: messages in a cell");
                match (c.rate, rate) {
                    (Some(a), Some(b)) => assert!((a - b).abs() <= 1e-9 * b.abs()),
                    (a, b) => assert_eq!(a, b),
                }
                checked[2] += 1;
            }
            // The Kiviat radii so far.
            if let Some(l) = &level {
                let kv = kiviat(&trace, run, &msgs, l, &[t + dt]).unwrap();
                for (h, share) in kv.hosts.iter().zip(&kv.shares[0]) {
                    if !unique(h) {
                        continue;
                    }
                    let i = stage.hosts.iter().position(|x| &x.name == h).unwrap();
                    assert!((f.kiviat[i] - share).abs() < 1e-12, "{at}: host {h}");
                    checked[3] += (*share > 0.0) as usize;
                }
            }
        }
    }
    assert!(
        checked[..3].iter().all(|n| *n > 100) && checked[3] > 10,
        "compared: {checked:?}"
    );
}
