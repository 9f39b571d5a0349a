"""Village's batch kernels: the single-game compiled functions behind the uniform signatures
core.batch expects (see its docstring). Nothing here changes the rules; it only adapts."""

from __future__ import annotations

from core.jit import jit
from village_env.engine import settle, step_trusted
from village_env.engine.flow import customers_served, init_state, living_members
from village_env.engine.legal import legal_mask_into
from village_env.layout import S_ACTOR, S_NP, S_OVER, S_PRESTIGE, S_TRUNC
from village_env.observation import observe_into

WORK_SIZE = 0  # Village needs no scratch beyond the mask
N_KEYS = 3  # prestige, then rules §5.3 tie-breakers: customers served, living members (ED-33)


@jit
def k_init(s, T, n, a, b, c, mask, work):
    """`new_game(n, seed)` with seed words (a, b, c), start player 0; leaves mask legal."""
    init_state(s, T, n, a, b, c, 0)
    settle(s, T, mask)
    legal_mask_into(s, T, mask)


@jit
def k_step(s, T, a, mask, work):
    """The batch keeps each slot's legal mask (core.batch contract), so legality is mask[a]."""
    return step_trusted(s, T, a, mask)


@jit
def k_mask(s, T, mask, work):
    return legal_mask_into(s, T, mask)


@jit
def k_observe(s, T, p, out):
    observe_into(s, T, p, out)


@jit
def k_keys(s, keys):
    for p in range(s[S_NP]):
        keys[p, 0] = s[S_PRESTIGE + p]
        keys[p, 1] = customers_served(s, p)
        keys[p, 2] = living_members(s, p)


@jit
def k_over(s):
    return s[S_OVER] != 0


@jit
def k_actor(s):
    return s[S_ACTOR]


@jit
def k_truncated(s):
    return s[S_TRUNC] != 0
