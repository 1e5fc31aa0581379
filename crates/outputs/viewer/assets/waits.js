// The wait-time matrix of the statistics panel (seed 002): who waited for
// whom over the visible window (or the player's frame). Rows are the
// processes that waited, columns those they waited for (and
// "unattributed"): on an MPI run, the processes the wait states waited
// for (method "wait_states": late senders, last to enter a collective…);
// else the senders whose messages ended their waits (method
// "last_message"); a line above the matrix says which. Two normalisations: by the process's time in
// the window, with an extra column, its total waiting, on a colour scale of
// its own; or by the process's own waiting. Cells under 0.1 % are left
// empty. A click on a row shows that process: its waiting per partner as
// bars and its time per state as a pie.
//
// Many processes (64 and more) stay readable: names lose the prefix they
// all share (the line under the matrix says which), columns keep at least
// MIN_CELL pixels with every n-th label when they are too narrow for all,
// the matrix scrolls within its box with its column labels kept at the
// box's top, and every cell and label names its process on hover.

// The narrowest column, and the room a rotated label needs.
const MIN_CELL = 9;
const LABEL_ROOM = 12;

// `names` without the prefix they all share, cut after its last
// character that is not a letter or a digit ("MPI Rank 1", "MPI Rank 12"
// → "1", "12"), and without the suffix they all share from its first such
// character ("thread (rank 1)" → "1"); `prefix` and `suffix` are what
// was cut ("" when nothing could be).
export function shortNames(names) {
  const same = { prefix: "", suffix: "", names: names.slice() };
  if (names.length < 2) return same;
  const word = /[\p{L}\p{N}]/u;
  const shared = (at) => names.reduce((k, s) => {
    let i = 0;
    while (i < k && i < s.length && at(s, i) === at(names[0], i)) i++;
    return i;
  }, names[0].length);
  let p = shared((s, i) => s[i]);
  while (p > 0 && word.test(names[0][p - 1])) p--;
  const last = (s, i) => s[s.length - 1 - i];
  let q = shared(last);
  while (q > 0 && word.test(last(names[0], q - 1))) q--;
  if (names.some((s) => s.length <= p + q)) return same;
  return { prefix: names[0].slice(0, p), suffix: names[0].slice(names[0].length - q), names: names.map((s) => s.slice(p, s.length - q)) };
}

// Every `step`-th of `count` labels fits when each needs `room` pixels
// and columns are `cw` wide.
export function labelStep(cw, room = LABEL_ROOM) {
  return Math.max(1, Math.ceil(room / cw));
}

export class WaitView {
  constructor(colorOfValue) {
    this.colorOfValue = colorOfValue;   // value name -> css colour
    this.mode = "time";                 // "time" or "waiting"
    this.wait = null;
    this.states = null;
    this.selected = null;               // a row's container name
    this.layout = null;                 // {x0, y0, cw, ch, rows, cols}
  }

  // Draws into `el` the matrix of `wait` (api/stats' `wait`), with the
  // window's `states` for the per-process pie.
  show(el, wait, states) {
    this.wait = wait;
    this.states = states;
    this.el = el;
    el.replaceChildren();
    if (!wait || !wait.rows.length) {
      const p = document.createElement("p");
      p.className = "dim";
      p.textContent = wait && wait.waiting_states.length ? "No process waited in this window." : "No waiting state in this trace (receives, waits, barriers, collectives).";
      el.append(p);
      return;
    }
    const bar = document.createElement("div");
    const pick = document.createElement("select");
    pick.id = "wait-mode";
    for (const [v, t] of [["time", "share of each process's time (+ total)"], ["waiting", "share of each process's waiting"]]) {
      const o = document.createElement("option");
      o.value = v; o.textContent = t;
      pick.append(o);
    }
    pick.value = this.mode;
    pick.addEventListener("change", () => { this.mode = pick.value; this.draw(); });
    const how = document.createElement("span");
    how.id = "wait-method";
    how.className = "dim";
    how.textContent = wait.method === "wait_states"
      ? ` from the wait states (${wait.patterns.join(", ")}), each to the process waited for`
      : " each waiting state to the sender of the last message received during it";
    bar.append(pick, how);
    const cv = document.createElement("canvas");
    cv.id = "wait-matrix";
    cv.title = "click a row: that process's waits and states";
    cv.addEventListener("click", (ev) => this.click(ev));
    cv.addEventListener("mousemove", (ev) => this.hover(ev));
    const detail = document.createElement("div");
    detail.id = "wait-detail";
    const scroll = document.createElement("div");
    scroll.className = "wait-scroll";
    scroll.append(cv);
    // The column labels follow the box's scroll (drawn at its top).
    let queued = false;
    scroll.addEventListener("scroll", () => {
      if (queued) return;
      queued = true;
      requestAnimationFrame(() => { queued = false; if (this.cv === cv) this.draw(); });
    });
    el.append(bar, scroll, detail);
    this.scroller = scroll;
    this.cv = cv;
    this.detail = detail;
    this.draw();
    if (this.selected) this.showProcess(this.selected);
  }

  // The columns shown: senders with a cell, and the total in "time" mode.
  columns() {
    const w = this.wait;
    const key = this.mode === "time" ? "share_of_time" : "share_of_waiting";
    const used = w.senders.map((_, j) => w.rows.some((r) => r[key][j] > 0));
    const cols = w.senders.map((s, j) => ({ name: s, j })).filter((c) => used[c.j]);
    return { key, cols };
  }

  static ramp(f) {
    const stops = [[48, 18, 120], [33, 102, 172], [32, 164, 134], [122, 209, 81], [253, 231, 37]];
    const x = Math.max(0, Math.min(1, f)) * (stops.length - 1);
    const i = Math.min(stops.length - 2, Math.floor(x));
    const k = x - i;
    return `rgb(${stops[i].map((c, j) => Math.round(c + (stops[i + 1][j] - c) * k)).join(",")})`;
  }

  draw() {
    const w = this.wait;
    const { key, cols } = this.columns();
    const total = this.mode === "time";
    const ctx = this.cv.getContext("2d");
    ctx.font = "11px DejaVu Sans, Arial, sans-serif";
    // Names without the prefix the rows' share (columns too, when they
    // have it; "unattributed" keeps its name).
    const short = shortNames(w.rows.map((r) => r.container));
    const { prefix: p, suffix: q } = short;
    const shorten = (s) => (s.startsWith(p) && s.endsWith(q) && s.length > p.length + q.length ? s.slice(p.length, s.length - q.length) : s);
    const cut = (s, k) => (s.length > k ? s.slice(0, k - 1) + "…" : s);
    const rowName = (s) => cut(shorten(s), 18);
    const colName = (s) => cut(shorten(s), 14);
    const label = Math.min(120, Math.max(0, ...w.rows.map((r) => ctx.measureText(rowName(r.container)).width)) + 8);
    const head = Math.min(100, Math.max(...cols.map((c) => ctx.measureText(colName(c.name)).width), 30) + 8);
    const W = (this.scroller && this.scroller.clientWidth) || this.cv.parentElement.clientWidth || 340;
    const n = cols.length + (total ? 1 : 0);
    const cw = Math.max(MIN_CELL, Math.min(28, Math.floor((W - label - 12) / Math.max(1, n))));
    const step = labelStep(cw);
    const ch = 16;
    this.cv.width = Math.max(W, label + n * cw + 12);
    this.cv.height = head + ch * w.rows.length + 36;
    ctx.font = "11px DejaVu Sans, Arial, sans-serif";
    ctx.clearRect(0, 0, this.cv.width, this.cv.height);
    const x0 = label, y0 = head;
    // Normalised cells on one scale, the total column on its own.
    let most = 0, mostTotal = 0;
    for (const r of w.rows) {
      for (const c of cols) most = Math.max(most, r[key][c.j]);
      mostTotal = Math.max(mostTotal, r.waiting_share);
    }
    w.rows.forEach((r, i) => {
      const y = y0 + i * ch;
      if (r.container === this.selected) {
        ctx.fillStyle = "#fde9c8";
        ctx.fillRect(0, y, this.cv.width, ch);
      }
      ctx.fillStyle = "#333";
      ctx.fillText(rowName(r.container), 2, y + 12);
      cols.forEach((c, k) => {
        const v = r[key][c.j];
        ctx.fillStyle = v > 0 ? WaitView.ramp(most > 0 ? v / most : 0) : "#eeeef2";
        ctx.fillRect(x0 + k * cw, y + 1, cw - 1, ch - 2);
      });
      if (total) {
        // The total waiting share: its own scale, in reds.
        const f = mostTotal > 0 ? r.waiting_share / mostTotal : 0;
        ctx.fillStyle = `rgb(${Math.round(255 - 120 * f)},${Math.round(235 - 200 * f)},${Math.round(225 - 200 * f)})`;
        ctx.fillRect(x0 + cols.length * cw + 4, y + 1, cw - 1, ch - 2);
      }
    });
    // The scales: the cells' (blue to yellow) and the total's (reds).
    ctx.fillStyle = "#555";
    const pct = (x) => `${(100 * x).toFixed(1)} %`;
    const what = total ? "of its time" : "of its waiting";
    ctx.fillText(`cells: up to ${pct(most)} ${what}` + (total ? ` · total: up to ${pct(mostTotal)}` : ""), 2, y0 + ch * w.rows.length + 15);
    const names = [(p || q) && `names shown without “${p}” … “${q}”`, step > 1 && `every ${step === 2 ? "other" : `${step}th`} column named`].filter(Boolean);
    if (names.length) ctx.fillText(`${names.join(", ")} (hover: full names)`, 2, y0 + ch * w.rows.length + 30);
    // The column labels last, at the top of the box scrolled (sticky),
    // over the rows scrolled under them.
    const top = this.scroller ? Math.min(this.scroller.scrollTop, ch * w.rows.length) : 0;
    ctx.fillStyle = "#fff";
    ctx.fillRect(0, top, this.cv.width, y0);
    ctx.fillStyle = "#333";
    cols.forEach((c, k) => {
      if (k % step) return;
      ctx.save();
      ctx.translate(x0 + k * cw + cw / 2 + 4, top + y0 - 4);
      ctx.rotate(-Math.PI / 2);
      ctx.fillText(colName(c.name), 0, 0);
      ctx.restore();
    });
    if (total) {
      ctx.save();
      ctx.translate(x0 + cols.length * cw + cw / 2 + 8, top + y0 - 4);
      ctx.rotate(-Math.PI / 2);
      ctx.fillStyle = "#7a1f1f";
      ctx.fillText("total", 0, 0);
      ctx.restore();
    }
    this.layout = { x0, y0, cw, ch, cols, key, total, step, top, prefix: p, suffix: q };
    document.body.dataset.waits = `${this.mode}:${w.rows.length}x${cols.length}`;
  }

  at(ev) {
    const L = this.layout;
    if (!L) return null;
    if (ev.offsetY >= L.top && ev.offsetY < L.top + L.y0) {
      const k = Math.floor((ev.offsetX - L.x0) / L.cw);
      return k >= 0 && k < L.cols.length ? { row: null, col: L.cols[k] } : null;
    }
    if (ev.offsetY < L.y0) return null;
    const i = Math.floor((ev.offsetY - L.y0) / L.ch);
    if (i < 0 || i >= this.wait.rows.length) return null;
    const k = Math.floor((ev.offsetX - L.x0) / L.cw);
    return { row: this.wait.rows[i], col: k >= 0 && k < L.cols.length ? L.cols[k] : null };
  }

  hover(ev) {
    const a = this.at(ev);
    if (!a) { this.cv.title = ""; return; }
    const r = a.row;
    const pct = (x) => `${(100 * x).toFixed(1)} %`;
    if (!r) { this.cv.title = `waited for: ${a.col.name}`; return; }
    this.cv.title = a.col
      ? `${r.container} waited for ${a.col.name}: ${r.seconds[a.col.j].toPrecision(3)} s, ${pct(r.share_of_time[a.col.j])} of its time, ${pct(r.share_of_waiting[a.col.j])} of its waiting`
      : `${r.container}: waited ${r.waiting.toPrecision(3)} s, ${pct(r.waiting_share)} of its time (click: details)`;
  }

  click(ev) {
    const a = this.at(ev);
    if (!a || !a.row) return;
    this.selected = a.row.container;
    this.draw();
    this.showProcess(a.row.container);
  }

  // One process: waiting per partner (bars) and time per state (pie).
  showProcess(name) {
    const d = this.detail;
    d.replaceChildren();
    const r = this.wait.rows.find((x) => x.container === name);
    if (!r) return;
    const h = document.createElement("h3");
    h.textContent = `${name}: waited ${(100 * r.waiting_share).toFixed(1)} % of its time`;
    d.append(h);
    const bars = document.createElement("div");
    bars.id = "wait-bars";
    const parts = this.wait.senders.map((s, j) => [s, r.seconds[j]]).filter((p) => p[1] > 0).sort((a, b) => b[1] - a[1]);
    const most = parts.length ? parts[0][1] : 1;
    for (const [s, x] of parts) {
      const row = document.createElement("div");
      row.className = "wbar";
      const lab = document.createElement("span");
      lab.textContent = s;
      const b = document.createElement("i");
      b.style.width = `${(70 * x) / most}%`;
      const v = document.createElement("span");
      v.className = "dim";
      v.textContent = ` ${x.toPrecision(3)} s`;
      row.append(lab, b, v);
      bars.append(row);
    }
    d.append(bars);
    // The pie of time per state (exclusive time of each value).
    const rows = (this.states ? this.states.rows : []).filter((s) => s.container === name && s.exclusive > 0);
    const pie = document.createElement("canvas");
    pie.id = "wait-pie";
    pie.width = 320; pie.height = 150;
    d.append(pie);
    const ctx = pie.getContext("2d");
    ctx.font = "11px DejaVu Sans, Arial, sans-serif";
    const sum = rows.reduce((a, s) => a + s.exclusive, 0);
    let a0 = -Math.PI / 2;
    const slices = [];
    rows.sort((a, b) => b.exclusive - a.exclusive).forEach((s, k) => {
      const a1 = a0 + (2 * Math.PI * s.exclusive) / (sum || 1);
      ctx.beginPath(); ctx.moveTo(70, 75); ctx.arc(70, 75, 65, a0, a1); ctx.closePath();
      ctx.fillStyle = this.colorOfValue(s.value);
      ctx.fill();
      slices.push([s.value, s.exclusive / (sum || 1)]);
      if (k < 9) {
        ctx.fillRect(150, 8 + k * 15, 10, 10);
        ctx.fillStyle = "#333";
        ctx.fillText(`${s.value} ${(100 * s.exclusive / (sum || 1)).toFixed(1)} %`, 164, 17 + k * 15);
      }
      a0 = a1;
    });
    this.pie = slices;
    this.bars = parts;
  }

  // What is on screen, for scripts.
  describe() {
    if (!this.wait || !this.layout) return null;
    const { key, cols, total } = this.layout;
    return {
      mode: this.mode,
      columns: cols.map((c) => c.name).concat(total ? ["total"] : []),
      rows: this.wait.rows.map((r) => ({ name: r.container, cells: cols.map((c) => r[key][c.j]), total: r.waiting_share })),
      selected: this.selected,
      cell: this.layout.cw,
      origin: [this.layout.x0, this.layout.y0],
      labelStep: this.layout.step,
      prefix: this.layout.prefix,
      suffix: this.layout.suffix,
      bars: this.bars || null,
      pie: this.pie || null,
    };
  }

  // Client coordinates of a row's label.
  rowAt(name) {
    const i = this.wait.rows.findIndex((r) => r.container === name);
    if (i < 0 || !this.layout) return null;
    // Scrolled into the box first.
    const y = this.layout.y0 + i * this.layout.ch;
    const box = this.scroller;
    if (box && (y < box.scrollTop || y + this.layout.ch > box.scrollTop + box.clientHeight)) {
      box.scrollTop = Math.max(0, y - box.clientHeight / 2);
    }
    if (box) box.scrollLeft = 0;
    const rc = this.cv.getBoundingClientRect();
    return [rc.left + 10, rc.top + this.layout.y0 + i * this.layout.ch + this.layout.ch / 2];
  }
}
