//! The printed forms of a diff of two runs ([`trama_why::diff`], `trama
//! diff A B`).
//!
//! # Forms (stable, `docs/stats-formats.md`)
//!
//! - CSV: `value,a_seconds,b_seconds,delta_seconds,a_path_seconds,b_path_seconds`
//!   (with [`DiffBy::Container`], `container` first), the rows by
//!   decreasing absolute delta; path columns empty when a run has no
//!   critical path.
//!   With iterations: `iteration,value,a_seconds,b_seconds,delta_seconds`,
//!   per iteration its values by decreasing absolute delta.
//! - JSON: the serde form of [`Diff`].
//! - Table: the summary (lengths, the values and containers that gained
//!   and lost the most, the patterns that grew), then the rows and the
//!   patterns.

use std::io::Write;

use trama_why::{Diff, DiffBy, DiffRow};

use crate::table::{csv_field, num, secs, table};
use crate::{Error, Format};

/// A cell of an optional number: empty when absent.
fn opt(x: Option<f64>) -> String {
    x.map(num).unwrap_or_default()
}

/// Writes `d` in `format`.
pub fn write_diff(d: &Diff, format: Format, out: &mut dyn Write) -> Result<(), Error> {
    match format {
        Format::Json => {
            serde_json::to_writer_pretty(&mut *out, d)?;
            writeln!(out)?;
        }
        Format::Csv if !d.iterations.is_empty() => {
            writeln!(out, "iteration,value,a_seconds,b_seconds,delta_seconds")?;
            for it in &d.iterations {
                for r in &it.rows {
                    let (a, b, delta) = (num(r.a_seconds), num(r.b_seconds), num(r.delta_seconds));
                    let v = csv_field(&r.value);
                    writeln!(out, "{},{v},{a},{b},{delta}", it.iteration)?;
                }
            }
        }
        Format::Csv => {
            let head = "value,a_seconds,b_seconds,delta_seconds,a_path_seconds,b_path_seconds";
            let by_container = d.by == DiffBy::Container;
            writeln!(
                out,
                "{}{head}",
                if by_container { "container," } else { "" }
            )?;
            for r in &d.rows {
                if let Some(c) = r.container.as_deref().filter(|_| by_container) {
                    write!(out, "{},", csv_field(c))?;
                }
                writeln!(
                    out,
                    "{},{},{},{},{},{}",
                    csv_field(&r.value),
                    num(r.a_seconds),
                    num(r.b_seconds),
                    num(r.delta_seconds),
                    opt(r.a_path_seconds),
                    opt(r.b_path_seconds)
                )?;
            }
        }
        Format::Table => write_table(d, out)?,
    }
    Ok(())
}

/// A signed number of seconds for a table.
fn signed(x: f64) -> String {
    format!("{}{}", if x > 0.0 { "+" } else { "" }, secs(x))
}

/// The summary, then the rows and the patterns, as aligned columns.
fn write_table(d: &Diff, out: &mut dyn Write) -> Result<(), Error> {
    let pct = |x: f64, base: f64| {
        if base > 0.0 {
            format!(" ({:+.1} %)", x / base * 100.0)
        } else {
            String::new()
        }
    };
    writeln!(
        out,
        "Run length: A {} s, B {} s, B - A {} s{}",
        secs(d.a.length),
        secs(d.b.length),
        signed(d.delta_length),
        pct(d.delta_length, d.a.length)
    )?;
    let most = |rows: &[DiffRow], gained: bool, name: &dyn Fn(&DiffRow) -> String| {
        let picked: Vec<String> = rows
            .iter()
            .filter(|r| {
                if gained {
                    r.delta_seconds > 0.0
                } else {
                    r.delta_seconds < 0.0
                }
            })
            .take(3)
            .map(|r| format!("{} {} s", name(r), signed(r.delta_seconds)))
            .collect();
        if picked.is_empty() {
            "none".to_string()
        } else {
            picked.join(", ")
        }
    };
    let value = |r: &DiffRow| match &r.container {
        Some(c) => format!("{} on {c}", r.value),
        None => r.value.clone(),
    };
    let container = |r: &DiffRow| r.container.clone().unwrap_or_default();
    writeln!(out, "Gained most: {}", most(&d.rows, true, &value))?;
    writeln!(out, "Lost most: {}", most(&d.rows, false, &value))?;
    if !d.containers.is_empty() {
        writeln!(
            out,
            "Containers that gained most: {}",
            most(&d.containers, true, &container)
        )?;
    }
    let grew: Vec<String> = d
        .patterns
        .iter()
        .filter(|p| p.delta_seconds > 0.0)
        .map(|p| format!("{} {} s", p.pattern, signed(p.delta_seconds)))
        .collect();
    if !grew.is_empty() {
        writeln!(out, "Wait states that grew: {}", grew.join(", "))?;
    }
    for (name, side) in [("A", &d.a), ("B", &d.b)] {
        if let Some(why) = &side.why_not {
            writeln!(out, "{name} has no wait states or critical path: {why}")?;
        }
    }
    writeln!(out)?;
    let by_container = d.by == DiffBy::Container;
    let mut head = vec!["value", "A s", "B s", "B - A", "A path", "B path"];
    if by_container {
        head.insert(0, "container");
    }
    let mut lines = vec![head.into_iter().map(String::from).collect::<Vec<_>>()];
    for r in &d.rows {
        let mut l = vec![
            r.value.clone(),
            secs(r.a_seconds),
            secs(r.b_seconds),
            signed(r.delta_seconds),
            r.a_path_seconds.map(secs).unwrap_or_else(|| "-".into()),
            r.b_path_seconds.map(secs).unwrap_or_else(|| "-".into()),
        ];
        if let Some(c) = r.container.as_ref().filter(|_| by_container) {
            l.insert(0, c.clone());
        }
        lines.push(l);
    }
    table(out, &lines, if by_container { 2 } else { 1 })?;
    if !d.patterns.is_empty() {
        writeln!(out)?;
        let mut lines = vec![["pattern", "A s", "B s", "B - A"]
            .map(String::from)
            .to_vec()];
        for p in &d.patterns {
            lines.push(vec![
                p.pattern.to_string(),
                secs(p.a_seconds),
                secs(p.b_seconds),
                signed(p.delta_seconds),
            ]);
        }
        table(out, &lines, 1)?;
    }
    if d.iteration.as_deref() == Some("auto") && d.iterations.is_empty() {
        writeln!(out)?;
        writeln!(out, "iterations: no state value is entered alike on every container (at least twice, at one level, holding other states and covering half its time); name one with --iteration VALUE")?;
    }
    if !d.iterations.is_empty() {
        writeln!(out)?;
        if let Some(v) = &d.iteration {
            writeln!(out, "iterations marked by {v}")?;
        }
        let head = ["iteration", "A s", "B s", "B - A", "changed most"];
        let mut lines = vec![head.map(String::from).to_vec()];
        for it in &d.iterations {
            let top = it.rows.first().filter(|r| r.delta_seconds != 0.0);
            lines.push(vec![
                it.iteration.to_string(),
                secs(it.a_seconds),
                secs(it.b_seconds),
                signed(it.delta_seconds),
                top.map_or("-".into(), |r| {
                    format!("{} {} s", r.value, signed(r.delta_seconds))
                }),
            ]);
        }
        table(out, &lines, 1)?;
    }
    Ok(())
}

/// Writes the report of runs `a` and `b` (called `names`) compared: one
/// HTML page that opens with no server, both timelines coupled with their
/// difference lane and the diff table (`trama_viewer::offline_compare`).
/// Returns the sentences for the reader (none so far), as
/// [`crate::html_report`] does.
pub fn html_diff_report(
    a: &trama_sim::Trace,
    b: &trama_sim::Trace,
    names: [&str; 2],
    out: &mut dyn Write,
) -> std::io::Result<Vec<String>> {
    let opts = trama_viewer::OfflineOptions::default();
    out.write_all(trama_viewer::offline_compare(a, b, names, None, &opts).as_bytes())?;
    Ok(Vec::new())
}
