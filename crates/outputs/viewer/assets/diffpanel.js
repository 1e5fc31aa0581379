// The diff panel of two runs compared: `trama diff`'s summary and rows
// (value, A, B, delta, docs/stats-formats.md) from the reply of api/diff
// (or the diff an offline comparison embeds). A value's row picks it for
// the difference lane.

import { esc } from "./util.js";

// Seconds as the panel shows them (s, ms, µs, 4 digits); signed with
// `sign`.
export function seconds(x, sign = false) {
  const a = Math.abs(x);
  const s = a === 0 ? "0 s" : a >= 1 ? `${+a.toPrecision(4)} s`
    : a >= 1e-3 ? `${+(a * 1e3).toPrecision(4)} ms` : `${+(a * 1e6).toPrecision(4)} µs`;
  if (!sign) return x < 0 ? "−" + s : s;
  return (x > 0 ? "+" : x < 0 ? "−" : "±") + s;
}

// The value whose time grew the most from A to B (the lane's default),
// else the one that changed the most, else "".
export function topGainer(diff) {
  const rows = diff.rows || [];
  const up = rows.filter((r) => r.delta_seconds > 0).sort((p, q) => q.delta_seconds - p.delta_seconds);
  return (up[0] || rows[0] || { value: "" }).value;
}

// The panel's HTML for `reply` (api/diff's), at most `most` rows; the
// value `picked` marked.
export function diffHtml(reply, picked, most = 40) {
  const d = reply.diff;
  const [na, nb] = reply.names;
  const pct = d.a.length > 0 ? ` (${(100 * d.delta_length / d.a.length).toFixed(1)} %)` : "";
  const head = `<p><b>A</b> ${esc(na)}: ${seconds(d.a.length)} · <b>B</b> ${esc(nb)}: ${seconds(d.b.length)}` +
    ` · B − A: <b>${seconds(d.delta_length, true)}</b>${pct}</p>`;
  const row = (r) => {
    const cls = r.delta_seconds > 0 ? "more" : r.delta_seconds < 0 ? "less" : "";
    const on = r.value === picked ? " picked" : "";
    return `<tr class="${cls}${on}" data-value="${esc(r.value)}"><td>${esc(r.value)}</td>` +
      `<td>${seconds(r.a_seconds)}</td><td>${seconds(r.b_seconds)}</td>` +
      `<td class="delta">${seconds(r.delta_seconds, true)}</td></tr>`;
  };
  const rows = d.rows.slice(0, most).map(row).join("");
  const more = d.rows.length > most ? `<p class="dim">${d.rows.length - most} more rows: \`trama diff\`</p>` : "";
  const pat = d.patterns.length
    ? `<h4>wait states</h4><table><tr><th>pattern</th><th>A</th><th>B</th><th>B − A</th></tr>` +
      d.patterns.map((p) => `<tr><td>${esc(p.pattern)}</td><td>${seconds(p.a_seconds)}</td>` +
        `<td>${seconds(p.b_seconds)}</td><td class="delta">${seconds(p.delta_seconds, true)}</td></tr>`).join("") +
      `</table>`
    : "";
  return head +
    `<table class="diff"><tr><th>value</th><th>A</th><th>B</th><th>B − A</th></tr>${rows}</table>${more}${pat}`;
}
