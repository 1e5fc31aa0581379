// The window cache (cache.js): what is asked for, what a held reply
// serves, and how many are held.

import { test } from "node:test";
import assert from "node:assert/strict";
import { ranges, plan, serves, WindowCache, KEEP, MAX_WIDTH } from "../cache.js";

test("rows are asked for as ranges of consecutive ones", () => {
  assert.equal(ranges([]), "");
  assert.equal(ranges([4]), "4");
  assert.equal(ranges([0, 1, 2, 5, 7, 8]), "0-2,5,7-8");
});

test("a window is asked for padded by a screen, at a power-of-two resolution", () => {
  const p = plan(10.2, 11.2, 1000, [0, 1, 2]);
  // No longer than a pixel (1 ms): 2^-10 s.
  assert.equal(p.res, 2 ** -10);
  assert.ok(p.t0 <= 9.2 && p.t1 >= 12.2);
  assert.equal(p.width, Math.round((p.t1 - p.t0) / p.res));
  assert.equal(p.list, "0-2");
  assert.equal(p.key, `${p.t0} ${p.t1} ${p.width} 0-2`);
  // A small pan asks for the same cells.
  assert.equal(plan(10.3, 11.3, 1000, [0, 1, 2]).key, p.key);
  // Never wider than the server's widest reply.
  const wide = plan(0, 1, 100000, [0]);
  assert.ok(wide.width <= MAX_WIDTH, `${wide.width}`);
});

test("a reply serves while it has the resolution, the rows and half a screen each side", () => {
  const p = plan(10, 11, 1000, [0, 1, 2]);
  const h = { res: p.res, t0: p.t0, t1: p.t1, asked: new Set(p.rows) };
  assert.ok(serves(h, 10, 11, p.res, [0, 1]));
  assert.ok(!serves(h, 10, 11, p.res / 2, [0, 1]), "another resolution");
  assert.ok(!serves(h, 10, 11, p.res, [0, 3]), "a row not asked for");
  assert.ok(!serves(h, p.t1 - 1, p.t1, p.res, [0]), "no half screen to spare");
});

// A cache over a fake source that answers when told.
function harness() {
  const state = { t0: 10, t1: 11, visible: [0, 1, 2, 3], scroll: 0, data: null };
  const asked = [];
  const source = {
    timeline(t0, t1, width, list, signal) {
      return new Promise((resolve, reject) => {
        asked.push({ t0, t1, width, list, resolve, signal });
        signal.addEventListener("abort", () => reject(Object.assign(new Error("aborted"), { name: "AbortError" })));
      });
    },
  };
  let draws = 0, served = 0;
  const errors = [];
  const cache = new WindowCache(source, state, {
    width: () => 1000, shown: () => state.visible.slice(state.scroll, state.scroll + 2),
    draw: () => { draws++; }, served: () => { served++; }, error: (e) => errors.push(e),
  });
  return { state, asked, cache, counts: () => ({ draws, served }), errors };
}

test("a reply is asked for once, then serves small pans without asking", async () => {
  const { state, asked, cache, counts, errors } = harness();
  const done = cache.update();
  assert.equal(asked.length, 1);
  assert.equal(asked[0].list, "0-3");
  asked[0].resolve({ reply: 1 });
  await done;
  assert.deepEqual(state.data, { reply: 1 });
  assert.deepEqual(counts(), { draws: 1, served: 1 });
  state.t0 += 0.1; state.t1 += 0.1;
  await cache.update();
  assert.equal(asked.length, 1, "no new request");
  assert.equal(counts().served, 2);
  assert.deepEqual(errors, []);
});

test("a request no longer wanted is cancelled, and at most KEEP replies are held", async () => {
  const { state, asked, cache, errors } = harness();
  const first = cache.update();
  state.t0 = 100; state.t1 = 101;
  const second = cache.update();
  assert.ok(asked[0].signal.aborted);
  assert.ok(!asked[1].signal.aborted);
  await first;
  asked[1].resolve({ reply: 2 });
  await second;
  assert.deepEqual(state.data, { reply: 2 });
  for (let k = 0; k < KEEP + 2; k++) {
    state.t0 = 1000 * (k + 1); state.t1 = state.t0 + 1;
    const p = cache.update();
    asked[asked.length - 1].resolve({ reply: 3 + k });
    await p;
  }
  assert.equal(cache.held.length, KEEP);
  assert.deepEqual(errors, []);
});
