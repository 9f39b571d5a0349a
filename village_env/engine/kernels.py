"""Village's batch kernels: the single-game compiled functions behind the uniform signatures
core.batch expects (see its docstring). Nothing here changes the rules; it only adapts."""

from __future__ import annotations

from core.jit import jit
from core.rng import rng_seed
from village_env.engine.evaluate import evaluate_into
from village_env.engine.legal import legal_mask_into
from village_env.engine.observe import observe_into
from village_env.engine.rounds import customers_served, living_members
from village_env.engine.setup import init_state
from village_env.engine.step import settle, step_trusted
from village_env.layout import (
    PH_OVER,
    PH_TURN,
    S_ACTOR,
    S_NP,
    S_OVER,
    S_PHASE,
    S_PRESTIGE,
    S_RNG,
    S_TRUNC,
)

WORK_SIZE = 0  # Village needs no scratch beyond the mask
N_KEYS = 3  # prestige, then rules §5.3 tie-breakers: customers served, living members (ED-33)


@jit(inline=True)
def k_init(s, T, n, a, b, c, mask, work):
    """`new_game(n, seed)` with seed words (a, b, c), start player 0; leaves mask legal."""
    init_state(s, T, n, a, b, c, 0)
    settle(s, T, mask, work)
    legal_mask_into(s, T, mask)


@jit(inline=True)
def k_step(s, T, a, mask, work):
    """The batch keeps each slot's legal mask (core.batch contract), so legality is mask[a]."""
    return step_trusted(s, T, a, mask, work)


@jit(inline=True)
def k_mask(s, T, mask, work):
    return legal_mask_into(s, T, mask)


@jit(inline=True)
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


@jit(alloc=False)
def k_determinize(s, T, observer, a, b, c, work):
    """ED-35: nothing is hidden but future chance (the pile's composition is public, its order is
    drawn at draw time from the state's RNG), so a determinization is a reseed (Game.reseed)."""
    rng_seed(s, S_RNG, a, b, c)


@jit(alloc=False)
def k_evaluate(s, T, out, tmp):
    """The heuristic bot's projected final score per seat (engine/evaluate.py)."""
    evaluate_into(s, T, out, tmp)


@jit(alloc=False)
def k_quiet(s):
    """Quiet = a turn's first decision (PH_TURN) or the end: the search's rollout
    cut-off waits for one, so the projection never scores a half-made action."""
    ph = s[S_PHASE]
    return ph == PH_TURN or ph == PH_OVER


BOT_SCRATCH_I = 1  # k_bot_values needs no scratch: Village's bot looks one step ahead, which
BOT_SCRATCH_F = 1  # is the search's greedy policy already


@jit(alloc=False)
def k_bot_values(s, T, legal, val, bi, bf, bmask, work):
    """No lookahead beyond one step (the heuristic bot is greedy on k_evaluate): `rollout=bot`
    plays the greedy policy."""
    return 1


@jit(alloc=False)
def k_own_bot_values(bot, s, probe, T, me, legal, val, bi, bf, bmask, work):
    """No compiled bot of its own (Village's `heuristic` is core.bots' generic greedy one)."""
    return 1
