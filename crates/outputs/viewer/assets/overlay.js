// The why overlay of the timeline (api/why/overlay): wait states hatched
// over the states they occur in, one colour and hatch direction per
// pattern, and the critical path as a line through the rows (a segment on
// its process's row, a vertical jump where it moves to another process).
// The server merges what is narrower than a pixel column, and the page
// sums marks of many instances per few pixels by column into a strip at
// the row's top (thinWaits), so that the whole run reads; an offline
// report holds the whole run's overlay once, and `overlayIn` keeps what a
// window shows of it.

import { ROW_H, rowTops as tops, rowHeight } from "./rows.js";

// Per pattern (its index in api/why's `names`): a colour and a hatch
// direction (1: "/", -1: "\", 0: "|"), so that neighbours differ.
export const WAIT_STYLES = [
  { color: "#d62728", dir: 1 },    // late_sender
  { color: "#ff7f0e", dir: -1 },   // late_sender_wrong_order
  { color: "#9467bd", dir: 1 },    // late_receiver
  { color: "#1f77b4", dir: -1 },   // wait_nxn
  { color: "#17becf", dir: 0 },    // nxn_completion
  { color: "#2ca02c", dir: 1 },    // wait_barrier
  { color: "#8c564b", dir: 0 },    // barrier_completion
  { color: "#e377c2", dir: -1 },   // early_reduce
  { color: "#7f7f7f", dir: 1 },    // early_scan
  { color: "#bcbd22", dir: -1 },   // late_broadcast
];

// The hatch lines of the box [x0, x1] × [y0, y1]: lines `step` pixels
// apart (measured along x), slanted at 45° ("/" for dir 1, "\" for -1)
// or upright (dir 0), each clipped to the box, as [xa, ya, xb, yb].
// Their phase is fixed to x = 0, so that the hatch of neighbouring boxes
// continues across them.
export function hatchSegments(x0, x1, y0, y1, step, dir) {
  const out = [];
  if (!(x1 > x0) || !(y1 > y0) || !(step > 0)) return out;
  const h = y1 - y0;
  if (dir === 0) {
    for (let x = Math.ceil(x0 / step) * step; x <= x1; x += step) out.push([x, y0, x, y1]);
    return out;
  }
  // Line k: x − dir·(y1 − y) = k·step, i.e. it passes (k·step, y1) and
  // rises to the right for "/", to the left for "\".
  const lo = dir > 0 ? x0 - h : x0, hi = dir > 0 ? x1 : x1 + h;
  for (let c = Math.ceil(lo / step) * step; c <= hi; c += step) {
    // x at the bottom (y1) is c; at the top (y0) c + dir·h.
    const xb = c, xt = c + dir * h;
    // Clip the segment (xb, y1)–(xt, y0) to x0 ≤ x ≤ x1.
    const at = (x) => y1 - (x - xb) / dir;
    let [ax, ay, bx, by] = [xb, y1, xt, y0];
    if (ax < x0) [ax, ay] = [x0, at(x0)];
    if (ax > x1) [ax, ay] = [x1, at(x1)];
    if (bx < x0) [bx, by] = [x0, at(x0)];
    if (bx > x1) [bx, by] = [x1, at(x1)];
    if (Math.abs(ay - by) > 1e-9) out.push([ax, ay, bx, by]);
  }
  return out;
}

// What `overlay` (api/why/overlay's reply, of a wider window) shows of
// [t0, t1]: its wait marks and path pieces overlapping it, the pieces
// clipped.
export function overlayIn(overlay, t0, t1) {
  if (!overlay) return null;
  const waits = overlay.waits.filter((m) => m[3] >= t0 && m[2] <= t1);
  const path = overlay.path
    .filter((p) => p[2] > t0 && p[1] < t1)
    .map((p) => [p[0], Math.max(p[1], t0), Math.min(p[2], t1)]);
  return { start: t0, end: t1, width: overlay.width, waits, path };
}

// The overlay as drawn on the timeline: the wait marks and path pieces
// whose rows are on screen, in pixels. `view` is {t0, t1, W} and `y` maps
// a meta row to the top of its row on screen (undefined when off
// screen), `y.height` (when given) to its height, else ROW_H; `hidden` the pattern indices not drawn, `showPath` whether the
// path is. Path pieces off screen break the line.
export function placeOverlay(overlay, view, y, hidden, showPath) {
  const span = view.t1 - view.t0;
  const X = (t) => ((t - view.t0) / span) * view.W;
  const waits = [], path = [];
  if (!overlay) return { waits, path };
  for (const [row, pattern, t0, t1, n] of overlay.waits) {
    const top = y(row);
    if (top == null || hidden.has(pattern)) continue;
    const x0 = Math.max(-1, X(t0)), x1 = Math.min(view.W + 1, Math.max(X(t1), X(t0) + 1));
    waits.push({ row, pattern, t0, t1, n, x0, x1, y0: top + 1, y1: top + (y.height ? y.height(row) : ROW_H) - 1 });
  }
  if (showPath) {
    for (const [row, t0, t1] of overlay.path) {
      const top = row == null ? undefined : y(row);
      if (top == null) continue;
      path.push({ row, t0, t1, x0: Math.max(-1, X(t0)), x1: Math.min(view.W + 1, X(t1)), y: top + ROW_H / 2 });
    }
  }
  return { waits, path };
}

// Wait marks with fewer pixels than this per instance are dense
// (thinWaits).
export const THIN_PX = 4;

// The height of the strip dense marks are drawn in, at their row's top,
// leaving its states visible.
const STRIP_H = 4;

// The wait marks `waits` (placeOverlay's) thinned by pixel, so that a
// zoomed-out window reads. A mark is dense when it has fewer than THIN_PX
// pixels per instance (many instances merged by the server, or marks
// narrower than a few pixels): a row's dense marks are summed per pixel
// column (each spreading its instances over its columns), and runs of
// columns where the same pattern has the most instances become one
// strip at the row's top (`strip: true`), which counts the instances of
// the marks starting in it (`n`) and spans their times (those of its
// columns when none starts in it). Other marks are
// kept as they are, hatched over their row.
export function thinWaits(waits, view) {
  const out = [];
  const rows = new Map();   // row -> {marks, cols: Map(column -> Map(pattern -> weight))}
  for (const m of waits) {
    if ((m.x1 - m.x0) / Math.max(1, m.n) >= THIN_PX) { out.push(m); continue; }
    if (!rows.has(m.row)) rows.set(m.row, { marks: [], cols: new Map() });
    const r = rows.get(m.row);
    r.marks.push(m);
    const c0 = Math.max(-1, Math.floor(m.x0)), c1 = Math.min(view.W, Math.max(c0 + 1, Math.ceil(m.x1)));
    for (let c = c0; c < c1; c++) {
      if (!r.cols.has(c)) r.cols.set(c, new Map());
      const by = r.cols.get(c);
      by.set(m.pattern, (by.get(m.pattern) || 0) + m.n / (c1 - c0));
    }
  }
  for (const { marks, cols } of rows.values()) {
    const strips = [];
    for (const c of [...cols.keys()].sort((a, b) => a - b)) {
      const pattern = [...cols.get(c)].reduce((a, b) => (b[1] > a[1] ? b : a))[0];
      const last = strips[strips.length - 1];
      if (last && last.pattern === pattern && last.x1 === c) { last.x1 = c + 1; continue; }
      const m = marks[0];
      strips.push({ row: m.row, pattern, n: 0, t0: Infinity, t1: -Infinity, x0: c, x1: c + 1, y0: m.y0, y1: Math.min(m.y1, m.y0 + STRIP_H), strip: true });
    }
    // Each mark counted in the strip holding its start.
    for (const m of marks) {
      const c = Math.max(-1, Math.floor(m.x0));
      const s = strips.find((s) => s.x0 <= c && c < s.x1) || strips[0];
      s.n += m.n;
      s.t0 = Math.min(s.t0, m.t0);
      s.t1 = Math.max(s.t1, m.t1);
    }
    // A strip no mark starts in spans the times of its columns.
    const at = (x) => view.t0 + (x / view.W) * (view.t1 - view.t0);
    for (const s of strips) if (!s.n) { s.t0 = at(s.x0); s.t1 = at(s.x1); }
    out.push(...strips);
  }
  return out;
}

// Draws what `placeOverlay` placed on `ctx`, and a frame around `selected`
// ({row, t0, t1}, the instance chosen in the why panel).
export function drawOverlay(ctx, placed, selected, view, y) {
  ctx.save();
  ctx.lineWidth = 1;
  for (const m of placed.waits) {
    const style = WAIT_STYLES[m.pattern] || WAIT_STYLES[0];
    if (m.strip) {
      // Dense marks summed by pixel (thinWaits): a strip.
      ctx.fillStyle = style.color + "e0";
      ctx.fillRect(m.x0, m.y0, m.x1 - m.x0, m.y1 - m.y0);
      continue;
    }
    ctx.fillStyle = style.color + "40";
    ctx.fillRect(m.x0, m.y0, m.x1 - m.x0, m.y1 - m.y0);
    ctx.strokeStyle = style.color;
    ctx.beginPath();
    for (const [ax, ay, bx, by] of hatchSegments(m.x0, m.x1, m.y0, m.y1, 5, style.dir)) {
      ctx.moveTo(ax, ay); ctx.lineTo(bx, by);
    }
    ctx.stroke();
  }
  // The path: its moves to another process as thin lines, its segments
  // as a thick dark line with a light edge, so that it reads on any
  // colour and many moves (zoomed out) do not hide the rows.
  ctx.lineWidth = 1; ctx.strokeStyle = "rgba(17,17,17,0.6)";
  ctx.beginPath();
  placed.path.forEach((p, i) => {
    const q = placed.path[i - 1];
    if (q && q.t1 === p.t0) { ctx.moveTo(p.x0, q.y); ctx.lineTo(p.x0, p.y); }
  });
  ctx.stroke();
  for (const [width, color] of [[5, "rgba(255,255,255,0.85)"], [2.5, "#111"]]) {
    ctx.lineWidth = width; ctx.strokeStyle = color; ctx.lineCap = "butt";
    ctx.beginPath();
    for (const p of placed.path) { ctx.moveTo(p.x0, p.y); ctx.lineTo(p.x1, p.y); }
    ctx.stroke();
  }
  if (selected) {
    const top = y(selected.row);
    if (top != null) {
      const span = view.t1 - view.t0;
      const xa = ((selected.t0 - view.t0) / span) * view.W, xb = ((selected.t1 - view.t0) / span) * view.W;
      ctx.lineWidth = 2; ctx.strokeStyle = "#000"; ctx.setLineDash([4, 2]);
      ctx.strokeRect(xa - 1, top - 1, Math.max(2, xb - xa) + 2, (y.height ? y.height(selected.row) : ROW_H) + 2);
      ctx.setLineDash([]);
    }
  }
  ctx.restore();
}

// The top of each shown meta row on the canvas, and its height, for
// `placeOverlay` (the view's `state`, rows.js).
export function rowTops(state, rows) {
  const m = tops(state, rows);
  const y = (row) => m.get(row);
  y.height = (row) => rowHeight(state, row);
  return y;
}
