"""State accessors and small mutators shared by the Chip In rules modules (all allocation-free).

`add_score` is the only code that writes a score, so each seat's `score_src` row always sums to
its score (checks.py tests it)."""

from __future__ import annotations

from core.jit import jit
from core.rng import rng_below

from chipin_env.layout import (
    N_SCORE_SOURCES,
    PH_OVER,
    S_ACTOR,
    S_FACE,
    S_LEFT,
    S_OVER,
    S_OWNER,
    S_PHASE,
    S_POT,
    S_RNG,
    S_ROUND,
    S_SCORE,
    S_SCORE_SRC,
    S_STACK,
)
from chipin_env.tables import N_CARDS, T_CARD_LOW, T_REMOVED


@jit(alloc=False)
def add_score(s, p, delta, src):
    """Seat p's score changes by delta, credited to score source `src` (layout.SCORE_SOURCES)."""
    s[S_SCORE + p] += delta
    s[S_SCORE_SRC + p * N_SCORE_SOURCES + src] += delta


@jit(alloc=False)
def card_penalty(s, T, p):
    """The sum of the lowest card of each run of consecutive cards seat p holds."""
    low = T[T_CARD_LOW]
    total = 0
    for i in range(N_CARDS):
        if s[S_OWNER + i] == p and (i == 0 or s[S_OWNER + i - 1] != p):
            total += low + i
    return total


@jit(alloc=False)
def deck_size(T):
    """Cards in the deck at setup: all but the removed ones."""
    return N_CARDS - T[T_REMOVED]


@jit(alloc=False)
def stack_slot(T, left, j):
    """Position in `stack` of the j-th card nobody has seen: the deck's `left` cards first, then
    the removed cards at the end of the segment."""
    return j if j < left else deck_size(T) + (j - left)


@jit(alloc=False)
def shuffle_unseen(s, T):
    """Shuffle the cards nobody has seen (the deck and the removed cards, as one pile) in place
    with the state's RNG (Fisher-Yates)."""
    left = s[S_LEFT]
    m = left + T[T_REMOVED]
    for j in range(m - 1, 0, -1):
        k = rng_below(s, S_RNG, j + 1)
        a = S_STACK + stack_slot(T, left, j)
        b = S_STACK + stack_slot(T, left, k)
        t = s[a]
        s[a] = s[b]
        s[b] = t


@jit(alloc=False)
def reveal_next(s):
    """Turn the deck's next card face up (the deck is not empty); the pot stays as it is."""
    left = s[S_LEFT] - 1
    s[S_LEFT] = left
    s[S_FACE] = s[S_STACK + left]
    s[S_STACK + left] = -1
    s[S_ROUND] += 1


@jit(alloc=False)
def end_game(s):
    """The deck is exhausted and the last card taken: the scores are final."""
    s[S_FACE] = -1
    s[S_POT] = 0
    s[S_PHASE] = PH_OVER
    s[S_ACTOR] = -1
    s[S_OVER] = 1
