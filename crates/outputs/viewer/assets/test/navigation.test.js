// The navigation's pure parts: offsets from a time origin and the axis'
// ticks, the rows' filter and order, the overview strip's groups and box,
// the picked arrow's other end, the help's list.

import { test } from "node:test";
import assert from "node:assert/strict";
import { fmtOffset, axisTicks, originOfHash, windowText } from "../origin.js";
import { matcher, arrangeRows, timeIn, metricChoices, arrangeHash, arrangeOfHash } from "../arrange.js";
import { deepest, groupsOf, dominant, boxOf, runOf } from "../overview.js";
import { otherEnd, scrollTo, centred, linkHash, linkOfHash } from "../arrows.js";
import { SHORTCUTS, helpHtml } from "../help.js";
import { describe } from "../details.js";

test("offsets from the origin carry their sign and an adaptive unit", () => {
  assert.equal(fmtOffset(0.00125, 1e-4), "+1.25 ms");
  assert.equal(fmtOffset(-0.5, 0.1), "−500 ms");
  assert.equal(fmtOffset(2.5e-6, 1e-7), "+2.50 µs");
  assert.equal(fmtOffset(3, 1), "+3.0 s");
  // The rounding of origin + k × step is zero, without a sign.
  assert.equal(fmtOffset(1e-19, 1e-3), "0.0 ms");
  // `ref` gives the unit: that of the axis' largest offset.
  assert.equal(fmtOffset(0.0002, 2e-4, 0.0012), "+0.2 ms");
});

test("axis ticks: absolute multiples of the step, or offsets from the origin", () => {
  const plain = axisTicks(0, 10, 2, null);
  assert.deepEqual(plain.map((t) => t.t), [0, 2, 4, 6, 8, 10]);
  assert.equal(plain[2].label, "4 s");
  // Ticks fall on the origin plus multiples of the step, not on 0.001 s.
  const rel = axisTicks(1.0003, 1.0043, 0.001, 1.0008);
  assert.deepEqual(rel.map((t) => t.label), ["0.0 ms", "+1.0 ms", "+2.0 ms", "+3.0 ms"]);
  assert.ok(Math.abs(rel[0].t - 1.0008) < 1e-12);
  const before = axisTicks(0.5, 1.5, 0.5, 1.2);
  assert.deepEqual(before.map((t) => +t.t.toFixed(9)), [0.7, 1.2]);
  assert.deepEqual(before.map((t) => t.label), ["−500 ms", "0 ms"]);
});

test("the origin is read from the URL's fragment", () => {
  assert.equal(originOfHash(new URLSearchParams("t0=1&t1=2&origin=1.5")), 1.5);
  assert.equal(originOfHash(new URLSearchParams("t0=1&t1=2")), null);
  assert.equal(originOfHash(new URLSearchParams("origin=x")), null);
});

test("details count from the origin when there is one", () => {
  const e = { kind: "state", value: "MPI_Recv", type: "State", container: "rank-1", start: 2.00125, end: 2.51096 };
  assert.match(describe(e), /2\.00125 s → 2\.51096 s/);
  assert.match(describe(e), /duration 509\.7 ms/);
  const rel = describe(e, 2);
  assert.match(rel, /\+1\.2500 ms → \+510\.96 ms/);
  assert.match(rel, /duration 509\.7 ms/);
});

// Rows: 0 root ⊃ 1 node-0 ⊃ rank-10, rank-9, rank-2 (one with a variable).
const META = {
  rows: [
    { container: 0, variable: null, label: "root" },
    { container: 1, variable: null, label: "node-0" },
    { container: 2, variable: null, label: "rank-10" },
    { container: 2, variable: 7, label: "memory" },
    { container: 3, variable: null, label: "rank-9" },
    { container: 4, variable: null, label: "rank-2" },
  ],
  values: [{ id: 0, name: "MPI_Recv" }, { id: 1, name: "compute" }, { id: 2, name: "MPI_Send" }],
};
const ALL = [0, 1, 2, 3, 4, 5];

test("a row filter: part of a name, glob, regular expression, several", () => {
  assert.equal(matcher(""), null);
  assert.ok(matcher("RANK")("rank-1"));
  assert.ok(matcher("rank-?")("rank-9") && !matcher("rank-?")("rank-10"));
  assert.ok(matcher("rank-1*")("rank-10") && !matcher("rank-1*")("xrank-10"));
  assert.ok(matcher("/^rank-(2|9)$/")("rank-9") && !matcher("/^rank-(2|9)$/")("rank-10"));
  assert.ok(matcher("root, rank-2")("root") && matcher("root, rank-2")("rank-2"));
  // A malformed expression is plain text.
  assert.ok(matcher("/(/")("a/(/b"));
  // A container's variables stay with it.
  assert.deepEqual(arrangeRows(META, ALL, { filter: "rank-1?" }), [2, 3]);
  assert.deepEqual(arrangeRows(META, ALL, { filter: "/^rank-[29]$/" }), [4, 5]);
});

test("rows by name compare their numbers by value; variables follow their container", () => {
  assert.deepEqual(arrangeRows(META, ALL, {}), ALL);
  assert.deepEqual(arrangeRows(META, ALL, { sort: "name" }), [1, 5, 4, 2, 3, 0]);
});

test("rows by a metric, most first, and pinned rows first whatever the filter", () => {
  const metric = new Map([[2, 1], [3, 5], [4, 3], [5, 0.5]]);
  // Ties (no time) by name.
  assert.deepEqual(arrangeRows(META, ALL, { sort: "metric", metric }), [2, 3, 4, 5, 1, 0]);
  const pinned = new Set([4]);
  assert.deepEqual(arrangeRows(META, ALL, { sort: "name", pinned }), [5, 1, 4, 2, 3, 0]);
  assert.deepEqual(arrangeRows(META, ALL, { filter: "rank-10", pinned }), [5, 2, 3]);
});

// A summary of 10 columns over [0, 1]: row 2 in MPI_Recv over columns 0-4
// and compute in 4-10 with MPI_Send nested in 6-8; row 4 in compute.
const spans = (...s) => Uint32Array.from(s);
const DATA = {
  t0: 0, t1: 1, width: 10,
  rows: new Map([
    [2, { bands: [{ type: 0, levels: [spans(0, 4, 0, 1, 4, 10, 1, 1), spans(6, 8, 2, 1)] }] }],
    [4, { bands: [{ type: 0, levels: [spans(0, 10, 1, 1)] }] }],
  ]),
};

test("time in a state per row, and the values offered to order by", () => {
  const t = timeIn(DATA, new Set([0, 2]));
  assert.ok(Math.abs(t.get(2) - 0.6) < 1e-12 && t.get(4) === 0);
  const choices = metricChoices(META, DATA);
  assert.equal(choices[0].label, "MPI_*");
  assert.deepEqual([...choices[0].ids], [0, 2]);
  assert.deepEqual(choices.slice(1).map((c) => c.label), ["compute", "MPI_Recv", "MPI_Send"]);
});

test("the overview: each row's deepest value, groups, the dominant value, the box", () => {
  const cols = deepest(DATA);
  assert.deepEqual([...cols.get(2)], [0, 0, 0, 0, 1, 1, 2, 2, 1, 1]);
  assert.deepEqual(groupsOf([1, 2, 3, 4, 5], 2), [[1, 2], [3, 4, 5]]);
  assert.deepEqual(groupsOf([1, 2], 10), [[1], [2]]);
  const g = [cols.get(2), cols.get(4)];
  assert.deepEqual(dominant(g, 5, new Set()), [1, 2]);
  assert.deepEqual(dominant(g, 6, new Set([1])), [2, 1]);
  assert.deepEqual(boxOf(2, 4, 0, 10, 100), [20, 40]);
  // Kept on the strip, three pixels at least.
  assert.deepEqual(boxOf(-5, 4, 0, 10, 100), [0, 40]);
  assert.deepEqual(boxOf(5, 5.0001, 0, 10, 100), [50, 53]);
});

test("a picked arrow's other end, and the scroll that shows its row", () => {
  const l = { from: 2, to: 5, start: 1, end: 3 };
  assert.deepEqual(otherEnd(l, 1.2, 2), { t: 3, row: 5, which: "end" });
  assert.deepEqual(otherEnd(l, 2.9, 5), { t: 1, row: 2, which: "start" });
  assert.deepEqual(centred(3, 2), [2, 4]);
  const visible = [0, 1, 2, 3, 4, 5, 6, 7, 8, 9];
  assert.equal(scrollTo(visible, 3, 2, 4), 2);
  assert.equal(scrollTo(visible, 9, 0, 3), 7);
  assert.equal(scrollTo(visible, 8, 0, 3), 7);
  assert.equal(scrollTo(visible, 1, 5, 3), 0);
});

test("the help lists each key once, the origin's and the overview's among them", () => {
  const keys = SHORTCUTS.flatMap(([, list]) => list.map(([k]) => k));
  assert.equal(new Set(keys).size, keys.length);
  const html = helpHtml();
  assert.match(html, /click the time axis/);
  assert.match(html, /overview/);
  assert.ok(!html.includes("<script"));
});

test("the header's window reads as offsets from the origin when one is set", () => {
  assert.equal(windowText(1.0, 1.02, null), "1.000 s – 1.020 s");
  assert.equal(windowText(1.0, 1.02, 1.005), "−5 ms – +15 ms");
});

// regression: a trace whose every entity is at one instant (SimGrid's
// platform description, all at 0) asked for the whole run as an empty
// window, which the server refuses: the page showed only that error.
test("a run of one instant is asked for as a second around it", () => {
  assert.deepEqual(runOf({ start: 0, end: 0 }), [-0.5, 0.5]);
  assert.deepEqual(runOf({ start: 2, end: 5 }), [2, 5]);
});

// The rows' arrangement and the picked message go through the URL's
// fragment and come back the same (regression: only the window and
// origin were kept).
test("the arrangement and the picked link read back from the URL", () => {
  const a = { filter: "rank-1*, /x/", pinned: new Set([6, 2]), sort: "metric", choice: 3, metric: new Map() };
  const back = arrangeOfHash(new URLSearchParams(arrangeHash(a).join("&")));
  assert.deepEqual(back, { filter: "rank-1*, /x/", pinned: new Set([6, 2]), sort: "metric", choice: 3, metric: null });
  assert.deepEqual([...back.pinned], [6, 2]);
  assert.deepEqual(arrangeHash({ filter: "", pinned: new Set(), sort: "tree", choice: null }), []);
  assert.equal(arrangeOfHash(new URLSearchParams("sort=name&pins=x,4")).sort, "name");
  assert.deepEqual([...arrangeOfHash(new URLSearchParams("pins=x,4")).pinned], [4]);
  const meta = { rows: [{}, {}, {}], values: [{}, {}] };
  const l = { from: 2, to: 0, start: 0.25, end: 1.5, id: 1 };
  const read = linkOfHash(new URLSearchParams(linkHash(l).join("&")), meta);
  assert.deepEqual(read, { from: 2, to: 0, start: 0.25, end: 1.5, value: 1 });
  assert.deepEqual(linkHash(null), []);
  // Rows or values the trace has not: no link.
  assert.equal(linkOfHash(new URLSearchParams("link=3,0,0,1,1"), meta), null);
  assert.equal(linkOfHash(new URLSearchParams("link=1,0,0,1,2"), meta), null);
  assert.equal(linkOfHash(new URLSearchParams("link=1,0,0,1"), meta), null);
});
