// Where the page's data comes from: the server of `trama view`
// (docs/view-api.md), or the summary embedded in an offline report
// (offline.js). Both answer the same questions with the same shapes:
//
//   progress()                         {state, done, total, unit, error}
//   meta()                             api/meta's JSON
//   timeline(t0, t1, width, rows, signal)   a decoded summary (decode.js)
//   entity(row, t, px)                 api/entity's JSON
//   search(q, after)                   api/search's JSON
//   stats(t0, t1, signal)              {t0, t1, whole, states, comm, wait}
//   selection(t0, t1, ids, signal)     api/selection's JSON {states, comm}
//                                      (ids: container ids, null: all),
//                                      with `note` when it cannot answer
//                                      exactly (offline: only the whole run)
//   stage(), frame(t, dt)              api/stage's and api/frame's JSON (the
//                                      player; the server's only)
//   why()                              api/why's JSON
//   whyOverlay(t0, t1, width, signal)  api/why/overlay's JSON (offline: the
//                                      whole run's, which overlay.js cuts)
//
// `offline` is true for the embedded summary.

import { decodeSummary } from "./decode.js";
import { sleep } from "./util.js";

export class ServerSource {
  constructor() {
    this.offline = false;
    // Timeline requests made, for scripts that check the page's traffic.
    this.requests = 0;
  }

  // A 503 with Retry-After (the server busy with other requests) is
  // asked again after that many seconds, up to 20 times.
  async get(path, signal) {
    for (let tries = 0; ; tries++) {
      const r = await fetch(`api/${path}`, { signal });
      const wait = Number(r.headers.get("Retry-After"));
      if (r.status === 503 && wait > 0 && tries < 20) {
        await sleep(1000 * Math.min(wait, 10));
        if (signal && signal.aborted) throw new DOMException("aborted", "AbortError");
        continue;
      }
      if (!r.ok) throw new Error(`${path}: ${r.status} ${await r.text()}`);
      return r;
    }
  }

  async progress() {
    return (await this.get("progress")).json();
  }

  async meta() {
    return (await this.get("meta")).json();
  }

  async timeline(t0, t1, width, rows, signal) {
    this.requests++;
    // The compact encoding: a third to a quarter of the bytes once compressed.
    const r = await this.get(`timeline?start=${t0}&end=${t1}&width=${width}&rows=${rows}&encoding=compact`, signal);
    return decodeSummary(await r.arrayBuffer());
  }

  async entity(row, t, px) {
    const extra = px == null ? "" : `&px=${px}`;
    return (await this.get(`entity?row=${row}&t=${t}${extra}`)).json();
  }

  async search(q, after) {
    const extra = after == null ? "" : `&after=${after}`;
    return (await this.get(`search?q=${encodeURIComponent(q)}${extra}`)).json();
  }

  async stats(t0, t1, signal) {
    const s = await (await this.get(`stats?start=${t0}&end=${t1}`, signal)).json();
    return { t0, t1, whole: false, ...s };
  }

  async selection(t0, t1, ids, signal) {
    const c = ids ? `&containers=${ids.join(",")}` : "";
    return (await this.get(`selection?start=${t0}&end=${t1}${c}`, signal)).json();
  }

  async why() {
    return (await this.get("why")).json();
  }

  async whyOverlay(t0, t1, width, signal) {
    return (await this.get(`why/overlay?start=${t0}&end=${t1}&width=${width}`, signal)).json();
  }

  async stage() {
    return (await this.get("stage")).json();
  }

  // nodes: with the node/arc view's frame.
  async frame(t, dt, nodes = false) {
    return (await this.get(`frame?t=${t}&dt=${dt}${nodes ? "&nodes=1" : ""}`)).json();
  }
}

// The frames of a stream (`trama view --stream`, api/stream): read forward
// only; the stage (processes, values) comes with its first reply and again
// when it changes.
export class StreamFeed {
  constructor() {
    this.version = 0;
    this.stage = null;
  }

  async poll(after, last) {
    const q = `after=${after}&version=${this.version}` + (last ? "&last=1" : "");
    const r = await fetch(`api/stream?${q}`);
    if (!r.ok) throw new Error(`stream: ${r.status} ${await r.text()}`);
    const j = await r.json();
    if (j.stage) { this.stage = j.stage; this.version = j.version; }
    return j;
  }
}
