"""Masks, the step function and the automatic-stage driver (D5, ED-5); entry points.

Entry points: init_state, legal_mask_into, step_inplace, settle, advance. Masks are int8
arrays of NUM_ACTIONS; `work` is an int64 scratch buffer of WORK_SIZE entries; nothing is
allocated per step. Automatic stages never recurse (numba's cache cannot hold mutually
recursive functions), the driver loop `advance` runs them.
"""

from __future__ import annotations

from numba import njit

from core.maskbits import first_set
from troyes_env.actions import (
    A_ACTIVITY,
    A_GOON,
    A_NOCUBE,
    A_SPACE,
    A_STOP,
    NUM_ACTIONS,
)
from troyes_env.engine.board import nl
from troyes_env.engine.events import (
    _apply_counter,
    _apply_event_choice,
    _apply_flip,
    _begin_counter,
    _event_options,
    _mask_counter,
    _mask_flip,
    _run_events,
)
from troyes_env.engine.feasible import SUM_OFF, SUM_SIZE
from troyes_env.engine.rounds import (  # noqa: F401
    _apply_setup,
    _enter_card,
    _setup_space_legal,
    _start_round,
    init_state,
)
from troyes_env.engine.turns import (
    _apply_archer,
    _apply_dice,
    _apply_source,
    _apply_turn,
    _dice_legal,
    _do_activation,
    _end_turn,
    _mask_archer,
    _mask_cube,
    _mask_dice,
    _mask_source,
    _mask_turn,
    _turn_legal,
)
from troyes_env.layout import (
    O_CUBEPOS,
    O_CUR,
    O_EVPOS,
    O_PHASE,
    O_ROW,
    PH_A_COUNTER,
    PH_A_EVENTS,
    PH_A_ROUND,
    PH_ARCHER,
    PH_COUNTER,
    PH_CUBE,
    PH_DICE,
    PH_EVENT,
    PH_FLIP,
    PH_GOON,
    PH_OVER,
    PH_SETUP,
    PH_SOURCE,
    PH_TURN,
)
from troyes_env.tables import (
    E_EFF,
    E_W,
    T_EV,
)

# the completion search's candidate list, then the dice summary of feasible.option_feasible_fast
WORK_SIZE = SUM_OFF + SUM_SIZE

ERR_OK, ERR_RANGE, ERR_OVER, ERR_ILLEGAL = 0, 1, 2, 3


@njit(cache=True, _nrt=False)
def legal_mask_into(s, T, mask, work):
    """Fill mask (int8, NUM_ACTIONS) with the legal actions (D5); return how many."""
    for i in range(NUM_ACTIONS):
        mask[i] = 0
    ph = s[O_PHASE]
    m = 0
    if ph == PH_SETUP:
        for sp in range(18):
            if _setup_space_legal(s, T, sp):
                mask[A_SPACE + sp] = 1
                m += 1
    elif ph == PH_EVENT:
        card = s[O_ROW + s[O_EVPOS]]
        m = _event_options(s, T, s[O_CUR], T[T_EV + card * E_W + E_EFF], mask, nl(True))
    elif ph == PH_COUNTER:
        m = _mask_counter(s, T, mask)
    elif ph == PH_TURN:
        m = _mask_turn(s, T, mask, work)
    elif ph == PH_CUBE:
        m = _mask_cube(s, T, mask, work)
    elif ph == PH_DICE:
        m = _mask_dice(s, T, mask, work)
    elif ph == PH_SOURCE:
        m = _mask_source(s, T, mask)
    elif ph == PH_GOON:
        mask[A_GOON] = 1
        mask[A_STOP] = 1
        m = 2
    elif ph == PH_ARCHER:
        m = _mask_archer(s, T, mask)
    elif ph == PH_FLIP:
        m = _mask_flip(s, T, mask)
    return m


@njit(cache=True, _nrt=False)
def _apply(s, T, a, work):
    ph = s[O_PHASE]
    if ph == PH_SETUP:
        _apply_setup(s, T, a)
    elif ph == PH_EVENT:
        _apply_event_choice(s, T, a)
    elif ph == PH_COUNTER:
        _apply_counter(s, T, a, work)
    elif ph == PH_TURN:
        _apply_turn(s, T, a)
    elif ph == PH_CUBE:
        s[O_CUBEPOS] = -1 if a == A_NOCUBE else a - A_ACTIVITY
        s[O_PHASE] = PH_DICE
    elif ph == PH_DICE:
        _apply_dice(s, T, a)
    elif ph == PH_SOURCE:
        _apply_source(s, T, a)
    elif ph == PH_GOON:
        if a == A_GOON:
            _do_activation(s, T, s[O_CUR])
        else:
            _end_turn(s, T)
    elif ph == PH_ARCHER:
        _apply_archer(s, T, a)
    elif ph == PH_FLIP:
        _apply_flip(s, T, a)


@njit(cache=True, _nrt=False)
def advance(s, T):
    """Run the automatic stages (start of round, event row, counter turns) up to a decision."""
    while True:
        ph = s[O_PHASE]
        if ph == PH_A_ROUND:
            _start_round(s, T)
        elif ph == PH_A_EVENTS:
            _run_events(s, T)
        elif ph == PH_A_COUNTER:
            _begin_counter(s, T, s[O_CUR])
        else:
            return


@njit(cache=True, _nrt=False)
def settle(s, T, mask, work):
    """ED-5: apply every decision that has a single legal option; return how many."""
    k = 0
    while s[O_PHASE] != PH_OVER:
        m = legal_mask_into(s, T, mask, work)
        if m != 1:
            break
        _apply(s, T, first_set(mask, NUM_ACTIONS), work)
        advance(s, T)
        k += 1
    return k


@njit(cache=True, _nrt=False)
def step_inplace(s, T, a, mask, work):
    """Apply action a if legal (0), else return an error code and leave s untouched."""
    if s[O_PHASE] == PH_OVER:
        return ERR_OVER
    if a < 0 or a >= NUM_ACTIONS:
        return ERR_RANGE
    ph = s[O_PHASE]
    # the two costly phases test the one action; the others build the mask (cheap)
    if ph == PH_TURN:
        ok = _turn_legal(s, T, a, mask, work)
    elif ph == PH_DICE:
        ok = _dice_legal(s, T, a, mask, work)
    else:
        legal_mask_into(s, T, mask, work)
        ok = mask[a] != 0
    if not ok:
        return ERR_ILLEGAL
    _apply(s, T, a, work)
    advance(s, T)
    settle(s, T, mask, work)
    return ERR_OK


@njit(cache=True, _nrt=False)
def step_trusted(s, T, a, mask, work):
    """step_inplace for a caller that holds s's legal mask in `mask` (settle leaves it there after
    every step, so the batch loops and the compiled random loop always have it): the legality
    test reads mask[a] instead of searching again. Same codes and the same next state."""
    if s[O_PHASE] == PH_OVER:  # settle builds no mask once over: a stale mask is never read
        return ERR_OVER
    if a < 0 or a >= NUM_ACTIONS:
        return ERR_RANGE
    if mask[a] == 0:
        return ERR_ILLEGAL
    _apply(s, T, a, work)
    advance(s, T)
    settle(s, T, mask, work)
    return ERR_OK


@njit(cache=True, _nrt=False)
def is_legal(s, T, a, mask, work):
    """Compiled legality test of one action (used by the exhaustive checks)."""
    if s[O_PHASE] == PH_OVER or a < 0 or a >= NUM_ACTIONS:
        return False
    legal_mask_into(s, T, mask, work)
    return mask[a] != 0
