// The summary decoder (decode.js): a server reply (TRTL) and an offline
// tile (TRTC) holding the same summary decode to the same object.

import { test } from "node:test";
import assert from "node:assert/strict";
import { decodeSummary } from "../decode.js";

// The summary both encodings hold: rows 2 and 5 (row 5 a variable's).
const SUMMARY = {
  t0: 1.5, t1: 3.25, width: 100, widened: false,
  rows: [
    [2, {
      bands: [{ type: 1, levels: [[0, 10, 3, 1, 10, 40, 4, (2 | 0x80000000) >>> 0], [5, 8, 7, 1]] }],
      events: [3, 2, 9, 1], vars: [], sent: [4, 1], received: [],
    }],
    [5, {
      bands: [], events: [], sent: [], received: [5, 2, 6, 1],
      vars: [{ x0: 0, x1: 50, min: -1.5, max: 2, last: 0.25 }, { x0: 60, x1: 100, min: 3, max: 3, last: 3 }],
    }],
  ],
  links: { total: 7, dense: 6, unplaced: 0, each: [{ from: 2, to: 5, start: 2, end: 2.5, value: 9 }] },
};

function expected() {
  const s = SUMMARY;
  const rows = new Map(s.rows.map(([id, r]) => [id, {
    bands: r.bands.map((b) => ({ type: b.type, levels: b.levels.map((l) => Uint32Array.from(l)) })),
    events: Uint32Array.from(r.events), vars: r.vars,
    sent: Uint32Array.from(r.sent), received: Uint32Array.from(r.received),
  }]));
  return { t0: s.t0, t1: s.t1, width: s.width, widened: s.widened, rows, links: s.links };
}

// Little-endian bytes.
class Bytes {
  constructor() { this.out = []; }
  u32(x) { const b = new DataView(new ArrayBuffer(4)); b.setUint32(0, x, true); this.out.push(...new Uint8Array(b.buffer)); }
  f64(x) { const b = new DataView(new ArrayBuffer(8)); b.setFloat64(0, x, true); this.out.push(...new Uint8Array(b.buffer)); }
  v(x) { while (x >= 128) { this.out.push((x % 128) | 128); x = Math.floor(x / 128); } this.out.push(x); }
  text(s) { for (const c of s) this.out.push(c.charCodeAt(0)); }
  buffer() { return Uint8Array.from(this.out).buffer; }
}

// TRTL, as docs/view-api.md specifies it.
function trtl() {
  const b = new Bytes();
  const s = SUMMARY;
  b.text("TRTL"); b.u32(1); b.f64(s.t0); b.f64(s.t1); b.u32(s.width); b.u32(s.widened ? 1 : 0);
  b.u32(s.rows.length);
  const counts = (a) => { b.u32(a.length / 2); a.forEach((x) => b.u32(x)); };
  for (const [id, r] of s.rows) {
    b.u32(id); b.u32(r.bands.length);
    for (const band of r.bands) {
      b.u32(band.type); b.u32(band.levels.length);
      for (const l of band.levels) { b.u32(l.length / 4); l.forEach((x) => b.u32(x)); }
    }
    counts(r.events);
    b.u32(r.vars.length);
    for (const v of r.vars) { b.u32(v.x0); b.u32(v.x1); b.f64(v.min); b.f64(v.max); b.f64(v.last); }
    counts(r.sent); counts(r.received);
  }
  b.f64(s.links.total); b.f64(s.links.dense); b.f64(s.links.unplaced);
  b.u32(s.links.each.length);
  for (const l of s.links.each) { b.u32(l.from); b.u32(l.to); b.f64(l.start); b.f64(l.end); b.u32(l.value); }
  return b.buffer();
}

// TRTC, as crates/outputs/viewer/src/tile.rs specifies it.
function trtc() {
  const s = SUMMARY;
  const st = Object.fromEntries(["shape", "gap", "len", "value", "count", "tick", "ticks", "vcol", "vval", "link", "ltime"].map((k) => [k, new Bytes()]));
  const counts = (a) => {
    st.shape.v(a.length / 2);
    let x = 0;
    for (let i = 0; i < a.length; i += 2) { st.tick.v(a[i] - x); x = a[i]; st.ticks.v(a[i + 1]); }
  };
  let next = 0;
  for (const [id, r] of s.rows) {
    st.shape.v(id - next); next = id + 1;
    st.shape.v(r.bands.length);
    for (const band of r.bands) {
      st.shape.v(band.type); st.shape.v(band.levels.length);
      for (const l of band.levels) {
        st.shape.v(l.length / 4);
        let x = 0;
        for (let i = 0; i < l.length; i += 4) {
          st.gap.v(l[i] - x); st.len.v(l[i + 1] - l[i]); x = l[i + 1];
          st.value.v(l[i + 2]);
          st.count.v((l[i + 3] & 0x7fffffff) * 2 + (l[i + 3] >>> 31));
        }
      }
    }
    counts(r.events);
    st.shape.v(r.vars.length);
    let x = 0;
    for (const v of r.vars) { st.vcol.v(v.x0 - x); st.vcol.v(v.x1 - v.x0); x = v.x1; st.vval.f64(v.min); st.vval.f64(v.max); st.vval.f64(v.last); }
    counts(r.sent); counts(r.received);
  }
  for (const l of s.links.each) { st.link.v(l.from); st.link.v(l.to); st.link.v(l.value); st.ltime.f64(l.start); st.ltime.f64(l.end); }
  const b = new Bytes();
  b.text("TRTC"); b.u32(1); b.f64(s.t0); b.f64(s.t1); b.v(s.width); b.v(s.widened ? 1 : 0); b.v(s.rows.length);
  b.v(s.links.total); b.v(s.links.dense); b.v(s.links.unplaced); b.v(s.links.each.length);
  for (const k of Object.values(st)) { b.v(k.out.length); b.out.push(...k.out); }
  return b.buffer();
}

test("a server reply decodes to the summary it holds", () => {
  assert.deepStrictEqual(decodeSummary(trtl()), expected());
});

test("an offline tile decodes to the same summary", () => {
  assert.deepStrictEqual(decodeSummary(trtc()), expected());
});

test("a mixed span keeps its flag and count in both encodings", () => {
  for (const d of [decodeSummary(trtl()), decodeSummary(trtc())]) {
    const w = d.rows.get(2).bands[0].levels[0][7];
    assert.equal(w >>> 31, 1);
    assert.equal(w & 0x7fffffff, 2);
  }
});

test("other bytes and other versions are refused", () => {
  const bad = new Bytes();
  bad.text("TRTX"); bad.u32(1);
  assert.throws(() => decodeSummary(bad.buffer()), /not a timeline summary/);
  const v2 = new Uint8Array(trtl());
  v2[4] = 2;
  assert.throws(() => decodeSummary(v2.buffer), /unknown TRTL version/);
});
