"""Round flow (rules §2, §3, §4, §7; ED-10..ED-34), legal masks and the step function.

Entry points: init_state, legal_mask_into, step_inplace. Masks are int8 arrays of NUM_ACTIONS.
`work` is an int64 scratch buffer of WORK_SIZE entries; nothing is allocated per step.
"""

from __future__ import annotations

from numba import njit

from core.rng import rng_below, rng_seed
from troyes_env.actions import (
    A_ACTIVITY,
    A_AGRI,
    A_BLACK,
    A_BUILDING,
    A_CATHEDRAL,
    A_CATHV,
    A_CONCEDE,
    A_CONFIRM,
    A_DIE,
    A_EVENT,
    A_FLIP,
    A_GOON,
    A_LYING,
    A_NEWCIT,
    A_NOCUBE,
    A_PASS,
    A_REROLL,
    A_SPACE,
    A_STOP,
    A_SUPPLY,
    NUM_ACTIONS,
)
from troyes_env.engine.board import (
    any_dice,
    build_cathedral_cube,
    cath_height,
    citizen_leave,
    count_of,
    dice_idx,
    district_count,
    free_flags,
    gain_influence,
    own_flags,
    own_strength,
    penalty,
    place_citizen,
    place_event_cube,
    placement_ok,
    roll_die,
    row_base,
    row_len,
    score_final,
    space_row_base,
    standing,
)
from troyes_env.engine.groups import (
    EF_EVENT_CUBE,
    EF_GAIN,
    EF_MILLER,
    EF_PAY_GAIN,
    EF_VP_PER,
    RES_DEN,
    RES_INF,
    abs_of,
    cube_fits,
    eval_group,
    group_cost,
    has_fitting_cube,
    option_feasible,
    pay_gain_affordable,
    search_group,
    target_feasible,
)
from troyes_env.layout import (
    NFLAG,
    NROW,
    O_ACARD,
    O_ACTK,
    O_ACTN,
    O_ACUBE,
    O_AHID,
    O_ASUP,
    O_BLACK,
    O_BLACKN,
    O_CATH,
    O_CBLK,
    O_CHARS,
    O_CLAST,
    O_CLASTB,
    O_COPEN,
    O_CSEL,
    O_CUBEPOS,
    O_CUBES,
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
    O_FRET,
    O_FSEL,
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
    O_ROLLED,
    O_ROUND,
    O_ROW,
    O_RNG,
    O_SEL,
    O_SELN,
    O_SETUP,
    O_SPACES,
    O_START,
    O_SUP,
    O_TI,
    O_TK,
    O_VERSION,
    O_VP,
    PH_ARCHER,
    PH_COUNTER,
    PH_CUBE,
    PH_DICE,
    PH_EVENT,
    PH_FLIP,
    PH_GOON,
    PH_A_COUNTER,
    PH_A_EVENTS,
    PH_A_ROUND,
    PH_OVER,
    PH_SETUP,
    PH_SOURCE,
    PH_TURN,
    STATE_SIZE,
    TK_ACT,
    TK_AGRI,
    TK_BUILD,
    TK_CATH,
    TK_EVENT,
    TK_NONE,
    VERSION,
)
from troyes_env.tables import (
    A_COL,
    A_DIV,
    A_EFF,
    A_HIRE,
    A_LVL,
    A_P0,
    A_P1,
    A_P2,
    A_P3,
    A_TIMING,
    A_W,
    E_BLACK,
    E_COL,
    E_E0,
    E_E1,
    E_EFF,
    E_NEXT,
    E_W,
    M_FLIP,
    M_GREY,
    M_INCOME,
    M_MAX_CIT,
    M_NEWCIT,
    M_PASS,
    M_PASS_EXTRA,
    M_REROLL,
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
    T_SALARY,
    T_ROW_LEN,
    T_SETUP,
)

WORK_SIZE = 256

# event effect codes (rules_data.EventEffect)
EV_NONE, EV_PAY, EV_LOSE_INF, EV_LOSE_ACUBE, EV_LOSE_ECUBE, EV_LOSE_CATH, EV_LOSE_CH, EV_GREY = range(8)

ERR_OK, ERR_RANGE, ERR_OVER, ERR_ILLEGAL = 0, 1, 2, 3


# ================================================================ setup (rules §2)


@njit(cache=True)
def _snake_seat(n, i):
    """ED-10: snake order from the start player (seat 0)."""
    k = i // n
    pos = i % n
    return pos if k % 2 == 0 else n - 1 - pos


@njit(cache=True)
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
    rng_seed(s, O_RNG, a, b, c)
    # rules §2.2: one random card per colour and level, face down
    for col in range(3):
        for lvl in range(1, 4):
            m = 0
            for cid in range(N_ACT):
                if T[T_ACT + cid * A_W + A_COL] == col and T[T_ACT + cid * A_W + A_LVL] == lvl:
                    m += 1
            k = rng_below(s, O_RNG, m)
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
            j = rng_below(s, O_RNG, i + 1)
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
        j = rng_below(s, O_RNG, i + 1)
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
    s[O_CUR] = _snake_seat(n, 0)
    return 0


@njit(cache=True)
def _front_free(s, T, sp):
    """The frontmost free space of the row holding SPACE sp (-1 if the row is full)."""
    b = sp // 6
    base = space_row_base(T, sp)
    rl = T[T_ROW_LEN + b]
    for i in range(base, base + rl):
        if s[O_SPACES + i] < 0:
            return i
    return -1


@njit(cache=True)
def _setup_space_legal(s, T, sp):
    """ED-10: an empty Palace space, or the frontmost free space of a row."""
    if s[O_SPACES + sp] >= 0:
        return False
    return sp == _front_free(s, T, sp)


# ================================================================ rounds (rules §3)


@njit(cache=True)
def _deck_size(s, col):
    m = 0
    for i in range(8):
        if s[O_DECKS + col * 8 + i] >= 0:
            m += 1
    return m


@njit(cache=True)
def _append_event(s, card):
    i = row_len(s)
    s[O_ROW + i] = card
    for f in range(NFLAG):
        s[O_FLAGS + i * NFLAG + f] = -1


@njit(cache=True)
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


@njit(cache=True)
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
        if s[O_GREY] > 0 and placement_ok(s, T, 4, b, v, 0, 0):
            s[O_GREY] -= 1
            place_citizen(s, T, 4, b, v)


@njit(cache=True)
def _is_choice_effect(eff):
    return eff == EV_LOSE_ACUBE or eff == EV_LOSE_ECUBE or eff == EV_LOSE_CATH or eff == EV_LOSE_CH


@njit(cache=True)
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


@njit(cache=True)
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
                    if _event_options(s, T, q, eff, s, False) == 0:
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


@njit(cache=True)
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


@njit(cache=True)
def from_space_to_supply(s, T, q, sp):
    """rules §6.2 LOSE_CITY_HALL_CITIZEN: the citizen goes home; the row closes up (ED-8)."""
    citizen_leave(s, T, q, 1, sp)
    s[O_SUP + q] += 1


# ---------------------------------------------------------------- black dice (rules §3 step 4)


@njit(cache=True)
def _highest_black(s):
    for v in range(6, 0, -1):
        if s[O_BLACK + v - 1] > 0:
            return v
    return 0


@njit(cache=True)
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


@njit(cache=True)
def _counter_need(s):
    t = 0
    for v in range(1, 7):
        t += s[O_CBLK + v - 1] * v
    return t


@njit(cache=True)
def _counter_sel_strength(s):
    t = 0
    for c in range(3):
        m = 2 if c == 2 else 1
        for v in range(1, 7):
            t += s[O_CSEL + c * 6 + v - 1] * v * m
    return t


@njit(cache=True)
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


@njit(cache=True)
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


# ---------------------------------------------------------------- influence (rules §5)


@njit(cache=True)
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


@njit(cache=True)
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


@njit(cache=True)
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


@njit(cache=True)
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


# ================================================================ action phase (rules §4)


@njit(cache=True)
def _start_actions(s, T):
    """ED-20: Phase 4 is skipped when countering used up every die."""
    if not any_dice(s):
        _end_round(s, T)
        return
    _begin_turn(s, T, s[O_START])


@njit(cache=True)
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


@njit(cache=True)
def _begin_turn(s, T, q):
    _clear_pending(s)
    s[O_PHASE] = PH_TURN
    s[O_CUR] = q


@njit(cache=True)
def _end_turn(s, T):
    """ED-20: end Phase 4 when all passed or no dice remain; else the next active player,
    each passed player skipped on the way putting 1 denier on their district."""
    n = s[O_NP]
    _clear_pending(s)
    allp = True
    for p in range(n):
        if s[O_PASSED + p] == 0:
            allp = False
    if allp or not any_dice(s):
        _end_round(s, T)
        return
    q = s[O_CUR]
    while True:
        q = (q + 1) % n
        if s[O_PASSED + q] == 1:
            s[O_DDEN + q] += T[T_MISC + M_PASS_EXTRA]
        else:
            break
    _begin_turn(s, T, q)


@njit(cache=True)
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


@njit(cache=True)
def _mask_turn(s, T, mask, work):
    p = s[O_CUR]
    m = _mask_influence(s, T, p, mask)
    mask[A_PASS] = 1
    m += 1
    for pos in range(9):
        if s[O_ACARD + pos] >= 0 and target_feasible(s, T, p, TK_ACT, pos, mask, A_DIE, work):
            mask[A_ACTIVITY + pos] = 1
            m += 1
    for i in range(row_len(s)):
        if target_feasible(s, T, p, TK_EVENT, i, mask, A_DIE, work):
            mask[A_EVENT + i] = 1
            m += 1
    if target_feasible(s, T, p, TK_CATH, 0, mask, A_DIE, work):
        mask[A_CATHEDRAL] = 1
        m += 1
    for b in range(3):
        if target_feasible(s, T, p, TK_BUILD, b, mask, A_DIE, work):
            mask[A_BUILDING + b] = 1
            m += 1
    if target_feasible(s, T, p, TK_AGRI, 0, mask, A_DIE, work):
        mask[A_AGRI] = 1
        m += 1
    return m


@njit(cache=True)
def _apply_turn(s, T, a):
    p = s[O_CUR]
    if a == A_PASS:
        s[O_PASSED + p] = 1
        s[O_DDEN + p] += T[T_MISC + M_PASS]  # rules §4.6, U-PASS
        _end_turn(s, T)
        return
    tk = TK_NONE
    ti = 0
    if A_ACTIVITY <= a < A_ACTIVITY + 9:
        tk = TK_ACT
        ti = a - A_ACTIVITY
    elif A_EVENT <= a < A_EVENT + NROW:
        tk = TK_EVENT
        ti = a - A_EVENT
    elif a == A_CATHEDRAL:
        tk = TK_CATH
    elif A_BUILDING <= a < A_BUILDING + 3:
        tk = TK_BUILD
        ti = a - A_BUILDING
    elif a == A_AGRI:
        tk = TK_AGRI
    else:
        _apply_influence(s, T, p, a)
        return
    s[O_TK] = tk
    s[O_TI] = ti
    s[O_CUBEPOS] = -1
    if has_fitting_cube(s, T, p, tk, ti):
        s[O_PHASE] = PH_CUBE  # DP-5
    else:
        s[O_PHASE] = PH_DICE


@njit(cache=True)
def _mask_cube(s, T, mask, work):
    p = s[O_CUR]
    tk = s[O_TK]
    ti = s[O_TI]
    m = 0
    for pos in range(9):
        if s[O_ACUBE + pos * 4 + p] > 0 and cube_fits(s, T, tk, ti, pos):
            if option_feasible(s, T, p, tk, ti, pos, mask, A_DIE, work):
                mask[A_ACTIVITY + pos] = 1
                m += 1
    if option_feasible(s, T, p, tk, ti, -1, mask, A_DIE, work):
        mask[A_NOCUBE] = 1
        m += 1
    return m


@njit(cache=True)
def _sel_eval(s, T, p):
    n = s[O_SELN]
    return eval_group(
        s, T, p, s[O_TK], s[O_TI], s[O_CUBEPOS], s[O_SEL], s[O_SEL + 1], s[O_SEL + 2], n
    )


@njit(cache=True)
def _mask_dice(s, T, mask, work):
    p = s[O_CUR]
    m = search_group(s, T, p, s[O_TK], s[O_TI], s[O_CUBEPOS], mask, A_DIE, work, True)
    if s[O_SELN] > 0 and _sel_eval(s, T, p) > 0:
        mask[A_CONFIRM] = 1
        m += 1
    return m


@njit(cache=True)
def _apply_dice(s, T, a):
    p = s[O_CUR]
    n = s[O_NP]
    if a == A_CONFIRM:
        _execute(s, T, p)
        return
    rid = a - A_DIE
    d = abs_of(n, p, rid // 18)
    s[O_SEL + s[O_SELN]] = d * 18 + rid % 18
    s[O_SELN] += 1


@njit(cache=True)
def _execute(s, T, p):
    """CONFIRM (ED-23): pay every cost, take the dice, spend the cube, then act."""
    tk = s[O_TK]
    ti = s[O_TI]
    cube = s[O_CUBEPOS]
    n = s[O_SELN]
    t0 = s[O_SEL]
    t1 = s[O_SEL + 1]
    t2 = s[O_SEL + 2]
    y = eval_group(s, T, p, tk, ti, cube, t0, t1, t2, n)
    cost = group_cost(s, T, p, cube, t0, t1, t2, n)
    nb = 0
    for k in range(n):
        t = s[O_SEL + k]
        if t // 18 != p:
            nb += 1
    each = cost // nb if nb > 0 else 0
    for k in range(n):
        t = s[O_SEL + k]
        d = t // 18
        if d != p and each > 0:
            s[O_DEN + p] -= each
            if d < 4:
                s[O_DEN + d] += each  # paid to the owner; neutral dice to the bank (rules §4.0)
        s[O_DICE + t] -= 1
    if cube >= 0:
        s[O_ACUBE + cube * 4 + p] -= 1
        s[O_CUBES + p] -= 1
    if tk == TK_ACT:
        s[O_ACTN] = y
        if s[O_ASUP + ti * 4 + p] == 0:
            from_hire_cost(s, T, p, ti)
            s[O_HIRING] = 1
            s[O_PHASE] = PH_SOURCE  # DP-7
            return
        _start_activations(s, T, p)
    elif tk == TK_EVENT:
        for _ in range(y):  # ED-32: first empty flags, +1 influence each
            place_event_cube(s, T, p, ti)
        _end_turn(s, T)
    elif tk == TK_CATH:
        for k in range(n):
            build_cathedral_cube(s, T, p, s[O_SEL + k] % 6 + 1)
        _end_turn(s, T)
    elif tk == TK_BUILD:
        s[O_PVAL] = t0 % 6 + 1
        s[O_PHASE] = PH_SOURCE
    else:
        s[O_DEN + p] += y  # rules §4.5 agriculture
        _end_turn(s, T)


@njit(cache=True)
def from_hire_cost(s, T, p, pos):
    from_card = s[O_ACARD + pos]
    s[O_DEN + p] -= T[T_ACT + from_card * A_W + A_HIRE]


@njit(cache=True)
def _source_ok(s, T, p, kind, idx):
    if s[O_TK] == TK_ACT:
        return True
    return placement_ok(s, T, p, s[O_TI], s[O_PVAL], kind, idx)


@njit(cache=True)
def _mask_source(s, T, mask):
    """DP-7 / ED-7: supply, an own standing or lying citizen, an own supervisor elsewhere."""
    p = s[O_CUR]
    m = 0
    if s[O_SUP + p] > 0 and _source_ok(s, T, p, 0, 0):
        mask[A_SUPPLY] = 1
        m += 1
    for sp in range(18):
        if s[O_SPACES + sp] == p and _source_ok(s, T, p, 1, sp):
            mask[A_SPACE + sp] = 1
            m += 1
    for b in range(3):
        if s[O_LYING + b * 5 + p] > 0 and _source_ok(s, T, p, 2, b):
            mask[A_LYING + b] = 1
            m += 1
    for pos in range(9):
        if s[O_ASUP + pos * 4 + p] > 0 and not (s[O_TK] == TK_ACT and pos == s[O_TI]):
            if _source_ok(s, T, p, 3, pos):
                mask[A_ACTIVITY + pos] = 1
                m += 1
    return m


@njit(cache=True)
def _apply_source(s, T, a):
    p = s[O_CUR]
    if a == A_SUPPLY:
        kind = 0
        idx = 0
    elif A_SPACE <= a < A_SPACE + 18:
        kind = 1
        idx = a - A_SPACE
    elif A_LYING <= a < A_LYING + 3:
        kind = 2
        idx = a - A_LYING
    else:
        kind = 3
        idx = a - A_ACTIVITY
    citizen_leave(s, T, p, kind, idx)
    ti = s[O_TI]
    if s[O_TK] == TK_ACT:
        # ED-29: first free scoring slot, else the illustration
        used1 = False
        used2 = False
        for q in range(4):
            w = s[O_ASUP + ti * 4 + q]
            if w == 1:
                used1 = True
            elif w == 2:
                used2 = True
        slot = 1 if not used1 else (2 if not used2 else 3)
        s[O_ASUP + ti * 4 + p] = slot
        _start_activations(s, T, p)
    else:
        place_citizen(s, T, p, ti, s[O_PVAL])
        _end_turn(s, T)


# ---------------------------------------------------------------- activations (ED-30)


@njit(cache=True)
def _start_activations(s, T, p):
    ti = s[O_TI]
    card = s[O_ACARD + ti]
    o = T_ACT + card * A_W
    nact = s[O_ACTN]
    s[O_ACTK] = 0
    eff = T[o + A_EFF]
    if T[o + A_TIMING] == 1:
        # delayed card: one cube per activation (rules §4.1)
        s[O_ACUBE + ti * 4 + p] += nact
        s[O_CUBES + p] += nact
        _end_turn(s, T)
        return
    if eff == EF_GAIN:
        s[O_DEN + p] += T[o + A_P0] * nact
        gain_influence(s, T, p, T[o + A_P1] * nact)
        s[O_VP + p] += T[o + A_P2] * nact
        _end_turn(s, T)
    elif eff == EF_VP_PER:
        s[O_VP + p] += T[o + A_P1] * count_of(s, T, p, T[o + A_P0]) * nact
        _end_turn(s, T)
    elif eff == EF_MILLER:
        a = standing(s, p, 0)
        b = standing(s, p, 1)
        s[O_DEN + p] += T[o + A_P0] * (a if a > b else b) * nact
        _end_turn(s, T)
    else:
        _do_activation(s, T, p)


@njit(cache=True)
def _do_activation(s, T, p):
    ti = s[O_TI]
    card = s[O_ACARD + ti]
    o = T_ACT + card * A_W
    eff = T[o + A_EFF]
    if eff == EF_PAY_GAIN:
        amt = T[o + A_P1]
        if T[o + A_P0] == RES_DEN:
            s[O_DEN + p] -= amt
        elif T[o + A_P0] == RES_INF:
            s[O_INF + p] -= amt
        else:
            s[O_VP + p] -= amt
        g = T[o + A_P3]
        if T[o + A_P2] == RES_DEN:
            s[O_DEN + p] += g
        elif T[o + A_P2] == RES_INF:
            gain_influence(s, T, p, g)
        else:
            s[O_VP + p] += g
        s[O_ACTK] += 1
        _after_activation(s, T, p)
    else:  # EVENT_CUBE (rules §6.1.2, ED-31)
        thr = T[o + A_P1]
        if thr > 0:
            v = roll_die(s)
            if v < thr:
                s[O_ACTK] += 1
                _after_activation(s, T, p)
                return
        s[O_PVAL] = T[o + A_P0]
        s[O_PHASE] = PH_ARCHER


@njit(cache=True)
def _after_activation(s, T, p):
    ti = s[O_TI]
    card = s[O_ACARD + ti]
    eff = T[T_ACT + card * A_W + A_EFF]
    if s[O_ACTK] < s[O_ACTN] and (eff != EF_PAY_GAIN or pay_gain_affordable(s, T, p, card)):
        s[O_PHASE] = PH_GOON
    else:
        _end_turn(s, T)


@njit(cache=True)
def _mask_archer(s, T, mask):
    m = 0
    for i in range(row_len(s)):
        if free_flags(s, T, i) > 0:
            mask[A_EVENT + i] = 1
            m += 1
    return m


@njit(cache=True)
def _apply_archer(s, T, a):
    p = s[O_CUR]
    place_event_cube(s, T, p, a - A_EVENT)
    s[O_PVAL] -= 1
    if s[O_PVAL] <= 0:
        s[O_ACTK] += 1
        _after_activation(s, T, p)


# ================================================================ masks and step


@njit(cache=True)
def legal_mask_into(s, T, mask, work):
    """Fill mask (int8, NUM_ACTIONS) with the legal actions (D5); return how many."""
    for i in range(NUM_ACTIONS):
        mask[i] = 0
    ph = s[O_PHASE]
    m = 0
    if ph == PH_SETUP:
        for sp in range(18):
            if _setup_space_legal(s, T, sp):
                mask[A_SPACE + sp] = 1
                m += 1
    elif ph == PH_EVENT:
        card = s[O_ROW + s[O_EVPOS]]
        m = _event_options(s, T, s[O_CUR], T[T_EV + card * E_W + E_EFF], mask, True)
    elif ph == PH_COUNTER:
        m = _mask_counter(s, T, mask)
    elif ph == PH_TURN:
        m = _mask_turn(s, T, mask, work)
    elif ph == PH_CUBE:
        m = _mask_cube(s, T, mask, work)
    elif ph == PH_DICE:
        m = _mask_dice(s, T, mask, work)
    elif ph == PH_SOURCE:
        m = _mask_source(s, T, mask)
    elif ph == PH_GOON:
        mask[A_GOON] = 1
        mask[A_STOP] = 1
        m = 2
    elif ph == PH_ARCHER:
        m = _mask_archer(s, T, mask)
    elif ph == PH_FLIP:
        m = _mask_flip(s, T, mask)
    return m


@njit(cache=True)
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
        s[O_CUR] = _snake_seat(n, s[O_SETUP])


@njit(cache=True)
def _apply(s, T, a, work):
    ph = s[O_PHASE]
    if ph == PH_SETUP:
        _apply_setup(s, T, a)
    elif ph == PH_EVENT:
        _apply_event_choice(s, T, a)
    elif ph == PH_COUNTER:
        _apply_counter(s, T, a, work)
    elif ph == PH_TURN:
        _apply_turn(s, T, a)
    elif ph == PH_CUBE:
        s[O_CUBEPOS] = -1 if a == A_NOCUBE else a - A_ACTIVITY
        s[O_PHASE] = PH_DICE
    elif ph == PH_DICE:
        _apply_dice(s, T, a)
    elif ph == PH_SOURCE:
        _apply_source(s, T, a)
    elif ph == PH_GOON:
        if a == A_GOON:
            _do_activation(s, T, s[O_CUR])
        else:
            _end_turn(s, T)
    elif ph == PH_ARCHER:
        _apply_archer(s, T, a)
    elif ph == PH_FLIP:
        _apply_flip(s, T, a)


@njit(cache=True)
def advance(s, T):
    """Run the automatic stages (start of round, event row, counter turns) up to a decision."""
    while True:
        ph = s[O_PHASE]
        if ph == PH_A_ROUND:
            _start_round(s, T)
        elif ph == PH_A_EVENTS:
            _run_events(s, T)
        elif ph == PH_A_COUNTER:
            _begin_counter(s, T, s[O_CUR])
        else:
            return


@njit(cache=True)
def settle(s, T, mask, work):
    """ED-5: apply every decision that has a single legal option; return how many."""
    k = 0
    while s[O_PHASE] != PH_OVER:
        m = legal_mask_into(s, T, mask, work)
        if m != 1:
            break
        a = 0
        for i in range(NUM_ACTIONS):
            if mask[i] != 0:
                a = i
                break
        _apply(s, T, a, work)
        advance(s, T)
        k += 1
    return k


@njit(cache=True)
def step_inplace(s, T, a, mask, work):
    """Apply action a if legal (0), else return an error code and leave s untouched."""
    if s[O_PHASE] == PH_OVER:
        return ERR_OVER
    if a < 0 or a >= NUM_ACTIONS:
        return ERR_RANGE
    legal_mask_into(s, T, mask, work)
    if mask[a] == 0:
        return ERR_ILLEGAL
    _apply(s, T, a, work)
    advance(s, T)
    settle(s, T, mask, work)
    return ERR_OK


@njit(cache=True)
def is_legal(s, T, a, mask, work):
    """Compiled legality test of one action (used by the exhaustive checks)."""
    if s[O_PHASE] == PH_OVER or a < 0 or a >= NUM_ACTIONS:
        return False
    legal_mask_into(s, T, mask, work)
    return mask[a] != 0


@njit(cache=True)
def play_random(s, T, mask, work, seed_state, max_steps):
    """Play uniformly random legal actions from an RNG kept in seed_state[0:4] (tests, bench).

    Returns the number of decisions made."""
    k = 0
    while s[O_PHASE] != PH_OVER and k < max_steps:
        m = legal_mask_into(s, T, mask, work)
        j = rng_below(seed_state, 0, m)
        a = 0
        for i in range(NUM_ACTIONS):
            if mask[i] != 0:
                if j == 0:
                    a = i
                    break
                j -= 1
        _apply(s, T, a, work)
        advance(s, T)
        settle(s, T, mask, work)
        k += 1
    return k
