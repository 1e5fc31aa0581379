// What the page says of an entity (api/entity's JSON, or what an offline
// report's summary knows of a point): the HTML of the tooltip and of the
// details panel.

import { esc, fmtTime } from "./util.js";
import { fmtOffset } from "./origin.js";

// The HTML describing `e`, empty for none; with a time `origin`
// (origin.js), its times are offsets from it.
export function describe(e, origin = null) {
  if (!e || e.kind === "none") return "";
  const lines = [`<b>${esc(String(e.value))}</b> <span class=dim>${esc(e.kind)} · ${esc(e.type)}</span>`,
    `${esc(e.container)}`];
  if (e.summary) return describeSummary(e, lines, origin);
  const dur = e.kind === "event" ? 0 : e.end - e.start;
  // Seconds as the trace has them, else the offset to a ten-thousandth of
  // its size or a thousandth of the duration, the finer.
  const at = (t) => origin == null ? `${t} s`
    : fmtOffset(t - origin, Math.max(Math.min(Math.abs(t - origin) / 1e4 || Infinity, dur / 1e3 || Infinity), 1e-9));
  if (e.kind === "event") lines.push(`at ${at(e.start)}`);
  else lines.push(`${at(e.start)} → ${at(e.end)}`, `duration ${fmtTime(dur, dur / 1000 || 1e-9)}`);
  if (origin != null) lines.push(`<span class=dim>times from the origin at ${origin} s</span>`);
  if (e.level != null) lines.push(`level ${e.level}`);
  if (e.stack && e.stack.length > 1) lines.push(`stack: ${e.stack.map(esc).join(" › ")}`);
  if (e.fields && e.fields.length) lines.push(`fields: ${e.fields.map(esc).join(", ")}`);
  return lines.join("<br>");
}

// What an offline report's summary knows of a point (offline.js,
// `entity`): the columns around it, not the entity itself.
function describeSummary(e, lines, origin) {
  // Seconds to the digit a column resolves, as the server's times (or
  // offsets from the origin to that digit).
  const digits = Math.max(0, Math.min(12, Math.ceil(-Math.log10(e.column || 1e-9)) + 1));
  const step = e.column / 10 || 1e-9;
  const at = (t) => origin == null ? `${t.toFixed(digits)} s` : fmtOffset(t - origin, step);
  const range = `${at(e.start)} → ${at(e.end)} (${fmtTime(e.end - e.start, step)})`;
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
