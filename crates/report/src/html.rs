//! The HTML report: a summary of the trace, every view and the time per
//! state, in one self-contained page.

use std::fmt::Write as _;
use std::io::{self, Write};

use trama_analysis::{host_level, time_per_state, Messages, Window};
use trama_sim::{Trace, TypeKind};
use trama_views::{draw, View, ViewOptions};

/// Escapes text for HTML.
fn esc(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
}

/// Writes the report of `trace` (called `name`) as one HTML page: the
/// trace's time span and entity counts, every view over the whole trace
/// (a view that cannot be drawn says why), and the time per state rolled
/// up to the hosts. The hosts are the containers of type `level`, or of
/// the type [`host_level`] chooses from the trace; without hosts, the
/// Kiviat and mapping views are left out. Returns the sentence that tells
/// the reader which hosts were chosen, when they were (the page says it
/// too).
pub fn html_report(
    trace: &Trace,
    name: &str,
    level: Option<&str>,
    out: &mut dyn Write,
) -> io::Result<Option<String>> {
    let m = &trace.model;
    let w = Window::of(trace);
    let (level, chosen) = match level {
        Some(l) => (Some(l.to_string()), None),
        None => match host_level(trace, &Messages::select(trace, &[]).unwrap_or_default()) {
            Some(h) => (Some(h.name.clone()), Some(h.note())),
            None => (
                None,
                Some("no hosts: no container type lies above the containers that exchange messages or hold states (--level NAME names one); the Kiviat and mapping views are left out".to_string()),
            ),
        },
    };
    let mut counts = [0usize; 5];
    for (l, info) in m.lists.iter().enumerate() {
        let i = match info.kind {
            TypeKind::State => 0,
            TypeKind::Event => 1,
            TypeKind::Variable => 2,
            TypeKind::Link => 3,
            TypeKind::Container => 4,
        };
        counts[i] += trace.lists[l].len();
    }
    let mut html = String::new();
    let _ = write!(
        html,
        "<!DOCTYPE html><html lang=\"en\"><head><meta charset=\"utf-8\"><title>trama report: {t}</title>\
         <style>body{{font-family:sans-serif;margin:2em;color:#222}}h2{{margin-top:2em}}\
         table{{border-collapse:collapse}}td,th{{padding:2px 10px;text-align:right;border-bottom:1px solid #eee}}\
         td:first-child,th:first-child{{text-align:left}}.view{{overflow-x:auto}}</style></head><body>\
         <h1>{t}</h1><table>\
         <tr><td>time span</td><td>{s} – {e}</td></tr>\
         <tr><td>containers</td><td>{c}</td></tr>\
         <tr><td>states</td><td>{st}</td></tr><tr><td>events</td><td>{ev}</td></tr>\
         <tr><td>variable values</td><td>{va}</td></tr><tr><td>links</td><td>{li}</td></tr></table>{ch}",
        t = esc(name),
        s = w.start,
        e = w.end,
        c = m.containers.len() - 1,
        st = counts[0],
        ev = counts[1],
        va = counts[2],
        li = counts[3],
        ch = chosen
            .as_deref()
            .map(|c| format!("<p class=\"note\">{}</p>", esc(c)))
            .unwrap_or_default(),
    );
    let mut opts = ViewOptions::default();
    opts.width = 1600;
    opts.level = level.clone();
    let views = [
        (View::SpaceTime, "Space-time view"),
        (View::TrafficMatrix, "Messages between processes"),
        (View::WaitMatrix, "Who waited for whom"),
        (View::Graph, "Communication graph"),
        (View::Kiviat, "Network share per host"),
        (View::Mapping, "Processes by host"),
        (View::Process, "One process in detail"),
    ];
    for (view, title) in views {
        if matches!(view, View::Kiviat | View::Mapping) && level.is_none() {
            continue;
        }
        let mut svg = Vec::new();
        match draw(trace, view, w, &opts, &mut svg) {
            Ok(msgs) => {
                let note = match (view, msgs.note()) {
                    (View::SpaceTime, _) | (_, None) => String::new(),
                    (_, Some(n)) => format!("<p class=\"note\">{}</p>", esc(&n)),
                };
                let _ = write!(
                    html,
                    "<h2>{title}</h2>{note}<div class=\"view\">{}</div>",
                    String::from_utf8_lossy(&svg)
                );
            }
            Err(e) => {
                let _ = write!(
                    html,
                    "<h2>{title}</h2><p>Not drawn: {}</p>",
                    esc(&e.to_string())
                );
            }
        }
    }
    // Time per state, rolled up to the host level when there is one.
    if let Some(s) = time_per_state(trace, w, level.as_deref()) {
        html.push_str("<h2>Time per state</h2><table><tr><th>container</th><th>state</th><th>value</th><th>count</th><th>exclusive (s)</th><th>share</th></tr>");
        for r in &s.rows {
            let _ = write!(
                html,
                "<tr><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{:.6}</td><td>{:.1} %</td></tr>",
                esc(&r.container),
                esc(&r.state_type),
                esc(&r.value),
                r.count,
                r.exclusive,
                100.0 * r.share
            );
        }
        html.push_str("</table>");
    }
    html.push_str("<p>Made by trama.</p></body></html>\n");
    out.write_all(html.as_bytes())?;
    Ok(chosen)
}
