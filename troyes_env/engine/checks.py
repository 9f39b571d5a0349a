"""Compiled accounting checks and random sweeps (tests, benchmarks); see invariants.py for the
full Python list. Error codes are > 0; 0 means every checked invariant holds."""

from __future__ import annotations

from numba import njit

from core.rng import rng_below
from troyes_env.actions import NUM_ACTIONS
from troyes_env.engine.board import nl, own_flags
from troyes_env.engine.flow import _apply, advance, legal_mask_into, settle
from troyes_env.layout import (
    NFLAG,
    NROW,
    O_ACUBE,
    O_ASUP,
    O_CATH,
    O_CUBES,
    O_DEN,
    O_DICE,
    O_FLAGS,
    O_GREY,
    O_INF,
    O_LYING,
    O_NP,
    O_OWNED,
    O_PHASE,
    O_ROLLED,
    O_ROW,
    O_SPACES,
    O_SUP,
    O_VP,
    PH_OVER,
    STATE_SIZE,
)

E_CITIZENS, E_GREY, E_CUBES, E_LYING, E_DICE, E_NEG, E_ROW, E_EMPTY_MASK, E_LONG = range(1, 10)


@njit(cache=True)
def invariant_code(s, T):
    n = s[O_NP]
    for p in range(n):
        placed = s[O_SUP + p]
        for i in range(18):
            if s[O_SPACES + i] == p:
                placed += 1
        for b in range(3):
            placed += s[O_LYING + b * 5 + p]
            if s[O_LYING + b * 5 + p] > 1:
                return E_LYING
        for pos in range(9):
            if s[O_ASUP + pos * 4 + p] > 0:
                placed += 1
        if placed != s[O_OWNED + p] or s[O_OWNED + p] > 12:
            return E_CITIZENS
        cubes = 0
        for pos in range(9):
            cubes += s[O_ACUBE + pos * 4 + p]
        for i in range(18):
            if s[O_CATH + i] == p:
                cubes += 1
        for i in range(NROW):
            cubes += own_flags(s, i, p)
        if cubes != s[O_CUBES + p]:
            return E_CUBES
        if s[O_DEN + p] < 0 or s[O_VP + p] < 0 or s[O_INF + p] < 0 or s[O_INF + p] > 20:
            return E_NEG
    g = s[O_GREY]
    for i in range(18):
        if s[O_SPACES + i] == 4:
            g += 1
    for b in range(3):
        g += s[O_LYING + b * 5 + 4]
    if g != 8:
        return E_GREY
    for d in range(5):
        for c in range(3):
            k = 0
            for v in range(6):
                k += s[O_DICE + d * 18 + c * 6 + v]
            if k > s[O_ROLLED + d * 3 + c]:
                return E_DICE
    if s[O_ROW] != 0:
        return E_ROW
    for i in range(NROW):
        if s[O_ROW + i] < 0:
            for f in range(NFLAG):
                if s[O_FLAGS + i * NFLAG + f] >= 0:
                    return E_ROW
    return 0


@njit(cache=True)
def random_game(s, T, mask, work, rng4, spare, explore, max_steps):
    """Play one random game from s. After every decision the invariants are checked; with
    `explore`, every legal action is also tried on a copy (spare) and must give a state with
    valid invariants and a non-empty mask unless over (D5). Returns (decisions, error code)."""
    k = 0
    while s[O_PHASE] != PH_OVER:
        if k >= max_steps:
            return k, E_LONG
        m = legal_mask_into(s, T, mask, work)
        if m == 0:
            return k, E_EMPTY_MASK
        if explore:
            for a in range(NUM_ACTIONS):
                legal_mask_into(s, T, mask, work)
                if mask[a] == 0:
                    continue
                for i in range(STATE_SIZE):
                    spare[i] = s[i]
                _apply(spare, T, a, work)
                advance(spare, T)
                settle(spare, T, mask, work)
                e = invariant_code(spare, T)
                if e != 0:
                    return k, e
                if spare[O_PHASE] != PH_OVER and legal_mask_into(spare, T, mask, work) == 0:
                    return k, E_EMPTY_MASK
            m = legal_mask_into(s, T, mask, work)
        j = rng_below(rng4, nl(0), m)
        act = 0
        for i in range(NUM_ACTIONS):
            if mask[i] != 0:
                if j == 0:
                    act = i
                    break
                j -= 1
        _apply(s, T, act, work)
        advance(s, T)
        settle(s, T, mask, work)
        k += 1
        e = invariant_code(s, T)
        if e != 0:
            return k, e
    return k, 0
