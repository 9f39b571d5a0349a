"""Compiled accounting checks used by the conformance checker (DESIGN §4)."""

from __future__ import annotations

from core.jit import jit
from village_env.engine.board import (
    C_PLAGUE,
    chronicle_cap,
    count_at,
    graves_cap,
    mi,
)
from village_env.layout import (
    LOC_CHRONICLE,
    LOC_GRAVE,
    N_COLOURS,
    N_GEN,
    N_GOODS,
    N_KINDS,
    N_LOC,
    N_SCORE_SOURCES,
    N_SECTIONS,
    N_SLOTS,
    N_SPACES,
    PH_MASS_ADVANCE,
    PH_MASS_PICK,
    S_BAG,
    S_BOARD,
    S_CHRON,
    S_COINS,
    S_CUBES,
    S_GOODS,
    S_GRAIN,
    S_GRAVES,
    S_MARK,
    S_MONKS,
    S_NP,
    S_OWNER,
    S_PHASE,
    S_PILE,
    S_PRESTIGE,
    S_QUEUE,
    S_SCOINS,
    S_SCORE_SRC,
    S_SCUBES,
    S_SGOODS,
    S_SGRAIN,
    S_STALLS,
)
from village_env.tables import (
    N_CITIES,
    N_CUSTOMERS,
    T_GRAIN_CAP,
    T_MEMBERS_BY_GEN,
    T_MONKS,
    T_PLAGUE_CUBES,
    T_STALLS,
    T_SUPPLY_COINS,
    T_SUPPLY_CUBES_EACH,
    T_SUPPLY_GOODS_EACH,
    T_SUPPLY_GRAIN,
    T_TRAVEL_MARKERS,
)

INVARIANT_MESSAGES = (
    "ok",
    "influence cubes of a colour do not add up to the supply total",
    "plague cubes do not add up",
    "goods of a kind do not add up",
    "grain does not add up",
    "coins do not add up",
    "family members of a generation do not add up for a player",
    "a customer tile is not in exactly one place",
    "a farmyard holds more grain than the cap",
    "a player has more travel markers than allowed",
    "chronicle or graves over capacity, or not matching the dead members",
    "monks missing from the black bag outside a Mass",
    "a stall outside the servable ones holds a tile",
    "a negative count",
    "prestige by source (score_src) does not add up to prestige",
)


@jit
def check_invariants_code(s, T):
    """0 when every conservation law holds, else the index of the first broken one."""
    n = s[S_NP]
    for c in range(N_COLOURS):
        tot = s[S_SCUBES + c] + s[S_BAG + c]
        for sp in range(N_SPACES):
            tot += s[S_BOARD + N_KINDS * sp + c]
        for p in range(n):
            tot += s[S_CUBES + N_COLOURS * p + c]
        if tot != T[T_SUPPLY_CUBES_EACH]:
            return 1
    tot = s[S_SCUBES + C_PLAGUE] + s[S_BAG + C_PLAGUE]
    for sp in range(N_SPACES):
        tot += s[S_BOARD + N_KINDS * sp + C_PLAGUE]
    if tot != T[T_PLAGUE_CUBES]:
        return 2
    for g in range(N_GOODS):
        tot = s[S_SGOODS + g]
        for p in range(n):
            tot += s[S_GOODS + N_GOODS * p + g]
        if tot != T[T_SUPPLY_GOODS_EACH]:
            return 3
    tot = s[S_SGRAIN]
    for p in range(n):
        tot += s[S_GRAIN + p]
        if s[S_GRAIN + p] > T[T_GRAIN_CAP]:
            return 8
    if tot != T[T_SUPPLY_GRAIN]:
        return 4
    tot = s[S_SCOINS]
    for p in range(n):
        tot += s[S_COINS + p]
    if tot != T[T_SUPPLY_COINS]:
        return 5
    dead_chron = 0
    dead_grave = 0
    for p in range(n):
        for g in range(N_GEN):
            tot = 0
            for loc in range(N_LOC):
                v = s[mi(p, loc, g)]
                if v < 0:
                    return 13
                tot += v
            if tot != T[T_MEMBERS_BY_GEN + g]:
                return 6
        dead_chron += count_at(s, p, LOC_CHRONICLE)
        dead_grave += count_at(s, p, LOC_GRAVE)
        m = 0
        for c in range(N_CITIES):
            m += s[S_MARK + N_CITIES * p + c]
        if m > T[T_TRAVEL_MARKERS]:
            return 9
    used = 0
    for sec in range(N_SECTIONS):
        if s[S_CHRON + sec] > chronicle_cap(s, T, sec):
            return 10
        used += s[S_CHRON + sec]
    if used != dead_chron or s[S_GRAVES] != dead_grave or s[S_GRAVES] > graves_cap(s, T):
        return 10
    if s[S_PHASE] != PH_MASS_PICK and s[S_PHASE] != PH_MASS_ADVANCE and s[S_MONKS] != T[T_MONKS]:
        return 11
    for t in range(N_CUSTOMERS):
        places = s[S_PILE + t]
        if s[S_OWNER + t] >= 0:
            places += 1
        for k in range(N_SLOTS):
            if s[S_STALLS + k] == t:
                places += 1
            if s[S_QUEUE + k] == t:
                places += 1
        if places != 1:
            return 7
    for k in range(T[T_STALLS + n], N_SLOTS):
        if s[S_STALLS + k] >= 0:
            return 12
    for p in range(n):  # every prestige change is credited to one source
        tot = 0
        for k in range(N_SCORE_SOURCES):
            tot += s[S_SCORE_SRC + N_SCORE_SOURCES * p + k]
        if tot != s[S_PRESTIGE + p]:
            return 14
    return 0
