// The rows of the timeline: which are shown (a collapsed container hides
// its subtree; rows with nothing over the run are never shown), in which
// order, and where they are on screen.

import { arrangeRows } from "./arrange.js";

export const ROW_H = 18;          // pixels per row
export const AXIS_H = 28;         // the time axis above the rows
export const LABEL_W = 220;       // the row labels on the left

// The meta rows shown, top to bottom: in the order of the container tree
// without the subtrees of `collapsed` containers (a collapsed container
// keeps its own row, its variables are hidden), or with `order` "hosts"
// the seed's order (hosts by the messages they put on the network, each
// followed by its processes).
export function visibleRows(meta, collapsed, order) {
  const idle = new Set(meta.idle || []);
  if (order === "hosts") return meta.host_order.filter((i) => !idle.has(i));
  const parentOf = new Map(meta.containers.map((c) => [c.id, c.parent]));
  const under = (id) => {
    for (let p = id; p != null; p = parentOf.get(p)) {
      if (collapsed.has(p) && p !== id) return true;
    }
    return false;
  };
  const out = [];
  meta.rows.forEach((r, i) => {
    if (idle.has(i)) return;
    if (under(r.container) || (r.variable != null && collapsed.has(r.container))) return;
    out.push(i);
  });
  return out;
}

// Sets `state.visible` from the state's meta, collapsed containers and
// order, then its arrangement (arrange.js: filter, pins, sort), if any.
export function computeVisible(state) {
  const rows = visibleRows(state.meta, state.collapsed, state.order);
  state.visible = state.arrange ? arrangeRows(state.meta, rows, state.arrange) : rows;
}

// How many rows fit in `height` pixels under the axis (at least one).
export function rowsFitting(height) {
  return Math.max(1, Math.floor((height - AXIS_H) / ROW_H));
}

// The rows on a timeline canvas `height` pixels high.
export function rowsOnScreen(state, height) {
  return state.visible.slice(state.scroll, state.scroll + rowsFitting(height));
}

// The row at `y` pixels of such a canvas, or null.
export function rowAt(state, height, y) {
  const k = Math.floor((y - AXIS_H) / ROW_H);
  if (y < AXIS_H || k < 0) return null;
  return rowsOnScreen(state, height)[k] ?? null;
}

// The ids of the containers that have children.
export function parents(meta) {
  return new Set(meta.containers.filter((c) => c.children.length).map((c) => c.id));
}
