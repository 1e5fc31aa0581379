//! Linux scheduling: `sched_switch` and `sched_wakeup` events printed by
//! ftrace, `trace-cmd report` and `perf script`, and the kernel
//! instrumentation layout of the seed (blocks and unblocks per second).
//!
//! # Event text (ftrace, trace-cmd, perf script)
//!
//! One event per line (`\n`, a `\r` before it dropped):
//!
//! ```text
//!      Web Content-2711  [003] d... 26186.336716: sched_switch: prev_comm=Web Content prev_pid=2711 ...
//!            <...>-15430 [006]  7115.449594: sched_switch:          prev_comm=trace-cmd ...
//!   perf  4321/4322 [001] 5678.123456789: sched:sched_switch: prev_comm=perf ...
//! ```
//!
//! The task column (`comm-pid` for ftrace and trace-cmd, `comm pid[/tid]`
//! for perf) may hold spaces, so the line is anchored on the CPU field: the
//! first `[n]` (decimal) that follows a blank and is followed by a blank,
//! then, after blanks, an optional flags field (`d.h.`, `dNs6`, `d.H5`, any
//! token not ending with `:`), the time stamp `seconds.fraction:` (up to 9
//! fraction digits; a time without fraction, from counter clocks, is taken
//! as nanoseconds), an optional number (perf's period), and the event name
//! ending with `:` (`sched_switch:` or `sched:sched_switch:`, the part after
//! the last `:` of the name counts). The rest of the line is the event's
//! text. When a `[n]` candidate is not followed by this, the next one is
//! tried.
//!
//! Lines that are not events: empty lines, lines starting with `#` (ftrace's
//! header, `entries-in-buffer/entries-written`, `##### CPU n buffer
//! started ####`), and trace-cmd's `version = N`, `CPU n is empty`,
//! `cpus=N` are counted in [`SchedStats::header_lines`]; any other line
//! without the anchor is counted in [`SchedStats::unrecognized`] (the first
//! is kept).
//!
//! Events other than `sched_switch`, `sched_wakeup` and `sched_wakeup_new`
//! (`sched_waking`, irq, timers, syscalls...) are counted per name in
//! [`SchedStats::other_events`]. The text of the three read:
//!
//! - `sched_switch`, kernel format: `prev_comm=C prev_pid=P prev_prio=N
//!   prev_state=S ==> next_comm=C next_pid=P next_prio=N` (trace-cmd `-r`
//!   raw: without `==>` and with a numeric `prev_state`). A comm runs up to
//!   ` prev_pid=` (` next_pid=`), so it may hold spaces.
//! - `sched_switch`, trace-cmd's plugin format: `C:P [N] S ==> C:P [N]`
//!   (the pid after the comm's last `:`).
//! - `sched_wakeup`/`sched_wakeup_new`: `comm=C pid=P prio=N [success=1]
//!   target_cpu=T`, or the plugin's `C:P [N] success=1 CPU:T`.
//!
//! A `sched_switch` or wakeup whose text cannot be read is an error naming
//! the line and quoting the text (or, with [`SchedOptions::lenient`], is
//! counted in [`SchedStats::malformed`], the first message kept).
//!
//! `prev_state` is runnable or blocked: a letter state starting with `R`
//! (`R`, `R+`: preempted) is runnable; any other (`S`, `D`, `T`, `t`, `X`,
//! `Z`, `P`, `I`, `D|K`...) is blocked. A numeric state (raw output) is the
//! kernel's bit mask, whose bits moved between kernel versions; it is
//! runnable when no bit of `0x2FF` is set: 0 (running), and the lone
//! preemption or waking marks 256, 1024, 2048, 4096 of kernels 3.x to 6.x;
//! any state bit (1 S, 2 D, 4 T, 8 t, 16/32 exit, 64 dead/parked, 128
//! wakekill, 512 parked) makes it blocked.
//!
//! # The seed's kernel instrumentation layout
//!
//! The traced kernel of the seed (Linux 2.6.2, a circular buffer of 8-byte
//! records) writes two kinds of records: a time record carrying the current
//! second, written every second, and state-change records carrying the
//! microseconds within the last recorded second and the pid. Its table
//! (order, type, time, process) is read as text, one record per line,
//! fields separated by blanks:
//!
//! ```text
//! [order] tempo       <seconds since the epoch>   [-]
//! [order] desbloqueio <microseconds 0..999999>    <pid>
//! [order] bloqueio    <microseconds 0..999999>    <pid>
//! ```
//!
//! `order` (the record's rank in the file) is optional; the English `time`,
//! `unblock` and `block` are accepted for the three types. A header line
//! (`tipo tempo processo`, or with `type`), empty lines and `#` lines are
//! skipped. A state record takes the time of the last time record plus its
//! microseconds (one before any time record is an error). `desbloqueio`
//! (unblock: the process is put to run, `TASK_RUNNING`) sets the state to
//! `running`; `bloqueio` (block, `TASK_INTERRUPTIBLE`) to `blocked`; every
//! record is a transition, written as read. The layout carries no comm and
//! no CPU.
//!
//! # Records
//!
//! Events are sorted by time first (stable: file order within a time), as
//! trace-cmd's output of several CPUs may be unsorted; the state machine
//! then runs in time order, and the records are served through
//! [`VecSource`](trama_records::VecSource). [`SchedStats::out_of_order`] counts
//! the events that came earlier than one before them in the file.
//!
//! - A thread is the container `[("host", H), ("thread", "<tid>")]`, `H`
//!   from [`SchedOptions::host`] and the kernel's pid (a thread id) as name,
//!   so that a unification plan can map MPI ranks or DECK threads to it.
//! - Its state type `sched` takes the values `running` (switched in),
//!   `runnable` (switched out with an `R` state, or woken up while not
//!   running) and `blocked` (switched out in any other state): a
//!   [`What::SetState`] at each change (a record repeating the current
//!   value is not written; a wakeup of a running thread changes nothing).
//!   The seed layout uses `running` and `blocked` only.
//! - A point event `comm` carries the command name when a thread is first
//!   seen in a scheduling event and whenever its name changes (`exec`).
//! - With [`SchedOptions::cpus`] (the default), each CPU is the container
//!   `[("host", H), ("cpu", "<n>")]` whose state `running` is the running
//!   thread's `comm tid`, or `idle`, set at each `sched_switch`.
//! - The idle task (pid 0, `swapper/n`, `<idle>`) is not a thread: it gets
//!   no container and no record; switching to it makes the CPU `idle`, and
//!   the thread switched out gets its state as usual.

use std::collections::{BTreeMap, HashMap};

use crate::reading::{CountedSource, OpenSource};
use trama_records::{path, Nanos, Path, Record, SourceError, What};

/// Which layout a scheduling input has.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SchedFormat {
    /// ftrace, `trace-cmd report` (normal or `-r`), `perf script`.
    EventText,
    /// The seed's kernel instrumentation table (`tempo`/`bloqueio`/`desbloqueio`).
    SeedKernel,
}

/// How to read a scheduling trace.
#[non_exhaustive]
#[derive(Clone, Debug)]
pub struct SchedOptions {
    /// The host the trace was taken on (the top of every path).
    pub host: String,
    /// The layout; `None` (the default): detected from the content
    /// ([`detect_format`]).
    pub format: Option<SchedFormat>,
    /// Also write per-CPU containers with the running thread (default true).
    pub cpus: bool,
    /// Count malformed `sched_switch`/wakeup lines instead of failing
    /// (default false).
    pub lenient: bool,
}

impl SchedOptions {
    /// Options for `host`, with CPUs, strict parsing and the layout detected.
    pub fn new(host: impl Into<String>) -> SchedOptions {
        SchedOptions {
            host: host.into(),
            format: None,
            cpus: true,
            lenient: false,
        }
    }
}

/// What a scheduling reader read.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct SchedStats {
    /// The layout read.
    pub format: Option<SchedFormat>,
    /// Lines of the input.
    pub lines: u64,
    /// Header, comment and empty lines.
    pub header_lines: u64,
    /// `sched_switch` events read (seed layout: block and unblock records).
    pub switches: u64,
    /// `sched_wakeup` and `sched_wakeup_new` events read (seed layout:
    /// time records).
    pub wakeups: u64,
    /// Other events, per name.
    pub other_events: BTreeMap<String, u64>,
    /// Lines that are neither headers nor events.
    pub unrecognized: u64,
    /// The first of them: line number and text.
    pub first_unrecognized: Option<(u64, String)>,
    /// Malformed scheduling lines skipped (only with `lenient`).
    pub malformed: u64,
    /// The first malformed line's message.
    pub first_malformed: Option<String>,
    /// Events earlier than an event before them in the file.
    pub out_of_order: u64,
    /// Threads seen (idle excluded).
    pub threads: u64,
    /// CPUs seen in `sched_switch` events.
    pub cpus: u64,
}

/// A scheduling trace read into records, served in time order, with what
/// was read and what was not mapped ([`CountedSource::stats`]).
pub type SchedSource = CountedSource<SchedStats>;

impl OpenSource for SchedSource {
    type Options = SchedOptions;
    const IO_ERROR: &'static str = "cannot read: ";

    /// Reads the input in the layout of the options or detected.
    fn from_bytes(name: String, bytes: Vec<u8>, opts: &SchedOptions) -> Result<Self, SourceError> {
        // Comms are kernel bytes: read them lossily rather than fail.
        let text = String::from_utf8_lossy(&bytes);
        SchedSource::from_text(&name, &text, opts)
    }
}

impl SchedSource {
    fn from_text(name: &str, text: &str, opts: &SchedOptions) -> Result<SchedSource, SourceError> {
        let format = opts.format.unwrap_or_else(|| detect_format(text));
        let mut stats = SchedStats {
            format: Some(format),
            ..SchedStats::default()
        };
        let records = match format {
            SchedFormat::EventText => {
                let mut events = parse_events(name, text, opts, &mut stats)?;
                // Stable: the file order is kept within a time stamp.
                events.sort_by_key(|e| e.time);
                convert(events, opts, &mut stats)
            }
            SchedFormat::SeedKernel => parse_seed(name, text, opts, &mut stats)?,
        };
        Ok(SchedSource::new(name, records, stats))
    }
}

/// Tells the seed's layout (first meaningful line a `tempo`/`time`,
/// `bloqueio`/`block` or `desbloqueio`/`unblock` record, or its header)
/// from event text (anything else).
pub fn detect_format(text: &str) -> SchedFormat {
    for line in text.lines() {
        let t = line.trim();
        if t.is_empty() || t.starts_with('#') {
            continue;
        }
        let words: Vec<&str> = t.split_whitespace().collect();
        let header = words.len() <= 4
            && words.iter().any(|w| *w == "tipo" || *w == "type")
            && words.iter().all(|w| w.chars().all(char::is_alphabetic));
        // `[order] kind integer [pid|-]`: four words at most.
        let record = |w: &[&str]| match w {
            [k, v, rest @ ..] => {
                seed_kind(k).is_some() && v.parse::<i64>().is_ok() && rest.len() <= 1
            }
            _ => false,
        };
        let seed = header
            || record(&words)
            || (words.len() > 1 && words[0].parse::<u64>().is_ok() && record(&words[1..]));
        return if seed {
            SchedFormat::SeedKernel
        } else {
            SchedFormat::EventText
        };
    }
    SchedFormat::EventText
}

// ---------------------------------------------------------------------------
// Event text.

enum Ev {
    Switch {
        prev_comm: String,
        prev_pid: i64,
        prev_runnable: bool,
        next_comm: String,
        next_pid: i64,
    },
    Wakeup {
        comm: String,
        pid: i64,
    },
}

struct Event {
    time: Nanos,
    cpu: u32,
    ev: Ev,
}

/// The anchored part of an event line.
struct Anchored<'t> {
    cpu: u32,
    time: Nanos,
    event: &'t str,
    body: &'t str,
}

/// An event's time stamp: seconds with at most nine decimals, or a bare
/// count of the trace clock (`trace_clock=counter`, no point), taken as
/// nanoseconds.
fn parse_event_time(tok: &str) -> Option<Nanos> {
    if tok.contains('.') {
        return trama_num::parse_seconds(tok.as_bytes(), trama_num::SecondsSyntax::PLAIN).ok();
    }
    if tok.is_empty() || !tok.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    tok.parse().ok()
}

/// Splits the next blank-separated token off `s`.
fn token(s: &str) -> Option<(&str, &str)> {
    let s = s.trim_start();
    if s.is_empty() {
        return None;
    }
    let end = s.find(char::is_whitespace).unwrap_or(s.len());
    Some((&s[..end], &s[end..]))
}

fn anchor_at(line: &str, open: usize) -> Option<Anchored<'_>> {
    let before = line[..open].chars().next_back()?;
    if !before.is_whitespace() {
        return None;
    }
    let close = open + 1 + line[open + 1..].find(']')?;
    let digits = &line[open + 1..close];
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    let cpu: u32 = digits.parse().ok()?;
    let rest = &line[close + 1..];
    if !rest.starts_with(char::is_whitespace) {
        return None;
    }
    let (mut tok, mut rest) = token(rest)?;
    let time = match tok.strip_suffix(':').and_then(parse_event_time) {
        Some(t) => t,
        None => {
            // Flags (irqs-off, need-resched, hardirq/softirq, preempt depth).
            (tok, rest) = token(rest)?;
            tok.strip_suffix(':').and_then(parse_event_time)?
        }
    };
    (tok, rest) = token(rest)?;
    if !tok.ends_with(':') && tok.bytes().all(|b| b.is_ascii_digit()) {
        // perf script's period.
        (tok, rest) = token(rest)?;
    }
    let name = tok.strip_suffix(':')?;
    let event = name.rsplit(':').next()?;
    if event.is_empty() {
        return None;
    }
    Some(Anchored {
        cpu,
        time,
        event,
        body: rest.trim(),
    })
}

fn anchor(line: &str) -> Option<Anchored<'_>> {
    line.match_indices('[')
        .find_map(|(i, _)| anchor_at(line, i))
}

fn is_header(line: &str) -> bool {
    let t = line.trim();
    if t.is_empty() || t.starts_with('#') || t.starts_with("version = ") {
        return true;
    }
    if let Some(n) = t.strip_prefix("cpus=") {
        return n.parse::<u32>().is_ok();
    }
    if let Some(r) = t.strip_prefix("CPU ") {
        if let Some(n) = r.strip_suffix(" is empty") {
            return n.parse::<u32>().is_ok();
        }
    }
    false
}

fn parse_pid(s: &str, what: &str) -> Result<i64, String> {
    s.trim()
        .parse::<i64>()
        .map_err(|_| format!("{what} `{s}` is not a number"))
}

/// The value of `key` (`prev_pid=`) in `body`, up to the next blank.
fn field<'t>(body: &'t str, key: &str) -> Result<&'t str, String> {
    let at = body.find(key).ok_or_else(|| format!("no `{key}`"))?;
    let v = &body[at + key.len()..];
    Ok(v.split_whitespace().next().unwrap_or(""))
}

/// A comm from `start_key` up to ` end_key`.
fn comm_between<'t>(body: &'t str, start_key: &str, end_key: &str) -> Result<&'t str, String> {
    let at = body
        .find(start_key)
        .ok_or_else(|| format!("no `{start_key}`"))?
        + start_key.len();
    let len = body[at..]
        .find(end_key)
        .ok_or_else(|| format!("no `{}` after `{start_key}`", end_key.trim_start()))?;
    Ok(&body[at..at + len])
}

/// Is a `prev_state` runnable? Letters: starts with `R`; numbers: no bit
/// of 0x2FF.
fn runnable(state: &str) -> Result<bool, String> {
    let s = state.trim();
    if s.is_empty() {
        return Err("empty prev_state".into());
    }
    if s.bytes().all(|b| b.is_ascii_digit()) {
        let v: u64 = s
            .parse()
            .map_err(|_| format!("prev_state `{s}` too large"))?;
        return Ok(v & 0x2FF == 0);
    }
    if let Some(h) = s.strip_prefix("0x") {
        let v =
            u64::from_str_radix(h, 16).map_err(|_| format!("prev_state `{s}` is not a state"))?;
        return Ok(v & 0x2FF == 0);
    }
    if !s
        .bytes()
        .all(|b| b.is_ascii_alphabetic() || b == b'+' || b == b'|')
    {
        return Err(format!("prev_state `{s}` is not a state"));
    }
    Ok(s.starts_with('R'))
}

/// `comm:pid` (the pid after the last `:`).
fn comm_pid(s: &str) -> Result<(String, i64), String> {
    let (c, p) = s
        .rsplit_once(':')
        .ok_or_else(|| format!("`{s}` is not comm:pid"))?;
    Ok((c.to_string(), parse_pid(p, "pid")?))
}

fn parse_switch(body: &str) -> Result<Ev, String> {
    if body.contains("prev_comm=") {
        let prev_comm = comm_between(body, "prev_comm=", " prev_pid=")?;
        let prev_pid = parse_pid(field(body, " prev_pid=")?, "prev_pid")?;
        let state = field(body, " prev_state=")?;
        let next_comm = comm_between(body, "next_comm=", " next_pid=")?;
        let next_pid = parse_pid(field(body, " next_pid=")?, "next_pid")?;
        return Ok(Ev::Switch {
            prev_comm: prev_comm.to_string(),
            prev_pid,
            prev_runnable: runnable(state)?,
            next_comm: next_comm.to_string(),
            next_pid,
        });
    }
    // trace-cmd's plugin: `C:P [N] S ==> C:P [N]`.
    let (left, right) = body
        .split_once(" ==> ")
        .ok_or("neither `prev_comm=` nor ` ==> `")?;
    let (head, state) = left.trim_end().rsplit_once(' ').ok_or("no prev state")?;
    let head = match head.rsplit_once(' ') {
        Some((h, prio)) if prio.starts_with('[') && prio.ends_with(']') => h,
        _ => head,
    };
    let (prev_comm, prev_pid) = comm_pid(head)?;
    let right = right.trim();
    let right = match right.rsplit_once(' ') {
        Some((h, prio)) if prio.starts_with('[') && prio.ends_with(']') => h,
        _ => right,
    };
    let (next_comm, next_pid) = comm_pid(right)?;
    Ok(Ev::Switch {
        prev_comm,
        prev_pid,
        prev_runnable: runnable(state)?,
        next_comm,
        next_pid,
    })
}

fn parse_wakeup(body: &str) -> Result<Ev, String> {
    if body.starts_with("comm=") || body.contains(" pid=") {
        let comm = comm_between(body, "comm=", " pid=")?;
        let pid = parse_pid(field(body, " pid=")?, "pid")?;
        return Ok(Ev::Wakeup {
            comm: comm.to_string(),
            pid,
        });
    }
    // Plugin: `C:P [N] success=1 CPU:T`.
    let head = [" [", " success=", " CPU:"]
        .iter()
        .filter_map(|k| body.find(k))
        .min()
        .map_or(body, |i| &body[..i]);
    let (comm, pid) = comm_pid(head)?;
    Ok(Ev::Wakeup { comm, pid })
}

fn parse_events(
    name: &str,
    text: &str,
    opts: &SchedOptions,
    stats: &mut SchedStats,
) -> Result<Vec<Event>, SourceError> {
    let mut out = Vec::new();
    let mut latest = Nanos::MIN;
    for (i, line) in text.lines().enumerate() {
        let ln = i as u64 + 1;
        stats.lines += 1;
        if is_header(line) {
            stats.header_lines += 1;
            continue;
        }
        let Some(a) = anchor(line) else {
            stats.unrecognized += 1;
            if stats.first_unrecognized.is_none() {
                stats.first_unrecognized = Some((ln, line.to_string()));
            }
            continue;
        };
        if a.time < latest {
            stats.out_of_order += 1;
        }
        latest = latest.max(a.time);
        let parsed = match a.event {
            "sched_switch" => parse_switch(a.body),
            "sched_wakeup" | "sched_wakeup_new" => parse_wakeup(a.body),
            other => {
                *stats.other_events.entry(other.to_string()).or_default() += 1;
                continue;
            }
        };
        match parsed {
            Ok(ev) => {
                match ev {
                    Ev::Switch { .. } => stats.switches += 1,
                    Ev::Wakeup { .. } => stats.wakeups += 1,
                }
                out.push(Event {
                    time: a.time,
                    cpu: a.cpu,
                    ev,
                });
            }
            Err(m) => {
                let msg = format!("{}: {m} in `{}`", a.event, a.body);
                if !opts.lenient {
                    return Err(SourceError::line(name, ln, msg));
                }
                stats.malformed += 1;
                if stats.first_malformed.is_none() {
                    stats.first_malformed = Some(format!("{name}:{ln}: {msg}"));
                }
            }
        }
    }
    Ok(out)
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum St {
    Running,
    Runnable,
    Blocked,
}

impl St {
    fn name(self) -> &'static str {
        match self {
            St::Running => "running",
            St::Runnable => "runnable",
            St::Blocked => "blocked",
        }
    }
}

struct Thread {
    path: Path,
    comm: String,
    state: Option<St>,
}

struct Machine<'o> {
    opts: &'o SchedOptions,
    threads: HashMap<i64, Thread>,
    cpus: HashMap<u32, Path>,
    out: Vec<Record>,
}

impl Machine<'_> {
    /// The thread `pid`, announcing its comm when new or changed.
    fn see(&mut self, t: Nanos, pid: i64, comm: &str) -> &mut Thread {
        let host = &self.opts.host;
        let th = self.threads.entry(pid).or_insert_with(|| Thread {
            path: path(&[("host", host.as_str()), ("thread", &pid.to_string())]),
            comm: String::new(),
            state: None,
        });
        if th.comm != comm {
            th.comm = comm.to_string();
            self.out.push(Record {
                time: t,
                what: What::Event {
                    container: th.path.clone(),
                    ty: "comm".into(),
                    value: comm.to_string().into(),
                    extra: Vec::new(),
                },
            });
        }
        th
    }

    fn set(&mut self, t: Nanos, pid: i64, comm: &str, st: St) {
        let th = self.see(t, pid, comm);
        if th.state == Some(st) {
            return;
        }
        th.state = Some(st);
        let container = th.path.clone();
        self.out.push(Record {
            time: t,
            what: What::SetState {
                container,
                ty: "sched".into(),
                value: st.name().into(),
                extra: Vec::new(),
            },
        });
    }
}

fn convert(events: Vec<Event>, opts: &SchedOptions, stats: &mut SchedStats) -> Vec<Record> {
    let mut m = Machine {
        opts,
        threads: HashMap::new(),
        cpus: HashMap::new(),
        out: Vec::with_capacity(events.len() * 2),
    };
    for e in events {
        match e.ev {
            Ev::Switch {
                prev_comm,
                prev_pid,
                prev_runnable,
                next_comm,
                next_pid,
            } => {
                if prev_pid != 0 {
                    let st = if prev_runnable {
                        St::Runnable
                    } else {
                        St::Blocked
                    };
                    m.set(e.time, prev_pid, &prev_comm, st);
                }
                if next_pid != 0 {
                    m.set(e.time, next_pid, &next_comm, St::Running);
                }
                let host = &opts.host;
                let container = m
                    .cpus
                    .entry(e.cpu)
                    .or_insert_with(|| {
                        path(&[("host", host.as_str()), ("cpu", &e.cpu.to_string())])
                    })
                    .clone();
                if opts.cpus {
                    let value = if next_pid == 0 {
                        "idle".to_string()
                    } else {
                        format!("{next_comm} {next_pid}")
                    };
                    m.out.push(Record {
                        time: e.time,
                        what: What::SetState {
                            container,
                            ty: "running".into(),
                            value: value.into(),
                            extra: Vec::new(),
                        },
                    });
                }
            }
            Ev::Wakeup { comm, pid } => {
                if pid == 0 {
                    continue;
                }
                let th = m.see(e.time, pid, &comm);
                if th.state != Some(St::Running) {
                    m.set(e.time, pid, &comm, St::Runnable);
                }
            }
        }
    }
    stats.threads = m.threads.len() as u64;
    stats.cpus = m.cpus.len() as u64;
    m.out
}

// ---------------------------------------------------------------------------
// The seed's layout.

enum SeedKind {
    Time,
    Block,
    Unblock,
}

fn seed_kind(w: &str) -> Option<SeedKind> {
    match w {
        "tempo" | "time" => Some(SeedKind::Time),
        "bloqueio" | "block" => Some(SeedKind::Block),
        "desbloqueio" | "unblock" => Some(SeedKind::Unblock),
        _ => None,
    }
}

fn parse_seed(
    name: &str,
    text: &str,
    opts: &SchedOptions,
    stats: &mut SchedStats,
) -> Result<Vec<Record>, SourceError> {
    let mut out = Vec::new();
    let mut second: Option<i64> = None;
    let mut latest = Nanos::MIN;
    let mut threads: HashMap<String, Path> = HashMap::new();
    for (i, raw) in text.lines().enumerate() {
        let ln = i as u64 + 1;
        stats.lines += 1;
        let err = |m: String| SourceError::line(name, ln, m);
        let t = raw.trim();
        let mut words: Vec<&str> = t.split_whitespace().collect();
        if words.is_empty()
            || t.starts_with('#')
            || words.contains(&"tipo")
            || words.contains(&"type")
        {
            stats.header_lines += 1;
            continue;
        }
        if words[0].bytes().all(|b| b.is_ascii_digit())
            && words.len() > 1
            && seed_kind(words[1]).is_some()
        {
            words.remove(0);
        }
        let kind = seed_kind(words[0]).ok_or_else(|| {
            err(format!(
                "`{}` is not a record type (tempo, bloqueio, desbloqueio)",
                words[0]
            ))
        })?;
        let value = words.get(1).ok_or_else(|| err(format!("`{t}`: no time")))?;
        let v: i64 = value
            .parse()
            .map_err(|_| err(format!("time `{value}` is not an integer")))?;
        match kind {
            SeedKind::Time => {
                match words.get(2) {
                    None | Some(&"-") => {}
                    Some(w) => return Err(err(format!("a time record has no process: `{w}`"))),
                }
                second = Some(v);
                stats.wakeups += 1;
            }
            SeedKind::Block | SeedKind::Unblock => {
                let Some(sec) = second else {
                    return Err(err(
                        "a state record before any time record: its second is unknown".into(),
                    ));
                };
                if !(0..1_000_000).contains(&v) {
                    return Err(err(format!("microseconds `{value}` out of 0..999999")));
                }
                let pid = words
                    .get(2)
                    .ok_or_else(|| err(format!("`{t}`: no process")))?;
                if pid.parse::<u64>().is_err() {
                    return Err(err(format!("process `{pid}` is not a pid")));
                }
                if words.len() > 3 {
                    return Err(err(format!("unexpected `{}` after the process", words[3])));
                }
                let time = sec * 1_000_000_000 + v * 1000;
                if time < latest {
                    stats.out_of_order += 1;
                }
                latest = latest.max(time);
                let container = threads
                    .entry(pid.to_string())
                    .or_insert_with(|| path(&[("host", opts.host.as_str()), ("thread", pid)]))
                    .clone();
                let value = if matches!(kind, SeedKind::Unblock) {
                    "running"
                } else {
                    "blocked"
                };
                stats.switches += 1;
                out.push(Record {
                    time,
                    what: What::SetState {
                        container,
                        ty: "sched".into(),
                        value: value.into(),
                        extra: Vec::new(),
                    },
                });
            }
        }
    }
    stats.threads = threads.len() as u64;
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn anchors() {
        let a = anchor("     Web Content-2711  [003] d... 26186.336716: sched_switch: prev_comm=x")
            .unwrap();
        assert_eq!(
            (a.cpu, a.time, a.event, a.body),
            (3, 26_186_336_716_000, "sched_switch", "prev_comm=x")
        );
        let a = anchor("\t   <...>-15430 [006]  7115.449594: sched_switch:          prev_comm=y")
            .unwrap();
        assert_eq!((a.cpu, a.event, a.body), (6, "sched_switch", "prev_comm=y"));
        let a = anchor("  perf  4321/4322 [001] 5678.123456789:          1 sched:sched_switch: z")
            .unwrap();
        assert_eq!(
            (a.cpu, a.time, a.event, a.body),
            (1, 5_678_123_456_789, "sched_switch", "z")
        );
        // A comm holding a bracket: the next candidate is taken.
        let a = anchor("  weird [7] name-12 [002] .... 1.5: foo: bar").unwrap();
        assert_eq!((a.cpu, a.time, a.event), (2, 1_500_000_000, "foo"));
        assert!(anchor("CPU 3 is empty").is_none());
        assert!(anchor("  x-1 [001] notatime foo: bar").is_none());
    }

    #[test]
    fn states() {
        for (s, r) in [
            ("R", true),
            ("R+", true),
            ("S", false),
            ("D", false),
            ("t", false),
            ("D|K", false),
        ] {
            assert_eq!(runnable(s), Ok(r), "{s}");
        }
        for (s, r) in [
            ("0", true),
            ("1", false),
            ("2", false),
            ("64", false),
            ("256", true),
            ("512", false),
            ("1024", true),
            ("1026", false),
            ("2048", true),
        ] {
            assert_eq!(runnable(s), Ok(r), "{s}");
        }
        assert!(runnable("?").is_err());
    }

    #[test]
    fn plugin_bodies() {
        let Ok(Ev::Switch {
            prev_comm,
            prev_pid,
            prev_runnable,
            next_comm,
            next_pid,
        }) = parse_switch("kworker/2:0H:24678 [100] D ==> Web Content:2711 [120]")
        else {
            panic!()
        };
        assert_eq!(
            (prev_comm.as_str(), prev_pid, prev_runnable),
            ("kworker/2:0H", 24678, false)
        );
        assert_eq!((next_comm.as_str(), next_pid), ("Web Content", 2711));
        let Ok(Ev::Wakeup { comm, pid }) = parse_wakeup("Web Content:2711 [120] success=1 CPU:003")
        else {
            panic!()
        };
        assert_eq!((comm.as_str(), pid), ("Web Content", 2711));
        assert!(parse_switch("prev_comm=a prev_pid=1 prev_prio=1 prev_state=S").is_err());
    }
}
