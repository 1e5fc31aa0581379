//! Summaries of hand-made traces, column by column, and of random traces
//! against a computation column by column over every entity.
#![allow(clippy::result_large_err)]

use proptest::prelude::*;
use trama_lod::{rows, Grid, Lod, Query, Row, StateSpan, Summary, MAX_LEVELS};
use trama_paje::{read_paje, ReadOptions};
use trama_sim::{ListId, Trace, TypeKind, ValueId};
use trama_testkit::traces::simulated;

const HEADER: &str = "%EventDef PajeDefineContainerType 0\n% Alias string\n% Type string\n% Name string\n%EndEventDef\n\
%EventDef PajeDefineStateType 1\n% Alias string\n% Type string\n% Name string\n%EndEventDef\n\
%EventDef PajeDefineEventType 2\n% Alias string\n% Type string\n% Name string\n%EndEventDef\n\
%EventDef PajeDefineVariableType 3\n% Alias string\n% Type string\n% Name string\n%EndEventDef\n\
%EventDef PajeDefineLinkType 4\n% Alias string\n% Type string\n% StartContainerType string\n% EndContainerType string\n% Name string\n%EndEventDef\n\
%EventDef PajeCreateContainer 5\n% Time date\n% Alias string\n% Type string\n% Container string\n% Name string\n%EndEventDef\n\
%EventDef PajeSetState 6\n% Time date\n% Type string\n% Container string\n% Value string\n%EndEventDef\n\
%EventDef PajePushState 7\n% Time date\n% Type string\n% Container string\n% Value string\n%EndEventDef\n\
%EventDef PajePopState 8\n% Time date\n% Type string\n% Container string\n%EndEventDef\n\
%EventDef PajeNewEvent 9\n% Time date\n% Type string\n% Container string\n% Value string\n%EndEventDef\n\
%EventDef PajeSetVariable 10\n% Time date\n% Type string\n% Container string\n% Value double\n%EndEventDef\n\
%EventDef PajeStartLink 11\n% Time date\n% Type string\n% Container string\n% StartContainer string\n% Value string\n% Key string\n%EndEventDef\n\
%EventDef PajeEndLink 12\n% Time date\n% Type string\n% Container string\n% EndContainer string\n% Value string\n% Key string\n%EndEventDef\n\
0 P 0 Proc\n1 S P State\n2 E P Mark\n3 V P Load\n4 L 0 P P Msg\n";

fn simulate(body: &str) -> Trace {
    let text = format!("{HEADER}{body}");
    simulated(false, |sim| {
        read_paje(text.as_bytes(), &ReadOptions::default(), |ev| {
            sim.event(&ev)
        })
        .ok()
    })
    .expect("valid")
}

fn value(t: &Trace, name: &str) -> ValueId {
    let m = &t.model;
    (0..m.values.len() as u32)
        .map(ValueId)
        .find(|v| m.str(m.value(*v).name) == name.as_bytes())
        .unwrap_or_else(|| panic!("no value {name}"))
}

fn query(window: (f64, f64), width: u32) -> Query {
    let mut q = Query::default();
    q.window = Some(window);
    q.width = width;
    q
}

fn summarize(t: &Trace, window: (f64, f64), width: u32) -> Summary {
    Lod::new(t).summarize(&rows(t, None), &query(window, width))
}

fn span(x0: u32, x1: u32, value: ValueId, mixed: bool, count: u32) -> StateSpan {
    StateSpan {
        x0,
        x1,
        value,
        mixed,
        count,
    }
}

#[test]
fn nested_states_keep_their_level() {
    // The smpi-replay case: computing inside action_reduce.
    let t = simulate(
        "5 0 p1 P 0 p1\n7 0 S p1 action_reduce\n7 2 S p1 computing\n8 4 S p1\n8 10 S p1\n",
    );
    let s = summarize(&t, (0.0, 10.0), 10);
    let (reduce, computing) = (value(&t, "action_reduce"), value(&t, "computing"));
    let band = &s.rows[0].states[0];
    assert_eq!(band.levels.len(), 2);
    assert_eq!(band.levels[0], vec![span(0, 10, reduce, false, 1)]);
    assert_eq!(band.levels[1], vec![span(2, 4, computing, false, 1)]);
}

#[test]
fn an_outer_state_begun_long_before_the_window_is_found() {
    // 2,000 nested states inside one that spans the trace: the window in
    // the middle finds the outer one through the open states kept every
    // 256 entities, not by reading from the start.
    let mut body = String::from("5 0 p1 P 0 p1\n7 0 S p1 main\n");
    for i in 0..2000 {
        body.push_str(&format!(
            "7 {} S p1 work\n8 {} S p1\n",
            i + 1,
            i as f64 + 1.5
        ));
    }
    body.push_str("8 3000 S p1\n");
    let t = simulate(&body);
    let s = summarize(&t, (1500.25, 1502.25), 4);
    let (main, work) = (value(&t, "main"), value(&t, "work"));
    let levels = &s.rows[0].states[0].levels;
    assert_eq!(levels[0], vec![span(0, 4, main, false, 1)]);
    // Half-second columns from 1500.25: each holds one state of work.
    assert_eq!(levels[1], vec![span(0, 4, work, false, 1)]);
}

/// Regression: states nested one in the other, as deep as the trace
/// goes, each kept the whole stack at every checkpoint (7.9 GB for a
/// million) and were all summarized, level by level, for a picture that
/// shows a few. A summary gives the outermost `MAX_LEVELS` levels, each
/// as the trace has it, also in a window whose states began long before.
#[test]
fn deep_state_nesting_summary_is_bounded_by_the_picture() {
    let n = 20_000;
    let mut body = String::from("5 0 p1 P 0 p1\n");
    for k in 0..n {
        body.push_str(&format!("7 {} S p1 v{}\n", k + 1, k % 3));
    }
    for k in (0..n).rev() {
        body.push_str(&format!("8 {} S p1\n", 2 * n - k));
    }
    let t = simulate(&body);
    let v = |k: usize| value(&t, &format!("v{}", k % 3));
    let whole = 2.0 * n as f64;
    for window in [(0.0, whole), (whole / 2.0 - 1.0, whole / 2.0 + 1.0)] {
        let s = summarize(&t, window, 8);
        let levels = &s.rows[0].states[0].levels;
        assert_eq!(levels.len(), MAX_LEVELS, "{window:?}");
        for (k, spans) in levels.iter().enumerate() {
            // State k lasts from k + 1 to 2n - k: all the picture, but the
            // first column of the whole trace's for the deepest shown.
            assert_eq!(spans.last().map(|x| (x.value, x.x1)), Some((v(k), 8)));
        }
    }
}

#[test]
fn a_column_shows_the_value_covering_most_time_and_says_mixed() {
    let t = simulate("5 0 p1 P 0 p1\n6 0 S p1 A\n6 0.3 S p1 B\n6 1 S p1 A\n6 3 S p1 B\n");
    let (a, b) = (value(&t, "A"), value(&t, "B"));
    let s = summarize(&t, (0.0, 2.0), 2);
    // Column 0: A 0.3, B 0.7; column 1: A alone (B ends where it starts).
    assert_eq!(
        s.rows[0].states[0].levels[0],
        vec![span(0, 1, b, true, 2), span(1, 2, a, false, 1)]
    );
    // Ties go to the value with more states, then to the lowest id.
    let t = simulate(
        "5 0 p1 P 0 p1\n6 0 S p1 A\n6 0.25 S p1 B\n6 0.5 S p1 A\n6 0.75 S p1 B\n6 1 S p1 C\n6 1.25 S p1 B\n6 1.5 S p1 B\n6 3 S p1 A\n",
    );
    let s = summarize(&t, (0.0, 2.0), 2);
    let (a, b) = (value(&t, "A"), value(&t, "B"));
    let cells = &s.rows[0].states[0].levels[0];
    assert_eq!(cells[0], span(0, 1, a.min(b), true, 4));
    assert_eq!(cells[1], span(1, 2, b, true, 3));
}

#[test]
fn events_variables_and_hidden_rows_per_column() {
    let t = simulate(
        "5 0 p1 P 0 p1\n5 0 p2 P 0 p2\n9 1 E p1 x\n9 1.5 E p1 x\n9 3 E p1 y\n\
         10 0 V p1 4\n10 1.2 V p1 2\n10 1.6 V p1 9\n10 3 V p1 1\n6 3.5 S p1 A\n",
    );
    let s = summarize(&t, (0.0, 4.0), 4);
    let r: Vec<Row> = s.rows.iter().map(|r| r.row).collect();
    // p2 never set its variable: it has no row for it.
    assert_eq!(r.len(), 3, "p1, its variable, p2: {r:?}");
    let p1 = &s.rows[0];
    let ev: Vec<(u32, u32)> = p1.events.iter().map(|c| (c.x, c.count)).collect();
    assert_eq!(ev, vec![(1, 2), (3, 1)]);
    let load = s.rows.iter().find(|r| r.row.variable.is_some()).unwrap();
    let v: Vec<(u32, u32, f64, f64, f64)> = load
        .variable
        .iter()
        .map(|v| (v.x0, v.x1, v.min, v.max, v.last))
        .collect();
    assert_eq!(
        v,
        vec![
            (0, 1, 4.0, 4.0, 4.0),
            (1, 2, 2.0, 9.0, 9.0),
            (2, 3, 9.0, 9.0, 9.0),
            (3, 4, 1.0, 1.0, 1.0)
        ]
    );
    // 9 ends exactly where column 3 begins: it is not in it; a column
    // where it changes has both.
    let s = summarize(&t, (0.0, 4.0), 2);
    let load = s.rows.iter().find(|r| r.row.variable.is_some()).unwrap();
    assert_eq!(
        (
            load.variable[1].min,
            load.variable[1].max,
            load.variable[1].last
        ),
        (1.0, 9.0, 1.0)
    );
    // p2 has nothing in the window.
    let empty: Vec<bool> = s.rows.iter().map(|r| r.is_empty()).collect();
    assert_eq!(empty, vec![false, false, true]);
    assert_eq!(s.rows[2].row.container, r[2].container);
}

#[test]
fn few_links_come_one_by_one_many_as_density() {
    let mut body = String::from("5 0 p1 P 0 p1\n5 0 p2 P 0 p2\n");
    for k in 0..40 {
        let t = 1.0 + k as f64 * 0.01;
        body.push_str(&format!(
            "11 {t} L 0 p1 m k{k}\n12 {} L 0 p2 m k{k}\n",
            t + 0.5
        ));
    }
    // One lone message far from the others.
    body.push_str("11 8 L 0 p2 m lone\n12 9 L 0 p1 m lone\n");
    let t = simulate(&body);
    let rows = rows(&t, None);
    let lod = Lod::new(&t);
    let mut q = query((0.0, 10.0), 100);
    let s = lod.summarize(&rows, &q);
    assert_eq!(
        (s.links.total, s.links.each.len(), s.links.dense),
        (41, 41, 0)
    );
    q.max_links = 10;
    let s = lod.summarize(&rows, &q);
    assert_eq!(s.links.total, 41);
    // The lone one stays an arrow; the burst is counted per column.
    assert_eq!(s.links.each.len(), 1);
    let lone = s.links.each[0];
    assert_eq!((lone.start, lone.end), (8.0, 9.0));
    assert_eq!(s.links.dense, 40);
    let p1 = s
        .rows
        .iter()
        .position(|r| r.row.variable.is_none())
        .unwrap();
    let sent: u32 = s.rows[p1].sent.iter().map(|c| c.count).sum();
    let got: u32 = s
        .rows
        .iter()
        .map(|r| r.received.iter().map(|c| c.count).sum::<u32>())
        .sum();
    assert_eq!((sent, got), (40, 40));
    assert_eq!(s.rows[p1].sent[0].x, 10);
    // A window without them has no links, and says nothing is there.
    let s = lod.summarize(&rows, &query((2.0, 7.0), 50));
    assert_eq!(s.links.total, 0);
    assert!(s.rows.iter().all(|r| r.is_empty()));
}

#[test]
fn a_trace_at_one_instant_gets_a_widened_window() {
    let t = simulate("5 0 p1 P 0 p1\n6 0 S p1 A\n9 0 E p1 x\n");
    let lod = Lod::new(&t);
    let mut q = Query::default();
    q.width = 100;
    let s = lod.summarize(&rows(&t, None), &q);
    assert!(s.grid.widened);
    assert_eq!((s.grid.t0, s.grid.t1), (-0.5, 0.5));
    assert_eq!(s.rows[0].events[0].x, 50);
    assert_eq!(s.rows[0].states[0].levels[0][0].x0, 50);
}

/// Per column of one level of one state list, over every entity:
/// (dominant, mixed, count).
fn brute_states(t: &Trace, l: ListId, g: &Grid, level: u32) -> Vec<Option<(ValueId, bool, u32)>> {
    let c = t.columns(l);
    (0..g.width)
        .map(|x| {
            let mut parts: Vec<(ValueId, f64, u32)> = Vec::new();
            for i in 0..c.len() {
                if c.level[i] != level {
                    continue;
                }
                let Some((a, b)) = g.columns(c.start[i], c.end[i]) else {
                    continue;
                };
                if a <= x && x <= b {
                    let cover = g.cover(c.start[i], c.end[i], x);
                    match parts.iter_mut().find(|p| p.0 == c.value[i]) {
                        Some(p) => {
                            p.1 += cover;
                            p.2 += 1;
                        }
                        None => parts.push((c.value[i], cover, 1)),
                    }
                }
            }
            let n = parts.iter().map(|p| p.2).sum();
            let mut best: Option<(ValueId, f64, u32)> = None;
            for p in &parts {
                let take = best.is_none_or(|b| {
                    (p.1, p.2, std::cmp::Reverse(p.0)) > (b.1, b.2, std::cmp::Reverse(b.0))
                });
                if take {
                    best = Some(*p);
                }
            }
            best.map(|b| (b.0, parts.len() > 1, n))
        })
        .collect()
}

fn expand(spans: &[StateSpan], w: u32) -> Vec<Option<(ValueId, bool, u32)>> {
    let mut v = vec![None; w as usize];
    for s in spans {
        for x in s.x0..s.x1 {
            assert!(v[x as usize].is_none(), "column {x} twice");
            v[x as usize] = Some((s.value, s.mixed, s.count));
        }
    }
    v
}

/// Builds a trace from random operations: `(step, container, op, value)`.
fn random_trace(ops: &[(u8, u8, u8, u8)]) -> Trace {
    let mut body = String::from("5 0 p0 P 0 p0\n5 0 p1 P 0 p1\n5 0 p2 P 0 p2\n");
    let mut t = 0.0;
    let mut depth = [0usize; 3];
    let mut open: Vec<(usize, String)> = Vec::new();
    for (k, &(step, c, op, v)) in ops.iter().enumerate() {
        t += [0.0, 0.25, 1.0, 3.5][step as usize % 4];
        let c = c as usize % 3;
        let v = ["A", "B", "C"][v as usize % 3];
        match op % 16 {
            0 => {
                body.push_str(&format!("6 {t} S p{c} {v}\n"));
                depth[c] = 1;
            }
            1..=5 => {
                body.push_str(&format!("7 {t} S p{c} {v}\n"));
                depth[c] += 1;
            }
            6..=9 if depth[c] > 0 => {
                body.push_str(&format!("8 {t} S p{c}\n"));
                depth[c] -= 1;
            }
            10 | 11 => body.push_str(&format!("9 {t} E p{c} {v}\n")),
            12 | 13 => body.push_str(&format!("10 {t} V p{c} {}\n", v.len() + k % 7)),
            _ => {
                if let Some(i) = (!open.is_empty()).then(|| k % open.len()) {
                    let (_, key) = open.remove(i);
                    body.push_str(&format!("12 {t} L 0 p{c} m {key}\n"));
                } else {
                    let key = format!("k{k}");
                    body.push_str(&format!("11 {t} L 0 p{c} m {key}\n"));
                    open.push((c, key));
                }
            }
        }
    }
    for (c, key) in open {
        body.push_str(&format!("12 {t} L 0 p{c} m {key}\n"));
    }
    simulate(&body)
}

fn check(t: &Trace, window: (f64, f64), width: u32, max_links: usize) {
    let rows = rows(t, None);
    let mut q = query(window, width);
    q.max_links = max_links;
    let s = Lod::new(t).summarize(&rows, &q);
    let g = s.grid;
    let m = &t.model;
    let mut links_in = 0u64;
    for (l, info) in m.lists.iter().enumerate() {
        let c = t.columns(ListId(l as u32));
        if info.kind == TypeKind::Link {
            links_in += (0..c.len())
                .filter(|&i| {
                    let (a, b) = (c.start[i], c.end[i]);
                    g.columns(a.min(b), a.max(b)).is_some()
                })
                .count() as u64;
        }
    }
    assert_eq!(s.links.total, links_in);
    assert_eq!(s.links.each.len() as u64 + s.links.dense, s.links.total);
    let dense: u32 = s
        .rows
        .iter()
        .map(|r| r.sent.iter().map(|c| c.count).sum::<u32>())
        .sum();
    assert_eq!(dense as u64, s.links.dense);
    for r in &s.rows {
        match r.row.variable {
            Some(l) => {
                let c = t.columns(l);
                let mut want: Vec<Option<(f64, f64, f64)>> = vec![None; g.width as usize];
                for i in 0..c.len() {
                    if let Some((a, b)) = g.columns(c.start[i], c.end[i]) {
                        for x in a..=b {
                            let n = c.number[i];
                            let w = &mut want[x as usize];
                            *w = Some(w.map_or((n, n, n), |(lo, hi, _)| (lo.min(n), hi.max(n), n)));
                        }
                    }
                }
                let mut got = vec![None; g.width as usize];
                for s in &r.variable {
                    for x in s.x0..s.x1 {
                        got[x as usize] = Some((s.min, s.max, s.last));
                    }
                }
                assert_eq!(got, want, "variable {l:?}");
            }
            None => {
                for &(_, l) in &m.container(r.row.container).lists {
                    let c = t.columns(l);
                    match m.list(l).kind {
                        TypeKind::State => {
                            let band = r.states.iter().find(|b| b.list == l);
                            let top = c.level.iter().copied().max().unwrap_or(0);
                            for level in 0..=top {
                                let want = brute_states(t, l, &g, level);
                                let got = band
                                    .and_then(|b| b.levels.get(level as usize))
                                    .map_or(vec![None; g.width as usize], |s| expand(s, g.width));
                                assert_eq!(got, want, "level {level} of {l:?}");
                            }
                        }
                        TypeKind::Event => {
                            let mut want = vec![0u32; g.width as usize];
                            for i in 0..c.len() {
                                if let Some(x) = g.column(c.start[i]) {
                                    want[x as usize] += 1;
                                }
                            }
                            let mut got = vec![0u32; g.width as usize];
                            for e in &r.events {
                                got[e.x as usize] = e.count;
                            }
                            assert_eq!(got, want, "events");
                        }
                        _ => {}
                    }
                }
            }
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(96))]
    #[test]
    fn summaries_match_a_column_by_column_computation(
        ops in prop::collection::vec((0u8..4, 0u8..3, 0u8..16, 0u8..3), 0..3000),
        from in 0.0f64..1.2,
        len in prop_oneof![Just(0.0), 0.0f64..1.0, Just(2.0)],
        width in 1u32..64,
        max_links in 0usize..30,
    ) {
        let t = random_trace(&ops);
        let end = t.end_time().max(1.0);
        let t0 = from * end - 0.1 * end;
        check(&t, (t0, t0 + len * end), width, max_links);
        // The whole trace.
        check(&t, (t.start_time(), t.end_time()), width, max_links);
    }
}

#[test]
fn the_narrower_last_block_of_columns_is_judged_by_its_density() {
    // Width 100: blocks of 16 columns, the last one 4 wide. Four links
    // begin in its four columns (one per column, as dense as 16 in a
    // whole block), nothing elsewhere.
    let mut body = String::from("5 0 p1 P 0 p1\n5 0 p2 P 0 p2\n");
    for k in 0..4 {
        let t = 96.5 + k as f64;
        body.push_str(&format!("11 {t} L 0 p1 m k{k}\n12 {t} L 0 p2 m k{k}\n"));
    }
    let t = simulate(&body);
    let mut q = query((0.0, 100.0), 100);
    q.max_links = 0;
    let s = Lod::new(&t).summarize(&rows(&t, None), &q);
    assert_eq!((s.links.each.len(), s.links.dense), (0, 4));
    // The same four in a whole block are sparse.
    let mut q = query((0.0, 112.0), 112);
    q.max_links = 0;
    let s = Lod::new(&t).summarize(&rows(&t, None), &q);
    assert_eq!((s.links.each.len(), s.links.dense), (4, 0));
}
