"""Compiled observation builder; the layout is documented in troyes_env/observation.py (D6)."""

from __future__ import annotations

from core.jit import jit
from troyes_env.layout import (
    DIST_DICE,
    GREY,
    MAXP,
    N_ACTPOS,
    N_BLD,
    N_CATH,
    N_CHAR_SLOTS,
    N_DECKS,
    N_DIST,
    N_EVENTS,
    N_OWNERS,
    N_SPACES,
    N_TK,
    N_VAL,
    NEUTRAL,
    NFLAG,
    NROW,
    S_ACARD,
    S_ACTK,
    S_ACTN,
    S_ACUBE,
    S_ASUP,
    S_BLACK,
    S_CATH,
    S_CBLK,
    S_CHARS,
    S_CLAST,
    S_COPEN,
    S_CSEL,
    S_CUBEPOS,
    S_CUBES,
    S_CUR,
    S_DDEN,
    S_DEN,
    S_DICE,
    S_DRAWN,
    S_EVLEFT,
    S_EVPOS,
    S_FLAGS,
    S_FSEL,
    S_GREY,
    S_HIRING,
    S_INF,
    S_KEPT,
    S_LYING,
    S_NP,
    S_OWNED,
    S_PASSED,
    S_PHASE,
    S_PVAL,
    S_ROUND,
    S_ROW,
    S_SEL,
    S_SELN,
    S_SPACES,
    S_START,
    S_SUP,
    S_TI,
    S_TK,
    S_VP,
    SUP_ART,
    SUP_NONE,
)
from troyes_env.observation import (
    OB_ACARDS,
    OB_ACTOR,
    OB_ACUBES,
    OB_BLACK,
    OB_CATH,
    OB_CHARS,
    OB_COUNTER,
    OB_DICE,
    OB_DRAWN,
    OB_EVSTEP,
    OB_FLIP,
    OB_GREY,
    OB_KEPT,
    OB_LYING,
    OB_NP,
    OB_PENDING,
    OB_PHASE,
    OB_PLAYERS,
    OB_ROUND,
    OB_ROW,
    OB_SPACES,
    OB_START,
    OB_SUPS,
    OBS_SIZE,
)
from troyes_env.tables import A_COL, A_LVL, A_W, N_ACT, T_ACT

# Scales as products with reciprocals: a float division costs ~10x a product, and divisions were
# half of observe_into's time. float32(x * (1/d)) == float32(x / d) for every integer
# |x| < 2**22 and each d here (tests/troyes/test_observation.py checks it); state entries are
# game counts far inside that range.
_BY3 = 1.0 / 3.0
_BY5 = 1.0 / 5.0
_BY6 = 1.0 / 6.0
_BY8 = 1.0 / 8.0
_BY10 = 1.0 / 10.0
_BY12 = 1.0 / 12.0
_BY13 = 1.0 / 13.0
_BY18 = 1.0 / 18.0
_BY20 = 1.0 / 20.0


# entries inside the blocks of observation.OBS_BLOCKS
PLAYER_W = 10  # "players": per relative seat
PLAYER_KEPT = 7  # ... the entry counting the event cards the seat kept
OWNER_HOT = N_OWNERS + 1  # one-hot of an owner: empty, rel 0..3, grey
SEAT_HOT = MAXP + 1  # one-hot of a cube's owner: empty, rel 0..3
ROW_W = N_EVENTS + NFLAG * SEAT_HOT  # "event_row": the card one-hot, then its flags
CNT_SEL = N_VAL  # "counter": black dice chosen per value, then own dice chosen per type,
CNT_LAST = CNT_SEL + DIST_DICE  # then the last id chosen
CNT_OPEN = CNT_LAST + 1  # and the open flag
PEND_TI = N_TK  # "pending": target kind one-hot, target index one-hot,
PEND_CUBE = PEND_TI + NROW  # cube one-hot (none + each position),
PEND_SEL = PEND_CUBE + 1 + N_ACTPOS  # chosen dice per relative type,
PEND_PVAL = PEND_SEL + N_DIST * DIST_DICE  # placement value, hiring, N, activations made


@jit
def _rel(o, p, n):
    """Relative seat of owner o (0..3) for observer p; GREY (the neutral district) and empty
    (-1) unchanged. (o - p + n) % n without the division in the usual case (~130 calls per
    observation)."""
    if o < 0 or o >= GREY:
        return o
    d = o - p + n
    if 0 <= d < n:
        return d
    if n <= d < 2 * n:
        return d - n
    return d % n


@jit
def observe_into(s, T, p, out):
    """Fill out (float32, OBS_SIZE) with what seat p sees."""
    for i in range(OBS_SIZE):
        out[i] = 0.0
    n = s[S_NP]
    out[OB_NP + n - 2] = 1.0
    out[OB_ROUND + s[S_ROUND]] = 1.0
    out[OB_PHASE + s[S_PHASE]] = 1.0
    out[OB_START + _rel(s[S_START], p, n)] = 1.0
    if s[S_CUR] >= 0:
        out[OB_ACTOR + _rel(s[S_CUR], p, n)] = 1.0
    for c in range(N_DECKS):
        out[OB_DRAWN + c] = s[S_DRAWN + c] * _BY8
    out[OB_GREY] = s[S_GREY] * _BY8
    for q in range(n):
        r = _rel(q, p, n)
        o = OB_PLAYERS + r * PLAYER_W
        out[o + 0] = s[S_DEN + q] * _BY20
        out[o + 1] = s[S_INF + q] * _BY20
        out[o + 2] = s[S_VP + q] * _BY20
        out[o + 3] = s[S_SUP + q] * _BY12
        out[o + 4] = s[S_OWNED + q] * _BY12
        out[o + 5] = s[S_PASSED + q]
        out[o + 6] = s[S_DDEN + q] * _BY10
        out[o + 8] = s[S_CUBES + q] * _BY20
        out[o + 9] = 1.0
    for e in range(N_EVENTS):  # kept event cards per player: counted in one pass, then scaled
        o = s[S_KEPT + e]
        if 0 <= o < n:
            out[OB_PLAYERS + _rel(o, p, n) * PLAYER_W + PLAYER_KEPT] += 1.0
    for r in range(n):
        out[OB_PLAYERS + r * PLAYER_W + PLAYER_KEPT] *= _BY5
    for k in range(N_CHAR_SLOTS):  # own characters only (D6)
        ch = s[S_CHARS + p * N_CHAR_SLOTS + k]
        if ch >= 0:
            out[OB_CHARS + ch] = 1.0
    for sp in range(N_SPACES):
        o = s[S_SPACES + sp]
        j = 0 if o < 0 else 1 + (GREY if o == GREY else _rel(o, p, n))
        out[OB_SPACES + sp * OWNER_HOT + j] = 1.0
    for b in range(N_BLD):
        for o in range(N_OWNERS):
            k = s[S_LYING + b * N_OWNERS + o]
            if k > 0:
                out[OB_LYING + b * N_OWNERS + (GREY if o == GREY else _rel(o, p, n))] = k
    for pos in range(N_ACTPOS):
        card = s[S_ACARD + pos]
        if card >= 0:
            out[OB_ACARDS + pos * 4] = 1.0
            col = T[T_ACT + card * A_W + A_COL]
            lvl = T[T_ACT + card * A_W + A_LVL]
            idx = 0
            for c2 in range(card):
                if T[T_ACT + c2 * A_W + A_COL] == col and T[T_ACT + c2 * A_W + A_LVL] == lvl:
                    idx += 1
            if idx < 3:
                out[OB_ACARDS + pos * 4 + 1 + idx] = 1.0
        for q in range(n):
            r = _rel(q, p, n)
            w = s[S_ASUP + pos * MAXP + q]
            if w > SUP_NONE:
                out[OB_SUPS + (pos * MAXP + r) * SUP_ART + w - 1] = 1.0
            out[OB_ACUBES + pos * MAXP + r] = s[S_ACUBE + pos * MAXP + q] * _BY5
    for i in range(N_CATH):
        o = s[S_CATH + i]
        out[OB_CATH + i * SEAT_HOT + (0 if o < 0 else 1 + _rel(o, p, n))] = 1.0
    for i in range(NROW):
        card = s[S_ROW + i]
        base = OB_ROW + i * ROW_W
        if card >= 0:
            out[base + card] = 1.0
            for f in range(NFLAG):
                o = s[S_FLAGS + i * NFLAG + f]
                if o >= 0 and o < GREY:
                    out[base + N_EVENTS + f * SEAT_HOT + 1 + _rel(o, p, n)] = 1.0
                elif o < 0:
                    out[base + N_EVENTS + f * SEAT_HOT] = 1.0
    for e in range(N_EVENTS):
        o = s[S_KEPT + e]
        if o >= 0:
            out[OB_KEPT + e * N_OWNERS + (GREY if o == GREY else _rel(o, p, n))] = 1.0
    for d in range(N_DIST):
        rd = NEUTRAL if d == NEUTRAL else (_rel(d, p, n) if d < n else -1)
        if rd < 0:
            continue
        for i in range(DIST_DICE):
            out[OB_DICE + rd * DIST_DICE + i] = s[S_DICE + d * DIST_DICE + i] * _BY6
    for v in range(N_VAL):
        out[OB_BLACK + v] = s[S_BLACK + v] * _BY6
    out[OB_EVSTEP] = s[S_EVPOS] * _BY13
    out[OB_EVSTEP + 1] = s[S_EVLEFT] * _BY3
    for v in range(N_VAL):
        out[OB_COUNTER + v] = s[S_CBLK + v] * _BY6
    for i in range(DIST_DICE):
        out[OB_COUNTER + CNT_SEL + i] = s[S_CSEL + i] * _BY6
    out[OB_COUNTER + CNT_LAST] = s[S_CLAST] * _BY18
    out[OB_COUNTER + CNT_OPEN] = s[S_COPEN]
    out[OB_PENDING + s[S_TK]] = 1.0
    if s[S_TI] >= 0:
        out[OB_PENDING + PEND_TI + s[S_TI]] = 1.0
    out[OB_PENDING + PEND_CUBE + s[S_CUBEPOS] + 1] = 1.0
    for k in range(s[S_SELN]):
        t = s[S_SEL + k]
        d = t // DIST_DICE
        rd = NEUTRAL if d == NEUTRAL else _rel(d, p, n)
        out[OB_PENDING + PEND_SEL + rd * DIST_DICE + t % DIST_DICE] += 1.0
    out[OB_PENDING + PEND_PVAL] = s[S_PVAL] * _BY6
    out[OB_PENDING + PEND_PVAL + 1] = s[S_HIRING]
    out[OB_PENDING + PEND_PVAL + 2] = s[S_ACTN] * _BY10
    out[OB_PENDING + PEND_PVAL + 3] = s[S_ACTK] * _BY10
    for i in range(DIST_DICE):
        out[OB_FLIP + i] = s[S_FSEL + i] * _BY3
    return 0


_ = N_ACT
