"""Compiled action effects. Each `_apply_*` assumes the action is legal (step checks the mask
first) and moves the game on to the next decision."""

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
)
from village_env.engine.board import (
    C_BROWN,
    C_GREEN,
    C_PLAGUE,
    G_SCROLL,
    G_WAGON,
    RW_COINS,
    RW_CUBES,
    RW_PRESTIGE,
    SP_MARKET,
    VILLAGE,
    add_prestige,
    bury,
    gain_coins,
    gain_cube,
    gain_good,
    gain_grain,
    harvest_amount,
    highest_council,
    lowest_unborn,
    lowest_visible_gen,
    move_member,
    pay_coins,
    pay_cube_vec,
    pay_cubes,
    pay_good,
    pay_grain,
    pay_time,
    recall_loc,
    supply_has_cubes,
    supply_has_goods,
    visible_loc,
)
from village_env.engine.legal import travel_ends
from village_env.engine.rounds import (
    after_death,
    choose_action,
    finish_action,
    market_next_go,
    mass_advance_go,
    mass_pick_go,
    open_market,
    setup_death,
)
from village_env.layout import (
    LOC_BAG,
    LOC_CITY,
    LOC_COUNCIL,
    LOC_CRAFT,
    LOC_FARM,
    LOC_UNBORN,
    LOC_WINDOW,
    N_BUILDINGS,
    N_COLOURS,
    N_GEN,
    N_GOODS,
    N_KINDS,
    N_LEVELS,
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
    PK_GOODS,
    S_ACTOR,
    S_BOARD,
    S_CRAFTB,
    S_CUBES,
    S_DEND,
    S_DNOW,
    S_MARK,
    S_MFREE,
    S_MOPEN,
    S_MPASSED,
    S_MPICKED,
    S_MSEAT,
    S_MSERVED,
    S_NS,
    S_OWNER,
    S_PHASE,
    S_PKIND,
    S_PRIVMAX,
    S_PUNITS,
    S_SCUBES,
    S_STALLS,
    SRC_COUNCIL_PRIVILEGE,
    SRC_TRAVEL_REWARDS,
)
from village_env.tables import (
    CITY_REWARD_ROW,
    CRAFT_BUY_ROW,
    DEMAND_GRAIN,
    DEMAND_ROW,
    E_COLOUR,
    E_CUBES,
    E_TIME,
    E_WAGONS,
    EDGE_ROW,
    N_CITIES,
    T_CHURCH_BROWN,
    T_CHURCH_TIME,
    T_CITY_REWARD,
    T_COUNCIL_GREEN,
    T_COUNCIL_SCROLL,
    T_COUNCIL_TIME,
    T_CRAFT_BUY_CUBES,
    T_CRAFT_BUY_GRAIN,
    T_CRAFT_PLACE,
    T_CRAFT_PRODUCE,
    T_CUSTOMER_DEMAND,
    T_EDGES,
    T_FAMILY_TIME,
    T_HARVEST_TIME,
    T_MARKET_FEE_GREEN,
    T_MARKET_FEE_TIME,
    T_MASS_PICK_COINS,
    T_MILL_COINS,
    T_MILL_GRAIN,
    T_MILL_TIME,
    T_PLAGUE_TIME,
    T_PRIVILEGE_COIN,
    T_PRIVILEGE_CUBES,
    T_PRIVILEGE_GOODS,
    T_PRIVILEGE_PRESTIGE,
    T_PRODUCT_BUILDING,
    T_TRAVEL_MARKERS,
    T_WELL_CUBES,
    T_WINDOW_GRAIN,
)


@jit
def start_reward(s, T, kind, units):
    """A reward of choice (kind PK_CUBES or PK_GOODS), chosen one unit at a time (ED-23); units
    the supply cannot give are lost (ED-6)."""
    if units > 0 and (
        (kind == PK_CUBES and supply_has_cubes(s)) or (kind == PK_GOODS and supply_has_goods(s))
    ):
        s[S_PHASE] = PH_REWARD
        s[S_PKIND] = kind
        s[S_PUNITS] = units
        return
    finish_action(s, T)


@jit
def start_privilege(s, T, top):
    s[S_PHASE] = PH_PRIVILEGE
    s[S_PRIVMAX] = top


@jit
def _apply_take(s, T, p, i):
    """§3.2 (a): take a cube; plague returns to the supply and costs 2 time (ED-15: deferred)."""
    sp, k = i // N_KINDS, i % N_KINDS
    s[S_BOARD + i] -= 1
    if k == C_PLAGUE:
        s[S_SCUBES + C_PLAGUE] += 1
        pay_time(s, T, p, T[T_PLAGUE_TIME])
    else:
        s[S_CUBES + N_COLOURS * p + k] += 1
    if sp == SP_MARKET:  # the Market cube forces market day (§3.2, ED-11)
        open_market(s, T, p)
    else:
        choose_action(s, sp)


@jit
def _apply_travel(s, T, p, e, d, g):
    """§4.6: pay time + wagon + path cubes, move, mark a new city and take its reward."""
    src, dst = travel_ends(T, e, d)
    off = T_EDGES + EDGE_ROW * e
    pay_time(s, T, p, T[off + E_TIME])
    pay_good(s, p, G_WAGON, T[off + E_WAGONS])
    pay_cubes(s, p, T[off + E_COLOUR], T[off + E_CUBES])
    move_member(s, p, LOC_FARM if src == VILLAGE else LOC_CITY + src, LOC_CITY + dst, g)
    placed = 0
    for c in range(N_CITIES):
        placed += s[S_MARK + N_CITIES * p + c]
    if s[S_MARK + N_CITIES * p + dst] == 0 and placed < T[T_TRAVEL_MARKERS]:
        s[S_MARK + N_CITIES * p + dst] = 1
        kind = T[T_CITY_REWARD + CITY_REWARD_ROW * dst]
        amount = T[T_CITY_REWARD + CITY_REWARD_ROW * dst + 1]
        if kind == RW_PRESTIGE:
            add_prestige(s, p, amount, SRC_TRAVEL_REWARDS)  # rules §4.6
        elif kind == RW_COINS:
            gain_coins(s, p, amount)
        else:  # RW_CUBES -> PK_CUBES, RW_GOODS -> PK_GOODS
            start_reward(s, T, kind - RW_CUBES + PK_CUBES, amount)
            return
    finish_action(s, T)


@jit
def _apply_option(s, T, p, a):
    """A first-level action option chosen in PH_CHOOSE (decision points 2-7)."""
    if a == A_HARVEST:  # §4.1
        pay_time(s, T, p, T[T_HARVEST_TIME])
        gain_grain(s, T, p, harvest_amount(s, T, p))
        finish_action(s, T)
    elif a == A_BIRTH:  # §4.2
        pay_time(s, T, p, T[T_FAMILY_TIME])
        move_member(s, p, LOC_UNBORN, LOC_FARM, lowest_unborn(s, p))
        finish_action(s, T)
    elif a < A_RECALL + N_RECALL * N_GEN and a >= A_RECALL:
        i = a - A_RECALL
        pay_time(s, T, p, T[T_FAMILY_TIME])
        move_member(s, p, recall_loc(i // N_GEN), LOC_FARM, i % N_GEN)
        finish_action(s, T)
    elif A_CRAFT_PLACE <= a < A_CRAFT_PLACE + N_BUILDINGS * N_GEN:  # §4.3 (a), ED-21 (i)
        b, g = (a - A_CRAFT_PLACE) // N_GEN, (a - A_CRAFT_PLACE) % N_GEN
        pay_time(s, T, p, T[T_CRAFT_PLACE + b])
        move_member(s, p, LOC_FARM, LOC_CRAFT + b, g)
        s[S_PHASE] = PH_CRAFT_PRODUCE
        s[S_CRAFTB] = b
    elif A_CRAFT_PRODUCE <= a < A_CRAFT_PRODUCE + N_GOODS:  # §4.3 (a), ED-21 (ii)
        prod = a - A_CRAFT_PRODUCE
        pay_time(s, T, p, T[T_CRAFT_PRODUCE + T[T_PRODUCT_BUILDING + prod]])
        gain_good(s, p, prod, 1)
        finish_action(s, T)
    elif A_CRAFT_BUY <= a < A_CRAFT_BUY + N_GOODS:  # §4.3 (b), ED-21 (iii)
        prod = a - A_CRAFT_BUY
        b = T[T_PRODUCT_BUILDING + prod]
        pay_cube_vec(s, T, p, T_CRAFT_BUY_CUBES + CRAFT_BUY_ROW * b)
        pay_grain(s, p, T[T_CRAFT_BUY_GRAIN + b])
        gain_good(s, p, prod, 1)
        finish_action(s, T)
    elif a == A_MILL:  # §4.3 mill
        pay_time(s, T, p, T[T_MILL_TIME])
        pay_grain(s, p, T[T_MILL_GRAIN])
        gain_coins(s, p, T[T_MILL_COINS])
        finish_action(s, T)
    elif a == A_MARKET:  # §4.5 via the Well or a free action
        open_market(s, T, p)
    elif A_TRAVEL <= a < A_ENTER:
        i = a - A_TRAVEL
        _apply_travel(s, T, p, i // (2 * N_GEN), (i // N_GEN) % 2, i % N_GEN)
    elif A_ENTER <= a < A_ENTER + N_GEN * 2:  # §4.7 (a): privilege of level 1 only (ED-24)
        g, pay = (a - A_ENTER) // 2, (a - A_ENTER) % 2
        pay_time(s, T, p, T[T_COUNCIL_TIME])
        _pay_council(s, T, p, pay)
        move_member(s, p, LOC_FARM, LOC_COUNCIL, g)
        start_privilege(s, T, 1)
    elif A_CLIMB <= a < A_CLIMB + (N_LEVELS - 1) * N_GEN * 2:  # §4.7 (b)
        i = a - A_CLIMB
        lv, g, pay = i // (N_GEN * 2), (i // 2) % N_GEN, i % 2
        pay_time(s, T, p, T[T_COUNCIL_TIME + lv + 1])
        _pay_council(s, T, p, pay)
        move_member(s, p, LOC_COUNCIL + lv, LOC_COUNCIL + lv + 1, g)
        start_privilege(s, T, highest_council(s, p))
    elif a == A_PRIV_ONLY:  # §4.7 (c)
        start_privilege(s, T, highest_council(s, p))
    elif A_CHURCH <= a < A_CHURCH + N_GEN * 2:  # §4.8
        g, pay = (a - A_CHURCH) // 2, (a - A_CHURCH) % 2
        if pay == 0:
            pay_cubes(s, p, C_BROWN, T[T_CHURCH_BROWN])
        else:
            pay_time(s, T, p, T[T_CHURCH_TIME])
        move_member(s, p, LOC_FARM, LOC_BAG, g)
        finish_action(s, T)


@jit
def _pay_council(s, T, p, pay):
    if pay == 0:
        pay_cubes(s, p, C_GREEN, T[T_COUNCIL_GREEN])
    else:
        pay_good(s, p, G_SCROLL, T[T_COUNCIL_SCROLL])


@jit
def _apply_privilege(s, T, p, lv):
    """§4.7 privileges: 1 next start player, 2 cubes of choice, 3 a good of choice, 4 coin->3."""
    if lv == 1:
        s[S_NS] = p
        finish_action(s, T)
    elif lv == 2:
        start_reward(s, T, PK_CUBES, T[T_PRIVILEGE_CUBES])
    elif lv == 3:
        start_reward(s, T, PK_GOODS, T[T_PRIVILEGE_GOODS])
    else:
        pay_coins(s, p, T[T_PRIVILEGE_COIN])
        add_prestige(s, p, T[T_PRIVILEGE_PRESTIGE], SRC_COUNCIL_PRIVILEGE)  # rules §4.7
        finish_action(s, T)


@jit
def _apply_serve(s, T, p, k):
    """§4.5: pay the demand (and after the opener's free first sale, 1 green + 1 time)."""
    t = s[S_STALLS + k]
    off = T_CUSTOMER_DEMAND + DEMAND_ROW * t
    for g in range(N_GOODS):
        if T[off + g] > 0:
            pay_good(s, p, g, T[off + g])
    if T[off + DEMAND_GRAIN] > 0:
        pay_grain(s, p, T[off + DEMAND_GRAIN])
    if not (s[S_MFREE] == 1 and p == s[S_MOPEN]):
        pay_cubes(s, p, C_GREEN, T[T_MARKET_FEE_GREEN])
        pay_time(s, T, p, T[T_MARKET_FEE_TIME])  # may cross the bridge: resolved now (ED-15)
    if p == s[S_MOPEN]:
        s[S_MFREE] = 0
    s[S_STALLS + k] = -1
    s[S_OWNER + t] = p
    s[S_MSERVED] = 1
    if not setup_death(s, T, p, True):  # a crossing in market day resolves now (ED-15)
        market_next_go(s, T)


@jit
def apply_action(s, T, a):
    """Apply legal action a for the actor; returns 0."""
    p = s[S_ACTOR]
    ph = s[S_PHASE]
    if ph == PH_TURN:
        if a < A_WELL:
            _apply_take(s, T, p, a - A_TAKE)
        else:  # §4.10, ED-12: pay 3 of a colour (coins as jokers), then any action or none
            pay_cubes(s, p, a - A_WELL, T[T_WELL_CUBES])
            choose_action(s, -1)
    elif ph == PH_CHOOSE:
        if a == A_DONE:
            finish_action(s, T)
        else:
            _apply_option(s, T, p, a)
    elif ph == PH_CRAFT_PRODUCE:
        if a == A_DONE:
            finish_action(s, T)
        else:
            _apply_option(s, T, p, a)
    elif ph == PH_PRIVILEGE:
        if a == A_DONE:
            finish_action(s, T)
        else:
            _apply_privilege(s, T, p, a - A_PRIVILEGE + 1)
    elif ph == PH_REWARD:
        if a < A_CHOOSE_GOOD:
            gain_cube(s, p, a - A_CHOOSE_CUBE, 1)
            more = supply_has_cubes(s)
        else:
            gain_good(s, p, a - A_CHOOSE_GOOD, 1)
            more = supply_has_goods(s)
        s[S_PUNITS] -= 1
        if s[S_PUNITS] == 0 or not more:
            finish_action(s, T)
    elif ph == PH_MARKET:
        if a == A_DONE:  # a pass is final for this market day (ED-19)
            s[S_MPASSED + p] = 1
            if p == s[S_MOPEN]:
                s[S_MFREE] = 0
            market_next_go(s, T)
        else:
            _apply_serve(s, T, p, a - A_SERVE)
    elif ph == PH_DEATH:  # ED-16, ED-17
        g = lowest_visible_gen(s, p)
        bury(s, T, p, visible_loc(a - A_DIE), g)
        if s[S_DNOW + p] > 0:
            s[S_DNOW + p] -= 1
        else:
            s[S_DEND + p] -= 1
        after_death(s, T)
    elif ph == PH_MASS_PICK:  # ED-27
        if a == A_DONE:
            s[S_MSEAT] += 1
        else:
            pay_coins(s, p, T[T_MASS_PICK_COINS])
            move_member(s, p, LOC_BAG, LOC_WINDOW, a - A_PICK)
            s[S_MPICKED] += 1
        mass_pick_go(s, T)
    elif ph == PH_MASS_ADVANCE:  # ED-28
        if a == A_DONE:
            s[S_MSEAT] += 1
        else:
            w, g = (a - A_ADVANCE) // N_GEN, (a - A_ADVANCE) % N_GEN
            pay_grain(s, p, T[T_WINDOW_GRAIN + w])
            move_member(s, p, LOC_WINDOW + w, LOC_WINDOW + w + 1, g)
        mass_advance_go(s, T)
    return 0
