// The summary of a window, as the page draws it: the window, its columns,
// per row the state spans of each nesting level, event counts, a
// variable's ranges, link density, and the links given one by one.
//
// It comes in two encodings of the same content, read by one decoder: a
// reply of the server (`TRTL`, docs/view-api.md, "api/timeline"), and a
// tile of an offline report's summary (`TRTC`, compact: varints, deltas
// and separate streams, specified in crates/outputs/viewer/src/tile.rs). Each
// encoding is a reader of the fields in the order the decoder asks for
// them; the decoder builds one object:
//
//   {t0, t1, width, widened, rows: Map(row id -> {bands: [{type, levels:
//    [Uint32Array of (x0, x1, value, count | mixed << 31) per span]}],
//    events, sent, received: Uint32Array of (column, count), vars: [{x0,
//    x1, min, max, last}]}), links: {total, dense, unplaced, each: [{from,
//    to, start, end, value}]}}

// The fields of a `TRTL` reply: little-endian u32 and f64 in order.
function plain(buf) {
  const v = new DataView(buf);
  let o = 8;
  const u32 = () => { const x = v.getUint32(o, true); o += 4; return x; };
  const f64 = () => { const x = v.getFloat64(o, true); o += 8; return x; };
  const counts = () => {
    const n = u32();
    const a = new Uint32Array(2 * n);
    for (let i = 0; i < 2 * n; i++) a[i] = u32();
    return a;
  };
  return {
    head: () => ({ t0: f64(), t1: f64(), width: u32(), widened: u32() === 1, rows: u32() }),
    links: () => ({ total: f64(), dense: f64(), unplaced: f64(), each: u32() }),
    rowId: u32,
    number: u32,
    spans(n) {
      const spans = new Uint32Array(4 * n);
      for (let i = 0; i < 4 * n; i++) spans[i] = u32();
      return spans;
    },
    counts,
    vars: (n) => Array.from({ length: n }, () => ({ x0: u32(), x1: u32(), min: f64(), max: f64(), last: f64() })),
    link: () => ({ from: u32(), to: u32(), start: f64(), end: f64(), value: u32() }),
  };
}

// The fields of a `TRTC` tile: a header of varints and doubles, then 11
// streams (shapes, span gaps, span lengths, values, counts, event columns,
// event counts, variable columns, variable values, link ends, link times).
function compact(buf) {
  const bytes = new Uint8Array(buf);
  const view = new DataView(buf);
  // A reader of varints and doubles from `at`.
  const reader = (at) => ({
    at,
    v() {
      let x = 0, mul = 1, b;
      do { b = bytes[this.at++]; x += (b & 127) * mul; mul *= 128; } while (b >= 128);
      return x;
    },
    f() { const x = view.getFloat64(this.at, true); this.at += 8; return x; },
  });
  const h = reader(8);
  const head = { t0: h.f(), t1: h.f(), width: h.v(), widened: h.v() === 1, rows: h.v() };
  const links = { total: h.v(), dense: h.v(), unplaced: h.v(), each: h.v() };
  const s = [];
  for (let k = 0; k < 11; k++) {
    const n = h.v();
    s.push(reader(h.at));
    h.at += n;
  }
  const [shape, gap, len, value, count, tick, ticks, vcol, vval, link, ltime] = s;
  let next = 0;
  return {
    head: () => head,
    links: () => links,
    rowId() { const id = next + shape.v(); next = id + 1; return id; },
    number: () => shape.v(),
    spans(n) {
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
      return spans;
    },
    counts() {
      const n = shape.v();
      const a = new Uint32Array(2 * n);
      let x = 0;
      for (let i = 0; i < n; i++) { x += tick.v(); a[2 * i] = x; a[2 * i + 1] = ticks.v(); }
      return a;
    },
    vars(n) {
      const out = [];
      let x = 0;
      for (let i = 0; i < n; i++) {
        const x0 = x + vcol.v();
        x = x0 + vcol.v();
        out.push({ x0, x1: x, min: vval.f(), max: vval.f(), last: vval.f() });
      }
      return out;
    },
    link() {
      // The same keys in the same order as a `TRTL` reply's.
      const [from, to, value] = [link.v(), link.v(), link.v()];
      return { from, to, start: ltime.f(), end: ltime.f(), value };
    },
  };
}

// Decodes a summary in either encoding (an ArrayBuffer).
export function decodeSummary(buf) {
  const magic = String.fromCharCode(...new Uint8Array(buf, 0, 4));
  if (magic !== "TRTL" && magic !== "TRTC") throw new Error("not a timeline summary");
  if (new DataView(buf).getUint32(4, true) !== 1) throw new Error(`unknown ${magic} version`);
  const r = magic === "TRTL" ? plain(buf) : compact(buf);
  const { rows: nrows, ...head } = r.head();
  const out = { ...head, rows: new Map() };
  // A tile gives the links' totals before the rows, a reply after them.
  let links = magic === "TRTC" ? r.links() : null;
  for (let k = 0; k < nrows; k++) {
    const id = r.rowId();
    const row = { bands: [], events: null, vars: [], sent: null, received: null };
    const nb = r.number();
    for (let b = 0; b < nb; b++) {
      const band = { type: r.number(), levels: [] };
      const nl = r.number();
      for (let l = 0; l < nl; l++) band.levels.push(r.spans(r.number()));
      row.bands.push(band);
    }
    row.events = r.counts();
    row.vars = r.vars(r.number());
    row.sent = r.counts();
    row.received = r.counts();
    out.rows.set(id, row);
  }
  links = links || r.links();
  const neach = links.each;
  out.links = { ...links, each: [] };
  for (let i = 0; i < neach; i++) out.links.each.push(r.link());
  return out;
}
