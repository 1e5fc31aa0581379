// The difference lane of two runs compared (lane.js) and the diff panel's
// pure parts (diffpanel.js).

import { test } from "node:test";
import assert from "node:assert/strict";
import { columnValues, groupsOf, profile, laneOf, deltaOf, shade, marked, stripHeight, drawLane, describeCell } from "../lane.js";
import { topGainer, seconds, diffHtml } from "../diffpanel.js";

// Spans as decode.js gives them: (x0, x1, value, count).
const spans = (...s) => Uint32Array.from(s.flatMap(([x0, x1, v]) => [x0, x1, v, 1]));

// A summary of `width` columns: per row id, its levels of spans.
const summary = (width, rows) => ({
  width,
  rows: new Map(Object.entries(rows).map(([id, levels]) => [Number(id), { bands: [{ type: 0, levels }] }])),
});

const meta = (labels) => ({ rows: labels.map((label) => ({ label, variable: null })) });

test("a column shows the deepest nesting level covering it", () => {
  const s = summary(6, { 0: [spans([0, 6, 0]), spans([1, 3, 1], [4, 5, 2])] });
  assert.deepEqual([...columnValues(s).get(0)[0]], [0, 1, 1, 0, 2, 0]);
  // A row without states has no columns; an empty span still covers its column.
  const t = summary(3, { 0: [spans([1, 1, 4])], 1: [] });
  t.rows.get(1).bands = [];
  assert.deepEqual([...columnValues(t).get(0)[0]], [-1, 4, -1]);
  assert.equal(columnValues(t).has(1), false);
});

test("each state type of a row counts apart: one nested beside another hides nothing", () => {
  // Type 0: main (0) with a call (1) nested in columns 1-2; type 1: the
  // call's collective (5) at its own level 0 over the same columns.
  const s = summary(4, { 0: [spans([0, 4, 0]), spans([1, 3, 1])] });
  s.rows.get(0).bands.push({ type: 1, levels: [spans([1, 3, 5])] });
  const cols = columnValues(s).get(0);
  assert.deepEqual(cols.map((c) => [...c]), [[0, 1, 1, 0], [-1, 5, 5, -1]]);
  const names = ["main", "MPI_Scan", "", "", "", "SCAN"];
  const p = profile(s, names, new Map([[0, 0]]), 1);
  assert.equal(p[0][1].get("MPI_Scan"), 1);
  assert.equal(p[0][1].get("SCAN"), 1);
});

test("a summary of other columns is read at the middle of each column asked for", () => {
  // Four columns over [0, 4]; asked: eight over [1, 3] (and beyond).
  const s = { ...summary(4, { 0: [spans([0, 1, 0], [1, 2, 1], [2, 4, 2])] }), t0: 0, t1: 4 };
  assert.deepEqual([...columnValues(s, { t0: 1, t1: 3, width: 4 }).get(0)[0]], [1, 1, 2, 2]);
  assert.deepEqual([...columnValues(s, { t0: 3, t1: 5, width: 4 }).get(0)[0]], [2, 2, -1, -1]);
});

test("runs with the same rows compare row by row, else as one group", () => {
  const same = groupsOf(meta(["r0", "r1"]), meta(["r1", "r0"]));
  assert.deepEqual(same.groups.map((g) => g.name), ["r0", "r1"]);
  // B's rows are listed in another order: matched by name.
  assert.equal(same.b.get(0), 1);
  assert.equal(same.b.get(1), 0);
  const other = groupsOf(meta(["r0", "r1"]), meta(["r0", "r1", "r2"]));
  assert.deepEqual(other.groups, [{ name: "all rows", rows: 3 }]);
  assert.equal(other.b.get(2), 0);
  // Too many rows for strips of their own: one group.
  assert.equal(groupsOf(meta(["a", "b", "c"]), meta(["a", "b", "c"]), 2).groups.length, 1);
});

test("the lane is B's time per value minus A's, column by column", () => {
  // Row 0 computes (value 0) then waits (value 1); in B it computes two
  // columns longer. Values are matched by name, not id.
  const a = summary(6, { 0: [spans([0, 2, 0], [2, 6, 1])] });
  const b = summary(6, { 0: [spans([0, 4, 1], [4, 6, 0])] });
  const g = groupsOf(meta(["r0"]), meta(["r0"]));
  const pa = profile(a, ["compute", "wait"], g.a, 1);
  const pb = profile(b, ["wait", "compute"], g.b, 1);
  const lane = laneOf(pa, pb, 0.5, g.groups);
  assert.equal(lane.width, 6);
  assert.deepEqual(lane.cells[0][0], []);
  assert.deepEqual(lane.cells[0][2], [{ value: "compute", delta: 0.5 }, { value: "wait", delta: -0.5 }]);
  assert.equal(deltaOf(lane.cells[0][3], "wait"), -0.5);
  assert.equal(deltaOf(lane.cells[0][3], ""), 0.5);
  assert.deepEqual(marked(lane, 0, "compute"), [{ x0: 2, x1: 4, sign: 1 }]);
  assert.deepEqual(marked(lane, 0, "wait"), [{ x0: 2, x1: 4, sign: -1 }]);
  assert.match(describeCell(lane, 0, 2, (x) => `${x} s`), /r0:\ncompute \+0.5 s in B\nwait −0.5 s in B/);
  assert.equal(describeCell(lane, 0, 0, String), "r0: the same in A and B");
});

test("red where B spends more, blue where less, stronger the larger", () => {
  assert.equal(shade(0, 1), null);
  const [r, , b, a] = shade(0.5, 1);
  assert.ok(r > b && a > 0.3 && a < 1);
  const [r2, , b2, a2] = shade(-1, 1);
  assert.ok(b2 > r2 && a2 === 1);
  assert.ok(stripHeight(8) >= stripHeight(64) && stripHeight(1000) >= 2);
});

test("the lane draws a strip per group, coloured where the value changed", () => {
  const fills = [];
  const ctx = {
    clearRect() {}, fillText() {}, set fillStyle(c) { this.c = c; }, get fillStyle() { return this.c; },
    fillRect(x, y, w, h) { fills.push([this.c, x, y, w, h]); },
  };
  const lane = { width: 4, dt: 1, groups: [{ name: "r0", rows: 1 }, { name: "r1", rows: 1 }],
    cells: [[[], [{ value: "v", delta: 1 }], [], []], [[], [], [{ value: "v", delta: -1 }], []]] };
  drawLane(ctx, lane, "v", 40, 10);
  const h = stripHeight(2);
  const coloured = fills.filter(([c]) => c.startsWith("rgba"));
  assert.deepEqual(coloured.map(([c, ...r]) => [c.startsWith("rgba(214"), ...r]), [[true, 20, 0, 10, h], [false, 30, h, 10, h]]);
});

test("the diff panel: seconds, the value that grew most, its rows", () => {
  assert.equal(seconds(1.5), "1.5 s");
  assert.equal(seconds(0.0025, true), "+2.5 ms");
  assert.equal(seconds(-3e-6, true), "−3 µs");
  const diff = { a: { length: 2 }, b: { length: 3 }, delta_length: 1, patterns: [],
    rows: [{ value: "w", a_seconds: 1, b_seconds: 0, delta_seconds: -1 },
      { value: "c", a_seconds: 1, b_seconds: 1.5, delta_seconds: 0.5 }] };
  assert.equal(topGainer(diff), "c");
  assert.equal(topGainer({ rows: [diff.rows[0]] }), "w");
  assert.equal(topGainer({ rows: [] }), "");
  const html = diffHtml({ names: ["a.paje", "<b>"], diff }, "c");
  assert.match(html, /B − A: <b>\+1 s<\/b> \(50.0 %\)/);
  assert.match(html, /&lt;b&gt;/);
  assert.match(html, /<tr class="more picked" data-value="c">/);
});
