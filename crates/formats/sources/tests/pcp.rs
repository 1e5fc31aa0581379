//! Performance Co-Pilot text exports: the QA's real pmrep CSVs and pmdumplog
//! dumps, and crafted pmrep/pmdumptext files with golden records.

mod common;

use trama_records::{collect, path, Record, VarOp, What};
use trama_sources::pcp::{InstanceMapping, PcpFormat, PcpOptions, PcpSource};
use trama_sources::OpenSource;

const S: i64 = 1_000_000_000;

fn opts(host: &str) -> PcpOptions {
    let mut o = PcpOptions::default();
    o.host = Some(host.to_string());
    o
}

fn read(file: &std::path::Path, o: &PcpOptions) -> (PcpSource, Vec<Record>) {
    common::read(file, o)
}

/// The shared sample `pcp/<file>`, if the samples are there.
fn sample(file: &str, o: &PcpOptions) -> Option<(PcpSource, Vec<Record>)> {
    common::read_sample("pcp", file, o)
}

fn var(time: i64, p: &[(&str, &str)], ty: &str, value: f64) -> Record {
    common::variable(time, path(p), ty, value)
}

fn state(time: i64, p: &[(&str, &str)], ty: &str, value: &str) -> Record {
    common::set_state(time, path(p), ty, value)
}

/// (type, value) of the variable records at `time`.
fn vars_at(recs: &[Record], time: i64) -> Vec<(String, f64)> {
    recs.iter()
        .filter(|r| r.time == time)
        .map(|r| match &r.what {
            What::Variable { ty, value, .. } => (ty.to_string(), *value),
            w => panic!("unexpected {w:?}"),
        })
        .collect()
}

fn first_time_of(recs: &[Record], ty: &str) -> Option<(i64, f64)> {
    recs.iter().find_map(|r| match &r.what {
        What::Variable { ty: t, value, .. } if t == ty => Some((r.time, *value)),
        _ => None,
    })
}

#[test]
fn pmrep_csv_dyninsts() {
    let Some((src, recs)) = sample("expected/dyninsts.pmrep-csv.p-I-r-u.csv", &opts("dyn")) else {
        return;
    };
    let st = src.stats();
    assert_eq!(st.format, Some(PcpFormat::PmrepCsv));
    assert_eq!(st.rows, 20);
    assert_eq!(st.columns.len(), 12);
    // 118 non-empty cells of 240 (counted with awk); the others are missing.
    assert_eq!(st.values, 118);
    assert_eq!(st.missing, 240 - 118);
    assert_eq!(recs.len(), 118);
    assert!(recs.iter().all(|r| matches!(&r.what,
        What::Variable { container, op: VarOp::Set, .. } if **container == *path(&[("host", "dyn")]))));
    // 00:00:08: every disk instance and mem.util.used are 8; mem.util.free is empty.
    let at8 = vars_at(&recs, 8 * S);
    assert_eq!(at8.len(), 11);
    assert!(at8.iter().all(|(_, v)| *v == 8.0));
    assert!(at8.iter().any(|(t, _)| t == "disk.dev.write[sde]"));
    assert!(!at8.iter().any(|(t, _)| t == "mem.util.free"));
    // 00:00:15: only mem.util.free.
    assert_eq!(
        vars_at(&recs, 15 * S),
        vec![("mem.util.free".to_string(), 15.0)]
    );
    // 00:00:04: sda and sdc have gone, sdb and sdd remain.
    let at4: Vec<String> = vars_at(&recs, 4 * S).into_iter().map(|(t, _)| t).collect();
    assert_eq!(
        at4,
        [
            "disk.dev.read[sdb]",
            "disk.dev.read[sdd]",
            "disk.dev.write[sdb]",
            "disk.dev.write[sdd]",
            "mem.util.used"
        ]
    );
    // Instances appearing later: sdc at 2 s, sde at 6 s; mem.util.free at 15 s.
    assert_eq!(
        first_time_of(&recs, "disk.dev.read[sdc]"),
        Some((2 * S, 2.0))
    );
    assert_eq!(
        first_time_of(&recs, "disk.dev.read[sde]"),
        Some((6 * S, 6.0))
    );
    assert_eq!(first_time_of(&recs, "mem.util.free"), Some((15 * S, 15.0)));
    assert_eq!(recs.last().unwrap().time, 19 * S);
    assert!(recs.windows(2).all(|w| w[0].time <= w[1].time));
}

#[test]
fn pmrep_csv_unit_and_inst_info_variants_agree() {
    let Some(dir) = common::samples("pcp") else {
        return;
    };
    let o = opts("dyn");
    let (_, base) = read(&dir.join("expected/dyninsts.pmrep-csv.p-I-r-u.csv"), &o);
    let (src, units) = read(&dir.join("expected/dyninsts.pmrep-csv.unit-info.csv"), &o);
    assert_eq!(units, base);
    let c = &src.stats().columns;
    assert_eq!(c[0].unit.as_deref(), Some("count"));
    assert_eq!(c[11].unit.as_deref(), Some("Kbyte"));
    assert_eq!(c[11].metric, "mem.util.used");

    // --no-inst-info: repeated bare names become #1..#5, in column order.
    let (_, noinst) = read(
        &dir.join("expected/dyninsts.pmrep-csv.no-inst-info.csv"),
        &o,
    );
    let renamed: Vec<Record> = noinst
        .into_iter()
        .map(|mut r| {
            if let What::Variable { ty, .. } = &mut r.what {
                for (k, d) in ["sda", "sdb", "sdc", "sdd", "sde"].iter().enumerate() {
                    *ty = ty
                        .replace(&format!("[#{}]", k + 1), &format!("[{d}]"))
                        .into();
                }
            }
            r
        })
        .collect();
    assert_eq!(renamed, base);
}

#[test]
fn pmrep_csv_filter() {
    let Some((src, recs)) = sample("expected/dyninsts.pmrep-csv.filter.csv", &opts("dyn")) else {
        return;
    };
    assert_eq!(src.stats().values, 66);
    assert_eq!(src.stats().columns.len(), 6);
    assert_eq!(
        first_time_of(&recs, "disk.dev.read[sdd]"),
        Some((2 * S, 2.0))
    );
    assert_eq!(first_time_of(&recs, "disk.dev.read[sdb]"), Some((0, 0.0)));
    assert_eq!(
        vars_at(&recs, 17 * S),
        vec![("disk.dev.read[sdb]".to_string(), 17.0)]
    );
}

#[test]
fn pmrep_csv_needs_a_host() {
    let Some(dir) = common::samples("pcp") else {
        return;
    };
    let file = dir.join("expected/dyninsts.pmrep-csv.p-I-r-u.csv");
    common::open_error_at::<PcpSource>(&file, &PcpOptions::default(), 2, "host");
}

#[test]
fn pmrep_csv_instance_containers_and_zone_option() {
    let Some(dir) = common::samples("pcp") else {
        return;
    };
    let mut o = PcpOptions::default();
    o.host = Some("dyn".into());
    o.utc_offset = 3600;
    o.instances = InstanceMapping::Container;
    let (_, recs) = read(&dir.join("expected/dyninsts.pmrep-csv.p-I-r-u.csv"), &o);
    // Printed 00:00:15 at UTC+1 is 23:00:15 the day before, in UTC.
    assert_eq!(
        recs.iter().filter(|r| r.time == 15 * S - 3600 * S).count(),
        1
    );
    assert_eq!(
        recs[0],
        var(
            -3600 * S,
            &[("host", "dyn"), ("instance", "sda")],
            "disk.dev.read",
            0.0
        )
    );
    assert!(recs.contains(&var(
        15 * S - 3600 * S,
        &[("host", "dyn")],
        "mem.util.free",
        15.0
    )));
}

#[test]
fn pmrep_extended_csv_golden() {
    let (src, recs) = read(&common::data("pcp/extended.csv"), &PcpOptions::default());
    let t = 1_709_290_800 * S; // 2024-03-01 11:00:00 UTC
    let n1 = [("host", "node1")];
    let n2 = [("host", "node2")];
    assert_eq!(
        recs,
        vec![
            var(t, &n1, "kernel.all.load[1 minute]", 0.5),
            state(t, &n1, "kernel.uname.release", "6.1.0"),
            state(t + S, &n2, "kernel.uname.release", "6.2.0"),
            var(t + 2 * S, &n1, "kernel.all.load[1 minute]", 0.25),
            var(t + 2 * S, &n1, "kernel.all.load[5 minute]", 1.5),
        ]
    );
    let st = src.stats();
    assert_eq!(
        (st.rows, st.values, st.strings, st.string_changes),
        (4, 3, 3, 2)
    );
    assert_eq!((st.missing, st.non_finite, st.label_cells), (1, 1, 3));
    assert_eq!(st.columns.len(), 2, "the second header replaced the first");
}

#[test]
fn pmdumptext_m_l_o_u_golden() {
    let mut o = PcpOptions::default();
    o.year = Some(1998);
    o.utc_offset = 10 * 3600;
    let (src, recs) = read(&common::data("pcp/dumptext-m-l-o-u.txt"), &o);
    assert_eq!(src.stats().format, Some(PcpFormat::Pmdumptext));
    // 1998-08-07 04:34:33 at UTC+10.
    let t = (902_464_473 - 36_000) * S;
    let g = [("host", "gonzo")];
    assert_eq!(
        recs,
        vec![
            var(t, &g, "sample.colour[red]", 119.0),
            state(t, &g, "sample.lights", "yellow"),
            var(t + S, &g, "sample.colour[red]", 122.0),
            var(t + S, &g, "sample.colour[green]", 223.0),
            state(t + S, &g, "sample.lights", "green"),
        ]
    );
    assert_eq!(src.stats().missing, 1);

    // Without the year the default time stamps cannot be placed.
    let file = common::data("pcp/dumptext-m-l-o-u.txt");
    common::open_error_at::<PcpSource>(&file, &PcpOptions::default(), 3, "year");
}

#[test]
fn pmdumptext_full_names_from_an_archive_golden() {
    let (src, recs) = read(&common::data("pcp/dumptext-M-archive.txt"), &opts("gonzo"));
    let t = 1_709_251_200 * S; // 2024-03-01 00:00:00 UTC
    let g = [("host", "gonzo")];
    assert_eq!(
        recs,
        vec![
            var(t, &g, "mem.util.free", 100.0),
            var(t + S, &g, "disk.dev.read[sda]", 7.0)
        ]
    );
    assert_eq!(src.stats().columns[1].instance.as_deref(), Some("sda"));
    // The archive names no host: without the option, an error.
    assert!(PcpSource::open(
        common::data("pcp/dumptext-M-archive.txt"),
        &PcpOptions::default()
    )
    .is_err());
}

#[test]
fn pmdumplog_ok_foo() {
    let Some(dir) = common::samples("pcp") else {
        return;
    };
    let (src, recs) = read(
        &dir.join("expected/ok-foo.pmdumplog-z-a.txt"),
        &PcpOptions::default(),
    );
    let st = src.stats();
    assert_eq!(st.format, Some(PcpFormat::Pmdumplog));
    assert_eq!(st.rows, 9);
    // 123 value lines: 10 strings (pmlogger host and archive, 8 lights), 113 numbers.
    assert_eq!((st.values, st.strings, st.unsupported), (113, 10, 0));
    // lights: yellow, yellow, green x5, red -> 3 changes; plus 2 pmlogger strings.
    assert_eq!(st.string_changes, 5);
    let g = [("host", "gonzo")];
    // 1998-08-07 04:34:33.248687 (times taken as UTC by default).
    let t1 = 902_464_473 * S + 248_687_000;
    assert!(recs.contains(&var(t1, &g, "sample.colour[red]", 119.0)));
    assert!(recs.contains(&var(t1, &g, "sample.bin[bin-900]", 900.0)));
    assert!(recs.contains(&state(t1, &g, "sample.lights", "yellow")));
    assert!(recs.contains(&var(
        902_464_472 * S + 257_504_000,
        &g,
        "pmcd.pmlogger.port[5403]",
        4332.0
    )));
    let last = recs.last().unwrap();
    assert_eq!(last.time, 902_464_480 * S + 258_477_000);
    let lights: Vec<&str> = recs
        .iter()
        .filter_map(|r| match &r.what {
            What::SetState { ty, value, .. } if ty == "sample.lights" => Some(value.as_str()),
            _ => None,
        })
        .collect();
    assert_eq!(lights, ["yellow", "green", "red"]);

    let (src, colour) = read(
        &dir.join("expected/ok-foo.pmdumplog-z-a.sample.colour.txt"),
        &PcpOptions::default(),
    );
    assert_eq!(src.stats().values, colour.len() as u64);
    assert!(colour
        .iter()
        .all(|r| matches!(&r.what, What::Variable { ty, .. } if ty.starts_with("sample.colour["))));
    assert!(colour.contains(&var(t1, &g, "sample.colour[blue]", 321.0)));
}

#[test]
fn malformed_inputs_name_line_and_token() {
    let o = opts("h");
    let cases: &[(&str, u64, &str)] = &[
        (
            "Time,\"a.b\",\"c.d\"\n2024-01-01 00:00:00,1\n",
            2,
            "2 fields",
        ),
        ("Time,\"a.b\"\n2024-01-01 00:00:00,12x\n", 2, "`12x`"),
        ("Time,\"a.b\"\n2024-01-01 25:00:00,1\n", 2, "25:00:00"),
        ("Time,\"a.b]\"\n", 1, "a.b]"),
        (
            "Time,\"a.b\"\n2024-01-01 00:00:00,\"open\n",
            2,
            "closing quote",
        ),
        (
            "Time\tmem.util.free\n2024-01-01 00:00:00\t1\t2\t3\n",
            2,
            "4 fields",
        ),
        ("Time\tmem.util.free[\"x\n", 1, "closing"),
        ("           Metric\t  m.u.free\n", 1, "interactive"),
    ];
    common::errors_at(cases, |text| {
        PcpSource::from_reader("t", text.as_bytes(), &o)
    });
    // pmdumptext without names, and text that is no PCP export.
    let mut dumptext = o.clone();
    dumptext.format = Some(PcpFormat::Pmdumptext);
    assert!(PcpSource::from_reader("t", "Fri Aug  7 04:34:33\t1\n".as_bytes(), &dumptext).is_err());
    assert!(PcpSource::from_reader("t", "hello\n".as_bytes(), &o).is_err());
}

#[test]
fn pmrep_dash_instances_and_other_delimiters() {
    let (src, recs) = read(&common::data("pcp/pmrep-dash-instances.csv"), &opts("web1"));
    let t = 1_619_415_745 * S; // 2021-04-26 05:42:25 UTC
    let h = [("host", "web1")];
    assert_eq!(
        recs,
        vec![
            var(t, &h, "network.interface.out.packets[lo]", 1.0),
            var(t, &h, "network.interface.out.packets[eth0]", 2.5),
            var(t, &h, "hinv.ncpu", 4.0),
            var(t, &h, "kernel.all.load[1 minute]", 0.12),
        ]
    );
    assert_eq!((src.stats().rows, src.stats().missing), (2, 4));

    // `pmrep -l ';'`: the delimiter is the character after `Time`.
    let text =
        "Time;\"mem.util.free\";\"kernel.uname.release\"\n2021-04-26 05:42:25;17;\"6.1;x\"\n";
    let mut s = PcpSource::from_reader("t", text.as_bytes(), &opts("web1")).unwrap();
    assert_eq!(
        collect(&mut s).unwrap(),
        vec![
            var(t, &h, "mem.util.free", 17.0),
            state(t, &h, "kernel.uname.release", "6.1;x")
        ]
    );
}

#[test]
fn pmdumplog_day_rollover_marks_and_unsupported_values() {
    let (src, recs) = read(
        &common::data("pcp/pmdumplog-rollover.txt"),
        &PcpOptions::default(),
    );
    let t0 = 1_672_531_199 * S + S / 2; // 2022-12-31 23:59:59.5 UTC
    let t1 = t0 + S; // 2023-01-01 00:00:00.5: the time of day went back, the day forward
    let h = [("host", "n1")];
    assert_eq!(
        recs,
        vec![
            var(t0, &h, "kernel.all.load[1 minute]", 0.5),
            var(t1, &h, "kernel.all.load[1 minute]", 0.75),
            var(t1, &h, "kernel.all.load[5 minute]", 0.25),
            state(t1, &h, "kernel.uname.sysname", "Linux"),
        ]
    );
    let st = src.stats();
    assert_eq!((st.rows, st.marks, st.unsupported), (2, 1, 1));
}

#[test]
fn not_a_pcp_export_names_its_line() {
    let dir = tempfile::tempdir().unwrap();
    let f = dir.path().join("notes.txt");
    std::fs::write(&f, "\n\nhello world\nmore\n").unwrap();
    let e = match PcpSource::open(&f, &opts("h")) {
        Ok(_) => panic!("a text that is no PCP export was read"),
        Err(e) => e.to_string(),
    };
    assert!(
        e.contains("notes.txt:3: not a PCP text export: `hello world` is no pmrep CSV header"),
        "{e}"
    );
}
