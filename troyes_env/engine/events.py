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
    _enter_card,
    _start_actions,
)
from troyes_env.layout import (
    NFLAG,
    NROW,
    O_ACUBE,
    O_BLACK,
    O_BLACKN,
    O_CATH,
    O_CBLK,
    O_CLAST,
    O_CLASTB,
    O_COPEN,
    O_CSEL,
    O_CUBES,
    O_CUR,
    O_DICE,
    O_EVK,
    O_EVLEFT,
    O_EVPOS,
    O_EVSHORT,
    O_FLAGS,
    O_FLAST,
    O_FRET,
    O_FSEL,
    O_INF,
    O_NP,
    O_OWNED,
    O_PHASE,
    O_ROW,
    O_SPACES,
    O_START,
    O_SUP,
    PH_A_COUNTER,
    PH_A_EVENTS,
    PH_COUNTER,
    PH_EVENT,
    PH_FLIP,
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
def _event_options(s, T, q, eff, mask, mark):
    """ED-14: the options of player q for a choice effect; marks them when mark is True."""
    m = 0
    if eff == EV_LOSE_ACUBE:
        for pos in range(9):
            if s[O_ACUBE + pos * 4 + q] > 0:
                m += 1
                if mark:
                    mask[A_ACTIVITY + pos] = 1
    elif eff == EV_LOSE_ECUBE:
        for i in range(NROW):
            if s[O_ROW + i] >= 0 and own_flags(s, i, q) > 0:
                m += 1
                if mark:
                    mask[A_EVENT + i] = 1
    elif eff == EV_LOSE_CATH:
        for v in range(1, 7):
            h = cath_height(s, v)
            if h > 0 and s[O_CATH + (h - 1) * 6 + v - 1] == q:
                m += 1
                if mark:
                    mask[A_CATHV + v - 1] = 1
    elif eff == EV_LOSE_CH:
        for sp in range(12, 18):
            if s[O_SPACES + sp] == q:
                m += 1
                if mark:
                    mask[A_SPACE + sp] = 1
    return m


@jit(alloc=False)
def _run_events(s, T):
    """rules §3 phase 3 step 2: apply every row card, left to right; stop at a player's choice."""
    n = s[O_NP]
    st = s[O_START]
    while s[O_EVPOS] < row_len(s):
        card = s[O_ROW + s[O_EVPOS]]
        o = T_EV + card * E_W
        eff = T[o + E_EFF]
        if _is_choice_effect(eff):
            while s[O_EVK] < n:
                q = (st + s[O_EVK]) % n
                if s[O_EVLEFT] > 0:
                    if _event_options(s, T, q, eff, s, nl(False)) == 0:
                        s[O_EVSHORT] = 1  # ED-15: cannot comply in full
                        s[O_EVLEFT] = 0
                    else:
                        s[O_PHASE] = PH_EVENT
                        s[O_CUR] = q
                        return
                if s[O_EVSHORT] == 1:
                    penalty(s, T, q)
                s[O_EVK] += 1
                s[O_EVLEFT] = T[o + E_E0]
                s[O_EVSHORT] = 0
        s[O_EVPOS] += 1
        if s[O_EVPOS] < row_len(s):
            _enter_card(s, T)
    # step 3: the start player rolls every black die collected
    for _ in range(s[O_BLACKN]):
        v = roll_die(s)
        s[O_BLACK + v - 1] += 1
    s[O_BLACKN] = 0
    s[O_CUR] = st
    s[O_PHASE] = PH_A_COUNTER


@jit(alloc=False)
def _apply_event_choice(s, T, a):
    q = s[O_CUR]
    card = s[O_ROW + s[O_EVPOS]]
    eff = T[T_EV + card * E_W + E_EFF]
    if eff == EV_LOSE_ACUBE:
        pos = a - A_ACTIVITY
        s[O_ACUBE + pos * 4 + q] -= 1
        s[O_CUBES + q] -= 1
    elif eff == EV_LOSE_ECUBE:
        i = a - A_EVENT
        for f in range(NFLAG - 1, -1, -1):  # ED-14: the cube on the highest-numbered flag
            if s[O_FLAGS + i * NFLAG + f] == q:
                s[O_FLAGS + i * NFLAG + f] = -1
                break
        s[O_CUBES + q] -= 1
    elif eff == EV_LOSE_CATH:
        v = a - A_CATHV + 1
        h = cath_height(s, v)
        s[O_CATH + (h - 1) * 6 + v - 1] = -1
        s[O_CUBES + q] -= 1
    elif eff == EV_LOSE_CH:
        sp = a - A_SPACE
        from_space_to_supply(s, T, q, sp)
    s[O_EVLEFT] -= 1
    s[O_PHASE] = PH_A_EVENTS


@jit(alloc=False)
def from_space_to_supply(s, T, q, sp):
    """rules §6.2 LOSE_CITY_HALL_CITIZEN: the citizen goes home; the row closes up (ED-8)."""
    citizen_leave(s, T, q, nl(1), sp)
    s[O_SUP + q] += 1


@jit(alloc=False)
def _highest_black(s):
    for v in range(6, 0, -1):
        if s[O_BLACK + v - 1] > 0:
            return v
    return 0


@jit(alloc=False)
def _begin_counter(s, T, q):
    """ED-16: counter turns from q clockwise until no black die is left."""
    n = s[O_NP]
    while True:
        h = _highest_black(s)
        if h == 0:
            _start_actions(s, T)
            return
        for i in range(6):
            s[O_CBLK + i] = 0
        for i in range(18):
            s[O_CSEL + i] = 0
        s[O_CLAST] = -1
        s[O_CLASTB] = 0
        s[O_COPEN] = 1
        if district_count(s, q) == 0:
            # ED-18: a player with no dice concedes automatically
            s[O_BLACK + h - 1] -= 1
            penalty(s, T, q)
            q = (q + 1) % n
            continue
        s[O_CBLK + h - 1] = 1
        s[O_PHASE] = PH_COUNTER
        s[O_CUR] = q
        return


@jit(alloc=False)
def _counter_need(s):
    t = 0
    for v in range(1, 7):
        t += s[O_CBLK + v - 1] * v
    return t


@jit(alloc=False)
def _counter_sel_strength(s):
    t = 0
    for c in range(3):
        m = 2 if c == 2 else 1
        for v in range(1, 7):
            t += s[O_CSEL + c * 6 + v - 1] * v * m
    return t


@jit(alloc=False)
def _mask_counter(s, T, mask):
    q = s[O_CUR]
    m = 0
    if s[O_COPEN] == 1:
        m += _mask_influence(s, T, q, mask)
    strength = own_strength(s, q)
    need = _counter_need(s)
    h = _highest_black(s)
    if strength < h:
        mask[A_CONCEDE] = 1  # ED-18
        m += 1
        return m
    if s[O_CLAST] < 0:
        for v in range(max(1, s[O_CLASTB]), 7):
            if s[O_BLACK + v - 1] - s[O_CBLK + v - 1] > 0 and strength >= need + v:
                mask[A_BLACK + v - 1] = 1
                m += 1
    have = _counter_sel_strength(s)
    # own dice in non-decreasing id order; a die is offered if the dice from it on can cover
    rest = 0
    for rid in range(17, -1, -1):
        c = rid // 6
        v = rid % 6 + 1
        avail = s[dice_idx(q, c, v)] - s[O_CSEL + rid]
        mult = 2 if c == 2 else 1
        rest += avail * v * mult
        if rid >= s[O_CLAST] and avail > 0 and have + rest >= need:
            mask[A_DIE + rid] = 1
            m += 1
    if have >= need:
        mask[A_CONFIRM] = 1
        m += 1
    return m


@jit(alloc=False)
def _apply_counter(s, T, a, work):
    q = s[O_CUR]
    n = s[O_NP]
    if a == A_CONCEDE:
        h = _highest_black(s)
        s[O_BLACK + h - 1] -= 1
        penalty(s, T, q)
        s[O_CUR] = (q + 1) % n
        s[O_PHASE] = PH_A_COUNTER
    elif A_BLACK <= a < A_BLACK + 6:
        v = a - A_BLACK + 1
        s[O_CBLK + v - 1] += 1
        s[O_CLASTB] = v
        s[O_COPEN] = 0
    elif A_DIE <= a < A_DIE + 18:
        rid = a - A_DIE
        s[O_CSEL + rid] += 1
        s[O_CLAST] = rid
        s[O_COPEN] = 0
    elif a == A_CONFIRM:
        nb = 0
        for i in range(18):
            s[O_DICE + q * 18 + i] -= s[O_CSEL + i]
            s[O_CSEL + i] = 0
        for v in range(6):
            s[O_BLACK + v] -= s[O_CBLK + v]
            nb += s[O_CBLK + v]
            s[O_CBLK + v] = 0
        gain_influence(s, T, q, nb)  # +1 influence per black die countered
        s[O_CUR] = (q + 1) % n
        s[O_PHASE] = PH_A_COUNTER
    else:
        _apply_influence(s, T, q, a)


@jit(alloc=False)
def _mask_influence(s, T, p, mask):
    m = 0
    inf = s[O_INF + p]
    if inf >= T[T_MISC + M_REROLL]:
        for i in range(18):
            if s[O_DICE + p * 18 + i] > 0:
                mask[A_REROLL + i] = 1
                m += 1
    if inf >= T[T_MISC + M_FLIP] and district_count(s, p) > 0:
        mask[A_FLIP] = 1
        m += 1
    if inf >= T[T_MISC + M_NEWCIT] and s[O_OWNED + p] < T[T_MISC + M_MAX_CIT]:
        mask[A_NEWCIT] = 1
        m += 1
    return m


@jit(alloc=False)
def _apply_influence(s, T, p, a):
    if A_REROLL <= a < A_REROLL + 18:
        i = a - A_REROLL
        s[O_INF + p] -= T[T_MISC + M_REROLL]
        s[O_DICE + p * 18 + i] -= 1
        v = roll_die(s)
        s[O_DICE + p * 18 + (i // 6) * 6 + v - 1] += 1
    elif a == A_FLIP:
        s[O_FRET] = s[O_PHASE]
        s[O_PHASE] = PH_FLIP
        for i in range(18):
            s[O_FSEL + i] = 0
        s[O_FLAST] = -1
    elif a == A_NEWCIT:
        s[O_INF + p] -= T[T_MISC + M_NEWCIT]
        s[O_OWNED + p] += 1
        s[O_SUP + p] += 1


@jit(alloc=False)
def _mask_flip(s, T, mask):
    p = s[O_CUR]
    m = 0
    k = 0
    for i in range(18):
        k += s[O_FSEL + i]
    if k < 3:
        for rid in range(max(0, s[O_FLAST]), 18):
            if s[O_DICE + p * 18 + rid] - s[O_FSEL + rid] > 0:
                mask[A_DIE + rid] = 1
                m += 1
    if k >= 1:
        mask[A_CONFIRM] = 1
        m += 1
    return m


@jit(alloc=False)
def _apply_flip(s, T, a):
    p = s[O_CUR]
    if a == A_CONFIRM:
        s[O_INF + p] -= T[T_MISC + M_FLIP]
        for i in range(18):
            s[O_DICE + p * 18 + i] -= s[O_FSEL + i]
        for i in range(18):
            k = s[O_FSEL + i]
            if k > 0:
                c = i // 6
                v = i % 6 + 1
                s[O_DICE + p * 18 + c * 6 + (7 - v) - 1] += k  # opposite face: 7 - v
            s[O_FSEL + i] = 0
        s[O_FLAST] = -1
        s[O_PHASE] = s[O_FRET]
    else:
        rid = a - A_DIE
        s[O_FSEL + rid] += 1
        s[O_FLAST] = rid
