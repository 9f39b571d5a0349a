"""Compiled observation builder; the layout is documented in village_env/observation.py (D6)."""

from __future__ import annotations

from core.jit import jit
from village_env.engine.board import chronicle_cap, graves_cap
from village_env.layout import (
    MAXP,
    MEM_STRIDE,
    N_BUILDINGS,
    N_COLOURS,
    N_GOODS,
    N_KINDS,
    N_LEVELS,
    N_PHASES,
    N_SECTIONS,
    N_SLOTS,
    N_SPACES,
    PK_GOODS,
    S_ACTOR,
    S_ALLOWED,
    S_BAG,
    S_BOARD,
    S_CHRON,
    S_COINS,
    S_CRAFTB,
    S_CUBES,
    S_DEND,
    S_DNOW,
    S_FIDX,
    S_FN,
    S_FREE,
    S_GOODS,
    S_GRAIN,
    S_GRAVES,
    S_INFINAL,
    S_MARK,
    S_MEM,
    S_MFREE,
    S_MKT,
    S_MONKS,
    S_MOPEN,
    S_MPASSED,
    S_MPICKED,
    S_MSERVED,
    S_MTURN,
    S_NP,
    S_NS,
    S_OWNER,
    S_PHASE,
    S_PILE,
    S_PKIND,
    S_PRESTIGE,
    S_PRIVMAX,
    S_PUNITS,
    S_QUEUE,
    S_ROUND,
    S_SCOINS,
    S_SCUBES,
    S_SGOODS,
    S_SGRAIN,
    S_STALLS,
    S_START,
    S_TIME,
    S_TRIG,
    S_TRIGP,
)
from village_env.observation import (
    MIN_PLAYERS,
    PLAYER_BLOCK,
    PLAYER_SCALARS,
    SCALE,
    SUPPLY_SIZE,
    TILE_SIZE,
)
from village_env.tables import (
    DEMAND_ROW,
    N_CITIES,
    N_CUSTOMERS,
    T_CUSTOMER_DEMAND,
    T_CUSTOMER_VALUE,
    T_LAP,
)


@jit
def _rel(q, me, n):
    """(q - me) % n, without the division in the usual case (seats 0..n-1)."""
    d = q - me
    if 0 <= d < n:
        return d
    if -n <= d < 0:
        return d + n
    return d % n


@jit
def _tile(s, T, t, out, i):
    if t < 0:
        return i + TILE_SIZE
    out[i] = 1.0
    for k in range(DEMAND_ROW):
        out[i + 1 + k] = T[T_CUSTOMER_DEMAND + DEMAND_ROW * t + k]
    out[i + 1 + DEMAND_ROW] = T[T_CUSTOMER_VALUE + t]
    return i + TILE_SIZE


@jit
def observe_into(s, T, me, out):
    """Write player `me`'s observation into `out` (float32, OBS_SIZE). Returns nothing: returning
    `out` made numba release the caller's array once too often when compiled code discarded the
    result (a use after free, seen in the guided search)."""
    out[:] = 0.0
    n = s[S_NP]
    i = 0
    out[i + s[S_PHASE]] = 1.0
    i += N_PHASES
    if s[S_ACTOR] >= 0:
        out[i + _rel(s[S_ACTOR], me, n)] = 1.0
        out[i + MAXP] = 1.0 if s[S_ACTOR] == me else 0.0
    i += MAXP + 1
    out[i + n - MIN_PLAYERS] = 1.0
    i += MAXP - MIN_PLAYERS + 1
    out[i] = s[S_ROUND] / SCALE
    i += 1
    out[i + _rel(s[S_START], me, n)] = 1.0
    i += MAXP
    out[i + (MAXP if s[S_NS] < 0 else _rel(s[S_NS], me, n))] = 1.0
    i += MAXP + 1
    for k in range(N_SPACES * N_KINDS):
        out[i + k] = s[S_BOARD + k]
    i += N_SPACES * N_KINDS
    for k in range(N_KINDS):
        out[i + k] = s[S_BAG + k]
    i += N_KINDS
    for k in range(N_KINDS):
        out[i + k] = s[S_SCUBES + k]
    for k in range(N_GOODS):
        out[i + N_KINDS + k] = s[S_SGOODS + k]
    out[i + N_KINDS + N_GOODS] = s[S_SGRAIN]
    out[i + N_KINDS + N_GOODS + 1] = s[S_SCOINS]
    i += SUPPLY_SIZE
    out[i + (N_SPACES if s[S_ALLOWED] < 0 else s[S_ALLOWED])] = 1.0
    i += N_SPACES + 1
    out[i] = s[S_FREE]
    i += 1
    out[i] = s[S_PUNITS]
    if s[S_PKIND] > 0:
        out[i + s[S_PKIND]] = 1.0
    i += 1 + PK_GOODS
    out[i + s[S_PRIVMAX]] = 1.0
    i += N_LEVELS + 1
    out[i + s[S_CRAFTB] + 1] = 1.0
    i += N_BUILDINGS + 1
    out[i] = s[S_MKT]
    out[i + 1] = s[S_MFREE]
    out[i + 2] = s[S_MSERVED]
    i += 3
    if s[S_MOPEN] >= 0:
        out[i + _rel(s[S_MOPEN], me, n)] = 1.0
    i += MAXP
    for q in range(n):
        out[i + _rel(q, me, n)] = s[S_MPASSED + q]
    i += MAXP
    if s[S_MTURN] >= 0:
        out[i + _rel(s[S_MTURN], me, n)] = 1.0
    i += MAXP
    for k in range(N_SLOTS):
        i = _tile(s, T, s[S_STALLS + k], out, i)
    for k in range(N_SLOTS):
        i = _tile(s, T, s[S_QUEUE + k], out, i)
    npile = 0
    for t in range(N_CUSTOMERS):  # the pile's composition is public; its order is not kept
        out[i + t] = s[S_PILE + t]
        npile += s[S_PILE + t]
    out[i + N_CUSTOMERS] = npile
    i += N_CUSTOMERS + 1
    for sec in range(N_SECTIONS):
        out[i + sec] = s[S_CHRON + sec]
        out[i + N_SECTIONS + sec] = chronicle_cap(s, T, sec)
    i += 2 * N_SECTIONS
    out[i] = s[S_GRAVES]
    out[i + 1] = graves_cap(s, T)
    i += 2
    out[i] = s[S_MONKS]
    out[i + 1] = s[S_MPICKED]
    i += 2
    out[i] = s[S_TRIG]
    out[i + 1] = s[S_INFINAL]
    out[i + 2] = s[S_FN] - s[S_FIDX]
    i += 3
    if s[S_TRIGP] >= 0:
        out[i + _rel(s[S_TRIGP], me, n)] = 1.0
    i += MAXP
    lap = T[T_LAP]
    for q in range(n):
        j = i + PLAYER_BLOCK * _rel(q, me, n)
        out[j] = 1.0
        j += 1
        for c in range(N_COLOURS):
            out[j + c] = s[S_CUBES + N_COLOURS * q + c]
        j += N_COLOURS
        for g in range(N_GOODS):
            out[j + g] = s[S_GOODS + N_GOODS * q + g]
        j += N_GOODS
        out[j] = s[S_GRAIN + q]
        out[j + 1] = s[S_COINS + q]
        out[j + 2] = s[S_PRESTIGE + q] / SCALE
        out[j + 3] = s[S_TIME + q] / SCALE
        out[j + 4] = s[S_TIME + q] % lap
        j += PLAYER_SCALARS
        for k in range(MEM_STRIDE):
            out[j + k] = s[S_MEM + MEM_STRIDE * q + k]
        j += MEM_STRIDE
        for c in range(N_CITIES):
            out[j + c] = s[S_MARK + N_CITIES * q + c]
        j += N_CITIES
        served = 0
        value = 0
        for t in range(N_CUSTOMERS):
            if s[S_OWNER + t] == q:
                served += 1
                value += T[T_CUSTOMER_VALUE + t]
        out[j] = served
        out[j + 1] = value
        out[j + 2] = s[S_DNOW + q]
        out[j + 3] = s[S_DEND + q]
