//! The space-time diagram, drawn from the level of detail of
//! [`trama_lod`]: per row and pixel column, the dominant state of each
//! nesting level (inner levels drawn inside their parents), events,
//! variables' ranges, and links as arrows where few, as shaded strips
//! where many.

use std::collections::{BTreeMap, HashSet};
use std::fmt::Write as _;
use std::io::{self, Write};

use trama_lod::{rows, Lod, Query, Row, RowSummary, StateSpan, Summary};
use trama_sim::{ContainerId, Trace, TypeId, ValueId};

use crate::legend::{cut, wrap, Legend, Swatch, CHAR_W, LINE_H};
use crate::svg::{esc, Runs};

/// Options of [`space_time`].
#[derive(Clone, Debug)]
#[non_exhaustive]
pub struct SpaceTimeOptions {
    /// Width of the picture in pixels.
    pub width: u32,
    /// Height in pixels; `None`: as tall as the rows need.
    pub height: Option<u32>,
    /// Time window; `None`: the whole trace.
    pub window: Option<(f64, f64)>,
    /// Rows, top to bottom; `None`: the container tree depth-first.
    pub order: Option<Vec<ContainerId>>,
    /// Up to this many links in the window are all drawn as arrows;
    /// beyond, arrows only where few links begin (at most 8 per 16 pixel
    /// columns, as in the neighbouring 16), the others as grey strips on
    /// their rows.
    pub max_links: usize,
    /// The link types drawn; `None`: every one.
    pub link_types: Option<Vec<TypeId>>,
}

impl Default for SpaceTimeOptions {
    fn default() -> SpaceTimeOptions {
        SpaceTimeOptions {
            width: 1920,
            height: None,
            window: None,
            order: None,
            max_links: 500,
            link_types: None,
        }
    }
}

const TOP: f64 = 36.0;
const AXIS: f64 = 34.0;
const RIGHT: f64 = 16.0;
/// Shades of the link density strips.
const SHADES: usize = 6;

fn nice_step(span: f64, target: usize) -> f64 {
    let raw = span / target.max(1) as f64;
    let p = 10f64.powf(raw.log10().floor());
    for m in [1.0, 2.0, 5.0, 10.0] {
        if m * p >= raw {
            return m * p;
        }
    }
    10.0 * p
}

/// A number for a legend: at most 4 significant digits, k/M/G suffixes.
fn short_number(v: f64) -> String {
    let a = v.abs();
    let (x, suffix) = if a >= 1e9 {
        (v / 1e9, "G")
    } else if a >= 1e6 {
        (v / 1e6, "M")
    } else if a >= 1e4 {
        (v / 1e3, "k")
    } else {
        (v, "")
    };
    let s = format!("{x:.3}");
    let s = s.trim_end_matches('0').trim_end_matches('.');
    format!("{s}{suffix}")
}

fn fmt_t(t: f64, step: f64) -> String {
    let decimals = if step >= 1.0 {
        0
    } else {
        (-step.log10().floor()) as usize
    };
    let s = format!("{t:.decimals$}");
    // No "-0" on an axis.
    if s.trim_start_matches('-')
        .chars()
        .all(|c| c == '0' || c == '.')
    {
        s.trim_start_matches('-').to_string()
    } else {
        s
    }
}

/// The rows drawn: those with something in the window, and the containers
/// above them (as headers); the number of rows hidden.
fn shown_rows(trace: &Trace, s: &Summary) -> (Vec<usize>, usize) {
    let m = &trace.model;
    let mut keep: HashSet<ContainerId> = HashSet::new();
    for r in s.rows.iter().filter(|r| !r.is_empty()) {
        // A variable's container stays as the header of its row.
        if r.row.variable.is_some() {
            keep.insert(r.row.container);
        }
        let mut c = m.container(r.row.container).parent;
        while let Some(p) = c {
            if !keep.insert(p) {
                break;
            }
            c = m.container(p).parent;
        }
    }
    let shown: Vec<usize> = (0..s.rows.len())
        .filter(|&i| {
            let r = &s.rows[i];
            !r.is_empty() || (r.row.variable.is_none() && keep.contains(&r.row.container))
        })
        .collect();
    let hidden = s.rows.len() - shown.len();
    (shown, hidden)
}

/// Paths of states per (nesting level, value, height in tenths of a
/// pixel): inner levels are drawn over outer ones.
type StatePaths = BTreeMap<(usize, ValueId, i64), Runs>;

/// Columns of `spans` merged where `same` holds between neighbours.
fn merged<'a>(
    spans: &'a [StateSpan],
    same: impl Fn(&StateSpan, &StateSpan) -> bool + 'a,
) -> impl Iterator<Item = (u32, u32, &'a StateSpan)> + 'a {
    let mut i = 0;
    std::iter::from_fn(move || {
        let first = spans.get(i)?;
        let mut end = first.x1;
        i += 1;
        while i < spans.len() && spans[i].x0 == end && same(first, &spans[i]) {
            end = spans[i].x1;
            i += 1;
        }
        Some((first.x0, end, first))
    })
}

/// Draws a row's states into `paths`, and into `mixed` (per height) a
/// dark top edge over the columns where states of several values share a
/// level.
fn draw_states(
    r: &RowSummary,
    (x0, y, row_h, strip): (f64, f64, f64, f64),
    paths: &mut StatePaths,
    mixed: &mut BTreeMap<i64, Runs>,
) {
    let bands = r.states.len().max(1) as f64;
    let band_h = (row_h - 2.0 - strip) / bands;
    let x0 = x0 as i64;
    for (b, band) in r.states.iter().enumerate() {
        let by = y + 1.0 + b as f64 * band_h;
        // Each level inset from its parent, so that the deepest keeps 4
        // pixels when it can.
        let deepest = band.levels.len().saturating_sub(1).max(1) as f64;
        let inset = (band_h * 0.15)
            .min((band_h - 4.0) / (2.0 * deepest))
            .clamp(0.5, 3.0);
        for (level, spans) in band.levels.iter().enumerate() {
            let d = (level as f64 * inset).min((band_h - 2.0) / 2.0);
            let h = band_h - 2.0 * d;
            let h10 = (h * 10.0).round() as i64;
            // Adjacent columns of one value are one run, whatever their
            // counts.
            for (a, e, sp) in merged(spans, |p, q| p.value == q.value) {
                paths.entry((level, sp.value, h10)).or_default().run(
                    x0 + a as i64,
                    by + d + h / 2.0,
                    e - a,
                );
            }
            let mh = (h / 5.0).clamp(1.0, 2.0);
            let runs = mixed.entry((mh * 10.0).round() as i64).or_default();
            for (a, e, _) in merged(spans, |_, q| q.mixed).filter(|(_, _, sp)| sp.mixed) {
                runs.run(x0 + a as i64, by + d + mh / 2.0, e - a);
            }
        }
    }
}

/// A variable's row: a step line through each column's range, ending on
/// its last value. Returns its lowest and highest value in the window.
fn draw_variable(r: &RowSummary, x0: f64, y: f64, row_h: f64, d: &mut String) -> (f64, f64) {
    let lo = r.variable.iter().map(|v| v.min).fold(f64::MAX, f64::min);
    let hi = r.variable.iter().map(|v| v.max).fold(f64::MIN, f64::max);
    let span = if hi > lo { hi - lo } else { 1.0 };
    let vy = |v: f64| (y + row_h - 2.0 - (v - lo) / span * (row_h - 4.0)).round() as i64;
    // Relative moves between whole pixels keep the path short.
    let mut pen: Option<(i64, i64)> = None;
    for v in &r.variable {
        let xa = (x0 + v.x0 as f64) as i64;
        let xb = (x0 + v.x1 as f64) as i64;
        let targets = if v.last == v.max {
            [vy(v.min), vy(v.max)]
        } else {
            [vy(v.max), vy(v.min)]
        };
        let mut p = match pen {
            Some(p) if p.0 == xa => p,
            _ => {
                let _ = write!(d, "M{xa},{}", targets[0]);
                (xa, targets[0])
            }
        };
        for t in targets.into_iter().chain([vy(v.last)]) {
            if t != p.1 {
                let _ = write!(d, "v{}", t - p.1);
                p.1 = t;
            }
        }
        let _ = write!(d, "h{}", xb - xa);
        pen = Some((xb, p.1));
    }
    (lo, hi)
}

/// Everything drawn along the rows, gathered before it is written out.
#[derive(Default)]
struct Marks {
    /// The grey backgrounds over each container's life (path data).
    backgrounds: String,
    /// The states, per level, value and height.
    paths: StatePaths,
    /// The dark top edges of columns of mixed states, per height.
    mixed: BTreeMap<i64, Runs>,
    /// The events' ticks.
    ticks: Runs,
    /// The variables' step lines (whole `<path>` elements).
    vars: String,
    /// The link-density strips, one set of runs per shade.
    shades: Vec<Runs>,
    /// Per variable type: its stroke and its range in the window.
    var_legend: BTreeMap<String, (String, f64, f64)>,
}

/// Where the rows go: the plot's left edge, the row height, the height of
/// the link-density strip, and the rows shown (indices into the summary).
struct Layout {
    x0: f64,
    row_h: f64,
    strip: f64,
    shown: Vec<usize>,
}

impl Layout {
    /// The top of the `line`-th row shown.
    fn row_y(&self, line: usize) -> f64 {
        TOP + line as f64 * self.row_h
    }
}

/// The left margin that holds the row labels (indented by depth).
fn label_margin(trace: &Trace, rows: &[Row]) -> f64 {
    let label_chars = rows
        .iter()
        .map(|r| r.label(trace).chars().count() + 2 * r.depth(trace))
        .max()
        .unwrap_or(4);
    (12.0 + CHAR_W * label_chars as f64)
        .clamp(60.0, 280.0)
        .round()
}

/// Draws every row shown: backgrounds over each container's life, states,
/// events, variables, link density.
fn draw_rows(trace: &Trace, s: &Summary, at: &Layout) -> Marks {
    let m = &trace.model;
    let g = s.grid;
    let (t0, t1) = (g.t0, g.t1);
    let (x0, row_h, strip) = (at.x0, at.row_h, at.strip);
    let x = |t: f64| x0 + g.x(t);
    let max_density = s
        .rows
        .iter()
        .flat_map(|r| r.sent.iter().chain(&r.received))
        .map(|c| c.count)
        .max()
        .unwrap_or(1)
        .max(1);
    let mut k = Marks {
        shades: (0..SHADES).map(|_| Runs::default()).collect(),
        ..Marks::default()
    };
    for (line, &ri) in at.shown.iter().enumerate() {
        let r = &s.rows[ri];
        let y = at.row_y(line);
        let info = m.container(r.row.container);
        let end = if info.end < info.start { t1 } else { info.end };
        if end >= t0 && info.start <= t1 {
            let (a, b) = (x(info.start.max(t0)), x(end.min(t1)));
            let _ = write!(
                k.backgrounds,
                "M{a:.1},{:.1}h{:.1}v{:.1}h-{:.1}z",
                y + 1.0,
                (b - a).max(0.5),
                row_h - 2.0,
                (b - a).max(0.5)
            );
        }
        if let Some(l) = r.row.variable {
            if r.variable.is_empty() {
                continue;
            }
            let mut d = String::new();
            let (lo, hi) = draw_variable(r, x0, y, row_h, &mut d);
            let ty = m.ty(m.list(l).ty);
            let stroke = trama_style::line_color(m.str(ty.color), m.str(ty.name));
            let e = k
                .var_legend
                .entry(m.label(ty.name))
                .or_insert((stroke.clone(), lo, hi));
            e.1 = e.1.min(lo);
            e.2 = e.2.max(hi);
            let _ = writeln!(
                k.vars,
                "<path d=\"{d}\" fill=\"none\" stroke=\"{stroke}\" stroke-width=\"1\"/>"
            );
            continue;
        }
        draw_states(r, (x0, y, row_h, strip), &mut k.paths, &mut k.mixed);
        for e in &r.events {
            k.ticks
                .tick(x0 + e.x as f64 + 0.5, y + 1.0, (row_h / 3.0).max(2.0));
        }
        let sy = y + row_h - 1.0 - strip / 2.0;
        draw_link_strip(r, x0, sy, max_density, &mut k.shades);
    }
    k
}

/// Links counted per column: a strip at the bottom of the row (at `sy`),
/// darker where more links leave or arrive (`max_density` the darkest).
fn draw_link_strip(r: &RowSummary, x0: f64, sy: f64, max_density: u32, shades: &mut [Runs]) {
    let mut per_col: BTreeMap<u32, u32> = BTreeMap::new();
    for c in r.sent.iter().chain(&r.received) {
        *per_col.entry(c.x).or_default() += c.count;
    }
    let shade = |n: u32| {
        ((1.0 + n as f64).ln() / (1.0 + max_density as f64).ln() * SHADES as f64)
            .ceil()
            .clamp(1.0, SHADES as f64) as usize
            - 1
    };
    // Adjacent columns of one shade are one run.
    let mut run: Option<(u32, u32, usize)> = None;
    let mut put = |run: (u32, u32, usize)| {
        shades[run.2].run(x0 as i64 + run.0 as i64, sy, run.1 - run.0);
    };
    for (cx, n) in per_col {
        let level = shade(n);
        run = match run {
            Some((a, b, l)) if b == cx && l == level => Some((a, cx + 1, l)),
            Some(r) => {
                put(r);
                Some((cx, cx + 1, level))
            }
            None => Some((cx, cx + 1, level)),
        };
    }
    if let Some(r) = run {
        put(r);
    }
}

/// The legends: the values drawn, the most visible first, one entry per
/// label and colour; then the variables with their ranges.
fn legends(
    s: &Summary,
    labels: &[String],
    fill: impl Fn(ValueId) -> String,
    var_legend: &BTreeMap<String, (String, f64, f64)>,
) -> (Legend, Legend) {
    let mut weight: BTreeMap<ValueId, u64> = BTreeMap::new();
    for r in &s.rows {
        for b in &r.states {
            for spans in &b.levels {
                for sp in spans {
                    *weight.entry(sp.value).or_default() += (sp.x1 - sp.x0) as u64;
                }
            }
        }
    }
    let mut by_weight: Vec<(ValueId, u64)> = weight.into_iter().collect();
    by_weight.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
    let mut legend = Legend::default();
    for &(v, _) in &by_weight {
        legend.add(labels[v.index()].clone(), Swatch::Fill(fill(v)));
    }
    let mut var_entries = Legend::default();
    for (name, (stroke, lo, hi)) in var_legend {
        let label = format!("{name} {}–{}", short_number(*lo), short_number(*hi));
        var_entries.add(label, Swatch::Line(stroke.clone()));
    }
    (legend, var_entries)
}

/// The notes: what is not drawn one by one, and why.
fn notes(s: &Summary, marks: &Marks, hidden: usize) -> Vec<String> {
    let (g, l) = (s.grid, &s.links);
    let mut notes: Vec<String> = Vec::new();
    if g.widened {
        notes.push(format!(
            "Every entity is at t = {}: the window spans no time, so the axis shows half a second on each side of that instant.",
            g.t0 + 0.5
        ));
    }
    if marks.mixed.values().any(|r| !r.is_empty()) {
        notes.push(
            "A dark top edge marks the pixel columns where states of several values share a level; the one covering the most time is drawn (narrow the window to see the others).".to_string(),
        );
    }
    if l.total > 0 {
        let mut n = format!("{} links", l.total);
        if l.dense > 0 {
            let _ = write!(
                n,
                ": {} drawn as arrows where few begin, {} as the grey strip under their rows (darker: more links leave or arrive in that pixel column; narrow the window to see them one by one)",
                l.each.len(),
                l.dense
            );
        }
        n.push('.');
        notes.push(n);
    }
    if l.unplaced > 0 {
        notes.push(format!(
            "{} links between containers without a row are not drawn.",
            l.unplaced
        ));
    }
    if hidden > 0 {
        notes.push(if hidden == 1 {
            "1 row with nothing in the window is hidden.".to_string()
        } else {
            format!("{hidden} rows with nothing in the window are hidden.")
        });
    }
    notes
}

/// The opening of the picture: the SVG element, the arrow marker, a class
/// per value drawn, the white background and the title.
fn write_head(
    o: &mut String,
    (width, height): (f64, f64),
    s: &Summary,
    marks: &Marks,
    x0: f64,
    fill: impl Fn(ValueId) -> String,
) {
    let g = s.grid;
    let (t0, t1) = (g.t0, g.t1);
    let _ = writeln!(
        o,
        "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{width:.0}\" height=\"{height:.0}\" viewBox=\"0 0 {width:.0} {height:.0}\" font-family=\"DejaVu Sans, Arial, sans-serif\" font-size=\"11\">"
    );
    o.push_str("<defs><marker id=\"arrow\" viewBox=\"0 0 10 10\" refX=\"10\" refY=\"5\" markerWidth=\"5\" markerHeight=\"5\" orient=\"auto-start-reverse\"><path d=\"M0,0L10,5L0,10z\" fill=\"#333\"/></marker></defs>\n<style>");
    let mut classes: Vec<ValueId> = marks.paths.keys().map(|k| k.1).collect();
    classes.sort();
    classes.dedup();
    for v in &classes {
        let _ = write!(o, ".v{}{{stroke:{}}}", v.0, fill(*v));
    }
    o.push_str("</style>\n");
    o.push_str("<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n");
    let title_step = nice_step(t1 - t0, 8) / 100.0;
    let title = if g.widened {
        format!("t = {}", t0 + 0.5)
    } else {
        format!("{} to {}", fmt_t(t0, title_step), fmt_t(t1, title_step))
    };
    let _ = writeln!(
        o,
        "<text x=\"{x0:.0}\" y=\"20\" font-size=\"13\" font-weight=\"bold\">Space-time view, {title}</text>"
    );
}

/// The row labels, cut to the margin (every few rows when rows are thin).
fn write_labels(o: &mut String, trace: &Trace, s: &Summary, at: &Layout) {
    let (x0, row_h) = (at.x0, at.row_h);
    o.push_str("<g fill=\"#333\">");
    for (line, &ri) in at.shown.iter().enumerate() {
        let row = s.rows[ri].row;
        let y = at.row_y(line) + row_h / 2.0 + 4.0;
        if row_h >= 9.0 || line % ((9.0 / row_h).ceil() as usize).max(1) == 0 {
            let style = if row.variable.is_some() {
                " font-style=\"italic\" fill=\"#666\""
            } else {
                ""
            };
            let lx = 6.0 + 8.0 * row.depth(trace).saturating_sub(1) as f64;
            let chars = ((x0 - lx - 4.0) / CHAR_W).max(3.0) as usize;
            let _ = write!(
                o,
                "<text x=\"{lx:.0}\" y=\"{y:.1}\"{style}>{}</text>",
                esc(&cut(&row.label(trace), chars))
            );
        }
    }
    o.push_str("</g>\n");
}

/// The marks along the rows: backgrounds, states, mixed edges, event
/// ticks, link-density strips (`strip` high), variables.
fn write_marks(o: &mut String, marks: &Marks, strip: f64) {
    let _ = writeln!(o, "<path d=\"{}\" fill=\"#f2f2f2\"/>", marks.backgrounds);
    // States (and marks) are runs along a line, as wide as the stroke.
    o.push_str("<g fill=\"none\">\n");
    for ((_, v, h10), d) in &marks.paths {
        let _ = writeln!(
            o,
            "<path class=\"v{}\" d=\"{}\" stroke-width=\"{}\"/>",
            v.0,
            d.d,
            *h10 as f64 / 10.0
        );
    }
    for (h10, d) in marks.mixed.iter().filter(|(_, d)| !d.is_empty()) {
        let _ = writeln!(
            o,
            "<path d=\"{}\" stroke=\"#000\" stroke-opacity=\"0.5\" stroke-width=\"{}\"/>",
            d.d,
            *h10 as f64 / 10.0
        );
    }
    if !marks.ticks.is_empty() {
        let _ = writeln!(
            o,
            "<path d=\"{}\" stroke=\"#222\" stroke-width=\"1\"/>",
            marks.ticks.d
        );
    }
    for (i, d) in marks.shades.iter().enumerate() {
        if !d.is_empty() {
            let grey = 200 - (i * 190 / (SHADES - 1)) as u32;
            let _ = writeln!(
                o,
                "<path d=\"{}\" stroke=\"rgb({grey},{grey},{grey})\" stroke-width=\"{strip:.1}\"/>",
                d.d
            );
        }
    }
    o.push_str("</g>\n");
    o.push_str(&marks.vars);
}

/// The links given one by one, as arrows between the middles of their
/// rows.
fn write_links(o: &mut String, s: &Summary, at: &Layout) {
    let l = &s.links;
    if l.each.is_empty() {
        return;
    }
    let g = s.grid;
    let (t0, t1) = (g.t0, g.t1);
    let x = |t: f64| at.x0 + g.x(t);
    let line_of: BTreeMap<usize, usize> =
        at.shown.iter().enumerate().map(|(i, &r)| (r, i)).collect();
    o.push_str(
        "<g stroke=\"#333\" stroke-opacity=\"0.6\" fill=\"none\" marker-end=\"url(#arrow)\">",
    );
    let mid = |r: u32| {
        line_of
            .get(&(r as usize))
            .map(|&i| at.row_y(i) + at.row_h / 2.0)
    };
    for k in &l.each {
        let (Some(ya), Some(yb)) = (mid(k.from), mid(k.to)) else {
            continue;
        };
        let (pa, pb) = (x(k.start.clamp(t0, t1)), x(k.end.clamp(t0, t1)));
        let _ = write!(
            o,
            "<path d=\"M{pa:.1},{ya:.1}L{pb:.1},{yb:.1}\" stroke-width=\"1\"/>"
        );
    }
    o.push_str("</g>\n");
}

/// The time axis at `axis_y`, under the plot.
fn write_axis(o: &mut String, s: &Summary, x0: f64, axis_y: f64) {
    let g = s.grid;
    let (t0, t1) = (g.t0, g.t1);
    let plot_w = g.width as f64;
    let x = |t: f64| x0 + g.x(t);
    let step = nice_step(t1 - t0, (plot_w / 110.0) as usize);
    let _ = write!(
        o,
        "<path d=\"M{x0:.1},{axis_y:.1}H{:.1}\" stroke=\"#333\"/><g fill=\"#333\" text-anchor=\"middle\">",
        x0 + plot_w
    );
    let mut k = (t0 / step).ceil();
    while k * step <= t1 + step * 1e-9 {
        let t = k * step;
        let px = x(t);
        let _ = write!(
            o,
            "<path d=\"M{px:.1},{axis_y:.1}v5\" stroke=\"#333\"/><text x=\"{px:.1}\" y=\"{:.1}\">{}</text>",
            axis_y + 17.0,
            fmt_t(t, step)
        );
        k += 1.0;
    }
    o.push_str("</g>\n");
}

/// Writes the space-time diagram of `trace` as SVG to `out`.
pub fn space_time(trace: &Trace, opts: &SpaceTimeOptions, out: &mut dyn Write) -> io::Result<()> {
    let m = &trace.model;
    let all_rows: Vec<Row> = rows(trace, opts.order.as_deref());
    let x0 = label_margin(trace, &all_rows);
    let width = opts.width.max(200) as f64;
    let plot_w = (width - x0 - RIGHT).max(1.0);
    let mut q = Query::default();
    q.window = opts.window;
    q.width = plot_w as u32;
    q.max_links = opts.max_links;
    q.link_types = opts.link_types.clone();
    let s = Lod::new(trace).summarize(&all_rows, &q);
    let colours = trama_style::value_colors(m);
    let labels = m.value_labels();
    let (shown, hidden) = shown_rows(trace, &s);
    let nrows = shown.len().max(1) as f64;
    let row_h = match opts.height {
        Some(h) => ((h as f64 - TOP - AXIS - 3.0 * LINE_H) / nrows).clamp(3.0, 40.0),
        None => 18.0,
    };
    let strip = if s.links.dense > 0 {
        (row_h * 0.22).clamp(1.0, 4.0)
    } else {
        0.0
    };
    let at = Layout {
        x0,
        row_h,
        strip,
        shown,
    };
    let marks = draw_rows(trace, &s, &at);
    let fill = |v: ValueId| colours[v.index()].clone();
    let (legend, var_entries) = legends(&s, &labels, fill, &marks.var_legend);
    let axis_y = TOP + row_h * nrows + 4.0;
    let ly = axis_y + AXIS;
    let right = width - RIGHT;
    let (legend_svg, n1) = legend.layout(x0, right, ly);
    let (var_svg, n2) = var_entries.layout(x0, right, ly + n1 as f64 * LINE_H);
    let notes = notes(&s, &marks, hidden);
    let note_lines: Vec<String> = notes.iter().flat_map(|n| wrap(n, right - x0)).collect();
    let notes_y = ly + (n1 + n2) as f64 * LINE_H;
    let height = notes_y + note_lines.len() as f64 * LINE_H + 4.0;

    let mut o = String::with_capacity(1 << 16);
    write_head(&mut o, (width, height), &s, &marks, x0, fill);
    write_labels(&mut o, trace, &s, &at);
    write_marks(&mut o, &marks, strip);
    write_links(&mut o, &s, &at);
    write_axis(&mut o, &s, x0, axis_y);
    o.push_str(&legend_svg);
    o.push_str(&var_svg);
    for (i, n) in note_lines.iter().enumerate() {
        let _ = write!(
            o,
            "<text x=\"{x0:.1}\" y=\"{:.1}\" fill=\"#555\">{}</text>",
            notes_y + i as f64 * LINE_H,
            esc(n)
        );
    }
    o.push_str("\n</svg>\n");
    out.write_all(o.as_bytes())
}
