// The why overlay's pure parts (overlay.js, why.js): hatch lines, the part
// of a whole-run overlay a window shows, where marks land on screen, and
// the window an instance is zoomed to.

import { test } from "node:test";
import assert from "node:assert/strict";
import { hatchSegments, overlayIn, placeOverlay, thinWaits, WAIT_STYLES } from "../overlay.js";
import { zoomWindow } from "../why.js";
import { ROW_H } from "../rows.js";

const inside = ([ax, ay, bx, by], [x0, x1, y0, y1]) =>
  [ax, bx].every((x) => x >= x0 - 1e-9 && x <= x1 + 1e-9) && [ay, by].every((y) => y >= y0 - 1e-9 && y <= y1 + 1e-9);

test("hatch lines stay in their box, slanted as their direction says", () => {
  const box = [10, 50, 100, 116];
  for (const dir of [1, -1, 0]) {
    const segs = hatchSegments(box[0], box[1], box[2], box[3], 5, dir);
    // A line every 5 px along x over the box's width, plus those entering
    // through its side (its height) when slanted.
    const want = dir === 0 ? 9 : Math.floor((40 + 16) / 5);
    assert.ok(Math.abs(segs.length - want) <= 1, `dir ${dir}: ${segs.length} lines, about ${want}`);
    for (const s of segs) {
      assert.ok(inside(s, box), `dir ${dir}: ${s} outside the box`);
      const [ax, ay, bx, by] = s;
      if (dir === 0) assert.equal(ax, bx);
      // On screen y grows downwards: "/" rises to the right.
      else assert.equal(Math.sign((bx - ax) * (ay - by)), dir, `dir ${dir}: ${s}`);
      if (dir !== 0) assert.ok(Math.abs(Math.abs(bx - ax) - Math.abs(by - ay)) < 1e-9, "45°");
    }
  }
});

test("hatch lines keep their phase across neighbouring boxes", () => {
  // The lines of [0, 20] and [20, 40] meet on x = 20 where one box's
  // line leaves and the next's enters (corners aside: a line through a
  // corner has no length in one of the boxes).
  const a = hatchSegments(0, 20, 0, 10, 5, 1), b = hatchSegments(20, 40, 0, 10, 5, 1);
  const leaving = a.flatMap(([ax, ay, bx, by]) => [[ax, ay], [bx, by]]).filter(([x, y]) => x === 20 && y > 0 && y < 10).map(([, y]) => y).sort();
  const entering = b.flatMap(([ax, ay, bx, by]) => [[ax, ay], [bx, by]]).filter(([x, y]) => x === 20 && y > 0 && y < 10).map(([, y]) => y).sort();
  assert.deepEqual(leaving, entering);
  assert.ok(leaving.length >= 1);
});

test("an empty or inverted box has no hatch", () => {
  assert.deepEqual(hatchSegments(5, 5, 0, 10, 5, 1), []);
  assert.deepEqual(hatchSegments(0, 10, 10, 0, 5, -1), []);
  assert.deepEqual(hatchSegments(0, 10, 0, 10, 0, 1), []);
});

test("every pattern has its own style", () => {
  assert.equal(WAIT_STYLES.length, 10);
  const keys = new Set(WAIT_STYLES.map((s) => `${s.color} ${s.dir}`));
  assert.equal(keys.size, 10);
});

test("a window keeps the marks it overlaps and clips the path to itself", () => {
  const whole = {
    start: 0, end: 10, width: 100,
    waits: [[0, 0, 1, 2, 1], [1, 5, 3, 4, 2], [0, 0, 8, 9, 1]],
    path: [[0, 0, 2.5], [1, 2.5, 6], [0, 6, 10]],
  };
  const w = overlayIn(whole, 1.5, 3.5);
  assert.deepEqual(w.waits, [[0, 0, 1, 2, 1], [1, 5, 3, 4, 2]]);
  assert.deepEqual(w.path, [[0, 1.5, 2.5], [1, 2.5, 3.5]]);
  assert.equal(overlayIn(null, 0, 1), null);
});

test("placed marks and pieces are on their rows, in the window's pixels", () => {
  const ov = { waits: [[3, 2, 2, 4, 1], [4, 1, 5, 6, 1], [9, 0, 1, 2, 1]], path: [[3, 0, 5], [4, 5, 10]] };
  const tops = new Map([[3, 28], [4, 46]]);
  const p = placeOverlay(ov, { t0: 0, t1: 10, W: 1000 }, (r) => tops.get(r), new Set([1]), true);
  // Row 9 is off screen, pattern 1 hidden.
  assert.equal(p.waits.length, 1);
  assert.deepEqual([p.waits[0].x0, p.waits[0].x1, p.waits[0].y0], [200, 400, 29]);
  assert.deepEqual(p.path.map((s) => [s.x0, s.x1, s.y]), [[0, 500, 37], [500, 1000, 55]]);
  assert.equal(placeOverlay(ov, { t0: 0, t1: 10, W: 1000 }, (r) => tops.get(r), new Set(), false).path.length, 0);
});

test("an instance is zoomed to fill the middle half of the window", () => {
  assert.deepEqual(zoomWindow(2, 4), [1, 5]);
  const [a, b] = zoomWindow(3, 3);
  assert.ok(b > a && (a + b) / 2 === 3);
});

// regression: zoomed out to the whole run, every wait mark was hatched
// over the full height of its row (the server merging each row's waits
// into marks of thousands of instances across the run), so that the rows
// were a mesh of hatches and their states unreadable.
test("zoomed out, dense wait marks are summed per pixel column into strips", () => {
  const view = { t0: 0, t1: 100, W: 100 };     // a second a pixel
  const y = (row) => (row === 0 ? 30 : row === 1 ? 48 : undefined);
  const waits = [
    // Row 0: marks of many instances, as the server merges them:
    // pattern 2 over [0, 50), 5 over [50, 100); a small mark of 5 at 10.
    [0, 2, 0, 50, 200], [0, 5, 50, 100, 200], [0, 5, 10.1, 10.15, 3],
    // Row 1: one instance 20 px wide, and two over 30 px: hatched.
    [1, 3, 20, 40, 1], [1, 4, 60, 90, 2],
  ];
  const placed = placeOverlay({ waits, path: [] }, view, y, new Set(), false);
  const thin = thinWaits(placed.waits, view);
  const row0 = thin.filter((m) => m.row === 0);
  // Two strips, one per pattern, each its pixels' columns.
  assert.deepEqual(row0.map((m) => [m.pattern, m.x0, m.x1, m.strip]), [[2, 0, 50, true], [5, 50, 100, true]]);
  // Every instance counted, each mark within the times of its strip.
  assert.deepEqual(row0.map((m) => m.n), [203, 200]);
  assert.deepEqual(row0.map((m) => [m.t0, m.t1]), [[0, 50], [50, 100]]);
  // At the row's top, thinner than the row.
  assert.ok(row0[0].y0 === 31 && row0[0].y1 - row0[0].y0 < ROW_H - 2);
  // The sparse marks stay as they are.
  const row1 = thin.filter((m) => m.row === 1);
  assert.deepEqual(row1.map((m) => [m.pattern, m.x0, m.x1, m.strip]), [[3, 20, 40, undefined], [4, 60, 90, undefined]]);
  // A column where another pattern has more instances than the mark
  // that starts before it: a strip of its own, with that column's times.
  const mixed = thinWaits(placeOverlay({ waits: [[0, 2, 0, 10, 40], [0, 5, 4.2, 4.8, 9]], path: [] }, view, y, new Set(), false).waits, view);
  assert.deepEqual(mixed.map((m) => [m.pattern, m.x0, m.x1, m.n, m.t0, m.t1]), [[2, 0, 4, 40, 0, 10], [5, 4, 6, 9, 4.2, 4.8], [2, 6, 10, 0, 6, 10]]);
  // Zoomed in, nothing is summed.
  const close = { t0: 0, t1: 2, W: 1000 };
  const near = placeOverlay({ waits: [[0, 2, 0.5, 0.6, 1]], path: [] }, close, y, new Set(), false).waits;
  assert.deepEqual(thinWaits(near, close), near);
});
