//! `trama stats`: analyses of a trace as a table, CSV or JSON.

use std::io::Write;
use std::process::ExitCode;

use anyhow::{anyhow, bail};
use trama_analysis::{
    comm_matrix, graph, kiviat, order, slices, time_per_state, wait_matrix, CommMatrix, Graph,
    Kiviat, Ordering, Slices, StateStats, WaitMatrix, Window,
};

use crate::run::load_trace;
use crate::ReadArgs;

/// Output formats.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum Format {
    /// Aligned columns for people.
    Table,
    /// Comma-separated values with a header line.
    Csv,
    /// One JSON document.
    Json,
}

/// Analyses.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum Analysis {
    /// Time per state: per container, state type and value.
    States,
    /// Communication matrix: messages (links) per pair of containers.
    Comm,
    /// Hosts (--level) and their processes ordered by off-host messages.
    Order,
    /// Who waited for whom: waiting states attributed to the last sender.
    Wait,
    /// Each host's (--level) cumulative share of network messages at --instants instants.
    Kiviat,
    /// Per time slice (--slices N) and container: time per state, messages sent and received.
    Slices,
    /// Communication graph of processes with a force-directed layout.
    Graph,
}

/// What `trama stats` was asked to do.
pub struct StatsSettings {
    pub window: Option<String>,
    pub level: Option<String>,
    pub size_field: Option<String>,
    pub waiting: Vec<String>,
    pub slices: usize,
    pub slice_length: Option<f64>,
    pub instants: usize,
    pub at: Option<String>,
    pub format: Format,
    pub analysis: Analysis,
}

/// Parses `T1:T2`, either side may be empty.
pub fn parse_window(s: &str) -> anyhow::Result<(Option<f64>, Option<f64>)> {
    let (a, b) = s
        .split_once(':')
        .ok_or_else(|| anyhow!("--window must be START:END (either may be empty), not '{s}'"))?;
    let num = |x: &str| -> anyhow::Result<Option<f64>> {
        if x.trim().is_empty() {
            return Ok(None);
        }
        x.trim()
            .parse::<f64>()
            .map(Some)
            .map_err(|_| anyhow!("--window: '{x}' is not a number"))
    };
    let (a, b) = (num(a)?, num(b)?);
    if let (Some(a), Some(b)) = (a, b) {
        if b < a {
            bail!("--window: the end {b} is before the start {a}");
        }
    }
    Ok((a, b))
}

pub fn stats(args: &ReadArgs, s: &StatsSettings, out: &mut dyn Write) -> anyhow::Result<ExitCode> {
    let (start, end) = match &s.window {
        Some(w) => parse_window(w)?,
        None => (None, None),
    };
    let window = (start.is_some() || end.is_some()).then(|| {
        (
            start.unwrap_or(f64::NEG_INFINITY),
            end.unwrap_or(f64::INFINITY),
        )
    });
    let keep_extras = s.size_field.is_some();
    if matches!(s.analysis, Analysis::Order | Analysis::Kiviat) && s.level.is_none() {
        bail!("this analysis needs --level: the container type of the hosts (e.g. --level Host)");
    }
    let trace = load_trace(args, keep_extras, window)?;
    let no_level = || {
        anyhow!(
            "--level: no container type is called '{}'",
            s.level.as_deref().unwrap_or_default()
        )
    };
    let w = Window::new(&trace, start, end);
    match s.analysis {
        Analysis::States => {
            let stats = time_per_state(&trace, w, s.level.as_deref()).ok_or_else(no_level)?;
            write_states(&stats, s.format, out)?;
        }
        Analysis::Comm => {
            let m = comm_matrix(&trace, w, s.level.as_deref(), s.size_field.as_deref())
                .ok_or_else(no_level)?;
            write_comm(&m, s.format, out)?;
        }
        Analysis::Graph => {
            let g = graph(&trace, w, 300);
            write_graph(&g, s.format, out)?;
        }
        Analysis::Slices => {
            let n = match s.slice_length {
                Some(len) if len > 0.0 => trama_analysis::slice_count(w, len),
                Some(len) => bail!("--slice-length must be positive, not {len}"),
                None => s.slices,
            };
            let x = slices(&trace, w, n);
            write_slices(&x, s.format, out)?;
        }
        Analysis::Kiviat => {
            let at = match &s.at {
                Some(list) => list
                    .split(',')
                    .map(|t| {
                        t.trim()
                            .parse::<f64>()
                            .map_err(|_| anyhow!("--at: '{t}' is not a number"))
                    })
                    .collect::<anyhow::Result<Vec<f64>>>()?,
                None => trama_analysis::instants(w, s.instants),
            };
            let k = kiviat(&trace, w, s.level.as_deref().unwrap_or_default(), &at)
                .ok_or_else(no_level)?;
            write_kiviat(&k, s.format, out)?;
        }
        Analysis::Wait => {
            let m = wait_matrix(&trace, w, &s.waiting);
            write_wait(&m, s.format, out)?;
        }
        Analysis::Order => {
            let o =
                order(&trace, w, s.level.as_deref().unwrap_or_default()).ok_or_else(no_level)?;
            write_order(&o, s.format, out)?;
        }
    }
    // Freeing millions of columns takes time and changes nothing.
    std::mem::forget(trace);
    Ok(ExitCode::SUCCESS)
}

fn csv_field(s: &str) -> String {
    if s.contains([',', '"', '\n', '\r']) {
        format!("\"{}\"", s.replace('"', "\"\""))
    } else {
        s.to_string()
    }
}

fn write_states(s: &StateStats, format: Format, out: &mut dyn Write) -> anyhow::Result<()> {
    match format {
        Format::Json => {
            serde_json::to_writer_pretty(&mut *out, s)?;
            writeln!(out)?;
        }
        Format::Csv => {
            writeln!(
                out,
                "container,container_type,containers,state_type,value,count,total,exclusive,inclusive,mean,max,share"
            )?;
            for r in &s.rows {
                writeln!(
                    out,
                    "{},{},{},{},{},{},{},{},{},{},{},{}",
                    csv_field(&r.container),
                    csv_field(&r.container_type),
                    r.containers,
                    csv_field(&r.state_type),
                    csv_field(&r.value),
                    r.count,
                    r.total,
                    r.exclusive,
                    r.inclusive,
                    r.mean,
                    r.max,
                    r.share
                )?;
            }
        }
        Format::Table => {
            writeln!(
                out,
                "Time per state over [{}, {}]{}",
                s.window.start,
                s.window.end,
                s.level
                    .as_ref()
                    .map(|l| format!(", rolled up to {l}"))
                    .unwrap_or_default()
            )?;
            let head = [
                "container",
                "state",
                "value",
                "count",
                "total",
                "exclusive",
                "inclusive",
                "mean",
                "max",
                "share",
            ];
            let mut lines: Vec<Vec<String>> = vec![head.iter().map(|h| h.to_string()).collect()];
            for r in &s.rows {
                lines.push(vec![
                    r.container.clone(),
                    r.state_type.clone(),
                    r.value.clone(),
                    r.count.to_string(),
                    format!("{:.6}", r.total),
                    format!("{:.6}", r.exclusive),
                    format!("{:.6}", r.inclusive),
                    format!("{:.6}", r.mean),
                    format!("{:.6}", r.max),
                    format!("{:.1}%", 100.0 * r.share),
                ]);
            }
            table(out, &lines, 3)?;
            writeln!(out)?;
            writeln!(out, "Load imbalance (exclusive time across containers)")?;
            let mut lines: Vec<Vec<String>> = vec![[
                "state",
                "value",
                "containers",
                "mean",
                "max",
                "max/mean-1",
                "stddev",
            ]
            .iter()
            .map(|h| h.to_string())
            .collect()];
            for i in &s.imbalance {
                lines.push(vec![
                    i.state_type.clone(),
                    i.value.clone(),
                    i.containers.to_string(),
                    format!("{:.6}", i.mean),
                    format!("{:.6}", i.max),
                    format!("{:.3}", i.imbalance),
                    format!("{:.6}", i.stddev),
                ]);
            }
            table(out, &lines, 2)?;
        }
    }
    Ok(())
}

fn opt(x: Option<f64>) -> String {
    x.map(|v| v.to_string()).unwrap_or_default()
}

fn write_comm(m: &CommMatrix, format: Format, out: &mut dyn Write) -> anyhow::Result<()> {
    match format {
        Format::Json => {
            serde_json::to_writer_pretty(&mut *out, m)?;
            writeln!(out)?;
        }
        Format::Csv => {
            writeln!(out, "from,to,count,bytes,rate")?;
            for p in &m.pairs {
                writeln!(
                    out,
                    "{},{},{},{},{}",
                    csv_field(&p.from),
                    csv_field(&p.to),
                    p.count,
                    opt(p.bytes),
                    opt(p.rate)
                )?;
            }
        }
        Format::Table => {
            writeln!(
                out,
                "Messages over [{}, {}]{}{}",
                m.window.start,
                m.window.end,
                m.level
                    .as_ref()
                    .map(|l| format!(", between containers of type {l}"))
                    .unwrap_or_default(),
                m.size_field
                    .as_ref()
                    .map(|f| format!(", sizes from field {f}"))
                    .unwrap_or_default()
            )?;
            let mut lines: Vec<Vec<String>> =
                vec![["from", "to", "messages", "bytes", "rate (bit/s)"]
                    .iter()
                    .map(|h| h.to_string())
                    .collect()];
            for p in &m.pairs {
                lines.push(vec![
                    p.from.clone(),
                    p.to.clone(),
                    p.count.to_string(),
                    p.bytes
                        .map(|b| format!("{b}"))
                        .unwrap_or_else(|| "-".into()),
                    p.rate
                        .map(|r| format!("{r:.1}"))
                        .unwrap_or_else(|| "-".into()),
                ]);
            }
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

fn write_wait(m: &WaitMatrix, format: Format, out: &mut dyn Write) -> anyhow::Result<()> {
    match format {
        Format::Json => {
            serde_json::to_writer_pretty(&mut *out, m)?;
            writeln!(out)?;
        }
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
                            r.seconds[j],
                            r.share_of_time[j],
                            r.share_of_waiting[j]
                        )?;
                    }
                }
            }
        }
        Format::Table => {
            writeln!(
                out,
                "Waiting time by sender, share of each container's time, over [{}, {}] (waits: {})",
                m.window.start,
                m.window.end,
                m.patterns.join(", ")
            )?;
            let mut head = vec!["waited".to_string()];
            head.extend(m.senders.iter().cloned());
            head.push("total".into());
            let mut lines = vec![head];
            let pct = |x: f64| {
                if x == 0.0 {
                    "-".to_string()
                } else {
                    format!("{:.1}%", 100.0 * x)
                }
            };
            for r in &m.rows {
                let mut l = vec![r.container.clone()];
                l.extend(r.share_of_time.iter().map(|x| pct(*x)));
                l.push(pct(r.waiting_share));
                lines.push(l);
            }
            table(out, &lines, 1)?;
        }
    }
    Ok(())
}

fn write_graph(g: &Graph, format: Format, out: &mut dyn Write) -> anyhow::Result<()> {
    match format {
        Format::Json => {
            serde_json::to_writer_pretty(&mut *out, g)?;
            writeln!(out)?;
        }
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
            let mut lines = vec![["process", "x", "y", "messages"]
                .iter()
                .map(|h| h.to_string())
                .collect::<Vec<_>>()];
            for n in &g.nodes {
                lines.push(vec![
                    n.name.clone(),
                    format!("{:.3}", n.x),
                    format!("{:.3}", n.y),
                    n.messages.to_string(),
                ]);
            }
            table(out, &lines, 1)?;
        }
    }
    Ok(())
}

fn write_slices(x: &Slices, format: Format, out: &mut dyn Write) -> anyhow::Result<()> {
    match format {
        Format::Json => {
            serde_json::to_writer_pretty(&mut *out, x)?;
            writeln!(out)?;
        }
        Format::Csv | Format::Table => {
            let sep = if format == Format::Csv { "," } else { "\t" };
            let mut head = vec!["slice".to_string(), "start".into(), "container".into()];
            head.extend(x.values.iter().map(|v| csv_field(v)));
            head.extend(["sent".to_string(), "received".into()]);
            writeln!(out, "{}", head.join(sep))?;
            for r in &x.rows {
                let mut l = vec![
                    r.slice.to_string(),
                    x.starts[r.slice].to_string(),
                    csv_field(&r.container),
                ];
                l.extend(r.seconds.iter().map(|v| v.to_string()));
                l.extend([r.sent.to_string(), r.received.to_string()]);
                writeln!(out, "{}", l.join(sep))?;
            }
        }
    }
    Ok(())
}

fn write_kiviat(k: &Kiviat, format: Format, out: &mut dyn Write) -> anyhow::Result<()> {
    match format {
        Format::Json => {
            serde_json::to_writer_pretty(&mut *out, k)?;
            writeln!(out)?;
        }
        Format::Csv => {
            let mut head = vec!["instant".to_string()];
            head.extend(k.hosts.iter().map(|h| csv_field(h)));
            writeln!(out, "{}", head.join(","))?;
            for (t, row) in k.instants.iter().zip(&k.shares) {
                let mut l = vec![t.to_string()];
                l.extend(row.iter().map(|v| v.to_string()));
                writeln!(out, "{}", l.join(","))?;
            }
        }
        Format::Table => {
            writeln!(
                out,
                "Cumulative share of network messages per {} (Kiviat series)",
                k.level
            )?;
            let mut lines = vec![{
                let mut h = vec!["instant".to_string()];
                h.extend(k.hosts.iter().cloned());
                h
            }];
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

fn write_order(o: &Ordering, format: Format, out: &mut dyn Write) -> anyhow::Result<()> {
    match format {
        Format::Json => {
            serde_json::to_writer_pretty(&mut *out, o)?;
            writeln!(out)?;
        }
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

/// Writes aligned columns: the first `left` columns left-aligned, the
/// others right-aligned.
fn table(out: &mut dyn Write, lines: &[Vec<String>], left: usize) -> std::io::Result<()> {
    let n = lines.first().map_or(0, |l| l.len());
    let width: Vec<usize> = (0..n)
        .map(|i| {
            lines
                .iter()
                .map(|l| l[i].chars().count())
                .max()
                .unwrap_or(0)
        })
        .collect();
    for l in lines {
        let mut s = String::new();
        for (i, cell) in l.iter().enumerate() {
            if i > 0 {
                s.push_str("  ");
            }
            let pad = width[i] - cell.chars().count();
            if i < left {
                s.push_str(cell);
                if i + 1 < n {
                    s.extend(std::iter::repeat_n(' ', pad));
                }
            } else {
                s.extend(std::iter::repeat_n(' ', pad));
                s.push_str(cell);
            }
        }
        writeln!(out, "{}", s.trim_end())?;
    }
    Ok(())
}
