// The selection's tables (seltable.js): rows added up per value, sorting
// by a column, CSV.

import { test } from "node:test";
import assert from "node:assert/strict";
import { byValue, byContainer, messageTotals, sortRows, csvField, toCsv, selectionTitle, VALUE_COLUMNS } from "../seltable.js";

const row = (container, value, count, total, exclusive, min, max, state_type = "STATE") => ({
  container, state_type, value, count, total, exclusive, inclusive: total, min, max,
  mean: count ? total / count : 0,
});

test("selection_values_add_up_the_containers_rows", () => {
  const rows = [
    row("p0", "MPI_Recv", 2, 3, 3, 1, 2),
    row("p0", "compute", 1, 5, 4, 5, 5),
    row("p1", "MPI_Recv", 3, 1.5, 1.5, 0.25, 1),
    // A row of a value with no state entering the window: no minimum.
    row("p2", "MPI_Recv", 0, 0.5, 0.5, 0, 0.5),
  ];
  const v = byValue(rows, 10);
  assert.deepEqual(v.map((x) => x.value), ["MPI_Recv", "compute"]);
  const recv = v[0];
  assert.equal(recv.containers, 3);
  assert.equal(recv.count, 5);
  assert.equal(recv.total, 5);
  assert.equal(recv.exclusive, 5);
  assert.equal(recv.mean, 1);
  assert.equal(recv.min, 0.25);
  assert.equal(recv.max, 2);
  // Share: inclusive over the window times the containers with the type.
  assert.equal(recv.share, 5 / (10 * 3));
  assert.equal(v[1].share, 5 / 30);
  assert.equal(v[1].min, 5);
  // Per container: one row each, share over the window alone.
  assert.deepEqual(byContainer(rows, 10).map((r) => r.share), [0.3, 0.5, 0.15, 0.05]);
});

test("selection_rows_sort_by_any_column", () => {
  const rows = [
    { value: "rank-10", total: 2 }, { value: "rank-9", total: 5 }, { value: "a", total: 2 },
  ];
  assert.deepEqual(sortRows(rows, "total", true).map((r) => r.value), ["rank-9", "rank-10", "a"]);
  assert.deepEqual(sortRows(rows, "total", false).map((r) => r.value), ["rank-10", "a", "rank-9"]);
  // Names in natural order: rank-9 before rank-10.
  assert.deepEqual(sortRows(rows, "value", false).map((r) => r.value), ["a", "rank-9", "rank-10"]);
  assert.deepEqual(sortRows(rows, "value", true).map((r) => r.value), ["rank-10", "rank-9", "a"]);
});

test("selection_csv_quotes_fields_and_keeps_full_precision", () => {
  assert.equal(csvField("plain"), "plain");
  assert.equal(csvField("a,b"), '"a,b"');
  assert.equal(csvField('say "hi"'), '"say ""hi"""');
  assert.equal(csvField("two\nlines"), '"two\nlines"');
  assert.equal(csvField(0.1 + 0.2), "0.30000000000000004");
  const rows = byValue([row("p0", "x,y", 1, 1 / 3, 1 / 3, 1 / 3, 1 / 3)], 1);
  const csv = toCsv(rows, VALUE_COLUMNS);
  const [head, line, end] = csv.split("\n");
  assert.equal(head, "state_type,value,containers,count,total,exclusive,mean,min,max,share");
  assert.equal(line, `STATE,"x,y",1,1,${1 / 3},${1 / 3},${1 / 3},${1 / 3},${1 / 3},${1 / 3}`);
  assert.equal(end, "");
});

test("selection_messages_count_bytes_only_with_a_size_field", () => {
  const pairs = [{ from: "a", to: "b", count: 2, bytes: 100 }, { from: "b", to: "a", count: 5, bytes: 8 }];
  const m = messageTotals(pairs, true);
  assert.equal(m.count, 7);
  assert.equal(m.bytes, 108);
  assert.deepEqual(m.pairs.map((p) => p.count), [5, 2]);
  assert.equal(messageTotals(pairs, false).bytes, null);
});

// regression: a selection of a collapsed container counted every
// container of its subtree in the title, those without states too (a
// cluster's nodes, a rank's process container above its threads).
test("selection_title_counts_containers_with_states", () => {
  const meta = {
    rows: [
      { container: 0, variable: null }, { container: 1, variable: null },
      { container: 2, variable: null }, { container: 2, variable: 5 },
      { container: 3, variable: null },
    ],
  };
  // Rows 2 and 4 (containers 2 and 3) have states; row 3 is a variable.
  const stated = new Map([[2, 1], [4, 2]]);
  assert.equal(selectionTitle(meta, stated, [0, 1, 2, 3], true),
    "2 containers with states (a collapsed container brings its subtree)");
  assert.equal(selectionTitle(meta, stated, [2], false), "1 container with states");
  assert.equal(selectionTitle(meta, stated, [0, 1], false), "0 containers with states");
  assert.equal(selectionTitle(meta, stated, null, false), "every container");
});
