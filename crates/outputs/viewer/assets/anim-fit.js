// What keeps the player's views legible when they hold many processes:
// the heaviest edges kept and the rest summed, names shortened by the
// prefix they all share, labels placed where they do not overlap, a
// matrix's labels thinned to every k-th, and hosts laid on a ring that
// fits its canvas. Pure functions (no page): the views call them, and the
// unit tests (test/fit.test.js) check them.

// The `k` heaviest of `edges` (each with a weight `w`), heaviest first
// (ties in their order), and what the others add up to: {kept, rest: {n,
// w}}.
export function heaviest(edges, k) {
  const order = edges.map((e, i) => [e, i]).sort((a, b) => b[0].w - a[0].w || a[1] - b[1]);
  const kept = order.slice(0, Math.max(0, k)).map(([e]) => e);
  let w = 0;
  for (const [e] of order.slice(kept.length)) w += e.w;
  return { kept, rest: { n: edges.length - kept.length, w } };
}

// The prefix every name shares up to a word's end (a character neither a
// letter nor a digit, or a letter followed by a digit), kept only when
// each name keeps something after it: "MPI Rank 3", "MPI Rank 12" →
// "MPI Rank ". One name or none: "".
export function sharedPrefix(names) {
  if (names.length < 2) return "";
  let p = names[0];
  for (const s of names) {
    let i = 0;
    while (i < p.length && i < s.length && p[i] === s[i]) i++;
    p = p.slice(0, i);
    if (!p) return "";
  }
  const word = (c) => /[\p{L}\p{N}]/u.test(c);
  const digit = (c) => /\p{N}/u.test(c);
  // A word ends after a separator, or between a letter and a digit.
  const ends = (c) => c === 0 || !word(p[c - 1]) || (!digit(p[c - 1]) && names.every((s) => digit(s[c] ?? "")));
  let cut = p.length;
  while (!ends(cut)) cut--;
  p = p.slice(0, cut);
  return names.every((s) => s.length > p.length) ? p : "";
}

// Labels beside points, in the order given (the first have the room
// first): each item {x, y, r, w, h} (a point of radius r, a label w × h)
// is tried outwards along its `out` direction ([dx, dy], a unit vector)
// when it has one, then right of its point, left, above and below; it is placed where
// it stays inside [0, W] × [top, H] and overlaps no label placed before
// nor any point (`prefer`: the side tried first, "right", "above" or
// "below"). Gives per item the label's top-left corner [x, y], or
// null where none fits. A grid of buckets keeps it linear in the items.
export function placeLabels(items, W, H, top = 0, prefer = "right") {
  const cell = 32;
  const buckets = new Map();
  const keys = (b) => {
    const out = [];
    for (let i = Math.floor(b[0] / cell); i <= Math.floor(b[2] / cell); i++) {
      for (let j = Math.floor(b[1] / cell); j <= Math.floor(b[3] / cell); j++) out.push(`${i},${j}`);
    }
    return out;
  };
  const add = (b) => { for (const k of keys(b)) { if (!buckets.has(k)) buckets.set(k, []); buckets.get(k).push(b); } };
  const hits = (b) => keys(b).some((k) => (buckets.get(k) || []).some((o) => b[0] < o[2] && o[0] < b[2] && b[1] < o[3] && o[1] < b[3]));
  // The points first: no label hides one.
  for (const it of items) add([it.x - it.r, it.y - it.r, it.x + it.r, it.y + it.r]);
  return items.map((it) => {
    const g = it.r + 2;
    const side = {
      right: [it.x + g, it.y - it.h / 2],
      left: [it.x - g - it.w, it.y - it.h / 2],
      above: [it.x - it.w / 2, it.y - g - it.h],
      below: [it.x - it.w / 2, it.y + g],
    };
    const order = [prefer, ...["right", "left", "above", "below"].filter((k) => k !== prefer)].map((k) => side[k]);
    if (it.out) order.unshift([it.x + it.out[0] * (g + it.w / 2) - it.w / 2, it.y + it.out[1] * (g + it.h / 2) - it.h / 2]);
    for (const [x, y] of order) {
      const b = [x, y, x + it.w, y + it.h];
      if (x < 0 || y < top || b[2] > W || b[3] > H || hits(b)) continue;
      add(b);
      return [x, y];
    }
    return null;
  });
}

// Names as short as they can be told apart: what they all share before
// (sharedPrefix) and after (the same, read backwards: "(MPI Rank 3)" →
// "3") left out. Gives {prefix, suffix, short}.
export function shortNames(names) {
  const back = (t) => [...t].reverse().join("");
  const prefix = sharedPrefix(names);
  const mid = names.map((t) => t.slice(prefix.length));
  const suffix = back(sharedPrefix(mid.map(back)));
  return { prefix, suffix, short: mid.map((t) => t.slice(0, t.length - suffix.length)) };
}

// Labels of `names`, whole where all fit, else shortened (shortNames):
// `place(widths)` places labels of those widths (placeLabels) and
// `measure(text)` gives a text's width. Gives {text, at, shared}: the
// texts, their places (null: left out) and what the short ones leave out
// ("MPI Rank …").
export function nameLabels(names, measure, place) {
  const at = place(names.map(measure));
  const s = shortNames(names);
  if (at.every((p) => p) || (!s.prefix && !s.suffix)) return { text: names, at, shared: "" };
  return { text: s.short, at: place(s.short.map(measure)), shared: `${s.prefix}…${s.suffix}` };
}

// 0 … n − 1 in an order whose every beginning is spread evenly (the
// bit-reversal order): 0, n/2, n/4, 3n/4, … Labels placed in this order
// leave gaps all over rather than at the end.
export function spread(n) {
  let bits = 0;
  while ((1 << bits) < n) bits++;
  const out = [];
  for (let i = 0; i < 1 << bits; i++) {
    let r = 0;
    for (let b = 0; b < bits; b++) if (i & (1 << b)) r |= 1 << (bits - 1 - b);
    if (r < n) out.push(r);
  }
  return out;
}

// The step k (1, 2, 5, 10, 20, 50, …) at which a matrix of cells `cell`
// pixels wide labels every k-th row so that labels stand `need` pixels
// apart.
export function labelStep(cell, need) {
  if (!(cell > 0)) return Infinity;
  for (let p = 1; ; p *= 10) {
    for (const m of [1, 2, 5]) if (m * p * cell >= need) return m * p;
  }
}

// `n` circles on a ring inside a W × H canvas, leaving `top` pixels above
// (a title), `bottom` below (a legend), `label` above each circle and,
// for a ring, below too (names outwards), and `pad` at the sides: {cx, cy, R, r, at(i) -> [x, y]}, circles
// of radius r whose centres lie R from (cx, cy), apart from each other,
// the first on top (of two: on the left). One circle fills the room.
export function ring(n, W, H, { top = 0, bottom = 0, label = 0, pad = 2 } = {}) {
  const A = Math.max(2, W - 2 * pad), B = Math.max(2, H - top - bottom - (n > 1 ? 2 : 1) * label - pad);
  const side = Math.min(A, B);
  // r = s·R: neighbours on the ring do not touch (chord 2R·sin(π/n)).
  const s = n > 1 ? Math.min(0.45, 0.9 * Math.sin(Math.PI / n)) : 0;
  // Two: side by side, the canvas being wider than high.
  const R = n === 2 ? Math.min(A / (2 * (1 + s)), B / (2 * s)) : n > 1 ? side / (2 * (1 + s)) : 0;
  const r = n > 1 ? s * R : side / 2;
  const cx = W / 2, cy = top + label + B / 2;
  const at = (i) => {
    if (n <= 1) return [cx, cy];
    const a = n === 2 ? Math.PI * (i + 1) : (2 * Math.PI * i) / n - Math.PI / 2;
    return [cx + Math.cos(a) * R, cy + Math.sin(a) * R];
  };
  return { cx, cy, R, r, at };
}

// The place of the k-th of m dots inside a disc of radius r (a sunflower:
// even density however many), relative to its centre, and the dots'
// radius.
export function sunflower(k, m, r) {
  const dot = Math.max(0.75, Math.min(6, (0.45 * r) / Math.sqrt(Math.max(1, m))));
  const rr = m > 1 ? Math.max(0, r - dot) * Math.sqrt((k + 0.5) / m) : 0;
  const a = k * 2.399963229728653;
  return [Math.cos(a) * rr, Math.sin(a) * rr, dot];
}
