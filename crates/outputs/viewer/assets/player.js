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
//
// This module holds the controls, the play loop and the frames asked for;
// each view draws itself from the player it is handed: anim-strip.js,
// anim-procs.js, anim-matrix.js (traffic and whole run), anim-kiviat.js,
// anim-mapping.js and anim-graph.js (with anim-activity.js),
// anim-legend.js, and nodes.js (the node/arc view); player-stream.js plays
// a stream.

import { $, esc, si, parseSi, hex } from "./util.js";
import { NodeView } from "./nodes.js";
import { streamMethods } from "./player-stream.js";
import { drawStrip } from "./anim-strip.js";
import { drawProcesses } from "./anim-procs.js";
import { drawMatrix, shade } from "./anim-matrix.js";
import { drawKiviat } from "./anim-kiviat.js";
import { activity } from "./anim-activity.js";
import { drawMapping, mappingHit } from "./anim-mapping.js";
import { drawGraph, graphHit } from "./anim-graph.js";
import { drawLegend } from "./anim-legend.js";

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
    this.rim = null;         // a stream's Kiviat rim so far
    this.edges = null;       // pairs drawn in the graph view
    this.request = 0;
  }

  async open() {
    if (!this.stage) {
      this.stage = await this.source.stage();
      const o = this.stage.player || {};
      if (o.rate) this.rate = o.rate;
      if (o.play_speed) this.speed = o.play_speed;
      $("p-speed").value = String(this.speed);
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
    $("player").hidden = false;
    this.resize();
    await this.show(this.t);
  }

  // The node/arc view, when the run has nodes; the view shown first is
  // it when there is no process to animate (OpenTS's ranks hold none).
  setupNodes(info) {
    const sel = $("p-view");
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
    $("p-view").value = this.view;
    $("player").classList.toggle("nodes", nodes);
    $("p-nodeview").hidden = !nodes;
    this.resize();
    // The node/arc view's frame is asked for only while it shows.
    if (nodes && this.shown && !this.shown.nodes && !this.feed) this.show(this.t);
    else this.draw();
  }

  toggleView() { this.setView(this.view === "nodes" ? "anim" : "nodes"); }

  close() {
    this.pause();
    $("player").hidden = true;
    this.hooks.cursor(null, 0);
  }

  isOpen() { return !$("player").hidden; }

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
    const on = (id, ev, f) => $(id).addEventListener(ev, f);
    on("p-first", "click", () => this.first());
    on("p-prev", "click", () => this.stepBy(-1));
    on("p-play", "click", () => (this.playing ? this.pause() : this.play()));
    on("p-next", "click", () => this.stepBy(1));
    on("p-last", "click", () => this.last());
    on("p-fit", "click", () => { this.fitGradient(this.shown?.cells || []); this.draw(); });
    on("p-close", "click", () => this.close());
    const num = (id, f) => on(id, "change", () => {
      const v = parseSi($(id).value);
      f(v);
      this.syncInputs();
      this.show(this.t);
    });
    num("p-rate", (v) => { this.rate = v > 0 ? v : null; });
    num("p-speed", (v) => { this.speed = v > 0 ? v : 0.1; });
    num("p-dt", (v) => { this.dt = v >= 0 && isFinite(v) ? v : null; });
    num("p-min", (v) => { if (isFinite(v) && this.grad) this.grad[0] = v; });
    num("p-max", (v) => { if (isFinite(v) && this.grad) this.grad[1] = v; });
    const strip = $("p-strip");
    const seek = (ev) => {
      const r = strip.getBoundingClientRect();
      const [a, b] = this.hooks.window();
      this.seek(a + ((ev.clientX - r.left) / r.width) * (b - a));
    };
    let dragging = false;
    strip.addEventListener("mousedown", (ev) => { dragging = true; seek(ev); });
    window.addEventListener("mousemove", (ev) => { if (dragging) seek(ev); });
    window.addEventListener("mouseup", () => { dragging = false; });
    $("p-procs").addEventListener("mousemove", (ev) => this.hover(ev));
    $("p-procs").addEventListener("mouseleave", () => { $("p-tip").hidden = true; });
    $("p-traffic").addEventListener("mousemove", (ev) => this.hoverCell(ev, this.cellBox));
    $("p-whole").addEventListener("mousemove", (ev) => this.hoverCell(ev, this.wholeBox));
    $("p-mapping").addEventListener("mousemove", (ev) => this.hoverDot(ev, mappingHit));
    $("p-graph").addEventListener("mousemove", (ev) => this.hoverDot(ev, graphHit));
    for (const id of ["p-traffic", "p-whole", "p-mapping", "p-graph"]) $(id).addEventListener("mouseleave", () => { $("p-tip").hidden = true; });
    // A double click on a view: it fills the player (again: back).
    for (const cv of document.querySelectorAll("#player .views > canvas")) {
      cv.addEventListener("dblclick", () => this.focus(cv.classList.contains("focus") ? null : cv.id));
    }
    window.addEventListener("resize", () => { if (this.isOpen()) { this.resize(); this.draw(); } });
  }

  // Shows view `id` alone, in the whole room of the views (null: all).
  focus(id) {
    for (const cv of document.querySelectorAll("#player .views > canvas")) cv.classList.toggle("focus", cv.id === id);
    document.querySelector("#player .views").classList.toggle("focus", id != null);
    this.resize();
    this.draw();
  }

  syncInputs() {
    const [a, b] = this.hooks.window();
    $("p-rate").placeholder = si((b - a) / 30);
    if (this.rate != null) $("p-rate").value = si(this.rate);
    $("p-dt").placeholder = `${si(this.step())} (a step)`;
    if (this.grad) {
      $("p-min").value = si(this.grad[0]);
      $("p-max").value = si(this.grad[1]);
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


  play() {
    if (this.playing) return;
    this.playing = true;
    $("p-play").textContent = "⏸";
    $("p-fit").disabled = true;
    this.loop();
  }

  pause() {
    this.playing = false;
    $("p-play").textContent = "▶";
    $("p-fit").disabled = false;
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
      $("p-error").textContent = "";
      this.draw();
    } catch (e) {
      $("p-error").textContent = String(e.message || e);
      this.pause();
    }
  }

  resize() {
    const dpr = 1;
    for (const id of ["p-strip", "p-procs", "p-traffic", "p-whole", "p-kiviat", "p-mapping", "p-graph"]) {
      const c = $(id);
      c.width = Math.max(10, Math.floor(c.clientWidth * dpr));
      c.height = Math.max(10, Math.floor(c.clientHeight * dpr));
    }
  }

  draw() {
    const f = this.shown;
    if (!f || !this.stage) return;
    if (!this.grad) { this.grad = [1, 2]; this.syncInputs(); }
    const t1 = f.t + f.dt;
    const fmt = (x) => `${x.toFixed(6)} s`;
    $("p-time").textContent = f.dt > 0 ? `${fmt(f.t)} – ${fmt(t1)}` : fmt(f.t);
    drawStrip(this);
    this.boxes = drawProcesses(this, f);
    this.cellBox = drawMatrix(this, $("p-traffic"), f.cells, "in flight in this frame:", true, this.grad);
    this.wholeBox = null;
    if (this.feed) {
      const so = [...this.lit].map(([key, n]) => { const [from, to] = key.split(",").map(Number); return { from, to, count: n, rate: null }; });
      const most = Math.max(2, ...so.map((c) => c.count));
      this.wholeBox = drawMatrix(this, $("p-whole"), so, "so far, frames lit:", false, [1, most], true);
    } else {
      this.wholeBox = drawMatrix(this, $("p-whole"), this.stage.whole || [], "whole run:", false, this.byRate() ? this.grad : this.wholeGrad);
    }
    this.rim = drawKiviat(this, f);
    drawMapping(this, f);
    this.edges = drawGraph(this, f);
    drawLegend(this, f);
    if (this.nodeView && f.nodes) {
      if (f.nodes !== this.nodeView.frame) this.nodeView.show(Object.assign(f.nodes, { k: f.k }));
      else this.nodeView.draw();
    }
    document.body.dataset.frame = String(f.t);
  }

  tip(ev, html) {
    const tip = $("p-tip");
    tip.innerHTML = html;
    tip.hidden = false;
    tip.style.left = `${ev.clientX + 12}px`;
    tip.style.top = `${ev.clientY + 12}px`;
  }

  hover(ev) {
    const b = this.boxes.find((b) => ev.offsetX >= b.x && ev.offsetX < b.x + b.s && ev.offsetY >= b.y && ev.offsetY < b.y + b.s);
    if (!b || !this.shown) { $("p-tip").hidden = true; return; }
    const p = this.stage.processes[b.p];
    const st = this.shown.states[b.p] || { value: null, shares: [] };
    const name = (v) => esc(this.meta.values[v].name);
    let html = `<b>${esc(p.name)}</b>`;
    if (p.host != null) html += ` <span class="dim">on ${esc(this.stage.hosts[p.host].name)}</span>`;
    html += `<br>${st.value != null ? name(st.value) : "no state"}`;
    for (const [v, s] of st.shares.slice(0, 6)) html += `<br><span class="dim">${name(v)}: ${(100 * s).toFixed(1)} %</span>`;
    this.tip(ev, html);
  }

  // The tooltip of a cell of the matrix at `c` (the frame's or the whole run's).
  hoverCell(ev, c) {
    if (!c || !this.shown) return;
    const k = c.size / Math.max(1, c.n);
    const to = Math.floor((ev.offsetX - c.x) / k), from = Math.floor((ev.offsetY - c.y) / k);
    if (to < 0 || from < 0 || to >= c.n || from >= c.n) { $("p-tip").hidden = true; return; }
    const P = this.stage.processes;
    const cell = this.shown.cells.find((x) => x.from === from && x.to === to);
    const whole = (this.stage.whole || []).find((x) => x.from === from && x.to === to);
    let html = `${esc(P[from].name)} → ${esc(P[to].name)}`;
    html += cell ? `<br>${cell.count} in flight` + (cell.rate != null ? `, ${si(cell.rate)}bit/s` : "") : "<br>none in flight";
    if (whole) html += `<br><span class="dim">whole run: ${whole.count}` + (whole.rate != null ? `, mean ${si(whole.rate)}bit/s` : "") + "</span>";
    this.tip(ev, html);
  }

  // The tooltip of the process under the pointer in the mapping or the
  // graph (`hit(stage, W, H, x, y)` finds it).
  hoverDot(ev, hit) {
    const cv = ev.currentTarget;
    const p = this.shown ? hit(this.stage, cv.width, cv.height, ev.offsetX, ev.offsetY) : -1;
    if (p < 0) { $("p-tip").hidden = true; return; }
    const P = this.stage.processes[p];
    let html = `<b>${esc(P.name)}</b>`;
    if (P.host != null) html += ` <span class="dim">on ${esc(this.stage.hosts[P.host].name)}</span>`;
    html += `<br>${activity(this.stage, this.shown)[p]}`;
    this.tip(ev, html);
  }

  describe() {
    const f = this.shown;
    if (!f) return null;
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
        color: hex(shade(this.cellValue(c), this.grad)),
      })),
      kiviat: this.stage.kiviat ? this.stage.hosts.map((h, i) => [h.name, f.kiviat[i]]) : null,
      activity: Object.fromEntries(activity(this.stage, f).map((a, i) => [P[i].name, a])),
      edges: this.edges ?? null,
      graph: this.graph ?? null,
      mapping: this.mapping ?? null,
      matrices: { frame: this.cellBox?.labels ?? null, whole: this.wholeBox?.labels ?? null },
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
    const r = $("p-procs").getBoundingClientRect();
    return [r.left + b.x + b.s / 2, r.top + b.y + b.s / 4];
  }

  cellAt(from, to) {
    const P = this.stage.processes;
    const i = P.findIndex((p) => p.name === from), j = P.findIndex((p) => p.name === to);
    const c = this.cellBox;
    if (i < 0 || j < 0 || !c) return null;
    const k = c.size / Math.max(1, c.n);
    const r = $("p-traffic").getBoundingClientRect();
    return [r.left + c.x + (j + 0.5) * k, r.top + c.y + (i + 0.5) * k];
  }
}

Object.assign(Player.prototype, streamMethods);
