// The "why" panel: why the run was slow (api/why). The wait-state
// patterns with their total time, most first; a click on a pattern lists
// its most severe instances, a click on an instance zooms the timeline to
// it (the instance in the middle half of the window) and frames it. The
// overlay (overlay.js) draws the wait states and the critical path of the
// window, with legend entries that hide or show them; the statistics
// panel shows the critical path's profile (`profile`).

import { $, fmtTime, esc } from "./util.js";
import { WAIT_STYLES, overlayIn, placeOverlay, thinWaits, drawOverlay, rowTops } from "./overlay.js";

// The window around an instance [t0, t1]: it fills the middle half.
export function zoomWindow(t0, t1) {
  const d = Math.max(t1 - t0, 1e-9);
  return [t0 - d / 2, t1 + d / 2];
}

export class WhyPanel {
  // source: where replies come from (source.js); state: the view's;
  // hooks: {setWindow(t0, t1), draw(), error(e), width()}.
  constructor(source, state, hooks) {
    this.source = source;
    this.state = state;
    this.hooks = hooks;
    this.summary = null;        // api/why's reply, once asked
    this.asked = null;          // its promise
    this.overlay = null;        // api/why/overlay's reply drawn
    this.hidden = new Set();    // pattern indices not drawn
    this.showPath = true;
    this.open = null;           // the pattern whose instances are listed
    this.selected = null;       // {row, t0, t1} of the instance chosen
    this.placed = { waits: [], path: [] };
    this.shownFor = null;       // the window the overlay was asked for
    this.timer = null;
    this.ctl = null;
  }

  // api/why's reply (asked once).
  load() {
    if (!this.asked) {
      this.asked = this.source.why().then((s) => {
        this.summary = s;
        this.legend();
        this.schedule();
        return s;
      }, (e) => {
        // Asked again next time (the server may have been busy).
        this.asked = null;
        throw e;
      });
    }
    return this.asked;
  }

  isOpen() {
    return !$("why").hidden;
  }

  async toggle() {
    $("why").hidden = !$("why").hidden;
    if (this.isOpen()) this.render(await this.load());
  }

  // The overlay of the window, soon.
  schedule() {
    if (!this.summary || !this.summary.available) return;
    clearTimeout(this.timer);
    this.timer = setTimeout(() => this.fetchOverlay().catch(this.hooks.error), 120);
  }

  async fetchOverlay() {
    if (this.ctl) this.ctl.abort();
    this.ctl = new AbortController();
    const { t0, t1 } = this.state;
    const o = await this.source.whyOverlay(t0, t1, this.hooks.width(), this.ctl.signal).catch((e) => {
      if (e.name !== "AbortError") this.hooks.error(e);
      return null;
    });
    if (!o) return;
    this.overlay = o;
    this.shownFor = [t0, t1];
    this.hooks.draw();
  }

  // Draws the overlay on the timeline's canvas (called by timeline.js's
  // draw through the state's `overlay` hook).
  draw(ctx, rows, W) {
    const s = this.state;
    const view = { t0: s.t0, t1: s.t1, W };
    const y = rowTops(s, rows);
    const shown = this.overlay ? overlayIn(this.overlay, s.t0, s.t1) : null;
    this.placed = placeOverlay(shown, view, y, this.hidden, this.showPath);
    this.placed.waits = thinWaits(this.placed.waits, view);
    drawOverlay(ctx, this.placed, this.selected, view, y);
  }

  // The legend's entries: one per pattern found (hatched) and the path.
  legend() {
    const s = this.summary;
    const el = $("legend");
    for (const old of el.querySelectorAll(".why")) old.remove();
    if (!s || !s.available) return;
    const entry = (label, swatch, title, toggle) => {
      const item = document.createElement("span");
      item.className = "item why";
      item.title = title;
      const sw = document.createElement("i");
      sw.style.background = swatch;
      item.append(sw, document.createTextNode(label));
      item.addEventListener("click", () => { item.classList.toggle("off", !toggle()); this.hooks.draw(); });
      el.append(item);
    };
    for (const p of s.patterns) {
      const st = WAIT_STYLES[p.index];
      const angle = st.dir === 0 ? 90 : st.dir > 0 ? -45 : 45;
      entry(`wait: ${p.pattern}`, `repeating-linear-gradient(${angle}deg, ${st.color} 0 1.5px, ${st.color}30 1.5px 4px)`,
        "wait states of this pattern, hatched over the states they occur in: click to hide or show",
        () => { const off = !this.hidden.has(p.index); off ? this.hidden.add(p.index) : this.hidden.delete(p.index); return !off; });
    }
    entry("critical path", "linear-gradient(#fff 0 35%, #111 35% 65%, #fff 65%)",
      "the critical path, drawn through the rows: click to hide or show",
      () => { this.showPath = !this.showPath; return this.showPath; });
  }

  // Fills the panel from api/why's reply.
  render(s) {
    const el = $("why");
    el.textContent = "";
    const h = (text) => { const e = document.createElement("h3"); e.textContent = text; el.append(e); };
    h("Why was it slow: wait states");
    if (!s.available) {
      const p = document.createElement("p");
      p.className = "why-unavailable";
      p.textContent = `No wait-state analysis: ${s.reason}`;
      el.append(p);
      document.body.dataset.why = "unavailable";
      return;
    }
    const span = s.end - s.start;
    // One unit for every row: that of the longest's hundredth.
    const most = s.patterns.length ? s.patterns[0].seconds : 0;
    const step = most / 100 || 1e-9;
    const waited = s.patterns.reduce((a, p) => a + p.seconds, 0);
    const note = document.createElement("p");
    note.className = "dim";
    note.textContent = `The whole run: ${s.processes.length} processes, ${fmtTime(span, span / 100)}, ` +
      `${fmtTime(waited, step)} waited in all. Click a pattern for its longest instances, an instance to zoom to it.`;
    el.append(note);
    if (!s.patterns.length) {
      const p = document.createElement("p");
      p.textContent = "No process waited.";
      el.append(p);
    }
    const t = document.createElement("table");
    t.className = "why-patterns";
    for (const p of s.patterns) {
      const tr = document.createElement("tr");
      tr.className = "pattern";
      tr.dataset.pattern = p.pattern;
      const st = WAIT_STYLES[p.index];
      tr.innerHTML = `<td><i></i>${esc(p.pattern)}</td>` +
        `<td class="n">${esc(fmtTime(p.seconds, step))}</td><td class="n">${p.instances}</td><td class="share"><b></b></td>`;
      // Colours and widths through the style object (the page's policy
      // forbids style attributes).
      tr.querySelector("i").style.background = st.color;
      const bar = tr.querySelector("b");
      bar.style.width = `${(100 * p.seconds / (most || 1)).toFixed(1)}%`;
      bar.style.background = st.color;
      tr.title = `click: its most severe instances · ${(100 * p.seconds / (waited || 1)).toFixed(1)} % of the time waited`;
      tr.addEventListener("click", () => { this.open = this.open === p.pattern ? null : p.pattern; this.render(s); });
      t.append(tr);
      if (this.open === p.pattern) t.append(this.instances(p));
    }
    el.append(t);
    document.body.dataset.why = "ready";
  }

  // The rows listing the most severe instances of pattern `p`.
  instances(p) {
    const tr = document.createElement("tr");
    const td = document.createElement("td");
    td.colSpan = 4;
    const t = document.createElement("table");
    t.className = "why-instances";
    t.innerHTML = "<tr><th>waiting</th><th>for</th><th>region</th><th>start</th><th>duration</th></tr>";
    p.top.forEach((w, i) => {
      const r = document.createElement("tr");
      r.className = "instance";
      r.dataset.index = String(i);
      r.innerHTML = `<td>${esc(w.container)}</td><td>${esc(w.waited_for ?? "—")}</td><td>${esc(w.region)}</td>` +
        `<td class="n">${esc(fmtTime(w.start, w.duration / 100 || 1e-9))}</td><td class="n">${esc(fmtTime(w.duration, w.duration / 100 || 1e-9))}</td>`;
      r.title = "click: zoom to it";
      r.addEventListener("click", () => this.choose(w));
      t.append(r);
    });
    if (p.instances > p.top.length) {
      const r = document.createElement("tr");
      r.innerHTML = `<td colspan="5" class="dim">… and ${p.instances - p.top.length} shorter</td>`;
      t.append(r);
    }
    td.append(t);
    tr.append(td);
    return tr;
  }

  // Zooms to instance `w` and frames it.
  choose(w) {
    this.selected = { row: w.row, t0: w.start, t1: w.start + w.duration };
    const [a, b] = zoomWindow(w.start, w.start + w.duration);
    this.hooks.setWindow(a, b);
  }

  // The critical path's profile, appended to the statistics panel `el`.
  async profile(el) {
    const s = await this.load().catch(() => null);
    if (!s) return;
    const h = document.createElement("h3");
    h.textContent = "Critical path (the whole run)";
    el.append(h);
    if (!s.available) {
      const p = document.createElement("p");
      p.className = "dim";
      p.textContent = `No critical path: ${s.reason}`;
      el.append(p);
      return;
    }
    const span = s.end - s.start || 1;
    const fmt = (x) => fmtTime(x, span / 1000);
    const table = (id, head, rows) => {
      const t = document.createElement("table");
      t.id = id;
      t.innerHTML = `<tr>${head.map((c) => `<th>${esc(c)}</th>`).join("")}</tr>` +
        rows.map((r) => `<tr>${r.map((c, i) => `<td${i ? ' class="n"' : ""}>${esc(c)}</td>`).join("")}</tr>`).join("");
      el.append(t);
    };
    table("why-regions", ["region", "on the path", "mean", "imbalance"],
      s.path.regions.map((r) => [r.value ?? "(no state)", fmt(r.seconds), fmt(r.mean), fmt(r.imbalance)]));
    const procs = s.path.processes.slice().sort((a, b) => b.seconds - a.seconds);
    table("why-processes", ["process", "on the path", "share", "imbalance"],
      procs.map((p) => [p.container, fmt(p.seconds), `${(100 * p.share).toFixed(1)} %`, fmt(p.imbalance)]));
  }

  // What the panel and the overlay show, for scripts that check the page.
  describe() {
    const el = $("why");
    const cells = (sel) => [...el.querySelectorAll(sel)].map((tr) => [...tr.children].map((td) => td.textContent));
    return {
      available: this.summary ? this.summary.available : null,
      reason: this.summary && !this.summary.available ? this.summary.reason : null,
      patterns: cells("tr.pattern").map((c, i) => ({ pattern: c[0], text: c[1], instances: Number(c[2]), seconds: this.summary.patterns[i].seconds })),
      listed: cells("tr.instance"),
      selected: this.selected,
      overlay: this.shownFor ? { t0: this.shownFor[0], t1: this.shownFor[1], width: this.overlay.width } : null,
      rows: (this.summary?.processes ?? []).map((p) => [p.name, p.row, p.row == null ? null : this.state.meta.rows[p.row].label]),
      waits: this.placed.waits.map(({ row, pattern, t0, t1, n }) => ({ row, pattern, t0, t1, n })),
      path: this.placed.path.map(({ row, t0, t1 }) => ({ row, t0, t1 })),
    };
  }

  // Client coordinates of the middle of pattern `name`'s row, or of its
  // listed instance `i`.
  rowAt(name, i) {
    const sel = i == null ? `tr.pattern[data-pattern="${name}"]` : `tr.instance[data-index="${i}"]`;
    const tr = $("why").querySelector(sel);
    if (!tr) return null;
    tr.scrollIntoView({ block: "nearest" });
    const r = tr.getBoundingClientRect();
    return [r.left + r.width / 2, r.top + r.height / 2];
  }
}
