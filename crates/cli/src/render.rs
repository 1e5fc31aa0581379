//! `trama render`: pictures of a trace.

use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::{anyhow, bail};
use trama_analysis::TimeWindow;
use trama_views::{draw, svg_to_png, ViewOptions};

use crate::run::load_trace;
use crate::ReadArgs;

/// What `trama render` was asked to do.
pub struct RenderSettings {
    pub view: trama_views::View,
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
    let window = TimeWindow::parse_opt(s.window.as_deref())?;
    let t0 = std::time::Instant::now();
    let trace = load_trace(args, false, window.bounds())?;
    let t1 = std::time::Instant::now();
    let mut opts = ViewOptions::default();
    opts.width = s.width;
    opts.height = s.height;
    opts.order = s.order.clone();
    opts.level = s.level.clone();
    opts.min = s.min;
    opts.max = s.max;
    opts.process = s.process.clone();
    opts.at = s.at;
    let mut svg = Vec::new();
    draw(&trace, s.view, window.resolve(&trace), &opts, &mut svg)?;
    let bytes = if png {
        svg_to_png(&svg).map_err(|e| anyhow!("rasterizing the picture: {e}"))?
    } else {
        svg
    };
    let inputs: Vec<_> = args.path().into_iter().collect();
    crate::run::write_output(&s.output, &inputs, |w| Ok(w.write_all(&bytes)?))?;
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
