// Helpers every part of the page shares: pure functions (no page state),
// each defined once here.

// The element of the page with that id.
export const $ = (id) => document.getElementById(id);

// `s` as text that HTML shows as it is.
export function esc(s) {
  return String(s).replace(/[&<>"]/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;" })[c]);
}

const UNITS = [[1, "s"], [1e-3, "ms"], [1e-6, "µs"], [1e-9, "ns"]];

// Time `t` (seconds) in the unit of its own size (or of `ref`'s, so that
// the labels of one axis share a unit: 4.0002 s, not 4000200 µs), with as
// many decimals as `step` (the precision shown) needs.
export function fmtTime(t, step, ref = t) {
  const size = Math.max(Math.abs(ref), Math.abs(step));
  const [u, name] = UNITS.find(([u]) => size >= u) || UNITS[UNITS.length - 1];
  const digits = Math.max(0, Math.min(9, Math.ceil(-Math.log10(step / u) + 0.01)));
  // No "-0" for a negative time that rounds to zero.
  const text = (t / u).toFixed(digits);
  return `${/^-0(\.0*)?$/.test(text) ? text.slice(1) : text} ${name}`;
}

// The round step (1, 2 or 5 times a power of ten) between the ticks of an
// axis of `span` seconds over `px` pixels: one tick every 110 pixels or
// more.
export function niceStep(span, px) {
  const raw = span / Math.max(1, px / 110);
  const p = Math.pow(10, Math.floor(Math.log10(raw)));
  for (const k of [1, 2, 5, 10]) if (k * p >= raw) return k * p;
  return 10 * p;
}

// A number with an SI suffix (k, M, G, T) and 3 significant digits; below
// 1000, `small` significant digits; "–" when there is none.
export function si(x, small = 3) {
  if (x == null || !isFinite(x)) return "–";
  const a = Math.abs(x);
  for (const [v, s] of [[1e12, "T"], [1e9, "G"], [1e6, "M"], [1e3, "k"]]) {
    if (a >= v) return `${+(x / v).toPrecision(3)}${s}`;
  }
  return `${+x.toPrecision(small)}`;
}

// "12.5", "1e6", "10M", "2.5k", "1G": a number with an SI suffix (NaN when
// the text holds none).
export function parseSi(text) {
  const m = /^\s*([-+0-9.eE]+)\s*([kKMGT]?)/.exec(text || "");
  if (!m) return NaN;
  const mult = { "": 1, k: 1e3, K: 1e3, M: 1e6, G: 1e9, T: 1e12 }[m[2]];
  return parseFloat(m[1]) * mult;
}

// "#rrggbb" as [r, g, b].
export function rgb(hex) {
  const n = parseInt(hex.slice(1), 16);
  return [(n >> 16) & 255, (n >> 8) & 255, n & 255];
}

// [r, g, b] as a CSS colour.
export const css = ([r, g, b]) => `rgb(${r},${g},${b})`;

// [r, g, b] as "#rrggbb".
export const hex = (c) => "#" + c.map((x) => x.toString(16).padStart(2, "0")).join("");

// Names in natural order: numbers inside names by value (rank-9 before
// rank-10); the rule of `natural_cmp` (crates/core/sim/src/natural.rs).
export function natural(a, b) {
  const digit = (c) => c >= 48 && c <= 57;
  let i = 0, j = 0;
  while (i < a.length && j < b.length) {
    const x = a.charCodeAt(i), y = b.charCodeAt(j);
    if (digit(x) && digit(y)) {
      let ei = i, ej = j;
      while (ei < a.length && digit(a.charCodeAt(ei))) ei++;
      while (ej < b.length && digit(b.charCodeAt(ej))) ej++;
      const p = a.slice(i, ei).replace(/^0+/, ""), q = b.slice(j, ej).replace(/^0+/, "");
      if (p.length !== q.length) return p.length - q.length;
      if (p !== q) return p < q ? -1 : 1;
      i = ei; j = ej;
    } else {
      if (x !== y) return x - y;
      i++; j++;
    }
  }
  return (a.length - i) - (b.length - j) || (a < b ? -1 : a > b ? 1 : 0);
}

// Waits `ms` milliseconds.
export const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

// A canvas cleared for drawing, with the player's font: its context and
// size.
export function surface(cv) {
  const ctx = cv.getContext("2d");
  const W = cv.width, H = cv.height;
  ctx.clearRect(0, 0, W, H);
  ctx.font = "11px DejaVu Sans, Arial, sans-serif";
  return { ctx, W, H };
}
