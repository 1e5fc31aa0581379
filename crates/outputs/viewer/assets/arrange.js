// The rows' arrangement on top of their order (rows.js): a filter by name
// or pattern, rows pinned to the top, and an order by name (numbers in
// names by value: rank-9 before rank-10) or by a metric (time in states
// of a value, most first). A container's row and its variables' rows move
// together, as a group.
//
// A pattern is a name's part (case ignored), a glob (`*` any text, `?`
// one character: `rank-1?`), or a regular expression between slashes
// (`/rank-(1|3)$/`); several, separated by commas, keep rows matching any.

import { $, esc, natural } from "./util.js";

// The test of a row's label that `text` describes (null: every row
// passes). A malformed regular expression matches as plain text.
export function matcher(text) {
  const parts = String(text || "").split(",").map((p) => p.trim()).filter((p) => p);
  if (!parts.length) return null;
  const tests = parts.map((p) => {
    const re = /^\/(.+)\/([a-z]*)$/.exec(p);
    if (re) {
      try {
        const r = new RegExp(re[1], re[2].includes("i") ? re[2] : re[2] + "i");
        return (s) => r.test(s);
      } catch (e) { /* as text, below */ }
    }
    if (/[*?]/.test(p)) {
      const body = p.split("").map((c) => c === "*" ? ".*" : c === "?" ? "." : c.replace(/[.+^${}()|[\]\\]/g, "\\$&")).join("");
      const r = new RegExp(`^${body}$`, "i");
      return (s) => r.test(s);
    }
    const needle = p.toLowerCase();
    return (s) => s.toLowerCase().includes(needle);
  });
  return (s) => tests.some((t) => t(s));
}

// `rows` (indices into meta.rows, in their order) arranged by `how`:
//   filter   the text of a pattern (above): a group stays when its
//            container's label matches (or one of its rows' labels)
//   pinned   a Set of container ids whose groups come first, in this order
//   sort     "tree" (as given), "name", or "metric"
//   metric   with "metric": a Map of row index -> number; a group's is the
//            sum of its rows', largest first (ties by name)
// The groups are runs of consecutive rows of one container in `rows`.
export function arrangeRows(meta, rows, how = {}) {
  const test = matcher(how.filter);
  const pinned = how.pinned || new Set();
  const groups = [];
  for (const r of rows) {
    const c = meta.rows[r].container;
    const last = groups[groups.length - 1];
    if (last && last.container === c) last.rows.push(r);
    else groups.push({ container: c, rows: [r], name: meta.rows[r].label });
  }
  let kept = test ? groups.filter((g) => g.rows.some((r) => test(meta.rows[r].label))) : groups;
  if (how.sort === "name") {
    kept = [...kept].sort((a, b) => natural(a.name, b.name));
  } else if (how.sort === "metric" && how.metric) {
    const score = (g) => g.rows.reduce((s, r) => s + (how.metric.get(r) || 0), 0);
    kept = kept.map((g) => ({ ...g, score: score(g) }))
      .sort((a, b) => b.score - a.score || natural(a.name, b.name));
  }
  // Pinned groups are kept whatever the filter.
  const first = [...pinned].flatMap((c) => groups.filter((g) => g.container === c));
  const rest = kept.filter((g) => !pinned.has(g.container));
  return [...first, ...rest].flatMap((g) => g.rows);
}

// Per row of a summary `data` (decode.js), the time its state spans of a
// value in `values` (a Set of value ids) last, at every nesting level.
export function timeIn(data, values) {
  const cw = (data.t1 - data.t0) / data.width;
  const out = new Map();
  for (const [row, r] of data.rows) {
    let sum = 0;
    for (const band of r.bands) {
      for (const spans of band.levels) {
        for (let i = 0; i < spans.length; i += 4) {
          if (values.has(spans[i + 2])) sum += (spans[i + 1] - spans[i]) * cw;
        }
      }
    }
    out.set(row, sum);
  }
  return out;
}

// The values offered to order rows by time in them: those of the most time
// over the run (`data`, the whole run's summary), and first all MPI calls
// together when there are some: [{label, ids: Set}], at most `n` + 1.
export function metricChoices(meta, data, n = 6) {
  const total = new Map();
  for (const r of data.rows.values()) {
    for (const band of r.bands) {
      for (const spans of band.levels) {
        for (let i = 0; i < spans.length; i += 4) total.set(spans[i + 2], (total.get(spans[i + 2]) || 0) + spans[i + 1] - spans[i]);
      }
    }
  }
  const out = [];
  const mpi = meta.values.filter((v) => /^MPI_/i.test(v.name) && total.has(v.id));
  if (mpi.length) out.push({ label: "MPI_*", ids: new Set(mpi.map((v) => v.id)) });
  [...total].sort((a, b) => b[1] - a[1]).slice(0, n)
    .forEach(([id]) => out.push({ label: meta.values[id].label ?? meta.values[id].name, ids: new Set([id]) }));
  return out;
}

// Wires the header's row filter (#row-filter) and order (#row-sort) and
// the shift-click on a label that pins its row to the top. `page` is
// app.js's controller; `state.arrange` holds {filter, pinned, sort,
// metric}, first as the URL's fragment `params` says (arrangeOfHash);
// `page.arranged()` recomputes the rows shown and redraws.
export function listenRows(page, params = new URLSearchParams()) {
  const s = page.state;
  s.arrange = arrangeOfHash(params);
  $("row-filter").value = s.arrange.filter;
  if (s.arrange.sort === "name") $("row-sort").value = "name";
  $("row-filter").addEventListener("input", () => {
    s.arrange.filter = $("row-filter").value;
    page.arranged();
  });
  $("row-sort").addEventListener("change", () => {
    const v = $("row-sort").value;
    const k = Number(v.split(":")[1]);
    const choice = page.rowChoices?.[k];
    s.arrange.sort = choice ? "metric" : v;
    s.arrange.choice = choice ? k : null;
    s.arrange.metric = choice ? choice.metric() : null;
    page.arranged();
  });
  // Before the label's click that collapses (controls.js).
  $("labels").addEventListener("click", (ev) => {
    if (!ev.shiftKey) return;
    ev.stopImmediatePropagation();
    const row = page.rowAt(ev.offsetY);
    if (row == null) return;
    const c = s.meta.rows[row].container;
    if (s.arrange.pinned.has(c)) s.arrange.pinned.delete(c); else s.arrange.pinned.add(c);
    page.arranged();
  }, { capture: true });
}

// Offers ordering by time in the `choices` (metricChoices), each measured
// on `data`: the options of #row-sort after its first two.
export function offerMetrics(page, data, choices) {
  page.rowChoices = choices.map((c) => ({ ...c, metric: () => timeIn(data, c.ids) }));
  const sel = $("row-sort");
  sel.innerHTML = `<option value="tree">as listed</option><option value="name">by name</option>` +
    page.rowChoices.map((c, k) => `<option value="metric:${k}">by time in ${esc(c.label)}</option>`).join("");
  // An order by time that the URL asked for, now that it is offered.
  const a = page.state.arrange;
  sel.value = a.sort === "metric" && page.rowChoices[a.choice] ? `metric:${a.choice}` : a.sort === "name" ? "name" : "tree";
  if (a.sort === "metric" && !a.metric) {
    const choice = page.rowChoices[a.choice];
    a.sort = choice ? "metric" : "tree";
    a.metric = choice ? choice.metric() : null;
    page.arranged();
  }
}

// The arrangement `a` in the URL's fragment: `filter=TEXT`,
// `pins=ID,ID` (container ids, first to last) and `sort=name` or
// `sort=metric:K` (the K-th order by time offered), each when set.
export function arrangeHash(a) {
  if (!a) return [];
  const out = [];
  if (a.filter) out.push(`filter=${encodeURIComponent(a.filter)}`);
  if (a.pinned.size) out.push(`pins=${[...a.pinned].join(",")}`);
  if (a.sort === "name") out.push("sort=name");
  else if (a.sort === "metric" && a.choice != null) out.push(`sort=metric:${a.choice}`);
  return out;
}

// The arrangement of a URL's fragment (URLSearchParams), as arrangeHash
// writes it: {filter, pinned, sort, choice, metric}; a metric's numbers
// come when its order is offered (offerMetrics).
export function arrangeOfHash(params) {
  const pins = (params.get("pins") || "").split(",").filter((p) => /^\d+$/.test(p)).map(Number);
  const sort = params.get("sort") || "";
  const k = /^metric:(\d+)$/.exec(sort);
  return {
    filter: params.get("filter") || "",
    pinned: new Set(pins),
    sort: k ? "metric" : sort === "name" ? "name" : "tree",
    choice: k ? Number(k[1]) : null,
    metric: null,
  };
}
