"""Compiled observation builder; the layout is documented in troyes_env/observation.py (D6)."""

from __future__ import annotations

from core.jit import jit
from troyes_env.layout import (
    DIST_DICE,
    N_ACTPOS,
    N_CATH,
    N_SPACES,
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


@jit
def _rel(o, p, n):
    """Relative seat of owner o (0..3) for observer p; grey (4) and empty (-1) unchanged.
    (o - p + n) % n without the division in the usual case (~130 calls per observation)."""
    if o < 0 or o >= 4:
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
    for c in range(3):
        out[OB_DRAWN + c] = s[S_DRAWN + c] * _BY8
    out[OB_GREY] = s[S_GREY] * _BY8
    for q in range(n):
        r = _rel(q, p, n)
        o = OB_PLAYERS + r * 10
        out[o + 0] = s[S_DEN + q] * _BY20
        out[o + 1] = s[S_INF + q] * _BY20
        out[o + 2] = s[S_VP + q] * _BY20
        out[o + 3] = s[S_SUP + q] * _BY12
        out[o + 4] = s[S_OWNED + q] * _BY12
        out[o + 5] = s[S_PASSED + q]
        out[o + 6] = s[S_DDEN + q] * _BY10
        out[o + 8] = s[S_CUBES + q] * _BY20
        out[o + 9] = 1.0
    for e in range(17):  # kept event cards per player: counted in one pass, then scaled
        o = s[S_KEPT + e]
        if 0 <= o < n:
            out[OB_PLAYERS + _rel(o, p, n) * 10 + 7] += 1.0
    for r in range(n):
        out[OB_PLAYERS + r * 10 + 7] *= _BY5
    for k in range(2):  # own characters only (D6)
        ch = s[S_CHARS + p * 2 + k]
        if ch >= 0:
            out[OB_CHARS + ch] = 1.0
    for sp in range(N_SPACES):
        o = s[S_SPACES + sp]
        j = 0 if o < 0 else (5 if o == 4 else 1 + _rel(o, p, n))
        out[OB_SPACES + sp * 6 + j] = 1.0
    for b in range(3):
        for o in range(5):
            k = s[S_LYING + b * 5 + o]
            if k > 0:
                out[OB_LYING + b * 5 + (4 if o == 4 else _rel(o, p, n))] = k
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
            w = s[S_ASUP + pos * 4 + q]
            if w > 0:
                out[OB_SUPS + (pos * 4 + r) * 3 + w - 1] = 1.0
            out[OB_ACUBES + pos * 4 + r] = s[S_ACUBE + pos * 4 + q] * _BY5
    for i in range(N_CATH):
        o = s[S_CATH + i]
        out[OB_CATH + i * 5 + (0 if o < 0 else 1 + _rel(o, p, n))] = 1.0
    for i in range(NROW):
        card = s[S_ROW + i]
        base = OB_ROW + i * 42
        if card >= 0:
            out[base + card] = 1.0
            for f in range(NFLAG):
                o = s[S_FLAGS + i * NFLAG + f]
                if o >= 0 and o < 4:
                    out[base + 17 + f * 5 + 1 + _rel(o, p, n)] = 1.0
                elif o < 0:
                    out[base + 17 + f * 5] = 1.0
    for e in range(17):
        o = s[S_KEPT + e]
        if o >= 0:
            out[OB_KEPT + e * 5 + (4 if o == 4 else _rel(o, p, n))] = 1.0
    for d in range(5):
        rd = 4 if d == 4 else (_rel(d, p, n) if d < n else -1)
        if rd < 0:
            continue
        for i in range(DIST_DICE):
            out[OB_DICE + rd * DIST_DICE + i] = s[S_DICE + d * DIST_DICE + i] * _BY6
    for v in range(6):
        out[OB_BLACK + v] = s[S_BLACK + v] * _BY6
    out[OB_EVSTEP] = s[S_EVPOS] * _BY13
    out[OB_EVSTEP + 1] = s[S_EVLEFT] * _BY3
    for v in range(6):
        out[OB_COUNTER + v] = s[S_CBLK + v] * _BY6
    for i in range(DIST_DICE):
        out[OB_COUNTER + 6 + i] = s[S_CSEL + i] * _BY6
    out[OB_COUNTER + 24] = s[S_CLAST] * _BY18
    out[OB_COUNTER + 25] = s[S_COPEN]
    out[OB_PENDING + s[S_TK]] = 1.0
    if s[S_TI] >= 0:
        out[OB_PENDING + 6 + s[S_TI]] = 1.0
    out[OB_PENDING + 19 + s[S_CUBEPOS] + 1] = 1.0
    for k in range(s[S_SELN]):
        t = s[S_SEL + k]
        d = t // DIST_DICE
        rd = 4 if d == 4 else _rel(d, p, n)
        out[OB_PENDING + 29 + rd * DIST_DICE + t % DIST_DICE] += 1.0
    out[OB_PENDING + 119] = s[S_PVAL] * _BY6
    out[OB_PENDING + 120] = s[S_HIRING]
    out[OB_PENDING + 121] = s[S_ACTN] * _BY10
    out[OB_PENDING + 122] = s[S_ACTK] * _BY10
    for i in range(DIST_DICE):
        out[OB_FLIP + i] = s[S_FSEL + i] * _BY3
    return 0


_ = N_ACT
