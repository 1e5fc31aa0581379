//! Charts of analysis results: heatmaps (traffic and wait matrices), the
//! process graph and Kiviat (radar) charts.

use std::fmt::Write as _;
use std::io::{self, Write};

use crate::labels::{label_box, overlaps, short_names};
use crate::svg::esc;

const FONT: &str = "font-family=\"DejaVu Sans, Arial, sans-serif\" font-size=\"11\"";

/// A matrix to draw as a heatmap: `values[i][j]` for row `i`, column `j`.
#[derive(Clone, Debug, Default)]
#[non_exhaustive]
pub struct Heatmap {
    /// Title above the picture.
    pub title: String,
    /// Row labels.
    pub rows: Vec<String>,
    /// Column labels.
    pub cols: Vec<String>,
    /// Values, one vector per row.
    pub values: Vec<Vec<f64>>,
    /// Values at or below `min` are black (default: the smallest value).
    pub min: Option<f64>,
    /// Values above `max` are white (default: the largest value).
    pub max: Option<f64>,
    /// Printed after each value in the cells, e.g. `%` (with values × 100).
    pub percent: bool,
    /// The last `summary` columns are totals: drawn apart and coloured on
    /// a scale of their own, so that they do not make every other cell the
    /// colour of the scale's bottom.
    pub summary: usize,
    /// A line under the title (what the picture leaves out, or why it is
    /// empty).
    pub note: Option<String>,
}

/// Opens a picture of `w` × `h` pixels on white, with `title` in bold at
/// its top left.
fn open(o: &mut String, w: f64, h: f64, title: &str) {
    let _ = writeln!(
        o,
        "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{w:.0}\" height=\"{h:.0}\" viewBox=\"0 0 {w:.0} {h:.0}\" {FONT}><rect width=\"100%\" height=\"100%\" fill=\"white\"/><text x=\"8\" y=\"18\" font-size=\"13\" font-weight=\"bold\">{}</text>",
        esc(title)
    );
}

/// The gradient from dark blue (low) to yellow (high), as seed 002's
/// matrices: below `min` black, above `max` white.
fn shade(v: f64, min: f64, max: f64) -> String {
    if v < min {
        return "#000000".into();
    }
    if v > max {
        return "#ffffff".into();
    }
    let t = if max > min {
        (v - min) / (max - min)
    } else {
        1.0
    };
    // Viridis-like ramp through 4 stops.
    let stops = [
        (0x30, 0x12, 0x6e),
        (0x21, 0x91, 0x8c),
        (0x5e, 0xc9, 0x62),
        (0xfd, 0xe7, 0x25),
    ];
    let x = t * 3.0;
    let i = (x.floor() as usize).min(2);
    let f = x - i as f64;
    let lerp = |a: u8, b: u8| (a as f64 + (b as f64 - a as f64) * f).round() as u8;
    let (a, b) = (stops[i], stops[i + 1]);
    format!(
        "#{:02x}{:02x}{:02x}",
        lerp(a.0, b.0),
        lerp(a.1, b.1),
        lerp(a.2, b.2)
    )
}

/// The smallest and largest of `values` (or `min`, `max` when given), with
/// 0 as the smallest at most.
fn bounds(
    values: impl Iterator<Item = f64> + Clone,
    min: Option<f64>,
    max: Option<f64>,
) -> (f64, f64) {
    let lo = min.unwrap_or_else(|| values.clone().fold(f64::MAX, f64::min).min(0.0));
    let hi = max.unwrap_or_else(|| values.fold(f64::MIN, f64::max).max(lo));
    (lo, hi)
}

/// Writes a heatmap as SVG.
pub fn heatmap(h: &Heatmap, out: &mut dyn Write) -> io::Result<()> {
    let split = h.cols.len().saturating_sub(h.summary);
    let cells = |r: std::ops::Range<usize>| {
        h.values
            .iter()
            .flat_map(move |row| row.get(r.clone()).unwrap_or(&[]).iter().copied())
    };
    let (lo, hi) = bounds(cells(0..split), h.min, h.max);
    let (slo, shi) = bounds(cells(split..h.cols.len()), None, None);
    let label_w = 12.0 + 6.6 * h.rows.iter().map(|r| r.chars().count()).max().unwrap_or(4) as f64;
    let note_h = if h.note.is_some() { 16.0 } else { 0.0 };
    let head_h =
        note_h + 30.0 + 6.6 * h.cols.iter().map(|c| c.chars().count()).max().unwrap_or(4) as f64;
    let cell = if h.rows.len().max(h.cols.len()) > 40 {
        12.0
    } else {
        36.0
    };
    // The summary columns stand apart.
    let gap = if h.summary > 0 && split > 0 { 8.0 } else { 0.0 };
    let col_x = |j: usize| label_w + cell * j as f64 + if j >= split { gap } else { 0.0 };
    let fmt = |v: f64| {
        if h.percent {
            format!("{:.1}%", 100.0 * v)
        } else {
            format!("{v:.3}")
        }
    };
    let scale_text = |lo: f64, hi: f64, what: &str| {
        format!(
            "{what}{} … {} (below: black, above: white)",
            fmt(lo),
            fmt(hi)
        )
    };
    let mut scales = Vec::new();
    if split > 0 {
        scales.push((lo, hi, scale_text(lo, hi, "")));
    }
    if h.summary > 0 {
        let names = h.cols[split..].join(", ");
        scales.push((slo, shi, scale_text(slo, shi, &format!("{names}: "))));
    }
    let longest = scales
        .iter()
        .map(|s| s.2.chars().count())
        .max()
        .unwrap_or(0);
    let w = (col_x(h.cols.len()) + 20.0)
        .max(16.0 + 7.6 * h.title.chars().count() as f64)
        .max(16.0 + 6.6 * h.note.as_ref().map_or(0, |n| n.chars().count()) as f64)
        .max(label_w + 184.0 + 6.6 * longest as f64);
    let ht = head_h + cell * h.rows.len() as f64 + 36.0 + 16.0 * scales.len() as f64;
    let mut o = String::new();
    open(&mut o, w, ht, &h.title);
    if let Some(n) = &h.note {
        let _ = write!(o, "<text x=\"8\" y=\"36\" fill=\"#555\">{}</text>", esc(n));
    }
    for (j, c) in h.cols.iter().enumerate() {
        let x = col_x(j) + cell / 2.0;
        let _ = write!(
            o,
            "<text transform=\"translate({x:.1},{:.1}) rotate(-60)\">{}</text>",
            head_h - 4.0,
            esc(c)
        );
    }
    for (i, r) in h.rows.iter().enumerate() {
        let y = head_h + cell * i as f64;
        let _ = write!(
            o,
            "<text x=\"6\" y=\"{:.1}\">{}</text>",
            y + cell / 2.0 + 4.0,
            esc(r)
        );
        for (j, v) in h.values[i].iter().enumerate() {
            let x = col_x(j);
            let (lo, hi) = if j >= split { (slo, shi) } else { (lo, hi) };
            let fill = shade(*v, lo, hi);
            let _ = write!(
                o,
                "<rect x=\"{x:.1}\" y=\"{y:.1}\" width=\"{cell}\" height=\"{cell}\" fill=\"{fill}\" stroke=\"#ddd\"><title>{} → {}: {}</title></rect>",
                esc(r),
                esc(&h.cols[j]),
                fmt(*v)
            );
            if cell >= 30.0 && *v != 0.0 {
                let text = if h.percent {
                    format!("{:.1}", 100.0 * v)
                } else if v.fract() == 0.0 {
                    format!("{v}")
                } else {
                    format!("{v:.2}")
                };
                let dark = fill == "#ffffff" || (*v - lo) / (hi - lo).max(1e-300) > 0.6;
                let _ = write!(
                    o,
                    "<text x=\"{:.1}\" y=\"{:.1}\" text-anchor=\"middle\" font-size=\"9\" fill=\"{}\">{text}</text>",
                    x + cell / 2.0,
                    y + cell / 2.0 + 3.0,
                    if dark { "#000" } else { "#fff" }
                );
            }
        }
    }
    // Scales: the cells', then the summary columns'.
    for (k, (lo, hi, text)) in scales.iter().enumerate() {
        let sy = head_h + cell * h.rows.len() as f64 + 16.0 + 16.0 * k as f64;
        for step in 0..=20 {
            let v = lo + (hi - lo) * step as f64 / 20.0;
            let _ = write!(
                o,
                "<rect x=\"{:.1}\" y=\"{sy:.1}\" width=\"8\" height=\"10\" fill=\"{}\"/>",
                label_w + 8.0 * step as f64,
                shade(v, *lo, *hi)
            );
        }
        let _ = write!(
            o,
            "<text x=\"{:.1}\" y=\"{:.1}\">{}</text>",
            label_w + 176.0,
            sy + 9.0,
            esc(text)
        );
    }
    o.push_str("</svg>\n");
    out.write_all(o.as_bytes())
}

/// Writes `text` in grey under the title of a chart.
fn note(o: &mut String, text: Option<&str>) {
    if let Some(t) = text {
        let _ = write!(o, "<text x=\"8\" y=\"36\" fill=\"#555\">{}</text>", esc(t));
    }
}

/// Writes the process graph: nodes at `(x, y)` in [0, 1], edges
/// `(a, b, weight)` drawn with a width growing with the weight, `note`
/// under the title. Each label goes beside its node where it overlaps no
/// other label nor node (right, left, above, below); a label that fits
/// nowhere is left in the node's tooltip, and the picture says how many.
pub fn process_graph(
    title: &str,
    note_text: Option<&str>,
    nodes: &[(String, f64, f64)],
    edges: &[(usize, usize, u64)],
    size: u32,
    out: &mut dyn Write,
) -> io::Result<()> {
    let s = size.max(200) as f64;
    let pad = 60.0;
    let top = if note_text.is_some() { 16.0 } else { 0.0 };
    let px = |v: f64| pad + v * (s - 2.0 * pad);
    let py = |v: f64| top + pad + v * (s - 2.0 * pad);
    let wmax = edges.iter().map(|e| e.2).max().unwrap_or(1).max(1) as f64;
    let mut o = String::new();
    if nodes.is_empty() {
        // Nothing to lay out: the title and the note say why.
        open(&mut o, s, 48.0, title);
        note(&mut o, note_text);
        o.push_str("</svg>\n");
        return out.write_all(o.as_bytes());
    }
    open(&mut o, s, s + top, title);
    note(&mut o, note_text);
    o.push_str("<g stroke=\"#4e79a7\" stroke-opacity=\"0.6\">");
    for &(a, b, w) in edges {
        let (na, nb) = (&nodes[a], &nodes[b]);
        let width = 0.5 + 5.5 * (w as f64 / wmax);
        let _ = write!(
            o,
            "<line x1=\"{:.1}\" y1=\"{:.1}\" x2=\"{:.1}\" y2=\"{:.1}\" stroke-width=\"{width:.2}\"><title>{} – {}: {w}</title></line>",
            px(na.1),
            py(na.2),
            px(nb.1),
            py(nb.2),
            esc(&na.0),
            esc(&nb.0)
        );
    }
    o.push_str("</g><g>");
    // Nodes are obstacles for labels.
    let mut taken: Vec<(f64, f64, f64, f64)> = nodes
        .iter()
        .map(|(_, x, y)| (px(*x) - 6.0, py(*y) - 6.0, px(*x) + 6.0, py(*y) + 6.0))
        .collect();
    let mut hidden = 0;
    for (n, x, y) in nodes {
        let (cx, cy) = (px(*x), py(*y));
        let _ = write!(
            o,
            "<circle cx=\"{cx:.1}\" cy=\"{cy:.1}\" r=\"6\" fill=\"#f28e2b\" stroke=\"#333\"><title>{}</title></circle>",
            esc(n)
        );
        let chars = n.chars().count();
        let spots = [
            (cx + 8.0, cy - 6.0, "start"),
            (cx + 8.0, cy + 14.0, "start"),
            (cx - 8.0, cy - 6.0, "end"),
            (cx - 8.0, cy + 14.0, "end"),
            (cx, cy - 10.0, "middle"),
            (cx, cy + 20.0, "middle"),
        ];
        let free = spots.iter().find(|(x, y, a)| {
            let b = label_box(*x, *y, chars, a);
            b.0 >= 0.0 && b.2 <= s && !taken.iter().any(|t| overlaps(*t, b))
        });
        match free {
            Some((x, y, a)) => {
                taken.push(label_box(*x, *y, chars, a));
                let _ = write!(
                    o,
                    "<text x=\"{x:.1}\" y=\"{y:.1}\" text-anchor=\"{a}\">{}</text>",
                    esc(n)
                );
            }
            None => hidden += 1,
        }
    }
    o.push_str("</g>");
    if hidden > 0 {
        let _ = write!(
            o,
            "<text x=\"8\" y=\"{:.1}\" fill=\"#555\">{hidden} labels left out where they would overlap (hover over a node for its name)</text>",
            s + top - 8.0
        );
    }
    o.push_str("</svg>\n");
    out.write_all(o.as_bytes())
}

/// The colour of the `k`-th of `n` instants: light (early) to dark red
/// (the last).
fn instant_color(k: usize, n: usize) -> String {
    let t = if n > 1 {
        k as f64 / (n - 1) as f64
    } else {
        1.0
    };
    let lerp = |a: f64, b: f64| (a + (b - a) * t).round() as u8;
    format!(
        "#{:02x}{:02x}{:02x}",
        lerp(252.0, 165.0),
        lerp(187.0, 15.0),
        lerp(161.0, 21.0)
    )
}

/// Writes a Kiviat (radar) chart: one axis per host, one polygon per
/// instant coloured from light (early) to dark (the last, filled), radius
/// = share; a legend gives each colour's instant.
pub fn kiviat_chart(
    title: &str,
    note_text: Option<&str>,
    hosts: &[String],
    instants: &[f64],
    shares: &[Vec<f64>],
    size: u32,
    out: &mut dyn Write,
) -> io::Result<()> {
    let s = size.max(200) as f64;
    let top = if note_text.is_some() { 16.0 } else { 0.0 };
    let (cx, cy, r) = (s / 2.0, top + s / 2.0 + 10.0, s / 2.0 - 70.0);
    let n = hosts.len().max(1);
    let angle =
        |i: usize| -std::f64::consts::FRAC_PI_2 + std::f64::consts::TAU * i as f64 / n as f64;
    let rmax = shares
        .iter()
        .flatten()
        .copied()
        .fold(0.0f64, f64::max)
        .max(1e-9);
    // The legend: a swatch and the instant per polygon, in lines.
    let per_line = ((s - 16.0) / 110.0).floor().max(1.0) as usize;
    let legend_lines = shares.len().div_ceil(per_line);
    let bottom = top + s + 20.0;
    let mut o = String::new();
    open(&mut o, s, bottom + 16.0 * legend_lines as f64 + 8.0, title);
    note(&mut o, note_text);
    for ring in 1..=4 {
        let rr = r * ring as f64 / 4.0;
        let _ = write!(
            o,
            "<circle cx=\"{cx:.1}\" cy=\"{cy:.1}\" r=\"{rr:.1}\" fill=\"none\" stroke=\"#ddd\"/>"
        );
    }
    for (i, h) in hosts.iter().enumerate() {
        let (ax, ay) = (cx + r * angle(i).cos(), cy + r * angle(i).sin());
        let _ = write!(
            o,
            "<line x1=\"{cx:.1}\" y1=\"{cy:.1}\" x2=\"{ax:.1}\" y2=\"{ay:.1}\" stroke=\"#bbb\"/><text x=\"{:.1}\" y=\"{:.1}\" text-anchor=\"middle\">{}</text>",
            cx + (r + 18.0) * angle(i).cos(),
            cy + (r + 18.0) * angle(i).sin() + 4.0,
            esc(h)
        );
    }
    let last = shares.len().saturating_sub(1);
    for (k, row) in shares.iter().enumerate() {
        let mut d = String::new();
        for (i, v) in row.iter().enumerate() {
            let rr = r * v / rmax;
            let _ = write!(
                d,
                "{}{:.1},{:.1}",
                if i == 0 { "M" } else { "L" },
                cx + rr * angle(i).cos(),
                cy + rr * angle(i).sin()
            );
        }
        d.push('z');
        let color = instant_color(k, shares.len());
        let (op, w) = if k == last { (0.3, 2.0) } else { (0.0, 1.2) };
        let _ = write!(
            o,
            "<path d=\"{d}\" fill=\"{color}\" fill-opacity=\"{op}\" stroke=\"{color}\" stroke-width=\"{w}\"><title>t = {}</title></path>",
            instants.get(k).copied().unwrap_or(0.0)
        );
    }
    let _ = write!(
        o,
        "<text x=\"8\" y=\"{:.1}\" fill=\"#555\">Radius: share of the messages put on the network until each instant (outer ring {:.0} %)</text>",
        bottom - 8.0,
        100.0 * rmax
    );
    for k in 0..shares.len() {
        let (lx, ly) = (
            8.0 + 110.0 * (k % per_line) as f64,
            bottom + 16.0 * (k / per_line) as f64,
        );
        let _ = write!(
            o,
            "<rect x=\"{lx:.1}\" y=\"{ly:.1}\" width=\"14\" height=\"10\" fill=\"{}\"/><text x=\"{:.1}\" y=\"{:.1}\">t = {}</text>",
            instant_color(k, shares.len()),
            lx + 18.0,
            ly + 9.0,
            short_time(instants.get(k).copied().unwrap_or(0.0))
        );
    }
    o.push_str("</svg>\n");
    out.write_all(o.as_bytes())
}

/// An instant in a legend: at most six significant digits.
fn short_time(t: f64) -> String {
    let s = format!("{t:.6}");
    let s = s.trim_end_matches('0').trim_end_matches('.');
    format!("{s} s")
}

/// A process of [`mapping_chart`]: name, colour and what the colour means.
pub type Mapped = (String, String, String);

/// Writes the process mapping: hosts evenly around a circle, each with its
/// processes around it, coloured (e.g. by their dominant state).
pub fn mapping_chart(
    title: &str,
    note_text: Option<&str>,
    hosts: &[(String, Vec<Mapped>)],
    size: u32,
    out: &mut dyn Write,
) -> io::Result<()> {
    let s = size.max(300) as f64;
    let (cx, cy) = (s / 2.0, s / 2.0 + 10.0);
    let n = hosts.len().max(1) as f64;
    let big = if hosts.len() <= 1 {
        0.0
    } else {
        s / 2.0 - 110.0
    };
    // Many hosts: small circles apart on their ring, names where they fit.
    let many = hosts.len() > 16;
    let host_r = if many {
        (0.8 * std::f64::consts::PI * big / n).clamp(4.0, 70.0)
    } else {
        (std::f64::consts::PI * big / n).clamp(22.0, 70.0)
    }
    .min(s / 5.0);
    let mut o = String::new();
    open(&mut o, s, s + 60.0, title);
    note(&mut o, note_text);
    let mut legend: Vec<(String, String)> = Vec::new();
    // Labels where they overlap no other: hosts' names (short when whole
    // ones do not fit in their circles), then processes'.
    let names: Vec<String> = hosts.iter().map(|(h, _)| h.clone()).collect();
    let whole_fit = !many
        || names
            .iter()
            .all(|h| 6.6 * h.chars().count() as f64 <= 2.0 * host_r + 20.0);
    let (texts, shared) = if whole_fit {
        (names.clone(), String::new())
    } else {
        short_names(&names)
    };
    let mut taken: Vec<(f64, f64, f64, f64)> = Vec::new();
    let mut hidden = 0;
    for (i, (h, procs)) in hosts.iter().enumerate() {
        let a = -std::f64::consts::FRAC_PI_2 + std::f64::consts::TAU * i as f64 / n;
        let (hx, hy) = (cx + big * a.cos(), cy + big * a.sin());
        if many {
            let _ = write!(
                o,
                "<circle cx=\"{hx:.1}\" cy=\"{hy:.1}\" r=\"{host_r:.1}\" fill=\"#f4f4f4\" stroke=\"#888\"><title>{}</title></circle>",
                esc(h)
            );
        } else {
            let _ = write!(
                o,
                "<circle cx=\"{hx:.1}\" cy=\"{hy:.1}\" r=\"{host_r:.1}\" fill=\"#f4f4f4\" stroke=\"#888\"/>"
            );
        }
        let b = label_box(hx, hy + 4.0, texts[i].chars().count(), "middle");
        if many && taken.iter().any(|t| overlaps(*t, b)) {
            hidden += 1;
        } else {
            taken.push(b);
            let _ = write!(
                o,
                "<text x=\"{hx:.1}\" y=\"{:.1}\" text-anchor=\"middle\" font-weight=\"bold\">{}</text>",
                hy + 4.0,
                esc(&texts[i])
            );
        }
        let k = procs.len().max(1) as f64;
        let pr = (std::f64::consts::PI * host_r / k).clamp(3.0, 10.0);
        for (j, (p, color, what)) in procs.iter().enumerate() {
            let b = -std::f64::consts::FRAC_PI_2 + std::f64::consts::TAU * j as f64 / k;
            let (px, py) = (
                hx + (host_r + pr + 2.0) * b.cos(),
                hy + (host_r + pr + 2.0) * b.sin(),
            );
            let _ = write!(
                o,
                "<circle cx=\"{px:.1}\" cy=\"{py:.1}\" r=\"{pr:.1}\" fill=\"{color}\" stroke=\"#333\"><title>{}: {}</title></circle>",
                esc(p),
                esc(what)
            );
            if procs.len() <= 16 && hosts.len() <= 16 {
                let (tx, ty) = (
                    hx + (host_r + 2.0 * pr + 6.0) * b.cos(),
                    hy + (host_r + 2.0 * pr + 6.0) * b.sin() + 3.0,
                );
                let anchor = if b.cos() < -0.3 {
                    "end"
                } else if b.cos() > 0.3 {
                    "start"
                } else {
                    "middle"
                };
                let _ = write!(
                    o,
                    "<text x=\"{tx:.1}\" y=\"{ty:.1}\" font-size=\"9\" text-anchor=\"{anchor}\">{}</text>",
                    esc(p)
                );
            }
            if !legend.iter().any(|(w, _)| w == what) {
                legend.push((what.clone(), color.clone()));
            }
        }
    }
    if hidden > 0 || !shared.is_empty() {
        let mut text = String::new();
        if !shared.is_empty() {
            text = format!("hosts: {shared}");
        }
        if hidden > 0 {
            if !text.is_empty() {
                text.push_str(" · ");
            }
            text.push_str(&format!(
                "{hidden} names left out where they would overlap (hover over a host for its name)"
            ));
        }
        let _ = write!(
            o,
            "<text x=\"8\" y=\"{:.1}\" fill=\"#555\">{}</text>",
            s + 54.0,
            esc(&text)
        );
    }
    let mut lx = 8.0;
    for (what, color) in &legend {
        let _ = write!(
            o,
            "<rect x=\"{lx:.1}\" y=\"{:.1}\" width=\"12\" height=\"10\" fill=\"{color}\"/><text x=\"{:.1}\" y=\"{:.1}\">{}</text>",
            s + 30.0,
            lx + 16.0,
            s + 39.0,
            esc(what)
        );
        lx += 24.0 + 6.6 * what.chars().count() as f64;
    }
    o.push_str("</svg>\n");
    out.write_all(o.as_bytes())
}

/// The most bars of partners, and of slices of the pie, [`process_detail`]
/// draws: the largest; the others are added up in one, "others".
pub const MOST_PARTS: usize = 15;

/// The largest `MOST_PARTS` of `parts` (`(label, colour, seconds)`), most
/// first (ties in natural order of their labels), and the others added
/// up in one part, `others (N)`, coloured `rest`.
fn largest(parts: &[(String, String, f64)], rest: &str) -> Vec<(String, String, f64)> {
    let mut v = parts.to_vec();
    v.sort_by(|a, b| {
        b.2.total_cmp(&a.2)
            .then_with(|| trama_sim::natural_cmp(&a.0, &b.0))
    });
    if v.len() > MOST_PARTS {
        let others = v.split_off(MOST_PARTS);
        let sum = others.iter().map(|x| x.2).sum();
        v.push((format!("others ({})", others.len()), rest.to_string(), sum));
    }
    v
}

/// Writes the detail of one process: its waiting per partner as bars and
/// its time per state as a pie (`(label, colour, seconds)`), each with its
/// [`MOST_PARTS`] largest parts and the others added up, most first.
pub fn process_detail(
    title: &str,
    waits: &[(String, f64)],
    states: &[(String, String, f64)],
    out: &mut dyn Write,
) -> io::Result<()> {
    let waits: Vec<(String, f64)> = largest(
        &waits
            .iter()
            .map(|(p, v)| (p.clone(), String::new(), *v))
            .collect::<Vec<_>>(),
        "",
    )
    .into_iter()
    .map(|(p, _, v)| (p, v))
    .collect();
    let states = largest(states, "#bab0ac");
    let (w, h) = (900.0, 420.0);
    let mut o = String::new();
    open(&mut o, w, h, title);
    // Bars: waiting per partner.
    let _ = write!(
        o,
        "<text x=\"20\" y=\"48\" font-weight=\"bold\">Waiting per partner (s)</text>"
    );
    let vmax = waits.iter().map(|x| x.1).fold(0.0f64, f64::max).max(1e-12);
    let bar_h = (300.0 / waits.len().max(1) as f64).min(24.0);
    for (i, (p, v)) in waits.iter().enumerate() {
        let y = 62.0 + i as f64 * bar_h;
        let len = 230.0 * v / vmax;
        let _ = write!(
            o,
            "<text x=\"160\" y=\"{:.1}\" text-anchor=\"end\"><title>{}</title>{}</text><rect x=\"166\" y=\"{y:.1}\" width=\"{len:.1}\" height=\"{:.1}\" fill=\"#e15759\"/><text x=\"{:.1}\" y=\"{:.1}\">{v:.6}</text>",
            y + bar_h * 0.7,
            esc(p),
            esc(&crate::legend::cut_middle(p, 20)),
            (bar_h - 3.0).max(2.0),
            170.0 + len,
            y + bar_h * 0.7
        );
    }
    if waits.is_empty() {
        o.push_str("<text x=\"20\" y=\"80\" fill=\"#555\">no waiting</text>");
    }
    // Pie: time per state.
    let _ = write!(
        o,
        "<text x=\"520\" y=\"48\" font-weight=\"bold\">Time per state</text>"
    );
    let total: f64 = states.iter().map(|s| s.2).sum();
    let (cx, cy, r) = (620.0, 210.0, 130.0);
    let mut a0 = -std::f64::consts::FRAC_PI_2;
    for (i, (label, color, v)) in states.iter().enumerate() {
        if total <= 0.0 {
            break;
        }
        let frac = v / total;
        let a1 = a0 + std::f64::consts::TAU * frac;
        if frac >= 0.9999 {
            let _ = write!(
                o,
                "<circle cx=\"{cx}\" cy=\"{cy}\" r=\"{r}\" fill=\"{color}\"/>"
            );
        } else if frac > 0.0 {
            let large = if a1 - a0 > std::f64::consts::PI { 1 } else { 0 };
            let _ = write!(
                o,
                "<path d=\"M{cx},{cy}L{:.2},{:.2}A{r},{r} 0 {large} 1 {:.2},{:.2}z\" fill=\"{color}\" stroke=\"white\"><title>{}: {:.1} %</title></path>",
                cx + r * a0.cos(),
                cy + r * a0.sin(),
                cx + r * a1.cos(),
                cy + r * a1.sin(),
                esc(label),
                100.0 * frac
            );
        }
        let ly = 70.0 + i as f64 * 16.0;
        let _ = write!(
            o,
            "<rect x=\"770\" y=\"{:.1}\" width=\"12\" height=\"10\" fill=\"{color}\"/><text x=\"786\" y=\"{ly:.1}\"><title>{}</title>{} {:.1} %</text>",
            ly - 9.0,
            esc(label),
            esc(&crate::legend::cut(label, 10)),
            100.0 * frac
        );
        a0 = a1;
    }
    o.push_str("</svg>\n");
    out.write_all(o.as_bytes())
}
