"""The start and end of a round (rules §3 phases 0-3 and 5, §7), turn bookkeeping."""

from __future__ import annotations

from core.jit import jit, nl
from troyes_env.engine.board import (
    any_dice,
    dice_idx,
    penalty,
    place_citizen,
    placement_ok,
    roll_die,
    row_len,
    score_final,
    standing,
)
from troyes_env.layout import (
    NFLAG,
    O_ACARD,
    O_ACTK,
    O_ACTN,
    O_AHID,
    O_BLACK,
    O_BLACKN,
    O_CUBEPOS,
    O_CUR,
    O_DDEN,
    O_DECKS,
    O_DEN,
    O_DICE,
    O_DRAWN,
    O_EVK,
    O_EVLEFT,
    O_EVPOS,
    O_EVSHORT,
    O_FINAL,
    O_FLAGS,
    O_GREY,
    O_HIRING,
    O_INF,
    O_LYING,
    O_NP,
    O_NROUNDS,
    O_PASSED,
    O_PHASE,
    O_PVAL,
    O_ROLLED,
    O_ROUND,
    O_ROW,
    O_SEL,
    O_SELN,
    O_START,
    O_SUP,
    O_TI,
    O_TK,
    PH_A_EVENTS,
    PH_A_ROUND,
    PH_OVER,
    PH_TURN,
    TK_NONE,
)
from troyes_env.tables import (
    E_BLACK,
    E_E0,
    E_E1,
    E_EFF,
    E_NEXT,
    E_W,
    M_INCOME,
    T_EV,
    T_MISC,
    T_SALARY,
)

# event effect codes (rules_data.EventEffect)
EV_NONE, EV_PAY, EV_LOSE_INF, EV_LOSE_ACUBE, EV_LOSE_ECUBE, EV_LOSE_CATH, EV_LOSE_CH, EV_GREY = (
    range(8)
)


@jit(alloc=False)
def _deck_size(s, col):
    m = 0
    for i in range(8):
        if s[O_DECKS + col * 8 + i] >= 0:
            m += 1
    return m


@jit(alloc=False)
def _append_event(s, card):
    i = row_len(s)
    s[O_ROW + i] = card
    for f in range(NFLAG):
        s[O_FLAGS + i * NFLAG + f] = -1


@jit(alloc=False)
def _start_round(s, T):
    n = s[O_NP]
    s[O_ROUND] += 1
    r = s[O_ROUND]
    st = s[O_START]
    # Phase 0: reveal the level-r Activity cards in rounds 1-3
    if r <= 3:
        for col in range(3):
            pos = col * 3 + r - 1
            s[O_ACARD + pos] = s[O_AHID + pos]
            s[O_AHID + pos] = -1
    # Phase 1: income, then salaries for standing citizens; shortfall -> pay all, lose 2 VP
    for p in range(n):
        s[O_DEN + p] += T[T_MISC + M_INCOME]
        sal = 0
        for b in range(3):
            sal += T[T_SALARY + b] * standing(s, p, b)
        if s[O_DEN + p] >= sal:
            s[O_DEN + p] -= sal
        else:
            s[O_DEN + p] = 0
            penalty(s, T, p)
    # Phase 2: workforce; players from the start player (Y, W, R), neutral dice last (ED-2)
    for k in range(n + 1):
        q = (st + k) % n if k < n else 4
        for c in range(3):
            cnt = standing(s, q, 2 - c)
            s[O_ROLLED + q * 3 + c] = cnt
            for _ in range(cnt):
                v = roll_die(s)
                s[dice_idx(q, c, v)] += 1
    # Phase 3: reveal the red card and the card of the deck it calls for
    dr = s[O_DRAWN + 2]
    card = s[O_DECKS + 2 * 8 + dr]
    s[O_DRAWN + 2] = dr + 1
    _append_event(s, card)
    nxt = T[T_EV + card * E_W + E_NEXT]
    if nxt >= 0 and s[O_DRAWN + nxt] < _deck_size(s, nxt):  # ED-12
        _append_event(s, s[O_DECKS + nxt * 8 + s[O_DRAWN + nxt]])
        s[O_DRAWN + nxt] += 1
    s[O_EVPOS] = 0
    s[O_BLACKN] = 0
    _enter_card(s, T)
    s[O_PHASE] = PH_A_EVENTS


@jit(alloc=False)
def _enter_card(s, T):
    """ED-13: a card's black dice first, then its effect (automatic ones applied at once)."""
    n = s[O_NP]
    st = s[O_START]
    card = s[O_ROW + s[O_EVPOS]]
    o = T_EV + card * E_W
    s[O_BLACKN] += T[o + E_BLACK]
    eff = T[o + E_EFF]
    e0 = T[o + E_E0]
    s[O_EVK] = 0
    s[O_EVLEFT] = e0
    s[O_EVSHORT] = 0
    if eff == EV_PAY:
        for k in range(n):
            q = (st + k) % n
            if s[O_DEN + q] >= e0:
                s[O_DEN + q] -= e0
            else:
                s[O_DEN + q] = 0
                penalty(s, T, q)
    elif eff == EV_LOSE_INF:
        for k in range(n):
            q = (st + k) % n
            if s[O_INF + q] >= e0:
                s[O_INF + q] -= e0
            else:
                s[O_INF + q] = 0
                penalty(s, T, q)
    elif eff == EV_GREY:
        # rules §6.2 GREY_CITIZEN: placed as with a die showing e1, if allowed; no penalty
        b = e0
        v = T[o + E_E1]
        if s[O_GREY] > 0 and placement_ok(s, T, nl(4), b, v, nl(0), nl(0)):
            s[O_GREY] -= 1
            place_citizen(s, T, nl(4), b, v)


@jit(alloc=False)
def _clear_pending(s):
    s[O_TK] = TK_NONE
    s[O_TI] = -1
    s[O_CUBEPOS] = -1
    for i in range(3):
        s[O_SEL + i] = -1
    s[O_SELN] = 0
    s[O_PVAL] = 0
    s[O_HIRING] = 0
    s[O_ACTN] = 0
    s[O_ACTK] = 0


@jit(alloc=False)
def _begin_turn(s, T, q):
    _clear_pending(s)
    s[O_PHASE] = PH_TURN
    s[O_CUR] = q


@jit(alloc=False)
def _start_actions(s, T):
    """ED-20: Phase 4 is skipped when countering used up every die."""
    if not any_dice(s):
        _end_round(s, T)
        return
    _begin_turn(s, T, s[O_START])


@jit(alloc=False)
def _end_round(s, T):
    """rules §3 phase 5, then §7 after the last round."""
    n = s[O_NP]
    for p in range(n):
        s[O_DEN + p] += s[O_DDEN + p]
        s[O_DDEN + p] = 0
        s[O_PASSED + p] = 0
    for b in range(3):
        for o in range(5):
            k = s[O_LYING + b * 5 + o]
            if k > 0:
                if o < 4:
                    s[O_SUP + o] += k
                else:
                    s[O_GREY] += k
                s[O_LYING + b * 5 + o] = 0
    for i in range(90):
        s[O_DICE + i] = 0
    for i in range(15):
        s[O_ROLLED + i] = 0
    for i in range(6):
        s[O_BLACK + i] = 0
    _clear_pending(s)
    s[O_START] = (s[O_START] + 1) % n
    if s[O_ROUND] >= s[O_NROUNDS]:
        score_final(s, T, s[O_FINAL : O_FINAL + 4])
        s[O_PHASE] = PH_OVER
        s[O_CUR] = -1
        return
    s[O_PHASE] = PH_A_ROUND
