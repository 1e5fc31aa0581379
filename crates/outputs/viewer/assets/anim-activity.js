// What each process does in a frame, as the mapping and graph views colour
// it (seed 001's mapping), and the legend of those colours.

// What each process does in the frame (seed 001's mapping): sending (a
// message it sent is in flight), else receiving, else busy (a state),
// else idle.
export function activity(stage, f) {
  const n = stage.processes.length;
  const act = new Array(n).fill("idle");
  f.states.forEach((st, p) => { if (st && st.value != null) act[p] = "busy"; });
  for (const c of f.cells) if (act[c.to] !== "sending") act[c.to] = "receiving";
  for (const c of f.cells) act[c.from] = "sending";
  return act;
}

export const ACTIVITY = { sending: "#d62728", receiving: "#1f77b4", busy: "#2ca02c", idle: "#cfcfcf" };

// The activities' legend at the bottom of a canvas `H` pixels high.
export function activityLegend(ctx, H) {
  let x = 4;
  for (const [k, c] of Object.entries(ACTIVITY)) {
    ctx.fillStyle = c;
    ctx.fillRect(x, H - 11, 9, 9);
    ctx.fillStyle = "#444";
    ctx.fillText(k, x + 12, H - 3);
    x += 18 + ctx.measureText(k).width;
  }
}
