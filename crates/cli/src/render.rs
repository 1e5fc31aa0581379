//! `trama render`: pictures of a trace.

use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::{anyhow, bail, Context};
use trama_views::{space_time, svg_to_png, SpaceTimeOptions};

use crate::run::load_trace;
use crate::stats::parse_window;
use crate::ReadArgs;

/// Views.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum View {
    /// Containers as rows, states as bars, links as arrows, over time.
    SpaceTime,
}

/// What `trama render` was asked to do.
pub struct RenderSettings {
    pub view: View,
    pub output: PathBuf,
    pub window: Option<String>,
    pub width: u32,
    pub height: Option<u32>,
    pub order: Option<String>,
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
    match s.view {
        View::SpaceTime => space_time(&trace, &opts, &mut svg)?,
    }
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
