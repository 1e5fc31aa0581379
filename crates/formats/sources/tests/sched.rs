//! Linux scheduling: the real ftrace and trace-cmd samples, crafted
//! trace-cmd/perf files and the seed's kernel layout with golden records.

mod common;

use trama_records::{collect, path, Record, What};
use trama_sources::sched::{SchedFormat, SchedOptions, SchedSource};
use trama_sources::OpenSource;

fn thread(tid: &str) -> Vec<(&'static str, String)> {
    vec![("host", "h".to_string()), ("thread", tid.to_string())]
}

fn st(time: i64, tid: &str, value: &str) -> Record {
    common::set_state(time, path(&thread(tid)), "sched", value)
}

fn comm(time: i64, tid: &str, value: &str) -> Record {
    common::event(time, path(&thread(tid)), "comm", value)
}

fn cpu(time: i64, n: &str, value: &str) -> Record {
    common::set_state(time, path(&[("host", "h"), ("cpu", n)]), "running", value)
}

fn read(file: &std::path::Path, o: &SchedOptions) -> (SchedSource, Vec<Record>) {
    common::read(file, o)
}

/// The shared sample `<sub>/<file>`, if the samples are there.
fn sample(sub: &str, file: &str, o: &SchedOptions) -> Option<(SchedSource, Vec<Record>)> {
    common::read_sample(sub, file, o)
}

/// (time, value) of the `sched` states of thread `tid`.
fn states_of(recs: &[Record], tid: &str) -> Vec<(i64, String)> {
    let p = path(&thread(tid));
    recs.iter()
        .filter_map(|r| match &r.what {
            What::SetState {
                container,
                ty,
                value,
                ..
            } if *container == p && ty == "sched" => Some((r.time, value.to_string())),
            _ => None,
        })
        .collect()
}

fn comms_of(recs: &[Record], tid: &str) -> Vec<String> {
    let p = path(&thread(tid));
    recs.iter()
        .filter_map(|r| match &r.what {
            What::Event {
                container, value, ..
            } if *container == p => Some(value.to_string()),
            _ => None,
        })
        .collect()
}

fn us(sec: i64, micros: i64) -> i64 {
    sec * 1_000_000_000 + micros * 1000
}

#[test]
fn ftrace_critical_path() {
    let Some((src, recs)) = sample(
        "ftrace",
        "tracecompass-trace-critical-path.txt",
        &SchedOptions::new("h"),
    ) else {
        return;
    };
    let s = src.stats();
    assert_eq!(s.format, Some(SchedFormat::EventText));
    assert_eq!(
        (s.lines, s.header_lines, s.switches, s.wakeups),
        (155, 9, 28, 12)
    );
    assert_eq!(s.other_events.values().sum::<u64>(), 146 - 28 - 12);
    assert_eq!(s.other_events["sched_waking"], 12);
    assert!(s.other_events.contains_key("hrtimer_start"));
    assert_eq!((s.unrecognized, s.malformed, s.out_of_order), (0, 0, 0));
    assert!(recs.windows(2).all(|w| w[0].time <= w[1].time));

    // The states of two threads: microseconds of second 26186, state.
    let threads: [(&str, [(i64, &str); 6]); 2] = [
        // kworker/2:0H: woken, in, out in D, woken, in, out in t (lines 15-61).
        (
            "24678",
            [
                (336661, "runnable"),
                (336663, "running"),
                (336680, "blocked"),
                (337351, "runnable"),
                (337355, "running"),
                (337384, "blocked"),
            ],
        ),
        // gnome-shell is preempted three times (R, R, R+) and never blocks.
        (
            "1746",
            [
                (336663, "runnable"),
                (336680, "running"),
                (337355, "runnable"),
                (337384, "running"),
                (337988, "runnable"),
                (338715, "running"),
            ],
        ),
    ];
    for (tid, states) in threads {
        let want: Vec<(i64, String)> = states
            .iter()
            .map(|&(micros, st)| (us(26186, micros), st.to_string()))
            .collect();
        assert_eq!(states_of(&recs, tid), want, "thread {tid}");
    }
    // Comms with spaces are kept whole.
    assert_eq!(comms_of(&recs, "2711"), ["Web Content"]);
    assert_eq!(
        states_of(&recs, "2711"),
        vec![(us(26186, 336716), "blocked".into())]
    );
    assert_eq!(comms_of(&recs, "3481"), ["Network Thread"]);
    // Idle is no thread; CPU 0 goes idle when Compositor blocks (line 20).
    assert!(states_of(&recs, "0").is_empty());
    assert!(recs.contains(&cpu(us(26186, 336715), "0", "idle")));
    assert!(recs.contains(&cpu(us(26186, 336771), "0", "java 4555")));
}

#[test]
fn ftrace_android_samples() {
    let Some(dir) = common::samples("ftrace") else {
        return;
    };
    for (file, switches, wakeups, events) in [
        ("tracecompass-trace-android-sched.txt", 82, 57, 139),
        ("tracecompass-trace-android-sched-irq.txt", 67, 45, 139),
        (
            "tracecompass-trace-android-sched-irq-syscall.txt",
            9,
            5,
            143,
        ),
    ] {
        let (src, recs) = read(&dir.join(file), &SchedOptions::new("h"));
        let s = src.stats();
        assert_eq!((s.switches, s.wakeups), (switches, wakeups), "{file}");
        assert_eq!(s.header_lines, 11, "{file}");
        assert_eq!(
            s.switches + s.wakeups + s.other_events.values().sum::<u64>(),
            events,
            "{file}"
        );
        assert_eq!(s.unrecognized, 0, "{file}");
        // Every switch sets the CPU's state.
        let cpu_states = recs
            .iter()
            .filter(|r| matches!(&r.what, What::SetState { ty, .. } if ty == "running"))
            .count();
        assert_eq!(cpu_states as u64, switches, "{file}");
    }
    // `d.H5` flags (line 12): sh wakes rcu_preempt, which then runs (line 15).
    let (_, recs) = read(
        &dir.join("tracecompass-trace-android-sched.txt"),
        &SchedOptions::new("h"),
    );
    let rcu = states_of(&recs, "8");
    assert_eq!(rcu[0], (us(365761, 623995), "runnable".into()));
    assert_eq!(rcu[1], (us(365761, 624114), "running".into()));
    assert_eq!(comms_of(&recs, "8"), ["rcu_preempt"]);
}

#[test]
fn trace_cmd_raw_numeric_states_golden() {
    let Some((src, recs)) = sample("trace-cmd", "trappy-raw_trace.txt", &SchedOptions::new("h"))
    else {
        return;
    };
    let (t1, t2, t3) = (us(106439, 675591), us(106439, 675613), us(106439, 675718));
    assert_eq!(
        recs,
        vec![
            // 1024: the lone preemption mark of that kernel: runnable.
            comm(t1, "4734", "trace-cmd"),
            st(t1, "4734", "runnable"),
            comm(t1, "18", "migration/2"),
            st(t1, "18", "running"),
            cpu(t1, "2", "migration/2 18"),
            // 1: TASK_INTERRUPTIBLE.
            st(t2, "18", "blocked"),
            comm(t2, "4732", "trace-cmd"),
            st(t2, "4732", "running"),
            cpu(t2, "2", "trace-cmd 4732"),
            comm(t3, "4730", "trace-cmd"),
            st(t3, "4730", "blocked"),
            comm(t3, "4729", "trace-cmd"),
            st(t3, "4729", "running"),
            cpu(t3, "1", "trace-cmd 4729"),
        ]
    );
    let s = src.stats();
    // version = 6, two `CPU n is empty`, cpus=6.
    assert_eq!(
        (s.header_lines, s.switches, s.threads, s.cpus),
        (4, 3, 5, 2)
    );
}

#[test]
fn trace_cmd_unsorted_sample() {
    let Some(dir) = common::samples("trace-cmd") else {
        return;
    };
    let file = dir.join("trappy-trace_idle_unsorted.txt");
    // The last sched_switch of the file is cut short: an error by default...
    let o = SchedOptions::new("h");
    let err = common::open_error_at::<SchedSource>(&file, &o, 17, "prev_state");
    assert!(
        err.message.contains("prev_comm=bash prev_pid=14840"),
        "{err}"
    );
    // ...counted when lenient.
    let mut o = SchedOptions::new("h");
    o.lenient = true;
    let (src, recs) = read(&file, &o);
    let s = src.stats();
    assert_eq!((s.switches, s.malformed, s.out_of_order), (6, 1, 1));
    assert_eq!(s.other_events["cpu_idle"], 8);
    assert!(s.first_malformed.as_deref().unwrap().contains(":17:"));
    assert!(recs.windows(2).all(|w| w[0].time <= w[1].time));
    // Numeric states: 64 (dead) blocks, 256 alone is runnable, 1 blocks.
    assert_eq!(
        states_of(&recs, "15430"),
        vec![(us(7115, 449594), "blocked".into())]
    );
    assert_eq!(
        states_of(&recs, "11630"),
        vec![
            (us(7115, 449607), "running".into()),
            (us(7115, 449621), "runnable".into())
        ]
    );
    assert_eq!(
        states_of(&recs, "9"),
        vec![
            (us(7115, 450043), "running".into()),
            (us(7115, 450059), "runnable".into())
        ]
    );
    assert_eq!(comms_of(&recs, "15430"), ["trace-cmd"]);
}

#[test]
fn unsorted_plugin_format_golden() {
    let (src, recs) = read(
        &common::data("sched/unsorted-plugin.txt"),
        &SchedOptions::new("h"),
    );
    let t = |u: i64| 10_000_000_000 + u * 1000;
    assert_eq!(
        recs,
        vec![
            comm(t(100), "200", "Web Content"),
            st(t(100), "200", "runnable"),
            comm(t(200), "100", "bash"),
            st(t(200), "100", "running"),
            cpu(t(200), "0", "bash 100"),
            st(t(300), "100", "blocked"),
            st(t(300), "200", "running"),
            cpu(t(300), "0", "Web Content 200"),
            st(t(400), "200", "runnable"),
            cpu(t(400), "0", "idle"),
            st(t(450), "100", "runnable"),
            comm(t(500), "100", "ls"),
            st(t(500), "100", "running"),
            cpu(t(500), "1", "ls 100"),
            st(t(600), "100", "blocked"),
            cpu(t(600), "1", "idle"),
        ]
    );
    let s = src.stats();
    assert_eq!(
        (s.header_lines, s.switches, s.wakeups, s.out_of_order),
        (2, 5, 2, 5)
    );
    assert_eq!(s.other_events["sched_process_exec"], 1);
    assert_eq!(s.unrecognized, 1);
    assert_eq!(
        s.first_unrecognized,
        Some((6, "CPU:1 [LOST 12 EVENTS]".to_string()))
    );
}

#[test]
fn perf_script_golden() {
    let mut o = SchedOptions::new("h");
    o.cpus = false;
    let (src, recs) = read(&common::data("sched/perf-script.txt"), &o);
    let t = |ns: i64| 1_234_000_000_000 + ns;
    assert_eq!(
        recs,
        vec![
            comm(t(500_000_000), "4242", "Web Content"),
            st(t(500_000_000), "4242", "running"),
            comm(t(500_100_000), "5000", "mpi rank 0"),
            st(t(500_100_000), "5000", "runnable"),
            st(t(500_200_000), "4242", "blocked"),
            st(t(500_200_000), "5000", "running"),
        ]
    );
    assert_eq!(src.stats().other_events["sched_stat_runtime"], 1);
}

#[test]
fn seed_kernel_layout_golden() {
    let (src, recs) = read(
        &common::data("sched/seed-kernel.txt"),
        &SchedOptions::new("h"),
    );
    let s = 1_096_072_237;
    assert_eq!(
        recs,
        vec![
            st(us(s, 703861), "23208", "running"),
            st(us(s, 703869), "23208", "blocked"),
            st(us(s, 703870), "23208", "running"),
            st(us(s, 703870), "23208", "blocked"),
            st(us(s, 703870), "23208", "running"),
            st(us(s, 703871), "23208", "blocked"),
            st(us(s, 703871), "23208", "running"),
            st(us(s + 1, 5), "23209", "running"),
        ]
    );
    let st = src.stats();
    assert_eq!(st.format, Some(SchedFormat::SeedKernel));
    assert_eq!(
        (st.header_lines, st.switches, st.wakeups, st.threads),
        (1, 8, 2, 2)
    );
}

#[test]
fn malformed_lines_name_line_and_token() {
    let o = SchedOptions::new("h");
    let cases: &[(&str, u64, &str)] = &[
        (
            "# tracer: nop\n  a-1 [000] .... 1.0: sched_switch: prev_comm=a prev_pid=x1 prev_prio=120 prev_state=S ==> next_comm=b next_pid=2 next_prio=120\n",
            2,
            "`x1`",
        ),
        (
            "  a-1 [000] .... 1.0: sched_switch: prev_comm=a prev_pid=1 prev_prio=120 prev_state=?? ==> next_comm=b next_pid=2 next_prio=120\n",
            1,
            "`??`",
        ),
        ("  a-1 [000] .... 1.0: sched_switch: a:1 [120] S => b:2 [120]\n", 1, "a:1 [120] S => b:2"),
        ("  a-1 [000] .... 1.0: sched_wakeup: comm=b pid= prio=1\n", 1, "pid"),
        ("1 tempo 100 -\n2 bloqueio 1000000 7\n", 2, "1000000"),
        ("bloqueio 5 7\n", 1, "time record"),
        ("tempo 100\nbloqueio 5 7\nsomething 5 7\n", 3, "`something`"),
    ];
    let errors = common::errors_at(cases, |text| {
        SchedSource::from_reader("t", text.as_bytes(), &o)
    });
    for err in errors {
        assert_eq!(err.file, "t");
    }
}

#[test]
fn layout_detection_is_not_fooled_by_a_comm() {
    // `time` is a seed record type and a program name.
    let text = "            time  4321 [001] 5.000000: sched:sched_switch: prev_comm=time prev_pid=4321 prev_prio=120 prev_state=S ==> next_comm=swapper/1 next_pid=0 next_prio=120\n";
    let mut src = SchedSource::from_reader("t", text.as_bytes(), &SchedOptions::new("h")).unwrap();
    assert_eq!(src.stats().format, Some(SchedFormat::EventText));
    let recs = collect(&mut src).unwrap();
    assert_eq!(
        recs,
        vec![
            comm(5_000_000_000, "4321", "time"),
            st(5_000_000_000, "4321", "blocked"),
            cpu(5_000_000_000, "1", "idle"),
        ]
    );
}
