"""Village as the viewer (training.view) draws it: the position JSON and its page drawing.

`position(state, T, viewer)` reads only named layout segments (`LAYOUT.view`) and labels them
with the names of the rules data; Village hides nothing but the RNG words, which are never read.
`FIELDS` documents every top-level field (the viewer's tests hold the two to the same names).
`SCRIPT` is the page's drawing of these positions (view.js, next to this module), served by the
viewer and registered with the page as `registerGame("village", ...)`.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from village_env import layout as vl
from village_env import rules_data as vrd
from village_env import tables as vt

SCRIPT = "view.js"

FIELDS = {
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


def _seat(x) -> int | None:
    return None if int(x) < 0 else int(x)


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


def position(state: np.ndarray, T: np.ndarray, viewer: int | None = None) -> dict[str, Any]:
    """The public Village position (fields: FIELDS); every number a rules variant can change is
    read from T, the tables in use. Village hides nothing but the RNG, so every seat's view
    (`viewer`) is the spectator's."""

    def v(name):
        return vl.LAYOUT.view(state, name)

    n = int(v("n_players")[0])
    mem = v("members")
    lap = int(T[vt.T_LAP])
    players = [_player(v, mem, p, lap) for p in range(n)]
    return {
        "game": "village",
        "players": players,
        "round": int(v("round")[0]),
        "phase": vl.PHASE_NAMES[int(v("phase")[0])],
        "to_act": _seat(v("actor")[0]),
        "turn_player": int(v("turn_player")[0]),
        "start_player": int(v("start_player")[0]),
        "next_start_player": _seat(v("ns_holder")[0]),
        **_spaces_and_market(v, T),
        "travel": {
            "village": vrd.VILLAGE_NODE,
            "cities": [
                {"city": c, "reward": {"kind": k, "amount": int(a)}}
                for c, (k, a) in zip(vrd.CITIES, _city_rewards(T), strict=True)
            ],
            "roads": _roads(T),
        },
        **_family_places(v, mem, n),
        "chronicle": _chronicle(v, T),
        "end": {
            "triggered": bool(v("triggered")[0]),
            "final_turns": bool(v("in_final")[0]),
            "over": bool(v("game_over")[0]),
            "truncated": bool(v("truncated")[0]),
        },
    }


def _player(v, mem: np.ndarray, p: int, lap: int) -> dict[str, Any]:
    """Seat `p`'s entry of the position's players (`v` reads a named segment of the state)."""
    family = {}
    for loc in range(vl.N_LOC):
        gens = [int(x) for x in mem[p, loc]]
        if sum(gens):
            family[_loc_name(loc)] = gens
    return {
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
        "travel_markers": [vrd.CITIES[c] for c in range(len(vrd.CITIES)) if v("markers")[p, c]],
        "customers": [
            f"T{t + 1}" for t in range(v("tile_owner").shape[0]) if v("tile_owner")[t] == p
        ],
    }


def _spaces_and_market(v, T: np.ndarray) -> dict[str, Any]:
    """The fields spaces, bag, supply and market of the position."""
    kinds = vrd.CUBE_KINDS
    board = v("board")
    return {
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
    }


def _family_places(v, mem: np.ndarray, n: int) -> dict[str, Any]:
    """The fields council, crafts, cities and church of the position: the family members (seat,
    generation) at each place, the travel markers of each city and the monks in the bag."""
    return {
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
    }


def _chronicle(v, T: np.ndarray) -> dict[str, Any]:
    """The chronicle field: spaces used and spaces in all per section, anonymous graves."""
    chron = v("chron_used")
    return {
        "sections": [
            {"section": s, "used": int(chron[i]), "spaces": _chronicle_spaces(T, i)}
            for i, s in enumerate(vrd.SECTIONS)
        ],
        "graves_used": int(v("graves_used")[0]),
        "graves": int(T[vt.T_GRAVES : vt.T_GRAVES + vt.SHAPES["graves"][0]].sum()),
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
