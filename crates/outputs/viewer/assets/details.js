// What the page says of an entity (api/entity's JSON, or what an offline
// report's summary knows of a point): the HTML of the tooltip and of the
// details panel.

import { esc, fmtTime } from "./util.js";

// The HTML describing `e`, empty for none.
export function describe(e) {
  if (!e || e.kind === "none") return "";
  const lines = [`<b>${esc(String(e.value))}</b> <span class=dim>${esc(e.kind)} · ${esc(e.type)}</span>`,
    `${esc(e.container)}`];
  if (e.summary) return describeSummary(e, lines);
  if (e.kind === "event") lines.push(`at ${e.start} s`);
  else lines.push(`${e.start} s → ${e.end} s`, `duration ${fmtTime(e.end - e.start, (e.end - e.start) / 1000 || 1e-9)}`);
  if (e.level != null) lines.push(`level ${e.level}`);
  if (e.stack && e.stack.length > 1) lines.push(`stack: ${e.stack.map(esc).join(" › ")}`);
  if (e.fields && e.fields.length) lines.push(`fields: ${e.fields.map(esc).join(", ")}`);
  return lines.join("<br>");
}

// What an offline report's summary knows of a point (offline.js,
// `entity`): the columns around it, not the entity itself.
function describeSummary(e, lines) {
  // Seconds to the digit a column resolves, as the server's times.
  const digits = Math.max(0, Math.min(12, Math.ceil(-Math.log10(e.column || 1e-9)) + 1));
  const step = e.column / 10 || 1e-9;
  const range = `${e.start.toFixed(digits)} s → ${e.end.toFixed(digits)} s (${fmtTime(e.end - e.start, step)})`;
  if (e.kind === "state") {
    lines.push(`dominant in ${range}`);
    if (e.mixed) lines.push(`mixed: states of several values, ${e.count} in a column`);
    else if (e.count > 1) lines.push(`${e.count} states in a column`);
    if (e.level) lines.push(`level ${e.level}`);
    if (e.stack && e.stack.length > 1) lines.push(`stack: ${e.stack.map(esc).join(" › ")}`);
  } else if (e.kind === "event") {
    lines.push(`in ${range}`);
  } else {
    lines.push(`in ${range}`, `from ${e.min} to ${e.max}, last ${e.value}`);
  }
  lines.push(`<span class=dim>from the report's summary: columns of ${fmtTime(e.column, step)}</span>`);
  return lines.join("<br>");
}
