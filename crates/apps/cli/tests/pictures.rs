//! Pictures that are right: the graph fills its drawing without labels
//! over one another, the wait matrix's total has its own scale, the
//! mapping shows every process, the Kiviat chart says which polygon is
//! which instant, and an empty view says why it is empty.

mod common;

use std::path::Path;

use common::{mpi_runs, shared_dir, trama, write_in};

/// Renders `view` of `trace` to SVG (with `extra` options); the SVG.
fn render(view: &str, trace: &Path, extra: &[&str]) -> String {
    let dir = trace.parent().unwrap();
    let out = dir.join(format!("{view}.svg"));
    let mut args = vec![
        "render",
        view,
        trace.to_str().unwrap(),
        "-o",
        out.to_str().unwrap(),
    ];
    args.extend(extra);
    let o = trama(&args);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    std::fs::read_to_string(out).unwrap()
}

/// The value of attribute `name` in the tag starting at `tag`.
fn attr(tag: &str, name: &str) -> Option<f64> {
    let tag = format!(" {tag}");
    let at = tag.find(&format!(" {name}=\""))? + name.len() + 3;
    tag[at..].split('"').next()?.parse().ok()
}

/// The tags `<NAME …>` of `svg`, each with the text up to its closing `<`.
fn tags<'a>(svg: &'a str, name: &str) -> Vec<(&'a str, &'a str)> {
    svg.split(&format!("<{name} "))
        .skip(1)
        .map(|t| {
            let end = t.find('>').unwrap();
            let body = &t[end + 1..];
            (&t[..end], &body[..body.find('<').unwrap_or(body.len())])
        })
        .collect()
}

/// The event definitions of the traces of links and states below:
/// container type (0), link type (1), container (2), link start (3) and
/// end (4), state type (5), state set (6).
const LINKS_AND_STATES: &str = "%EventDef PajeDefineContainerType 0\n% Alias string\n% Type string\n% Name string\n%EndEventDef\n\
         %EventDef PajeDefineLinkType 1\n% Alias string\n% Type string\n% StartContainerType string\n% EndContainerType string\n% Name string\n%EndEventDef\n\
         %EventDef PajeCreateContainer 2\n% Time date\n% Alias string\n% Type string\n% Container string\n% Name string\n%EndEventDef\n\
         %EventDef PajeStartLink 3\n% Time date\n% Type string\n% Container string\n% StartContainer string\n% Value string\n% Key string\n%EndEventDef\n\
         %EventDef PajeEndLink 4\n% Time date\n% Type string\n% Container string\n% EndContainer string\n% Value string\n% Key string\n%EndEventDef\n\
         %EventDef PajeDefineStateType 5\n% Alias string\n% Type string\n% Name string\n%EndEventDef\n\
         %EventDef PajeSetState 6\n% Time date\n% Type string\n% Container string\n% Value string\n%EndEventDef\n";

/// A trace of two separate groups of processes with long names, each
/// group talking within itself; with `waits`, each receiver is in state
/// `wait` for the last 0.4 s of each message it receives, else `compute`.
fn two_groups(dir: &Path, waits: bool) -> std::path::PathBuf {
    let mut t = format!("{LINKS_AND_STATES}0 P 0 Process\n1 L 0 P P Message\n5 S P State\n");
    for i in 0..12 {
        t.push_str(&format!("2 0 p{i} P 0 solver-process-{i}\n"));
        if waits {
            t.push_str(&format!("6 0 S p{i} compute\n"));
        }
    }
    // (time, order at equal times, line)
    let mut events: Vec<(f64, u32, String)> = Vec::new();
    let mut key = 0;
    for round in 0..5 {
        for g in [0, 6] {
            for i in 0..6 {
                let (a, b) = (g + i, g + (i + 1 + round % 3) % 6);
                let t0 = round as f64 + (g + i) as f64 * 0.01;
                let t1 = t0 + 0.5;
                events.push((t0, 1, format!("3 {t0} L 0 p{a} m k{key}")));
                events.push((t1, 1, format!("4 {t1} L 0 p{b} m k{key}")));
                if waits {
                    events.push((t1 - 0.4, 0, format!("6 {} S p{b} wait", t1 - 0.4)));
                    events.push((t1, 2, format!("6 {t1} S p{b} compute")));
                }
                key += 1;
            }
        }
    }
    events.sort_by(|a, b| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1)));
    for (_, _, l) in events {
        t.push_str(&l);
        t.push('\n');
    }
    write_in(dir, "groups.paje", t)
}

#[test]
fn the_graph_fills_its_drawing_and_no_labels_overlap() {
    let tmp = tempfile::tempdir().unwrap();
    let svg = render("graph", &two_groups(tmp.path(), false), &[]);
    let root = tags(&svg, "svg")[0].0;
    let (w, h) = (attr(root, "width").unwrap(), attr(root, "height").unwrap());
    let nodes: Vec<(f64, f64)> = tags(&svg, "circle")
        .iter()
        .map(|(t, _)| (attr(t, "cx").unwrap(), attr(t, "cy").unwrap()))
        .collect();
    assert_eq!(nodes.len(), 12);
    let (x0, x1) = nodes
        .iter()
        .fold((f64::MAX, f64::MIN), |a, p| (a.0.min(p.0), a.1.max(p.0)));
    let (y0, y1) = nodes
        .iter()
        .fold((f64::MAX, f64::MIN), |a, p| (a.0.min(p.1), a.1.max(p.1)));
    let cover = (x1 - x0) * (y1 - y0) / (w * h);
    assert!(
        cover >= 0.7,
        "the layout covers {:.0} % of the drawing",
        100.0 * cover
    );
    // Label boxes at 11 px: 6.6 px a character, 12 px high.
    let labels: Vec<(f64, f64, f64, f64)> = tags(&svg, "text")
        .iter()
        .filter(|(_, text)| text.starts_with("solver-process-"))
        .map(|(t, text)| {
            let (x, y) = (attr(t, "x").unwrap(), attr(t, "y").unwrap());
            let wd = 6.6 * text.chars().count() as f64;
            let x = match t.contains("text-anchor=\"end\"") {
                true => x - wd,
                false if t.contains("text-anchor=\"middle\"") => x - wd / 2.0,
                false => x,
            };
            (x, y - 10.0, x + wd, y + 2.0)
        })
        .collect();
    let hidden = svg.contains("labels left out");
    assert!(
        labels.len() == 12 || hidden,
        "{} labels, none said left out",
        labels.len()
    );
    for (i, a) in labels.iter().enumerate() {
        for b in &labels[i + 1..] {
            let overlap = a.0 < b.2 && b.0 < a.2 && a.1 < b.3 && b.1 < a.3;
            assert!(!overlap, "labels overlap: {a:?} {b:?}");
        }
    }
}

#[test]
fn an_empty_view_says_why() {
    let Some(shared) = shared_dir() else { return };
    let tmp = tempfile::tempdir().unwrap();
    let mw = tmp.path().join("mw.paje");
    std::fs::copy(
        shared.join("samples/paje-real/simgrid/pajengr-simgrid-3.20.90-masterworkers.trace"),
        &mw,
    )
    .unwrap();
    for view in ["graph", "traffic-matrix"] {
        let svg = render(view, &mw, &[]);
        assert!(
            svg.contains("No messages: the trace&apos;s 46 links all last 0 s")
                || svg.contains("No messages: the trace's 46 links all last 0 s"),
            "{view}: {svg}"
        );
    }
    // Every actor is on the mapping, though none sends a message.
    let svg = render("mapping", &mw, &["--level", "HOST"]);
    for actor in [
        "master-1", "worker-2", "worker-3", "worker-4", "worker-5", "worker-6",
    ] {
        assert!(svg.contains(&format!(">{actor}<")), "{actor} missing");
    }
}

#[test]
fn the_wait_total_has_a_scale_of_its_own() {
    let tmp = tempfile::tempdir().unwrap();
    let svg = render("wait-matrix", &two_groups(tmp.path(), true), &[]);
    assert!(svg.contains("total: "), "no scale for the totals");
    // Each scale reaches its top: the partner cells are not all drawn at
    // the bottom of a scale the totals stretch.
    let top = "#fde725";
    let (mut partner, mut total) = (false, false);
    for cell in svg.split("<rect ").skip(1) {
        let cell = &cell[..cell.find("</rect>").unwrap_or(cell.len())];
        let Some(title) = cell.split("<title>").nth(1) else {
            continue;
        };
        if cell.contains(&format!("fill=\"{top}\"")) {
            if title.contains("→ total:") {
                total = true;
            } else {
                partner = true;
            }
        }
    }
    assert!(
        partner && total,
        "top colour: partners {partner}, totals {total}"
    );
}

/// Regression: the wait matrix's picture (and the report, which draws it)
/// attributed waiting states to the last message received, while `stats
/// wait` gives the wait states of the MPI calls: the picture now shows
/// the numbers of `stats wait`, cell by cell, and says how they were made.
#[test]
fn the_wait_matrix_picture_shows_the_numbers_of_stats_wait() {
    let tmp = tempfile::tempdir().unwrap();
    let (runs, _) = mpi_runs(tmp.path(), "4", "2", "3", false);
    let trace = runs.join("waits.paje");
    let svg = render("wait-matrix", &trace, &[]);
    let o = trama(&["stats", "wait", trace.to_str().unwrap(), "--format", "json"]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let m: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(m["method"], "wait_states");
    assert!(svg.contains("Waiting from the wait states of the MPI calls"));
    let senders = m["senders"].as_array().unwrap();
    let mut waited = 0;
    for row in m["rows"].as_array().unwrap() {
        let who = row["container"].as_str().unwrap();
        for (s, share) in senders.iter().zip(row["share_of_time"].as_array().unwrap()) {
            let cell = format!(
                "<title>{who} → {}: {:.1}%</title>",
                s.as_str().unwrap(),
                100.0 * share.as_f64().unwrap()
            );
            assert!(svg.contains(&cell), "{cell} not in the picture");
            waited += usize::from(share.as_f64().unwrap() > 0.01);
        }
    }
    assert!(waited >= 3, "{waited} cells of waiting over 1 %");
}

#[test]
fn the_kiviat_chart_names_each_instant() {
    let tmp = tempfile::tempdir().unwrap();
    let trace = two_groups(tmp.path(), false);
    let svg = render("kiviat", &trace, &["--level", "Process"]);
    let paths = tags(&svg, "path").len();
    let legend = tags(&svg, "text")
        .iter()
        .filter(|(_, t)| t.starts_with("t = "))
        .count();
    assert!(
        paths > 1 && legend == paths,
        "{paths} polygons, {legend} in the legend"
    );
}

#[test]
fn animations_are_recorded_with_the_frames_asked_for() {
    let dir = tempfile::tempdir().unwrap();
    let ring = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../examples/ring.paje");
    let gif = dir.path().join("ring.gif");
    let o = trama(&[
        "render",
        "traffic-animation",
        ring.to_str().unwrap(),
        "-o",
        gif.to_str().unwrap(),
        "--frames",
        "12",
        "--fps",
        "4",
        "--window",
        "0.5:1.5",
    ]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let bytes = std::fs::read(&gif).unwrap();
    let mut d = gif::DecodeOptions::new().read_info(&bytes[..]).unwrap();
    assert_eq!((d.width(), d.height()), (800, 600));
    let mut delays = Vec::new();
    while let Some(f) = d.read_next_frame().unwrap() {
        delays.push(f.delay);
    }
    // 12 frames, a quarter of a second each (4 a second).
    assert_eq!(delays, vec![25; 12]);
    // A still view cannot be recorded, and says so; nothing is written.
    let still = dir.path().join("still.gif");
    let o = trama(&[
        "render",
        "kiviat",
        ring.to_str().unwrap(),
        "-o",
        still.to_str().unwrap(),
    ]);
    assert!(!o.status.success());
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains("kiviat is a still picture"), "{err}");
    assert!(!still.exists());
}

/// Ranks `rank-0` … `rank-15` on one node, created in that order, each in
/// state `compute` then sending a message to the next one.
fn sixteen_ranks(dir: &Path) -> std::path::PathBuf {
    let mut t = format!(
        "{LINKS_AND_STATES}0 N 0 Node\n0 P N Process\n1 L 0 P P Message\n5 S P State\n2 0 n N 0 node\n"
    );
    for i in 0..16 {
        t.push_str(&format!("2 0 p{i} P n rank-{i}\n6 0 S p{i} compute\n"));
    }
    for i in 0..16 {
        let t0 = 1.0 + i as f64 * 0.1;
        t.push_str(&format!(
            "3 {t0} L 0 p{i} m k{i}\n4 {} L 0 p{} m k{i}\n",
            t0 + 0.05,
            (i + 1) % 16
        ));
    }
    write_in(dir, "ranks.paje", t)
}

/// The numbers of the names `rank-N` in `text`, in their order there.
fn rank_numbers(text: &str) -> Vec<u32> {
    text.split("rank-")
        .skip(1)
        .filter_map(|s| {
            let n: String = s.chars().take_while(char::is_ascii_digit).collect();
            n.parse().ok()
        })
        .collect()
}

/// Regression: names sorted as text put rank-10 … rank-15 before rank-2
/// in the space-time view, the matrices and the statistics; numbers inside
/// names are ordered by value.
#[test]
fn names_order_numbers_inside_by_value() {
    let dir = tempfile::tempdir().unwrap();
    let trace = sixteen_ranks(dir.path());
    let ordered: Vec<u32> = (0..16).collect();
    // The space-time rows (their labels, top to bottom).
    let svg = render("space-time", &trace, &[]);
    let labels: Vec<u32> = tags(&svg, "text")
        .into_iter()
        .flat_map(|(_, text)| rank_numbers(&format!("{text} ")))
        .collect();
    assert_eq!(labels[..16], ordered[..], "{labels:?}");
    // The traffic matrix's rows (and columns).
    let svg = render("traffic-matrix", &trace, &["--level", "Process"]);
    let labels = rank_numbers(&svg);
    assert_eq!(labels[..16], ordered[..], "{labels:?}");
    // The statistics' rows.
    let out = trama(&[
        "stats",
        "states",
        trace.to_str().unwrap(),
        "--format",
        "csv",
    ]);
    let csv = String::from_utf8_lossy(&out.stdout);
    assert_eq!(rank_numbers(&csv), ordered, "{csv}");
    let out = trama(&["stats", "comm", trace.to_str().unwrap(), "--format", "csv"]);
    let csv = String::from_utf8_lossy(&out.stdout);
    let senders: Vec<u32> = csv
        .lines()
        .skip(1)
        .flat_map(|l| rank_numbers(l).into_iter().take(1))
        .collect();
    assert_eq!(senders, ordered, "{csv}");
}

/// Regression: the process view drew a bar and a label for each of 64
/// partners in about 300 pixels; it draws the largest ones and adds the
/// others up in one bar.
#[test]
fn the_process_view_shows_the_largest_partners_and_the_others() {
    let dir = tempfile::tempdir().unwrap();
    let mut t = format!("{LINKS_AND_STATES}0 P 0 Process\n1 L 0 P P Message\n5 S P State\n");
    for i in 0..=64 {
        t.push_str(&format!("2 0 p{i} P 0 worker-{i}\n"));
    }
    t.push_str("6 0 S p0 compute\n");
    // Partner i's message arrives at i + 1 after p0 waited i ms for it.
    let mut total = 0.0;
    for i in 1..=64 {
        let end = i as f64 + 1.0;
        let wait = i as f64 * 1e-3;
        total += wait;
        t.push_str(&format!(
            "3 {} L 0 p{i} m k{i}\n6 {} S p0 wait\n4 {end} L 0 p0 m k{i}\n6 {end} S p0 compute\n",
            end - 0.5,
            end - wait
        ));
    }
    let trace = write_in(dir.path(), "partners.paje", t);
    let svg = render("process", &trace, &["--process", "worker-0"]);
    let bars: Vec<(&str, &str)> = tags(&svg, "rect")
        .into_iter()
        .filter(|(tag, _)| tag.contains("fill=\"#e15759\""))
        .collect();
    assert_eq!(bars.len(), 16, "15 partners and the others: {svg}");
    // The largest first, then the others added up.
    assert!(svg.contains("<title>worker-64</title>"), "{svg}");
    assert!(!svg.contains("<title>worker-1</title>"), "{svg}");
    let shown: f64 = (50..=64).map(|i| i as f64 * 1e-3).sum();
    assert!(svg.contains("<title>others (49)</title>"), "{svg}");
    assert!(
        svg.contains(&format!(">{:.6}</text>", total - shown)),
        "the others' sum, {}: {svg}",
        total - shown
    );
}
