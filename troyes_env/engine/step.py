"""The step driver (DESIGN D5, ED-5): step_inplace, step_trusted, the automatic stages
(advance) and the forced single-option decisions (settle).

Masks are bool arrays of NUM_ACTIONS; `work` is an int64 scratch buffer of WORK_SIZE entries;
nothing is allocated per step. Automatic stages never recurse (numba's cache cannot hold mutually
recursive functions), the driver loop `advance` runs them. Status codes are core.errors'.
"""

from __future__ import annotations

from core.errors import ERR_ILLEGAL, ERR_OVER, ERR_RANGE, OK
from core.jit import jit
from core.maskbits import first_set
from troyes_env.actions import NUM_ACTIONS
from troyes_env.engine.apply import apply_action
from troyes_env.engine.events import begin_counter, run_events
from troyes_env.engine.feasible import SUM_OFF, SUM_SIZE
from troyes_env.engine.legal import legal_mask_into
from troyes_env.engine.rounds import start_round
from troyes_env.engine.turns import is_dice_legal, is_turn_legal
from troyes_env.layout import (
    PH_A_COUNTER,
    PH_A_EVENTS,
    PH_A_ROUND,
    PH_DICE,
    PH_OVER,
    PH_TURN,
    S_CUR,
    S_PHASE,
)

# the completion search's candidate list, then the dice summary of feasible.option_feasible_fast
WORK_SIZE = SUM_OFF + SUM_SIZE


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
def settle(s, T, mask, work):
    """ED-5: apply every decision that has a single legal option; return how many."""
    k = 0
    while s[S_PHASE] != PH_OVER:
        m = legal_mask_into(s, T, mask, work)
        if m != 1:
            break
        apply_action(s, T, first_set(mask, NUM_ACTIONS), work)
        advance(s, T)
        k += 1
    return k


@jit(alloc=False)
def step_inplace(s, T, a, mask, work):
    """Apply action a if legal (0), else return an error code and leave s untouched."""
    if s[S_PHASE] == PH_OVER:
        return ERR_OVER
    if a < 0 or a >= NUM_ACTIONS:
        return ERR_RANGE
    ph = s[S_PHASE]
    # the two costly phases test the one action; the others build the mask (cheap)
    if ph == PH_TURN:
        ok = is_turn_legal(s, T, a, mask, work)
    elif ph == PH_DICE:
        ok = is_dice_legal(s, T, a, mask, work)
    else:
        legal_mask_into(s, T, mask, work)
        ok = mask[a]
    if not ok:
        return ERR_ILLEGAL
    apply_action(s, T, a, work)
    advance(s, T)
    settle(s, T, mask, work)
    return OK


@jit(alloc=False)
def step_trusted(s, T, a, mask, work):
    """step_inplace for a caller that holds s's legal mask in `mask` (settle leaves it there after
    every step, so the batch loops and the compiled random loop always have it): the legality
    test reads mask[a] instead of searching again. Same codes and the same next state."""
    if s[S_PHASE] == PH_OVER:  # settle builds no mask once over: a stale mask is never read
        return ERR_OVER
    if a < 0 or a >= NUM_ACTIONS:
        return ERR_RANGE
    if not mask[a]:
        return ERR_ILLEGAL
    apply_action(s, T, a, work)
    advance(s, T)
    settle(s, T, mask, work)
    return OK


@jit(alloc=False)
def is_legal(s, T, a, mask, work):
    """Compiled legality test of one action (used by the exhaustive checks)."""
    if s[S_PHASE] == PH_OVER or a < 0 or a >= NUM_ACTIONS:
        return False
    legal_mask_into(s, T, mask, work)
    return mask[a]
