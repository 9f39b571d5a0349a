"""Phase 4: turns, targets, cubes, dice, citizen sources and activations (rules §4, ED-19..31)."""

from __future__ import annotations

from core.jit import jit, nl
from troyes_env.actions import (
    A_ACTIVITY,
    A_AGRI,
    A_BUILDING,
    A_CATHEDRAL,
    A_CONFIRM,
    A_DIE,
    A_EVENT,
    A_LYING,
    A_NOCUBE,
    A_PASS,
    A_SPACE,
    A_SUPPLY,
)
from troyes_env.engine.board import (
    any_dice,
    build_cathedral_cube,
    citizen_leave,
    count_of,
    free_flags,
    gain_influence,
    gain_vp,
    place_citizen,
    place_event_cube,
    placement_ok,
    roll_die,
    row_len,
    standing,
)
from troyes_env.engine.events import (
    apply_influence,
    legal_influence,
)
from troyes_env.engine.feasible import (
    option_feasible_fast,
    reset_summary,
    target_feasible_fast,
)
from troyes_env.engine.groups import (
    EF_GAIN,
    EF_MILLER,
    EF_PAY_GAIN,
    EF_VP_PER,
    RES_DEN,
    RES_INF,
    TIMING_DELAYED,
    abs_of,
    cube_fits,
    eval_group,
    group_cost,
    has_fitting_cube,
    pay_gain_affordable,
    search_group,
)
from troyes_env.engine.rounds import (
    begin_turn,
    clear_pending,
    end_round,
)
from troyes_env.layout import (
    DIST_DICE,
    FROM_CARD,
    FROM_LYING,
    FROM_SPACE,
    FROM_SUPPLY,
    MAXP,
    N_ACTPOS,
    N_BLD,
    N_DIE_TYPES,
    N_OWNERS,
    N_SPACES,
    N_VAL,
    NEUTRAL,
    NROW,
    PH_ARCHER,
    PH_CUBE,
    PH_DICE,
    PH_GOON,
    PH_SOURCE,
    S_ACARD,
    S_ACTK,
    S_ACTN,
    S_ACUBE,
    S_ASUP,
    S_CUBEPOS,
    S_CUBES,
    S_CUR,
    S_DDEN,
    S_DEN,
    S_DICE,
    S_HIRING,
    S_INF,
    S_LYING,
    S_NP,
    S_PASSED,
    S_PHASE,
    S_PVAL,
    S_SEL,
    S_SELN,
    S_SPACES,
    S_SUP,
    S_TI,
    S_TK,
    SRC_ACT,
    SUP_ART,
    SUP_NONE,
    SUP_SLOT1,
    SUP_SLOT2,
    TK_ACT,
    TK_AGRI,
    TK_BUILD,
    TK_CATH,
    TK_EVENT,
    TK_NONE,
)
from troyes_env.tables import (
    A_EFF,
    A_HIRE,
    A_P0,
    A_P1,
    A_P2,
    A_P3,
    A_TIMING,
    A_W,
    M_PASS,
    M_PASS_EXTRA,
    T_ACT,
    T_MISC,
)

# legal_turn's targets j: the Activity cards, the event row, the Cathedral, the buildings,
# agriculture
J_EVENTS = N_ACTPOS
J_CATH = J_EVENTS + NROW
J_BUILD = J_CATH + 1
J_AGRI = J_BUILD + N_BLD
N_TARGETS = J_AGRI + 1


@jit(alloc=False)
def end_turn(s, T):
    """ED-20: end Phase 4 when all passed or no dice remain; else the next active player,
    each passed player skipped on the way putting 1 denier on their district."""
    n = s[S_NP]
    clear_pending(s)
    allp = True
    for p in range(n):
        if s[S_PASSED + p] == 0:
            allp = False
    if allp or not any_dice(s):
        end_round(s, T)
        return
    q = s[S_CUR]
    while True:
        q = (q + 1) % n
        if s[S_PASSED + q] == 1:
            s[S_DDEN + q] += T[T_MISC + M_PASS_EXTRA]
        else:
            break
    begin_turn(s, T, q)


@jit(alloc=False)
def legal_turn(s, T, mask, work):
    """DP-4: influence, pass, and every target with a legal group (ED-5): the 9 Activity cards,
    the event row, the Cathedral, the 3 buildings, agriculture (one call site of the inlined
    target_feasible_fast)."""
    p = s[S_CUR]
    reset_summary(s, p, work)  # one dice summary for every target of this mask
    m = legal_influence(s, T, p, mask)
    mask[A_PASS] = True
    m += 1
    nrow = row_len(s)
    for j in range(N_TARGETS):
        if j < J_EVENTS:
            if s[S_ACARD + j] < 0:
                continue
            tk = TK_ACT
            ti = j
            a = A_ACTIVITY + j
        elif j < J_CATH:
            ti = j - J_EVENTS
            if ti >= nrow:
                continue
            tk = TK_EVENT
            a = A_EVENT + ti
        elif j == J_CATH:
            tk = TK_CATH
            ti = 0
            a = A_CATHEDRAL
        elif j < J_AGRI:
            tk = TK_BUILD
            ti = j - J_BUILD
            a = A_BUILDING + ti
        else:
            tk = TK_AGRI
            ti = 0
            a = A_AGRI
        if target_feasible_fast(s, T, p, tk, ti, mask, nl(A_DIE), work):
            mask[a] = True
            m += 1
    return m


@jit(alloc=False)
def is_turn_legal(s, T, a, mask, work):
    """mask[a] of legal_turn without building the whole mask (step's legality test)."""
    p = s[S_CUR]
    if a == A_PASS:
        return True
    reset_summary(s, p, work)
    tk = TK_NONE
    ti = 0
    if A_ACTIVITY <= a < A_ACTIVITY + N_ACTPOS:
        ti = a - A_ACTIVITY
        if s[S_ACARD + ti] < 0:
            return False
        tk = TK_ACT
    elif A_EVENT <= a < A_EVENT + NROW:
        ti = a - A_EVENT
        if ti >= row_len(s):
            return False
        tk = TK_EVENT
    elif a == A_CATHEDRAL:
        tk = TK_CATH
    elif A_BUILDING <= a < A_BUILDING + N_BLD:
        tk = TK_BUILD
        ti = a - A_BUILDING
    elif a == A_AGRI:
        tk = TK_AGRI
    if tk != TK_NONE:
        return target_feasible_fast(s, T, p, tk, ti, mask, nl(A_DIE), work)
    for i in range(mask.shape[0]):
        mask[i] = False
    legal_influence(s, T, p, mask)
    return mask[a]


@jit(alloc=False)
def is_dice_legal(s, T, a, mask, work):
    """mask[a] of legal_dice without building the whole mask (step's legality test)."""
    p = s[S_CUR]
    if a == A_CONFIRM:
        return s[S_SELN] > 0 and _sel_eval(s, T, p) > 0
    if A_DIE <= a < A_DIE + N_DIE_TYPES:
        rid = a - A_DIE
        return (
            search_group(
                s, T, p, s[S_TK], s[S_TI], s[S_CUBEPOS], mask, nl(A_DIE), work, nl(True), rid
            )
            > 0
        )
    return False


@jit(alloc=False)
def apply_turn(s, T, a):
    p = s[S_CUR]
    if a == A_PASS:
        s[S_PASSED + p] = 1
        s[S_DDEN + p] += T[T_MISC + M_PASS]  # rules §4.6, U-PASS
        end_turn(s, T)
        return
    tk = TK_NONE
    ti = 0
    if A_ACTIVITY <= a < A_ACTIVITY + N_ACTPOS:
        tk = TK_ACT
        ti = a - A_ACTIVITY
    elif A_EVENT <= a < A_EVENT + NROW:
        tk = TK_EVENT
        ti = a - A_EVENT
    elif a == A_CATHEDRAL:
        tk = TK_CATH
    elif A_BUILDING <= a < A_BUILDING + N_BLD:
        tk = TK_BUILD
        ti = a - A_BUILDING
    elif a == A_AGRI:
        tk = TK_AGRI
    else:
        apply_influence(s, T, p, a)
        return
    s[S_TK] = tk
    s[S_TI] = ti
    s[S_CUBEPOS] = -1
    if has_fitting_cube(s, T, p, tk, ti):
        s[S_PHASE] = PH_CUBE  # DP-5
    else:
        s[S_PHASE] = PH_DICE


@jit(alloc=False)
def legal_cube(s, T, mask, work):
    p = s[S_CUR]
    tk = s[S_TK]
    ti = s[S_TI]
    m = 0
    reset_summary(s, p, work)
    for pos in range(N_ACTPOS):
        if s[S_ACUBE + pos * MAXP + p] > 0 and cube_fits(s, T, tk, ti, pos):
            if option_feasible_fast(s, T, p, tk, ti, pos, mask, nl(A_DIE), work):
                mask[A_ACTIVITY + pos] = True
                m += 1
    if option_feasible_fast(s, T, p, tk, ti, nl(-1), mask, nl(A_DIE), work):
        mask[A_NOCUBE] = True
        m += 1
    return m


@jit(alloc=False)
def _sel_eval(s, T, p):
    n = s[S_SELN]
    return eval_group(
        s, T, p, s[S_TK], s[S_TI], s[S_CUBEPOS], s[S_SEL], s[S_SEL + 1], s[S_SEL + 2], n
    )


@jit(alloc=False)
def legal_dice(s, T, mask, work):
    p = s[S_CUR]
    m = search_group(s, T, p, s[S_TK], s[S_TI], s[S_CUBEPOS], mask, nl(A_DIE), work, nl(True))
    if s[S_SELN] > 0 and _sel_eval(s, T, p) > 0:
        mask[A_CONFIRM] = True
        m += 1
    return m


@jit(alloc=False)
def apply_dice(s, T, a):
    p = s[S_CUR]
    n = s[S_NP]
    if a == A_CONFIRM:
        _execute(s, T, p)
        return
    rid = a - A_DIE
    d = abs_of(n, p, rid // DIST_DICE)
    s[S_SEL + s[S_SELN]] = d * DIST_DICE + rid % DIST_DICE
    s[S_SELN] += 1


@jit(alloc=False)
def _execute(s, T, p):
    """CONFIRM (ED-23): pay every cost, take the dice, spend the cube, then act."""
    tk = s[S_TK]
    ti = s[S_TI]
    cube = s[S_CUBEPOS]
    n = s[S_SELN]
    t0 = s[S_SEL]
    t1 = s[S_SEL + 1]
    t2 = s[S_SEL + 2]
    y = eval_group(s, T, p, tk, ti, cube, t0, t1, t2, n)
    cost = group_cost(s, T, p, cube, t0, t1, t2, n)
    nb = 0
    for k in range(n):
        t = s[S_SEL + k]
        if t // DIST_DICE != p:
            nb += 1
    each = cost // nb if nb > 0 else 0
    for k in range(n):
        t = s[S_SEL + k]
        d = t // DIST_DICE
        if d != p and each > 0:
            s[S_DEN + p] -= each
            if d != NEUTRAL:
                s[S_DEN + d] += each  # paid to the owner; neutral dice to the bank (rules §4.0)
        s[S_DICE + t] -= 1
    if cube >= 0:
        s[S_ACUBE + cube * MAXP + p] -= 1
        s[S_CUBES + p] -= 1
    if tk == TK_ACT:
        s[S_ACTN] = y
        if s[S_ASUP + ti * MAXP + p] == SUP_NONE:
            from_hire_cost(s, T, p, ti)
            s[S_HIRING] = 1
            s[S_PHASE] = PH_SOURCE  # DP-7
            return
        _start_activations(s, T, p)
    elif tk == TK_EVENT:
        for _ in range(y):  # ED-32: first empty flags, +1 influence each
            place_event_cube(s, T, p, ti)
        end_turn(s, T)
    elif tk == TK_CATH:
        for k in range(n):
            build_cathedral_cube(s, T, p, s[S_SEL + k] % N_VAL + 1)
        end_turn(s, T)
    elif tk == TK_BUILD:
        s[S_PVAL] = t0 % N_VAL + 1
        s[S_PHASE] = PH_SOURCE
    else:
        s[S_DEN + p] += y  # rules §4.5 agriculture
        end_turn(s, T)


@jit(alloc=False)
def from_hire_cost(s, T, p, pos):
    from_card = s[S_ACARD + pos]
    s[S_DEN + p] -= T[T_ACT + from_card * A_W + A_HIRE]


@jit(alloc=False)
def _source_ok(s, T, p, kind, idx):
    if s[S_TK] == TK_ACT:
        return True
    return placement_ok(s, T, p, s[S_TI], s[S_PVAL], kind, idx)


@jit(alloc=False)
def legal_source(s, T, mask):
    """DP-7 / ED-7: supply, an own standing or lying citizen, an own supervisor elsewhere."""
    p = s[S_CUR]
    m = 0
    if s[S_SUP + p] > 0 and _source_ok(s, T, p, nl(FROM_SUPPLY), nl(0)):
        mask[A_SUPPLY] = True
        m += 1
    for sp in range(N_SPACES):
        if s[S_SPACES + sp] == p and _source_ok(s, T, p, nl(FROM_SPACE), sp):
            mask[A_SPACE + sp] = True
            m += 1
    for b in range(N_BLD):
        if s[S_LYING + b * N_OWNERS + p] > 0 and _source_ok(s, T, p, nl(FROM_LYING), b):
            mask[A_LYING + b] = True
            m += 1
    for pos in range(N_ACTPOS):
        if s[S_ASUP + pos * MAXP + p] > SUP_NONE and not (s[S_TK] == TK_ACT and pos == s[S_TI]):
            if _source_ok(s, T, p, nl(FROM_CARD), pos):
                mask[A_ACTIVITY + pos] = True
                m += 1
    return m


@jit(alloc=False)
def apply_source(s, T, a):
    p = s[S_CUR]
    if a == A_SUPPLY:
        kind = FROM_SUPPLY
        idx = 0
    elif A_SPACE <= a < A_SPACE + N_SPACES:
        kind = FROM_SPACE
        idx = a - A_SPACE
    elif A_LYING <= a < A_LYING + N_BLD:
        kind = FROM_LYING
        idx = a - A_LYING
    else:
        kind = FROM_CARD
        idx = a - A_ACTIVITY
    citizen_leave(s, T, p, kind, idx)
    ti = s[S_TI]
    if s[S_TK] == TK_ACT:
        # ED-29: first free scoring slot, else the illustration
        used1 = False
        used2 = False
        for q in range(MAXP):
            w = s[S_ASUP + ti * MAXP + q]
            if w == SUP_SLOT1:
                used1 = True
            elif w == SUP_SLOT2:
                used2 = True
        slot = SUP_SLOT1 if not used1 else (SUP_SLOT2 if not used2 else SUP_ART)
        s[S_ASUP + ti * MAXP + p] = slot
        _start_activations(s, T, p)
    else:
        place_citizen(s, T, p, ti, s[S_PVAL])
        end_turn(s, T)


@jit(alloc=False)
def _start_activations(s, T, p):
    ti = s[S_TI]
    card = s[S_ACARD + ti]
    o = T_ACT + card * A_W
    nact = s[S_ACTN]
    s[S_ACTK] = 0
    eff = T[o + A_EFF]
    if T[o + A_TIMING] == TIMING_DELAYED:
        # delayed card: one cube per activation (rules §4.1)
        s[S_ACUBE + ti * MAXP + p] += nact
        s[S_CUBES + p] += nact
        end_turn(s, T)
        return
    if eff == EF_GAIN:
        s[S_DEN + p] += T[o + A_P0] * nact
        gain_influence(s, T, p, T[o + A_P1] * nact)
        gain_vp(s, p, T[o + A_P2] * nact, SRC_ACT + card)  # "activity:<KEY>" (rules §6.1.2)
        end_turn(s, T)
    elif eff == EF_VP_PER:
        gain_vp(s, p, T[o + A_P1] * count_of(s, T, p, T[o + A_P0]) * nact, SRC_ACT + card)
        end_turn(s, T)
    elif eff == EF_MILLER:
        a = standing(s, p, nl(0))
        b = standing(s, p, nl(1))
        s[S_DEN + p] += T[o + A_P0] * (a if a > b else b) * nact
        end_turn(s, T)
    else:
        apply_activation(s, T, p)


@jit(alloc=False)
def apply_activation(s, T, p):
    ti = s[S_TI]
    card = s[S_ACARD + ti]
    o = T_ACT + card * A_W
    eff = T[o + A_EFF]
    if eff == EF_PAY_GAIN:
        amt = T[o + A_P1]
        if T[o + A_P0] == RES_DEN:
            s[S_DEN + p] -= amt
        elif T[o + A_P0] == RES_INF:
            s[S_INF + p] -= amt
        else:  # a voluntary payment (ED-4: affordable), netted into "activity:<KEY>"
            gain_vp(s, p, -amt, SRC_ACT + card)
        g = T[o + A_P3]
        if T[o + A_P2] == RES_DEN:
            s[S_DEN + p] += g
        elif T[o + A_P2] == RES_INF:
            gain_influence(s, T, p, g)
        else:
            gain_vp(s, p, g, SRC_ACT + card)
        s[S_ACTK] += 1
        _after_activation(s, T, p)
    else:  # EVENT_CUBE (rules §6.1.2, ED-31)
        thr = T[o + A_P1]
        if thr > 0:
            v = roll_die(s)
            if v < thr:
                s[S_ACTK] += 1
                _after_activation(s, T, p)
                return
        s[S_PVAL] = T[o + A_P0]
        s[S_PHASE] = PH_ARCHER


@jit(alloc=False)
def _after_activation(s, T, p):
    ti = s[S_TI]
    card = s[S_ACARD + ti]
    eff = T[T_ACT + card * A_W + A_EFF]
    if s[S_ACTK] < s[S_ACTN] and (eff != EF_PAY_GAIN or pay_gain_affordable(s, T, p, card)):
        s[S_PHASE] = PH_GOON
    else:
        end_turn(s, T)


@jit(alloc=False)
def legal_archer(s, T, mask):
    m = 0
    for i in range(row_len(s)):
        if free_flags(s, T, i) > 0:
            mask[A_EVENT + i] = True
            m += 1
    return m


@jit(alloc=False)
def apply_archer(s, T, a):
    p = s[S_CUR]
    place_event_cube(s, T, p, a - A_EVENT)
    s[S_PVAL] -= 1
    if s[S_PVAL] <= 0:
        s[S_ACTK] += 1
        _after_activation(s, T, p)
