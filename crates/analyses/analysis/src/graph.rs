//! Communication graph of processes and its force-directed layout.
//!
//! Nodes are the containers that send or receive messages (links) in the
//! window, depth-first; an undirected edge joins two of them when messages
//! went either way, weighted by their number (messages to oneself are left
//! out). The layout is Fruchterman–Reingold's, made deterministic: nodes
//! start evenly on a circle, every pair repels with `k²/d`, every edge
//! attracts with `w·d²/k` (`w` its weight over the largest weight), moves
//! are bounded by a temperature that cools linearly to 0, and the result is
//! scaled into the unit square.

use std::collections::{BTreeMap, HashMap};

use serde::Serialize;
use trama_sim::{ContainerId, Trace};

use crate::read::{container_name, depth_first_positions, links};
use crate::window::Window;
use crate::Messages;

/// A node of [`Graph`].
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Node {
    /// Container name.
    pub name: String,
    /// Messages it sent or received (to others).
    pub messages: u64,
    /// Position in `[0, 1]`.
    pub x: f64,
    /// Position in `[0, 1]`.
    pub y: f64,
}

/// An edge of [`Graph`], between `nodes[a]` and `nodes[b]` (`a < b`).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Edge {
    /// Index of one end.
    pub a: usize,
    /// Index of the other end.
    pub b: usize,
    /// Messages either way.
    pub messages: u64,
}

/// What [`graph`] computes.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Graph {
    /// The window.
    pub window: Window,
    /// Nodes, depth-first.
    pub nodes: Vec<Node>,
    /// Edges, by their ends.
    pub edges: Vec<Edge>,
}

/// The communication graph over `window`, laid out in `iterations` steps.
pub fn graph(trace: &Trace, window: Window, msgs: &Messages, iterations: usize) -> Graph {
    let mut weight: HashMap<(ContainerId, ContainerId), u64> = HashMap::new();
    for (e, a, b) in links(trace, msgs) {
        if a != b && window.overlaps(e.start, e.end) {
            *weight.entry((a.min(b), a.max(b))).or_default() += 1;
        }
    }
    let pos = depth_first_positions(trace);
    let mut ids: Vec<ContainerId> = weight.keys().flat_map(|(a, b)| [*a, *b]).collect();
    ids.sort_by_key(|c| pos[c]);
    ids.dedup();
    let index: HashMap<ContainerId, usize> = ids.iter().enumerate().map(|(i, c)| (*c, i)).collect();
    let mut edges: Vec<Edge> = weight
        .iter()
        .map(|((a, b), w)| {
            let (x, y) = (index[a], index[b]);
            Edge {
                a: x.min(y),
                b: x.max(y),
                messages: *w,
            }
        })
        .collect();
    edges.sort_by_key(|e| (e.a, e.b));
    let mut messages = vec![0u64; ids.len()];
    for e in &edges {
        messages[e.a] += e.messages;
        messages[e.b] += e.messages;
    }
    let xy = layout(ids.len(), &edges, iterations);
    Graph {
        window,
        nodes: ids
            .iter()
            .enumerate()
            .map(|(i, c)| Node {
                name: container_name(trace, *c),
                messages: messages[i],
                x: xy[i].0,
                y: xy[i].1,
            })
            .collect(),
        edges,
    }
}

/// Each connected component laid out on its own ([`spring`]), then the
/// components packed in a grid, largest first, and the whole stretched to
/// fill the unit square: components pushed apart by repulsion would
/// otherwise leave most of the square empty and crowd their nodes.
fn layout(n: usize, edges: &[Edge], iterations: usize) -> Vec<(f64, f64)> {
    // Components by union–find.
    let mut parent: Vec<usize> = (0..n).collect();
    fn root(parent: &mut [usize], mut i: usize) -> usize {
        while parent[i] != i {
            parent[i] = parent[parent[i]];
            i = parent[i];
        }
        i
    }
    for e in edges {
        let (a, b) = (root(&mut parent, e.a), root(&mut parent, e.b));
        parent[a.max(b)] = a.min(b);
    }
    let mut members: BTreeMap<usize, Vec<usize>> = BTreeMap::new();
    for i in 0..n {
        let r = root(&mut parent, i);
        members.entry(r).or_default().push(i);
    }
    let mut comps: Vec<Vec<usize>> = members.into_values().collect();
    comps.sort_by_key(|c| std::cmp::Reverse(c.len()));
    let cols = (comps.len() as f64).sqrt().ceil().max(1.0) as usize;
    let rows = comps.len().div_ceil(cols).max(1);
    let mut p = vec![(0.0, 0.0); n];
    for (k, comp) in comps.iter().enumerate() {
        let local: HashMap<usize, usize> = comp.iter().enumerate().map(|(i, g)| (*g, i)).collect();
        let sub: Vec<Edge> = edges
            .iter()
            .filter(|e| local.contains_key(&e.a))
            .map(|e| Edge {
                a: local[&e.a],
                b: local[&e.b],
                messages: e.messages,
            })
            .collect();
        let xy = spring(comp.len(), &sub, iterations);
        let (cx, cy) = ((k % cols) as f64, (k / cols) as f64);
        for (i, g) in comp.iter().enumerate() {
            // A margin of a tenth of a cell between components.
            p[*g] = (
                (cx + 0.05 + 0.9 * xy[i].0) / cols as f64,
                (cy + 0.05 + 0.9 * xy[i].1) / rows as f64,
            );
        }
    }
    stretch(&mut p);
    p
}

/// Scales `p` so that its x and y each span [0, 1] (a single point, or
/// points on a line, are centred on the degenerate axis).
fn stretch(p: &mut [(f64, f64)]) {
    let (mut x0, mut y0, mut x1, mut y1) = (f64::MAX, f64::MAX, f64::MIN, f64::MIN);
    for &(x, y) in p.iter() {
        x0 = x0.min(x);
        y0 = y0.min(y);
        x1 = x1.max(x);
        y1 = y1.max(y);
    }
    let fit = |v: f64, lo: f64, hi: f64| {
        if hi - lo > 1e-12 {
            (v - lo) / (hi - lo)
        } else {
            0.5
        }
    };
    for q in p.iter_mut() {
        *q = (fit(q.0, x0, x1), fit(q.1, y0, y1));
    }
}

/// Fruchterman–Reingold in the unit square, deterministic.
fn spring(n: usize, edges: &[Edge], iterations: usize) -> Vec<(f64, f64)> {
    if n == 0 {
        return Vec::new();
    }
    if n == 1 {
        return vec![(0.5, 0.5)];
    }
    let mut p: Vec<(f64, f64)> = (0..n)
        .map(|i| {
            let a = std::f64::consts::TAU * i as f64 / n as f64;
            (0.5 + 0.4 * a.cos(), 0.5 + 0.4 * a.sin())
        })
        .collect();
    let k = (1.0 / n as f64).sqrt();
    let wmax = edges.iter().map(|e| e.messages).max().unwrap_or(1).max(1) as f64;
    let t0 = 0.1;
    let mut disp = vec![(0.0f64, 0.0f64); n];
    for it in 0..iterations {
        let t = t0 * (1.0 - it as f64 / iterations as f64);
        disp.iter_mut().for_each(|d| *d = (0.0, 0.0));
        for i in 0..n {
            for j in (i + 1)..n {
                let (dx, dy) = (p[i].0 - p[j].0, p[i].1 - p[j].1);
                let d = (dx * dx + dy * dy).sqrt().max(1e-9);
                let f = k * k / d;
                let (fx, fy) = (dx / d * f, dy / d * f);
                disp[i].0 += fx;
                disp[i].1 += fy;
                disp[j].0 -= fx;
                disp[j].1 -= fy;
            }
        }
        for e in edges {
            let (i, j) = (e.a, e.b);
            let (dx, dy) = (p[i].0 - p[j].0, p[i].1 - p[j].1);
            let d = (dx * dx + dy * dy).sqrt().max(1e-9);
            let f = (e.messages as f64 / wmax) * d * d / k;
            let (fx, fy) = (dx / d * f, dy / d * f);
            disp[i].0 -= fx;
            disp[i].1 -= fy;
            disp[j].0 += fx;
            disp[j].1 += fy;
        }
        for i in 0..n {
            let (dx, dy) = disp[i];
            let d = (dx * dx + dy * dy).sqrt();
            if d > 0.0 {
                let s = d.min(t) / d;
                p[i].0 += dx * s;
                p[i].1 += dy * s;
            }
        }
    }
    stretch(&mut p);
    p
}
