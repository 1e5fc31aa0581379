// Search by name (Enter: the next hit): containers by label, values by
// name; a value's next state after the last hit is zoomed to and measured.

import { $, fmtTime } from "./util.js";
import { computeVisible } from "./rows.js";

export class Search {
  // source: where answers come from (source.js); state: the view's
  // (store.js); view: {shown() the rows on screen, setWindow(t0, t1),
  // refresh() (draw and ask for the view's summary)}.
  constructor(source, state, view) {
    this.source = source;
    this.state = state;
    this.view = view;
    this.last = { q: "", after: null };
  }

  async find(q) {
    if (!q) return;
    const state = this.state;
    const last = this.last;
    const after = last.q === q && last.after != null ? last.after : state.t0;
    const r = await this.source.search(q, after);
    const found = $("found");
    if (r.next) {
      this.last = { q, after: r.next.start };
      this.showRow(r.next.row);
      const span = state.t1 - state.t0;
      const len = r.next.end - r.next.start;
      // Keep the zoom unless the entity is wider than a third of the screen.
      const w = Math.max(span, 3 * len);
      const c = (r.next.start + r.next.end) / 2;
      state.ruler = { a: r.next.start, b: r.next.end };
      found.textContent = `${r.next.value} on ${state.meta.rows[r.next.row].label} at ${fmtTime(r.next.start, w / 1000)}`;
      this.view.setWindow(c - w / 2, c + w / 2);
    } else if (r.rows.length) {
      this.last = { q, after: null };
      const k = r.rows.findIndex((h) => state.visible.indexOf(h.row) >= state.scroll);
      const hit = r.rows[Math.max(0, k)];
      this.showRow(hit.row);
      found.textContent = `${r.rows.length} container(s): ${hit.label}`;
      this.view.refresh();
    } else {
      found.textContent = last.q === q ? "no more" : "nothing found";
      this.last = { q, after: null };
    }
  }

  // Scrolls so that meta row `row` is on screen (expanding its ancestors).
  showRow(row) {
    const state = this.state;
    const m = state.meta;
    const parentOf = new Map(m.containers.map((c) => [c.id, c.parent]));
    for (let p = parentOf.get(m.rows[row].container); p != null; p = parentOf.get(p)) state.collapsed.delete(p);
    computeVisible(state);
    const k = state.visible.indexOf(row);
    const n = this.view.shown().length;
    if (k < state.scroll || k >= state.scroll + n) state.scroll = Math.max(0, k - Math.floor(n / 3));
    state.found = row;
  }
}
