"""Troyes's game contract (core/game_contract.py), its rules names (the kernels are in
kernels.py, above the step driver): what the step driver and API entry points, rendered by
core.codegen, call, and what they need that is Troyes's own: the automatic stages (`advance`),
the one-action legality test of the two costly phases, the scratch size (WORK_SIZE). Nothing
here changes the rules.

Masks are bool arrays of NUM_ACTIONS; `work` is an int64 scratch buffer of WORK_SIZE entries;
nothing is allocated. Automatic stages never recurse (numba's cache cannot hold mutually
recursive functions): the driver loop `advance` runs them.
"""

from __future__ import annotations

from core.jit import jit
from troyes_env.actions import NUM_ACTIONS
from troyes_env.engine.apply import apply_action
from troyes_env.engine.events import begin_counter, run_events
from troyes_env.engine.feasible import SUM_OFF, SUM_SIZE
from troyes_env.engine.legal import legal_mask_into
from troyes_env.engine.observe import observe_into
from troyes_env.engine.rounds import start_round
from troyes_env.engine.setup import init_state
from troyes_env.engine.turns import is_dice_legal, is_turn_legal
from troyes_env.layout import (
    PH_A_COUNTER,
    PH_A_EVENTS,
    PH_A_ROUND,
    PH_DICE,
    PH_OVER,
    PH_TURN,
    S_CUR,
    S_NP,
    S_PHASE,
    S_START,
    S_VERSION,
    STATE_SIZE,
    VERSION,
)
from troyes_env.observation import OBS_SIZE

__all__ = [
    "STATE_SIZE",
    "NUM_ACTIONS",
    "S_VERSION",
    "VERSION",
    "S_GAME_ID",
    "GAME_ID",
    "S_NP",
    "OBS_SIZE",
    "ALLOCATES",
    "MASK_WRITES_STATE",
    "WORK_SIZE",
    "advance",
    "is_legal",
    "r_init",
    "r_over",
    "r_mask",
    "r_legal",
    "r_apply",
    "r_observe",
]

# the completion search's candidate list, then the dice summary of feasible.option_feasible_fast
WORK_SIZE = SUM_OFF + SUM_SIZE
S_GAME_ID = -1  # a Troyes state has no game-id field
GAME_ID = 0
ALLOCATES = False  # the rules code never allocates (jit(alloc=False) throughout)
MASK_WRITES_STATE = True  # the legal mask is a search that plays decisions in the state


@jit(alloc=False)
def advance(s, T):
    """Run the automatic stages (start of round, event row, counter turns) up to a decision."""
    while True:
        ph = s[S_PHASE]
        if ph == PH_A_ROUND:
            start_round(s, T)
        elif ph == PH_A_EVENTS:
            run_events(s, T)
        elif ph == PH_A_COUNTER:
            begin_counter(s, T, s[S_CUR])
        else:
            return


@jit(alloc=False)
def is_legal(s, T, a, mask, work):
    """Compiled legality test of one action (used by the exhaustive checks)."""
    if s[S_PHASE] == PH_OVER or a < 0 or a >= NUM_ACTIONS:
        return False
    legal_mask_into(s, T, mask, work)
    return mask[a]


@jit(alloc=False, inline=True)
def r_init(s, T, n, a, b, c, start):
    """Seat `start` holds the start player card (ED-1) and acts first."""
    init_state(s, T, n, a, b, c)
    s[S_START] = start
    s[S_CUR] = start


@jit(alloc=False, inline=True)
def r_over(s):
    return s[S_PHASE] == PH_OVER


@jit(alloc=False, inline=True)
def r_mask(s, T, mask, work):
    return legal_mask_into(s, T, mask, work)


@jit(alloc=False, inline=True)
def r_legal(s, T, a, mask, work):
    """The two costly phases test the one action; the others build the mask (cheap)."""
    ph = s[S_PHASE]
    if ph == PH_TURN:
        return is_turn_legal(s, T, a, mask, work)
    if ph == PH_DICE:
        return is_dice_legal(s, T, a, mask, work)
    legal_mask_into(s, T, mask, work)
    return mask[a]


@jit(alloc=False, inline=True)
def r_apply(s, T, a, work):
    apply_action(s, T, a, work)
    advance(s, T)


@jit(alloc=False, inline=True)
def r_observe(s, T, p, out):
    observe_into(s, T, p, out)
