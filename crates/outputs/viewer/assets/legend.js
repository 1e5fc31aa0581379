// The legend of the timeline's states: one entry per label and colour
// (values of several state types may share both; two values of one name
// have two labels and colours). A click hides or shows its values, a
// shift-click draws them alone in full colour.

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

// Fills the legend of `state.meta`; `redraw` after a click.
export function legend(state, redraw) {
  const el = $("legend");
  el.textContent = "";
  for (const { label, color, ids } of legendEntries(state.meta)) {
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
}
