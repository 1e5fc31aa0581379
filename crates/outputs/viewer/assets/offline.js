// The data of an offline report: the summary `trama report` embeds
// (crates/outputs/viewer/src/offline.rs specifies it), answering the page's
// questions as the server would, from what the summary holds.
//
// Level k of the summary cuts the run into 2^k tiles of equal duration,
// each what the server's reply would hold at the same number of columns
// (decode.js decodes it as it does a reply), compressed.
// A window is answered from the coarsest level whose columns are no wider
// than the window's, by joining the tiles it overlaps; hover, pin and
// search read the finest level. Tiles are decompressed when first needed
// and a few are kept.

import { decodeSummary } from "./decode.js";
import { tileBytes, compose, continues, rowSet } from "./tile.js";
import { natural } from "./util.js";

// Decoded tiles kept: at most this many, taking at most about this many
// bytes (the tile being read is always kept).
const TILES_KEPT = 48;
const TILE_BYTES_KEPT = 48e6;

// The bytes of a base64 text.
function fromBase64(text) {
  const s = atob(text.replace(/\s+/g, ""));
  const out = new Uint8Array(s.length);
  for (let i = 0; i < s.length; i++) out[i] = s.charCodeAt(i);
  return out;
}

async function gunzip(bytes) {
  const stream = new Blob([bytes]).stream().pipeThrough(new DecompressionStream("gzip"));
  return new Response(stream).arrayBuffer();
}

export class EmbeddedSource {
  // The summary of the page, or null when the page has none.
  static fromPage() {
    const index = document.getElementById("trama-offline");
    const tiles = document.getElementById("trama-tiles");
    if (!index || !tiles) return null;
    return new EmbeddedSource(JSON.parse(index.textContent), fromBase64(tiles.textContent));
  }

  constructor(info, bytes) {
    this.offline = true;
    this.requests = 0;
    this.info = info;
    // The player, when the page holds frames of the run: each asked for
    // instant shows the frame holding it (frames of a fixed length).
    const p = info.player;
    if (p && p.frames.length) {
      const dt = p.stage.frames_dt, t0 = p.frames[0].t, n = p.frames.length;
      this.stage = async () => p.stage;
      this.frame = async (t) => p.frames[Math.max(0, Math.min(n - 1, Math.floor((t - t0) / dt + 1e-9)))];
    }
    const v = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    let o = 0;
    const u32 = () => { const x = v.getUint32(o, true); o += 4; return x; };
    const f64 = () => { const x = v.getFloat64(o, true); o += 8; return x; };
    if (String.fromCharCode(...bytes.subarray(0, 4)) !== "TRTS") throw new Error("not a summary");
    o = 4;
    if (u32() !== 1) throw new Error("unknown summary version");
    this.t0 = f64();
    this.t1 = f64();
    this.columns = u32();
    const nlevels = u32();
    this.levels = [];
    for (let k = 0; k < nlevels; k++) {
      const n = 2 ** k;
      const lengths = new Uint32Array(n);
      for (let i = 0; i < n; i++) lengths[i] = u32();
      this.levels.push({ n, lengths, offsets: new Float64Array(n) });
    }
    for (const level of this.levels) {
      for (let i = 0; i < level.n; i++) { level.offsets[i] = o; o += level.lengths[i]; }
    }
    if (o !== bytes.length) throw new Error("a damaged summary");
    this.bytes = bytes;
    this.kept = new Map();   // "k i" -> {tile: Promise of a decoded tile, bytes}, oldest first
    this.keptBytes = 0;
    const m = info.meta;
    this.containers = new Map(m.containers.map((c) => [c.id, c]));
  }

  // Tiles decoded and kept (the page's memory stays within them).
  get tilesKept() {
    return this.kept.size;
  }

  // About how many bytes they take.
  get tileBytesKept() {
    return this.keptBytes;
  }

  tileDuration(k) {
    return (this.t1 - this.t0) / 2 ** k;
  }

  // The coarsest level whose columns last at most `res` seconds, else the
  // finest.
  levelFor(res) {
    for (let k = 0; k < this.levels.length; k++) {
      if (this.tileDuration(k) / this.columns <= res) return k;
    }
    return this.levels.length - 1;
  }

  tile(k, i) {
    const key = `${k} ${i}`;
    let e = this.kept.get(key);
    if (e) {
      this.kept.delete(key);
      this.kept.set(key, e);
      return e.tile;
    }
    const level = this.levels[k];
    const at = level.offsets[i];
    e = { tile: gunzip(this.bytes.subarray(at, at + level.lengths[i])).then(decodeSummary), bytes: 0 };
    this.kept.set(key, e);
    e.tile.then((tile) => {
      if (this.kept.get(key) !== e) return;
      e.bytes = tileBytes(tile);
      this.keptBytes += e.bytes;
      this.trim(key);
    });
    this.trim(key);
    return e.tile;
  }

  // Forgets the oldest tiles but `keep` while too many are kept.
  trim(keep) {
    for (const [key, e] of this.kept) {
      if (this.kept.size <= TILES_KEPT && this.keptBytes <= TILE_BYTES_KEPT) break;
      if (key === keep) continue;
      this.kept.delete(key);
      this.keptBytes -= e.bytes;
    }
  }

  // The tiles of level k overlapping [t0, t1]: first and last index.
  tilesOver(k, t0, t1) {
    const d = this.tileDuration(k), n = this.levels[k].n;
    const a = Math.max(0, Math.min(n - 1, Math.floor((t0 - this.t0) / d)));
    const b = Math.max(a, Math.min(n - 1, Math.ceil((t1 - this.t0) / d) - 1));
    return [a, b];
  }

  async progress() {
    return { state: "ready" };
  }

  async meta() {
    return this.info.meta;
  }

  async timeline(t0, t1, width, rows, signal) {
    this.requests++;
    const k = this.levelFor((t1 - t0) / width);
    const [a, b] = this.tilesOver(k, t0, t1);
    const tiles = [];
    for (let i = a; i <= b; i++) tiles.push(this.tile(k, i));
    const decoded = await Promise.all(tiles);
    if (signal && signal.aborted) throw new DOMException("a stale window", "AbortError");
    const out = compose(decoded, this.columns, rowSet(rows));
    out.level = k;
    return out;
  }

  // What the finest level holds at (row, t): an event column within `px`
  // seconds, else the deepest state span covering t, else a variable's
  // range; `summary` marks it, `columns` is the time a column lasts.
  async entity(row, t, px) {
    const m = this.info.meta;
    const none = { kind: "none" };
    if (!(row >= 0 && row < m.rows.length) || t < this.t0 || t > this.t1) return none;
    const k = this.levels.length - 1;
    const [i] = this.tilesOver(k, t, t);
    const tile = await this.tile(k, i);
    const cw = (tile.t1 - tile.t0) / tile.width;
    const c = Math.min(tile.width - 1, Math.floor((t - tile.t0) / cw));
    const r = tile.rows.get(row);
    if (!r) return none;
    const meta = m.rows[row];
    const at = (x) => tile.t0 + x * cw;
    const base = { container: this.containers.get(meta.container)?.name ?? meta.label, summary: true, column: cw };
    if (meta.variable != null) {
      const v = r.vars.find((v) => v.x0 <= c && c < v.x1);
      if (!v) return none;
      return { ...base, kind: "variable", type: m.types[meta.variable].name, value: v.last,
        min: v.min, max: v.max, start: at(v.x0), end: at(v.x1) };
    }
    const reach = Math.max(0, Math.ceil((px || 0) / cw));
    let ev = null;
    for (let j = 0; j < r.events.length; j += 2) {
      const d = Math.abs(r.events[j] - c);
      if (d <= reach && (!ev || d < ev.d)) ev = { d, x: r.events[j], count: r.events[j + 1] };
    }
    if (ev) {
      return { ...base, kind: "event", type: "events", value: `${ev.count} event${ev.count > 1 ? "s" : ""}`,
        count: ev.count, start: at(ev.x), end: at(ev.x + 1) };
    }
    let best = null;
    for (const band of r.bands) {
      const stack = [];
      let deepest = null;
      band.levels.forEach((spans, level) => {
        for (let j = 0; j < spans.length; j += 4) {
          if (spans[j] <= c && c < spans[j + 1]) {
            stack.push(m.values[spans[j + 2]].name);
            deepest = { level, j, spans };
            break;
          }
        }
      });
      if (deepest && (!best || deepest.level > best.level)) best = { ...deepest, type: band.type, stack };
    }
    if (!best) return none;
    const s = best.spans, j = best.j;
    return { ...base, kind: "state", type: m.types[best.type].name, value: m.values[s[j + 2]].name,
      start: at(s[j]), end: at(s[j + 1]), level: best.level, stack: best.stack,
      mixed: s[j + 3] >>> 31 === 1, count: s[j + 3] & 0x7fffffff };
  }

  // Rows and values by name, and the first state span of such a value
  // starting after `after`, read from the finest level.
  async search(q, after) {
    const m = this.info.meta;
    const needle = q.toLowerCase();
    const rows = [];
    m.rows.forEach((r, i) => {
      if (rows.length < 50 && r.label.toLowerCase().includes(needle)) rows.push({ row: i, label: r.label });
    });
    const ids = new Set(m.values.filter((v) => v.name.toLowerCase().includes(needle)).map((v) => v.id));
    const values = [...new Set([...ids].map((id) => m.values[id].name))].sort(natural);
    let next = null;
    if (ids.size) next = await this.nextSpan(ids, after ?? -Infinity);
    return { rows, values, next };
  }

  async nextSpan(ids, after) {
    const m = this.info.meta;
    const k = this.levels.length - 1;
    const n = this.levels[k].n;
    const ownRow = new Map();
    m.rows.forEach((r, i) => { if (r.variable == null) ownRow.set(i, true); });
    let [i] = this.tilesOver(k, Math.max(after, this.t0), Math.max(after, this.t0));
    let prev = i > 0 ? await this.tile(k, i - 1) : null;
    for (; i < n; i++) {
      const tile = await this.tile(k, i);
      const cw = (tile.t1 - tile.t0) / tile.width;
      let best = null;
      for (const [row, r] of tile.rows) {
        if (!ownRow.has(row)) continue;
        for (const band of r.bands) {
          band.levels.forEach((spans, level) => {
            for (let j = 0; j < spans.length; j += 4) {
              if (!ids.has(spans[j + 2])) continue;
              const start = tile.t0 + spans[j] * cw;
              if (start <= after || (best && start >= best.start)) continue;
              if (spans[j] === 0 && prev && continues(prev, row, band.type, level, spans[j + 2])) continue;
              best = { row, value: m.values[spans[j + 2]].name, start, end: tile.t0 + spans[j + 1] * cw };
            }
          });
        }
      }
      if (best) return best;
      prev = tile;
    }
    return null;
  }

  // The why analyses of the whole run (null in a report without them).
  async why() {
    const w = this.info.why;
    return w ? w.summary : { available: false, reason: "this report was written without them" };
  }

  // The whole run's overlay: the page keeps the window's part of it
  // (nothing drawn when the report could not hold it).
  async whyOverlay() {
    const w = this.info.why;
    return (w && w.overlay) || { start: this.t0, end: this.t1, width: 0, waits: [], path: [] };
  }

  async stats() {
    const m = this.info.meta;
    return { t0: m.start, t1: m.end, whole: true, ...this.info.stats };
  }

  // A selection, from the whole run's statistics the report holds: exact
  // for a window holding the whole run and containers named apart from
  // the others (statistics name containers), else a note and nothing.
  async selection(t0, t1, ids) {
    const m = this.info.meta, s = this.info.stats;
    const why = !s || s.trimmed ? "this report's statistics were trimmed to fit its size"
      : t0 > m.start || t1 < m.end ? "an offline report holds the time per state of the whole run only"
        : null;
    const picked = ids ? new Set(ids) : null;
    const names = new Set(), others = new Set();
    for (const c of m.containers) (!picked || picked.has(c.id) ? names : others).add(c.name);
    const clash = [...names].find((n) => others.has(n));
    const reason = why || (clash != null ? `container name ${clash} is shared by selected and other containers` : null);
    if (reason) {
      return { note: `No numbers for this selection: ${reason}. Drag over the whole run (or press "whole run"), or open the trace with \`trama view\` for any selection.`, states: null, comm: null };
    }
    const comm = s.comm && { ...s.comm, pairs: s.comm.pairs.filter((p) => names.has(p.from) || names.has(p.to)) };
    return {
      note: "From the report's statistics of the whole run" + (comm && comm.size_field == null ? " (no message sizes in a report)." : "."),
      states: s.states && { ...s.states, rows: s.states.rows.filter((r) => names.has(r.container)) },
      comm,
    };
  }
}
