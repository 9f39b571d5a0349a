// The viewer page's script (training/view/static/viewer.js) run in node on a fake DOM: draws every
// position of a replay payload and fails on a runtime error or text with undefined / NaN in it.
// node view_page_smoke.js viewer.js payload.json [game.js]  (tests/training/test_view.py; the page
// in a real browser: tests/training/test_view_browser.py). game.js: the game's own drawing (the
// script its GameSpec.view names), evaluated after viewer.js as the page loads it; without it the
// page's generic drawing draws the positions.
const fs = require("fs");
class N {
  constructor(tag) { this.tag = tag; this.attrs = {}; this.children = []; this.textContent = ""; this.hidden = false; this.value = ""; }
  setAttribute(k, v) { if (v === undefined || (typeof v === "number" && isNaN(v))) throw new Error(`bad attr ${k}=${v} on ${this.tag}`); this.attrs[k] = String(v); }
  append(...c) { this.children.push(...c); }
  replaceChildren(...c) { this.children = c; }
  addEventListener() {}
  getBoundingClientRect() { return { left: 0, width: 1000 }; }
}
global.Node = N;
const els = {};
global.document = {
  createElement: (t) => new N(t), createElementNS: (_ns, t) => new N(t),
  getElementById: (id) => (els[id] ||= new N(id)), addEventListener() {},
};
global.location = { hash: "" };
global.history = { replaceState() {} };
global.window = { addEventListener() {} };
global.HTMLInputElement = class {}; global.HTMLSelectElement = class {};
const src = fs.readFileSync(process.argv[2], "utf8");
const drawing = process.argv[4] ? fs.readFileSync(process.argv[4], "utf8") : "";
eval(src + "\n" + drawing + "\n;global.__v = { state, showStep, showPlay, DRAWINGS };");
const drawnBy = (name) => (name in __v.DRAWINGS ? `drawn by ${name}` : "drawn by generic");
const game = JSON.parse(fs.readFileSync(process.argv[3], "utf8"));
if (Array.isArray(game)) { // play mode: a list of /api/play/<token> views
  let texts = 0;
  const walkp = (n) => { if (n.textContent && /undefined|NaN|\[object/.test(n.textContent)) throw new Error("bad text: " + n.textContent); texts++; (n.children || []).forEach((c) => { if (typeof c === "object") walkp(c); else if (/undefined|NaN|\[object/.test(String(c))) throw new Error("bad text: " + c); }); };
  for (const v of game) {
    __v.showPlay(v);
    for (const id of ["play-board", "play-panels", "play-actions", "play-log", "play-status", "play-title"]) walkp(els[id]);
  }
  console.log("ok play", game.length, "views drawn,", texts, "nodes checked,", drawnBy(game[0].game));
  process.exit(0);
}
__v.state.game = game;
let texts = 0;
function walk(n) { if (n.textContent && /undefined|NaN|\[object/.test(n.textContent)) throw new Error("bad text: " + n.textContent); texts++; (n.children || []).forEach((c) => { if (typeof c === "object") walk(c); else if (/undefined|NaN|\[object/.test(String(c))) throw new Error("bad text: " + c); }); }
for (let k = 0; k < game.positions.length; k++) {
  __v.showStep(k);
  for (const id of ["board", "panels", "plot", "last-decision", "next-decision"]) walk(els[id]);
}
console.log("ok", game.game, game.positions.length, "positions drawn,", texts, "nodes checked,", drawnBy(game.game));
