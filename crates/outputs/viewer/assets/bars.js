// The names of states drawn inside their bars: the spans of a reply's
// columns merged into bars, the parts of a bar that deeper levels leave
// visible, a name cut to the width it has (with an ellipsis) or left out
// where the bar is narrower than a few characters, and the text colour
// that reads on the bar's.

// The fewest characters a name is cut to (the ellipsis included); a bar
// narrower than that shows no name.
export const MIN_CHARS = 3;

// The bars of a level's spans (Uint32Array of (x0, x1, value, count |
// mixed << 31), as decode.js gives them): [x0, x1, value] in columns,
// adjacent spans of one value merged into one bar; values `hidden` (a
// Set) are left out.
export function mergeBars(spans, hidden) {
  const out = [];
  let last = null;
  for (let i = 0; i < spans.length; i += 4) {
    const x0 = spans[i], x1 = spans[i + 1], value = spans[i + 2];
    if (hidden && hidden.has(value)) { last = null; continue; }
    if (last && last[2] === value && last[1] === x0) last[1] = x1;
    else { last = [x0, x1, value]; out.push(last); }
  }
  return out;
}

// The parts of [x0, x1) that the sorted, disjoint intervals `cover` leave
// visible: [[a, b]…].
export function uncovered(x0, x1, cover) {
  const out = [];
  let at = x0;
  // The first bar that may overlap (binary search on its end).
  let lo = 0, hi = cover.length;
  while (lo < hi) { const m = (lo + hi) >> 1; if (cover[m][1] <= x0) lo = m + 1; else hi = m; }
  for (let k = lo; k < cover.length && cover[k][0] < x1; k++) {
    if (cover[k][0] > at) out.push([at, cover[k][0]]);
    at = Math.max(at, cover[k][1]);
  }
  if (at < x1) out.push([at, x1]);
  return out;
}

// `text` as it fits in `width` pixels, `measure(s)` giving the width of
// a string: whole, else cut with an ellipsis, else null when not even
// MIN_CHARS characters (the ellipsis included) fit. A path-like name (a
// "/" in its first word: "/src/solver/cg.cpp:88 spmv") keeps its tail,
// where the file and the function are: its leading folders give way
// first ("…/cg.cpp:88 spmv"), then the middle of what is left after the
// last folder ("cg.c…88 spmv"). A last part that is only a place (no
// letter before a "::": APEX's "/phylanx/store$4/2$51$29::eval") goes
// with the part before it, which is cut at its end instead
// ("store$4/2$5…").
export function fitLabel(text, width, measure) {
  if (measure(text) <= width) return text;
  if (text.length <= MIN_CHARS) return null;
  const word = /^\S*/.exec(text)[0];
  const cuts = [];
  for (let i = word.indexOf("/", 1); i >= 0 && i < word.length - 1; i = word.indexOf("/", i + 1)) cuts.push(i);
  if (!cuts.length) return cutEnd(text, width, measure);
  // A place only: the name is the part before it.
  const place = /^[^\p{L}]*(::.*)?$/u.test(text.slice(cuts[cuts.length - 1] + 1));
  const keep = place && cuts.length > 1 ? cuts.length - 2 : cuts.length - 1;
  for (const i of cuts.slice(0, keep + 1)) {
    const tail = "…" + text.slice(i);
    if (measure(tail) <= width) return tail;
  }
  const last = text.slice(cuts[keep] + 1);
  return place ? cutEnd(last, width, measure) : cutMiddle(last, width, measure);
}

// The longest `f(k)` for k in [lo, hi] that fits in `width` (f longer
// with k), or null (binary search).
function longest(f, lo, hi, width, measure) {
  if (measure(f(lo)) > width) return null;
  while (lo < hi) {
    const m = (lo + hi + 1) >> 1;
    if (measure(f(m)) <= width) lo = m; else hi = m - 1;
  }
  return f(lo);
}

// `text` cut at its end with an ellipsis, at least MIN_CHARS characters.
function cutEnd(text, width, measure) {
  return longest((k) => text.slice(0, k) + "…", MIN_CHARS - 1, text.length - 1, width, measure);
}

// `text` (longer than fits) with its middle cut out for an ellipsis: a
// third of the characters kept from its head, the rest from its tail;
// too narrow for 6 characters, cut at its end.
function cutMiddle(text, width, measure) {
  const f = (k) => text.slice(0, Math.floor(k / 3)) + "…" + text.slice(text.length - (k - Math.floor(k / 3)));
  return longest(f, 6, text.length - 1, width, measure) ?? cutEnd(text, width, measure);
}

// The colour of text on a bar of colour [r, g, b]: black on a light
// bar, white on a dark one, by the bar's relative luminance (WCAG's);
// mid tones, where both contrast alike, take white, which reads better
// on saturated colours.
export function textColor([r, g, b]) {
  const lin = (c) => { c /= 255; return c <= 0.04045 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4; };
  const l = 0.2126 * lin(r) + 0.7152 * lin(g) + 0.0722 * lin(b);
  return l > 0.28 ? "#000" : "#fff";
}

// The union of lists of bars as sorted, disjoint [x0, x1] intervals.
export function union(lists) {
  const all = lists.flat().sort((a, b) => a[0] - b[0]);
  const out = [];
  for (const [x0, x1] of all) {
    const last = out[out.length - 1];
    if (last && x0 <= last[1]) last[1] = Math.max(last[1], x1);
    else out.push([x0, x1]);
  }
  return out;
}

// The places for names in one row: `bands` the levels of each of its
// bands (the spans of decode.js), drawn in that order, each band over the
// bands before it, each level over the one above it when `nested` (else
// in a sub-row of its own). Calls `put(value, x, width, level)` for each
// visible part of a bar (not covered by a later band's bars nor, nested,
// by the next level's) at least `2 * pad + 1` pixels wide, `x` and
// `width` the room inside it on screen (`X(col)` a column's screen x,
// the screen `W` pixels wide, `pad` pixels kept free on each side).
export function nameBars(bands, hidden, X, W, put, pad = 3, nested = true) {
  const bars = bands.map((levels) => levels.map((spans) => mergeBars(spans, hidden)));
  // The later bands' bars: all of them, and by level.
  let later = [];
  const laterAt = [];
  for (let b = bars.length - 1; b >= 0; b--) {
    bars[b].forEach((level, l) => {
      const cover = nested ? union([bars[b][l + 1] || [], later]) : laterAt[l] || [];
      for (const [x0, x1, value] of level) {
        for (const [a, c] of uncovered(x0, x1, cover)) {
          const left = Math.max(X(a), 0), right = Math.min(X(c), W);
          if (right - left <= 2 * pad) continue;
          put(value, left + pad, right - left - 2 * pad, l);
        }
      }
    });
    later = union([later, ...bars[b]]);
    bars[b].forEach((level, l) => { laterAt[l] = union([laterAt[l] || [], level]); });
  }
}
