// The game viewer's page: the game list with filters, then a replay of one game drawn from the
// position JSON of /api/games/<id>; in play mode also a game against agents (/api/play,
// docs/viewer.md). No framework, no external URL; every text
// from the server goes into the page as text (textContent), never as markup.
// A game's own drawing comes from its package (the script /api/store names, which calls
// registerGame); a game without one is drawn by the generic text view below.
"use strict";

const SVGNS = "http://www.w3.org/2000/svg";
const SEAT_COLOURS = ["#d1495b", "#2e86de", "#2a9d5c", "#e0a100"];
const GREY = "#8a8a8a";
const PAGE = 50;

const state = {
  store: null, filters: {}, offset: 0, game: null, step: 0,
  board: "board", panels: "panels", // where positions are drawn (the play view has its own)
  play: null, busy: false,
};

// -- small helpers ------------------------------------------------------------------------------
function $(id) { return document.getElementById(id); }

function el(tag, attrs, ...children) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (k === "class") e.className = v; else e.setAttribute(k, v);
  }
  for (const c of children) e.append(c instanceof Node ? c : String(c));
  return e;
}

function svg(parent, tag, attrs, text) {
  const e = document.createElementNS(SVGNS, tag);
  for (const [k, v] of Object.entries(attrs || {})) e.setAttribute(k, v);
  if (text !== undefined) e.textContent = String(text);
  parent.append(e);
  return e;
}

function seatColour(s) {
  if (s === null || s === undefined) return "none";
  if (s === "grey") return GREY;
  return SEAT_COLOURS[Number(s)] || GREY;
}

function showError(msg) {
  const e = $("error");
  e.textContent = msg;
  e.hidden = !msg;
}

async function getJSON(url) {
  const r = await fetch(url, { headers: { Accept: "application/json" } });
  if (!r.ok) throw new Error((await r.text()).trim() || `HTTP ${r.status}`);
  return r.json();
}

function plural(n, noun) {
  return `${n} ${noun}${n === 1 ? "" : "s"}`;
}

// what chance decided in a step (the game's own words), after the decision's description
function chanceText(st) {
  return st.chance && st.chance.length ? ` (chance: ${st.chance.join("; ")})` : "";
}

function agentOf(seat) {
  const s = state.game.seats[seat];
  return s ? s.agent : "";
}

// -- the list -----------------------------------------------------------------------------------
async function loadStore() {
  const st = await getJSON("/api/store");
  state.store = st;
  $("store-line").textContent =
    `${st.game}: ${plural(st.games, "stored game")}, ${plural(st.tournaments.length, "tournament")}`;
  const f = $("filters");
  for (const t of st.tournaments) {
    f.tournament.append(el("option", { value: t.id }, `#${t.id} (${t.players}p, ${t.key.slice(0, 8)})`));
  }
  for (const a of st.agents) f.agent.append(el("option", { value: a }, a));
  for (let s = 0; s < 4; s++) f.seat.append(el("option", { value: s }, `seat ${s}`));
  for (const r of st.results) f.result.append(el("option", { value: r }, r));
  if (st.play) {
    $("play-start").hidden = false;
    $("play-against").textContent = `you play seat ${st.play.seat} of ` +
      st.play.agents.map((a, i) => `${i}: ${a}`).join(", ");
  }
}

async function loadList() {
  const q = new URLSearchParams();
  for (const [k, v] of Object.entries(state.filters)) if (v !== "") q.set(k, v);
  q.set("offset", state.offset);
  q.set("limit", PAGE);
  const data = await getJSON(`/api/games?${q}`);
  const body = $("games").tBodies[0];
  body.replaceChildren();
  for (const g of data.games) {
    const seats = el("td");
    g.seats.forEach((s, i) => {
      if (i) seats.append(", ");
      seats.append(el("span", { class: `seat${s.seat}` }, `${s.seat}: ${s.agent}`));
    });
    const winners = g.winner.map((p) => `seat ${p}`).join(" + ") || "-";
    const row = el(
      "tr", { "data-id": g.id },
      el("td", {}, `#${g.id}`), el("td", {}, g.tournament === null ? "-" : `#${g.tournament}`),
      seats, el("td", {}, g.scores.join(" : ")), el("td", {}, winners),
      el("td", {}, g.decisions + (g.truncated ? " (truncated)" : "")),
      el("td", {}, g.replayable ? "replay ▶" : "other rules data"),
    );
    row.addEventListener("click", () => { location.hash = `#game=${g.id}`; });
    body.append(row);
  }
  const end = Math.min(data.offset + data.games.length, data.total);
  $("list-count").textContent = `${data.total} games match`;
  $("page-line").textContent = data.total ? `${data.offset + 1}–${end} of ${data.total}` : "";
  $("prev-page").disabled = data.offset <= 0;
  $("next-page").disabled = end >= data.total;
}

// -- the replay ---------------------------------------------------------------------------------
async function openGame(id, step) {
  state.board = "board"; state.panels = "panels";
  $("play-view").hidden = true;
  if (!state.game || state.game.id !== id) state.game = await getJSON(`/api/games/${id}`);
  const g = state.game;
  $("list-view").hidden = true;
  $("replay-view").hidden = false;
  $("game-title").textContent =
    `${g.game} game #${g.id}: ` + g.seats.map((s) => `seat ${s.seat} ${s.agent}`).join(", ") +
    ` — final scores ${g.scores.join(" : ")}` + (g.truncated ? " (truncated)" : "");
  $("slider").max = g.positions.length - 1;
  showStep(Math.max(0, Math.min(step || 0, g.positions.length - 1)));
}

function showStep(k) {
  const g = state.game;
  state.step = k;
  $("slider").value = k;
  $("step-line").textContent = `position ${k} of ${g.positions.length - 1}`;
  const last = k > 0 ? g.steps[k - 1] : null;
  const next = k < g.steps.length ? g.steps[k] : null;
  const line = (label, st) => {
    const p = $(label === "last" ? "last-decision" : "next-decision");
    p.replaceChildren(el("span", { class: "label" }, label === "last" ? "Last decision: " : "Next decision: "));
    if (!st) { p.append(label === "last" ? "(start of the game)" : "(game over)"); return; }
    p.append(el("span", { class: `seat${st.seat}` }, `seat ${st.seat} (${agentOf(st.seat)})`),
      `: ${st.describe}${chanceText(st)}  [action ${st.action}]`);
  };
  line("last", last);
  line("next", next);
  drawPosition(g.positions[k]);
  drawPlot();
  const h = `#game=${g.id}&step=${k}`;
  if (location.hash !== h) history.replaceState(null, "", h);
}

function panel(seat, toAct, rows) {
  const dl = el("dl");
  for (const [k, v] of rows) dl.append(el("dt", {}, k), el("dd", {}, v));
  return el("div", { class: `panel seat${seat}${toAct ? " to-act" : ""}` },
    el("h3", { class: `seat${seat}` }, `Seat ${seat}: ${agentOf(seat)}`), dl);
}

function counts(obj) {
  const parts = Object.entries(obj).filter(([, n]) => n).map(([k, n]) => `${k} ${n}`);
  return parts.join(", ") || "-";
}

function meter(value, max) {
  const m = el("meter", { min: 0, max, value });
  return el("span", {}, m, ` ${value}/${max}`);
}

function box(root, x, y, w, h, title, fill) {
  svg(root, "rect", { x, y, width: w, height: h, rx: 6, fill: fill || "#f7f3e8", stroke: "#998" });
  svg(root, "text", { x: x + 6, y: y + 15, "font-size": 13, "font-weight": 600 }, title);
}

// -- the games' drawings ------------------------------------------------------------------------
// What a game's script gets to draw with: SVG and HTML elements (text only), a player panel, and
// the page's seat colours.
const KIT = Object.freeze({ svg, el, panel, counts, meter, box, seatColour, SEAT_COLOURS, GREY });
const DRAWINGS = {};

// Called by a game's script: make(KIT) returns { draw(root, pos), panels(box, pos) }, which draw
// a position of that game into the board's <svg> and the panels' <div> (both emptied first).
function registerGame(name, make) {
  DRAWINGS[name] = make(KIT);
}

// Any game without a drawing of its own: the generic position (training/view/positions.py,
// GENERIC_FIELDS), i.e. the text board of the public segments, the scores and the decisions.
const WRAP = 130; // characters of the text board per line
const GENERIC = {
  draw(root, pos) {
    const lines = []; // the board's lines, long ones wrapped to the board's width
    for (const line of String(pos.board).split("\n")) {
      for (let i = 0; i === 0 || i < line.length; i += WRAP) lines.push(line.slice(i, i + WRAP));
    }
    root.setAttribute("viewBox", `0 0 1000 ${Math.max(120, 56 + lines.length * 16)}`);
    svg(root, "text", { x: 10, y: 22, "font-size": 16, "font-weight": 600 },
      `${pos.game} — ${pos.phase}` + (pos.over ? " — game over" : ` — seat ${pos.to_act} to act`) +
      ` — scores ${pos.scores.join(" : ")}`);
    lines.forEach((line, i) => {
      svg(root, "text", { x: 10, y: 48 + i * 16, "font-size": 12, class: "board-text" }, line);
    });
  },
  panels(box, pos) {
    for (const p of pos.players) box.append(panel(p.seat, p.to_act, [["score", p.score]]));
    if (state.board !== "board" || !state.game.steps) return; // play mode lists them itself
    const done = state.game.steps.slice(0, state.step).reverse();
    const list = el("ol", { class: "generic-log" });
    for (const st of done.slice(0, 50)) {
      list.append(el("li", { value: st.decision + 1 },
        el("span", { class: `seat${st.seat}` }, `seat ${st.seat}`), `: ${st.describe}${chanceText(st)}`));
    }
    box.append(el("h3", {}, `Decisions so far (${done.length}, newest first)`), list);
  },
};

function drawPosition(pos) {
  const d = DRAWINGS[pos.game] || GENERIC;
  const root = $(state.board), box = $(state.panels);
  root.replaceChildren();
  box.replaceChildren();
  d.draw(root, pos);
  d.panels(box, pos);
}

// The served game's drawing, when /api/store names one: a <script> of this server (the page's
// Content-Security-Policy allows no other), loaded before anything is drawn.
function loadDrawing(url) {
  if (!url) return Promise.resolve();
  return new Promise((resolve, reject) => {
    const s = el("script", { src: url });
    s.addEventListener("load", () => resolve());
    s.addEventListener("error", () => reject(new Error(`cannot load the game's drawing ${url}`)));
    document.head.append(s);
  });
}

// -- the score plot -----------------------------------------------------------------------------
function drawPlot() {
  const g = state.game, root = $("plot");
  root.replaceChildren();
  const W = 1000, H = 240, L = 50, R = 110, T = 12, B = 28;
  root.setAttribute("viewBox", `0 0 ${W} ${H}`);
  const n = g.score_track.length;
  const all = g.score_track.flat();
  const lo = Math.min(0, ...all), hi = Math.max(1, ...all);
  const X = (k) => L + (n > 1 ? (k / (n - 1)) * (W - L - R) : 0);
  const Y = (v) => H - B - ((v - lo) / (hi - lo)) * (H - T - B);
  svg(root, "line", { x1: L, y1: Y(lo), x2: W - R, y2: Y(lo), stroke: "#999" });
  svg(root, "line", { x1: L, y1: T, x2: L, y2: H - B, stroke: "#999" });
  for (const v of [lo, Math.round((lo + hi) / 2), hi]) {
    svg(root, "text", { x: L - 6, y: Y(v) + 4, "font-size": 11, "text-anchor": "end" }, v);
  }
  svg(root, "text", { x: W - R, y: H - 8, "font-size": 11, "text-anchor": "end" }, `decision ${n - 1}`);
  svg(root, "text", { x: L, y: H - 8, "font-size": 11 }, "0");
  for (let p = 0; p < g.players; p++) {
    const pts = g.score_track.map((s, k) => `${X(k).toFixed(1)},${Y(s[p]).toFixed(1)}`).join(" ");
    svg(root, "polyline", { points: pts, fill: "none", stroke: SEAT_COLOURS[p], "stroke-width": 2 });
    const last = g.score_track[n - 1][p];
    svg(root, "text", { x: W - R + 6, y: T + 14 + p * 16, "font-size": 12, fill: SEAT_COLOURS[p] },
      `seat ${p}: ${g.score_track[state.step][p]} (end ${last})`);
  }
  svg(root, "line", { x1: X(state.step), y1: T, x2: X(state.step), y2: H - B, stroke: "#333", "stroke-dasharray": "4 3" });
  const hit = svg(root, "rect", { x: L, y: T, width: W - L - R, height: H - T - B, fill: "transparent" });
  hit.addEventListener("click", (ev) => {
    const box = root.getBoundingClientRect();
    const x = ((ev.clientX - box.left) / box.width) * W;
    const k = Math.round(((x - L) / (W - L - R)) * (n - 1));
    showStep(Math.max(0, Math.min(n - 1, k)));
  });
}

// -- play against agents (play mode only) -------------------------------------------------------
async function postJSON(url, body) {
  const r = await fetch(url, {
    method: "POST", headers: { "Content-Type": "application/json", Accept: "application/json" },
    body: JSON.stringify(body || {}),
  });
  if (!r.ok) throw new Error((await r.text()).trim() || `HTTP ${r.status}`);
  return r.json();
}

async function startPlay() {
  if (state.busy) return;
  state.busy = true;
  try {
    const v = await postJSON("/api/play");
    state.play = v;
    location.hash = `#play=${v.token}`;
  } finally { state.busy = false; }
}

async function openPlay(token) {
  if (!state.play || state.play.token !== token) state.play = await getJSON(`/api/play/${token}`);
  $("list-view").hidden = true;
  $("replay-view").hidden = true;
  $("play-view").hidden = false;
  showPlay(state.play);
}

async function playAction(id) {
  if (state.busy || !state.play) return;
  state.busy = true;
  $("play-status").textContent = "the agents are thinking…";
  try {
    showPlay(await postJSON(`/api/play/${state.play.token}/act`, { action: id }));
  } catch (e) {
    showError(e.message);
  } finally { state.busy = false; }
}

function showPlay(v) {
  state.play = v;
  state.game = v; // agentOf reads the seats
  state.board = "play-board"; state.panels = "play-panels";
  $("play-title").textContent = `${v.game}: you are seat ${v.seat}; ` +
    v.seats.map((s) => `seat ${s.seat} ${s.agent}`).join(", ");
  let status;
  if (v.over) {
    const r = v.result;
    const win = r.win_shares.map((w, p) => (w > 0 ? `seat ${p}` : null)).filter((x) => x).join(" + ");
    status = `Game over — scores ${r.scores.join(" : ")}, winner ${win || "-"}` +
      (r.truncated ? " (truncated)" : "");
  } else {
    status = v.your_turn ? "Your turn: choose an action" : `seat ${v.to_act} to act`;
  }
  $("play-status").textContent = status;
  const link = $("play-replay");
  link.hidden = !(v.over && v.result.game_id !== null);
  if (!link.hidden) link.setAttribute("href", `#game=${v.result.game_id}`);
  const box = $("play-actions");
  box.replaceChildren();
  for (const g of v.legal) {
    const fs = el("fieldset", { class: "action-group" }, el("legend", {}, g.segment));
    for (const a of g.actions) {
      const b = el("button", { type: "button", title: `action ${a.id}` }, a.describe);
      b.addEventListener("click", () => playAction(a.id));
      fs.append(b);
    }
    box.append(fs);
  }
  const log = $("play-log");
  log.replaceChildren();
  for (const st of v.log.slice().reverse()) {
    log.append(el("li", {},
      el("span", { class: `seat${st.seat}` }, `#${st.decision} seat ${st.seat} (${agentOf(st.seat)})`),
      `: ${st.describe}${chanceText(st)}`));
  }
  drawPosition(v.position);
  const h = `#play=${v.token}`;
  if (location.hash !== h) history.replaceState(null, "", h);
}

// -- navigation ---------------------------------------------------------------------------------
function parseHash() {
  const h = new URLSearchParams(location.hash.slice(1));
  const token = h.get("play");
  if (token && /^[0-9a-f]{32}$/.test(token)) return { play: token };
  const id = h.get("game");
  return id && /^[0-9]{1,12}$/.test(id) ? { id: Number(id), step: Number(h.get("step")) || 0 } : null;
}

async function route() {
  showError("");
  const target = parseHash();
  try {
    if (target && target.play) {
      await openPlay(target.play);
    } else if (target) {
      await openGame(target.id, target.step);
    } else {
      $("replay-view").hidden = true;
      $("play-view").hidden = true;
      $("list-view").hidden = false;
      await loadList();
    }
  } catch (e) {
    showError(e.message);
  }
}

function move(delta) {
  if (!state.game || $("replay-view").hidden) return;
  showStep(Math.max(0, Math.min(state.game.positions.length - 1, state.step + delta)));
}

document.addEventListener("DOMContentLoaded", async () => {
  $("filters").addEventListener("submit", (ev) => {
    ev.preventDefault();
    const f = ev.target;
    state.filters = { tournament: f.tournament.value, agent: f.agent.value, seat: f.seat.value, result: f.result.value };
    state.offset = 0;
    loadList().catch((e) => showError(e.message));
  });
  $("prev-page").addEventListener("click", () => { state.offset = Math.max(0, state.offset - PAGE); loadList().catch((e) => showError(e.message)); });
  $("next-page").addEventListener("click", () => { state.offset += PAGE; loadList().catch((e) => showError(e.message)); });
  $("back").addEventListener("click", (ev) => { ev.preventDefault(); location.hash = ""; });
  $("play-back").addEventListener("click", (ev) => { ev.preventDefault(); location.hash = ""; });
  $("new-game").addEventListener("click", () => startPlay().catch((e) => showError(e.message)));
  $("play-again").addEventListener("click", () => startPlay().catch((e) => showError(e.message)));
  $("slider").addEventListener("input", (ev) => showStep(Number(ev.target.value)));
  $("first").addEventListener("click", () => move(-Infinity));
  $("last").addEventListener("click", () => move(Infinity));
  $("back-step").addEventListener("click", () => move(-1));
  $("fwd-step").addEventListener("click", () => move(1));
  document.addEventListener("keydown", (ev) => {
    if (ev.target instanceof HTMLInputElement || ev.target instanceof HTMLSelectElement) return;
    const d = { ArrowLeft: -1, ArrowRight: 1, Home: -Infinity, End: Infinity }[ev.key];
    if (d !== undefined && !$("replay-view").hidden) { ev.preventDefault(); move(d); }
  });
  window.addEventListener("hashchange", route);
  try {
    await loadStore();
    await loadDrawing(state.store.script);
  } catch (e) { showError(e.message); return; }
  await route();
});
