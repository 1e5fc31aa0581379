//! What the handlers read of a trace, prepared once: held whole
//! ([`prepare`]) or read by blocks ([`prepare_blocks`], one pass over its
//! stretches); and what the page is told of a trace before its first window
//! ([`describe`]), which the offline page embeds too.

use std::sync::atomic::AtomicU64;

use trama_lod::{gather, pyramid, saved};
use trama_sim::Trace;

use crate::animation::Animation;
use crate::blocks;
use crate::metadata::{meta, Meta};
use crate::options::ViewerOptions;
use crate::state::{Input, State, Store};

/// Marks in `meta` the rows with nothing over the whole run, and says so.
pub(crate) fn idle(pyramid: &pyramid::Pyramid, trace: &Trace, meta: &mut Meta) {
    meta.idle = pyramid.idle_rows(trace);
    if !meta.idle.is_empty() {
        let names: Vec<&str> = meta
            .idle
            .iter()
            .take(5)
            .map(|i| meta.rows[*i as usize].label.as_str())
            .collect();
        let more = meta.idle.len().saturating_sub(names.len());
        meta.notes.push(format!(
            "{} rows with nothing over the whole run are not shown: {}{}",
            meta.idle.len(),
            names.join(", "),
            if more > 0 {
                format!(" and {more} more")
            } else {
                String::new()
            }
        ));
    }
}

/// The seed's order of `rows` (hosts by the messages they put on the
/// network, each followed by its processes), into `meta`.
fn host_order(
    trace: &Trace,
    rows: &[trama_lod::Row],
    level: trama_analysis::HostLevel,
    ordering: Option<&trama_analysis::Ordering>,
    meta: &mut Meta,
) {
    let Some(o) = ordering else { return };
    let ids = trama_style::order_rows(trace, o);
    let ordered = trama_lod::rows(trace, Some(&ids));
    let index: std::collections::HashMap<&trama_lod::Row, u32> = rows
        .iter()
        .enumerate()
        .map(|(i, r)| (r, i as u32))
        .collect();
    meta.host_order = ordered
        .iter()
        .filter_map(|r| index.get(r).copied())
        .collect();
    meta.host_level = Some(level.name);
}

/// What the handlers read of `trace` (leaked: the server answers until the
/// process ends).
pub(crate) fn prepare(trace: Trace, opts: &ViewerOptions) -> State {
    let trace: &'static Trace = Box::leak(Box::new(trace));
    let Described {
        rows,
        meta,
        link_types,
        msgs,
        ordering,
    } = describe(trace, &opts.name);
    let animation = Animation::new(trace, ordering.as_ref(), &msgs, opts, true);
    let lod = trama_lod::Lod::new(trace);
    let pyramid = pyramid::Pyramid::new(&lod, (meta.start, meta.end), &rows, link_types.as_deref());
    let mut meta = meta;
    idle(&pyramid, trace, &mut meta);
    State {
        model: trace,
        rows,
        meta,
        link_types,
        pyramid,
        msgs,
        store: Store::Whole(lod),
        animation,
        why: Default::default(),
    }
}

/// What the page is told of a trace before its first window.
pub(crate) struct Described {
    /// The timeline's rows.
    pub rows: Vec<trama_lod::Row>,
    /// The reply of `api/meta`.
    pub meta: Meta,
    /// The link types drawn (see [`State::link_types`]).
    pub link_types: Option<Vec<trama_sim::TypeId>>,
    /// The link types that are messages.
    pub msgs: trama_analysis::Messages,
    /// The seed's order of hosts and processes, when there is a host level.
    pub ordering: Option<trama_analysis::Ordering>,
}

/// The rows, meta, link types and messages of `trace` (called `name`).
pub(crate) fn describe(trace: &Trace, name: &str) -> Described {
    let rows = trama_lod::rows(trace, None);
    let mut meta = meta(trace, &rows, name);
    let msgs = trama_analysis::Messages::select(trace, &[])
        .unwrap_or_else(|_| trama_analysis::Messages::all());
    let link_types = msgs.drawn(trace);
    meta.notes.extend(msgs.note());
    let mut ordering = None;
    if let Some(level) = trama_analysis::host_level(trace, &msgs) {
        let window = trama_analysis::Window::of(trace);
        ordering = trama_analysis::order(trace, window, &msgs, &level.name);
        host_order(trace, &rows, level, ordering.as_ref(), &mut meta);
    }
    Described {
        rows,
        meta,
        link_types,
        msgs,
        ordering,
    }
}

/// What a viewer reads of the whole trace `blocks`: saved in the cache at
/// `summary` by an earlier view, else stored in the file (a `.ptb`'s
/// summary frame), else gathered by one pass over its stretches
/// ([`trama_convert::summary::gather`]) and saved at `summary`. What
/// does not read back whole and consistent with the file is ignored.
fn summary_of(
    blocks: &blocks::Blocks,
    done: Option<&AtomicU64>,
    summary: Option<&std::path::Path>,
) -> Result<gather::Gathered, String> {
    let (size, events) = (blocks.trace().size(), blocks.trace().events());
    let saved = summary
        .and_then(|p| std::fs::read(p).ok())
        .and_then(|bytes| Some(saved::decode(&bytes, size, events, blocks.model().ok()?)))
        .flatten()
        .or_else(|| {
            let (bytes, size) = blocks.trace().summary()?;
            // The frame's pages read are given back.
            blocks.release();
            saved::decode(&bytes, size, events, blocks.model().ok()?)
        });
    if let Some(g) = saved {
        if let Some(d) = done {
            d.store(
                blocks.frames().len() as u64,
                std::sync::atomic::Ordering::Relaxed,
            );
        }
        return Ok(g);
    }
    let g = trama_convert::summary::gather(blocks.trace(), done)?;
    if let Some(p) = summary {
        let _ = saved::write(p, &saved::encode(&g, size, events));
    }
    Ok(g)
}

/// What the handlers read of a `.ptb` read by blocks ([`summary_of`]).
fn prepare_blocks(
    file: Box<dyn trama_open::Windowed>,
    done: Option<&AtomicU64>,
    summary: Option<&std::path::Path>,
    opts: &ViewerOptions,
) -> Result<State, String> {
    let name = &opts.name;
    use trama_analysis::Messages;
    let blocks = blocks::Blocks::new(file, opts.max_blocks)?;
    let g = summary_of(&blocks, done, summary)?;
    let reference: &'static Trace = Box::leak(Box::new(g.reference));
    let msgs = Messages::from_tally(reference, &g.tally);
    let link_types = msgs.drawn(reference);
    let mut meta = meta(reference, &g.rows, name);
    // Containers' lifetimes (what `meta` saw) and the entities'.
    meta.start = meta.start.min(g.span.0);
    meta.end = meta.end.max(g.span.1);
    meta.counts = g.counts;
    meta.notes.extend(msgs.note());
    let pairs: Vec<_> = g
        .pairs
        .iter()
        .filter(|(k, _)| msgs.counts(k.0))
        .map(|(k, n)| (k.1, k.2, *n))
        .collect();
    let whole_pairs = pairs.clone();
    let mut ends: std::collections::HashSet<trama_sim::ContainerId> =
        pairs.iter().flat_map(|p| [p.0, p.1]).collect();
    let by_messages = !ends.is_empty();
    if !by_messages {
        ends = g.with_states;
    }
    let mut ordering = None;
    if let Some(level) = trama_analysis::host_level_of(reference, &ends, by_messages) {
        let window = trama_analysis::Window {
            start: g.span.0,
            end: g.span.1,
        };
        ordering = trama_analysis::order_of(reference, window, pairs.into_iter(), &level.name);
        host_order(reference, &g.rows, level, ordering.as_ref(), &mut meta);
    }
    let mut animation = Animation::new(reference, ordering.as_ref(), &msgs, opts, false);
    animation.counted(&whole_pairs);
    let pyramid = pyramid::Pyramid::from_base(g.base);
    idle(&pyramid, reference, &mut meta);
    Ok(State {
        model: reference,
        rows: g.rows,
        meta,
        link_types,
        pyramid,
        msgs,
        store: Store::Blocks(Box::new(blocks), g.stretches),
        animation,
        why: Default::default(),
    })
}

/// What the handlers read of `input`.
pub(crate) fn prepare_input(input: Input, opts: &ViewerOptions) -> Result<State, String> {
    match input {
        Input::Whole(trace) => Ok(prepare(trace, opts)),
        Input::Blocks(b) => prepare_blocks(b.trace, Some(&b.done), b.summary.as_deref(), opts),
    }
}
