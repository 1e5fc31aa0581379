// The selection: an area of the timeline, rows × time, and its panel.
// In selection mode (the header's "select" button, or x) a drag over the
// timeline selects the rows it crosses (a collapsed container brings its
// subtree) over the times it spans; "whole run" selects every container
// over the run. The panel lists, per state value, what
// `trama stats states --window T0,T1` gives for those containers
// (api/selection; seltable.js adds the rows up), sortable by any column,
// per container on demand, copied or saved as CSV; and the messages with
// an end among them. An offline report holds the time per state of the
// whole run only: it answers a selection of the whole run, and says so
// for any other.

import { $, esc, fmtTime, si } from "./util.js";
import { AXIS_H, rowAt, rowHeight, rowTops, rowsOnScreen, parents } from "./rows.js";
import { VALUE_COLUMNS, CONTAINER_COLUMNS, byValue, byContainer, messageTotals, sortRows, toCsv, selectionTitle } from "./seltable.js";

// The CSV's extra column (inclusive time), after self.
function csvColumns(columns) {
  const i = columns.findIndex((c) => c[0] === "exclusive");
  return [...columns.slice(0, i + 1), ["inclusive", "inclusive", "time"], ...columns.slice(i + 1)];
}

export class SelectionPanel {
  // source: source.js's; state: the view's (store.js); hooks: {draw(),
  // layout() (the panel opened or closed), timeAt(x), error(e),
  // changed() (the area, for the URL)}.
  constructor(source, state, hooks) {
    this.source = source;
    this.state = state;
    this.hooks = hooks;
    this.mode = false;        // a drag selects (else it pans)
    this.area = null;         // {t0, t1, a, b, containers} (a, b: `visible` indices)
    this.drag = null;
    this.reply = null;        // api/selection's reply for the area
    this.sort = { key: "exclusive", desc: true };
    this.perContainer = false;
    this.ctl = null;
  }

  // Selection mode on or off.
  toggleMode() {
    this.mode = !this.mode;
    document.body.classList.toggle("selecting", this.mode);
    $("select-button").classList.toggle("on", this.mode);
  }

  // A press on the timeline: starts a selection in selection mode (true:
  // the press is taken).
  press(ev) {
    if (!this.mode || ev.button !== 0) return false;
    const cv = $("timeline");
    const at = (e) => {
      const r = cv.getBoundingClientRect();
      return { t: this.hooks.timeAt(e.clientX - r.left), k: this.rowIndex(e.clientY - r.top) };
    };
    const start = at(ev);
    this.drag = start;
    const move = (e) => {
      const p = at(e);
      this.setArea(start.t, p.t, start.k, p.k, false);
      this.hooks.draw();
    };
    const up = (e) => {
      window.removeEventListener("mousemove", move);
      window.removeEventListener("mouseup", up);
      this.drag = null;
      const p = at(e);
      if (p.t === start.t) { this.hooks.draw(); return; }
      this.setArea(start.t, p.t, start.k, p.k, true);
    };
    window.addEventListener("mousemove", move);
    window.addEventListener("mouseup", up);
    ev.preventDefault();
    return true;
  }

  // The index in `visible` of the row at `y` pixels of the timeline,
  // kept within the rows shown.
  rowIndex(y) {
    const s = this.state;
    const H = $("timeline").height;
    const ri = rowAt(s, H, y);
    // Above the rows: the first shown; below them: the last shown.
    const shown = rowsOnScreen(s, H);
    const k = ri != null ? s.visible.indexOf(ri)
      : y < AXIS_H || !shown.length ? s.scroll : s.visible.indexOf(shown[shown.length - 1]);
    return Math.max(0, Math.min(s.visible.length - 1, k));
  }

  // Selects times t0..t1 (either order) of visible rows a..b; `load`: asks
  // for the statistics.
  setArea(t0, t1, a, b, load) {
    const s = this.state;
    [t0, t1] = t0 <= t1 ? [t0, t1] : [t1, t0];
    [a, b] = a <= b ? [a, b] : [b, a];
    const rows = s.visible.slice(a, b + 1);
    const hasChildren = parents(s.meta);
    const subtrees = rows.some((r) => s.collapsed.has(s.meta.rows[r].container) && hasChildren.has(s.meta.rows[r].container));
    this.area = { t0, t1, a, b, containers: this.containersOf(rows), subtrees };
    if (load) this.open();
  }

  // The selection in the URL's fragment, as fromHash reads it.
  toHash() {
    const A = this.area;
    if (!A) return [];
    return [A.containers ? `select=${A.t0},${A.t1},${A.a},${A.b}` : "select"];
  }

  // The selection of a URL's `#select=T0,T1,A,B` (A, B: indices of the
  // rows shown); an empty one selects the whole run.
  fromHash(text) {
    const v = (text || "").split(",").map(Number);
    if (v.length === 4 && v.every(isFinite) && v[1] > v[0]) {
      const last = this.state.visible.length - 1;
      this.setArea(v[0], v[1], Math.max(0, Math.min(last, v[2])), Math.max(0, Math.min(last, v[3])), true);
    } else {
      this.selectAll();
    }
  }

  // Every container over the whole run.
  selectAll() {
    const m = this.state.meta;
    this.area = { t0: m.start, t1: m.end, a: 0, b: this.state.visible.length - 1, containers: null };
    this.open();
  }

  // The container ids of meta rows `rows`, with the subtrees of collapsed
  // containers, in the order of meta.containers.
  containersOf(rows) {
    const m = this.state.meta;
    const ids = new Set();
    const byId = new Map(m.containers.map((c) => [c.id, c]));
    const add = (id) => {
      ids.add(id);
      if (this.state.collapsed.has(id)) for (const c of byId.get(id)?.children || []) addAll(c);
    };
    const addAll = (id) => {
      ids.add(id);
      for (const c of byId.get(id)?.children || []) addAll(c);
    };
    for (const r of rows) add(m.rows[r].container);
    return m.containers.map((c) => c.id).filter((id) => ids.has(id));
  }

  // Draws the area over the timeline (the view's overlay).
  draw(ctx, rows, W) {
    const A = this.area;
    if (!A) return;
    const s = this.state;
    const X = (t) => ((t - s.t0) / (s.t1 - s.t0)) * W;
    const tops = rowTops(s, rows);
    const shown = s.visible.slice(A.a, A.b + 1).filter((r) => tops.has(r));
    if (!shown.length) return;
    const last = shown[shown.length - 1];
    const x0 = Math.max(-2, X(A.t0)), x1 = Math.min(W + 2, X(A.t1));
    const y0 = tops.get(shown[0]), y1 = tops.get(last) + rowHeight(s, last);
    ctx.fillStyle = "rgba(255,170,0,0.16)";
    ctx.fillRect(x0, y0, x1 - x0, y1 - y0);
    ctx.strokeStyle = "#d08000";
    ctx.lineWidth = 1.5;
    ctx.setLineDash([5, 3]);
    ctx.strokeRect(x0, y0, x1 - x0, y1 - y0);
    ctx.setLineDash([]);
    ctx.lineWidth = 1;
  }

  close() {
    this.area = null;
    this.reply = null;
    $("selection").hidden = true;
    this.hooks.layout();
    this.hooks.changed?.();
  }

  // Shows the panel and loads the area's statistics.
  async open() {
    const wasHidden = $("selection").hidden;
    $("selection").hidden = false;
    if (wasHidden) this.hooks.layout(); else this.hooks.draw();
    if (this.ctl) this.ctl.abort();
    this.ctl = new AbortController();
    const A = this.area;
    this.reply = null;
    this.render();
    this.hooks.changed?.();
    try {
      this.reply = await this.source.selection(A.t0, A.t1, A.containers, this.ctl.signal);
    } catch (e) {
      if (e.name !== "AbortError") this.hooks.error(e);
      return;
    }
    if (A === this.area) this.render();
  }

  // The tables shown: per value, or per container and value.
  tables() {
    const A = this.area, r = this.reply;
    if (!A || !r || !r.states) return null;
    const len = A.t1 - A.t0;
    const rows = this.perContainer ? byContainer(r.states.rows, len) : byValue(r.states.rows, len);
    const columns = this.perContainer ? CONTAINER_COLUMNS : VALUE_COLUMNS;
    return { rows: sortRows(rows, this.sort.key, this.sort.desc), columns };
  }

  // The shown table as CSV.
  csv() {
    const t = this.tables();
    return t ? toCsv(t.rows, csvColumns(t.columns)) : "";
  }

  render() {
    const el = $("selection");
    el.replaceChildren();
    const A = this.area;
    if (!A) return;
    const len = A.t1 - A.t0;
    const bar = document.createElement("div");
    bar.className = "sel-bar";
    const title = document.createElement("b");
    title.textContent = `Selection: ${fmtTime(A.t0, len / 100)} – ${fmtTime(A.t1, len / 100)} (${fmtTime(len, len / 100)}), ${selectionTitle(this.state.meta, this.state.depths, A.containers, A.subtrees)}`;
    bar.append(title);
    const button = (id, text, tip, f) => {
      const b = document.createElement("button");
      b.id = id; b.textContent = text; b.title = tip;
      b.addEventListener("click", f);
      bar.append(b);
      return b;
    };
    const per = document.createElement("label");
    per.title = "one row per container and value";
    const box = document.createElement("input");
    box.type = "checkbox"; box.id = "sel-per-container"; box.checked = this.perContainer;
    box.addEventListener("change", () => { this.perContainer = box.checked; this.render(); });
    per.append(box, " per container");
    bar.append(per);
    button("sel-all", "whole run", "every container over the whole run", () => this.selectAll());
    button("sel-copy", "copy CSV", "the table as CSV, to the clipboard", () => this.copy());
    button("sel-save", "save CSV", "the table as a CSV file", () => this.save());
    button("sel-close", "×", "close (Esc in selection mode)", () => { this.close(); });
    el.append(bar);
    const r = this.reply;
    if (!r) {
      el.append(note("computing…"));
      return;
    }
    if (r.note) el.append(note(r.note, "sel-note"));
    const t = this.tables();
    if (t) el.append(this.table(t, len));
    if (r.comm) this.messages(el, r);
    document.body.dataset.selection = `${A.t0},${A.t1}`;
  }

  // The table of `t` with clickable headers.
  table(t, len) {
    const tab = document.createElement("table");
    tab.id = "sel-table";
    const head = document.createElement("tr");
    for (const [key, name, kind] of t.columns) {
      const th = document.createElement("th");
      th.dataset.key = key;
      th.className = kind === "text" ? "" : "n";
      th.textContent = name + (this.sort.key === key ? (this.sort.desc ? " ▾" : " ▴") : "");
      th.title = `sort by ${name}`;
      th.addEventListener("click", () => {
        this.sort = { key, desc: this.sort.key === key ? !this.sort.desc : kind !== "text" };
        this.render();
      });
      head.append(th);
    }
    tab.append(head);
    const step = len / 1e4;
    for (const row of t.rows) {
      const tr = document.createElement("tr");
      for (const [key, , kind] of t.columns) {
        const td = document.createElement("td");
        const x = row[key];
        if (kind === "time") { td.textContent = fmtTime(x, Math.max(step, x / 1e4, 1e-9)); td.title = `${x} s`; }
        else if (kind === "share") td.textContent = `${(100 * x).toFixed(1)} %`;
        else td.textContent = String(x);
        if (kind !== "text") td.className = "n";
        tr.append(td);
      }
      tab.append(tr);
    }
    return tab;
  }

  messages(el, r) {
    const m = messageTotals(r.comm.pairs, r.comm.size_field != null);
    const h = document.createElement("h4");
    h.id = "sel-messages";
    h.textContent = m.count
      ? `${m.count} message${m.count === 1 ? "" : "s"}` + (m.bytes != null ? `, ${si(m.bytes)}B (field ${r.comm.size_field})` : "") + ` in ${m.pairs.length} pair${m.pairs.length === 1 ? "" : "s"} (sender or receiver selected)`
      : "No message with an end in the selection";
    el.append(h);
    if (!m.count) return;
    const tab = document.createElement("table");
    tab.id = "sel-pairs";
    tab.innerHTML = `<tr><th>from</th><th>to</th><th class="n">count</th>${m.bytes != null ? '<th class="n">bytes</th>' : ""}</tr>` +
      m.pairs.slice(0, 50).map((p) => `<tr><td>${esc(p.from)}</td><td>${esc(p.to)}</td><td class="n">${p.count}</td>${m.bytes != null ? `<td class="n">${si(p.bytes)}</td>` : ""}</tr>`).join("");
    el.append(tab);
    if (m.pairs.length > 50) el.append(note(`and ${m.pairs.length - 50} more pairs`));
  }

  async copy() {
    const text = this.csv();
    try {
      await navigator.clipboard.writeText(text);
      flash("sel-copy", "copied");
    } catch (e) {
      // No clipboard (a page over plain HTTP from another host): save it.
      this.save();
    }
  }

  save() {
    const a = document.createElement("a");
    a.href = URL.createObjectURL(new Blob([this.csv()], { type: "text/csv" }));
    const A = this.area;
    a.download = `selection-${A.t0}-${A.t1}.csv`;
    document.body.append(a);
    a.click();
    a.remove();
    setTimeout(() => URL.revokeObjectURL(a.href), 1000);
  }

  // What the panel shows, for scripts.
  describe() {
    const A = this.area;
    if (!A) return null;
    const t = this.tables();
    const m = this.reply && this.reply.comm ? messageTotals(this.reply.comm.pairs, this.reply.comm.size_field != null) : null;
    return {
      t0: A.t0, t1: A.t1, containers: A.containers,
      ready: !!this.reply, note: this.reply?.note ?? null,
      rows: t ? t.rows : null, sort: this.sort,
      messages: m ? { count: m.count, bytes: m.bytes, pairs: m.pairs.length } : null,
      csv: this.csv(),
    };
  }
}

function note(text, id) {
  const p = document.createElement("p");
  p.className = "dim";
  if (id) p.id = id;
  p.textContent = text;
  return p;
}

function flash(id, text) {
  const b = $(id);
  if (!b) return;
  const old = b.textContent;
  b.textContent = text;
  setTimeout(() => { b.textContent = old; }, 1200);
}
