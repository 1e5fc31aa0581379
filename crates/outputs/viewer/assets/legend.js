// The legend of the timeline's states: one entry per label and colour
// (values of several state types may share both; two values of one name
// have two labels and colours). A click hides or shows its values, a
// shift-click draws them alone in full colour. A long legend (more than
// FOLD_FROM entries) starts folded to its first line, with a button that
// unfolds it; typing in its filter keeps the entries whose name holds the
// text (any case), the others' included (the why panel's). The entries
// of the values drawn in the window come first, those that take most of
// its time first; the others follow, greyed, in the order of the values.

import { $ } from "./util.js";

// The legend's entries of `meta`: {label, color, ids} in the order of the
// values.
export function legendEntries(meta) {
  const stateTypes = new Set(meta.types.filter((t) => t.kind === "state").map((t) => t.id));
  const key = (v) => `${v.label}\u0000${v.color}`;
  const seen = new Set();
  const out = [];
  for (const v of meta.values) {
    if (!stateTypes.has(v.type) || seen.has(key(v))) continue;
    seen.add(key(v));
    const ids = meta.values.filter((w) => key(w) === key(v) && stateTypes.has(w.type)).map((w) => w.id);
    out.push({ label: v.label, color: v.color, ids });
  }
  return out;
}

// The time each value's bars take in the window [t0, t1] of the summary
// `d` (decode.js), in columns of `d`, over every row, band and level:
// Map(value id -> columns).
export function windowShares(d, t0, t1) {
  const share = new Map();
  const cw = (d.t1 - d.t0) / d.width;
  const a = (t0 - d.t0) / cw, b = (t1 - d.t0) / cw;
  for (const row of d.rows.values()) {
    for (const band of row.bands) {
      for (const spans of band.levels) {
        for (let i = 0; i < spans.length; i += 4) {
          const w = Math.min(spans[i + 1], b) - Math.max(spans[i], a);
          if (w > 0) share.set(spans[i + 2], (share.get(spans[i + 2]) || 0) + w);
        }
      }
    }
  }
  return share;
}

// The indices of `entries` (legendEntries) in the legend's order, and how
// many come first: those with a share (a Map from windowShares), most
// first, then the others in their order.
export function legendOrder(entries, share) {
  const of = entries.map((e) => e.ids.reduce((s, id) => s + (share.get(id) || 0), 0));
  const order = entries.map((_, i) => i);
  order.sort((i, j) => (of[j] > 0 || of[i] > 0 ? of[j] - of[i] : 0) || i - j);
  return { order, present: of.filter((x) => x > 0).length };
}

// Legends longer than this start folded.
export const FOLD_FROM = 16;

// Whether an entry labelled `label` passes the filter `text`.
export function passes(label, text) {
  return label.toLowerCase().includes(text.trim().toLowerCase());
}

// Fills the legend of `state.meta`; `redraw` after a click, `relayout`
// when its height changes (folded, unfolded, filtered). Returns the
// function that puts its entries in the order of the window drawn
// (`state.data`, `state.t0`, `state.t1`).
export function legend(state, redraw, relayout = redraw) {
  const el = $("legend");
  el.textContent = "";
  const entries = legendEntries(state.meta);
  const controls = document.createElement("span");
  controls.className = "controls";
  const filter = document.createElement("input");
  filter.id = "legend-filter";
  filter.placeholder = "filter the legend";
  filter.size = 14;
  const fold = document.createElement("button");
  fold.id = "legend-fold";
  const setFolded = (on) => {
    el.classList.toggle("folded", on);
    fold.textContent = on ? `all ${el.querySelectorAll(".item").length} ▾` : "fewer ▴";
    fold.title = on ? "show the whole legend" : "fold the legend to one line";
  };
  fold.addEventListener("click", () => { setFolded(!el.classList.contains("folded")); relayout(); });
  filter.addEventListener("input", () => {
    for (const item of el.querySelectorAll(".item")) item.hidden = !passes(item.textContent, filter.value);
    if (filter.value.trim()) setFolded(false);
    relayout();
  });
  controls.append(filter, fold);
  controls.hidden = entries.length <= FOLD_FROM;
  el.append(controls);
  const items = [];
  for (const { label, color, ids } of entries) {
    const item = document.createElement("span");
    item.className = "item";
    item.title = "click: hide or show · shift-click: highlight";
    const sw = document.createElement("i");
    sw.style.background = color;
    item.append(sw, document.createTextNode(label));
    item.addEventListener("click", (ev) => {
      if (ev.shiftKey) {
        state.highlight = state.highlight === ids[0] ? null : ids[0];
        state.highlightIds = state.highlight == null ? null : new Set(ids);
      } else {
        const hide = !state.hidden.has(ids[0]);
        for (const id of ids) hide ? state.hidden.add(id) : state.hidden.delete(id);
        item.classList.toggle("off", hide);
      }
      redraw();
    });
    el.append(item);
    items.push(item);
  }
  setFolded(entries.length > FOLD_FROM);
  let drawn = null, shown = "";
  return () => {
    const d = state.data;
    const key = d && `${state.t0},${state.t1}`;
    if (!d || (drawn === d && shown === key)) return;
    drawn = d; shown = key;
    const { order, present } = legendOrder(entries, windowShares(d, state.t0, state.t1));
    if (order.some((i, k) => items[i] !== el.children[k + 1])) el.append(...order.map((i) => items[i]));
    order.forEach((i, k) => items[i].classList.toggle("absent", k >= present));
  };
}
