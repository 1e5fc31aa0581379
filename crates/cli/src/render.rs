//! `trama render`: pictures of a trace.

use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::{anyhow, bail, Context};
use trama_views::{
    color, heatmap, kiviat_chart, mapping_chart, process_detail, process_graph, space_time,
    svg_to_png, Heatmap, SpaceTimeOptions,
};

use crate::run::load_trace;
use crate::stats::parse_window;
use crate::ReadArgs;

/// Views.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum View {
    /// Containers as rows, states as bars, links as arrows, over time.
    SpaceTime,
    /// Heatmap of messages between containers (or their --level ancestors).
    TrafficMatrix,
    /// Heatmap of who waited for whom (share of each container's time).
    WaitMatrix,
    /// Processes and the messages between them, force-directed.
    Graph,
    /// Each host's (--level) share of the network messages (radar chart).
    Kiviat,
    /// Hosts (--level) around a circle, their processes coloured by dominant state.
    Mapping,
    /// One process (--process): waiting per partner, time per state.
    Process,
}

/// What `trama render` was asked to do.
pub struct RenderSettings {
    pub view: View,
    pub output: PathBuf,
    pub window: Option<String>,
    pub width: u32,
    pub height: Option<u32>,
    pub order: Option<String>,
    pub level: Option<String>,
    pub min: Option<f64>,
    pub max: Option<f64>,
    pub process: Option<String>,
    pub at: Option<f64>,
}

pub fn render(args: &ReadArgs, s: &RenderSettings) -> anyhow::Result<ExitCode> {
    let png = match s.output.extension().and_then(|e| e.to_str()) {
        Some("svg") => false,
        Some("png") => true,
        _ => bail!(
            "cannot tell the picture format from '{}': name it .svg or .png",
            s.output.display()
        ),
    };
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
    let t0 = std::time::Instant::now();
    let trace = load_trace(args, false, window)?;
    let t1 = std::time::Instant::now();
    let w = trama_analysis::Window::new(&trace, start, end);
    let mut opts = SpaceTimeOptions::default();
    opts.width = s.width;
    opts.height = s.height;
    opts.window = Some((w.start, w.end));
    if let Some(level) = &s.order {
        // The seed's ordering: hosts by network traffic, then their processes.
        let o = trama_analysis::order(&trace, w, level)
            .ok_or_else(|| anyhow!("--order: no container type is called '{level}'"))?;
        let m = &trace.model;
        let by_name = |n: &str| {
            (0..m.containers.len() as u32)
                .map(trama_sim::ContainerId)
                .find(|c| m.str(m.container(*c).name) == n.as_bytes())
        };
        let mut rows = Vec::new();
        for h in &o.hosts {
            rows.extend(by_name(&h.host));
            rows.extend(h.processes.iter().filter_map(|(p, _)| by_name(p)));
        }
        opts.order = Some(rows);
    }
    let mut svg = Vec::new();
    draw(&trace, s.view, w, &opts, s, &mut svg)?;
    let bytes = if png {
        svg_to_png(&svg).map_err(|e| anyhow!("rasterizing the picture: {e}"))?
    } else {
        svg
    };
    std::fs::write(&s.output, bytes).with_context(|| format!("writing {}", s.output.display()))?;
    if std::env::var_os("TRAMA_TIMINGS").is_some() {
        eprintln!(
            "trama: timings: read+simulate {:.3} s, draw+write {:.3} s",
            (t1 - t0).as_secs_f64(),
            t1.elapsed().as_secs_f64()
        );
    }
    std::mem::forget(trace);
    Ok(ExitCode::SUCCESS)
}

/// Draws one view of `trace` as SVG into `out`.
pub fn draw(
    trace: &trama_sim::Trace,
    view: View,
    w: trama_analysis::Window,
    opts: &SpaceTimeOptions,
    s: &RenderSettings,
    out: &mut Vec<u8>,
) -> anyhow::Result<()> {
    let level = s.level.as_deref();
    let no_level = || {
        anyhow!(
            "--level: no container type is called '{}'",
            level.unwrap_or_default()
        )
    };
    match view {
        View::SpaceTime => space_time(trace, opts, out)?,
        View::TrafficMatrix => {
            let m = trama_analysis::comm_matrix(trace, w, level, None).ok_or_else(no_level)?;
            let idx = |n: &str| m.containers.iter().position(|c| c == n).unwrap_or(0);
            let k = m.containers.len();
            let mut values = vec![vec![0.0; k]; k];
            for p in &m.pairs {
                values[idx(&p.from)][idx(&p.to)] = p.count as f64;
            }
            let mut h = Heatmap::default();
            h.title = format!("Messages from row to column, [{}, {}]", w.start, w.end);
            h.rows = m.containers.clone();
            h.cols = m.containers.clone();
            h.values = values;
            h.min = s.min;
            h.max = s.max;
            heatmap(&h, out)?;
        }
        View::WaitMatrix => {
            let m = trama_analysis::wait_matrix(trace, w, &[]);
            let mut h = Heatmap::default();
            h.title = format!(
                "Waiting of each row for each column, % of its time, [{}, {}]",
                w.start, w.end
            );
            h.rows = m.rows.iter().map(|r| r.container.clone()).collect();
            h.cols = m.senders.clone();
            h.cols.push("total".into());
            h.values = m
                .rows
                .iter()
                .map(|r| {
                    let mut v = r.share_of_time.clone();
                    v.push(r.waiting_share);
                    v
                })
                .collect();
            h.min = s.min;
            h.max = s.max;
            h.percent = true;
            heatmap(&h, out)?;
        }
        View::Graph => {
            let g = trama_analysis::graph(trace, w, 300);
            let nodes: Vec<(String, f64, f64)> =
                g.nodes.iter().map(|n| (n.name.clone(), n.x, n.y)).collect();
            let edges: Vec<(usize, usize, u64)> =
                g.edges.iter().map(|e| (e.a, e.b, e.messages)).collect();
            let size = s.height.unwrap_or(s.width.min(900));
            process_graph("Processes and their messages", &nodes, &edges, size, out)?;
        }
        View::Kiviat => {
            let Some(l) = level else {
                bail!("kiviat needs --level: the container type of the hosts");
            };
            let k = trama_analysis::kiviat(trace, w, l, &trama_analysis::instants(w, 10))
                .ok_or_else(no_level)?;
            let size = s.height.unwrap_or(s.width.min(700));
            kiviat_chart(
                &format!("Network share per {l}"),
                &k.hosts,
                &k.instants,
                &k.shares,
                size,
                out,
            )?;
        }
        View::Mapping => {
            let Some(l) = level else {
                bail!("mapping needs --level: the container type of the hosts");
            };
            let o = trama_analysis::order(trace, w, l).ok_or_else(no_level)?;
            let dom = match s.at {
                Some(t) => states_at(trace, t),
                None => dominant_states(trace, w),
            };
            let hosts: Vec<(String, Vec<trama_views::Mapped>)> = o
                .hosts
                .iter()
                .map(|h| {
                    let procs = h
                        .processes
                        .iter()
                        .map(|(p, _)| {
                            let (what, c) = dom
                                .get(p)
                                .cloned()
                                .unwrap_or_else(|| ("no state".into(), "#dddddd".into()));
                            (p.clone(), c, what)
                        })
                        .collect();
                    (h.host.clone(), procs)
                })
                .collect();
            let size = s.height.unwrap_or(s.width.min(800));
            mapping_chart(
                &format!(
                    "Processes by host, coloured by dominant state, [{}, {}]",
                    w.start, w.end
                ),
                &hosts,
                size,
                out,
            )?;
        }
        View::Process => {
            let states = trama_analysis::time_per_state(trace, w, None).ok_or_else(no_level)?;
            let p = match &s.process {
                Some(p) => p.clone(),
                None => states
                    .rows
                    .first()
                    .map(|r| r.container.clone())
                    .ok_or_else(|| anyhow!("no container has states: use --process NAME"))?,
            };
            let m = trace.model.clone();
            let wait = trama_analysis::wait_matrix(trace, w, &[]);
            let waits: Vec<(String, f64)> = wait
                .rows
                .iter()
                .find(|r| r.container == p)
                .map(|r| {
                    wait.senders
                        .iter()
                        .zip(&r.seconds)
                        .filter(|(_, v)| **v > 0.0)
                        .map(|(n, v)| (n.clone(), *v))
                        .collect()
                })
                .unwrap_or_default();
            let pie: Vec<(String, String, f64)> = states
                .rows
                .iter()
                .filter(|r| r.container == p && r.exclusive > 0.0)
                .map(|r| {
                    (
                        r.value.clone(),
                        value_color(&m, &r.state_type, &r.value),
                        r.exclusive,
                    )
                })
                .collect();
            if pie.is_empty() && waits.is_empty() {
                bail!("--process: no container called '{p}' has states or waits");
            }
            process_detail(
                &format!("Process {p}, [{}, {}]", w.start, w.end),
                &waits,
                &pie,
                out,
            )?;
        }
    }
    Ok(())
}

/// The colour of a value given by its state type's and its own names.
fn value_color(m: &trama_sim::Model, ty: &str, value: &str) -> String {
    m.values
        .iter()
        .find(|v| m.str(v.name) == value.as_bytes() && m.str(m.ty(v.ty).name) == ty.as_bytes())
        .map(|v| color(m.str(v.color), m.str(v.name)))
        .unwrap_or_else(|| color(b"", value.as_bytes()))
}

/// Per container name: the state on top of its stack at time `t`.
fn states_at(
    trace: &trama_sim::Trace,
    t: f64,
) -> std::collections::HashMap<String, (String, String)> {
    let m = &trace.model;
    let mut out = std::collections::HashMap::new();
    for (l, info) in m.lists.iter().enumerate() {
        if info.kind != trama_sim::TypeKind::State {
            continue;
        }
        let cols = &trace.lists[l];
        // The deepest state containing t.
        let mut best: Option<(u32, usize)> = None;
        for i in 0..cols.len() {
            let (a, b) = (cols.start[i], cols.end[i]);
            let b = if b < a { f64::INFINITY } else { b };
            if a <= t && t < b && best.is_none_or(|(lv, _)| cols.level[i] >= lv) {
                best = Some((cols.level[i], i));
            }
        }
        if let Some((_, i)) = best {
            let v = m.value(cols.value[i]);
            let name = String::from_utf8_lossy(m.str(v.name)).into_owned();
            let c = color(m.str(v.color), m.str(v.name));
            let cname =
                String::from_utf8_lossy(m.str(m.container(info.container).name)).into_owned();
            out.insert(cname, (name, c));
        }
    }
    out
}

/// Per container name: its dominant state (most exclusive time) and colour.
fn dominant_states(
    trace: &trama_sim::Trace,
    w: trama_analysis::Window,
) -> std::collections::HashMap<String, (String, String)> {
    let mut best: std::collections::HashMap<String, (f64, String, String)> = Default::default();
    if let Some(s) = trama_analysis::time_per_state(trace, w, None) {
        for r in &s.rows {
            let e = best
                .entry(r.container.clone())
                .or_insert((-1.0, String::new(), String::new()));
            if r.exclusive > e.0 {
                *e = (
                    r.exclusive,
                    r.value.clone(),
                    value_color(&trace.model, &r.state_type, &r.value),
                );
            }
        }
    }
    best.into_iter().map(|(k, (_, v, c))| (k, (v, c))).collect()
}
