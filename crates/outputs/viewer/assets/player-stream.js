// The player fed by a stream (`trama view --stream`, api/stream): frames
// come forward only, queued as they are read; the stage (processes,
// values, nodes) comes with the first reply and again when it grows; the
// "whole run" matrix counts the frames in which each cell was lit so far.
// These are methods of the Player (player.js), which checks `feed` where a
// stream plays differently.

import { $, rgb, sleep } from "./util.js";
import { drawStrip } from "./anim-strip.js";

export const streamMethods = {
  async openStream(feed) {
    this.feed = feed;
    this.queue = [];
    this.lastK = -1;
    this.lit = new Map();     // "from,to" -> frames in which the cell was lit
    this.first0 = null;       // the first frame's time
    this.hooks = {
      window: () => {
        const a = this.first0 ?? 0;
        return [a, Math.max(a + 1e-9, this.streamInfo?.time ?? a, this.t + this.step())];
      },
      cursor: () => {},
    };
    $("player").hidden = false;
    while (!feed.stage) {
      this.take(await feed.poll(this.lastK, false));
      if (!feed.stage) await sleep(200);
    }
    this.listen();
    $("p-speed").value = String(this.speed);
    this.resize();
    await this.streamStep();
  },

  take(j) {
    this.streamInfo = j;
    for (const f of j.frames) {
      this.queue.push(f);
      this.lastK = f.k;
    }
    if (this.feed.stage && this.feed.version !== this.stageVersion) {
      const st = this.feed.stage;
      this.stage = st;
      this.stageVersion = this.feed.version;
      this.meta = { values: st.values };
      const cols = st.values.map((v) => rgb(v.color));
      this.colorOf = (v) => cols[v] || [128, 128, 128];
      this.setupNodes(st.nodes);
    }
  },

  // Shows the next frame of the stream; false when there is none (yet).
  async streamStep() {
    if (!this.queue.length) this.take(await this.feed.poll(this.lastK, false));
    const f = this.queue.shift();
    if (!f) {
      $("p-error").textContent = this.streamInfo?.error ? `the stream failed: ${this.streamInfo.error}`
        : this.streamInfo?.done ? "the input has ended" : "waiting for the input…";
      if (this.shown) drawStrip(this);
      return false;
    }
    $("p-error").textContent = "";
    if (this.first0 == null) this.first0 = f.t;
    this.t = f.t;
    this.shown = f;
    for (const c of f.cells) {
      const key = `${c.from},${c.to}`;
      this.lit.set(key, (this.lit.get(key) || 0) + 1);
    }
    if (!this.grad && f.cells.length) this.fitGradient(f.cells);
    this.draw();
    return true;
  },

  async streamLast() {
    this.queue = [];
    this.take(await this.feed.poll(this.lastK, true));
    return this.streamStep();
  },
};
