//! The node/arc view (seed 004) as a picture: one [`NodeFrame`] of
//! `trama-analysis` drawn as SVG, as `trama view`'s player draws it, for
//! `trama render node-view` (one frame, or a recording).
//!
//! Each node is a circle, placed around a circle (up to 24 nodes) or on a
//! grid, with its status indicators inscribed: OpenTS's task counts (or
//! each state value's share of the frame), as bars standing in the
//! inscribed square (style 0) or as sectors of equal angle whose radius
//! grows with the value (style 1; state shares: a pie), each scaled by the highest value a node
//! reaches over the run. Arcs of the chosen kind ([`ArcKind`]) go from
//! sender to receiver, bent so that both directions show, their width
//! growing with the logarithm of what they carry, labelled by it. A panel
//! on the right gives the frame's time and the sums over the nodes.

use std::fmt::Write as _;
use std::io::{self, Write};

use trama_analysis::{pair_totals, ArcKind, Indicators, NodeFrame, NodeStage};
use trama_sim::Trace;

use crate::labels::{label_box, overlaps, short_names};
use crate::svg::esc;

/// One colour per OpenTS task state, in the seed's order (as the page's).
pub const TASK_COLORS: [&str; 7] = [
    "#4c78a8", "#9ecae9", "#f58518", "#54a24b", "#e45756", "#b279a2", "#72b7b2",
];

/// The width of the panel on the right.
const PANEL: f64 = 210.0;

/// Where node `i` of `n` is drawn in a `width` × `height` picture, and
/// the nodes' radius: centre x, centre y, radius (pixels).
pub fn node_place(i: usize, n: usize, width: u32, height: u32) -> (f64, f64, f64) {
    let (w, h) = (width as f64 - PANEL, height as f64 - 30.0);
    let mut r = w.min(h) / (2.6 * (n.max(1) as f64).sqrt() + 1.5);
    let cols = (n as f64 * 1.5).sqrt().ceil();
    let rows = (n as f64 / cols).ceil();
    if (2..=24).contains(&n) {
        // Around a circle: neighbours apart, with room for the arcs.
        r = r.min(0.65 * 0.4 * w.min(h) * (std::f64::consts::PI / n as f64).sin());
    } else if n > 24 {
        // On a grid: a quarter of the step between neighbours left free
        // for the arcs (the step is (w - 2r - 8) / cols).
        let fit = |len: f64, k: f64| 0.375 * (len - 8.0) / (k + 0.75);
        r = r.min(fit(w, cols)).min(fit(h, rows));
    }
    let r = r.clamp(4.0, 56.0);
    let (u, v) = if n <= 24 {
        if n == 1 {
            (0.5, 0.5)
        } else {
            // A circle on the picture, whatever its shape.
            let a = -std::f64::consts::FRAC_PI_2 + std::f64::consts::TAU * i as f64 / n as f64;
            let m = w.min(h);
            (0.5 + 0.4 * m / w * a.cos(), 0.5 + 0.4 * m / h * a.sin())
        }
    } else {
        (
            (0.5 + (i as f64 % cols)) / cols,
            (0.5 + (i as f64 / cols).floor()) / rows,
        )
    };
    (
        r + 4.0 + u * (w - 2.0 * r - 8.0),
        30.0 + r + 4.0 + v * (h - 2.0 * r - 8.0),
        r,
    )
}

/// One status indicator: its label, colour, and value per node.
struct Indicator {
    label: String,
    color: String,
    values: Vec<f64>,
    max: f64,
}

fn indicators(
    trace: &Trace,
    stage: &NodeStage,
    f: &NodeFrame,
    colors: &[String],
) -> Vec<Indicator> {
    match &stage.indicators {
        Indicators::Variables { variables, labels } => variables
            .iter()
            .zip(labels)
            .enumerate()
            .map(|(k, (v, label))| Indicator {
                label: label.clone(),
                // By the state, whatever states the run has.
                color: trama_analysis::TASK_STATES
                    .iter()
                    .position(|s| s == label)
                    .map_or(["#888888", "#bbbbbb", "#555555"][k % 3], |i| TASK_COLORS[i])
                    .to_string(),
                values: f
                    .nodes
                    .iter()
                    .map(|n| n.variables[*v as usize].unwrap_or(0.0))
                    .collect(),
                max: stage
                    .maxima
                    .get(*v as usize)
                    .copied()
                    .unwrap_or(0.0)
                    .max(1e-12),
            })
            .collect(),
        Indicators::States => {
            // The values of the frame, most time first.
            let mut total: std::collections::BTreeMap<u32, f64> = Default::default();
            for n in &f.nodes {
                for (v, s) in &n.shares {
                    *total.entry(*v).or_default() += s;
                }
            }
            let mut order: Vec<(u32, f64)> = total.into_iter().collect();
            order.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
            let labels = trace.model.value_labels();
            order
                .into_iter()
                .take(8)
                .map(|(v, _)| Indicator {
                    label: labels[v as usize].clone(),
                    color: colors[v as usize].clone(),
                    values: f
                        .nodes
                        .iter()
                        .map(|n| n.shares.iter().find(|s| s.0 == v).map_or(0.0, |s| s.1))
                        .collect(),
                    max: 1.0,
                })
                .collect()
        }
    }
}

/// What the view is drawn with.
#[derive(Clone, Debug)]
pub struct NodeStyle<'a> {
    /// The arcs drawn.
    pub arcs: &'a ArcKind,
    /// 0: bars; 1: sectors.
    pub sbars_style: u8,
    /// The frame's number and the frames' count, for the title.
    pub frame: Option<(usize, usize)>,
}

/// How many arcs a picture of `n` nodes draws at most (the heaviest).
fn arc_budget(n: usize) -> usize {
    (2 * n).clamp(48, 300)
}

/// The arcs between nodes of `pairs` (`n` nodes in a `width` × `height`
/// picture), as wide as they carry: only the heaviest ([`arc_budget`]);
/// each labelled by what it carries (in bytes when `bytes`) when there
/// are few nodes and arcs, else in its tooltip.
fn draw_arcs(
    pairs: &[(u32, u32, f64)],
    n: usize,
    (width, height): (u32, u32),
    bytes: bool,
) -> String {
    let mut body = String::new();
    let mut kept: Vec<&(u32, u32, f64)> = pairs.iter().filter(|p| p.0 != p.1).collect();
    kept.sort_by(|a, b| b.2.total_cmp(&a.2));
    kept.truncate(arc_budget(n));
    let tagged = n <= 16 && kept.len() <= 32;
    let (most_w, opacity) = if n > 64 { (1.0, 0.45) } else { (4.0, 0.75) };
    let most = kept.iter().map(|p| p.2).fold(1.0f64, f64::max);
    let mut labels = String::new();
    for &&(a, b, x) in &kept {
        let (x0, y0, r) = node_place(a as usize, n, width, height);
        let (x1, y1, _) = node_place(b as usize, n, width, height);
        let (dx, dy) = (x1 - x0, y1 - y0);
        let d = dx.hypot(dy).max(1.0);
        let (ux, uy) = (dx / d, dy / d);
        let (sx, sy) = (x0 + ux * (r + 2.0), y0 + uy * (r + 2.0));
        let (ex, ey) = (x1 - ux * (r + 4.0), y1 - uy * (r + 4.0));
        let bend = 0.12 * d;
        let (cx, cy) = ((sx + ex) / 2.0 - uy * bend, (sy + ey) / 2.0 + ux * bend);
        let w = 1.0 + most_w * x.ln_1p() / most.ln_1p();
        let text = if bytes { format!("{}B", si(x)) } else { si(x) };
        let _ = write!(
            body,
            r##"<path d="M{sx:.1},{sy:.1} Q{cx:.1},{cy:.1} {ex:.1},{ey:.1}" stroke="#444" stroke-opacity="{opacity}" stroke-width="{w:.2}" fill="none" marker-end="url(#arrow)"><title>{}</title></path>"##,
            esc(&text)
        );
        if !tagged {
            continue;
        }
        let (lx, ly) = (
            0.25 * sx + 0.5 * cx + 0.25 * ex,
            0.25 * sy + 0.5 * cy + 0.25 * ey,
        );
        let tw = 7.0 * text.len() as f64 + 8.0;
        let _ = write!(
            labels,
            r##"<rect x="{:.1}" y="{:.1}" width="{tw}" height="16" rx="4" fill="#fffbe6" stroke="#b59a00"/><text x="{lx:.1}" y="{:.1}" font-size="11" text-anchor="middle">{}</text>"##,
            lx - tw / 2.0,
            ly - 8.0,
            ly + 4.0,
            esc(&text)
        );
    }
    body.push_str(&labels);
    body
}

/// The nodes' names under their circles (`(x, y, r)` each), whole when
/// none overlaps, else shortened ([`short_names`]); a name that would
/// overlap another or a circle is left out. Gives where each goes (`None`:
/// left out), the texts, and what short names leave out.
#[allow(clippy::type_complexity)]
fn place_names(
    names: &[String],
    at: &[(f64, f64, f64)],
) -> (Vec<Option<(f64, f64)>>, Vec<String>, String) {
    // Long names cut (whole in the circles' tooltips).
    let place = |texts: &mut Vec<String>| {
        for t in texts.iter_mut() {
            *t = crate::legend::cut(t, 24);
        }
        let mut taken: Vec<(f64, f64, f64, f64)> = at
            .iter()
            .map(|&(x, y, r)| (x - r, y - r, x + r, y + r))
            .collect();
        let spots: Vec<Option<(f64, f64)>> = texts
            .iter()
            .zip(at)
            .map(|(t, &(x, y, r))| {
                let b = label_box(x, y + r + 12.0, t.chars().count(), "middle");
                if b.0 < 0.0 || taken.iter().any(|o| overlaps(*o, b)) {
                    return None;
                }
                taken.push(b);
                Some((x, y + r + 12.0))
            })
            .collect();
        spots
    };
    let mut whole = names.to_vec();
    let spots = place(&mut whole);
    let (mut short, shared) = short_names(names);
    if spots.iter().all(|p| p.is_some()) || shared.is_empty() {
        return (spots, whole, String::new());
    }
    (place(&mut short), short, shared)
}

/// The nodes in their circles, each with its indicators and name (where
/// it fits). Gives what short names leave out ("" when whole).
fn draw_nodes(
    body: &mut String,
    stage: &NodeStage,
    ind: &[Indicator],
    (width, height): (u32, u32),
    sbars_style: u8,
) -> String {
    let n = stage.nodes.len();
    let at: Vec<(f64, f64, f64)> = (0..n).map(|i| node_place(i, n, width, height)).collect();
    let names: Vec<String> = stage.nodes.iter().map(|nd| nd.name.clone()).collect();
    let (spots, texts, shared) = place_names(&names, &at);
    for (i, node) in stage.nodes.iter().enumerate() {
        let (x, y, r) = at[i];
        let _ = write!(
            body,
            r##"<circle cx="{x:.1}" cy="{y:.1}" r="{r:.1}" fill="#fff" stroke="#555" stroke-width="1.5"><title>{}</title></circle>"##,
            esc(&node.name)
        );
        if r >= 10.0 && !ind.is_empty() {
            let states = matches!(stage.indicators, Indicators::States);
            inscribe(body, ind, i, (x, y, r), sbars_style, states);
        }
        if let Some((tx, ty)) = spots[i] {
            let _ = write!(
                body,
                r##"<text x="{tx:.1}" y="{ty:.1}" font-size="11" text-anchor="middle">{}</text>"##,
                esc(&texts[i])
            );
        }
    }
    shared
}

/// The panel beside the picture: the frame, the sums over the nodes, the
/// legend.
fn draw_panel(
    stage: &NodeStage,
    f: &NodeFrame,
    ind: &[Indicator],
    pairs: &[(u32, u32, f64)],
    style: &NodeStyle<'_>,
    width: u32,
    shared: &str,
) -> String {
    let n = stage.nodes.len();
    let px = width as f64 - PANEL + 8.0;
    let mut panel = String::new();
    let mut y = 48.0;
    let mut line = |panel: &mut String, text: &str, bold: bool, color: Option<&str>| {
        if let Some(c) = color {
            let _ = write!(
                panel,
                r#"<rect x="{px}" y="{:.1}" width="11" height="10" fill="{c}"/>"#,
                y - 9.0
            );
        }
        let _ = write!(
            panel,
            r##"<text x="{:.1}" y="{y:.1}" font-size="11"{}>{}</text>"##,
            px + if color.is_some() { 16.0 } else { 0.0 },
            if bold { r#" font-weight="bold""# } else { "" },
            esc(text)
        );
        y += 15.0;
    };
    line(&mut panel, &format!("all {n} nodes"), true, None);
    let tasks = matches!(stage.indicators, Indicators::Variables { .. });
    for d in ind {
        let total: f64 = d.values.iter().sum();
        let text = if tasks {
            format!("{}: {}", d.label, si(total))
        } else {
            let k = d.values.len().max(1) as f64;
            format!("{}: {:.1} %", d.label, 100.0 * total / k)
        };
        line(&mut panel, &text, false, Some(&d.color));
    }
    let carried: f64 = pairs.iter().map(|p| p.2).sum();
    line(&mut panel, "", false, None);
    line(
        &mut panel,
        &format!("arcs: {}", style.arcs.label),
        true,
        None,
    );
    line(
        &mut panel,
        &format!(
            "{} pairs, {}{}",
            pairs.len(),
            si(carried),
            if style.arcs.bytes { " B" } else { "" }
        ),
        false,
        None,
    );
    let arcs = pairs.iter().filter(|p| p.0 != p.1).count();
    if arcs > arc_budget(n) {
        let text = format!("the {} heaviest drawn", arc_budget(n));
        line(&mut panel, &text, false, None);
    }
    if !shared.is_empty() {
        line(&mut panel, &format!("names: {shared}"), false, None);
    }
    for (name, label) in [
        ("time_tasks", "in tasks"),
        ("time_sched", "scheduler"),
        ("time_mpi", "MPI"),
        ("time_idle", "idle"),
    ] {
        if let Some(v) = stage.variables.iter().position(|x| x == name) {
            let total: f64 = f.nodes.iter().filter_map(|n| n.variables[v]).sum();
            line(
                &mut panel,
                &format!("{label}: {} s", si(total)),
                false,
                None,
            );
        }
    }
    panel
}

/// Draws the node/arc view's frame `f` as a `width` × `height` SVG.
#[allow(clippy::too_many_arguments)]
pub fn draw_node_frame(
    trace: &Trace,
    stage: &NodeStage,
    f: &NodeFrame,
    style: &NodeStyle<'_>,
    colors: &[String],
    width: u32,
    height: u32,
    out: &mut dyn Write,
) -> io::Result<()> {
    let n = stage.nodes.len();
    let ind = indicators(trace, stage, f, colors);
    let pairs = pair_totals(f, style.arcs);
    let mut body = draw_arcs(&pairs, n, (width, height), style.arcs.bytes);
    let shared = draw_nodes(&mut body, stage, &ind, (width, height), style.sbars_style);
    let panel = draw_panel(stage, f, &ind, &pairs, style, width, &shared);
    writeln!(
        out,
        r#"<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" viewBox="0 0 {width} {height}" font-family="DejaVu Sans, Arial, sans-serif">"#
    )?;
    writeln!(
        out,
        r##"<defs><marker id="arrow" viewBox="0 0 10 10" refX="9" refY="5" markerUnits="userSpaceOnUse" markerWidth="{m}" markerHeight="{m}" orient="auto"><path d="M0,0L10,5L0,10z" fill="#444"/></marker></defs><rect width="100%" height="100%" fill="white"/>"##,
        m = if n > 64 { 6 } else { 11 }
    )?;
    let title = match style.frame {
        Some((k, total)) => format!(
            "{:.6} s – {:.6} s · frame {} of {total} · {} {}",
            f.t,
            f.t + f.dt,
            k + 1,
            n,
            stage.level.as_deref().unwrap_or("nodes")
        ),
        None => format!("{:.6} s – {:.6} s · {n} nodes", f.t, f.t + f.dt),
    };
    writeln!(
        out,
        r#"<text x="8" y="18" font-size="13">{}</text>"#,
        esc(&title)
    )?;
    writeln!(
        out,
        r##"<line x1="{0}" x2="{0}" y1="30" y2="{1}" stroke="#ddd"/>"##,
        width as f64 - PANEL,
        height
    )?;
    out.write_all(body.as_bytes())?;
    out.write_all(panel.as_bytes())?;
    writeln!(out, "</svg>")
}

/// The indicators of node `i`, in its circle at (x, y) of radius r.
#[allow(clippy::too_many_arguments)]
fn inscribe(
    body: &mut String,
    ind: &[Indicator],
    i: usize,
    (x, y, r): (f64, f64, f64),
    style: u8,
    states: bool,
) {
    let k = ind.len() as f64;
    if style == 0 {
        let side = r * std::f64::consts::SQRT_2 * 0.92;
        let bw = side / k;
        let (x0, base) = (x - side / 2.0, y + side / 2.0);
        for (j, d) in ind.iter().enumerate() {
            let h = (d.values[i] / d.max).clamp(0.0, 1.0) * side;
            let _ = write!(
                body,
                r#"<rect x="{:.1}" y="{:.1}" width="{:.1}" height="{:.1}" fill="{}"/>"#,
                x0 + j as f64 * bw + 0.5,
                base - h,
                (bw - 1.0).max(1.0),
                h.max(0.5),
                d.color
            );
        }
        let _ = write!(
            body,
            r##"<line x1="{x0:.1}" x2="{:.1}" y1="{base:.1}" y2="{base:.1}" stroke="#999"/>"##,
            x0 + side
        );
    } else if states {
        // States: a pie of the frame's shares.
        let r0 = r - 2.0;
        let p = |a: f64| format!("{:.1},{:.1}", x + r0 * a.cos(), y + r0 * a.sin());
        let mut a0 = -std::f64::consts::FRAC_PI_2;
        for d in ind {
            let share = d.values[i].clamp(0.0, 1.0);
            if share <= 0.0 {
                continue;
            }
            if share >= 0.9999 {
                let _ = write!(
                    body,
                    r#"<circle cx="{x:.1}" cy="{y:.1}" r="{r0:.1}" fill="{}"/>"#,
                    d.color
                );
                continue;
            }
            let a1 = a0 + std::f64::consts::TAU * share;
            let _ = write!(
                body,
                r##"<path d="M{x:.1},{y:.1} L{} A{r0:.1},{r0:.1} 0 {} 1 {} Z" fill="{}" stroke="#fff" stroke-width="0.5"/>"##,
                p(a0),
                u8::from(share > 0.5),
                p(a1),
                d.color
            );
            a0 = a1;
        }
    } else {
        let r0 = r - 2.0;
        for (j, d) in ind.iter().enumerate() {
            let rr = (d.values[i] / d.max).clamp(0.0, 1.0).sqrt() * r0;
            let a0 = -std::f64::consts::FRAC_PI_2 + std::f64::consts::TAU * j as f64 / k;
            let a1 = a0 + std::f64::consts::TAU / k;
            let large = if ind.len() == 1 { 1 } else { 0 };
            let p = |a: f64, q: f64| format!("{:.1},{:.1}", x + q * a.cos(), y + q * a.sin());
            if rr > 0.2 {
                let _ = write!(
                    body,
                    r##"<path d="M{x:.1},{y:.1} L{} A{rr:.1},{rr:.1} 0 {large} 1 {} Z" fill="{}" stroke="#fff" stroke-width="0.5"/>"##,
                    p(a0, rr),
                    p(a1, rr),
                    d.color
                );
            }
            let _ = write!(
                body,
                r##"<path d="M{x:.1},{y:.1} L{} A{r0:.1},{r0:.1} 0 {large} 1 {} Z" fill="none" stroke="#ddd" stroke-width="0.5"/>"##,
                p(a0, r0),
                p(a1, r0)
            );
        }
    }
}

/// A number with an SI suffix, three significant digits.
fn si(x: f64) -> String {
    // An empty sum is -0.
    let x = if x == 0.0 { 0.0 } else { x };
    let a = x.abs();
    for (v, s) in [(1e12, "T"), (1e9, "G"), (1e6, "M"), (1e3, "k")] {
        if a >= v {
            return format!("{}{s}", trim(x / v));
        }
    }
    trim(x)
}

fn trim(x: f64) -> String {
    let s = format!("{x:.3}");
    let s = if s.contains('.') {
        s.trim_end_matches('0').trim_end_matches('.').to_string()
    } else {
        s
    };
    if s.len() > 5 {
        format!("{x:.0}")
    } else {
        s
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Regression: the node/arc picture beyond 16 nodes. 64 nodes: every
    /// name placed (shortened), none over another or over a circle; the
    /// arcs' figures only in their tooltips; at most the heaviest arcs.
    #[test]
    fn node_picture_of_64_nodes_names_every_node_and_no_arc_figure() {
        let n = 64;
        let names: Vec<String> = (0..n)
            .map(|i| format!("Master thread (MPI Rank {i})"))
            .collect();
        let at: Vec<(f64, f64, f64)> = (0..n).map(|i| node_place(i, n, 800, 600)).collect();
        let (spots, texts, shared) = place_names(&names, &at);
        assert_eq!(shared, "Master thread (MPI Rank …)");
        assert!(spots.iter().all(|p| p.is_some()), "every name placed");
        let boxes: Vec<_> = spots
            .iter()
            .zip(&texts)
            .map(|(p, t)| {
                let (x, y) = p.unwrap();
                label_box(x, y, t.chars().count(), "middle")
            })
            .collect();
        for (i, a) in boxes.iter().enumerate() {
            assert_eq!(texts[i], i.to_string());
            for b in &boxes[i + 1..] {
                assert!(!overlaps(*a, *b));
            }
            for &(x, y, r) in &at {
                assert!(!overlaps(*a, (x - r, y - r, x + r, y + r)));
            }
        }
        // Arcs: every pair talks; only the heaviest drawn, no figure boxes.
        let pairs: Vec<(u32, u32, f64)> = (0..n as u32)
            .flat_map(|a| (0..n as u32).map(move |b| (a, b, (a * 7 + b) as f64)))
            .collect();
        let svg = draw_arcs(&pairs, n, (800, 600), false);
        assert_eq!(svg.matches("<path").count(), arc_budget(n));
        assert!(!svg.contains("<rect"), "no figure boxes");
        assert_eq!(svg.matches("<title>").count(), arc_budget(n));
        // The heaviest: the lightest drawn weighs no less than any left out.
        let heaviest = pairs
            .iter()
            .filter(|p| p.0 != p.1)
            .map(|p| p.2)
            .fold(0.0, f64::max);
        assert!(svg.contains(&format!("<title>{}</title>", si(heaviest))));
        // Few nodes and arcs: each labelled, as before.
        let few = draw_arcs(&[(0, 1, 3.0), (1, 2, 5.0)], 6, (800, 600), false);
        assert_eq!(few.matches("<rect").count(), 2);
    }

    /// Regression: beyond 24 nodes the grid's circles touched (64 nodes at
    /// 800 × 600: 51 px wide on a 53 px step), hiding the arcs between
    /// neighbours. A quarter of the step is now left free, at any size.
    #[test]
    fn grid_nodes_leave_room_between_neighbours() {
        for (n, width, height) in [
            (25, 800, 600),
            (64, 800, 600),
            (64, 1600, 900),
            (200, 1280, 800),
            (1000, 1920, 1080),
        ] {
            let at: Vec<(f64, f64, f64)> =
                (0..n).map(|i| node_place(i, n, width, height)).collect();
            for (i, a) in at.iter().enumerate() {
                for b in &at[i + 1..] {
                    let d = ((a.0 - b.0).powi(2) + (a.1 - b.1).powi(2)).sqrt();
                    assert!(
                        d >= 2.0 * a.2 * 1.3,
                        "{n} nodes at {width}x{height}: {a:?} and {b:?}"
                    );
                }
            }
        }
    }
}
