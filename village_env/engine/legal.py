"""Exact legal-action masks (DESIGN D5), phase by phase. Cites the decision points of the spec."""

from __future__ import annotations

from core.jit import jit
from village_env.actions import (
    A_ADVANCE,
    A_BIRTH,
    A_CHOOSE_CUBE,
    A_CHOOSE_GOOD,
    A_CHURCH,
    A_CLIMB,
    A_CRAFT_BUY,
    A_CRAFT_PLACE,
    A_CRAFT_PRODUCE,
    A_DIE,
    A_DONE,
    A_ENTER,
    A_HARVEST,
    A_MARKET,
    A_MILL,
    A_PICK,
    A_PRIV_ONLY,
    A_PRIVILEGE,
    A_RECALL,
    A_SERVE,
    A_TAKE,
    A_TRAVEL,
    A_WELL,
    N_RECALL,
    N_VISIBLE,
)
from village_env.engine.board import (
    C_BROWN,
    C_GREEN,
    G_SCROLL,
    G_WAGON,
    SP_CHURCH,
    SP_COUNCIL,
    SP_CRAFTS,
    SP_FAMILY,
    SP_HARVEST,
    SP_TRAVEL,
    VILLAGE,
    board_total,
    can_pay_cube_vec,
    can_pay_cubes,
    count_at,
    grain_gain,
    harvest_amount,
    highest_council,
    lowest_unborn,
    lowest_visible_gen,
    mi,
    recall_loc,
    supply_has_cubes,
    supply_has_goods,
    visible_loc,
)
from village_env.layout import (
    LOC_BAG,
    LOC_CITY,
    LOC_COUNCIL,
    LOC_CRAFT,
    LOC_FARM,
    LOC_WINDOW,
    N_BUILDINGS,
    N_COLOURS,
    N_GEN,
    N_GOODS,
    N_KINDS,
    N_LEVELS,
    N_SLOTS,
    N_SPACES,
    N_WINDOWS,
    PH_CHOOSE,
    PH_CRAFT_PRODUCE,
    PH_DEATH,
    PH_MARKET,
    PH_MASS_ADVANCE,
    PH_MASS_PICK,
    PH_PRIVILEGE,
    PH_REWARD,
    PH_TURN,
    PK_CUBES,
    S_ACTOR,
    S_ALLOWED,
    S_BOARD,
    S_COINS,
    S_CRAFTB,
    S_DPLAYER,
    S_GOODS,
    S_GRAIN,
    S_MFREE,
    S_MOPEN,
    S_MPICKED,
    S_NS,
    S_OVER,
    S_PHASE,
    S_PKIND,
    S_PRIVMAX,
    S_SCUBES,
    S_SGOODS,
    S_STALLS,
)
from village_env.tables import (
    CRAFT_BUY_ROW,
    DEMAND_GRAIN,
    DEMAND_ROW,
    E_COLOUR,
    E_CUBES,
    E_NODE_A,
    E_NODE_B,
    E_WAGONS,
    EDGE_ROW,
    N_EDGES,
    T_CHURCH_BROWN,
    T_COUNCIL_GREEN,
    T_COUNCIL_SCROLL,
    T_CRAFT_BUY_CUBES,
    T_CRAFT_BUY_GRAIN,
    T_CUSTOMER_DEMAND,
    T_EDGES,
    T_MARKET_FEE_GREEN,
    T_MASS_DRAWS,
    T_MASS_PICK_COINS,
    T_MILL_GRAIN,
    T_PRIVILEGE_COIN,
    T_PRODUCT_BUILDING,
    T_WELL_CUBES,
    T_WINDOW_GRAIN,
)


@jit
def privilege_ok(s, T, p, lv):
    """ED-24: a privilege that would give nothing is void and not offered."""
    if lv == 1:
        return s[S_NS] < 0
    if lv == 2:
        return supply_has_cubes(s)
    if lv == 3:
        return supply_has_goods(s)
    return s[S_COINS + p] >= T[T_PRIVILEGE_COIN]  # rules §4.7 / A.4: the level-4 coin price


@jit
def any_privilege(s, T, p, top):
    for lv in range(1, top + 1):
        if privilege_ok(s, T, p, lv):
            return True
    return False


@jit
def can_serve(s, T, p, t, free):
    """§4.5: the demand in goods/grain, plus 1 green (coin joker) after the free first sale;
    the time part can always be paid."""
    off = T_CUSTOMER_DEMAND + DEMAND_ROW * t
    for g in range(N_GOODS):
        if s[S_GOODS + N_GOODS * p + g] < T[off + g]:
            return False
    if s[S_GRAIN + p] < T[off + DEMAND_GRAIN]:
        return False
    if not free and not can_pay_cubes(s, p, C_GREEN, T[T_MARKET_FEE_GREEN]):
        return False
    return True


@jit
def travel_ends(T, e, d):
    a = T[T_EDGES + EDGE_ROW * e + E_NODE_A]
    b = T[T_EDGES + EDGE_ROW * e + E_NODE_B]
    if d == 0:
        return a, b
    return b, a


@jit
def _mark(mask, a):
    mask[a] = True
    return 1


@jit
def _legal_options(s, T, p, allowed, mask):
    """First-level options of the action(s) `allowed` (space index, -1 = any), §4.1-4.8."""
    n = 0
    farm = count_at(s, p, LOC_FARM)
    if allowed < 0 or allowed == SP_HARVEST:  # A harvest §4.1, ED-3: gaining nothing is void
        if farm > 0 and grain_gain(s, T, p, harvest_amount(s, T, p)) > 0:
            n += _mark(mask, A_HARVEST)
    if allowed < 0 or allowed == SP_FAMILY:  # B family §4.2, ED-22
        if lowest_unborn(s, p) >= 0:
            n += _mark(mask, A_BIRTH)
        for i in range(N_RECALL):
            loc = recall_loc(i)
            for g in range(N_GEN):
                if s[mi(p, loc, g)] > 0:
                    n += _mark(mask, A_RECALL + N_GEN * i + g)
    if allowed < 0 or allowed == SP_CRAFTS:  # C crafts §4.3, ED-21
        for b in range(N_BUILDINGS):
            for g in range(N_GEN):
                if s[mi(p, LOC_FARM, g)] > 0:
                    n += _mark(mask, A_CRAFT_PLACE + N_GEN * b + g)
        for prod in range(N_GOODS):
            b = T[T_PRODUCT_BUILDING + prod]
            if count_at(s, p, LOC_CRAFT + b) > 0:
                n += _mark(mask, A_CRAFT_PRODUCE + prod)
            if (
                can_pay_cube_vec(s, T, p, T_CRAFT_BUY_CUBES + CRAFT_BUY_ROW * b)
                and s[S_GRAIN + p] >= T[T_CRAFT_BUY_GRAIN + b]
            ):
                n += _mark(mask, A_CRAFT_BUY + prod)
        if s[S_GRAIN + p] >= T[T_MILL_GRAIN]:
            n += _mark(mask, A_MILL)
    if allowed < 0:  # D market (never SP_MARKET alone: its cube itself opens a market day, §3.2)
        n += _mark(mask, A_MARKET)
    if allowed < 0 or allowed == SP_TRAVEL:  # E travel §4.6, ED-23
        for e in range(N_EDGES):
            off = T_EDGES + EDGE_ROW * e
            w = T[off + E_WAGONS]
            if s[S_GOODS + N_GOODS * p + G_WAGON] < w:
                continue
            if not can_pay_cubes(s, p, T[off + E_COLOUR], T[off + E_CUBES]):
                continue
            for d in range(2):
                src, dst = travel_ends(T, e, d)
                if dst == VILLAGE:
                    continue
                loc = LOC_FARM if src == VILLAGE else LOC_CITY + src
                for g in range(N_GEN):
                    if s[mi(p, loc, g)] > 0:
                        n += _mark(mask, A_TRAVEL + 2 * N_GEN * e + N_GEN * d + g)
    if allowed < 0 or allowed == SP_COUNCIL:  # F council §4.7, ED-24, ED-25
        pay_green = can_pay_cubes(s, p, C_GREEN, T[T_COUNCIL_GREEN])
        pay_scroll = s[S_GOODS + N_GOODS * p + G_SCROLL] >= T[T_COUNCIL_SCROLL]
        for g in range(N_GEN):
            if s[mi(p, LOC_FARM, g)] > 0:
                if pay_green:
                    n += _mark(mask, A_ENTER + 2 * g)
                if pay_scroll:
                    n += _mark(mask, A_ENTER + 2 * g + 1)
        for lv in range(N_LEVELS - 1):
            for g in range(N_GEN):
                if s[mi(p, LOC_COUNCIL + lv, g)] > 0:
                    if pay_green:
                        n += _mark(mask, A_CLIMB + 2 * N_GEN * lv + 2 * g)
                    if pay_scroll:
                        n += _mark(mask, A_CLIMB + 2 * N_GEN * lv + 2 * g + 1)
        top = highest_council(s, p)
        if top > 0 and any_privilege(s, T, p, top):
            n += _mark(mask, A_PRIV_ONLY)
    if allowed < 0 or allowed == SP_CHURCH:  # G church §4.8
        brown = can_pay_cubes(s, p, C_BROWN, T[T_CHURCH_BROWN])
        for g in range(N_GEN):
            if s[mi(p, LOC_FARM, g)] > 0:
                if brown:
                    n += _mark(mask, A_CHURCH + 2 * g)
                n += _mark(mask, A_CHURCH + 2 * g + 1)
    return n


@jit
def legal_mask_into(s, T, mask):
    """Fill `mask` (bool, NUM_ACTIONS) with the legal actions; return how many there are."""
    mask[:] = False
    if s[S_OVER]:
        return 0
    ph = s[S_PHASE]
    p = s[S_ACTOR]
    n = 0
    if ph == PH_TURN:  # decision point 1
        for i in range(N_SPACES * N_KINDS):
            if s[S_BOARD + i] > 0:
                n += _mark(mask, A_TAKE + i)
        if board_total(s) > 0:  # §4.10: the Well needs a cube left on the board
            for c in range(N_COLOURS):
                if can_pay_cubes(s, p, c, T[T_WELL_CUBES]):
                    n += _mark(mask, A_WELL + c)
        return n
    if ph == PH_CHOOSE:  # decision points 2-7
        n += _mark(mask, A_DONE)
        n += _legal_options(s, T, p, s[S_ALLOWED], mask)
        return n
    if ph == PH_CRAFT_PRODUCE:  # decision point 4 (i): produce now or not
        n += _mark(mask, A_DONE)
        for prod in range(N_GOODS):
            if T[T_PRODUCT_BUILDING + prod] == s[S_CRAFTB]:
                n += _mark(mask, A_CRAFT_PRODUCE + prod)
        return n
    if ph == PH_PRIVILEGE:  # decision point 6
        n += _mark(mask, A_DONE)
        for lv in range(1, s[S_PRIVMAX] + 1):
            if privilege_ok(s, T, p, lv):
                n += _mark(mask, A_PRIVILEGE + lv - 1)
        return n
    if ph == PH_REWARD:  # decision points 5, 6: one unit of a reward of choice
        if s[S_PKIND] == PK_CUBES:
            for c in range(N_COLOURS):
                if s[S_SCUBES + c] > 0:
                    n += _mark(mask, A_CHOOSE_CUBE + c)
        else:
            for g in range(N_GOODS):
                if s[S_SGOODS + g] > 0:
                    n += _mark(mask, A_CHOOSE_GOOD + g)
        return n
    if ph == PH_MARKET:  # decision point 8
        n += _mark(mask, A_DONE)
        free = s[S_MFREE] == 1 and p == s[S_MOPEN]
        for k in range(N_SLOTS):
            t = s[S_STALLS + k]
            if t >= 0 and can_serve(s, T, p, t, free):
                n += _mark(mask, A_SERVE + k)
        return n
    if ph == PH_DEATH:  # decision point 9
        dp = s[S_DPLAYER]
        g = lowest_visible_gen(s, dp)
        for j in range(N_VISIBLE):
            if s[mi(dp, visible_loc(j), g)] > 0:
                n += _mark(mask, A_DIE + j)
        return n
    if ph == PH_MASS_PICK:  # decision point 10
        n += _mark(mask, A_DONE)
        if s[S_COINS + p] >= T[T_MASS_PICK_COINS] and s[S_MPICKED] < T[T_MASS_DRAWS]:
            for g in range(N_GEN):
                if s[mi(p, LOC_BAG, g)] > 0:
                    n += _mark(mask, A_PICK + g)
        return n
    if ph == PH_MASS_ADVANCE:  # decision point 11
        n += _mark(mask, A_DONE)
        for w in range(N_WINDOWS - 1):
            if s[S_GRAIN + p] >= T[T_WINDOW_GRAIN + w]:
                for g in range(N_GEN):
                    if s[mi(p, LOC_WINDOW + w, g)] > 0:
                        n += _mark(mask, A_ADVANCE + N_GEN * w + g)
        return n
    return n
