// The legend of the timeline's states: one entry per label and colour
// (values of several state types may share both; two values of one name
// have two labels and colours). A click hides or shows its values, a
// shift-click draws them alone in full colour. A long legend (more than
// FOLD_FROM entries) starts folded to its first line, with a button that
// unfolds it; typing in its filter keeps the entries whose name holds the
// text (any case), the others' included (the why panel's).

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

// Legends longer than this start folded.
export const FOLD_FROM = 16;

// Whether an entry labelled `label` passes the filter `text`.
export function passes(label, text) {
  return label.toLowerCase().includes(text.trim().toLowerCase());
}

// Fills the legend of `state.meta`; `redraw` after a click, `relayout`
// when its height changes (folded, unfolded, filtered).
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
  }
  setFolded(entries.length > FOLD_FROM);
}
