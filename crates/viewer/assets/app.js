// The page of `trama view`: a timeline drawn from window summaries, the
// server's (docs/view-api.md) or those an offline report embeds
// (offline.js). The browser holds a few replies, each of the window on
// screen padded by one screen on each side: a reply grows with rows ×
// width, not with the trace.

import { ServerSource, StreamFeed } from "./source.js";
import { EmbeddedSource } from "./offline.js";
import { Player } from "./player.js";
import { WaitView } from "./waits.js";

const ROW_H = 18;          // pixels per row
const AXIS_H = 28;         // the time axis above the rows
const LABEL_W = 220;       // the row labels on the left

const $ = (id) => document.getElementById(id);

const state = {
  meta: null,
  t0: 0, t1: 1,            // the visible window
  collapsed: new Set(),    // container ids whose subtree is hidden
  visible: [],             // meta row indices shown, top to bottom
  scroll: 0,               // first visible row (in `visible`)
  data: null,              // the last summary received
  hidden: new Set(),       // value ids not drawn
  highlight: null,         // a value id drawn alone in full colour
  pinned: null,            // the entity pinned in the details panel
  ruler: null,             // {a, b} times of a measure
  drag: null,
  colors: [],              // value id -> [r, g, b]
  found: null,             // the meta row of the last search hit
  order: "tree",           // rows: "tree" or "hosts"
  cursor: null,            // the player's frame {t, dt}, drawn as a band
};

// Where the data comes from: the summary embedded in the page (an
// offline report), else the server.
const source = EmbeddedSource.fromPage() || new ServerSource();

// ---- rows ----

function computeVisible() {
  const m = state.meta;
  // Rows with nothing over the whole run are not shown (meta.notes says which).
  const idle = new Set(m.idle || []);
  if (state.order === "hosts") {
    // The seed's order: hosts by the messages they put on the network,
    // each followed by its processes.
    state.visible = m.host_order.filter((i) => !idle.has(i));
    return;
  }
  const hiddenBelow = new Set();
  const parentOf = new Map(m.containers.map((c) => [c.id, c.parent]));
  const under = (id) => {
    for (let p = id; p != null; p = parentOf.get(p)) {
      if (state.collapsed.has(p) && p !== id) return true;
    }
    return false;
  };
  state.visible = [];
  m.rows.forEach((r, i) => {
    if (idle.has(i)) return;
    // A collapsed container keeps its own row; its subtree and its
    // variables are hidden.
    if (under(r.container) || (r.variable != null && state.collapsed.has(r.container))) {
      hiddenBelow.add(i);
      return;
    }
    state.visible.push(i);
  });
}

function rowsOnScreen() {
  const h = $("timeline").height - AXIS_H;
  const n = Math.max(1, Math.floor(h / ROW_H));
  return state.visible.slice(state.scroll, state.scroll + n);
}

// ---- colours ----

function rgb(hex) {
  const n = parseInt(hex.slice(1), 16);
  return [(n >> 16) & 255, (n >> 8) & 255, n & 255];
}

// ---- time ----

const UNITS = [[1, "s"], [1e-3, "ms"], [1e-6, "µs"], [1e-9, "ns"]];

function fmtTime(t, step) {
  const [u, name] = UNITS.find(([u]) => Math.abs(step) >= u) || UNITS[UNITS.length - 1];
  const digits = Math.max(0, Math.min(9, Math.ceil(-Math.log10(step / u) + 0.01)));
  return `${(t / u).toFixed(digits)} ${name}`;
}

function niceStep(span, px) {
  const raw = span / Math.max(1, px / 110);
  const p = Math.pow(10, Math.floor(Math.log10(raw)));
  for (const k of [1, 2, 5, 10]) if (k * p >= raw) return k * p;
  return 10 * p;
}

// ---- drawing ----

function draw() {
  const cv = $("timeline");
  const ctx = cv.getContext("2d");
  const W = cv.width, H = cv.height;
  const img = ctx.createImageData(W, H);
  const px = new Uint32Array(img.data.buffer);
  px.fill(0xffffffff);
  const d = state.data;
  const rows = rowsOnScreen();
  const span = state.t1 - state.t0;
  const rect = (x0, x1, y0, y1, c) => {
    x0 = Math.max(0, Math.floor(x0)); x1 = Math.min(W, Math.ceil(x1));
    y0 = Math.max(AXIS_H, y0); y1 = Math.min(H, y1);
    if (x1 <= x0) x1 = Math.min(W, x0 + 1);
    for (let y = y0; y < y1; y++) px.fill(c, y * W + x0, y * W + x1);
  };
  const abgr = ([r, g, b], a = 255) => ((a << 24) | (b << 16) | (g << 8) | r) >>> 0;
  // `c` at opacity a/255 over the pixel `under` (an ABGR word).
  const blend = (c, a, under) => {
    const u = [under & 255, (under >>> 8) & 255, (under >>> 16) & 255];
    return abgr(c.map((x, k) => Math.round((x * a + u[k] * (255 - a)) / 255)));
  };
  const fade = (c) => c.map((x) => Math.round(x + (255 - x) * 0.8));
  const grey = abgr([225, 225, 225]);
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
    rows.forEach((ri, k) => {
      const row = d.rows.get(ri);
      const y = AXIS_H + k * ROW_H;
      if (k % 2 === 1) rect(0, W, y, y + ROW_H, abgr([248, 248, 250]));
      if (!row) return;
      for (const band of row.bands) {
        band.levels.forEach((spans, level) => {
          const inset = Math.min(7, level * 3);
          for (let i = 0; i < spans.length; i += 4) {
            const value = spans[i + 2];
            const mixed = spans[i + 3] >>> 31;
            let c = state.colors[value] || [128, 128, 128];
            if (state.hidden.has(value)) continue;
            if (state.highlightIds && !state.highlightIds.has(value)) c = fade(c);
            const col = abgr(c);
            rect(X(spans[i]), X(spans[i + 1]), y + 1 + inset, y + ROW_H - 1 - inset, col);
            if (mixed) {
              // A mixed column: a darker line at the bottom.
              rect(X(spans[i]), X(spans[i + 1]), y + ROW_H - 2 - inset, y + ROW_H - 1 - inset, abgr(c.map((x) => Math.round(x * 0.55))));
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
  drawAxis(ctx, W);
  if (d) drawLinks(ctx, d, rows, W);
  if (state.ruler) drawRuler(ctx, W, H);
  if (state.cursor) drawCursor(ctx, W, H);
  drawLabels(rows);
  document.body.dataset.rows = String(state.visible.length);
  $("window").textContent = `${fmtTime(state.t0, span / 10)} – ${fmtTime(state.t1, span / 10)}` +
    (d && d.links.dense ? ` · ${d.links.dense} links as density` : "");
}

// The player's frame: a band over [t, t + dt] and a line at t.
function drawCursor(ctx, W, H) {
  const span = state.t1 - state.t0;
  const x = ((state.cursor.t - state.t0) / span) * W;
  const w = (state.cursor.dt / span) * W;
  ctx.fillStyle = "#d0302f22";
  ctx.fillRect(x, AXIS_H, Math.max(0, w), H - AXIS_H);
  ctx.fillStyle = "#d0302f";
  ctx.fillRect(Math.round(x), 0, 2, H);
}

function drawAxis(ctx, W) {
  const span = state.t1 - state.t0;
  const step = niceStep(span, W);
  ctx.fillStyle = "#fff"; ctx.fillRect(0, 0, W, AXIS_H);
  ctx.strokeStyle = "#999"; ctx.fillStyle = "#333"; ctx.font = "11px sans-serif";
  ctx.beginPath(); ctx.moveTo(0, AXIS_H - 0.5); ctx.lineTo(W, AXIS_H - 0.5); ctx.stroke();
  for (let t = Math.ceil(state.t0 / step) * step; t <= state.t1; t += step) {
    const x = Math.round(((t - state.t0) / span) * W) + 0.5;
    ctx.beginPath(); ctx.moveTo(x, AXIS_H - 6); ctx.lineTo(x, AXIS_H); ctx.stroke();
    ctx.fillText(fmtTime(t, step), x + 2, AXIS_H - 10);
  }
}

function drawLinks(ctx, d, rows, W) {
  const pos = new Map(rows.map((r, k) => [r, AXIS_H + k * ROW_H + ROW_H / 2]));
  const span = state.t1 - state.t0;
  ctx.strokeStyle = "rgba(0,0,0,0.75)"; ctx.fillStyle = "rgba(0,0,0,0.75)"; ctx.lineWidth = 1;
  for (const l of d.links.each) {
    const y0 = pos.get(l.from), y1 = pos.get(l.to);
    if (y0 == null || y1 == null || state.hidden.has(l.value)) continue;
    const x0 = ((l.start - state.t0) / span) * W, x1 = ((l.end - state.t0) / span) * W;
    ctx.beginPath(); ctx.moveTo(x0, y0); ctx.lineTo(x1, y1); ctx.stroke();
    const a = Math.atan2(y1 - y0, x1 - x0);
    ctx.beginPath(); ctx.moveTo(x1, y1);
    ctx.lineTo(x1 - 6 * Math.cos(a - 0.4), y1 - 6 * Math.sin(a - 0.4));
    ctx.lineTo(x1 - 6 * Math.cos(a + 0.4), y1 - 6 * Math.sin(a + 0.4));
    ctx.fill();
  }
}

function drawRuler(ctx, W, H) {
  const span = state.t1 - state.t0;
  const [a, b] = [state.ruler.a, state.ruler.b].sort((x, y) => x - y);
  const xa = ((a - state.t0) / span) * W, xb = ((b - state.t0) / span) * W;
  ctx.fillStyle = "rgba(30,90,200,0.12)"; ctx.fillRect(xa, AXIS_H, xb - xa, H - AXIS_H);
  ctx.strokeStyle = "#1e5ac8";
  for (const x of [xa, xb]) { ctx.beginPath(); ctx.moveTo(x, AXIS_H); ctx.lineTo(x, H); ctx.stroke(); }
  ctx.fillStyle = "#1e5ac8"; ctx.font = "bold 12px sans-serif";
  ctx.fillText(`Δ ${fmtTime(b - a, (b - a) / 100)}`, Math.min(xb + 4, W - 90), AXIS_H + 14);
}

function drawLabels(rows) {
  const cv = $("labels");
  const ctx = cv.getContext("2d");
  ctx.fillStyle = "#fff"; ctx.fillRect(0, 0, cv.width, cv.height);
  ctx.font = "12px sans-serif"; ctx.fillStyle = "#222";
  const m = state.meta;
  const hasChildren = new Set(m.containers.filter((c) => c.children.length).map((c) => c.id));
  rows.forEach((ri, k) => {
    const r = m.rows[ri];
    const y = AXIS_H + k * ROW_H + 13;
    const x = 6 + 12 * r.depth;
    let text = r.label;
    if (r.variable == null && hasChildren.has(r.container)) {
      text = `${state.collapsed.has(r.container) ? "▸" : "▾"} ${text}`;
    } else if (r.variable != null) {
      ctx.fillStyle = "#555";
    }
    if (ri === state.found) {
      ctx.fillStyle = "#fff3b0";
      ctx.fillRect(0, y - 13, LABEL_W, ROW_H);
      ctx.fillStyle = "#222";
    }
    ctx.fillText(text, x, y, LABEL_W - x - 4);
    ctx.fillStyle = "#222";
  });
}

// ---- requests ----

// `rows=` of a list of row indices: runs of consecutive ones as ranges.
function ranges(rows) {
  const out = [];
  for (let i = 0; i < rows.length; i++) {
    let j = i;
    while (j + 1 < rows.length && rows[j + 1] === rows[j] + 1) j++;
    out.push(j > i ? `${rows[i]}-${rows[j]}` : `${rows[i]}`);
    i = j;
  }
  return out.join(",");
}

// A window is asked for at a resolution (the time a column lasts) that is
// a power of two no longer than a pixel, over the cells of a grid (cells
// of a power-of-two duration, about a screen) that cover it padded by one
// screen on each side. A reply held serves while it has that resolution,
// the rows on screen, and half a screen to spare on each side: small pans,
// scrolls and a zoom back draw at once without asking. A request no longer
// wanted is cancelled; at most KEEP replies are held, so the page's memory
// stays flat however far one zooms.
const MAX_WIDTH = 16384;   // the server's widest reply
const KEEP = 4;            // replies held
const held = [];           // {key, res, t0, t1, asked (Set of rows), data}, most recent last
let inflight = null;       // {key, ctl}: the request under way
let timer = null;

// The request the view calls for.
function wanted() {
  const W = $("timeline").width;
  const span = state.t1 - state.t0;
  let res = 2 ** Math.floor(Math.log2(span / W));
  const cell = 2 ** Math.floor(Math.log2(span));
  const t0 = Math.floor((state.t0 - span) / cell) * cell;
  const t1 = Math.ceil((state.t1 + span) / cell) * cell;
  while ((t1 - t0) / res > MAX_WIDTH) res *= 2;
  // The rows on screen and a screen of rows below, so that scrolling and
  // a taller window draw at once.
  const n = rowsOnScreen().length;
  const rows = state.visible.slice(state.scroll, state.scroll + 2 * n + 8);
  const list = ranges(rows);
  const width = Math.max(1, Math.round((t1 - t0) / res));
  return { key: `${t0} ${t1} ${width} ${list}`, res, t0, t1, width, rows, list };
}

// Whether the held reply `h` serves the view at the resolution of `w`.
function serves(h, w) {
  const span = state.t1 - state.t0;
  return h.res === w.res && h.t0 <= state.t0 - span / 2 && h.t1 >= state.t1 + span / 2 &&
    rowsOnScreen().every((r) => h.asked.has(r));
}

// Draws `h`, the reply serving the view.
function drawServing(h) {
  held.splice(held.indexOf(h), 1);
  held.push(h);
  state.data = h.data;
  draw();
  document.body.dataset.state = "ready";
  document.body.dataset.window = `${state.t0},${state.t1}`;
}

function request() {
  clearTimeout(timer);
  timer = setTimeout(update, 40);
}

async function update() {
  const w = wanted();
  const h = held.find((h) => h.key === w.key) || held.find((h) => serves(h, w));
  if (h) {
    if (inflight) { inflight.ctl.abort(); inflight = null; }
    drawServing(h);
    return;
  }
  if (inflight && inflight.key === w.key) return;
  if (inflight) inflight.ctl.abort();
  // Meanwhile, the held reply covering the window at the nearest
  // resolution is drawn.
  const cover = held.filter((h) => h.t0 <= state.t0 && h.t1 >= state.t1)
    .sort((a, b) => Math.abs(Math.log2(a.res / w.res)) - Math.abs(Math.log2(b.res / w.res)))[0];
  if (cover && cover.data !== state.data) { state.data = cover.data; draw(); }
  const ctl = new AbortController();
  inflight = { key: w.key, ctl };
  try {
    const data = await source.timeline(w.t0, w.t1, w.width, w.list, ctl.signal);
    if (ctl.signal.aborted) return;
    inflight = null;
    const got = { key: w.key, res: w.res, t0: w.t0, t1: w.t1, asked: new Set(w.rows), data };
    held.push(got);
    while (held.length > KEEP) held.shift();
    if (serves(got, wanted())) drawServing(got);
    else request();
  } catch (e) {
    if (e.name !== "AbortError") showError(e);
  }
}

function showError(e) {
  document.body.dataset.state = "error";
  $("error").textContent = String(e.message || e);
}

// ---- the view's changes ----

function setWindow(t0, t1) {
  const m = state.meta;
  const min = 1e-9;
  if (t1 - t0 < min) { const c = (t0 + t1) / 2; t0 = c - min / 2; t1 = c + min / 2; }
  state.t0 = t0; state.t1 = t1;
  updateHash();
  draw();
  request();
  scheduleStats();
  void m;
}

// The URL's fragment: the window and the pinned entity, so that a view can
// be shared as a link or reopened.
function updateHash() {
  const pin = state.pinnedAt ? `&pin=${state.pinnedAt.row}:${state.pinnedAt.t}` : "";
  history.replaceState(null, "", `#t0=${state.t0}&t1=${state.t1}${pin}`);
}

function zoom(factor, at) {
  const t = at ?? (state.t0 + state.t1) / 2;
  setWindow(t - (t - state.t0) * factor, t + (state.t1 - t) * factor);
}

function pan(fraction) {
  const d = (state.t1 - state.t0) * fraction;
  setWindow(state.t0 + d, state.t1 + d);
}

function fit() {
  const m = state.meta;
  const pad = (m.end - m.start) * 0.01 || 0.5;
  setWindow(m.start - pad, m.end + pad);
}

function timeAt(x) {
  return state.t0 + (x / $("timeline").width) * (state.t1 - state.t0);
}

function rowAt(y) {
  const k = Math.floor((y - AXIS_H) / ROW_H);
  if (y < AXIS_H || k < 0) return null;
  return rowsOnScreen()[k] ?? null;
}

// ---- hover and pin ----

let hoverTimer = null;

// The arrow drawn under (x, y), within 4 pixels, as an entity.
function linkAt(x, y) {
  const d = state.data;
  if (!d) return null;
  const rows = rowsOnScreen();
  const pos = new Map(rows.map((r, k) => [r, AXIS_H + k * ROW_H + ROW_H / 2]));
  const W = $("timeline").width, span = state.t1 - state.t0;
  let best = null, bestD = 4;
  for (const l of d.links.each) {
    const y0 = pos.get(l.from), y1 = pos.get(l.to);
    if (y0 == null || y1 == null || state.hidden.has(l.value)) continue;
    const x0 = ((l.start - state.t0) / span) * W, x1 = ((l.end - state.t0) / span) * W;
    const dx = x1 - x0, dy = y1 - y0, len2 = dx * dx + dy * dy;
    const u = len2 ? Math.max(0, Math.min(1, ((x - x0) * dx + (y - y0) * dy) / len2)) : 0;
    const dist = Math.hypot(x - (x0 + u * dx), y - (y0 + u * dy));
    if (dist < bestD) { bestD = dist; best = l; }
  }
  if (!best) return null;
  const m = state.meta;
  return {
    kind: "link", type: m.types[m.values[best.value].type].name, value: m.values[best.value].name,
    container: `${m.rows[best.from].label} → ${m.rows[best.to].label}`,
    start: best.start, end: best.end,
  };
}

async function entityAt(x, y) {
  const link = linkAt(x, y);
  if (link) return link;
  const row = rowAt(y);
  if (row == null) return null;
  const t = timeAt(x);
  const px = (state.t1 - state.t0) / $("timeline").width * 3;
  return source.entity(row, t, px);
}

function describe(e) {
  if (!e || e.kind === "none") return "";
  const lines = [`<b>${esc(String(e.value))}</b> <span class=dim>${esc(e.kind)} · ${esc(e.type)}</span>`,
    `${esc(e.container)}`];
  if (e.summary) return describeSummary(e, lines);
  if (e.kind === "event") lines.push(`at ${e.start} s`);
  else lines.push(`${e.start} s → ${e.end} s`, `duration ${fmtTime(e.end - e.start, (e.end - e.start) / 1000 || 1e-9)}`);
  if (e.level != null) lines.push(`level ${e.level}`);
  if (e.stack && e.stack.length > 1) lines.push(`stack: ${e.stack.map(esc).join(" › ")}`);
  if (e.fields && e.fields.length) lines.push(`fields: ${e.fields.map(esc).join(", ")}`);
  return lines.join("<br>");
}

// What an offline report's summary knows of a point (offline.js,
// `entity`): the columns around it, not the entity itself.
function describeSummary(e, lines) {
  // Seconds to the digit a column resolves, as the server's times.
  const digits = Math.max(0, Math.min(12, Math.ceil(-Math.log10(e.column || 1e-9)) + 1));
  const step = e.column / 10 || 1e-9;
  const range = `${e.start.toFixed(digits)} s → ${e.end.toFixed(digits)} s (${fmtTime(e.end - e.start, step)})`;
  if (e.kind === "state") {
    lines.push(`dominant in ${range}`);
    if (e.mixed) lines.push(`mixed: states of several values, ${e.count} in a column`);
    else if (e.count > 1) lines.push(`${e.count} states in a column`);
    if (e.level) lines.push(`level ${e.level}`);
    if (e.stack && e.stack.length > 1) lines.push(`stack: ${e.stack.map(esc).join(" › ")}`);
  } else if (e.kind === "event") {
    lines.push(`in ${range}`);
  } else {
    lines.push(`in ${range}`, `from ${e.min} to ${e.max}, last ${e.value}`);
  }
  lines.push(`<span class=dim>from the report's summary: columns of ${fmtTime(e.column, step)}</span>`);
  return lines.join("<br>");
}

function esc(s) {
  return String(s).replace(/[&<>"]/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;" })[c]);
}

function onHover(ev) {
  clearTimeout(hoverTimer);
  const { offsetX: x, offsetY: y, clientX, clientY } = ev;
  hoverTimer = setTimeout(async () => {
    try {
      const e = await entityAt(x, y);
      const tip = $("tooltip");
      const html = describe(e);
      if (!html) { tip.hidden = true; return; }
      tip.innerHTML = html;
      tip.hidden = false;
      tip.style.left = `${clientX + 14}px`;
      tip.style.top = `${clientY + 14}px`;
      tip.dataset.value = e.value;
    } catch (e) { /* a stale hover */ }
  }, 60);
}

// ---- the legend ----

function legend() {
  const m = state.meta;
  const stateTypes = new Set(m.types.filter((t) => t.kind === "state").map((t) => t.id));
  const el = $("legend");
  el.textContent = "";
  // One entry per label and colour (values of several state types may
  // share both); two values of one name have two labels and colours.
  const key = (v) => `${v.label}\u0000${v.color}`;
  const seen = new Set();
  for (const v of m.values) {
    if (!stateTypes.has(v.type) || seen.has(key(v))) continue;
    seen.add(key(v));
    const item = document.createElement("span");
    item.className = "item";
    item.title = "click: hide or show · shift-click: highlight";
    const sw = document.createElement("i");
    sw.style.background = v.color;
    item.append(sw, document.createTextNode(v.label));
    const ids = m.values.filter((w) => key(w) === key(v) && stateTypes.has(w.type)).map((w) => w.id);
    item.addEventListener("click", (ev) => {
      if (ev.shiftKey) {
        state.highlight = state.highlight === ids[0] ? null : ids[0];
        state.highlightIds = state.highlight == null ? null : new Set(ids);
      } else {
        const hide = !state.hidden.has(ids[0]);
        for (const id of ids) hide ? state.hidden.add(id) : state.hidden.delete(id);
        item.classList.toggle("off", hide);
      }
      draw();
    });
    el.append(item);
  }
}

// ---- setup ----

function resize() {
  const main = $("main");
  const side = $("stats").hidden ? 0 : $("stats").offsetWidth;
  const w = Math.max(200, main.clientWidth - LABEL_W - side);
  const h = Math.max(100, main.clientHeight);
  for (const [id, width] of [["timeline", w], ["labels", LABEL_W]]) {
    const cv = $(id);
    cv.width = width; cv.height = h;
  }
}

function listen() {
  const cv = $("timeline");
  cv.addEventListener("wheel", (ev) => {
    ev.preventDefault();
    if (ev.ctrlKey || !ev.shiftKey) {
      zoom(ev.deltaY > 0 ? 1.25 : 0.8, timeAt(ev.offsetX));
    } else {
      pan(ev.deltaY > 0 ? 0.1 : -0.1);
    }
  }, { passive: false });
  cv.addEventListener("mousedown", (ev) => {
    state.drag = { x: ev.offsetX, t0: state.t0, t1: state.t1,
      mode: ev.shiftKey ? "select" : ev.altKey || ev.ctrlKey ? "ruler" : "pan", moved: false };
    if (state.drag.mode !== "pan") state.ruler = { a: timeAt(ev.offsetX), b: timeAt(ev.offsetX) };
  });
  window.addEventListener("mousemove", (ev) => {
    const d = state.drag;
    if (!d) return;
    const x = ev.clientX - cv.getBoundingClientRect().left;
    if (Math.abs(x - d.x) > 2) d.moved = true;
    if (d.mode === "pan") {
      const dt = ((x - d.x) / cv.width) * (d.t1 - d.t0);
      state.t0 = d.t0 - dt; state.t1 = d.t1 - dt;
      draw();
    } else {
      state.ruler.b = timeAt(x);
      draw();
    }
  });
  window.addEventListener("mouseup", (ev) => {
    const d = state.drag;
    state.drag = null;
    if (!d) return;
    if (d.mode === "pan" && d.moved) setWindow(state.t0, state.t1);
    if (d.mode === "select" && state.ruler) {
      const [a, b] = [state.ruler.a, state.ruler.b].sort((x, y) => x - y);
      state.ruler = null;
      if (b > a) setWindow(a, b); else draw();
    }
    if (!d.moved && d.mode === "pan") pin(ev);
  });
  cv.addEventListener("mousemove", onHover);
  cv.addEventListener("mouseleave", () => { $("tooltip").hidden = true; });
  $("labels").addEventListener("click", (ev) => {
    const row = rowAt(ev.offsetY);
    if (row == null) return;
    const r = state.meta.rows[row];
    if (r.variable != null) return;
    if (state.collapsed.has(r.container)) state.collapsed.delete(r.container);
    else state.collapsed.add(r.container);
    computeVisible();
    draw();
    request();
  });
  for (const cv2 of [cv, $("labels")]) {
    cv2.addEventListener("wheel", (ev) => {
      if (!ev.shiftKey || cv2 !== cv) return;
    });
  }
  $("labels").addEventListener("wheel", (ev) => {
    ev.preventDefault();
    const n = rowsOnScreen().length;
    state.scroll = Math.max(0, Math.min(state.visible.length - n, state.scroll + (ev.deltaY > 0 ? 3 : -3)));
    draw();
    request();
  }, { passive: false });
  window.addEventListener("keydown", (ev) => {
    if (ev.target.tagName === "INPUT") return;
    const k = ev.key;
    if (k === "+" || k === "=" || k === "w") zoom(0.8);
    else if (k === "-" || k === "s") zoom(1.25);
    else if (k === "ArrowLeft" || k === "a") pan(-0.1);
    else if (k === "ArrowRight" || k === "d") pan(0.1);
    else if (k === "f" || k === "0") fit();
    else if (k === "Escape") { state.ruler = null; unpin(); draw(); }
    else if (k === "t") toggleStats();
    else if (k === "p" && player) togglePlayer();
    else if (k === "n" && player && player.isOpen()) player.toggleView();
    else if (player && player.isOpen() && (k === " " || k === "," || k === "." || k === "Home" || k === "End")) {
      if (k === " ") player.playing ? player.pause() : player.play();
      else if (k === ",") player.stepBy(-1);
      else if (k === ".") player.stepBy(1);
      else if (k === "Home") player.first();
      else player.last();
    }
    else return;
    ev.preventDefault();
  });
  $("fit").addEventListener("click", fit);
  $("stats-button").addEventListener("click", toggleStats);
  $("player-button").addEventListener("click", togglePlayer);
  $("order").addEventListener("change", () => {
    state.order = $("order").value;
    state.scroll = 0;
    computeVisible();
    draw();
    request();
  });
  $("search").addEventListener("keydown", (ev) => {
    if (ev.key === "Enter") search($("search").value.trim()).catch(showError);
  });
  $("zoomin").addEventListener("click", () => zoom(0.5));
  $("zoomout").addEventListener("click", () => zoom(2));
  $("unpin").addEventListener("click", unpin);
  window.addEventListener("resize", () => { resize(); draw(); request(); });
}

// ---- search ----

let lastSearch = { q: "", after: null };

async function search(q) {
  if (!q) return;
  const after = lastSearch.q === q && lastSearch.after != null ? lastSearch.after : state.t0;
  const r = await source.search(q, after);
  const found = $("found");
  if (r.next) {
    lastSearch = { q, after: r.next.start };
    showRow(r.next.row);
    const span = state.t1 - state.t0;
    const len = r.next.end - r.next.start;
    // Keep the zoom unless the entity is wider than a third of the screen.
    const w = Math.max(span, 3 * len);
    const c = (r.next.start + r.next.end) / 2;
    state.ruler = { a: r.next.start, b: r.next.end };
    found.textContent = `${r.next.value} on ${state.meta.rows[r.next.row].label} at ${fmtTime(r.next.start, w / 1000)}`;
    setWindow(c - w / 2, c + w / 2);
  } else if (r.rows.length) {
    lastSearch = { q, after: null };
    const k = r.rows.findIndex((h) => state.visible.indexOf(h.row) >= state.scroll);
    const hit = r.rows[Math.max(0, k)];
    showRow(hit.row);
    found.textContent = `${r.rows.length} container(s): ${hit.label}`;
    draw();
    request();
  } else {
    found.textContent = lastSearch.q === q ? "no more" : "nothing found";
    lastSearch = { q, after: null };
  }
}

// Scrolls so that meta row `row` is on screen (expanding its ancestors).
function showRow(row) {
  const m = state.meta;
  const parentOf = new Map(m.containers.map((c) => [c.id, c.parent]));
  for (let p = parentOf.get(m.rows[row].container); p != null; p = parentOf.get(p)) state.collapsed.delete(p);
  computeVisible();
  const k = state.visible.indexOf(row);
  const n = rowsOnScreen().length;
  if (k < state.scroll || k >= state.scroll + n) state.scroll = Math.max(0, k - Math.floor(n / 3));
  state.found = row;
}

// ---- statistics of the window ----

let statsTimer = null;
let statsCtl = null;

function statsOpen() {
  return !$("stats").hidden;
}

function scheduleStats() {
  if (!statsOpen()) return;
  clearTimeout(statsTimer);
  statsTimer = setTimeout(() => loadStats().catch(showError), 250);
}

// The wait-time matrix of the panel (waits.js).
let waitView = null;

async function loadStats() {
  if (statsCtl) statsCtl.abort();
  statsCtl = new AbortController();
  // The player's frame when it is open and lasts some time, else the window.
  const f = player && player.isOpen() && player.shown && player.shown.dt > 0 ? player.shown : null;
  const [w0, w1] = f ? [f.t, f.t + f.dt] : [state.t0, state.t1];
  const s = await source.stats(w0, w1, statsCtl.signal).catch((e) => {
    if (e.name !== "AbortError") showError(e);
    return null;
  });
  if (!s) return;
  const { t0, t1 } = s;
  const el = $("stats");
  el.textContent = "";
  const h = (text) => { const e = document.createElement("h3"); e.textContent = text; el.append(e); };
  const span = t1 - t0;
  h(`Time per state, ${fmtTime(t0, span / 10)} – ${fmtTime(t1, span / 10)}${f ? " (the player's frame)" : ""}`);
  if (s.whole) {
    const p = document.createElement("p");
    p.className = "dim";
    p.textContent = "The whole run, as the report computed it (an offline report has no window statistics).";
    el.append(p);
  }
  // Statistics name values by label.
  const color = new Map(state.meta.values.map((v, i) => [v.label, `rgb(${state.colors[i].join(",")})`]));
  const byContainer = new Map();
  for (const row of (s.states ? s.states.rows : [])) {
    if (!byContainer.has(row.container)) byContainer.set(row.container, []);
    byContainer.get(row.container).push(row);
  }
  for (const [c, rows] of byContainer) {
    const label = document.createElement("div");
    label.textContent = c;
    const bar = document.createElement("div");
    bar.className = "bar";
    for (const r of rows.filter((r) => r.exclusive > 0)) {
      const i = document.createElement("i");
      i.style.width = `${(100 * r.exclusive) / span}%`;
      i.style.background = color.get(r.value) || "#888";
      i.title = `${r.value}: ${fmtTime(r.exclusive, r.exclusive / 100 || 1e-9)} (${(100 * r.exclusive / span).toFixed(1)} %)`;
      bar.append(i);
    }
    el.append(label, bar);
  }
  const pairs = (s.comm ? s.comm.pairs : []).slice().sort((a, b) => b.count - a.count).slice(0, 10);
  h(pairs.length ? "Messages (most first)" : "No messages in the window");
  table(el, pairs.map((p) => [p.from, "→", p.to, p.count]));
  h("Who waited for whom");
  const box = document.createElement("div");
  box.id = "waits";
  el.append(box);
  if (!waitView) waitView = new WaitView((name) => color.get(name) || "#888");
  waitView.show(box, s.wait, s.states);
  document.body.dataset.stats = s.whole ? "whole" : `${w0},${w1}`;
}

function table(el, rows) {
  const t = document.createElement("table");
  for (const r of rows) {
    const tr = document.createElement("tr");
    for (const c of r) {
      const td = document.createElement("td");
      td.textContent = String(c);
      if (typeof c === "number") td.className = "n";
      tr.append(td);
    }
    t.append(tr);
  }
  el.append(t);
}

function toggleStats() {
  $("stats").hidden = !$("stats").hidden;
  resize();
  draw();
  request();
  scheduleStats();
}

async function pin(ev) {
  const e = await entityAt(ev.offsetX, ev.offsetY);
  const row = rowAt(ev.offsetY);
  show(e, e && e.kind !== "link" && row != null ? { row, t: timeAt(ev.offsetX) } : null);
}

// Shows `e` in the details panel; `at` (row and time) goes in the URL.
function show(e, at) {
  const html = describe(e);
  if (!html) return;
  state.pinned = e;
  state.pinnedAt = at;
  $("details-body").innerHTML = html;
  $("details").hidden = false;
  updateHash();
}

function unpin() {
  state.pinned = null;
  state.pinnedAt = null;
  $("details").hidden = true;
  updateHash();
}

// Waits until the server has read the trace, showing how far it is.
async function loaded() {
  for (;;) {
    const p = await source.progress();
    if (p.state === "ready" || p.state === "stream") return p.state;
    if (p.state === "failed") throw new Error(p.error);
    let text = "reading the trace…";
    if (p.total) text = `reading the trace: ${(100 * p.done / p.total).toFixed(0)} % of its ${p.unit}`;
    else if (p.done) text = `reading the trace: ${p.done} ${p.unit}`;
    $("span").textContent = text;
    await new Promise((r) => setTimeout(r, 250));
  }
}

// ---- the player ----

// The animated views (player.js); none in an offline report, which has no
// frames.
let player = null;

async function togglePlayer() {
  if (!player) return;
  // The timeline gives the player its room, then fills what is left.
  if (player.isOpen()) player.close();
  else await player.open().catch(showError);
  resize();
  draw();
  request();
}

// A stream: only the player, fed forward.
async function streamMain() {
  document.body.classList.add("streaming");
  $("span").textContent = "played as it is read (--stream)";
  const feed = new StreamFeed();
  player = new Player(null, { values: [] }, null, { window: () => [0, 1], cursor: () => {} });
  await player.openStream(feed);
  window.addEventListener("keydown", (ev) => {
    if (ev.target.tagName === "INPUT") return;
    if (ev.key === " ") player.playing ? player.pause() : player.play();
    else if (ev.key === "n") player.toggleView();
    else if (ev.key === ".") player.stepBy(1);
    else if (ev.key === "End") player.last();
    else return;
    ev.preventDefault();
  });
  document.body.dataset.state = "ready";
}

async function main() {
  if ((await loaded()) === "stream") return streamMain();
  const meta = await source.meta();
  state.meta = meta;
  state.colors = meta.values.map((v) => rgb(v.color));
  $("name").textContent = meta.name;
  $("span").textContent =
    `${meta.counts.states} states, ${meta.counts.links} links, ${meta.counts.events} events, ${meta.containers.length} containers`;
  if (meta.notes.length) $("span").title = meta.notes.join("\n");
  if (meta.notes.length) $("span").textContent += " · notes (hover here)";
  if (source.offline) {
    $("span").textContent += " · offline: drawn from the report's summary";
    $("span").title = [...meta.notes, "This report holds a summary of the trace at several levels of detail; zooming further than its finest level shows that level's columns. `trama view` reads every entity."].join("\n");
  }
  legend();
  if (meta.host_order.length) {
    $("order").hidden = false;
    $("order").options[1].textContent = `rows: ${meta.host_level} by traffic`;
  }
  if (source.frame) {
    player = new Player(source, meta, (v) => state.colors[v] || [128, 128, 128], {
      window: () => [state.t0, state.t1],
      cursor: (t, dt) => { state.cursor = t == null ? null : { t, dt }; draw(); scheduleStats(); },
    });
  } else {
    $("player-button").hidden = true;
  }
  computeVisible();
  resize();
  listen();
  const h = new URLSearchParams(location.hash.slice(1));
  const t0 = parseFloat(h.get("t0")), t1 = parseFloat(h.get("t1"));
  if (isFinite(t0) && isFinite(t1) && t1 > t0) setWindow(t0, t1); else fit();
  // #stats opens the statistics panel.
  if (h.has("stats")) toggleStats();
  // #player=T opens the player at T (#player alone: at the window's start).
  if (player && h.has("player")) {
    await player.open();
    resize(); draw(); request();
    const pt = parseFloat(h.get("player"));
    if (h.has("view")) player.setView(h.get("view"));
    if (isFinite(pt)) await player.seek(pt);
  }
  const pinned = (h.get("pin") || "").split(":").map(Number);
  if (pinned.length === 2 && pinned.every(isFinite) && pinned[0] >= 0 && pinned[0] < meta.rows.length) {
    const [row, t] = pinned;
    const e = await source.entity(row, t);
    show(e, { row, t });
  }
}

// Where things are on screen, for scripts that drive the page: the
// client coordinates of time `t` and of the row labelled `label`.
window.trama = {
  x(t) {
    const r = $("timeline").getBoundingClientRect();
    return r.left + ((t - state.t0) / (state.t1 - state.t0)) * r.width;
  },
  y(label) {
    const k = rowsOnScreen().findIndex((i) => state.meta.rows[i].label === label);
    if (k < 0) return null;
    return $("timeline").getBoundingClientRect().top + AXIS_H + k * ROW_H + ROW_H / 2;
  },
  labelY(label) {
    const k = rowsOnScreen().findIndex((i) => state.meta.rows[i].label === label);
    if (k < 0) return null;
    return $("labels").getBoundingClientRect().top + AXIS_H + k * ROW_H + ROW_H / 2;
  },
  window: () => [state.t0, state.t1],
  // What the page holds: timeline requests made so far, replies held,
  // tiles of an offline summary decoded and kept, whether it is one, and
  // the level of detail of the reply drawn (offline).
  requests: () => source.requests,
  held: () => held.length,
  tiles: () => source.tilesKept ?? 0,
  tileBytes: () => source.tileBytesKept ?? 0,
  offline: source.offline,
  level: () => state.data?.level ?? null,
  levels: () => source.levels?.length ?? null,
  // The player: the frame on screen, its controls, where its squares and
  // cells are.
  frame: () => player?.describe() ?? null,
  player: () => player,
  squareAt: (name) => player?.squareAt(name) ?? null,
  cellAt: (from, to) => player?.cellAt(from, to) ?? null,
  // The statistics panel's wait matrix: what it shows, where a row is.
  waits: () => waitView?.describe() ?? null,
  waitRow: (name) => waitView?.rowAt(name) ?? null,
};

window.addEventListener("error", (e) => { document.body.dataset.jserror = String(e.message); });
window.addEventListener("unhandledrejection", (e) => { document.body.dataset.jserror = String(e.reason); });

document.addEventListener("securitypolicyviolation", (e) => {
  document.body.dataset.csp = `${e.violatedDirective} ${e.blockedURI}`;
});

main().catch(showError);
