// The statistics panel: time per state of each container, the messages
// (most first) and who waited for whom (waits.js), over the visible window
// or the player's frame when it lasts some time; an offline report shows
// the whole run's. Over 16 containers, their bars start folded.

import { $, fmtTime, css } from "./util.js";
import { WaitView, shortNames } from "./waits.js";

// Containers over which their time-per-state bars start folded.
const FOLD_OVER = 16;

export class StatsPanel {
  // source: where statistics come from (source.js); state: the view's
  // (store.js); hooks: {frame() the player's frame shown, or null; error(e);
  // more(el), optional: appends more sections}.
  constructor(source, state, hooks) {
    this.source = source;
    this.state = state;
    this.hooks = hooks;
    this.timer = null;
    this.ctl = null;
    this.waitView = null;    // the wait-time matrix, once shown
  }

  isOpen() {
    return !$("stats").hidden;
  }

  // Loads the statistics soon, when the panel is open.
  schedule() {
    if (!this.isOpen()) return;
    clearTimeout(this.timer);
    this.timer = setTimeout(() => this.load().catch(this.hooks.error), 250);
  }

  async load() {
    if (this.ctl) this.ctl.abort();
    this.ctl = new AbortController();
    const state = this.state;
    // The player's frame when it is open and lasts some time, else the window.
    const f = this.hooks.frame();
    const [w0, w1] = f ? [f.t, f.t + f.dt] : [state.t0, state.t1];
    const s = await this.source.stats(w0, w1, this.ctl.signal).catch((e) => {
      if (e.name !== "AbortError") this.hooks.error(e);
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
    const color = new Map(state.meta.values.map((v, i) => [v.label, css(state.colors[i])]));
    const byContainer = new Map();
    for (const row of (s.states ? s.states.rows : [])) {
      if (!byContainer.has(row.container)) byContainer.set(row.container, []);
      byContainer.get(row.container).push(row);
    }
    // Many containers: their bars fold, so that what follows stays in sight.
    let bars = el;
    if (byContainer.size > FOLD_OVER) {
      bars = document.createElement("details");
      bars.id = "stats-bars";
      const sum = document.createElement("summary");
      sum.textContent = `${byContainer.size} containers (unfold)`;
      bars.append(sum);
      bars.open = !!this.barsOpen;
      bars.addEventListener("toggle", () => { this.barsOpen = bars.open; });
      el.append(bars);
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
      bars.append(label, bar);
    }
    const pairs = (s.comm ? s.comm.pairs : []).slice().sort((a, b) => b.count - a.count).slice(0, 10);
    h(pairs.length ? "Messages (most first)" : "No messages in the window");
    // The pairs' names without what they all share (the full names on hover).
    const short = shortNames(pairs.flatMap((p) => [p.from, p.to]));
    table(el, pairs.map((p, k) => [short.names[2 * k], "→", short.names[2 * k + 1], p.count]), pairs.map((p) => `${p.from} → ${p.to}`));
    if (short.prefix || short.suffix) el.append(Object.assign(document.createElement("div"), { className: "dim", textContent: `names shown without “${short.prefix}” … “${short.suffix}”` }));
    h("Who waited for whom");
    const box = document.createElement("div");
    box.id = "waits";
    el.append(box);
    if (!this.waitView) this.waitView = new WaitView((name) => color.get(name) || "#888");
    this.waitView.show(box, s.wait, s.states);
    // What other modules add (the critical path's profile).
    if (this.hooks.more) await this.hooks.more(el);
    document.body.dataset.stats = s.whole ? "whole" : `${w0},${w1}`;
  }
}

// A table of `rows` (arrays of cells; numbers right-aligned) appended to
// `el`, each row with its `titles` entry (if any) on hover.
function table(el, rows, titles = []) {
  const t = document.createElement("table");
  for (const [k, r] of rows.entries()) {
    const tr = document.createElement("tr");
    if (titles[k]) tr.title = titles[k];
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
