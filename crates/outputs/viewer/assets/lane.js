// The difference lane of two runs compared (`trama view A B`): per row
// group and pixel column, which state values take more time in B than in
// A over the aligned windows. Each run's window summary (decode.js) says
// per row, state type and column the value drawn there (the deepest
// nesting level of that type, its dominant state); a row's column counts
// as that value's (each type's) for the column's duration. Per group (one per container when both runs have the
// same rows, else every row as one) and column, a value's delta is B's
// count minus A's, times the column's duration: seconds more (or less)
// that B spends in it there.
//
//   lane: {width, dt, groups: [{name, rows}], cells: [group][column] =
//          [{value, delta}] by decreasing |delta| (deltas 0 left out)}

// Per row (id), per state type of the row (its band), the value drawn in
// each column of `grid` ({t0, t1, width}; default the summary's own), or
// -1: the deepest nesting level of that type covering the column. Each
// type counts apart: a type nested inside another's state (an MPI
// collective's own type beside the calls) hides nothing. A summary of
// other columns (an offline report's tiles joined) is read at each
// column's middle.
export function columnValues(summary, grid = summary) {
  const out = new Map();
  const W = summary.width;
  const same = grid.width === W && grid.t0 === summary.t0 && grid.t1 === summary.t1;
  const ds = (summary.t1 - summary.t0) / W, dt = (grid.t1 - grid.t0) / grid.width;
  const at = same ? null : Int32Array.from({ length: grid.width }, (_, x) =>
    Math.floor((grid.t0 + (x + 0.5) * dt - summary.t0) / ds));
  for (const [row, r] of summary.rows) {
    if (!r.bands || !r.bands.length) continue;
    out.set(row, r.bands.map((band) => {
      const col = new Int32Array(W).fill(-1);
      for (const spans of band.levels) {
        for (let i = 0; i + 3 < spans.length; i += 4) {
          const x0 = spans[i], x1 = Math.min(W, Math.max(spans[i] + 1, spans[i + 1]));
          col.fill(spans[i + 2], x0, x1);
        }
      }
      return same ? col : at.map((c) => (c >= 0 && c < W ? col[c] : -1));
    }));
  }
  return out;
}

// The row groups of runs whose metas are `ma` and `mb`: one per row label
// when both have the same labels of container rows (at most `most`), else
// one group of every row. {groups: [{name, rows}], a, b: Map(row id ->
// group index)}.
export function groupsOf(ma, mb, most = 64) {
  const labels = (m) => m.rows.map((r, i) => [r.label, i]).filter(([, i]) => m.rows[i].variable == null);
  const la = labels(ma), lb = labels(mb);
  const sa = la.map(([l]) => l).sort(), sb = lb.map(([l]) => l).sort();
  const same = sa.length === sb.length && sa.length <= most && new Set(sa).size === sa.length
    && sa.every((l, i) => l === sb[i]);
  if (!same) {
    return {
      groups: [{ name: "all rows", rows: Math.max(la.length, lb.length) }],
      a: new Map(la.map(([, i]) => [i, 0])),
      b: new Map(lb.map(([, i]) => [i, 0])),
    };
  }
  const index = new Map(la.map(([l], g) => [l, g]));
  return {
    groups: la.map(([l]) => ({ name: l, rows: 1 })),
    a: new Map(la.map(([l, i]) => [i, index.get(l)])),
    b: new Map(lb.map(([l, i]) => [i, index.get(l)])),
  };
}

// Per group and column of `grid` (columnValues'), the rows' columns per
// value name: [group][column] = Map(name -> count).
export function profile(summary, names, groupOf, ngroups, grid = summary) {
  const W = grid.width;
  const out = Array.from({ length: ngroups }, () => Array.from({ length: W }, () => new Map()));
  for (const [row, cols] of columnValues(summary, grid)) {
    const g = groupOf.get(row);
    if (g == null) continue;
    for (const col of cols) {
      for (let x = 0; x < W; x++) {
        if (col[x] < 0) continue;
        const name = names[col[x]] ?? `#${col[x]}`;
        const m = out[g][x];
        m.set(name, (m.get(name) || 0) + 1);
      }
    }
  }
  return out;
}

// The lane of profiles `pa` and `pb` (same groups and columns), columns
// of `dt` seconds.
export function laneOf(pa, pb, dt, groups) {
  const width = pa.length ? pa[0].length : 0;
  const cells = pa.map((ga, g) => ga.map((ca, x) => {
    const cb = pb[g][x];
    const out = [];
    for (const name of new Set([...ca.keys(), ...cb.keys()])) {
      const d = ((cb.get(name) || 0) - (ca.get(name) || 0)) * dt;
      if (d !== 0) out.push({ value: name, delta: d });
    }
    out.sort((p, q) => Math.abs(q.delta) - Math.abs(p.delta) || (p.value < q.value ? -1 : 1));
    return out;
  }));
  return { width, dt, groups, cells };
}

// The delta of `value` in a cell (`""`: what B spends more in any value,
// the sum of the positive deltas).
export function deltaOf(cell, value) {
  if (!value) return cell.reduce((s, c) => s + Math.max(0, c.delta), 0);
  const c = cell.find((c) => c.value === value);
  return c ? c.delta : 0;
}

// The colour of a delta, as [r, g, b, alpha]: red where B spends more,
// blue where less, the more opaque the larger against `full` (a column
// of every row of the group); null for 0.
export function shade(delta, full) {
  if (!delta) return null;
  const a = Math.min(1, 0.3 + 0.7 * Math.abs(delta) / full);
  return delta > 0 ? [214, 39, 40, a] : [31, 119, 180, a];
}

// The columns of a group where `value` changes ([x0, x1) runs, with the
// sign: +1 B more, -1 less), for scripts and tests.
export function marked(lane, g, value) {
  const runs = [];
  lane.cells[g].forEach((cell, x) => {
    const s = Math.sign(deltaOf(cell, value));
    const last = runs[runs.length - 1];
    if (s === 0) return;
    if (last && last.sign === s && last.x1 === x) last.x1 = x + 1;
    else runs.push({ x0: x, x1: x + 1, sign: s });
  });
  return runs;
}

// The height of each group's strip in a lane at most `most` pixels high
// (a few groups: taller strips).
export function stripHeight(ngroups, most = 120) {
  const n = Math.max(1, ngroups);
  return Math.max(2, Math.min(n <= 3 ? 24 : 10, Math.floor(most / n)));
}

// Draws `lane` on `ctx`: its groups' names in the first `left` pixels,
// their strips in the `W` after them; `value` as deltaOf takes it.
export function drawLane(ctx, lane, value, W, left = 0) {
  const h = stripHeight(lane.groups.length);
  ctx.clearRect(0, 0, left + W, h * lane.groups.length);
  const k = W / Math.max(1, lane.width);
  ctx.font = `${Math.min(11, h)}px sans-serif`;
  ctx.textBaseline = "middle";
  lane.groups.forEach((grp, g) => {
    ctx.fillStyle = g % 2 ? "#f2f2f2" : "#fafafa";
    ctx.fillRect(left, g * h, W, h);
    if (h >= 7) {
      ctx.fillStyle = "#444";
      ctx.fillText(grp.name, 16, g * h + h / 2, left - 20);
    }
    const full = lane.dt * grp.rows;
    lane.cells[g].forEach((cell, x) => {
      const c = shade(deltaOf(cell, value), full);
      if (!c) return;
      if (!value) { c[0] = 120; c[1] = 60; c[2] = 160; }
      ctx.fillStyle = `rgba(${c[0]},${c[1]},${c[2]},${c[3]})`;
      ctx.fillRect(left + Math.floor(x * k), g * h, Math.max(1, Math.ceil(k)), h);
    });
  });
}

// What the lane says at column x of group g: the group, then each value
// that changed there with its delta (at most `most`).
export function describeCell(lane, g, x, fmt, most = 5) {
  const grp = lane.groups[g];
  const cell = lane.cells[g]?.[x];
  if (!grp || !cell) return "";
  if (!cell.length) return `${grp.name}: the same in A and B`;
  const sign = (d) => (d > 0 ? "+" : "−") + fmt(Math.abs(d));
  const lines = cell.slice(0, most).map((c) => `${c.value} ${sign(c.delta)} in B`);
  if (cell.length > most) lines.push(`… ${cell.length - most} more`);
  return `${grp.name}:\n${lines.join("\n")}`;
}
