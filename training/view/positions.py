"""A state as the viewer draws it: a JSON dict of named, documented fields per game.

Only public information goes out. Every field is read from a named, non-hidden layout segment
(`LAYOUT.view`) and labelled with the names of the game's rules data (`<game>_env/rules_data.py`);
the hidden segments (the RNG words; Troyes' face-down Activity cards, event decks and Character
cards) are never read, except that a finished Troyes game's final scoring reveals every Character
card, so a finished position lists them. By default the viewer is a spectator: no seat's secrets
are shown. With `viewer=SEAT` (play mode: a human plays that seat) the position is that seat's
point of view: its own Troyes Character cards are listed too (the `chars` row of that seat only).

`position(game, state)` picks the game; `FIELDS[game name]` documents every top-level field (the
tests hold the two to the same set of names).
"""

from __future__ import annotations

from types import ModuleType
from typing import Any

import numpy as np

from troyes_env import layout as tl
from troyes_env import rules_data as trd
from village_env import layout as vl
from village_env import rules_data as vrd
from village_env import tables as vt

VILLAGE_FIELDS = {
    "game": "'village'",
    "round": "current round, 1-based",
    "phase": "the decision the actor faces (PHASE_NAMES)",
    "to_act": "seat that must decide now; null once the game is over",
    "turn_player": "seat whose turn it is (or was, during the Mass)",
    "start_player": "seat holding the start player marker",
    "next_start_player": "seat holding the next start player marker; null: in the chamber",
    "spaces": "action spaces A..G: letter, name, cubes on it by kind (4 colours, plague)",
    "bag": "cubes in the green bag by kind",
    "supply": "general supply: cubes by kind, goods by name, grain, coins",
    "market": "market day running, stalls and waiting line (customer tiles; null empty), pile size",
    "travel": "the travel map: cities (letter, reward), roads (from, to, colour), the Village node",
    "council": "council levels 1..4: members on each (seat, generation)",
    "crafts": "craft buildings: members on each (seat, generation)",
    "cities": "cities A..H: members on each (seat, generation) and seats with a travel marker",
    "church": "black bag (members, monks) and windows W1..W4 (members)",
    "chronicle": "chronicle sections: spaces used and spaces in all; anonymous graves used",
    "end": "end of game triggered, final turns running, game over, truncated by the round cap",
    "players": "per seat: prestige, time (and lap position), coins, grain, cubes, goods, family "
    "by place, travel markers, customers served",
}

TROYES_FIELDS = {
    "game": "'troyes'",
    "round": "current round (0 during pre-placement)",
    "rounds": "rounds in the game (red event cards kept)",
    "phase": "the decision the state waits for (PHASE_NAMES)",
    "to_act": "seat that must decide now; null once the game is over",
    "start_player": "seat holding the start player card",
    "buildings": "Palace, Bishopric, City Hall: rows of spaces (owner: seat, 'grey' or null), "
    "citizens lying beside the building by owner",
    "activities": "the nine Activity card positions (colour, level): the card once revealed "
    "(null face down), supervisors (seat, slot), cubes by seat",
    "cathedral": "Cathedral levels 1..3: owner of the space of each die value 1..6",
    "events": "the event row: card, effect, flag spaces (owner)",
    "kept_events": "event cards kept (by seat, or 'out' when they left the game)",
    "decks_drawn": "event decks yellow, white, red: cards drawn so far (their order is hidden)",
    "districts": "dice per district (each seat's, then the neutral one): colour, value, count",
    "black_dice": "black dice values still to counter",
    "grey_supply": "grey citizens in the general supply",
    "over": "the game is over",
    "players": "per seat: deniers, influence, VP, citizens in supply / owned, passed, deniers "
    "on the district, cubes out; once the game is over the final score and the Character cards "
    "(in play mode the human's own Character cards all along)",
}

FIELDS = {"village": VILLAGE_FIELDS, "troyes": TROYES_FIELDS}


def position(game: ModuleType, state: np.ndarray, viewer: int | None = None) -> dict[str, Any]:
    """The position of `state` as a JSON-ready dict: public only (a spectator), or as seat
    `viewer` sees it (see the module docstring)."""
    if game.NAME == "village":
        return village_position(state, game.TABLES)  # Village hides nothing but the RNG
    if game.NAME == "troyes":
        return troyes_position(state, viewer)
    raise ValueError(f"no viewer positions for game {game.NAME!r}")


def _seat(x) -> int | None:
    return None if int(x) < 0 else int(x)


# -- Village ------------------------------------------------------------------------------------


def _tile(t: int, T: np.ndarray) -> dict[str, Any] | None:
    if t < 0:
        return None
    dem = T[vt.T_CUSTOMER_DEMAND + 6 * t : vt.T_CUSTOMER_DEMAND + 6 * t + 6]
    names = list(vrd.GOODS) + ["grain"]
    return {
        "tile": f"T{t + 1}",
        "demand": {names[i]: int(k) for i, k in enumerate(dem) if k},
        "prestige": int(T[vt.T_CUSTOMER_VALUE + t]),
    }


def _members_at(mem: np.ndarray, n: int, loc: int) -> list[dict[str, int]]:
    return [
        {"seat": p, "generation": g + 1}
        for p in range(n)
        for g in range(vl.N_GEN)
        for _ in range(int(mem[p, loc, g]))
    ]


def _city_rewards(T: np.ndarray) -> list[tuple[str, int]]:
    """(kind, amount) of each city's reward in tables T."""
    row = vt.CITY_REWARD_ROW
    rows = T[vt.T_CITY_REWARD : vt.T_CITY_REWARD + row * len(vrd.CITIES)].reshape(-1, row)
    return [(vrd.REWARD_KINDS[int(k)], int(a)) for k, a in rows]


def _roads(T: np.ndarray) -> list[dict[str, Any]]:
    """The travel edges of tables T: their ends (node ids) and colour."""
    row = vt.EDGE_ROW
    edges = T[vt.T_EDGES : vt.T_EDGES + row * vt.SHAPES["edges"][0]].reshape(-1, row)
    return [
        {
            "from": int(e[vt.E_NODE_A]),
            "to": int(e[vt.E_NODE_B]),
            "colour": vrd.COLOURS[e[vt.E_COLOUR]],
        }
        for e in edges
    ]


def _chronicle_spaces(T: np.ndarray, section: int) -> int:
    """Spaces of chronicle section `section` in tables T."""
    off = vt.T_CHRONICLE + vt.CHRONICLE_ROW * section
    return int(T[off : off + vt.CHRONICLE_ROW].sum())


def village_position(state: np.ndarray, T: np.ndarray) -> dict[str, Any]:
    """The public Village position (fields: VILLAGE_FIELDS); every number a rules variant can
    change is read from T, the tables in use."""

    def v(name):
        return vl.LAYOUT.view(state, name)

    n = int(v("n_players")[0])
    kinds = vrd.CUBE_KINDS
    board, mem = v("board"), v("members")
    players = []
    lap = int(T[vt.T_LAP])
    for p in range(n):
        family = {}
        for loc in range(vl.N_LOC):
            gens = [int(x) for x in mem[p, loc]]
            if sum(gens):
                family[_loc_name(loc)] = gens
        players.append(
            {
                "seat": p,
                "prestige": int(v("prestige")[p]),
                "time": int(v("time")[p]),
                "lap": int(v("time")[p]) % lap,
                "lap_length": lap,
                "coins": int(v("coins")[p]),
                "grain": int(v("grain")[p]),
                "cubes": {c: int(v("cubes")[p, i]) for i, c in enumerate(vrd.COLOURS)},
                "goods": {g: int(v("goods")[p, i]) for i, g in enumerate(vrd.GOODS)},
                "family": family,
                "travel_markers": [
                    vrd.CITIES[c] for c in range(len(vrd.CITIES)) if v("markers")[p, c]
                ],
                "customers": [
                    f"T{t + 1}" for t in range(v("tile_owner").shape[0]) if v("tile_owner")[t] == p
                ],
            }
        )
    chron = v("chron_used")
    return {
        "game": "village",
        "players": players,
        "round": int(v("round")[0]),
        "phase": vl.PHASE_NAMES[int(v("phase")[0])],
        "to_act": _seat(v("actor")[0]),
        "turn_player": int(v("turn_player")[0]),
        "start_player": int(v("start_player")[0]),
        "next_start_player": _seat(v("ns_holder")[0]),
        "spaces": [
            {
                "letter": "ABCDEFG"[sp],
                "name": vrd.SPACES[sp],
                "cubes": {k: int(board[sp, i]) for i, k in enumerate(kinds)},
            }
            for sp in range(vl.N_SPACES)
        ],
        "bag": {k: int(v("bag")[i]) for i, k in enumerate(kinds)},
        "supply": {
            "cubes": {k: int(v("supply_cubes")[i]) for i, k in enumerate(kinds)},
            "goods": {g: int(v("supply_goods")[i]) for i, g in enumerate(vrd.GOODS)},
            "grain": int(v("supply_grain")[0]),
            "coins": int(v("supply_coins")[0]),
        },
        "market": {
            "active": bool(v("mkt_active")[0]),
            "stalls": [_tile(int(t), T) for t in v("stalls")],
            "waiting": [_tile(int(t), T) for t in v("queue")],
            "pile": int(v("pile").sum()),
        },
        "travel": {
            "village": vrd.VILLAGE_NODE,
            "cities": [
                {"city": c, "reward": {"kind": k, "amount": int(a)}}
                for c, (k, a) in zip(vrd.CITIES, _city_rewards(T), strict=True)
            ],
            "roads": _roads(T),
        },
        "council": [
            {"level": lv + 1, "members": _members_at(mem, n, vl.LOC_COUNCIL + lv)}
            for lv in range(vl.N_LEVELS)
        ],
        "crafts": [
            {"building": b, "members": _members_at(mem, n, vl.LOC_CRAFT + i)}
            for i, b in enumerate(vrd.BUILDINGS)
        ],
        "cities": [
            {
                "city": c,
                "members": _members_at(mem, n, vl.LOC_CITY + i),
                "markers": [p for p in range(n) if v("markers")[p, i]],
            }
            for i, c in enumerate(vrd.CITIES)
        ],
        "church": {
            "bag": _members_at(mem, n, vl.LOC_BAG),
            "monks_in_bag": int(v("monks_bag")[0]),
            "windows": [
                {"window": f"W{w + 1}", "members": _members_at(mem, n, vl.LOC_WINDOW + w)}
                for w in range(vl.N_WINDOWS)
            ],
        },
        "chronicle": {
            "sections": [
                {"section": s, "used": int(chron[i]), "spaces": _chronicle_spaces(T, i)}
                for i, s in enumerate(vrd.SECTIONS)
            ],
            "graves_used": int(v("graves_used")[0]),
            "graves": int(T[vt.T_GRAVES : vt.T_GRAVES + vt.SHAPES["graves"][0]].sum()),
        },
        "end": {
            "triggered": bool(v("triggered")[0]),
            "final_turns": bool(v("in_final")[0]),
            "over": bool(v("game_over")[0]),
            "truncated": bool(v("truncated")[0]),
        },
    }


def _loc_name(loc: int) -> str:
    if loc == vl.LOC_UNBORN:
        return "unborn"
    if loc == vl.LOC_FARM:
        return "farmyard"
    if vl.LOC_CRAFT <= loc < vl.LOC_COUNCIL:
        return vrd.BUILDINGS[loc - vl.LOC_CRAFT]
    if vl.LOC_COUNCIL <= loc < vl.LOC_CITY:
        return f"council {loc - vl.LOC_COUNCIL + 1}"
    if vl.LOC_CITY <= loc < vl.LOC_BAG:
        return f"city {vrd.CITIES[loc - vl.LOC_CITY]}"
    if loc == vl.LOC_BAG:
        return "black bag"
    if vl.LOC_WINDOW <= loc < vl.LOC_CHRONICLE:
        return f"window W{loc - vl.LOC_WINDOW + 1}"
    return {vl.LOC_CHRONICLE: "chronicle", vl.LOC_GRAVE: "grave", vl.LOC_REMOVED: "removed"}[loc]


# -- Troyes -------------------------------------------------------------------------------------

_T_COLOURS = ("yellow", "white", "red")
_T_BUILDINGS = ("Palace", "Bishopric", "City Hall")
_T_ROWS = ((6, 1), (3, 2), (2, 3))  # rows x places per building (layout docstring)
_T_SLOTS = {1: "slot 1", 2: "slot 2", 3: "artisan"}


def _owner(o) -> int | str | None:
    o = int(o)
    return None if o < 0 else ("grey" if o == 4 else o)


def troyes_position(state: np.ndarray, viewer: int | None = None) -> dict[str, Any]:
    """The public Troyes position (fields: TROYES_FIELDS); hidden segments are never read,
    Character cards only once the game is over (the final scoring reveals them), except the
    `viewer` seat's own ones (play mode), which that seat always sees."""

    def v(name):
        if tl.LAYOUT.segments[name].hidden and not (name == "chars" and over):
            raise KeyError(f"hidden segment {name!r}")  # a guard: never reached by this code
        return tl.LAYOUT.view(state, name)

    def own_chars(p: int) -> list[str]:  # only the viewer's own row of the hidden segment
        assert viewer is not None and p == viewer
        return [trd.CHARACTER_NAMES[int(x)] for x in tl.LAYOUT.view(state, "chars")[p] if x >= 0]

    over = int(tl.LAYOUT.view(state, "phase")[0]) == tl.PH_OVER
    n = int(v("n_players")[0])
    spaces, lying = v("spaces"), v("lying")
    buildings = []
    for b, (rows, places) in enumerate(_T_ROWS):
        own = spaces[b * tl.BLD_SPACES : (b + 1) * tl.BLD_SPACES]
        buildings.append(
            {
                "building": _T_BUILDINGS[b],
                "colour": _T_COLOURS[int(trd.BUILDING_COLOUR[trd.Building(b)])],
                "rows": [
                    [_owner(x) for x in own[r * places : (r + 1) * places]] for r in range(rows)
                ],
                "lying": {
                    ("grey" if o == 4 else str(o)): int(lying[b, o])
                    for o in range(5)
                    if lying[b, o]
                },
            }
        )
    ac, sup, cubes = v("act_card"), v("sup"), v("act_cubes")
    activities = [
        {
            "position": f"{'YWR'[pos // 3]}{pos % 3 + 1}",
            "colour": _T_COLOURS[pos // 3],
            "level": pos % 3 + 1,
            "card": trd.ACTIVITY_NAMES[int(ac[pos])] if ac[pos] >= 0 else None,
            "supervisors": [
                {"seat": q, "slot": _T_SLOTS[int(sup[pos, q])]} for q in range(n) if sup[pos, q]
            ],
            "cubes": {str(q): int(cubes[pos, q]) for q in range(n) if cubes[pos, q]},
        }
        for pos in range(tl.N_ACTPOS)
    ]
    rc, fl = v("row_card"), v("row_flags")
    events = []
    for i in range(tl.NROW):
        c = int(rc[i])
        if c < 0:
            continue
        card = trd.EVENT_CARDS[c]
        events.append(
            {
                "position": i,
                "card": trd.EVENT_NAMES[c],
                "colour": "marauding" if card[2] < 0 else _T_COLOURS[int(card[2])],
                "effect": trd.EventEffect(int(card[4])).name.lower().replace("_", " "),
                "flags": [_owner(x) for x in fl[i, : int(card[9])]],
            }
        )
    dice = v("dice")
    districts = []
    for d in range(tl.N_DIST):
        if d >= n and d != tl.N_DIST - 1:
            continue
        districts.append(
            {
                "district": "neutral" if d == tl.N_DIST - 1 else d,
                "dice": [
                    {"colour": _T_COLOURS[c], "value": val + 1, "count": int(dice[d, c, val])}
                    for c in range(tl.N_COL)
                    for val in range(tl.N_VAL)
                    if dice[d, c, val]
                ],
            }
        )
    players = []
    for p in range(n):
        pl = {
            "seat": p,
            "deniers": int(v("deniers")[p]),
            "influence": int(v("influence")[p]),
            "vp": int(v("vp")[p]),
            "citizens_supply": int(v("supply")[p]),
            "citizens_owned": int(v("owned")[p]),
            "passed": bool(v("passed")[p]),
            "district_deniers": int(v("dist_den")[p]),
            "cubes_out": int(v("cubes_out")[p]),
        }
        if over:
            pl["final"] = int(v("final")[p])
            pl["characters"] = [trd.CHARACTER_NAMES[int(x)] for x in v("chars")[p] if x >= 0]
        elif viewer is not None and p == int(viewer):
            pl["characters"] = own_chars(p)
        players.append(pl)
    kept = v("kept_by")
    return {
        "game": "troyes",
        "players": players,
        "round": int(v("round")[0]),
        "rounds": int(v("n_rounds")[0]),
        "phase": tl.PHASE_NAMES[int(v("phase")[0])],
        "to_act": _seat(v("cur")[0]),
        "start_player": int(v("start_player")[0]),
        "buildings": buildings,
        "activities": activities,
        "cathedral": [[_owner(x) for x in v("cath")[lv]] for lv in range(3)],
        "events": events,
        "kept_events": [
            {"card": trd.EVENT_NAMES[c], "by": "out" if kept[c] == 4 else int(kept[c])}
            for c in range(kept.shape[0])
            if kept[c] >= 0
        ],
        "decks_drawn": {col: int(v("deck_drawn")[i]) for i, col in enumerate(_T_COLOURS)},
        "districts": districts,
        "black_dice": [val + 1 for val in range(6) for _ in range(int(v("black")[val]))],
        "grey_supply": int(v("grey_supply")[0]),
        "over": over,
    }
