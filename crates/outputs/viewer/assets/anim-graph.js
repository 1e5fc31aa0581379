// The graph view: the processes placed by the force-directed layout of the
// run's messages; an edge appears when its first message starts, and is
// drawn red while one is in flight.

import { $, surface } from "./util.js";
import { activity, activityLegend, ACTIVITY } from "./anim-activity.js";

// Draws frame `f` of the graph; gives how many pairs have talked so far.
export function drawGraph(pl, f) {
  const { ctx, W, H } = surface($("p-graph"));
  ctx.fillStyle = "#333";
  const lay = pl.stage.layout;
  if (!lay || !lay.some((p) => p)) {
    ctx.fillText("graph: no layout (no messages, or the trace is read by blocks)", 4, 12);
    return null;
  }
  const t1 = f.t + f.dt;
  const known = (pl.stage.contacts || []).filter((c) => c[2] <= t1);
  ctx.fillText(`graph: ${known.length} of ${(pl.stage.contacts || []).length} pairs have talked`, 4, 12);
  const pad = 12;
  const X = (p) => pad + lay[p][0] * (W - 2 * pad), Y = (p) => 18 + lay[p][1] * (H - 36);
  const flying = new Set(f.cells.map((c) => `${Math.min(c.from, c.to)},${Math.max(c.from, c.to)}`));
  for (const [a, b] of known) {
    if (!lay[a] || !lay[b]) continue;
    const hot = flying.has(`${a},${b}`);
    ctx.strokeStyle = hot ? "#d62728" : "#9995";
    ctx.lineWidth = hot ? 2 : 1;
    ctx.beginPath(); ctx.moveTo(X(a), Y(a)); ctx.lineTo(X(b), Y(b)); ctx.stroke();
  }
  ctx.lineWidth = 1;
  const act = activity(pl.stage, f);
  lay.forEach((p, i) => {
    if (!p) return;
    ctx.fillStyle = ACTIVITY[act[i]];
    ctx.beginPath(); ctx.arc(X(i), Y(i), 4, 0, 2 * Math.PI); ctx.fill();
  });
  activityLegend(ctx, H);
  return known.length;
}
