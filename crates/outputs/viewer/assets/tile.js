// The tiles of an offline report's summary (offline.js), decoded as a
// reply (decode.js): joined into the reply of a window, and what they
// weigh. Pure functions of decoded tiles.

// About how many bytes a decoded tile takes.
export function tileBytes(tile) {
  let n = 64 * tile.links.each.length;
  for (const row of tile.rows.values()) {
    n += 64 + row.events.byteLength + row.sent.byteLength + row.received.byteLength + 72 * row.vars.length;
    for (const band of row.bands) for (const spans of band.levels) n += 16 + spans.byteLength;
  }
  return n;
}

// The spans (4 words each: x0, x1, value, count) of `parts`, each
// [spans, dx] shifted by dx columns, in one array: a span continuing the
// last one (touching it, alike) extends it.
export function joinSpans(parts) {
  let n = 0;
  for (const [spans] of parts) n += spans.length;
  const out = new Uint32Array(n);
  let o = 0;
  for (const [spans, dx] of parts) {
    for (let i = 0; i < spans.length; i += 4) {
      const x0 = spans[i] + dx, x1 = spans[i + 1] + dx;
      if (o && out[o - 3] === x0 && out[o - 2] === spans[i + 2] && out[o - 1] === spans[i + 3]) {
        out[o - 3] = x1;
      } else {
        out[o] = x0; out[o + 1] = x1; out[o + 2] = spans[i + 2]; out[o + 3] = spans[i + 3];
        o += 4;
      }
    }
  }
  return out.subarray(0, o);
}

// The counts (2 words each: x, count) of `parts`, shifted, in one array.
export function joinCounts(parts) {
  let n = 0;
  for (const [counts] of parts) n += counts.length;
  const out = new Uint32Array(n);
  let o = 0;
  for (const [counts, dx] of parts) {
    for (let i = 0; i < counts.length; i += 2) { out[o++] = counts[i] + dx; out[o++] = counts[i + 1]; }
  }
  return out;
}

// One reply of the tiles `tiles` (consecutive, of `columns` columns each)
// for the rows of `asked` (a Set of meta row indices).
export function compose(tiles, columns, asked) {
  const first = tiles[0], last = tiles[tiles.length - 1];
  const out = { t0: first.t0, t1: last.t1, width: tiles.length * columns, widened: false,
    rows: new Map(), links: { total: 0, dense: 0, unplaced: 0, each: [] } };
  // Per row: its parts in each tile, to be joined.
  const rows = new Map();
  const seen = new Set();
  tiles.forEach((tile, k) => {
    const dx = k * columns;
    for (const [id, row] of tile.rows) {
      if (!asked.has(id)) continue;
      let r = rows.get(id);
      if (!r) {
        r = { bands: new Map(), events: [], vars: [], sent: [], received: [] };
        rows.set(id, r);
      }
      for (const band of row.bands) {
        let levels = r.bands.get(band.type);
        if (!levels) { levels = []; r.bands.set(band.type, levels); }
        band.levels.forEach((spans, l) => {
          while (levels.length <= l) levels.push([]);
          levels[l].push([spans, dx]);
        });
      }
      r.events.push([row.events, dx]);
      r.sent.push([row.sent, dx]);
      r.received.push([row.received, dx]);
      for (const v of row.vars) {
        const p = r.vars[r.vars.length - 1];
        if (p && p.x1 === v.x0 + dx && p.min === v.min && p.max === v.max && p.last === v.last) p.x1 = v.x1 + dx;
        else r.vars.push({ ...v, x0: v.x0 + dx, x1: v.x1 + dx });
      }
    }
    const l = tile.links;
    out.links.dense += l.dense;
    out.links.unplaced += l.unplaced;
    for (const e of l.each) {
      // A link across tiles is in each of them.
      const key = `${e.from} ${e.to} ${e.start} ${e.end} ${e.value}`;
      if (seen.has(key) || !asked.has(e.from) || !asked.has(e.to)) continue;
      seen.add(key);
      out.links.each.push(e);
    }
  });
  out.links.total = out.links.dense + out.links.each.length;
  for (const [id, r] of rows) {
    out.rows.set(id, {
      bands: [...r.bands].map(([type, levels]) => ({ type, levels: levels.map(joinSpans) })),
      events: joinCounts(r.events),
      vars: r.vars,
      sent: joinCounts(r.sent),
      received: joinCounts(r.received),
    });
  }
  return out;
}

// The Set of rows a `rows=` list names ("0-3,7": 0, 1, 2, 3 and 7).
export function rowSet(list) {
  const asked = new Set();
  for (const part of list.split(",").filter((p) => p)) {
    const [x, y] = part.split("-").map(Number);
    for (let r = x; r <= (y ?? x); r++) asked.add(r);
  }
  return asked;
}

// Whether `prev` (the tile before) ends with a span of `value` on that
// row, state type and level: a span at column 0 then continues it.
export function continues(prev, row, type, level, value) {
  const r = prev.rows.get(row);
  const band = r && r.bands.find((b) => b.type === type);
  const spans = band && band.levels[level];
  if (!spans || !spans.length) return false;
  const j = spans.length - 4;
  return spans[j + 1] === prev.width && spans[j + 2] === value;
}
