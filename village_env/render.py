"""Words for actions (`describe`) and a text board (`render`).

Both take the rules tables in use (`T`, what the Game passes: a loaded rules variant's, never the
module default), and every number they print that a variant can change is read from `T`.
"""

from __future__ import annotations

import numpy as np

from village_env import rules_data as rd
from village_env.actions import ACTIONS, RECALL_LOCS, VISIBLE_LOCS
from village_env.layout import (
    LAYOUT,
    LOC_BAG,
    LOC_CHRONICLE,
    LOC_CITY,
    LOC_COUNCIL,
    LOC_CRAFT,
    LOC_FARM,
    LOC_GRAVE,
    LOC_REMOVED,
    LOC_UNBORN,
    LOC_WINDOW,
    PH_CHOOSE,
    PH_CRAFT_PRODUCE,
    PH_MARKET,
    PH_MASS_ADVANCE,
    PH_MASS_PICK,
    PH_PRIVILEGE,
    PHASE_NAMES,
)
from village_env.tables import (
    E_NODE_A,
    E_NODE_B,
    EDGE_ROW,
    T_CHURCH_BROWN,
    T_CHURCH_TIME,
    T_COUNCIL_GREEN,
    T_COUNCIL_SCROLL,
    T_CUSTOMER_DEMAND,
    T_CUSTOMER_VALUE,
    T_EDGES,
    T_MASS_PICK_COINS,
    T_PRIVILEGE_COIN,
    T_PRIVILEGE_CUBES,
    T_PRIVILEGE_GOODS,
    T_PRIVILEGE_PRESTIGE,
    T_WELL_CUBES,
)

_NUMBER_WORDS = ("no", "one", "two", "three", "four", "five", "six")


def loc_name(loc: int) -> str:
    if loc == LOC_UNBORN:
        return "unborn"
    if loc == LOC_FARM:
        return "farmyard"
    if LOC_CRAFT <= loc < LOC_COUNCIL:
        return rd.BUILDINGS[loc - LOC_CRAFT]
    if LOC_COUNCIL <= loc < LOC_CITY:
        return f"council level {loc - LOC_COUNCIL + 1}"
    if LOC_CITY <= loc < LOC_BAG:
        return f"city {rd.CITIES[loc - LOC_CITY]}"
    if loc == LOC_BAG:
        return "black bag"
    if LOC_WINDOW <= loc < LOC_CHRONICLE:
        return f"window W{loc - LOC_WINDOW + 1}"
    return {LOC_CHRONICLE: "chronicle", LOC_GRAVE: "grave", LOC_REMOVED: "removed"}[loc]


def tile_words(t: int, tables: np.ndarray) -> str:
    dem = tables[T_CUSTOMER_DEMAND + 6 * t : T_CUSTOMER_DEMAND + 6 * t + 6]
    names = list(rd.GOODS) + ["grain"]
    parts = [f"{k} {names[i]}" if k > 1 else names[i] for i, k in enumerate(dem) if k]
    return f"T{t + 1} ({' + '.join(parts)}, {tables[T_CUSTOMER_VALUE + t]} prestige)"


def _node(i: int) -> str:
    return "the Village" if i == rd.VILLAGE_NODE else f"city {rd.CITIES[i]}"


def _count(k: int, what: str) -> str:
    """k of `what` in words: "two influence cubes", "a goods tile", "7 goods tiles"."""
    if k == 1:
        return f"{'an' if what[0] in 'aeiou' else 'a'} {what}"
    return f"{_NUMBER_WORDS[k] if k < len(_NUMBER_WORDS) else k} {what}s"


def _coins(k: int) -> str:
    return f"{k} coin" if k == 1 else f"{k} coins"


def describe(action: int, state: np.ndarray | None, T: np.ndarray) -> str:
    """Words for an action (T: the rules tables in use); with a state, worded for the current
    phase."""
    name, idx = ACTIONS.decode(action)
    v = (lambda k: LAYOUT.view(state, k)) if state is not None else None
    phase = int(v("phase")[0]) if v else -1
    gen = lambda g: f"generation-{g + 1} member"  # noqa: E731
    if name == "take":
        what = rd.CUBE_KINDS[idx[1]]
        art = "an" if what[0] in "aeiou" else "a"
        return f"take {art} {what} cube from {rd.SPACES[idx[0]]}"
    if name == "well":
        return f"use the Well paying {int(T[T_WELL_CUBES])} {rd.COLOURS[idx[0]]}"
    if name == "done":
        return {
            PH_CHOOSE: "decline the action",
            PH_CRAFT_PRODUCE: "do not produce",
            PH_PRIVILEGE: "use no privilege",
            PH_MARKET: "pass (out of this market day)",
            PH_MASS_PICK: "stop picking from the black bag",
            PH_MASS_ADVANCE: "stop advancing in the church",
        }.get(phase, "decline / pass / stop")
    if name == "harvest":
        return "grain harvest"
    if name == "birth":
        return "family: birth"
    if name == "recall":
        return f"family: recall a {gen(idx[1])} from {loc_name(RECALL_LOCS[idx[0]])}"
    if name == "craft_place":
        return f"crafts: place a {gen(idx[1])} on the {rd.BUILDINGS[idx[0]]}"
    if name == "craft_produce":
        return f"crafts: produce a {rd.GOODS[idx[0]]} (time)"
    if name == "craft_buy":
        return f"crafts: purchase a {rd.GOODS[idx[0]]}"
    if name == "mill":
        return "crafts: the mill (time + grain -> coins)"
    if name == "market":
        return "open a market day"
    if name == "travel":
        e, d, g = idx
        a, b = int(T[T_EDGES + EDGE_ROW * e + E_NODE_A]), int(T[T_EDGES + EDGE_ROW * e + E_NODE_B])
        src, dst = (a, b) if d == 0 else (b, a)
        return f"travel: a {gen(g)} from {_node(src)} to {_node(dst)}"
    council_pay = (f"{int(T[T_COUNCIL_GREEN])} green", f"{int(T[T_COUNCIL_SCROLL])} scroll")
    if name == "council_enter":
        return f"council: enter with a {gen(idx[0])}, paying {council_pay[idx[1]]}"
    if name == "council_climb":
        lv, g, pay = idx
        return (
            f"council: climb a {gen(g)} from level {lv + 1} to {lv + 2}, paying {council_pay[pay]}"
        )
    if name == "council_privilege":
        return "council: privilege only"
    if name == "privilege":
        return (
            "privilege 1: take the next start player marker",
            f"privilege 2: {_count(int(T[T_PRIVILEGE_CUBES]), 'influence cube')} of choice",
            f"privilege 3: {_count(int(T[T_PRIVILEGE_GOODS]), 'goods tile')} of choice",
            f"privilege 4: pay {_coins(int(T[T_PRIVILEGE_COIN]))} for "
            f"{int(T[T_PRIVILEGE_PRESTIGE])} prestige",
        )[idx[0]]
    if name == "church":
        pay = (f"{int(T[T_CHURCH_BROWN])} brown", f"{int(T[T_CHURCH_TIME])} time")[idx[1]]
        return f"church: a {gen(idx[0])} into the black bag, paying {pay}"
    if name == "choose_cube":
        c = rd.COLOURS[idx[0]]
        return f"take {'an' if c[0] in 'aeiou' else 'a'} {c} cube"
    if name == "choose_good":
        return f"take a {rd.GOODS[idx[0]]}"
    if name == "serve":
        if state is not None and v("stalls")[idx[0]] >= 0:
            tile = tile_words(int(v("stalls")[idx[0]]), T)
            return f"market day: serve stall {idx[0] + 1}: {tile}"
        return f"market day: serve the customer on stall {idx[0] + 1}"
    if name == "die":
        return f"death: the lowest-generation member on {loc_name(VISIBLE_LOCS[idx[0]])} dies"
    if name == "mass_pick":
        coins = _coins(int(T[T_MASS_PICK_COINS]))
        return f"Mass: pick an own {gen(idx[0])} from the black bag ({coins})"
    if name == "mass_advance":
        w, g = idx
        return f"Mass: move a {gen(g)} from window W{w + 1} to W{w + 2}"
    return name


def render(state: np.ndarray, T: np.ndarray) -> str:
    """A readable text board (T: the rules tables in use)."""
    v = lambda k: LAYOUT.view(state, k)  # noqa: E731
    n = int(v("n_players")[0])
    lines = [
        f"Village, {n} players | round {int(v('round')[0])} | phase: "
        f"{PHASE_NAMES[int(v('phase')[0])]} | to act: "
        + (f"player_{int(v('actor')[0])}" if v("actor")[0] >= 0 else "nobody (game over)")
        + f" | start player: player_{int(v('start_player')[0])}"
    ]
    board = v("board")
    lines.append(
        "board: "
        + "  ".join(
            f"{rd.SPACES[sp]}["
            + ",".join(f"{rd.CUBE_KINDS[k][:2]}{board[sp, k]}" for k in range(5) if board[sp, k])
            + "]"
            for sp in range(7)
        )
    )
    lines.append("stalls: " + "; ".join(tile_words(int(t), T) for t in v("stalls") if t >= 0))
    lines.append(
        "waiting: "
        + "; ".join(tile_words(int(t), T) for t in v("queue") if t >= 0)
        + f" | pile {int(v('pile').sum())}"
    )
    lines.append(
        f"chronicle {v('chron_used').tolist()} (council, crafts, travel, church, "
        f"farmyard) graves {int(v('graves_used')[0])}"
        + (" | END TRIGGERED" if v("triggered")[0] else "")
    )
    mem = v("members")
    for p in range(n):
        where = []
        for loc in range(mem.shape[1]):
            gens = mem[p, loc]
            if gens.sum() and loc != LOC_UNBORN:
                where.append(
                    f"{loc_name(loc)}:" + "".join(str(g + 1) * int(gens[g]) for g in range(4))
                )
        goods = ",".join(f"{rd.GOODS[g]}{v('goods')[p, g]}" for g in range(5) if v("goods")[p, g])
        cubes = ",".join(f"{rd.COLOURS[c]}{v('cubes')[p, c]}" for c in range(4) if v("cubes")[p, c])
        lines.append(
            f"player_{p}: prestige {int(v('prestige')[p])} time {int(v('time')[p])} coins "
            f"{int(v('coins')[p])} grain {int(v('grain')[p])} cubes[{cubes}] goods[{goods}] "
            f"markers {int(v('markers')[p].sum())} customers {int((v('tile_owner') == p).sum())}"
        )
        lines.append("   members " + " ".join(where))
    return "\n".join(lines)
