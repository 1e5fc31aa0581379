// A message arrow picked by a click: it is kept as the state's `link`
// ({from, to, start, end, value}), its two ends are ringed on the
// timeline, and the view jumps to its other end: the one farther from the
// click, centred in the window (its length kept), its row scrolled into
// view.

import { ROW_H, rowTops } from "./rows.js";

// The end of the link `l` farther from the click at time `t`, row `row`
// (null: unknown): {t, row, which: "start" | "end"}. Nearer its start in
// time (or on its start's row when both ends share the time), the end.
export function otherEnd(l, t, row) {
  const dStart = Math.abs(t - l.start), dEnd = Math.abs(t - l.end);
  const atStart = dStart < dEnd || (dStart === dEnd && row === l.from);
  return atStart ? { t: l.end, row: l.to, which: "end" } : { t: l.start, row: l.from, which: "start" };
}

// The window of `span` seconds centred on `t`.
export const centred = (t, span) => [t - span / 2, t + span / 2];

// The scroll (first row shown) that shows `row` among `visible` when
// `fit` rows fit: unchanged when it is already on screen, else with the
// row a third down.
export function scrollTo(visible, row, scroll, fit) {
  const k = visible.indexOf(row);
  if (k < 0 || (k >= scroll && k < scroll + fit)) return scroll;
  return Math.max(0, Math.min(visible.length - fit, k - Math.floor(fit / 3)));
}

// Follows the link `l` clicked at time `t`: picks it and jumps to its
// other end. `page` is app.js's controller.
export function follow(page, l, t, row, fit) {
  const s = page.state;
  const end = otherEnd(l, t, row);
  s.link = { ...l, jumped: end.which };
  s.scroll = scrollTo(s.visible, end.row, s.scroll, fit);
  const [a, b] = centred(end.t, s.t1 - s.t0);
  page.setWindow(a, b);
}

// Rings the picked link's two ends and redraws its arrow thicker, over
// the timeline (its rows `rows` on screen, `W` pixels wide).
export function drawPicked(state, ctx, rows, W) {
  const l = state.link;
  if (!l) return;
  const span = state.t1 - state.t0;
  const X = (t) => ((t - state.t0) / span) * W;
  // Where the timeline draws its links: the middle of a row's first level.
  const tops = rowTops(state, rows);
  const Y = (r) => (tops.has(r) ? tops.get(r) + ROW_H / 2 : null);
  const ends = [[X(l.start), Y(l.from)], [X(l.end), Y(l.to)]];
  ctx.save();
  ctx.strokeStyle = "#e07000"; ctx.lineWidth = 2.5;
  if (ends.every(([, y]) => y != null)) {
    ctx.beginPath(); ctx.moveTo(...ends[0]); ctx.lineTo(...ends[1]); ctx.stroke();
  }
  for (const [x, y] of ends) {
    if (y == null) continue;
    ctx.beginPath(); ctx.arc(x, y, 6, 0, 2 * Math.PI); ctx.stroke();
  }
  ctx.restore();
}

// The picked link in the URL's fragment: `link=FROM,TO,START,END,VALUE`
// (its rows, times and value id), when one is picked.
export function linkHash(l) {
  return l ? [`link=${l.from},${l.to},${l.start},${l.end},${l.id}`] : [];
}

// The link of a URL's fragment (URLSearchParams) as linkHash writes it,
// its rows and value checked against `meta`: {from, to, start, end,
// value}, or null.
export function linkOfHash(params, meta) {
  const v = (params.get("link") || "").split(",").map(Number);
  if (v.length !== 5 || !v.every(isFinite)) return null;
  const [from, to, start, end, value] = v;
  const row = (r) => Number.isInteger(r) && r >= 0 && r < meta.rows.length;
  if (!row(from) || !row(to) || !meta.values[value] || end < start) return null;
  return { from, to, start, end, value };
}
