// Decodes a tile of an offline report's summary (`TRTC`, specified in
// crates/viewer/src/tile.rs) into the object decode.js makes of a TRTL
// reply: the same content, compactly encoded.

export function decodeTile(buf) {
  const bytes = new Uint8Array(buf);
  const view = new DataView(buf);
  if (String.fromCharCode(...bytes.subarray(0, 4)) !== "TRTC") throw new Error("not a summary tile");
  if (view.getUint32(4, true) !== 1) throw new Error("unknown summary tile version");
  // A reader of varints and doubles over [at, end).
  const reader = (at, end) => ({
    at, end,
    v() {
      let x = 0, mul = 1, b;
      do { b = bytes[this.at++]; x += (b & 127) * mul; mul *= 128; } while (b >= 128);
      return x;
    },
    f() { const x = view.getFloat64(this.at, true); this.at += 8; return x; },
  });
  const h = reader(8, bytes.length);
  const out = { t0: h.f(), t1: h.f(), width: h.v(), widened: h.v() === 1, rows: new Map() };
  const nrows = h.v();
  out.links = { total: h.v(), dense: h.v(), unplaced: h.v(), each: [] };
  const neach = h.v();
  const s = [];
  for (let k = 0; k < 11; k++) {
    const n = h.v();
    s.push(reader(h.at, h.at + n));
    h.at += n;
  }
  const [shape, gap, len, value, count, tick, ticks, vcol, vval, link, ltime] = s;
  const counts = () => {
    const n = shape.v();
    const a = new Uint32Array(2 * n);
    let x = 0;
    for (let i = 0; i < n; i++) { x += tick.v(); a[2 * i] = x; a[2 * i + 1] = ticks.v(); }
    return a;
  };
  let next = 0;
  for (let r = 0; r < nrows; r++) {
    const id = next + shape.v();
    next = id + 1;
    const row = { bands: [], events: null, vars: [], sent: null, received: null };
    const nb = shape.v();
    for (let b = 0; b < nb; b++) {
      const band = { type: shape.v(), levels: [] };
      const nl = shape.v();
      for (let l = 0; l < nl; l++) {
        const n = shape.v();
        const spans = new Uint32Array(4 * n);
        let x = 0;
        for (let i = 0; i < n; i++) {
          const x0 = x + gap.v();
          x = x0 + len.v();
          const c = count.v();
          spans[4 * i] = x0;
          spans[4 * i + 1] = x;
          spans[4 * i + 2] = value.v();
          spans[4 * i + 3] = (Math.floor(c / 2) | ((c & 1) << 31)) >>> 0;
        }
        band.levels.push(spans);
      }
      row.bands.push(band);
    }
    row.events = counts();
    const nv = shape.v();
    let x = 0;
    for (let i = 0; i < nv; i++) {
      const x0 = x + vcol.v();
      x = x0 + vcol.v();
      row.vars.push({ x0, x1: x, min: vval.f(), max: vval.f(), last: vval.f() });
    }
    row.sent = counts();
    row.received = counts();
    out.rows.set(id, row);
  }
  for (let i = 0; i < neach; i++) {
    out.links.each.push({ from: link.v(), to: link.v(), value: link.v(), start: ltime.f(), end: ltime.f() });
  }
  return out;
}
