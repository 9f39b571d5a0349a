"""Setup (rules §2), the start and end of a round (§3 phases 0-3 and 5, §7), turn bookkeeping."""

from __future__ import annotations

from numba import njit

from core.rng import (
    rng_below,
    rng_seed,
)
from troyes_env.actions import (
    A_SPACE,
)
from troyes_env.engine.board import (
    any_dice,
    dice_idx,
    nl,
    penalty,
    place_citizen,
    placement_ok,
    roll_die,
    row_len,
    score_final,
    space_row_base,
    standing,
)
from troyes_env.layout import (
    NFLAG,
    NROW,
    O_ACARD,
    O_ACTK,
    O_ACTN,
    O_AHID,
    O_BLACK,
    O_BLACKN,
    O_CATH,
    O_CHARS,
    O_CLAST,
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
    O_FLAST,
    O_GREY,
    O_HIRING,
    O_INF,
    O_KEPT,
    O_LYING,
    O_NP,
    O_NROUNDS,
    O_OWNED,
    O_PASSED,
    O_PHASE,
    O_PVAL,
    O_RNG,
    O_ROLLED,
    O_ROUND,
    O_ROW,
    O_SEL,
    O_SELN,
    O_SETUP,
    O_SPACES,
    O_START,
    O_SUP,
    O_TI,
    O_TK,
    O_VERSION,
    PH_A_EVENTS,
    PH_A_ROUND,
    PH_OVER,
    PH_SETUP,
    PH_TURN,
    TK_NONE,
    VERSION,
)
from troyes_env.tables import (
    A_COL,
    A_LVL,
    A_W,
    E_BLACK,
    E_COL,
    E_E0,
    E_E1,
    E_EFF,
    E_NEXT,
    E_W,
    M_GREY,
    M_INCOME,
    N_ACT,
    N_CHAR,
    N_EV,
    S_CHARS,
    S_CIT,
    S_DEN,
    S_INF,
    S_ROUNDS,
    T_ACT,
    T_EV,
    T_GREY2P,
    T_MISC,
    T_ROW_LEN,
    T_SALARY,
    T_SETUP,
)

# event effect codes (rules_data.EventEffect)
EV_NONE, EV_PAY, EV_LOSE_INF, EV_LOSE_ACUBE, EV_LOSE_ECUBE, EV_LOSE_CATH, EV_LOSE_CH, EV_GREY = (
    range(8)
)


@njit(cache=True, _nrt=False)
def init_state(s, T, n, a, b, c):
    """rules §2: a new game for n players, seeded from three 32-bit words (ED-2 draw order)."""
    s[:] = 0
    for i in range(18):
        s[O_SPACES + i] = -1
        s[O_CATH + i] = -1
    for i in range(9):
        s[O_ACARD + i] = -1
        s[O_AHID + i] = -1
    for i in range(8):
        s[O_CHARS + i] = -1
    for i in range(NROW):
        s[O_ROW + i] = -1
        for f in range(NFLAG):
            s[O_FLAGS + i * NFLAG + f] = -1
    for i in range(N_EV):
        s[O_KEPT + i] = -1
    for i in range(24):
        s[O_DECKS + i] = -1
    for i in range(3):
        s[O_SEL + i] = -1
    s[O_CLAST] = -1
    s[O_FLAST] = -1
    s[O_TI] = -1
    s[O_CUBEPOS] = -1
    s[O_VERSION] = VERSION
    s[O_NP] = n
    so = T_SETUP + n * 5
    s[O_NROUNDS] = T[so + S_ROUNDS]
    rng_seed(s, nl(O_RNG), a, b, c)
    # rules §2.2: one random card per colour and level, face down
    for col in range(3):
        for lvl in range(1, 4):
            m = 0
            for cid in range(N_ACT):
                if T[T_ACT + cid * A_W + A_COL] == col and T[T_ACT + cid * A_W + A_LVL] == lvl:
                    m += 1
            k = rng_below(s, nl(O_RNG), m)
            for cid in range(N_ACT):
                if T[T_ACT + cid * A_W + A_COL] == col and T[T_ACT + cid * A_W + A_LVL] == lvl:
                    if k == 0:
                        s[O_AHID + col * 3 + lvl - 1] = cid
                    k -= 1
    # rules §2.3: three shuffled event decks (red, white, yellow); the red one is cut to n_rounds
    # by drawing only its first n_rounds cards
    for di in range(3):
        col = 2 - di
        m = 0
        for e in range(1, N_EV):
            if T[T_EV + e * E_W + E_COL] == col:
                s[O_DECKS + col * 8 + m] = e
                m += 1
        for i in range(m - 1, 0, -1):
            j = rng_below(s, nl(O_RNG), i + 1)
            tmp = s[O_DECKS + col * 8 + i]
            s[O_DECKS + col * 8 + i] = s[O_DECKS + col * 8 + j]
            s[O_DECKS + col * 8 + j] = tmp
    # rules §2.1: characters dealt at random, in seat order (ED-2)
    perm0 = 0
    nch = T[so + S_CHARS]
    # Fisher-Yates over 6 cards, kept in the chars segment slots via a local packing
    order = 0
    for i in range(N_CHAR):
        order |= i << (4 * i)
    for i in range(N_CHAR - 1, 0, -1):
        j = rng_below(s, nl(O_RNG), i + 1)
        vi = (order >> (4 * i)) & 15
        vj = (order >> (4 * j)) & 15
        order &= ~((15 << (4 * i)) | (15 << (4 * j)))
        order |= (vj << (4 * i)) | (vi << (4 * j))
    for p in range(n):
        for k in range(nch):
            s[O_CHARS + p * 2 + k] = (order >> (4 * perm0)) & 15
            perm0 += 1
    for p in range(n):
        s[O_DEN + p] = T[so + S_DEN]
        s[O_INF + p] = T[so + S_INF]
        s[O_SUP + p] = T[so + S_CIT]
        s[O_OWNED + p] = T[so + S_CIT]
    s[O_GREY] = T[T_MISC + M_GREY]
    s[O_ROW] = 0  # Marauding, permanent at the left of the row (rules §2.3)
    if n == 2:  # rules §2.5, U-2P: grey citizens first
        for k in range(6):
            s[O_SPACES + T[T_GREY2P + k]] = 4
            s[O_GREY] -= 1
    s[O_PHASE] = PH_SETUP
    s[O_CUR] = _snake_seat(n, nl(0))
    return 0


@njit(cache=True, _nrt=False)
def _snake_seat(n, i):
    """ED-10: snake order, as an offset from the start player (seat 0 unless chosen)."""
    k = i // n
    pos = i % n
    return pos if k % 2 == 0 else n - 1 - pos


@njit(cache=True, _nrt=False)
def _front_free(s, T, sp):
    """The frontmost free space of the row holding SPACE sp (-1 if the row is full)."""
    b = sp // 6
    base = space_row_base(T, sp)
    rl = T[T_ROW_LEN + b]
    for i in range(base, base + rl):
        if s[O_SPACES + i] < 0:
            return i
    return -1


@njit(cache=True, _nrt=False)
def _setup_space_legal(s, T, sp):
    """ED-10: an empty Palace space, or the frontmost free space of a row."""
    if s[O_SPACES + sp] >= 0:
        return False
    return sp == _front_free(s, T, sp)


@njit(cache=True, _nrt=False)
def _apply_setup(s, T, a):
    n = s[O_NP]
    p = s[O_CUR]
    sp = a - A_SPACE
    s[O_SPACES + sp] = p
    s[O_SUP + p] -= 1
    s[O_SETUP] += 1
    if s[O_SETUP] == n * T[T_SETUP + n * 5 + S_CIT]:
        # rules §2.5: grey citizens fill every empty space (rows stay gap-free, ED-8)
        for i in range(18):
            if s[O_SPACES + i] < 0 and s[O_GREY] > 0:
                s[O_SPACES + i] = 4
                s[O_GREY] -= 1
        s[O_PHASE] = PH_A_ROUND
    else:
        s[O_CUR] = (s[O_START] + _snake_seat(n, s[O_SETUP])) % n


@njit(cache=True, _nrt=False)
def _deck_size(s, col):
    m = 0
    for i in range(8):
        if s[O_DECKS + col * 8 + i] >= 0:
            m += 1
    return m


@njit(cache=True, _nrt=False)
def _append_event(s, card):
    i = row_len(s)
    s[O_ROW + i] = card
    for f in range(NFLAG):
        s[O_FLAGS + i * NFLAG + f] = -1


@njit(cache=True, _nrt=False)
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


@njit(cache=True, _nrt=False)
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


@njit(cache=True, _nrt=False)
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


@njit(cache=True, _nrt=False)
def _begin_turn(s, T, q):
    _clear_pending(s)
    s[O_PHASE] = PH_TURN
    s[O_CUR] = q


@njit(cache=True, _nrt=False)
def _start_actions(s, T):
    """ED-20: Phase 4 is skipped when countering used up every die."""
    if not any_dice(s):
        _end_round(s, T)
        return
    _begin_turn(s, T, s[O_START])


@njit(cache=True, _nrt=False)
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
