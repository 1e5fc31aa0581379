// The help overlay: the page's mouse gestures and keyboard shortcuts,
// opened with `?` (or the header's ? button), closed with `?`, Esc or a
// click outside its box.

import { $, esc } from "./util.js";

// What the page answers to: [keys, what they do], by section.
export const SHORTCUTS = [
  ["The window", [
    ["+ = w · wheel", "zoom in (around the pointer with the wheel)"],
    ["- s", "zoom out"],
    ["← a · → d · shift-wheel", "pan left, right"],
    ["f 0", "fit the whole run"],
    ["drag", "pan"],
    ["shift-drag", "zoom to an interval"],
    ["alt- or ctrl-drag", "measure an interval"],
    ["x, then drag", "select rows × time: its time per state and messages"],
    ["drag the overview's box", "move the window; a click centres it there"],
  ]],
  ["Time origin", [
    ["click the time axis", "times counted from there (+1.25 ms)"],
    ["o", "clear the origin"],
  ]],
  ["Rows and entities", [
    ["click", "pin an entity in the details panel"],
    ["click an arrow", "pick a message, jump to its other end"],
    ["click a label", "collapse or expand a container"],
    ["shift-click a label", "pin the row to the top (again: unpin)"],
    ["wheel on labels", "scroll the rows"],
    ["Esc", "clear the measure, the pin and the picked message"],
  ]],
  ["Panels", [
    ["t", "statistics of the window"],
    ["y", "why: wait states and the critical path"],
    ["p", "the player"],
    ["n · space · , · . · Home · End", "player: view, play/pause, step, first, last"],
    ["?", "this help"],
  ]],
];

// The overlay's HTML.
export function helpHtml() {
  const sections = SHORTCUTS.map(([title, keys]) =>
    `<h3>${esc(title)}</h3><table>${keys.map(([k, what]) => `<tr><td class="keys">${esc(k)}</td><td>${esc(what)}</td></tr>`).join("")}</table>`);
  return `<button id="help-close" title="close (?, Esc)">×</button><h2>Keys and gestures</h2>${sections.join("")}`;
}

// Wires the overlay (#help) and its button (#help-button).
export function listenHelp() {
  const el = $("help");
  el.innerHTML = `<div class="box">${helpHtml()}</div>`;
  const toggle = (open = el.hidden) => { el.hidden = !open; };
  $("help-button").addEventListener("click", () => toggle());
  $("help-close").addEventListener("click", () => toggle(false));
  el.addEventListener("click", (ev) => { if (ev.target === el) toggle(false); });
  window.addEventListener("keydown", (ev) => {
    if (ev.target.tagName === "INPUT") return;
    if (ev.key === "?") toggle();
    else if (ev.key === "Escape" && !el.hidden) toggle(false);
    else return;
    ev.preventDefault();
  });
}
