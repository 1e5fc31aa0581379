// The nesting levels drawn as sub-rows (rows.js): each row's levels over
// the run, the rows' heights and tops, the rows on screen and under a y.

import { test } from "node:test";
import assert from "node:assert/strict";
import { depthsOf, subRowsOf, subRow, rowHeight, rowsOnScreen, rowTops, rowAt, ROW_H, AXIS_H } from "../rows.js";

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

// regression: as sub-rows, a second state type of a row had its levels
// drawn from the row's top, over the first type's level 0.
test("as sub-rows each state type of a row has sub-rows of its own", () => {
  const d = {
    rows: new Map([
      // Types 7 (two levels) and 3 (one), in the reply's order.
      [0, { bands: [{ type: 7, levels: [spans(1), spans(2)] }, { type: 3, levels: [spans(1)] }] }],
      [1, { bands: [{ type: 3, levels: [spans(1), spans(0), spans(1)] }] }],
      [2, { bands: [] }],
    ]),
  };
  const { depths, firstSub } = subRowsOf(d);
  assert.deepEqual([...depths], [[0, 3], [1, 3]]);
  const state = { visible: [0, 1], scroll: 0, depths, firstSub, subrows: true };
  // Row 0: type 3 on top, then type 7's two levels, none shared.
  const placed = [[3, 0], [7, 0], [7, 1]].map(([t, l]) => subRow(state, 0, t, l));
  assert.deepEqual(placed, [0, 1, 2]);
  assert.equal(rowHeight(state, 0), 3 * ROW_H);
  assert.deepEqual([subRow(state, 1, 3, 0), subRow(state, 1, 3, 2)], [0, 2]);
  // A type the whole run did not show starts at the top.
  assert.equal(subRow(state, 1, 9, 1), 1);
});
