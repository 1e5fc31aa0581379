//! The animated views as pictures: one frame of the process animation or
//! of the traffic animation drawn as SVG from a [`Frame`] of
//! `trama-analysis` (the frame model `trama view`'s player draws too), and
//! [`record`], which draws a window's frames one after the other and
//! encodes them as an animated GIF or PNG for slides and papers.
//!
//! - **Process animation**: one square per process, grouped in a box per
//!   host (hosts in the seed's order), filled with the colour of the state
//!   the frame shows (at an instant, the top of its stack; over an
//!   interval, the value with the most exclusive time, with a band at the
//!   bottom giving each value's share); the frame's time above, the legend
//!   of the values shown below.
//! - **Traffic animation**: the sender × receiver matrix of the messages
//!   in flight during the frame, beside the same matrix over the whole run;
//!   cells coloured by effective rate (bits per second, from the size
//!   field) or, without sizes, by count, on a log gradient from dark blue to
//!   yellow, black below its minimum and white above its maximum (fixed
//!   over the recording: the whole run's range unless given).

use std::fmt::Write as _;
use std::io::{self, Write};

use trama_analysis::{
    frame, node_frame, ArcKind, Flights, Frame, FrameCell, Messages, NodeLinks, NodeStage, Stage,
    Window,
};
use trama_sim::Trace;

use crate::legend::{Legend, Swatch};
use crate::svg::esc;

/// Where a process's square was drawn: top-left corner and side, pixels.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Square {
    /// Left.
    pub x: f64,
    /// Top.
    pub y: f64,
    /// Side.
    pub side: f64,
}

/// Draws the process animation's frame `f` on `stage` as a `width` ×
/// `height` SVG; returns where each process's square is (in the stage's
/// order; `None` for a process not drawn).
pub fn draw_process_frame(
    trace: &Trace,
    stage: &Stage,
    f: &Frame,
    colors: &[String],
    width: u32,
    height: u32,
    out: &mut dyn Write,
) -> io::Result<Vec<Option<Square>>> {
    let (w, h) = (width as f64, height as f64);
    let labels = trace.model.value_labels();
    let mut legend = Legend::default();
    for s in &f.states {
        for v in s.value.iter().chain(s.shares.iter().map(|x| &x.0)) {
            legend.add(
                labels[*v as usize].clone(),
                Swatch::Fill(colors[*v as usize].clone()),
            );
        }
    }
    let (legend_svg, lines) = legend.layout(10.0, w - 10.0, h - 8.0);
    let legend_h = lines as f64 * crate::legend::LINE_H;
    let top = 30.0;
    let area = (w - 8.0, h - top - legend_h - 10.0);
    let mut body = String::new();
    let mut squares = vec![None; stage.processes.len()];
    // Hosts as boxes of squares, the largest squares that fit.
    let mut groups: Vec<(String, Vec<u32>)> = stage
        .hosts
        .iter()
        .filter(|h| !h.processes.is_empty())
        .map(|h| (h.name.clone(), h.processes.clone()))
        .collect();
    let loose: Vec<u32> = (0..stage.processes.len() as u32)
        .filter(|p| stage.processes[*p as usize].host.is_none())
        .collect();
    if !loose.is_empty() {
        let name = if groups.is_empty() { "" } else { "(no host)" };
        groups.push((name.to_string(), loose));
    }
    let label = if groups.iter().any(|g| !g.0.is_empty()) {
        14.0
    } else {
        0.0
    };
    let mut side = 96.0f64;
    let placed = loop {
        let mut boxes = Vec::new();
        let (mut x, mut y, mut line_h) = (4.0, top, 0.0f64);
        let mut fits = true;
        for (name, ps) in &groups {
            let cols = (ps.len() as f64).sqrt().ceil().max(1.0);
            let rows = (ps.len() as f64 / cols).ceil();
            let (bw, bh) = (cols * side + 8.0, rows * side + label + 6.0);
            if x + bw > area.0 && x > 4.0 {
                x = 4.0;
                y += line_h + 4.0;
                line_h = 0.0;
            }
            if y + bh > top + area.1 || bw > area.0 {
                fits = false;
                break;
            }
            boxes.push((name, ps, x, y, cols as usize, bw, bh));
            x += bw + 4.0;
            line_h = line_h.max(bh);
        }
        if fits || side < 3.0 {
            break boxes;
        }
        side = (side * 0.9).floor();
    };
    for (name, ps, bx, by, cols, bw, bh) in placed {
        let _ = write!(
            body,
            r##"<rect x="{bx}" y="{by}" width="{bw}" height="{bh}" fill="none" stroke="#bbb"/>"##
        );
        if label > 0.0 {
            let max = ((bw - 6.0) / crate::legend::CHAR_W).max(1.0) as usize;
            let _ = write!(
                body,
                r##"<text x="{}" y="{}" font-size="11" fill="#444">{}</text>"##,
                bx + 3.0,
                by + 11.0,
                esc(&crate::legend::cut(name, max))
            );
        }
        for (k, p) in ps.iter().enumerate() {
            let x = bx + 4.0 + (k % cols) as f64 * side;
            let y = by + label + 3.0 + (k / cols) as f64 * side;
            let inner = if side > 4.0 { side - 1.0 } else { side };
            let st = &f.states[*p as usize];
            let fill = st.value.map_or("#f4f4f4", |v| colors[v as usize].as_str());
            let _ = write!(
                body,
                r#"<rect x="{x}" y="{y}" width="{inner}" height="{inner}" fill="{fill}"/>"#
            );
            if st.shares.len() > 1 && side >= 10.0 {
                let band = (inner / 5.0).floor().max(2.0);
                let mut xx = x;
                for (v, share) in &st.shares {
                    let sw = share * inner;
                    let _ = write!(
                        body,
                        r#"<rect x="{xx:.2}" y="{}" width="{:.2}" height="{band}" fill="{}"/>"#,
                        y + inner - band,
                        sw.max(1.0),
                        colors[*v as usize]
                    );
                    xx += sw;
                }
            }
            if inner >= 40.0 {
                let max = ((inner - 4.0) / crate::legend::CHAR_W).max(1.0) as usize;
                let _ = write!(
                    body,
                    r##"<text x="{}" y="{}" font-size="11" fill="{}">{}</text>"##,
                    x + 3.0,
                    y + 13.0,
                    contrast(fill),
                    esc(&crate::legend::cut(&stage.processes[*p as usize].name, max))
                );
            }
            squares[*p as usize] = Some(Square { x, y, side: inner });
        }
    }
    write_frame_head(out, (width, height), &frame_title(f, stage.processes.len()))?;
    out.write_all(body.as_bytes())?;
    out.write_all(legend_svg.as_bytes())?;
    writeln!(out, "</svg>")?;
    Ok(squares)
}

/// Black or white, whichever reads on `fill` (`#rrggbb`).
fn contrast(fill: &str) -> &'static str {
    let v = |i: usize| u8::from_str_radix(fill.get(i..i + 2).unwrap_or("ff"), 16).unwrap_or(255);
    let luma = 0.3 * v(1) as f64 + 0.59 * v(3) as f64 + 0.11 * v(5) as f64;
    if luma > 140.0 {
        "#000"
    } else {
        "#fff"
    }
}

/// The opening of a frame's picture: the SVG element, a white background
/// and the title.
fn write_frame_head(
    out: &mut dyn Write,
    (width, height): (u32, u32),
    title: &str,
) -> io::Result<()> {
    writeln!(
        out,
        r#"<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" viewBox="0 0 {width} {height}" font-family="DejaVu Sans, Arial, sans-serif">"#
    )?;
    writeln!(out, r#"<rect width="100%" height="100%" fill="white"/>"#)?;
    writeln!(
        out,
        r#"<text x="8" y="18" font-size="13">{}</text>"#,
        esc(title)
    )
}

fn frame_title(f: &Frame, processes: usize) -> String {
    if f.dt > 0.0 {
        format!("{:.6} s – {:.6} s · {processes} processes", f.t, f.t + f.dt)
    } else {
        format!("{:.6} s · {processes} processes", f.t)
    }
}

/// The traffic animation's gradient: `[min, max]` of the values coloured
/// (rates, or counts without a size field).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Gradient {
    /// Below: black.
    pub min: f64,
    /// Above: white.
    pub max: f64,
}

impl Gradient {
    /// The gradient spanning the positive values of `cells`.
    pub fn fit(cells: &[FrameCell], by_rate: bool) -> Gradient {
        let vals = cells
            .iter()
            .filter_map(|c| value_of(c, by_rate))
            .filter(|v| *v > 0.0);
        let (mut lo, mut hi) = (f64::INFINITY, 0.0f64);
        for v in vals {
            lo = lo.min(v);
            hi = hi.max(v);
        }
        if !lo.is_finite() {
            return Gradient {
                min: 1.0,
                max: 10.0,
            };
        }
        if !by_rate {
            lo = lo.min(1.0);
        }
        if hi <= lo {
            (lo, hi) = (lo / 2.0, hi * 2.0);
        }
        Gradient { min: lo, max: hi }
    }

    /// The colour of `v`: black below, white above, else a ramp from dark
    /// blue to yellow on a log scale.
    pub fn shade(&self, v: Option<f64>) -> [u8; 3] {
        let Some(v) = v else { return [150, 150, 150] };
        if v < self.min {
            return [0, 0, 0];
        }
        if v > self.max {
            return [255, 255, 255];
        }
        let f = if self.max > self.min {
            (v / self.min).ln() / (self.max / self.min).ln()
        } else {
            1.0
        };
        const STOPS: [[f64; 3]; 5] = [
            [48.0, 18.0, 120.0],
            [33.0, 102.0, 172.0],
            [32.0, 164.0, 134.0],
            [122.0, 209.0, 81.0],
            [253.0, 231.0, 37.0],
        ];
        let x = f.clamp(0.0, 1.0) * (STOPS.len() - 1) as f64;
        let i = (x.floor() as usize).min(STOPS.len() - 2);
        let k = x - i as f64;
        let mut out = [0u8; 3];
        for j in 0..3 {
            out[j] = (STOPS[i][j] + (STOPS[i + 1][j] - STOPS[i][j]) * k).round() as u8;
        }
        out
    }
}

fn value_of(c: &FrameCell, by_rate: bool) -> Option<f64> {
    if by_rate {
        c.rate
    } else {
        Some(c.count as f64)
    }
}

fn hex([r, g, b]: [u8; 3]) -> String {
    format!("#{r:02x}{g:02x}{b:02x}")
}

/// Draws the traffic animation's frame `f` (the matrix of the messages in
/// flight) beside `whole` (the run's), with `frame_grad` and `whole_grad`,
/// as a `width` × `height` SVG. Returns the frame's matrix: its top-left
/// corner and the side of a cell.
#[allow(clippy::too_many_arguments)]
pub fn draw_traffic_frame(
    stage: &Stage,
    f: &Frame,
    whole: &[FrameCell],
    frame_grad: Gradient,
    whole_grad: Gradient,
    width: u32,
    height: u32,
    out: &mut dyn Write,
) -> io::Result<(f64, f64, f64)> {
    let (w, h) = (width as f64, height as f64);
    let by_rate = stage.size_field.is_some();
    let n = stage.processes.len().max(1) as f64;
    // Process names beside the rows and above the columns, when they fit.
    let named = stage.processes.len() <= 48;
    let longest = stage
        .processes
        .iter()
        .map(|p| p.name.chars().count().min(14))
        .max()
        .unwrap_or(0) as f64;
    let label = if named { longest * 6.2 + 6.0 } else { 0.0 };
    let size = ((w - 40.0 - 2.0 * label) / 2.0)
        .min(h - 90.0 - label)
        .max(10.0);
    let cell = size / n;
    let named = named && cell >= 9.0;
    let label = if named { label } else { 0.0 };
    write_frame_head(out, (width, height), &frame_title(f, stage.processes.len()))?;
    let what = if by_rate {
        format!(
            "effective rate (bit/s, from field {})",
            stage.size_field.as_deref().unwrap_or_default()
        )
    } else {
        "messages".to_string()
    };
    let mut origin = (0.0, 0.0);
    for (k, (title, cells, grad)) in [
        ("in flight in this frame", &f.cells[..], frame_grad),
        ("whole run", whole, whole_grad),
    ]
    .into_iter()
    .enumerate()
    {
        let x0 = 10.0 + label + k as f64 * (size + 20.0 + label);
        let y0 = 44.0 + label;
        if named {
            for (i, p) in stage.processes.iter().enumerate() {
                let name = esc(&crate::legend::cut(&p.name, 14));
                let mid = (i as f64 + 0.5) * cell;
                writeln!(
                    out,
                    r##"<text x="{:.1}" y="{:.1}" font-size="10" fill="#444" text-anchor="end">{name}</text>"##,
                    x0 - 3.0,
                    y0 + mid + 3.5
                )?;
                let (tx, ty) = (x0 + mid + 3.5, y0 - 3.0);
                writeln!(
                    out,
                    r##"<text x="{tx:.1}" y="{ty:.1}" font-size="10" fill="#444" transform="rotate(-90 {tx:.1} {ty:.1})">{name}</text>"##
                )?;
            }
        }
        if k == 0 {
            origin = (x0, y0);
        }
        writeln!(
            out,
            r#"<text x="{x0}" y="36" font-size="11">{}: {}</text>"#,
            title,
            esc(&what)
        )?;
        writeln!(
            out,
            r##"<rect x="{x0}" y="{y0}" width="{size}" height="{size}" fill="#e6e6ea" stroke="#888"/>"##
        )?;
        for c in cells {
            writeln!(
                out,
                r#"<rect x="{:.3}" y="{:.3}" width="{:.3}" height="{:.3}" fill="{}"/>"#,
                x0 + c.to as f64 * cell,
                y0 + c.from as f64 * cell,
                cell.max(1.0),
                cell.max(1.0),
                hex(grad.shade(value_of(c, by_rate)))
            )?;
        }
        // The gradient's scale.
        let steps = 64;
        for i in 0..steps {
            let v = grad.min * (grad.max / grad.min).powf(i as f64 / steps as f64);
            writeln!(
                out,
                r#"<rect x="{:.2}" y="{}" width="{:.2}" height="8" fill="{}"/>"#,
                x0 + size * i as f64 / steps as f64,
                y0 + size + 8.0,
                size / steps as f64 + 0.5,
                hex(grad.shade(Some(v)))
            )?;
        }
        writeln!(
            out,
            r#"<text x="{x0}" y="{}" font-size="11">{}</text><text x="{}" y="{}" font-size="11" text-anchor="end">{}</text>"#,
            y0 + size + 30.0,
            si(grad.min),
            x0 + size,
            y0 + size + 30.0,
            si(grad.max)
        )?;
    }
    writeln!(out, "</svg>")?;
    Ok((origin.0, origin.1, cell))
}

/// `x` with an SI prefix and 3 significant digits.
fn si(x: f64) -> String {
    for (v, s) in [(1e12, "T"), (1e9, "G"), (1e6, "M"), (1e3, "k")] {
        if x.abs() >= v {
            return format!("{}{s}", sig(x / v));
        }
    }
    sig(x)
}

fn sig(x: f64) -> String {
    let s = format!(
        "{:.*}",
        (2 - x.abs().log10().floor().clamp(0.0, 2.0) as usize),
        x
    );
    if s.contains('.') {
        s.trim_end_matches('0').trim_end_matches('.').to_string()
    } else {
        s
    }
}

/// Which animation [`record`] draws.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum Animation {
    /// One square per process, coloured by its state.
    Processes,
    /// The matrix of the messages in flight.
    Traffic,
    /// The node/arc view.
    Nodes,
}

/// The container of a recording.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum Recording {
    /// An animated GIF (256 colours a frame).
    Gif,
    /// An animated PNG (true colour).
    Apng,
}

/// How [`record`] draws a window's frames.
#[derive(Clone, Debug)]
#[non_exhaustive]
pub struct RecordOptions {
    /// Frames a second of playback.
    pub fps: f64,
    /// How many frames: the window is cut into this many equal intervals,
    /// one a frame (so every state and message shows in some frame).
    pub frames: usize,
    /// Width and height in pixels.
    pub width: u32,
    /// See `width`.
    pub height: u32,
    /// The host level (container type) that groups processes; `None`:
    /// chosen from the trace.
    pub level: Option<String>,
    /// The links' size field; `None`: guessed.
    pub size_field: Option<String>,
    /// The gradient's bounds (traffic); `None`: the whole run's range.
    pub min: Option<f64>,
    /// See `min`.
    pub max: Option<f64>,
    /// The link types that count as messages; empty: the default choice.
    pub link_types: Vec<String>,
    /// Node/arc view: the nodes' container type (`None`: its default).
    pub node_level: Option<String>,
    /// Node/arc view: the arcs drawn (`None`: every arc).
    pub arcs: Option<ArcKind>,
    /// Node/arc view: the status indicators' style (0 bars, 1 sectors).
    pub sbars_style: u8,
}

impl Default for RecordOptions {
    fn default() -> RecordOptions {
        RecordOptions {
            fps: 10.0,
            frames: 100,
            width: 800,
            height: 600,
            level: None,
            size_field: None,
            min: None,
            max: None,
            link_types: Vec::new(),
            node_level: None,
            arcs: None,
            sbars_style: 0,
        }
    }
}

/// The stage, messages and frames of a recording of `trace` over `window`.
pub struct Film {
    /// The processes and hosts.
    pub stage: Stage,
    /// The run's messages.
    pub flights: Flights,
    /// The start of the run (for the Kiviat radii).
    pub run_start: f64,
    /// Each frame's interval: `(t, dt)`.
    pub frames: Vec<(f64, f64)>,
    /// The node/arc view's nodes and links, once [`Film::add_nodes`] read
    /// them.
    pub nodes: Option<(NodeStage, NodeLinks)>,
}

impl Film {
    /// The frames of `window` as `opts` asks.
    pub fn new(
        trace: &Trace,
        window: Window,
        opts: &RecordOptions,
    ) -> Result<Film, crate::ViewError> {
        let msgs = Messages::select(trace, &opts.link_types)?;
        let level = match &opts.level {
            Some(l) => Some(l.clone()),
            None => trama_analysis::host_level(trace, &msgs).map(|h| h.name),
        };
        let run = Window::of(trace);
        let ordering = match &level {
            Some(l) => Some(
                trama_analysis::order(trace, run, &msgs, l)
                    .ok_or_else(|| crate::ViewError::UnknownLevel(l.clone()))?,
            ),
            None => None,
        };
        let size = match &opts.size_field {
            Some(f) => Some(f.clone()),
            None => trama_analysis::guess_size_field(trace),
        };
        let stage = Stage::new(trace, ordering.as_ref(), size.as_deref());
        let flights = Flights::new(trace, &stage, &msgs);
        let n = opts.frames.max(1);
        let dt = window.len() / n as f64;
        let frames = (0..n).map(|k| (window.start + k as f64 * dt, dt)).collect();
        Ok(Film {
            stage,
            flights,
            run_start: run.start,
            frames,
            nodes: None,
        })
    }

    /// Reads the node/arc view's nodes and links.
    pub fn add_nodes(
        &mut self,
        trace: &Trace,
        opts: &RecordOptions,
    ) -> Result<(), crate::ViewError> {
        let stage = NodeStage::new(trace, opts.node_level.as_deref(), None, true)
            .map_err(crate::ViewError::NodeLevel)?;
        let links = NodeLinks::new(trace, &stage);
        self.nodes = Some((stage, links));
        Ok(())
    }

    /// Frame `k`.
    pub fn frame(&self, trace: &Trace, k: usize) -> Frame {
        let (t, dt) = self.frames[k];
        frame(
            trace,
            &self.stage,
            &self.flights,
            t,
            dt,
            Some(self.run_start),
        )
    }
}

/// Draws frame `k` of `film` as SVG.
pub fn draw_film_frame(
    trace: &Trace,
    film: &Film,
    animation: Animation,
    k: usize,
    opts: &RecordOptions,
    colors: &[String],
    out: &mut dyn Write,
) -> io::Result<()> {
    let f = film.frame(trace, k);
    match animation {
        Animation::Processes => {
            draw_process_frame(trace, &film.stage, &f, colors, opts.width, opts.height, out)?;
        }
        Animation::Nodes => {
            let Some((stage, links)) = &film.nodes else {
                return Err(io::Error::other(
                    "the film has no nodes: call Film::add_nodes first",
                ));
            };
            let (t, dt) = film.frames[k];
            let nf = node_frame(trace, stage, links, t, dt);
            let all = ArcKind::all();
            let style = crate::node_view::NodeStyle {
                arcs: opts.arcs.as_ref().unwrap_or(&all),
                sbars_style: opts.sbars_style,
                frame: Some((k, film.frames.len())),
            };
            crate::node_view::draw_node_frame(
                trace,
                stage,
                &nf,
                &style,
                colors,
                opts.width,
                opts.height,
                out,
            )?;
        }
        Animation::Traffic => {
            let by_rate = film.stage.size_field.is_some();
            let whole = film.flights.cells(f64::NEG_INFINITY, f64::INFINITY);
            // Rates: from the slowest message to the fastest, which holds
            // every frame's means and the run's.
            let fitted = match film.flights.rate_range() {
                Some((lo, hi)) if by_rate && hi > lo => Gradient { min: lo, max: hi },
                _ => Gradient::fit(&whole, by_rate),
            };
            let whole_grad = Gradient {
                min: opts.min.unwrap_or(fitted.min),
                max: opts.max.unwrap_or(fitted.max),
            };
            // Counts of a frame are not those of the run: the frame's
            // gradient goes from 1 to the most messages a frame holds.
            let frame_grad = if by_rate {
                whole_grad
            } else {
                let most = (0..film.frames.len())
                    .step_by((film.frames.len() / 50).max(1))
                    .map(|i| {
                        let (t, dt) = film.frames[i];
                        film.flights
                            .cells(t, t + dt)
                            .iter()
                            .map(|c| c.count)
                            .max()
                            .unwrap_or(0)
                    })
                    .max()
                    .unwrap_or(1);
                Gradient {
                    min: opts.min.unwrap_or(1.0),
                    max: opts.max.unwrap_or((most as f64).max(2.0)),
                }
            };
            draw_traffic_frame(
                &film.stage,
                &f,
                &whole,
                frame_grad,
                whole_grad,
                opts.width,
                opts.height,
                out,
            )?;
        }
    }
    Ok(())
}

/// Records `animation` of `trace` over `window` as an animated GIF or PNG
/// into `out`: `opts.frames` frames, each drawn as SVG and rasterized.
/// `progress` is called after each frame with the number done.
pub fn record(
    trace: &Trace,
    animation: Animation,
    window: Window,
    format: Recording,
    opts: &RecordOptions,
    out: &mut dyn Write,
    progress: &mut dyn FnMut(usize),
) -> Result<(), crate::ViewError> {
    let mut film = Film::new(trace, window, opts)?;
    if animation == Animation::Nodes {
        film.add_nodes(trace, opts)?;
    }
    let colors = trama_style::value_colors(&trace.model);
    let raster = crate::svg::Rasterizer::new();
    let (w, h) = (opts.width, opts.height);
    let delay_cs = (100.0 / opts.fps.max(0.01)).round().clamp(1.0, 65535.0) as u16;
    let n = film.frames.len();
    let io_err = |e: String| crate::ViewError::Io(io::Error::other(e));
    match format {
        Recording::Gif => {
            let mut enc = gif::Encoder::new(&mut *out, w as u16, h as u16, &[])
                .map_err(|e| io_err(e.to_string()))?;
            enc.set_repeat(gif::Repeat::Infinite)
                .map_err(|e| io_err(e.to_string()))?;
            for k in 0..n {
                let mut svg = Vec::new();
                draw_film_frame(trace, &film, animation, k, opts, &colors, &mut svg)?;
                let mut rgba = raster.rgba(&svg, w, h).map_err(io_err)?;
                let mut frame = gif::Frame::from_rgba_speed(w as u16, h as u16, &mut rgba, 10);
                frame.delay = delay_cs;
                enc.write_frame(&frame).map_err(|e| io_err(e.to_string()))?;
                progress(k + 1);
            }
        }
        Recording::Apng => {
            let mut enc = png::Encoder::new(&mut *out, w, h);
            enc.set_color(png::ColorType::Rgba);
            enc.set_depth(png::BitDepth::Eight);
            enc.set_animated(n as u32, 0)
                .map_err(|e| io_err(e.to_string()))?;
            enc.set_frame_delay(delay_cs, 100)
                .map_err(|e| io_err(e.to_string()))?;
            let mut writer = enc.write_header().map_err(|e| io_err(e.to_string()))?;
            for k in 0..n {
                let mut svg = Vec::new();
                draw_film_frame(trace, &film, animation, k, opts, &colors, &mut svg)?;
                let rgba = raster.rgba(&svg, w, h).map_err(io_err)?;
                writer
                    .write_image_data(&rgba)
                    .map_err(|e| io_err(e.to_string()))?;
                progress(k + 1);
            }
            writer.finish().map_err(|e| io_err(e.to_string()))?;
        }
    }
    Ok(())
}
