"""The start and end of a round (rules §3 phases 0-3 and 5, §7), turn bookkeeping."""

from __future__ import annotations

from core.jit import jit, nl
from troyes_env.engine.board import (
    any_dice,
    credit_final_scoring,
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
    COL_R,
    DECK_LEN,
    FROM_SUPPLY,
    GREY,
    MAX_GROUP,
    MAXP,
    N_BLD,
    N_COL,
    N_DIE_TYPES,
    N_DIST,
    N_LEVELS,
    N_OWNERS,
    N_VAL,
    NEUTRAL,
    NFLAG,
    PH_A_EVENTS,
    PH_A_ROUND,
    PH_OVER,
    PH_TURN,
    S_ACARD,
    S_ACTK,
    S_ACTN,
    S_AHID,
    S_BLACK,
    S_BLACKN,
    S_CUBEPOS,
    S_CUR,
    S_DDEN,
    S_DECKS,
    S_DEN,
    S_DICE,
    S_DRAWN,
    S_EVK,
    S_EVLEFT,
    S_EVPOS,
    S_EVSHORT,
    S_FINAL,
    S_FLAGS,
    S_GREY,
    S_HIRING,
    S_INF,
    S_LYING,
    S_NP,
    S_NROUNDS,
    S_PASSED,
    S_PHASE,
    S_PVAL,
    S_ROLLED,
    S_ROUND,
    S_ROW,
    S_SEL,
    S_SELN,
    S_START,
    S_SUP,
    S_TI,
    S_TK,
    TK_NONE,
)
from troyes_env.rules_data import EventEffect
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

# event effect codes (rules_data.EventEffect; tests/troyes/test_constants_sync.py)
EV_NONE = int(EventEffect.NONE)
EV_PAY = int(EventEffect.PAY)
EV_LOSE_INF = int(EventEffect.LOSE_INFLUENCE)
EV_LOSE_ACUBE = int(EventEffect.LOSE_ACTIVITY_CUBE)
EV_LOSE_ECUBE = int(EventEffect.LOSE_EVENT_CUBE)
EV_LOSE_CATH = int(EventEffect.LOSE_CATHEDRAL_CUBE)
EV_LOSE_CH = int(EventEffect.LOSE_CITY_HALL_CITIZEN)
EV_GREY = int(EventEffect.GREY_CITIZEN)


@jit(alloc=False)
def _deck_size(s, col):
    m = 0
    for i in range(DECK_LEN):
        if s[S_DECKS + col * DECK_LEN + i] >= 0:
            m += 1
    return m


@jit(alloc=False)
def _append_event(s, card):
    i = row_len(s)
    s[S_ROW + i] = card
    for f in range(NFLAG):
        s[S_FLAGS + i * NFLAG + f] = -1


@jit(alloc=False)
def start_round(s, T):
    n = s[S_NP]
    s[S_ROUND] += 1
    r = s[S_ROUND]
    st = s[S_START]
    # Phase 0: reveal the level-r Activity cards in rounds 1-3
    if r <= N_LEVELS:
        for col in range(N_COL):
            pos = col * N_LEVELS + r - 1
            s[S_ACARD + pos] = s[S_AHID + pos]
            s[S_AHID + pos] = -1
    # Phase 1: income, then salaries for standing citizens; shortfall -> pay all, lose 2 VP
    for p in range(n):
        s[S_DEN + p] += T[T_MISC + M_INCOME]
        sal = 0
        for b in range(N_BLD):
            sal += T[T_SALARY + b] * standing(s, p, b)
        if s[S_DEN + p] >= sal:
            s[S_DEN + p] -= sal
        else:
            s[S_DEN + p] = 0
            penalty(s, T, p)
    # Phase 2: workforce; players from the start player (Y, W, R), neutral dice last (ED-2)
    for k in range(n + 1):
        q = (st + k) % n if k < n else NEUTRAL
        for c in range(N_COL):
            cnt = standing(s, q, COL_R - c)  # the building of colour c (rules §4.4)
            s[S_ROLLED + q * N_COL + c] = cnt
            for _ in range(cnt):
                v = roll_die(s)
                s[dice_idx(q, c, v)] += 1
    # Phase 3: reveal the red card and the card of the deck it calls for
    dr = s[S_DRAWN + COL_R]
    card = s[S_DECKS + COL_R * DECK_LEN + dr]
    s[S_DRAWN + COL_R] = dr + 1
    _append_event(s, card)
    nxt = T[T_EV + card * E_W + E_NEXT]
    if nxt >= 0 and s[S_DRAWN + nxt] < _deck_size(s, nxt):  # ED-12
        _append_event(s, s[S_DECKS + nxt * DECK_LEN + s[S_DRAWN + nxt]])
        s[S_DRAWN + nxt] += 1
    s[S_EVPOS] = 0
    s[S_BLACKN] = 0
    enter_card(s, T)
    s[S_PHASE] = PH_A_EVENTS


@jit(alloc=False)
def enter_card(s, T):
    """ED-13: a card's black dice first, then its effect (automatic ones applied at once)."""
    n = s[S_NP]
    st = s[S_START]
    card = s[S_ROW + s[S_EVPOS]]
    o = T_EV + card * E_W
    s[S_BLACKN] += T[o + E_BLACK]
    eff = T[o + E_EFF]
    e0 = T[o + E_E0]
    s[S_EVK] = 0
    s[S_EVLEFT] = e0
    s[S_EVSHORT] = 0
    if eff == EV_PAY:
        for k in range(n):
            q = (st + k) % n
            if s[S_DEN + q] >= e0:
                s[S_DEN + q] -= e0
            else:
                s[S_DEN + q] = 0
                penalty(s, T, q)
    elif eff == EV_LOSE_INF:
        for k in range(n):
            q = (st + k) % n
            if s[S_INF + q] >= e0:
                s[S_INF + q] -= e0
            else:
                s[S_INF + q] = 0
                penalty(s, T, q)
    elif eff == EV_GREY:
        # rules §6.2 GREY_CITIZEN: placed as with a die showing e1, if allowed; no penalty
        b = e0
        v = T[o + E_E1]
        if s[S_GREY] > 0 and placement_ok(s, T, nl(GREY), b, v, nl(FROM_SUPPLY), nl(0)):
            s[S_GREY] -= 1
            place_citizen(s, T, nl(GREY), b, v)


@jit(alloc=False)
def clear_pending(s):
    s[S_TK] = TK_NONE
    s[S_TI] = -1
    s[S_CUBEPOS] = -1
    for i in range(MAX_GROUP):
        s[S_SEL + i] = -1
    s[S_SELN] = 0
    s[S_PVAL] = 0
    s[S_HIRING] = 0
    s[S_ACTN] = 0
    s[S_ACTK] = 0


@jit(alloc=False)
def begin_turn(s, T, q):
    clear_pending(s)
    s[S_PHASE] = PH_TURN
    s[S_CUR] = q


@jit(alloc=False)
def start_actions(s, T):
    """ED-20: Phase 4 is skipped when countering used up every die."""
    if not any_dice(s):
        end_round(s, T)
        return
    begin_turn(s, T, s[S_START])


@jit(alloc=False)
def end_round(s, T):
    """rules §3 phase 5, then §7 after the last round."""
    n = s[S_NP]
    for p in range(n):
        s[S_DEN + p] += s[S_DDEN + p]
        s[S_DDEN + p] = 0
        s[S_PASSED + p] = 0
    for b in range(N_BLD):
        for o in range(N_OWNERS):
            k = s[S_LYING + b * N_OWNERS + o]
            if k > 0:
                if o < GREY:
                    s[S_SUP + o] += k
                else:
                    s[S_GREY] += k
                s[S_LYING + b * N_OWNERS + o] = 0
    for i in range(N_DIE_TYPES):
        s[S_DICE + i] = 0
    for i in range(N_DIST * N_COL):
        s[S_ROLLED + i] = 0
    for i in range(N_VAL):
        s[S_BLACK + i] = 0
    clear_pending(s)
    s[S_START] = (s[S_START] + 1) % n
    if s[S_ROUND] >= s[S_NROUNDS]:
        score_final(s, T, s[S_FINAL : S_FINAL + MAXP])
        credit_final_scoring(s, T)  # points by source: the rules §7 terms, once
        s[S_PHASE] = PH_OVER
        s[S_CUR] = -1
        return
    s[S_PHASE] = PH_A_ROUND
