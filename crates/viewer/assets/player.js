// The player of the animated views: one time cursor, shared by the
// process animation (one square per process, coloured by its state), the
// traffic animation (the sender × receiver matrix of the messages in
// flight, coloured by effective rate, beside the same matrix over the whole
// run) and the growing Kiviat diagram (each host's share of the network
// messages so far). Frames come from api/frame (docs/view-api.md), the
// frame model `trama render` records too.
//
// A frame is the instant t (Δ = 0) or the interval [t, t + Δ]; playing
// advances t by rate × speed each speed seconds of wall time (rate: seconds
// of execution per second of playback; speed: wall seconds per frame). The
// player sweeps the timeline's visible window. Colour scales stay fixed
// while playing; "fit" re-fits the gradient to the frame on pause.

import { NodeView } from "./nodes.js";
import { natural } from "./decode.js";

export class Player {
  // source: where frames come from; meta: api/meta; colorOf(value id) ->
  // [r, g, b]; hooks: {window() -> [t0, t1], cursor(t, dt)}.
  constructor(source, meta, colorOf, hooks) {
    this.source = source;
    this.meta = meta;
    this.colorOf = colorOf;
    this.hooks = hooks;
    this.stage = null;
    this.t = 0;
    this.dt = null;          // null: one step (rate × speed)
    this.rate = null;        // null: the window in 30 s
    this.speed = 0.1;
    this.playing = false;
    this.shown = null;       // the frame drawn
    this.grad = null;        // [min, max] of the frame's gradient (rates or counts)
    this.wholeGrad = null;   // that of the whole run's matrix (counts: its own)
    this.boxes = [];         // squares on screen: {p, x, y, s}
    this.cellBox = null;     // the frame's matrix on screen: {x, y, size, n}
    this.request = 0;
  }

  el(id) { return document.getElementById(id); }

  async open() {
    if (!this.stage) {
      this.stage = await this.source.stage();
      const o = this.stage.player || {};
      if (o.rate) this.rate = o.rate;
      if (o.play_speed) this.speed = o.play_speed;
      this.el("p-speed").value = String(this.speed);
      this.listen();
      // Rates compare across the frame and the run: one gradient. Counts
      // do not (a frame holds a few messages, the run all of them): the
      // frame's gradient is fitted to the first frame with messages.
      this.fitGradient(this.stage.whole || []);
      const r = this.stage.rates;
      if (this.byRate() && r && r[1] > r[0]) { this.grad = [r[0], r[1]]; this.syncInputs(); }
      this.wholeGrad = this.grad;
      if (!this.byRate()) this.grad = null;
      this.t = this.hooks.window()[0];
      this.setupNodes(this.stage.nodes);
    }
    this.el("player").hidden = false;
    this.resize();
    await this.show(this.t);
  }

  // The node/arc view, when the run has nodes; the view shown first is
  // it when there is no process to animate (OpenTS's ranks hold none).
  setupNodes(info) {
    const sel = this.el("p-view");
    if (!this.viewListened) {
      this.viewListened = true;
      sel.addEventListener("change", () => this.setView(sel.value));
    }
    const ok = !!(info && info.stage && info.stage.nodes.length);
    sel.querySelector('option[value="nodes"]').disabled = !ok;
    sel.title = ok ? "what the player shows (n)" : `no node/arc view: ${info?.error || "the trace has no container"}`;
    if (!ok) { this.nodeView = null; this.setView("anim"); return; }
    if (this.nodeView) {
      // A stream's stage grew: same nodes first, new ones after.
      const old = this.nodeView;
      old.info = info;
      old.stage = info.stage;
      while (old.pos.length < info.stage.nodes.length) old.pos.push(null);
      return;
    }
    this.nodeView = new NodeView(this, info, this.meta?.name ?? "");
    this.setView(this.stage.processes.length ? "anim" : "nodes");
  }

  setView(v) {
    const nodes = v === "nodes" && !!this.nodeView;
    this.view = nodes ? "nodes" : "anim";
    this.el("p-view").value = this.view;
    this.el("player").classList.toggle("nodes", nodes);
    this.el("p-nodeview").hidden = !nodes;
    this.resize();
    // The node/arc view's frame is asked for only while it shows.
    if (nodes && this.shown && !this.shown.nodes && !this.feed) this.show(this.t);
    else this.draw();
  }

  toggleView() { this.setView(this.view === "nodes" ? "anim" : "nodes"); }

  close() {
    this.pause();
    this.el("player").hidden = true;
    this.hooks.cursor(null, 0);
  }

  isOpen() { return !this.el("player").hidden; }

  // Seconds of execution per frame.
  step() {
    if (this.feed) return this.streamInfo?.dt ?? 0.1;
    // A page with no server: the frames it holds.
    if (this.stage?.frames_dt) return this.stage.frames_dt;
    const [a, b] = this.hooks.window();
    const rate = this.rate ?? (b - a) / 30;
    return rate * this.speed;
  }

  delta() { return this.feed || this.stage?.frames_dt ? this.step() : this.dt ?? this.step(); }

  listen() {
    const on = (id, ev, f) => this.el(id).addEventListener(ev, f);
    on("p-first", "click", () => this.first());
    on("p-prev", "click", () => this.stepBy(-1));
    on("p-play", "click", () => (this.playing ? this.pause() : this.play()));
    on("p-next", "click", () => this.stepBy(1));
    on("p-last", "click", () => this.last());
    on("p-fit", "click", () => { this.fitGradient(this.shown?.cells || []); this.draw(); });
    on("p-close", "click", () => this.close());
    const num = (id, f) => on(id, "change", () => {
      const v = Player.parse(this.el(id).value);
      f(v);
      this.syncInputs();
      this.show(this.t);
    });
    num("p-rate", (v) => { this.rate = v > 0 ? v : null; });
    num("p-speed", (v) => { this.speed = v > 0 ? v : 0.1; });
    num("p-dt", (v) => { this.dt = v >= 0 && isFinite(v) ? v : null; });
    num("p-min", (v) => { if (isFinite(v) && this.grad) this.grad[0] = v; });
    num("p-max", (v) => { if (isFinite(v) && this.grad) this.grad[1] = v; });
    const strip = this.el("p-strip");
    const seek = (ev) => {
      const r = strip.getBoundingClientRect();
      const [a, b] = this.hooks.window();
      this.seek(a + ((ev.clientX - r.left) / r.width) * (b - a));
    };
    let dragging = false;
    strip.addEventListener("mousedown", (ev) => { dragging = true; seek(ev); });
    window.addEventListener("mousemove", (ev) => { if (dragging) seek(ev); });
    window.addEventListener("mouseup", () => { dragging = false; });
    this.el("p-procs").addEventListener("mousemove", (ev) => this.hover(ev));
    this.el("p-procs").addEventListener("mouseleave", () => { this.el("p-tip").hidden = true; });
    this.el("p-traffic").addEventListener("mousemove", (ev) => this.hoverCell(ev));
    this.el("p-traffic").addEventListener("mouseleave", () => { this.el("p-tip").hidden = true; });
    window.addEventListener("resize", () => { if (this.isOpen()) { this.resize(); this.draw(); } });
  }

  // "12.5", "1e6", "10M", "2.5k", "1G": a number with an SI suffix.
  static parse(text) {
    const m = /^\s*([-+0-9.eE]+)\s*([kKMGT]?)/.exec(text || "");
    if (!m) return NaN;
    const mult = { "": 1, k: 1e3, K: 1e3, M: 1e6, G: 1e9, T: 1e12 }[m[2]];
    return parseFloat(m[1]) * mult;
  }

  static si(x) {
    if (x == null || !isFinite(x)) return "–";
    const a = Math.abs(x);
    for (const [v, s] of [[1e12, "T"], [1e9, "G"], [1e6, "M"], [1e3, "k"]]) {
      if (a >= v) return `${+(x / v).toPrecision(3)}${s}`;
    }
    return `${+x.toPrecision(3)}`;
  }

  syncInputs() {
    const [a, b] = this.hooks.window();
    this.el("p-rate").placeholder = Player.si((b - a) / 30);
    if (this.rate != null) this.el("p-rate").value = Player.si(this.rate);
    this.el("p-dt").placeholder = `${Player.si(this.step())} (a step)`;
    if (this.grad) {
      this.el("p-min").value = Player.si(this.grad[0]);
      this.el("p-max").value = Player.si(this.grad[1]);
    }
  }

  // The gradient spans the values of `cells` (rates, else counts).
  fitGradient(cells) {
    const vals = cells.map((c) => this.cellValue(c)).filter((v) => v != null && v > 0);
    if (!vals.length) { this.grad = this.grad || [1, 10]; this.syncInputs(); return; }
    let lo = Math.min(...vals), hi = Math.max(...vals);
    if (!this.byRate()) lo = Math.min(lo, 1);
    if (hi <= lo) { lo /= 2; hi *= 2; }
    this.grad = [lo, hi];
    this.syncInputs();
  }

  byRate() { return this.stage && this.stage.size_field != null; }

  cellValue(c) { return this.byRate() ? c.rate : c.count; }

  // A value's colour: black below the gradient, white above, else a ramp
  // from dark blue to yellow on a log scale.
  shade(v, grad = this.grad) {
    const [lo, hi] = grad;
    if (v == null) return [150, 150, 150];
    if (v < lo) return [0, 0, 0];
    if (v > hi) return [255, 255, 255];
    const f = hi > lo ? Math.log(v / lo) / Math.log(hi / lo) : 1;
    const stops = [[48, 18, 120], [33, 102, 172], [32, 164, 134], [122, 209, 81], [253, 231, 37]];
    const x = Math.max(0, Math.min(1, f)) * (stops.length - 1);
    const i = Math.min(stops.length - 2, Math.floor(x));
    const k = x - i;
    return stops[i].map((c, j) => Math.round(c + (stops[i + 1][j] - c) * k));
  }

  play() {
    if (this.playing) return;
    this.playing = true;
    this.el("p-play").textContent = "⏸";
    this.el("p-fit").disabled = true;
    this.loop();
  }

  pause() {
    this.playing = false;
    this.el("p-play").textContent = "▶";
    this.el("p-fit").disabled = false;
  }

  async loop() {
    while (this.playing) {
      const began = performance.now();
      if (this.feed) {
        const shown = await this.streamStep();
        if (!shown && this.streamInfo?.done) { this.pause(); break; }
        const wait = this.speed * 1000 - (performance.now() - began);
        if (wait > 0) await new Promise((r) => setTimeout(r, wait));
        continue;
      }
      const [, b] = this.hooks.window();
      const next = this.t + this.step();
      if (next > b) { this.pause(); break; }
      await this.show(next);
      const wait = this.speed * 1000 - (performance.now() - began);
      if (wait > 0) await new Promise((r) => setTimeout(r, wait));
    }
  }

  first() {
    if (this.feed) return null;
    this.pause();
    return this.show(this.hooks.window()[0]);
  }

  last() {
    this.pause();
    if (this.feed) return this.streamLast();
    const [a, b] = this.hooks.window();
    return this.show(Math.max(a, b - this.delta()));
  }

  stepBy(k) {
    this.pause();
    if (this.feed) return k > 0 ? this.streamStep() : null;
    const [a, b] = this.hooks.window();
    return this.show(Math.max(a, Math.min(b, this.t + k * this.step())));
  }

  seek(t) {
    const [a, b] = this.hooks.window();
    return this.show(Math.max(a, Math.min(b, t)));
  }

  // Fetches and draws the frame at t (a later request wins).
  async show(t) {
    this.t = t;
    const dt = this.delta();
    this.hooks.cursor(t, dt);
    const n = ++this.request;
    try {
      const f = await this.source.frame(t, dt, this.view === "nodes");
      if (n !== this.request) return;
      this.shown = f;
      if (!this.grad && f.cells.length) this.fitGradient(f.cells);
      this.el("p-error").textContent = "";
      this.draw();
    } catch (e) {
      this.el("p-error").textContent = String(e.message || e);
      this.pause();
    }
  }

  resize() {
    const dpr = 1;
    for (const id of ["p-strip", "p-procs", "p-traffic", "p-whole", "p-kiviat", "p-mapping", "p-graph"]) {
      const c = this.el(id);
      c.width = Math.max(10, Math.floor(c.clientWidth * dpr));
      c.height = Math.max(10, Math.floor(c.clientHeight * dpr));
    }
  }

  // A canvas cleared for drawing, with the views' font.
  surface(cv) {
    const ctx = cv.getContext("2d");
    const W = cv.width, H = cv.height;
    ctx.clearRect(0, 0, W, H);
    ctx.font = "11px DejaVu Sans, Arial, sans-serif";
    return { ctx, W, H };
  }

  draw() {
    const f = this.shown;
    if (!f || !this.stage) return;
    if (!this.grad) { this.grad = [1, 2]; this.syncInputs(); }
    const t1 = f.t + f.dt;
    const fmt = (x) => `${x.toFixed(6)} s`;
    this.el("p-time").textContent = f.dt > 0 ? `${fmt(f.t)} – ${fmt(t1)}` : fmt(f.t);
    this.drawStrip();
    this.drawProcesses(f);
    this.drawMatrix(this.el("p-traffic"), f.cells, "in flight in this frame:", true, this.grad);
    if (this.feed) {
      const so = [...this.lit].map(([key, n]) => { const [from, to] = key.split(",").map(Number); return { from, to, count: n, rate: null }; });
      const most = Math.max(2, ...so.map((c) => c.count));
      this.drawMatrix(this.el("p-whole"), so, "so far, frames lit:", false, [1, most], true);
    } else {
      this.drawMatrix(this.el("p-whole"), this.stage.whole || [], "whole run:", false, this.byRate() ? this.grad : this.wholeGrad);
    }
    this.drawKiviat(f);
    this.drawMapping(f);
    this.drawGraph(f);
    this.drawLegend(f);
    if (this.nodeView && f.nodes) {
      if (f.nodes !== this.nodeView.frame) this.nodeView.show(Object.assign(f.nodes, { k: f.k }));
      else this.nodeView.draw();
    }
    document.body.dataset.frame = String(f.t);
  }

  drawStrip() {
    const cv = this.el("p-strip");
    const ctx = cv.getContext("2d");
    const W = cv.width, H = cv.height;
    ctx.clearRect(0, 0, W, H);
    ctx.fillStyle = "#f3f3f6";
    ctx.fillRect(0, 0, W, H);
    const [a, b] = this.hooks.window();
    if (this.feed) {
      // The frames read ahead of the one shown, up to the input read.
      const x = ((this.t - a) / ((b - a) || 1)) * W;
      ctx.fillStyle = "#9aa6c0";
      ctx.fillRect(x, 4, W - x, H - 8);
      ctx.fillStyle = "#d0302f";
      ctx.fillRect(x, 0, 2, H);
      ctx.fillStyle = "#333";
      ctx.font = "11px DejaVu Sans, Arial, sans-serif";
      const info = this.streamInfo || {};
      const state = info.error ? `failed: ${info.error}` : info.done ? "input ended" : "reading";
      ctx.fillText(`frame ${this.shown?.k ?? "–"} · input read to ${(info.time ?? 0).toFixed(3)} s · ${state}`, 6, H - 8);
      return;
    }
    const ov = this.stage.overview || [];
    const m = this.meta;
    if (ov.length) {
      // Messages started over the run, as bars; the timeline's window
      // marked.
      const most = Math.max(1, ...ov);
      ctx.fillStyle = "#9aa6c0";
      for (let i = 0; i < ov.length; i++) {
        const t = m.start + ((i + 0.5) / ov.length) * (m.end - m.start);
        if (t < a || t > b) continue;
        const x0 = ((m.start + (i / ov.length) * (m.end - m.start) - a) / (b - a)) * W;
        const x1 = ((m.start + ((i + 1) / ov.length) * (m.end - m.start) - a) / (b - a)) * W;
        const h = (ov[i] / most) * (H - 4);
        ctx.fillRect(x0, H - h, Math.max(1, x1 - x0), h);
      }
    }
    const x = ((this.t - a) / (b - a)) * W;
    const w = Math.max(2, (this.delta() / (b - a)) * W);
    ctx.fillStyle = "#d0302f55";
    ctx.fillRect(x, 0, w, H);
    ctx.fillStyle = "#d0302f";
    ctx.fillRect(x, 0, 2, H);
  }

  // Hosts as boxes of squares, laid out left to right, the largest squares
  // that fit.
  layout(W, H) {
    const hosts = this.stage.hosts.filter((h) => h.processes.length).map((h) => ({ name: h.name, ps: h.processes }));
    const loose = this.stage.processes.map((p, i) => i).filter((i) => this.stage.processes[i].host == null);
    if (loose.length) hosts.push({ name: hosts.length ? "(no host)" : "", ps: loose });
    const LABEL = hosts.some((h) => h.name) ? 14 : 0;
    for (let s = 88; s >= 3; s = Math.floor(s * 0.9)) {
      const boxes = [];
      let x = 4, y = 4, lineH = 0, fits = true;
      for (const h of hosts) {
        const cols = Math.max(1, Math.ceil(Math.sqrt(h.ps.length)));
        const rows = Math.ceil(h.ps.length / cols);
        const bw = cols * s + 8, bh = rows * s + LABEL + 6;
        if (x + bw > W && x > 4) { x = 4; y += lineH + 4; lineH = 0; }
        if (y + bh > H || bw > W) { fits = false; break; }
        boxes.push({ h, x, y, cols, s, bw, bh, LABEL });
        x += bw + 4;
        lineH = Math.max(lineH, bh);
      }
      if (fits) return boxes;
    }
    return null;
  }

  drawProcesses(f) {
    const { ctx, W, H } = this.surface(this.el("p-procs"));
    this.boxes = [];
    const boxes = this.layout(W, H);
    if (!boxes) {
      ctx.fillStyle = "#666";
      ctx.fillText(`${this.stage.processes.length} processes do not fit here`, 8, 16);
      return;
    }
    const css = ([r, g, b]) => `rgb(${r},${g},${b})`;
    for (const bx of boxes) {
      ctx.strokeStyle = "#bbb";
      ctx.strokeRect(bx.x + 0.5, bx.y + 0.5, bx.bw - 1, bx.bh - 1);
      if (bx.LABEL) {
        ctx.fillStyle = "#444";
        ctx.save();
        ctx.beginPath(); ctx.rect(bx.x, bx.y, bx.bw, bx.LABEL + 2); ctx.clip();
        ctx.fillText(bx.h.name, bx.x + 3, bx.y + 11);
        ctx.restore();
      }
      bx.h.ps.forEach((p, k) => {
        const x = bx.x + 4 + (k % bx.cols) * bx.s;
        const y = bx.y + bx.LABEL + 3 + Math.floor(k / bx.cols) * bx.s;
        const st = f.states[p];
        const inner = bx.s > 4 ? bx.s - 1 : bx.s;
        ctx.fillStyle = st && st.value != null ? css(this.colorOf(st.value)) : "#f4f4f4";
        ctx.fillRect(x, y, inner, inner);
        // The shares of the values over the frame: a band at the bottom.
        if (st && st.shares.length > 1 && bx.s >= 10) {
          const bh = Math.max(2, Math.floor(inner / 5));
          let xx = x;
          for (const [v, share] of st.shares) {
            const w = share * inner;
            ctx.fillStyle = css(this.colorOf(v));
            ctx.fillRect(xx, y + inner - bh, Math.max(w, 1), bh);
            xx += w;
          }
          ctx.fillStyle = "#0006";
          ctx.fillRect(x, y + inner - bh - 1, inner, 1);
        }
        // The name inside a large square, in black or white for contrast.
        if (inner >= 40) {
          const [r, g, b] = st && st.value != null ? this.colorOf(st.value) : [244, 244, 244];
          ctx.fillStyle = r * 0.3 + g * 0.59 + b * 0.11 > 140 ? "#000" : "#fff";
          ctx.save();
          ctx.beginPath(); ctx.rect(x, y, inner, inner); ctx.clip();
          ctx.fillText(this.stage.processes[p].name, x + 3, y + 13);
          ctx.restore();
        }
        this.boxes.push({ p, x, y, s: inner });
      });
    }
  }

  drawMatrix(cv, cells, title, frame, grad, counts = false) {
    const { ctx, W, H } = this.surface(cv);
    ctx.fillStyle = "#333";
    const what = counts ? "" : this.byRate() ? (frame ? "effective rate (bit/s)" : "mean effective rate (bit/s)") : "messages";
    ctx.fillText(`${title} ${what}`, 4, 12);
    const n = this.stage.processes.length;
    // Names beside the rows and above the columns when they fit.
    const named = n <= 48;
    const names = this.stage.processes.map((p) => p.name);
    const longest = named ? Math.min(90, Math.max(0, ...names.map((t) => ctx.measureText(t).width)) + 6) : 0;
    let size = Math.max(1, Math.min(W - 8 - longest, H - 50 - longest));
    if (named && size / n < 9) size = Math.max(1, Math.min(W - 8, H - 50));
    const labelled = named && size / n >= 9;
    const x0 = 4 + (labelled ? longest : 0), y0 = 18 + (labelled ? longest : 0);
    if (labelled) {
      const c = size / n;
      ctx.fillStyle = "#444";
      ctx.save();
      ctx.beginPath(); ctx.rect(0, 0, x0, y0 + size); ctx.clip();
      names.forEach((t, i) => ctx.fillText(t, x0 - 4 - ctx.measureText(t).width, y0 + (i + 0.5) * c + 4));
      ctx.restore();
      names.forEach((t, i) => {
        ctx.save();
        ctx.translate(x0 + (i + 0.5) * c + 4, y0 - 4);
        ctx.rotate(-Math.PI / 2);
        ctx.beginPath(); ctx.rect(0, -12, longest, 16); ctx.clip();
        ctx.fillText(t, 0, 0);
        ctx.restore();
      });
    }
    ctx.fillStyle = "#e6e6ea";
    ctx.fillRect(x0, y0, size, size);
    const c = size / Math.max(1, n);
    for (const cell of cells) {
      const [r, g, b] = this.shade(counts ? cell.count : this.cellValue(cell), grad);
      ctx.fillStyle = `rgb(${r},${g},${b})`;
      ctx.fillRect(x0 + cell.to * c, y0 + cell.from * c, Math.max(1, c), Math.max(1, c));
    }
    // Host separators.
    ctx.strokeStyle = "#9995";
    let k = 0;
    for (const h of this.stage.hosts) {
      k += h.processes.length;
      if (k >= n) break;
      ctx.beginPath();
      ctx.moveTo(x0 + k * c, y0); ctx.lineTo(x0 + k * c, y0 + size);
      ctx.moveTo(x0, y0 + k * c); ctx.lineTo(x0 + size, y0 + k * c);
      ctx.stroke();
    }
    ctx.strokeStyle = "#888";
    ctx.strokeRect(x0 + 0.5, y0 + 0.5, size - 1, size - 1);
    // The gradient's scale under the matrix.
    const gy = y0 + size + 6;
    for (let i = 0; i < size; i++) {
      const [lo, hi] = grad;
      const v = lo * Math.pow(hi / lo, i / size);
      const [r, g, b] = this.shade(v, grad);
      ctx.fillStyle = `rgb(${r},${g},${b})`;
      ctx.fillRect(x0 + i, gy, 1, 8);
    }
    ctx.fillStyle = "#333";
    ctx.fillText(`${Player.si(grad[0])}`, x0, gy + 20);
    const hiText = `${Player.si(grad[1])}`;
    ctx.fillText(hiText, x0 + size - ctx.measureText(hiText).width, gy + 20);
    if (frame) this.cellBox = { x: x0, y: y0, size, n };
    // A stream's messages whose receiver has not come yet: a bar right of
    // the sender's row.
    if (frame && this.shown?.pending?.length) {
      ctx.fillStyle = "#e8730c";
      for (const [p, k] of this.shown.pending) {
        ctx.fillRect(x0 + size + 2, y0 + p * c, Math.min(W - x0 - size - 2, 3 + 3 * Math.log2(1 + k)), Math.max(1, c - 1));
      }
    }
    if (!cells.length) {
      ctx.fillStyle = "#666";
      ctx.fillText(frame ? "no message in flight" : "no messages", x0 + 6, y0 + 16);
      if (!frame && this.stage.note) {
        // Why (a platform's links are not messages): wrapped in the matrix.
        let line = "", y = y0 + 32;
        for (const w of this.stage.note.split(" ")) {
          if (ctx.measureText(line + " " + w).width > size - 12 && line) {
            ctx.fillText(line, x0 + 6, y); y += 14; line = w;
          } else line = line ? line + " " + w : w;
        }
        if (line) ctx.fillText(line, x0 + 6, y);
      }
    }
  }

  drawKiviat(f) {
    const { ctx, W, H } = this.surface(this.el("p-kiviat"));
    ctx.fillStyle = "#333";
    const hosts = this.stage.hosts;
    if (!this.stage.kiviat || hosts.length < 3) {
      ctx.fillText(hosts.length < 3 ? "Kiviat: fewer than 3 hosts" : this.feed ? "Kiviat: needs the whole run (not in a stream)" : "Kiviat: not available when the trace is read by blocks", 4, 12);
      return;
    }
    ctx.fillText(`share of network messages so far (${f.sent}${this.feed ? " received" : ""})`, 4, 12);
    const cx = W / 2, cy = H / 2 + 6, R = Math.max(10, Math.min(W - 120, H - 50) / 2);
    let scale = this.stage.kiviat_scale;
    if (!scale) {
      // A stream: the rim grows with the largest share seen, by tenths.
      const top = Math.max(0, ...(f.kiviat || []));
      this.rim = Math.max(this.rim || 0.1, Math.min(1, Math.ceil(top * 10) / 10));
      scale = this.rim;
    }
    const n = hosts.length;
    const at = (i, r) => [cx + Math.sin((2 * Math.PI * i) / n) * r, cy - Math.cos((2 * Math.PI * i) / n) * r];
    ctx.strokeStyle = "#ccc";
    for (const ring of [0.25, 0.5, 0.75, 1]) {
      ctx.beginPath();
      for (let i = 0; i <= n; i++) { const [x, y] = at(i % n, R * ring); i ? ctx.lineTo(x, y) : ctx.moveTo(x, y); }
      ctx.stroke();
    }
    for (let i = 0; i < n; i++) {
      const [x, y] = at(i, R);
      ctx.beginPath(); ctx.moveTo(cx, cy); ctx.lineTo(x, y); ctx.stroke();
    }
    ctx.beginPath();
    for (let i = 0; i <= n; i++) {
      const r = Math.min(1, (f.kiviat[i % n] || 0) / scale) * R;
      const [x, y] = at(i % n, r);
      i ? ctx.lineTo(x, y) : ctx.moveTo(x, y);
    }
    ctx.fillStyle = "#d0302f44";
    ctx.fill();
    ctx.strokeStyle = "#d0302f";
    ctx.stroke();
    if (n <= 24) {
      ctx.fillStyle = "#444";
      for (let i = 0; i < n; i++) {
        const [x, y] = at(i, R + 9);
        const t = hosts[i].name;
        ctx.fillText(t, x - ctx.measureText(t).width / 2, y + 4);
      }
    }
    ctx.fillStyle = "#666";
    ctx.fillText(`rim: ${(100 * scale).toFixed(0)} %`, 4, H - 4);
  }

  // What each process does in the frame (seed 001's mapping): sending (a
  // message it sent is in flight), else receiving, else busy (a state),
  // else idle.
  activity(f) {
    const n = this.stage.processes.length;
    const act = new Array(n).fill("idle");
    f.states.forEach((st, p) => { if (st && st.value != null) act[p] = "busy"; });
    for (const c of f.cells) if (act[c.to] !== "sending") act[c.to] = "receiving";
    for (const c of f.cells) act[c.from] = "sending";
    return act;
  }

  static ACTIVITY = { sending: "#d62728", receiving: "#1f77b4", busy: "#2ca02c", idle: "#cfcfcf" };

  activityLegend(ctx, H) {
    let x = 4;
    for (const [k, c] of Object.entries(Player.ACTIVITY)) {
      ctx.fillStyle = c;
      ctx.fillRect(x, H - 11, 9, 9);
      ctx.fillStyle = "#444";
      ctx.fillText(k, x + 12, H - 3);
      x += 18 + ctx.measureText(k).width;
    }
  }

  // Hosts around a circle, each a cluster of its processes coloured by what
  // they do in the frame.
  drawMapping(f) {
    const { ctx, W, H } = this.surface(this.el("p-mapping"));
    ctx.fillStyle = "#333";
    ctx.fillText("mapping: processes by host", 4, 12);
    const act = this.activity(f);
    const hosts = this.stage.hosts.filter((h) => h.processes.length);
    const groups = hosts.length ? hosts.map((h) => h.processes) : [this.stage.processes.map((_, i) => i)];
    const cx = W / 2, cy = (H - 14) / 2 + 8, R = Math.max(8, Math.min(W, H - 34) / 2 - 14);
    const r = Math.max(4, Math.min(R * 0.45, (Math.PI * R) / Math.max(1, groups.length)));
    this.mapped = act;
    groups.forEach((ps, g) => {
      const a = (2 * Math.PI * g) / groups.length - Math.PI / 2;
      const hx = cx + (groups.length > 1 ? Math.cos(a) * R : 0), hy = cy + (groups.length > 1 ? Math.sin(a) * R : 0);
      ctx.strokeStyle = "#bbb";
      ctx.beginPath(); ctx.arc(hx, hy, r, 0, 2 * Math.PI); ctx.stroke();
      if (hosts.length && groups.length <= 24) {
        ctx.fillStyle = "#555";
        const name = hosts[g].name;
        ctx.fillText(name, hx - ctx.measureText(name).width / 2, hy - r - 2);
      }
      const dot = Math.max(1.5, Math.min(6, r / Math.sqrt(ps.length + 1)));
      ps.forEach((p, k) => {
        const b = (2 * Math.PI * k) / ps.length;
        const rr = ps.length > 1 ? r * 0.6 : 0;
        ctx.fillStyle = Player.ACTIVITY[act[p]];
        ctx.beginPath(); ctx.arc(hx + Math.cos(b) * rr, hy + Math.sin(b) * rr, dot, 0, 2 * Math.PI); ctx.fill();
      });
    });
    this.activityLegend(ctx, H);
  }

  // The processes placed by the force-directed layout of the run's
  // messages; an edge appears when its first message starts, and is drawn
  // red while one is in flight.
  drawGraph(f) {
    const { ctx, W, H } = this.surface(this.el("p-graph"));
    ctx.fillStyle = "#333";
    const lay = this.stage.layout;
    if (!lay || !lay.some((p) => p)) {
      ctx.fillText("graph: no layout (no messages, or the trace is read by blocks)", 4, 12);
      return;
    }
    const t1 = f.t + f.dt;
    const known = (this.stage.contacts || []).filter((c) => c[2] <= t1);
    ctx.fillText(`graph: ${known.length} of ${(this.stage.contacts || []).length} pairs have talked`, 4, 12);
    const pad = 12;
    const X = (p) => pad + lay[p][0] * (W - 2 * pad), Y = (p) => 18 + lay[p][1] * (H - 36);
    const flying = new Set(f.cells.map((c) => `${Math.min(c.from, c.to)},${Math.max(c.from, c.to)}`));
    for (const [a, b] of known) {
      if (!lay[a] || !lay[b]) continue;
      const hot = flying.has(`${a},${b}`);
      ctx.strokeStyle = hot ? "#d62728" : "#9995";
      ctx.lineWidth = hot ? 2 : 1;
      ctx.beginPath(); ctx.moveTo(X(a), Y(a)); ctx.lineTo(X(b), Y(b)); ctx.stroke();
    }
    ctx.lineWidth = 1;
    const act = this.activity(f);
    lay.forEach((p, i) => {
      if (!p) return;
      ctx.fillStyle = Player.ACTIVITY[act[i]];
      ctx.beginPath(); ctx.arc(X(i), Y(i), 4, 0, 2 * Math.PI); ctx.fill();
    });
    this.edges = known.length;
    this.activityLegend(ctx, H);
  }

  // One entry per label and colour, labels in natural order.
  drawLegend(f) {
    const seen = new Map();
    for (const st of f.states) {
      for (const v of st.value != null ? [st.value, ...st.shares.map((s) => s[0])] : []) {
        const key = `${this.meta.values[v].label}\u0000${this.colorOf(v).join(",")}`;
        if (!seen.has(key)) seen.set(key, v);
      }
    }
    const el = this.el("p-legend");
    el.replaceChildren();
    const label = (v) => this.meta.values[v].label;
    for (const v of [...seen.values()].sort((a, b) => natural(label(a), label(b)))) {
      const s = document.createElement("span");
      const i = document.createElement("i");
      const [r, g, b] = this.colorOf(v);
      i.style.background = `rgb(${r},${g},${b})`;
      s.append(i, label(v));
      el.append(s);
    }
  }

  tip(ev, html) {
    const tip = this.el("p-tip");
    tip.innerHTML = html;
    tip.hidden = false;
    tip.style.left = `${ev.clientX + 12}px`;
    tip.style.top = `${ev.clientY + 12}px`;
  }

  static esc(s) { return String(s).replace(/[&<>"]/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;" })[c]); }

  hover(ev) {
    const b = this.boxes.find((b) => ev.offsetX >= b.x && ev.offsetX < b.x + b.s && ev.offsetY >= b.y && ev.offsetY < b.y + b.s);
    if (!b || !this.shown) { this.el("p-tip").hidden = true; return; }
    const p = this.stage.processes[b.p];
    const st = this.shown.states[b.p] || { value: null, shares: [] };
    const name = (v) => Player.esc(this.meta.values[v].name);
    let html = `<b>${Player.esc(p.name)}</b>`;
    if (p.host != null) html += ` <span class="dim">on ${Player.esc(this.stage.hosts[p.host].name)}</span>`;
    html += `<br>${st.value != null ? name(st.value) : "no state"}`;
    for (const [v, s] of st.shares.slice(0, 6)) html += `<br><span class="dim">${name(v)}: ${(100 * s).toFixed(1)} %</span>`;
    this.tip(ev, html);
  }

  hoverCell(ev) {
    const c = this.cellBox;
    if (!c || !this.shown) return;
    const k = c.size / Math.max(1, c.n);
    const to = Math.floor((ev.offsetX - c.x) / k), from = Math.floor((ev.offsetY - c.y) / k);
    if (to < 0 || from < 0 || to >= c.n || from >= c.n) { this.el("p-tip").hidden = true; return; }
    const P = this.stage.processes;
    const cell = this.shown.cells.find((x) => x.from === from && x.to === to);
    const whole = (this.stage.whole || []).find((x) => x.from === from && x.to === to);
    let html = `${Player.esc(P[from].name)} → ${Player.esc(P[to].name)}`;
    html += cell ? `<br>${cell.count} in flight` + (cell.rate != null ? `, ${Player.si(cell.rate)}bit/s` : "") : "<br>none in flight";
    if (whole) html += `<br><span class="dim">whole run: ${whole.count}` + (whole.rate != null ? `, mean ${Player.si(whole.rate)}bit/s` : "") + "</span>";
    this.tip(ev, html);
  }

  // ---- a stream (trama view --stream) ----

  async openStream(feed) {
    this.feed = feed;
    this.queue = [];
    this.lastK = -1;
    this.lit = new Map();     // "from,to" -> frames in which the cell was lit
    this.first0 = null;       // the first frame's time
    this.hooks = {
      window: () => {
        const a = this.first0 ?? 0;
        return [a, Math.max(a + 1e-9, this.streamInfo?.time ?? a, this.t + this.step())];
      },
      cursor: () => {},
    };
    this.el("player").hidden = false;
    while (!feed.stage) {
      this.take(await feed.poll(this.lastK, false));
      if (!feed.stage) await new Promise((r) => setTimeout(r, 200));
    }
    this.listen();
    this.el("p-speed").value = String(this.speed);
    this.resize();
    await this.streamStep();
  }

  take(j) {
    this.streamInfo = j;
    for (const f of j.frames) {
      this.queue.push(f);
      this.lastK = f.k;
    }
    if (this.feed.stage && this.feed.version !== this.stageVersion) {
      const st = this.feed.stage;
      this.stage = st;
      this.stageVersion = this.feed.version;
      this.meta = { values: st.values };
      const cols = st.values.map((v) => [1, 3, 5].map((i) => parseInt(v.color.slice(i, i + 2), 16)));
      this.colorOf = (v) => cols[v] || [128, 128, 128];
      this.setupNodes(st.nodes);
    }
  }

  // Shows the next frame of the stream; false when there is none (yet).
  async streamStep() {
    if (!this.queue.length) this.take(await this.feed.poll(this.lastK, false));
    const f = this.queue.shift();
    if (!f) {
      this.el("p-error").textContent = this.streamInfo?.error ? `the stream failed: ${this.streamInfo.error}`
        : this.streamInfo?.done ? "the input has ended" : "waiting for the input…";
      if (this.shown) this.drawStrip();
      return false;
    }
    this.el("p-error").textContent = "";
    if (this.first0 == null) this.first0 = f.t;
    this.t = f.t;
    this.shown = f;
    for (const c of f.cells) {
      const key = `${c.from},${c.to}`;
      this.lit.set(key, (this.lit.get(key) || 0) + 1);
    }
    if (!this.grad && f.cells.length) this.fitGradient(f.cells);
    this.draw();
    return true;
  }

  async streamLast() {
    this.queue = [];
    this.take(await this.feed.poll(this.lastK, true));
    return this.streamStep();
  }

  // What the frame on screen shows, for scripts.
  describe() {
    const f = this.shown;
    if (!f) return null;
    const hex = (rgb) => "#" + rgb.map((x) => x.toString(16).padStart(2, "0")).join("");
    const P = this.stage.processes;
    return {
      t: f.t,
      dt: f.dt,
      k: f.k ?? null,
      pending: (f.pending || []).map(([p, n]) => [P[p].name, n]),
      playing: this.playing,
      step: this.step(),
      gradient: [...this.grad],
      processes: P.map((p, i) => {
        // A stream's stage may have grown since this frame was cut.
        const st = f.states[i] || { value: null, shares: [] };
        return {
          name: p.name,
          host: p.host == null ? null : this.stage.hosts[p.host].name,
          value: st.value == null ? null : this.meta.values[st.value].name,
          color: st.value == null ? null : hex(this.colorOf(st.value)),
          shares: st.shares.map(([v, s]) => [this.meta.values[v].name, s]),
        };
      }),
      cells: f.cells.map((c) => ({
        from: P[c.from].name, to: P[c.to].name, count: c.count, rate: c.rate,
        color: hex(this.shade(this.cellValue(c))),
      })),
      kiviat: this.stage.kiviat ? this.stage.hosts.map((h, i) => [h.name, f.kiviat[i]]) : null,
      activity: Object.fromEntries(this.activity(f).map((a, i) => [P[i].name, a])),
      edges: this.edges ?? null,
      view: this.view,
      nodes: this.nodeView ? this.nodeView.describe() : null,
    };
  }

  // Client coordinates of a process's square, and of a cell of the frame's
  // matrix, for scripts.
  squareAt(name) {
    const i = this.stage.processes.findIndex((p) => p.name === name);
    const b = this.boxes.find((b) => b.p === i);
    if (!b) return null;
    const r = this.el("p-procs").getBoundingClientRect();
    return [r.left + b.x + b.s / 2, r.top + b.y + b.s / 4];
  }

  cellAt(from, to) {
    const P = this.stage.processes;
    const i = P.findIndex((p) => p.name === from), j = P.findIndex((p) => p.name === to);
    const c = this.cellBox;
    if (i < 0 || j < 0 || !c) return null;
    const k = c.size / Math.max(1, c.n);
    const r = this.el("p-traffic").getBoundingClientRect();
    return [r.left + c.x + (j + 0.5) * k, r.top + c.y + (i + 0.5) * k];
  }
}
