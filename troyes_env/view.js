// Troyes as the viewer page draws it (training/view/static/viewer.js loads this file for a
// Troyes game): the board in SVG and a panel per player, from the position JSON of
// troyes_env/view.py (its FIELDS say what each field holds). Every text goes into the page as
// text, never as markup.
"use strict";

registerGame("troyes", (kit) => {
  const { svg, panel, meter, box, seatColour } = kit;
  const DICE_COLOURS = { yellow: "#f4d03f", white: "#f4f4f4", red: "#e74c3c" };

  function panels(box, pos) {
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

  function draw(root, pos) {
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

  return { draw, panels };
});
