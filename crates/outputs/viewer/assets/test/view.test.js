// The view's pure parts: rows shown, the legend's entries, the colours of
// the player's gradient and activities, the descriptions of entities.

import { test } from "node:test";
import assert from "node:assert/strict";
import { visibleRows, rowsFitting, ROW_H, AXIS_H } from "../rows.js";
import { legendEntries, passes } from "../legend.js";
import { shade } from "../anim-matrix.js";
import { activity } from "../anim-activity.js";
import { describe } from "../details.js";

// A tree: 0 root ⊃ 1 host ⊃ 2 rank-0, 3 rank-1; host 1 has a variable row.
const META = {
  containers: [
    { id: 0, parent: null, children: [1] },
    { id: 1, parent: 0, children: [2, 3] },
    { id: 2, parent: 1, children: [] },
    { id: 3, parent: 1, children: [] },
  ],
  rows: [
    { container: 0, variable: null }, { container: 1, variable: null },
    { container: 2, variable: null }, { container: 3, variable: null },
    { container: 1, variable: 5 },
  ],
  idle: [0],
  host_order: [1, 3, 2, 0],
};

test("rows shown: idle rows never, a collapsed container's subtree and variables not", () => {
  assert.deepEqual(visibleRows(META, new Set(), "tree"), [1, 2, 3, 4]);
  assert.deepEqual(visibleRows(META, new Set([1]), "tree"), [1]);
  assert.deepEqual(visibleRows(META, new Set([0]), "tree"), []);
  assert.deepEqual(visibleRows(META, new Set([1]), "hosts"), [1, 3, 2]);
  assert.equal(rowsFitting(AXIS_H + 10 * ROW_H + 5), 10);
  assert.equal(rowsFitting(0), 1);
});

test("the legend: one entry per label and colour of state values", () => {
  const meta = {
    types: [{ id: 0, kind: "state" }, { id: 1, kind: "state" }, { id: 2, kind: "event" }],
    values: [
      { id: 0, type: 0, label: "Compute", color: "#ff0000" },
      { id: 1, type: 1, label: "Compute", color: "#ff0000" },
      { id: 2, type: 0, label: "Wait (a)", color: "#00ff00" },
      { id: 3, type: 1, label: "Wait (b)", color: "#0000ff" },
      { id: 4, type: 2, label: "Compute", color: "#ff0000" },
    ],
  };
  assert.deepEqual(legendEntries(meta), [
    { label: "Compute", color: "#ff0000", ids: [0, 1] },
    { label: "Wait (a)", color: "#00ff00", ids: [2] },
    { label: "Wait (b)", color: "#0000ff", ids: [3] },
  ]);
});

test("the gradient: black below, white above, a log ramp from blue to yellow", () => {
  assert.deepEqual(shade(0.5, [1, 100]), [0, 0, 0]);
  assert.deepEqual(shade(101, [1, 100]), [255, 255, 255]);
  assert.deepEqual(shade(null, [1, 100]), [150, 150, 150]);
  assert.deepEqual(shade(1, [1, 100]), [48, 18, 120]);
  assert.deepEqual(shade(100, [1, 100]), [253, 231, 37]);
  // The middle of a log scale: the middle stop.
  assert.deepEqual(shade(10, [1, 100]), [32, 164, 134]);
});

test("activities: sending over receiving over busy over idle", () => {
  const stage = { processes: [{}, {}, {}, {}] };
  const f = {
    states: [{ value: 1 }, { value: 2 }, { value: null }, null],
    cells: [{ from: 0, to: 1 }, { from: 1, to: 2 }],
  };
  assert.deepEqual(activity(stage, f), ["sending", "sending", "receiving", "idle"]);
});

test("an entity's description escapes its names", () => {
  const html = describe({ kind: "state", type: "<T>", value: "a&b", container: "c\"1", start: 1, end: 1.5, level: 0, stack: ["x", "<y>"] });
  assert.ok(html.startsWith("<b>a&amp;b</b> <span class=dim>state · &lt;T&gt;</span><br>c&quot;1<br>1 s → 1.5 s"), html);
  // The duration to a thousandth of itself.
  assert.ok(html.includes("duration 500.0 ms"), html);
  assert.ok(html.includes("stack: x › &lt;y&gt;"), html);
  assert.equal(describe({ kind: "none" }), "");
  assert.equal(describe(null), "");
  const sum = describe({ kind: "event", type: "events", value: "2 events", container: "p", start: 0.1, end: 0.2, summary: true, column: 0.1 });
  assert.ok(sum.includes("in 0.10 s → 0.20 s"), sum);
  assert.ok(sum.includes("from the report's summary"), sum);
});

test("the legend's filter keeps the names holding the text, in any case", () => {
  assert.ok(passes("MPI_Allreduce", "allred"));
  assert.ok(passes("MPI_Allreduce", " MPI_ "));
  assert.ok(passes("wait: late_sender", "LATE"));
  assert.ok(passes("anything", ""));
  assert.ok(!passes("compute", "mpi"));
});
