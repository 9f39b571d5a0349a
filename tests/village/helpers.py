"""Scenario-test helpers: build Village states that keep every conservation law.

Resources move from/to the supply, members move between locations, cubes move between the
supply, the bag and the board; so `V.check_invariants` still holds on a built state.
"""

from __future__ import annotations

import numpy as np

import village_env as V
from village_env import rules_data as rd
from village_env.actions import ACTIONS, RECALL_LOCS, VISIBLE_LOCS
from village_env.engine import rounds
from village_env.engine.step import settle
from village_env.layout import (
    LAYOUT,
    LOC_BAG,
    LOC_CITY,
    LOC_COUNCIL,
    LOC_CRAFT,
    LOC_FARM,
    LOC_UNBORN,
    LOC_WINDOW,
)

COL = {c: i for i, c in enumerate(rd.COLOURS)} | {"plague": 4}
GOOD = {g: i for i, g in enumerate(rd.GOODS)}
SPACE = {s: i for i, s in enumerate(rd.SPACES)}
BLD = {b: i for i, b in enumerate(rd.BUILDINGS)}
CITY = {c: i for i, c in enumerate(rd.CITIES)}


def v(s, name):
    """Writable view of a state segment."""
    return LAYOUT.view(s, name)


def give(s, p, *, grain=0, coins=0, goods=None, cubes=None):
    """Move resources from the supply to player p (negative amounts give back)."""
    v(s, "supply_grain")[0] -= grain
    v(s, "grain")[p] += grain
    v(s, "supply_coins")[0] -= coins
    v(s, "coins")[p] += coins
    for g, k in (goods or {}).items():
        v(s, "supply_goods")[GOOD[g]] -= k
        v(s, "goods")[p, GOOD[g]] += k
    for c, k in (cubes or {}).items():
        v(s, "supply_cubes")[COL[c]] -= k
        v(s, "cubes")[p, COL[c]] += k
    assert not V.check_invariants(s), V.check_invariants(s)
    assert (LAYOUT.view(s, "supply_cubes") >= 0).all() and v(s, "supply_grain")[0] >= 0
    return s


def clear_player(s, p):
    """Return all of p's cubes, goods, grain and coins to the supply."""
    give(
        s,
        p,
        grain=-int(v(s, "grain")[p]),
        coins=-int(v(s, "coins")[p]),
        goods={g: -int(v(s, "goods")[p, GOOD[g]]) for g in rd.GOODS},
        cubes={c: -int(v(s, "cubes")[p, COL[c]]) for c in rd.COLOURS},
    )
    return s


def move(s, p, src, dst, gen, k=1):
    """Move k members of generation `gen` (1-based) of p from location src to dst."""
    m = v(s, "members")
    assert m[p, src, gen - 1] >= k, f"player {p} lacks gen {gen} at {src}"
    m[p, src, gen - 1] -= k
    m[p, dst, gen - 1] += k
    return s


def set_board(s, spaces: dict):
    """Put exactly these cubes on the board ({space: {kind: n}}); the rest go to the bag,
    missing ones come from the bag, then the supply."""
    board, bag, sup = v(s, "board"), v(s, "bag"), v(s, "supply_cubes")
    bag += board.sum(axis=0)
    board[:] = 0
    for sp, kinds in spaces.items():
        for kind, k in kinds.items():
            c = COL[kind]
            take = min(k, bag[c])
            bag[c] -= take
            sup[c] -= k - take
            board[SPACE[sp], c] += k
    assert (sup >= 0).all()
    assert not V.check_invariants(s), V.check_invariants(s)
    return s


def set_turn(s, p, phase_turn=True):
    """Make it p's turn at the start (take a cube or Well)."""
    v(s, "turn_player")[0] = p
    v(s, "actor")[0] = p
    if phase_turn:
        v(s, "phase")[0] = 0
    return s


def new(players=3, seed=0, start_player=0):
    return V.new_game(players, seed, start_player=start_player)


def act(s, name, *idx):
    """Step by action segment name and indices."""
    return V.step(s, ACTIONS.encode(name, *idx))


def aid(name, *idx):
    return ACTIONS.encode(name, *idx)


def legal(s):
    """Set of (segment, indices) legal now."""
    return {ACTIONS.decode(int(a)) for a in np.flatnonzero(V.legal_mask(s))}


def legal_names(s):
    return {name for name, _ in legal(s)}


def settle_state(s):
    """Apply forced single-option decisions (as step does after every action)."""
    settle(s, V.TABLES, np.zeros(V.NUM_ACTIONS, dtype=np.bool_), np.zeros(1, dtype=np.int64))
    return s


def start_mass(s):
    """Jump to the end-of-round Mass from the current state."""
    rounds.start_mass(s, V.TABLES)
    return settle_state(s)


def recall_index(loc):
    return RECALL_LOCS.index(loc)


def visible_index(loc):
    return VISIBLE_LOCS.index(loc)


__all__ = [
    "LOC_BAG",
    "LOC_CITY",
    "LOC_COUNCIL",
    "LOC_CRAFT",
    "LOC_FARM",
    "LOC_UNBORN",
    "LOC_WINDOW",
    "BLD",
    "CITY",
    "COL",
    "GOOD",
    "SPACE",
    "V",
    "act",
    "aid",
    "clear_player",
    "give",
    "legal",
    "legal_names",
    "move",
    "new",
    "recall_index",
    "set_board",
    "set_turn",
    "settle_state",
    "start_mass",
    "v",
    "visible_index",
]


# --- market / end-game builders (scenario tests B) ------------------------------------------
def set_market(s, stalls, queue=()):
    """Put exactly these tile indices (0-based, T1 = 0; -1 = empty) on the stalls and the waiting
    line (front first); every other tile nobody served goes to the face-down pile."""
    st, q, pile, owner = v(s, "stalls"), v(s, "queue"), v(s, "pile"), v(s, "tile_owner")
    st[:] = -1
    q[:] = -1
    st[: len(stalls)] = stalls
    q[: len(queue)] = queue
    placed = {int(t) for t in list(stalls) + list(queue) if t >= 0}
    for t in range(len(pile)):
        pile[t] = int(owner[t] < 0 and t not in placed)
    assert not V.check_invariants(s), V.check_invariants(s)
    return s


def add_dead(s, p, gen, *, section=None, src=LOC_UNBORN, k=1):
    """k members of p (generation `gen`, taken from `src`) lie dead in a chronicle section
    (rd.SECTIONS name) or, with section=None, in anonymous graves."""
    from village_env.layout import LOC_CHRONICLE, LOC_GRAVE

    if section is None:
        move(s, p, src, LOC_GRAVE, gen, k)
        v(s, "graves_used")[0] += k
    else:
        move(s, p, src, LOC_CHRONICLE, gen, k)
        v(s, "chron_used")[rd.SECTIONS.index(section)] += k
    assert not V.check_invariants(s), V.check_invariants(s)
    return s


# --- scenario additions for setup / round / deaths / chronicle / crafts (append only) ----------
SECTION = {name: i for i, name in enumerate(rd.SECTIONS)}


def set_time(s, p, t):
    """Set p's total time spent (time is a track position, not a conserved resource)."""
    v(s, "time")[p] = t
    return s


def where(s, p):
    """{(loc, gen): n} for every member of p that is not unborn (gen 1-based)."""
    m = v(s, "members")[p]
    return {
        (loc, g + 1): int(m[loc, g]) for loc in range(1, m.shape[0]) for g in range(4) if m[loc, g]
    }


def bury_as(s, p, gen, section, src=None, k=1):
    """Put k members of p (gen 1-based) straight into a chronicle `section` (name) or, with
    section='grave', an anonymous grave; from the farmyard for gen 1, else from the unborn."""
    src = (LOC_FARM if gen == 1 else LOC_UNBORN) if src is None else src
    return add_dead(s, p, gen, section=None if section == "grave" else section, src=src, k=k)


def set_bag(s, kinds: dict):
    """Make the green bag hold exactly these cubes ({kind: n}); the rest go to the supply."""
    bag, sup = v(s, "bag"), v(s, "supply_cubes")
    sup += bag
    bag[:] = 0
    for kind, k in kinds.items():
        sup[COL[kind]] -= k
        bag[COL[kind]] += k
    assert (sup >= 0).all()
    assert not V.check_invariants(s), V.check_invariants(s)
    return s


# --- prestige by source (append only) ------------------------------------------------------
def set_prestige(s, p, k, source):
    """Give p exactly k prestige, all credited to `source` (a layout.SCORE_SOURCES name), so the
    score_src rows still sum to prestige (V.check_invariants)."""
    from village_env.layout import SCORE_SOURCES

    v(s, "prestige")[p] = k
    v(s, "score_src")[p] = 0
    v(s, "score_src")[p, SCORE_SOURCES.index(source)] = k
    return s
