// The node/arc view (seed 004): each node a circle with its status
// indicators inscribed (OpenTS's task counts, or the share of each state),
// arcs between nodes for the messages or task migrations of the selected
// kind with an information element on each, and a statistics panel: A the
// selected node, B the sum over nodes, C the run. Nodes can be dragged;
// their places are kept (also across reloads, per trace and level).
// Many nodes or arcs: only the heaviest arcs are drawn (the others summed
// in the legend), their figures on hover only, and the nodes' names
// shortened (what all share said once) where they fit.
// It draws the `nodes` of each frame of api/frame or api/stream.

import { $, esc, si } from "./util.js";
import { heaviest, nameLabels, placeLabels, spread } from "./anim-fit.js";

const SVG = "http://www.w3.org/2000/svg";
// One colour per OpenTS task state, in the seed's order.
const TASK_COLORS = ["#4c78a8", "#9ecae9", "#f58518", "#54a24b", "#e45756", "#b279a2", "#72b7b2"];
const TASK_STATES = ["started", "prenatal", "exported", "imported", "active", "suspended", "finished"];
// A task state's colour, the same whatever states a stream has shown yet.
const taskColor = (label, k) => {
  const i = TASK_STATES.indexOf(label);
  return i >= 0 ? TASK_COLORS[i] : ["#888", "#bbb", "#555"][k % 3];
};
// A name's width on screen, in the drawing's font.
let pen = null;
const width = (t) => {
  pen = pen || document.createElement("canvas").getContext("2d");
  pen.font = '11px "DejaVu Sans", Arial, sans-serif';
  return pen.measureText(t).width;
};
// How many arcs a view of n nodes draws at most (the heaviest).
const arcBudget = (n) => Math.max(48, Math.min(300, 2 * n));
// A figure of the panels: 3 significant digits with an SI suffix, 4 below 1000.
const num = (x) => si(x, 4);

export class NodeView {
  // player: the Player (for colours, values, tooltips); info: the `nodes`
  // of api/stage.
  constructor(player, info, key) {
    this.player = player;
    this.info = info;
    this.stage = info.stage;
    this.kind = info.arcs;
    this.style = info.sbars_style || 0;
    this.selected = 0;
    this.frame = null;
    this.maxima = this.stage && this.stage.maxima.length ? [...this.stage.maxima] : null;
    this.running = null;        // a stream's maxima so far
    this.start = null;          // the first frame's totals (memory, speed)
    this.frames = 0;
    this.storeKey = `trama.nodes.${key}.${this.stage?.level ?? ""}`;
    this.pos = this.loadPlaces();
    this.drawn = [];            // the arcs drawn: {from, to, value}
    this.listen();
  }

  listen() {
    // The drawing, made here: the page's markup has no picture of its own.
    if (!$("p-nodes")) {
      const svg = document.createElementNS(SVG, "svg");
      svg.id = "p-nodes";
      $("p-nodes-host").append(svg);
    }
    const arcs = $("p-arcs");
    arcs.replaceChildren(...this.info.choices.map((c) => {
      const o = document.createElement("option");
      o.value = c.key;
      o.textContent = c.key.length === 1 ? `${c.key}: ${c.label}` : c.label;
      return o;
    }));
    arcs.value = this.kind.key;
    arcs.addEventListener("change", () => {
      this.kind = this.info.choices.find((c) => c.key === arcs.value) || this.kind;
      this.draw();
    });
    const style = $("p-sbars");
    style.value = String(this.style);
    style.addEventListener("change", () => { this.style = Number(style.value); this.draw(); });
    const svg = $("p-nodes");
    svg.addEventListener("pointerdown", (ev) => this.grab(ev));
    svg.addEventListener("pointermove", (ev) => this.move(ev));
    svg.addEventListener("pointerup", (ev) => this.drop(ev));
    svg.addEventListener("mouseleave", () => { $("p-tip").hidden = true; });
    window.addEventListener("resize", () => this.draw());
  }

  // ---- places ----

  loadPlaces() {
    const n = this.stage ? this.stage.nodes.length : 0;
    let saved = null;
    try { saved = JSON.parse(localStorage.getItem(this.storeKey) || "null"); } catch { saved = null; }
    const pos = [];
    for (let i = 0; i < n; i++) {
      const s = saved && saved[this.stage.nodes[i].name];
      // Not saved: placed at the first drawing, which knows the room.
      pos.push(Array.isArray(s) && s.length === 2 && s.every(isFinite) ? s : null);
    }
    return pos;
  }

  // Around a circle up to 24 nodes (a circle on screen: W × H wide), else
  // a grid; in [0, 1]².
  defaultPlace(i, n, W = 1, H = 1) {
    if (n <= 24) {
      const a = -Math.PI / 2 + (2 * Math.PI * i) / Math.max(1, n);
      const m = Math.min(W, H);
      return n === 1 ? [0.5, 0.5] : [0.5 + (0.4 * m / W) * Math.cos(a), 0.5 + (0.4 * m / H) * Math.sin(a)];
    }
    const cols = Math.ceil(Math.sqrt(n * 1.5));
    const rows = Math.ceil(n / cols);
    return [(0.5 + (i % cols)) / cols, (0.5 + Math.floor(i / cols)) / rows];
  }

  savePlaces() {
    const out = {};
    this.stage.nodes.forEach((nd, i) => { out[nd.name] = this.pos[i]; });
    try { localStorage.setItem(this.storeKey, JSON.stringify(out)); } catch { /* private mode */ }
  }

  box() {
    const r = $("p-nodes").getBoundingClientRect();
    return { W: Math.max(50, r.width), H: Math.max(50, r.height), left: r.left, top: r.top };
  }

  radius(W, H) {
    const n = Math.max(1, this.stage.nodes.length);
    let r = Math.min(W, H) / (2.6 * Math.sqrt(n) + 1.5);
    // Around a circle: neighbours apart, with room for the arcs.
    if (n > 1 && n <= 24) r = Math.min(r, 0.65 * 0.4 * Math.min(W, H) * Math.sin(Math.PI / n));
    return Math.max(4, Math.min(56, r));
  }

  xy(i, W, H) {
    // A node not placed yet (the view not drawn yet) takes its default place.
    if (!this.pos[i]) this.pos[i] = this.defaultPlace(i, this.stage.nodes.length, W, H);
    const R = this.radius(W, H), [u, v] = this.pos[i];
    return [R + 4 + u * (W - 2 * R - 8), R + 4 + v * (H - 2 * R - 8)];
  }

  // ---- dragging, choosing ----

  grab(ev) {
    const g = ev.target.closest("[data-node]");
    if (!g) return;
    this.dragging = { i: Number(g.dataset.node), x: ev.clientX, y: ev.clientY, moved: false };
    $("p-nodes").setPointerCapture(ev.pointerId);
    ev.preventDefault();
  }

  move(ev) {
    const d = this.dragging;
    if (!d) { this.hover(ev); return; }
    if (Math.abs(ev.clientX - d.x) + Math.abs(ev.clientY - d.y) > 3) d.moved = true;
    if (!d.moved) return;
    const { W, H, left, top } = this.box();
    const R = this.radius(W, H);
    const clamp = (x) => Math.max(0, Math.min(1, x));
    this.pos[d.i] = [clamp((ev.clientX - left - R - 4) / (W - 2 * R - 8)), clamp((ev.clientY - top - R - 4) / (H - 2 * R - 8))];
    this.draw();
  }

  drop(ev) {
    const d = this.dragging;
    this.dragging = null;
    if (!d) return;
    if (d.moved) this.savePlaces();
    else { this.selected = d.i; this.draw(); }
    try { $("p-nodes").releasePointerCapture(ev.pointerId); } catch { /* gone */ }
  }

  // ---- what is drawn ----

  // The indicators: [{label, color, value(node) -> number, max}].
  indicators(f) {
    const st = this.stage;
    if (st.indicators.kind === "variables") {
      return st.indicators.variables.map((v, k) => ({
        label: st.indicators.labels[k],
        color: taskColor(st.indicators.labels[k], k),
        value: (i) => f.nodes[i]?.variables[v] ?? 0,
        max: Math.max(1e-12, (this.maxima || this.running || [])[v] || 0),
      }));
    }
    // States: the values present in the frame, most time first.
    const total = new Map();
    for (const nd of f.nodes) for (const [v, s] of nd.shares) total.set(v, (total.get(v) || 0) + s);
    const P = this.player;
    return [...total].sort((a, b) => b[1] - a[1]).slice(0, 8).map(([v]) => {
      const [r, g, b] = P.colorOf(v);
      return {
        label: P.meta.values[v]?.label ?? String(v),
        color: `rgb(${r},${g},${b})`,
        value: (i) => (f.nodes[i]?.shares.find((s) => s[0] === v) || [0, 0])[1],
        max: 1,
        id: v,
      };
    });
  }

  // Per pair (from, to), the arcs of the chosen kind: their measure.
  pairs(f) {
    const k = this.kind, per = new Map();
    for (const a of f.arcs) {
      if (k.type != null && a.type !== k.type) continue;
      if (k.values.length && !k.values.includes(a.value)) continue;
      if (k.except.includes(a.value)) continue;
      const key = `${a.from},${a.to}`;
      per.set(key, (per.get(key) || 0) + (k.bytes ? a.bytes || 0 : a.count));
    }
    return [...per].map(([key, x]) => { const [from, to] = key.split(",").map(Number); return { from, to, x }; });
  }

  // Takes a frame's `nodes` and draws it.
  show(f) {
    if (!f || !this.stage) return;
    this.frame = f;
    this.frames++;
    // A stream's maxima grow as it plays (no run to read them from).
    if (!this.maxima) {
      this.running = this.running || [];
      for (const nd of f.nodes) nd.variables.forEach((x, v) => { if (x != null) this.running[v] = Math.max(this.running[v] || 0, x); });
    }
    if (!this.start && f.nodes.some((nd) => nd.variables.some((x) => x != null))) this.start = this.totals(f);
    this.draw();
  }

  draw() {
    const f = this.frame, svg = $("p-nodes");
    if (!this.stage || $("p-nodeview").hidden) return;
    if (!f) { svg.replaceChildren(); return; }
    const { W, H } = this.box();
    svg.setAttribute("viewBox", `0 0 ${W} ${H}`);
    const n = this.stage.nodes.length;
    for (let i = 0; i < n; i++) if (!this.pos[i]) this.pos[i] = this.defaultPlace(i, n, W, H);
    const R = this.radius(W, H);
    const ind = this.indicators(f);
    const all = this.pairs(f).filter((p) => p.from !== p.to);
    const { kept: pairs, rest } = heaviest(all.map((p) => ({ ...p, w: p.x })), arcBudget(n));
    this.thinned = rest;
    // Few arcs between few nodes: each labelled; else on hover.
    const tagged = n <= 16 && pairs.length <= 32;
    const most = Math.max(1, ...pairs.map((p) => p.x));
    let out = `<defs><marker id="p-arrow" viewBox="0 0 10 10" refX="9" refY="5" markerUnits="userSpaceOnUse" markerWidth="${n > 64 ? 6 : 11}" markerHeight="${n > 64 ? 6 : 11}" orient="auto-start-reverse"><path d="M0,0L10,5L0,10z" fill="#444"/></marker></defs>`;
    // Arcs: bent a little, so that a → b and b → a do not overlap.
    let labels = "";
    this.drawn = [];
    for (const p of pairs) {
      const [x0, y0] = this.xy(p.from, W, H), [x1, y1] = this.xy(p.to, W, H);
      const dx = x1 - x0, dy = y1 - y0, d = Math.hypot(dx, dy) || 1;
      const ux = dx / d, uy = dy / d;
      const sx = x0 + ux * (R + 2), sy = y0 + uy * (R + 2), ex = x1 - ux * (R + 4), ey = y1 - uy * (R + 4);
      const bend = 0.12 * d;
      const cx = (sx + ex) / 2 - uy * bend, cy = (sy + ey) / 2 + ux * bend;
      const w = 1 + (n > 64 ? 1 : 4) * Math.log1p(p.x) / Math.log1p(most);
      out += `<path class="arc" data-from="${p.from}" data-to="${p.to}" d="M${sx.toFixed(1)},${sy.toFixed(1)} Q${cx.toFixed(1)},${cy.toFixed(1)} ${ex.toFixed(1)},${ey.toFixed(1)}" stroke="#444" stroke-opacity="${n > 64 ? 0.45 : 0.75}" stroke-width="${w.toFixed(2)}" fill="none" marker-end="url(#p-arrow)"/>`;
      const text = this.kind.bytes ? `${num(p.x)}B` : num(p.x);
      if (tagged) {
        const lx = 0.25 * sx + 0.5 * cx + 0.25 * ex, ly = 0.25 * sy + 0.5 * cy + 0.25 * ey;
        const tw = 7 * text.length + 8;
        labels += `<g class="arc-info" data-from="${p.from}" data-to="${p.to}"><rect x="${(lx - tw / 2).toFixed(1)}" y="${(ly - 8).toFixed(1)}" width="${tw}" height="16" rx="4" fill="#fffbe6" stroke="#b59a00"/><text x="${lx.toFixed(1)}" y="${(ly + 4).toFixed(1)}" text-anchor="middle">${esc(text)}</text></g>`;
      }
      this.drawn.push({ from: p.from, to: p.to, value: p.x, label: text });
    }
    out += labels;
    // Nodes, then their names where they fit.
    const names = this.names(W, H, R);
    this.stage.nodes.forEach((nd, i) => {
      const [x, y] = this.xy(i, W, H);
      const sel = i === this.selected;
      out += `<g data-node="${i}" class="node${sel ? " selected" : ""}" transform="translate(${x.toFixed(1)},${y.toFixed(1)})">`;
      out += `<circle r="${R.toFixed(1)}" fill="#fff" stroke="${sel ? "#d0302f" : "#555"}" stroke-width="${sel ? 3 : 1.5}"/>`;
      if (R >= 10) out += this.inscribe(ind, i, R);
      const at = names.at[i];
      if (at) out += `<text class="name" x="${(at[0] - x).toFixed(1)}" y="${(at[1] - y + 10).toFixed(1)}">${esc(names.text[i])}</text>`;
      out += "</g>";
    });
    this.named = names.at.map((p, i) => (p ? this.stage.nodes[i].name : null)).filter((t) => t != null);
    svg.innerHTML = out;
    this.legend(ind, names.shared);
    this.panel(f);
  }

  // The nodes' names under their circles where they fit, else beside;
  // short (what all share left out: `shared`) when whole ones do not all
  // fit: {text, at: [x, y] of each label's corner, or null, shared}.
  names(W, H, R) {
    const xy = this.stage.nodes.map((_, i) => this.xy(i, W, H));
    // Around a circle: outwards.
    const ring = this.stage.nodes.length <= 24;
    const out = (x, y) => { const d = Math.hypot(x - W / 2, y - H / 2); return ring && d > 1 ? [(x - W / 2) / d, (y - H / 2) / d] : null; };
    // Placed in an order spread over the nodes, the selected one first.
    const order = [this.selected, ...spread(xy.length).filter((i) => i !== this.selected)].filter((i) => i < xy.length);
    const place = (widths) => placeLabels(order.map((i, k) => { const [x, y] = xy[i]; return { x, y, r: R, w: widths[k] + 2, h: 12, out: out(x, y) }; }), W, H, 0, "below");
    const got = nameLabels(order.map((i) => this.stage.nodes[i].name), width, place);
    // Back in the nodes' order.
    const text = [], at = [];
    order.forEach((i, k) => { text[i] = got.text[k]; at[i] = got.at[k]; });
    return { text, at, shared: got.shared };
  }

  // The status indicators of node i, inside a circle of radius R.
  inscribe(ind, i, R) {
    if (!ind.length) return "";
    let s = "";
    if (this.style === 0) {
      // Bars standing on a chord, in the inscribed square.
      const side = R * Math.SQRT2 * 0.92, bw = side / ind.length;
      const x0 = -side / 2, base = side / 2;
      ind.forEach((d, k) => {
        const v = d.value(i), h = Math.max(0, Math.min(1, v / d.max)) * side;
        s += `<rect class="ind" data-k="${k}" x="${(x0 + k * bw + 0.5).toFixed(1)}" y="${(base - h).toFixed(1)}" width="${Math.max(1, bw - 1).toFixed(1)}" height="${Math.max(h, 0.5).toFixed(1)}" fill="${d.color}"/>`;
      });
      s += `<line x1="${x0.toFixed(1)}" x2="${(-x0).toFixed(1)}" y1="${base.toFixed(1)}" y2="${base.toFixed(1)}" stroke="#999"/>`;
    } else if (this.stage.indicators.kind === "states") {
      // States: a pie of the frame's shares.
      const r0 = R - 2, p = (a) => `${(r0 * Math.cos(a)).toFixed(1)},${(r0 * Math.sin(a)).toFixed(1)}`;
      let a0 = -Math.PI / 2;
      ind.forEach((d, k) => {
        const share = Math.max(0, Math.min(1, d.value(i)));
        if (share <= 0) return;
        if (share >= 0.9999) {
          s += `<circle class="ind" data-k="${k}" r="${r0.toFixed(1)}" fill="${d.color}"/>`;
          return;
        }
        const a1 = a0 + 2 * Math.PI * share;
        s += `<path class="ind" data-k="${k}" d="M0,0 L${p(a0)} A${r0.toFixed(1)},${r0.toFixed(1)} 0 ${share > 0.5 ? 1 : 0} 1 ${p(a1)} Z" fill="${d.color}" stroke="#fff" stroke-width="0.5"/>`;
        a0 = a1;
      });
      s += `<circle class="ind-rim" r="${r0.toFixed(1)}" fill="none" stroke="#ddd" stroke-width="0.5"/>`;
    } else {
      // Sectors: equal angles, the radius growing with the value.
      const n = ind.length, r0 = R - 2;
      ind.forEach((d, k) => {
        const v = d.value(i), r = Math.sqrt(Math.max(0, Math.min(1, v / d.max))) * r0;
        const a0 = -Math.PI / 2 + (2 * Math.PI * k) / n, a1 = a0 + (2 * Math.PI) / n;
        const p = (a, rr) => `${(rr * Math.cos(a)).toFixed(1)},${(rr * Math.sin(a)).toFixed(1)}`;
        s += `<path class="ind" data-k="${k}" d="M0,0 L${p(a0, r)} A${r.toFixed(1)},${r.toFixed(1)} 0 ${n === 1 ? 1 : 0} 1 ${p(a1, r)} Z" fill="${d.color}" stroke="#fff" stroke-width="0.5"/>`;
        s += `<path class="ind-rim" data-k="${k}" d="M0,0 L${p(a0, r0)} A${r0.toFixed(1)},${r0.toFixed(1)} 0 ${n === 1 ? 1 : 0} 1 ${p(a1, r0)} Z" fill="transparent" stroke="#ddd" stroke-width="0.5"/>`;
      });
    }
    return s;
  }

  legend(ind, shared) {
    // Colours through the DOM: the page's policy refuses inline styles.
    const el = $("p-nodelegend");
    el.replaceChildren(...ind.map((d) => {
      const s = document.createElement("span"), i = document.createElement("i");
      i.style.background = d.color;
      s.append(i, d.label);
      return s;
    }));
    const k = document.createElement("span");
    k.className = "dim";
    const rest = this.thinned?.n ? ` · the ${this.drawn.length} heaviest drawn (${this.thinned.n} others: ${num(this.thinned.w)}${this.kind.bytes ? "B" : ""})` : "";
    k.textContent = `arcs: ${this.kind.label}${this.kind.bytes ? " (bytes)" : ""}${rest}${shared ? ` · names: ${shared}` : ""}`;
    el.append(k);
  }

  // ---- the statistics panel ----

  // Per variable, its sum over the nodes.
  totals(f) {
    const out = this.stage.variables.map(() => null);
    for (const nd of f.nodes) nd.variables.forEach((x, v) => { if (x != null) out[v] = (out[v] || 0) + x; });
    return out;
  }

  // Rows of panel A or B: [label, value] in groups.
  figures(vars, sent, received, shares, holders) {
    const st = this.stage, rows = [];
    const get = (name) => { const v = st.variables.indexOf(name); return v < 0 ? undefined : vars[v]; };
    const tasks = st.variables.filter((v) => v.startsWith("tasks_"));
    if (tasks.length) {
      rows.push(["tasks", null]);
      const order = ["started", "prenatal", "exported", "imported", "active", "suspended", "finished"];
      tasks.sort((a, b) => order.indexOf(a.slice(6)) - order.indexOf(b.slice(6)));
      for (const t of tasks) rows.push([t.slice(6), num(get(t) ?? 0)]);
    }
    const msg = ["msg_scount", "msg_rcount", "msg_sbytes", "msg_rbytes"];
    if (msg.some((m) => get(m) !== undefined)) {
      rows.push(["messages", null]);
      rows.push(["sent", `${num(get("msg_scount") ?? 0)} (${num(get("msg_sbytes") ?? 0)}B)`]);
      rows.push(["received", `${num(get("msg_rcount") ?? 0)} (${num(get("msg_rbytes") ?? 0)}B)`]);
    }
    rows.push(["arcs in this frame", null]);
    rows.push(["out", num(sent)], ["in", num(received)]);
    const times = ["time_tasks", "time_sched", "time_mpi", "time_idle"];
    if (times.some((m) => get(m) !== undefined)) {
      rows.push(["time", null]);
      for (const [k, label] of [["time_tasks", "in tasks"], ["time_sched", "scheduler"], ["time_mpi", "MPI"], ["time_idle", "idle"]]) {
        rows.push([label, `${num(get(k) ?? 0)} s`]);
      }
    }
    const rest = st.variables.filter((v) => !v.startsWith("tasks_") && !msg.includes(v) && !times.includes(v) && !v.startsWith("msg_"));
    if (rest.length) {
      rows.push(["resources", null]);
      for (const v of rest) rows.push([v, num(get(v))]);
    }
    if (shares && shares.length) {
      rows.push([`states${holders > 1 ? ` (mean of ${holders})` : ""}`, null]);
      for (const [v, s] of shares.slice(0, 8)) rows.push([this.player.meta.values[v]?.label ?? v, `${(100 * s).toFixed(1)} %`]);
    }
    return rows;
  }

  panel(f) {
    const st = this.stage, i = Math.min(this.selected, st.nodes.length - 1);
    const pairs = this.pairs(f);
    const out = (k) => pairs.filter((p) => p.from === k).reduce((a, p) => a + p.x, 0);
    const inn = (k) => pairs.filter((p) => p.to === k).reduce((a, p) => a + p.x, 0);
    const all = pairs.reduce((a, p) => a + p.x, 0);
    // B: states averaged over every container holding states.
    const sum = new Map();
    let holders = 0;
    for (const nd of f.nodes) {
      holders += nd.holders;
      for (const [v, s] of nd.shares) sum.set(v, (sum.get(v) || 0) + s * nd.holders);
    }
    const bShares = [...sum].map(([v, s]) => [v, s / Math.max(1, holders)]).sort((a, b) => b[1] - a[1]);
    this.panels = {
      A: this.figures(f.nodes[i].variables, out(i), inn(i), f.nodes[i].shares, f.nodes[i].holders),
      B: this.figures(this.totals(f), all, all, bShares, holders),
      C: this.runInfo(f),
    };
    const table = (rows) => rows.map(([k, v]) => (v == null ? `<tr><th colspan="2">${esc(k)}</th></tr>` : `<tr><td>${esc(k)}</td><td>${esc(v)}</td></tr>`)).join("");
    $("p-nstats").innerHTML =
      `<h4>A · ${esc(st.level ?? "node")} ${esc(st.nodes[i].name)}</h4><table>${table(this.panels.A)}</table>`
      + `<h4>B · all ${st.nodes.length} nodes</h4><table>${table(this.panels.B)}</table>`
      + `<h4>C · the run</h4><table>${table(this.panels.C)}</table>`;
  }

  runInfo(f) {
    const P = this.player, rows = [];
    for (const [k, v] of this.info.run || []) rows.push([k, v]);
    if (!rows.length && P.meta?.name) rows.push(["trace", P.meta.name]);
    rows.push(["nodes", `${this.stage.nodes.length}${this.stage.level ? ` (${this.stage.level})` : ""}`]);
    const at = (name) => { const v = this.stage.variables.indexOf(name); return v < 0 || !this.start ? null : this.start[v]; };
    if (at("memory") != null) rows.push(["memory at start", `${num(at("memory"))} MB`]);
    if (at("speed") != null) rows.push(["speed at start", `${num(at("speed"))} Mflop/s`]);
    const [a, b] = P.hooks.window();
    const step = P.step();
    if (P.feed) rows.push(["frames read", `${(P.lastK ?? -1) + 1}${P.streamInfo?.done ? "" : " so far"}`]);
    else rows.push(["frames", String(Math.max(1, Math.ceil((b - a) / step)))]);
    rows.push(["current frame", String(f.k ?? Math.round((f.t - a) / step))]);
    const start = P.feed ? P.first0 ?? f.t : P.meta?.start ?? a;
    rows.push(["elapsed", `${(f.t + f.dt - start).toFixed(3)} s`]);
    rows.push(["arcs", this.kind.label]);
    return rows;
  }

  // ---- tooltips ----

  hover(ev) {
    const f = this.frame;
    if (!f) return;
    const P = this.player;
    const info = ev.target.closest(".arc-info, .arc");
    if (info) {
      const a = Number(info.dataset.from), b = Number(info.dataset.to);
      const N = this.stage.nodes;
      let html = `<b>${esc(N[a].name)} ↔ ${esc(N[b].name)}</b>`;
      for (const [x, y] of [[a, b], [b, a]]) {
        const arcs = f.arcs.filter((r) => r.from === x && r.to === y);
        if (!arcs.length) continue;
        html += `<br><span class="dim">${esc(N[x].name)} → ${esc(N[y].name)}</span>`;
        for (const r of arcs) html += `<br>${esc(r.type)} ${esc(r.value)}: ${num(r.count)}${r.bytes != null ? `, ${num(r.bytes)}B` : ""}`;
      }
      P.tip(ev, html);
      return;
    }
    const bar = ev.target.closest(".ind, .ind-rim");
    const g = ev.target.closest("[data-node]");
    if (bar && g) {
      const i = Number(g.dataset.node), k = Number(bar.dataset.k);
      const d = this.indicators(f)[k];
      const v = d.value(i);
      const all = this.stage.nodes.reduce((s, _, j) => s + d.value(j), 0);
      const share = all > 0 ? `${(100 * v / all).toFixed(1)} % of all nodes'` : "no node has any";
      const what = this.stage.indicators.kind === "variables" ? `${num(v)} ${d.label} tasks` : `${d.label}: ${(100 * v).toFixed(1)} % of the frame`;
      P.tip(ev, `<b>${esc(this.stage.nodes[i].name)}</b><br>${esc(what)}<br><span class="dim">${share}</span>`);
      return;
    }
    if (g) {
      P.tip(ev, `<b>${esc(this.stage.nodes[Number(g.dataset.node)].name)}</b><br><span class="dim">click: its figures (A) · drag: move it</span>`);
      return;
    }
    $("p-tip").hidden = true;
  }

  // ---- for scripts ----

  describe() {
    const f = this.frame;
    if (!f || !this.stage) return null;
    const { W, H, left, top } = this.box();
    const ind = this.indicators(f);
    const N = this.stage.nodes;
    return {
      t: f.t,
      dt: f.dt,
      level: this.stage.level,
      arcs: this.kind.key,
      style: this.style,
      selected: N[this.selected]?.name ?? null,
      nodes: N.map((nd, i) => {
        const [x, y] = this.xy(i, W, H);
        return {
          name: nd.name,
          x: left + x,
          y: top + y,
          place: [...this.pos[i]],
          indicators: ind.map((d) => [d.label, d.value(i)]),
        };
      }),
      drawn: this.drawn.map((a) => ({ from: N[a.from].name, to: N[a.to].name, value: a.value, label: a.label })),
      thinned: this.thinned ?? null,
      named: this.named ?? [],
      panels: this.panels,
    };
  }
}
