"""Phase 3: event effects (rules §3, §6.2, ED-13..15), black dice (ED-16..18), influence (§5)."""

from __future__ import annotations

from core.jit import jit, nl
from troyes_env.actions import (
    A_ACTIVITY,
    A_BLACK,
    A_CATHV,
    A_CONCEDE,
    A_CONFIRM,
    A_DIE,
    A_EVENT,
    A_FLIP,
    A_NEWCIT,
    A_REROLL,
    A_SPACE,
)
from troyes_env.engine.board import (
    cath_height,
    citizen_leave,
    dice_idx,
    district_count,
    gain_influence,
    own_flags,
    own_strength,
    penalty,
    roll_die,
    row_len,
)
from troyes_env.engine.rounds import (
    EV_LOSE_ACUBE,
    EV_LOSE_CATH,
    EV_LOSE_CH,
    EV_LOSE_ECUBE,
    enter_card,
    start_actions,
)
from troyes_env.layout import (
    COL_R,
    DIST_DICE,
    FROM_SPACE,
    MAX_FLIP,
    MAXP,
    N_ACTPOS,
    N_COL,
    N_SPACES,
    N_VAL,
    NFLAG,
    NROW,
    OPPOSITE,
    PH_A_COUNTER,
    PH_A_EVENTS,
    PH_COUNTER,
    PH_EVENT,
    PH_FLIP,
    RED_STRENGTH,
    S_ACUBE,
    S_BLACK,
    S_BLACKN,
    S_CATH,
    S_CBLK,
    S_CLAST,
    S_CLASTB,
    S_COPEN,
    S_CSEL,
    S_CUBES,
    S_CUR,
    S_DICE,
    S_EVK,
    S_EVLEFT,
    S_EVPOS,
    S_EVSHORT,
    S_FLAGS,
    S_FLAST,
    S_FRET,
    S_FSEL,
    S_INF,
    S_NP,
    S_OWNED,
    S_PHASE,
    S_ROW,
    S_SPACES,
    S_START,
    S_SUP,
    SP_CITY_HALL,
)
from troyes_env.tables import (
    E_E0,
    E_EFF,
    E_W,
    M_FLIP,
    M_MAX_CIT,
    M_NEWCIT,
    M_REROLL,
    T_EV,
    T_MISC,
)


@jit(alloc=False)
def _is_choice_effect(eff):
    return eff == EV_LOSE_ACUBE or eff == EV_LOSE_ECUBE or eff == EV_LOSE_CATH or eff == EV_LOSE_CH


@jit(alloc=False)
def legal_event_options(s, T, q, eff, mask, mark):
    """ED-14: the options of player q for a choice effect; marks them when mark is True."""
    m = 0
    if eff == EV_LOSE_ACUBE:
        for pos in range(N_ACTPOS):
            if s[S_ACUBE + pos * MAXP + q] > 0:
                m += 1
                if mark:
                    mask[A_ACTIVITY + pos] = True
    elif eff == EV_LOSE_ECUBE:
        for i in range(NROW):
            if s[S_ROW + i] >= 0 and own_flags(s, i, q) > 0:
                m += 1
                if mark:
                    mask[A_EVENT + i] = True
    elif eff == EV_LOSE_CATH:
        for v in range(1, N_VAL + 1):
            h = cath_height(s, v)
            if h > 0 and s[S_CATH + (h - 1) * N_VAL + v - 1] == q:
                m += 1
                if mark:
                    mask[A_CATHV + v - 1] = True
    elif eff == EV_LOSE_CH:
        for sp in range(SP_CITY_HALL, N_SPACES):
            if s[S_SPACES + sp] == q:
                m += 1
                if mark:
                    mask[A_SPACE + sp] = True
    return m


@jit(alloc=False)
def run_events(s, T):
    """rules §3 phase 3 step 2: apply every row card, left to right; stop at a player's choice."""
    n = s[S_NP]
    st = s[S_START]
    while s[S_EVPOS] < row_len(s):
        card = s[S_ROW + s[S_EVPOS]]
        o = T_EV + card * E_W
        eff = T[o + E_EFF]
        if _is_choice_effect(eff):
            while s[S_EVK] < n:
                q = (st + s[S_EVK]) % n
                if s[S_EVLEFT] > 0:
                    if legal_event_options(s, T, q, eff, s, nl(False)) == 0:
                        s[S_EVSHORT] = 1  # ED-15: cannot comply in full
                        s[S_EVLEFT] = 0
                    else:
                        s[S_PHASE] = PH_EVENT
                        s[S_CUR] = q
                        return
                if s[S_EVSHORT] == 1:
                    penalty(s, T, q)
                s[S_EVK] += 1
                s[S_EVLEFT] = T[o + E_E0]
                s[S_EVSHORT] = 0
        s[S_EVPOS] += 1
        if s[S_EVPOS] < row_len(s):
            enter_card(s, T)
    # step 3: the start player rolls every black die collected
    for _ in range(s[S_BLACKN]):
        v = roll_die(s)
        s[S_BLACK + v - 1] += 1
    s[S_BLACKN] = 0
    s[S_CUR] = st
    s[S_PHASE] = PH_A_COUNTER


@jit(alloc=False)
def apply_event_choice(s, T, a):
    q = s[S_CUR]
    card = s[S_ROW + s[S_EVPOS]]
    eff = T[T_EV + card * E_W + E_EFF]
    if eff == EV_LOSE_ACUBE:
        pos = a - A_ACTIVITY
        s[S_ACUBE + pos * MAXP + q] -= 1
        s[S_CUBES + q] -= 1
    elif eff == EV_LOSE_ECUBE:
        i = a - A_EVENT
        for f in range(NFLAG - 1, -1, -1):  # ED-14: the cube on the highest-numbered flag
            if s[S_FLAGS + i * NFLAG + f] == q:
                s[S_FLAGS + i * NFLAG + f] = -1
                break
        s[S_CUBES + q] -= 1
    elif eff == EV_LOSE_CATH:
        v = a - A_CATHV + 1
        h = cath_height(s, v)
        s[S_CATH + (h - 1) * N_VAL + v - 1] = -1
        s[S_CUBES + q] -= 1
    elif eff == EV_LOSE_CH:
        sp = a - A_SPACE
        from_space_to_supply(s, T, q, sp)
    s[S_EVLEFT] -= 1
    s[S_PHASE] = PH_A_EVENTS


@jit(alloc=False)
def from_space_to_supply(s, T, q, sp):
    """rules §6.2 LOSE_CITY_HALL_CITIZEN: the citizen goes home; the row closes up (ED-8)."""
    citizen_leave(s, T, q, nl(FROM_SPACE), sp)
    s[S_SUP + q] += 1


@jit(alloc=False)
def _highest_black(s):
    for v in range(N_VAL, 0, -1):
        if s[S_BLACK + v - 1] > 0:
            return v
    return 0


@jit(alloc=False)
def begin_counter(s, T, q):
    """ED-16: counter turns from q clockwise until no black die is left."""
    n = s[S_NP]
    while True:
        h = _highest_black(s)
        if h == 0:
            start_actions(s, T)
            return
        for i in range(N_VAL):
            s[S_CBLK + i] = 0
        for i in range(DIST_DICE):
            s[S_CSEL + i] = 0
        s[S_CLAST] = -1
        s[S_CLASTB] = 0
        s[S_COPEN] = 1
        if district_count(s, q) == 0:
            # ED-18: a player with no dice concedes automatically
            s[S_BLACK + h - 1] -= 1
            penalty(s, T, q)
            q = (q + 1) % n
            continue
        s[S_CBLK + h - 1] = 1
        s[S_PHASE] = PH_COUNTER
        s[S_CUR] = q
        return


@jit(alloc=False)
def _counter_need(s):
    t = 0
    for v in range(1, N_VAL + 1):
        t += s[S_CBLK + v - 1] * v
    return t


@jit(alloc=False)
def _counter_sel_strength(s):
    t = 0
    for c in range(N_COL):
        m = RED_STRENGTH if c == COL_R else 1
        for v in range(1, N_VAL + 1):
            t += s[S_CSEL + c * N_VAL + v - 1] * v * m
    return t


@jit(alloc=False)
def legal_counter(s, T, mask):
    q = s[S_CUR]
    m = 0
    if s[S_COPEN] == 1:
        m += legal_influence(s, T, q, mask)
    strength = own_strength(s, q)
    need = _counter_need(s)
    h = _highest_black(s)
    if strength < h:
        mask[A_CONCEDE] = True  # ED-18
        m += 1
        return m
    if s[S_CLAST] < 0:
        for v in range(max(1, s[S_CLASTB]), N_VAL + 1):
            if s[S_BLACK + v - 1] - s[S_CBLK + v - 1] > 0 and strength >= need + v:
                mask[A_BLACK + v - 1] = True
                m += 1
    have = _counter_sel_strength(s)
    # own dice in non-decreasing id order; a die is offered if the dice from it on can cover
    rest = 0
    for rid in range(DIST_DICE - 1, -1, -1):
        c = rid // N_VAL
        v = rid % N_VAL + 1
        avail = s[dice_idx(q, c, v)] - s[S_CSEL + rid]
        mult = RED_STRENGTH if c == COL_R else 1
        rest += avail * v * mult
        if rid >= s[S_CLAST] and avail > 0 and have + rest >= need:
            mask[A_DIE + rid] = True
            m += 1
    if have >= need:
        mask[A_CONFIRM] = True
        m += 1
    return m


@jit(alloc=False)
def apply_counter(s, T, a, work):
    q = s[S_CUR]
    n = s[S_NP]
    if a == A_CONCEDE:
        h = _highest_black(s)
        s[S_BLACK + h - 1] -= 1
        penalty(s, T, q)
        s[S_CUR] = (q + 1) % n
        s[S_PHASE] = PH_A_COUNTER
    elif A_BLACK <= a < A_BLACK + N_VAL:
        v = a - A_BLACK + 1
        s[S_CBLK + v - 1] += 1
        s[S_CLASTB] = v
        s[S_COPEN] = 0
    elif A_DIE <= a < A_DIE + DIST_DICE:
        rid = a - A_DIE
        s[S_CSEL + rid] += 1
        s[S_CLAST] = rid
        s[S_COPEN] = 0
    elif a == A_CONFIRM:
        nb = 0
        for i in range(DIST_DICE):
            s[S_DICE + q * DIST_DICE + i] -= s[S_CSEL + i]
            s[S_CSEL + i] = 0
        for v in range(N_VAL):
            s[S_BLACK + v] -= s[S_CBLK + v]
            nb += s[S_CBLK + v]
            s[S_CBLK + v] = 0
        gain_influence(s, T, q, nb)  # +1 influence per black die countered
        s[S_CUR] = (q + 1) % n
        s[S_PHASE] = PH_A_COUNTER
    else:
        apply_influence(s, T, q, a)


@jit(alloc=False)
def legal_influence(s, T, p, mask):
    m = 0
    inf = s[S_INF + p]
    if inf >= T[T_MISC + M_REROLL]:
        for i in range(DIST_DICE):
            if s[S_DICE + p * DIST_DICE + i] > 0:
                mask[A_REROLL + i] = True
                m += 1
    if inf >= T[T_MISC + M_FLIP] and district_count(s, p) > 0:
        mask[A_FLIP] = True
        m += 1
    if inf >= T[T_MISC + M_NEWCIT] and s[S_OWNED + p] < T[T_MISC + M_MAX_CIT]:
        mask[A_NEWCIT] = True
        m += 1
    return m


@jit(alloc=False)
def apply_influence(s, T, p, a):
    if A_REROLL <= a < A_REROLL + DIST_DICE:
        i = a - A_REROLL
        s[S_INF + p] -= T[T_MISC + M_REROLL]
        s[S_DICE + p * DIST_DICE + i] -= 1
        v = roll_die(s)
        s[S_DICE + p * DIST_DICE + (i // N_VAL) * N_VAL + v - 1] += 1
    elif a == A_FLIP:
        s[S_FRET] = s[S_PHASE]
        s[S_PHASE] = PH_FLIP
        for i in range(DIST_DICE):
            s[S_FSEL + i] = 0
        s[S_FLAST] = -1
    elif a == A_NEWCIT:
        s[S_INF + p] -= T[T_MISC + M_NEWCIT]
        s[S_OWNED + p] += 1
        s[S_SUP + p] += 1


@jit(alloc=False)
def legal_flip(s, T, mask):
    p = s[S_CUR]
    m = 0
    k = 0
    for i in range(DIST_DICE):
        k += s[S_FSEL + i]
    if k < MAX_FLIP:
        for rid in range(max(0, s[S_FLAST]), DIST_DICE):
            if s[S_DICE + p * DIST_DICE + rid] - s[S_FSEL + rid] > 0:
                mask[A_DIE + rid] = True
                m += 1
    if k >= 1:
        mask[A_CONFIRM] = True
        m += 1
    return m


@jit(alloc=False)
def apply_flip(s, T, a):
    p = s[S_CUR]
    if a == A_CONFIRM:
        s[S_INF + p] -= T[T_MISC + M_FLIP]
        for i in range(DIST_DICE):
            s[S_DICE + p * DIST_DICE + i] -= s[S_FSEL + i]
        for i in range(DIST_DICE):
            k = s[S_FSEL + i]
            if k > 0:
                c = i // N_VAL
                v = i % N_VAL + 1
                s[S_DICE + p * DIST_DICE + c * N_VAL + (OPPOSITE - v) - 1] += k  # opposite face
            s[S_FSEL + i] = 0
        s[S_FLAST] = -1
        s[S_PHASE] = s[S_FRET]
    else:
        rid = a - A_DIE
        s[S_FSEL + rid] += 1
        s[S_FLAST] = rid
