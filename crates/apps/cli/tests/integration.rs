//! End to end: the seed's integrated view. An MPI ping-pong on two hosts,
//! `paple01` and `paple03`, seen at once by MPE (a CLOG-2 log), the Linux
//! scheduler (ftrace `sched_switch`, one file per host), Ganglia (the text
//! log) and Performance Co-Pilot (`pmrep -o csv`, one file per host), with
//! a `timesync` file correcting the hosts' clocks to the reference `paple`.
//! `trama merge` puts them in one trace with the plan
//! `plans/mpi-os-ganglia-pcp.toml`; the tests check the trace's hierarchy,
//! its states, variables and messages, the clock correction of one known
//! message, determinism, and the errors of wrong plans.
//!
//! The inputs in `tests/data/integration/` are written by
//! [`inputs_are_what_the_run_model_gives`] from the model of the run below
//! (`TRAMA_BLESS=1` rewrites them); every other test reads the committed
//! files.

mod common;

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::process::Output;

// ---------------------------------------------------------------------------
// The run's model. Times are nanoseconds of the reference clock (`paple`),
// unless named local.

/// The reference time of the first clock pair (the seed's table 4.6).
const R0: i64 = 1_094_221_332_965_040_000;
/// The run's start on the reference clock (MPI_Init returns).
const START: i64 = 1_094_221_335_000_000_000;
/// Reference times of the clock pairs: paple01 and paple03, before and after.
const PAIRS_BEFORE: [i64; 2] = [R0, 1_094_221_333_154_618_000];
const PAIRS_AFTER: [i64; 2] = [1_094_221_347_489_491_000, 1_094_221_347_621_866_000];

const HOSTS: [&str; 2] = ["paple01", "paple03"];

/// The local clock of host `h` (0: paple01, 1: paple03) at reference time
/// `r`: paple01 is 2.5 ms ahead and gains 50 µs a second (50 ppm);
/// paple03 is 0.8 ms ahead and loses 25 µs a second.
fn local(h: usize, r: i64) -> i64 {
    let d = r - R0;
    match h {
        0 => r + 2_500_000 + d.div_euclid(20_000),
        _ => r + 800_000 - d.div_euclid(40_000),
    }
}

/// The MPI log's time origin: rank 0's MPI_Init on paple01's clock, to the
/// microsecond (what the MPI_Init wrapper recorded). MPE logged
/// `MPI_Wtime() - origin` with each rank's local clock.
const MPI_ORIGIN: i64 = 1_094_221_335_002_601_000;
/// The boot times of the hosts on their own clocks: ftrace's times count
/// from them.
const BOOT: [i64; 2] = [1_094_140_000_250_000_000, 1_094_185_123_500_000_000];
/// The OS pids of the ranks (recorded at MPI_Init).
const RANK_PID: [u32; 2] = [4312, 2718];
/// The CPU each rank runs on.
const RANK_CPU: [u32; 2] = [0, 1];

/// Microseconds after the run's start, on the reference clock.
fn at(us: i64) -> i64 {
    START + us * 1000
}

#[derive(Clone, Copy, Debug, PartialEq)]
enum Mpi {
    Enter(&'static str),
    Leave(&'static str),
    Send { to: usize, tag: i32, size: i32 },
    Recv { from: usize, tag: i32, size: i32 },
}

/// The known message: rank 0's last word to rank 1 (4 bytes, tag 9),
/// sent at 9.800010 s and received 120 µs later; on the raw clocks its
/// receive comes 2.4 ms before its send.
const KNOWN_SEND_US: i64 = 9_800_010;
const KNOWN_RECV_US: i64 = 9_800_130;
const KNOWN_TAG: i32 = 9;

/// Rank `r`'s MPI call around its message `m`, each event given to `push`
/// at its time (µs) in `times`: entered, the message, left.
fn call(push: &mut impl FnMut(usize, i64, Mpi), r: usize, m: Mpi, times: [i64; 3]) {
    let name = match m {
        Mpi::Send { .. } => "MPI_Send",
        _ => "MPI_Recv",
    };
    let [enter, at, leave] = times;
    push(r, enter, Mpi::Enter(name));
    push(r, at, m);
    push(r, leave, Mpi::Leave(name));
}

/// The MPI events of the run: (rank, reference time, event).
fn mpi_events() -> Vec<(usize, i64, Mpi)> {
    use Mpi::*;
    let send = |to, tag, size| Send { to, tag, size };
    let recv = |from, tag, size| Recv { from, tag, size };
    let mut ev = Vec::new();
    let mut push = |r: usize, us: i64, e: Mpi| ev.push((r, at(us), e));
    // The barrier after MPI_Init.
    push(0, 0, Enter("MPI_Barrier"));
    push(1, 150, Enter("MPI_Barrier"));
    push(0, 400, Leave("MPI_Barrier"));
    push(1, 410, Leave("MPI_Barrier"));
    let mut r0_free = 400;
    let mut r1_free = 410;
    // Four ping-pongs of 64 KiB: 5.44 ms on the wire each way.
    let size = 65536;
    for i in 0..4 {
        let b = 500_000 + i * 2_300_000;
        push(0, r0_free, Enter("compute"));
        push(0, b + 1_400_000, Leave("compute"));
        let t = [b + 1_400_000, b + 1_400_040, b + 1_405_600];
        call(&mut push, 0, send(1, 1, size), t);
        push(1, r1_free, Enter("compute"));
        let wait = b + 1_100_000 - i * 50_000;
        push(1, wait, Leave("compute"));
        let t = [wait, b + 1_405_480, b + 1_405_500];
        call(&mut push, 1, recv(0, 1, size), t);
        push(1, b + 1_405_600, Enter("compute"));
        push(1, b + 2_000_000, Leave("compute"));
        let t = [b + 2_000_000, b + 2_000_040, b + 2_005_600];
        call(&mut push, 1, send(0, 2, size), t);
        let t = [b + 1_405_600, b + 2_005_480, b + 2_005_500];
        call(&mut push, 0, recv(1, 2, size), t);
        r0_free = b + 2_005_500;
        r1_free = b + 2_005_600;
    }
    // Rank 0 reduces its results, then tells rank 1 it is done.
    push(0, r0_free, Enter("compute"));
    push(0, 9_800_000, Leave("compute"));
    let t = [9_800_000, KNOWN_SEND_US, 9_800_030];
    call(&mut push, 0, send(1, KNOWN_TAG, 4), t);
    let t = [9_700_000, KNOWN_RECV_US, 9_800_140];
    call(&mut push, 1, recv(0, KNOWN_TAG, 4), t);
    push(0, 9_800_040, Enter("MPI_Barrier"));
    push(1, 9_800_150, Enter("MPI_Barrier"));
    push(0, 9_800_600, Leave("MPI_Barrier"));
    push(1, 9_800_610, Leave("MPI_Barrier"));
    ev.sort_by_key(|e| (e.1, e.0));
    ev
}

// ---------------------------------------------------------------------------
// CLOG-2 (the layout of crates/formats/sources/src/clog2/mod.rs, as written by
// `trama_gen::clog2::Clog2Writer`): big-endian, finalized, one block
// size, MPI_COMM_WORLD only.

const CLOG_SEND: i32 = -101;
const CLOG_RECV: i32 = -102;
/// MPE's states of the run: (state id, start event, end event, colour, name).
const STATES: [(i32, i32, i32, &str, &str); 4] = [
    (20, 40, 41, "blue", "MPI_Send"),
    (19, 38, 39, "red", "MPI_Recv"),
    (4, 8, 9, "yellow", "MPI_Barrier"),
    (300, 600, 601, "gray", "compute"),
];

fn be(vs: &[i32]) -> Vec<u8> {
    vs.iter().flat_map(|v| v.to_be_bytes()).collect()
}

fn text(s: &str, n: usize) -> Vec<u8> {
    let mut v = s.as_bytes().to_vec();
    v.resize(n, 0);
    v
}

/// A rank's time in the log: its host's clock minus the origin, in seconds.
fn clog_time(rank: usize, r: i64) -> f64 {
    (local(rank, r) - MPI_ORIGIN) as f64 / 1e9
}

fn clog_file() -> Vec<u8> {
    let mut c = trama_gen::clog2::Clog2Writer::new(true, 2);
    c.block_size = 1024;
    c.user_states = 1;
    c.user_solo_events = 0;
    c.end_time = 100.0;
    c.world_host = "paple01".into();
    let t0 = clog_time(0, at(0));
    for (id, start, end, color, name) in STATES {
        let mut b = be(&[id, start, end, 0]);
        b.extend(text(color, 24));
        b.extend(text(name, 32));
        b.extend(text("", 40));
        c.rec(t0, 0, 2, &b);
    }
    for rank in 0..2 {
        let mut b = be(&[0, 0, rank, rank]);
        b.extend(be(&[777]));
        b.extend(1.0e9f64.to_be_bytes());
        b.extend(text(HOSTS[rank as usize], 20));
        c.rec(t0, rank, 9, &b);
    }
    // The merged log is in time order (of the raw clocks).
    let mut recs: Vec<(f64, usize, Mpi)> = mpi_events()
        .into_iter()
        .map(|(rank, r, e)| (clog_time(rank, r), rank, e))
        .collect();
    recs.sort_by(|a, b| a.0.total_cmp(&b.0));
    let event_of = |name: &str, enter: bool| {
        let s = STATES.iter().find(|s| s.4 == name).expect("a state");
        if enter {
            s.1
        } else {
            s.2
        }
    };
    for (t, rank, e) in recs {
        let r = rank as i32;
        match e {
            Mpi::Enter(s) => c.rec(t, r, 5, &be(&[event_of(s, true), 0])),
            Mpi::Leave(s) => c.rec(t, r, 5, &be(&[event_of(s, false), 0])),
            Mpi::Send { to, tag, size } => {
                c.rec(t, r, 7, &be(&[CLOG_SEND, 0, to as i32, tag, size, 0]))
            }
            Mpi::Recv { from, tag, size } => {
                c.rec(t, r, 7, &be(&[CLOG_RECV, 0, from as i32, tag, size, 0]))
            }
        }
    }
    c.finish()
}

// ---------------------------------------------------------------------------
// The scheduler: each host's threads on its two CPUs, as ftrace prints
// `sched_switch` and `sched_wakeup`.

/// A thread running on a CPU from `start` to `end` (reference times), then
/// leaving it in `state` (`S` asleep, `R+` preempted, `X` dead), woken at
/// `wake` before it ran.
#[derive(Clone, Debug)]
struct Run {
    cpu: u32,
    start: i64,
    end: i64,
    pid: u32,
    comm: &'static str,
    state: &'static str,
    wake: Option<i64>,
}

/// Another thread of a host: (pid, comm, CPU, period µs, phase µs, length µs).
type Daemon = (u32, &'static str, u32, i64, i64, i64);

/// The other threads of each host.
const DAEMONS: [[Daemon; 3]; 2] = [
    [
        (1877, "gmond", 1, 1_000_000, 250_000, 1_800),
        (2011, "pmlogger", 1, 1_000_000, 600_000, 900),
        (158, "kjournald", 1, 5_000_000, 3_100_000, 4_000),
    ],
    [
        (1630, "gmond", 0, 1_000_000, 420_000, 1_700),
        (1702, "pmlogger", 0, 1_000_000, 710_000, 800),
        (161, "kjournald", 0, 5_000_000, 1_300_000, 3_500),
    ],
];
/// A kernel worker preempting each rank once: (pid, comm, start µs, length µs).
const PREEMPT: [(u32, &str, i64, i64); 2] = [
    (5, "events/0", 3_000_000, 700),
    (6, "events/1", 5_300_000, 650),
];
/// mpd, MPICH's process manager, starting each rank: (pid, start µs).
const MPD: [(u32, i64); 2] = [(1422, -200_000), (1391, -201_000)];
/// When the ranks' processes start and exit (µs).
const RANK_BORN_US: i64 = -150_000;
const RANK_EXIT_US: i64 = 9_850_000;

/// Everything that ran on host `h`.
fn runs(h: usize) -> Vec<Run> {
    let rank_cpu = RANK_CPU[h];
    let mut out = Vec::new();
    let mut run = |cpu, start, end, pid, comm, state, wake| {
        out.push(Run {
            cpu,
            start,
            end,
            pid,
            comm,
            state,
            wake,
        })
    };
    // The rank runs from its start to its exit but while it waits for a
    // message (it sleeps 30 µs into MPI_Recv, is woken 60 µs before the
    // receive is logged and runs again 20 µs later) and while preempted.
    let mut gaps: Vec<(i64, i64, &'static str, Option<i64>)> = Vec::new();
    let mut recv_start = None;
    for (rank, r, e) in mpi_events() {
        if rank != h {
            continue;
        }
        match e {
            Mpi::Enter("MPI_Recv") => recv_start = Some(r),
            Mpi::Recv { .. } => {
                let s = recv_start.take().expect("a receive inside MPI_Recv");
                if r - s > 1_000_000 {
                    gaps.push((s + 30_000, r - 40_000, "S", Some(r - 60_000)));
                }
            }
            _ => {}
        }
    }
    let (ppid, pcomm, pstart, plen) = PREEMPT[h];
    gaps.push((at(pstart), at(pstart + plen), "R+", None));
    gaps.sort_by_key(|g| g.0);
    let pid = RANK_PID[h];
    let mut from = at(RANK_BORN_US);
    let mut wake = Some(from - 20_000);
    for (s, e, state, w) in gaps {
        run(rank_cpu, from, s, pid, "pingpong", state, wake);
        from = e;
        wake = w;
    }
    run(rank_cpu, from, at(RANK_EXIT_US), pid, "pingpong", "X", wake);
    run(
        rank_cpu,
        at(pstart),
        at(pstart + plen),
        ppid,
        pcomm,
        "S",
        Some(at(pstart) - 10_000),
    );
    let (mpid, mstart) = MPD[h];
    run(
        rank_cpu,
        at(mstart),
        at(mstart + 2_500),
        mpid,
        "mpd",
        "S",
        Some(at(mstart) - 15_000),
    );
    for (dpid, dcomm, cpu, period, phase, len) in DAEMONS[h] {
        let mut t = phase;
        while t - period > -1_800_000 {
            t -= period;
        }
        while t < 11_500_000 {
            run(
                cpu,
                at(t),
                at(t + len),
                dpid,
                dcomm,
                "S",
                Some(at(t) - 12_000),
            );
            t += period;
        }
    }
    out
}

/// The ftrace text of host `h`: its times count from its boot, on its clock.
fn ftrace_file(h: usize) -> String {
    let ts = |r: i64| {
        let t = local(h, r) - BOOT[h];
        format!("{}.{:06}", t / 1_000_000_000, (t % 1_000_000_000) / 1000)
    };
    // (reference time, CPU, line)
    let mut lines: Vec<(i64, u32, String)> = Vec::new();
    for cpu in 0..2u32 {
        let idle = (format!("swapper/{cpu}"), 0u32);
        let task = |(comm, pid): &(String, u32)| {
            if *pid == 0 {
                format!("{:>16}-{:<5}", "<idle>", 0)
            } else {
                format!("{comm:>16}-{pid:<5}")
            }
        };
        let switch = |t: i64, prev: &(String, u32), state: &str, next: &(String, u32)| {
            (
                t,
                cpu,
                format!(
                    "{} [{cpu:03}] d..3 {:>14}: sched_switch: prev_comm={} prev_pid={} prev_prio=120 \
                     prev_state={state} ==> next_comm={} next_pid={} next_prio=120",
                    task(prev),
                    ts(t),
                    prev.0,
                    prev.1,
                    next.0,
                    next.1
                ),
            )
        };
        let mut mine: Vec<Run> = runs(h).into_iter().filter(|r| r.cpu == cpu).collect();
        mine.sort_by_key(|r| r.start);
        // The thread on the CPU (or that left it last) and its end.
        let mut last: Option<Run> = None;
        let mut on = idle.clone();
        for r in mine {
            let me = (r.comm.to_string(), r.pid);
            if let Some(l) = &last {
                assert!(l.end <= r.start, "host {h} CPU {cpu}: {r:?} overlaps {l:?}");
                if l.end < r.start && on.1 != 0 {
                    lines.push(switch(l.end, &on, l.state, &idle));
                    on = idle.clone();
                }
            }
            if let Some(w) = r.wake {
                let waker = match &last {
                    Some(l) if l.end > w => (l.comm.to_string(), l.pid),
                    _ => idle.clone(),
                };
                lines.push((
                    w,
                    cpu,
                    format!(
                        "{} [{cpu:03}] d.h3 {:>14}: sched_wakeup: comm={} pid={} prio=120 target_cpu={cpu:03}",
                        task(&waker),
                        ts(w),
                        r.comm,
                        r.pid
                    ),
                ));
            }
            let state = last.as_ref().map_or("R", |l| l.state);
            lines.push(switch(
                r.start,
                &on,
                if on.1 == 0 { "R" } else { state },
                &me,
            ));
            on = me;
            last = Some(r);
        }
        if let Some(l) = &last {
            lines.push(switch(l.end, &on, l.state, &idle));
        }
    }
    lines.sort_by_key(|l| (l.0, l.1));
    let mut out = format!(
        "# tracer: nop\n#\n# entries-in-buffer/entries-written: {n}/{n}   #P:2\n#\n\
         #                              _-----=> irqs-off\n\
         #                             / _----=> need-resched\n\
         #                            | / _---=> hardirq/softirq\n\
         #                            || / _--=> preempt-depth\n\
         #                            ||| /     delay\n\
         #           TASK-PID   CPU#  ||||    TIMESTAMP  FUNCTION\n\
         #              | |       |   ||||       |         |\n",
        n = lines.len()
    );
    for (_, _, l) in lines {
        out.push_str(&l);
        out.push('\n');
    }
    out
}

// ---------------------------------------------------------------------------
// Monitoring: Ganglia's text log and PCP's pmrep CSV, both timed by each
// host's own clock (the logger kept the time gmond reported the sample at).

/// The reference time of local time `l` on host `h` (to the nanosecond or so).
fn reference(h: usize, l: i64) -> i64 {
    let mut r = l;
    for _ in 0..3 {
        r -= local(h, r) - l;
    }
    r
}

/// The whole seconds of host `h`'s clock from 1.5 s before the run to 11 s
/// after its start.
fn local_seconds(h: usize) -> std::ops::RangeInclusive<i64> {
    let first = (local(h, at(-1_500_000)) + 999_999_999) / 1_000_000_000;
    let last = local(h, at(11_000_000)) / 1_000_000_000;
    first..=last
}

/// Ganglia's cpu_user of host `h` at its local second `l`: the share of
/// both CPUs' time its threads ran in the 2 s before, in percent.
fn cpu_user(h: usize, l: i64) -> f64 {
    let end = reference(h, l * 1_000_000_000);
    let start = end - 2_000_000_000;
    let busy: i64 = runs(h)
        .iter()
        .map(|r| (r.end.min(end) - r.start.max(start)).max(0))
        .sum();
    busy as f64 / (2.0 * 2_000_000_000.0) * 100.0
}

fn ganglia_file() -> String {
    let mut lines = Vec::new();
    for (h, host) in HOSTS.iter().enumerate() {
        // gmond samples cpu_user every 2 s: paple01 at even seconds,
        // paple03 at odd ones.
        for l in local_seconds(h).filter(|l| l % 2 == h as i64) {
            lines.push((
                reference(h, l * 1_000_000_000),
                format!("{l}\tcpu_user\t{host}.lsc.ufsm.br\t{:.1}", cpu_user(h, l)),
            ));
        }
    }
    lines.sort();
    let mut out = String::from(
        "# unixtime metric host value: the Ganglia logger polling each host's gmond\n",
    );
    for (_, l) in lines {
        out.push_str(&l);
        out.push('\n');
    }
    out
}

/// A civil date and time of Unix seconds: (year, month, day, h, m, s).
fn civil(secs: i64) -> (i64, i64, i64, i64, i64, i64) {
    let days = secs.div_euclid(86_400);
    let rem = secs.rem_euclid(86_400);
    // Howard Hinnant's days_from_civil, reversed.
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    let y = yoe + era * 400 + i64::from(m <= 2);
    (y, m, d, rem / 3600, rem % 3600 / 60, rem % 60)
}

/// Free memory of host `h` (Kbytes) at reference time `r`: the rank's
/// buffers take 38 MB while it lives.
fn mem_free(h: usize, r: i64, l: i64) -> i64 {
    let base = [412_164, 398_520][h];
    let rank = if r >= at(RANK_BORN_US) && r < at(RANK_EXIT_US) {
        38_212
    } else {
        0
    };
    base - rank - (l % 4) * 12
}

/// pmrep -k -o csv of host `h` (extended CSV: host and interval columns,
/// local times of Brazil, UTC-3, with their zone).
fn pcp_file(h: usize) -> String {
    let host = HOSTS[h];
    let mut out = format!(
        "#\n#  archive: /var/log/pcp/pmlogger/{host}/20040903.11.20\n#     host: {host}\n#\nHost,Interval,Time,\"mem.util.free\"\n"
    );
    for l in local_seconds(h) {
        let (y, mo, d, hh, mm, ss) = civil(l - 3 * 3600);
        let r = reference(h, l * 1_000_000_000);
        out.push_str(&format!(
            "{host},1,{y}-{mo:02}-{d:02} {hh:02}:{mm:02}:{ss:02} UTC-3,{}\n",
            mem_free(h, r, l)
        ));
    }
    out
}

/// The clock pairs, in microseconds: a block before the run, one after.
fn timesync_file() -> String {
    let mut out = String::from("# rastro_timesync before the run\n");
    let pair = |h: usize, r: i64| {
        format!(
            "paple {} {} {}\n",
            r / 1000,
            HOSTS[h],
            local(h, r).div_euclid(1000)
        )
    };
    for (h, r) in PAIRS_BEFORE.iter().enumerate() {
        out.push_str(&pair(h, *r));
    }
    out.push_str("# rastro_timesync after the run\n");
    for (h, r) in PAIRS_AFTER.iter().enumerate() {
        out.push_str(&pair(h, *r));
    }
    out
}

/// Every input file of the run: name and content.
fn inputs() -> Vec<(&'static str, Vec<u8>)> {
    vec![
        ("pingpong.clog2", clog_file()),
        (
            "mpd.hosts",
            b"# MPICH's mpd ring: rank 0 on paple01, rank 1 on paple03\npaple01\npaple03\n"
                .to_vec(),
        ),
        ("ftrace-paple01.txt", ftrace_file(0).into_bytes()),
        ("ftrace-paple03.txt", ftrace_file(1).into_bytes()),
        ("ganglia.log", ganglia_file().into_bytes()),
        ("pcp-paple01.csv", pcp_file(0).into_bytes()),
        ("pcp-paple03.csv", pcp_file(1).into_bytes()),
        ("timesync", timesync_file().into_bytes()),
    ]
}

fn data_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/integration")
}

fn data(name: &str) -> String {
    data_dir().join(name).to_str().unwrap().to_string()
}

#[test]
fn inputs_are_what_the_run_model_gives() {
    let dir = data_dir();
    for (name, bytes) in inputs() {
        trama_gen::golden::check(dir.join(name), bytes);
    }
}

// ---------------------------------------------------------------------------
// Merging with the shipped plan.

fn plan(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../../plans")
        .join(name)
}

fn run_ok(args: &[&str]) -> Output {
    let o = common::trama(args);
    assert!(
        o.status.success(),
        "trama {}: {}",
        args.join(" "),
        String::from_utf8_lossy(&o.stderr)
    );
    o
}

/// The arguments of a merge with `plan_file` (plus `extra`) into `out`.
fn merge_args<'a>(plan_file: &'a Path, out: &'a Path, extra: &[&'a str]) -> Vec<&'a str> {
    let mut args = vec![
        "merge",
        "--plan",
        plan_file.to_str().unwrap(),
        "-o",
        out.to_str().unwrap(),
    ];
    args.extend_from_slice(extra);
    args
}

/// Merges the run with the shipped plan (plus `extra` arguments) into
/// `dir/name`, returning its path.
fn merge(dir: &Path, name: &str, plan_file: &Path, extra: &[&str]) -> PathBuf {
    let out = dir.join(name);
    run_ok(&merge_args(plan_file, &out, extra));
    out
}

fn dump(trace: &Path) -> String {
    String::from_utf8(run_ok(&["dump", trace.to_str().unwrap()]).stdout).unwrap()
}

/// The dump's lines of one kind, split into fields.
fn lines_of<'a>(dump: &'a str, kind: &str) -> Vec<Vec<&'a str>> {
    dump.lines()
        .map(|l| l.split(", ").collect::<Vec<_>>())
        .filter(|f| f[0] == kind)
        .collect()
}

/// The link ends of a Pajé text trace whose key ends with `key_part`:
/// (PajeStartLink or PajeEndLink, its time in ns, read exactly from the
/// text; the writer puts the time first).
fn link_times(trace: &Path, key_part: &str) -> Vec<(String, i64)> {
    let text = std::fs::read_to_string(trace).unwrap();
    // Event ids of PajeStartLink and PajeEndLink.
    let mut ids: BTreeMap<String, String> = BTreeMap::new();
    for l in text.lines() {
        if let Some(rest) = l.strip_prefix("%EventDef ") {
            let w: Vec<&str> = rest.split_whitespace().collect();
            ids.insert(w[1].to_string(), w[0].to_string());
        }
    }
    text.lines()
        .filter(|l| !l.starts_with('%') && !l.starts_with('#'))
        .filter_map(|l| {
            let w: Vec<&str> = l.split_whitespace().collect();
            let kind = ids.get(w[0])?;
            if !(kind == "PajeStartLink" || kind == "PajeEndLink")
                || !w.iter().any(|t| t.ends_with(key_part))
            {
                return None;
            }
            Some((kind.clone(), seconds_to_ns(w[1])))
        })
        .collect()
}

fn seconds_to_ns(t: &str) -> i64 {
    let (i, f) = t.split_once('.').unwrap_or((t, ""));
    let mut frac = f.to_string();
    frac.truncate(9);
    while frac.len() < 9 {
        frac.push('0');
    }
    i.parse::<i64>().unwrap() * 1_000_000_000 + frac.parse::<i64>().unwrap()
}

/// Formula 4.1 of the seed, by hand, in nanoseconds (floored):
/// t_ref = t_o_ref + (t_s − t_o)·(t_n_ref − t_o_ref)/(t_n − t_o), with the
/// host's pairs read from the timesync file.
fn corrected(host: &str, t_s: i64) -> i64 {
    let text = std::fs::read_to_string(data_dir().join("timesync")).unwrap();
    let pairs: Vec<(i128, i128)> = text
        .lines()
        .filter(|l| !l.starts_with('#'))
        .map(|l| l.split_whitespace().collect::<Vec<_>>())
        .filter(|w| w[2] == host)
        .map(|w| {
            (
                w[1].parse::<i128>().unwrap() * 1000,
                w[3].parse::<i128>().unwrap() * 1000,
            )
        })
        .collect();
    let [(o_ref, o), (n_ref, n)] = pairs[..] else {
        panic!("{host}: two pairs expected")
    };
    (o_ref + ((t_s as i128 - o) * (n_ref - o_ref)).div_euclid(n - o)) as i64
}

#[test]
fn merged_trace_is_the_integrated_view() {
    let dir = tempfile::tempdir().unwrap();
    let sync = data("timesync");
    let out = merge(
        dir.path(),
        "merged.paje",
        &plan("mpi-os-ganglia-pcp.toml"),
        &["--sync", &sync],
    );
    run_ok(&["check", out.to_str().unwrap()]);
    // Plain Pajé: the header is PajeNG's reference header, nothing added.
    let text = std::fs::read_to_string(&out).unwrap();
    let header: Vec<&str> = text.lines().filter(|l| l.starts_with('%')).collect();
    let standard = trama_records::Dialect::standard();
    let expected: Vec<&str> = standard
        .header()
        .lines()
        .filter(|l| l.starts_with('%'))
        .collect();
    assert_eq!(header, expected);

    let d = dump(&out);
    // The hierarchy: cluster > host > (process | cpu).
    let containers: BTreeMap<&str, Vec<(&str, &str)>> =
        lines_of(&d, "Container")
            .into_iter()
            .fold(BTreeMap::new(), |mut m, f| {
                m.entry(f[1]).or_default().push((f[2], f[6]));
                m
            });
    let children = |parent: &str, ty: &str| -> BTreeSet<&str> {
        containers
            .get(parent)
            .map(|v| v.iter().filter(|c| c.0 == ty).map(|c| c.1).collect())
            .unwrap_or_default()
    };
    assert_eq!(children("0", "cluster"), BTreeSet::from(["paple"]));
    assert_eq!(children("paple", "host"), BTreeSet::from(HOSTS));
    for h in 0..2 {
        // The rank (its pid), mpd, the daemons and the kernel worker.
        let mut procs: BTreeSet<String> = DAEMONS[h].iter().map(|d| d.0.to_string()).collect();
        procs.insert(RANK_PID[h].to_string());
        procs.insert(MPD[h].0.to_string());
        procs.insert(PREEMPT[h].0.to_string());
        let got: BTreeSet<String> = children(HOSTS[h], "process")
            .into_iter()
            .map(String::from)
            .collect();
        assert_eq!(got, procs, "{}", HOSTS[h]);
        assert_eq!(
            children(HOSTS[h], "cpu"),
            BTreeSet::from(["cpu0", "cpu1"]),
            "{}",
            HOSTS[h]
        );
    }

    // Each rank's process holds its MPI states, one per state the rank
    // entered, and its OS states.
    let states = lines_of(&d, "State");
    for (rank, pid) in RANK_PID.iter().enumerate() {
        let pid = pid.to_string();
        let mut mpi: BTreeMap<&str, usize> = BTreeMap::new();
        for s in states.iter().filter(|s| s[1] == pid && s[2] == "MPI") {
            *mpi.entry(s[7]).or_default() += 1;
        }
        let mut expected: BTreeMap<&str, usize> = BTreeMap::new();
        for (r, _, e) in mpi_events() {
            if let (true, Mpi::Enter(s)) = (r == rank, e) {
                *expected.entry(s).or_default() += 1;
            }
        }
        assert_eq!(mpi, expected, "rank {rank}");
        let os: BTreeSet<&str> = states
            .iter()
            .filter(|s| s[1] == pid && s[2] == "sched")
            .map(|s| s[7])
            .collect();
        assert_eq!(
            os,
            BTreeSet::from(["blocked", "runnable", "running"]),
            "rank {rank}"
        );
        // The rank sleeps in each long MPI_Recv: as many blocked spells as
        // such receives, plus its exit.
        let blocked = states
            .iter()
            .filter(|s| s[1] == pid && s[2] == "sched" && s[7] == "blocked")
            .count();
        let long_recvs = if rank == 0 { 4 } else { 5 };
        assert_eq!(blocked, long_recvs + 1, "rank {rank}");
    }
    // The CPUs' states name the thread that runs.
    assert!(states
        .iter()
        .any(|s| s[2] == "running" && s[7] == "\"pingpong 4312\""));

    // Each host holds its metrics, one value per sample.
    let vars = lines_of(&d, "Variable");
    let ganglia = std::fs::read_to_string(data_dir().join("ganglia.log")).unwrap();
    for (h, host) in HOSTS.iter().enumerate() {
        let mine = |ty: &str| -> Vec<f64> {
            vars.iter()
                .filter(|v| v[1] == *host && v[2] == ty)
                .map(|v| v[6].parse().unwrap())
                .collect()
        };
        let logged: Vec<f64> = ganglia
            .lines()
            .filter(|l| l.contains(&format!("{host}.lsc.ufsm.br")))
            .map(|l| l.split('\t').nth(3).unwrap().parse().unwrap())
            .collect();
        let got = mine("cpu_user");
        assert_eq!(got.len(), logged.len(), "{host}");
        for (g, l) in got.iter().zip(&logged) {
            assert!((g - l).abs() < 1e-4, "{host}: {got:?} vs {logged:?}");
        }
        let pcp = std::fs::read_to_string(data_dir().join(format!("pcp-{host}.csv"))).unwrap();
        let rows: Vec<f64> = pcp
            .lines()
            .filter(|l| l.starts_with(host))
            .map(|l| l.rsplit(',').next().unwrap().parse().unwrap())
            .collect();
        assert_eq!(mine("mem.util.free"), rows, "{host}");
        assert_eq!(rows.len(), local_seconds(h).count(), "{host}");
    }

    // The messages: every one forward in time once clocks are corrected.
    let links = lines_of(&d, "Link");
    assert_eq!(links.len(), 9);
    for l in &links {
        let dur: f64 = l[5].parse().unwrap();
        assert!(dur > 0.0, "{l:?}");
        let (from, to) = (l[7], l[8]);
        assert!(
            (from, to) == ("4312", "2718") || (from, to) == ("2718", "4312"),
            "{l:?}"
        );
    }
}

#[test]
fn known_message_is_reversed_on_raw_clocks_and_corrected_by_the_timesync() {
    let dir = tempfile::tempdir().unwrap();
    let plan = plan("mpi-os-ganglia-pcp.toml");
    let key = format!("0-1-{KNOWN_TAG}-0");
    // Absolute times, to compare with the formula.
    let raw = merge(dir.path(), "raw.paje", &plan, &["--origin", "absolute"]);
    let sync = data("timesync");
    let fixed = merge(
        dir.path(),
        "sync.paje",
        &plan,
        &["--origin", "absolute", "--sync", &sync],
    );
    let ends = |p: &Path| {
        let t = link_times(p, &key);
        let get = |k: &str| {
            let v: Vec<i64> = t.iter().filter(|e| e.0 == k).map(|e| e.1).collect();
            assert_eq!(v.len(), 1, "{k} of {key} in {}: {t:?}", p.display());
            v[0]
        };
        (get("PajeStartLink"), get("PajeEndLink"))
    };
    let (raw_send, raw_recv) = ends(&raw);
    // The raw times are the hosts' clocks: the model's, to the nanosecond.
    assert_eq!(raw_send, local(0, at(KNOWN_SEND_US)));
    assert_eq!(raw_recv, local(1, at(KNOWN_RECV_US)));
    assert!(
        raw_recv < raw_send,
        "raw: received {} ns before sent",
        raw_send - raw_recv
    );
    let (send, recv) = ends(&fixed);
    assert_eq!(send, corrected("paple01", raw_send));
    assert_eq!(recv, corrected("paple03", raw_recv));
    assert!(send < recv);
    // 120 µs on the reference clock, give or take the clocks' rounding to
    // the microsecond in the timesync file.
    assert!(((recv - send) - 120_000).abs() < 3_000, "{}", recv - send);

    // Uncorrected, the trace is still valid Pajé (a link may end before it
    // starts): `trama check` accepts it and the dump shows a negative
    // duration for this message only.
    run_ok(&["check", raw.to_str().unwrap()]);
    let d = dump(&raw);
    let links = lines_of(&d, "Link");
    assert_eq!(links.len(), 9);
    for l in &links {
        let (start, end, dur): (f64, f64, f64) = (
            l[3].parse().unwrap(),
            l[4].parse().unwrap(),
            l[5].parse().unwrap(),
        );
        if l[9].ends_with(&key) {
            assert!(end < start && dur < 0.0, "{l:?}");
            assert!(
                (dur + (raw_send - raw_recv) as f64 / 1e9).abs() < 2e-6,
                "{l:?}"
            );
        } else {
            assert!(dur > 0.0, "{l:?}");
        }
    }
}

#[test]
fn binary_output_and_source_order_change_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let sync = data("timesync");
    let plan_file = plan("mpi-os-ganglia-pcp.toml");
    let text = merge(dir.path(), "m.paje", &plan_file, &["--sync", &sync]);
    let ptb = merge(dir.path(), "m.ptb", &plan_file, &["--sync", &sync]);
    let reference = dump(&text);
    assert_eq!(dump(&ptb), reference);

    // The same plan with its sources and their files in the reverse order
    // (absolute paths, as it lives elsewhere).
    let mut p: toml::Table = toml::from_str(&std::fs::read_to_string(&plan_file).unwrap()).unwrap();
    let base = plan_file.parent().unwrap();
    let sources = p["source"].as_array_mut().unwrap();
    sources.reverse();
    for s in sources.iter_mut() {
        let s = s.as_table_mut().unwrap();
        if let Some(files) = s.get_mut("files") {
            let files = files.as_array_mut().unwrap();
            files.reverse();
            for f in files.iter_mut() {
                *f = toml::Value::String(base.join(f.as_str().unwrap()).display().to_string());
            }
        }
        if let Some(m) = s.get_mut("machinefile") {
            *m = toml::Value::String(base.join(m.as_str().unwrap()).display().to_string());
        }
    }
    let reordered = dir.path().join("reordered.toml");
    std::fs::write(&reordered, toml::to_string(&p).unwrap()).unwrap();
    let other = merge(dir.path(), "other.paje", &reordered, &["--sync", &sync]);
    // Link keys are prefixed with their plan entry's name, which did not
    // change: the dumps are the same, line for line.
    let got = dump(&other);
    assert!(got.contains(", mpi:0-1-9-0"), "{got}");
    assert_eq!(got, reference);
}

/// Runs a merge expected to fail; returns its message.
fn merge_err(dir: &Path, plan_text: &str, extra: &[&str]) -> String {
    let p = dir.join("wrong.toml");
    std::fs::write(&p, plan_text).unwrap();
    let out = dir.join("never.paje");
    let args = merge_args(&p, &out, extra);
    let o = common::trama(&args);
    assert!(!o.status.success(), "trama {} succeeded", args.join(" "));
    assert!(!out.exists(), "a failed merge leaves no output");
    String::from_utf8_lossy(&o.stderr).into_owned()
}

#[test]
fn wrong_plans_name_the_source_file_and_the_identifier() {
    let dir = tempfile::tempdir().unwrap();
    let clog = data("pingpong.clog2");
    let ftrace = data("ftrace-paple01.txt");
    let hosts = data("mpd.hosts");
    let mpi = |levels: &str, machinefile: &str| {
        format!(
            "hierarchy = [\"cluster\", \"host\", \"process\"]\n[top]\ncluster = \"paple\"\n\
             [[source]]\nname = \"mpi\"\nkind = \"clog2\"\nlevels = {{ {levels} }}\n{machinefile}"
        )
    };
    // A level the hierarchy does not have: the plan file and the level.
    let e = merge_err(
        dir.path(),
        &mpi("rank = \"node\"", ""),
        &[&format!("mpi={clog}")],
    );
    assert!(e.contains("wrong.toml") && e.contains("'node'"), "{e}");
    // A source type no level takes: the source file and the type.
    let e = merge_err(
        dir.path(),
        "hierarchy = [\"host\", \"process\"]\n[[source]]\nname = \"os\"\nkind = \"sched\"\nhost = \"paple01\"\n",
        &[&format!("os={ftrace}")],
    );
    assert!(
        e.contains("ftrace-paple01.txt") && e.contains("'thread'"),
        "{e}"
    );
    // Ranks with no host: neither `host` nor a machine file.
    let e = merge_err(
        dir.path(),
        &mpi("rank = \"process\"", ""),
        &[&format!("mpi={clog}")],
    );
    assert!(
        e.contains("pingpong.clog2") && e.contains("rank:") && e.contains("no host"),
        "{e}"
    );
    // A machine file that places no rank.
    let empty = dir.path().join("empty.hosts");
    std::fs::write(&empty, "# no host\n").unwrap();
    let e = merge_err(
        dir.path(),
        &mpi(
            "rank = \"process\"",
            &format!("machinefile = {:?}\n", hosts),
        ),
        &[
            &format!("mpi={clog}"),
            "--mpinodes",
            empty.to_str().unwrap(),
        ],
    );
    assert!(
        e.contains("pingpong.clog2") && e.contains("places no rank (rank "),
        "{e}"
    );
}

// ---------------------------------------------------------------------------
// The other shipped plans.

#[test]
fn every_shipped_plan_parses() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../plans");
    let mut names = Vec::new();
    for entry in std::fs::read_dir(&dir).unwrap() {
        let p = entry.unwrap().path();
        if p.extension().is_some_and(|e| e == "toml") {
            let plan = trama_merge::Plan::read(&p).unwrap_or_else(|e| panic!("{e}"));
            assert!(!plan.sources.is_empty(), "{}", p.display());
            names.push(p.file_name().unwrap().to_string_lossy().into_owned());
        }
    }
    names.sort();
    assert_eq!(
        names,
        [
            "deck-os-ganglia-pcp.toml",
            "ganglia-pcp.toml",
            "mpi-os-ganglia-pcp.toml"
        ]
    );

    // The MPI plan speaks of this very run.
    let p = trama_merge::Plan::read(&plan("mpi-os-ganglia-pcp.toml")).unwrap();
    let origin = |name: &str| {
        trama_merge::parse_seconds(p.source(name).unwrap().origin.as_deref().unwrap()).unwrap()
    };
    assert_eq!(origin("mpi"), MPI_ORIGIN);
    assert_eq!(origin("os01"), BOOT[0]);
    assert_eq!(origin("os03"), BOOT[1]);
    let ranks = &p.source("mpi").unwrap().map["process"];
    for (rank, pid) in RANK_PID.iter().enumerate() {
        assert_eq!(ranks[&rank.to_string()], pid.to_string());
    }
    assert_eq!(
        p.levels().last().unwrap(),
        &("cpu".to_string(), Some("host".to_string()))
    );

    // DECK's container path [host, node, thread] fits its plan.
    let p = trama_merge::Plan::read(&plan("deck-os-ganglia-pcp.toml")).unwrap();
    let deck = p.sources.iter().find(|s| s.kind == "rst").unwrap();
    assert_eq!(deck.options["mapping"].as_str(), Some("deck"));
    let m = trama_merge::Mapper::new(&p, Some(deck), "deck.rst", None);
    let levels: Vec<Option<&str>> = ["host", "node", "thread"]
        .iter()
        .map(|ty| m.level_of(ty).unwrap())
        .collect();
    assert_eq!(levels, [Some("host"), Some("process"), Some("thread")]);
}

#[test]
fn ganglia_pcp_plan_merges_the_real_samples() {
    let Some(shared) = common::shared_dir() else {
        return;
    };
    let s = shared.join("samples");
    let cassandra = s.join("ganglia/gmond-3.3.8-cassandra.xml");
    let gmetad = s.join("ganglia/gmetad-3.7.1-pretty-printed.xml");
    let dumplog = s.join("pcp/expected/ok-foo.pmdumplog-z-a.txt");
    let csv = s.join("pcp/expected/dyninsts.pmrep-csv.p-I-r-u.csv");
    let dir = tempfile::tempdir().unwrap();
    let arg = |name: &str, p: &Path| format!("{name}={}", p.display());
    let out = merge(
        dir.path(),
        "monitoring.paje",
        &plan("ganglia-pcp.toml"),
        &[
            &arg("ganglia", &cassandra),
            &arg("ganglia", &gmetad),
            &arg("pcp", &dumplog),
            &arg("pcp", &csv),
        ],
    );
    run_ok(&["check", out.to_str().unwrap()]);
    let d = dump(&out);
    let mut hosts: BTreeMap<&str, BTreeSet<&str>> = BTreeMap::new();
    for c in lines_of(&d, "Container") {
        if c[2] == "host" {
            hosts.entry(c[1]).or_default().insert(c[6]);
        }
    }
    // Ganglia's clusters and PCP's hosts are domains apart; the host gmond
    // named by its IP has its alias.
    let expected: BTreeMap<&str, BTreeSet<&str>> = [
        (
            "cassandra",
            BTreeSet::from(["cassandra_node_1", "cassandra_node_2", "cassandra_seednode"]),
        ),
        ("\"my cluster\"", BTreeSet::from(["10.62.51.152"])),
        ("pcp", BTreeSet::from(["gonzo", "pcp-host"])),
    ]
    .into_iter()
    .collect();
    assert_eq!(hosts, expected);
    let vars = lines_of(&d, "Variable");
    // One variable per numeric metric of the host gmond called 10.0.0.7.
    let xml = std::fs::read_to_string(&cassandra).unwrap();
    let host = xml.split("<HOST NAME=\"10.0.0.7\"").nth(1).unwrap();
    let host = host.split("</HOST>").next().unwrap();
    let numeric = host
        .split("<METRIC ")
        .skip(1)
        .filter(|m| !m.contains("TYPE=\"string\""))
        .count();
    let types: BTreeSet<&str> = vars
        .iter()
        .filter(|v| v[1] == "cassandra_node_2")
        .map(|v| v[2])
        .collect();
    assert_eq!(types.len(), numeric);
    // gonzo's sample.seconds, value by value as pmdumplog printed them.
    let printed: Vec<f64> = std::fs::read_to_string(&dumplog)
        .unwrap()
        .lines()
        .filter_map(|l| l.trim().strip_prefix("29.0.2 (sample.seconds): value "))
        .map(|v| v.parse().unwrap())
        .collect();
    let got: Vec<f64> = vars
        .iter()
        .filter(|v| v[1] == "gonzo" && v[2] == "sample.seconds")
        .map(|v| v[6].parse().unwrap())
        .collect();
    assert!(!got.is_empty());
    assert_eq!(got, printed);
}

/// Pajé sources merge the same whether given as text or as `.ptb`, and two
/// copies of one run land under hosts of their own.
#[test]
fn pajé_sources_read_text_and_binary_alike() {
    let dir = tempfile::tempdir().unwrap();
    let example = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../examples/ring.paje");
    let ptb = dir.path().join("ring.ptb");
    run_ok(&["convert", example.to_str().unwrap(), ptb.to_str().unwrap()]);
    let plan = dir.path().join("plan.toml");
    std::fs::write(
        &plan,
        "hierarchy = [\"site\", \"node\", \"rank\"]\nhost_level = \"node\"\n\
         [top]\nsite = \"lab\"\n\
         [[source]]\nname = \"a\"\nkind = \"paje\"\nlevels = { Node = \"node\", Rank = \"rank\" }\n\
         [[source]]\nname = \"b\"\nkind = \"paje\"\nlevels = { Node = \"node\", Rank = \"rank\" }\n\
         [source.map.node]\n\"node-0\" = \"node-2\"\n\"node-1\" = \"node-3\"\n",
    )
    .unwrap();
    let text_in = format!("a={}", example.display());
    let both = |second: &Path, name: &str| {
        let b = format!("b={}", second.display());
        dump(&merge(dir.path(), name, &plan, &[&text_in, &b]))
    };
    let from_text = both(&example, "text.paje");
    let from_binary = both(&ptb, "binary.paje");
    assert_eq!(from_text, from_binary);
    run_ok(&["check", dir.path().join("text.paje").to_str().unwrap()]);
    // Both copies are there: each rank of the example twice, under site lab.
    let ranks = lines_of(&from_text, "Container")
        .into_iter()
        .filter(|c| c[2] == "rank")
        .count();
    assert_eq!(ranks, 8, "{from_text}");
    assert_eq!(lines_of(&from_text, "Link").len(), 48);
}

/// `trama akypuera` is a drop-in for Akypuera's aky_converter on its own
/// test examples (the tesh filter: no `#`, `|`, `%` lines, no event id).
#[test]
fn akypuera_command_matches_aky_converter() {
    let Some(shared) = common::shared_dir() else {
        return;
    };
    let base = shared.join("samples/librastro-rst/akypuera");
    for ex in ["collective", "prog", "ring", "small", "smpi_bug"] {
        let dir = base.join(ex);
        let mut files: Vec<String> = std::fs::read_dir(&dir)
            .unwrap()
            .flatten()
            .map(|e| e.path())
            .filter(|p| p.extension().is_some_and(|x| x == "rst"))
            .map(|p| p.display().to_string())
            .collect();
        files.sort();
        let mut args = vec!["akypuera"];
        args.extend(files.iter().map(String::as_str));
        let out = String::from_utf8(run_ok(&args).stdout).unwrap();
        // A complete trace that Pajé readers accept.
        let tmp = tempfile::tempdir().unwrap();
        let full = tmp.path().join("aky.paje");
        std::fs::write(&full, &out).unwrap();
        run_ok(&["check", full.to_str().unwrap()]);
        let got: Vec<&str> = out
            .lines()
            .filter(|l| !l.starts_with(['#', '|', '%']))
            .map(|l| l.split_once(' ').map_or("", |(_, rest)| rest))
            .collect();
        let want = std::fs::read_to_string(dir.join(format!("{ex}.expected.paje"))).unwrap();
        assert_eq!(got, want.lines().collect::<Vec<_>>(), "example {ex}");
    }
}
