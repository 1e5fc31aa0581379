//! `GET /TOKEN/api/timeline`: what a window shows at a width, as the
//! binary reply specified in `docs/view-api.md` (little-endian,
//! [`trama_lod::trtl`]), or with `encoding=compact` as the same summary
//! in the compact form of an offline page's tiles ([`trama_lod::tile`]).

use std::sync::Arc;

use axum::extract::{Query as Params, State as Extract};
use axum::response::Response;
use trama_lod::{tile, trtl};
use trama_lod::{Query, Row, RowSummary, Summary};

use crate::params::{span, width};
use crate::reply::{bytes, Error};
use crate::state::Shared;

/// Widest window asked for, in pixel columns.
pub(crate) const MAX_WIDTH: u32 = 16384;

/// A window query, checked.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Window {
    pub start: f64,
    pub end: f64,
    pub width: u32,
    /// Indices into the meta's rows; `None`: every row.
    pub rows: Option<Vec<u32>>,
    /// `encoding=compact`: the reply in the tiles' compact form (`TRTC`)
    /// instead of `TRTL`.
    pub compact: bool,
}

/// `rows=` as a list of indices and ranges (`0-40,52`), each below `n`.
pub(crate) fn row_list(text: &str, n: usize) -> Result<Vec<u32>, String> {
    let mut out = Vec::new();
    for part in text.split(',').filter(|p| !p.is_empty()) {
        let (a, b) = part.split_once('-').unwrap_or((part, part));
        let parse = |s: &str| {
            s.parse::<u32>()
                .map_err(|_| format!("rows: {part:?} is not a row index or a range a-b"))
        };
        let (a, b) = (parse(a)?, parse(b)?);
        if a > b || b as usize >= n {
            return Err(format!("rows: {part:?} is not within the {n} rows"));
        }
        if out.len() + (b - a) as usize >= 1 << 20 {
            return Err("rows: too many rows".into());
        }
        out.extend(a..=b);
    }
    Ok(out)
}

impl Window {
    /// The window `params` ask for, over `n` rows.
    pub(crate) fn parse(params: &[(String, String)], n: usize) -> Result<Window, String> {
        let (start, end) = span(params)?;
        let width = width(params, MAX_WIDTH as f64)?;
        let rows = match params.iter().find(|p| p.0 == "rows") {
            Some((_, r)) => Some(row_list(r, n)?),
            None => None,
        };
        let compact = match params.iter().find(|p| p.0 == "encoding") {
            None => false,
            Some((_, e)) if e == "compact" => true,
            Some((_, e)) if e == "plain" => false,
            Some((_, e)) => {
                return Err(format!(
                    "encoding: {e:?} is neither \"compact\" nor \"plain\""
                ))
            }
        };
        Ok(Window {
            start,
            end,
            width,
            rows,
            compact,
        })
    }
}

/// `GET api/timeline?start=T0&end=T1&width=W[&rows=…]`.
pub(crate) async fn get_timeline(
    Extract(shared): Extract<Arc<Shared>>,
    Params(params): Params<Vec<(String, String)>>,
) -> Result<Response, Error> {
    let state = shared.ready()?;
    let w = Window::parse(&params, state.rows.len()).map_err(Error::bad)?;
    let body = shared.work.compute(move || timeline(state, &w)).await?;
    Ok(bytes("application/octet-stream", body))
}

/// `s`, the summary of the rows `asked` of `trace`, in the encoding `w`
/// asks for.
fn encode(trace: &trama_sim::Trace, s: &Summary, asked: &[u32], w: &Window) -> Vec<u8> {
    if w.compact {
        tile::encode(trace, s, asked)
    } else {
        trtl::encode(trace, s, asked, false)
    }
}

/// Summarizes `w` over the rows of `state` (from its pyramid when the
/// window is zoomed out enough, or too wide to replay) and encodes the
/// reply.
pub(crate) fn timeline(state: &'static crate::state::State, w: &Window) -> Result<Vec<u8>, String> {
    let all = &state.rows;
    let asked: Vec<u32> = match &w.rows {
        Some(r) => r.clone(),
        None => (0..all.len() as u32).collect(),
    };
    let coarse = !state.readable(w.start, w.end);
    if let Some(s) = state
        .pyramid
        .answer(w.start, w.end, w.width, &asked, coarse)
    {
        return Ok(encode(state.model, &s, &asked, w));
    }
    let held = state.window(w.start, w.end)?;
    let rows: Vec<Option<Row>> = asked
        .iter()
        .map(|i| held.row(state, all[*i as usize]))
        .collect();
    let present: Vec<Row> = rows.iter().flatten().copied().collect();
    let mut q = Query::default();
    q.window = Some((w.start, w.end));
    q.width = w.width;
    q.link_types = state.link_types.clone();
    let mut s = held.lod().summarize(&present, &q);
    if present.len() < rows.len() {
        // Variables the window does not have: empty rows, in place.
        let mut got = std::mem::take(&mut s.rows).into_iter();
        s.rows = rows
            .iter()
            .zip(&asked)
            .map(|(r, i)| match r {
                Some(_) => got.next().expect("one summary per row present"),
                None => RowSummary::empty(all[*i as usize]),
            })
            .collect();
    }
    Ok(encode(held.trace(), &s, &asked, w))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn p(kv: &[(&str, &str)]) -> Vec<(String, String)> {
        kv.iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect()
    }

    #[test]
    fn bad_windows_are_refused_with_a_reason() {
        let ok = Window::parse(&p(&[("start", "0"), ("end", "1"), ("width", "800")]), 3).unwrap();
        assert_eq!((ok.width, ok.rows), (800, None));
        for (kv, says) in [
            (
                vec![("end", "1"), ("width", "8")],
                "missing parameter start",
            ),
            (
                vec![("start", "x"), ("end", "1"), ("width", "8")],
                "not a finite number",
            ),
            (
                vec![("start", "inf"), ("end", "1"), ("width", "8")],
                "not a finite number",
            ),
            (
                vec![("start", "2"), ("end", "1"), ("width", "8")],
                "inverted",
            ),
            (
                vec![("start", "0"), ("end", "1"), ("width", "-5")],
                "from 1 to",
            ),
            (
                vec![("start", "0"), ("end", "1"), ("width", "1e9")],
                "from 1 to",
            ),
            (
                vec![("start", "0"), ("end", "1"), ("width", "2.5")],
                "from 1 to",
            ),
            (
                vec![
                    ("start", "0"),
                    ("end", "1"),
                    ("width", "8"),
                    ("rows", "0,7"),
                ],
                "within the 3 rows",
            ),
            (
                vec![
                    ("start", "0"),
                    ("end", "1"),
                    ("width", "8"),
                    ("rows", "2-1"),
                ],
                "within",
            ),
            (
                vec![("start", "0"), ("end", "1"), ("width", "8"), ("rows", "a")],
                "not a row index",
            ),
            (
                vec![
                    ("start", "0"),
                    ("end", "1"),
                    ("width", "8"),
                    ("encoding", "zip"),
                ],
                "neither",
            ),
        ] {
            let e = Window::parse(&p(&kv), 3).unwrap_err();
            assert!(e.contains(says), "{kv:?}: {e}");
        }
        let r = Window::parse(
            &p(&[
                ("start", "0"),
                ("end", "1"),
                ("width", "8"),
                ("rows", "0-1,2"),
            ]),
            3,
        );
        assert_eq!(r.unwrap().rows, Some(vec![0, 1, 2]));
    }
}
