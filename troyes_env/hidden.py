"""What a Troyes player cannot see, resampled (ED-35): for search agents (`determinize`) and for
the test that observations leak nothing (`perturb_hidden`).

Hidden: the other players' Character cards (rules §2), the order of the undrawn part of each
event deck, each face-down Activity card (only its colour and level are known), and future dice.
"""

from __future__ import annotations

import numpy as np

from core.rng import rng_below, rng_seed, split_seed
from troyes_env.layout import LAYOUT, MAXP, N_ACTPOS, S_AHID, S_CHARS, S_DECKS, S_DRAWN, S_NP, S_RNG
from troyes_env.tables import A_COL, A_LVL, A_W, N_ACT, N_CHAR, T_ACT

_N_DECKS, _DECK = LAYOUT.segments["decks"].shape
_PER_SEAT = LAYOUT.segments["chars"].shape[1]  # Character cards dealt to each seat
_LEVELS = 3  # Activity card levels I-III per colour: position = colour * 3 + level - 1
_SALT = 0x5DEECE66D  # the resampling stream differs from the game's own chance stream


def resample(state: np.ndarray, observer: int, seed: int, T: np.ndarray) -> np.ndarray:
    """A copy of `state` with everything `observer` cannot see redrawn, consistently with what
    they know; observer -1 keeps every Character with its owner (only what nobody sees moves).

    Other players' characters are redrawn from the cards the observer does not hold; the undrawn
    part of each event deck is reshuffled; each face-down Activity card is redrawn among the
    cards of its colour and level; the RNG is reseeded."""
    s = state.copy()
    rng_seed(s, S_RNG, *split_seed(seed))
    n = int(s[S_NP])
    r = np.zeros(4, dtype=np.int64)
    rng_seed(r, 0, *split_seed(seed ^ _SALT))

    def below(k):
        return int(rng_below(r, 0, k))

    def shuffle(xs):
        for i in range(len(xs) - 1, 0, -1):
            j = below(i + 1)
            xs[i], xs[j] = xs[j], xs[i]

    chars = s[S_CHARS : S_CHARS + MAXP * _PER_SEAT].reshape(MAXP, _PER_SEAT)
    if observer >= 0:
        own = {int(x) for x in chars[observer] if x >= 0}
        pool = [c for c in range(N_CHAR) if c not in own]
        shuffle(pool)
        k = 0
        for q in range(n):
            if q == observer:
                continue
            for j in range(_PER_SEAT):
                if chars[q, j] >= 0:
                    chars[q, j] = pool[k]
                    k += 1
    decks = s[S_DECKS : S_DECKS + _N_DECKS * _DECK].reshape(_N_DECKS, _DECK)
    for col in range(_N_DECKS):
        dr = int(s[S_DRAWN + col])
        m = int((decks[col] >= 0).sum())
        rest = [int(x) for x in decks[col, dr:m]]
        shuffle(rest)
        decks[col, dr:m] = rest
    for pos in range(N_ACTPOS):
        if s[S_AHID + pos] >= 0:
            col, lvl = pos // _LEVELS, pos % _LEVELS + 1
            cands = [
                c
                for c in range(N_ACT)
                if T[T_ACT + c * A_W + A_COL] == col and T[T_ACT + c * A_W + A_LVL] == lvl
            ]
            s[S_AHID + pos] = cands[below(len(cands))]
    return s


def determinize(state: np.ndarray, observer: int, seed: int, T: np.ndarray) -> np.ndarray:
    return resample(state, observer, seed, T)


def perturb_hidden(state: np.ndarray, seed: int, T: np.ndarray) -> np.ndarray:
    return resample(state, -1, seed, T)
