// Village as the viewer page draws it (training/view/static/viewer.js loads this file for a
// Village game): the board in SVG and a panel per player, from the position JSON of
// village_env/view.py (its FIELDS say what each field holds). Every text goes into the page as
// text, never as markup.
"use strict";

registerGame("village", (kit) => {
  const { svg, panel, counts, meter, box, seatColour, GREY } = kit;
  const KIND_COLOURS = {
    brown: "#8b5a2b", pink: "#e78ac3", orange: "#f39c12", green: "#27ae60", plague: "#222",
  };

  function panels(box, pos) {
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
      svg(svg(root, "text", { x: cx + 17, y: y + 12, "font-size": 12 }, `${n}`), "title", {}, kind);
      i++;
    }
  }

  function draw(root, pos) {
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

  return { draw, panels };
});
