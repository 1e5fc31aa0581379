// What keeps the player's views legible with many processes
// (anim-fit.js): edges thinned to the heaviest, shared prefixes, labels
// that do not overlap, a matrix's label step, hosts on a ring inside the
// canvas.

import { test } from "node:test";
import assert from "node:assert/strict";
import { heaviest, sharedPrefix, shortNames, nameLabels, spread, placeLabels, labelStep, ring, sunflower } from "../anim-fit.js";

test("edges are thinned to the heaviest, the rest summed", () => {
  const e = [{ w: 1 }, { w: 5 }, { w: 3 }, { w: 5 }, { w: 2 }];
  const { kept, rest } = heaviest(e, 3);
  // Heaviest first, ties in their order.
  assert.deepEqual(kept, [e[1], e[3], e[2]]);
  assert.deepEqual(rest, { n: 2, w: 3 });
  assert.deepEqual(heaviest(e, 10).rest, { n: 0, w: 0 });
  assert.deepEqual(heaviest(e, 0), { kept: [], rest: { n: 5, w: 16 } });
});

test("the prefix all names share ends at a word's end and leaves each a name", () => {
  assert.equal(sharedPrefix(["MPI Rank 0", "MPI Rank 12", "MPI Rank 3"]), "MPI Rank ");
  // Ranks 10 to 19 share "MPI Rank 1": not cut inside the number.
  assert.equal(sharedPrefix(["MPI Rank 10", "MPI Rank 11", "MPI Rank 19"]), "MPI Rank ");
  // Between a letter and a digit.
  assert.equal(sharedPrefix(["rank12", "rank3"]), "rank");
  assert.equal(sharedPrefix(["node-1/rank-2", "node-1/rank-3"]), "node-1/rank-");
  // Not inside a word, and never the whole of a name.
  assert.equal(sharedPrefix(["alpha", "alps"]), "");
  assert.equal(sharedPrefix(["rank 1", "rank 1 b"]), "rank ");
  assert.equal(sharedPrefix(["x 1", "x "]), "");
  assert.equal(sharedPrefix(["one"]), "");
  assert.equal(sharedPrefix([]), "");
});

test("names are shortened by what they all share before and after", () => {
  const s = shortNames(["Master thread (MPI Rank 0)", "Master thread (MPI Rank 12)", "Master thread (MPI Rank 7)"]);
  assert.deepEqual(s, { prefix: "Master thread (MPI Rank ", suffix: ")", short: ["0", "12", "7"] });
  assert.deepEqual(shortNames(["rank3.out", "rank12.out"]), { prefix: "rank", suffix: ".out", short: ["3", "12"] });
  // Nothing shared: as they are.
  assert.deepEqual(shortNames(["a", "b"]), { prefix: "", suffix: "", short: ["a", "b"] });
  assert.deepEqual(shortNames(["x 1", "x 1 y"]).short, ["1", "1 y"]);
});

const overlap = (a, b) => a[0] < b[0] + b[2] && b[0] < a[0] + a[2] && a[1] < b[1] + b[3] && b[1] < a[1] + a[3];

test("labels are placed inside the canvas, apart from each other and from the points", () => {
  // A 8 × 8 grid of points 40 pixels apart: every label fits.
  const items = [];
  for (let i = 0; i < 64; i++) items.push({ x: 20 + 40 * (i % 8), y: 20 + 40 * Math.floor(i / 8), r: 3, w: 14, h: 11 });
  const at = placeLabels(items, 320, 320);
  assert.ok(at.every((p) => p != null), "every label placed");
  const boxes = at.map(([x, y], i) => [x, y, items[i].w, items[i].h]);
  for (const b of boxes) assert.ok(b[0] >= 0 && b[1] >= 0 && b[0] + b[2] <= 320 && b[1] + b[3] <= 320, `${b} inside`);
  for (let i = 0; i < boxes.length; i++) {
    for (let j = i + 1; j < boxes.length; j++) assert.ok(!overlap(boxes[i], boxes[j]), `labels ${i} and ${j}`);
    for (const it of items) assert.ok(!overlap(boxes[i], [it.x - it.r, it.y - it.r, 2 * it.r, 2 * it.r]), `label ${i} over a point`);
  }
  // Crowded: the first come first; those that do not fit are left out.
  const crowd = Array.from({ length: 50 }, () => ({ x: 50, y: 50, r: 2, w: 30, h: 11 }));
  const placed = placeLabels(crowd, 100, 100);
  assert.ok(placed[0] != null);
  assert.ok(placed.filter((p) => p).length <= 4, "four sides of one point");
  // The top band (a title) stays free.
  const titled = placeLabels([{ x: 10, y: 14, r: 2, w: 20, h: 11 }], 100, 100, 12);
  assert.ok(titled[0][1] >= 12);
  // Outwards first when a direction is given.
  assert.deepEqual(placeLabels([{ x: 50, y: 50, r: 2, w: 20, h: 10, out: [1, 0] }], 100, 100, 0, "above"), [[54, 45]]);
  // The side preferred first.
  assert.deepEqual(placeLabels([{ x: 50, y: 50, r: 2, w: 20, h: 10 }], 100, 100, 0, "below"), [[40, 54]]);
  assert.deepEqual(placeLabels([{ x: 50, y: 50, r: 2, w: 20, h: 10 }], 100, 100, 0, "above"), [[40, 36]]);
});

test("names are labelled whole where all fit, else shortened", () => {
  const measure = (t) => 6 * t.length;
  const names = ["MPI Rank 0", "MPI Rank 1", "MPI Rank 2"];
  // Points 40 pixels apart on a line: whole names (60 px) do not fit, short ones do.
  const place = (room) => (widths) => placeLabels(widths.map((w, i) => ({ x: 20 + 40 * i, y: 10, r: 2, w, h: 10 })), room, 20);
  const short = nameLabels(names, measure, place(120));
  assert.deepEqual(short.text, ["0", "1", "2"]);
  assert.equal(short.shared, "MPI Rank …");
  assert.ok(short.at.every((p) => p));
  // Room enough: whole.
  const whole = nameLabels(names, measure, (widths) => widths.map((w, i) => [100 * i, 0]));
  assert.deepEqual(whole, { text: names, at: [[0, 0], [100, 0], [200, 0]], shared: "" });
});

test("an order spread evenly: each beginning covers the whole range", () => {
  assert.deepEqual(spread(8), [0, 4, 2, 6, 1, 5, 3, 7]);
  assert.deepEqual(spread(5), [0, 4, 2, 1, 3]);
  assert.deepEqual(spread(1), [0]);
  assert.deepEqual(spread(0), []);
  const s = spread(1000);
  assert.deepEqual([...s].sort((a, b) => a - b), Array.from({ length: 1000 }, (_, i) => i));
  // The first 16 fall in 16 different sixteenths.
  assert.equal(new Set(s.slice(0, 16).map((i) => Math.floor(i / (1000 / 16)))).size, 16);
});

test("a matrix labels every row its cells leave room for, else every 2nd, 5th, 10th…", () => {
  assert.equal(labelStep(12, 11), 1);
  assert.equal(labelStep(6, 11), 2);
  assert.equal(labelStep(3, 11), 5);
  assert.equal(labelStep(0.3, 11), 50);
  assert.equal(labelStep(0, 11), Infinity);
});

test("hosts on a ring lie inside the canvas with their names, apart from each other", () => {
  for (const [n, W, H] of [[1, 300, 200], [2, 300, 200], [3, 380, 160], [25, 380, 160], [64, 200, 400], [1000, 380, 160]]) {
    const opts = { top: 16, bottom: 14, label: 12, pad: 2 };
    const g = ring(n, W, H, opts);
    assert.ok(g.r > 0, `${n}: radius ${g.r}`);
    for (let i = 0; i < n; i++) {
      const [x, y] = g.at(i);
      assert.ok(x - g.r >= 0 && x + g.r <= W, `${n} in ${W}×${H}: circle ${i} across at ${x}`);
      const under = n > 1 ? opts.label : 0;
      assert.ok(y - g.r - opts.label >= opts.top - 1e-9 && y + g.r + under <= H - opts.bottom + 1e-9, `${n} in ${W}×${H}: circle ${i} down at ${y}`);
      if (i) {
        const [px, py] = g.at(i - 1);
        assert.ok(Math.hypot(x - px, y - py) >= 2 * g.r - 1e-9, `${n}: circles ${i - 1} and ${i} apart`);
      }
    }
  }
});

test("a host's dots stay in its circle and do not pile up", () => {
  for (const m of [1, 7, 64, 1000]) {
    const pts = Array.from({ length: m }, (_, k) => sunflower(k, m, 50));
    for (const [x, y, d] of pts) assert.ok(Math.hypot(x, y) + d <= 50 * 1.05, `${m} dots inside`);
    let closest = Infinity;
    for (let i = 0; i < Math.min(m, 200); i++) for (let j = i + 1; j < Math.min(m, 200); j++) closest = Math.min(closest, Math.hypot(pts[i][0] - pts[j][0], pts[i][1] - pts[j][1]));
    if (m > 1) assert.ok(closest >= pts[0][2], `${m}: dots ${closest} apart, radius ${pts[0][2]}`);
  }
});
