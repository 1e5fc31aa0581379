//! The space-time diagram.

use std::collections::{BTreeMap, HashMap};
use std::fmt::Write as _;
use std::io::{self, Write};

use trama_sim::{ContainerId, ListId, Trace, TypeKind, ValueId};

use crate::color::color;
use crate::svg::esc;

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
    /// Most link arrows drawn.
    pub max_links: usize,
}

impl Default for SpaceTimeOptions {
    fn default() -> SpaceTimeOptions {
        SpaceTimeOptions {
            width: 1920,
            height: None,
            window: None,
            order: None,
            max_links: 5000,
        }
    }
}

const TOP: f64 = 36.0;
const AXIS: f64 = 34.0;
const LEGEND_ROW: f64 = 18.0;
const RIGHT: f64 = 16.0;

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
    format!("{t:.decimals$}")
}

/// Writes the space-time diagram of `trace` as SVG to `out`.
pub fn space_time(trace: &Trace, opts: &SpaceTimeOptions, out: &mut dyn Write) -> io::Result<()> {
    let m = &trace.model;
    let (t0, mut t1) = opts
        .window
        .unwrap_or((trace.start_time(), trace.end_time()));
    if t1 <= t0 {
        t1 = t0 + 1.0;
    }
    // Rows: containers with something to draw (the root only if it has
    // entities of its own besides links).
    let draws = |c: ContainerId| {
        m.container(c)
            .lists
            .iter()
            .any(|(_, l)| m.list(*l).kind != TypeKind::Link || c != ContainerId::ROOT)
    };
    let rows: Vec<ContainerId> = match &opts.order {
        Some(o) => o.clone(),
        None => m
            .containers_depth_first()
            .into_iter()
            .filter(|c| *c != ContainerId::ROOT || draws(*c))
            .collect(),
    };
    // Lines of the picture: each container's own row (states, events),
    // and below its subtree one row per variable it holds, as the seed
    // shows a host's monitoring metrics below its processes (with an
    // explicit order, right below the container).
    let var_lists = |c: ContainerId| -> Vec<ListId> {
        let mut v: Vec<ListId> = m
            .container(c)
            .lists
            .iter()
            .map(|(_, l)| *l)
            .filter(|l| m.list(*l).kind == TypeKind::Variable)
            .collect();
        // The same order under every container: by type name.
        v.sort_by(|a, b| {
            m.str(m.ty(m.list(*a).ty).name)
                .cmp(m.str(m.ty(m.list(*b).ty).name))
        });
        v
    };
    let mut lines: Vec<(ContainerId, Option<ListId>)> = Vec::new();
    match &opts.order {
        Some(_) => {
            for &c in &rows {
                lines.push((c, None));
                lines.extend(var_lists(c).into_iter().map(|l| (c, Some(l))));
            }
        }
        None => {
            let shown: std::collections::HashSet<ContainerId> = rows.iter().copied().collect();
            // Depth first; a container's variables after its subtree.
            let mut stack: Vec<(ContainerId, bool)> = vec![(ContainerId::ROOT, false)];
            while let Some((c, done)) = stack.pop() {
                if done {
                    if shown.contains(&c) {
                        lines.extend(var_lists(c).into_iter().map(|l| (c, Some(l))));
                    }
                    continue;
                }
                if shown.contains(&c) {
                    lines.push((c, None));
                }
                stack.push((c, true));
                stack.extend(m.container(c).children.iter().rev().map(|k| (*k, false)));
            }
        }
    }
    let row_of: HashMap<ContainerId, usize> = lines
        .iter()
        .enumerate()
        .filter(|(_, (_, v))| v.is_none())
        .map(|(i, (c, _))| (*c, i))
        .collect();
    let name = |c: ContainerId| m.label(m.container(c).name);
    let line_label = |(c, v): (ContainerId, Option<ListId>)| match v {
        None => name(c),
        Some(l) => m.label(m.ty(m.list(l).ty).name),
    };
    let line_depth = |(c, v): (ContainerId, Option<ListId>)| {
        m.container(c).depth as usize + usize::from(v.is_some())
    };
    let label_chars = lines
        .iter()
        .map(|&l| line_label(l).chars().count() + 2 * line_depth(l))
        .max()
        .unwrap_or(4);
    let x0 = (12.0 + 6.6 * label_chars as f64).clamp(60.0, 280.0);
    let width = opts.width.max(200) as f64;
    let plot_w = width - x0 - RIGHT;
    let nrows = lines.len().max(1) as f64;
    let has_variables = rows.iter().any(|c| {
        m.container(*c)
            .lists
            .iter()
            .any(|(_, l)| m.list(*l).kind == TypeKind::Variable)
    });
    let legend_rows = if has_variables { 3.0 } else { 2.0 };
    // Variable types drawn: name → (colour, lowest, highest) in the window.
    let mut var_legend: BTreeMap<String, (String, f64, f64)> = BTreeMap::new();
    let row_h = match opts.height {
        Some(h) => ((h as f64 - TOP - AXIS - legend_rows * LEGEND_ROW) / nrows).clamp(3.0, 40.0),
        None => 18.0,
    };
    let height = TOP + row_h * nrows + AXIS + legend_rows * LEGEND_ROW + 8.0;
    let x = |t: f64| x0 + (t - t0) / (t1 - t0) * plot_w;
    let clip = |t: f64| t.clamp(t0, t1);

    // States: rectangles per value, with pixel buckets for the small ones.
    let mut paths: BTreeMap<ValueId, String> = BTreeMap::new();
    let mut time_of: Vec<f64> = vec![0.0; m.values.len()];
    let mut ticks = String::new();
    let mut vars = String::new();
    let mut backgrounds = String::new();
    for (r, &(c, var)) in lines.iter().enumerate() {
        let y = TOP + r as f64 * row_h;
        let info = m.container(c);
        let (s, e) = (
            clip(info.start),
            clip(if info.end < info.start { t1 } else { info.end }),
        );
        if e > s || info.start <= t1 {
            let _ = write!(
                backgrounds,
                "M{:.1},{:.1}h{:.1}v{:.1}h-{:.1}z",
                x(s),
                y + 1.0,
                (x(e) - x(s)).max(0.5),
                row_h - 2.0,
                (x(e) - x(s)).max(0.5)
            );
        }
        let lists: Vec<(ListId, TypeKind)> = match var {
            Some(l) => vec![(l, TypeKind::Variable)],
            None => info
                .lists
                .iter()
                .map(|(_, l)| (*l, m.list(*l).kind))
                .filter(|(_, k)| *k != TypeKind::Link && *k != TypeKind::Variable)
                .collect(),
        };
        let nstate = lists
            .iter()
            .filter(|(_, k)| *k == TypeKind::State)
            .count()
            .max(1) as f64;
        let mut si = 0.0;
        for (l, kind) in lists {
            let cols = &trace.lists[l.index()];
            match kind {
                TypeKind::State => {
                    let band_y = y + 1.0 + si * (row_h - 2.0) / nstate;
                    let band_h = (row_h - 2.0) / nstate;
                    si += 1.0;
                    // Sub-pixel states: per pixel column, the value that
                    // takes the most time at the top level (states of one
                    // level come in time order, so columns are streamed).
                    let mut marks: Vec<(i64, ValueId)> = Vec::new();
                    let mut cur_px = i64::MIN;
                    let mut acc: Vec<(ValueId, f64)> = Vec::new();
                    let flush = |px: i64,
                                 acc: &mut Vec<(ValueId, f64)>,
                                 marks: &mut Vec<(i64, ValueId)>| {
                        if let Some(v) = acc
                            .iter()
                            .max_by(|p, q| p.1.total_cmp(&q.1).then(q.0.cmp(&p.0)))
                            .map(|p| p.0)
                        {
                            marks.push((px, v));
                        }
                        acc.clear();
                    };
                    for i in 0..cols.len() {
                        let (a, b) = (cols.start[i], cols.end[i]);
                        let b = if b < a { t1 } else { b };
                        if b < t0 || a > t1 {
                            continue;
                        }
                        let (a, b) = (clip(a), clip(b));
                        let v = cols.value[i];
                        if let Some(t) = time_of.get_mut(v.index()) {
                            *t += b - a;
                        }
                        let level = cols.level[i].min(6);
                        let (pa, pb) = (x(a), x(b));
                        if pb - pa >= 1.0 {
                            let inset = (level as f64 * 2.0).min(band_h / 3.0);
                            let _ = write!(
                                paths.entry(v).or_default(),
                                "M{:.1},{:.1}h{:.1}v{:.1}h-{:.1}z",
                                pa,
                                band_y + inset,
                                pb - pa,
                                (band_h - 2.0 * inset).max(1.0),
                                pb - pa
                            );
                        } else if level == 0 {
                            let px = pa.floor() as i64;
                            if px != cur_px {
                                flush(cur_px, &mut acc, &mut marks);
                                cur_px = px;
                            }
                            match acc.iter_mut().find(|(w, _)| *w == v) {
                                Some((_, d)) => *d += b - a,
                                None => acc.push((v, b - a)),
                            }
                        }
                    }
                    flush(cur_px, &mut acc, &mut marks);
                    marks.sort();
                    marks.dedup_by_key(|m| m.0);
                    let mut i = 0;
                    while i < marks.len() {
                        let (px, v) = marks[i];
                        let mut j = i + 1;
                        while j < marks.len() && marks[j].1 == v && marks[j].0 == marks[j - 1].0 + 1
                        {
                            j += 1;
                        }
                        let w = (j - i) as i64;
                        let _ = write!(
                            paths.entry(v).or_default(),
                            "M{px},{:.0}h{w}v{:.0}h-{w}z",
                            band_y,
                            band_h.max(1.0)
                        );
                        i = j;
                    }
                }
                TypeKind::Event => {
                    let mut seen = std::collections::BTreeSet::new();
                    for i in 0..cols.len() {
                        let t = cols.start[i];
                        if t >= t0 && t <= t1 {
                            seen.insert(x(t).round() as i64);
                        }
                    }
                    for px in seen {
                        let _ = write!(ticks, "M{px},{:.1}v{:.1}", y + 1.0, (row_h / 3.0).max(2.0));
                    }
                }
                TypeKind::Variable => {
                    // Step plot scaled to the row, one point per pixel.
                    let mut lo = f64::MAX;
                    let mut hi = f64::MIN;
                    for i in 0..cols.len() {
                        let (a, b) = (cols.start[i], cols.end[i]);
                        if (b >= a && b < t0) || a > t1 {
                            continue;
                        }
                        lo = lo.min(cols.number[i]);
                        hi = hi.max(cols.number[i]);
                    }
                    if lo > hi {
                        continue;
                    }
                    let span = if hi > lo { hi - lo } else { 1.0 };
                    let vy = |v: f64| y + row_h - 2.0 - (v - lo) / span * (row_h - 4.0);
                    let mut d = String::new();
                    // One vertical step per pixel column: a value starting
                    // in the column of the previous drawn value only
                    // stretches the line to its end.
                    // Relative moves between whole pixels keep the path short.
                    let mut pen = (0i64, 0i64);
                    let h = |d: &mut String, pen: &mut (i64, i64), x: f64| {
                        let xi = x.round() as i64;
                        if xi != pen.0 {
                            let _ = write!(d, "h{}", xi - pen.0);
                            pen.0 = xi;
                        }
                    };
                    let v = |d: &mut String, pen: &mut (i64, i64), y: f64| {
                        let yi = y.round() as i64;
                        if yi != pen.1 {
                            let _ = write!(d, "v{}", yi - pen.1);
                            pen.1 = yi;
                        }
                    };
                    let mut last_col = i64::MIN;
                    let mut end_px = f64::NAN;
                    for i in 0..cols.len() {
                        let (a, b) = (cols.start[i], cols.end[i]);
                        let b = if b < a { t1 } else { b };
                        if b < t0 || a > t1 {
                            continue;
                        }
                        let (pa, pb) = (x(clip(a)), x(clip(b)));
                        let yy = vy(cols.number[i]);
                        let col = pa.round() as i64;
                        if d.is_empty() {
                            pen = (col, yy.round() as i64);
                            let _ = write!(d, "M{},{}", pen.0, pen.1);
                        } else if col != last_col {
                            h(&mut d, &mut pen, end_px);
                            v(&mut d, &mut pen, yy);
                        } else {
                            end_px = end_px.max(pb);
                            continue;
                        }
                        h(&mut d, &mut pen, pb);
                        last_col = col;
                        end_px = pb;
                    }
                    if !d.is_empty() {
                        h(&mut d, &mut pen, end_px);
                    }
                    let ty = m.ty(m.list(l).ty);
                    let stroke = color(m.str(ty.color), m.str(ty.name));
                    let e = var_legend
                        .entry(m.label(ty.name))
                        .or_insert((stroke.clone(), lo, hi));
                    e.1 = e.1.min(lo);
                    e.2 = e.2.max(hi);
                    let _ = writeln!(
                        vars,
                        "<path d=\"{d}\" fill=\"none\" stroke=\"{stroke}\" stroke-width=\"1\"/>"
                    );
                }
                _ => {}
            }
        }
    }
    // Links: buckets by rows and pixel columns, the busiest first.
    let mut links: HashMap<(usize, usize, i64, i64), u32> = HashMap::new();
    let mut total_links = 0u64;
    for (l, info) in m.lists.iter().enumerate() {
        if info.kind != TypeKind::Link {
            continue;
        }
        let cols = &trace.lists[l];
        for i in 0..cols.len() {
            let (f, g) = (cols.from[i], cols.to[i]);
            let (s, e) = (cols.start[i], cols.end[i]);
            if f == u32::MAX || g == u32::MAX || e < t0 || s > t1 {
                continue;
            }
            let (Some(&rf), Some(&rg)) = (row_of.get(&ContainerId(f)), row_of.get(&ContainerId(g)))
            else {
                continue;
            };
            total_links += 1;
            *links
                .entry((rf, rg, x(clip(s)).round() as i64, x(clip(e)).round() as i64))
                .or_default() += 1;
        }
    }
    let mut link_list: Vec<((usize, usize, i64, i64), u32)> = links.into_iter().collect();
    let busiest = |a: &((usize, usize, i64, i64), u32), b: &((usize, usize, i64, i64), u32)| {
        b.1.cmp(&a.1).then(a.0.cmp(&b.0))
    };
    if link_list.len() > opts.max_links {
        if opts.max_links > 0 {
            link_list.select_nth_unstable_by(opts.max_links - 1, busiest);
        }
        link_list.truncate(opts.max_links);
    }
    let drawn: u64 = link_list.iter().map(|l| l.1 as u64).sum();
    link_list.sort_by_key(|l| l.0);

    // Output.
    let mut o = String::with_capacity(1 << 16);
    let _ = writeln!(
        o,
        "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{width:.0}\" height=\"{height:.0}\" viewBox=\"0 0 {width:.0} {height:.0}\" font-family=\"DejaVu Sans, Arial, sans-serif\" font-size=\"11\">"
    );
    o.push_str("<defs><marker id=\"arrow\" viewBox=\"0 0 10 10\" refX=\"10\" refY=\"5\" markerWidth=\"5\" markerHeight=\"5\" orient=\"auto-start-reverse\"><path d=\"M0,0L10,5L0,10z\" fill=\"#333\"/></marker></defs>\n<style>");
    let mut legend: Vec<(ValueId, f64)> = time_of
        .iter()
        .enumerate()
        .filter(|(_, t)| **t > 0.0)
        .map(|(v, t)| (ValueId(v as u32), *t))
        .collect();
    legend.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
    for v in paths.keys() {
        let info = m.value(*v);
        let _ = write!(
            o,
            ".v{}{{fill:{}}}",
            v.0,
            color(m.str(info.color), m.str(info.name))
        );
    }
    o.push_str("</style>\n");
    o.push_str("<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n");
    let _ = writeln!(
        o,
        "<text x=\"{x0:.0}\" y=\"20\" font-size=\"13\" font-weight=\"bold\">Space-time view, {} to {}</text>",
        fmt_t(t0, nice_step(t1 - t0, 8) / 100.0),
        fmt_t(t1, nice_step(t1 - t0, 8) / 100.0)
    );
    // Row labels and backgrounds.
    o.push_str("<g fill=\"#333\">");
    for (r, &line) in lines.iter().enumerate() {
        let y = TOP + r as f64 * row_h + row_h / 2.0 + 4.0;
        if row_h >= 9.0 || r % ((9.0 / row_h).ceil() as usize).max(1) == 0 {
            let style = if line.1.is_some() {
                " font-style=\"italic\" fill=\"#666\""
            } else {
                ""
            };
            let _ = write!(
                o,
                "<text x=\"{:.0}\" y=\"{y:.1}\"{style}>{}</text>",
                6.0 + 8.0 * line_depth(line).saturating_sub(1) as f64,
                esc(&line_label(line))
            );
        }
    }
    o.push_str("</g>\n");
    let _ = writeln!(o, "<path d=\"{backgrounds}\" fill=\"#f2f2f2\"/>");
    for (v, d) in &paths {
        let _ = writeln!(o, "<path class=\"v{}\" d=\"{d}\"/>", v.0);
    }
    if !ticks.is_empty() {
        let _ = writeln!(
            o,
            "<path d=\"{ticks}\" stroke=\"#222\" stroke-width=\"1\"/>"
        );
    }
    o.push_str(&vars);
    if !link_list.is_empty() {
        o.push_str(
            "<g stroke=\"#333\" stroke-opacity=\"0.55\" fill=\"none\" marker-end=\"url(#arrow)\">",
        );
        for ((rf, rg, pa, pb), n) in &link_list {
            let (ya, yb) = (
                TOP + *rf as f64 * row_h + row_h / 2.0,
                TOP + *rg as f64 * row_h + row_h / 2.0,
            );
            let w = (1.0 + (*n as f64).log2()).min(4.0);
            let _ = write!(
                o,
                "<path d=\"M{pa},{ya:.1}L{pb},{yb:.1}\" stroke-width=\"{w:.1}\"/>"
            );
        }
        o.push_str("</g>\n");
    }
    // Time axis.
    let axis_y = TOP + row_h * nrows + 4.0;
    let step = nice_step(t1 - t0, (plot_w / 110.0) as usize);
    let _ = write!(
        o,
        "<path d=\"M{x0:.1},{axis_y:.1}H{:.1}\" stroke=\"#333\"/><g fill=\"#333\" text-anchor=\"middle\">",
        x0 + plot_w
    );
    let mut t = (t0 / step).ceil() * step;
    while t <= t1 + step * 1e-9 {
        let px = x(t);
        let _ = write!(
            o,
            "<path d=\"M{px:.1},{axis_y:.1}v5\" stroke=\"#333\"/><text x=\"{px:.1}\" y=\"{:.1}\">{}</text>",
            axis_y + 17.0,
            fmt_t(t, step)
        );
        t += step;
    }
    o.push_str("</g>\n");
    // Legend: the values that take the most time.
    let mut lx = x0;
    let ly = axis_y + AXIS;
    for (v, _) in legend.iter().take(24) {
        let info = m.value(*v);
        let label = m.label(info.name);
        let w = 22.0 + 6.6 * label.chars().count() as f64;
        if lx + w > width - RIGHT {
            break;
        }
        let _ = write!(
            o,
            "<rect class=\"v{}\" x=\"{lx:.1}\" y=\"{:.1}\" width=\"12\" height=\"10\"/><text x=\"{:.1}\" y=\"{:.1}\" fill=\"#333\">{}</text>",
            v.0,
            ly - 9.0,
            lx + 16.0,
            ly,
            esc(&label)
        );
        lx += w;
    }
    // Variables: each type's colour and range (each row's plot is scaled
    // to its own range in the window).
    let mut lx = x0;
    for (name, (stroke, lo, hi)) in &var_legend {
        let label = format!("{name} {}–{}", short_number(*lo), short_number(*hi));
        let w = 26.0 + 6.6 * label.chars().count() as f64;
        if lx + w > width - RIGHT {
            break;
        }
        let y = ly + LEGEND_ROW;
        let _ = write!(
            o,
            "<path d=\"M{lx:.1},{:.1}h14\" stroke=\"{stroke}\" stroke-width=\"2\"/><text x=\"{:.1}\" y=\"{y:.1}\" fill=\"#333\">{}</text>",
            y - 4.0,
            lx + 18.0,
            esc(&label)
        );
        lx += w;
    }
    let links_y = if has_variables {
        ly + 2.0 * LEGEND_ROW
    } else {
        ly + LEGEND_ROW
    };
    if total_links > 0 {
        let _ = write!(
            o,
            "<text x=\"{x0:.1}\" y=\"{:.1}\" fill=\"#555\">{} links{}</text>",
            links_y,
            total_links,
            if drawn < total_links {
                format!(
                    ", {} drawn as {} arrows (narrow the window to see all)",
                    drawn,
                    link_list.len()
                )
            } else {
                String::new()
            }
        );
    }
    o.push_str("</svg>\n");
    out.write_all(o.as_bytes())
}
