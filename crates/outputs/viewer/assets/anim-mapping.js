// The mapping view: hosts around a circle, each a cluster of its
// processes coloured by what they do in the frame. The ring fits the
// canvas (circles and names inside it); hosts' names where they fit.

import { $, surface } from "./util.js";
import { activity, activityLegend, ACTIVITY } from "./anim-activity.js";
import { ring, sunflower, placeLabels, nameLabels, shortNames } from "./anim-fit.js";

// The mapping's layout on a canvas W × H: the groups of processes (one per
// host, else one of all), their circles {x, y, r}, and where each process's
// dot is {x, y, d}.
export function mappingLayout(stage, W, H) {
  const hosts = stage.hosts.filter((h) => h.processes.length);
  const groups = hosts.length ? hosts.map((h) => h.processes) : [stage.processes.map((_, i) => i)];
  const named = hosts.length > 0;
  // Room for the names: above one circle; outwards around a ring (short
  // ones beyond 16 hosts).
  const ctx = measurer();
  const label = groups.length > 16 ? shortNames(hosts.map((h) => h.name)).short : hosts.map((h) => h.name);
  const wide = named && groups.length > 1 ? Math.min(W / 6, Math.max(...label.map((t) => ctx.measureText(t).width)) + 4) : 2;
  const g = ring(groups.length, W, H, { top: 16, bottom: 14, label: named ? 14 : 0, pad: wide });
  const circles = groups.map((_, k) => { const [x, y] = g.at(k); return { x, y, r: g.r }; });
  const dots = [];
  groups.forEach((ps, k) => {
    const c = circles[k];
    ps.forEach((p, j) => {
      const [dx, dy, d] = sunflower(j, ps.length, c.r * 0.92);
      dots[p] = { x: c.x + dx, y: c.y + dy, d };
    });
  });
  return { hosts: named ? hosts : [], groups, circles, dots, cx: g.cx, cy: g.cy };
}

// A context to measure the names with, in the views' font.
let pen = null;
function measurer() {
  pen = pen || document.createElement("canvas").getContext("2d");
  pen.font = "11px DejaVu Sans, Arial, sans-serif";
  return pen;
}

// Draws frame `f` of the mapping; leaves its layout on the player
// (`pl.mapping`: the canvas's size, the circles, the hosts named).
export function drawMapping(pl, f) {
  const { ctx, W, H } = surface($("p-mapping"));
  const act = activity(pl.stage, f);
  const lay = mappingLayout(pl.stage, W, H);
  ctx.strokeStyle = "#bbb";
  for (const c of lay.circles) { ctx.beginPath(); ctx.arc(c.x, c.y, c.r, 0, 2 * Math.PI); ctx.stroke(); }
  lay.dots.forEach((d, p) => {
    if (!d) return;
    ctx.fillStyle = ACTIVITY[act[p]];
    ctx.beginPath(); ctx.arc(d.x, d.y, d.d, 0, 2 * Math.PI); ctx.fill();
  });
  // Hosts' names above their circles where they fit, else beside; short
  // (what all share said in the title) when whole ones do not all fit.
  const named = [];
  let title = "mapping: processes by host";
  if (lay.hosts.length) {
    const out = (c) => { const dx = c.x - lay.cx, dy = c.y - lay.cy, d = Math.hypot(dx, dy); return d > 0 ? [dx / d, dy / d] : null; };
    const place = (widths) => placeLabels(lay.circles.map((c, k) => ({ x: c.x, y: c.y, r: c.r, w: widths[k], h: 11, out: out(c) })), W, H - 14, 14, "above");
    const got = nameLabels(lay.hosts.map((h) => h.name), (t) => ctx.measureText(t).width, place);
    ctx.fillStyle = "#555";
    got.at.forEach((s, k) => {
      if (!s) return;
      ctx.fillText(got.text[k], s[0], s[1] + 9);
      named.push(lay.hosts[k].name);
    });
    if (got.shared) title += ` (${got.shared})`;
  }
  ctx.fillStyle = "#333";
  ctx.fillText(title, 4, 12);
  activityLegend(ctx, H);
  pl.mapping = { W, H, circles: lay.circles, named };
}

// The process whose dot is at (x, y) in the mapping on canvas W × H (or
// the nearest within a few pixels); else -1.
export function mappingHit(stage, W, H, x, y) {
  const { dots } = mappingLayout(stage, W, H);
  let best = -1, e = Infinity;
  dots.forEach((d, p) => {
    if (!d) return;
    const k = Math.hypot(d.x - x, d.y - y);
    if (k <= Math.max(d.d, 3) && k < e) { e = k; best = p; }
  });
  return best;
}
