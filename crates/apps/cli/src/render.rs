//! `trama render`: pictures of a trace.

use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::bail;
use trama_analysis::TimeWindow;
use trama_views::ViewOptions;

use crate::run::load_trace;
use crate::ReadArgs;
use clap::Args;

/// Arguments of `trama render`.
#[derive(Args, Debug)]
pub struct RenderArgs {
    /// The view.
    #[arg(value_name = "VIEW", value_parser = crate::choices(&trama_views::View::ALL))]
    pub view: trama_views::View,
    #[command(flatten)]
    pub read: ReadArgs,
    /// Output picture: OUT.svg or OUT.png; for process-animation, traffic-animation and
    /// node-view also OUT.gif or OUT.apng (an animation recorded frame by frame).
    #[arg(short = 'o', long, value_name = "OUT")]
    pub output: PathBuf,
    /// Time window START:END (either side may be empty).
    #[arg(long, value_name = "T1:T2", allow_hyphen_values = true)]
    pub window: Option<String>,
    /// Width in pixels (default 1920; recordings 800).
    #[arg(long)]
    pub width: Option<u32>,
    /// Height in pixels (default: what the rows need; recordings 600).
    #[arg(long)]
    pub height: Option<u32>,
    /// Recordings: frames a second of playback.
    #[arg(long, default_value_t = 10.0, value_parser = crate::view::positive)]
    pub fps: f64,
    /// Recordings: how many frames; the window (--window, default the whole run) is cut into
    /// this many equal intervals, one a frame, so every state and message shows in some frame.
    #[arg(long, default_value_t = 100, value_parser = clap::value_parser!(u32).range(1..=100_000))]
    pub frames: u32,
    /// Animations: the field of the links holding a message's size in bytes, for effective
    /// rates (default: guessed when one field is named like a size).
    #[arg(long, value_name = "NAME")]
    pub size_field: Option<String>,
    /// Order rows as the seed does: hosts (containers of type LEVEL) by the
    /// messages they put on the network, each followed by its processes.
    #[arg(long, value_name = "LEVEL")]
    pub order: Option<String>,
    /// traffic-matrix: group containers by their ancestors of this type;
    /// kiviat and mapping: the container type of the hosts (default:
    /// chosen from the trace, the type above the processes, said on
    /// standard error).
    #[arg(long, value_name = "NAME")]
    pub level: Option<String>,
    /// Matrices: values below MIN are drawn black.
    #[arg(long, value_name = "MIN", allow_negative_numbers = true)]
    pub min: Option<f64>,
    /// Matrices: values above MAX are drawn white.
    #[arg(long, value_name = "MAX", allow_negative_numbers = true)]
    pub max: Option<f64>,
    /// process: the container to detail (default: the first with states).
    #[arg(long, value_name = "NAME")]
    pub process: Option<String>,
    /// The link types that are messages (name or alias; repeat for
    /// several). By default every link type but those whose links all last
    /// 0 s (a platform's topology).
    #[arg(long, value_name = "NAME")]
    pub link_type: Vec<String>,
    /// mapping: colour processes by their state at this instant instead of
    /// their dominant state over the window.
    #[arg(long, value_name = "TIME", allow_negative_numbers = true)]
    pub at: Option<f64>,
    #[command(flatten)]
    pub nodes: crate::view::NodeViewArgs,
}

/// Records an animation of the trace into a GIF or an animated PNG.
fn record(s: &RenderArgs, format: trama_views::Recording) -> anyhow::Result<ExitCode> {
    let Some(animation) = s.view.animation() else {
        bail!(
            "{} is a still picture: name the output .svg or .png (process-animation, traffic-animation and node-view record .gif and .apng)",
            trama_views::View::ALL
                .iter()
                .find(|v| v.0 == s.view)
                .map_or("this view", |v| v.1)
        );
    };
    let window = TimeWindow::parse_opt(s.window.as_deref())?;
    let trace = load_trace(&s.read, true, window.bounds())?;
    let mut opts = trama_views::RecordOptions::default();
    opts.fps = s.fps;
    opts.frames = s.frames as usize;
    opts.width = s.width.unwrap_or(opts.width);
    opts.height = s.height.unwrap_or(opts.height);
    (opts.level, opts.size_field) = (s.level.clone(), s.size_field.clone());
    (opts.min, opts.max) = (s.min, s.max);
    opts.link_types = s.link_type.clone();
    opts.node_level = s.nodes.node_level.clone();
    opts.arcs = s.nodes.arcs_type.clone();
    opts.sbars_style = s.nodes.sbars_style;
    trama_report::check_recording(&opts)?;
    let done = std::sync::Arc::new(std::sync::atomic::AtomicU64::new(0));
    let bar = crate::run::Bar::frames(
        s.output.display().to_string(),
        opts.frames as u64,
        done.clone(),
        !s.read.no_progress,
    );
    let inputs: Vec<_> = s.read.path().into_iter().collect();
    let w = window.resolve(&trace);
    crate::run::write_output(&s.output, &inputs, |out| {
        let mut buf = std::io::BufWriter::new(out);
        trama_views::record(&trace, animation, w, format, &opts, &mut buf, &mut |k| {
            done.store(k as u64, std::sync::atomic::Ordering::Relaxed)
        })?;
        use std::io::Write as _;
        buf.flush()?;
        Ok(())
    })?;
    drop(bar);
    std::mem::forget(trace);
    Ok(ExitCode::SUCCESS)
}

pub fn render(s: &RenderArgs) -> anyhow::Result<ExitCode> {
    let args = &s.read;
    let png = match s.output.extension().and_then(|e| e.to_str()) {
        Some("svg") => false,
        Some("png") => true,
        Some("gif") => return record(s, trama_views::Recording::Gif),
        Some("apng") => return record(s, trama_views::Recording::Apng),
        _ => bail!(
            "cannot tell the picture format from '{}': name it .svg or .png (animations also .gif or .apng)",
            s.output.display()
        ),
    };
    let window = TimeWindow::parse_opt(s.window.as_deref())?;
    let (t0, animated) = (std::time::Instant::now(), s.view.animation().is_some());
    let whole = s.view.reads_whole_run();
    let trace = load_trace(args, s.view.reads_fields(), window.to_read(whole))?;
    let t1 = std::time::Instant::now();
    let mut opts = ViewOptions::default();
    let width = s.width.unwrap_or(if animated { 800 } else { 1920 });
    (opts.width, opts.height, opts.min, opts.max) = (width, s.height, s.min, s.max);
    (opts.order, opts.level) = (s.order.clone(), s.level.clone());
    (opts.process, opts.at) = (s.process.clone(), s.at);
    opts.link_types = s.link_type.clone();
    opts.size_field = s.size_field.clone();
    opts.node_level = s.nodes.node_level.clone();
    opts.arcs = s.nodes.arcs_type.clone();
    opts.sbars_style = s.nodes.sbars_style;
    let mut notes = Vec::new();
    let bytes = trama_report::picture(
        &trace,
        s.view,
        window.resolve(&trace),
        &opts,
        png,
        &mut notes,
    )?;
    for note in notes {
        eprintln!("trama: note: {note}");
    }
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
