//! The outputs of `trama stats`: one analysis as a table, CSV or JSON.

use std::io::Write;

use serde::Serialize;
use trama_analysis::{
    comm_matrix, graph, host_level, instants, kiviat, order, slice_count, slices, time_per_state,
    wait_matrix, CommMatrix, Graph, Kiviat, Messages, Ordering, Slices, StateRow, StateStats,
    WaitMatrix, WaitMethod, Window,
};
use trama_sim::Trace;

use crate::table::{columns, csv, csv_field, num, secs, table, Column};
use crate::why_path::{critical_path_of, delays_of, write_critical_path, write_delays};
use crate::{Error, Format};

/// The analyses [`stats`] computes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum Analysis {
    /// Time per state: per container, state type and value
    /// ([`time_per_state`]).
    States,
    /// Communication matrix: messages per pair of containers
    /// ([`comm_matrix`]).
    Comm,
    /// Hosts and their processes ordered by off-host messages ([`order`]).
    Order,
    /// Who waited for whom ([`trama_why::who_waited`]: from the wait
    /// states on MPI runs, else [`wait_matrix`]).
    Wait,
    /// Each host's cumulative share of network messages ([`kiviat`]).
    Kiviat,
    /// Per time slice and container: time per state, messages sent and
    /// received ([`slices`]).
    Slices,
    /// Communication graph of processes with its layout ([`graph`]).
    Graph,
    /// The seed's Info file ([`trama_analysis::info`]).
    Info,
    /// Wait states by Scalasca's patterns ([`crate::why::waits`]).
    Waits,
    /// The critical path and its imbalance ([`trama_why::critical_path`]).
    CriticalPath,
    /// The delay costs of the wait states ([`trama_why::delay_costs`]).
    Delays,
}

impl Analysis {
    /// Does the analysis read user-defined fields (the why analyses and
    /// the wait matrix read OTF2 collectives' communicator and root from
    /// theirs)?
    pub fn reads_fields(self) -> bool {
        matches!(
            self,
            Analysis::Wait | Analysis::Waits | Analysis::CriticalPath | Analysis::Delays
        )
    }

    /// Does the analysis need the whole run read, whatever its window? The
    /// wait states match MPI calls across processes (a message's two ends,
    /// a collective's members and its root) and the critical path follows
    /// them back: a trace read from the window's keyframes on would lose
    /// ends and fields of calls begun before it. These read everything
    /// and count what lies in the window.
    pub fn reads_whole_run(self) -> bool {
        self.reads_fields()
    }

    /// Every analysis with its name on the command line and a line of help.
    pub const ALL: [(Analysis, &'static str, &'static str); 11] = [
        (
            Analysis::States,
            "states",
            "Time per state: per container, state type and value",
        ),
        (
            Analysis::Comm,
            "comm",
            "Communication matrix: messages (links) per pair of containers",
        ),
        (
            Analysis::Order,
            "order",
            "Hosts (--level) and their processes ordered by off-host messages",
        ),
        (
            Analysis::Info,
            "info",
            "The seed's Info file: counts, hosts (--level) with their numbered processes, network messages, adjacency",
        ),
        (
            Analysis::Wait,
            "wait",
            "Who waited for whom: waiting states attributed to the last sender",
        ),
        (
            Analysis::Kiviat,
            "kiviat",
            "Each host's (--level) cumulative share of network messages at --instants instants",
        ),
        (
            Analysis::Slices,
            "slices",
            "Per time slice (--slices N) and container: time per state, messages sent and received",
        ),
        (
            Analysis::Graph,
            "graph",
            "Communication graph of processes with a force-directed layout",
        ),
        (
            Analysis::Waits,
            "waits",
            "Wait states of MPI calls by Scalasca's patterns (late sender, barrier waits, …)",
        ),
        (
            Analysis::CriticalPath,
            "critical-path",
            "The critical path: time per region (--by container: per process) and its imbalance",
        ),
        (
            Analysis::Delays,
            "delays",
            "Delay costs: the waiting each process's regions caused, short- and long-term",
        ),
    ];

    /// The analysis called `name` (see [`Analysis::ALL`]).
    pub fn from_name(name: &str) -> Option<Analysis> {
        Analysis::ALL.iter().find(|a| a.1 == name).map(|a| a.0)
    }

    /// The analysis and the trace of `trama stats A B`: `ANALYSIS FILE`,
    /// or `FILE ANALYSIS` (the order of earlier versions); a single word is
    /// an analysis (of standard input) unless a file of that name exists;
    /// none is [`Analysis::States`].
    pub fn and_file(
        first: Option<std::ffi::OsString>,
        second: Option<std::ffi::OsString>,
    ) -> Result<(Analysis, Option<std::ffi::OsString>), String> {
        let parse = |s: &std::ffi::OsString| s.to_str().and_then(Analysis::from_name);
        Ok(match (first, second) {
            (None, _) => (Analysis::States, None),
            (Some(a), None) => match parse(&a) {
                Some(x) if !std::path::Path::new(&a).exists() => (x, None),
                _ => (Analysis::States, Some(a)),
            },
            (Some(a), Some(b)) => match (parse(&a), parse(&b)) {
                (Some(x), _) => (x, Some(b)),
                (None, Some(x)) => (x, Some(a)),
                (None, None) => return Err(format!(
                    "trama stats ANALYSIS FILE: neither '{}' nor '{}' is an analysis (states, comm, order, wait, kiviat, slices, graph, waits, critical-path, delays)",
                    a.to_string_lossy(),
                    b.to_string_lossy()
                )),
            },
        })
    }

    /// The instants of a comma-separated list (`--at T,T,...`).
    pub fn instants(list: &str) -> Result<Vec<f64>, Error> {
        let at = list.split(',').map(|t| {
            let n = t.trim().parse::<f64>();
            n.map_err(|_| Error::Instant(t.to_string()))
        });
        at.collect()
    }

    /// Does it need the container type of the hosts
    /// ([`StatsOptions::level`], else chosen from the trace by
    /// [`host_level`])?
    pub fn needs_level(self) -> bool {
        matches!(self, Analysis::Order | Analysis::Kiviat | Analysis::Info)
    }
}

/// How [`stats`] computes and writes.
#[derive(Clone, Debug)]
#[non_exhaustive]
pub struct StatsOptions {
    /// States: roll rows up to the containers of this type; comm: group
    /// containers by their ancestors of this type; order and Kiviat: the
    /// container type of the hosts (by default chosen from the trace:
    /// [`host_level`]).
    pub level: Option<String>,
    /// Comm: the user-defined link field holding the message size in
    /// bytes (the trace must keep user-defined fields).
    pub size_field: Option<String>,
    /// Wait: patterns that make a state a wait (empty:
    /// [`trama_analysis::DEFAULT_WAITING`]).
    pub waiting: Vec<String>,
    /// Wait: attribute the waiting states to the sender of the latest
    /// message received during them ([`wait_matrix`]) even when the trace
    /// has MPI calls, whose wait states make the matrix otherwise.
    pub wait_last_message: bool,
    /// Slices: their number.
    pub slices: usize,
    /// Slices: their length instead of their number (positive).
    pub slice_length: Option<f64>,
    /// Kiviat: the number of equally spaced instants.
    pub instants: usize,
    /// Kiviat: the instants instead of their number.
    pub at: Option<Vec<f64>>,
    /// The output format.
    pub format: Format,
    /// The link types that count as messages (names or aliases); empty:
    /// every one but those whose links all last 0 s ([`Messages::select`]).
    pub link_types: Vec<String>,
    /// Waits and critical path: what the rows are per (`None`: per
    /// container for the waits, per region for the critical path).
    pub by: Option<crate::why::By>,
    /// Waits: the number of most severe instances listed.
    pub waits_instances: usize,
}

impl Default for StatsOptions {
    fn default() -> StatsOptions {
        StatsOptions {
            level: None,
            size_field: None,
            waiting: Vec::new(),
            wait_last_message: false,
            slices: 25,
            slice_length: None,
            instants: 10,
            at: None,
            format: Format::Table,
            link_types: Vec::new(),
            by: None,
            waits_instances: 0,
        }
    }
}

/// What [`stats`] tells the reader besides its result: the link types
/// counted as messages and sentences on choices made (the hosts' level
/// chosen from the trace, the states counted as waits, nested totals).
#[derive(Clone, Debug, Default)]
#[non_exhaustive]
pub struct Notes {
    /// The link types counted as messages.
    pub messages: Messages,
    /// Sentences for the reader, in order.
    pub lines: Vec<String>,
}

/// Computes `analysis` of `trace` over `window` and writes it to `out`.
/// Returns what the reader should be told ([`Notes`]); a table ends with
/// these sentences itself (in parentheses), the other formats leave them
/// to the caller.
pub fn stats(
    trace: &Trace,
    analysis: Analysis,
    window: Window,
    opts: &StatsOptions,
    out: &mut dyn Write,
) -> Result<Notes, Error> {
    let messages = Messages::select(trace, &opts.link_types)?;
    let mut lines = Vec::new();
    write_analysis(trace, analysis, window, &messages, opts, &mut lines, out)?;
    let communication = !matches!(analysis, Analysis::States);
    if let (true, Some(note)) = (communication, messages.note()) {
        lines.push(note);
    }
    if opts.format == Format::Table {
        for l in &lines {
            writeln!(out, "({l})")?;
        }
    }
    Ok(Notes { messages, lines })
}

fn write_analysis(
    trace: &Trace,
    analysis: Analysis,
    window: Window,
    msgs: &Messages,
    opts: &StatsOptions,
    notes: &mut Vec<String>,
    out: &mut dyn Write,
) -> Result<(), Error> {
    let w = window;
    let chosen;
    let level = match opts.level.as_deref() {
        None if analysis.needs_level() => {
            let h = host_level(trace, msgs).ok_or(Error::NoHostLevel)?;
            notes.push(h.note());
            chosen = h.name;
            Some(chosen.as_str())
        }
        l => l,
    };
    let no_level = || Error::UnknownLevel(level.unwrap_or_default().to_string());
    let format = opts.format;
    match analysis {
        Analysis::States => {
            let s = time_per_state(trace, w, level).ok_or_else(no_level)?;
            notes.extend(s.nesting_note());
            write_states(&s, format, out)
        }
        Analysis::Comm => {
            let m = comm_matrix(trace, w, msgs, level, opts.size_field.as_deref())
                .ok_or_else(no_level)?;
            write_comm(&m, format, out)
        }
        Analysis::Graph => write_graph(&graph(trace, w, msgs, 300), format, out),
        Analysis::Slices => {
            let n = match opts.slice_length {
                Some(len) if len > 0.0 => slice_count(w, len),
                Some(len) => return Err(Error::SliceLength(len)),
                None => opts.slices,
            };
            write_slices(&slices(trace, w, msgs, n), format, out)
        }
        Analysis::Kiviat => {
            let at = match &opts.at {
                Some(at) => at.clone(),
                None => instants(w, opts.instants),
            };
            let k = kiviat(trace, w, msgs, level.unwrap_or_default(), &at).ok_or_else(no_level)?;
            write_kiviat(&k, format, out)
        }
        Analysis::Wait => {
            let m = if opts.wait_last_message {
                wait_matrix(trace, w, msgs, &opts.waiting)
            } else {
                let ro = crate::why::run_options(opts);
                trama_why::who_waited(trace, w, msgs, &opts.waiting, &ro)
            };
            notes.push(m.note());
            write_wait(&m, format, out)
        }
        Analysis::Order => {
            let o = order(trace, w, msgs, level.unwrap_or_default()).ok_or_else(no_level)?;
            write_order(&o, format, out)
        }
        Analysis::Info => {
            let i = trama_analysis::info(trace, w, msgs, level.unwrap_or_default())
                .ok_or_else(no_level)?;
            write_info(&i, format, out)
        }
        Analysis::Waits => {
            let waits = crate::why::waits(trace, w, opts, notes)?;
            crate::why::write_waits(&waits, format, out)
        }
        Analysis::CriticalPath => write_critical_path(
            &critical_path_of(trace, opts)?,
            opts.by.unwrap_or(crate::why::By::Region),
            format,
            out,
        ),
        Analysis::Delays => write_delays(&delays_of(trace, opts)?, format, out),
    }
}

/// The JSON form: the serde form of `x`, pretty, and a line break.
fn json<T: Serialize>(x: &T, out: &mut dyn Write) -> Result<(), Error> {
    serde_json::to_writer_pretty(&mut *out, x)?;
    writeln!(out)?;
    Ok(())
}

/// An absent number: an empty CSV cell (a dash in a table).
fn cell(x: Option<f64>) -> String {
    x.map_or(String::new(), num)
}

/// A part of a title that is there only with `x`.
fn part(x: &Option<String>, f: impl FnOnce(&str) -> String) -> String {
    x.as_deref().map(f).unwrap_or_default()
}

/// The columns of the time per state table, for people: the table of
/// `trama stats states` and that of the HTML report (the first three are
/// text, the others numbers).
pub(crate) const STATE_COLUMNS: &[Column<StateRow>] = &[
    ("container", |r| r.container.clone()),
    ("state", |r| r.state_type.clone()),
    ("value", |r| r.value.clone()),
    ("count", |r| r.count.to_string()),
    ("total", |r| secs(r.total)),
    ("exclusive", |r| secs(r.exclusive)),
    ("inclusive", |r| secs(r.inclusive)),
    ("mean", |r| secs(r.mean)),
    ("max", |r| secs(r.max)),
    ("share", |r| format!("{:.1}%", 100.0 * r.share)),
];

/// Writes time per state: the CSV rows, or a table followed by the load
/// imbalance.
pub fn write_states(s: &StateStats, format: Format, out: &mut dyn Write) -> Result<(), Error> {
    match format {
        Format::Json => return json(s, out),
        Format::Csv => csv(
            out,
            &s.rows,
            &[
                ("container", |r| csv_field(&r.container)),
                ("container_type", |r| csv_field(&r.container_type)),
                ("containers", |r| r.containers.to_string()),
                ("state_type", |r| csv_field(&r.state_type)),
                ("value", |r| csv_field(&r.value)),
                ("count", |r| r.count.to_string()),
                ("total", |r| num(r.total)),
                ("exclusive", |r| num(r.exclusive)),
                ("inclusive", |r| num(r.inclusive)),
                ("mean", |r| num(r.mean)),
                ("max", |r| num(r.max)),
                ("share", |r| num(r.share)),
            ],
        )?,
        Format::Table => {
            writeln!(
                out,
                "Time per state over [{}, {}]{}",
                s.window.start,
                s.window.end,
                part(&s.level, |l| format!(", rolled up to {l}"))
            )?;
            let lines = columns(&s.rows, STATE_COLUMNS);
            table(out, &lines, 3)?;
            writeln!(out)?;
            writeln!(out, "Load imbalance (exclusive time across containers)")?;
            let lines = columns(
                &s.imbalance,
                &[
                    ("state", |i| i.state_type.clone()),
                    ("value", |i| i.value.clone()),
                    ("containers", |i| i.containers.to_string()),
                    ("mean", |i| secs(i.mean)),
                    ("max", |i| secs(i.max)),
                    ("max/mean-1", |i| format!("{:.3}", i.imbalance)),
                    ("stddev", |i| secs(i.stddev)),
                ],
            );
            table(out, &lines, 2)?;
        }
    }
    Ok(())
}

/// Writes the communication matrix: one row per pair with messages.
pub fn write_comm(m: &CommMatrix, format: Format, out: &mut dyn Write) -> Result<(), Error> {
    match format {
        Format::Json => return json(m, out),
        Format::Csv => csv(
            out,
            &m.pairs,
            &[
                ("from", |p| csv_field(&p.from)),
                ("to", |p| csv_field(&p.to)),
                ("count", |p| p.count.to_string()),
                ("bytes", |p| cell(p.bytes)),
                ("rate", |p| cell(p.rate)),
            ],
        )?,
        Format::Table => {
            writeln!(
                out,
                "Messages over [{}, {}]{}{}",
                m.window.start,
                m.window.end,
                part(&m.level, |l| format!(", between containers of type {l}")),
                part(&m.size_field, |f| format!(", sizes from field {f}"))
            )?;
            let lines = columns(
                &m.pairs,
                &[
                    ("from", |p| p.from.clone()),
                    ("to", |p| p.to.clone()),
                    ("messages", |p| p.count.to_string()),
                    ("bytes", |p| p.bytes.map_or("-".into(), |b| format!("{b}"))),
                    ("rate (bit/s)", |p| {
                        p.rate.map_or("-".into(), |r| format!("{r:.1}"))
                    }),
                ],
            );
            table(out, &lines, 2)?;
            if m.unplaced > 0 {
                writeln!(
                    out,
                    "({} messages with an end outside the level)",
                    m.unplaced
                )?;
            }
            if m.without_size > 0 {
                writeln!(out, "({} messages without a numeric size)", m.without_size)?;
            }
        }
    }
    Ok(())
}

/// Senders up to which the wait table is a matrix (one column each).
const WAIT_MATRIX_COLUMNS: usize = 8;

/// Pairs listed by the wait table when there are too many senders for a
/// matrix.
const WAIT_TOP_PAIRS: usize = 20;

/// Writes the wait matrix: in CSV one row per non-zero cell; in the table
/// each container's shares of its time, or, beyond
/// [`WAIT_MATRIX_COLUMNS`] senders, the [`WAIT_TOP_PAIRS`] pairs that
/// waited most.
pub fn write_wait(m: &WaitMatrix, format: Format, out: &mut dyn Write) -> Result<(), Error> {
    match format {
        Format::Json => return json(m, out),
        Format::Csv => {
            writeln!(
                out,
                "container,sender,seconds,share_of_time,share_of_waiting"
            )?;
            for r in &m.rows {
                for (j, sender) in m.senders.iter().enumerate() {
                    if r.seconds[j] > 0.0 {
                        writeln!(
                            out,
                            "{},{},{},{},{}",
                            csv_field(&r.container),
                            csv_field(sender),
                            num(r.seconds[j]),
                            num(r.share_of_time[j]),
                            num(r.share_of_waiting[j])
                        )?;
                    }
                }
            }
        }
        Format::Table => {
            let (by, waits) = match m.method {
                WaitMethod::WaitStates => ("process waited for", "wait states"),
                _ => ("sender", "waits"),
            };
            writeln!(
                out,
                "Waiting time by {by}, share of each container's time, over [{}, {}] ({waits}: {})",
                m.window.start,
                m.window.end,
                m.patterns.join(", ")
            )?;
            let pct = |x: f64| {
                if x == 0.0 {
                    "-".to_string()
                } else {
                    format!("{:.1}%", 100.0 * x)
                }
            };
            if m.senders.len() <= WAIT_MATRIX_COLUMNS {
                let mut head = vec!["waited".to_string()];
                head.extend(m.senders.iter().cloned());
                head.push("total".into());
                let mut lines = vec![head];
                for r in &m.rows {
                    let mut l = vec![r.container.clone()];
                    l.extend(r.share_of_time.iter().map(|x| pct(*x)));
                    l.push(pct(r.waiting_share));
                    lines.push(l);
                }
                table(out, &lines, 1)?;
            } else {
                // Too many senders for a terminal: the pairs that waited most.
                let mut pairs: Vec<(usize, usize)> = (0..m.rows.len())
                    .flat_map(|i| (0..m.senders.len()).map(move |j| (i, j)))
                    .filter(|&(i, j)| m.rows[i].seconds[j] > 0.0)
                    .collect();
                pairs.sort_by(|a, b| m.rows[b.0].seconds[b.1].total_cmp(&m.rows[a.0].seconds[a.1]));
                let head = ["waited", "for", "seconds", "of its time", "of its waiting"];
                let mut lines = vec![head.map(String::from).to_vec()];
                for &(i, j) in pairs.iter().take(WAIT_TOP_PAIRS) {
                    let r = &m.rows[i];
                    lines.push(vec![
                        r.container.clone(),
                        m.senders[j].clone(),
                        secs(r.seconds[j]),
                        pct(r.share_of_time[j]),
                        pct(r.share_of_waiting[j]),
                    ]);
                }
                table(out, &lines, 2)?;
                if pairs.len() > WAIT_TOP_PAIRS {
                    writeln!(
                        out,
                        "({} more pairs; --format csv or json lists every one)",
                        pairs.len() - WAIT_TOP_PAIRS
                    )?;
                }
            }
        }
    }
    Ok(())
}

/// Writes the communication graph: its nodes with their coordinates, then
/// (in CSV) its edges.
pub fn write_graph(g: &Graph, format: Format, out: &mut dyn Write) -> Result<(), Error> {
    match format {
        Format::Json => return json(g, out),
        Format::Csv => {
            writeln!(out, "kind,name,x,y,other,messages")?;
            for n in &g.nodes {
                writeln!(
                    out,
                    "node,{},{},{},,{}",
                    csv_field(&n.name),
                    n.x,
                    n.y,
                    n.messages
                )?;
            }
            for e in &g.edges {
                writeln!(
                    out,
                    "edge,{},,,{},{}",
                    csv_field(&g.nodes[e.a].name),
                    csv_field(&g.nodes[e.b].name),
                    e.messages
                )?;
            }
        }
        Format::Table => {
            writeln!(
                out,
                "Communication graph: {} processes, {} edges",
                g.nodes.len(),
                g.edges.len()
            )?;
            let lines = columns(
                &g.nodes,
                &[
                    ("process", |n| n.name.clone()),
                    ("x", |n| format!("{:.3}", n.x)),
                    ("y", |n| format!("{:.3}", n.y)),
                    ("messages", |n| n.messages.to_string()),
                ],
            );
            table(out, &lines, 1)?;
        }
    }
    Ok(())
}

/// Writes the time slices: one line per slice and container, with the
/// seconds spent in each value and the messages sent and received.
pub fn write_slices(x: &Slices, format: Format, out: &mut dyn Write) -> Result<(), Error> {
    if format == Format::Json {
        return json(x, out);
    }
    let csv = format == Format::Csv;
    let mut head = vec!["slice".to_string(), "start".into(), "container".into()];
    head.extend(
        x.values
            .iter()
            .map(|v| if csv { csv_field(v) } else { v.clone() }),
    );
    head.extend(["sent".to_string(), "received".into()]);
    let seconds = |v: f64| if csv { num(v) } else { secs(v) };
    let mut lines = vec![head];
    for r in &x.rows {
        let mut l = vec![
            r.slice.to_string(),
            seconds(x.starts[r.slice]),
            if csv {
                csv_field(&r.container)
            } else {
                r.container.clone()
            },
        ];
        l.extend(r.seconds.iter().map(|v| seconds(*v)));
        l.extend([r.sent.to_string(), r.received.to_string()]);
        lines.push(l);
    }
    if csv {
        for l in lines {
            writeln!(out, "{}", l.join(","))?;
        }
    } else {
        writeln!(
            out,
            "Seconds in each value per time slice and container, and messages sent and received"
        )?;
        table(out, &lines, 3)?;
    }
    Ok(())
}

/// Writes the Kiviat series: one line per instant, one column per host.
pub fn write_kiviat(k: &Kiviat, format: Format, out: &mut dyn Write) -> Result<(), Error> {
    match format {
        Format::Json => return json(k, out),
        Format::Csv => {
            let mut head = vec!["instant".to_string()];
            head.extend(k.hosts.iter().map(|h| csv_field(h)));
            writeln!(out, "{}", head.join(","))?;
            for (t, row) in k.instants.iter().zip(&k.shares) {
                let mut l = vec![num(*t)];
                l.extend(row.iter().map(|v| num(*v)));
                writeln!(out, "{}", l.join(","))?;
            }
        }
        Format::Table => {
            writeln!(
                out,
                "Cumulative share of network messages per {} (Kiviat series)",
                k.level
            )?;
            let mut head = vec!["instant".to_string()];
            head.extend(k.hosts.iter().cloned());
            let mut lines = vec![head];
            for (t, row) in k.instants.iter().zip(&k.shares) {
                let mut l = vec![format!("{t:.6}")];
                l.extend(row.iter().map(|v| format!("{:.1}%", 100.0 * v)));
                lines.push(l);
            }
            table(out, &lines, 0)?;
        }
    }
    Ok(())
}

/// Writes the seed's Info file: as text (the table form), `processes N`,
/// `hosts N`, a line per host `HOST: NAME(NUMBER) …`, `network messages
/// N`, then `adjacency`, a line per sender `NUMBER -> NUMBER:COUNT …`;
/// CSV: the adjacency as `from,to,count` (numbers).
pub fn write_info(
    i: &trama_analysis::Info,
    format: Format,
    out: &mut dyn Write,
) -> Result<(), Error> {
    match format {
        Format::Json => return json(i, out),
        Format::Csv => {
            writeln!(out, "from,to,count")?;
            for s in &i.adjacency {
                for (to, n) in &s.to {
                    writeln!(out, "{},{to},{n}", s.from)?;
                }
            }
        }
        Format::Table => {
            writeln!(out, "processes {}", i.processes)?;
            writeln!(out, "hosts {}", i.hosts)?;
            for h in &i.order {
                let ps: Vec<String> = h
                    .processes
                    .iter()
                    .map(|(p, n)| format!("{p}({n})"))
                    .collect();
                writeln!(out, "{}: {}", h.host, ps.join(" "))?;
            }
            writeln!(out, "network messages {}", i.network_messages)?;
            writeln!(out, "adjacency")?;
            for s in &i.adjacency {
                let to: Vec<String> = s.to.iter().map(|(t, n)| format!("{t}:{n}")).collect();
                writeln!(out, "{} -> {}", s.from, to.join(" "))?;
            }
        }
    }
    Ok(())
}

/// Writes the ordering: hosts in order, each with its processes in order.
pub fn write_order(o: &Ordering, format: Format, out: &mut dyn Write) -> Result<(), Error> {
    match format {
        Format::Json => return json(o, out),
        Format::Csv => {
            writeln!(out, "host,host_sent_off_host,process,process_sent_off_host")?;
            for h in &o.hosts {
                if h.processes.is_empty() {
                    writeln!(out, "{},{},,", csv_field(&h.host), h.sent_off_host)?;
                }
                for (p, n) in &h.processes {
                    writeln!(
                        out,
                        "{},{},{},{}",
                        csv_field(&h.host),
                        h.sent_off_host,
                        csv_field(p),
                        n
                    )?;
                }
            }
        }
        Format::Table => {
            writeln!(
                out,
                "Order by messages put on the network over [{}, {}] (hosts: {})",
                o.window.start, o.window.end, o.level
            )?;
            for h in &o.hosts {
                writeln!(out, "{}  ({} off-host messages)", h.host, h.sent_off_host)?;
                for (p, n) in &h.processes {
                    writeln!(out, "    {p}  ({n})")?;
                }
            }
        }
    }
    Ok(())
}
