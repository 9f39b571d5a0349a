"""Troyes's batch kernels: the single-game compiled functions behind the uniform signatures
core.batch expects (see its docstring). Nothing here changes the rules; it only adapts."""

from __future__ import annotations

import numpy as np

from core.agents import pick_legal
from core.jit import jit
from troyes_env.engine.evaluate import evaluate_into
from troyes_env.engine.hidden import determinize_into
from troyes_env.engine.legal import legal_mask_into
from troyes_env.engine.observe import observe_into
from troyes_env.engine.setup import init_state
from troyes_env.engine.step import WORK_SIZE, settle, step_trusted
from troyes_env.layout import PH_OVER, PH_SETUP, PH_TURN, S_CUR, S_FINAL, S_NP, S_PHASE, S_VP

N_KEYS = 2  # VP, then one constant column: Troyes has no tie-breaker (ED-34)
__all__ = ["WORK_SIZE", "N_KEYS"]


@jit(alloc=False)
def k_init(s, T, n, a, b, c, mask, work):
    """`new_game(n, seed)` with seed words (a, b, c), start player 0; leaves mask legal."""
    init_state(s, T, n, a, b, c)
    settle(s, T, mask, work)
    legal_mask_into(s, T, mask, work)


@jit(alloc=False)
def k_step(s, T, a, mask, work):
    """The batch keeps each slot's legal mask (core.batch contract), so legality is mask[a]."""
    return step_trusted(s, T, a, mask, work)


@jit(alloc=False)
def k_mask(s, T, mask, work):
    return legal_mask_into(s, T, mask, work)


@jit(alloc=False)
def k_observe(s, T, p, out):
    observe_into(s, T, p, out)


@jit(alloc=False)
def k_keys(s, keys):
    over = s[S_PHASE] == PH_OVER
    for p in range(s[S_NP]):
        keys[p, 0] = s[S_FINAL + p] if over else s[S_VP + p]
        keys[p, 1] = 0


@jit(alloc=False)
def k_over(s):
    return s[S_PHASE] == PH_OVER


@jit(alloc=False)
def k_actor(s):
    return s[S_CUR]


@jit(alloc=False)
def k_truncated(s):
    return False


@jit(alloc=False)
def k_determinize(s, T, observer, a, b, c, work):
    """ED-35: the others' Character cards, the undrawn deck orders, the face-down Activity cards
    and the RNG redrawn (engine/hidden.py); observer -1 keeps every Character with its owner."""
    determinize_into(s, T, observer, a, b, c, work)


@jit(alloc=False)
def k_evaluate(s, T, out, tmp):
    """The heuristic bot's projected final score per seat (engine/evaluate.py), each Character
    card some seat holds in s counted in full."""
    evaluate_into(s, T, out, tmp)


@jit(alloc=False)
def k_quiet(s):
    """Quiet = a turn's first decision (pre-placement or an action-phase turn, DP-1/DP-4) or the
    end: the search's rollout cut-off waits for one, so the projection never scores a half-made
    action (a die chosen, its citizen source not yet)."""
    ph = s[S_PHASE]
    return ph == PH_SETUP or ph == PH_TURN or ph == PH_OVER


@jit
def play_random_games(T, n_players, n_games, seed, s, mask, rng_state):
    """Play n_games seeded random games (seed words (seed, g, 0)) in the caller's buffers with
    RandomAgent's draw (core.agents.pick_legal); returns total decisions, or -1 on an engine
    error (benchmark loop)."""
    work = np.zeros(WORK_SIZE, dtype=np.int64)
    total = 0
    for g in range(n_games):
        k_init(s, T, n_players, seed, g, 0, mask, work)
        while s[S_PHASE] != PH_OVER:
            a = pick_legal(mask, rng_state)
            if a < 0 or step_trusted(s, T, a, mask, work) != 0:  # mask: settle's, of s
                return -1
            total += 1
    return total
