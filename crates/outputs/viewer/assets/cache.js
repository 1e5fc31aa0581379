// The window cache: the summaries the page holds, each of the window on
// screen padded by one screen on each side, so that a reply grows with
// rows × width, not with the trace.
//
// A window is asked for at a resolution (the time a column lasts) that is
// a power of two no longer than a pixel, over the cells of a grid (cells
// of a power-of-two duration, about a screen) that cover it padded by one
// screen on each side. A reply held serves while it has that resolution,
// the rows on screen, and half a screen to spare on each side: small pans,
// scrolls and a zoom back draw at once without asking. A request no longer
// wanted is cancelled; at most KEEP replies are held, so the page's memory
// stays flat however far one zooms.

export const MAX_WIDTH = 16384;   // the server's widest reply
export const KEEP = 4;            // replies held

// `rows=` of a list of row indices: runs of consecutive ones as ranges.
export function ranges(rows) {
  const out = [];
  for (let i = 0; i < rows.length; i++) {
    let j = i;
    while (j + 1 < rows.length && rows[j + 1] === rows[j] + 1) j++;
    out.push(j > i ? `${rows[i]}-${rows[j]}` : `${rows[i]}`);
    i = j;
  }
  return out.join(",");
}

// The request for the window [t0, t1] drawn `W` pixels wide with the rows
// `rows` (those on screen and a screen below): its key, resolution, padded
// window, width in columns and rows.
export function plan(t0, t1, W, rows) {
  const span = t1 - t0;
  let res = 2 ** Math.floor(Math.log2(span / W));
  const cell = 2 ** Math.floor(Math.log2(span));
  const a = Math.floor((t0 - span) / cell) * cell;
  const b = Math.ceil((t1 + span) / cell) * cell;
  while ((b - a) / res > MAX_WIDTH) res *= 2;
  const list = ranges(rows);
  const width = Math.max(1, Math.round((b - a) / res));
  return { key: `${a} ${b} ${width} ${list}`, res, t0: a, t1: b, width, rows, list };
}

// Whether the reply `h` serves the window [t0, t1] at the resolution `res`
// with the rows `shown` on screen.
export function serves(h, t0, t1, res, shown) {
  const span = t1 - t0;
  return h.res === res && h.t0 <= t0 - span / 2 && h.t1 >= t1 + span / 2 &&
    shown.every((r) => h.asked.has(r));
}

export class WindowCache {
  // source: where summaries come from (source.js); state: the view's
  // (store.js: the window, the rows, the summary drawn); view: {width()
  // of the canvas in pixels, shown() the rows on screen, draw(), served()
  // once the view's summary is drawn, error(e)}.
  constructor(source, state, view) {
    this.source = source;
    this.state = state;
    this.view = view;
    this.held = [];          // {key, res, t0, t1, asked (Set of rows), data}, most recent last
    this.inflight = null;    // {key, ctl}: the request under way
    this.timer = null;
  }

  // The request the view calls for.
  wanted() {
    const s = this.state;
    const n = this.view.shown().length;
    // The rows on screen and a screen of rows below, so that scrolling and
    // a taller window draw at once.
    return plan(s.t0, s.t1, this.view.width(), s.visible.slice(s.scroll, s.scroll + 2 * n + 8));
  }

  serves(h, w) {
    return serves(h, this.state.t0, this.state.t1, w.res, this.view.shown());
  }

  // Draws `h`, the reply serving the view.
  drawServing(h) {
    this.held.splice(this.held.indexOf(h), 1);
    this.held.push(h);
    this.state.data = h.data;
    this.view.draw();
    this.view.served();
  }

  // Asks for the view's summary soon (changes in a burst ask once).
  request() {
    clearTimeout(this.timer);
    this.timer = setTimeout(() => this.update(), 40);
  }

  async update() {
    const s = this.state;
    const held = this.held;
    const w = this.wanted();
    const h = held.find((h) => h.key === w.key) || held.find((h) => this.serves(h, w));
    if (h) {
      if (this.inflight) { this.inflight.ctl.abort(); this.inflight = null; }
      this.drawServing(h);
      return;
    }
    if (this.inflight && this.inflight.key === w.key) return;
    if (this.inflight) this.inflight.ctl.abort();
    // Meanwhile, the held reply covering the window at the nearest
    // resolution is drawn.
    const cover = held.filter((h) => h.t0 <= s.t0 && h.t1 >= s.t1)
      .sort((a, b) => Math.abs(Math.log2(a.res / w.res)) - Math.abs(Math.log2(b.res / w.res)))[0];
    if (cover && cover.data !== s.data) { s.data = cover.data; this.view.draw(); }
    const ctl = new AbortController();
    this.inflight = { key: w.key, ctl };
    try {
      const data = await this.source.timeline(w.t0, w.t1, w.width, w.list, ctl.signal);
      if (ctl.signal.aborted) return;
      this.inflight = null;
      const got = { key: w.key, res: w.res, t0: w.t0, t1: w.t1, asked: new Set(w.rows), data };
      held.push(got);
      while (held.length > KEEP) held.shift();
      if (this.serves(got, this.wanted())) this.drawServing(got);
      else this.request();
    } catch (e) {
      if (e.name !== "AbortError") this.view.error(e);
    }
  }
}
