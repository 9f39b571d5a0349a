"""Applying one legal decision (no legality test: step.py and the checks test first), by the
decision phase the state waits for. The automatic stages that may follow are step.advance's."""

from __future__ import annotations

from core.jit import jit
from troyes_env.actions import A_ACTIVITY, A_GOON, A_NOCUBE
from troyes_env.engine.events import _apply_counter, _apply_event_choice, _apply_flip
from troyes_env.engine.setup import _apply_setup
from troyes_env.engine.turns import (
    _apply_archer,
    _apply_dice,
    _apply_source,
    _apply_turn,
    _do_activation,
    _end_turn,
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
        _apply_setup(s, T, a)
    elif ph == PH_EVENT:
        _apply_event_choice(s, T, a)
    elif ph == PH_COUNTER:
        _apply_counter(s, T, a, work)
    elif ph == PH_TURN:
        _apply_turn(s, T, a)
    elif ph == PH_CUBE:
        s[S_CUBEPOS] = -1 if a == A_NOCUBE else a - A_ACTIVITY
        s[S_PHASE] = PH_DICE
    elif ph == PH_DICE:
        _apply_dice(s, T, a)
    elif ph == PH_SOURCE:
        _apply_source(s, T, a)
    elif ph == PH_GOON:
        if a == A_GOON:
            _do_activation(s, T, s[S_CUR])
        else:
            _end_turn(s, T)
    elif ph == PH_ARCHER:
        _apply_archer(s, T, a)
    elif ph == PH_FLIP:
        _apply_flip(s, T, a)
