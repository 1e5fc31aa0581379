// The time origin: an instant the user sets by a click on the time axis
// (cleared with its button in the header, or the key o), from which the
// axis, the tooltips and the details count offsets ("+1.25 ms") instead of
// the run's absolute times. It goes in the URL's fragment as `origin=T`.

import { $, fmtTime } from "./util.js";

// An offset `d` (seconds) from the origin: its sign ("+", "−", none for
// zero) and its size in the unit of `ref`'s size (fmtTime), with as many
// decimals as `step` needs. A `d` within a millionth of `step` of zero
// (the rounding of origin + k × step) is zero.
export function fmtOffset(d, step, ref = d) {
  if (Math.abs(d) < Math.abs(step) * 1e-6) d = 0;
  const sign = d > 0 ? "+" : d < 0 ? "−" : "";
  return sign + fmtTime(Math.abs(d), step, Math.abs(ref));
}

// The ticks of an axis over [t0, t1], `step` seconds apart: their times
// and labels. Without an origin (null) they fall on multiples of the step
// and read as absolute times; with one, on the origin plus multiples of
// the step, read as offsets from it, all in the unit of the largest.
export function axisTicks(t0, t1, step, origin) {
  const base = origin ?? 0;
  const ref = Math.max(Math.abs(t0 - base), Math.abs(t1 - base));
  const out = [];
  for (let k = Math.ceil((t0 - base) / step); base + k * step <= t1; k++) {
    const t = base + k * step;
    const label = origin == null ? fmtTime(t, step, ref) : fmtOffset(k * step, step, ref);
    out.push({ t, label });
  }
  return out;
}

// Time `t` as the page shows it in tooltips and details: seconds as the
// trace has them without an origin, else its offset from the origin to
// the digit of `step`.
export function fmtAt(t, origin, step) {
  if (origin == null) return `${t} s`;
  return fmtOffset(t - origin, step);
}

// The window [t0, t1] as the header shows it: absolute times without an
// origin, else both ends as offsets from it in one unit.
export function windowText(t0, t1, origin) {
  const step = (t1 - t0) / 10;
  if (origin == null) return `${fmtTime(t0, step)} – ${fmtTime(t1, step)}`;
  const ref = Math.max(Math.abs(t0 - origin), Math.abs(t1 - origin));
  return `${fmtOffset(t0 - origin, step, ref)} – ${fmtOffset(t1 - origin, step, ref)}`;
}

// The origin's time read from the URL's fragment (`origin=T`), or null.
export function originOfHash(params) {
  const t = parseFloat(params.get("origin"));
  return params.has("origin") && isFinite(t) ? t : null;
}

// Wires the origin: a click (no drag) on the time axis of the timeline
// sets it there, the header's #origin shows it with a button that clears
// it, the key o clears it. `page` is app.js's controller: its state holds
// `origin`; `page.updateHash()` and `page.draw()` follow a change.
export function listenOrigin(page, axisHeight) {
  const state = page.state;
  const cv = $("timeline");
  let down = null;
  cv.addEventListener("mousedown", (ev) => { down = { x: ev.offsetX, y: ev.offsetY }; });
  cv.addEventListener("click", (ev) => {
    if (!down || down.y >= axisHeight || Math.abs(ev.offsetX - down.x) > 2) return;
    setOrigin(page, page.timeAt(ev.offsetX));
  });
  $("origin-clear").addEventListener("click", () => setOrigin(page, null));
  window.addEventListener("keydown", (ev) => {
    if (ev.target.tagName === "INPUT" || ev.key !== "o") return;
    setOrigin(page, null);
  });
  showOrigin(state);
}

// Sets the origin at `t` (null: none) and redraws.
export function setOrigin(page, t) {
  page.state.origin = t;
  showOrigin(page.state);
  page.updateHash();
  page.draw();
}

// The header's note of the origin.
function showOrigin(state) {
  const el = $("origin");
  el.hidden = state.origin == null;
  if (state.origin != null) $("origin-at").textContent = `times from ${Number(state.origin.toPrecision(10))} s`;
}
