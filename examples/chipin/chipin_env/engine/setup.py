"""Compiled setup of a new seeded game: the cards shuffled, some removed unseen, the chips dealt
and the first card turned face up."""

from __future__ import annotations

from core.jit import jit
from core.rng import rng_seed

from chipin_env.engine.board import add_score, deck_size, reveal_next, shuffle_unseen
from chipin_env.layout import (
    GAME_ID,
    PH_TURN,
    S_ACTOR,
    S_BURIES,
    S_CHIPS,
    S_FACE,
    S_GAME_ID,
    S_LEFT,
    S_NP,
    S_OWNER,
    S_PHASE,
    S_RNG,
    S_STACK,
    S_VERSION,
    SRC_CHIPS,
    STATE_SIZE,
    VERSION,
)
from chipin_env.tables import N_CARDS, T_BURIES, T_CHIPS, T_REMOVED


@jit(alloc=False)
def init_state(s, T, n, a, b, c, start):
    """A new n-player game seeded by the words (a, b, c) in s, seat `start` to act first."""
    for i in range(STATE_SIZE):
        s[i] = 0
    s[S_GAME_ID] = GAME_ID
    s[S_VERSION] = VERSION
    s[S_NP] = n
    rng_seed(s, S_RNG, a, b, c)
    # every card starts unseen: the deck, then the removed ones, shuffled as one pile, so the
    # removed cards are a uniform draw and the deck a uniform order of the rest
    s[S_LEFT] = deck_size(T)
    for i in range(N_CARDS):
        s[S_OWNER + i] = -1
        s[S_STACK + i] = -1
    for j in range(deck_size(T)):
        s[S_STACK + j] = j
    for j in range(T[T_REMOVED]):
        s[S_STACK + deck_size(T) + j] = deck_size(T) + j
    shuffle_unseen(s, T)
    chips = T[T_CHIPS + n]
    for p in range(n):
        s[S_CHIPS + p] = chips
        add_score(s, p, chips, SRC_CHIPS)
        s[S_BURIES + p] = T[T_BURIES]
    s[S_FACE] = -1
    reveal_next(s)
    s[S_PHASE] = PH_TURN
    s[S_ACTOR] = start
