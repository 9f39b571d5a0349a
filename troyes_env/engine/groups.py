"""Dice groups (rules §4.0-§4.5, §6.1.2, ED-22..28): evaluation, completion search, targets.

A die type is `district*18 + colour*6 + value-1` with the absolute district (4 = neutral); the
DIE action id uses the seat-relative district. A group is chosen die by die in non-decreasing
action-id order, so each group has one selection sequence (rules §10.7).
"""

from __future__ import annotations

from core.jit import jit, nl
from troyes_env.engine.board import (
    building_colour,
    cath_height,
    free_flags,
    placement_ok,
)
from troyes_env.layout import (
    COL_W,
    COL_Y,
    DIST_DICE,
    FROM_CARD,
    FROM_LYING,
    FROM_SPACE,
    FROM_SUPPLY,
    MAX_GROUP,
    MAXP,
    N_ACTPOS,
    N_BLD,
    N_COL,
    N_DIST,
    N_LEVELS,
    N_OWNERS,
    N_SPACES,
    N_VAL,
    NEUTRAL,
    S_ACARD,
    S_ACUBE,
    S_ASUP,
    S_DEN,
    S_DICE,
    S_INF,
    S_LYING,
    S_NP,
    S_ROW,
    S_SEL,
    S_SELN,
    S_SPACES,
    S_SUP,
    SUP_NONE,
    TK_ACT,
    TK_AGRI,
    TK_BUILD,
    TK_CATH,
    TK_EVENT,
)
from troyes_env.rules_data import Effect, Res, Timing
from troyes_env.tables import (
    A_DICE,
    A_DIV,
    A_EFF,
    A_HIRE,
    A_P0,
    A_P1,
    A_TIMING,
    A_W,
    E_COMBAT,
    E_DIV,
    E_MAX,
    E_W,
    M_AGRI_DIV,
    M_FIVES,
    T_ACT,
    T_EV,
    T_MISC,
    T_PRICE,
)

# effect codes (rules_data.Effect), colours, resources, timings (test_constants_sync.py)
EF_GAIN = int(Effect.GAIN)
EF_PAY_GAIN = int(Effect.PAY_GAIN)
EF_MILLER = int(Effect.MILLER)
EF_VP_PER = int(Effect.VP_PER)
EF_EVENT_CUBE = int(Effect.EVENT_CUBE)
EF_DIE_PLUS = int(Effect.DIE_PLUS)
EF_GROUP_PLUS = int(Effect.GROUP_PLUS)
EF_RECOLOUR = int(Effect.RECOLOUR)
EF_SPLIT = int(Effect.SPLIT)
EF_ALL_FIVES = int(Effect.ALL_FIVES)
EF_FREE_DICE = int(Effect.FREE_DICE)
AGRI_COLOUR = COL_Y  # rules §4.5
CATH_COLOUR = COL_W  # rules §4.2
SPLIT_COLOUR = COL_W  # rules §6.1.2 SPLIT: exactly one white die
RES_DEN, RES_INF, RES_VP = int(Res.DENIERS), int(Res.INFLUENCE), int(Res.VP)
TIMING_IMMEDIATE, TIMING_DELAYED = int(Timing.IMMEDIATE), int(Timing.DELAYED)
# _fill_candidates' records in work (work[0] = their count): relative die id, absolute type,
# available count of candidate i at work[CAND_RID + CAND_W * i], ...
CAND_RID, CAND_TYPE, CAND_CNT = 1, 2, 3
CAND_W = 3


@jit(alloc=False)
def rel_of(n, p, d):
    """Seat-relative district of absolute district d for player p (NEUTRAL stays neutral)."""
    if d == NEUTRAL:
        return NEUTRAL
    return (d - p + n) % n


@jit(alloc=False)
def abs_of(n, p, rd):
    """Absolute district of relative district rd; -1 when rd is not a seat in this game."""
    if rd == NEUTRAL:
        return NEUTRAL
    if rd >= n:
        return -1
    return (p + rd) % n


@jit(alloc=False)
def need_colour(s, T, tk, ti):
    """The dice colour an action needs (rules §4.1-§4.5)."""
    if tk == TK_ACT:
        return T[T_ACT + s[S_ACARD + ti] * A_W + A_DICE]
    if tk == TK_EVENT:
        return T[T_EV + s[S_ROW + ti] * E_W + E_COMBAT]
    if tk == TK_AGRI:
        return AGRI_COLOUR
    if tk == TK_CATH:
        return CATH_COLOUR
    return building_colour(ti)


@jit(alloc=False)
def cube_fits(s, T, tk, ti, pos):
    """ED-25: does a cube from the delayed card at `pos` fit this action?"""
    card = s[S_ACARD + pos]
    if card < 0 or T[T_ACT + card * A_W + A_TIMING] != TIMING_DELAYED:
        return False
    eff = T[T_ACT + card * A_W + A_EFF]
    p0 = T[T_ACT + card * A_W + A_P0]
    p1 = T[T_ACT + card * A_W + A_P1]
    need = need_colour(s, T, tk, ti)
    if tk == TK_CATH:
        return False
    if tk == TK_BUILD:
        return eff == EF_FREE_DICE and p0 == need  # Tithing for a City Hall placement only
    if eff == EF_DIE_PLUS or eff == EF_GROUP_PLUS or eff == EF_FREE_DICE:
        return p0 == need
    if eff == EF_RECOLOUR or eff == EF_SPLIT:
        return p1 == need
    if eff == EF_ALL_FIVES:
        return True
    return False


@jit(alloc=False)
def has_fitting_cube(s, T, p, tk, ti):
    for pos in range(N_ACTPOS):
        if s[S_ACUBE + pos * MAXP + p] > 0 and cube_fits(s, T, tk, ti, pos):
            return True
    return False


@jit(alloc=False)
def group_colours(s, T, tk, ti, cube_pos):
    """ED-26: the colour every die must have (-1: any colour, ALL_FIVES)."""
    need = need_colour(s, T, tk, ti)
    if cube_pos < 0:
        return need
    card = s[S_ACARD + cube_pos]
    eff = T[T_ACT + card * A_W + A_EFF]
    if eff == EF_ALL_FIVES:
        return -1
    if eff == EF_SPLIT:
        return SPLIT_COLOUR
    if eff == EF_RECOLOUR:
        return T[T_ACT + card * A_W + A_P0]
    return need


@jit(alloc=False)
def group_max(s, T, tk, ti, cube_pos):
    """Most physical dice a group may hold."""
    if tk == TK_BUILD:
        return 1
    if cube_pos >= 0:
        card = s[S_ACARD + cube_pos]
        if T[T_ACT + card * A_W + A_EFF] == EF_SPLIT:
            return 1
    if tk == TK_EVENT:
        m = T[T_EV + s[S_ROW + ti] * E_W + E_MAX]
        return m if m < MAX_GROUP else MAX_GROUP
    return MAX_GROUP


@jit(alloc=False)
def group_cost(s, T, p, cube_pos, t0, t1, t2, n):
    """rules §4.0 / ED-23 price of the bought dice; FREE_DICE makes them free (§6.1.2)."""
    nb = 0
    for k in range(n):
        t = t0 if k == 0 else (t1 if k == 1 else t2)
        if t // DIST_DICE != p:
            nb += 1
    if cube_pos >= 0:
        card = s[S_ACARD + cube_pos]
        if T[T_ACT + card * A_W + A_EFF] == EF_FREE_DICE:
            return 0
    return nb * T[T_PRICE + n]


@jit(alloc=False)
def placement_has_source(s, T, p, b, v):
    """ED-7/ED-28: some own citizen can make this placement legal."""
    if s[S_SUP + p] > 0 and placement_ok(s, T, p, b, v, nl(FROM_SUPPLY), nl(0)):
        return True
    for sp in range(N_SPACES):
        if s[S_SPACES + sp] == p and placement_ok(s, T, p, b, v, nl(FROM_SPACE), sp):
            return True
    for bb in range(N_BLD):
        if s[S_LYING + bb * N_OWNERS + p] > 0 and placement_ok(s, T, p, b, v, nl(FROM_LYING), bb):
            return True
    for pos in range(N_ACTPOS):
        if s[S_ASUP + pos * MAXP + p] > SUP_NONE and placement_ok(
            s, T, p, b, v, nl(FROM_CARD), pos
        ):
            return True
    return False


@jit(alloc=False)
def effective_total(T, eff, p0, p1, n, total):
    """rules §6.1.2: the sum a cube modifier (code eff, -1: none) makes of n dice with pip total
    `total`."""
    if eff == EF_ALL_FIVES:
        return n * T[T_MISC + M_FIVES]
    if eff == EF_SPLIT:
        return p0 * total
    if eff == EF_DIE_PLUS:
        return total + p1 * n
    if eff == EF_GROUP_PLUS:
        return total + p1
    return total


@jit(alloc=False)
def cube_effect(s, T, cube_pos):
    """(effect code, P0, P1) of the cube's card; (-1, 0, 0) without a cube."""
    if cube_pos < 0:
        return -1, 0, 0
    o = T_ACT + s[S_ACARD + cube_pos] * A_W
    return T[o + A_EFF], T[o + A_P0], T[o + A_P1]


@jit(alloc=False)
def group_divisor(s, T, tk, ti):
    """The divisor of an Activity card, event or agriculture (rules §4.1, §4.3, §4.5); 0 else."""
    if tk == TK_ACT:
        return T[T_ACT + s[S_ACARD + ti] * A_W + A_DIV]
    if tk == TK_EVENT:
        return T[T_EV + s[S_ROW + ti] * E_W + E_DIV]
    if tk == TK_AGRI:
        return T[T_MISC + M_AGRI_DIV]
    return 0


@jit(alloc=False)
def by_best_dice(s, T, tk, ti, cube_pos):
    """Can the best dice stand for all (the dominance argument of option_feasible_fast)?

    Activity / event / agriculture with a positive divisor and no FREE_DICE cube (one die per
    other district) nor a SPLIT cube of negative factor: eval_group's verdict then depends on a
    group only through its colour, its number of dice n, of bought dice nb and its pip total,
    and a higher total never turns a legal group illegal."""
    if tk != TK_ACT and tk != TK_EVENT and tk != TK_AGRI:
        return False
    eff, p0, p1 = cube_effect(s, T, cube_pos)
    if eff == EF_FREE_DICE or (eff == EF_SPLIT and p0 < 0):
        return False
    return group_divisor(s, T, tk, ti) > 0


@jit(alloc=False)
def eval_group(s, T, p, tk, ti, cube_pos, t0, t1, t2, n):
    """The yield of a complete group, 0 when the group is illegal (ED-22..ED-28).

    Activity: activations N; event: cubes placed; agriculture: deniers; Cathedral: cubes;
    placement: 1. Costs must be payable from the money held before the action (ED-23)."""
    if n < 1:
        return 0
    col = group_colours(s, T, tk, ti, cube_pos)
    if n > group_max(s, T, tk, ti, cube_pos):
        return 0
    total = 0
    for k in range(n):
        t = t0 if k == 0 else (t1 if k == 1 else t2)
        c = (t // N_VAL) % N_COL
        if col >= 0 and c != col:
            return 0
        total += t % N_VAL + 1
    eff = -1
    p0 = 0
    p1 = 0
    if cube_pos >= 0:
        card = s[S_ACARD + cube_pos]
        eff = T[T_ACT + card * A_W + A_EFF]
        p0 = T[T_ACT + card * A_W + A_P0]
        p1 = T[T_ACT + card * A_W + A_P1]
    cost = group_cost(s, T, p, cube_pos, t0, t1, t2, n)
    if eff == EF_FREE_DICE:
        # at most one die from each other district (rules §6.1.2)
        for k in range(n):
            tk_ = t0 if k == 0 else (t1 if k == 1 else t2)
            dk = tk_ // DIST_DICE
            if dk == p:
                continue
            for j in range(k + 1, n):
                tj = t0 if j == 0 else (t1 if j == 1 else t2)
                if tj // DIST_DICE == dk:
                    return 0
    money = s[S_DEN + p]
    if cost > money:
        return 0
    # effective sum (rules §6.1.2)
    vdice = p0 if eff == EF_SPLIT else n
    total = effective_total(T, eff, p0, p1, n, total)
    if tk == TK_ACT:
        card = s[S_ACARD + ti]
        o = T_ACT + card * A_W
        nact = total // T[o + A_DIV]
        if nact < 1:
            return 0
        if s[S_ASUP + ti * MAXP + p] == SUP_NONE:
            cost += T[o + A_HIRE]
            if cost > money:
                return 0
        if T[o + A_EFF] == EF_PAY_GAIN:
            # rules §6.1.2 PAY_GAIN: the first payment must be affordable after the costs
            amt = T[o + A_P0 + 1]
            if T[o + A_P0] == RES_DEN:
                if cost + amt > money:
                    return 0
            elif T[o + A_P0] == RES_INF:
                if s[S_INF + p] < amt:
                    return 0
        return nact
    if tk == TK_EVENT:
        card = s[S_ROW + ti]
        if vdice > T[T_EV + card * E_W + E_MAX]:
            return 0
        k = total // T[T_EV + card * E_W + E_DIV]
        f = free_flags(s, T, ti)
        if f < k:
            k = f
        return k if k > 0 else 0
    if tk == TK_AGRI:
        k = total // T[T_MISC + M_AGRI_DIV]
        return k if k > 0 else 0
    if tk == TK_CATH:
        # ED-27: every die needs a free level of its value
        for k in range(n):
            t = t0 if k == 0 else (t1 if k == 1 else t2)
            v = t % N_VAL + 1
            same = 0
            for j in range(n):
                tj = t0 if j == 0 else (t1 if j == 1 else t2)
                if tj % N_VAL + 1 == v:
                    same += 1
            if cath_height(s, v) + same > N_LEVELS:
                return 0
        return n
    # TK_BUILD: exactly one die, some source makes the placement legal
    v = t0 % N_VAL + 1
    if not placement_has_source(s, T, p, ti, v):
        return 0
    return 1


@jit(alloc=False)
def _fill_candidates(s, T, p, col, min_rel, work):
    """Available die types with relative id >= min_rel (and colour col unless -1), in id order.

    work[0] = count; then records of CAND_W entries (relative id, absolute type, available count)
    from work[1]: candidate i at work[CAND_RID + CAND_W * i] etc."""
    n = s[S_NP]
    m = 0
    seln = s[S_SELN]
    for rd in range(N_DIST):
        d = abs_of(n, p, rd)
        if d < 0:
            continue
        for c in range(N_COL):
            if col >= 0 and c != col:
                continue
            for v in range(N_VAL):
                rid = rd * DIST_DICE + c * N_VAL + v
                if rid < min_rel:
                    continue
                t = d * DIST_DICE + c * N_VAL + v
                cnt = s[S_DICE + t]
                for k in range(seln):
                    if s[S_SEL + k] == t:
                        cnt -= 1
                if cnt > 0:
                    work[CAND_RID + CAND_W * m] = rid
                    work[CAND_TYPE + CAND_W * m] = t
                    work[CAND_CNT + CAND_W * m] = cnt
                    m += 1
    work[0] = m
    return m


@jit(alloc=False)
def _eval_sel_plus(s, T, p, tk, ti, cube_pos, a, b, c, na):
    """Evaluate the chosen dice plus `na` added types a, b, c."""
    seln = s[S_SELN]
    t0 = -1
    t1 = -1
    t2 = -1
    k = 0
    for i in range(seln + na):
        if i < seln:
            t = s[S_SEL + i]
        else:
            j = i - seln
            t = a if j == 0 else (b if j == 1 else c)
        if k == 0:
            t0 = t
        elif k == 1:
            t1 = t
        else:
            t2 = t
        k += 1
    return eval_group(s, T, p, tk, ti, cube_pos, t0, t1, t2, k)


@jit(alloc=False)
def _search_best_dice(s, T, p, tk, ti, cube_pos, mask, a_die, work, mark, only, m):
    """search_group's loop over the candidates work[1:] (m of them) where by_best_dice holds.

    A candidate die X can come next iff the chosen dice, X and e more dice (0 <= e < room), the
    later ones among X's remaining copies and the candidates after X, form a legal group. For
    each split of e into own and bought dice (price, rules §4.0 / ED-23) only the highest of
    them need be tried (by_best_dice): at most 6 evaluations per candidate."""
    seln = s[S_SELN]
    room = group_max(s, T, tk, ti, cube_pos) - seln
    eff, p0, p1 = cube_effect(s, T, cube_pos)
    div = group_divisor(s, T, tk, ti)
    money = s[S_DEN + p]
    nb0 = 0
    tot0 = 0
    for k in range(seln):
        t = s[S_SEL + k]
        tot0 += t % N_VAL + 1
        if t // DIST_DICE != p:
            nb0 += 1
    found_total = 0
    for i in range(m):
        if only >= 0 and work[CAND_RID + CAND_W * i] != only:
            continue
        ta = work[CAND_TYPE + CAND_W * i]
        # the two highest own (o0 >= o1) and bought (b0 >= b1) dice that may follow X
        o0 = -1
        o1 = -1
        b0 = -1
        b1 = -1
        if room >= 2:
            for j in range(i, m):
                t = work[CAND_TYPE + CAND_W * j]
                c = work[CAND_CNT + CAND_W * j] - (1 if j == i else 0)
                if c > 2:
                    c = 2
                for _ in range(c):
                    v = t % N_VAL
                    if t // DIST_DICE == p:
                        if o0 < 0 or v > o0 % N_VAL:
                            o1 = o0
                            o0 = t
                        elif o1 < 0 or v > o1 % N_VAL:
                            o1 = t
                    else:
                        if b0 < 0 or v > b0 % N_VAL:
                            b1 = b0
                            b0 = t
                        elif b1 < 0 or v > b1 % N_VAL:
                            b1 = t
        no = (1 if o0 >= 0 else 0) + (1 if o1 >= 0 else 0)
        nt = (1 if b0 >= 0 else 0) + (1 if b1 >= 0 else 0)
        nba = nb0 + (1 if ta // DIST_DICE != p else 0)
        ok = False
        for e in range(room):
            n = seln + 1 + e
            for eb in range(e + 1):
                if e - eb > no or eb > nt:
                    continue
                # eval_group rejects at once: the bought dice's price above the money (ED-23),
                # a (modified, rules §6.1.2) sum below the divisor
                if (nba + eb) * T[T_PRICE + n] > money:
                    continue
                x1 = -1
                x2 = -1
                if e >= 1:
                    x1 = o0 if e - eb >= 1 else b0
                if e >= 2:
                    x2 = o1 if e - eb >= 2 else (b0 if e - eb == 1 else b1)
                tot = tot0 + ta % N_VAL + 1
                if x1 >= 0:
                    tot += x1 % N_VAL + 1
                if x2 >= 0:
                    tot += x2 % N_VAL + 1
                if effective_total(T, eff, p0, p1, n, tot) < div:
                    continue
                if _eval_sel_plus(s, T, p, tk, ti, cube_pos, ta, x1, x2, e + 1) > 0:
                    ok = True
                    break
            if ok:
                break
        if ok:
            if not mark:
                return 1
            mask[a_die + work[CAND_RID + CAND_W * i]] = True
            found_total += 1
    return found_total


@jit(alloc=False)
def search_group(s, T, p, tk, ti, cube_pos, mask, a_die, work, mark, only=-1):
    """Completion search over the chosen dice (s[sel]).

    mark=False: return 1 if some legal group extends the current choice (incl. itself).
    mark=True: set mask[a_die + rel id] for every die that can be the next one of a legal group;
    return how many were marked. Candidates come after the last chosen die in id order.
    only >= 0: consider only the candidate of that relative id (a one-action legality test)."""
    n = s[S_NP]
    seln = s[S_SELN]
    col = group_colours(s, T, tk, ti, cube_pos)
    mx = group_max(s, T, tk, ti, cube_pos)
    if not mark and seln > 0:
        if _eval_sel_plus(s, T, p, tk, ti, cube_pos, nl(0), nl(0), nl(0), nl(0)) > 0:
            return 1
    room = mx - seln
    if room <= 0:
        return 0
    min_rel = 0
    if seln > 0:
        t = s[S_SEL + seln - 1]
        min_rel = rel_of(n, p, t // DIST_DICE) * DIST_DICE + t % DIST_DICE
    m = _fill_candidates(s, T, p, col, min_rel, work)
    if by_best_dice(s, T, tk, ti, cube_pos):
        return _search_best_dice(s, T, p, tk, ti, cube_pos, mask, a_die, work, mark, only, m)
    # Exact pruning (no rule change): eval_group rejects a group whose price for the bought dice,
    # nb * T_PRICE[size] (group_cost), exceeds the deniers held; every other cost only adds. So
    # a pair whose bought dice alone are unaffordable at size 2 (3) needs no evaluation (no third
    # die). Off with a FREE_DICE cube (no price) or a negative price in the table.
    prune = True
    if cube_pos >= 0 and T[T_ACT + s[S_ACARD + cube_pos] * A_W + A_EFF] == EF_FREE_DICE:
        prune = False
    money = s[S_DEN + p]
    nb0 = 0
    for k in range(seln):
        if s[S_SEL + k] // DIST_DICE != p:
            nb0 += 1
    pr2 = T[T_PRICE + seln + 2] if seln + 2 <= MAX_GROUP else 0
    pr3 = T[T_PRICE + seln + 3] if seln + 3 <= MAX_GROUP else 0
    if pr2 < 0 or pr3 < 0:
        prune = False
    # Second exact pruning: with no cube, an Activity / event / agriculture group yields
    # (pip total) // div, 0 below div (eval_group). A group whose pips cannot reach div needs no
    # evaluation; vmax bounds the pips of a die still to add.
    div = 0
    if cube_pos < 0:
        if tk == TK_ACT:
            div = T[T_ACT + s[S_ACARD + ti] * A_W + A_DIV]
        elif tk == TK_EVENT:
            div = T[T_EV + s[S_ROW + ti] * E_W + E_DIV]
        elif tk == TK_AGRI:
            div = T[T_MISC + M_AGRI_DIV]
    tot0 = 0
    for k in range(seln):
        tot0 += s[S_SEL + k] % N_VAL + 1
    vmax = 0
    for i in range(m):
        v = work[CAND_TYPE + CAND_W * i] % N_VAL + 1
        if v > vmax:
            vmax = v
    found_total = 0
    for i in range(m):
        if only >= 0 and work[CAND_RID + CAND_W * i] != only:
            continue
        ta = work[CAND_TYPE + CAND_W * i]
        fa = 1 if ta // DIST_DICE != p else 0
        va = tot0 + ta % N_VAL + 1
        ok = False
        if va >= div:
            ok = _eval_sel_plus(s, T, p, tk, ti, cube_pos, ta, nl(0), nl(0), nl(1)) > 0
        if not ok and room >= 2 and va + vmax * (2 if room >= 3 else 1) >= div:
            for j in range(i, m):
                if j == i and work[CAND_CNT + CAND_W * i] < 2:
                    continue
                tb = work[CAND_TYPE + CAND_W * j]
                nbab = nb0 + fa + (1 if tb // DIST_DICE != p else 0)
                vab = va + tb % N_VAL + 1
                if vab >= div and not (prune and nbab * pr2 > money):
                    if _eval_sel_plus(s, T, p, tk, ti, cube_pos, ta, tb, nl(0), nl(2)) > 0:
                        ok = True
                        break
                if room >= 3 and vab + vmax >= div and not (prune and nbab * pr3 > money):
                    for k in range(j, m):
                        use = 1
                        if k == i:
                            use += 1
                        if k == j:
                            use += 1
                        if work[CAND_CNT + CAND_W * k] < use:
                            continue
                        tc = work[CAND_TYPE + CAND_W * k]
                        if prune and (nbab + (1 if tc // DIST_DICE != p else 0)) * pr3 > money:
                            continue
                        if vab + tc % N_VAL + 1 < div:
                            continue
                        if _eval_sel_plus(s, T, p, tk, ti, cube_pos, ta, tb, tc, nl(3)) > 0:
                            ok = True
                            break
                    if ok:
                        break
        if ok:
            if not mark:
                return 1
            mask[a_die + work[CAND_RID + CAND_W * i]] = True
            found_total += 1
    return found_total


@jit(alloc=False)
def option_feasible(s, T, p, tk, ti, cube_pos, mask, a_die, work):
    """ED-5: a target / cube option is offered only if some legal group exists for it."""
    save_n = s[S_SELN]
    s[S_SELN] = 0
    r = search_group(s, T, p, tk, ti, cube_pos, mask, a_die, work, nl(False))
    s[S_SELN] = save_n
    return r > 0


@jit(alloc=False)
def target_feasible(s, T, p, tk, ti, mask, a_die, work):
    if option_feasible(s, T, p, tk, ti, nl(-1), mask, a_die, work):
        return True
    for pos in range(N_ACTPOS):
        if s[S_ACUBE + pos * MAXP + p] > 0 and cube_fits(s, T, tk, ti, pos):
            if option_feasible(s, T, p, tk, ti, pos, mask, a_die, work):
                return True
    return False


@jit(alloc=False)
def pay_gain_affordable(s, T, p, card):
    """rules §6.1.2 PAY_GAIN: can the next payment be made?"""
    o = T_ACT + card * A_W
    amt = T[o + A_P0 + 1]
    if T[o + A_P0] == RES_DEN:
        return s[S_DEN + p] >= amt
    if T[o + A_P0] == RES_INF:
        return s[S_INF + p] >= amt
    return True
