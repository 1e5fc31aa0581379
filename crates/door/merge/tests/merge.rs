//! The k-way merge on hand-made sources: time order across sources, clock
//! correction, unification, link keys per group, bounded waiting.

use std::collections::HashMap;
use std::path::Path as FsPath;
use std::sync::Arc;

use trama_merge::{merge, Correct, Input, Mapper, MergeOptions, Plan};
use trama_records::{
    path, Dialect, PajeWriter, Record, Source, VarOp, VecSource, What, WriterOptions,
};

const PLAN: &str = r#"
hierarchy = ["cluster", "host", "process"]
[top]
cluster = "c"
[[source]]
name = "mpi"
kind = "test"
levels = { rank = "process" }
[[source]]
name = "mon"
kind = "test"
"#;

fn rec(time: i64, what: What) -> Record {
    Record { time, what }
}

fn state(rank: &str, v: &str) -> What {
    What::PushState {
        container: path(&[("rank", rank)]),
        ty: "MPI".into(),
        value: v.into(),
        extra: vec![],
    }
}

fn link(start: bool, rank: &str, key: &str) -> What {
    if start {
        What::StartLink {
            container: None,
            ty: "msg".into(),
            from: path(&[("rank", rank)]),
            value: "m".into(),
            key: key.into(),
            extra: vec![],
        }
    } else {
        What::EndLink {
            container: None,
            ty: "msg".into(),
            to: path(&[("rank", rank)]),
            value: "m".into(),
            key: key.into(),
            extra: vec![],
        }
    }
}

fn var(host: &str, v: f64) -> What {
    What::Variable {
        container: path(&[("host", host)]),
        ty: "cpu".into(),
        op: VarOp::Set,
        value: v,
    }
}

fn run(
    inputs: Vec<(Box<dyn Source>, &str, &str)>,
    opts: &MergeOptions,
) -> Result<Vec<String>, String> {
    let plan = Plan::parse(PLAN, FsPath::new("plan.toml")).unwrap();
    let hosts = vec!["h0".to_string(), "h1".to_string()];
    let inputs = inputs
        .into_iter()
        .map(|(source, entry, group)| {
            let name = source.name().to_string();
            let rank_hosts = (entry == "mpi").then(|| hosts.clone());
            Input {
                mapper: Mapper::new(&plan, plan.source(entry), &name, rank_hosts),
                source,
                group: group.to_string(),
                synchronized: false,
                origin: 0,
            }
        })
        .collect();
    let mut w = PajeWriter::new(Vec::new(), Dialect::standard(), WriterOptions::default()).unwrap();
    merge(inputs, &plan.levels(), opts, &mut w, &mut |_| {}).map_err(|e| e.to_string())?;
    let out = String::from_utf8(w.finish().unwrap()).unwrap();
    Ok(out
        .lines()
        .filter(|l| !l.starts_with('%'))
        .map(String::from)
        .collect())
}

fn boxed(name: &str, r: Vec<Record>) -> Box<dyn Source> {
    Box::new(VecSource::new(name, r))
}

/// Times of the event lines, in output order.
fn times(lines: &[String]) -> Vec<f64> {
    lines
        .iter()
        .filter_map(|l| {
            let w: Vec<&str> = l.split_whitespace().collect();
            let id: u32 = w[0].parse().ok()?;
            // Definitions (ids 0 to 5) are untimed.
            (id >= 6).then(|| w[1].parse::<f64>().unwrap())
        })
        .collect()
}

#[test]
fn sources_interleave_by_time_and_ranks_land_on_their_hosts() {
    let a = boxed(
        "r0.rst",
        vec![rec(10, state("0", "A")), rec(30, link(true, "0", "k"))],
    );
    let b = boxed(
        "r1.rst",
        vec![rec(20, state("1", "B")), rec(40, link(false, "1", "k"))],
    );
    let m = boxed(
        "mon.log",
        vec![rec(5, var("h1", 1.0)), rec(35, var("h0", 2.0))],
    );
    let out = run(
        vec![(a, "mpi", "g0"), (b, "mpi", "g0"), (m, "mon", "g1")],
        &MergeOptions::default(),
    )
    .unwrap();
    let ts = times(&out);
    let mut sorted = ts.clone();
    sorted.sort_by(f64::total_cmp);
    assert_eq!(ts, sorted, "{out:#?}");
    // Rank 1 runs on h1 (the machine file's second line), under cluster c.
    assert!(
        out.iter().any(|l| l == "6 0.000000000 c cluster 0 c"),
        "{out:#?}"
    );
    assert!(
        out.iter()
            .any(|l| l.starts_with("6 ") && l.ends_with(" 1 process h1 1")),
        "{out:#?}"
    );
    // Both ends of the link share one key (same group).
    let keys: Vec<&String> = out
        .iter()
        .filter(|l| l.starts_with("16 ") || l.starts_with("19 "))
        .collect();
    assert_eq!(keys.len(), 2);
    assert!(keys.iter().all(|l| l.contains(" k")), "{keys:?}");
    // The type tree is the plan's, declared first.
    assert_eq!(out[0], "0 cluster 0 cluster");
    assert_eq!(out[1], "0 host cluster host");
    assert_eq!(out[2], "0 process host process");
}

#[test]
fn correction_puts_a_receive_after_its_send() {
    // h1's clock is 100 ns behind: the receive (read 40 on h1) seems to
    // come before the send (read 60 on h0) until corrected.
    let a = boxed("r0", vec![rec(60, link(true, "0", "k"))]);
    let b = boxed("r1", vec![rec(40, link(false, "1", "k"))]);
    let raw = run(
        vec![(a, "mpi", "g0"), (b, "mpi", "g0")],
        &MergeOptions::default(),
    )
    .unwrap();
    let pos = |o: &[String], p: &str| o.iter().position(|l| l.starts_with(p)).unwrap();
    assert!(pos(&raw, "19 ") < pos(&raw, "16 "));
    let mut opts = MergeOptions::default();
    let plus100: Correct = Arc::new(|t| t + 100);
    opts.corrections = HashMap::from([("h1".to_string(), plus100)]);
    let a = boxed("r0", vec![rec(60, link(true, "0", "k"))]);
    let b = boxed("r1", vec![rec(40, link(false, "1", "k"))]);
    let fixed = run(vec![(a, "mpi", "g0"), (b, "mpi", "g0")], &opts).unwrap();
    assert!(pos(&fixed, "16 ") < pos(&fixed, "19 "), "{fixed:#?}");
    assert!(
        fixed.iter().any(|l| l.starts_with("19 0.000000080 ")),
        "{fixed:#?}"
    );
}

#[test]
fn one_source_over_skewed_hosts_still_comes_out_sorted() {
    // One monitoring source, two hosts whose clocks differ by 1000 ns.
    let recs: Vec<Record> = (0..200)
        .map(|i| rec(i * 10, var(if i % 2 == 0 { "h0" } else { "h1" }, i as f64)))
        .collect();
    let mut opts = MergeOptions::default();
    let minus: Correct = Arc::new(|t| t - 1000);
    opts.corrections = HashMap::from([("h1".to_string(), minus)]);
    let out = run(vec![(boxed("mon", recs), "mon", "g0")], &opts).unwrap();
    let ts = times(&out);
    assert_eq!(ts.len(), 200 + 3);
    let mut sorted = ts.clone();
    sorted.sort_by(f64::total_cmp);
    assert_eq!(ts, sorted);
}

#[test]
fn link_keys_of_different_groups_never_pair() {
    let a = boxed("a", vec![rec(1, link(true, "0", "k"))]);
    let b = boxed("b", vec![rec(2, link(false, "1", "k"))]);
    let mut opts = MergeOptions::default();
    opts.separate_groups = true;
    let out = run(vec![(a, "mpi", "g0"), (b, "mpi", "g1")], &opts).unwrap();
    assert!(
        out.iter()
            .any(|l| l.starts_with("16 ") && l.ends_with(" g0:k")),
        "{out:#?}"
    );
    assert!(
        out.iter()
            .any(|l| l.starts_with("19 ") && l.ends_with(" g1:k")),
        "{out:#?}"
    );
}

#[test]
fn errors_name_the_source() {
    let a = boxed(
        "weird.log",
        vec![rec(
            1,
            What::Create {
                container: path(&[("node", "x")]),
            },
        )],
    );
    let e = run(vec![(a, "mon", "g0")], &MergeOptions::default()).unwrap_err();
    assert!(e.contains("weird.log") && e.contains("'node'"), "{e}");
    let a = boxed("r9", vec![rec(1, state("nine", "A"))]);
    let e = run(vec![(a, "mpi", "g0")], &MergeOptions::default()).unwrap_err();
    assert!(e.contains("r9") && e.contains("rank 'nine'"), "{e}");
}

#[test]
fn ranks_count_from_their_own_origins() {
    // One log, two ranks each timed from its own start: rank 0 started
    // 100 ns after rank 1, so its record at 10 comes after rank 1's at 20.
    let plan = Plan::parse(
        "hierarchy = [\"host\", \"process\"]\n[[source]]\nname = \"mpi\"\nkind = \"test\"\n\
         levels = { rank = \"process\" }\nhost = \"h\"\norigin = \"0.000000050\"\n\
         [source.origins]\n\"0\" = \"0.000000100\"\n\"1\" = \"0\"\n",
        FsPath::new("plan.toml"),
    )
    .unwrap();
    let recs = vec![
        rec(10, state("0", "A")),
        rec(20, state("1", "B")),
        rec(30, state("2", "C")),
    ];
    let input = Input {
        mapper: Mapper::new(&plan, plan.source("mpi"), "log", None),
        source: boxed("log", recs),
        group: "mpi".into(),
        synchronized: false,
        origin: 50,
    };
    let mut opts = MergeOptions::default();
    opts.origin = trama_merge::Origin::At(0);
    let mut w = PajeWriter::new(Vec::new(), Dialect::standard(), WriterOptions::default()).unwrap();
    merge(vec![input], &plan.levels(), &opts, &mut w, &mut |_| {}).unwrap();
    let out = String::from_utf8(w.finish().unwrap()).unwrap();
    let pushes: Vec<&str> = out.lines().filter(|l| l.starts_with("12 ")).collect();
    // Rank 2 has no origin of its own: the entry's (50 ns). Rank 0 is
    // aliased 0~2, as the root container is 0.
    assert_eq!(
        pushes,
        [
            "12 0.000000020 1 MPI B",
            "12 0.000000080 2 MPI C",
            "12 0.000000110 0~2 MPI A"
        ]
    );
}
