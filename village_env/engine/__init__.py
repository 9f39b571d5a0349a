"""The compiled Village engine: step, masks, random play. Tables always arrive as arguments."""

from __future__ import annotations

import numpy as np

from core.agents import pick_legal
from core.errors import ERR_ILLEGAL, ERR_NO_LEGAL, ERR_RANGE, OK
from core.jit import jit
from village_env.actions import NUM_ACTIONS
from village_env.engine.apply import apply_action
from village_env.engine.flow import init_state
from village_env.engine.legal import legal_mask_into
from village_env.layout import S_OVER

__all__ = ["init_state", "legal_mask_into", "step_inplace", "random_playout", "apply_action"]


@jit
def step_inplace(s, T, a, mask):
    """Apply action a in place if legal (else return ERR_ILLEGAL and leave s untouched), then
    apply every following decision that has a single legal option (DESIGN D5, ED-3).
    `mask` is a caller-owned bool scratch buffer of NUM_ACTIONS entries."""
    if a < 0 or a >= mask.shape[0]:
        return ERR_RANGE
    n = legal_mask_into(s, T, mask)
    if n == 0 or not mask[a]:
        return ERR_ILLEGAL
    apply_action(s, T, a)
    return settle(s, T, mask)


@jit
def step_trusted(s, T, a, mask):
    """step_inplace for a caller that holds s's legal mask in `mask` (settle leaves it there after
    every step, so the batch loops and the compiled random loop always have it): legality is
    mask[a], no second mask computation. Same codes and the same next state."""
    if a < 0 or a >= mask.shape[0]:
        return ERR_RANGE
    if s[S_OVER] or not mask[a]:  # settle builds no mask once over: a stale one is never read
        return ERR_ILLEGAL
    apply_action(s, T, a)
    return settle(s, T, mask)


@jit
def settle(s, T, mask):
    """Apply forced single-option decisions until a real decision or the end."""
    while s[S_OVER] == 0:
        n = legal_mask_into(s, T, mask)
        if n == 0:
            return ERR_NO_LEGAL
        if n > 1:
            return OK
        for a in range(mask.shape[0]):
            if mask[a]:
                apply_action(s, T, a)
                break
    return OK


@jit
def random_playout(s, T, mask, rng_state, max_decisions):
    """Play random legal actions until the end; returns the number of decisions (or -1 on an
    engine error). Allocation-free: the benchmark's compiled loop."""
    k = 0
    if s[S_OVER] == 0 and legal_mask_into(s, T, mask) == 0:
        return -1
    while s[S_OVER] == 0 and k < max_decisions:
        a = pick_legal(mask, rng_state)  # mask is s's: built above, then left by settle
        if a < 0 or step_trusted(s, T, a, mask) != OK:
            return -1
        k += 1
    return k


def new_mask() -> np.ndarray:
    return np.zeros(NUM_ACTIONS, dtype=np.bool_)




@jit
def play_random_games(T, n_players, n_games, seed, s, mask, rng_state):
    """Play n_games seeded random games in the caller's buffers; returns total decisions, or -1
    on an engine error. The fully compiled benchmark loop (no allocation per step)."""
    total = 0
    for g in range(n_games):
        init_state(s, T, n_players, seed, g, 0, 0)
        if settle(s, T, mask) != OK:
            return -1
        k = random_playout(s, T, mask, rng_state, 1_000_000)
        if k < 0:
            return -1
        total += k
    return total
