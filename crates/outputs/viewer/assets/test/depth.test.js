// The nesting levels drawn as sub-rows (rows.js): each row's levels over
// the run, the rows' heights and tops, the rows on screen and under a y.

import { test } from "node:test";
import assert from "node:assert/strict";
import { depthsOf, rowHeight, rowsOnScreen, rowTops, rowAt, ROW_H, AXIS_H } from "../rows.js";

// Spans of decode.js: (x0, x1, value, count).
const spans = (n) => Uint32Array.from({ length: 4 * n }, (_, i) => (i % 4 === 1 ? 1 : 0));

test("a row's levels: the deepest level with a span, of any band", () => {
  const d = {
    rows: new Map([
      [0, { bands: [{ levels: [spans(1), spans(2), spans(1)] }] }],
      [1, { bands: [{ levels: [spans(1)] }, { levels: [spans(1), spans(0), spans(1), spans(0)] }] }],
      [2, { bands: [] }],
    ]),
  };
  assert.deepEqual([...depthsOf(d)], [[0, 3], [1, 3]]);
});

test("as sub-rows a row takes a row's height per level, else one", () => {
  const state = { visible: [4, 5, 6, 7], scroll: 0, depths: new Map([[4, 3], [6, 2]]), subrows: true };
  assert.equal(rowHeight(state, 4), 3 * ROW_H);
  assert.equal(rowHeight(state, 5), ROW_H);
  assert.deepEqual([...rowTops(state, [4, 5, 6])], [[4, AXIS_H], [5, AXIS_H + 3 * ROW_H], [6, AXIS_H + 4 * ROW_H]]);
  // The rows that fit whole.
  assert.deepEqual(rowsOnScreen(state, AXIS_H + 5 * ROW_H), [4, 5]);
  assert.deepEqual(rowsOnScreen(state, AXIS_H + 6 * ROW_H), [4, 5, 6]);
  assert.deepEqual(rowsOnScreen(state, AXIS_H + 1), [4]);
  // The row under y: any of its sub-rows.
  assert.equal(rowAt(state, 1000, AXIS_H + 2 * ROW_H + 5), 4);
  assert.equal(rowAt(state, 1000, AXIS_H + 3 * ROW_H + 5), 5);
  assert.equal(rowAt(state, 1000, AXIS_H - 1), null);
  assert.equal(rowAt(state, 1000, AXIS_H + 7 * ROW_H + 1), null);
  // Drawn inside one another: one row's height each.
  state.subrows = false;
  assert.equal(rowHeight(state, 4), ROW_H);
  assert.deepEqual(rowsOnScreen(state, AXIS_H + 2 * ROW_H), [4, 5]);
  assert.equal(rowAt(state, 1000, AXIS_H + ROW_H + 5), 5);
});
