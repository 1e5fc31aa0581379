// The tables of a selection (selection.js), as pure functions: time per
// state added up per value over the selected containers, the messages'
// totals, sorting by a column, and CSV.
//
// Rows in are those of `trama stats states --window T0,T1` (api/selection's
// `states.rows`, one per container, state type and value). Per value
// (state type and value name), over the rows of the selected containers:
// count, total, exclusive and inclusive add up, mean is total / count,
// min and max are the smallest and largest of the rows', and share is
// inclusive over the selection's container-time (its length times the
// containers that have the state type).

import { natural } from "./util.js";

// The columns of the per-value table: key, header, kind ("text", "int",
// "time", "share").
export const VALUE_COLUMNS = [
  ["state_type", "state", "text"],
  ["value", "value", "text"],
  ["containers", "containers", "int"],
  ["count", "count", "int"],
  ["total", "total", "time"],
  ["exclusive", "self", "time"],
  ["mean", "mean", "time"],
  ["min", "min", "time"],
  ["max", "max", "time"],
  ["share", "share", "share"],
];

// The columns of the per-container table.
export const CONTAINER_COLUMNS = [["container", "container", "text"]].concat(
  VALUE_COLUMNS.filter((c) => c[0] !== "containers"),
);

// Per value: the rows of `rows` (StateRow objects) added up, with
// `len` the selection's length in seconds. In the order values first
// appear in `rows`.
export function byValue(rows, len) {
  const out = new Map();
  const withType = new Map();   // state type -> containers having it
  for (const r of rows) {
    if (!withType.has(r.state_type)) withType.set(r.state_type, new Set());
    withType.get(r.state_type).add(r.container);
    const k = `${r.state_type}\u0000${r.value}`;
    let v = out.get(k);
    if (!v) {
      v = { state_type: r.state_type, value: r.value, containers: 0, count: 0, total: 0, exclusive: 0, inclusive: 0, min: 0, max: 0 };
      out.set(k, v);
    }
    if (r.count > 0) v.min = v.count > 0 ? Math.min(v.min, r.min) : r.min;
    v.containers += 1;
    v.count += r.count;
    v.total += r.total;
    v.exclusive += r.exclusive;
    v.inclusive += r.inclusive;
    v.max = Math.max(v.max, r.max);
  }
  for (const v of out.values()) {
    v.mean = v.count > 0 ? v.total / v.count : 0;
    const n = withType.get(v.state_type).size;
    v.share = len > 0 ? v.inclusive / (len * n) : 0;
  }
  return [...out.values()];
}

// The per-container rows, with share recomputed over `len` (a row is
// one container's).
export function byContainer(rows, len) {
  return rows.map((r) => ({ ...r, share: len > 0 ? r.inclusive / len : 0 }));
}

// The messages of `pairs` (api/selection's `comm.pairs`): how many, their
// bytes (null without a size field), and the pairs most first.
export function messageTotals(pairs, sized) {
  let count = 0, bytes = 0;
  for (const p of pairs) { count += p.count; bytes += p.bytes || 0; }
  const most = pairs.slice().sort((a, b) => b.count - a.count || natural(a.from, b.from) || natural(a.to, b.to));
  return { count, bytes: sized ? bytes : null, pairs: most };
}

// `rows` sorted by column `key`, descending when `desc`: names in natural
// order, numbers by value; ties keep their order.
export function sortRows(rows, key, desc) {
  const sign = desc ? -1 : 1;
  return rows
    .map((r, i) => [r, i])
    .sort(([a, i], [b, j]) => {
      const x = a[key], y = b[key];
      const c = typeof x === "number" && typeof y === "number" ? x - y : natural(String(x), String(y));
      return sign * c || i - j;
    })
    .map(([r]) => r);
}

// A CSV field: quoted when it holds a comma, a quote or a line break.
export function csvField(x) {
  const s = typeof x === "number" ? String(x) : String(x ?? "");
  return /[",\r\n]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s;
}

// `rows` as CSV with a header line: one column per `columns` entry (its
// key names it), numbers in full precision.
export function toCsv(rows, columns) {
  const keys = columns.map((c) => c[0]);
  const lines = [keys.map(csvField).join(",")];
  for (const r of rows) lines.push(keys.map((k) => csvField(r[k])).join(","));
  return lines.join("\n") + "\n";
}

// The selection's title: its times and what it holds. `ids` are the
// selected container ids (null: every container); of them only those
// with states over the run are counted, those whose own row (meta.rows,
// variable null) is in `stated` (a Map or Set of meta rows: rows.js's
// depths); `subtrees` says a collapsed container brought its subtree in.
export function selectionTitle(meta, stated, ids, subtrees) {
  if (!ids) return "every container";
  const rowOf = new Map();
  meta.rows.forEach((r, i) => { if (r.variable == null) rowOf.set(r.container, i); });
  const n = stated ? ids.filter((id) => stated.has(rowOf.get(id))).length : ids.length;
  return `${n} container${n === 1 ? "" : "s"} with states` +
    (subtrees ? " (a collapsed container brings its subtree)" : "");
}
