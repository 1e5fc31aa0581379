// The offline summary's tiles (tile.js): joined into one reply.

import { test } from "node:test";
import assert from "node:assert/strict";
import { joinSpans, joinCounts, compose, rowSet, continues, tileBytes } from "../tile.js";

const U = (a) => Uint32Array.from(a);

test("spans of consecutive tiles are shifted, and a span continued across them is one", () => {
  const a = U([0, 4, 1, 1, 4, 10, 2, 1]);
  const b = U([0, 3, 2, 1, 3, 10, 1, 1]);
  assert.deepEqual(joinSpans([[a, 0], [b, 10]]), U([0, 4, 1, 1, 4, 13, 2, 1, 13, 20, 1, 1]));
  // Alike but not touching, or touching but unlike: two spans.
  const c = U([1, 3, 2, 1]);
  assert.equal(joinSpans([[a, 0], [c, 10]]).length, 12);
  const d = U([0, 3, 2, 2]);
  assert.equal(joinSpans([[a, 0], [d, 10]]).length, 12);
});

test("counts are shifted, never merged", () => {
  assert.deepEqual(joinCounts([[U([1, 5, 9, 1]), 0], [U([0, 2]), 10]]), U([1, 5, 9, 1, 10, 2]));
});

test("a rows= list is the set of its rows", () => {
  assert.deepEqual([...rowSet("0-3,7")], [0, 1, 2, 3, 7]);
  assert.deepEqual([...rowSet("")], []);
});

// A decoded tile of `width` columns over [t0, t1] with one row.
function tile(t0, t1, width, row, spans, links = []) {
  return {
    t0, t1, width, widened: false,
    rows: new Map([[row, { bands: [{ type: 1, levels: [U(spans)] }], events: U([]), vars: [{ x0: 0, x1: width, min: 1, max: 2, last: 2 }], sent: U([]), received: U([]) }]]),
    links: { total: links.length + 3, dense: 3, unplaced: 0, each: links },
  };
}

test("tiles compose into the reply of their window, for the rows asked", () => {
  const link = { from: 0, to: 0, start: 0.5, end: 1.5, value: 4 };
  const a = tile(0, 1, 10, 0, [0, 10, 3, 1], [link]);
  const b = tile(1, 2, 10, 0, [0, 5, 3, 1, 5, 10, 4, 1], [link]);
  const out = compose([a, b], 10, new Set([0]));
  assert.equal(out.t0, 0);
  assert.equal(out.t1, 2);
  assert.equal(out.width, 20);
  const row = out.rows.get(0);
  assert.deepEqual(row.bands[0].levels[0], U([0, 15, 3, 1, 15, 20, 4, 1]));
  // A variable alike across the tiles: one span.
  assert.deepEqual(row.vars, [{ x0: 0, x1: 20, min: 1, max: 2, last: 2 }]);
  // A link across the tiles is in both: once in the reply.
  assert.deepEqual(out.links.each, [link]);
  assert.equal(out.links.dense, 6);
  assert.equal(out.links.total, 7);
  assert.equal(compose([a, b], 10, new Set([1])).rows.size, 0);
  assert.ok(tileBytes(a) > 0);
});

test("a span at a tile's start continues the previous tile's last span alike", () => {
  const prev = tile(0, 1, 10, 0, [0, 4, 1, 1, 4, 10, 2, 1]);
  assert.ok(continues(prev, 0, 1, 0, 2));
  assert.ok(!continues(prev, 0, 1, 0, 1));
  assert.ok(!continues(prev, 5, 1, 0, 2));
  assert.ok(!continues(tile(0, 1, 10, 0, [0, 9, 2, 1]), 0, 1, 0, 2), "ends before the tile's end");
});
