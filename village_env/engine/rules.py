"""Village's game contract (core/game_contract.py): the names the step driver, the API entry
points and the loops of the batch engine, the search, the bots and the balance replay call
(rendered by core.codegen). Nothing here changes the rules; it only adapts. Village's bot looks
one step ahead, which is the search's greedy policy already, so the optional bot kernels keep
core's defaults (no lookahead, no compiled bot of its own), as does WORK_SIZE (no scratch beyond
the mask)."""

from __future__ import annotations

from core.jit import jit
from core.rng import rng_seed
from village_env.actions import NUM_ACTIONS
from village_env.engine.apply import apply_action
from village_env.engine.evaluate import evaluate_into
from village_env.engine.legal import legal_mask_into
from village_env.engine.observe import observe_into
from village_env.engine.rounds import customers_served, living_members
from village_env.engine.setup import init_state
from village_env.layout import (
    GAME_ID,
    PH_OVER,
    PH_TURN,
    S_ACTOR,
    S_GAME_ID,
    S_NP,
    S_OVER,
    S_PHASE,
    S_PRESTIGE,
    S_RNG,
    S_TRUNC,
    S_VERSION,
    STATE_SIZE,
    VERSION,
)
from village_env.observation import OBS_SIZE

__all__ = [
    "STATE_SIZE",
    "NUM_ACTIONS",
    "S_VERSION",
    "VERSION",
    "S_GAME_ID",
    "GAME_ID",
    "S_NP",
    "OBS_SIZE",
    "S_TRUNC",
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
    "k_quiet",
]

ALLOCATES = False  # the rules code allocates nothing (final scoring included)
MASK_WRITES_STATE = False  # legal_mask_into only reads the state
# S_TRUNC (imported above): the round cap's flag (ED-34), which core's k_truncated reads


@jit(inline=True)
def r_init(s, T, n, a, b, c, start):
    init_state(s, T, n, a, b, c, start)


@jit(inline=True)
def r_over(s):
    return s[S_OVER] != 0


@jit(inline=True)
def r_mask(s, T, mask, work):
    """Village needs no scratch beyond the mask."""
    return legal_mask_into(s, T, mask)


@jit(inline=True)
def r_legal(s, T, a, mask, work):
    legal_mask_into(s, T, mask)
    return mask[a]


@jit(inline=True)
def r_apply(s, T, a, work):
    """apply_action runs the automatic stages itself (market day, the end of a round)."""
    apply_action(s, T, a)


@jit(inline=True)
def r_observe(s, T, p, out):
    observe_into(s, T, p, out)


# --- kernels -------------------------------------------------------------------------------------
N_KEYS = 3  # prestige, then rules §5.3 tie-breakers: customers served, living members (ED-33)


@jit
def k_keys(s, keys):
    for p in range(s[S_NP]):
        keys[p, 0] = s[S_PRESTIGE + p]
        keys[p, 1] = customers_served(s, p)
        keys[p, 2] = living_members(s, p)


@jit
def k_actor(s):
    return s[S_ACTOR]


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
