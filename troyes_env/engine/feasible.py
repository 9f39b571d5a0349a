"""Exact "some legal group exists" tests for the masks (ED-5), without the completion search.

`groups` evaluates a group (eval_group) and searches completions (search_group); the tests here
decide, per target or cube option, whether `groups.option_feasible` would find a legal group,
from a per-mask summary of the best dice. Every shortcut restates eval_group's conditions for
the groups it stands for; anything outside the stated conditions calls the search.
"""

from __future__ import annotations

from core.jit import jit, nl
from troyes_env.engine.board import cath_height, free_flags
from troyes_env.engine.groups import (
    CAND_RID,
    CAND_W,
    EF_FREE_DICE,
    EF_PAY_GAIN,
    EF_SPLIT,
    RES_DEN,
    RES_INF,
    cube_effect,
    cube_fits,
    effective_total,
    eval_group,
    group_colours,
    group_divisor,
    group_max,
    need_colour,
    option_feasible,
    placement_has_source,
)
from troyes_env.layout import (
    DIST_DICE,
    MAX_GROUP,
    MAXP,
    N_ACTPOS,
    N_COL,
    N_DIE_TYPES,
    N_DIST,
    N_LEVELS,
    N_VAL,
    NEUTRAL,
    S_ACARD,
    S_ACUBE,
    S_ASUP,
    S_DEN,
    S_DICE,
    S_INF,
    S_NP,
    SUP_NONE,
    TK_AGRI,
    TK_BUILD,
    TK_CATH,
    TK_EVENT,
)
from troyes_env.tables import (
    A_EFF,
    A_HIRE,
    A_P0,
    A_W,
    T_ACT,
    T_PRICE,
)

# Dice summary: built lazily, once per mask, in `work` after the candidate list of
# groups._fill_candidates (1 + 3 * N_TYPES entries), so the completion search and the summary
# never overlap. One slot per colour (SUM_ANY: every colour, for ALL_FIVES); each slot: [0] own
# dice (<= 3), [1:4] their types by value (highest first); [4] bought dice (<= 3), [5:8] their
# types; [8] dice from distinct other districts (<= 3, one per district, FREE_DICE), [9:12]
# their types; [12:15] (SUM_BEST) for groups of at most 1, 2, 3 dice, the highest pip total of
# the best own + best bought dice whose price (rules §4.0) the money covers, -1 if none;
# [15:33] (SUM_COMBO) per (n, nb) in the order (1,0) (1,1) (2,0) (2,1) (2,2) (3,0) .. (3,3): the
# pip total of the best n - nb own and nb bought dice (-1: too few dice), then their price.
# work[slot base] < 0: not built yet.
N_TYPES = N_DIE_TYPES  # die types: district (4 = neutral), colour, value
SUM_OFF = CAND_RID + CAND_W * N_TYPES  # after groups._fill_candidates' records
SUM_OWN_N, SUM_OWN = 0, 1  # own dice: count, then MAX_GROUP types
SUM_BOUGHT_N = SUM_OWN + MAX_GROUP  # bought dice: count, then MAX_GROUP types
SUM_BOUGHT = SUM_BOUGHT_N + 1
SUM_DIST_N = SUM_BOUGHT + MAX_GROUP  # dice from distinct districts: count, then types
SUM_DIST = SUM_DIST_N + 1
SUM_BEST = SUM_DIST + MAX_GROUP
SUM_COMBO = SUM_BEST + MAX_GROUP
N_COMBOS = 9  # (n, nb) pairs with 1 <= n <= MAX_GROUP, 0 <= nb <= n
SUM_W = SUM_COMBO + 2 * N_COMBOS  # a (pip total, price) pair per combination
SUM_ANY = N_COL  # the slot after the colours' ones: dice of every colour
HELD_OFF = SUM_OFF + (SUM_ANY + 1) * SUM_W  # [0] count, then the positions of held cubes
SUM_SIZE = (SUM_ANY + 1) * SUM_W + 1 + N_ACTPOS


@jit(alloc=False)
def reset_summary(s, p, work):
    """Mark the dice summary stale and list the cards where p holds cubes (ED-24), in position
    order; at the start of every mask / legality test that uses them."""
    for slot in range(SUM_ANY + 1):
        work[SUM_OFF + slot * SUM_W] = -1
    k = 0
    for pos in range(N_ACTPOS):
        if s[S_ACUBE + pos * MAXP + p] > 0:
            work[HELD_OFF + 1 + k] = pos
            k += 1
    work[HELD_OFF] = k


@jit(alloc=False)
def _build_summary(s, T, p, slot, work):
    n = s[S_NP]
    b = SUM_OFF + slot * SUM_W
    c0 = 0 if slot == SUM_ANY else slot
    c1 = N_COL if slot == SUM_ANY else slot + 1
    no = 0
    for v in range(N_VAL - 1, -1, -1):
        for c in range(c0, c1):
            t = p * DIST_DICE + c * N_VAL + v
            cnt = s[S_DICE + t]
            while cnt > 0 and no < MAX_GROUP:
                work[b + SUM_OWN + no] = t
                no += 1
                cnt -= 1
    nt = 0
    nd = 0
    seen = 0  # bit d: district d already in the distinct list
    for v in range(N_VAL - 1, -1, -1):
        for c in range(c0, c1):
            for d in range(N_DIST):
                if d == p or (d >= n and d != NEUTRAL):
                    continue
                t = d * DIST_DICE + c * N_VAL + v
                cnt = s[S_DICE + t]
                if cnt <= 0:
                    continue
                while cnt > 0 and nt < MAX_GROUP:
                    work[b + SUM_BOUGHT + nt] = t
                    nt += 1
                    cnt -= 1
                if nd < MAX_GROUP and (seen >> d) & 1 == 0:
                    seen |= 1 << d
                    work[b + SUM_DIST + nd] = t
                    nd += 1
    work[b + SUM_OWN_N] = no
    work[b + SUM_BOUGHT_N] = nt
    work[b + SUM_DIST_N] = nd
    # pip totals and prices of the best own + bought dice per (n, nb), as option_feasible_fast
    # picks them: the first n - nb own and nb bought dice above (no cube: the price is
    # nb * price[n], rules §4.0 / ED-23)
    o1 = work[b + SUM_OWN] % N_VAL + 1
    o2 = o1 + work[b + SUM_OWN + 1] % N_VAL + 1
    b1 = work[b + SUM_BOUGHT] % N_VAL + 1
    b2 = b1 + work[b + SUM_BOUGHT + 1] % N_VAL + 1
    own = (0, o1, o2, o2 + work[b + SUM_OWN + 2] % N_VAL + 1)  # entries above `no` are never read
    bought = (0, b1, b2, b2 + work[b + SUM_BOUGHT + 2] % N_VAL + 1)
    money = s[S_DEN + p]
    for k in range(MAX_GROUP):
        work[b + SUM_BEST + k] = -1
    k = 0
    for gn in range(1, MAX_GROUP + 1):
        price = T[T_PRICE + gn]
        for nb in range(gn + 1):
            tot = -1
            cost = nb * price
            if gn - nb <= no and nb <= nt:
                tot = own[gn - nb] + bought[nb]
                if cost <= money:
                    for mx in range(gn, MAX_GROUP + 1):
                        if tot > work[b + SUM_BEST + mx - 1]:
                            work[b + SUM_BEST + mx - 1] = tot
            work[b + SUM_COMBO + 2 * k] = tot
            work[b + SUM_COMBO + 2 * k + 1] = cost
            k += 1


@jit(inline=True, alloc=False)
def _summary(s, T, p, col, work):
    """Base of the summary slot for dice colour col (-1: any), built on first use."""
    slot = col if col >= 0 else SUM_ANY
    b = SUM_OFF + slot * SUM_W
    if work[b] < 0:
        _build_summary(s, T, p, slot, work)
    return b


@jit(inline=True, alloc=False)
def _plain_feasible(s, T, p, tk, ti, div, work):
    """option_feasible_fast without a cube for an Activity card, event or agriculture with a
    divisor div > 0, from the summary's totals.

    eval_group of a group of n dice of the needed colour, nb of them bought, pip total `tot`,
    with no cube: the price nb * price[n] (rules §4.0, ED-23) within the money; then
    Activity: tot // div >= 1 (rules §4.1), i.e. tot >= div, and, without an own supervisor on
    the card, price + hire cost within the money (§4.1 hiring, ED-23), and for PAY_GAIN the first
    payment affordable after those costs (deniers) or held (influence) (rules §6.1.2);
    event: n <= the card's maximum, min(tot // div, free flags) > 0 (rules §4.3, ED-32);
    agriculture: tot // div > 0 (rules §4.5). So only the cheapest price among the (n, nb) whose
    best dice reach div matters, and when the bound is the money alone, the best total
    (SUM_BEST) decides."""
    b = _summary(s, T, p, need_colour(s, T, tk, ti), work)
    if tk == TK_EVENT:
        mx = group_max(s, T, tk, ti, nl(-1))
        if mx < 1:
            return False
        return work[b + SUM_BEST + mx - 1] >= div and free_flags(s, T, ti) > 0
    if tk == TK_AGRI:
        return work[b + SUM_BEST + MAX_GROUP - 1] >= div
    o = T_ACT + s[S_ACARD + ti] * A_W
    money = s[S_DEN + p]
    lim = money  # the most the bought dice may cost
    hire = 0
    if s[S_ASUP + ti * MAXP + p] == SUP_NONE:
        hire = T[o + A_HIRE]
        if money - hire < lim:
            lim = money - hire
    if T[o + A_EFF] == EF_PAY_GAIN:
        amt = T[o + A_P0 + 1]
        if T[o + A_P0] == RES_DEN:
            if money - hire - amt < lim:
                lim = money - hire - amt
        elif T[o + A_P0] == RES_INF:
            if s[S_INF + p] < amt:
                return False
    if lim == money:
        return work[b + SUM_BEST + MAX_GROUP - 1] >= div
    for k in range(N_COMBOS):
        if work[b + SUM_COMBO + 2 * k] >= div and work[b + SUM_COMBO + 2 * k + 1] <= lim:
            return True
    return False


@jit(alloc=False)
def _build_plain_feasible(s, T, p, ti):
    """A placement (ED-26: one die; ED-28) with no cube, by the value of its die. eval_group of
    one die of value v: its price (an own die: 0, a bought one: price[1], rules §4.0) within the
    money, and some own citizen can make the placement legal (placement_has_source). So value v
    works iff that source exists and an own die of v with money >= 0, or a bought one with
    price[1] <= money, is there."""
    n = s[S_NP]
    col = need_colour(s, T, nl(TK_BUILD), ti)
    money = s[S_DEN + p]
    buy_ok = T[T_PRICE + 1] <= money
    for v in range(N_VAL):
        ok = s[S_DICE + p * DIST_DICE + col * N_VAL + v] > 0 and money >= 0
        if not ok and buy_ok:
            for d in range(N_DIST):
                if d == p or (d >= n and d != NEUTRAL):
                    continue
                if s[S_DICE + d * DIST_DICE + col * N_VAL + v] > 0:
                    ok = True
                    break
        if ok and placement_has_source(s, T, p, ti, v + 1):
            return True
    return False


@jit(alloc=False)
def _build_target_feasible(s, T, p, ti, cube_pos, work):
    """A placement (ED-26: one die; ED-28) by the value of its die: its yield depends on the value
    only and its price on whether the die is bought (rules §4.0), so one own and one bought die
    of each value stand for all. An own die costs nothing: when it fails with money >= 0, its
    placement fails and so does a bought die of that value."""
    n = s[S_NP]
    col = group_colours(s, T, nl(TK_BUILD), ti, cube_pos)
    money = s[S_DEN + p]
    for v in range(N_VAL):
        t = p * DIST_DICE + col * N_VAL + v
        if s[S_DICE + t] > 0:
            if eval_group(s, T, p, nl(TK_BUILD), ti, cube_pos, t, nl(-1), nl(-1), nl(1)) > 0:
                return True
            if money >= 0:
                continue
        for d in range(N_DIST):
            if d == p or (d >= n and d != NEUTRAL):
                continue
            t = d * DIST_DICE + col * N_VAL + v
            if s[S_DICE + t] > 0:
                if eval_group(s, T, p, nl(TK_BUILD), ti, cube_pos, t, nl(-1), nl(-1), nl(1)) > 0:
                    return True
                break
    return False


@jit(alloc=False)
def _cath_target_feasible(s, T, p, cube_pos, mask, a_die, work):
    """The Cathedral (rules §4.2, ED-27: every die needs a free level of its value). One die of a
    legal group is legal alone: its value keeps a free level, and it costs no more (an own die:
    nothing; a group of bought dice only: n * price[n] >= price[1], checked on the table here),
    so a legal group exists iff a single die is legal: one own and one bought die of each value
    stand for all. Outside these conditions (a cube, negative money) the completion search."""
    money = s[S_DEN + p]
    pr1 = T[T_PRICE + 1]
    if (
        cube_pos >= 0
        or money < 0
        or pr1 < 0
        or pr1 > 2 * T[T_PRICE + 2]
        or pr1 > 3 * T[T_PRICE + 3]
    ):
        return option_feasible(s, T, p, nl(TK_CATH), nl(0), cube_pos, mask, a_die, work)
    n = s[S_NP]
    col = group_colours(s, T, nl(TK_CATH), nl(0), cube_pos)
    for v in range(N_VAL):
        if cath_height(s, v + 1) >= N_LEVELS:
            continue
        t = p * DIST_DICE + col * N_VAL + v
        if s[S_DICE + t] > 0:
            if eval_group(s, T, p, nl(TK_CATH), nl(0), cube_pos, t, nl(-1), nl(-1), nl(1)) > 0:
                return True
        for d in range(N_DIST):
            if d == p or (d >= n and d != NEUTRAL):
                continue
            t = d * DIST_DICE + col * N_VAL + v
            if s[S_DICE + t] > 0:
                if eval_group(s, T, p, nl(TK_CATH), nl(0), cube_pos, t, nl(-1), nl(-1), nl(1)) > 0:
                    return True
                break
    return False


@jit(inline=True, alloc=False)
def _nocube_feasible(s, T, p, tk, ti, mask, a_die, work):
    """option_feasible_fast(..., cube_pos=-1): the plain shortcuts, else the search."""
    if tk == TK_BUILD:
        return _build_plain_feasible(s, T, p, ti)
    if tk == TK_CATH:
        return _cath_target_feasible(s, T, p, nl(-1), mask, a_die, work)
    div = group_divisor(s, T, tk, ti)
    if div <= 0:
        return option_feasible(s, T, p, tk, ti, nl(-1), mask, a_die, work)
    return _plain_feasible(s, T, p, tk, ti, div, work)


@jit(alloc=False)
def option_feasible_fast(s, T, p, tk, ti, cube_pos, mask, a_die, work):
    """option_feasible (ED-5), exactly, without the completion search where that is safe.

    Activity / event / agriculture: besides colour and size, eval_group depends on a group only
    through its number of dice n, of bought dice nb (price, rules §4.0 / ED-23; with FREE_DICE no
    price but one die per other district, §6.1.2) and its pip total, and its verdict can only
    improve with a higher total (N = total // divisor, divisor > 0, rules §4.1, §4.3, §4.5; cube
    modifiers add to the total or scale it, §6.1.2). So a legal group exists iff, for some
    (n, nb), the best own plus the best bought dice form one: at most 9 evaluations; with no cube
    `_plain_feasible` decides from the summary's totals alone. Placements go by die value
    (`_build_plain_feasible`, `_build_target_feasible`), the Cathedral by single dice
    (`_cath_target_feasible`); anything outside these conditions uses the completion search.
    Needs `reset_summary` earlier in the same mask."""
    if cube_pos < 0:
        return _nocube_feasible(s, T, p, tk, ti, mask, a_die, work)
    if tk == TK_BUILD:
        return _build_target_feasible(s, T, p, ti, cube_pos, work)
    if tk == TK_CATH:
        return _cath_target_feasible(s, T, p, cube_pos, mask, a_die, work)
    eff, p0, p1 = cube_effect(s, T, cube_pos)
    div = group_divisor(s, T, tk, ti)
    if (eff == EF_SPLIT and p0 < 0) or div <= 0:
        return option_feasible(s, T, p, tk, ti, cube_pos, mask, a_die, work)
    b = _summary(s, T, p, group_colours(s, T, tk, ti, cube_pos), work)
    no = work[b + SUM_OWN_N]
    ob = b + SUM_BOUGHT
    if eff == EF_FREE_DICE:
        ob = b + SUM_DIST
    nt = work[ob - 1]
    mx = group_max(s, T, tk, ti, cube_pos)
    money = s[S_DEN + p]
    for n in range(1, mx + 1):
        for nb in range(n + 1):
            if n - nb > no or nb > nt:
                continue
            # eval_group rejects these at once: the price of the bought dice above the money
            # (ED-23; FREE_DICE: no price), and a (modified, §6.1.2) sum below the divisor
            if eff != EF_FREE_DICE and nb * T[T_PRICE + n] > money:
                continue
            t0 = work[b + SUM_OWN] if n - nb > 0 else work[ob]
            t1 = -1
            t2 = -1
            tot = t0 % N_VAL + 1
            if n >= 2:
                t1 = work[b + SUM_OWN + 1] if n - nb > 1 else work[ob + (1 - (n - nb))]
                tot += t1 % N_VAL + 1
            if n >= 3:
                t2 = work[b + SUM_OWN + 2] if n - nb > 2 else work[ob + (2 - (n - nb))]
                tot += t2 % N_VAL + 1
            if effective_total(T, eff, p0, p1, n, tot) < div:
                continue
            if eval_group(s, T, p, tk, ti, cube_pos, t0, t1, t2, n) > 0:
                return True
    return False


@jit(inline=True, alloc=False)
def target_feasible_fast(s, T, p, tk, ti, mask, a_die, work):
    """target_feasible with option_feasible_fast (needs `reset_summary` first). Inlined (numba
    IR) with its no-cube tests: a compiled call passing arrays costs about 100 instructions
    (argument unpacking, reference counts), more than the tests themselves."""
    if _nocube_feasible(s, T, p, tk, ti, mask, a_die, work):
        return True
    for k in range(work[HELD_OFF]):
        pos = work[HELD_OFF + 1 + k]
        if cube_fits(s, T, tk, ti, pos):
            if option_feasible_fast(s, T, p, tk, ti, pos, mask, a_die, work):
                return True
    return False
