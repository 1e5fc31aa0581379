//! The HTML report: a summary of the trace, the explorable timeline of
//! `trama view` (offline, from a summary of bounded size), every view and
//! the time per state, in one self-contained page.

use std::fmt::Write as _;
use std::io::{self, Write};

use trama_analysis::{host_level, time_per_state, Messages, StateStats, Window};
use trama_sim::{Trace, TypeKind};
use trama_viewer::offline::{offline, OfflineOptions, POLICY};
use trama_views::{draw, View, ViewOptions};

use crate::stats::STATE_COLUMNS;
use crate::table::columns;

/// Escapes text for HTML.
fn esc(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
}

/// Writes the report of `trace` (called `name`) as one HTML page: the
/// trace's time span and entity counts, the explorable timeline (the page
/// of `trama view` reading a summary embedded in the file, at most
/// [`trama_viewer::offline::BUDGET`] bytes: it zooms, pans, hovers and
/// searches with no server; hidden when printing), every view over the
/// whole trace (a view that cannot be drawn says why), and the time per
/// state per container (the table of `trama stats states`). The hosts are the containers of type
/// `level`, or of the type [`host_level`] chooses from the trace; without
/// hosts, the Kiviat and mapping views are left out. Returns the sentences
/// for the reader (the page says them too): which hosts were chosen, when
/// they were, and how the timeline's summary was limited, when it was.
///
/// With `other`, a second run and its name, the report compares the two
/// instead ([`crate::html_diff_report`]).
pub fn html_report(
    trace: &Trace,
    name: &str,
    other: Option<(&Trace, String)>,
    level: Option<&str>,
    out: &mut dyn Write,
) -> io::Result<Vec<String>> {
    if let Some((b, name_b)) = other {
        return crate::html_diff_report(trace, b, [name, &name_b], out);
    }
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
    let page = offline(trace, name, &OfflineOptions::default());
    let mut html = String::new();
    let _ = write!(
        html,
        "<!DOCTYPE html><html lang=\"en\"><head><meta charset=\"utf-8\">\
         <meta http-equiv=\"Content-Security-Policy\" content=\"{POLICY}\">\
         <title>trama report: {t}</title>{style}\
         <style>html,body{{height:auto}}body{{font-family:sans-serif;margin:2em;color:#222}}h2{{margin-top:2em}}\
         .report table{{border-collapse:collapse}}.report td,.report th{{padding:2px 10px;text-align:right;border-bottom:1px solid #eee}}\
         .report td:first-child,.report th:first-child,.report .t{{text-align:left}}.view{{overflow-x:auto}}\
         #app{{height:85vh;min-height:420px;border:1px solid #ccc}}\
         @media print{{.explore{{display:none}}}}</style></head><body data-state=\"loading\">\
         <div class=\"report\"><h1>{t}</h1><table>\
         <tr><td>time span</td><td>{s} – {e}</td></tr>\
         <tr><td>containers</td><td>{c}</td></tr>\
         <tr><td>states</td><td>{st}</td></tr><tr><td>events</td><td>{ev}</td></tr>\
         <tr><td>variable values</td><td>{va}</td></tr><tr><td>links</td><td>{li}</td></tr></table>{ch}</div>",
        t = esc(name),
        style = page.style,
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
    if page.body.is_empty() {
        let note = page
            .note
            .as_deref()
            .unwrap_or("the explorable timeline is left out");
        let _ = write!(
            html,
            "<section class=\"explore\"><h2>Timeline</h2><p class=\"note\">{}.</p></section><div class=\"report\">",
            esc(note)
        );
    } else {
        let _ = write!(
            html,
            "<section class=\"explore\"><h2>Timeline</h2><p class=\"note\">Drag to pan, wheel to zoom, \
             hover or click for details: drawn from a summary of the trace that this file holds \
             (<code>trama view</code> reads every entity).{note}</p>{body}</section>\
             <div class=\"report\">",
            note = page
                .note
                .as_deref()
                .map(|n| format!(" Note: {}.", esc(n)))
                .unwrap_or_default(),
            body = page.body,
        );
    }
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
    // Time per state, as `trama stats states` gives it.
    if let Some(s) = time_per_state(trace, w, None) {
        state_table(&s, &mut html);
    }
    html.push_str("<p>Made by trama.</p></div></body></html>\n");
    out.write_all(html.as_bytes())?;
    Ok(chosen.into_iter().chain(page.note).collect())
}

/// Appends the time per state `s` to `html`: the columns and cells of the
/// table of `trama stats states` (text left-aligned, numbers right), then
/// its note on nested totals, if any.
fn state_table(s: &StateStats, html: &mut String) {
    html.push_str("<h2>Time per state</h2><table>");
    for (i, line) in columns(&s.rows, STATE_COLUMNS).iter().enumerate() {
        let tag = if i == 0 { "th" } else { "td" };
        html.push_str("<tr>");
        for (j, cell) in line.iter().enumerate() {
            let class = if j < 3 { " class=\"t\"" } else { "" };
            let _ = write!(html, "<{tag}{class}>{}</{tag}>", esc(cell));
        }
        html.push_str("</tr>");
    }
    html.push_str("</table>");
    if let Some(n) = s.nesting_note() {
        let _ = write!(html, "<p class=\"note\">{}</p>", esc(&n));
    }
}
