// The growing Kiviat diagram: each host's share of the network messages
// so far, on the spokes of a polygon.

import { $, surface } from "./util.js";

// Draws frame `f`'s Kiviat diagram: each host's share of the network
// messages so far; a stream's rim grows with the largest share seen (gives
// the rim, a share, or the stage's scale).
export function drawKiviat(pl, f) {
  const { ctx, W, H } = surface($("p-kiviat"));
  ctx.fillStyle = "#333";
  const hosts = pl.stage.hosts;
  if (!pl.stage.kiviat || hosts.length < 3) {
    ctx.fillText(hosts.length < 3 ? "Kiviat: fewer than 3 hosts" : pl.feed ? "Kiviat: needs the whole run (not in a stream)" : "Kiviat: not available when the trace is read by blocks", 4, 12);
    return pl.rim;
  }
  ctx.fillText(`share of network messages so far (${f.sent}${pl.feed ? " received" : ""})`, 4, 12);
  const cx = W / 2, cy = H / 2 + 6, R = Math.max(10, Math.min(W - 120, H - 50) / 2);
  let scale = pl.stage.kiviat_scale;
  let rim = pl.rim;
  if (!scale) {
    // A stream: the rim grows with the largest share seen, by tenths.
    const top = Math.max(0, ...(f.kiviat || []));
    rim = Math.max(pl.rim || 0.1, Math.min(1, Math.ceil(top * 10) / 10));
    scale = rim;
  }
  const n = hosts.length;
  const at = (i, r) => [cx + Math.sin((2 * Math.PI * i) / n) * r, cy - Math.cos((2 * Math.PI * i) / n) * r];
  ctx.strokeStyle = "#ccc";
  for (const ring of [0.25, 0.5, 0.75, 1]) {
    ctx.beginPath();
    for (let i = 0; i <= n; i++) { const [x, y] = at(i % n, R * ring); i ? ctx.lineTo(x, y) : ctx.moveTo(x, y); }
    ctx.stroke();
  }
  for (let i = 0; i < n; i++) {
    const [x, y] = at(i, R);
    ctx.beginPath(); ctx.moveTo(cx, cy); ctx.lineTo(x, y); ctx.stroke();
  }
  ctx.beginPath();
  for (let i = 0; i <= n; i++) {
    const r = Math.min(1, (f.kiviat[i % n] || 0) / scale) * R;
    const [x, y] = at(i % n, r);
    i ? ctx.lineTo(x, y) : ctx.moveTo(x, y);
  }
  ctx.fillStyle = "#d0302f44";
  ctx.fill();
  ctx.strokeStyle = "#d0302f";
  ctx.stroke();
  if (n <= 24) {
    ctx.fillStyle = "#444";
    for (let i = 0; i < n; i++) {
      const [x, y] = at(i, R + 9);
      const t = hosts[i].name;
      ctx.fillText(t, x - ctx.measureText(t).width / 2, y + 4);
    }
  }
  ctx.fillStyle = "#666";
  ctx.fillText(`rim: ${(100 * scale).toFixed(0)} %`, 4, H - 4);
  return rim;
}
