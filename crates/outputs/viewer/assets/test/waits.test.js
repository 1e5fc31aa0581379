// The wait matrix's labels (waits.js): names without their shared prefix,
// and which labels fit.

import { test } from "node:test";
import assert from "node:assert/strict";
import { shortNames, labelStep } from "../waits.js";

test("wait_matrix_names_lose_their_shared_prefix", () => {
  const names = Array.from({ length: 64 }, (_, i) => `MPI Rank ${i}`);
  const s = shortNames(names);
  assert.equal(s.prefix, "MPI Rank ");
  assert.equal(s.names[0], "0");
  assert.equal(s.names[63], "63");
  // A shared suffix goes too, from its first separator.
  const t = shortNames(["Master thread (MPI Rank 0)", "Master thread (MPI Rank 12)"]);
  assert.deepEqual(t, { prefix: "Master thread (MPI Rank ", suffix: ")", names: ["0", "12"] });
  // Cut after a separator, not inside a number: rank-1 and rank-12.
  assert.deepEqual(shortNames(["rank-1", "rank-12"]), { prefix: "rank-", suffix: "", names: ["1", "12"] });
  // Nothing shared, a name that is all prefix, a single name: unchanged.
  assert.deepEqual(shortNames(["a 1", "b 2"]).prefix, "");
  assert.deepEqual(shortNames(["host 1", "host 1/p 2"]), { prefix: "host ", suffix: "", names: ["1", "1/p 2"] });
  assert.deepEqual(shortNames(["p ", "p 2"]).prefix, "");
  assert.deepEqual(shortNames(["MPI Rank 3"]), { prefix: "", suffix: "", names: ["MPI Rank 3"] });
});

test("wait_matrix_labels_thin_out_when_columns_are_narrow", () => {
  assert.equal(labelStep(28), 1);
  assert.equal(labelStep(12), 1);
  assert.equal(labelStep(9), 2);
  assert.equal(labelStep(4), 3);
});
