// The game viewer's page: the game list with filters, then a replay of one game drawn from the
// position JSON of /api/games/<id>; in play mode also a game against agents (/api/play,
// docs/viewer.md). No framework, no external URL; every text
// from the server goes into the page as text (textContent), never as markup.
"use strict";

const SVGNS = "http://www.w3.org/2000/svg";
const SEAT_COLOURS = ["#d1495b", "#2e86de", "#2a9d5c", "#e0a100"];
const GREY = "#8a8a8a";
const KIND_COLOURS = {
  brown: "#8b5a2b", pink: "#e78ac3", orange: "#f39c12", green: "#27ae60", plague: "#222",
};
const DICE_COLOURS = { yellow: "#f4d03f", white: "#f4f4f4", red: "#e74c3c" };
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
      `: ${st.describe}  [action ${st.action}]`);
  };
  line("last", last);
  line("next", next);
  const pos = g.positions[k];
  if (pos.game === "village") { drawVillage(pos); villagePanels(pos); }
  else { drawTroyes(pos); troyesPanels(pos); }
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

// -- Village ------------------------------------------------------------------------------------
function villagePanels(pos) {
  const box = $(state.panels);
  box.replaceChildren();
  for (const p of pos.players) {
    const fam = Object.entries(p.family).filter(([loc]) => loc !== "unborn")
      .map(([loc, gens]) => `${loc}: ` + gens.map((n, g) => `g${g + 1}×${n}`).filter((_, g) => gens[g]).join(" "));
    box.append(panel(p.seat, pos.to_act === p.seat, [
      ["prestige", p.prestige],
      ["time", el("span", {}, `${p.time} (lap `, meter(p.lap, p.lap_length), ")")],
      ["coins", p.coins],
      ["grain (farm)", meter(p.grain, 5)],
      ["cubes", counts(p.cubes)],
      ["goods", counts(p.goods)],
      ["family", fam.join("; ") || "-"],
      ["unborn", p.family.unborn ? p.family.unborn.map((n, g) => `g${g + 1}×${n}`).filter((_, g) => p.family.unborn[g]).join(" ") : "-"],
      ["travel markers", p.travel_markers.join(" ") || "-"],
      ["customers", p.customers.join(" ") || "-"],
    ]));
  }
}

function box(root, x, y, w, h, title, fill) {
  svg(root, "rect", { x, y, width: w, height: h, rx: 6, fill: fill || "#f7f3e8", stroke: "#998" });
  svg(root, "text", { x: x + 6, y: y + 15, "font-size": 13, "font-weight": 600 }, title);
}

function tokens(root, x, y, w, members) {
  // members: [{seat, generation}] as circles with the generation number, wrapped to width w
  const per = Math.max(1, Math.floor(w / 20));
  members.forEach((m, i) => {
    const cx = x + 9 + (i % per) * 20, cy = y + 9 + Math.floor(i / per) * 20;
    svg(root, "circle", { cx, cy, r: 8, fill: seatColour(m.seat), stroke: "#333" });
    svg(root, "text", { x: cx, y: cy + 4, "font-size": 10, "text-anchor": "middle", fill: "#fff" }, m.generation);
  });
}

function cubeRow(root, x, y, cubes) {
  let i = 0;
  for (const [kind, n] of Object.entries(cubes)) {
    if (!n) continue;
    const cx = x + i * 38;
    svg(root, "rect", { x: cx, y, width: 14, height: 14, fill: KIND_COLOURS[kind] || GREY, stroke: "#333" });
    svg(root, "text", { x: cx + 17, y: y + 12, "font-size": 12 }, `${n}`).append(
      Object.assign(document.createElementNS(SVGNS, "title"), { textContent: kind }));
    i++;
  }
}

function drawVillage(pos) {
  const root = $(state.board);
  root.replaceChildren();
  root.setAttribute("viewBox", "0 0 1000 720");
  svg(root, "text", { x: 10, y: 22, "font-size": 16, "font-weight": 600 },
    `Round ${pos.round} — ${pos.phase}` + (pos.to_act === null ? " — game over" : ` — seat ${pos.to_act} to act`) +
    ` — start player: seat ${pos.start_player}` +
    (pos.next_start_player === null ? "" : `, next: seat ${pos.next_start_player}`) +
    (pos.end.triggered ? " — END TRIGGERED" : "") + (pos.end.truncated ? " (truncated)" : ""));
  // action spaces A..G
  pos.spaces.forEach((sp, i) => {
    const x = 10 + i * 140, y = 34;
    box(root, x, y, 132, 90, `${sp.letter} ${sp.name}`);
    const entries = Object.entries(sp.cubes).filter(([, n]) => n);
    entries.forEach(([kind, n], j) => {
      const cx = x + 8 + (j % 3) * 40, cy = y + 26 + Math.floor(j / 3) * 22;
      svg(root, "rect", { x: cx, y: cy, width: 14, height: 14, fill: KIND_COLOURS[kind], stroke: "#333" });
      svg(root, "text", { x: cx + 17, y: cy + 12, "font-size": 12 }, `${n}`);
    });
  });
  // green bag and supply
  box(root, 10, 132, 300, 60, "Green bag");
  cubeRow(root, 18, 160, pos.bag);
  box(root, 320, 132, 670, 60, "Supply");
  cubeRow(root, 328, 160, pos.supply.cubes);
  svg(root, "text", { x: 530, y: 172, "font-size": 12 },
    `goods: ${counts(pos.supply.goods)} · grain ${pos.supply.grain} · coins ${pos.supply.coins}`);
  // council, crafts
  box(root, 10, 200, 300, 200, "Council");
  pos.council.forEach((lv, i) => {
    const y = 222 + (3 - i) * 44;
    svg(root, "rect", { x: 18, y, width: 284, height: 40, fill: "#fff", stroke: "#ccb" });
    svg(root, "text", { x: 24, y: y + 24, "font-size": 12 }, `level ${lv.level}`);
    tokens(root, 80, y + 2, 220, lv.members);
  });
  box(root, 320, 200, 330, 200, "Crafts");
  pos.crafts.forEach((b, i) => {
    const y = 222 + i * 44;
    svg(root, "rect", { x: 328, y, width: 314, height: 40, fill: "#fff", stroke: "#ccb" });
    svg(root, "text", { x: 334, y: y + 24, "font-size": 12 }, b.building);
    tokens(root, 420, y + 2, 220, b.members);
  });
  // church
  box(root, 660, 200, 330, 200, "Church");
  svg(root, "text", { x: 668, y: 236, "font-size": 12 }, `black bag (monks ${pos.church.monks_in_bag}):`);
  tokens(root, 800, 222, 180, pos.church.bag);
  pos.church.windows.forEach((w, i) => {
    const x = 668 + i * 80, y = 290;
    svg(root, "rect", { x, y, width: 74, height: 100, rx: 30, fill: "#e8f0ff", stroke: "#99a" });
    svg(root, "text", { x: x + 37, y: y + 16, "font-size": 12, "text-anchor": "middle" }, w.window);
    tokens(root, x + 2, y + 22, 70, w.members);
  });
  // travel map
  box(root, 10, 410, 480, 300, "Travel");
  const node = { 8: [60, 560] };
  const cx = [150, 150, 250, 260, 250, 360, 370, 450];
  const cy = [480, 640, 450, 560, 670, 480, 640, 560];
  pos.travel.cities.forEach((_, i) => { node[i] = [cx[i], cy[i]]; });
  for (const r of pos.travel.roads) {
    const [a, b] = [node[r.from], node[r.to]];
    svg(root, "line", { x1: a[0], y1: a[1], x2: b[0], y2: b[1], stroke: KIND_COLOURS[r.colour] || GREY, "stroke-width": 4 });
  }
  svg(root, "rect", { x: node[8][0] - 34, y: node[8][1] - 16, width: 68, height: 32, rx: 6, fill: "#fff", stroke: "#333" });
  svg(root, "text", { x: node[8][0], y: node[8][1] + 4, "font-size": 12, "text-anchor": "middle" }, "Village");
  pos.cities.forEach((c, i) => {
    const [x, y] = node[i];
    svg(root, "circle", { cx: x, cy: y, r: 24, fill: "#fff", stroke: "#333" });
    const rw = pos.travel.cities[i].reward;
    svg(root, "text", { x, y: y - 6, "font-size": 13, "font-weight": 600, "text-anchor": "middle" }, c.city);
    svg(root, "text", { x, y: y + 8, "font-size": 9, "text-anchor": "middle" }, `${rw.amount} ${rw.kind}`);
    c.markers.forEach((s, j) => {
      svg(root, "rect", { x: x - 24 + j * 12, y: y + 16, width: 10, height: 10, fill: seatColour(s), stroke: "#333" });
    });
    tokens(root, x + 20, y - 20, 40, c.members);
  });
  // market
  box(root, 500, 410, 490, 180, `Market${pos.market.active ? " — market day running" : ""} (pile ${pos.market.pile})`);
  const tile = (t, x, y) => {
    svg(root, "rect", { x, y, width: 90, height: 56, rx: 4, fill: t ? "#fffbe6" : "#eee", stroke: "#aa9" });
    if (!t) return;
    svg(root, "text", { x: x + 4, y: y + 14, "font-size": 12, "font-weight": 600 }, `${t.tile} · ${t.prestige}P`);
    Object.entries(t.demand).forEach(([k, n], j) => {
      svg(root, "text", { x: x + 4, y: y + 28 + j * 12, "font-size": 11 }, `${n} ${k}`);
    });
  };
  svg(root, "text", { x: 508, y: 448, "font-size": 11 }, "stalls");
  pos.market.stalls.forEach((t, i) => tile(t, 508 + i * 96, 452));
  svg(root, "text", { x: 508, y: 526, "font-size": 11 }, "waiting line");
  pos.market.waiting.forEach((t, i) => tile(t, 508 + i * 96, 530));
  // chronicle
  box(root, 500, 600, 490, 110, `Chronicle (graves ${pos.chronicle.graves_used}/${pos.chronicle.graves})`);
  pos.chronicle.sections.forEach((s, i) => {
    const x = 508 + i * 96;
    svg(root, "text", { x, y: 640, "font-size": 12 }, s.section);
    for (let j = 0; j < s.spaces; j++) {
      svg(root, "rect", { x: x + j * 18, y: 650, width: 14, height: 14, fill: j < s.used ? "#555" : "#fff", stroke: "#555" });
    }
    svg(root, "text", { x, y: 684, "font-size": 11 }, `${s.used}/${s.spaces}`);
  });
}

// -- Troyes -------------------------------------------------------------------------------------
function troyesPanels(pos) {
  const box = $(state.panels);
  box.replaceChildren();
  for (const p of pos.players) {
    const rows = [
      ["VP", p.vp],
      ["deniers", p.deniers],
      ["influence", meter(p.influence, 20)],
      ["citizens", `${p.citizens_supply} in supply / ${p.citizens_owned} owned`],
      ["on district", `${p.district_deniers} deniers`],
      ["cubes out", p.cubes_out],
      ["passed", p.passed ? "yes" : "no"],
    ];
    if ("final" in p) {
      rows.unshift(["final score", p.final]);
      rows.push(["characters", p.characters.join(", ") || "-"]);
    } else if (p.characters) {
      rows.push(["characters", `${p.characters.join(", ") || "-"} (yours, secret)`]);
    } else {
      rows.push(["characters", "secret until the end"]);
    }
    box.append(panel(p.seat, pos.to_act === p.seat, rows));
  }
}

function spaceDot(root, x, y, owner) {
  svg(root, "circle", { cx: x, cy: y, r: 11, fill: owner === null ? "#fff" : seatColour(owner), stroke: "#333" });
}

function drawTroyes(pos) {
  const root = $(state.board);
  root.replaceChildren();
  root.setAttribute("viewBox", "0 0 1000 760");
  svg(root, "text", { x: 10, y: 22, "font-size": 16, "font-weight": 600 },
    `Round ${pos.round}/${pos.rounds} — ${pos.phase}` +
    (pos.to_act === null ? " — game over" : ` — seat ${pos.to_act} to act`) +
    ` — start player: seat ${pos.start_player} — grey citizens in supply ${pos.grey_supply}`);
  // buildings
  pos.buildings.forEach((b, i) => {
    const x = 10 + i * 200, y = 34;
    box(root, x, y, 190, 150, `${b.building} (${b.colour})`, "#f3efe6");
    const flat = b.rows.every((row) => row.length === 1); // the Palace: one space per row
    b.rows.forEach((row, r) => {
      row.forEach((o, k) => spaceDot(root, x + 20 + (flat ? r : k) * 28,
        y + 40 + (flat ? 0 : r * 30), o));
    });
    const lying = Object.entries(b.lying).map(([o, n]) => `${o === "grey" ? "grey" : "seat " + o}×${n}`);
    svg(root, "text", { x: x + 6, y: y + 140, "font-size": 11 }, `lying: ${lying.join(", ") || "-"}`);
  });
  // cathedral
  box(root, 610, 34, 380, 150, "Cathedral", "#eef0f6");
  pos.cathedral.forEach((lv, l) => {
    const y = 150 - l * 40;
    svg(root, "text", { x: 618, y: y + 4, "font-size": 12 }, `level ${l + 1}`);
    lv.forEach((o, v) => {
      svg(root, "rect", { x: 680 + v * 48, y: y - 14, width: 40, height: 28, fill: o === null ? "#fff" : seatColour(o), stroke: "#333" });
      svg(root, "text", { x: 700 + v * 48, y: y + 5, "font-size": 12, "text-anchor": "middle" }, v + 1);
    });
  });
  // activity cards
  box(root, 10, 194, 980, 250, "Activity cards", "#f6f6f0");
  pos.activities.forEach((a, i) => {
    const col = Math.floor(i / 3), lvl = i % 3;
    const x = 20 + col * 325, y = 216 + lvl * 74;
    svg(root, "rect", { x, y, width: 315, height: 68, rx: 4, fill: a.card ? "#fff" : "#ddd", stroke: DICE_COLOURS[a.colour] === "#f4f4f4" ? "#999" : DICE_COLOURS[a.colour], "stroke-width": 3 });
    svg(root, "text", { x: x + 6, y: y + 16, "font-size": 13, "font-weight": 600 }, `${a.position} ${a.card || "(face down)"}`);
    const sup = a.supervisors.map((s) => `seat ${s.seat} (${s.slot})`).join(", ");
    svg(root, "text", { x: x + 6, y: y + 36, "font-size": 11 }, `supervisors: ${sup || "-"}`);
    const cubes = Object.entries(a.cubes).map(([s, n]) => `seat ${s}×${n}`).join(", ");
    svg(root, "text", { x: x + 6, y: y + 54, "font-size": 11 }, `cubes: ${cubes || "-"}`);
  });
  // event row
  box(root, 10, 454, 480, 296, `Events (drawn: Y ${pos.decks_drawn.yellow}, W ${pos.decks_drawn.white}, R ${pos.decks_drawn.red})`, "#f8eeee");
  pos.events.slice(0, 9).forEach((e, i) => {
    const y = 476 + i * 26;
    svg(root, "text", { x: 18, y: y + 12, "font-size": 12 }, `${e.position}. ${e.card} (${e.colour}; ${e.effect})`);
    e.flags.forEach((o, j) => {
      svg(root, "rect", { x: 330 + j * 22, y, width: 16, height: 16, fill: o === null ? "#fff" : seatColour(o), stroke: "#333" });
    });
  });
  if (pos.events.length > 9) svg(root, "text", { x: 18, y: 716, "font-size": 11 }, `… ${pos.events.length - 9} more`);
  const kept = pos.kept_events.map((k) => `${k.card} (${k.by === "out" ? "out" : "seat " + k.by})`).join(", ");
  svg(root, "text", { x: 18, y: 740, "font-size": 11 }, `kept: ${kept || "-"}`);
  // districts and dice
  box(root, 500, 454, 490, 296, "Districts (dice)", "#eef6ee");
  pos.districts.forEach((d, i) => {
    const y = 482 + i * 50;
    const name = d.district === "neutral" ? "neutral" : `seat ${d.district}`;
    svg(root, "text", { x: 508, y: y + 14, "font-size": 12, fill: d.district === "neutral" ? "#333" : seatColour(d.district), "font-weight": 600 }, name);
    let j = 0;
    for (const die of d.dice) {
      for (let c = 0; c < die.count; c++, j++) {
        const x = 580 + j * 28;
        svg(root, "rect", { x, y, width: 22, height: 22, rx: 4, fill: DICE_COLOURS[die.colour], stroke: "#333" });
        svg(root, "text", { x: x + 11, y: y + 16, "font-size": 13, "text-anchor": "middle" }, die.value);
      }
    }
  });
  if (pos.black_dice.length) {
    svg(root, "text", { x: 508, y: 740, "font-size": 12 }, `black dice to counter: ${pos.black_dice.join(" ")}`);
  }
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
      `: ${st.describe}`));
  }
  const pos = v.position;
  if (pos.game === "village") { drawVillage(pos); villagePanels(pos); }
  else { drawTroyes(pos); troyesPanels(pos); }
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
  try { await loadStore(); } catch (e) { showError(e.message); return; }
  await route();
});
