// The mapping view: hosts around a circle, each a cluster of its
// processes coloured by what they do in the frame.

import { $, surface } from "./util.js";
import { activity, activityLegend, ACTIVITY } from "./anim-activity.js";

// Draws frame `f` of the mapping.
export function drawMapping(pl, f) {
  const { ctx, W, H } = surface($("p-mapping"));
  ctx.fillStyle = "#333";
  ctx.fillText("mapping: processes by host", 4, 12);
  const act = activity(pl.stage, f);
  const hosts = pl.stage.hosts.filter((h) => h.processes.length);
  const groups = hosts.length ? hosts.map((h) => h.processes) : [pl.stage.processes.map((_, i) => i)];
  const cx = W / 2, cy = (H - 14) / 2 + 8, R = Math.max(8, Math.min(W, H - 34) / 2 - 14);
  const r = Math.max(4, Math.min(R * 0.45, (Math.PI * R) / Math.max(1, groups.length)));
  groups.forEach((ps, g) => {
    const a = (2 * Math.PI * g) / groups.length - Math.PI / 2;
    const hx = cx + (groups.length > 1 ? Math.cos(a) * R : 0), hy = cy + (groups.length > 1 ? Math.sin(a) * R : 0);
    ctx.strokeStyle = "#bbb";
    ctx.beginPath(); ctx.arc(hx, hy, r, 0, 2 * Math.PI); ctx.stroke();
    if (hosts.length && groups.length <= 24) {
      ctx.fillStyle = "#555";
      const name = hosts[g].name;
      ctx.fillText(name, hx - ctx.measureText(name).width / 2, hy - r - 2);
    }
    const dot = Math.max(1.5, Math.min(6, r / Math.sqrt(ps.length + 1)));
    ps.forEach((p, k) => {
      const b = (2 * Math.PI * k) / ps.length;
      const rr = ps.length > 1 ? r * 0.6 : 0;
      ctx.fillStyle = ACTIVITY[act[p]];
      ctx.beginPath(); ctx.arc(hx + Math.cos(b) * rr, hy + Math.sin(b) * rr, dot, 0, 2 * Math.PI); ctx.fill();
    });
  });
  activityLegend(ctx, H);
}
