// Decodes a `TRTL` reply (docs/view-api.md, "api/timeline") into the
// object the page draws: the window, its columns, per row the state spans
// of each nesting level, event counts, a variable's ranges, link density,
// and the links given one by one.

export function decode(buf) {
  const v = new DataView(buf);
  let o = 0;
  const u32 = () => { const x = v.getUint32(o, true); o += 4; return x; };
  const f64 = () => { const x = v.getFloat64(o, true); o += 8; return x; };
  const magic = String.fromCharCode(...new Uint8Array(buf, 0, 4));
  if (magic !== "TRTL") throw new Error("not a timeline reply");
  o = 4;
  if (u32() !== 1) throw new Error("unknown timeline version");
  const out = { t0: f64(), t1: f64(), width: u32(), widened: u32() === 1, rows: new Map() };
  const counts = () => { const n = u32(); const a = new Uint32Array(2 * n);
    for (let i = 0; i < 2 * n; i++) a[i] = u32(); return a; };
  const nrows = u32();
  for (let r = 0; r < nrows; r++) {
    const row = { bands: [], events: null, vars: [], sent: null, received: null };
    const id = u32();
    const nb = u32();
    for (let b = 0; b < nb; b++) {
      const band = { type: u32(), levels: [] };
      const nl = u32();
      for (let l = 0; l < nl; l++) {
        const n = u32();
        const spans = new Uint32Array(4 * n);
        for (let i = 0; i < 4 * n; i++) spans[i] = u32();
        band.levels.push(spans);
      }
      row.bands.push(band);
    }
    row.events = counts();
    const nv = u32();
    for (let i = 0; i < nv; i++) row.vars.push({ x0: u32(), x1: u32(), min: f64(), max: f64(), last: f64() });
    row.sent = counts();
    row.received = counts();
    out.rows.set(id, row);
  }
  out.links = { total: f64(), dense: f64(), unplaced: f64(), each: [] };
  const nl = u32();
  for (let i = 0; i < nl; i++) {
    out.links.each.push({ from: u32(), to: u32(), start: f64(), end: f64(), value: u32() });
  }
  return out;
}

// Names in natural order: numbers inside names by value (rank-9 before
// rank-10); the rule of `natural_cmp` (crates/sim/src/natural.rs).
export function natural(a, b) {
  const digit = (c) => c >= 48 && c <= 57;
  let i = 0, j = 0;
  while (i < a.length && j < b.length) {
    const x = a.charCodeAt(i), y = b.charCodeAt(j);
    if (digit(x) && digit(y)) {
      let ei = i, ej = j;
      while (ei < a.length && digit(a.charCodeAt(ei))) ei++;
      while (ej < b.length && digit(b.charCodeAt(ej))) ej++;
      const p = a.slice(i, ei).replace(/^0+/, ""), q = b.slice(j, ej).replace(/^0+/, "");
      if (p.length !== q.length) return p.length - q.length;
      if (p !== q) return p < q ? -1 : 1;
      i = ei; j = ej;
    } else {
      if (x !== y) return x - y;
      i++; j++;
    }
  }
  return (a.length - i) - (b.length - j) || (a < b ? -1 : a > b ? 1 : 0);
}
