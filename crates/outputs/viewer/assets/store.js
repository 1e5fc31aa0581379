// The state of the timeline view, in one object that the page's modules
// are handed (none keeps its own copy): the window, the rows shown, what
// is hidden, highlighted, pinned, measured, and the summary drawn.

// A fresh state, before the trace's description is read.
export function createState() {
  return {
    meta: null,
    t0: 0, t1: 1,            // the visible window
    collapsed: new Set(),    // container ids whose subtree is hidden
    visible: [],             // meta row indices shown, top to bottom
    scroll: 0,               // first visible row (in `visible`)
    data: null,              // the summary drawn
    hidden: new Set(),       // value ids not drawn
    highlight: null,         // a value id drawn alone in full colour
    highlightIds: null,      // the ids of its label and colour
    pinned: null,            // the entity pinned in the details panel
    pinnedAt: null,          // its row and time, for the URL
    ruler: null,             // {a, b} times of a measure
    drag: null,
    colors: [],              // value id -> [r, g, b]
    found: null,             // the meta row of the last search hit
    order: "tree",           // rows: "tree" or "hosts"
    cursor: null,            // the player's frame {t, dt}, drawn as a band
    overlay: null,           // draws over the timeline: (ctx, rows, W)
    origin: null,            // the time axis' origin (origin.js), or null
    link: null,              // the message arrow picked (arrows.js)
    arrange: null,           // the rows' filter, pins and sort (arrange.js)
    depths: null,            // meta row -> sub-rows over the run
    firstSub: null,          // meta row -> state type -> its first sub-row
    subrows: false,          // nesting levels drawn as sub-rows
  };
}
