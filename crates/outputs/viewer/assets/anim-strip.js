// The player's strip: the messages started over the run as bars, the
// timeline's window, and the frame shown (a click or a drag seeks); for a
// stream, the frames read ahead of the one shown and how far the input is
// read.

import { $ } from "./util.js";

export function drawStrip(pl) {
  const cv = $("p-strip");
  const ctx = cv.getContext("2d");
  const W = cv.width, H = cv.height;
  ctx.clearRect(0, 0, W, H);
  ctx.fillStyle = "#f3f3f6";
  ctx.fillRect(0, 0, W, H);
  const [a, b] = pl.hooks.window();
  if (pl.feed) {
    // The frames read ahead of the one shown, up to the input read.
    const x = ((pl.t - a) / ((b - a) || 1)) * W;
    ctx.fillStyle = "#9aa6c0";
    ctx.fillRect(x, 4, W - x, H - 8);
    ctx.fillStyle = "#d0302f";
    ctx.fillRect(x, 0, 2, H);
    ctx.fillStyle = "#333";
    ctx.font = "11px DejaVu Sans, Arial, sans-serif";
    const info = pl.streamInfo || {};
    const state = info.error ? `failed: ${info.error}` : info.done ? "input ended" : "reading";
    ctx.fillText(`frame ${pl.shown?.k ?? "–"} · input read to ${(info.time ?? 0).toFixed(3)} s · ${state}`, 6, H - 8);
    return;
  }
  const ov = pl.stage.overview || [];
  const m = pl.meta;
  if (ov.length) {
    // Messages started over the run, as bars; the timeline's window
    // marked.
    const most = Math.max(1, ...ov);
    ctx.fillStyle = "#9aa6c0";
    for (let i = 0; i < ov.length; i++) {
      const t = m.start + ((i + 0.5) / ov.length) * (m.end - m.start);
      if (t < a || t > b) continue;
      const x0 = ((m.start + (i / ov.length) * (m.end - m.start) - a) / (b - a)) * W;
      const x1 = ((m.start + ((i + 1) / ov.length) * (m.end - m.start) - a) / (b - a)) * W;
      const h = (ov[i] / most) * (H - 4);
      ctx.fillRect(x0, H - h, Math.max(1, x1 - x0), h);
    }
  }
  const x = ((pl.t - a) / (b - a)) * W;
  const w = Math.max(2, (pl.delta() / (b - a)) * W);
  ctx.fillStyle = "#d0302f55";
  ctx.fillRect(x, 0, w, H);
  ctx.fillStyle = "#d0302f";
  ctx.fillRect(x, 0, 2, H);
}
