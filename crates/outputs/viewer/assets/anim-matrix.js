// The traffic animation: the sender × receiver matrix of the messages in
// flight in the frame, coloured by effective rate (else count), beside the
// same matrix over the whole run (or, for a stream, the frames in which
// each cell was lit so far); host separators, names when they fit, the
// gradient's scale.

import { surface, si } from "./util.js";
import { shortNames, labelStep } from "./anim-fit.js";

// A value's colour: black below the gradient, white above, else a ramp
// from dark blue to yellow on a log scale.
export function shade(v, grad) {
  const [lo, hi] = grad;
  if (v == null) return [150, 150, 150];
  if (v < lo) return [0, 0, 0];
  if (v > hi) return [255, 255, 255];
  const f = hi > lo ? Math.log(v / lo) / Math.log(hi / lo) : 1;
  const stops = [[48, 18, 120], [33, 102, 172], [32, 164, 134], [122, 209, 81], [253, 231, 37]];
  const x = Math.max(0, Math.min(1, f)) * (stops.length - 1);
  const i = Math.min(stops.length - 2, Math.floor(x));
  const k = x - i;
  return stops[i].map((c, j) => Math.round(c + (stops[i + 1][j] - c) * k));
}

// Per canvas, its cells painted last (a whole run's matrix is the same
// from frame to frame).
const painted = new WeakMap();

// Draws the sender × receiver matrix `cells` ({from, to, count, rate}) on
// canvas `cv` with gradient `grad` (of rates, else counts; `counts`: of
// counts whatever the stage); `frame`: the frame's matrix. Gives its place
// and the names labelled: {x, y, size, n, labels}.
export function drawMatrix(pl, cv, cells, title, frame, grad, counts = false) {
  const { ctx, W, H } = surface(cv);
  ctx.fillStyle = "#333";
  const what = counts ? "" : pl.byRate() ? (frame ? "effective rate (bit/s)" : "mean effective rate (bit/s)") : "messages";
  ctx.fillText(`${title} ${what}`, 4, 12);
  const n = pl.stage.processes.length;
  // Names beside the rows and above the columns: every k-th where they
  // would overlap; what all share left out when whole names are too long
  // (a hover gives the name).
  const full = pl.stage.processes.map((p) => p.name);
  const widest = (ts) => Math.max(0, ...ts.map((t) => ctx.measureText(t).width));
  let names = full;
  if (widest(full) > 84) names = shortNames(full).short;
  const longest = n ? Math.min(90, widest(names) + 6) : 0;
  const size = Math.max(1, Math.min(W - 8 - longest, H - 50 - longest));
  const step = labelStep(size / Math.max(1, n), 12);
  const x0 = 4 + longest, y0 = 18 + longest;
  const labels = [];
  if (n && isFinite(step)) {
    for (let i = 0; i < n; i += step) labels.push(pl.stage.processes[i].name);
    const c = size / n;
    ctx.fillStyle = "#444";
    ctx.save();
    ctx.beginPath(); ctx.rect(0, 0, x0, y0 + size); ctx.clip();
    for (let i = 0; i < n; i += step) ctx.fillText(names[i], x0 - 4 - ctx.measureText(names[i]).width, y0 + (i + 0.5) * c + 4);
    ctx.restore();
    for (let i = 0; i < n; i += step) {
      ctx.save();
      ctx.translate(x0 + (i + 0.5) * c + 4, y0 - 4);
      ctx.rotate(-Math.PI / 2);
      ctx.beginPath(); ctx.rect(0, -12, longest, 16); ctx.clip();
      ctx.fillText(names[i], 0, 0);
      ctx.restore();
    }
  }
  ctx.fillStyle = "#e6e6ea";
  ctx.fillRect(x0, y0, size, size);
  const c = size / Math.max(1, n);
  const paint = (g2, ox, oy) => {
    for (const cell of cells) {
      const [r, g, b] = shade(counts ? cell.count : pl.cellValue(cell), grad);
      g2.fillStyle = `rgb(${r},${g},${b})`;
      g2.fillRect(ox + cell.to * c, oy + cell.from * c, Math.max(1, c), Math.max(1, c));
    }
  };
  if (!frame && cells.length > 1000) {
    // The whole run's many cells: painted once per size and gradient.
    const key = `${size}|${grad[0]}|${grad[1]}|${counts}|${pl.byRate()}`;
    let k = painted.get(cv);
    if (!k || k.cells !== cells || k.key !== key) {
      const off = document.createElement("canvas");
      off.width = Math.ceil(size) + 1;
      off.height = Math.ceil(size) + 1;
      paint(off.getContext("2d"), 0, 0);
      k = { cells, key, off };
      painted.set(cv, k);
    }
    ctx.drawImage(k.off, x0, y0);
  } else paint(ctx, x0, y0);
  // Host separators.
  ctx.strokeStyle = "#9995";
  let k = 0;
  for (const h of pl.stage.hosts) {
    k += h.processes.length;
    if (k >= n) break;
    ctx.beginPath();
    ctx.moveTo(x0 + k * c, y0); ctx.lineTo(x0 + k * c, y0 + size);
    ctx.moveTo(x0, y0 + k * c); ctx.lineTo(x0 + size, y0 + k * c);
    ctx.stroke();
  }
  ctx.strokeStyle = "#888";
  ctx.strokeRect(x0 + 0.5, y0 + 0.5, size - 1, size - 1);
  // The gradient's scale under the matrix.
  const gy = y0 + size + 6;
  for (let i = 0; i < size; i++) {
    const [lo, hi] = grad;
    const v = lo * Math.pow(hi / lo, i / size);
    const [r, g, b] = shade(v, grad);
    ctx.fillStyle = `rgb(${r},${g},${b})`;
    ctx.fillRect(x0 + i, gy, 1, 8);
  }
  ctx.fillStyle = "#333";
  ctx.fillText(`${si(grad[0])}`, x0, gy + 20);
  const hiText = `${si(grad[1])}`;
  ctx.fillText(hiText, x0 + size - ctx.measureText(hiText).width, gy + 20);
  const box = { x: x0, y: y0, size, n, labels };
  // A stream's messages whose receiver has not come yet: a bar right of
  // the sender's row.
  if (frame && pl.shown?.pending?.length) {
    ctx.fillStyle = "#e8730c";
    for (const [p, k] of pl.shown.pending) {
      ctx.fillRect(x0 + size + 2, y0 + p * c, Math.min(W - x0 - size - 2, 3 + 3 * Math.log2(1 + k)), Math.max(1, c - 1));
    }
  }
  if (!cells.length) {
    ctx.fillStyle = "#666";
    ctx.fillText(frame ? "no message in flight" : "no messages", x0 + 6, y0 + 16);
    if (!frame && pl.stage.note) {
      // Why (a platform's links are not messages): wrapped in the matrix,
      // the lines that do not fit cut with an ellipsis.
      const lines = wrap(ctx, pl.stage.note, size - 12, Math.max(0, Math.floor((size - 26) / 14)));
      lines.forEach((t, i) => ctx.fillText(t, x0 + 6, y0 + 32 + 14 * i));
      // Cut: whole on hover.
      cv.title = lines.join(" ").length < pl.stage.note.length ? pl.stage.note : "";
    }
  }
  return box;
}

// `text` in lines at most `width` pixels wide, `most` lines at most (the
// last ends with "…" when some is left out; a word longer than a line is
// cut).
export function wrap(ctx, text, width, most) {
  const out = [];
  let line = "";
  const fits = (t) => ctx.measureText(t).width <= width;
  const cut = (t) => { while (t.length > 1 && !fits(`${t}…`)) t = t.slice(0, -1); return `${t}…`; };
  for (const w of text.split(/\s+/).filter((x) => x)) {
    const next = line ? `${line} ${w}` : w;
    if (fits(next)) { line = next; continue; }
    if (line) out.push(line);
    line = fits(w) ? w : cut(w);
  }
  if (line) out.push(line);
  if (out.length <= most) return out;
  if (most <= 0) return [];
  const kept = out.slice(0, most);
  kept[most - 1] = cut(`${kept[most - 1]} ${out[most]}`.replace(/…/g, ""));
  return kept;
}
