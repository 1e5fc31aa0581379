// The process animation: one square per process, grouped by host in
// boxes, coloured by its state at the frame (or its values' shares over
// the frame).

import { $, surface, css } from "./util.js";
import { shortNames } from "./anim-fit.js";

// Hosts as boxes of squares, laid out left to right, the largest squares
// that fit.
function layout(stage, W, H) {
  const hosts = stage.hosts.filter((h) => h.processes.length).map((h) => ({ name: h.name, ps: h.processes }));
  const loose = stage.processes.map((p, i) => i).filter((i) => stage.processes[i].host == null);
  if (loose.length) hosts.push({ name: hosts.length ? "(no host)" : "", ps: loose });
  const LABEL = hosts.some((h) => h.name) ? 14 : 0;
  for (let s = 88; s >= 3; s = Math.floor(s * 0.9)) {
    const boxes = [];
    let x = 4, y = 4, lineH = 0, fits = true;
    for (const h of hosts) {
      const cols = Math.max(1, Math.ceil(Math.sqrt(h.ps.length)));
      const rows = Math.ceil(h.ps.length / cols);
      const bw = cols * s + 8, bh = rows * s + LABEL + 6;
      if (x + bw > W && x > 4) { x = 4; y += lineH + 4; lineH = 0; }
      if (y + bh > H || bw > W) { fits = false; break; }
      boxes.push({ h, x, y, cols, s, bw, bh, LABEL });
      x += bw + 4;
      lineH = Math.max(lineH, bh);
    }
    if (fits) return boxes;
  }
  return null;
}

// Draws frame `f` of the processes: one square per process in the colour
// of its state, the shares of its values over the frame in a band; gives
// the squares drawn, {p, x, y, s}.
export function drawProcesses(pl, f) {
  const { ctx, W, H } = surface($("p-procs"));
  const drawn = [];
  const boxes = layout(pl.stage, W, H);
  if (!boxes) {
    ctx.fillStyle = "#666";
    ctx.fillText(`${pl.stage.processes.length} processes do not fit here`, 8, 16);
    return drawn;
  }
  // Names too long for their box or square: what tells them apart.
  const hostShort = shortNames(boxes.map((bx) => bx.h.name)).short;
  const procShort = shortNames(pl.stage.processes.map((p) => p.name)).short;
  const fit = (full, short, room) => (ctx.measureText(full).width <= room ? full : short);
  boxes.forEach((bx, b) => {
    ctx.strokeStyle = "#bbb";
    ctx.strokeRect(bx.x + 0.5, bx.y + 0.5, bx.bw - 1, bx.bh - 1);
    if (bx.LABEL) {
      ctx.fillStyle = "#444";
      ctx.save();
      ctx.beginPath(); ctx.rect(bx.x, bx.y, bx.bw, bx.LABEL + 2); ctx.clip();
      ctx.fillText(fit(bx.h.name, hostShort[b], bx.bw - 6), bx.x + 3, bx.y + 11);
      ctx.restore();
    }
    bx.h.ps.forEach((p, k) => {
      const x = bx.x + 4 + (k % bx.cols) * bx.s;
      const y = bx.y + bx.LABEL + 3 + Math.floor(k / bx.cols) * bx.s;
      const st = f.states[p];
      const inner = bx.s > 4 ? bx.s - 1 : bx.s;
      ctx.fillStyle = st && st.value != null ? css(pl.colorOf(st.value)) : "#f4f4f4";
      ctx.fillRect(x, y, inner, inner);
      // The shares of the values over the frame: a band at the bottom.
      if (st && st.shares.length > 1 && bx.s >= 10) {
        const bh = Math.max(2, Math.floor(inner / 5));
        let xx = x;
        for (const [v, share] of st.shares) {
          const w = share * inner;
          ctx.fillStyle = css(pl.colorOf(v));
          ctx.fillRect(xx, y + inner - bh, Math.max(w, 1), bh);
          xx += w;
        }
        ctx.fillStyle = "#0006";
        ctx.fillRect(x, y + inner - bh - 1, inner, 1);
      }
      // The name inside a large square, in black or white for contrast.
      if (inner >= 40) {
        const [r, g, b] = st && st.value != null ? pl.colorOf(st.value) : [244, 244, 244];
        ctx.fillStyle = r * 0.3 + g * 0.59 + b * 0.11 > 140 ? "#000" : "#fff";
        ctx.save();
        ctx.beginPath(); ctx.rect(x, y, inner, inner); ctx.clip();
        ctx.fillText(fit(pl.stage.processes[p].name, procShort[p], inner - 6), x + 3, y + 13);
        ctx.restore();
      }
      drawn.push({ p, x, y, s: inner });
    });
  });
  return drawn;
}
