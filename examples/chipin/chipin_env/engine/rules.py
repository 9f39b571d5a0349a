"""Chip In's game contract (core/game_contract.py): the names the step driver, the API entry
points and the loops of the batch engine, the search, the bots and the balance replay call
(rendered by core.codegen). Nothing here changes the rules; it only adapts. The optional names
keep core's defaults: no scratch beyond the mask, no safety cap, every decision quiet (a score is
never half-made), no lookahead or compiled bot of its own."""

from __future__ import annotations

from core.jit import jit
from core.rng import rng_seed

from chipin_env.actions import NUM_ACTIONS
from chipin_env.engine.apply import apply_action
from chipin_env.engine.board import shuffle_unseen, stack_slot
from chipin_env.engine.legal import legal_mask_into
from chipin_env.engine.observe import observe_into
from chipin_env.engine.setup import init_state
from chipin_env.layout import (
    GAME_ID,
    S_ACTOR,
    S_BURIED,
    S_CHIPS,
    S_FACE,
    S_GAME_ID,
    S_LEFT,
    S_NP,
    S_OVER,
    S_OWNER,
    S_RNG,
    S_SCORE,
    S_STACK,
    S_VERSION,
    STATE_SIZE,
    VERSION,
)
from chipin_env.tables import N_CARDS, T_REMOVED

__all__ = [
    "STATE_SIZE",
    "NUM_ACTIONS",
    "S_VERSION",
    "VERSION",
    "S_GAME_ID",
    "GAME_ID",
    "S_NP",
    "ALLOCATES",
    "MASK_WRITES_STATE",
    "r_init",
    "r_over",
    "r_mask",
    "r_legal",
    "r_apply",
    "r_observe",
    "N_KEYS",
    "k_keys",
    "k_actor",
    "k_determinize",
    "k_evaluate",
]

ALLOCATES = False  # the rules code never allocates (jit(alloc=False) throughout)
MASK_WRITES_STATE = False  # legal_mask_into only reads the state


@jit(inline=True)
def r_init(s, T, n, a, b, c, start):
    init_state(s, T, n, a, b, c, start)


@jit(inline=True)
def r_over(s):
    return s[S_OVER] != 0


@jit(inline=True)
def r_mask(s, T, mask, work):
    """Chip In needs no scratch beyond the mask."""
    return legal_mask_into(s, T, mask)


@jit(inline=True)
def r_legal(s, T, a, mask, work):
    legal_mask_into(s, T, mask)
    return mask[a]


@jit(inline=True)
def r_apply(s, T, a, work):
    apply_action(s, T, a)


@jit(inline=True)
def r_observe(s, T, p, out):
    observe_into(s, T, p, out)


# --- kernels -------------------------------------------------------------------------------------
N_KEYS = 2  # score, then the tie-breaker: more chips left (then a shared win)


@jit
def k_keys(s, keys):
    for p in range(s[S_NP]):
        keys[p, 0] = s[S_SCORE + p]
        keys[p, 1] = s[S_CHIPS + p]


@jit
def k_actor(s):
    return s[S_ACTOR]


@jit(alloc=False)
def k_determinize(s, T, observer, a, b, c, work):
    """Every player sees the same thing, so `observer` does not matter: the cards nobody has
    seen (not face up, held or buried) are gathered in ascending order into the deck's and the
    removed cards' slots, then shuffled with the RNG seeded by (a, b, c). The result depends
    only on public information and the seed words."""
    rng_seed(s, S_RNG, a, b, c)
    left = s[S_LEFT]
    j = 0
    for i in range(N_CARDS):
        if s[S_OWNER + i] < 0 and s[S_BURIED + i] == 0 and s[S_FACE] != i:
            s[S_STACK + stack_slot(T, left, j)] = i
            j += 1
    if j == left + T[T_REMOVED]:  # always, in a consistent state
        shuffle_unseen(s, T)


@jit(alloc=False)
def k_evaluate(s, T, out, tmp):
    """The projected final score is the score now: chips minus runs is exactly the final
    formula, and no later event changes it except the players' own actions."""
    n = s[S_NP]
    for p in range(out.shape[0]):
        out[p] = s[S_SCORE + p] if p < n else 0.0
