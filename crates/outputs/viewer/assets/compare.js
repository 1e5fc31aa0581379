// The page of two runs compared (`trama view A B`, or an offline report
// of a diff): each run is the viewer's page in a frame of its own (A
// above, B below: the server's `a/` and `b/`, or the pages an offline
// comparison embeds), coupled through their `window.trama`: one window,
// zooming or panning either moves both, at a time offset per run (their
// starts, an iteration, or the time origin set on each axis). Between
// them the difference lane (lane.js) of the windows shown; the diff
// table (diffpanel.js) on the right; A's player drives B's.

import { $ } from "./util.js";
import { groupsOf, profile, laneOf, drawLane, stripHeight, describeCell, marked } from "./lane.js";
import { diffHtml, topGainer, seconds } from "./diffpanel.js";

// What an offline comparison embeds: {diff: api/diff's reply, pages: [A's
// page, B's page]}; null under the server.
const embedded = (() => {
  const el = document.getElementById("trama-compare");
  return el ? JSON.parse(el.textContent) : null;
})();

const frames = { a: $("frame-a"), b: $("frame-b") };
const view = (run) => frames[run].contentWindow.trama;
const other = { a: "b", b: "a" };

const cmp = {
  reply: null,      // api/diff's reply
  align: "start",   // "start", "origin" or "it:N"
  off: { a: 0, b: 0 },
  syncing: false,
  lane: null,
  value: "",        // the lane's value ("": any)
  laneTimer: null,
  laneX: 0,         // the lane's strips' left, in the page
  laneLeft: 0,      // the width of its groups' names
  ready: false,
};

function showError(e) {
  $("c-error").textContent = String(e.message || e);
}

// The time offset of each run for the alignment chosen.
function offsets() {
  const m = { a: view("a").meta(), b: view("b").meta() };
  const at = (run) => {
    if (cmp.align === "origin") return view(run).origin() ?? m[run].start;
    if (cmp.align.startsWith("it:")) {
      const w = cmp.reply?.windows?.[run]?.[Number(cmp.align.slice(3))];
      if (w) return w[0];
    }
    return m[run].start;
  };
  return { a: at("a"), b: at("b") };
}

// `to`'s window made `from`'s, shifted by their offsets.
function follow(from) {
  const to = other[from];
  const [t0, t1] = view(from).window();
  const d = cmp.off[to] - cmp.off[from];
  const [u0, u1] = view(to).window();
  if (u0 === t0 + d && u1 === t1 + d) return;
  cmp.syncing = true;
  try { view(to).setWindow(t0 + d, t1 + d); } finally { cmp.syncing = false; }
}

function changed(from) {
  if (cmp.syncing) return;
  if (cmp.align === "origin") {
    const o = offsets();
    if (o.a !== cmp.off.a || o.b !== cmp.off.b) cmp.off = o;
  }
  follow(from);
  scheduleLane();
}

function realign() {
  cmp.off = offsets();
  follow("a");
  scheduleLane();
}

function scheduleLane() {
  clearTimeout(cmp.laneTimer);
  cmp.laneTimer = setTimeout(() => computeLane().catch(showError), 120);
}

// The lane of the windows shown, drawn under A's timeline.
async function computeLane() {
  const A = view("a"), B = view("b");
  const fa = frames.a.getBoundingClientRect();
  const r = A.timelineRect();
  const W = Math.max(1, Math.round(r.width));
  const [a0, a1] = A.window(), [b0, b1] = B.window();
  const ma = A.meta(), mb = B.meta();
  const [sa, sb] = await Promise.all([A.summary(a0, a1, W), B.summary(b0, b1, W)]);
  const g = groupsOf(ma, mb);
  const names = (m) => m.values.map((v) => v.name);
  const pa = profile(sa, names(ma), g.a, g.groups.length, { t0: a0, t1: a1, width: W });
  const pb = profile(sb, names(mb), g.b, g.groups.length, { t0: b0, t1: b1, width: W });
  cmp.lane = laneOf(pa, pb, (a1 - a0) / W, g.groups);
  cmp.lane.t0 = a0; cmp.lane.t1 = a1;
  const cv = $("lane");
  cmp.laneX = fa.left + r.left;
  cmp.laneLeft = r.left;
  cv.style.marginLeft = `${fa.left}px`;
  cv.width = r.left + W;
  cv.height = stripHeight(g.groups.length) * g.groups.length;
  drawLane(cv.getContext("2d"), cmp.lane, cmp.value, W, r.left);
  document.body.dataset.lane = `${a0},${a1}`;
}

// The lane's tooltip at the pointer.
function hover(ev) {
  const tip = $("lane-tip");
  const lane = cmp.lane;
  if (!lane) return;
  const h = stripHeight(lane.groups.length);
  const x = Math.floor((ev.offsetX - cmp.laneLeft) / ($("lane").width - cmp.laneLeft) * lane.width);
  const g = Math.floor(ev.offsetY / h);
  const text = describeCell(lane, g, x, (s) => seconds(s));
  if (!text) { tip.hidden = true; return; }
  tip.textContent = text;
  tip.hidden = false;
  tip.style.left = `${cmp.laneX - cmp.laneLeft + ev.offsetX + 12}px`;
  tip.style.top = `${ev.offsetY + 8}px`;
}

// The diff's reply shown: the table, the lane's values, the iterations
// to align at.
function showDiff(reply) {
  cmp.reply = reply;
  const d = reply.diff;
  const sel = $("lane-value");
  const keep = sel.value;
  sel.length = 1;
  for (const r of d.rows) {
    if ([...sel.options].some((o) => o.value === r.value)) continue;
    sel.add(new Option(`${r.value} (${seconds(r.delta_seconds, true)})`, r.value));
  }
  cmp.value = keep && [...sel.options].some((o) => o.value === keep) ? keep : topGainer(d);
  sel.value = cmp.value;
  const align = $("align");
  for (const o of [...align.options]) if (o.value.startsWith("it:")) o.remove();
  const n = Math.min(reply.windows.a.length, reply.windows.b.length);
  for (let i = 0; i < n; i++) align.add(new Option(`iteration ${i + 1} of ${reply.iteration}`, `it:${i}`));
  if (!embedded) $("iteration").value = reply.iteration ?? "";
  renderTable();
}

function renderTable() {
  $("diff").innerHTML = diffHtml(cmp.reply, cmp.value);
}

async function loadDiff(iteration) {
  if (embedded) return showDiff(embedded.diff);
  const q = iteration == null ? "" : `?iteration=${encodeURIComponent(iteration)}`;
  const r = await fetch(`api/diff${q}`);
  if (!r.ok) throw new Error(`diff: ${r.status} ${await r.text()}`);
  showDiff(await r.json());
}

// Waits until the page in `frame` is drawn, or says why it cannot be:
// null, else that reason.
async function framed(run) {
  for (;;) {
    const w = frames[run].contentWindow;
    const t = w?.trama;
    if (t && t.ready && t.ready() && t.meta()) return null;
    if (w?.document.body?.dataset.state === "error") return w.document.getElementById("error").textContent;
    await new Promise((r) => setTimeout(r, 100));
  }
}

function listen() {
  for (const run of ["a", "b"]) view(run).changed = () => changed(run);
  // A's player drives B's: one cursor, at B's offset.
  // B's player opened once while A's first frames come.
  let opening = null;
  view("a").cursorMoved = (t) => {
    if (t == null || cmp.syncing) return;
    const B = view("b");
    if (!opening) opening = Promise.resolve(B.openPlayer?.()).finally(() => { opening = null; });
    opening.then(() => B.player()?.seek(t - cmp.off.a + cmp.off.b)).catch(showError);
  };
  $("align").addEventListener("change", (e) => { cmp.align = e.target.value; realign(); });
  $("lane-value").addEventListener("change", (e) => { cmp.value = e.target.value; renderTable(); scheduleLane(); });
  $("iteration").addEventListener("change", (e) => {
    cmp.align = "start"; $("align").value = "start";
    loadDiff(e.target.value).then(realign).catch(showError);
  });
  $("diff-button").addEventListener("click", () => { $("diff").hidden = !$("diff").hidden; relaid(); });
  $("diff").addEventListener("click", (e) => {
    const tr = e.target.closest("tr[data-value]");
    if (!tr) return;
    cmp.value = tr.dataset.value; $("lane-value").value = cmp.value;
    renderTable(); scheduleLane();
  });
  const lane = $("lane");
  lane.addEventListener("mousemove", hover);
  lane.addEventListener("mouseleave", () => { $("lane-tip").hidden = true; });
  window.addEventListener("resize", scheduleLane);
  // A's timeline laid out anew (its frame resized, a panel of its page
  // opened): the lane follows its width.
  const fw = frames.a.contentWindow;
  new fw.ResizeObserver(() => scheduleLane()).observe(fw.document.getElementById("timeline"));
}

async function main() {
  if (embedded) {
    frames.a.srcdoc = embedded.pages[0];
    frames.b.srcdoc = embedded.pages[1];
    $("iteration").disabled = true;
    $("iteration").value = embedded.diff.iteration ?? "";
  } else {
    frames.a.src = "a/";
    frames.b.src = "b/";
  }
  const failed = await Promise.all([framed("a"), framed("b")]);
  if (failed[0] || failed[1]) {
    // One run cannot be drawn: no coupling, the diff table still.
    showError(`run ${failed[0] ? "A" : "B"} cannot be drawn: ${failed[0] || failed[1]}`);
    $("diff").hidden = false;
    document.body.dataset.state = "error";
    return loadDiff();
  }
  const [na, nb] = [view("a").meta().name, view("b").meta().name];
  $("name-a").textContent = na; $("tag-a").textContent = na;
  $("name-b").textContent = nb; $("tag-b").textContent = nb;
  listen();
  cmp.off = offsets();
  follow("a");
  cmp.ready = true;
  document.body.dataset.state = "ready";
  await loadDiff().catch(showError);
  fromHash();
  scheduleLane();
}

// The URL's fragment: #align=start|origin|it:N (N from 0), #lane=VALUE,
// #t0=T0&t1=T1 (A's window), #diff (the diff table open).
function fromHash() {
  const h = new URLSearchParams(location.hash.slice(1));
  const align = h.get("align");
  if (align && [...$("align").options].some((o) => o.value === align)) {
    cmp.align = align; $("align").value = align; realign();
  }
  if (h.has("lane")) { cmp.value = h.get("lane"); $("lane-value").value = cmp.value; renderTable(); }
  const t0 = parseFloat(h.get("t0")), t1 = parseFloat(h.get("t1"));
  if (isFinite(t0) && isFinite(t1) && t1 > t0) view("a").setWindow(t0, t1);
  if (h.has("diff")) { $("diff").hidden = false; relaid(); }
}

// The runs' frames resized (the diff table shown or hidden): their pages
// lay out anew, then the lane follows.
function relaid() {
  setTimeout(scheduleLane, 250);
}

// For scripts that drive the page: the windows, offsets, the lane.
window.compare = {
  ready: () => cmp.ready,
  windows: () => [view("a").window(), view("b").window()],
  offsets: () => [cmp.off.a, cmp.off.b],
  setWindow: (run, t0, t1) => view(run).setWindow(t0, t1),
  align(mode) { cmp.align = mode; $("align").value = mode; realign(); },
  laneValue: () => cmp.value,
  setLaneValue(v) { cmp.value = v; scheduleLane(); },
  groups: () => cmp.lane?.groups.map((g) => g.name) ?? [],
  // The lane's columns where group `g` (by name) changes in `value`, as
  // times of A's window: [{t0, t1, sign}].
  marked(group, value = cmp.value) {
    const lane = cmp.lane;
    if (!lane) return null;
    const g = lane.groups.findIndex((x) => x.name === group);
    if (g < 0) return null;
    const dt = (lane.t1 - lane.t0) / lane.width;
    return marked(lane, g, value).map((r) => ({ t0: lane.t0 + r.x0 * dt, t1: lane.t0 + r.x1 * dt, sign: r.sign }));
  },
  lane: () => cmp.lane && { t0: cmp.lane.t0, t1: cmp.lane.t1, width: cmp.lane.width },
  laneRect: () => $("lane").getBoundingClientRect(),
  diff: () => cmp.reply,
  frame: (run) => frames[run].contentWindow,
};

window.addEventListener("error", (e) => { document.body.dataset.jserror = String(e.message); });
window.addEventListener("unhandledrejection", (e) => { document.body.dataset.jserror = String(e.reason); });
main().catch(showError);
