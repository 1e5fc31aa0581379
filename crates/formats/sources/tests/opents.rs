//! OpenTS XML traces: a small hand-written file (every element of the
//! seed's layout) with its records worked out by hand, errors with their
//! lines, and a large generated trace read as a stream.

mod common;

use std::collections::HashMap;
use std::io::Read;

use trama_records::{collect, Location, Record, Source, SourceError, What};
use trama_sources::opents::{OpentsOptions, OpentsSource, TraceHeader};

fn show(r: &Record) -> String {
    let p = |p: &[trama_records::Step]| trama_records::DisplayPath(p).to_string();
    let t = r.time;
    match &r.what {
        What::Create { container } => format!("{t} create {}", p(container)),
        What::Destroy { container } => format!("{t} destroy {}", p(container)),
        What::Variable {
            container,
            ty,
            op,
            value,
        } => format!("{t} {op:?} {} {ty} {value}", p(container)),
        // Links are drawn at the top; only starts carry extra fields.
        What::StartLink {
            container: None,
            ty,
            from,
            value,
            key,
            extra,
        } => format!("{t} start {ty} {} {value} {key} {extra:?}", p(from)),
        What::EndLink {
            container: None,
            ty,
            to,
            value,
            key,
            extra,
        } if extra.is_empty() => format!("{t} end {ty} {} {value} {key}", p(to)),
        other => panic!("unexpected record {other:?}"),
    }
}

#[test]
fn small_trace_records() {
    let mut src =
        OpentsSource::open(common::data("opents/small.xml"), &OpentsOptions::default()).unwrap();
    assert_eq!(
        src.header(),
        &TraceHeader {
            ranks: Some(3),
            cmd: Some("fib 10".into()),
            time: Some("27.04.2006 15:58".into()),
        }
    );
    // date -u -d '2006-04-27 15:58' +%s
    assert_eq!(src.header().start_unix_seconds(), Some(1_146_153_480));
    let records = collect(&mut src).unwrap();
    let got: Vec<String> = records.iter().map(show).collect();
    // Slice 0 at 0.051 s: its interval starts 1/25 s earlier.
    let mut want: Vec<String> = vec![
        "11000000 create rank:0".into(),
        "11000000 create rank:1".into(),
        "11000000 create rank:2".into(),
        r#"11000000 start migration rank:0 exported m1 [("count", "2")]"#.into(),
        r#"11000000 start migration rank:0 exported m2 [("count", "1")]"#.into(),
    ];
    for (ty, v) in [
        ("memory", "512"),
        ("speed", "1200.5"),
        ("time_tasks", "0.003538"),
        ("time_idle", "0.006406"),
        ("time_sched", "0.003083"),
        ("time_mpi", "0.002429"),
        ("tasks_started", "16"),
        ("tasks_exported", "3"),
        ("msg_sbytes", "2536"),
        ("msg_scount", "27"),
        ("msg_rbytes", "1352"),
        ("msg_rcount", "21"),
        ("msg_ctrl_sbytes", "2000"),
        ("msg_ctrl_scount", "25"),
        ("msg_ctrl_rbytes", "1352"),
        ("msg_ctrl_rcount", "21"),
        ("msg_data_sbytes", "536"),
        ("msg_data_scount", "2"),
        ("msg_data_rbytes", "0"),
        ("msg_data_rcount", "0"),
    ] {
        want.push(format!("51000000 Set rank:0 {ty} {v}"));
    }
    for (ty, v) in [
        ("memory", "256"),
        ("speed", "900"),
        ("time_tasks", "0"),
        ("time_idle", "0.04"),
        ("time_sched", "0"),
        ("time_mpi", "0"),
        ("tasks_imported", "2"),
    ] {
        want.push(format!("51000000 Set rank:1 {ty} {v}"));
    }
    want.extend(
        [
            "51000000 end migration rank:1 exported m1",
            "51000000 end migration rank:2 exported m2",
            // Slice num 2 has no time: 2/25 s.
            "80000000 Set rank:2 tasks_active 1",
            // Slice 3: digits past the nanosecond are cut; the detail of count 0 is no link.
            r#"80000000 start migration rank:1 exported m3 [("count", "1")]"#,
            "123456789 Set rank:1 tasks_exported 1",
            "123456789 end migration rank:0 exported m3",
            "123456789 destroy rank:0",
            "123456789 destroy rank:1",
            "123456789 destroy rank:2",
        ]
        .map(String::from),
    );
    assert_eq!(got, want);
    assert!(records.windows(2).all(|w| w[0].time <= w[1].time));
    assert_eq!(src.slices(), 3);
    let skipped: Vec<(String, u64)> = src.skipped().iter().map(|(k, v)| (k.clone(), *v)).collect();
    assert_eq!(
        skipped,
        [
            ("attribute rank/@host".to_string(), 1),
            ("element <gpu> in <rank>".to_string(), 1)
        ]
    );
    let extras: Vec<String> = src
        .extra_fields()
        .iter()
        .map(|x| format!("{} {} {}", x.kind.name(), x.name, x.field_type))
        .collect();
    assert_eq!(
        extras,
        ["PajeStartLink count int", "PajeStartLink bytes int"]
    );
}

/// `<detail to count bytes/>` in an `<extra>`: a `message` link per
/// destination, after the slice's migrations, keys counted with theirs.
#[test]
fn message_details_become_links() {
    let mut src = OpentsSource::open(
        common::data("opents/messages.xml"),
        &OpentsOptions::default(),
    )
    .unwrap();
    let records = collect(&mut src).unwrap();
    let links: Vec<String> = records
        .iter()
        .filter(|r| matches!(r.what, What::StartLink { .. } | What::EndLink { .. }))
        .map(show)
        .collect();
    assert_eq!(
        links,
        [
            // Slice 0: (0, 0.04 s].
            r#"0 start migration rank:0 exported m1 [("count", "1")]"#,
            r#"0 start message rank:0 ctrl s2 [("count", "20"), ("bytes", "1600")]"#,
            r#"0 start message rank:0 ctrl s3 [("count", "5"), ("bytes", "400")]"#,
            r#"0 start message rank:0 data s4 [("count", "2"), ("bytes", "600")]"#,
            // Without `bytes`, only the count.
            r#"0 start message rank:1 term s5 [("count", "3")]"#,
            "40000000 end migration rank:2 exported m1",
            "40000000 end message rank:1 ctrl s2",
            "40000000 end message rank:2 ctrl s3",
            "40000000 end message rank:1 data s4",
            "40000000 end message rank:0 term s5",
            // Slice 1: (0.04 s, 0.081 s].
            r#"40000000 start message rank:2 ack s6 [("count", "1"), ("bytes", "64")]"#,
            "81000000 end message rank:0 ack s6",
        ]
    );
    // The extra's counters stay variables of the sender.
    let vars: Vec<String> = records
        .iter()
        .filter(|r| matches!(&r.what, What::Variable { ty, .. } if ty.starts_with("msg_ctrl")))
        .map(show)
        .collect();
    assert_eq!(vars.len(), 4, "{vars:?}");
    let skipped: Vec<(String, u64)> = src.skipped().iter().map(|(k, v)| (k.clone(), *v)).collect();
    assert_eq!(
        skipped,
        [
            ("attribute extra/detail/@color".to_string(), 1),
            ("element <note> in <extra>".to_string(), 1)
        ]
    );
}

#[test]
fn header_only_and_lazy_ranks() {
    let mut s =
        OpentsSource::from_reader("empty", &b"<trace cmd='x'/>"[..], &OpentsOptions::default())
            .unwrap();
    assert_eq!(s.header().ranks, None);
    assert_eq!(s.header().start_unix_seconds(), None);
    assert!(collect(&mut s).unwrap().is_empty());
    // Without `ranks`, a rank is created at the first slice naming it.
    let xml = "<trace>\n<slice time='0.01'><rank num='4'/></slice>\n\
               <slice time='2'><rank num='1'><task type='exported'><detail count='1' to='7'/></task></rank></slice>\n</trace>\n";
    let mut src =
        OpentsSource::from_reader("lazy", xml.as_bytes(), &OpentsOptions::default()).unwrap();
    let got = common::lines(&mut src, show);
    assert_eq!(
        got,
        [
            "0 create rank:4",
            "10000000 create rank:1",
            "10000000 create rank:7",
            r#"10000000 start migration rank:1 exported m1 [("count", "1")]"#,
            "2000000000 end migration rank:7 exported m1",
            "2000000000 destroy rank:1",
            "2000000000 destroy rank:4",
            "2000000000 destroy rank:7",
        ]
    );
    let h = TraceHeader {
        time: Some("29.02.2000 23:59:59".into()),
        ..TraceHeader::default()
    };
    assert_eq!(h.start_unix_seconds(), Some(951_868_799));
}

fn error(xml: &str) -> SourceError {
    let mut s = match OpentsSource::from_reader("t.xml", xml.as_bytes(), &OpentsOptions::default())
    {
        Ok(s) => s,
        Err(e) => return e,
    };
    collect(&mut s).unwrap_err()
}

fn at_line(e: &SourceError, line: u64, token: &str) {
    assert_eq!(e.location, Location::Line(line), "{e}");
    assert!(e.message.contains(token), "{e} lacks {token}");
    assert!(e.to_string().starts_with(&format!("t.xml:{line}: ")), "{e}");
}

#[test]
fn errors_name_the_line_and_the_token() {
    let head = "<?xml version='1.0'?>\n<trace ranks='3'>\n<slice num='0' time='0.1'>\n";
    // The line of the error, a token its message quotes, and what follows
    // `head`.
    let after_head: &[(u64, &str, &str)] = &[
        // A bad value on the second line of a tag.
        (
            6,
            "`fast`",
            "<rank num='0'>\n<resource mbytes='1'\n sched='fast'/>\n",
        ),
        // Rank beyond the header's count; detail without `to`; `to` beyond.
        (4, "`3`", "<rank num='3'/>"),
        (
            6,
            "without `to`",
            "<rank num='0'>\n<task type='exported'>\n<detail count='1'/>",
        ),
        (
            7,
            "`9`",
            "<rank num='0'>\n<task type='exported'>\n\n<detail count='1' to='9'/>",
        ),
        // Rank twice; slice going back in time; slice without time or num.
        (5, "twice", "<rank num='1'/>\n<rank num='1'/>"),
        (5, "`0.05`", "</slice>\n<slice time='0.05'>"),
        (6, "without `time` or `num`", "</slice>\n\n<slice>"),
        (4, "`x1`", "<rank num='x1'/>"),
        (4, "without `num`", "<rank/>"),
        // Text where elements belong; the file ending inside a slice.
        (5, "`hello`", "<rank num='0'>\n  hello\n</rank>"),
        (5, "ends inside <slice>", "<rank num='0'/>\n"),
        // A second trace.
        (5, "after </trace>", "</slice></trace>\n<trace/>"),
        // Messages per destination: `to` missing, malformed or beyond; `count`
        // missing or malformed; `bytes` malformed.
        (
            7,
            "without `to`",
            "<rank num='0'>\n<message>\n<extra type='ctrl'>\n<detail count='1'/>",
        ),
        (
            6,
            "`two`",
            "<rank num='0'><message>\n<extra type='data'>\n<detail to='two' count='1'/>",
        ),
        (
            // On the attribute's line.
            7,
            "`3`",
            "<rank num='0'><message>\n<extra type='data'>\n<detail count='1'\n to='3'/>",
        ),
        (
            5,
            "without `count`",
            "<rank num='0'><message>\n<extra type='data'><detail to='1'/>",
        ),
        (
            5,
            "`-1`",
            "<rank num='0'><message>\n<extra type='data'><detail to='1' count='-1'/>",
        ),
        (
            5,
            "`1.5k`",
            "<rank num='0'><message>\n<extra type='data'><detail to='1' count='1' bytes='1.5k'/>",
        ),
    ];
    for (line, token, rest) in after_head {
        at_line(&error(&format!("{head}{rest}")), *line, token);
    }
    // Malformed XML: a wrong end tag.
    let e = error(&format!("{head}<rank num='0'>\n</rnk>"));
    assert_eq!(e.location, Location::Line(5), "{e}");
    assert!(e.message.contains("rnk"), "{e}");
    // Not a trace at all; nothing at all; a bad header.
    at_line(&error("\n<html><body/></html>"), 2, "<html>");
    let e = error("  \n");
    assert_eq!(e.location, Location::File, "{e}");
    at_line(&error("<trace ranks='-2'>"), 1, "`-2`");
}

/// Generates a trace of `slices` slices of `ranks` ranks as it is read, so
/// that its size is not limited by memory; with `bad_at`, the `mflops` of
/// rank 0 in that slice is not a number, and `bad_line` says on which line.
struct Generator {
    slices: u64,
    ranks: u32,
    next: u64,
    out: Vec<u8>,
    pos: usize,
    lines: u64,
    bytes: u64,
    bad_at: Option<u64>,
    bad_line: Option<u64>,
}

impl Generator {
    fn new(slices: u64, ranks: u32, bad_at: Option<u64>) -> Generator {
        let mut g = Generator {
            slices,
            ranks,
            next: 0,
            out: Vec::new(),
            pos: 0,
            lines: 1,
            bytes: 0,
            bad_at,
            bad_line: None,
        };
        g.push(&format!(
            "<?xml version=\"1.0\"?>\n<trace ranks=\"{ranks}\" cmd=\"gen\" time=\"01.01.2020 00:00\">\n"
        ));
        g
    }

    fn push(&mut self, s: &str) {
        self.lines += s.bytes().filter(|b| *b == b'\n').count() as u64;
        self.out.extend_from_slice(s.as_bytes());
    }

    fn slice(&mut self, k: u64) {
        self.push(&format!(
            "<slice num=\"{k}\" time=\"{}.{:06}\">\n",
            k / 25,
            (k % 25) * 40_000
        ));
        for r in 0..self.ranks {
            let mflops = if self.bad_at == Some(k) && r == 0 {
                self.bad_line = Some(self.lines + 2);
                "lots".to_string()
            } else {
                format!("{}.5", k % 1000)
            };
            self.push(&format!(
                "  <rank num=\"{r}\">\n    <resource mbytes=\"{}\" tasks=\"0.01\" idle=\"0.02\"\n      mflops=\"{mflops}\" sched=\"0.005\" mpi=\"0.005\" />\n",
                1000 + r
            ));
            for ty in [
                "started",
                "prenatal",
                "imported",
                "active",
                "suspended",
                "finished",
            ] {
                self.push(&format!("    <task type=\"{ty}\" count=\"{}\" />\n", k % 7));
            }
            self.push(&format!(
                "    <task type=\"exported\" count=\"1\">\n      <detail count=\"1\" to=\"{}\" />\n    </task>\n",
                (r + 1) % self.ranks
            ));
            self.push(
                "    <message sbytes=\"300\" scount=\"3\" rbytes=\"200\" rcount=\"2\">\n      <extra type=\"ctrl\" sbytes=\"100\" scount=\"1\" rbytes=\"100\" rcount=\"1\" />\n      <extra type=\"data\" sbytes=\"200\" scount=\"2\" rbytes=\"100\" rcount=\"1\" />\n    </message>\n  </rank>\n",
            );
        }
        self.push("</slice>\n");
    }
}

impl Read for Generator {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        if self.pos == self.out.len() {
            self.out.clear();
            self.pos = 0;
            if self.next < self.slices {
                self.slice(self.next);
            } else if self.next == self.slices {
                self.push("</trace>\n");
            }
            self.next += 1;
        }
        // Odd-sized reads, so that events straddle the reader's buffer.
        let n = (self.out.len() - self.pos).min(buf.len()).min(7_777);
        buf[..n].copy_from_slice(&self.out[self.pos..self.pos + n]);
        self.pos += n;
        self.bytes += n as u64;
        Ok(n)
    }
}

#[test]
fn large_generated_trace_streams() {
    let (slices, ranks) = (1_500u64, 16u32);
    let mut src = OpentsSource::from_reader(
        "generated",
        Generator::new(slices, ranks, None),
        &OpentsOptions::default(),
    )
    .unwrap();
    let per_rank = 6 + 7 + 4 + 8; // resource, tasks, message, two extras
    let per_slice = ranks as usize * (per_rank + 2); // and a migration's two ends
    let (mut n, mut last, mut most) = (0usize, i64::MIN, 0usize);
    let (mut starts, mut ends, mut creates, mut destroys) = (0, 0, 0, 0);
    while let Some(r) = src.next_record().unwrap() {
        most = most.max(src.buffered());
        assert!(r.time >= last);
        last = r.time;
        n += 1;
        match r.what {
            What::StartLink { .. } => starts += 1,
            What::EndLink { .. } => ends += 1,
            What::Create { .. } => creates += 1,
            What::Destroy { .. } => destroys += 1,
            _ => {}
        }
    }
    assert_eq!(n, slices as usize * per_slice + 2 * ranks as usize);
    assert_eq!(
        (starts, ends),
        (slices * ranks as u64, slices * ranks as u64)
    );
    assert_eq!((creates, destroys), (ranks, ranks));
    // The last slice, number 1499, is at 59.96 s.
    assert_eq!(last, 59_960_000_000);
    // One slice at a time (the first with its creations).
    assert!(most < per_slice + ranks as usize, "{most} records held");
    assert_eq!(src.slices(), slices);
    assert!(src.skipped().is_empty());
}

#[test]
fn line_numbers_deep_in_a_generated_trace() {
    let g = Generator::new(400, 8, Some(357));
    let mut src = OpentsSource::from_reader("generated", g, &OpentsOptions::default()).unwrap();
    let e = collect(&mut src).unwrap_err();
    // The generator is gone into the source; recompute where it wrote the bad token.
    let mut again = Generator::new(400, 8, Some(357));
    std::io::copy(&mut again, &mut std::io::sink()).unwrap();
    let line = again.bad_line.unwrap();
    assert!(line > 40_000, "{line}");
    assert_eq!(e.location, Location::Line(line), "{e}");
    assert!(e.message.contains("`lots`"), "{e}");
    assert!(again.bytes > 2_000_000);
}

/// A trace of trama-gen's OpenTS generator reads back whole: its slices,
/// ranks and links are those the generator wrote, and every rank's message
/// counters agree with the links (sent: the sums of its details; received:
/// what the others sent it in the slice).
#[test]
fn generated_realistic_trace_reads_back() {
    use trama_gen::opents::{write_opents_counted, OpentsGenOptions};

    let mut opts = OpentsGenOptions::default();
    opts.ranks = 7;
    opts.slices = 400;
    let mut xml = Vec::new();
    let stats = write_opents_counted(11, &opts, &mut xml).unwrap();
    assert_eq!(stats.bytes, xml.len() as u64);
    assert!(stats.migrations > 10 && stats.messages > 1_000, "{stats:?}");
    let mut src =
        OpentsSource::from_reader("gen.xml", &xml[..], &OpentsOptions::default()).unwrap();
    assert_eq!(src.header().ranks, Some(7));
    assert_eq!(src.header().cmd.as_deref(), Some("fib 40"));
    let records = collect(&mut src).unwrap();
    assert_eq!(src.slices(), 400);
    assert!(src.skipped().is_empty(), "{:?}", src.skipped());
    let t = tally(&records);
    assert_eq!(t.starts_left, 0, "links started and never ended");
    assert_eq!(t.creates, 7);
    assert_eq!(
        (t.migrations, t.messages),
        (stats.migrations, stats.messages)
    );
    assert_eq!(
        (t.tasks, t.msgs),
        (stats.tasks_exported, stats.messages_sent)
    );
    check_rank_counters(&t);
    check_counter_sums_and_times(&t.vars);
}

/// Per (slice time, rank, message kind): count and bytes.
type PerKind = HashMap<(i64, u32, String), (u64, u64)>;

/// What the records of a generated OpenTS trace hold, counted.
struct Tally {
    sent: PerKind,
    recvd: PerKind,
    /// (time, rank) → tasks exported.
    exported: HashMap<(i64, u32), u64>,
    /// Links started and never ended.
    starts_left: usize,
    migrations: u64,
    messages: u64,
    tasks: u64,
    msgs: u64,
    creates: u64,
    /// (time, rank, variable type, value).
    vars: Vec<(i64, u32, String, f64)>,
}

/// Counts the records (in time order, each link ended once, on another
/// rank, of a known kind).
fn tally(records: &[Record]) -> Tally {
    use trama_gen::opents::MESSAGE_KINDS;
    use trama_sources::opents::{MESSAGE_LINK, MIGRATION_LINK};
    let rank = |p: &[trama_records::Step]| -> u32 { p[0].name.parse().unwrap() };
    // (time of the slice, rank, kind) → (count, bytes), sent and received;
    // (time, rank) → tasks exported.
    let mut sent: HashMap<(i64, u32, String), (u64, u64)> = HashMap::new();
    let mut recvd: HashMap<(i64, u32, String), (u64, u64)> = HashMap::new();
    let mut exported: HashMap<(i64, u32), u64> = HashMap::new();
    let mut starts: HashMap<String, (u32, String, String, u64, u64)> = HashMap::new();
    let (mut migrations, mut messages, mut tasks, mut msgs) = (0, 0, 0, 0);
    let (mut creates, mut vars) = (0, Vec::new());
    let mut last = i64::MIN;
    for r in records {
        assert!(r.time >= last);
        last = r.time;
        match &r.what {
            What::Create { .. } => creates += 1,
            What::StartLink {
                ty,
                from,
                value,
                key,
                extra,
                ..
            } => {
                let field = |n: &str| -> u64 {
                    extra
                        .iter()
                        .find(|(k, _)| k == n)
                        .unwrap()
                        .1
                        .parse()
                        .unwrap()
                };
                let count = field("count");
                let bytes = if ty == MESSAGE_LINK {
                    field("bytes")
                } else {
                    0
                };
                assert!(count > 0);
                let prev = starts.insert(
                    key.to_string(),
                    (rank(from), ty.to_string(), value.to_string(), count, bytes),
                );
                assert!(prev.is_none(), "key {key} twice");
            }
            What::EndLink { ty, to, key, .. } => {
                let (from, t2, value, count, bytes) = starts.remove(key.as_str()).unwrap();
                assert_eq!(t2, *ty);
                let to = rank(to);
                assert_ne!(from, to);
                if ty == MIGRATION_LINK {
                    assert_eq!(value, "exported");
                    migrations += 1;
                    tasks += count;
                    *exported.entry((r.time, from)).or_default() += count;
                } else {
                    assert!(MESSAGE_KINDS.contains(&value.as_str()), "{value}");
                    messages += 1;
                    msgs += count;
                    let s = sent.entry((r.time, from, value.clone())).or_default();
                    s.0 += count;
                    s.1 += bytes;
                    let s = recvd.entry((r.time, to, value)).or_default();
                    s.0 += count;
                    s.1 += bytes;
                }
            }
            What::Variable {
                container,
                ty,
                value,
                ..
            } => vars.push((r.time, rank(container), ty.to_string(), *value)),
            _ => {}
        }
    }
    Tally {
        sent,
        recvd,
        exported,
        starts_left: starts.len(),
        migrations,
        messages,
        tasks,
        msgs,
        creates,
        vars,
    }
}

/// Every rank of every slice has its counters; those of a kind it did not
/// use are left out (zero); they agree with the links.
fn check_rank_counters(t: &Tally) {
    use trama_gen::opents::MESSAGE_KINDS;
    let (vars, sent, recvd, exported) = (&t.vars, &t.sent, &t.recvd, &t.exported);
    let mut seen_ranks: HashMap<i64, u32> = HashMap::new();
    for (t, r, ty, v) in vars {
        if ty == "memory" {
            *seen_ranks.entry(*t).or_default() += 1;
        }
        if ty == "tasks_exported" {
            assert_eq!(exported.get(&(*t, *r)).copied().unwrap_or(0) as f64, *v);
        }
        for (dir, map) in [("s", sent), ("r", recvd)] {
            for (what, i) in [("count", 0), ("bytes", 1)] {
                let attr = format!("{dir}{what}");
                for kind in MESSAGE_KINDS {
                    if *ty == format!("msg_{kind}_{attr}") {
                        let (c, b) = map
                            .get(&(*t, *r, kind.to_string()))
                            .copied()
                            .unwrap_or((0, 0));
                        let want = if i == 0 { c } else { b };
                        assert_eq!(*v, want as f64, "slice at {t}, rank {r}, {ty}");
                    }
                }
            }
        }
    }
    assert_eq!(seen_ranks.len(), 400);
    assert!(seen_ranks.values().all(|n| *n == 7));
}

/// A message's counters are the sums over its kinds; the times add up to
/// the slice's length.
fn check_counter_sums_and_times(vars: &[(i64, u32, String, f64)]) {
    use trama_gen::opents::MESSAGE_KINDS;
    let times: std::collections::BTreeSet<i64> = vars.iter().map(|v| v.0).collect();
    let mut by_rank: HashMap<(i64, u32), HashMap<String, f64>> = HashMap::new();
    for (t, r, ty, v) in vars {
        by_rank.entry((*t, *r)).or_default().insert(ty.clone(), *v);
    }
    for ((t, r), v) in &by_rank {
        for attr in ["sbytes", "scount", "rbytes", "rcount"] {
            let sum: f64 = MESSAGE_KINDS
                .iter()
                .filter_map(|k| v.get(&format!("msg_{k}_{attr}")))
                .sum();
            assert_eq!(
                v[&format!("msg_{attr}")],
                sum,
                "slice at {t}, rank {r}, {attr}"
            );
        }
        // The times add up to the slice's length, about 1/25 s.
        let time: f64 = ["time_tasks", "time_idle", "time_sched", "time_mpi"]
            .iter()
            .map(|k| v[*k])
            .sum();
        let prev = times
            .range(..*t)
            .next_back()
            .copied()
            .unwrap_or(t - 40_000_000);
        let length = (t - prev) as f64 / 1e9;
        assert!((time - length).abs() < 1e-9, "{time} s at {t}, rank {r}");
        assert!((0.037..0.043).contains(&length), "{length}");
    }
}
