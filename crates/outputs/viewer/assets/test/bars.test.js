// The names in the bars (bars.js) and the legend's order of the window
// (legend.js).

import { test } from "node:test";
import assert from "node:assert/strict";
import { mergeBars, uncovered, union, fitLabel, textColor, nameBars, MIN_CHARS } from "../bars.js";
import { windowShares, legendOrder } from "../legend.js";

// Spans as decode.js gives them: (x0, x1, value, count | mixed << 31).
const spans = (...s) => Uint32Array.from(s.flatMap(([x0, x1, v, mixed]) => [x0, x1, v, ((mixed ? 1 << 31 : 0) | 1) >>> 0]));

// Six pixels a character.
const measure = (t) => 6 * t.length;

test("adjacent spans of one value merge into one bar, mixed or not", () => {
  const s = spans([0, 3, 1], [3, 4, 1, true], [4, 9, 1], [9, 10, 2], [12, 14, 2]);
  assert.deepEqual(mergeBars(s), [[0, 9, 1], [9, 10, 2], [12, 14, 2]]);
  // A hidden value is no bar, and splits none.
  assert.deepEqual(mergeBars(spans([0, 3, 1], [3, 4, 2], [4, 6, 1]), new Set([2])), [[0, 3, 1], [4, 6, 1]]);
});

test("the parts of a bar the next level leaves visible", () => {
  assert.deepEqual(uncovered(0, 10, []), [[0, 10]]);
  assert.deepEqual(uncovered(0, 10, [[2, 4, 5], [6, 7, 5]]), [[0, 2], [4, 6], [7, 10]]);
  assert.deepEqual(uncovered(3, 10, [[0, 4, 5], [8, 12, 5]]), [[4, 8]]);
  assert.deepEqual(uncovered(0, 10, [[0, 10, 5]]), []);
  assert.deepEqual(uncovered(20, 30, [[0, 10, 5]]), [[20, 30]]);
});

test("a name is whole, cut with an ellipsis, or left out", () => {
  assert.equal(fitLabel("compute", 42, measure), "compute");
  assert.equal(fitLabel("compute", 41, measure), "compu…");
  assert.equal(fitLabel("compute", 6 * MIN_CHARS, measure), "co…");
  assert.equal(fitLabel("compute", 6 * MIN_CHARS - 1, measure), null);
  assert.equal(fitLabel("abc", 17, measure), null);
  assert.equal(fitLabel("ab", 12, measure), "ab");
});

// regression: path-like names (APEX regions) were cut to their first
// characters, "/p…", losing the file and function at their end.
test("a path-like name keeps its tail: folders go first, then its middle", () => {
  const name = "/path/to/file.cpp:123 function";
  assert.equal(fitLabel(name, 6 * name.length, measure), name);
  assert.equal(fitLabel(name, 6 * 28, measure), "…/to/file.cpp:123 function");
  assert.equal(fitLabel(name, 6 * 23, measure), "…/file.cpp:123 function");
  // Too narrow for the last folder's part whole: its middle goes.
  assert.equal(fitLabel(name, 6 * 15, measure), "file…3 function");
  assert.equal(fitLabel(name, 6 * 7, measure), "fi…tion");
  // Narrower than that: its start, as any name.
  assert.equal(fitLabel(name, 6 * 4, measure), "fil…");
  assert.equal(fitLabel(name, 6 * 2, measure), null);
  // A "/" after the first word, or at a word's end, makes no path.
  assert.equal(fitLabel("MPI_Send to 1/2", 6 * 7, measure), "MPI_Se…");
  assert.equal(fitLabel("phylanx/", 6 * 5, measure), "phyl…");
  // A last part that is only a place goes with the part before it, cut
  // at its end.
  const apex = "/phylanx/access-variable$60$conf_i/2$63$45::eval";
  assert.equal(fitLabel(apex, 6 * 41, measure), "…/access-variable$60$conf_i/2$63$45::eval");
  assert.equal(fitLabel(apex, 6 * 24, measure), "access-variable$60$conf…");
  assert.equal(fitLabel("/a/b/12:34", 6 * 9, measure), "…/b/12:34");
  assert.equal(fitLabel("/a/b/12:34", 6 * 8, measure), "b/12:3…");
});

test("text is black on light bars and white on dark ones", () => {
  assert.equal(textColor([255, 255, 255]), "#000");
  assert.equal(textColor([244, 202, 32]), "#000");
  assert.equal(textColor([0, 0, 0]), "#fff");
  assert.equal(textColor([78, 121, 167]), "#fff");
  assert.equal(textColor([32, 106, 85]), "#fff");
});

test("names go in the visible parts of bars wide enough", () => {
  // Level 0: value 1 over columns 0-100; level 1: value 2 over 40-60.
  const levels = [spans([0, 50, 1], [50, 100, 1]), spans([40, 60, 2])];
  const put = [];
  nameBars([levels], null, (c) => 2 * c, 150, (v, x, w, l) => put.push([v, x, w, l]), 3);
  // Screen: 0-80 and 120-150 (clipped) of value 1, 80-120 of value 2.
  assert.deepEqual(put, [[1, 3, 74, 0], [1, 123, 24, 0], [2, 83, 34, 1]]);
  // A bar of 6 pixels or less has no room.
  const none = [];
  nameBars([[spans([0, 3, 1])]], null, (c) => 2 * c, 150, (...a) => none.push(a), 3);
  assert.deepEqual(none, []);
});

test("a later band's bars cover the names of the bands before it", () => {
  assert.deepEqual(union([[[5, 8, 1], [0, 2, 1]], [[1, 3], [8, 9]]]), [[0, 3], [5, 9]]);
  // Band 0: value 1 over 0-100 with value 2 at level 1 over 0-100;
  // band 1: value 3 over 20-40.
  const bands = [[spans([0, 100, 1]), spans([0, 100, 2])], [spans([20, 40, 3])]];
  const put = [];
  nameBars(bands, null, (c) => c, 100, (v, x, w, l) => put.push([v, x, w, l]), 0);
  assert.deepEqual(put, [[3, 20, 20, 0], [2, 0, 20, 1], [2, 40, 60, 1]]);
});

test("the legend lists the values of the window first, by their time in it", () => {
  const d = {
    t0: 0, t1: 100, width: 100,
    rows: new Map([
      [0, { bands: [{ levels: [spans([0, 10, 0], [10, 60, 1]), spans([20, 30, 2])] }] }],
      [1, { bands: [{ levels: [spans([60, 100, 3])] }] }],
    ]),
  };
  // The window [5, 50]: value 1 for 40 columns, 2 for 10, 0 for 5; 3 not.
  const share = windowShares(d, 5, 50);
  assert.deepEqual([...share.entries()].sort(), [[0, 5], [1, 40], [2, 10]]);
  const entries = [{ ids: [3] }, { ids: [0] }, { ids: [1] }, { ids: [4] }, { ids: [2] }];
  assert.deepEqual(legendOrder(entries, share), { order: [2, 4, 1, 0, 3], present: 3 });
  // Entries that group several values add their times.
  assert.deepEqual(legendOrder([{ ids: [0, 2] }, { ids: [1] }], share).order, [1, 0]);
});
