"""Legality (DESIGN D5): the legal mask of a state, built by the decision phase it waits for.

Masks are bool arrays of NUM_ACTIONS; `work` is an int64 scratch buffer of step.WORK_SIZE
entries; nothing is allocated.
"""

from __future__ import annotations

from core.jit import jit, nl
from troyes_env.actions import A_GOON, A_SPACE, A_STOP, NUM_ACTIONS
from troyes_env.engine.events import legal_counter, legal_event_options, legal_flip
from troyes_env.engine.setup import is_setup_space_legal
from troyes_env.engine.turns import (
    legal_archer,
    legal_cube,
    legal_dice,
    legal_source,
    legal_turn,
)
from troyes_env.layout import (
    N_SPACES,
    PH_ARCHER,
    PH_COUNTER,
    PH_CUBE,
    PH_DICE,
    PH_EVENT,
    PH_FLIP,
    PH_GOON,
    PH_SETUP,
    PH_SOURCE,
    PH_TURN,
    S_CUR,
    S_EVPOS,
    S_PHASE,
    S_ROW,
)
from troyes_env.tables import E_EFF, E_W, T_EV


@jit(alloc=False)
def legal_mask_into(s, T, mask, work):
    """Fill mask (bool, NUM_ACTIONS) with the legal actions (D5); return how many."""
    for i in range(NUM_ACTIONS):
        mask[i] = False
    ph = s[S_PHASE]
    m = 0
    if ph == PH_SETUP:
        for sp in range(N_SPACES):
            if is_setup_space_legal(s, T, sp):
                mask[A_SPACE + sp] = True
                m += 1
    elif ph == PH_EVENT:
        card = s[S_ROW + s[S_EVPOS]]
        m = legal_event_options(s, T, s[S_CUR], T[T_EV + card * E_W + E_EFF], mask, nl(True))
    elif ph == PH_COUNTER:
        m = legal_counter(s, T, mask)
    elif ph == PH_TURN:
        m = legal_turn(s, T, mask, work)
    elif ph == PH_CUBE:
        m = legal_cube(s, T, mask, work)
    elif ph == PH_DICE:
        m = legal_dice(s, T, mask, work)
    elif ph == PH_SOURCE:
        m = legal_source(s, T, mask)
    elif ph == PH_GOON:
        mask[A_GOON] = True
        mask[A_STOP] = True
        m = 2
    elif ph == PH_ARCHER:
        m = legal_archer(s, T, mask)
    elif ph == PH_FLIP:
        m = legal_flip(s, T, mask)
    return m
