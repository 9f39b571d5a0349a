"""Compiled accessors and small mutators of the Village state: members, payments (ED-7), time and
the bridge (§3.4), gains capped by the supply (ED-6), chronicle capacity and burial (§3.6, A.6),
the decision context and the start of a turn (§3.2). Tables arrive as `T`."""

from __future__ import annotations

from core.jit import jit
from core.rng import rng_below
from village_env import rules_data as rd
from village_env.actions import N_VISIBLE
from village_env.layout import (
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
    MEM_STRIDE,
    N_COLOURS,
    N_GEN,
    N_GOODS,
    N_KINDS,
    N_LEVELS,
    N_SCORE_SOURCES,
    N_SECTIONS,
    N_SPACES,
    N_WINDOWS,
    PH_CHOOSE,
    PH_TURN,
    S_ACTOR,
    S_ALLOWED,
    S_BOARD,
    S_CHRON,
    S_COINS,
    S_CRAFTB,
    S_CUBES,
    S_DEND,
    S_DNOW,
    S_DPLAYER,
    S_FREE,
    S_GOODS,
    S_GRAIN,
    S_GRAVES,
    S_MEM,
    S_MKT,
    S_MOPEN,
    S_NP,
    S_NTURNS,
    S_PHASE,
    S_PILE,
    S_PKIND,
    S_PRESTIGE,
    S_PRIVMAX,
    S_PUNITS,
    S_RNG,
    S_SCOINS,
    S_SCORE_SRC,
    S_SCUBES,
    S_SGOODS,
    S_SGRAIN,
    S_TIME,
    S_TRIG,
    S_TRIGM,
    S_TRIGO,
    S_TRIGP,
    S_TURN,
)
from village_env.tables import (
    CHRONICLE_ROW,
    N_CITIES,
    N_CUSTOMERS,
    T_CHRONICLE,
    T_GRAIN_CAP,
    T_GRAVES,
    T_HARVEST_BASE,
    T_HARVEST_HORSE_PLOW,
    T_HARVEST_OX_PLOW,
    T_LAP,
)

# indices of rules_data's names, for the compiled code (tests/village/test_constants_sync.py)
SEC_COUNCIL, SEC_CRAFTS, SEC_TRAVEL, SEC_CHURCH, SEC_FARMYARD = (
    rd.SECTIONS.index(x) for x in ("council", "crafts", "travel", "church", "farmyard")
)
G_SCROLL, G_HORSE, G_PLOW, G_OX, G_WAGON = (
    rd.GOODS.index(x) for x in ("scroll", "horse", "plow", "ox", "wagon")
)
C_BROWN, C_PINK, C_ORANGE, C_GREEN = (
    rd.COLOURS.index(x) for x in ("brown", "pink", "orange", "green")
)
C_PLAGUE = rd.PLAGUE
SP_HARVEST, SP_FAMILY, SP_CRAFTS, SP_MARKET, SP_TRAVEL, SP_COUNCIL, SP_CHURCH = (
    rd.SPACES.index(x)
    for x in ("harvest", "family", "crafts", "market", "travel", "council", "church")
)
RW_PRESTIGE, RW_COINS, RW_CUBES, RW_GOODS = (
    rd.REWARD_KINDS.index(x) for x in ("prestige", "coins", "cubes", "goods")
)
VILLAGE = rd.VILLAGE_NODE  # travel map node of the Village (not a city)
N_RECALL_LOW = LOC_BAG - LOC_CRAFT  # recall indices of crafts, council, cities (then windows)


@jit
def mi(p, loc, g):
    """Index of members[p, loc, g]."""
    return S_MEM + p * MEM_STRIDE + loc * N_GEN + g


@jit
def count_at(s, p, loc):
    i = mi(p, loc, 0)
    return s[i] + s[i + 1] + s[i + 2] + s[i + 3]


@jit
def move_member(s, p, src, dst, g):
    s[mi(p, src, g)] -= 1
    s[mi(p, dst, g)] += 1


@jit
def recall_loc(i):
    """Board location of recall index i: crafts, council, cities (2..17), then windows (19..22)."""
    return LOC_CRAFT + i if i < N_RECALL_LOW else LOC_WINDOW + (i - N_RECALL_LOW)


@jit
def visible_loc(j):
    """Location of visible index j: the farmyard, then the board locations."""
    return LOC_FARM if j == 0 else recall_loc(j - 1)


@jit
def is_visible(loc):
    return LOC_FARM <= loc < LOC_CITY + N_CITIES or LOC_WINDOW <= loc < LOC_WINDOW + N_WINDOWS


@jit
def lowest_visible_gen(s, p):
    """Lowest generation among p's visible members (§3.5), -1 if none is visible."""
    for g in range(N_GEN):
        for j in range(N_VISIBLE):
            if s[mi(p, visible_loc(j), g)] > 0:
                return g
    return -1


@jit
def section_of(loc):
    """Chronicle section of a member dying at `loc` (rules §3.6)."""
    if loc < LOC_COUNCIL:
        return SEC_FARMYARD if loc == LOC_FARM else SEC_CRAFTS
    if loc < LOC_CITY:
        return SEC_COUNCIL
    if loc < LOC_BAG:
        return SEC_TRAVEL
    return SEC_CHURCH


@jit
def _count_in_play(s, T, off):
    """Spaces in play of a (unlabelled, "3", "4") triple: covered ones are not free (§2 step 7)."""
    n = s[S_NP]
    cap = T[off]
    if n >= 3:
        cap += T[off + 1]
    if n >= 4:
        cap += T[off + 2]
    return cap


@jit
def chronicle_cap(s, T, sec):
    return _count_in_play(s, T, T_CHRONICLE + CHRONICLE_ROW * sec)


@jit
def graves_cap(s, T):
    return _count_in_play(s, T, T_GRAVES)


@jit
def chronicle_full(s, T):
    for sec in range(N_SECTIONS):
        if s[S_CHRON + sec] < chronicle_cap(s, T, sec):
            return False
    return True


@jit
def bury(s, T, p, loc, g):
    """A member of p of generation g dies at loc: chronicle, else grave, else removed (ED-17).
    Filling the last free chronicle space or grave triggers the end once (ED-18)."""
    s[mi(p, loc, g)] -= 1
    sec = section_of(loc)
    if s[S_CHRON + sec] < chronicle_cap(s, T, sec):
        s[S_CHRON + sec] += 1
        s[mi(p, LOC_CHRONICLE, g)] += 1
    elif s[S_GRAVES] < graves_cap(s, T):
        s[S_GRAVES] += 1
        s[mi(p, LOC_GRAVE, g)] += 1
    else:
        s[mi(p, LOC_REMOVED, g)] += 1
        return
    if s[S_TRIG] == 0 and (chronicle_full(s, T) or s[S_GRAVES] >= graves_cap(s, T)):
        s[S_TRIG] = 1
        s[S_TRIGP] = p
        s[S_TRIGM] = s[S_MKT]
        s[S_TRIGO] = s[S_MOPEN] if s[S_MKT] else -1


# --- payments (ED-7: a cube cost uses own cubes of that colour first, coins for the rest) ------
@jit
def can_pay_cubes(s, p, c, k):
    return s[S_CUBES + N_COLOURS * p + c] + s[S_COINS + p] >= k


@jit
def can_pay_cube_vec(s, T, p, off):
    short = 0
    for c in range(N_COLOURS):
        need = T[off + c]
        have = s[S_CUBES + N_COLOURS * p + c]
        if need > have:
            short += need - have
    return short <= s[S_COINS + p]


@jit
def pay_cubes(s, p, c, k):
    i = S_CUBES + N_COLOURS * p + c
    use = min(s[i], k)
    s[i] -= use
    s[S_SCUBES + c] += use
    rest = k - use
    s[S_COINS + p] -= rest
    s[S_SCOINS] += rest


@jit
def pay_cube_vec(s, T, p, off):
    for c in range(N_COLOURS):
        if T[off + c] > 0:
            pay_cubes(s, p, c, T[off + c])


@jit
def pay_time(s, T, p, n):
    """Spend n time; each multiple of the lap passed is a death (§3.4), resolved at once during
    a market day and at the end of the turn otherwise (ED-15)."""
    lap = T[T_LAP]
    t0 = s[S_TIME + p]
    t1 = t0 + n
    s[S_TIME + p] = t1
    cross = t1 // lap - t0 // lap
    if cross > 0:
        if s[S_MKT]:
            s[S_DNOW + p] += cross
        else:
            s[S_DEND + p] += cross


@jit
def pay_grain(s, p, k):
    s[S_GRAIN + p] -= k
    s[S_SGRAIN] += k


@jit
def pay_good(s, p, g, k):
    s[S_GOODS + N_GOODS * p + g] -= k
    s[S_SGOODS + g] += k


@jit
def pay_coins(s, p, k):
    s[S_COINS + p] -= k
    s[S_SCOINS] += k


# --- gains, capped by the supply (ED-6) ----------------------------------------------------------
@jit
def gain_good(s, p, g, k):
    k = min(k, s[S_SGOODS + g])
    s[S_SGOODS + g] -= k
    s[S_GOODS + N_GOODS * p + g] += k


@jit
def gain_cube(s, p, c, k):
    k = min(k, s[S_SCUBES + c])
    s[S_SCUBES + c] -= k
    s[S_CUBES + N_COLOURS * p + c] += k


@jit
def gain_coins(s, p, k):
    k = min(k, s[S_SCOINS])
    s[S_SCOINS] -= k
    s[S_COINS + p] += k


@jit
def grain_gain(s, T, p, k):
    """Grain p would actually receive: capped by the supply and the farmyard cap of 5 (ED-6)."""
    return max(0, min(k, s[S_SGRAIN], T[T_GRAIN_CAP] - s[S_GRAIN + p]))


@jit
def gain_grain(s, T, p, k):
    k = grain_gain(s, T, p, k)
    s[S_SGRAIN] -= k
    s[S_GRAIN + p] += k


@jit
def harvest_amount(s, T, p):
    """rules §4.1, ED-22: ox + plow 4, else horse + plow 3, else 2; one combination only."""
    gi = S_GOODS + N_GOODS * p
    if s[gi + G_PLOW] > 0 and s[gi + G_OX] > 0:
        return T[T_HARVEST_OX_PLOW]
    if s[gi + G_PLOW] > 0 and s[gi + G_HORSE] > 0:
        return T[T_HARVEST_HORSE_PLOW]
    return T[T_HARVEST_BASE]


@jit
def supply_has_cubes(s):
    return s[S_SCUBES] + s[S_SCUBES + 1] + s[S_SCUBES + 2] + s[S_SCUBES + 3] > 0


@jit
def supply_has_goods(s):
    t = 0
    for g in range(N_GOODS):
        t += s[S_SGOODS + g]
    return t > 0


@jit
def board_total(s):
    t = 0
    for i in range(N_SPACES * N_KINDS):
        t += s[S_BOARD + i]
    return t


@jit
def highest_council(s, p):
    """Highest council level (1..4) of p's members, 0 if none."""
    for lv in range(N_LEVELS - 1, -1, -1):
        if count_at(s, p, LOC_COUNCIL + lv) > 0:
            return lv + 1
    return 0


@jit
def lowest_unborn(s, p):
    for g in range(N_GEN):
        if s[mi(p, LOC_UNBORN, g)] > 0:
            return g
    return -1


@jit
def draw_tile(s):
    """Draw a uniformly random customer tile from the face-down pile; -1 if empty (ED-35)."""
    n = 0
    for t in range(N_CUSTOMERS):
        n += s[S_PILE + t]
    if n == 0:
        return -1
    r = rng_below(s, S_RNG, n)
    for t in range(N_CUSTOMERS):
        if s[S_PILE + t]:
            if r == 0:
                s[S_PILE + t] = 0
                return t
            r -= 1
    return -1


@jit
def add_prestige(s, p, k, src):
    """p gains k prestige from source `src` (layout.SRC_*): the one place prestige
    changes, so score_src[p] sums to prestige[p] at every moment."""
    s[S_PRESTIGE + p] += k
    s[S_SCORE_SRC + N_SCORE_SOURCES * p + src] += k


# --- decision context and the start of a turn (rules §3.2, §5.1 step 3) -----------------------
@jit
def clear_context(s):
    s[S_ALLOWED] = -1
    s[S_PUNITS] = 0
    s[S_PKIND] = 0
    s[S_PRIVMAX] = 0
    s[S_CRAFTB] = -1
    s[S_DPLAYER] = -1


@jit
def start_turn(s, T, p):
    """A turn: take a cube or use the Well (§3.2); in final turns with an empty board, a free
    action (§5.1 step 3, ED-13)."""
    clear_context(s)
    s[S_TURN] = p
    s[S_ACTOR] = p
    s[S_NTURNS] += 1
    if board_total(s) > 0:
        s[S_FREE] = 0
        s[S_PHASE] = PH_TURN
    else:
        s[S_FREE] = 1
        s[S_PHASE] = PH_CHOOSE
