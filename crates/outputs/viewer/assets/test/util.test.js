// The shared helpers (util.js): escaping, time and number formats,
// colours, the natural order of names.

import { test } from "node:test";
import assert from "node:assert/strict";
import { esc, fmtTime, niceStep, si, parseSi, rgb, hex, css, natural } from "../util.js";

test("HTML is escaped once, quotes included", () => {
  assert.equal(esc(`<b a="1">&amp;</b>`), "&lt;b a=&quot;1&quot;&gt;&amp;amp;&lt;/b&gt;");
  assert.equal(esc(42), "42");
});

test("times take the largest unit not above their step, and its digits", () => {
  // A step of a unit: one decimal; a step of a tenth of a unit would be
  // the next unit's hundreds.
  assert.equal(fmtTime(1.5, 1), "1.5 s");
  assert.equal(fmtTime(1.5, 0.1), "1.50 s");
  assert.equal(fmtTime(0.0125, 0.001), "12.5 ms");
  assert.equal(fmtTime(0.0125, 0.0001), "12.50 ms");
  // The unit of the value, not of the precision: a 2 ms window of a run
  // 4 s in reads 4.0002 s, not 4000200 µs; a duration 509.7 ms.
  assert.equal(fmtTime(4.0002, 2e-4), "4.0002 s");
  assert.equal(fmtTime(0.50971, 0.00050971), "509.7 ms");
  // `ref` gives an axis one unit: its largest time's.
  assert.equal(fmtTime(0, 2e-4, 4.002), "0.0000 s");
  assert.equal(fmtTime(0.0002, 2e-4, 0.0012), "0.2 ms");
  assert.equal(fmtTime(3e-6, 1e-6), "3.0 µs");
  assert.equal(fmtTime(-0.5, 0.1), "-500 ms");
  assert.equal(fmtTime(12, 10), "12 s");
  // Below a nanosecond: nanoseconds with more digits.
  assert.equal(fmtTime(1.5e-9, 1e-10), "1.50 ns");
  assert.equal(fmtTime(2e-12, 1e-12), "0.0020 ns");
});

test("axis steps are 1, 2 or 5 times a power of ten, 110 pixels apart or more", () => {
  assert.equal(niceStep(10, 1100), 1);
  assert.equal(niceStep(10, 500), 5);
  assert.equal(niceStep(1, 1000), 0.2);
  assert.equal(niceStep(0.003, 400), 0.001);
  for (const [span, px] of [[7.3, 900], [1e-6, 1920], [12345, 333]]) {
    const s = niceStep(span, px);
    assert.ok((s / span) * px >= 110 - 1e-9, `${span} ${px}: ${s}`);
    const m = s / Math.pow(10, Math.floor(Math.log10(s) + 1e-9));
    assert.ok([1, 2, 5, 10].some((k) => Math.abs(m - k) < 1e-6), `${s}`);
  }
});

test("numbers with an SI suffix, written and read", () => {
  assert.equal(si(1234), "1.23k");
  assert.equal(si(2.5e9), "2.5G");
  assert.equal(si(-3e6), "-3M");
  assert.equal(si(12.345), "12.3");
  assert.equal(si(12.345, 4), "12.35");
  assert.equal(si(null), "–");
  assert.equal(si(Infinity), "–");
  assert.equal(parseSi("10M"), 1e7);
  assert.equal(parseSi(" 2.5k"), 2500);
  assert.equal(parseSi("1e-3"), 0.001);
  assert.equal(parseSi("3T"), 3e12);
  assert.ok(Number.isNaN(parseSi("fast")));
  assert.ok(Number.isNaN(parseSi("")));
});

test("colours: #rrggbb to [r, g, b] and back", () => {
  assert.deepEqual(rgb("#ff8000"), [255, 128, 0]);
  assert.deepEqual(rgb("#000000"), [0, 0, 0]);
  assert.equal(hex([255, 128, 0]), "#ff8000");
  assert.equal(hex(rgb("#0a0b0c")), "#0a0b0c");
  assert.equal(css([1, 2, 3]), "rgb(1,2,3)");
});

test("names in natural order: numbers by value", () => {
  const names = ["rank-10", "rank-9", "rank-1", "host", "rank-01", "rank-1a", "Rank-2"];
  assert.deepEqual(names.sort(natural), ["Rank-2", "host", "rank-01", "rank-1", "rank-1a", "rank-9", "rank-10"]);
  assert.ok(natural("a2b10", "a2b9") > 0);
  assert.equal(natural("x", "x"), 0);
});

// regression: the fitted window of a run starting at 0 read "-0 s – 18 s".
test("a negative time that rounds to zero reads 0", () => {
  assert.equal(fmtTime(-0.18, 1.8), "0 s");
  assert.equal(fmtTime(-0.0004, 0.01, 1), "0.000 s");
  assert.equal(fmtTime(-0.6, 1), "-0.6 s");
});
