// The player's legend: the values of the processes' states in the frame.

import { $, natural } from "./util.js";

// One entry per label and colour, labels in natural order.
export function drawLegend(pl, f) {
  const seen = new Map();
  for (const st of f.states) {
    for (const v of st.value != null ? [st.value, ...st.shares.map((s) => s[0])] : []) {
      const key = `${pl.meta.values[v].label}\u0000${pl.colorOf(v).join(",")}`;
      if (!seen.has(key)) seen.set(key, v);
    }
  }
  const el = $("p-legend");
  el.replaceChildren();
  const label = (v) => pl.meta.values[v].label;
  for (const v of [...seen.values()].sort((a, b) => natural(label(a), label(b)))) {
    const s = document.createElement("span");
    const i = document.createElement("i");
    const [r, g, b] = pl.colorOf(v);
    i.style.background = `rgb(${r},${g},${b})`;
    s.append(i, label(v));
    el.append(s);
  }
}
