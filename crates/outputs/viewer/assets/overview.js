// The overview strip: the whole run at a glance above the timeline, and
// the window on screen drawn on it as a box. The run's summary is asked
// for once (its state rows, a column every few pixels), from the server or
// from an offline report's tiles alike (source.js); each row keeps per
// column the value of its deepest state. The strip cuts the rows shown
// (in their order, filter and collapse) into at most one group per two
// pixels of height, and paints each group's column in the colour of the
// value most of its rows hold there, paler where fewer rows hold it.
//
// The box follows zooms and pans; dragging it moves the window (its
// length kept), a click elsewhere centres the window there. The strip's
// canvas carries the box's pixels as `data-box="x0,x1"` (canvas pixels),
// and `data-loaded` once the run's summary is drawn.

import { $ } from "./util.js";
import { ranges } from "./cache.js";

// Height of the strip in pixels, and its widest summary in columns.
const HEIGHT = 44;
const MAX_COLUMNS = 2048;

// Per row of a summary `data` (decode.js) the deepest state's value in each
// column (-1: none), as an Int32Array of `data.width`.
export function deepest(data) {
  const out = new Map();
  for (const [row, r] of data.rows) {
    const col = new Int32Array(data.width).fill(-1);
    for (const band of r.bands) {
      for (const spans of band.levels) {
        for (let i = 0; i < spans.length; i += 4) col.fill(spans[i + 2], spans[i], Math.min(data.width, spans[i + 1]));
      }
    }
    out.set(row, col);
  }
  return out;
}

// Rows cut into `n` groups of consecutive rows, as even as can be: an
// array of arrays (fewer when there are fewer rows).
export function groupsOf(rows, n) {
  const g = Math.min(rows.length, Math.max(1, n));
  const out = [];
  for (let k = 0; k < g; k++) out.push(rows.slice(Math.floor((k * rows.length) / g), Math.floor(((k + 1) * rows.length) / g)));
  return out.filter((x) => x.length);
}

// For one group's columns (`cols`: an Int32Array per row) the value most
// rows hold in column `c` (hidden values and none left out) and how many
// hold it: [value, count], value -1 for none.
export function dominant(cols, c, hidden) {
  let best = -1, most = 0;
  const seen = new Map();
  for (const col of cols) {
    const v = col[c];
    if (v < 0 || hidden.has(v)) continue;
    const n = (seen.get(v) || 0) + 1;
    seen.set(v, n);
    if (n > most) { most = n; best = v; }
  }
  return [best, most];
}

// The window [t0, t1] on a strip `W` pixels wide for a run [a, b]: the
// box's pixels, at least 3 wide, kept on the strip.
export function boxOf(t0, t1, a, b, W) {
  const span = (b - a) || 1;
  let x0 = ((t0 - a) / span) * W, x1 = ((t1 - a) / span) * W;
  x0 = Math.max(0, Math.min(W - 3, x0));
  x1 = Math.max(x0 + 3, Math.min(W, x1));
  return [x0, x1];
}

export class Overview {
  // source: where summaries come from; state: the view's (store.js);
  // view: {setWindow(t0, t1), error(e)}.
  constructor(source, state, view) {
    this.source = source;
    this.state = state;
    this.view = view;
    this.cv = $("overview-canvas");
    this.cols = null;        // row -> Int32Array of the deepest value per column
    this.width = 0;          // columns of the summary
    this.image = null;       // {key, canvas}: the strip painted, without the box
    this.drag = null;
    this.listen();
  }

  // Asks for the whole run's summary (once).
  async load() {
    const m = this.state.meta;
    const idle = new Set(m.idle || []);
    const rows = [];
    m.rows.forEach((r, i) => { if (r.variable == null && !idle.has(i)) rows.push(i); });
    const width = Math.max(256, Math.min(MAX_COLUMNS, $("timeline").width));
    const data = await this.source.timeline(...this.run(), width, ranges(rows));
    this.data = data;
    this.cols = deepest(data);
    this.width = data.width;
    this.image = null;
    this.draw();
    this.cv.dataset.loaded = "1";
    return data;
  }

  // The run's bounds (runOf).
  run() {
    return runOf(this.state.meta);
  }

  // Paints the groups of the rows shown (kept until they or the hidden
  // values change).
  paint(W, H) {
    const s = this.state;
    const rows = s.visible.filter((r) => this.cols.has(r));
    const key = `${W} ${H} ${rows.join(",")} ${[...s.hidden].join(",")} ${s.colors.length}`;
    if (this.image && this.image.key === key) return this.image.canvas;
    const canvas = document.createElement("canvas");
    canvas.width = W; canvas.height = H;
    const ctx = canvas.getContext("2d");
    const img = ctx.createImageData(W, H);
    const px = new Uint32Array(img.data.buffer);
    px.fill(0xfff5f5f5);
    const d = this.data;
    // The summary's columns over the run [a, b] on the strip.
    const [a, b] = this.run();
    const cw = (d.t1 - d.t0) / d.width;
    const groups = groupsOf(rows, Math.floor(H / 2));
    groups.forEach((g, k) => {
      const y0 = Math.floor((k * H) / groups.length), y1 = Math.floor(((k + 1) * H) / groups.length);
      const cols = g.map((r) => this.cols.get(r));
      for (let x = 0; x < W; x++) {
        const t = a + ((x + 0.5) / W) * (b - a);
        const c = Math.floor((t - d.t0) / cw);
        if (c < 0 || c >= d.width) continue;
        const [v, n] = dominant(cols, c, s.hidden);
        if (v < 0) continue;
        const share = 0.35 + 0.65 * (n / g.length);
        const [r, gg, bb] = (s.colors[v] || [128, 128, 128]).map((u) => Math.round(u * share + 255 * (1 - share)));
        const word = ((255 << 24) | (bb << 16) | (gg << 8) | r) >>> 0;
        for (let y = y0; y < y1; y++) px[y * W + x] = word;
      }
    });
    ctx.putImageData(img, 0, 0);
    this.image = { key, canvas };
    return canvas;
  }

  // Draws the strip and the window's box on it.
  draw() {
    const cv = this.cv;
    const W = $("timeline").width, H = HEIGHT;
    if (cv.width !== W || cv.height !== H) { cv.width = W; cv.height = H; }
    const ctx = cv.getContext("2d");
    if (this.cols && this.state.meta) ctx.drawImage(this.paint(W, H), 0, 0);
    else { ctx.fillStyle = "#f5f5f5"; ctx.fillRect(0, 0, W, H); }
    if (!this.state.meta) return;
    const [a, b] = this.run();
    const [x0, x1] = boxOf(this.state.t0, this.state.t1, a, b, W);
    ctx.fillStyle = "rgba(40,40,60,0.28)";
    ctx.fillRect(0, 0, x0, H);
    ctx.fillRect(x1, 0, W - x1, H);
    ctx.strokeStyle = "#1e5ac8"; ctx.lineWidth = 2;
    ctx.strokeRect(x0 + 1, 1, Math.max(1, x1 - x0 - 2), H - 2);
    ctx.lineWidth = 1;
    cv.dataset.box = `${x0},${x1}`;
  }

  // The time at pixel `x` of the strip.
  timeAt(x) {
    const [a, b] = this.run();
    return a + (x / this.cv.width) * (b - a);
  }

  listen() {
    const cv = this.cv;
    const pxOf = (ev) => (ev.clientX - cv.getBoundingClientRect().left) * (cv.width / cv.getBoundingClientRect().width);
    cv.addEventListener("mousedown", (ev) => {
      if (!this.state.meta) return;
      ev.preventDefault();
      const s = this.state;
      const x = pxOf(ev);
      const [a, b] = this.run();
      const [x0, x1] = boxOf(s.t0, s.t1, a, b, cv.width);
      const span = s.t1 - s.t0;
      const t = this.timeAt(x);
      // Inside the box: dragged where it was taken; else centred there.
      const grip = x >= x0 - 2 && x <= x1 + 2 ? t - s.t0 : span / 2;
      this.drag = { grip, span };
      this.view.setWindow(t - grip, t - grip + span);
    });
    window.addEventListener("mousemove", (ev) => {
      if (!this.drag) return;
      const t = this.timeAt(pxOf(ev));
      this.view.setWindow(t - this.drag.grip, t - this.drag.grip + this.drag.span);
    });
    window.addEventListener("mouseup", () => { this.drag = null; });
  }
}

// The run of `meta` as a window: its start and end, or a second around
// its start when everything happens at one instant (a platform's
// description, all at time 0), which no window can be.
export function runOf(meta) {
  return meta.end > meta.start ? [meta.start, meta.end] : [meta.start - 0.5, meta.start + 0.5];
}
