// The timeline's controls: the wheel zooms (shift: pans), a drag pans
// (shift: zooms to an interval; alt or ctrl: measures; in selection mode,
// x: selects an area, selection.js), a click pins, a
// click on a label collapses its container, the keyboard (+ - w s a d f 0
// Esc t y x p n, and the player's space , . Home End), the header's buttons,
// the search box and the rows' order.

import { $ } from "./util.js";
import { computeVisible } from "./rows.js";
import { describe } from "./details.js";

// Listens to the page's input; `page` is the controller of app.js.
export function listen(page) {
  const state = page.state;
  const cv = $("timeline");
  cv.addEventListener("wheel", (ev) => {
    ev.preventDefault();
    if (ev.ctrlKey || !ev.shiftKey) {
      page.zoom(ev.deltaY > 0 ? 1.25 : 0.8, page.timeAt(ev.offsetX));
    } else {
      page.pan(ev.deltaY > 0 ? 0.1 : -0.1);
    }
  }, { passive: false });
  cv.addEventListener("mousedown", (ev) => {
    if (page.selection.press(ev)) return;
    state.drag = { x: ev.offsetX, t0: state.t0, t1: state.t1,
      mode: ev.shiftKey ? "select" : ev.altKey || ev.ctrlKey ? "ruler" : "pan", moved: false };
    if (state.drag.mode !== "pan") state.ruler = { a: page.timeAt(ev.offsetX), b: page.timeAt(ev.offsetX) };
  });
  window.addEventListener("mousemove", (ev) => {
    const d = state.drag;
    if (!d) return;
    const x = ev.clientX - cv.getBoundingClientRect().left;
    if (Math.abs(x - d.x) > 2) d.moved = true;
    if (d.mode === "pan") {
      const dt = ((x - d.x) / cv.width) * (d.t1 - d.t0);
      state.t0 = d.t0 - dt; state.t1 = d.t1 - dt;
      page.draw();
    } else {
      state.ruler.b = page.timeAt(x);
      page.draw();
    }
  });
  window.addEventListener("mouseup", (ev) => {
    const d = state.drag;
    state.drag = null;
    if (!d) return;
    if (d.mode === "pan" && d.moved) page.setWindow(state.t0, state.t1);
    if (d.mode === "select" && state.ruler) {
      const [a, b] = [state.ruler.a, state.ruler.b].sort((x, y) => x - y);
      state.ruler = null;
      if (b > a) page.setWindow(a, b); else page.draw();
    }
    if (!d.moved && d.mode === "pan") page.pin(ev);
  });
  let hoverTimer = null;
  cv.addEventListener("mousemove", (ev) => {
    clearTimeout(hoverTimer);
    const { offsetX: x, offsetY: y, clientX, clientY } = ev;
    hoverTimer = setTimeout(async () => {
      try {
        const e = await page.entityAt(x, y);
        const tip = $("tooltip");
        const html = describe(e, state.origin);
        if (!html) { tip.hidden = true; return; }
        tip.innerHTML = html;
        tip.hidden = false;
        tip.style.left = `${clientX + 14}px`;
        tip.style.top = `${clientY + 14}px`;
        tip.dataset.value = e.value;
      } catch (e) { /* a stale hover */ }
    }, 60);
  });
  cv.addEventListener("mouseleave", () => { $("tooltip").hidden = true; });
  $("labels").addEventListener("click", (ev) => {
    const row = page.rowAt(ev.offsetY);
    if (row == null) return;
    const r = state.meta.rows[row];
    if (r.variable != null) return;
    if (state.collapsed.has(r.container)) state.collapsed.delete(r.container);
    else state.collapsed.add(r.container);
    computeVisible(state);
    page.refresh();
  });
  $("labels").addEventListener("wheel", (ev) => {
    ev.preventDefault();
    const n = page.shown().length;
    state.scroll = Math.max(0, Math.min(state.visible.length - n, state.scroll + (ev.deltaY > 0 ? 3 : -3)));
    page.refresh();
  }, { passive: false });
  window.addEventListener("keydown", (ev) => {
    if (ev.target.tagName === "INPUT") return;
    const k = ev.key;
    const player = page.player;
    if (k === "+" || k === "=" || k === "w") page.zoom(0.8);
    else if (k === "-" || k === "s") page.zoom(1.25);
    else if (k === "ArrowLeft" || k === "a") page.pan(-0.1);
    else if (k === "ArrowRight" || k === "d") page.pan(0.1);
    else if (k === "f" || k === "0") page.fit();
    else if (k === "Escape") { state.ruler = null; state.link = null; page.unpin(); page.draw(); }
    else if (k === "t") page.toggleStats();
    else if (k === "y") page.toggleWhy();
    else if (k === "x") page.selection.toggleMode();
    else if (k === "p" && player) page.togglePlayer();
    else if (k === "n" && player && player.isOpen()) player.toggleView();
    else if (player && player.isOpen() && (k === " " || k === "," || k === "." || k === "Home" || k === "End")) {
      if (k === " ") player.playing ? player.pause() : player.play();
      else if (k === ",") player.stepBy(-1);
      else if (k === ".") player.stepBy(1);
      else if (k === "Home") player.first();
      else player.last();
    }
    else return;
    ev.preventDefault();
  });
  $("fit").addEventListener("click", () => page.fit());
  $("stats-button").addEventListener("click", () => page.toggleStats());
  $("why-button").addEventListener("click", () => page.toggleWhy());
  $("select-button").addEventListener("click", () => page.selection.toggleMode());
  $("player-button").addEventListener("click", () => page.togglePlayer());
  $("order").addEventListener("change", () => {
    state.order = $("order").value;
    state.scroll = 0;
    computeVisible(state);
    page.refresh();
  });
  $("search").addEventListener("keydown", (ev) => {
    if (ev.key === "Enter") page.search.find($("search").value.trim()).catch(page.showError);
  });
  $("zoomin").addEventListener("click", () => page.zoom(0.5));
  $("zoomout").addEventListener("click", () => page.zoom(2));
  $("unpin").addEventListener("click", () => page.unpin());
  window.addEventListener("resize", () => { page.resize(); page.refresh(); });
}
