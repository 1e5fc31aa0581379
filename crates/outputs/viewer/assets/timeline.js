// The timeline's drawing: the summary of the window (state spans of each
// nesting level, variables, event ticks, link density) as pixels, then
// the time axis, the links one by one, the measure, the player's cursor
// and the row labels. Everything is read from the state it is handed.

import { $, fmtTime, niceStep } from "./util.js";
import { ROW_H, AXIS_H, LABEL_W, rowsOnScreen, rowTops, rowHeight, subRow, parents } from "./rows.js";
import { axisTicks, windowText } from "./origin.js";
import { nameBars, fitLabel, textColor } from "./bars.js";

// The rows on the timeline canvas.
export const shownRows = (state) => rowsOnScreen(state, $("timeline").height);

// [r, g, b] at opacity a/255 as the ABGR word of an ImageData pixel.
export const abgr = ([r, g, b], a = 255) => ((a << 24) | (b << 16) | (g << 8) | r) >>> 0;

// `c` at opacity a/255 over the pixel `under` (an ABGR word).
export function blend(c, a, under) {
  const u = [under & 255, (under >>> 8) & 255, (under >>> 16) & 255];
  return abgr(c.map((x, k) => Math.round((x * a + u[k] * (255 - a)) / 255)));
}

// A colour faded towards white (what is not highlighted).
const fade = (c) => c.map((x) => Math.round(x + (255 - x) * 0.8));

// The top and bottom of a nesting level's bars below their row's top, in
// a row `h` pixels high: a sub-row of its own per level (`state.subrows`;
// the deeper levels in the last), else inside the level above, inset by
// 3 pixels more per level.
function levelBox(state, level, h) {
  if (state.subrows) {
    const l = Math.min(level, h / ROW_H - 1);
    return [l * ROW_H + 1, (l + 1) * ROW_H - 1];
  }
  const inset = Math.min(7, level * 3);
  return [1 + inset, ROW_H - 1 - inset];
}

// The colour a value's bars are drawn in.
function barColor(state, value) {
  const c = state.colors[value] || [128, 128, 128];
  return state.highlightIds && !state.highlightIds.has(value) ? fade(c) : c;
}

// Draws the timeline and its labels.
export function draw(state) {
  const cv = $("timeline");
  const ctx = cv.getContext("2d");
  const W = cv.width, H = cv.height;
  const img = ctx.createImageData(W, H);
  const px = new Uint32Array(img.data.buffer);
  px.fill(0xffffffff);
  const d = state.data;
  const rows = shownRows(state);
  const span = state.t1 - state.t0;
  const rect = (x0, x1, y0, y1, c) => {
    x0 = Math.max(0, Math.floor(x0)); x1 = Math.min(W, Math.ceil(x1));
    y0 = Math.max(AXIS_H, y0); y1 = Math.min(H, y1);
    if (x1 <= x0) x1 = Math.min(W, x0 + 1);
    for (let y = y0; y < y1; y++) px.fill(c, y * W + x0, y * W + x1);
  };
  if (d) {
    // Screen x of a column of the reply.
    const cw = (d.t1 - d.t0) / d.width;
    const X = (col) => ((d.t0 + col * cw - state.t0) / span) * W;
    let densest = 1;
    for (const row of d.rows.values()) {
      for (const arr of [row.sent, row.received]) {
        for (let i = 1; i < arr.length; i += 2) densest = Math.max(densest, arr[i]);
      }
    }
    const tops = rowTops(state, rows);
    rows.forEach((ri, k) => {
      const row = d.rows.get(ri);
      const y = tops.get(ri), h = rowHeight(state, ri);
      if (k % 2 === 1) rect(0, W, y, y + h, abgr([248, 248, 250]));
      if (!row) return;
      for (const band of row.bands) {
        band.levels.forEach((spans, level) => {
          const [b0, b1] = levelBox(state, state.subrows ? subRow(state, ri, band.type, level) : level, h);
          for (let i = 0; i < spans.length; i += 4) {
            const value = spans[i + 2];
            const mixed = spans[i + 3] >>> 31;
            if (state.hidden.has(value)) continue;
            const c = barColor(state, value);
            const col = abgr(c);
            rect(X(spans[i]), X(spans[i + 1]), y + b0, y + b1, col);
            if (mixed) {
              // A mixed column: a darker line at the bottom.
              rect(X(spans[i]), X(spans[i + 1]), y + b1 - 1, y + b1, abgr(c.map((x) => Math.round(x * 0.55))));
            }
          }
        });
      }
      const meta = state.meta.rows[ri];
      if (meta.variable != null && row.vars.length) {
        let lo = Infinity, hi = -Infinity;
        for (const v of row.vars) { lo = Math.min(lo, v.min); hi = Math.max(hi, v.max); }
        const yv = (x) => y + ROW_H - 2 - ((x - lo) / ((hi - lo) || 1)) * (ROW_H - 4);
        for (const v of row.vars) {
          rect(X(v.x0), X(v.x1), Math.round(yv(v.max)), Math.round(yv(v.min)) + 1, abgr([120, 150, 200]));
          rect(X(v.x0), X(v.x1), Math.round(yv(v.last)), Math.round(yv(v.last)) + 1, abgr([30, 60, 140]));
        }
      }
      // Events: a tick per column, darker with the count (log scale).
      let most = 1;
      for (let i = 1; i < row.events.length; i += 2) most = Math.max(most, row.events[i]);
      for (let i = 0; i < row.events.length; i += 2) {
        const x = X(row.events[i]);
        const a = Math.round(90 + 165 * Math.log1p(row.events[i + 1]) / Math.log1p(most));
        rect(x, x + 1, y + 1, y + 5, blend([20, 20, 20], a, px[(y + 1) * W + Math.floor(x)]));
      }
      // Links counted as density: a thin mark per column, darker with the
      // count (on a log scale up to the reply's busiest column).
      for (const [arr, top] of [[row.sent, true], [row.received, false]]) {
        for (let i = 0; i < arr.length; i += 2) {
          const a = Math.round(30 + 200 * Math.log1p(arr[i + 1]) / Math.log1p(densest));
          const x = X(arr[i]);
          const yy = top ? y : y + ROW_H - 2;
          rect(x, x + 1, yy, yy + 2, blend([200, 30, 30], a, px[yy * W + Math.floor(x)]));
        }
      }
    });
  }
  ctx.putImageData(img, 0, 0);
  if (d) drawNames(state, ctx, d, rows, W);
  drawAxis(state, ctx, W);
  if (d) drawLinks(state, ctx, d, rows, W);
  if (state.overlay) state.overlay(ctx, rows, W);
  if (state.ruler) drawRuler(state, ctx, W, H);
  if (state.cursor) drawCursor(state, ctx, W, H);
  drawLabels(state, rows);
  document.body.dataset.rows = String(state.visible.length);
  $("window").textContent = windowText(state.t0, state.t1, state.origin) +
    (d && d.links.dense ? ` · ${d.links.dense} links as density` : "");
}

// The fonts of the names in the bars of the first nesting levels drawn
// inside one another (deeper bars are too thin for text); as sub-rows,
// every level has the first.
const NAME_FONTS = ["11px sans-serif", "9px sans-serif"];

// The states' names inside their bars, wherever they fit and are not
// covered (a row's bands are drawn over one another, each level over the
// one above it).
function drawNames(state, ctx, d, rows, W) {
  const cw = (d.t1 - d.t0) / d.width, span = state.t1 - state.t0;
  const X = (col) => ((d.t0 + col * cw - state.t0) / span) * W;
  const widths = NAME_FONTS.map(() => new Map());
  const values = state.meta.values;
  const tops = rowTops(state, rows);
  ctx.save();
  ctx.textBaseline = "middle";
  rows.forEach((ri) => {
    const row = d.rows.get(ri);
    if (!row || !row.bands.length) return;
    const y = tops.get(ri), h = rowHeight(state, ri);
    // As sub-rows, a band's levels from its type's first sub-row.
    const none = new Uint32Array(0);
    const bands = row.bands.map((band) => state.subrows
      ? [...Array(subRow(state, ri, band.type, 0)).fill(none), ...band.levels] : band.levels);
    nameBars(bands, state.hidden, X, W, (value, x, width, level) => {
      const font = state.subrows ? 0 : level;
      if (font >= NAME_FONTS.length) return;
      const [b0, b1] = levelBox(state, level, h);
      if (state.subrows && level >= h / ROW_H) return;
      ctx.font = NAME_FONTS[font];
      const cache = widths[font];
      const measure = (t) => {
        let w = cache.get(t);
        if (w === undefined) { w = ctx.measureText(t).width; cache.set(t, w); }
        return w;
      };
      const text = fitLabel(values[value]?.label ?? "", width, measure);
      if (!text) return;
      ctx.fillStyle = textColor(barColor(state, value));
      ctx.fillText(text, x, y + (b0 + b1) / 2);
    }, 3, !state.subrows);
  });
  ctx.restore();
}

// The player's frame: a band over [t, t + dt] and a line at t.
function drawCursor(state, ctx, W, H) {
  const span = state.t1 - state.t0;
  const x = ((state.cursor.t - state.t0) / span) * W;
  const w = (state.cursor.dt / span) * W;
  ctx.fillStyle = "#d0302f22";
  ctx.fillRect(x, AXIS_H, Math.max(0, w), H - AXIS_H);
  ctx.fillStyle = "#d0302f";
  ctx.fillRect(Math.round(x), 0, 2, H);
}

function drawAxis(state, ctx, W) {
  const span = state.t1 - state.t0;
  const step = niceStep(span, W);
  ctx.fillStyle = "#fff"; ctx.fillRect(0, 0, W, AXIS_H);
  ctx.strokeStyle = "#999"; ctx.fillStyle = "#333"; ctx.font = "11px sans-serif";
  ctx.beginPath(); ctx.moveTo(0, AXIS_H - 0.5); ctx.lineTo(W, AXIS_H - 0.5); ctx.stroke();
  // Absolute times, or offsets from the origin (origin.js), one unit for
  // every label: that of the largest.
  for (const { t, label } of axisTicks(state.t0, state.t1, step, state.origin)) {
    const x = Math.round(((t - state.t0) / span) * W) + 0.5;
    ctx.beginPath(); ctx.moveTo(x, AXIS_H - 6); ctx.lineTo(x, AXIS_H); ctx.stroke();
    // A label cut by the right edge is left out.
    if (x + 2 + ctx.measureText(label).width <= W) ctx.fillText(label, x + 2, AXIS_H - 10);
  }
  if (state.origin != null) {
    const x = Math.round(((state.origin - state.t0) / span) * W) + 0.5;
    ctx.strokeStyle = "#e07000";
    ctx.beginPath(); ctx.moveTo(x, 0); ctx.lineTo(x, AXIS_H); ctx.stroke();
  }
}

// The links drawn on screen, each with its ends in pixels.
function placedLinks(state, d, rows, W) {
  const pos = new Map([...rowTops(state, rows)].map(([r, y]) => [r, y + ROW_H / 2]));
  const span = state.t1 - state.t0;
  const out = [];
  for (const l of d.links.each) {
    const y0 = pos.get(l.from), y1 = pos.get(l.to);
    if (y0 == null || y1 == null || state.hidden.has(l.value)) continue;
    out.push({ l, x0: ((l.start - state.t0) / span) * W, y0, x1: ((l.end - state.t0) / span) * W, y1 });
  }
  return out;
}

function drawLinks(state, ctx, d, rows, W) {
  ctx.strokeStyle = "rgba(0,0,0,0.75)"; ctx.fillStyle = "rgba(0,0,0,0.75)"; ctx.lineWidth = 1;
  for (const { x0, y0, x1, y1 } of placedLinks(state, d, rows, W)) {
    ctx.beginPath(); ctx.moveTo(x0, y0); ctx.lineTo(x1, y1); ctx.stroke();
    const a = Math.atan2(y1 - y0, x1 - x0);
    ctx.beginPath(); ctx.moveTo(x1, y1);
    ctx.lineTo(x1 - 6 * Math.cos(a - 0.4), y1 - 6 * Math.sin(a - 0.4));
    ctx.lineTo(x1 - 6 * Math.cos(a + 0.4), y1 - 6 * Math.sin(a + 0.4));
    ctx.fill();
  }
}

// The arrow drawn under (x, y), within 4 pixels, as an entity (api/entity's
// shape), or null.
export function linkAt(state, x, y) {
  const d = state.data;
  if (!d) return null;
  let best = null, bestD = 4;
  for (const { l, x0, y0, x1, y1 } of placedLinks(state, d, shownRows(state), $("timeline").width)) {
    const dx = x1 - x0, dy = y1 - y0, len2 = dx * dx + dy * dy;
    const u = len2 ? Math.max(0, Math.min(1, ((x - x0) * dx + (y - y0) * dy) / len2)) : 0;
    const dist = Math.hypot(x - (x0 + u * dx), y - (y0 + u * dy));
    if (dist < bestD) { bestD = dist; best = l; }
  }
  return best ? linkEntity(state.meta, best) : null;
}

// The link `l` ({from, to, start, end, value}, as a summary gives it) as
// an entity (api/entity's shape), `meta` the trace's description.
export function linkEntity(m, l) {
  return {
    kind: "link", type: m.types[m.values[l.value].type].name, value: m.values[l.value].name,
    container: `${m.rows[l.from].label} → ${m.rows[l.to].label}`,
    start: l.start, end: l.end, from: l.from, to: l.to, id: l.value,
  };
}

function drawRuler(state, ctx, W, H) {
  const span = state.t1 - state.t0;
  const [a, b] = [state.ruler.a, state.ruler.b].sort((x, y) => x - y);
  const xa = ((a - state.t0) / span) * W, xb = ((b - state.t0) / span) * W;
  ctx.fillStyle = "rgba(30,90,200,0.12)"; ctx.fillRect(xa, AXIS_H, xb - xa, H - AXIS_H);
  ctx.strokeStyle = "#1e5ac8";
  for (const x of [xa, xb]) { ctx.beginPath(); ctx.moveTo(x, AXIS_H); ctx.lineTo(x, H); ctx.stroke(); }
  ctx.fillStyle = "#1e5ac8"; ctx.font = "bold 12px sans-serif";
  ctx.fillText(`Δ ${fmtTime(b - a, (b - a) / 100)}`, Math.min(xb + 4, W - 90), AXIS_H + 14);
}

function drawLabels(state, rows) {
  const cv = $("labels");
  const ctx = cv.getContext("2d");
  ctx.fillStyle = "#fff"; ctx.fillRect(0, 0, cv.width, cv.height);
  ctx.font = "12px sans-serif"; ctx.fillStyle = "#222";
  const m = state.meta;
  const hasChildren = parents(m);
  const tops = rowTops(state, rows);
  rows.forEach((ri) => {
    const r = m.rows[ri];
    const y = tops.get(ri) + 13;
    const x = 6 + 12 * r.depth;
    let text = r.label;
    if (r.variable == null && hasChildren.has(r.container)) {
      text = `${state.collapsed.has(r.container) ? "▸" : "▾"} ${text}`;
    } else if (r.variable != null) {
      ctx.fillStyle = "#555";
    }
    if (r.variable == null && state.arrange?.pinned.has(r.container)) text = `★ ${text}`;
    if (ri === state.found) {
      ctx.fillStyle = "#fff3b0";
      ctx.fillRect(0, y - 13, LABEL_W, ROW_H);
      ctx.fillStyle = "#222";
    }
    ctx.fillText(text, x, y, LABEL_W - x - 4);
    ctx.fillStyle = "#222";
  });
}
