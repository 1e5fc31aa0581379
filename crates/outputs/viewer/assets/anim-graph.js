// The graph view: the processes placed by the force-directed layout of the
// run's messages; an edge appears when its first message starts, and is
// drawn red while one is in flight. Many pairs: only the heaviest (by the
// run's messages) are drawn grey, the others summed in the title; the
// processes are named where their labels fit (the prefix all names share
// said once in the title).

import { $, surface } from "./util.js";
import { activity, activityLegend, ACTIVITY } from "./anim-activity.js";
import { heaviest, nameLabels, placeLabels } from "./anim-fit.js";
import { fitLabel } from "./bars.js";

// How many grey edges a graph of n processes draws at most.
const edgeBudget = (n) => Math.max(48, Math.min(400, Math.round(1.5 * n)));

// The pairs that talk ([a, b, first time], a < b), heaviest first (by
// the run's messages between them): {a, b, t, w}; kept on the player for
// its stage.
function byWeight(pl, contacts) {
  const c = pl.graphPairs;
  if (c && c.stage === pl.stage && c.count === contacts.length) return c.sorted;
  const n = pl.stage.layout.length, w = new Map();
  for (const m of pl.stage.whole || []) {
    const key = Math.min(m.from, m.to) * n + Math.max(m.from, m.to);
    w.set(key, (w.get(key) || 0) + (m.count || 0));
  }
  const lay = pl.stage.layout;
  const edges = contacts.filter(([a, b]) => lay[a] && lay[b]).map(([a, b, t]) => ({ a, b, t, w: w.get(a * n + b) || 0 }));
  const sorted = heaviest(edges, edges.length).kept;
  pl.graphPairs = { stage: pl.stage, count: contacts.length, sorted };
  return sorted;
}

// Where the graph of canvas W × H puts process p: [x, y], or null (not laid
// out); its dots' radius.
export function graphPlaces(stage, W, H) {
  const lay = stage.layout || [];
  const n = lay.filter((p) => p).length;
  const dot = n > 400 ? 2 : n > 100 ? 3 : 4;
  const top = 18, bottom = 16;
  const h = H - top - bottom - 2 * dot;
  // Not stretched wider than twice its height: labels beside the dots.
  const w = Math.min(W - 2 * dot - 4, Math.max(2 * h, 60));
  const left = (W - w) / 2;
  const at = (p) => (lay[p] ? [left + lay[p][0] * w, top + dot + lay[p][1] * h] : null);
  return { at, dot };
}

// Draws frame `f` of the graph; gives how many pairs have talked so far.
// Leaves on the player what it drew (`pl.graph`): the names labelled, the
// edges drawn and of how many.
export function drawGraph(pl, f) {
  const { ctx, W, H } = surface($("p-graph"));
  ctx.fillStyle = "#333";
  const lay = pl.stage.layout;
  pl.graph = null;
  if (!lay || !lay.some((p) => p)) {
    ctx.fillText("graph: no layout (no messages, or the trace is read by blocks)", 4, 12);
    return null;
  }
  const t1 = f.t + f.dt;
  const contacts = pl.stage.contacts || [];
  const { at, dot } = graphPlaces(pl.stage, W, H);
  const n = lay.length;
  const flying = new Set(f.cells.map((c) => Math.min(c.from, c.to) * n + Math.max(c.from, c.to)));
  // The heaviest pairs in grey; those in flight in red (the heaviest of
  // them too), whatever their weight. Pairs sorted once per stage.
  const sorted = byWeight(pl, contacts);
  const budget = edgeBudget(n);
  const kept = [], hot = [], rest = { n: 0, w: 0 };
  let known = 0;
  for (const c of contacts) if (c[2] <= t1) known++;
  for (const e of sorted) {
    if (e.t > t1) continue;
    if (flying.has(e.a * n + e.b) && hot.length < budget) hot.push(e);
    else if (kept.length < budget) kept.push(e);
    else { rest.n++; rest.w += e.w; }
  }
  const top = Math.max(1, ...kept.map((e) => e.w));
  for (const e of kept) {
    ctx.strokeStyle = `rgba(120,120,130,${(0.25 + 0.5 * Math.log1p(e.w) / Math.log1p(top)).toFixed(2)})`;
    ctx.lineWidth = 1;
    line(ctx, at(e.a), at(e.b));
  }
  ctx.strokeStyle = "#d62728";
  ctx.lineWidth = 2;
  for (const e of hot) line(ctx, at(e.a), at(e.b));
  ctx.lineWidth = 1;
  const act = activity(pl.stage, f);
  lay.forEach((p, i) => {
    if (!p) return;
    const [x, y] = at(i);
    ctx.fillStyle = ACTIVITY[act[i]];
    ctx.beginPath(); ctx.arc(x, y, dot, 0, 2 * Math.PI); ctx.fill();
  });
  const labelled = drawNames(pl, ctx, at, dot, W, H);
  ctx.fillStyle = "#333";
  let title = `graph: ${known} of ${contacts.length} pairs have talked`;
  if (rest.n) title += `; the ${kept.length} heaviest drawn (${rest.n} others, ${rest.w} messages)`;
  if (labelled.shared) title += ` · names: ${labelled.shared}`;
  // Cut to the canvas's width (whole on hover).
  ctx.fillText(fitLabel(title, W - 8, (t) => ctx.measureText(t).width) ?? "", 4, 12);
  $("p-graph").title = title;
  activityLegend(ctx, H);
  pl.graph = { labels: labelled.names, drawn: kept.length + hot.length, of: known };
  return known;
}

function line(ctx, [x0, y0], [x1, y1]) {
  ctx.beginPath(); ctx.moveTo(x0, y0); ctx.lineTo(x1, y1); ctx.stroke();
}

// The processes' names beside their dots where they fit, the busiest
// first; shortened when whole ones do not all fit. Gives {shared, names}
// (what short names leave out; the full names of those labelled). Placed
// once per stage and canvas size.
function drawNames(pl, ctx, at, dot, W, H) {
  const P = pl.stage.processes;
  const c = pl.graphNames;
  let order, got;
  if (c && c.stage === pl.stage && c.W === W && c.H === H) ({ order, got } = c);
  else {
    const busy = new Map();
    for (const m of pl.stage.whole || []) {
      busy.set(m.from, (busy.get(m.from) || 0) + m.count);
      busy.set(m.to, (busy.get(m.to) || 0) + m.count);
    }
    order = P.map((_, i) => i).filter((i) => at(i)).sort((a, b) => (busy.get(b) || 0) - (busy.get(a) || 0) || a - b);
    ctx.font = "10px DejaVu Sans, Arial, sans-serif";
    const place = (widths) => placeLabels(order.map((i, k) => { const [x, y] = at(i); return { x, y, r: dot, w: widths[k] + 1, h: 10 }; }), W, H - 14, 16);
    got = nameLabels(order.map((i) => P[i].name), (t) => ctx.measureText(t).width, place);
    pl.graphNames = { stage: pl.stage, W, H, order, got };
  }
  ctx.font = "10px DejaVu Sans, Arial, sans-serif";
  const names = [];
  ctx.fillStyle = "#333";
  got.at.forEach((s, k) => {
    if (!s) return;
    ctx.fillText(got.text[k], s[0], s[1] + 8);
    names.push(P[order[k]].name);
  });
  ctx.font = "11px DejaVu Sans, Arial, sans-serif";
  return { shared: got.shared, names };
}

// The process whose dot is nearest (x, y) in the graph on canvas W × H,
// within a few pixels; else -1.
export function graphHit(stage, W, H, x, y) {
  const { at, dot } = graphPlaces(stage, W, H);
  let best = -1, d = dot + 4;
  (stage.layout || []).forEach((p, i) => {
    if (!p) return;
    const [px, py] = at(i);
    const e = Math.hypot(px - x, py - y);
    if (e < d) { d = e; best = i; }
  });
  return best;
}
