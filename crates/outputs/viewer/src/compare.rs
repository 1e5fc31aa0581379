//! Two runs compared (`trama view A B`, `trama report A B`): what the
//! comparison's page is told of them (the reply of `api/diff`, which an
//! offline comparison embeds), and serving them: each run read as
//! `trama-open` decided, on a thread of its own, B's values coloured as
//! A's of the same name.
//!
//! # An offline comparison
//! [`offline_compare`] makes one page that opens with no server: the
//! comparison's page, its script inlined, and in `<script
//! type="application/json" id="trama-compare">` `{"diff": …, "pages": [A,
//! B]}`: the diff's JSON below and each run's offline page
//! ([`crate::offline`], half the budget each, B's values coloured as A's)
//! as HTML text, which the page puts in its frames (`srcdoc`).
//!
//! # The diff's JSON
//! `{"names": [A, B], "iteration": VALUE | null, "diff": …, "windows":
//! {"a": [[start, end], …], "b": […]}}`: `diff` is `trama diff`'s JSON
//! (`trama_why::diff`, `docs/stats-formats.md`), `windows` each run's
//! iterations of `VALUE` (the one found for `auto`; `trama_why::iteration_windows`: the n-th state
//! of the value on every container, from the earliest start to the
//! latest end), empty without one.

use std::sync::Arc;

use serde_json::{json, Value};
use trama_sim::Trace;

use crate::offline::{offline, OfflineOptions, POLICY};
use crate::state::{Pair, Shared, State};

/// The reply of `api/diff` for runs `a` and `b` named `names`, with the
/// iterations of `iteration`.
pub(crate) fn diff_json(
    a: &Trace,
    b: &Trace,
    names: &[String; 2],
    iteration: Option<&str>,
) -> Value {
    let mut opts = trama_why::DiffOptions::default();
    opts.iteration = iteration.map(str::to_string);
    let d = trama_why::diff(a, b, &opts);
    // `auto` is the value the diff found.
    let iteration = d.iteration.as_deref();
    let windows =
        |t: &Trace| iteration.map_or_else(Vec::new, |v| trama_why::iteration_windows(t, v));
    json!({
        "names": names,
        "iteration": iteration,
        "diff": d,
        "windows": {"a": windows(a), "b": windows(b)},
    })
}

/// The colours of `b`'s values made those of `a`'s of the same name
/// (`trama_style::shared_value_colors`): one name, one colour in both runs.
pub(crate) fn share_colors(a: &trama_sim::Model, b: &mut State) {
    let colors = trama_style::shared_value_colors(&[a, &b.model.model]);
    for (v, c) in b.meta.values.iter_mut().zip(&colors[1]) {
        v.color = c.clone();
    }
}

/// The pair served: each run's shared state (loading), their names and
/// the iteration value asked for.
pub(crate) fn pair(
    a: Arc<Shared>,
    b: Arc<Shared>,
    names: [String; 2],
    iteration: Option<String>,
) -> Pair {
    Pair {
        a,
        b,
        names,
        iteration,
        diffs: Default::default(),
    }
}

/// Waits until `a` has its state (or failed): B's colours need A's model.
pub(crate) fn wait_for(a: &Shared) -> Option<&'static State> {
    loop {
        if let Some(s) = a.state.get() {
            return Some(*s);
        }
        if a.failed.get().is_some() {
            return None;
        }
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
}

/// A run's offline page, whole, as HTML text.
fn run_page(trace: &Trace, name: &str, opts: &OfflineOptions) -> String {
    let o = offline(trace, name, opts);
    let body = if o.body.is_empty() {
        format!("<p>{}</p>", o.note.unwrap_or_default().replace('<', "&lt;"))
    } else {
        o.body
    };
    format!(
        "<!doctype html><html><head><meta charset=\"utf-8\">\
         <meta http-equiv=\"Content-Security-Policy\" content=\"{POLICY}\">{}</head>\
         <body>{body}</body></html>",
        o.style
    )
}

/// The page of runs `a` and `b` (named `names`) compared, opening with no
/// server (`trama report A B`): see the module's documentation; each run
/// within half of `opts.budget`, iterations marked by `iteration`.
pub fn offline_compare(
    a: &Trace,
    b: &Trace,
    names: [&str; 2],
    iteration: Option<&str>,
    opts: &OfflineOptions,
) -> String {
    let mut half = opts.clone();
    half.budget /= 2;
    let colors = trama_style::shared_value_colors(&[&a.model, &b.model]);
    let [ca, cb]: [Vec<String>; 2] = colors.try_into().expect("two runs");
    let page = |t: &Trace, name: &str, c: Vec<String>| {
        let mut o = half.clone();
        o.colors = Some(c);
        run_page(t, name, &o)
    };
    let names_owned = [names[0].to_string(), names[1].to_string()];
    let data = json!({
        "diff": diff_json(a, b, &names_owned, iteration),
        "pages": [page(a, names[0], ca), page(b, names[1], cb)],
    });
    let data = serde_json::to_string(&data)
        .expect("JSON of JSON")
        .replace('<', "\\u003c");
    let (markup, style, script) = crate::assets::compare_page();
    format!(
        "<!doctype html><html lang=\"en\"><head><meta charset=\"utf-8\">\
         <meta http-equiv=\"Content-Security-Policy\" content=\"{POLICY}\">\
         <title>trama: {} vs {}</title><style>{style}</style></head>\
         <body data-state=\"loading\">{markup}\
         <script type=\"application/json\" id=\"trama-compare\">{data}</script>\
         <script>{script}</script></body></html>\n",
        html_text(names[0]),
        html_text(names[1])
    )
}

/// `s` as HTML text.
fn html_text(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
}
