"""Chip In's kernels (the contract of core/kernels_contract.py): the single-game compiled
functions behind the batch loops and the compiled search. Nothing here changes the rules; it
only adapts."""

from __future__ import annotations

from core.jit import jit
from core.rng import rng_seed

from chipin_env.engine.board import shuffle_unseen, stack_slot
from chipin_env.engine.legal import legal_mask_into
from chipin_env.engine.observe import observe_into
from chipin_env.engine.setup import init_state
from chipin_env.engine.step import settle, step_trusted
from chipin_env.layout import (
    S_ACTOR,
    S_BURIED,
    S_CHIPS,
    S_FACE,
    S_LEFT,
    S_NP,
    S_OVER,
    S_OWNER,
    S_RNG,
    S_SCORE,
    S_STACK,
)
from chipin_env.tables import N_CARDS, T_REMOVED

WORK_SIZE = 0  # no scratch beyond the mask
N_KEYS = 2  # score, then the tie-breaker: more chips left (then a shared win)


@jit
def k_init(s, T, n, a, b, c, mask, work):
    """`new_game(n, seed)` with seed words (a, b, c), start player 0; leaves mask legal."""
    init_state(s, T, n, a, b, c, 0)
    settle(s, T, mask, work)
    legal_mask_into(s, T, mask)


@jit
def k_step(s, T, a, mask, work):
    """The batch keeps each slot's legal mask (core.batch contract), so legality is mask[a]."""
    return step_trusted(s, T, a, mask, work)


@jit
def k_mask(s, T, mask, work):
    return legal_mask_into(s, T, mask)


@jit
def k_observe(s, T, p, out):
    observe_into(s, T, p, out)


@jit
def k_keys(s, keys):
    for p in range(s[S_NP]):
        keys[p, 0] = s[S_SCORE + p]
        keys[p, 1] = s[S_CHIPS + p]


@jit
def k_over(s):
    return s[S_OVER] != 0


@jit
def k_actor(s):
    return s[S_ACTOR]


@jit
def k_truncated(s):
    return False  # no safety cap: every game ends when the deck runs out (README: the bound)


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


@jit(alloc=False)
def k_quiet(s):
    """Every decision is between turns: a score is never half-made."""
    return True


BOT_SCRATCH_I = 1  # k_bot_values needs no scratch: there is no lookahead beyond
BOT_SCRATCH_F = 1  # the search's greedy policy


@jit(alloc=False)
def k_bot_values(s, T, legal, val, bi, bf, bmask, work):
    """No lookahead of its own: `rollout=bot` plays the greedy policy."""
    return 1


@jit(alloc=False)
def k_own_bot_values(bot, s, probe, T, me, legal, val, bi, bf, bmask, work):
    """No compiled bot of its own (Chip In's `heuristic` is core.bots' generic greedy one)."""
    return 1
