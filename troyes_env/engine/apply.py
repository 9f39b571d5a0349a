"""Applying one legal decision (no legality test: step.py and the checks test first), by the
decision phase the state waits for. The automatic stages that may follow are step.advance's."""

from __future__ import annotations

from core.jit import jit
from troyes_env.actions import A_ACTIVITY, A_GOON, A_NOCUBE
from troyes_env.engine.events import apply_counter, apply_event_choice, apply_flip
from troyes_env.engine.setup import apply_setup
from troyes_env.engine.turns import (
    apply_activation,
    apply_archer,
    apply_dice,
    apply_source,
    apply_turn,
    end_turn,
)
from troyes_env.layout import (
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
    S_CUBEPOS,
    S_CUR,
    S_PHASE,
)


@jit(alloc=False)
def apply_action(s, T, a, work):
    """Apply the legal action a to s (the decision of phase s[S_PHASE])."""
    ph = s[S_PHASE]
    if ph == PH_SETUP:
        apply_setup(s, T, a)
    elif ph == PH_EVENT:
        apply_event_choice(s, T, a)
    elif ph == PH_COUNTER:
        apply_counter(s, T, a, work)
    elif ph == PH_TURN:
        apply_turn(s, T, a)
    elif ph == PH_CUBE:
        s[S_CUBEPOS] = -1 if a == A_NOCUBE else a - A_ACTIVITY
        s[S_PHASE] = PH_DICE
    elif ph == PH_DICE:
        apply_dice(s, T, a)
    elif ph == PH_SOURCE:
        apply_source(s, T, a)
    elif ph == PH_GOON:
        if a == A_GOON:
            apply_activation(s, T, s[S_CUR])
        else:
            end_turn(s, T)
    elif ph == PH_ARCHER:
        apply_archer(s, T, a)
    elif ph == PH_FLIP:
        apply_flip(s, T, a)
