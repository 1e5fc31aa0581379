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

// The pixels of meta row `ri`: ROW_H, or with the nesting levels drawn
// as sub-rows (`state.subrows`) ROW_H per sub-row its states take over
// the run (`state.depths`: Map(row -> sub-rows), from subRowsOf).
export function rowHeight(state, ri) {
  if (!state.subrows || !state.depths) return ROW_H;
  return ROW_H * Math.max(1, state.depths.get(ri) || 1);
}

// The sub-row of row `ri` in which level `level` of its states of type
// `type` is drawn: below the levels of the row's types of smaller id
// (`state.firstSub`: Map(row -> Map(type -> first sub-row)), from
// subRowsOf; a type it does not know starts at the top).
export function subRow(state, ri, type, level) {
  return (state.firstSub?.get(ri)?.get(type) ?? 0) + level;
}

// The rows on a timeline canvas `height` pixels high: those from
// `state.scroll` that fit whole (at least one).
export function rowsOnScreen(state, height) {
  const out = [];
  let y = AXIS_H;
  for (let k = state.scroll; k < state.visible.length; k++) {
    const ri = state.visible[k];
    y += rowHeight(state, ri);
    if (y > height && out.length) break;
    out.push(ri);
  }
  return out;
}

// The top of each of `rows` (drawn from the axis down): Map(row -> y).
export function rowTops(state, rows) {
  const m = new Map();
  let y = AXIS_H;
  for (const ri of rows) { m.set(ri, y); y += rowHeight(state, ri); }
  return m;
}

// The row at `y` pixels of such a canvas, or null.
export function rowAt(state, height, y) {
  if (y < AXIS_H) return null;
  for (const [ri, top] of rowTops(state, rowsOnScreen(state, height))) {
    if (y < top + rowHeight(state, ri)) return ri;
  }
  return null;
}

// The nesting levels each row's states reach in the summary `d`
// (decode.js) of the whole run: Map(row -> levels), the deepest band's.
export function depthsOf(d) {
  const out = new Map();
  for (const [ri, row] of d.rows) {
    let n = 0;
    for (const b of row.bands) b.levels.forEach((s, l) => { if (s.length) n = Math.max(n, l + 1); });
    if (n) out.set(ri, n);
  }
  return out;
}

// The sub-rows of each row in the summary `d` (decode.js) of the whole
// run: each state type of a row takes as many as the nesting levels its
// states reach, one type under the other by type id. {depths: Map(row ->
// sub-rows), firstSub: Map(row -> Map(type -> its first sub-row))}.
export function subRowsOf(d) {
  const depths = new Map(), firstSub = new Map();
  for (const [ri, row] of d.rows) {
    const levels = new Map();
    for (const b of row.bands) {
      let n = 0;
      b.levels.forEach((s, l) => { if (s.length) n = Math.max(n, l + 1); });
      if (n) levels.set(b.type, Math.max(n, levels.get(b.type) || 0));
    }
    if (!levels.size) continue;
    const first = new Map();
    let k = 0;
    for (const type of [...levels.keys()].sort((a, b) => a - b)) { first.set(type, k); k += levels.get(type); }
    depths.set(ri, k);
    firstSub.set(ri, first);
  }
  return { depths, firstSub };
}

// The ids of the containers that have children.
export function parents(meta) {
  return new Set(meta.containers.filter((c) => c.children.length).map((c) => c.id));
}
