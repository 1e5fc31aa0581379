// The page of `trama view`: a timeline drawn from window summaries, the
// server's (docs/view-api.md) or those an offline report embeds
// (offline.js). This module wires the parts together: the view's state
// (store.js), the window cache (cache.js), the drawing (timeline.js), the
// controls (controls.js), the legend, search, statistics panel and
// details, the player (player.js), and the navigation: the overview
// strip (overview.js), the time origin (origin.js), the picked message
// (arrows.js), the rows' arrangement (arrange.js) and the help (help.js).

import { $, rgb, si, sleep } from "./util.js";
import { ServerSource, StreamFeed } from "./source.js";
import { EmbeddedSource } from "./offline.js";
import { createState } from "./store.js";
import { AXIS_H, ROW_H, LABEL_W, computeVisible, rowAt, rowsFitting, rowTops, subRowsOf } from "./rows.js";
import { draw, shownRows, linkAt, linkEntity } from "./timeline.js";
import { WindowCache } from "./cache.js";
import { legend } from "./legend.js";
import { describe } from "./details.js";
import { Search } from "./search.js";
import { StatsPanel } from "./stats.js";
import { listen } from "./controls.js";
import { Player } from "./player.js";
import { WhyPanel } from "./why.js";
import { SelectionPanel } from "./selection.js";
import { Overview, runOf } from "./overview.js";
import { listenOrigin, originOfHash } from "./origin.js";
import { follow, drawPicked, linkHash, linkOfHash } from "./arrows.js";
import { listenHelp } from "./help.js";
import { listenRows, metricChoices, offerMetrics, arrangeHash } from "./arrange.js";

// Where the data comes from: the summary embedded in the page (an
// offline report), else the server.
const source = EmbeddedSource.fromPage() || new ServerSource();

// The controller: the view's state and the actions on it, handed to the
// modules that need them.
const page = createPage(source);

function createPage(source) {
  const state = createState();
  const page = {
    state,
    source,
    // The animated views (player.js); none in an offline report without
    // frames.
    player: null,
    draw: () => { draw(state); page.orderLegend(); page.overview?.draw(); },
    // Puts the legend's entries in the window's order (legend.js).
    orderLegend: () => {},
    request: () => page.cache.request(),
    // Draws, and asks for the view's summary.
    refresh() { page.draw(); page.request(); },
    shown: () => shownRows(state),
    timeAt: (x) => state.t0 + (x / $("timeline").width) * (state.t1 - state.t0),
    rowAt: (y) => rowAt(state, $("timeline").height, y),
    showError(e) {
      document.body.dataset.state = "error";
      $("error").textContent = String(e.message || e);
    },
    setWindow(t0, t1) {
      const min = 1e-9;
      if (t1 - t0 < min) { const c = (t0 + t1) / 2; t0 = c - min / 2; t1 = c + min / 2; }
      state.t0 = t0; state.t1 = t1;
      page.updateHash();
      page.refresh();
      page.stats.schedule();
      page.why.schedule();
    },
    // The URL's fragment: the window, the pinned entity, the origin, the
    // picked message, the rows' arrangement, the selection and the open
    // panels, so that a view can be shared as a link or reopened.
    updateHash() {
      const parts = [`t0=${state.t0}`, `t1=${state.t1}`];
      if (state.pinnedAt) parts.push(`pin=${state.pinnedAt.row}:${state.pinnedAt.t}`);
      if (state.origin != null) parts.push(`origin=${state.origin}`);
      parts.push(...linkHash(state.link), ...arrangeHash(state.arrange), ...(page.selection?.toHash() ?? []));
      if (!$("stats").hidden) parts.push("stats");
      if (!$("why").hidden) parts.push("why");
      // A page in a frame of an offline comparison (srcdoc) has no URL of
      // its own to change.
      if (location.protocol !== "about:") history.replaceState(null, "", "#" + parts.join("&"));
      // A page that frames this one (two runs compared) follows the view.
      window.trama.changed?.();
    },
    zoom(factor, at) {
      const t = at ?? (state.t0 + state.t1) / 2;
      page.setWindow(t - (t - state.t0) * factor, t + (state.t1 - t) * factor);
    },
    pan(fraction) {
      const d = (state.t1 - state.t0) * fraction;
      page.setWindow(state.t0 + d, state.t1 + d);
    },
    fit() {
      const m = state.meta;
      const pad = (m.end - m.start) * 0.01 || 0.5;
      page.setWindow(m.start - pad, m.end + pad);
    },
    resize() {
      const main = $("main");
      const side = ($("stats").hidden ? 0 : $("stats").offsetWidth) + ($("why").hidden ? 0 : $("why").offsetWidth);
      const w = Math.max(200, main.clientWidth - LABEL_W - side);
      const h = Math.max(100, main.clientHeight);
      for (const [id, width] of [["timeline", w], ["labels", LABEL_W]]) {
        const cv = $(id);
        cv.width = width; cv.height = h;
      }
    },
    async entityAt(x, y) {
      const link = linkAt(state, x, y);
      if (link) return link;
      const row = page.rowAt(y);
      if (row == null) return null;
      const t = page.timeAt(x);
      const px = (state.t1 - state.t0) / $("timeline").width * 3;
      return source.entity(row, t, px);
    },
    async pin(ev) {
      const e = await page.entityAt(ev.offsetX, ev.offsetY);
      const row = page.rowAt(ev.offsetY);
      // An arrow: picked, and the view jumps to its other end.
      if (e && e.kind === "link") follow(page, e, page.timeAt(ev.offsetX), row, rowsFitting($("timeline").height));
      page.show(e, e && e.kind !== "link" && row != null ? { row, t: page.timeAt(ev.offsetX) } : null);
    },
    // Shows `e` in the details panel; `at` (row and time) goes in the URL.
    show(e, at) {
      const html = describe(e, state.origin);
      if (!html) return;
      state.pinned = e;
      state.pinnedAt = at;
      $("details-body").innerHTML = html;
      $("details").hidden = false;
      page.updateHash();
    },
    unpin() {
      state.pinned = null;
      state.pinnedAt = null;
      $("details").hidden = true;
      page.updateHash();
    },
    toggleStats() {
      $("stats").hidden = !$("stats").hidden;
      page.updateHash();
      page.resize();
      page.refresh();
      page.stats.schedule();
    },
    async toggleWhy() {
      await page.why.toggle().catch(page.showError);
      page.updateHash();
      page.resize();
      page.refresh();
    },
    // The rows shown after a change of their arrangement (arrange.js).
    arranged() {
      computeVisible(state);
      state.scroll = Math.max(0, Math.min(state.scroll, state.visible.length - page.shown().length));
      page.refresh();
    },
    async togglePlayer() {
      const player = page.player;
      if (!player) return;
      // The timeline gives the player its room, then fills what is left.
      if (player.isOpen()) player.close();
      else await player.open().catch(page.showError);
      page.resize();
      page.refresh();
    },
  };
  page.cache = new WindowCache(source, state, {
    width: () => $("timeline").width,
    shown: page.shown,
    draw: page.draw,
    served() {
      document.body.dataset.state = "ready";
      document.body.dataset.window = `${state.t0},${state.t1}`;
    },
    error: page.showError,
  });
  page.search = new Search(source, state, { shown: page.shown, setWindow: page.setWindow, refresh: page.refresh });
  page.stats = new StatsPanel(source, state, {
    // The player's frame when it is open and lasts some time.
    frame: () => {
      const p = page.player;
      return p && p.isOpen() && p.shown && p.shown.dt > 0 ? p.shown : null;
    },
    error: page.showError,
    more: (el) => page.why.profile(el),
  });
  page.why = new WhyPanel(source, state, {
    setWindow: page.setWindow, draw: page.draw, error: page.showError,
    width: () => $("timeline").width,
  });
  page.selection = new SelectionPanel(source, state, {
    draw: page.draw, timeAt: page.timeAt, error: page.showError,
    layout: () => { page.resize(); page.refresh(); },
    changed: () => page.updateHash(),
  });
  state.overlay = (ctx, rows, W) => {
    page.why.draw(ctx, rows, W);
    page.selection.draw(ctx, rows, W);
    drawPicked(state, ctx, rows, W);
  };
  page.overview = new Overview(source, state, { setWindow: page.setWindow });
  return page;
}

// Waits until the server has read the trace, showing how far it is.
async function loaded() {
  for (;;) {
    const p = await source.progress();
    if (p.state === "ready" || p.state === "stream") return p.state;
    if (p.state === "failed") throw new Error(p.error);
    let text = "reading the trace…";
    if (p.total) text = `reading the trace: ${(100 * p.done / p.total).toFixed(0)} % of its ${p.unit}`;
    else if (p.done) text = `reading the trace: ${p.done} ${p.unit}`;
    $("span").textContent = text;
    await sleep(250);
  }
}

// A stream: only the player, fed forward.
async function streamMain() {
  document.body.classList.add("streaming");
  $("span").textContent = "played as it is read (--stream)";
  const feed = new StreamFeed();
  const player = new Player(null, { values: [] }, null, { window: () => [0, 1], cursor: () => {} });
  page.player = player;
  await player.openStream(feed);
  window.addEventListener("keydown", (ev) => {
    if (ev.target.tagName === "INPUT") return;
    if (ev.key === " ") player.playing ? player.pause() : player.play();
    else if (ev.key === "n") player.toggleView();
    else if (ev.key === ".") player.stepBy(1);
    else if (ev.key === "End") player.last();
    else return;
    ev.preventDefault();
  });
  document.body.dataset.state = "ready";
}

async function main() {
  if ((await loaded()) === "stream") return streamMain();
  const state = page.state;
  const meta = await source.meta();
  state.meta = meta;
  state.colors = meta.values.map((v) => rgb(v.color));
  $("name").textContent = meta.name;
  // The counts short (what is none left out), exact on hover.
  const counts = [[meta.counts.states, "states"], [meta.counts.links, "links"], [meta.counts.events, "events"], [meta.containers.length, "containers"]];
  $("span").textContent = counts.filter(([n]) => n).map(([n, what]) => `${si(n)} ${what}`).join(", ");
  $("span").title = [counts.map(([n, what]) => `${n} ${what}`).join(", "), ...meta.notes].join("\n");
  if (meta.notes.length) $("span").textContent += " · notes (hover here)";
  if (source.offline) {
    $("span").textContent += " · offline: drawn from the report's summary";
    $("span").title = [...meta.notes, "This report holds a summary of the trace at several levels of detail; zooming further than its finest level shows that level's columns. `trama view` reads every entity."].join("\n");
  }
  page.orderLegend = legend(state, page.draw, () => { page.resize(); page.refresh(); });
  if (meta.host_order.length) {
    $("order").hidden = false;
    $("order").options[1].textContent = `rows: ${meta.host_level} by traffic`;
  }
  if (source.frame) {
    page.player = new Player(source, meta, (v) => state.colors[v] || [128, 128, 128], {
      window: () => [state.t0, state.t1],
      cursor: (t, dt) => {
        state.cursor = t == null ? null : { t, dt };
        page.draw(); page.stats.schedule();
        window.trama.cursorMoved?.(t, dt);
      },
    });
  } else {
    $("player-button").hidden = true;
  }
  const player = page.player;
  const h = new URLSearchParams(location.hash.slice(1));
  listenRows(page, h);
  computeVisible(state);
  await depths(state);
  page.resize();
  listen(page);
  state.origin = originOfHash(h);
  listenOrigin(page, AXIS_H);
  listenHelp();
  page.overview.load()
    .then((data) => {
      offerMetrics(page, data, metricChoices(meta, data));
      // The header may have wrapped anew: the timeline takes what is left.
      page.resize(); page.refresh();
    })
    .catch(page.showError);
  // #link=FROM,TO,START,END,VALUE: the picked message (arrows.js).
  const link = linkOfHash(h, meta);
  if (link) state.link = linkEntity(meta, link);
  const t0 = parseFloat(h.get("t0")), t1 = parseFloat(h.get("t1"));
  if (isFinite(t0) && isFinite(t1) && t1 > t0) page.setWindow(t0, t1); else page.fit();
  // #stats opens the statistics panel.
  if (h.has("stats")) page.toggleStats();
  // #select=T0,T1,A,B selects times T0..T1 of the shown rows A to B
  // (#select alone: the whole run).
  if (h.has("select")) page.selection.fromHash(h.get("select"));
  // #why opens the why panel.
  if (h.has("why")) await page.toggleWhy();
  // #player=T opens the player at T (#player alone: at the window's start).
  if (player && h.has("player")) {
    await player.open();
    page.resize(); page.refresh();
    const pt = parseFloat(h.get("player"));
    if (h.has("view")) player.setView(h.get("view"));
    if (isFinite(pt)) await player.seek(pt);
  }
  const pinned = (h.get("pin") || "").split(":").map(Number);
  if (pinned.length === 2 && pinned.every(isFinite) && pinned[0] >= 0 && pinned[0] < meta.rows.length) {
    const [row, t] = pinned;
    const e = await source.entity(row, t);
    page.show(e, { row, t });
  } else if (state.link) {
    page.show(state.link, null);
  }
}

// The sub-rows of each row over the run (state.depths, state.firstSub:
// its state types' nesting levels), and the choice of drawing them as
// sub-rows, the default for call-stack traces (OTF2, Paraver), or inside
// one another.
async function depths(state) {
  const m = state.meta;
  const whole = await source.timeline(...runOf(m), 2048, `0-${m.rows.length - 1}`);
  ({ depths: state.depths, firstSub: state.firstSub } = subRowsOf(whole));
  const el = $("depth");
  if (![...state.depths.values()].some((n) => n > 1)) return;
  state.subrows = /\.(otf2|prv)$/i.test(m.name);
  el.value = state.subrows ? "rows" : "nested";
  el.hidden = false;
  el.addEventListener("change", () => { state.subrows = el.value === "rows"; page.refresh(); });
}

// Where things are on screen, for scripts that drive the page: the
// client coordinates of time `t` and of the row labelled `label`.
// The top of the row labelled `label` on the canvas, or null.
function rowTop(label) {
  const rows = page.shown();
  const ri = rows.find((i) => page.state.meta.rows[i].label === label);
  return ri == null ? null : rowTops(page.state, rows).get(ri);
}

window.trama = {
  x(t) {
    const state = page.state;
    const r = $("timeline").getBoundingClientRect();
    return r.left + ((t - state.t0) / (state.t1 - state.t0)) * r.width;
  },
  y(label) {
    const top = rowTop(label);
    return top == null ? null : $("timeline").getBoundingClientRect().top + top + ROW_H / 2;
  },
  labelY(label) {
    const top = rowTop(label);
    return top == null ? null : $("labels").getBoundingClientRect().top + top + ROW_H / 2;
  },
  window: () => [page.state.t0, page.state.t1],
  meta: () => page.state.meta,
  // For a page that frames this one (two runs compared, compare.js): the
  // window set, the summary of a window over every row, where the
  // timeline is; it sets `changed()` (called when the window, the pin or
  // the time origin change) and `cursorMoved(t, dt)` (the player's
  // cursor).
  setWindow: (t0, t1) => page.setWindow(t0, t1),
  summary: (t0, t1, width) => source.timeline(t0, t1, width, `0-${page.state.meta.rows.length - 1}`),
  timelineRect: () => $("timeline").getBoundingClientRect(),
  ready: () => document.body.dataset.state === "ready",
  // The labels of the rows that can be shown (scrolled to or not).
  shownLabels: () => page.state.visible.map((i) => page.state.meta.rows[i].label),
  // The message arrow picked, the time origin.
  picked: () => page.state.link,
  origin: () => page.state.origin,
  // What the page holds: timeline requests made so far, replies held,
  // tiles of an offline summary decoded and kept, whether it is one, and
  // the level of detail of the reply drawn (offline).
  requests: () => source.requests,
  held: () => page.cache.held.length,
  tiles: () => source.tilesKept ?? 0,
  tileBytes: () => source.tileBytesKept ?? 0,
  offline: source.offline,
  level: () => page.state.data?.level ?? null,
  levels: () => source.levels?.length ?? null,
  // The player: the frame on screen, its controls, where its squares and
  // cells are.
  frame: () => page.player?.describe() ?? null,
  player: () => page.player,
  openPlayer: async () => { if (page.player && !page.player.isOpen()) await page.togglePlayer(); },
  squareAt: (name) => page.player?.squareAt(name) ?? null,
  cellAt: (from, to) => page.player?.cellAt(from, to) ?? null,
  // The statistics panel's wait matrix: what it shows, where a row is.
  waits: () => page.stats.waitView?.describe() ?? null,
  waitRow: (name) => page.stats.waitView?.rowAt(name) ?? null,
  // The why panel and overlay: what they show, where a pattern's row or a
  // listed instance is.
  why: () => page.why.describe(),
  whyRow: (name, i) => page.why.rowAt(name, i),
  // The selection: select times t0..t1 of the rows labelled `from` to
  // `to` (as a drag does), and what its panel shows.
  select(t0, t1, from, to) {
    const k = (label) => page.state.visible.findIndex((i) => page.state.meta.rows[i].label === label);
    page.selection.setArea(t0, t1, k(from), k(to), true);
  },
  selection: () => page.selection.describe(),
};

window.addEventListener("error", (e) => { document.body.dataset.jserror = String(e.message); });
window.addEventListener("unhandledrejection", (e) => { document.body.dataset.jserror = String(e.reason); });

document.addEventListener("securitypolicyviolation", (e) => {
  document.body.dataset.csp = `${e.violatedDirective} ${e.blockedURI}`;
});

main().catch(page.showError);
