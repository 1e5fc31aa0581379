//! OTF2 archives through the command line: an archive of known content
//! written by the OTF2 library (`trama_gen::otf2`: MPI messages blocking
//! and not, collectives, metrics, threads, mapping tables, clock offsets)
//! dumped exactly as its documentation says; `check`'s counts per record
//! type equal `otf2-print`'s; the shared APEX sample through `dump`,
//! `check`, `convert`, `stats`, `render`, `report` and `merge`; damaged
//! archives named with their file and byte offset; small archives of one
//! point each (`trama_gen::otf2::write_case`): metric values kept exact,
//! `Leave` records that do not name the innermost open region (and the
//! APEX sample's, against the mapping's rule applied to `otf2-print`'s
//! records), containers that end where the archive ends.
//!
//! Tests that write archives need Debian's `otf2-tools` and
//! `python3-otf2`: without them they print a note and pass, unless
//! `TRAMA_REQUIRE_OTF2=1`.

mod common;

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use common::{trama, write_in};
use trama_gen::otf2::{
    counters_values, print_clock, print_events, print_location_names, print_regions, tools,
    write_archive, write_case,
};

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

fn s(p: &Path) -> &str {
    p.to_str().unwrap()
}

/// Runs trama, which must succeed; its standard output.
fn ok(args: &[&str]) -> String {
    let out = trama(args);
    assert!(
        out.status.success(),
        "trama {args:?}: {}",
        text(&out.stderr)
    );
    text(&out.stdout)
}

/// Seconds as the dump prints them, from microsecond ticks.
fn secs(t: u64) -> String {
    format!("{}.{:06}", t / 1_000_000, t % 1_000_000)
}

const ITERATIONS: u64 = 3;

/// A time of location 2, written 1000 ticks early and put back by its
/// clock offsets (1000 at tick 0, 1002 at the end), as the library does.
fn late(t: u64) -> u64 {
    let raw = t - 1000;
    let end = 1000 * ITERATIONS + 1000;
    let slope = 2.0 / end as f64;
    raw + 1000 + (slope * raw as f64).round_ties_even() as u64
}

/// The lines the dump of the written archive must hold, by kind.
fn expected() -> BTreeSet<String> {
    const M0: &str = "Master thread (MPI Rank 0)";
    const M1: &str = "Master thread (MPI Rank 1)";
    const T0: &str = "OpenMP thread 1 (MPI Rank 0)";
    let mut e = BTreeSet::new();
    let mut state = |c: &str, ty: &str, a: u64, b: u64, level: u32, value: &str| {
        e.insert(format!(
            "State, {c}, {ty}, {}, {}, {}, {level}.000000, {value}",
            secs(a),
            secs(b),
            secs(b - a)
        ));
    };
    let last = 1000 * ITERATIONS;
    state(M0, "Region", 1000, last + 200, 0, "main");
    state(M1, "Region", late(1005), late(last + 205), 0, "main");
    for i in 0..ITERATIONS {
        let t = 1000 * i + 1000;
        for (a, b, v) in [
            (10, 20, "MPI_Send"),
            (30, 32, "MPI_Isend"),
            (40, 46, "MPI_Wait"),
            (50, 59, "MPI_Recv"),
            (60, 62, "MPI_Send"),
            (100, 110, "MPI_Allreduce"),
            (132, 138, "compute kernel"),
        ] {
            state(M0, "Region", t + a, t + b, 1, v);
        }
        for (a, b, v) in [
            (12, 18, "MPI_Recv"),
            (25, 27, "MPI_Irecv"),
            (35, 38, "MPI_Wait"),
            (50, 53, "MPI_Send"),
            (63, 65, "MPI_Recv"),
            (100, 110, "MPI_Allreduce"),
        ] {
            state(M1, "Region", late(t + a), late(t + b), 1, v);
        }
        state(T0, "Region", t + 133, t + 137, 0, "compute kernel");
        let coll = "ALLREDUCE, MPI_COMM_WORLD, none, 8, 8";
        state(M0, "MPI collective", t + 101, t + 109, 0, coll);
        state(M1, "MPI collective", late(t + 102), late(t + 108), 0, coll);
        state(M0, "Thread fork", t + 130, t + 140, 0, "OpenMP, 2");
        state(M0, "Thread team", t + 131, t + 139, 0, "OpenMP team");
        state(T0, "Thread team", t + 131, t + 139, 0, "OpenMP team");
    }
    for i in 0..ITERATIONS {
        let t = 1000 * i + 1000;
        e.insert(format!(
            "Event, {M0}, MPI request, {}, Isend complete",
            secs(t + 45)
        ));
        e.insert(format!(
            "Event, {M1}, MPI request, {}, Irecv request",
            secs(late(t + 26))
        ));
        // Messages: (start, end, sender, receiver, communicator and its
        // identifier, the locations' identifiers, tag, size).
        for (a, b, from, to, comm, key, tag, size) in [
            (
                t + 15,
                late(t + 17),
                M0,
                M1,
                "MPI_COMM_WORLD",
                "0_0_2",
                7,
                64,
            ),
            (
                t + 31,
                late(t + 37),
                M0,
                M1,
                "MPI_COMM_WORLD",
                "0_0_2",
                8,
                128,
            ),
            (
                late(t + 52),
                t + 58,
                M1,
                M0,
                "MPI_COMM_WORLD",
                "0_2_0",
                9,
                32,
            ),
            (t + 61, late(t + 64), M0, M1, "reversed", "1_0_2", 10, 16),
        ] {
            e.insert(format!(
                "Link, 0, MPI message, {}, {}, {}, {comm}, {from}, {to}, {key}_{tag}_{i}, {tag}, {size}",
                secs(a),
                secs(b),
                secs(b - a)
            ));
        }
    }
    e
}

fn written(dir: &Path) -> Option<PathBuf> {
    tools().then(|| write_archive(dir, ITERATIONS as u32))
}

#[test]
fn a_written_archive_dumps_as_its_content_says() {
    let dir = tempfile::tempdir().unwrap();
    let Some(anchor) = written(dir.path()) else {
        return;
    };
    let dump = ok(&["dump", "--user-defined", s(&anchor)]);
    let lines: BTreeSet<String> = dump
        .lines()
        .filter(|l| l.starts_with("State, ") || l.starts_with("Link, ") || l.starts_with("Event, "))
        .map(str::to_string)
        .collect();
    let want = expected();
    let missing: Vec<_> = want.difference(&lines).collect();
    let extra: Vec<_> = lines.difference(&want).collect();
    assert!(
        missing.is_empty() && extra.is_empty(),
        "missing {missing:#?}\nunexpected {extra:#?}"
    );
    // The simulation takes the archive's entity events by handles; the
    // text and the .ptb made from it, by their words: the same trace.
    let paje = dir.path().join("written.paje");
    ok(&["convert", s(&anchor), s(&paje)]);
    assert_eq!(
        ok(&["dump", "--user-defined", "--strip-quotes", s(&paje)]),
        dump
    );
    let ptb = dir.path().join("written.ptb");
    ok(&["convert", s(&anchor), s(&ptb)]);
    assert_eq!(ok(&["dump", "--user-defined", s(&ptb)]), dump);
    // The hierarchy: machine, nodes, processes, threads.
    for c in [
        // They end where the clock's span ends (tick 4210).
        "Container, 0, machine, 0, 0.00421, 0.00421, cluster",
        "Container, cluster, node, 0, 0.00421, 0.00421, node0",
        "Container, node1, Process, 0, 0.00421, 0.00421, MPI Rank 1",
        "Container, MPI Rank 0, Thread, 0, 0.00421, 0.00421, OpenMP thread 1 (MPI Rank 0)",
        "Container, MPI Rank 1, Thread, 0, 0.00421, 0.00421, Master thread (MPI Rank 1)",
    ] {
        assert!(dump.lines().any(|l| l == c), "no {c}\n{dump}");
    }
    // Metrics: the class's values on the thread that records them, the
    // instance's on its scope (the process).
    let values = |c: &str, ty: &str| -> Vec<String> {
        dump.lines()
            .filter(|l| l.starts_with(&format!("Variable, {c}, {ty}, ")))
            .map(|l| l.rsplit(", ").next().unwrap().to_string())
            .collect()
    };
    assert_eq!(
        values("Master thread (MPI Rank 0)", "FLOPS [flop]"),
        ["1000.000000", "1001.000000", "1002.000000"]
    );
    assert_eq!(
        values("Master thread (MPI Rank 0)", "Temperature [C]"),
        ["20.500000", "21.500000", "22.500000"]
    );
    assert_eq!(
        values("MPI Rank 1", "FLOPS [flop]"),
        ["2000.000000", "2001.000000", "2002.000000"]
    );
}

/// `trama check`'s counts per record type, and those skipped.
fn check_counts(out: &str) -> (BTreeMap<String, u64>, String) {
    let line = out
        .lines()
        .find(|l| l.contains("OTF2 event records"))
        .unwrap_or_else(|| panic!("no record counts in\n{out}"));
    let inner = &line[line.find('(').unwrap() + 1..line.rfind(')').unwrap()];
    let counts = inner
        .split(", ")
        .map(|kv| {
            let (k, v) = kv.rsplit_once(' ').unwrap();
            (k.to_string(), v.parse().unwrap())
        })
        .collect();
    let skipped = out
        .lines()
        .find(|l| l.contains("skipped"))
        .unwrap_or_default()
        .to_string();
    (counts, skipped)
}

fn printed_counts(anchor: &Path) -> BTreeMap<String, u64> {
    let mut m = BTreeMap::new();
    for e in print_events(anchor) {
        *m.entry(e.name).or_default() += 1;
    }
    m
}

#[test]
fn check_counts_the_records_as_otf2_print_does() {
    let dir = tempfile::tempdir().unwrap();
    let Some(anchor) = written(dir.path()) else {
        return;
    };
    let out = ok(&["check", s(&anchor)]);
    let (counts, skipped) = check_counts(&out);
    assert_eq!(counts, printed_counts(&anchor), "{out}");
    assert!(
        skipped.ends_with("MEASUREMENT_ON_OFF 3, PARAMETER_INT64 3"),
        "{out}"
    );
    assert!(
        out.contains("(12 states,") || out.contains("links"),
        "{out}"
    );
    assert!(out.contains("12 links)"), "{out}");
}

fn apex() -> Option<PathBuf> {
    let shared = trama_testkit::shared::find("samples/otf2/apex-phylanx/APEX.otf2", "OTF2 sample")?;
    Some(shared.join("samples/otf2/apex-phylanx/APEX.otf2"))
}

#[test]
fn the_apex_sample_through_every_command() {
    let Some(anchor) = apex() else { return };
    let a = s(&anchor);
    let out = ok(&["check", a]);
    let (counts, skipped) = check_counts(&out);
    assert_eq!(
        counts,
        BTreeMap::from([("ENTER".to_string(), 8062), ("LEAVE".to_string(), 8062)])
    );
    assert!(skipped.is_empty(), "{out}");
    if tools() {
        assert_eq!(counts, printed_counts(&anchor));
    }
    let dump = ok(&["dump", a]);
    assert_eq!(
        dump.lines().filter(|l| l.starts_with("State, ")).count(),
        8062
    );
    // Text and .ptb made from the archive dump the same.
    let dir = tempfile::tempdir().unwrap();
    // (The text quotes names with spaces: it reads back with quotes
    // stripped.)
    let paje = dir.path().join("apex.paje");
    ok(&["convert", a, s(&paje)]);
    assert_eq!(ok(&["dump", "--strip-quotes", s(&paje)]), dump);
    let ptb = dir.path().join("apex.ptb");
    ok(&["convert", a, s(&ptb)]);
    assert_eq!(ok(&["dump", s(&ptb)]), dump);
    let back = dir.path().join("back.paje");
    ok(&["convert", s(&ptb), s(&back)]);
    assert_eq!(ok(&["dump", "--strip-quotes", s(&back)]), dump);
    let stats = ok(&["stats", "states", "--format", "csv", a]);
    assert!(stats.contains("run_helper"), "{stats}");
    let svg = dir.path().join("apex.svg");
    ok(&["render", "space-time", a, "-o", s(&svg)]);
    assert!(std::fs::read_to_string(&svg).unwrap().contains("<svg"));
    let html = dir.path().join("apex.html");
    ok(&["report", a, "-o", s(&html)]);
    assert!(std::fs::read_to_string(&html).unwrap().contains("hpx_main"));
    // A merge reads the archive as a Pajé source (kind paje).
    let plan = write_in(
        dir.path(),
        "plan.toml",
        "hierarchy = [\"site\", \"node\", \"process\", \"thread\"]\nhost_level = \"node\"\n\
         [top]\nsite = \"lab\"\n\
         [[source]]\nname = \"apex\"\nkind = \"paje\"\n\
         levels = { node = \"node\", Process = \"process\", Thread = \"thread\" }\n",
    );
    let merged = dir.path().join("merged.paje");
    let arg = format!("apex={a}");
    ok(&["merge", "--plan", s(&plan), &arg, "-o", s(&merged)]);
    let m = ok(&["dump", s(&merged)]);
    assert_eq!(m.lines().filter(|l| l.starts_with("State, ")).count(), 8062);
}

#[test]
fn damaged_archives_name_their_file_and_offset() {
    let Some(anchor) = apex() else { return };
    let src = anchor.parent().unwrap();
    let dir = tempfile::tempdir().unwrap();
    let copy = |to: &Path| {
        std::fs::create_dir_all(to.join("APEX")).unwrap();
        for f in ["APEX.otf2", "APEX.def"] {
            std::fs::copy(src.join(f), to.join(f)).unwrap();
        }
        for f in ["0.def", "0.evt", "1.def", "1.evt", "2.def", "2.evt"] {
            std::fs::copy(src.join("APEX").join(f), to.join("APEX").join(f)).unwrap();
        }
        to.join("APEX.otf2")
    };
    // An events file cut in the middle of a record.
    let cut = copy(&dir.path().join("cut"));
    let evt = cut.parent().unwrap().join("APEX/1.evt");
    let data = std::fs::read(&evt).unwrap();
    std::fs::write(&evt, &data[..1000]).unwrap();
    let out = trama(&["check", s(&cut)]);
    assert_eq!(out.status.code(), Some(1));
    let err = text(&out.stderr);
    assert!(
        err.contains("APEX/1.evt: byte 982: a record of 25 bytes does not fit"),
        "{err}"
    );
    // A chunk header's endianness byte changed.
    let flip = copy(&dir.path().join("flip"));
    let def = flip.parent().unwrap().join("APEX.def");
    let mut data = std::fs::read(&def).unwrap();
    data[1] = 0x11;
    std::fs::write(&def, &data).unwrap();
    let err = text(&trama(&["dump", s(&flip)]).stderr);
    assert!(
        err.contains("APEX.def: byte 1: unknown endianness byte 0x11"),
        "{err}"
    );
    // A missing events file.
    let gone = copy(&dir.path().join("gone"));
    std::fs::remove_file(gone.parent().unwrap().join("APEX/2.evt")).unwrap();
    let err = text(&trama(&["check", s(&gone)]).stderr);
    assert!(
        err.contains("APEX/2.evt") && err.contains("missing"),
        "{err}"
    );
}

/// An error the simulation finds names the line of the archive's text
/// (`trama convert` writes it) and shows the event's words.
#[test]
fn a_leave_without_enter_is_named_with_its_words() {
    if !tools() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let script = "import otf2, sys\n\
        with otf2.writer.open(sys.argv[1], timer_resolution=1000000) as t:\n\
        \x20   r = t.definitions.region('f')\n\
        \x20   g = t.definitions.location_group('p', system_tree_parent=t.definitions.system_tree_node('n'))\n\
        \x20   w = t.event_writer('t', group=g)\n\
        \x20   w.enter(10, r); w.leave(20, r); w.leave(30, r)\n";
    let out = std::process::Command::new("/usr/bin/python3")
        .args(["-c", script])
        .arg(dir.path().join("a"))
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", text(&out.stderr));
    let anchor = dir.path().join("a/traces.otf2");
    let out = trama(&["check", s(&anchor)]);
    assert_eq!(out.status.code(), Some(1));
    let err = text(&out.stderr);
    assert!(
        err.contains("state stack is empty") && err.contains("| 9 0.000020000 R0 l0"),
        "{err}"
    );
    // The line is that of the archive's text.
    let after = &err[err.find(".otf2:").unwrap() + ".otf2:".len()..];
    let line: u64 = after.split(':').next().unwrap().parse().unwrap();
    let paje = dir.path().join("a.paje");
    ok(&["convert", s(&anchor), s(&paje)]);
    let t = std::fs::read_to_string(&paje).unwrap();
    assert_eq!(
        t.lines().nth(line as usize - 1),
        Some("9 0.000020000 R0 l0")
    );
}

/// The values of each variable of `dump`'s lines on `container`, by
/// variable type, in the dump's order.
fn variable_values(dump: &str, container: &str) -> BTreeMap<String, Vec<String>> {
    let mut m: BTreeMap<String, Vec<String>> = BTreeMap::new();
    let prefix = format!("Variable, {container}, ");
    for l in dump.lines() {
        let Some(rest) = l.strip_prefix(&prefix) else {
            continue;
        };
        let (ty, rest) = rest.split_once(", ").unwrap();
        let value = rest.rsplit(", ").next().unwrap();
        m.entry(ty.to_string()).or_default().push(value.to_string());
    }
    m
}

/// Regression: OTF2 metric values went through PajeNG's float32 rule
/// (127896927659027 read as 127896928649216), even though an archive's
/// numbers are not Pajé text. Every value of 64-bit counters near 1.3e14,
/// negative 64-bit integers and doubles is dumped as the archive holds
/// it, by the archive, by the `.ptb` made from it and by that file
/// converted again; the Pajé text made from it is Pajé text (its values
/// read as PajeNG reads them).
#[test]
fn otf2_metric_values_keep_precision() {
    if !tools() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let anchor = write_case("counters", dir.path());
    let want: BTreeMap<String, Vec<String>> = counters_values()
        .into_iter()
        .map(|(ty, values)| {
            let text = values.iter().map(|v| format!("{v:.6}")).collect();
            (ty.to_string(), text)
        })
        .collect();
    let dump = ok(&["dump", s(&anchor)]);
    assert_eq!(variable_values(&dump, "Master thread"), want);
    let ptb = dir.path().join("counters.ptb");
    ok(&["convert", s(&anchor), s(&ptb)]);
    assert_eq!(ok(&["dump", s(&ptb)]), dump);
    // The reference simulation (which `-i` asks for) reads it too: one
    // region, nothing nested, the same trace.
    assert_eq!(ok(&["dump", "-i", s(&ptb)]), dump);
    assert!(
        ok(&["info", s(&ptb)]).contains("variable values exact"),
        "the .ptb does not say its values are exact"
    );
    let again = dir.path().join("again.ptb");
    ok(&["convert", "--strings", "plain", s(&ptb), s(&again)]);
    assert_eq!(ok(&["dump", s(&again)]), dump);
    // As Pajé text, the values are read as PajeNG reads them.
    let paje = dir.path().join("counters.paje");
    ok(&["convert", s(&anchor), s(&paje)]);
    let text = ok(&["dump", "--strip-quotes", s(&paje)]);
    let energy = &variable_values(&text, "Master thread")["energy_count [J]"];
    assert_eq!(energy[0], "127896928649216.000000");
}

/// A region's interval: its name, start, end (ticks or nanoseconds) and
/// nesting level.
type Interval = (String, u64, u64, usize);

/// The regions' intervals the mapping's rule for `Leave` records gives
/// (see `trama-otf2`'s documentation), from the `ENTER` and `LEAVE`
/// records `otf2-print` prints: per location, (region, start, end,
/// level) in ticks; and the number of `Leave` records that do not name the
/// innermost open region.
fn rule_intervals(anchor: &Path) -> (BTreeMap<u64, Vec<Interval>>, u64) {
    let mut stacks: BTreeMap<u64, Vec<(String, u64)>> = BTreeMap::new();
    let mut out: BTreeMap<u64, Vec<Interval>> = BTreeMap::new();
    let mut mismatches = 0;
    for (e, region) in print_regions(anchor) {
        let stack = stacks.entry(e.location).or_default();
        let done = out.entry(e.location).or_default();
        if e.name == "ENTER" {
            stack.push((region, e.time));
            continue;
        }
        assert!(!stack.is_empty(), "a LEAVE with no region open");
        if stack.last().map(|r| &r.0) != Some(&region) {
            mismatches += 1;
        }
        // The named region and those above it end (at most 64 above), or
        // the innermost alone.
        let above = stack.iter().rev().take(65).position(|r| r.0 == region);
        let ended = stack.split_off(stack.len() - 1 - above.unwrap_or(0));
        for (level, (r, start)) in ended.iter().enumerate() {
            done.push((r.clone(), *start, e.time, stack.len() + level));
        }
        // Those above the named one are entered again.
        for (r, _) in &ended[1..] {
            stack.push((r.clone(), e.time));
        }
    }
    (out, mismatches)
}

/// The states of `dump` (printed with 9 decimals) on `container`: (value,
/// start, end, level) in nanoseconds.
fn states_on(dump: &str, container: &str) -> Vec<Interval> {
    let ns = |t: &str| -> u64 {
        let (a, b) = t.split_once('.').unwrap();
        a.parse::<u64>().unwrap() * 1_000_000_000 + b.parse::<u64>().unwrap()
    };
    let prefix = format!("State, {container}, Region, ");
    let mut v: Vec<Interval> = dump
        .lines()
        .filter_map(|l| l.strip_prefix(&prefix))
        .map(|rest| {
            let f: Vec<&str> = rest.splitn(5, ", ").collect();
            let level = f[3].split('.').next().unwrap().parse().unwrap();
            (f[4].to_string(), ns(f[0]), ns(f[1]), level)
        })
        .collect();
    v.sort();
    v
}

/// Regression: a `Leave` that did not name the innermost open region
/// ended it silently (`check` said "valid"), and one naming a region
/// further down cut the wrong intervals. Each interval keeps the region
/// its `Enter` named, as the mapping's rule says (a region further down
/// ends with those above it, which are entered again; a region not open
/// ends the innermost), and `check` counts and names the mismatches: on a
/// written archive, and on the APEX sample against `otf2-print`.
#[test]
fn otf2_leaves_that_do_not_match_keep_their_enter_regions() {
    if !tools() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let anchor = write_case("leaves", dir.path());
    // The clock starts at the first time written, 10.
    let dump = ok(&["dump", "-l", "9", s(&anchor)]);
    let us = |t: u64| (t - 10) * 1000;
    let mut want: Vec<Interval> = [
        ("A", 10, 30, 0),
        ("B", 20, 30, 1),
        ("B", 30, 40, 0),
        ("C", 50, 60, 0),
        ("E", 70, 100, 0),
        ("F", 80, 100, 1),
        ("G", 90, 100, 2),
        ("F", 100, 120, 0),
        ("G", 100, 110, 1),
        ("H", 130, 140, 0),
    ]
    .into_iter()
    .map(|(r, a, b, l)| (r.to_string(), us(a), us(b), l))
    .collect();
    want.sort();
    assert_eq!(states_on(&dump, "Master thread"), want, "{dump}");
    // The rule as the test reads it gives the same.
    let (rule, n) = rule_intervals(&anchor);
    let mut by_rule: Vec<_> = rule[&0]
        .iter()
        .map(|(r, a, b, l)| (r.clone(), us(*a), us(*b), *l))
        .collect();
    by_rule.sort();
    assert_eq!(by_rule, want);
    assert_eq!(n, 3);
    let out = ok(&["check", s(&anchor)]);
    assert!(
        out.contains(
            "3 OTF2 Leave records name a region other than the innermost one open on their location \
             (2 a region further down: it ends with the regions above it, entered again; \
             1 a region not open: the innermost ends)"
        ) && out.contains("the first on 'Master thread' at 0.000020000 s: Leave 'A' while 'B' is open"),
        "{out}"
    );
    // The APEX sample: every interval as the rule gives it from
    // otf2-print's records (the clock's offset is 0, ticks are ns).
    let Some(apex) = apex() else { return };
    let (rule, n) = rule_intervals(&apex);
    let dump = ok(&["dump", "-l", "9", s(&apex)]);
    for (loc, name) in print_location_names(&apex) {
        let mut want = rule.get(&loc).cloned().unwrap_or_default();
        want.sort();
        assert_eq!(states_on(&dump, &name), want, "{name}");
    }
    let out = ok(&["check", s(&apex)]);
    assert_eq!(n, 2399);
    assert!(
        out.contains(&format!(
            "{n} OTF2 Leave records name a region other than the innermost one open on their \
             location ({n} a region not open: the innermost ends)"
        )) && out.contains("'hpx_main' is open"),
        "{out}"
    );
}

/// Regression: an archive's containers ended at its last mapped event,
/// not where the archive ends. They end at the later of its last event
/// record (`ProgramEnd` among them) and the end of the clock's span, as
/// `otf2-print` gives them: on a written archive whose clock goes on
/// after its `ProgramEnd`, on the Score-P sample (whose `PROGRAM_END` is
/// the clock's end) and on the APEX sample (whose clock goes on after its
/// last event).
#[test]
fn otf2_containers_end_where_the_archive_ends() {
    if !tools() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let written = write_case("end", dir.path());
    let shared = trama_testkit::shared::find("samples/otf2/apex-phylanx/APEX.otf2", "OTF2 samples");
    let mut archives = vec![written];
    if let Some(shared) = shared {
        archives.push(shared.join("samples/otf2/pipit-ping-pong/traces.otf2"));
        archives.push(shared.join("samples/otf2/apex-phylanx/APEX.otf2"));
    }
    for anchor in &archives {
        let (resolution, offset, length) = print_clock(anchor);
        let last = print_events(anchor).iter().map(|e| e.time).max().unwrap();
        let end = (last.max(offset + length) - offset) as f64 / resolution as f64;
        let dump = ok(&["dump", s(anchor)]);
        let ends: Vec<f64> = dump
            .lines()
            .filter(|l| l.starts_with("Container, "))
            .map(|l| l.split(", ").nth(4).unwrap().parse().unwrap())
            .collect();
        assert!(ends.len() > 1, "{dump}");
        for e in ends {
            // Container times print with six significant digits.
            assert!(
                (e - end).abs() <= 1e-5 * end,
                "{}: a container ends at {e}, the archive at {end}",
                anchor.display()
            );
        }
    }
    // The written archive: ProgramEnd at 900, the clock to 1200 (its
    // offset, 100, is time 0); main's interval is unchanged.
    let dump = ok(&["dump", s(&archives[0])]);
    assert!(
        dump.contains("Container, 0, node, 0, 0.0011, 0.0011, node")
            && dump.contains(
                "State, Master thread, Region, 0.000100, 0.000600, 0.000500, 0.000000, main"
            ),
        "{dump}"
    );
}
